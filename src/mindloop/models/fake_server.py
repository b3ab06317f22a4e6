"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests, benchmarks and users' own pipelines.

:class:`FakeChatServer` answers ``POST /v1/chat/completions`` (and ``GET /v1/models``) from a background
thread, so the HTTP client, its retries, timeouts and concurrency limit all run for real with no model and no
network. Replies come from a ``reply`` callable (default: echo the last user message), after ``latency_s``;
a fault plan injects failures in order, one per chat request, before normal answers resume:

``"429"`` (with a ``Retry-After`` header) or any other status code, ``"malformed"`` (a 200 whose JSON is cut
off), ``"drop"`` (the connection closes with no answer), ``"hang"`` (no answer for ``hang_s``, longer than any
client timeout), ``"endless"`` (a 200 whose chunked body never ends, until the client goes or the server stops)
and ``"ok"`` (a normal answer). ``raw_reply`` sends a body of its own making as each normal answer (a hostile
server: lone surrogates, malformed ``usage``, JSON nested without end), with ``raw_headers`` added;
``fault_message`` is the error text of injected status faults.

``slots=N`` makes it serve like a local server: at most ``N`` chat requests at once, the others queued in
arrival order (llama.cpp's server has one slot by default; llama-cpp-python's serves one request at a time).
A queued request whose client has gone by its turn is dropped unanswered and counted in ``abandoned``, as
llama-cpp-python does. ``advertise_slots=True`` also answers llama.cpp's ``GET /props`` (``total_slots``) and
``GET /slots``; ``openapi_title`` answers ``GET /openapi.json`` with that title (llama-cpp-python's server is
recognised by its title, ``🦙 llama.cpp Python API``).

>>> import json, urllib.request
>>> with FakeChatServer(reply=lambda messages, body: "hello") as server:
...     req = urllib.request.Request(server.base_url + "/chat/completions", method="POST",
...                                  data=json.dumps({"model": "m", "messages": []}).encode())
...     json.load(urllib.request.urlopen(req))["choices"][0]["message"]["content"]
'hello'

Only the standard library (and the token counter) is imported, so the server also runs where httpx is absent.
"""

from __future__ import annotations

import collections
import contextlib
import json
import select
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mindloop.models.tokens import count_tokens

RawReplyFn = Callable[[list[dict[str, Any]], dict[str, Any]], bytes]
"""``raw_reply(messages, body) -> bytes``: the whole body of one 200 answer, sent as it is."""

ReplyFn = Callable[[list[dict[str, Any]], dict[str, Any]], str | None]
"""``reply(messages, body) -> text``: the answer to one chat request (``body`` is the whole request); ``None``
sends ``"content": null``, as servers do for tool calls and refusals."""

FAULTS = ("ok", "malformed", "drop", "hang", "endless")
"""Named faults; any HTTP status code (``"429"``, ``"500"``, ``503``) is a fault too."""

_MALFORMED = b'{"id": "chatcmpl-cut", "object": "chat.completion", "choices": [{"index": 0, "message": {"con'


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content if isinstance(p, Mapping) and p.get("type") == "text")


def echo_reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """The default reply: the text of the last user message (empty when there is none)."""
    for msg in reversed(messages):
        if isinstance(msg, Mapping) and msg.get("role") == "user":
            return _text(msg)
    return ""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default 5 drops connections under a burst of concurrent clients
    fake: FakeChatServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-reply (killed, timed out) is normal here; anything else is reported."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do, so client connection pools are exercised
    disable_nagle_algorithm = True  # headers and body go out in two writes; Nagle would delay the second by 40 ms
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.server.fake._locked(self.server.fake._connections.add, self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.fake._locked(self.server.fake._connections.discard, self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request log lines on stderr."""

    def _refused(self, fake: FakeChatServer) -> bool:
        """Answer 401 (and say so) when the server wants a key and the request does not carry it."""
        if fake.api_key is None or self.headers.get("Authorization") == f"Bearer {fake.api_key}":
            return False
        self._send_error(401, "Incorrect API key provided")
        return True

    def do_GET(self) -> None:
        fake = self.server.fake
        path = self.path.rstrip("/")
        fake._locked(fake.gets.append, path)
        if self._refused(fake):
            return
        data = fake._get_route(path)
        if data is not None:
            self._send_json(200, data)
        else:
            self._send_error(404, f"no route GET {self.path}")

    def do_POST(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send_error(404, f"no route POST {self.path}")
            return
        if self._refused(fake):
            return
        with fake._slot() as turn:
            if not turn:  # stopping while queued
                self.close_connection = True
            elif fake.slots is not None and _client_gone(self.connection):
                fake._add("abandoned")  # nobody to answer: dropped unserved, as llama-cpp-python does
                self.close_connection = True
            else:
                self._chat(fake, raw)

    def _chat(self, fake: FakeChatServer, raw: bytes) -> None:
        try:
            body = json.loads(raw)
            messages = body["messages"]
            if not isinstance(messages, list):
                raise TypeError("messages is not a list")
        except (ValueError, KeyError, TypeError) as exc:
            self._send_error(400, f"invalid chat request: {exc}")
            return
        fault = fake._next_fault(body, dict(self.headers.items()))
        stopped = fake.latency_s > 0 and fake._stopping.wait(fake.latency_s)
        if stopped or fault in ("hang", "drop"):  # no answer: the connection closes (a hang after hang_s)
            if fault == "hang" and not stopped:
                fake._stopping.wait(fake.hang_s)
            self.close_connection = True
            return
        if fault == "malformed":
            self._send_raw(200, _MALFORMED)
            return
        if fault == "endless":
            self._send_endless(fake)
            return
        if fault != "ok":
            status = int(fault)
            headers = {"Retry-After": str(fake.retry_after)} if status == 429 and fake.retry_after is not None else {}
            self._send_error(status, fake.fault_message or f"injected fault {status}", headers)
            return
        raw_reply = fake.raw_reply
        try:
            text: Any = fake.reply(messages, body) if raw_reply is None else raw_reply(messages, body)
        except Exception as exc:  # a broken reply function shows up as a 500 naming it, not a dead thread
            what = "reply function" if raw_reply is None else "raw_reply"
            self._send_error(500, f"{what} failed: {type(exc).__name__}: {exc}")
            return
        if raw_reply is not None:  # raw_reply's whole body, sent as it is
            self._send_raw(200, text, fake.raw_headers)
            return
        data: dict[str, Any] = {
            "id": f"chatcmpl-{fake.requests}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", fake.model_name)),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        }
        if fake.send_usage:
            prompt = sum(count_tokens(_text(m)) for m in messages if isinstance(m, Mapping))
            completion = count_tokens(text or "")
            total = prompt + completion
            data["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": total}
        self._send_json(200, data)

    def _send_endless(self, fake: FakeChatServer) -> None:
        """A 200 whose chunked body starts a completion and never ends (until the client leaves or the server stops)."""
        self._send_head(200, [("Transfer-Encoding", "chunked")])
        chunk = b"a" * 65536
        frame = b"%x\r\n%s\r\n" % (len(chunk), chunk)
        self.close_connection = True
        try:
            head = b'{"choices": [{"message": {"role": "assistant", "content": "'
            self.wfile.write(b"%x\r\n%s\r\n" % (len(head), head))
            while not fake._stopping.is_set():
                self.wfile.write(frame)
                fake._add("endless_bytes", len(chunk))
        except OSError:  # the client went away: what a client that cuts a reply off does
            return

    def _send_error(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> None:
        error = {"error": {"message": message, "type": "fake_server_error", "code": status}}
        self._send_json(status, error, headers)

    def _send_json(self, status: int, data: Any, headers: Mapping[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(data).encode(), headers)

    def _send_raw(self, status: int, payload: bytes, headers: Mapping[str, str] | None = None) -> None:
        self._send_head(status, [("Content-Length", str(len(payload))), *(headers or {}).items()])
        self.wfile.write(payload)

    def _send_head(self, status: int, headers: Iterable[tuple[str, str]]) -> None:
        """The status line (counted, for a chat request) and the headers of a JSON answer."""
        if self.command == "POST":
            self.server.fake._count_status(status)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for key, value in headers:
            self.send_header(key, value)
        self.end_headers()


def _client_gone(conn: socket.socket) -> bool:
    """Whether the client closed its end of ``conn`` (it gave up waiting): readable with nothing to read."""
    try:
        readable, _, _ = select.select([conn], [], [], 0)
        return bool(readable) and conn.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


class FakeChatServer:
    """An OpenAI-compatible chat server on ``127.0.0.1:<ephemeral port>``, run in a background thread.

    Use it as a context manager (or call :meth:`start` / :meth:`stop`). ``faults`` is consumed one entry per
    chat request; ``retry_after`` is the ``Retry-After`` value sent with 429 (``None`` sends none);
    ``send_usage=False`` leaves ``usage`` out of replies; ``api_key`` makes every request without
    ``Authorization: Bearer <api_key>`` a 401 (as a hosted API treats a wrong key). ``slots``,
    ``advertise_slots`` and ``openapi_title`` make it a one-slot (or N-slot) local server (see the module
    docstring). Counters: ``requests`` (chat requests received, queued ones included), ``requests_by_status``
    (of chat requests), ``bodies`` and ``headers`` (of each chat request served, in order), ``in_flight`` and
    ``max_in_flight`` (chat requests inside the server, queued or served), ``max_serving`` (served at once),
    ``abandoned`` (queued requests whose client had gone by their turn) and ``gets`` (the paths of GET requests).
    """

    def __init__(
        self,
        reply: ReplyFn | None = None,
        *,
        latency_s: float = 0.0,
        faults: Iterable[str | int] = (),
        retry_after: float | str | None = 1,
        hang_s: float = 60.0,
        send_usage: bool = True,
        model_name: str = "fake-model",
        host: str = "127.0.0.1",
        port: int = 0,
        api_key: str | None = None,
        slots: int | None = None,
        advertise_slots: bool = False,
        openapi_title: str | None = None,
        n_ctx: int = 4096,
        raw_reply: RawReplyFn | None = None,
        raw_headers: Mapping[str, str] | None = None,
        fault_message: str | None = None,
    ) -> None:
        if slots is not None and slots < 1:
            raise ValueError(f"slots must be at least 1 (or None: no limit), got {slots}")
        if advertise_slots and slots is None:
            raise ValueError("advertise_slots needs slots: a number of slots to advertise")
        self.reply: ReplyFn = reply or echo_reply
        self.latency_s = latency_s
        self.retry_after = retry_after
        self.hang_s = hang_s
        self.send_usage = send_usage
        self.model_name = model_name
        self.api_key = api_key
        self.slots = slots
        self.advertise_slots = advertise_slots
        self.openapi_title = openapi_title
        self.n_ctx = n_ctx
        self.raw_reply = raw_reply
        self.raw_headers = dict(raw_headers or {})
        self.fault_message = fault_message
        self.endless_bytes = 0
        """Bytes of ``endless`` bodies sent so far."""
        self._address = (host, port)
        self._lock = threading.Lock()
        self._turns = threading.Condition(self._lock)
        self._queue: collections.deque[int] = collections.deque()  # tickets of queued requests, arrival order
        self._tickets = 0
        self._faults: collections.deque[str] = collections.deque()
        self.add_faults(faults)
        self.requests = 0
        self.requests_by_status: dict[int, int] = {}
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.serving = 0
        self.max_serving = 0
        self.abandoned = 0
        self.gets: list[str] = []
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle -------------------------------------------------------------------------------------------
    def start(self) -> FakeChatServer:
        """Bind the port and serve in a daemon thread; returns ``self``."""
        if self._server is not None:
            return self
        self._stopping.clear()
        server = _Server(self._address, _Handler)
        server.fake = self
        self._server = server
        # A short poll interval makes stop() return in milliseconds instead of the default half second.
        self._thread = threading.Thread(target=server.serve_forever, args=(0.02,), name="FakeChatServer", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving: wake sleeping handlers, close open connections and release the port."""
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stopping.set()
        with self._turns:
            self._turns.notify_all()  # queued requests wake up and leave
        server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        server.server_close()
        if thread is not None:
            thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses --------------------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        """The bound port (the server must be started)."""
        if self._server is None:
            raise RuntimeError("FakeChatServer is not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """The OpenAI base URL to give a client, e.g. ``http://127.0.0.1:40123/v1``."""
        return f"http://{self._address[0]}:{self.port}/v1"

    # -- fault plan -------------------------------------------------------------------------------------------
    def add_faults(self, faults: Iterable[str | int]) -> None:
        """Append faults to the plan (validated: a named fault or an HTTP status code 100-599)."""
        checked = []
        for fault in faults:
            name = str(fault).strip().lower()
            if name not in FAULTS and not (name.isdigit() and 100 <= int(name) <= 599):
                raise ValueError(f"unknown fault {fault!r}; use an HTTP status code or one of {', '.join(FAULTS)}")
            checked.append(name)
        with self._lock:
            self._faults.extend(checked)

    @property
    def pending_faults(self) -> Sequence[str]:
        """Faults not yet served."""
        with self._lock:
            return tuple(self._faults)

    # -- bookkeeping used by the handler ----------------------------------------------------------------------
    def _add(self, counter: str, n: int = 1) -> None:
        """Add ``n`` to the counter attribute named ``counter`` (``abandoned``, ``endless_bytes``)."""
        with self._lock:
            setattr(self, counter, getattr(self, counter) + n)

    def _next_fault(self, body: dict[str, Any], headers: dict[str, str]) -> str:
        with self._lock:
            self.bodies.append(body)
            self.headers.append(headers)
            return self._faults.popleft() if self._faults else "ok"

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until no chat request is inside the server (queued or served); ``False`` if ``timeout`` seconds
        pass first. A client has its reply before the handler counts its request out, so a test that checks the
        counters after its clients return waits here for the server's own bookkeeping."""
        with self._turns:
            return self._turns.wait_for(lambda: self.in_flight == 0 and self.serving == 0, timeout)

    @contextlib.contextmanager
    def _slot(self) -> Iterator[bool]:
        """A chat request's time inside the server (counted in ``requests`` and ``in_flight``): wait for its turn
        (first come, first served) when the server has ``slots``; yields ``False`` when the server stopped first.
        Without ``slots`` every request is served at once."""
        with self._turns:
            self.requests += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            ticket = self._tickets
            self._tickets += 1
            self._queue.append(ticket)
            while self.slots is not None and not self._stopping.is_set():
                if self._queue.index(ticket) < self.slots - self.serving:  # a free slot, and its turn in line
                    break
                self._turns.wait(0.05)
            self._queue.remove(ticket)
            turn = not self._stopping.is_set()
            if turn:
                self.serving += 1
                self.max_serving = max(self.max_serving, self.serving)
        try:
            yield turn
        finally:
            with self._turns:
                if turn:
                    self.serving -= 1
                self.in_flight -= 1
                self._turns.notify_all()

    def _get_route(self, path: str) -> Any:
        """The JSON a GET of ``path`` answers, or ``None`` (404)."""
        if path == "/v1/models":
            return {"object": "list", "data": [{"id": self.model_name, "object": "model", "owned_by": "mindloop"}]}
        if self.advertise_slots and path == "/props":  # the fields llama.cpp's server reports
            return {
                "total_slots": self.slots,
                "default_generation_settings": {"n_ctx": self.n_ctx, "params": {"temperature": 0.8}},
                "model_path": self.model_name,
                "build_info": "mindloop-fake",
            }
        if self.advertise_slots and path == "/slots":
            with self._lock:
                busy = self.serving
            return [{"id": i, "n_ctx": self.n_ctx, "is_processing": i < busy} for i in range(self.slots or 0)]
        if self.openapi_title is not None and path == "/openapi.json":
            paths: dict[str, Any] = {"/v1/chat/completions": {}, "/v1/models": {}}
            return {"openapi": "3.1.0", "info": {"title": self.openapi_title, "version": "0"}, "paths": paths}
        return None

    def _count_status(self, status: int) -> None:
        with self._lock:
            self.requests_by_status[status] = self.requests_by_status.get(status, 0) + 1

    def _locked(self, change: Callable[[Any], object], item: Any) -> None:
        """``change(item)`` under the lock: a GET path noted, a connection opened or closed."""
        with self._lock:
            change(item)


def _serve_forever(argv: Sequence[str] | None = None) -> None:
    """``python -m mindloop.models.fake_server [--port P] [--latency S] [--api-key K]``: serve (echo replies) until
    killed, printing the base URL once it listens; a test can kill this process and start it again on the same port
    to stage an outage."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m mindloop.models.fake_server")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--api-key", default=None)
    args = parser.parse_args(argv)
    server = FakeChatServer(latency_s=args.latency, port=args.port, api_key=args.api_key).start()
    print(server.base_url, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    _serve_forever()

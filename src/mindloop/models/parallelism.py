"""How many requests a chat server serves at once, and the client-side limit that follows it.

A local server often serves one request at a time (llama.cpp's server has one slot unless started with
``--parallel``; llama-cpp-python's server holds a lock around its one model). Sending it eight requests at once
queues seven of them inside the server, where a client that times each request from the moment it was sent
gives up on requests the server would still answer, and sends them again while the server is still busy.

Two remedies, both here:

- :func:`discover_parallelism` asks the server where it says: llama.cpp's ``GET /props`` (``total_slots``) or
  ``GET /slots``, SGLang's ``GET /get_server_info`` / ``/server_info`` (``max_running_requests``), and
  llama-cpp-python's ``GET /openapi.json`` (its title names it; it serves one request at a time). vLLM and
  Ollama do not publish a limit (both queue inside the server).
- :class:`InFlightLimit` bounds the requests in flight: to the server's slots when it said, otherwise adaptively
  (AIMD: one more per round trip while replies come back at the usual latency; halve on a timeout, a 429 or 503,
  or a reply whose latency grew with the requests queued ahead of it). It also decides each request's deadline
  so that time spent queued behind earlier requests does not count against it (see :meth:`InFlightLimit.deadline`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ipaddress
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from mindloop.models import outages

_QUEUED = 2.0
"""A reply that cost more than this many times the cheapest recent one, with requests ahead of it, waited for them."""
_USUAL = 1.5
"""A reply within this many times the cheapest recent one came back in the usual time (the limit may grow)."""


def reply_cost(latency_s: float, completion_tokens: int) -> float:
    """Seconds per generated token, give or take the prompt: how the adaptive limit compares replies of different
    lengths (a long answer is not a queued one).

    >>> round(reply_cost(1.2, 20), 3)
    0.05
    """
    return latency_s / (max(0, completion_tokens) + 4)


@dataclass(frozen=True)
class ServerParallelism:
    """What a server said about how many requests it serves at once.

    ``slots`` is ``None`` when it said nothing usable; ``source`` names where the number came from (or what was
    tried), for logs and docs.
    """

    slots: int | None
    source: str

    @property
    def known(self) -> bool:
        """Whether the server (or the user) gave a number."""
        return self.slots is not None


def server_root(base_url: str) -> str:
    """The server's root URL: the OpenAI base URL without its trailing ``/v1``.

    >>> server_root("http://127.0.0.1:8080/v1/")
    'http://127.0.0.1:8080'
    >>> server_root("http://h:30000")
    'http://h:30000'
    """
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def is_local_host(base_url: str) -> bool:
    """Whether ``base_url`` points at this machine or a private network (where model servers queue what they
    cannot serve yet), rather than a hosted API.

    >>> [is_local_host(u) for u in ("http://127.0.0.1:8080/v1", "http://gpu-node-3:8000/v1", "https://api.openai.com/v1")]
    [True, True, False]
    """
    host = (urlsplit(base_url).hostname or "").lower()
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host == "localhost" or "." not in host or host.endswith((".localhost", ".local", ".internal", ".lan"))
    return address.is_private or address.is_loopback or address.is_link_local


def _positive_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else None


def _field(data: Any, key: str) -> Any:
    """``data[key]`` when ``data`` is a mapping (``None`` otherwise, or when it lacks ``key``): a probe's answer may
    hold anything."""
    return data.get(key) if isinstance(data, Mapping) else None


def _llamacpp_props(data: Any) -> int | None:
    """llama.cpp server ``/props``: ``{"total_slots": N, "default_generation_settings": {...}, ...}``."""
    return _positive_int(_field(data, "total_slots"))


def _llamacpp_slots(data: Any) -> int | None:
    """llama.cpp server ``/slots``: one object per slot."""
    if isinstance(data, list) and data and all(isinstance(s, Mapping) for s in data):
        return len(data)
    return None


def _llama_cpp_python(data: Any) -> int | None:
    """llama-cpp-python's server answers ``/openapi.json`` titled ``🦙 llama.cpp Python API``; it runs one request
    at a time (every completion holds one lock around its one ``Llama`` object)."""
    title = _field(_field(data, "info"), "title")
    return 1 if isinstance(title, str) and "llama.cpp python" in title.lower() else None


def _sglang_info(data: Any) -> int | None:
    """SGLang ``/get_server_info`` (``/server_info`` in newer releases): its server arguments, with
    ``max_running_requests`` (the batch size it runs; more requests wait in its queue)."""
    states = _field(data, "internal_states")
    first = states[0] if isinstance(states, list) and states else None
    return _positive_int(_field(data, "max_running_requests")) or _positive_int(_field(first, "max_running_requests"))


_PROBES: tuple[tuple[str, Callable[[Any], int | None], str], ...] = (
    ("/props", _llamacpp_props, "llama.cpp server: GET /props total_slots"),
    ("/slots", _llamacpp_slots, "llama.cpp server: GET /slots"),
    ("/openapi.json", _llama_cpp_python, "llama-cpp-python server (serves one request at a time)"),
    ("/get_server_info", _sglang_info, "SGLang: GET /get_server_info max_running_requests"),
    ("/server_info", _sglang_info, "SGLang: GET /server_info max_running_requests"),
)
"""Where servers say how many requests they serve at once, asked in this order (read-only GETs)."""


_PROBE_BYTES = 2**20
"""The most of a probe's answer read (they are a few hundred bytes)."""


async def fetch_bounded(
    client: httpx.AsyncClient, method: str, url: str, cap: int, *, content: bytes | None = None
) -> tuple[httpx.Response, bool]:
    """Send one request and read at most ``cap`` bytes of its answer (memory stays bounded whatever the server
    sends: a body that never ends is cut off); returns the response, holding what was read, and whether the body
    was longer than ``cap`` (then it was not read to its end and the connection is closed)."""
    request = client.build_request(method, url, content=content)
    response = await client.send(request, stream=True)
    chunks: list[bytes] = []
    try:
        declared = response.headers.get("Content-Length", "").strip()
        over = declared.isdigit() and int(declared) > cap
        size = 0
        if not over:
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > cap:
                    over = True
                    break
                chunks.append(chunk)
    finally:
        await response.aclose()
    body = b"" if over else b"".join(chunks)
    return httpx.Response(response.status_code, headers=response.headers, content=body, request=request), over


async def discover_parallelism(
    client: httpx.AsyncClient, base_url: str, *, timeout_s: float = 5.0
) -> ServerParallelism | None:
    """Ask the server at ``base_url`` how many requests it serves at once (a few GETs, each within ``timeout_s``).

    Never raises for what the server does: a 404, a timeout or an unreadable body only means the server did not
    say, and the result is ``ServerParallelism(None, ...)``. The probes are requests like any other for the run's
    circuit breaker (:mod:`~mindloop.models.outages`): none is sent once it has opened (:class:`BreakerOpen` is
    raised), and a probe that finds no server is reported to it and ends the asking with ``None`` (nothing known:
    ask again once the server is back), so a dead server is sent one probe, not one per place servers publish.
    """
    root = server_root(base_url)
    for path, read, source in _PROBES:
        outages.check()
        try:
            async with asyncio.timeout(timeout_s):
                response, over = await fetch_bounded(client, "GET", root + path, _PROBE_BYTES)
        except httpx.TransportError as exc:
            if outages.finds_no_server(exc):
                outages.report_failure(f"cannot reach {root + path}: {type(exc).__name__}: {exc}")
                return None
            continue
        except (TimeoutError, httpx.HTTPError):
            continue
        if outages.answer_finds_no_server(response.status_code, response.headers):
            outages.report_failure(f"HTTP {response.status_code} from {root + path}")
            return None
        outages.report_answer()
        if response.status_code != 200 or over:
            continue
        try:
            slots = read(response.json())
        except (ValueError, RecursionError):
            continue
        if slots is not None:
            return ServerParallelism(slots, source)
    return ServerParallelism(None, "not published (tried " + ", ".join(p for p, _, _ in _PROBES) + ")")


@dataclass(eq=False)
class Ticket:
    """One request in flight: when it was sent, how many of this client's requests were ahead of it, and
    (once known) when its turn at the server came."""

    seq: int
    sent: float
    ahead: int
    ahead_left: int
    turn: float | None
    timeout: asyncio.Timeout | None = None


class InFlightLimit:
    """Bounds this client's requests in flight to one server, and decides when each of them times out.

    ``ceiling`` is the most ever sent at once (the user's ``concurrency``). With ``slots`` (the server's, or the
    user's ``server_slots``) the limit is ``min(ceiling, slots)`` and fixed; without, it starts at ``ceiling`` and
    moves by AIMD: after a reply that came back in the usual time (its :func:`reply_cost` within 1.5 times the
    cheapest of the last 64) while the window was full, ``+1/limit`` (one more per round trip); after a timeout,
    an HTTP 429 or 503, or (with ``watch_latency``) a reply that waited for the requests ahead of it (with some
    ahead, a cost over twice the cheapest), halve it (at most once per window, never below 1). ``watch_latency``
    is for servers on this machine or network (:func:`is_local_host`): a hosted API's latency varies with load
    that is not ours, so there only timeouts, 429 and 503 lower the limit.

    **Deadlines.** The server may queue what it cannot serve yet, so a request's ``timeout_s`` runs from its turn:
    from when it was sent if fewer than ``slots`` (1 when unknown) of this client's earlier requests were still in
    flight, else from when enough of them finished. Until its turn, it is given up only when the server answers
    nothing at all for ``timeout_s`` (a stalled server still fails as fast as before).

    Belongs to one event loop; ``acquire``/``release`` are called from it only.
    """

    def __init__(self, ceiling: int, timeout_s: float, *, slots: int | None = None, watch_latency: bool = True) -> None:
        if ceiling < 1:
            raise ValueError(f"ceiling must be at least 1, got {ceiling}")
        self.ceiling = ceiling
        self.timeout_s = timeout_s
        self.slots = slots
        self.watch_latency = watch_latency
        self.limit = float(min(ceiling, slots) if slots else ceiling)
        self.decreases = 0
        self.max_in_flight = 0
        self._flying: dict[int, Ticket] = {}
        self._waiters: collections.deque[asyncio.Future[Ticket]] = collections.deque()
        self._seq = 0
        self._window_start = 0  # a decrease reacts only to requests sent after the previous one
        self._recent: collections.deque[float] = collections.deque(maxlen=64)
        self._last_answer = -math.inf

    # -- state ------------------------------------------------------------------------------------------------
    @property
    def in_flight(self) -> int:
        """Requests sent and not yet finished."""
        return len(self._flying)

    @property
    def adaptive(self) -> bool:
        """Whether the limit moves (no slot count was given)."""
        return self.slots is None

    def set_slots(self, slots: int | None) -> None:
        """The server's slots, once known: the limit becomes ``min(ceiling, slots)`` and stops adapting."""
        self.slots = slots
        if slots is not None:
            self.limit = float(min(self.ceiling, slots))

    def _cap(self) -> int:
        return max(1, math.floor(self.limit))

    # -- acquire / release ------------------------------------------------------------------------------------
    def _ticket(self) -> Ticket:
        loop = asyncio.get_running_loop()
        now = loop.time()
        ahead = len(self._flying)
        slots = self.slots or 1
        ticket = Ticket(self._seq, now, ahead, ahead, now if ahead < slots else None)
        self._seq += 1
        self._flying[ticket.seq] = ticket
        self.max_in_flight = max(self.max_in_flight, len(self._flying))
        return ticket

    async def acquire(self) -> Ticket:
        """Wait (first come, first served) until one more request may be sent; its :class:`Ticket`."""
        if not self._waiters and len(self._flying) < self._cap():
            return self._ticket()
        waiter: asyncio.Future[Ticket] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # granted, then cancelled before it ran: hand it back
                self.release(waiter.result(), answered=False)
            elif waiter in self._waiters:
                self._waiters.remove(waiter)
            raise

    def _wake(self) -> None:
        while self._waiters and len(self._flying) < self._cap():
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(self._ticket())

    def deadline(self, ticket: Ticket) -> float:
        """The loop time at which ``ticket``'s request is given up (see the class docstring)."""
        if ticket.turn is not None:
            return ticket.turn + self.timeout_s
        return max(ticket.sent, self._last_answer) + self.timeout_s

    def release(self, ticket: Ticket, *, answered: bool, overloaded: bool = False, cost: float | None = None) -> None:
        """``ticket``'s request is over: ``answered`` when the server sent any HTTP response; ``overloaded`` for a
        timeout, 429 or 503; ``cost`` for a successful reply: its latency per generated token, roughly
        (:func:`reply_cost`), which feeds the adaptive limit."""
        if self._flying.pop(ticket.seq, None) is None:
            return
        now = asyncio.get_running_loop().time()
        if answered:
            self._last_answer = now
        slots = self.slots or 1
        for other in self._flying.values():  # one request fewer ahead of later ones; the server made progress
            if other.turn is not None:
                continue  # its deadline runs from its turn already
            if other.seq > ticket.seq:
                other.ahead_left -= 1
                if other.ahead_left < slots:
                    other.turn = now
            if other.timeout is not None and (answered or other.turn is not None):  # its deadline moved
                with contextlib.suppress(RuntimeError):  # it has just expired: that request is being given up
                    other.timeout.reschedule(self.deadline(other))
        if self.adaptive:
            self._adapt(ticket, overloaded, cost)
        self._wake()

    def _adapt(self, ticket: Ticket, overloaded: bool, cost: float | None) -> None:
        if overloaded:
            self._decrease(ticket)
            return
        if cost is None:
            return
        fastest = min(self._recent) if self._recent else cost
        self._recent.append(cost)
        if self.watch_latency and self._queued(ticket, cost, fastest):
            self._decrease(ticket)  # it waited for the requests ahead of it: the server queues them
        elif cost <= _USUAL * fastest and ticket.ahead + 1 >= self._cap():  # a full window, answered in usual time
            self.limit = min(float(self.ceiling), self.limit + 1.0 / self.limit)

    def _queued(self, ticket: Ticket, cost: float, fastest: float) -> bool:
        """Whether ``ticket``'s reply waited at a server that serves about one request at a time.

        Its cost is over twice the cheapest, with requests ahead of it, and ``(ahead + 1) * fastest / cost`` (how
        many requests the server seems to have served at once) is under 2. Requests of the first window do not
        count. Both guards keep the client's own delays out: at 32 in flight on a busy 2-core machine, replies
        of a 50 ms server come back at two or three times the cheapest (connections opening, code running the
        first time, responses read one after another), and halving on them took a run over twice its floor.
        A server with several slots that does not publish them is left alone here: deadlines run from each
        request's turn, so its queue costs no timeouts, and timeouts, 429 and 503 still lower the limit.
        """
        if ticket.seq < self.ceiling or ticket.ahead < 1 or cost <= _QUEUED * fastest:
            return False
        return (ticket.ahead + 1) * fastest / cost < 2.0

    def _decrease(self, ticket: Ticket) -> None:
        if ticket.seq < self._window_start:  # sent before the last decrease: that one already reacted
            return
        self.limit = max(1.0, self.limit / 2.0)
        self._window_start = self._seq
        self.decreases += 1

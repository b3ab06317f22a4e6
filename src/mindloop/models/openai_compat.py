"""The ``openai`` backend: any OpenAI-compatible ``/chat/completions`` endpoint over httpx.

vLLM, SGLang, Ollama, the llama.cpp server and hosted APIs all speak this protocol, so one small client covers
them. It bounds the requests in flight to what the server serves at once (asked of the server where it says,
adapted otherwise: :mod:`~mindloop.models.parallelism`), gives every request a deadline that does not count the
time it spent queued behind this client's earlier requests, and retries what is worth retrying through
`tenacity <https://tenacity.readthedocs.io>`_ (``AsyncRetrying``), waiting capped exponential backoff with full
jitter from a seedable ``random.Random`` (or the server's ``Retry-After``):

- HTTP 408, 429 and 5xx, connection and protocol errors, and timeouts are retried;
- a 200 whose body is not a chat completion (cut-off JSON, no ``choices``) is retried too: servers under load
  do send truncated bodies, and a second try usually succeeds; if every try fails it is a
  :class:`~mindloop.errors.ModelResponseError`;
- other 4xx (bad request, auth, unknown model) are the caller's to fix and fail at once with the server's
  message; so does a well-formed reply whose ``content`` is null (asking again would not change it);
- a reply is read up to ``max_reply_bytes`` (``--model-opt max_reply_bytes=N``; default
  :data:`DEFAULT_MAX_REPLY_BYTES`): a longer body is cut off there and the call fails with that reason, so a server
  that streams without end cannot take the process's memory; a ``usage`` that is not whole, possible token counts
  (a string, a dict, NaN, negative, 1e30) fails the call as a :class:`~mindloop.errors.ModelResponseError` naming the
  field (neither is retried, and neither counts as an outage).

Text from the server is made storable at this boundary (lone surrogates replaced, counted in
:attr:`Completion.replaced <mindloop.models.base.Completion.replaced>`), and the server's error text is shown
without terminal control sequences. The API key is read once, stripped, and refused in one line naming its
variable when it holds characters an HTTP header cannot carry.

Each request is reported to the run's circuit breaker (:mod:`~mindloop.models.outages`) as it ends: one that found
no server (refused, reset, DNS, TLS, closed with no reply, 502/503 without ``Retry-After``) counts, any answer
resets the count; such a request is retried after at most :data:`NO_SERVER_BACKOFF_S` (there is no struggling
server to spare), and once the breaker opens no request is sent and no retry waited for.

The sleep between tries is injectable (``OpenAIChatModel(..., sleep=...)``), so tests can record the waits
instead of spending them. The clients and the in-flight limit belong to one event loop; when the model is used
from a new loop (a second ``asyncio.run``) both are rebuilt (what the server said about its parallelism is kept),
so one model object can serve many loops one after another.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import json
import os
import random
import ssl
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from mindloop.errors import (
    InvalidArgumentError,
    ModelError,
    ModelResponseError,
    ModelTimeoutError,
    ModelUnavailableError,
    printable,
)
from mindloop.models import outages
from mindloop.models.backend_options import checked_opts
from mindloop.models.base import (
    Completion,
    GenerationConfig,
    Message,
    ModelOptions,
    api_key,
    endpoint_id,
    redact_secret,
    storable_text,
    validate_base_url,
)
from mindloop.models.parallelism import (
    InFlightLimit,
    ServerParallelism,
    Ticket,
    discover_parallelism,
    fetch_bounded,
    is_local_host,
    reply_cost,
)
from mindloop.models.tokens import reply_completion

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_MAX_REPLY_BYTES", "OpenAIChatModel", "parse_retry_after"]

_CONNECTIONS_PER_CLIENT = 4
"""Connections per httpx client; more clients are used for higher concurrency."""


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """One TLS context per process (httpx would load the CA bundle again for every client: ~40 ms each)."""
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


DEFAULT_BASE_URL = "https://api.openai.com/v1"

DEFAULT_MAX_REPLY_BYTES = 8 * 2**20
"""The largest reply body read (8 MiB: a chat completion of 100k tokens is well under 1 MiB)."""

MAX_TOKENS_PER_CALL = 10**9
"""A token count above this in ``usage`` is impossible for one call, and refused."""

PREFLIGHT_S = 10.0
"""Seconds the whole pre-flight check may take (never more than the request timeout); ``/openapi.json`` is asked
beside ``/models`` once half of them have gone without an answer."""


async def _answers_openapi(client: httpx.AsyncClient, base_url: str, end: float) -> bool:
    """Whether the server behind ``base_url`` serves ``/openapi.json`` (at its root) by ``end`` (the loop's time)."""
    parts = urlsplit(base_url)
    try:
        async with asyncio.timeout_at(end):
            response, _ = await fetch_bounded(client, "GET", f"{parts.scheme}://{parts.netloc}/openapi.json", 2**20)
    except (TimeoutError, httpx.HTTPError):
        return False
    return response.status_code == 200


_RETRY_STATUS = frozenset({408, 429})
_OVERLOAD_STATUS = frozenset({429, 503})
"""Answers that say the server has more than it can take: the adaptive in-flight limit halves on them."""


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delay seconds or an HTTP date); ``None`` if unusable.

    >>> parse_retry_after("2")
    2.0
    >>> parse_retry_after("Wed, 21 Oct 2015 07:28:05 GMT", now=datetime(2015, 10, 21, 7, 28, tzinfo=UTC))
    5.0
    """
    if value is None or not value.strip():
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


NO_SERVER_BACKOFF_S = 2.0
"""The longest wait before retrying a request that found no server (:mod:`~mindloop.models.outages`): backoff
spares a struggling server, and there is none to spare, so a dead endpoint is known within seconds."""


class _AttemptError(Exception):
    """Why one attempt failed and whether another may help; tenacity's retry predicate and wait read it.

    ``kind`` is the :class:`~mindloop.errors.ModelError` class raised if this was the last try; ``wait_s`` is
    the server's ``Retry-After`` in seconds, when it sent one; ``overloaded`` says the server had more than it
    could take (429, 503).
    """

    def __init__(
        self,
        cause: str,
        *,
        retry: bool,
        kind: type[ModelError] = ModelError,
        wait_s: float | None = None,
        overloaded: bool = False,
    ) -> None:
        super().__init__(cause)
        self.cause = cause
        self.retry = retry
        self.kind = kind
        self.wait_s = wait_s
        self.no_server = False  # the request found no server: the retry waits at most NO_SERVER_BACKOFF_S
        self.overloaded = overloaded


def _worth_retrying(exc: BaseException) -> bool:
    """tenacity's retry predicate: only failures marked retryable (anything else is a bug and propagates)."""
    return isinstance(exc, _AttemptError) and exc.retry


Sleep = Callable[[float], Awaitable[None]]
"""How the client waits between tries (``asyncio.sleep`` by default; tests inject a recorder)."""


def _server_message(response: httpx.Response) -> str:
    """The error message a server put in its body (OpenAI's ``{"error": {"message": ...}}`` or plain text), without
    terminal control sequences (it is printed)."""
    try:
        data = response.json()
    except (ValueError, RecursionError):
        data = response.text.strip()
    if isinstance(data, Mapping):
        data = data.get("error", data.get("detail", data))
        data = data.get("message", data) if isinstance(data, Mapping) else data
    return printable(str(data)[:300])


def _check_usage(usage: Any, url: str) -> None:
    """Refuse a ``usage`` that is not an object of whole, possible token counts, naming the field."""

    def malformed(why: str) -> _AttemptError:
        return _AttemptError(f"malformed usage from {url}: {why}", retry=False, kind=ModelResponseError)

    if usage is None:
        return
    if not isinstance(usage, Mapping):
        raise malformed(f"usage is {type(usage).__name__}, not an object")
    for name in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = usage.get(name)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            shown = f"{value!r:.40}" if isinstance(value, str | int | float) else type(value).__name__
            raise malformed(f"usage.{name} is {shown}, not a whole number")
        if not 0 <= value <= MAX_TOKENS_PER_CALL:
            raise malformed(f"usage.{name} is {value}, not a possible token count")


def _completion_data(response: httpx.Response, url: str) -> dict[str, Any]:
    """The parsed chat completion of a response; raises :class:`_AttemptError` for an error status or a body that
    is not a chat completion (retried: servers under load do send truncated bodies)."""
    status = response.status_code
    if not 200 <= status < 300:
        retry = status in _RETRY_STATUS or status >= 500
        wait = parse_retry_after(response.headers.get("Retry-After"))
        cause = f"HTTP {status} from {url}: {_server_message(response)}"
        kind = ModelUnavailableError if status >= 500 else ModelError  # a 5xx is the server's outage
        raise _AttemptError(cause, retry=retry, kind=kind, wait_s=wait, overloaded=status in _OVERLOAD_STATUS)
    try:
        data = response.json()
        choice = data["choices"][0]
        if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
            raise TypeError("choices[0].message is not an object")
    except RecursionError as exc:
        cause = f"malformed completion from {url} (JSON nested too deep to read)"
        raise _AttemptError(cause, retry=False, kind=ModelResponseError) from exc
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        cause = f"malformed completion from {url} ({exc}): {response.text[:120]!r}"
        raise _AttemptError(cause, retry=True, kind=ModelResponseError) from exc
    _check_usage(data.get("usage"), url)
    return dict(data)


def _request_failure(exc: httpx.RequestError, url: str) -> _AttemptError:
    """Why a request to ``url`` got no readable answer (not a timeout): nothing reached (a transport error:
    :class:`ModelUnavailableError`) or a reply that cannot be read (an undecodable body, too many redirects:
    :class:`ModelResponseError`); both are worth another try."""
    if isinstance(exc, httpx.TransportError):
        return _AttemptError(f"cannot reach {url}: {type(exc).__name__}: {exc}", retry=True, kind=ModelUnavailableError)
    cause = f"unreadable reply from {url}: {type(exc).__name__}: {printable(str(exc))[:200]}"
    return _AttemptError(cause, retry=True, kind=ModelResponseError)


def _too_long(url: str, cap: int) -> str:
    return (
        f"reply from {url} is over {cap} bytes (max_reply_bytes): cut off there, unread (a server that streams "
        "without end?); raise the cap with --model-opt max_reply_bytes=N"
    )


async def _read_bounded(
    client: httpx.AsyncClient, method: str, url: str, cap: int, body: bytes | None = None
) -> httpx.Response:
    """Send one request and read its answer up to ``cap`` bytes; a longer one is cut off there (the connection
    closed) and fails the call without a retry (:class:`_AttemptError`)."""
    response, over = await fetch_bounded(client, method, url, cap, content=body)
    if over:
        raise _AttemptError(_too_long(url, cap), retry=False, kind=ModelResponseError)
    return response


def _generated_tokens(data: Mapping[str, Any]) -> int:
    """The reply's completion tokens as the server counted them, else a length estimate (4 characters a token);
    ``data`` has passed :func:`_completion_data` (its usage, when given, holds whole numbers)."""
    tokens = (data.get("usage") or {}).get("completion_tokens")
    if tokens is not None:
        return int(tokens)
    text = data["choices"][0]["message"].get("content")
    return len(text) // 4 if isinstance(text, str) else 0


class OpenAIChatModel:
    """A chat model behind an OpenAI-compatible HTTP endpoint (``openai/NAME``).

    ``requests_sent`` counts HTTP requests actually made and ``retries`` the repeated ones (for benchmarks).
    The API key is read from the environment variable ``options.api_key_env`` (none is fine for local servers).
    ``sleep`` waits between tries (default ``asyncio.sleep``); the jitter is drawn from
    ``random.Random(options.extra["retry_seed"])``, so a seeded model waits the same times on every run.

    Requests in flight: at most ``options.concurrency``, and at most the server's slots once it has said how
    many (``parallelism``, asked on the first call; ``options.extra["server_slots"]`` gives the number instead);
    when it does not say, the limit adapts (``in_flight_limit``; :class:`~mindloop.models.parallelism.InFlightLimit`).
    """

    def __init__(self, name: str, options: ModelOptions, *, sleep: Sleep | None = None) -> None:
        if not name:
            raise InvalidArgumentError("openai model name is empty; use openai/NAME, e.g. openai/gpt-4o-mini")
        # concurrency, timeout_s, max_retries and the backoffs were checked when the ModelOptions was built
        self.model_id = name
        self.options = options
        base = options.base_url or os.environ.get("OPENAI_BASE_URL", "").strip() or DEFAULT_BASE_URL
        if not options.base_url and base != DEFAULT_BASE_URL:
            validate_base_url(base, name="OPENAI_BASE_URL")
        self.base_url = base.rstrip("/")
        self._key = api_key(options.api_key_env)
        # the backend's --model-opt settings, checked; ``None`` is unset: ``server_slots`` (the server's slots as the
        # user gave them; unset/"auto": ask it) and ``max_reply_bytes`` (unset: DEFAULT_MAX_REPLY_BYTES)
        opts = checked_opts("openai", {key: value for key, value in options.extra.items() if value is not None})
        self.max_reply_bytes: int = opts.get("max_reply_bytes") or DEFAULT_MAX_REPLY_BYTES
        self.url = f"{self.base_url}/chat/completions"
        self.requests_sent = 0
        self.retries = 0
        slots = opts.get("server_slots")
        self.parallelism = None if slots in (None, "auto") else ServerParallelism(slots, "server_slots option")
        """What the server said about the requests it serves at once (``None`` until the first call asks)."""
        self._rng = random.Random(options.extra.get("retry_seed"))
        self._sleep: Sleep = sleep or asyncio.sleep
        self._loop: asyncio.AbstractEventLoop | None = None
        self._clients: list[httpx.AsyncClient] = []
        self._load: list[int] = []
        self._limit: InFlightLimit | None = None
        self._asking: asyncio.Lock | None = None

    @property
    def name(self) -> str:
        """The full model string, ``openai/NAME``."""
        return f"openai/{self.model_id}"

    @property
    def in_flight_limit(self) -> InFlightLimit | None:
        """The current loop's in-flight limit (``None`` before the first call)."""
        return self._limit

    @property
    def cache_scope(self) -> dict[str, Any]:
        """What besides the model name changes this model's replies: the backend and its endpoint (normalised,
        without credentials), as the response cache keys them."""
        return {"backend": "openai", "endpoint": endpoint_id(self.base_url)}

    def __repr__(self) -> str:
        return f"OpenAIChatModel({self.model_id!r}, base_url={self.base_url!r})"

    def _headers(self) -> dict[str, str]:
        """Every request's headers: JSON, and the API key when there is one."""
        return {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {self._key}"} if self._key else {})

    def _bind(self) -> InFlightLimit:
        """The clients and in-flight limit of the running loop, built anew when the loop changed.

        Connections are spread over several small httpx clients: httpcore's pool does work proportional to
        connections x queued requests on every request, which at 32 connections costs milliseconds per call.
        httpx's own timeouts are off: :meth:`_attempt` gives each request its deadline, which must not count
        time spent queued.
        """
        loop = asyncio.get_running_loop()
        if self._loop is not loop or not self._clients or self._limit is None:
            # Clients from a finished loop cannot be closed from this one; dropping them releases their sockets.
            headers = self._headers()
            k = self.options.concurrency
            shards = -(-k // _CONNECTIONS_PER_CLIENT)
            self._clients = [
                httpx.AsyncClient(
                    headers=headers,
                    timeout=httpx.Timeout(None),
                    verify=_ssl_context(),
                    limits=httpx.Limits(max_connections=-(-k // shards), max_keepalive_connections=None),
                )
                for _ in range(shards)
            ]
            self._load = [0] * shards
            slots = self.parallelism.slots if self.parallelism is not None else None
            local = is_local_host(self.base_url)
            self._limit = InFlightLimit(k, self.options.timeout_s, slots=slots, watch_latency=local)
            self._asking = asyncio.Lock()
            self._loop = loop
        return self._limit

    async def _ask_parallelism(self, limit: InFlightLimit) -> None:
        """Once per model: ask the server how many requests it serves at once, and cap the limit to it (asked
        again by the next call when no server answered the probe)."""
        assert self._asking is not None
        async with self._asking:
            if self.parallelism is None:
                if self.base_url == DEFAULT_BASE_URL:  # OpenAI's API publishes no such thing
                    self.parallelism = ServerParallelism(None, "not published (hosted API)")
                else:
                    deadline = min(self.options.timeout_s, 5.0)
                    self.parallelism = await discover_parallelism(self._clients[0], self.base_url, timeout_s=deadline)
            if self.parallelism is not None and limit.slots is None and self.parallelism.slots is not None:
                limit.set_slots(self.parallelism.slots)

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        """Send one chat request, retrying transient failures; raise :class:`ModelError` when it fails for good."""
        config = config or GenerationConfig()
        try:
            body = json.dumps({"model": self.model_id, "messages": list(messages), **config.params()}).encode()
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"messages for {self.name} are not JSON-serialisable: {exc}") from exc
        limit = self._bind()
        if self.parallelism is None:
            await self._ask_parallelism(limit)
        start = time.perf_counter()
        retrying = AsyncRetrying(
            stop=stop_after_attempt(1 + self.options.max_retries),
            wait=self._wait,
            retry=retry_if_exception(_worth_retrying),
            sleep=self._sleep,
            before_sleep=self._count_retry,
            reraise=True,  # the last _AttemptError itself, not tenacity's RetryError
        )
        data: dict[str, Any] = {}
        tries = 0
        try:
            async for attempt in retrying:
                tries = attempt.retry_state.attempt_number
                with attempt:
                    ticket = await limit.acquire()  # a slot is held for the request only, never while waiting
                    data = await self._attempt(limit, ticket, body)
        except _AttemptError as failed:
            cause = redact_secret(failed.cause, self._key)  # a server's text may echo the key it was sent
            raise failed.kind(cause, model=self.name, attempts=tries) from failed.__cause__
        return self._completion(data, messages, time.perf_counter() - start, tries)

    def _count_retry(self, retry_state: RetryCallState) -> None:
        """tenacity ``before_sleep`` hook: one more repeated request."""
        self.retries += 1

    async def _attempt(self, limit: InFlightLimit, ticket: Ticket, body: bytes) -> dict[str, Any]:
        """One HTTP request under ``ticket``: the parsed completion; raises :class:`_AttemptError` saying why it
        failed. The ticket is released here, telling the limit how the request went. Each request is reported to
        the run's circuit breaker (:mod:`~mindloop.models.outages`), which stops the call once it opens."""
        if outages.is_open():  # the breaker opened while this request waited for its turn: it is not sent
            limit.release(ticket, answered=False, overloaded=False, cost=None)
            outages.check()
        self.requests_sent += 1
        shard = self._load.index(min(self._load))  # the least busy client: no request waits for a connection
        self._load[shard] += 1
        answered = overloaded = False
        cost: float | None = None
        try:
            try:
                async with asyncio.timeout_at(limit.deadline(ticket)) as deadline:
                    ticket.timeout = deadline  # moved later while requests ahead of it hold the server
                    response = await _read_bounded(self._clients[shard], "POST", self.url, self.max_reply_bytes, body)
            except (TimeoutError, httpx.TimeoutException) as exc:
                overloaded = True
                raise _AttemptError(self._timeout_cause(ticket), retry=True, kind=ModelTimeoutError) from exc
            except httpx.RequestError as exc:  # nothing reached, or a body that cannot be decoded (bad gzip)
                failed = _request_failure(exc, self.url)
                failed.no_server = isinstance(exc, httpx.TransportError) and outages.finds_no_server(exc)
                if failed.no_server:
                    outages.report_failure(failed.cause)
                raise failed from exc
            answered = True
            no_server = outages.answer_finds_no_server(response.status_code, response.headers)
            if no_server:
                outages.report_failure(f"HTTP {response.status_code} from {self.url}: {self._said(response)}")
            else:
                outages.report_answer()
            latency = asyncio.get_running_loop().time() - ticket.sent
            try:
                data = _completion_data(response, self.url)
            except _AttemptError as failed:
                overloaded, failed.no_server = failed.overloaded, no_server
                raise
            cost = reply_cost(latency, _generated_tokens(data))
        finally:
            ticket.timeout = None
            self._load[shard] -= 1
            limit.release(ticket, answered=answered, overloaded=overloaded, cost=cost)
        return data

    def _said(self, response: httpx.Response) -> str:
        """The error message in ``response``'s body, without the API key (some servers and proxies echo it)."""
        return redact_secret(_server_message(response), self._key)

    def _timeout_cause(self, ticket: Ticket) -> str:
        """Why a request was given up: no answer within ``timeout_s`` of its turn (and how long it waited for it)."""
        cause = f"no answer from {self.url} within {self.options.timeout_s:g} s"
        waited = asyncio.get_running_loop().time() - ticket.sent
        if ticket.ahead and waited > self.options.timeout_s * 1.01:
            cause += f" ({waited:.1f} s in all, sent behind {ticket.ahead} request(s) of this client)"
        return cause

    def _wait(self, retry_state: RetryCallState) -> float:
        """tenacity wait strategy: the failed attempt's ``Retry-After``, else the jittered :meth:`_backoff`."""
        outcome = retry_state.outcome
        failed = outcome.exception() if outcome is not None and outcome.failed else None
        retry_after = failed.wait_s if isinstance(failed, _AttemptError) else None
        cap = NO_SERVER_BACKOFF_S if isinstance(failed, _AttemptError) and failed.no_server else None
        return self._backoff(retry_state.attempt_number - 1, retry_after, cap)

    def _backoff(self, attempt: int, retry_after: float | None, cap: float | None = None) -> float:
        """Seconds before retry ``attempt + 1`` (0-based): the server's ``Retry-After`` or capped exponential full
        jitter, ``uniform(0, min(max_backoff_s, backoff_s * 2**attempt))``; either is capped at ``max_backoff_s``
        (and at ``cap`` when given: :data:`NO_SERVER_BACKOFF_S` after a request that found no server)."""
        cap = self.options.max_backoff_s if cap is None else min(cap, self.options.max_backoff_s)
        if retry_after is not None:
            return min(cap, retry_after)
        return self._rng.uniform(0.0, min(cap, self.options.backoff_s * 2.0 ** min(attempt, 1000)))

    def _completion(self, data: dict[str, Any], messages: Sequence[Message], latency: float, tries: int) -> Completion:
        choice = data["choices"][0]
        text = choice["message"].get("content")
        finish = choice.get("finish_reason")
        finish = storable_text(printable(finish))[0][:40] if isinstance(finish, str) else None
        if not isinstance(text, str):
            cause = f"reply has no text content (content={text!r:.80}, finish_reason={finish!r})"
            raise ModelResponseError(redact_secret(storable_text(cause)[0], self._key), model=self.name, attempts=tries)
        text = redact_secret(text, self._key)
        return reply_completion(
            text, messages, usage=data.get("usage"), latency_s=latency, model=self.name, finish=finish
        )

    @classmethod
    def preflight(cls, name: str, options: ModelOptions) -> None:
        """Before a run (:func:`~mindloop.models.base.preflight`): :meth:`check_endpoint`, so a wrong URL or key
        fails in seconds, before a run is recorded."""
        asyncio.run(cls(name, options).check_endpoint())

    async def check_endpoint(self) -> None:
        """Pre-flight: one ``GET {base_url}/models`` (or, where that is not served, one tiny chat call), no retries.

        Raises :class:`ModelUnavailableError` when nothing answers (or a 5xx) and :class:`ModelError` when the
        server refuses the key or the request, each in one line naming the URL and what to check, within
        :data:`PREFLIGHT_S` seconds in all. A server that connects but is too busy to answer ``/models`` in time (a
        one-slot server in the middle of a completion) passes when it serves its ``/openapi.json``.
        """
        headers = self._headers()
        # One deadline for the whole check, so a wrong --base-url costs the seconds it says. A server that accepted
        # the connection but does not answer /models may be busy: llama-cpp-python's server answers /models only
        # between completions, yet serves its /openapi.json at once; a server that answers that is up, and the run
        # goes on. That question is asked beside /models once half the deadline has gone.
        deadline = min(self.options.timeout_s, PREFLIGHT_S)
        end = asyncio.get_running_loop().time() + deadline
        url = f"{self.base_url}/models"

        async def ask(client: httpx.AsyncClient) -> tuple[str, httpx.Response]:
            response = await _read_bounded(client, "GET", url, self.max_reply_bytes)
            if response.status_code not in (404, 405, 501):
                return url, response
            ping = {"model": self.model_id, "messages": [{"role": "user", "content": "ping"}], "max_tokens": 1}
            body = json.dumps(ping).encode()  # /models not served: one tiny chat call instead
            return self.url, await _read_bounded(client, "POST", self.url, self.max_reply_bytes, body)

        async with httpx.AsyncClient(headers=headers, timeout=deadline, verify=_ssl_context()) as client:
            asking = asyncio.ensure_future(ask(client))
            try:
                async with asyncio.timeout_at(end):
                    slow = not (await asyncio.wait({asking}, timeout=deadline / 2))[0]
                    if slow and await _answers_openapi(client, self.base_url, end):
                        return  # connected, busy: the first call will wait its turn
                    url, response = await asking
            except (TimeoutError, httpx.TimeoutException) as exc:
                raise ModelUnavailableError(
                    f"pre-flight: no answer from {url} within {deadline:g} s; check --base-url and that the server "
                    "is up",
                    model=self.name,
                ) from exc
            except (_AttemptError, httpx.RequestError) as exc:  # cut off, nothing reached, or an undecodable body
                failed = exc if isinstance(exc, _AttemptError) else _request_failure(exc, url)
                hint = "; check --base-url and that the server is up" if failed.kind is ModelUnavailableError else ""
                cause = None if failed is exc else exc  # a cut-off reply is the whole story
                raise failed.kind(f"pre-flight: {failed.cause}{hint}", model=self.name) from cause
            finally:
                asking.cancel()  # done already, or no longer wanted
                await asyncio.gather(asking, return_exceptions=True)
        status = response.status_code
        if status in (401, 403):
            raise ModelError(
                f"pre-flight: {url} refused the API key (HTTP {status}: {self._said(response)}); set the key in "
                f"${self.options.api_key_env} or name another variable with --api-key-env",
                model=self.name,
            )
        if not 200 <= status < 300 and status not in _RETRY_STATUS:
            kind = ModelUnavailableError if status >= 500 else ModelError
            raise kind(f"pre-flight: HTTP {status} from {url}: {self._said(response)}", model=self.name)

    async def aclose(self) -> None:
        """Close the HTTP clients (their connections) if they belong to the running loop."""
        clients, loop = self._clients, self._loop
        self._clients, self._limit, self._loop = [], None, None
        if loop is asyncio.get_running_loop():
            for client in clients:
                await client.aclose()

"""Whether the model's server is there: what one request's failure says, and the watch a run's breaker installs.

A request **finds no server** when nothing answered it because nothing is serving: the connection was refused or
reset, the host name did not resolve, the TLS handshake failed, the connection closed before a reply
(:func:`finds_no_server`), or a gateway answered HTTP 502 or 503 without a ``Retry-After`` (a proxy whose server
behind it is gone; :func:`answer_finds_no_server`). Any other HTTP answer (a completion, a 4xx, a 429, a 500, a 503
with ``Retry-After``) says the server is there. A timeout says neither: the server may be slow or busy.

Model clients report each request here (:func:`report_failure`, :func:`report_answer`) and ask before each one
whether they may send it (:func:`check`); the reports go to the :class:`EndpointWatch` installed for the
current context with :func:`watching` (a run's circuit breaker, in its own process or forwarded from a worker),
and nowhere when none is. Once the watch is open every model call of the context raises :class:`BreakerOpen`
instead of sending another request or waiting for another retry.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the clients that report here have imported it; a run with no HTTP model never needs it
    import httpx

NO_SERVER_STATUS = frozenset({502, 503})
"""Statuses a gateway sends when the server behind it does not answer (a 503 with ``Retry-After`` is a busy
server asking for patience, not a missing one)."""


class BreakerOpen(BaseException):
    """Raised by a model call once the run's circuit breaker has opened: the run stops. A ``BaseException`` so that
    no ``except Exception`` in a benchmark or agent turns it into a failed sample; the message says why it opened."""


class EndpointWatch(Protocol):
    """What a circuit breaker hears: every request that found no server and every one the server answered."""

    def request_failed(self, cause: str) -> None:
        """A request found no server (``cause`` says how, in one line)."""

    def request_answered(self) -> None:
        """The server answered a request (whatever the answer)."""

    @property
    def opened(self) -> str | None:
        """Why the breaker opened (one line), ``None`` while it is closed."""


_watch: ContextVar[EndpointWatch | None] = ContextVar("mindloop_endpoint_watch", default=None)


@contextmanager
def watching(watch: EndpointWatch) -> Iterator[None]:
    """Send this context's request reports to ``watch`` (tasks started inside inherit it)."""
    token = _watch.set(watch)
    try:
        yield
    finally:
        _watch.reset(token)


def finds_no_server(exc: httpx.TransportError) -> bool:
    """Whether a transport error means nothing is serving: refused, reset, DNS, TLS, closed with no reply (a
    timeout is not: the server may be slow)."""
    import httpx

    return isinstance(exc, httpx.NetworkError | httpx.RemoteProtocolError | httpx.ProxyError)


def answer_finds_no_server(status: int, headers: Mapping[str, str]) -> bool:
    """Whether an HTTP answer comes from a gateway with no server behind it (502, or 503 without ``Retry-After``)."""
    return status in NO_SERVER_STATUS and "retry-after" not in {k.lower() for k in headers}


def is_open() -> bool:
    """Whether the watch of this context has opened (no watch: never)."""
    watch = _watch.get()
    return watch is not None and watch.opened is not None


def check() -> None:
    """Raise :class:`BreakerOpen` when the watch of this context has opened: send no request."""
    watch = _watch.get()
    reason = watch.opened if watch is not None else None
    if reason is not None:
        raise BreakerOpen(reason)


def report_failure(cause: str) -> None:
    """Tell the watch a request found no server; raises :class:`BreakerOpen` when that (or an earlier report)
    opened it, so the caller neither waits for nor sends another try."""
    watch = _watch.get()
    if watch is not None:
        watch.request_failed(cause)
        check()


def report_answer() -> None:
    """Tell the watch the server answered a request."""
    watch = _watch.get()
    if watch is not None:
        watch.request_answered()

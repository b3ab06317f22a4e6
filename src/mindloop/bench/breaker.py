"""The run's circuit breaker: it judges the model's endpoint by its requests, not by samples.

**The rule.** The breaker opens when ``limit`` requests in a row (``--breaker``, default 5) found no server
(:mod:`~mindloop.models.outages`: connection refused or reset, DNS or TLS failure, the connection closed with no
reply, HTTP 502 or 503 without ``Retry-After``), counted in the order they end across every sample, every retry of
a sample and every worker: the driver's :class:`CircuitBreaker` hears the ``local`` executor's requests, a process
pool's workers share one :class:`SharedCircuitBreaker`, Ray tasks report to one actor holding a
:class:`CircuitBreaker`. The window is the run of failures itself: any answer from the server in between (a
completion, a 4xx, a 429, a 500, a 503 with ``Retry-After``) resets the count, however long the failures took. So
an occasional 503 amid answers never opens it, while one sample retrying into a dead port does, after ``limit``
tries (a request that found no server is retried after at most 2 s of full jitter, so 5 tries wait at most
0.5 + 1 + 2 + 2 = 5.5 s). Timeouts and 429s neither count nor reset: a slow or busy server keeps today's patience
(its samples fail only after all their retries, and the runner stops after ``limit`` such samples in a row).

Once open it stays open: every model call of the run raises :class:`~mindloop.models.outages.BreakerOpen` instead
of sending or waiting, and the runner cancels whatever is in flight.
"""

from __future__ import annotations

import multiprocessing as mp
from typing import Any

__all__ = ["CircuitBreaker", "SharedCircuitBreaker"]

_REASON_BYTES = 1024


def _reason(failures: int, cause: str) -> str:
    last = " ".join(cause.split())
    return f"{failures} requests in a row could not get an answer from the model ({last})"


class CircuitBreaker:
    """Counts requests in a row that found no server; opens (for good) at ``limit`` of them.

    An :class:`~mindloop.models.outages.EndpointWatch`: install it with
    :func:`~mindloop.models.outages.watching`, or feed it worker reports through :meth:`request_failed` and
    :meth:`request_answered`. ``failures`` is the current run of failures; ``opened`` says why it opened.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"the circuit breaker needs at least 1 failure, got {limit}")
        self.limit = limit
        self.failures = 0
        self.opened: str | None = None

    def request_failed(self, cause: str) -> None:
        """One more request found no server; at ``limit`` in a row the breaker opens."""
        if self.opened is not None:
            return
        self.failures += 1
        if self.failures >= self.limit:
            self.opened = _reason(self.failures, cause)

    def request_answered(self) -> None:
        """The server answered: the run of failures is over (an open breaker stays open)."""
        if self.opened is None:
            self.failures = 0


class SharedCircuitBreaker:
    """:class:`CircuitBreaker`'s rule with its state in shared memory, for a process pool: the pool's workers
    inherit it and every request is judged as it ends, under one lock, so once the breaker opens no worker sends
    another request (the driver, polling ``opened``, then stops the pool)."""

    def __init__(self, limit: int, context: Any = None) -> None:
        if limit < 1:
            raise ValueError(f"the circuit breaker needs at least 1 failure, got {limit}")
        ctx = context or mp.get_context()
        self.limit = limit
        self._lock = ctx.RLock()
        self._failures: Any = ctx.Value("i", 0, lock=self._lock)
        self._reason: Any = ctx.Array("c", _REASON_BYTES, lock=self._lock)

    @property
    def failures(self) -> int:
        """The current run of failures."""
        return int(self._failures.value)

    @property
    def opened(self) -> str | None:
        """Why the breaker opened, ``None`` while it is closed."""
        reason: bytes = self._reason.value
        return reason.decode(errors="replace") if reason else None

    def request_failed(self, cause: str) -> None:
        """One more request found no server; at ``limit`` in a row the breaker opens."""
        with self._lock:
            if self._reason.value:
                return
            self._failures.value += 1
            if self._failures.value >= self.limit:
                self._reason.value = _reason(self._failures.value, cause).encode()[: _REASON_BYTES - 1]

    def request_answered(self) -> None:
        """The server answered: the run of failures is over (an open breaker stays open)."""
        with self._lock:
            if not self._reason.value:
                self._failures.value = 0

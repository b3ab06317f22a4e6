"""The run's circuit breaker: it judges the model's endpoint by its requests, not by samples.

**The rule.** The breaker opens when ``limit`` requests in a row (``--breaker``, default 5) found no server
(:mod:`~mindloop.models.outages`: connection refused or reset, DNS or TLS failure, the connection closed with no
reply, HTTP 502 or 503 without ``Retry-After``), counted in the order they end across every sample, every retry of
a sample and every worker: the driver's :class:`CircuitBreaker` hears the ``local`` executor's requests and, over
their pipes, those of the ``process`` executor's workers; Ray tasks report to one actor holding a
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


def no_answer(count: int, what: str, cause: str) -> str:
    """Why a run stopped: ``count`` ``what`` (requests, samples) in a row got no answer, the last for ``cause``."""
    last = " ".join(cause.split())
    return f"{count} {what} in a row could not get an answer from the model ({last})"


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
            self.opened = no_answer(self.failures, "requests", cause)

    def request_answered(self) -> None:
        """The server answered: the run of failures is over (an open breaker stays open)."""
        if self.opened is None:
            self.failures = 0

"""Progress a log file can keep: plain lines every N seconds when stderr is not a terminal, and an estimate of
the model calls and tokens a run will take, printed before it starts.

A run in the background (``nohup``, a CI job, ``> run.log 2>&1``) gets no progress bar: rich draws one only on a
terminal. :class:`ProgressLog` prints instead, from a daemon thread, one line every ``every`` seconds::

    progress hitom · model: 12/30 samples (40%), 0.21 samples/s, ETA 1m26s, 1 failed; 57s elapsed

:func:`run_estimate` says what a model run will cost before it starts: from the run's finished samples when it
resumes, else a rough estimate from the samples' own text and ``max_tokens``, labelled as such.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TextIO

from mindloop.bench.api import Benchmark, Sample, SampleRecord


def duration(seconds: float) -> str:
    """A short human duration.

    >>> duration(42.4), duration(86), duration(3725)
    ('42s', '1m26s', '1h02m')
    """
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class ProgressLog:
    """Plain progress lines on ``stream`` (stderr) every ``every`` seconds, for logs rather than terminals.

    ``total`` samples in the run, ``done`` of them finished before this session (a resumed run); the runner calls
    :meth:`advance` as samples finish. Rate and ETA count this session's samples only. A line is printed every
    ``every`` seconds while the run lasts (also when nothing finished: a stalled run shows it), and one last line
    when it stops, if any was printed before. ``clock`` is injectable for tests.
    """

    def __init__(
        self,
        label: str,
        total: int,
        done: int = 0,
        *,
        every: float = 30.0,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.total = total
        self.done = done
        self.failed = 0
        self.bugs = 0
        self.every = every
        self.lines = 0
        self._stream = stream
        self._clock = clock
        self._start = clock()
        self._first_done = done
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def advance(self, n: int, *, failed: int | None = None, bugs: int | None = None) -> None:
        """``n`` more samples finished; ``failed`` and ``bugs`` are the run's totals so far."""
        self.done += n
        if failed is not None:
            self.failed = failed
        if bugs is not None:
            self.bugs = bugs

    def line(self) -> str:
        """The progress line for now."""
        elapsed = self._clock() - self._start
        finished = self.done - self._first_done
        rate = finished / elapsed if elapsed > 0 else 0.0
        left = max(0, self.total - self.done)
        eta = duration(left / rate) if rate > 0 else ("0s" if left == 0 else "unknown")
        share = f" ({100 * self.done // self.total}%)" if self.total else ""
        failures = f"{self.failed} failed" + (f", {self.bugs} bug{'s' if self.bugs != 1 else ''}" if self.bugs else "")
        return (
            f"progress {self.label}: {self.done}/{self.total} samples{share}, {rate:.2f} samples/s, ETA {eta}, "
            f"{failures}; {duration(elapsed)} elapsed"
        )

    def emit(self) -> None:
        """Print the line now."""
        print(self.line(), file=self._stream or sys.stderr, flush=True)
        self.lines += 1

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.emit()

    def start(self) -> ProgressLog:
        """Print a line every ``every`` seconds from a daemon thread (nothing when ``every`` is 0)."""
        if self.every > 0 and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="ProgressLog", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the lines; print a last one if any was printed before."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
            if self.lines:
                self.emit()

    def __enter__(self) -> ProgressLog:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _text_tokens(samples: Sequence[Sample]) -> int:
    """Tokens in the samples' own text, roughly: 4 characters a token, each string rounded up. A tokenizer would
    cost more start-up time (loading it, then encoding every sample) than a rough line is worth."""
    return sum(-(-len(text) // 4) for sample in samples for text in _strings(sample.input))


def run_estimate(
    bench: Benchmark, pending: Sequence[Sample], finished: Sequence[SampleRecord], max_tokens: int | None
) -> str:
    """One line estimating the model calls and tokens of the ``pending`` samples.

    From the ``finished`` samples' recorded calls when there are some (a resumed run), else rough: at least one
    call per sample (or the benchmark's declared ``calls_per_sample``), the samples' own text as a
    lower bound of the prompt tokens, and ``max_tokens`` per call as the upper bound of the completion tokens.
    """
    n = len(pending)
    calls = [call for record in finished for call in record.calls]
    if calls:
        per_call = [int(c.get("prompt_tokens") or 0) + int(c.get("completion_tokens") or 0) for c in calls]
        calls_each = len(calls) / len(finished)
        tokens_each = sum(per_call) / len(finished)
        return (
            f"estimate from the {len(finished)} finished samples: ~{calls_each:.1f} model calls and "
            f"~{tokens_each:,.0f} tokens a sample, so ~{calls_each * n:,.0f} calls and ~{tokens_each * n:,.0f} "
            f"tokens for the {n} pending"
        )
    each = bench.spec.calls_per_sample
    calls_text = (
        f"~{each * n:,.0f} model calls ({each:g} a sample)" if each else f"at least {n} model calls (1 a sample)"
    )
    prompt = _text_tokens(pending)
    capped = f", at most {max_tokens:,} completion tokens a call" if max_tokens else ""
    return (
        f"estimate (rough, before any call): {n} samples, {calls_text}; the samples' own text is "
        f"~{prompt:,} tokens (prompts add instructions, and multi-turn agents resend it){capped}"
    )

"""What ``mindloop runs`` lists for each run: its state, its sample counts and its headline metric.

A run is ``finished`` when no sample is pending, ``running`` while a live process holds it (its counts are live:
the runner commits every sample as it ends), ``stale`` while it is still locked by a holder that is gone (killed on
this host, a reused PID, or a heartbeat older than the stale interval: another host's container that died), which
``--resume`` takes over, and ``stopped`` otherwise (interrupted, stopped by the circuit breaker, or killed and
released: ``mindloop bench run NAME --resume RUN_ID`` finishes it). The headline metric
(:mod:`mindloop.bench.headline`) is the benchmark's summary of the samples finished so far.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass
from typing import Any

from mindloop.bench.headline import Headline, headline_of, headline_value
from mindloop.bench.key import RunKey
from mindloop.bench.registry import installed_benchmark
from mindloop.bench.runner import benchmark_metrics, stored_summary
from mindloop.bench.store import RunInfo, RunStore, StoreDamagedError
from mindloop.errors import MindloopError


@dataclass(frozen=True)
class RunLine:
    """One run as ``mindloop runs`` shows it: its row, ``state`` (``finished``, ``running``, ``stale``, ``stopped``, or
    ``unknown`` for a run of a damaged store whose samples cannot be read), its headline and the headline's value
    (``None``: no data, or it cannot be computed), its comparability key (:mod:`mindloop.bench.key`; ``None`` on a
    damaged store) and its tags."""

    info: RunInfo
    state: str
    headline: Headline | None
    value: float | None
    key: RunKey | None = None
    tags: tuple[str, ...] = ()

    @property
    def pending(self) -> int | None:
        """Samples not finished yet (``None`` when they cannot be counted)."""
        return self.info.n - self.info.n_completed if self.info.samples_readable else None

    def to_dict(self) -> dict[str, Any]:
        """The ``mindloop runs --json`` entry: the run's row, then ``status``, ``pending``, ``headline``, ``tags`` and
        ``key``."""
        head = None
        if self.headline is not None:
            head = self.headline.to_json() | {"value": self.value}
        key = None if self.key is None else self.key.to_json()
        extra = {"status": self.state, "pending": self.pending, "headline": head, "tags": list(self.tags), "key": key}
        return self.info.to_dict() | extra


def _state(info: RunInfo, locks: dict[str, str]) -> str:
    if not info.samples_readable:
        return "unknown"
    if info.n_completed >= info.n:
        return "finished"
    return locks.get(info.run_id, "stopped")  # running, stale (its holder is gone), or not locked


def _headline(store: RunStore, info: RunInfo) -> tuple[Headline | None, float | None]:
    """The run's headline and its value over the samples finished so far (``None`` when it cannot be read): from
    the summary and definitions stored with the run when they cover every finished sample, else computed now."""
    try:
        stored = stored_summary(store, info) if info.samples_readable else None
    except (MindloopError, sqlite3.DatabaseError):
        stored = None
    if stored is not None:
        head, metrics = stored.get("definitions", {}).get("headline"), stored["metrics"]
        headline = Headline(head["metric"], head["higher_is_better"]) if head else headline_of(info.benchmark, metrics)
        return headline, headline_value(headline, metrics)
    bench = installed_benchmark(info.benchmark)
    if bench is None:  # a benchmark no longer registered: its runs are still listed
        return None, None
    headline = headline_of(bench)
    if not info.samples_readable or not info.n_completed:
        return headline, None
    try:
        metrics = benchmark_metrics(bench, store.records(info.run_id))
    except (MindloopError, sqlite3.DatabaseError):  # a damaged store: the run is listed without it
        return headline, None
    return headline_of(bench, metrics), headline_value(headline_of(bench, metrics), metrics)


def list_runs(
    store: RunStore, *, metrics: bool = True, derive_keys: bool = True
) -> tuple[list[RunLine], StoreDamagedError | None]:
    """Every run that can be read, oldest first, with its state, (``metrics``) its headline value, its key (on a
    store before layout 9 read read-only: derived now, or with ``derive_keys=False`` unknown) and tags; and the
    damage when the store is damaged (:meth:`RunStore.readable_runs`), else ``None``."""
    runs, damage = store.readable_runs()
    locks = store.lock_states()
    keys: dict[str, RunKey] = {}
    tags: dict[str, list[str]] = {}
    with contextlib.suppress(MindloopError, sqlite3.DatabaseError):  # a damaged store may still read them
        keys, tags = store.run_keys(derive=derive_keys), store.run_tags()
    lines = []
    for info in runs:
        headline, value = _headline(store, info) if metrics else (None, None)
        tagged = tuple(tags.get(info.run_id, ()))
        lines.append(RunLine(info, _state(info, locks), headline, value, keys.get(info.run_id), tagged))
    return lines, damage

"""Each benchmark's headline metric: the one number ``mindloop runs`` lists and ``mindloop compare`` leads with.

It is the paper's main number for the benchmark, declared on the benchmark itself
(:attr:`~mindloop.bench.declaration.BenchmarkSpec.headline`, with whether a higher value is better), so a
plug-in benchmark is treated as a built-in one. A benchmark that declares none (or one no longer registered) falls
back to the first top-level numeric metric of its summary, higher being better.

>>> headline_of("tomi")
Headline(metric='accuracy', higher_is_better=True)
>>> headline_of("cwah").higher_is_better
False
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mindloop.bench.api import Benchmark
from mindloop.bench.declaration import Headline, headline_value
from mindloop.bench.registry import get_benchmark
from mindloop.errors import MindloopError

__all__ = ["Headline", "headline_of", "headline_value", "no_intervals_of"]


def headline_of(bench: Benchmark | str, metrics: Mapping[str, Any] | None = None) -> Headline | None:
    """The headline of a benchmark (or of the benchmark registered under a name): its declared one, else the first
    top-level number of ``metrics``; ``None`` when neither gives one."""
    if isinstance(bench, str):
        try:
            bench = get_benchmark(bench)
        except MindloopError:  # no longer registered: its stored runs still list a number
            return _first_number(metrics)
    return bench.spec.headline or _first_number(metrics)


def _first_number(metrics: Mapping[str, Any] | None) -> Headline | None:
    for key, value in (metrics or {}).items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            return Headline(str(key))
    return None


def no_intervals_of(bench: Benchmark) -> tuple[str, ...]:
    """The top-level summary keys of a benchmark that get no interval (its declared ``no_intervals``)."""
    return bench.spec.no_intervals

"""The benchmark registry: every benchmark ``mindloop bench run`` knows, read from package entry points.

Each system declares its benchmarks in ``pyproject.toml`` under ``[project.entry-points."mindloop.benchmarks"]``
(``name = "package.module:Class"``); any installed distribution can add its own the same way, and tests may
``BENCHMARKS.register`` one directly. Entries are zero-argument factories, imported on first use. A benchmark may
also answer to other names (its class's ``aliases``), so a system's slug can name a benchmark whose historical name
differs (``mindclaw`` for ``claw``).
"""

from __future__ import annotations

from collections.abc import Callable

from mindloop.bench.api import Benchmark
from mindloop.errors import UnknownNameError
from mindloop.registry import Registry

__all__ = ["BENCHMARKS", "canonical_name", "get_benchmark"]

BENCHMARKS: Registry[Callable[[], Benchmark]] = Registry("benchmark", entry_point_group="mindloop.benchmarks")


def canonical_name(name: str) -> str:
    """The registered name behind ``name``: itself, or the benchmark that lists it among its ``aliases``."""
    if name in BENCHMARKS:
        return name
    for registered in BENCHMARKS.names():
        if name in getattr(BENCHMARKS.get(registered), "aliases", ()):
            return registered
    raise UnknownNameError(BENCHMARKS._unknown_message(name))


def get_benchmark(name: str) -> Benchmark:
    """A fresh instance of the benchmark registered as ``name`` or aliased to it (unknown names suggest matches)."""
    return BENCHMARKS.get(canonical_name(name))()

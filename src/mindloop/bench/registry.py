"""The benchmark registry: every benchmark ``mindloop bench run`` knows, read from package entry points.

Each system declares its benchmarks in ``pyproject.toml`` under ``[project.entry-points."mindloop.benchmarks"]``
(``name = "package.module:Class"``); any installed distribution can add its own the same way (read only for a name
mindloop's own do not have, and for a listing), and tests may ``BENCHMARKS.register`` one directly. Entries are
zero-argument factories, imported on first use; the first instance made of each has its declaration checked
(:func:`mindloop.bench.check.check_declaration`), so a bad declaration is refused before any run. A benchmark may
also answer to other names (its declaration's ``aliases``), so a system's slug can name a benchmark whose historical
name differs (``mindclaw`` for ``claw``). A benchmark written to the contract before the target/scorer split (its own
``run(sample, ctx)`` returning scored outcomes) still runs, and says once per process that it is deprecated.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from mindloop.bench.api import Benchmark
from mindloop.bench.check import check_declaration
from mindloop.errors import MindloopError, UnknownNameError
from mindloop.registry import Registry

BENCHMARKS: Registry[Callable[[], Benchmark]] = Registry(
    "benchmark", entry_point_group="mindloop.benchmarks", distribution="mindloop"
)


def canonical_name(name: str) -> str:
    """The registered name behind ``name``: itself, or the benchmark that lists it among its ``aliases``."""
    if name in BENCHMARKS:
        return name
    for registered in BENCHMARKS.names():
        if name in get_benchmark(registered).spec.aliases:
            return registered
    raise UnknownNameError(BENCHMARKS._unknown_message(name))


def get_benchmark(name: str) -> Benchmark:
    """A fresh instance of the benchmark registered as ``name`` or aliased to it (unknown names suggest matches)."""
    registered = canonical_name(name)
    bench = BENCHMARKS.get(registered)()
    if registered not in _CHECKED:
        check_declaration(bench)
        _CHECKED.add(registered)
        if callable(getattr(bench, "run", None)):
            print(_DEPRECATED_RUN.format(name=registered), file=sys.stderr, flush=True)
    return bench


def installed_benchmark(name: str) -> Benchmark | None:
    """:func:`get_benchmark`, or ``None`` when ``name`` cannot be had now (no longer installed, a declaration
    refused): what a view of stored runs falls back from, still showing their stored numbers."""
    try:
        return get_benchmark(name)
    except MindloopError:
        return None


_DEPRECATED_RUN = (
    "benchmark {name!r} defines its own run(sample, ctx) that scores in the agent: deprecated, and it still runs; "
    "give samples their target and choices, let agents answer, and declare a scorer (BenchmarkSpec(scorer=...)) "
    "instead (docs/architecture.md, 'Adding a benchmark from your own package')"
)
"""The one-time message for a benchmark written to the contract before the target/scorer split."""


_CHECKED: set[str] = set()
"""Names whose benchmark's declaration has been checked in this process."""

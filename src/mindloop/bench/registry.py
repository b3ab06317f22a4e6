"""The benchmark registry: every benchmark ``mindloop bench run`` knows, mindloop's own and other packages'.

mindloop's systems' benchmarks are :data:`BUILT_IN` (``name: "package.module:Class"``); any installed distribution
adds its own under ``[project.entry-points."mindloop.benchmarks"]`` in its ``pyproject.toml``, read only for a name
that is not built in (and for a listing), and tests may ``BENCHMARKS.register`` one directly. Entries are
zero-argument factories, imported on first use; the first instance made of each has its declaration checked
(:func:`mindloop.bench.check.check_declaration`), so a bad declaration is refused before any run. A benchmark may
also answer to other names (its declaration's ``aliases``), so a system's slug can name a benchmark whose historical
name differs (``mindclaw`` for ``claw``).
"""

from __future__ import annotations

from collections.abc import Callable

from mindloop.bench.api import Benchmark
from mindloop.bench.check import check_declaration
from mindloop.errors import UnknownNameError
from mindloop.registry import Registry

__all__ = ["BENCHMARKS", "BUILT_IN", "canonical_name", "get_benchmark"]

BUILT_IN = {
    "tomi": "mindloop.systems.tom.benchmarks:ToMiBenchmark",
    "hitom": "mindloop.systems.tom.benchmarks:HiToMBenchmark",
    "opentom": "mindloop.systems.tom.opentom:OpenToMBenchmark",
    "bigtom": "mindloop.systems.tom.bigtom:BigToMBenchmark",
    "mmtom-qa": "mindloop.systems.tom.mmtomqa:MMToMQABenchmark",
    "fantom": "mindloop.systems.tom.fantom:FanToMBenchmark",
    "exploretom": "mindloop.systems.tom.exploretom:ExploreToMBenchmark",
    "simpletom": "mindloop.systems.tom.simpletom:SimpleToMBenchmark",
    "smoke": "mindloop.bench.smoke:SmokeBenchmark",
    "mindpower": "mindloop.systems.mindpower.benchmarks:MindPowerBenchmark",
    "claw": "mindloop.systems.mindclaw.benchmarks:ClawBenchmark",
    "omnitom-stage1": "mindloop.systems.omnitom.benchmarks:OmniToMStage1Benchmark",
    "omnitom-stage2": "mindloop.systems.omnitom.benchmarks:OmniToMStage2Benchmark",
    "cwah": "mindloop.systems.cobel.benchmarks:CwahBenchmark",
    "tdw-mat": "mindloop.systems.cobel.benchmarks:TdwMatBenchmark",
    "tos-active": "mindloop.systems.tos.benchmarks:TosActiveBenchmark",
    "tos-passive": "mindloop.systems.tos.benchmarks:TosPassiveBenchmark",
}
"""mindloop's own benchmarks (lazy targets: a lookup imports only the one it names)."""

BENCHMARKS: Registry[Callable[[], Benchmark]] = Registry(
    "benchmark", entry_point_group="mindloop.benchmarks", built_in=BUILT_IN
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
    return bench


_CHECKED: set[str] = set()
"""Names whose benchmark's declaration has been checked in this process."""

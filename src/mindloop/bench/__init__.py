"""The benchmark harness: a registry of benchmarks, a resumable runner on a SQLite run store, and reports."""

from typing import TYPE_CHECKING

from mindloop.lazy import lazy_attributes

if TYPE_CHECKING:
    from mindloop.bench.api import AgentContext, AgentSpec, Benchmark, Options, Outcome, Sample, SampleRecord
    from mindloop.bench.check import check_benchmark
    from mindloop.bench.choice import ChoiceBenchmark, ChoiceSet, Fields, Prompt, Release
    from mindloop.bench.declaration import (
        BenchmarkSpec,
        Column,
        Generation,
        Grouping,
        Headline,
        Metric,
        PaperTable,
        PresetEntry,
        ReferencePolicy,
        Row,
        Suite,
    )
    from mindloop.bench.key import RunKey
    from mindloop.bench.reader import read_choice
    from mindloop.bench.registry import BENCHMARKS, get_benchmark
    from mindloop.bench.runner import EXECUTORS, RunRequest, RunSummary, run_benchmark, summarize_run
    from mindloop.bench.store import RunInfo, RunStore

_LAZY: dict[str, tuple[str, ...]] = {  # submodule -> the names it re-exports here
    "api": (
        "AgentContext",
        "AgentSpec",
        "Benchmark",
        "Options",
        "Outcome",
        "Sample",
        "SampleRecord",
    ),
    "check": ("check_benchmark",),
    "choice": (
        "ChoiceBenchmark",
        "ChoiceSet",
        "Fields",
        "Prompt",
        "Release",
    ),
    "declaration": (
        "BenchmarkSpec",
        "Column",
        "Generation",
        "Grouping",
        "Headline",
        "Metric",
        "PaperTable",
        "PresetEntry",
        "ReferencePolicy",
        "Row",
        "Suite",
    ),
    "key": ("RunKey",),
    "reader": ("read_choice",),
    "registry": (
        "BENCHMARKS",
        "get_benchmark",
    ),
    "runner": (
        "EXECUTORS",
        "RunRequest",
        "RunSummary",
        "run_benchmark",
        "summarize_run",
    ),
    "store": (
        "RunInfo",
        "RunStore",
    ),
}

__getattr__ = lazy_attributes(__name__, _LAZY)

__all__ = [
    "BENCHMARKS",
    "EXECUTORS",
    "AgentContext",
    "AgentSpec",
    "Benchmark",
    "BenchmarkSpec",
    "ChoiceBenchmark",
    "ChoiceSet",
    "Column",
    "Fields",
    "Generation",
    "Grouping",
    "Headline",
    "Metric",
    "Options",
    "Outcome",
    "PaperTable",
    "PresetEntry",
    "Prompt",
    "ReferencePolicy",
    "Release",
    "Row",
    "RunInfo",
    "RunKey",
    "RunRequest",
    "RunStore",
    "RunSummary",
    "Sample",
    "SampleRecord",
    "Suite",
    "check_benchmark",
    "get_benchmark",
    "read_choice",
    "run_benchmark",
    "summarize_run",
]

"""The benchmark harness: a registry of benchmarks, a resumable runner on a SQLite run store, and reports."""

from mindloop.bench.api import AgentContext, AgentSpec, Benchmark, Options, Outcome, Sample, SampleRecord
from mindloop.bench.check import check_benchmark
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
from mindloop.bench.registry import BENCHMARKS, get_benchmark
from mindloop.bench.runner import EXECUTORS, RunRequest, RunSummary, run_benchmark, summarize_run
from mindloop.bench.store import RunInfo, RunStore

__all__ = [
    "BENCHMARKS",
    "EXECUTORS",
    "AgentContext",
    "AgentSpec",
    "Benchmark",
    "BenchmarkSpec",
    "Column",
    "Generation",
    "Grouping",
    "Headline",
    "Metric",
    "Options",
    "Outcome",
    "PaperTable",
    "PresetEntry",
    "ReferencePolicy",
    "Row",
    "RunInfo",
    "RunRequest",
    "RunStore",
    "RunSummary",
    "Sample",
    "SampleRecord",
    "Suite",
    "check_benchmark",
    "get_benchmark",
    "run_benchmark",
    "summarize_run",
]

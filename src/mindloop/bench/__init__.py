"""The benchmark harness: a registry of benchmarks, a resumable runner on a SQLite run store, and reports."""

from mindloop.bench.api import AgentContext, AgentSpec, Benchmark, Options, Outcome, Sample, SampleRecord
from mindloop.bench.check import check_benchmark
from mindloop.bench.choice import ChoiceBenchmark, ChoiceSet, Fields, Prompt, Release
from mindloop.bench.declaration import (
    BenchmarkSpec,
    Column,
    Decided,
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
from mindloop.bench.reader import read_choice
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
    "ChoiceBenchmark",
    "ChoiceSet",
    "Column",
    "Decided",
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

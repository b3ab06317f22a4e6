"""The benchmark harness: a registry of benchmarks, a resumable runner on a SQLite run store, and reports."""

from mindloop.bench.api import AgentContext, AgentSpec, Benchmark, Options, Outcome, Sample, SampleRecord
from mindloop.bench.registry import BENCHMARKS, get_benchmark
from mindloop.bench.runner import EXECUTORS, RunRequest, RunSummary, run_benchmark, summarize_run
from mindloop.bench.store import RunInfo, RunStore

__all__ = [
    "BENCHMARKS",
    "EXECUTORS",
    "AgentContext",
    "AgentSpec",
    "Benchmark",
    "Options",
    "Outcome",
    "RunInfo",
    "RunRequest",
    "RunStore",
    "RunSummary",
    "Sample",
    "SampleRecord",
    "get_benchmark",
    "run_benchmark",
    "summarize_run",
]

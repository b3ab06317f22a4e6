"""The benchmark harness: a registry of benchmarks, a resumable runner on a SQLite run store, and reports."""

from typing import TYPE_CHECKING

from mindloop.lazy import lazy_exports

if TYPE_CHECKING:
    from mindloop.bench.api import AgentContext as AgentContext
    from mindloop.bench.api import AgentSpec as AgentSpec
    from mindloop.bench.api import Benchmark as Benchmark
    from mindloop.bench.api import Options as Options
    from mindloop.bench.api import Outcome as Outcome
    from mindloop.bench.api import Sample as Sample
    from mindloop.bench.api import SampleRecord as SampleRecord
    from mindloop.bench.check import check_benchmark as check_benchmark
    from mindloop.bench.choice import ChoiceBenchmark as ChoiceBenchmark
    from mindloop.bench.choice import ChoiceSet as ChoiceSet
    from mindloop.bench.choice import Fields as Fields
    from mindloop.bench.choice import Prompt as Prompt
    from mindloop.bench.choice import Release as Release
    from mindloop.bench.declaration import BenchmarkSpec as BenchmarkSpec
    from mindloop.bench.declaration import Column as Column
    from mindloop.bench.declaration import Decided as Decided
    from mindloop.bench.declaration import Generation as Generation
    from mindloop.bench.declaration import Grouping as Grouping
    from mindloop.bench.declaration import Headline as Headline
    from mindloop.bench.declaration import Metric as Metric
    from mindloop.bench.declaration import PaperTable as PaperTable
    from mindloop.bench.declaration import PresetEntry as PresetEntry
    from mindloop.bench.declaration import ReferencePolicy as ReferencePolicy
    from mindloop.bench.declaration import Row as Row
    from mindloop.bench.declaration import Suite as Suite
    from mindloop.bench.key import RunKey as RunKey
    from mindloop.bench.reader import read_choice as read_choice
    from mindloop.bench.registry import BENCHMARKS as BENCHMARKS
    from mindloop.bench.registry import get_benchmark as get_benchmark
    from mindloop.bench.runner import EXECUTORS as EXECUTORS
    from mindloop.bench.runner import RunRequest as RunRequest
    from mindloop.bench.runner import RunSummary as RunSummary
    from mindloop.bench.runner import run_benchmark as run_benchmark
    from mindloop.bench.runner import summarize_run as summarize_run
    from mindloop.bench.store import RunInfo as RunInfo
    from mindloop.bench.store import RunStore as RunStore

__getattr__ = lazy_exports(__name__)

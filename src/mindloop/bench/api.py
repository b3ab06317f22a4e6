"""What a benchmark is: a sample source, the agents it can run, a per-sample scorer and a summary.

A benchmark never touches the run store or the executor: the runner hands it one :class:`Sample` at a time with
an :class:`AgentContext` (the agent name, the model if any, a seed) and stores the :class:`Outcome` it returns.
Samples and outcomes are plain JSON data, so they travel to worker processes and Ray tasks and back unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from mindloop.models.base import ChatModel, GenerationConfig

__all__ = ["AgentContext", "Benchmark", "Outcome", "Sample", "SampleRecord", "SampleStatus"]


@dataclass(frozen=True)
class Sample:
    """One unit of work: a stable id (unique within the run) and JSON-ready input, gold and metadata.

    ``group`` names the breakdown the sample belongs to (a question type, a task type); reports group by it.
    """

    id: str
    input: dict[str, Any]
    group: str = ""


@dataclass(frozen=True)
class Outcome:
    """What running one sample produced: the agent's output (JSON-ready) and its scores (numbers by name).

    ``error`` marks a failed sample (unparseable model output, a model error after retries): it is stored and
    counted as failed, and its ``scores`` (usually the failure values, e.g. ``correct = 0``) still enter the
    summary so a failure is never scored as a success.
    """

    output: dict[str, Any]
    scores: dict[str, float] = field(default_factory=dict)
    error: str | None = None


@dataclass(frozen=True)
class AgentContext:
    """Who answers a sample: the agent's name, the (recording) model for model-driven agents, and a seed."""

    agent: str
    model: ChatModel | None = None
    config: GenerationConfig = field(default_factory=GenerationConfig)
    seed: int = 0


SampleStatus = str
"""``pending``, ``done`` or ``failed``."""


@dataclass(frozen=True)
class SampleRecord:
    """A sample as the run store keeps it, read back for summaries and reports."""

    index: int
    sample: Sample
    status: SampleStatus
    output: dict[str, Any] | None
    scores: dict[str, float]
    error: str | None
    calls: list[dict[str, Any]]
    seconds: float


@runtime_checkable
class Benchmark(Protocol):
    """A registered benchmark.

    ``agents`` lists the agent names it accepts; the first is the default. ``needs_model`` lists those that
    need ``--model``. ``samples`` must be deterministic in ``(n, seed, options)``.
    """

    name: str
    description: str
    agents: tuple[str, ...]
    needs_model: frozenset[str]

    def samples(self, n: int | None, seed: int, options: Mapping[str, str]) -> Sequence[Sample]:
        """The samples of a run: the first ``n`` (all when ``None``) for this seed and these options."""
        ...

    async def run(self, sample: Sample, ctx: AgentContext) -> Outcome:
        """Answer and score one sample; raise only for bugs, return an ``Outcome`` with ``error`` for failures."""
        ...

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """Metrics over finished samples (done and failed), JSON-ready; nested dicts for breakdowns."""
        ...

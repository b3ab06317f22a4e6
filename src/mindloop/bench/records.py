"""The data a benchmark and the harness exchange: a sample, what running it produced, and the stored record.

Plain JSON data, so they travel to worker processes and Ray tasks and back unchanged; a leaf of the harness that
the benchmark API (:mod:`mindloop.bench.api`) and the declarations (:mod:`mindloop.bench.declaration`) both use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Outcome", "Sample", "SampleRecord", "SampleStatus"]


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


SampleStatus = str
"""``pending``, ``done``, ``failed`` (the model or its answer failed) or ``bug`` (an exception that is not a
``MindloopError``)."""


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
    node: str | None = None
    """The id of the Ray node that executed the sample (``None`` when it did not run on Ray)."""

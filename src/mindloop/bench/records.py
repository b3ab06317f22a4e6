"""The data a benchmark and the harness exchange: a sample, what running it produced, and the stored record.

Plain JSON data, so they travel to worker processes and Ray tasks and back unchanged; a leaf of the harness that
the benchmark API (:mod:`mindloop.bench.api`) and the declarations (:mod:`mindloop.bench.declaration`) both use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Sample:
    """One unit of work: a stable id (unique within the run), JSON-ready input, and what it is scored against.

    ``group`` names the breakdown the sample belongs to (a question type, a task type); reports group by it.
    ``target`` is the gold answer (a choice's text, a label, a structured gold; ``None``: the sample carries none)
    and ``choices`` the options offered, in the order shown (empty: an open answer), as inspect_ai's ``Sample``
    carries them: the declaration's scorer, the reference policies, reports and comparisons read them from here.
    """

    id: str
    input: dict[str, Any]
    group: str = ""
    target: Any = None
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """What running one sample produced: the agent's output (JSON-ready) and its scores (numbers by name).

    The agent's answer, the one compared with the sample's target, is ``output["answer"]`` (a reply with no
    answer read from it is ``output["reply"]``; :func:`answer_of`). ``error`` marks a failed sample (unparseable
    model output, a model error after retries): it is stored and counted as failed, and its ``scores`` (usually
    the failure values, e.g. ``correct = 0``) still enter the summary so a failure is never scored as a success.
    """

    output: dict[str, Any]
    scores: dict[str, float] = field(default_factory=dict)
    error: str | None = None


def answer_of(output: dict[str, Any] | None) -> Any:
    """The answer an output gives: its ``answer``, else its free-text ``reply``, else ``None``."""
    if not output:
        return None
    return output["answer"] if "answer" in output else output.get("reply")


PROMPT_KEYS = ("question", "prompt", "query", "instruction", "task", "word", "text")
"""Input fields shown as what a sample asks (the first that is text), in reports and comparisons."""


def question_of(inp: dict[str, Any]) -> str | None:
    """What a sample's input asks, for display: the first of :data:`PROMPT_KEYS` that is text."""
    return next((str(inp[k]) for k in PROMPT_KEYS if isinstance(inp.get(k), str)), None)


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

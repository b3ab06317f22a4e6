"""An episode benchmark's timeline: what happened at each window or step, the gold decision, the agent's, right or
wrong, and the episode judged by its own rule.

A benchmark whose samples are episodes (MindClaw, CoBel-World, Theory of Space) gives its report a readable story
of each one: it has a ``timeline(record)`` method (:class:`EpisodeBenchmark`) that turns a stored record into an
:class:`EpisodeTimeline`, from the record's input and output alone, so runs stored before the method existed get
one too. The run report draws it at the top of the sample's drill-down and uses its verdict as the sample's
right/wrong mark (a control episode is right when the robot stayed out: silence is the gold there).

>>> step = TimelineStep("3", "Lily comes back, searching", "intervene", "intervene", True)
>>> tl = EpisodeTimeline((step,), verdict=True, rule="exactly one intervention, at t* = 3")
>>> tl.to_json()["steps"][0]["correct"], tl.counts()
(True, (1, 1))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

from mindloop.bench.records import SampleRecord


@dataclass(frozen=True)
class TimelineStep:
    """One window or step: its label (``t``), what happened, the gold decision, the agent's decision, whether the
    agent's was right (``None``: not judged there), and a short note (why, or what else the agent did)."""

    t: str
    happened: str
    gold: str
    agent: str
    correct: bool | None = None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        """``{"t", "happened", "gold", "agent", "correct", "note"}``."""
        return asdict(self)


@dataclass(frozen=True)
class EpisodeTimeline:
    """An episode as steps, with its verdict (``None``: the episode has no right/wrong of its own), the rule that
    judged it (in words), the column labels (``step``, ``what happened``, ``gold``, ``agent``), a title,
    ``facts`` (a few ``(label, value)`` lines shown above the steps: the gold task, the controls' rule...) and the
    output keys it ``reads``."""

    steps: tuple[TimelineStep, ...]
    verdict: bool | None = None
    rule: str = ""
    title: str = "Episode timeline"
    columns: tuple[str, str, str, str] = ("step", "what happened", "gold decision", "agent's decision")
    facts: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    reads: tuple[str, ...] = ()
    """The output keys the timeline tells (claw's ``trace``): the drill-down keeps them folded, as raw JSON."""

    def counts(self) -> tuple[int, int]:
        """(steps judged right, steps judged)."""
        judged = [s.correct for s in self.steps if s.correct is not None]
        return sum(judged), len(judged)

    def to_json(self) -> dict[str, Any]:
        """The timeline as the report's data blob carries it."""
        right, judged = self.counts()
        return {
            "title": self.title,
            "columns": list(self.columns),
            "verdict": self.verdict,
            "rule": self.rule,
            "facts": [list(f) for f in self.facts],
            "steps": [s.to_json() for s in self.steps],
            "right": right,
            "judged": judged,
            "reads": list(self.reads),
        }


@runtime_checkable
class EpisodeBenchmark(Protocol):
    """A benchmark whose samples are episodes: it turns a stored record into its timeline (``None`` when the
    record has none to show, e.g. a sample that failed before its episode ran)."""

    def timeline(self, record: SampleRecord) -> EpisodeTimeline | None:
        """The record's timeline."""
        ...


def episode_timeline(bench: object, record: SampleRecord) -> EpisodeTimeline | None:
    """``bench.timeline(record)`` for an :class:`EpisodeBenchmark`, else ``None``; a pending record has none. A
    record the benchmark cannot read (stored by another version, say) gets a timeline with no steps whose rule
    says why, so one odd record never stops a report."""
    if record.status == "pending" or not isinstance(bench, EpisodeBenchmark):
        return None
    try:
        return bench.timeline(record)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        return EpisodeTimeline(
            (), rule=f"No timeline: this record cannot be read as an episode ({type(exc).__name__}: {exc})."
        )


def names_in(text: str, names: Mapping[str, str]) -> str:
    """``text`` with every id of ``names`` (longest first) replaced by its display name.

    >>> names_in("walk(kitchen_1) grab(apple_2)", {"apple_2": "apple", "kitchen_1": "kitchen"})
    'walk(kitchen) grab(apple)'
    """
    for key in sorted(names, key=len, reverse=True):
        if key and key in text:
            text = text.replace(key, names[key])
    return text


def joined(parts: Sequence[str], empty: str = "—") -> str:
    """Non-empty ``parts`` one per line (``empty`` when there are none)."""
    shown = [p for p in parts if p]
    return "\n".join(shown) if shown else empty

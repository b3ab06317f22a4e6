"""Answer every question of a ToMi/Hi-ToM file with the symbolic tracker and score the answers."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mindloop.beliefs import Tracker
from mindloop.worlds.stories.tomi import (
    HITOM_TYPES,
    TOMI_TYPES,
    Example,
    StoryFormat,
    answer_question,
    read_story_file,
    track_story,
)

__all__ = ["Answered", "EvalReport", "TypeScore", "evaluate_examples", "evaluate_file"]


@dataclass(frozen=True, slots=True)
class Answered:
    """One example with the tracker's answer."""

    example: Example
    predicted: str | None

    @property
    def correct(self) -> bool:
        """Whether the tracker's answer equals the gold answer."""
        return self.predicted == self.example.question.answer


@dataclass(frozen=True, slots=True)
class TypeScore:
    """Accuracy over the questions of one type."""

    accuracy: float
    n: int


@dataclass
class EvalReport:
    """Accuracy overall and per question type, time taken, and every answer."""

    format: StoryFormat
    accuracy: float
    n: int
    by_type: dict[str, TypeScore]
    seconds: float
    answers: list[Answered] = field(repr=False)

    @property
    def wrong(self) -> list[Answered]:
        """The answers that disagree with the gold label."""
        return [a for a in self.answers if not a.correct]

    def to_json(self) -> dict[str, object]:
        """The ``--json`` object of ``mindloop tom eval``."""
        return {
            "format": self.format,
            "accuracy": self.accuracy,
            "n": self.n,
            "by_type": {k: {"accuracy": v.accuracy, "n": v.n} for k, v in self.by_type.items()},
            "seconds": self.seconds,
        }


def evaluate_examples(examples: list[Example], fmt: StoryFormat) -> list[Answered]:
    """Answer each example; identical stories are tracked once and shared by their questions."""
    trackers: dict[tuple[str, ...], Tracker] = {}
    out = []
    for ex in examples:
        key = tuple([s for _, s in ex.sentences])
        tracker = trackers.get(key)
        if tracker is None:
            tracker = trackers[key] = track_story(ex.sentences, fmt, ex.source)
        out.append(Answered(ex, answer_question(tracker, ex.question)))
    return out


def evaluate_file(path: str | Path, fmt: StoryFormat | None = None) -> EvalReport:
    """Read, track and score a whole file (``fmt=None`` detects ToMi or Hi-ToM)."""
    start = time.perf_counter()
    fmt, examples = read_story_file(path, fmt)
    answers = evaluate_examples(examples, fmt)
    seconds = time.perf_counter() - start
    totals: Counter[str] = Counter()
    hits: Counter[str] = Counter()
    for a in answers:
        totals[a.example.question.qtype] += 1
        hits[a.example.question.qtype] += a.correct
    order = TOMI_TYPES if fmt == "tomi" else HITOM_TYPES
    types = [t for t in order if t in totals] + sorted(t for t in totals if t not in order)
    by_type = {t: TypeScore(hits[t] / totals[t], totals[t]) for t in types}
    n = len(answers)
    return EvalReport(fmt, sum(hits.values()) / n, n, by_type, seconds, answers)

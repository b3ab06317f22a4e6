"""Answer every question of a ToMi/Hi-ToM file with the symbolic tracker and score the answers."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mindloop.beliefs import Tracker
from mindloop.worlds.stories.releases import TOMI_QUESTION_TYPES, TOMI_STORY_TYPES, read_dataset
from mindloop.worlds.stories.tomi import (
    HITOM_TYPES,
    TOMI_TYPES,
    Example,
    StoryFormat,
    answer_question,
    track_story,
)

__all__ = ["Answered", "EvalReport", "TypeScore", "evaluate_examples", "evaluate_file", "score_by"]


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
    """Accuracy overall and per question type, time taken, and every answer.

    ``breakdowns`` holds the other groupings the data's own labels allow, each under its JSON key: for a ToMi file
    with a ``.trace`` beside it ``by_story_type`` and ``by_question_type`` (ToMi's labels, as papers report them).
    """

    format: StoryFormat
    accuracy: float
    n: int
    by_type: dict[str, TypeScore]
    seconds: float
    answers: list[Answered] = field(repr=False)
    breakdowns: dict[str, dict[str, TypeScore]] = field(default_factory=dict)

    @property
    def wrong(self) -> list[Answered]:
        """The answers that disagree with the gold label."""
        return [a for a in self.answers if not a.correct]

    def to_json(self) -> dict[str, object]:
        """The ``--json`` object of ``mindloop tom eval``."""
        out: dict[str, object] = {
            "format": self.format,
            "accuracy": self.accuracy,
            "n": self.n,
            "by_type": _scores_json(self.by_type),
        }
        for key, scores in self.breakdowns.items():
            out[key] = _scores_json(scores)
        out["seconds"] = self.seconds
        return out


def _scores_json(scores: dict[str, TypeScore]) -> dict[str, dict[str, float | int]]:
    return {k: {"accuracy": v.accuracy, "n": v.n} for k, v in scores.items()}


def score_by(
    answers: Sequence[Answered], key: Callable[[Answered], str | None], order: Sequence[str] = ()
) -> dict[str, TypeScore]:
    """Accuracy per value of ``key`` (answers whose key is ``None`` are left out), known values in ``order`` first."""
    totals: Counter[str] = Counter()
    hits: Counter[str] = Counter()
    for a in answers:
        k = key(a)
        if k is not None:
            totals[k] += 1
            hits[k] += a.correct
    names = [t for t in order if t in totals] + sorted(t for t in totals if t not in order)
    return {t: TypeScore(hits[t] / totals[t], totals[t]) for t in names}


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


def _breakdowns(answers: Sequence[Answered]) -> dict[str, dict[str, TypeScore]]:
    out: dict[str, dict[str, TypeScore]] = {}
    if any(a.example.trace is not None for a in answers):
        out["by_story_type"] = score_by(
            answers, lambda a: a.example.trace.story_type if a.example.trace else None, TOMI_STORY_TYPES
        )
        out["by_question_type"] = score_by(
            answers, lambda a: a.example.trace.question_type if a.example.trace else None, TOMI_QUESTION_TYPES
        )
    return out


def evaluate_file(path: str | Path, fmt: StoryFormat | None = None) -> EvalReport:
    """Read, track and score a whole file (``fmt=None`` detects ToMi or Hi-ToM; a ToMi ``.trace`` is read too)."""
    start = time.perf_counter()
    fmt, examples = read_dataset(path, fmt)
    answers = evaluate_examples(examples, fmt)
    seconds = time.perf_counter() - start
    by_type = score_by(answers, lambda a: a.example.question.qtype, TOMI_TYPES if fmt == "tomi" else HITOM_TYPES)
    n = len(answers)
    accuracy = sum(a.correct for a in answers) / n
    return EvalReport(fmt, accuracy, n, by_type, seconds, answers, _breakdowns(answers))

"""Answer every question of a ToMi/Hi-ToM file with the symbolic tracker and score the answers."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mindloop.beliefs import Tracker
from mindloop.systems.tom.audit import AuditReport, audit_examples
from mindloop.worlds.stories.releases import PROMPTING_TYPES, TOMI_QUESTION_TYPES, TOMI_STORY_TYPES, read_dataset
from mindloop.worlds.stories.tomi import (
    HITOM_TYPES,
    TOMI_TYPES,
    Example,
    StoryFormat,
    answer_question,
    track_story,
)

__all__ = [
    "Answered",
    "EvalReport",
    "PairScore",
    "TypeScore",
    "evaluate_examples",
    "evaluate_file",
    "pair_score",
    "score_by",
]


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


@dataclass(frozen=True, slots=True)
class PairScore:
    """Hi-ToM releases every story-question pair twice (CoTP and VP copies): accuracy on the pairs whose copies agree.

    ``pairs`` groups of identical story and question, ``disagreeing`` of them with different gold answers; the
    other ``n`` are scored once each. Items with no twin are left out (``unpaired``).
    """

    accuracy: float | None
    n: int
    pairs: int
    disagreeing: int
    unpaired: int

    def to_json(self) -> dict[str, float | int | None]:
        """The ``agreed_pairs`` object of ``tom eval --json``."""
        return {
            "accuracy": self.accuracy,
            "n": self.n,
            "pairs": self.pairs,
            "disagreeing": self.disagreeing,
            "unpaired": self.unpaired,
        }


@dataclass
class EvalReport:
    """Accuracy overall and per question type, time taken, and every answer.

    ``breakdowns`` holds the other groupings the data's own labels allow, each under its JSON key: for a ToMi file
    with a ``.trace`` beside it ``by_story_type`` and ``by_question_type`` (ToMi's labels, as papers report them);
    for Hi-ToM's JSON (or a line file with its ``.meta.json``) ``by_order``, ``by_deception``, ``by_length`` and
    ``by_prompting_type``. ``pairs`` is set for Hi-ToM files that hold story-question pairs twice. ``audit``
    (ToMi files) counts the questions whose released gold contradicts what the story shows, by a check that does
    not use the tracker (:mod:`mindloop.systems.tom.audit`).
    """

    format: StoryFormat
    accuracy: float
    n: int
    by_type: dict[str, TypeScore]
    seconds: float
    answers: list[Answered] = field(repr=False)
    breakdowns: dict[str, dict[str, TypeScore]] = field(default_factory=dict)
    pairs: PairScore | None = None
    audit: AuditReport | None = None

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
        if self.pairs is not None:
            out["agreed_pairs"] = self.pairs.to_json()
        if self.audit is not None:
            out["gold_contradicts_story"] = self.audit.contradicted
            out["gold_checked"] = self.audit.checked
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


def pair_score(answers: Sequence[Answered]) -> PairScore | None:
    """Group identical story-question pairs; score once each group whose gold answers all agree.

    ``None`` when no story-question pair occurs twice. Needs no tracker to define the split: only the gold labels.
    """
    groups: dict[tuple[tuple[str, ...], str], list[Answered]] = {}
    for a in answers:
        key = (tuple([s for _, s in a.example.sentences]), a.example.question.text)
        groups.setdefault(key, []).append(a)
    twins = [g for g in groups.values() if len(g) > 1]
    if not twins:
        return None
    agreed = [g for g in twins if len({a.example.question.answer for a in g}) == 1]
    hits = sum(g[0].correct for g in agreed)
    accuracy = hits / len(agreed) if agreed else None
    unpaired = sum(1 for g in groups.values() if len(g) == 1)
    return PairScore(accuracy, len(agreed), len(twins), len(twins) - len(agreed), unpaired)


def _hitom_field(name: str) -> Callable[[Answered], str | None]:
    def key(a: Answered) -> str | None:
        info = a.example.hitom
        if info is None:
            return None
        value = getattr(info, name)
        if isinstance(value, bool):
            return str(value).lower()
        return str(value) if value != "" else None

    return key


def _breakdowns(answers: Sequence[Answered]) -> dict[str, dict[str, TypeScore]]:
    out: dict[str, dict[str, TypeScore]] = {}
    if any(a.example.trace is not None for a in answers):
        out["by_story_type"] = score_by(
            answers, lambda a: a.example.trace.story_type if a.example.trace else None, TOMI_STORY_TYPES
        )
        out["by_question_type"] = score_by(
            answers, lambda a: a.example.trace.question_type if a.example.trace else None, TOMI_QUESTION_TYPES
        )
    if any(a.example.hitom is not None for a in answers):
        out["by_order"] = score_by(answers, _hitom_field("question_order"), [str(k) for k in range(5)])
        out["by_deception"] = score_by(answers, _hitom_field("deception"), ["false", "true"])
        out["by_length"] = score_by(answers, _hitom_field("story_length"), [str(k) for k in range(1, 5)])
        by_prompting = score_by(answers, _hitom_field("prompting_type"), PROMPTING_TYPES)
        if by_prompting:
            out["by_prompting_type"] = by_prompting
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
    pairs = pair_score(answers) if fmt == "hitom" else None
    audit = audit_examples(examples) if fmt == "tomi" else None
    return EvalReport(fmt, accuracy, n, by_type, seconds, answers, _breakdowns(answers), pairs, audit)

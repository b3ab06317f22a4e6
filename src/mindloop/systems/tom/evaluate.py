"""Answer every question of a ToMi/Hi-ToM file with the symbolic tracker and score the answers.

A file is evaluated as a stream (:func:`evaluate_file`): examples are read, tracked, answered and counted one at a
time, the last few stories' trackers are kept for the questions that follow them, and only counts (and, when
asked, the answers) stay in memory, so a 50 MB story file is scored in flat memory (``benchmarks/bench_tom_memory.py``).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mindloop.beliefs import Tracker
from mindloop.systems.tom.audit import Auditor, AuditReport
from mindloop.worlds.stories.releases import PROMPTING_TYPES, TOMI_QUESTION_TYPES, TOMI_STORY_TYPES, iter_dataset
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
    "answer_examples",
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

    ``answers`` holds every answer, unless the file was evaluated with ``keep_answers=False``: then it is empty,
    ``n_correct`` still counts the right ones and ``first_wrong`` holds the first wrong answers asked for.
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
    n_correct: int | None = None
    first_wrong: list[Answered] | None = field(default=None, repr=False)

    @property
    def wrong(self) -> list[Answered]:
        """The answers that disagree with the gold label (the first ones kept, when answers were not kept)."""
        if self.first_wrong is not None and not self.answers:
            return list(self.first_wrong)
        return [a for a in self.answers if not a.correct]

    @property
    def n_wrong(self) -> int:
        """How many answers disagree with the gold label."""
        return self.n - self.n_correct if self.n_correct is not None else len(self.wrong)

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


class _Tally:
    """Totals and hits per value of one key, counted as answers stream by."""

    def __init__(self, key: Callable[[Answered], str | None], order: Sequence[str] = ()) -> None:
        self.key = key
        self.order = order
        self.totals: Counter[str] = Counter()
        self.hits: Counter[str] = Counter()

    def add(self, answered: Answered) -> None:
        k = self.key(answered)
        if k is not None:
            self.totals[k] += 1
            self.hits[k] += answered.correct

    def scores(self) -> dict[str, TypeScore]:
        names = [t for t in self.order if t in self.totals] + sorted(t for t in self.totals if t not in self.order)
        return {t: TypeScore(self.hits[t] / self.totals[t], self.totals[t]) for t in names}


def score_by(
    answers: Sequence[Answered], key: Callable[[Answered], str | None], order: Sequence[str] = ()
) -> dict[str, TypeScore]:
    """Accuracy per value of ``key`` (answers whose key is ``None`` are left out), known values in ``order`` first."""
    tally = _Tally(key, order)
    for a in answers:
        tally.add(a)
    return tally.scores()


def answer_examples(examples: Iterable[Example], fmt: StoryFormat, *, cache: int = 64) -> Iterator[Answered]:
    """Answer each example as it comes; the trackers of the last ``cache`` distinct stories are kept, so a story's
    questions share one tracker when they follow one another (a story tracked again gives the same answers)."""
    trackers: OrderedDict[tuple[str, ...], Tracker] = OrderedDict()
    for ex in examples:
        key = tuple([s for _, s in ex.sentences])
        tracker = trackers.get(key)
        if tracker is None:
            tracker = trackers[key] = track_story(ex.sentences, fmt, ex.source)
            if len(trackers) > cache:
                trackers.popitem(last=False)
        else:
            trackers.move_to_end(key)
        yield Answered(ex, answer_question(tracker, ex.question))


def evaluate_examples(examples: list[Example], fmt: StoryFormat) -> list[Answered]:
    """Answer each example; a story's questions that follow one another share one tracker."""
    return list(answer_examples(examples, fmt))


@dataclass(slots=True)
class _Group:
    """One story-question pair's copies: how many, their gold answer (``None`` once two differ), first correct."""

    size: int
    answer: str | None
    correct: bool


class _Pairs:
    """Story-question groups counted as answers stream by, keyed by a digest so no story text is kept."""

    def __init__(self) -> None:
        self.groups: dict[bytes, _Group] = {}

    def add(self, a: Answered) -> None:
        digest = hashlib.blake2b(digest_size=16)
        for _, sentence in a.example.sentences:
            digest.update(sentence.encode("utf-8") + b"\x1f")
        digest.update(b"\x1e" + a.example.question.text.encode("utf-8"))
        key = digest.digest()
        group = self.groups.get(key)
        if group is None:
            self.groups[key] = _Group(1, a.example.question.answer, a.correct)
            return
        group.size += 1
        if group.answer != a.example.question.answer:
            group.answer = None

    def score(self) -> PairScore | None:
        twins = [g for g in self.groups.values() if g.size > 1]
        if not twins:
            return None
        agreed = [g for g in twins if g.answer is not None]
        hits = sum(1 for g in agreed if g.correct)
        accuracy = hits / len(agreed) if agreed else None
        unpaired = len(self.groups) - len(twins)
        return PairScore(accuracy, len(agreed), len(twins), len(twins) - len(agreed), unpaired)


def pair_score(answers: Sequence[Answered]) -> PairScore | None:
    """Group identical story-question pairs; score once each group whose gold answers all agree.

    ``None`` when no story-question pair occurs twice. Needs no tracker to define the split: only the gold labels.
    """
    pairs = _Pairs()
    for a in answers:
        pairs.add(a)
    return pairs.score()


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


def _tallies(fmt: StoryFormat) -> tuple[_Tally, dict[str, _Tally], dict[str, _Tally]]:
    """The question-type tally, the ToMi trace tallies and the Hi-ToM tallies, by their JSON keys."""
    by_type = _Tally(lambda a: a.example.question.qtype, TOMI_TYPES if fmt == "tomi" else HITOM_TYPES)
    traced = {
        "by_story_type": _Tally(lambda a: a.example.trace.story_type if a.example.trace else None, TOMI_STORY_TYPES),
        "by_question_type": _Tally(
            lambda a: a.example.trace.question_type if a.example.trace else None, TOMI_QUESTION_TYPES
        ),
    }
    hitom = {
        "by_order": _Tally(_hitom_field("question_order"), [str(k) for k in range(5)]),
        "by_deception": _Tally(_hitom_field("deception"), ["false", "true"]),
        "by_length": _Tally(_hitom_field("story_length"), [str(k) for k in range(1, 5)]),
        "by_prompting_type": _Tally(_hitom_field("prompting_type"), PROMPTING_TYPES),
    }
    return by_type, traced, hitom


def _breakdowns(
    traced: dict[str, _Tally], hitom: dict[str, _Tally], any_trace: bool, any_hitom: bool
) -> dict[str, dict[str, TypeScore]]:
    out: dict[str, dict[str, TypeScore]] = {}
    if any_trace:
        out.update({key: tally.scores() for key, tally in traced.items()})
    if any_hitom:
        for key, tally in hitom.items():
            scores = tally.scores()
            if scores or key != "by_prompting_type":
                out[key] = scores
    return out


def evaluate_file(
    path: str | Path, fmt: StoryFormat | None = None, *, keep_answers: bool = True, keep_wrong: int = 0
) -> EvalReport:
    """Read, track and score a whole file (``fmt=None`` detects ToMi or Hi-ToM; a ToMi ``.trace`` is read too).

    The file is read as a stream. ``keep_answers=False`` keeps no answers (memory stays flat however large the
    file), only the first ``keep_wrong`` wrong ones in :attr:`EvalReport.first_wrong`.
    """
    start = time.perf_counter()
    fmt, examples = iter_dataset(path, fmt)
    by_type, traced, hitom = _tallies(fmt)
    tallies = [by_type, *traced.values(), *hitom.values()]
    pairs = _Pairs() if fmt == "hitom" else None
    auditor = Auditor() if fmt == "tomi" else None
    answers: list[Answered] = []
    first_wrong: list[Answered] = []
    n = correct = 0
    any_trace = any_hitom = False
    for answered in answer_examples(examples, fmt):
        n += 1
        correct += answered.correct
        any_trace = any_trace or answered.example.trace is not None
        any_hitom = any_hitom or answered.example.hitom is not None
        for tally in tallies:
            tally.add(answered)
        if pairs is not None:
            pairs.add(answered)
        if auditor is not None:
            auditor.add(answered.example)
        if keep_answers:
            answers.append(answered)
        elif not answered.correct and len(first_wrong) < keep_wrong:
            first_wrong.append(answered)
    seconds = time.perf_counter() - start
    return EvalReport(
        fmt,
        correct / n,
        n,
        by_type.scores(),
        seconds,
        answers,
        _breakdowns(traced, hitom, any_trace, any_hitom),
        pairs.score() if pairs is not None else None,
        auditor.report() if auditor is not None else None,
        n_correct=correct,
        first_wrong=None if keep_answers else first_wrong,
    )

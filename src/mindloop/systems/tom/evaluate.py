"""Answer every question of a ToMi/Hi-ToM file with the symbolic tracker and score the answers: ``mindloop tom
eval``, which is ``mindloop bench run tomi|hitom --data FILE --agent symbolic`` without a stored run.

A file is evaluated as a stream (:func:`evaluate_file`): examples are read, tracked, answered and counted one at a
time, the last few stories' trackers are kept for the questions that follow them, and only counts (and, when
asked, the answers) stay in memory, so a 50 MB story file is scored in flat memory (``benchmarks/bench_tom_memory.py``).
The breakdowns are the ``tomi``/``hitom`` declaration's groupings of ``accuracy`` and the pairs its
:class:`~mindloop.systems.tom.benchmarks.AgreedPairs`, so both commands give the same numbers by one route.
"""

from __future__ import annotations

import time
from collections import Counter, OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mindloop.beliefs import Tracker
from mindloop.bench.declaration import Grouping
from mindloop.bench.records import Sample
from mindloop.systems.tom.audit import Auditor, AuditReport
from mindloop.systems.tom.benchmarks import AgreedPairs, HiToMBenchmark, ToMiBenchmark, example_sample
from mindloop.worlds.stories.releases import iter_dataset
from mindloop.worlds.stories.tomi import Example, StoryFormat, answer_question, track_story


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
    with a ``.trace`` beside it ``by_story_type`` and ``by_question_type`` (ToMi's labels, as papers report them);
    for Hi-ToM's JSON (or a line file with its ``.meta.json``) ``by_order``, ``by_deception``, ``by_length`` and
    ``by_prompting_type``. ``pairs`` is set for Hi-ToM files that hold story-question pairs twice. ``audit``
    (ToMi files) counts the questions whose released gold contradicts what the story shows, by a check that does
    not use the tracker (:mod:`mindloop.systems.tom.audit`).

    ``pairs`` is Hi-ToM's ``agreed_pairs`` object (:class:`~mindloop.systems.tom.benchmarks.AgreedPairs`).
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
    pairs: dict[str, Any] | None = None
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
            out["agreed_pairs"] = self.pairs
        if self.audit is not None:
            out["gold_contradicts_story"] = self.audit.contradicted
            out["gold_checked"] = self.audit.checked
        out["seconds"] = self.seconds
        return out


def _scores_json(scores: dict[str, TypeScore]) -> dict[str, dict[str, float | int]]:
    return {k: {"accuracy": v.accuracy, "n": v.n} for k, v in scores.items()}


class _Tally:
    """Totals and hits per row of one declared grouping, counted as answers stream by."""

    def __init__(self, grouping: Grouping) -> None:
        self.grouping = grouping
        self.totals: Counter[str] = Counter()
        self.hits: Counter[str] = Counter()

    def add(self, sample: Sample, correct: bool) -> None:
        label = self.grouping.label(sample)
        if label is not None:
            self.totals[label] += 1
            self.hits[label] += correct

    def scores(self) -> dict[str, TypeScore]:
        order = self.grouping.labels
        names = [t for t in order if t in self.totals] + sorted(t for t in self.totals if t not in order)
        return {t: TypeScore(self.hits[t] / self.totals[t], self.totals[t]) for t in names}


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


def evaluate_file(
    path: str | Path, fmt: StoryFormat | None = None, *, keep_answers: bool = True, keep_wrong: int = 0
) -> EvalReport:
    """Read, track and score a whole file (``fmt=None`` detects ToMi or Hi-ToM; a ToMi ``.trace`` is read too).

    The file is read as a stream. ``keep_answers=False`` keeps no answers (memory stays flat however large the
    file), only the first ``keep_wrong`` wrong ones in :attr:`EvalReport.first_wrong`.
    """
    start = time.perf_counter()
    fmt, examples = iter_dataset(path, fmt)
    spec = (HiToMBenchmark if fmt == "hitom" else ToMiBenchmark).spec
    accuracy = spec.metric("accuracy")
    assert accuracy is not None  # the tomi and hitom declarations report accuracy by their groupings
    tallies = [_Tally(g) for g in accuracy.groupings]
    pairs = AgreedPairs() if fmt == "hitom" else None
    auditor = Auditor() if fmt == "tomi" else None
    answers: list[Answered] = []
    first_wrong: list[Answered] = []
    n = correct = 0
    for answered in answer_examples(examples, fmt):
        sample = example_sample(n, fmt, answered.example)
        n += 1
        correct += answered.correct
        for tally in tallies:
            tally.add(sample, answered.correct)
        if pairs is not None:
            pairs.add(sample, float(answered.correct))
        if auditor is not None:
            auditor.add(answered.example)
        if keep_answers:
            answers.append(answered)
        elif not answered.correct and len(first_wrong) < keep_wrong:
            first_wrong.append(answered)
    seconds = time.perf_counter() - start
    by_type, *others = ((t.grouping.key, t.scores()) for t in tallies)
    return EvalReport(
        fmt,
        correct / n,
        n,
        by_type[1],
        seconds,
        answers,
        {key: scores for key, scores in others if scores},
        pairs.score() if pairs is not None else None,
        auditor.report() if auditor is not None else None,
        n_correct=correct,
        first_wrong=None if keep_answers else first_wrong,
    )

"""What the release benchmarks (``opentom``, ``bigtom``, ``mmtom-qa``) share: a model answering one closed question,
the tracker's "not covered", and the per-group summaries their papers report.

A model's reply is read two ways, as for ToMi and Hi-ToM (:func:`mindloop.systems.tom.agents.parse_answer`): the
flexible reading (the headline) and the strict one (the first line alone). A release that states its own answer
reading passes it as ``release_reader``: its reading is recorded beside the others (``release_answer``) so a
run shows where the release's rule and mindloop's disagree. A reply that names no choice, or several, is a failed
sample (scored incorrect) that keeps the reply and the reason; the model is asked once more first (``ask``).

The symbolic agent answers only what its reading of the story determines; every other question is *not covered*:
its outcome has ``covered: 0`` and no ``correct`` score, so it counts neither for nor against the tracker.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mindloop.bench.api import AgentContext, Outcome, SampleRecord
from mindloop.bench.declaration import Grouping, Metric, ReferencePolicy, Suite, oracle_policy
from mindloop.bench.records import Sample
from mindloop.bench.references import best_constant_policy
from mindloop.bench.scoring import group_rows
from mindloop.errors import ParseError
from mindloop.metrics.stats import mean
from mindloop.models.base import Message
from mindloop.models.replies import ask
from mindloop.systems.tom.agents import ParsedAnswer, parse_answer

__all__ = [
    "RELEASE_RESAMPLED",
    "RELEASE_SUITE",
    "ReleaseReader",
    "ask_choice",
    "chance",
    "chance_by",
    "counted_rows",
    "coverage",
    "macro_f1",
    "model_summary",
    "not_covered",
    "release_metrics",
    "release_references",
    "symbolic_outcome",
]

RELEASE_SUITE = Suite(excluded="it reads a released data set it does not ship (--data): name it with --only and --opt")
"""How every released ToM data set sits in suites: left out, since mindloop cannot run it without its files."""

ReleaseReader = Callable[[str], "str | None"]
"""A release's own answer reading: the reply's text to one of the choices, or ``None`` when it reads none."""


async def ask_choice(
    ctx: AgentContext,
    messages: Sequence[Message],
    choices: Sequence[str],
    gold: str,
    release_reader: ReleaseReader | None = None,
) -> Outcome:
    """Ask the model in ``ctx`` and score its reply against ``gold`` (one of ``choices``)."""
    assert ctx.model is not None  # dispatch refuses a model agent without a model

    def read(text: str) -> ParsedAnswer:
        parsed = _read(text, choices, release_reader)
        if parsed.choice is None:
            raise ParseError(f"unparseable answer: {parsed.how}; reply with the letter of one choice")
        return parsed

    error: str | None = None
    try:
        parsed, _, replies = await ask(ctx.model, messages, read, ctx.config, retries=ctx.format_retries)
    except ParseError as exc:  # every reply, the format retries' included, comes back with the error
        replies = exc.replies
        parsed = _read(replies[-1], choices, release_reader)
        error = exc.reason
    strict_answer = parse_answer(replies[0], choices).strict
    output: dict[str, Any] = {
        "answer": parsed.choice,
        "strict_answer": strict_answer,
        "parsed_by": parsed.how,
        "reply": replies[-1],
        "attempts": len(replies),
    }
    scores = {"correct_strict": float(strict_answer == gold)}
    if release_reader is not None:
        release = release_reader(replies[0])
        output["release_answer"] = release
        scores["correct_release"] = float(release == gold)
    if parsed.choice is None:
        return Outcome(output, {"correct": 0.0, **scores, "parsed": 0.0}, error=error)
    return Outcome(output, {"correct": float(parsed.choice == gold), **scores, "parsed": 1.0})


def _read(text: str, choices: Sequence[str], release_reader: ReleaseReader | None) -> ParsedAnswer:
    parsed = parse_answer(text, choices)
    if parsed.choice is None and release_reader is not None and (release := release_reader(text)) is not None:
        return ParsedAnswer(release, "the release's own answer reading", parsed.strict)
    return parsed


def not_covered(reason: str) -> Outcome:
    """The tracker's outcome for a question its reading of the story does not determine (never scored wrong)."""
    return Outcome({"answer": None, "not_covered": reason}, {"covered": 0.0})


def symbolic_outcome(answer: str, gold: str, **extra: Any) -> Outcome:
    """The tracker's outcome for a question it answered."""
    return Outcome({"answer": answer, **extra}, {"covered": 1.0, "correct": float(answer == gold), "parsed": 1.0})


def coverage(records: Sequence[SampleRecord]) -> dict[str, Any] | None:
    """For a symbolic run: the share of questions answered and the accuracy on those; ``None`` for a model run."""
    flags = [r.scores["covered"] for r in records if "covered" in r.scores]
    if not flags:
        return None
    answered = [r.scores["correct"] for r in records if r.scores.get("covered") == 1.0]
    return {
        "coverage": sum(flags) / len(records),
        "covered": len(answered),
        "not_covered": len(records) - len(answered),
        "accuracy_covered": mean(answered),
    }


def _scored(r: SampleRecord) -> bool:
    """A record that counts: every model answer (failed ones as wrong), a symbolic one only when covered."""
    return r.scores.get("covered", 1.0) == 1.0


def _chance(r: SampleRecord) -> float | None:
    """The expected score of a uniform guess among the sample's ``choices`` (``None`` when it offers none)."""
    choices = r.sample.input.get("choices")
    return 1.0 / len(choices) if isinstance(choices, list) and choices else None


def chance(records: Sequence[SampleRecord]) -> float | None:
    """The expected accuracy of a uniform guess among each question's choices, computed exactly (not sampled);
    ``None`` when some question offers no choices (an open answer)."""
    values = [_chance(r) for r in records]
    if not values or any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None) / len(values)


def _chance_of(samples: Sequence[Sample]) -> float | None:
    values = [1.0 / len(c) if isinstance(c := s.input.get("choices"), list) and c else None for s in samples]
    if not values or any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None) / len(values)


def release_references() -> tuple[ReferencePolicy, ...]:
    """A released set's reference policies on its ``accuracy`` headline: chance (exact; ``None`` when some question
    has an open answer, as the summary's ``chance``), the best constant answer per question type (the releases
    ship no train split mindloop reads: fitted on the evaluated items, optimistic) and the oracle."""
    chance_ref = ReferencePolicy(
        "chance",
        "a uniform guess among each question's choices (exact expectation)",
        _chance_of,
        kind="chance",
        none_reason="some question has an open answer, which a guess among choices cannot give",
        summary_key="chance",
    )
    return chance_ref, best_constant_policy(), oracle_policy()


def release_metrics(*groupings: Grouping) -> tuple[Metric, ...]:
    """The declared metrics every released set reports: ``accuracy`` (the questions that count: every model answer,
    a failed or unread one as wrong; a symbolic one only when the tracker covered it), per row of ``groupings``;
    with a model, ``accuracy_strict`` and ``accuracy_release_reading`` (over every question); with the tracker,
    ``coverage`` (the share of questions it answered)."""
    return (
        Metric(
            "accuracy",
            "correct",
            within=("covered",),
            groupings=groupings,
            description="share of the questions that count answered with the gold choice",
        ),
        Metric(
            "accuracy_strict",
            "correct_strict",
            optional=True,
            description="the same with the strict reading (the reply's first line names a choice)",
        ),
        Metric(
            "accuracy_release_reading",
            "correct_release",
            optional=True,
            description="the same with the release's own answer reading",
        ),
        Metric("coverage", "covered", optional=True, description="share of questions the tracker answered"),
    )


RELEASE_RESAMPLED = ("accuracy_covered",)
"""What :func:`model_summary` adds that gets an interval by resampling: the tracker's accuracy on the questions
it covered (a subset the run picks, so no fixed per-sample mean)."""


def counted_rows(records: Sequence[SampleRecord], grouping: Grouping) -> dict[str, list[SampleRecord]]:
    """The records that count (:func:`release_metrics`) in each row of ``grouping``, in its order."""
    return {label: rs for label, rs in group_rows(grouping, [r for r in records if _scored(r)]).items() if rs}


def chance_by(records: Sequence[SampleRecord], grouping: Grouping) -> dict[str, dict[str, Any]]:
    """Each row's ``chance`` (a uniform guess among its counted questions' choices), for the rows of
    ``grouping`` whose questions all offer choices."""
    return {t: {"chance": c} for t, rs in counted_rows(records, grouping).items() if (c := chance(rs)) is not None}


def macro_f1(pairs: Sequence[tuple[str, str | None]], labels: Sequence[str]) -> float | None:
    """Macro-averaged F1 over ``labels`` of ``(gold, predicted)`` pairs; an unread prediction (``None``) is wrong.

    Each label's F1 is ``2·tp / (2·tp + fp + fn)``; a label that is neither gold nor predicted anywhere is left
    out of the average (as scikit-learn does with ``labels`` limited to those present).

    >>> round(macro_f1([("yes", "yes"), ("no", "yes"), ("no", "no")], ["yes", "no"]), 4)
    0.6667
    """
    if not pairs:
        return None
    scores = []
    for label in labels:
        tp = sum(1 for g, p in pairs if g == label and p == label)
        fp = sum(1 for g, p in pairs if g != label and p == label)
        fn = sum(1 for g, p in pairs if g == label and p != label)
        if tp + fp + fn:
            scores.append(2 * tp / (2 * tp + fp + fn))
    return sum(scores) / len(scores) if scores else None


def model_summary(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """What the declared metrics (:func:`release_metrics`) cannot say: the ``chance`` of the questions that count
    (a uniform guess among each question's choices), the unread replies and model failures (model runs), and the
    tracker's counts and accuracy on what it covered (symbolic runs)."""
    counted = [r for r in records if _scored(r)]
    out: dict[str, Any] = {}
    if (c := chance(counted)) is not None:
        out["chance"] = c
    if any("correct_strict" in r.scores or "correct_release" in r.scores for r in records):
        out["unparsed"] = sum(1 for r in records if r.status == "failed" and r.scores.get("parsed") == 0.0)
        out["model_failures"] = sum(1 for r in records if r.status == "failed" and "parsed" not in r.scores)
    if (cov := coverage(records)) is not None:
        out.update({k: v for k, v in cov.items() if k != "coverage"})
    return out

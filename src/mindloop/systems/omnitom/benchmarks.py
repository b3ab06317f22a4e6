"""The ``omnitom-stage1`` and ``omnitom-stage2`` benchmarks on the harness.

Samples are OmniToM gold records: from a JSON/JSONL file (``--data PATH`` or ``--opt data=PATH``), or, by default,
seeded templated false-belief stories annotated by the symbolic annotator (exact golds, no data needed). Agents:

* ``symbolic`` — the symbolic annotator (parses templated false-belief stories; any other story is a failed
  sample, never a guess). On the default samples it is the oracle: F1 and accuracy 1.0.
* ``model`` — the paper's TELeR prompts (Level 3 zero-shot by default, ``--opt level=4`` for the Level 4
  prompt with the App. E example of the story's category); the reply's table is parsed tolerantly, and a reply
  without a table is a failed sample scored 0.

``protocol=release`` (the default) runs the official release's protocol (its user messages, its reply parsing, its
judge, Stage 2 rows matched to gold by exact normalised ``(actor, belief, occurrence)`` key; see
:mod:`~mindloop.systems.omnitom.release`); ``protocol=mindloop`` runs mindloop's own (the tolerant parsers, the
``Story:`` user messages, the judge with Table 2 as its example, positional fallback in Stage 2). Level 4 keeps
mindloop's Level 4 system prompt under either protocol (the release publishes only the zero-shot one).

Options are the fields of :class:`OmniToMOptions` (both stages: ``data``, ``split``, ``level``, ``protocol``) and,
for Stage 1, of
:class:`OmniToMStage1Options`: ``aligner=auto|embedded|exact`` (``auto``: embedded when the ``metrics`` extra is
installed, else exact; the summary names the one used), ``threshold=0.8`` (embedded), ``judge=MODEL`` (the paper's
model judge instead). Settings travel inside each sample, so worker processes score the same way.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal, TypeVar

from pydantic import Field

from mindloop.bench.api import AgentContext, AgentSpec, Judges, Options, Outcome, Sample, SampleRecord
from mindloop.bench.declaration import (
    BenchmarkSpec,
    Headline,
    PresetEntry,
    ReferenceKind,
    ReferencePolicy,
    Suite,
)
from mindloop.bench.references import outcome_policy, policy_headline, policy_records
from mindloop.errors import SETUP_ERRORS, InvalidArgumentError, MindloopError, ParseError
from mindloop.metrics.stats import mean
from mindloop.models.base import Message
from mindloop.models.replies import ask
from mindloop.systems.omnitom import release
from mindloop.systems.omnitom.alignment import DEFAULT_THRESHOLD, offline_aligner, offline_aligner_name
from mindloop.systems.omnitom.annotator import annotate_text
from mindloop.systems.omnitom.examples import appendix_e_record
from mindloop.systems.omnitom.metrics import (
    STAGE1_METRICS,
    STAGE2_METRICS,
    TABLE_3,
    Aligner,
    AlignmentTask,
    by_order,
    stage1_story_score,
    stage2_labels_for_gold,
    stage2_story_score,
)
from mindloop.systems.omnitom.prompts import Level, stage1_messages, stage2_messages
from mindloop.systems.omnitom.records import (
    DIMENSIONS,
    LABEL_SETS,
    WORLD_ACTOR,
    BeliefLabels,
    BeliefRecord,
    StoryRecord,
    read_records,
)
from mindloop.systems.omnitom.tables import Stage1Reading, Stage2Reading, read_stage1, read_stage2
from mindloop.systems.omnitom.templated import generate_false_belief_stories

_R = TypeVar("_R", Stage1Reading, Stage2Reading)

DEFAULT_N = 100
"""Generated stories when neither ``--n`` nor ``data`` is given."""


class OmniToMOptions(Options):
    """Options of ``omnitom-stage2`` (and the common part of ``omnitom-stage1``)."""

    data: str | None = Field(None, description="a JSON/JSONL file of gold records instead of generated stories")
    level: Literal[3, 4] = Field(
        3, description="TELeR prompt level of the model agent: 3 (zero-shot) or 4 (with the App. E example)"
    )
    protocol: Literal["release", "mindloop"] = Field(
        "release",
        description="release: the official release's messages, parsing, judge and Stage 2 key matching; "
        "mindloop: mindloop's own",
    )
    split: str | None = Field(None, description="only the records of data whose split field is this")


class OmniToMStage1Options(OmniToMOptions):
    """Options of ``omnitom-stage1``: the common ones and how predicted beliefs are aligned with the gold."""

    aligner: Literal["auto", "embedded", "exact"] = Field(
        "auto", description="belief alignment (auto: embedded when the metrics extra is installed, else exact)"
    )
    threshold: float = Field(
        DEFAULT_THRESHOLD, ge=0.0, le=1.0, description="similarity threshold of the embedded aligner"
    )
    judge: str | None = Field(None, description="a model (BACKEND/NAME) that aligns instead, as the paper's judge")
    judge_base_url: str | None = Field(None, description="the judge's OpenAI-compatible endpoint")
    judge_api_key_env: str = Field("OPENAI_API_KEY", description="environment variable holding the judge's API key")
    judge_timeout: float | None = Field(
        None, gt=0, description="seconds per judge request (default: the model client's, 120 s)"
    )


def _settings(options: OmniToMOptions) -> dict[str, Any]:
    settings: dict[str, Any] = {"level": options.level, "protocol": options.protocol}
    if isinstance(options, OmniToMStage1Options):
        settings.update(aligner=offline_aligner_name(options.aligner), threshold=options.threshold, judge=options.judge)
        if options.judge:
            settings.update(judge_base_url=options.judge_base_url, judge_api_key_env=options.judge_api_key_env)
            if options.judge_timeout is not None:
                settings["judge_timeout"] = options.judge_timeout
    return settings


def omnitom_samples(
    n: int | None,
    seed: int,
    data: str | None,
    settings: Mapping[str, Any],
    *,
    split: str | None = None,
    stage: int = 1,
) -> list[Sample]:
    """Samples of gold records: the first ``n`` of ``data`` (of its ``split`` when given), else ``n`` generated
    annotated stories. Stage 2 refuses Stage 1 golds (only the order labelled)."""
    if data is not None:
        records = read_records(data)
        if split is not None:
            splits = sorted({r.split for r in records if r.split is not None})
            records = [r for r in records if r.split == split]
            if not records:
                raise InvalidArgumentError(
                    f"{data}: no record has split {split!r} (splits in the file: {', '.join(splits) or 'none'})"
                )
        records = records[:n]
        empty = [r.story_id for r in records if not r.beliefs]
        if empty:
            raise InvalidArgumentError(
                f"{data}: {len(empty)} record(s) have no gold beliefs to score against (first: story {empty[0]})"
            )
        partial = [r.story_id for r in records if not r.stage2_ready]
        if stage == 2 and partial:
            raise InvalidArgumentError(
                f"{data}: {len(partial)} record(s) are Stage 1 golds (only the order labelled; first: story "
                f"{partial[0]}); omnitom-stage2 needs all seven labels"
            )
    elif split is not None:
        raise InvalidArgumentError("split selects records of a data file: give data=FILE too")
    else:
        stories = generate_false_belief_stories(DEFAULT_N if n is None else n, seed=seed)
        records = [annotate_text(s, story_id=i) for i, s in enumerate(stories)]
    return [record_sample(r, settings) for r in records]


def record_sample(record: StoryRecord, settings: Mapping[str, Any]) -> Sample:
    """The sample of one gold record, its scoring ``settings`` inside (worker processes score the same way)."""
    return Sample(
        f"story{record.story_id:05d}", {"record": record.to_json(), "settings": dict(settings)}, record.story_category
    )


_STAGE1_ZERO = {"precision": 0.0, "recall": 0.0, "f1": 0.0}
"""The scores of a failed Stage 1 story (and of a Stage 2 one, below)."""
_STAGE2_ZERO = {**dict.fromkeys(DIMENSIONS, 0.0), "overall": 0.0}


def failed_outcome(key: str, error: str, **output: Any) -> Outcome:
    """A failed story: ``key`` (``beliefs`` in Stage 1, ``labels`` in Stage 2) empty, every score of its stage 0."""
    return Outcome({key: [], **output}, dict(_STAGE1_ZERO if key == "beliefs" else _STAGE2_ZERO), error=error)


def _protocol(settings: Mapping[str, Any]) -> release.Protocol:
    """A sample's protocol (samples recorded before the option existed ran mindloop's)."""
    return "release" if settings.get("protocol") == "release" else "mindloop"


def _scorer(settings: Mapping[str, Any]) -> str:
    """What gave the Stage 1 MatchCounts, in words: the judge, or the embedded/exact aligner standing in for it."""
    if settings.get("imported"):
        return str(settings.get("scorer", ""))
    if settings.get("judge"):
        return f"judge:{settings['judge']} ({_protocol(settings)} protocol)"
    aligner = str(settings.get("aligner", ""))
    if aligner == "embedded":
        aligner = f"embedded(threshold={float(settings.get('threshold', DEFAULT_THRESHOLD)):g})"
    return f"{aligner} aligner: mindloop's offline stand-in for the paper's judge" if aligner else ""


def _unscored(record: SampleRecord) -> bool:
    """A Stage 1 story the aligner could not score (its judge reply unreadable, or the judge call failed)."""
    return record.status == "done" and "f1" not in record.scores


def _deviations(records: Sequence[SampleRecord], *, unscored: int = 0) -> list[str]:
    """Where a ``protocol=release`` run departed from the release's protocol, in words (empty: nowhere)."""
    out: list[str] = []
    noted = sorted({note for r in records for note in (r.output or {}).get("reading_notes", [])})
    if noted:
        out.append(
            f"reading: {sum(1 for r in records if (r.output or {}).get('reading_notes'))} reply table(s) read "
            f"where the release's literal reader differs ({'; '.join(noted)})"
        )
    retried: dict[str, int] = defaultdict(int)
    for r in records:
        for call in r.calls:
            if int(call.get("attempt") or 0) > 0:
                retried[str(call.get("role") or "agent")] += 1
    if retried:
        counts = ", ".join(f"{n} {role}" for role, n in sorted(retried.items()))
        out.append(f"format retries: {counts} call(s) re-asked with the reader's reason (the release reads one reply)")
    if unscored:
        out.append(
            f"judge: {unscored} stor(ies) unscored (judge reply unreadable after its retries, or the call failed); "
            "the release scores their rows as unmatched (f1_release_rule)"
        )
    return out


def _record(sample: Sample) -> StoryRecord:
    return StoryRecord.model_validate(sample.input["record"])


def _level(sample: Sample) -> Level:
    return 4 if sample.input.get("settings", {}).get("level") == 4 else 3


async def _ask(
    ctx: AgentContext, messages: list[Message], parse: Callable[[str], _R], key: str, failure: str
) -> tuple[_R, dict[str, Any]] | Outcome:
    """A stage's reply read by ``parse`` through :func:`~mindloop.models.replies.ask` with the run's format
    retries, and the output naming its malformed rows and reading notes; still unreadable: the failed outcome
    (``key`` empty, every score 0)."""
    assert ctx.model is not None  # dispatch refuses a model agent without a model
    try:
        reading, _, replies = await ask(ctx.model, messages, parse, ctx.config, retries=ctx.format_retries)
    except ParseError as exc:
        return failed_outcome(
            key, f"{failure}: {exc.reason}", malformed=[], reply=exc.replies[-1] if exc.replies else None
        )
    output: dict[str, Any] = {"malformed": [m.to_json() for m in reading.malformed], "reply": replies[-1]}
    if reading.notes:
        output["reading_notes"] = list(reading.notes)
    return reading, output


def _examples(record: StoryRecord, level: int) -> list[StoryRecord]:
    return [appendix_e_record(record.story_category)] if level == 4 else []


def _symbolic(record: StoryRecord, key: str) -> tuple[BeliefRecord, ...] | Outcome:
    """The annotator's beliefs of the story; a story it cannot parse is the failed outcome (``key`` empty, every
    score 0)."""
    try:
        return annotate_text(record.story, story_id=record.story_id).beliefs
    except SETUP_ERRORS:
        raise
    except MindloopError as exc:
        return failed_outcome(key, f"symbolic annotator: {exc}")


def _sentences(story: str) -> list[str]:
    """The story's sentences (split after ``.``, ``!`` or ``?``)."""
    return [t for t in (part.strip() for part in re.split(r"(?<=[.!?])\s+", story)) if t]


def _exact_aligned(sample: Sample) -> Sample:
    """The sample scored by the exact aligner (a reference policy loads no encoder and calls no judge)."""
    settings = {**sample.input.get("settings", {}), "aligner": "exact", "judge": None}
    return replace(sample, input={**sample.input, "settings": settings})


def _stage1_policy(
    name: str,
    description: str,
    predict: Callable[[StoryRecord], list[BeliefRecord]],
    kind: ReferenceKind = "trivial",
) -> ReferencePolicy:
    """A Stage 1 reference policy: ``predict`` gives the beliefs it extracts from a gold record."""

    async def answer(bench: Any, sample: Sample) -> Outcome:
        exact = _exact_aligned(sample)
        gold = _record(exact)
        out: Outcome = await bench._score(exact, gold, predict(gold), {}, None)
        return out

    return outcome_policy(name, description, lambda: OmniToMStage1Benchmark(), answer, kind=kind)


def _stage2_constant(samples: Sequence[Sample]) -> float | None:
    """Stage 2's headline when every belief gets each dimension's most frequent gold label among ``samples``."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    golds = [_record(s) for s in samples]
    for gold in golds:
        for b in gold.beliefs:
            for d in DIMENSIONS:
                if (label := getattr(b.labels, d)) is not None:
                    counts[d][label] += 1
    if not golds:
        return None
    constant = BeliefLabels(**{d: c.most_common(1)[0][0] for d, c in counts.items()})
    bench = OmniToMStage2Benchmark()
    records = policy_records(
        samples,
        lambda s: stage2_outcome(_record(s), [constant] * len(_record(s).beliefs), {}),
    )
    return policy_headline(bench, records)


def stage2_outcome(gold: StoryRecord, labels: list[BeliefLabels | None], output: dict[str, Any]) -> Outcome:
    """A Stage 2 story's outcome: each dimension of ``labels`` scored against the gold (a missing label is wrong),
    the labels kept in ``output``."""
    output["labels"] = [x.model_dump(mode="json") if x is not None else None for x in labels]
    return Outcome(output, stage2_story_score(labels, gold.beliefs, story_id=gold.story_id).scores())


class _OmniToMBase:
    name: str
    spec: BenchmarkSpec

    def __init__(self) -> None:
        self.agents = {
            "symbolic": AgentSpec(
                "the symbolic annotator (templated false-belief stories; any other story fails)", self._symbolic
            ),
            "model": AgentSpec("a chat model with the paper's TELeR prompt", self._model, needs_model=True),
        }

    stage = 1

    def samples(self, n: int | None, seed: int, options: OmniToMOptions) -> list[Sample]:
        """Gold-record samples (deterministic in ``n``, ``seed`` and ``options``)."""
        return omnitom_samples(n, seed, options.data, _settings(options), split=options.split, stage=self.stage)

    async def _symbolic(self, sample: Sample, ctx: AgentContext) -> Outcome:
        raise NotImplementedError

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        raise NotImplementedError


class OmniToMStage1Benchmark(_OmniToMBase):
    """Stage 1: extract ``(actor, belief, order)`` rows; scored by MatchCount P/R/F1 per story (macro)."""

    name = "omnitom-stage1"
    description = "OmniToM Stage 1 belief extraction, MatchCount F1 (generated false-belief golds, or data=FILE)"
    options_model = OmniToMStage1Options
    spec = BenchmarkSpec(
        headline=Headline("f1"),  # Stage 1 belief-record F1
        references=(
            _stage1_policy(
                "no beliefs", "extracts no belief from any story (scored by the exact aligner)", lambda gold: []
            ),
            _stage1_policy(
                "every sentence",
                "extracts every sentence of the story as a narrated fact (actor 'world'), scored by the exact aligner",
                lambda gold: [BeliefRecord(actor=WORLD_ACTOR, belief=t) for t in _sentences(gold.story)],
            ),
            _stage1_policy(
                "oracle",
                "extracts exactly the gold beliefs (scored by the exact aligner)",
                lambda gold: list(gold.beliefs),
                kind="oracle",
            ),
        ),
        metrics=STAGE1_METRICS,
        resampled=("by_order", "f1_release_rule"),  # F1 per order bucket over the stories that have it; the rule's
        suite=Suite(order=50, presets={"quick": PresetEntry(5, "5 stories; one long belief-table reply each")}),
        paper_tables=(TABLE_3,),
    )

    def __init__(self) -> None:
        super().__init__()
        self._aligners: dict[tuple[Any, ...], Aligner] = {}
        self._judges = Judges()

    def _aligner(self, settings: Mapping[str, Any], ctx: AgentContext | None = None) -> Aligner:
        """The configured aligner; a judge's calls go in the sample's ledger with role ``judge`` and its replies
        are read through :func:`~mindloop.models.replies.ask` with the run's format retries."""
        protocol = _protocol(settings)
        if settings.get("judge"):
            from mindloop.systems.omnitom.judge import JudgeAligner

            judge = self._judges.get(settings, ctx, str(settings.get("judge_api_key_env") or "OPENAI_API_KEY"))
            if ctx is None:
                return JudgeAligner(judge, protocol=protocol)
            return JudgeAligner(ctx.recorded(judge, "judge"), protocol=protocol, retries=ctx.format_retries)
        key = (settings.get("aligner"), settings.get("threshold"))
        if key not in self._aligners:
            self._aligners[key] = offline_aligner(
                str(settings.get("aligner")), float(settings.get("threshold", DEFAULT_THRESHOLD))
            )
        return self._aligners[key]

    async def _symbolic(self, sample: Sample, ctx: AgentContext) -> Outcome:
        """Extract with the symbolic annotator, then align and score."""
        gold = _record(sample)
        predicted = _symbolic(gold, "beliefs")
        if isinstance(predicted, Outcome):
            return predicted
        output: dict[str, Any] = {"beliefs": [b.model_dump(mode="json") for b in predicted]}
        return await self._score(sample, gold, predicted, output, ctx)

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        """Extract with the model's TELeR prompt, the reply read through :func:`~mindloop.models.replies.ask` (a
        reply without readable table rows goes back with the reason; still none after the format retries: a
        failed sample), then align and score."""
        gold = _record(sample)
        level, protocol = _level(sample), _protocol(sample.input.get("settings", {}))
        messages = stage1_messages(
            gold.story, level=level, category=gold.story_category, examples=_examples(gold, level)
        )
        if protocol == "release":
            messages = release.stage1_messages(
                gold.story, system=str(messages[0]["content"]) if level == 4 else release.STAGE1_SYSTEM
            )
        asked = await _ask(ctx, messages, lambda text: read_stage1(text, protocol), "beliefs", "unreadable reply")
        if isinstance(asked, Outcome):
            return asked
        reading, output = asked
        output = {"beliefs": [b.model_dump(mode="json") for b in reading.beliefs], **output}
        return await self._score(sample, gold, list(reading.beliefs), output, ctx)

    async def _score(
        self,
        sample: Sample,
        gold: StoryRecord,
        predicted: Sequence[BeliefRecord],
        output: dict[str, Any],
        ctx: AgentContext | None = None,
    ) -> Outcome:
        """Align ``predicted`` with the gold with the configured aligner and score P/R/F1. An alignment that could
        not be made (a judge reply unreadable after its retries, a failed judge call) leaves the story unscored:
        no P/R/F1, ``output["unscored"]`` says why."""
        settings = sample.input.get("settings", {})
        task = AlignmentTask(gold.story, tuple(predicted), gold.beliefs)
        alignment = (await self._aligner(settings, ctx).align([task]))[0]
        if alignment.error is not None:
            output["unscored"] = alignment.error
            return Outcome(output, {"n_predicted": float(len(predicted)), "n_gold": float(len(gold.beliefs))})
        score = stage1_story_score(predicted, gold.beliefs, alignment, story_id=gold.story_id)
        output["match_counts"] = {"predicted": list(alignment.pred_counts), "gold": list(alignment.gold_counts)}
        if alignment.warnings:
            output["alignment_warnings"] = list(alignment.warnings)
        return Outcome(output, score.scores())

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """What the declared macro P/R/F1 (overall and per category, :data:`STAGE1_METRICS`) cannot say: the
        counts (stories the judge could not score are left out of the F1, counted in ``unscored`` with the reasons
        in ``unscored_reasons``) and the F1 per order bucket; ``None`` without scored stories. With a judge under
        the release's protocol, ``f1_release_rule`` is the F1 the release's rule gives (unscored stories' rows
        unmatched: 0); ``deviations`` lists where the run departed from the release."""
        scored = [r for r in records if not _unscored(r)]
        unscored = [r for r in records if _unscored(r)]
        settings = records[0].sample.input.get("settings", {}) if records else {}
        out: dict[str, Any] = {
            "n": len(records),
            "failed": sum(1 for r in records if r.status == "failed"),
            "unscored": len(unscored),
            "by_order": by_order(scored, "f1"),
            "aligner": f"judge:{settings['judge']}" if settings.get("judge") else settings.get("aligner", ""),
            "scorer": _scorer(settings),
            "protocol": _protocol(settings),
        }
        if unscored:
            out["unscored_reasons"] = {r.sample.id: str((r.output or {}).get("unscored", "")) for r in unscored}
        if settings.get("judge") and _protocol(settings) == "release":
            out["f1_release_rule"] = mean([r.scores.get("f1", 0.0) for r in records])
        if _protocol(settings) == "release":
            out["deviations"] = _deviations(records, unscored=len(unscored))
        return out


class OmniToMStage2Benchmark(_OmniToMBase):
    """Stage 2: label the gold beliefs on seven dimensions; scored by per-dimension accuracy (macro)."""

    name = "omnitom-stage2"
    description = "OmniToM Stage 2 seven-dimension belief labelling accuracy (generated golds, or data=FILE)"
    options_model = OmniToMOptions
    spec = BenchmarkSpec(
        headline=Headline("overall"),  # Stage 2 accuracy over the seven dimensions
        references=(
            ReferencePolicy(
                "chance",
                "a uniform guess among each dimension's labels (exact expectation: the mean over the seven "
                "dimensions of one over the label set's size)",
                lambda samples: mean([1.0 / len(LABEL_SETS[d]) for d in DIMENSIONS]) if samples else None,
                kind="chance",
                none_reason="no samples",
            ),
            ReferencePolicy(
                "best constant",
                "labels every belief with each dimension's most frequent gold label, fitted on the evaluated "
                "stories (the generated golds have no train split: optimistic)",
                lambda samples: _stage2_constant(samples),
                kind="constant",
                optimistic=True,
                none_reason="no samples",
            ),
            outcome_policy(
                "oracle",
                "labels every belief with its gold labels",
                lambda: OmniToMStage2Benchmark(),
                lambda bench, sample: stage2_outcome(_record(sample), [b.labels for b in _record(sample).beliefs], {}),
                kind="oracle",
            ),
        ),
        metrics=STAGE2_METRICS,
        resampled=("by_order",),  # accuracy per order bucket over the stories that have it
        suite=Suite(order=60, presets={"quick": PresetEntry(5, "5 stories; one labelling reply each")}),
    )
    stage = 2

    @staticmethod
    def _gold(sample: Sample) -> StoryRecord:
        gold = _record(sample)
        if not gold.beliefs:
            raise InvalidArgumentError(f"story {gold.story_id} has no gold beliefs to label")
        return gold

    async def _symbolic(self, sample: Sample, ctx: AgentContext) -> Outcome:
        """Label the gold beliefs with the symbolic annotator's labels, then score each dimension."""
        gold = self._gold(sample)
        predicted = _symbolic(gold, "labels")
        if isinstance(predicted, Outcome):
            return predicted
        labels = stage2_labels_for_gold(predicted, gold.beliefs, _protocol(sample.input.get("settings", {})))
        return stage2_outcome(gold, labels, {})

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        """Label the gold beliefs with the model's TELeR prompt, the reply read through
        :func:`~mindloop.models.replies.ask`: a reply that labels no gold belief with a readable label goes back
        with the reason, and still none after the format retries is a failed sample. Then score."""
        gold = self._gold(sample)
        level, protocol = _level(sample), _protocol(sample.input.get("settings", {}))
        messages = stage2_messages(gold.story, gold.beliefs, level=level, examples=_examples(gold, level))
        if protocol == "release":
            system = str(messages[0]["content"]) if level == 4 else release.STAGE2_SYSTEM
            messages = release.stage2_messages(gold.story, gold.beliefs, system=system)
        read = lambda text: read_stage2(text, gold.beliefs, protocol)  # noqa: E731
        asked = await _ask(ctx, messages, read, "labels", "no readable labels")
        if isinstance(asked, Outcome):
            return asked
        reading, output = asked
        return stage2_outcome(gold, list(reading.labels), output)

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """What the declared macro accuracy (overall, per dimension, per category: :data:`STAGE2_METRICS`) cannot
        say: the protocol, the counts and the accuracy per order bucket; ``None`` without stories."""
        settings = records[0].sample.input.get("settings", {}) if records else {}
        out: dict[str, Any] = {
            "protocol": _protocol(settings),
            "n": len(records),
            "failed": sum(1 for r in records if r.status == "failed"),
            "by_order": by_order(records, "overall"),
        }
        if _protocol(settings) == "release":
            out["deviations"] = _deviations(records)
        return out

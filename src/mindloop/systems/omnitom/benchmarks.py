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

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field

from mindloop.bench.agents import dispatch
from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.errors import SETUP_ERRORS, InvalidArgumentError, MindloopError
from mindloop.metrics.embeddings import encoder_available
from mindloop.metrics.stats import mean
from mindloop.systems.omnitom import release
from mindloop.systems.omnitom.annotator import annotate_text
from mindloop.systems.omnitom.examples import appendix_e_record
from mindloop.systems.omnitom.metrics import (
    BUCKETS,
    Aligner,
    AlignmentTask,
    EmbeddingAligner,
    ExactAligner,
    stage1_story_score,
    stage2_labels_for_gold,
    stage2_story_score,
)
from mindloop.systems.omnitom.prompts import Level, stage1_messages, stage2_messages
from mindloop.systems.omnitom.records import (
    CATEGORIES,
    DIMENSIONS,
    BeliefLabels,
    BeliefRecord,
    StoryRecord,
    read_records,
)
from mindloop.systems.omnitom.tables import parse_stage1, parse_stage2
from mindloop.systems.omnitom.templated import generate_false_belief_stories

__all__ = [
    "DEFAULT_N",
    "OmniToMOptions",
    "OmniToMStage1Benchmark",
    "OmniToMStage1Options",
    "OmniToMStage2Benchmark",
    "omnitom_samples",
]

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
    threshold: float = Field(0.8, ge=0.0, le=1.0, description="similarity threshold of the embedded aligner")
    judge: str | None = Field(None, description="a model (BACKEND/NAME) that aligns instead, as the paper's judge")


def _settings(options: OmniToMOptions) -> dict[str, Any]:
    settings: dict[str, Any] = {"level": options.level, "protocol": options.protocol}
    if isinstance(options, OmniToMStage1Options):
        aligner: str = options.aligner
        if aligner == "auto":
            aligner = "embedded" if encoder_available() else "exact"
        settings.update(aligner=aligner, threshold=options.threshold, judge=options.judge)
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
        records = records[:n] if n is not None else records
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
    return [
        Sample(
            id=f"story{r.story_id:05d}",
            input={"record": r.to_json(), "settings": dict(settings)},
            group=r.story_category,
        )
        for r in records
    ]


_STAGE1_ZERO = {"precision": 0.0, "recall": 0.0, "f1": 0.0}
_STAGE2_ZERO = {**dict.fromkeys(DIMENSIONS, 0.0), "overall": 0.0}


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
        aligner = f"embedded(threshold={float(settings.get('threshold', 0.8)):g})"
    return f"{aligner} aligner: mindloop's offline stand-in for the paper's judge" if aligner else ""


def _record(sample: Sample) -> StoryRecord:
    return StoryRecord.model_validate(sample.input["record"])


def _examples(record: StoryRecord, level: int) -> list[StoryRecord]:
    return [appendix_e_record(record.story_category)] if level == 4 else []


def _symbolic(record: StoryRecord) -> StoryRecord:
    """The annotator's record of the story; raises MindloopError when the story is not one it can parse."""
    return annotate_text(record.story, story_id=record.story_id)


class _OmniToMBase:
    name: str

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

    async def run(self, sample: Sample, ctx: AgentContext) -> Outcome:
        """Answer one story with the agent in ``ctx.agent`` and score it (failures score 0)."""
        return await dispatch(self, sample, ctx)

    async def _symbolic(self, sample: Sample, ctx: AgentContext) -> Outcome:
        raise NotImplementedError

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        raise NotImplementedError


class OmniToMStage1Benchmark(_OmniToMBase):
    """Stage 1: extract ``(actor, belief, order)`` rows; scored by MatchCount P/R/F1 per story (macro)."""

    name = "omnitom-stage1"
    description = "OmniToM Stage 1 belief extraction, MatchCount F1 (generated false-belief golds, or data=FILE)"
    options_model = OmniToMStage1Options

    def __init__(self) -> None:
        super().__init__()
        self._aligners: dict[tuple[Any, ...], Aligner] = {}

    def _aligner(self, settings: Mapping[str, Any]) -> Aligner:
        protocol: release.Protocol = "mindloop" if settings.get("protocol") == "mindloop" else "release"
        key = (settings.get("aligner"), settings.get("threshold"), settings.get("judge"), protocol)
        aligner = self._aligners.get(key)
        if aligner is None:
            if settings.get("judge"):
                from mindloop.models.base import load_model
                from mindloop.systems.omnitom.judge import JudgeAligner

                aligner = JudgeAligner(load_model(str(settings["judge"])), protocol=protocol)
            elif settings.get("aligner") == "embedded":
                aligner = EmbeddingAligner(threshold=float(settings.get("threshold", 0.8)))
            else:
                aligner = ExactAligner()
            self._aligners[key] = aligner
        return aligner

    async def _symbolic(self, sample: Sample, ctx: AgentContext) -> Outcome:
        """Extract with the symbolic annotator, then align and score."""
        gold = _record(sample)
        try:
            predicted = _symbolic(gold).beliefs
        except SETUP_ERRORS:
            raise
        except MindloopError as exc:
            return Outcome({"beliefs": []}, dict(_STAGE1_ZERO), error=f"symbolic annotator: {exc}")
        return await self._score(sample, gold, predicted, {"beliefs": [b.model_dump(mode="json") for b in predicted]})

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        """Extract with the model's TELeR prompt (a reply without table rows fails), then align and score."""
        assert ctx.model is not None  # dispatch refuses a model agent without a model
        gold = _record(sample)
        settings = sample.input.get("settings", {})
        level: Level = 4 if settings.get("level") == 4 else 3
        messages = stage1_messages(
            gold.story, level=level, category=gold.story_category, examples=_examples(gold, level)
        )
        if _protocol(settings) == "release":
            messages = release.stage1_messages(
                gold.story, system=str(messages[0]["content"]) if level == 4 else release.STAGE1_SYSTEM
            )
        reply = await ctx.model.generate(messages, ctx.config)
        if _protocol(settings) == "release":
            beliefs, dropped = release.parse_extraction(reply.text)
            malformed = [{"line": 0, "text": d, "reason": "empty actor or belief"} for d in dropped]
        else:
            parsed = parse_stage1(reply.text)
            beliefs, malformed = list(parsed.beliefs), [m.to_json() for m in parsed.malformed]
        output: dict[str, Any] = {
            "beliefs": [b.model_dump(mode="json") for b in beliefs],
            "malformed": malformed,
            "reply": reply.text,
        }
        if not beliefs:
            return Outcome(output, dict(_STAGE1_ZERO), error="no Actor | Belief | Order table rows in the reply")
        return await self._score(sample, gold, beliefs, output)

    async def _score(
        self, sample: Sample, gold: StoryRecord, predicted: Sequence[BeliefRecord], output: dict[str, Any]
    ) -> Outcome:
        """Align ``predicted`` with the gold with the configured aligner and score P/R/F1 (failures score 0)."""
        settings = sample.input.get("settings", {})
        zero = dict(_STAGE1_ZERO)
        alignment = (await self._aligner(settings).align([AlignmentTask(gold.story, tuple(predicted), gold.beliefs)]))[
            0
        ]
        if alignment.error is not None:
            return Outcome(output, zero, error=f"alignment failed: {alignment.error}")
        score = stage1_story_score(predicted, gold.beliefs, alignment, story_id=gold.story_id)
        output["match_counts"] = {"predicted": list(alignment.pred_counts), "gold": list(alignment.gold_counts)}
        scores = {
            "precision": score.prf.precision,
            "recall": score.prf.recall,
            "f1": score.prf.f1,
            "n_predicted": float(score.n_pred),
            "n_gold": float(score.n_gold),
        }
        for bucket, prf in score.by_bucket.items():
            scores[f"f1_order_{bucket}"] = prf.f1
        return Outcome(output, scores)

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """Macro P/R/F1 over stories (failed stories count as 0), per category and per order bucket; ``None``
        without stories."""
        n = len(records)
        by_cat: dict[str, list[float]] = defaultdict(list)
        for r in records:
            by_cat[r.sample.group].append(r.scores.get("f1", 0.0))
        cats = [c for c in CATEGORIES if c in by_cat] + sorted(set(by_cat) - set(CATEGORIES))
        settings = records[0].sample.input.get("settings", {}) if records else {}
        return {
            "precision": mean([r.scores.get("precision", 0.0) for r in records]),
            "recall": mean([r.scores.get("recall", 0.0) for r in records]),
            "f1": mean([r.scores.get("f1", 0.0) for r in records]),
            "n": n,
            "failed": sum(1 for r in records if r.status == "failed"),
            "by_category": {c: {"f1": mean(by_cat[c]), "n": len(by_cat[c])} for c in cats},
            "by_order": {
                b: {"f1": mean(v), "n": len(v)}
                for b in BUCKETS
                if (v := [r.scores[f"f1_order_{b}"] for r in records if f"f1_order_{b}" in r.scores])
            },
            "aligner": f"judge:{settings['judge']}" if settings.get("judge") else settings.get("aligner", ""),
            "scorer": _scorer(settings),
            "protocol": _protocol(settings),
        }


class OmniToMStage2Benchmark(_OmniToMBase):
    """Stage 2: label the gold beliefs on seven dimensions; scored by per-dimension accuracy (macro)."""

    name = "omnitom-stage2"
    description = "OmniToM Stage 2 seven-dimension belief labelling accuracy (generated golds, or data=FILE)"
    options_model = OmniToMOptions
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
        try:
            predicted = _symbolic(gold).beliefs
            if _protocol(sample.input.get("settings", {})) == "release":
                labels = release.stage2_labels_by_key(predicted, gold.beliefs)
            else:
                labels = stage2_labels_for_gold(predicted, gold.beliefs)
        except SETUP_ERRORS:
            raise
        except MindloopError as exc:
            return Outcome({"labels": []}, dict(_STAGE2_ZERO), error=f"symbolic annotator: {exc}")
        return self._score(gold, labels, {})

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        """Label the gold beliefs with the model's TELeR prompt (a reply without a table fails), then score."""
        assert ctx.model is not None  # dispatch refuses a model agent without a model
        gold = self._gold(sample)
        settings = sample.input.get("settings", {})
        level: Level = 4 if settings.get("level") == 4 else 3
        messages = stage2_messages(gold.story, gold.beliefs, level=level, examples=_examples(gold, level))
        if _protocol(settings) == "release":
            system = str(messages[0]["content"]) if level == 4 else release.STAGE2_SYSTEM
            messages = release.stage2_messages(gold.story, gold.beliefs, system=system)
        reply = await ctx.model.generate(messages, ctx.config)
        if _protocol(settings) == "release":
            rows = release.parse_labels(reply.text)
            output: dict[str, Any] = {"malformed": [], "reply": reply.text}
            if not rows:
                output["labels"] = []
                return Outcome(output, dict(_STAGE2_ZERO), error="no labelled belief table in the reply")
            return self._score(gold, release.stage2_labels_by_key(rows, gold.beliefs), output)
        parsed = parse_stage2(reply.text, gold.beliefs)
        output = {"malformed": [m.to_json() for m in parsed.malformed], "reply": reply.text}
        if not parsed.found_table:
            output["labels"] = []
            return Outcome(output, dict(_STAGE2_ZERO), error="no labelled belief table in the reply")
        return self._score(gold, list(parsed.labels), output)

    @staticmethod
    def _score(gold: StoryRecord, labels: list[BeliefLabels | None], output: dict[str, Any]) -> Outcome:
        """Score each dimension of ``labels`` against the gold (a missing label is wrong)."""
        output["labels"] = [x.model_dump(mode="json") if x is not None else None for x in labels]
        score = stage2_story_score(labels, gold.beliefs, story_id=gold.story_id)
        scores = {**score.accuracy, "overall": score.overall, "missing": float(score.n_missing)}
        for bucket, acc in score.by_bucket.items():
            scores[f"overall_order_{bucket}"] = sum(acc.values()) / len(DIMENSIONS)
        return Outcome(output, scores)

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """Macro accuracy per dimension and overall (failed stories count as 0), per category and order bucket;
        ``None`` without stories."""
        by_cat: dict[str, list[SampleRecord]] = defaultdict(list)
        for r in records:
            by_cat[r.sample.group].append(r)
        cats = [c for c in CATEGORIES if c in by_cat] + sorted(set(by_cat) - set(CATEGORIES))

        def dims(rs: Sequence[SampleRecord]) -> dict[str, float | None]:
            return {d: mean([r.scores.get(d, 0.0) for r in rs]) for d in (*DIMENSIONS, "overall")}

        settings = records[0].sample.input.get("settings", {}) if records else {}
        return {
            "overall": mean([r.scores.get("overall", 0.0) for r in records]),
            "by_dimension": {d: mean([r.scores.get(d, 0.0) for r in records]) for d in DIMENSIONS},
            "protocol": _protocol(settings),
            "n": len(records),
            "failed": sum(1 for r in records if r.status == "failed"),
            "by_category": {c: {**dims(by_cat[c]), "n": len(by_cat[c])} for c in cats},
            "by_order": {
                b: {"overall": mean(v), "n": len(v)}
                for b in BUCKETS
                if (v := [r.scores[f"overall_order_{b}"] for r in records if f"overall_order_{b}" in r.scores])
            },
        }

"""OmniToM scoring (Sec. 5 of the paper): Stage 1 MatchCount F1 and Stage 2 labelling accuracy.

Stage 1 aligns predicted beliefs to gold beliefs *within actor groups* and gives each row a MatchCount: 0 (no
match), 1 (one-to-one) or 2-3 (a compound row covering that many distinct rows on the other side). Per story,
``P = M_P / |B̂|`` and ``R = M_R / |B*|`` where ``M`` counts rows with a nonzero MatchCount; F1 is their harmonic
mean; stories are macro-averaged, with breakdowns by category and by order bucket (0, 1, 2+).

Alignment is pluggable (:class:`Aligner`) and lives in :mod:`~mindloop.systems.omnitom.alignment` (the embedded
:class:`EmbeddingAligner`, :class:`ExactAligner`; the paper's model judge is
:class:`mindloop.systems.omnitom.judge.JudgeAligner`); its names are re-exported here.

Stage 2 scores labels of the gold beliefs: per story and dimension, the share of gold beliefs whose predicted
label equals the gold label (a missing or illegal prediction is wrong), overall = mean of the seven;
stories are macro-averaged. Which predicted row labels which gold belief depends on the protocol: the release's
exact normalised ``(actor, belief, occurrence)`` key (:func:`~mindloop.systems.omnitom.release.stage2_labels_by_key`,
the default) or mindloop's actor mapping (:func:`stage2_labels_for_gold`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mindloop.bench import Column, PaperTable, Row
from mindloop.bench.declaration import Grouping, Metric
from mindloop.bench.records import Sample, SampleRecord
from mindloop.bench.scoring import declared_summary, merge_summaries
from mindloop.bench.tables import Grid, grid, markdown
from mindloop.errors import InvalidArgumentError
from mindloop.metrics.stats import PRF, mean, prf_from_counts
from mindloop.models.base import run_sync
from mindloop.systems.omnitom.alignment import (
    DEFAULT_COMPOUND_GAIN,
    DEFAULT_THRESHOLD,
    Aligner,
    Alignment,
    AlignmentTask,
    EmbeddingAligner,
    ExactAligner,
    actor_key,
    belief_key,
    map_actors,
)
from mindloop.systems.omnitom.records import (
    CATEGORIES,
    CATEGORY_ABBREVIATIONS,
    DIMENSION_NAMES,
    DIMENSION_SHORT_NAMES,
    DIMENSIONS,
    BeliefLabels,
    BeliefRecord,
    StoryRecord,
    is_world,
    order_bucket,
)
from mindloop.systems.omnitom.release import Protocol, stage2_labels_by_key

__all__ = [
    "BUCKETS",
    "DEFAULT_COMPOUND_GAIN",
    "DEFAULT_THRESHOLD",
    "PRF",
    "STAGE1_METRICS",
    "STAGE2_METRICS",
    "Aligner",
    "Alignment",
    "AlignmentTask",
    "EmbeddingAligner",
    "ExactAligner",
    "OmniToMScore",
    "Stage1StoryScore",
    "Stage2StoryScore",
    "actor_key",
    "belief_key",
    "by_order",
    "format_table",
    "map_actors",
    "score_records",
    "score_records_sync",
    "stage1_story_score",
    "stage2_labels_for_gold",
    "stage2_story_score",
    "summarize_stage1",
    "summarize_stage2",
    "table3",
    "table10",
]

BUCKETS: tuple[str, ...] = ("0", "1", "2+")
"""Order buckets of the Stage 1 and Stage 2 breakdowns (Fig. 5)."""


# ---- Stage 1 scores ---------------------------------------------------------------------------------------------
# A story's scores and their macro averages are :class:`mindloop.metrics.stats.PRF` (``n`` = stories averaged).


def _order(b: BeliefRecord) -> int:
    """A row's order: its label, else 0 for ``world`` and 1 for anyone else."""
    order = b.order
    return order if order is not None else (0 if is_world(b.actor) else 1)


@dataclass(frozen=True)
class Stage1StoryScore:
    """A story's Stage 1 precision, recall and F1, its counts, and the same per order bucket."""

    story_id: int
    category: str
    prf: PRF
    n_pred: int
    n_gold: int
    matched_pred: int
    matched_gold: int
    by_bucket: dict[str, PRF] = field(default_factory=dict)

    def scores(self) -> dict[str, float]:
        """A sample's scores: P/R/F1, the counts and the F1 of each order bucket (``f1_order_<bucket>``)."""
        prf = {"precision": self.prf.precision, "recall": self.prf.recall, "f1": self.prf.f1}
        counts = {"n_predicted": float(self.n_pred), "n_gold": float(self.n_gold)}
        return {**prf, **counts, **{f"f1_order_{b}": x.f1 for b, x in self.by_bucket.items()}}


def stage1_story_score(
    predicted: Sequence[BeliefRecord],
    gold: Sequence[BeliefRecord],
    alignment: Alignment,
    *,
    story_id: int = 0,
    category: str = "",
) -> Stage1StoryScore:
    """``P = M_P/|B̂|``, ``R = M_R/|B*|``, F1 (0 when P + R = 0); buckets use each row's order.

    A bucket is scored for the story when it has a predicted or a gold row.
    """
    if len(alignment.pred_counts) != len(predicted) or len(alignment.gold_counts) != len(gold):
        raise InvalidArgumentError(
            f"alignment of story {story_id} has {len(alignment.pred_counts)}/{len(alignment.gold_counts)} counts "
            f"for {len(predicted)} predicted and {len(gold)} gold beliefs"
        )
    mp = sum(1 for c in alignment.pred_counts if c > 0)
    mr = sum(1 for c in alignment.gold_counts if c > 0)
    by_bucket: dict[str, PRF] = {}
    for bucket in BUCKETS:
        pb = [c for b, c in zip(predicted, alignment.pred_counts, strict=True) if order_bucket(_order(b)) == bucket]
        gb = [c for b, c in zip(gold, alignment.gold_counts, strict=True) if order_bucket(_order(b)) == bucket]
        if pb or gb:
            by_bucket[bucket] = prf_from_counts(sum(c > 0 for c in pb), len(pb), sum(c > 0 for c in gb), len(gb))
    prf = prf_from_counts(mp, len(predicted), mr, len(gold))
    return Stage1StoryScore(story_id, category, prf, len(predicted), len(gold), mp, mr, by_bucket)


_BY_CATEGORY = (Grouping("by_category", "group", CATEGORIES),)
STAGE1_METRICS = tuple(
    Metric(
        key,
        key,
        "mean",
        missing="skip",
        failed="zero",
        groupings=_BY_CATEGORY if key == "f1" else (),
        description=f"MatchCount {key} of a story's belief rows, macro over the scored stories (a failed one: 0)",
    )
    for key in ("precision", "recall", "f1")
)
"""Stage 1's macro P/R/F1 over the scored stories: a failed story scores 0; one the aligner could not score (done,
with no F1) is left out, as ``unscored``."""
STAGE2_METRICS = (
    Metric(
        "overall",
        "overall",
        "mean",
        groupings=_BY_CATEGORY,
        description="a story's accuracy over the seven dimensions, macro over stories (a failed one: 0)",
    ),
    *(
        Metric(d, d, "mean", table="by_dimension", groupings=_BY_CATEGORY, description=f"a story's {d} accuracy")
        for d in DIMENSIONS
    ),
)
"""Stage 2's accuracy overall and per dimension, macro over stories, and per category."""


def by_order(records: Sequence[SampleRecord], score: str) -> dict[str, dict[str, Any]]:
    """Mean ``score`` per order bucket (``<score>_order_<bucket>``) over the records that have it, and their count."""
    means = {b: [r.scores[k] for r in records if (k := f"{score}_order_{b}") in r.scores] for b in BUCKETS}
    return {b: {score: mean(v), "n": len(v)} for b, v in means.items() if v}


def _records(scores: Sequence[Stage1StoryScore | Stage2StoryScore]) -> list[SampleRecord]:
    """The story scores as the finished samples of a run (grouped by category), for the declared metrics."""
    return [
        SampleRecord(i, Sample(str(s.story_id), {}, s.category), "done", {}, s.scores(), None, [], 0.0)
        for i, s in enumerate(scores)
    ]


def summarize_stage1(scores: Sequence[Stage1StoryScore], *, n_unscored: int = 0, aligner: str = "") -> dict[str, Any]:
    """Stage 1 as ``omnitom-stage1`` reports it: its declared macro P/R/F1 (:data:`STAGE1_METRICS`; ``None``
    without stories; F1 per category in ``by_category``), the F1 per order bucket (``by_order``), the stories
    left unscored and the aligner."""
    records = _records(scores)
    return declared_summary(STAGE1_METRICS, records) | {
        "by_order": by_order(records, "f1"),
        "unscored": n_unscored,
        "aligner": aligner,
    }


# ---- Stage 2 scores ---------------------------------------------------------------------------------------------
def stage2_labels_for_gold(
    predicted: Sequence[BeliefRecord], gold: Sequence[BeliefRecord], protocol: Protocol = "mindloop"
) -> list[BeliefLabels | None]:
    """The predicted labels of each gold belief: the next unused predicted row with the same actor (see
    :func:`map_actors`) and the same belief text (see :func:`belief_key`); ``None`` when there is none.
    ``protocol="release"``: the release's exact key instead (:func:`~.release.stage2_labels_by_key`)."""
    if protocol == "release":
        return stage2_labels_by_key(predicted, gold)
    mapping = map_actors(list(dict.fromkeys(b.actor for b in predicted)), list(dict.fromkeys(b.actor for b in gold)))
    free: dict[tuple[str, str], list[BeliefLabels]] = {}
    for b in predicted:
        actor = mapping.get(b.actor)
        if actor is not None:
            free.setdefault((actor, belief_key(b.belief)), []).append(b.labels)
    out: list[BeliefLabels | None] = []
    for g in gold:
        queue = free.get((g.actor, belief_key(g.belief)))
        out.append(queue.pop(0) if queue else None)
    return out


@dataclass(frozen=True)
class Stage2StoryScore:
    """A story's per-dimension accuracy over its gold beliefs, the overall mean, and per-bucket accuracies."""

    story_id: int
    category: str
    n_gold: int
    n_missing: int
    accuracy: dict[str, float]
    overall: float
    by_bucket: dict[str, dict[str, float]] = field(default_factory=dict)

    def scores(self) -> dict[str, float]:
        """A sample's scores: each dimension's accuracy, ``overall``, ``missing`` and each order bucket's mean."""
        buckets = {f"overall_order_{b}": sum(acc.values()) / len(DIMENSIONS) for b, acc in self.by_bucket.items()}
        return {**self.accuracy, "overall": self.overall, "missing": float(self.n_missing), **buckets}


def _accuracy(pairs: Sequence[tuple[BeliefLabels | None, BeliefRecord]]) -> dict[str, float]:
    n = len(pairs)
    return {
        d: sum(1 for p, g in pairs if p is not None and p.get(d) is not None and p.get(d) == g.labels.get(d)) / n
        for d in DIMENSIONS
    }


def stage2_story_score(
    predicted: Sequence[BeliefRecord | BeliefLabels | None],
    gold: Sequence[BeliefRecord],
    *,
    story_id: int = 0,
    category: str = "",
) -> Stage2StoryScore:
    """``Acc_d = (1/N_gold) Σ_i 1[ŷ_i,d = y*_i,d]`` and ``Acc_overall = mean_d Acc_d``.

    ``predicted`` is either the predicted belief rows (matched to gold by :func:`stage2_labels_for_gold`) or
    already one label set (or ``None``) per gold belief, in gold order.
    """
    if not gold:
        raise InvalidArgumentError(f"story {story_id} has no gold beliefs to score Stage 2 on")
    for i, g in enumerate(gold):
        if not g.labels.complete:
            missing = ", ".join(d for d in DIMENSIONS if g.labels.get(d) is None)
            raise InvalidArgumentError(f"story {story_id}, gold belief {i} ({g.belief!r}) lacks label(s) {missing}")
    if all(isinstance(p, BeliefRecord) for p in predicted):
        labels = stage2_labels_for_gold([p for p in predicted if isinstance(p, BeliefRecord)], gold)
    else:
        if len(predicted) != len(gold):
            raise InvalidArgumentError(
                f"story {story_id}: {len(predicted)} predicted label sets for {len(gold)} gold beliefs"
            )
        labels = [p.labels if isinstance(p, BeliefRecord) else p for p in predicted]
    pairs = list(zip(labels, gold, strict=True))
    accuracy = _accuracy(pairs)
    by_bucket = {}
    for bucket in BUCKETS:
        sub = [(p, g) for p, g in pairs if order_bucket(_order(g)) == bucket]
        if sub:
            by_bucket[bucket] = _accuracy(sub)
    return Stage2StoryScore(
        story_id=story_id,
        category=category,
        n_gold=len(gold),
        n_missing=sum(1 for p in labels if p is None),
        accuracy=accuracy,
        overall=sum(accuracy.values()) / len(DIMENSIONS),
        by_bucket=by_bucket,
    )


def summarize_stage2(scores: Sequence[Stage2StoryScore]) -> dict[str, Any]:
    """Stage 2 as ``omnitom-stage2`` reports it: its declared macro accuracy, overall, per dimension
    (``by_dimension``) and per category (:data:`STAGE2_METRICS`; ``None`` without stories, not 0), and per order
    bucket (``by_order``: ``overall`` is the mean over the seven dimensions of each one's macro accuracy over the
    stories that have the bucket, and ``n`` those stories)."""
    out = declared_summary(STAGE2_METRICS, _records(scores))
    out["by_order"] = {}
    for b in BUCKETS:
        rows = [s.by_bucket[b] for s in scores if b in s.by_bucket]
        if rows:
            overall = mean(sum(r[d] for r in rows) / len(rows) for d in DIMENSIONS)
            out["by_order"][b] = {"overall": overall, "n": len(rows)}
    return out


# ---- whole files -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OmniToMScore:
    """Both stages over a set of stories (each stage's summary as its benchmark reports it:
    :func:`summarize_stage1`, :func:`summarize_stage2`), with per-story scores kept for drill-down."""

    stage1: dict[str, Any]
    stage2: dict[str, Any]
    n_stories: int
    stage1_stories: tuple[Stage1StoryScore, ...] = ()
    stage2_stories: tuple[Stage2StoryScore, ...] = ()
    unmatched_predictions: tuple[int, ...] = ()
    skipped_gold: tuple[int, ...] = ()
    protocol: str = "release"
    stage1_only: tuple[int, ...] = ()
    """Gold stories that carry only the order (Stage 1 golds): scored in Stage 1, not in Stage 2."""
    stage1_unscored: tuple[tuple[int, str], ...] = ()
    """``(story id, reason)`` of each story left out of Stage 1 (its alignment failed: a judge reply unreadable
    after its retries, or a failed judge call)."""

    def to_json(self) -> dict[str, Any]:
        """The command-line contract: ``{"stage1": {precision, recall, f1}, "stage2": {overall, by_dimension},
        "n_stories", "protocol", "aligner"}`` (``aligner`` names what gave the Stage 1 MatchCounts), and
        ``stage1_unscored`` when a story was left out of Stage 1 (each with the reason). Under the release's
        protocol with unscored stories, ``stage1_release_rule`` is Stage 1 as the release scores them (their rows
        unmatched: 0)."""
        prf = ("precision", "recall", "f1")
        out: dict[str, Any] = {
            "stage1": {k: self.stage1[k] for k in prf},
            "stage2": {"overall": self.stage2["overall"], "by_dimension": dict(self.stage2["by_dimension"])},
            "n_stories": self.n_stories,
            "protocol": self.protocol,
            "aligner": self.stage1["aligner"],
        }
        if self.stage1_unscored:
            out["stage1_unscored"] = [{"story_id": i, "reason": why} for i, why in self.stage1_unscored]
        if self.protocol == "release" and self.stage1_unscored:  # the unscored stories' rows unmatched: 0
            n = len(self.stage1_stories) + len(self.stage1_unscored)
            out["stage1_release_rule"] = {k: sum(getattr(s.prf, k) for s in self.stage1_stories) / n for k in prf}
        return out


async def score_records(
    predicted: Sequence[StoryRecord], gold: Sequence[StoryRecord], aligner: Aligner, *, protocol: Protocol = "release"
) -> OmniToMScore:
    """Score predictions against gold records, matched by ``story_id``.

    A gold story without a prediction scores 0 in both stages; predictions of unknown stories are listed in
    ``unmatched_predictions``; gold stories without beliefs are skipped (``skipped_gold``); Stage 1 golds (only
    the order labelled) are left out of Stage 2 (``stage1_only``); stories whose alignment failed are left out of
    Stage 1, counted in ``stage1["unscored"]`` and listed in ``stage1_unscored`` with the reasons (a judge reply
    still unreadable after its retries, or a failed judge call; the release would score such a story's rows as
    unmatched, which ``to_json`` reports apart). ``protocol`` picks how Stage 2 matches predicted rows to gold
    beliefs.
    """
    by_id = {p.story_id: p for p in predicted}
    scored = [g for g in gold if g.beliefs]
    skipped = tuple(g.story_id for g in gold if not g.beliefs)
    tasks = [
        AlignmentTask(g.story, by_id[g.story_id].beliefs if g.story_id in by_id else (), g.beliefs) for g in scored
    ]
    alignments = await aligner.align(tasks) if tasks else []
    s1: list[Stage1StoryScore] = []
    s2: list[Stage2StoryScore] = []
    unscored: list[tuple[int, str]] = []
    for g, task, alignment in zip(scored, tasks, alignments, strict=True):
        if alignment.error is not None:
            unscored.append((g.story_id, alignment.error))
        else:
            s1.append(
                stage1_story_score(task.predicted, g.beliefs, alignment, story_id=g.story_id, category=g.story_category)
            )
        if not g.stage2_ready:
            continue
        labels = stage2_labels_for_gold(task.predicted, g.beliefs, protocol)
        s2.append(stage2_story_score(labels, g.beliefs, story_id=g.story_id, category=g.story_category))
    gold_ids = {g.story_id for g in gold}
    return OmniToMScore(
        stage1=summarize_stage1(s1, n_unscored=len(unscored), aligner=aligner.name),
        stage2=summarize_stage2(s2),
        n_stories=len(scored),
        stage1_stories=tuple(s1),
        stage2_stories=tuple(s2),
        unmatched_predictions=tuple(p.story_id for p in predicted if p.story_id not in gold_ids),
        skipped_gold=skipped,
        protocol=protocol,
        stage1_only=tuple(g.story_id for g in scored if not g.stage2_ready),
        stage1_unscored=tuple(unscored),
    )


def score_records_sync(
    predicted: Sequence[StoryRecord], gold: Sequence[StoryRecord], aligner: Aligner, *, protocol: Protocol = "release"
) -> OmniToMScore:
    """:func:`score_records` for code that is not already in an event loop."""
    return run_sync(score_records(predicted, gold, aligner, protocol=protocol))


# ---- tables -------------------------------------------------------------------------------------------------------


_STAGE1_F1 = "Stage 1: Belief Extraction F1"
_STAGE2_ACC = "Stage 2: Belief-Labeling Accuracy"

TABLE_3 = PaperTable(
    "omnitom",
    "OmniToM",
    "Table 3: Stage 1 belief-extraction F1 by category and Stage 2 belief-labelling accuracy (%)",
    "omnitom-stage1",
    (
        *(
            Column(
                CATEGORY_ABBREVIATIONS[c],
                ("by_category", c, "f1"),
                group=_STAGE1_F1,
                scale=100,
                filled_by="data=FILE fills it",
            )
            for c in CATEGORIES
        ),
        Column("Overall", ("f1",), group=_STAGE1_F1, scale=100),
        *(
            Column(DIMENSION_SHORT_NAMES[d], ("by_dimension", d), group=_STAGE2_ACC, scale=100, bench="omnitom-stage2")
            for d in DIMENSIONS
        ),
        Column("Overall", ("overall",), group=_STAGE2_ACC, scale=100, bench="omnitom-stage2"),
    ),
    (Row("{method}"),),
    "Stage 1 Overall is F1 over every story, not the paper's macro average over categories; without a judge "
    "model the beliefs are aligned by mindloop's offline stand-in (the run's scorer says which). The generated "
    "stories are all false-belief stories: the other categories need the release (data=FILE).",
)
"""The paper's Table 3, both stages side by side (declared by Stage 1, read by both)."""


TABLE_10 = PaperTable(
    "omnitom-table10",
    "OmniToM",
    "Table 10: Stage 2 accuracy per dimension and category (%)",
    "omnitom-stage2",
    tuple(Column(CATEGORY_ABBREVIATIONS[c], (c,), scale=100) for c in CATEGORIES),
    tuple(Row(DIMENSION_NAMES[d], (d,)) for d in DIMENSIONS),
)
"""Table 10's layout: a heading row per dimension, then a row per model (its metrics ``{dimension: {category:
accuracy}}``)."""


def table3(results: Mapping[str, OmniToMScore]) -> Grid:
    """Table 3's layout (:data:`TABLE_3`, as declared): per model, Stage 1 F1
    per category and overall, Stage 2 accuracy per dimension and overall (percentages; ``N/A`` where a model has no
    story of a category)."""
    metrics = {model: merge_summaries(score.stage1, score.stage2) for model, score in results.items()}
    return grid(TABLE_3, metrics, first="Model", missing="N/A")


def table10(results: Mapping[str, OmniToMScore]) -> Grid:
    """Table 10's layout (:data:`TABLE_10`): for each dimension a heading row, then one row per model with accuracy
    per category (``N/A`` throughout for a model with no Stage 2 story: a Stage 1 gold file has none)."""
    metrics = {
        model: {d: {c: row[d] for c, row in score.stage2.get("by_category", {}).items()} for d in DIMENSIONS}
        for model, score in results.items()
    }
    return grid(TABLE_10, metrics, first="Model", missing="N/A")


format_table = markdown
"""A table as GitHub markdown."""

"""OmniToM scoring (Sec. 5 of the paper): Stage 1 MatchCount F1 and Stage 2 labelling accuracy.

Stage 1 aligns predicted beliefs to gold beliefs *within actor groups* and gives each row a MatchCount: 0 (no
match), 1 (one-to-one) or 2-3 (a compound row covering that many distinct rows on the other side). Per story,
``P = M_P / |B̂|`` and ``R = M_R / |B*|`` where ``M`` counts rows with a nonzero MatchCount; F1 is their harmonic
mean; stories are macro-averaged, with breakdowns by category and by order bucket (0, 1, 2+).

Alignment is pluggable (:class:`Aligner`). :class:`EmbeddingAligner` is the embedded default and needs no model:
sentence embeddings (all-MiniLM-L6-v2, offline), an optimal one-to-one assignment above a cosine threshold, and
compound matches by residual coverage. :class:`ExactAligner` matches normalised identical text only.
The paper's model judge (C.4 prompt) is :class:`mindloop.systems.omnitom.judge.JudgeAligner`.

Stage 2 scores labels of the gold beliefs: per story and dimension, the share of gold beliefs whose predicted
label equals the gold label (a missing or illegal prediction is wrong), overall = mean of the seven;
stories are macro-averaged.
"""

from __future__ import annotations

import asyncio
import difflib
import functools
import importlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from mindloop.errors import DependencyError, InvalidArgumentError
from mindloop.metrics.embeddings import MiniLMEncoder, TextEncoder
from mindloop.metrics.stats import PRF, macro_prf, mean, prf_from_counts
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

__all__ = [
    "BUCKETS",
    "DEFAULT_COMPOUND_GAIN",
    "DEFAULT_THRESHOLD",
    "PRF",
    "Aligner",
    "Alignment",
    "AlignmentTask",
    "EmbeddingAligner",
    "ExactAligner",
    "OmniToMScore",
    "Stage1StoryScore",
    "Stage1Summary",
    "Stage2StoryScore",
    "Stage2Summary",
    "actor_key",
    "belief_key",
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

MAX_MATCH_COUNT = 3
"""A compound row matches at most three rows (App. B.4 found no human count above 3)."""

DEFAULT_THRESHOLD = 0.80
"""Cosine (all-MiniLM-L6-v2) at or above which two beliefs of one actor may be aligned; see docs/omnitom.md."""

DEFAULT_COMPOUND_GAIN = 0.02
"""How much closer a compound row's embedding must get to the sum of its parts for a part to be added."""


# ---- actors and belief text ------------------------------------------------------------------------------------
def actor_key(actor: str) -> str:
    """An actor name without cosmetic differences (case, spacing, punctuation).

    >>> actor_key("  Rebecca’s  Father. ")
    'rebeccas father'
    """
    text = re.sub(r"[’'`]", "", actor.lower())
    return " ".join(re.sub(r"[^\w]+", " ", text).split())


def belief_key(belief: str) -> str:
    """A belief text without cosmetic differences (case, spacing, quotes, final punctuation)."""
    text = belief.lower().replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return " ".join(text.split()).strip(" .;,!\"'")


def map_actors(predicted: Sequence[str], gold: Sequence[str]) -> dict[str, str | None]:
    """Which gold actor each predicted actor name stands for (``None``: no gold actor).

    Only cosmetic variants and clear shortenings map: equal :func:`actor_key`, or the words of one name
    contained in the other's for exactly one gold actor. Distinct gold actors are never merged.

    >>> map_actors(["World", "father", "Xiao"], ["world", "Rebecca's father", "Xiao Hong", "Xiao Li"])
    {'World': 'world', 'father': "Rebecca's father", 'Xiao': None}
    """
    gold_keys = {actor_key(g): g for g in gold}
    out: dict[str, str | None] = {}
    for p in predicted:
        key = actor_key(p)
        if key in gold_keys:
            out[p] = gold_keys[key]
            continue
        if is_world(p):
            out[p] = next((g for g in gold if is_world(g)), None)
            continue
        words = set(key.split())
        hits = [
            g
            for k, g in gold_keys.items()
            if not is_world(g) and words and (words <= set(k.split()) or set(k.split()) <= words)
        ]
        out[p] = hits[0] if len(hits) == 1 else None
    return out


# ---- alignment ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AlignmentTask:
    """One story to align: its text (the judge may use it) and the predicted and gold belief rows."""

    story: str
    predicted: tuple[BeliefRecord, ...]
    gold: tuple[BeliefRecord, ...]


@dataclass(frozen=True)
class Alignment:
    """MatchCounts of every predicted row (``pred_counts``) and gold row (``gold_counts``), in input order.

    ``links`` lists the ``(predicted index, gold index)`` pairs when the aligner knows them; ``error`` marks an
    alignment that could not be made (e.g. a judge reply that failed the checks): that story is left unscored.
    """

    pred_counts: tuple[int, ...]
    gold_counts: tuple[int, ...]
    links: tuple[tuple[int, int], ...] = ()
    warnings: tuple[str, ...] = ()
    error: str | None = None

    @classmethod
    def from_links(cls, n_pred: int, n_gold: int, links: Sequence[tuple[int, int]]) -> Alignment:
        """Counts from links: each row's count is the number of distinct rows it is linked to."""
        pc = [0] * n_pred
        gc = [0] * n_gold
        for i, j in sorted(set(links)):
            pc[i] += 1
            gc[j] += 1
        return cls(tuple(pc), tuple(gc), tuple(sorted(set(links))))

    @classmethod
    def failed(cls, error: str) -> Alignment:
        """An alignment that could not be made."""
        return cls((), (), error=error)


class Aligner(Protocol):
    """Aligns predicted to gold beliefs for many stories at once (batching lets encoders and judges share work)."""

    @property
    def name(self) -> str:
        """Short name for reports (``embedded``, ``exact``, ``judge:openai/gpt-5``)."""
        ...

    async def align(self, tasks: Sequence[AlignmentTask]) -> list[Alignment]:
        """One :class:`Alignment` per task, in order; failures are returned as ``Alignment.failed``."""
        ...


def _groups(task: AlignmentTask) -> list[tuple[list[int], list[int]]]:
    """``(predicted indices, gold indices)`` per gold actor, world first; unmapped predicted rows are left out."""
    gold_actors = list(dict.fromkeys(b.actor for b in task.gold))
    gold_actors.sort(key=lambda a: not is_world(a))  # stable: world first, then gold order
    mapping = map_actors(list(dict.fromkeys(b.actor for b in task.predicted)), gold_actors)
    groups = []
    for g in gold_actors:
        gi = [j for j, b in enumerate(task.gold) if b.actor == g]
        pi = [i for i, b in enumerate(task.predicted) if mapping.get(b.actor) == g]
        groups.append((pi, gi))
    return groups


class ExactAligner:
    """One-to-one matches of identical beliefs (after :func:`belief_key`) within actor groups; no compounds.

    A lower bound of any semantic aligner and a dependency-free fallback.
    """

    name = "exact"

    def align_one(self, task: AlignmentTask) -> Alignment:
        """Align one story."""
        links: list[tuple[int, int]] = []
        for pi, gi in _groups(task):
            free: dict[str, list[int]] = {}
            for j in gi:
                free.setdefault(belief_key(task.gold[j].belief), []).append(j)
            for i in pi:
                js = free.get(belief_key(task.predicted[i].belief))
                if js:
                    links.append((i, js.pop(0)))
        return Alignment.from_links(len(task.predicted), len(task.gold), links)

    async def align(self, tasks: Sequence[AlignmentTask]) -> list[Alignment]:
        """Align every story."""
        return [self.align_one(t) for t in tasks]


# Tokens whose difference never makes two beliefs contradict (function words), and morphological variants.
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_FUNCTION_WORDS = _words(
    "a an the is are was were be been being am has have had do does did of to in into at on that this these those "
    "still now then already currently"
)
_ATTITUDE = _words(
    "think thinks thought believe believes believed assume assumes assumed suppose supposes supposed know knows knew "
    "expect expects expected suspect suspects suspected realize realizes realized realise realises realised "
    "understand understands understood"
)
_IRREGULAR = dict(
    pair.split(":")
    for pair in _words(
        "left:leave went:go gone:go saw:see seen:see found:find took:take taken:take put:put told:tell said:say "
        "says:say came:come got:get gave:give given:give made:make kept:keep"
    )
)


def _stem(word: str) -> str:
    if word in _ATTITUDE:
        return "<att>"
    word = _IRREGULAR.get(word, word)
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2 and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    return word.rstrip("e") or word


@functools.lru_cache(maxsize=1 << 16)
def _tokens(text: str) -> tuple[str, ...]:
    words = re.findall(r"[\w]+", text.lower().replace("’", "'"))
    return tuple(_stem(w) for w in words if w not in _FUNCTION_WORDS)


@functools.lru_cache(maxsize=1 << 16)
def _attitude_depth(text: str) -> int:
    return sum(1 for w in re.findall(r"[\w]+", text.lower()) if w in _ATTITUDE)


def _holders(tokens: Sequence[str]) -> list[str]:
    return [tokens[i - 1] for i, t in enumerate(tokens) if t == "<att>" and i > 0]


def _contradicts(a: str, b: str) -> bool:
    """Whether two beliefs are one frame with different content words swapped in (``red box`` / ``green box``),
    or attribute belief to a different depth or to different holders (``Bob thinks Alice thinks p`` /
    ``Bob thinks p`` / ``Alice thinks Bob thinks p``).

    Sentence embeddings score such pairs as near-paraphrases (0.80-0.99 for MiniLM), so they are blocked.
    """
    if _attitude_depth(a) != _attitude_depth(b):
        return True
    ta, tb = _tokens(a), _tokens(b)
    if _holders(ta) != _holders(tb):
        return True
    if ta == tb or len(ta) != len(tb):
        return False
    blocks = difflib.SequenceMatcher(a=ta, b=tb, autojunk=False).get_opcodes()
    return all(op in ("equal", "replace") for op, *_ in blocks) and any(op == "replace" for op, *_ in blocks)


def _cover(target: NDArray[np.float32], parts: NDArray[np.float32]) -> float:
    total = parts.sum(axis=0)
    norm = float(np.linalg.norm(total))
    return float(target @ total) / norm if norm > 0 else 0.0


class EmbeddingAligner:
    """The embedded default aligner: no model, deterministic.

    Within each actor group (world first): cosine similarity of sentence embeddings; pairs that merely swap a
    content word or change the nesting depth are blocked (:func:`_contradicts`); an optimal one-to-one
    assignment (``scipy.optimize.linear_sum_assignment``) keeps pairs with cosine ≥ ``threshold``. Then compound
    rows by *residual coverage*: a row left unmatched joins an already matched row on the other side (at most
    three parts) when their cosine is ≥ ``compound_threshold`` and adding it brings the matched row's embedding
    at least ``compound_gain`` closer to the normalised sum of its parts; best pairs first, so paraphrased
    duplicates (which add nothing) get no extra credit.
    """

    def __init__(
        self,
        encoder: TextEncoder | None = None,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        compound_threshold: float | None = None,
        compound_gain: float = DEFAULT_COMPOUND_GAIN,
    ) -> None:
        if not -1.0 <= threshold <= 1.0:
            raise InvalidArgumentError(f"threshold must be a cosine in [-1, 1], got {threshold}")
        self.encoder: TextEncoder = encoder if encoder is not None else MiniLMEncoder()
        self.threshold = threshold
        self.compound_threshold = threshold if compound_threshold is None else compound_threshold
        self.compound_gain = compound_gain

    @property
    def name(self) -> str:
        """``embedded`` and the threshold."""
        return f"embedded(threshold={self.threshold:g})"

    def align_sync(self, tasks: Sequence[AlignmentTask]) -> list[Alignment]:
        """Align every story; each distinct belief text is encoded once for the whole batch."""
        try:
            linear_sum_assignment = importlib.import_module("scipy.optimize").linear_sum_assignment
        except ImportError:
            raise DependencyError("the embedded aligner needs scipy: pip install 'mindloop[metrics]'") from None
        texts: dict[str, int] = {}
        for t in tasks:
            for b in (*t.predicted, *t.gold):
                texts.setdefault(b.belief, len(texts))
        vectors = self.encoder.encode(list(texts)) if texts else np.zeros((0, 1), dtype=np.float32)
        out = []
        for t in tasks:
            links: list[tuple[int, int]] = []
            for pi, gi in _groups(t):
                if pi and gi:
                    links.extend(self._align_group(t, pi, gi, texts, vectors, linear_sum_assignment))
            out.append(Alignment.from_links(len(t.predicted), len(t.gold), links))
        return out

    async def align(self, tasks: Sequence[AlignmentTask]) -> list[Alignment]:
        """Align every story in a worker thread (encoding is CPU- or GPU-bound)."""
        return await asyncio.to_thread(self.align_sync, tasks)

    def _align_group(
        self,
        task: AlignmentTask,
        pi: list[int],
        gi: list[int],
        texts: Mapping[str, int],
        vectors: NDArray[np.float32],
        assign: Any,
    ) -> list[tuple[int, int]]:
        ptext = [task.predicted[i].belief for i in pi]
        gtext = [task.gold[j].belief for j in gi]
        ep = vectors[[texts[s] for s in ptext]]
        eg = vectors[[texts[s] for s in gtext]]
        sim = ep @ eg.T
        for a, pa in enumerate(ptext):
            for b, gb in enumerate(gtext):
                if belief_key(pa) == belief_key(gb):
                    sim[a, b] = 1.0
                elif _contradicts(pa, gb):
                    sim[a, b] = -1.0
        rows, cols = assign(-sim)
        pairs = {(int(a), int(b)) for a, b in zip(rows, cols, strict=True) if sim[a, b] >= self.threshold}
        p_of: dict[int, list[int]] = {a: [] for a in range(len(pi))}
        g_of: dict[int, list[int]] = {b: [] for b in range(len(gi))}
        for a, b in pairs:
            p_of[a].append(b)
            g_of[b].append(a)
        while True:
            best: tuple[float, int, int] | None = None
            # an unmatched gold row joins a matched predicted row (a compound prediction) ...
            for b in [b for b, ps in g_of.items() if not ps]:
                for a in [a for a, gs in p_of.items() if 0 < len(gs) < MAX_MATCH_COUNT]:
                    score = float(sim[a, b])
                    if score >= self.compound_threshold and (best is None or score > best[0]):
                        gain = _cover(ep[a], eg[[*p_of[a], b]]) - _cover(ep[a], eg[p_of[a]])
                        if gain >= self.compound_gain:
                            best = (score, a, b)
            # ... and an unmatched predicted row joins a matched gold row (a compound gold belief)
            for a in [a for a, gs in p_of.items() if not gs]:
                for b in [b for b, ps in g_of.items() if 0 < len(ps) < MAX_MATCH_COUNT]:
                    score = float(sim[a, b])
                    if score >= self.compound_threshold and (best is None or score > best[0]):
                        gain = _cover(eg[b], ep[[*g_of[b], a]]) - _cover(eg[b], ep[g_of[b]])
                        if gain >= self.compound_gain:
                            best = (score, a, b)
            if best is None:
                break
            _, a, b = best
            p_of[a].append(b)
            g_of[b].append(a)
        return [(pi[a], gi[b]) for a, bs in p_of.items() for b in bs]


# ---- Stage 1 scores ---------------------------------------------------------------------------------------------
# A story's scores and their macro averages are :class:`mindloop.metrics.stats.PRF` (``n`` = stories averaged).


def _pred_order(b: BeliefRecord) -> int:
    """A predicted row's order: its label, else 0 for ``world`` and 1 for anyone else."""
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
        pb = [
            c for b, c in zip(predicted, alignment.pred_counts, strict=True) if order_bucket(_pred_order(b)) == bucket
        ]
        gb = [c for b, c in zip(gold, alignment.gold_counts, strict=True) if order_bucket(_gold_order(b)) == bucket]
        if pb or gb:
            by_bucket[bucket] = prf_from_counts(sum(c > 0 for c in pb), len(pb), sum(c > 0 for c in gb), len(gb))
    prf = prf_from_counts(mp, len(predicted), mr, len(gold))
    return Stage1StoryScore(story_id, category, prf, len(predicted), len(gold), mp, mr, by_bucket)


def _gold_order(b: BeliefRecord) -> int:
    order = b.order
    return order if order is not None else (0 if is_world(b.actor) else 1)


def _macro(items: Sequence[PRF]) -> PRF:
    macro = macro_prf(items)
    return macro if macro is not None else PRF(0.0, 0.0, 0.0, 0)  # no stories: n = 0, null in JSON, N/A in tables


@dataclass(frozen=True)
class Stage1Summary:
    """Macro-averaged Stage 1 scores, overall, per category and per order bucket; unscored stories counted."""

    overall: PRF
    by_category: dict[str, PRF]
    by_bucket: dict[str, PRF]
    n_unscored: int = 0
    aligner: str = ""


def summarize_stage1(scores: Sequence[Stage1StoryScore], *, n_unscored: int = 0, aligner: str = "") -> Stage1Summary:
    """Macro averages over stories (categories in the paper's order, then any others)."""
    cats = [c for c in CATEGORIES if any(s.category == c for s in scores)]
    cats += sorted({s.category for s in scores} - set(cats))
    return Stage1Summary(
        overall=_macro([s.prf for s in scores]),
        by_category={c: _macro([s.prf for s in scores if s.category == c]) for c in cats},
        by_bucket={b: _macro([s.by_bucket[b] for s in scores if b in s.by_bucket]) for b in BUCKETS},
        n_unscored=n_unscored,
        aligner=aligner,
    )


# ---- Stage 2 scores ---------------------------------------------------------------------------------------------
def stage2_labels_for_gold(
    predicted: Sequence[BeliefRecord], gold: Sequence[BeliefRecord]
) -> list[BeliefLabels | None]:
    """The predicted labels of each gold belief: the next unused predicted row with the same actor (see
    :func:`map_actors`) and the same belief text (see :func:`belief_key`); ``None`` when there is none."""
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
        sub = [(p, g) for p, g in pairs if order_bucket(_gold_order(g)) == bucket]
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


@dataclass(frozen=True)
class Stage2Summary:
    """Macro-averaged Stage 2 accuracy: overall, per dimension, per category (× dimension) and per bucket."""

    overall: float | None
    by_dimension: dict[str, float | None]
    by_category: dict[str, dict[str, float | None]]
    by_bucket: dict[str, dict[str, float | None]]
    n_stories: int


def _mean_dims(rows: Sequence[Mapping[str, float]]) -> dict[str, float | None]:
    return {d: mean(r[d] for r in rows) for d in DIMENSIONS}


def summarize_stage2(scores: Sequence[Stage2StoryScore]) -> Stage2Summary:
    """Macro averages over stories; each category and bucket entry also carries ``overall``. Without stories
    every average is ``None`` (no data), not 0."""
    cats = [c for c in CATEGORIES if any(s.category == c for s in scores)]
    cats += sorted({s.category for s in scores} - set(cats))

    def with_overall(d: dict[str, float | None]) -> dict[str, float | None]:
        return {**d, "overall": mean(v for v in d.values() if v is not None)}

    by_dim = _mean_dims([s.accuracy for s in scores])
    return Stage2Summary(
        overall=mean(s.overall for s in scores),
        by_dimension=by_dim,
        by_category={c: with_overall(_mean_dims([s.accuracy for s in scores if s.category == c])) for c in cats},
        by_bucket={
            b: with_overall(_mean_dims([s.by_bucket[b] for s in scores if b in s.by_bucket]))
            for b in BUCKETS
            if any(b in s.by_bucket for s in scores)
        },
        n_stories=len(scores),
    )


# ---- whole files -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OmniToMScore:
    """Both stages over a set of stories, with per-story scores kept for drill-down."""

    stage1: Stage1Summary
    stage2: Stage2Summary
    n_stories: int
    stage1_stories: tuple[Stage1StoryScore, ...] = ()
    stage2_stories: tuple[Stage2StoryScore, ...] = ()
    unmatched_predictions: tuple[int, ...] = ()
    skipped_gold: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The command-line contract: ``{"stage1": {precision, recall, f1}, "stage2": {overall, by_dimension},
        "n_stories"}``."""
        return {
            "stage1": self.stage1.overall.to_json(),
            "stage2": {"overall": self.stage2.overall, "by_dimension": dict(self.stage2.by_dimension)},
            "n_stories": self.n_stories,
        }


async def score_records(
    predicted: Sequence[StoryRecord], gold: Sequence[StoryRecord], aligner: Aligner
) -> OmniToMScore:
    """Score predictions against gold records, matched by ``story_id``.

    A gold story without a prediction scores 0 in both stages; predictions of unknown stories are listed in
    ``unmatched_predictions``; gold stories without beliefs are skipped (``skipped_gold``); stories whose
    alignment failed are left out of Stage 1 and counted in ``stage1.n_unscored``.
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
    unscored = 0
    for g, task, alignment in zip(scored, tasks, alignments, strict=True):
        if alignment.error is not None:
            unscored += 1
        else:
            s1.append(
                stage1_story_score(task.predicted, g.beliefs, alignment, story_id=g.story_id, category=g.story_category)
            )
        s2.append(stage2_story_score(task.predicted, g.beliefs, story_id=g.story_id, category=g.story_category))
    gold_ids = {g.story_id for g in gold}
    return OmniToMScore(
        stage1=summarize_stage1(s1, n_unscored=unscored, aligner=aligner.name),
        stage2=summarize_stage2(s2),
        n_stories=len(scored),
        stage1_stories=tuple(s1),
        stage2_stories=tuple(s2),
        unmatched_predictions=tuple(p.story_id for p in predicted if p.story_id not in gold_ids),
        skipped_gold=skipped,
    )


def score_records_sync(predicted: Sequence[StoryRecord], gold: Sequence[StoryRecord], aligner: Aligner) -> OmniToMScore:
    """:func:`score_records` for code that is not already in an event loop."""
    return asyncio.run(score_records(predicted, gold, aligner))


# ---- tables -------------------------------------------------------------------------------------------------------
Table = tuple[list[str], list[list[str]]]


def _pct(x: float | None) -> str:
    return "N/A" if x is None else f"{100 * x:.2f}"


def table3(results: Mapping[str, OmniToMScore]) -> Table:
    """Table 3's layout: per model, Stage 1 F1 per category and overall, Stage 2 accuracy per dimension and
    overall (percentages; ``N/A`` where a model has no story of a category)."""
    header = ["Model", *(CATEGORY_ABBREVIATIONS[c] for c in CATEGORIES), "Overall"]
    header += [*(DIMENSION_SHORT_NAMES[d] for d in DIMENSIONS), "Overall"]
    rows = []
    for model, score in results.items():
        s1 = score.stage1
        row = [model, *(_pct(s1.by_category[c].f1) if c in s1.by_category else "N/A" for c in CATEGORIES)]
        row.append(_pct(s1.overall.f1) if s1.overall.n else "N/A")
        row += [_pct(score.stage2.by_dimension[d]) for d in DIMENSIONS]
        row.append(_pct(score.stage2.overall))
        rows.append(row)
    return header, rows


def table10(results: Mapping[str, OmniToMScore]) -> Table:
    """Table 10's layout: for each dimension a heading row, then one row per model with accuracy per category."""
    header = ["Model", *(CATEGORY_ABBREVIATIONS[c] for c in CATEGORIES)]
    rows: list[list[str]] = []
    for d in DIMENSIONS:
        rows.append([DIMENSION_NAMES[d], *([""] * len(CATEGORIES))])
        for model, score in results.items():
            cats = score.stage2.by_category
            rows.append([model, *(_pct(cats[c][d]) if c in cats else "N/A" for c in CATEGORIES)])
    return header, rows


def format_table(table: Table) -> str:
    """A table as GitHub markdown."""
    header, rows = table
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)

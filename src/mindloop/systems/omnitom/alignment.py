"""OmniToM Stage 1 alignment (Sec. 5): matching predicted beliefs to gold beliefs within actor groups, with a
MatchCount per row.

Alignment is pluggable (:class:`Aligner`). :class:`EmbeddingAligner` is the embedded default and needs no model:
sentence embeddings (all-MiniLM-L6-v2, offline), an optimal one-to-one assignment above a cosine threshold, and
compound matches by residual coverage. :class:`ExactAligner` matches normalised identical text only.
The paper's model judge (C.4 prompt) is :class:`mindloop.systems.omnitom.judge.JudgeAligner`. Actor names and
belief texts are compared through :func:`actor_key` and :func:`belief_key`.
"""

from __future__ import annotations

import asyncio
import difflib
import functools
import importlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Protocol

import numpy as np
from numpy.typing import NDArray
from pydantic import Field, StringConstraints, field_validator

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import DependencyError, InvalidArgumentError
from mindloop.metrics.embeddings import MiniLMEncoder, TextEncoder, encoder_available
from mindloop.systems.omnitom.records import (
    BeliefRecord,
    is_world,
)

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


_Word = Annotated[str, StringConstraints(pattern=r"^[a-z]+$")]


class _IrregularVerbs(DataModel):
    """``data/irregular_verbs.yaml``: base, simple past and past participle of each English irregular verb, and the
    function words and attitude verbs (space-separated)."""

    verbs: tuple[tuple[_Word, _Word, _Word], ...] = Field(min_length=1)
    function_words: str
    attitude_verbs: str

    @field_validator("verbs")
    @classmethod
    def _distinct(cls, verbs: tuple[tuple[str, str, str], ...]) -> tuple[tuple[str, str, str], ...]:
        bases = [v[0] for v in verbs]
        repeated = [b for i, b in enumerate(bases) if b in bases[:i]]
        if repeated:
            raise ValueError(f"the verb {repeated[0]!r} appears twice")
        return verbs

    def past_forms(self) -> dict[str, str]:
        """Each past form that is not itself a base (``lay`` stays ``lay``), mapped to its base."""
        bases = {v[0] for v in self.verbs}
        return {form: base for base, *forms in self.verbs for form in forms if form not in bases}


_WORDS = load_package_data(_IrregularVerbs, __name__.rsplit(".", 1)[0], "irregular_verbs.yaml")
_IRREGULAR = _WORDS.past_forms()
_FUNCTION_WORDS = frozenset(_WORDS.function_words.split())
_ATTITUDE = frozenset(_WORDS.attitude_verbs.split())
_DOUBLED = re.compile(r"([b-df-hj-np-tv-z])\1$")


def _stem(word: str) -> str:
    """A light stem: attitude verbs as one token, irregular past forms as their base (``brought`` -> ``bring``),
    then -ing/-ed/-es/-s cut and a doubled final consonant undoubled (``nodded`` and ``nods`` -> ``nod``,
    ``planned`` -> ``plan``), and a final ``e`` dropped (``leaves`` and ``left`` -> ``leav``)."""
    if word in _ATTITUDE:
        return "<att>"
    word = _IRREGULAR.get(word, word)
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2 and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    word = _DOUBLED.sub(r"\1", word) if len(word) > 3 else word
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
            # an unmatched gold row joins a matched predicted row (a compound prediction), then an unmatched
            # predicted row joins a matched gold row (a compound gold belief)
            for free_of, held_of, e_free, e_held, gold_free in (
                (g_of, p_of, eg, ep, True),
                (p_of, g_of, ep, eg, False),
            ):
                for f in [f for f, xs in free_of.items() if not xs]:
                    for h in [h for h, xs in held_of.items() if 0 < len(xs) < MAX_MATCH_COUNT]:
                        a, b = (h, f) if gold_free else (f, h)
                        score = float(sim[a, b])
                        if score >= self.compound_threshold and (best is None or score > best[0]):
                            gain = _cover(e_held[h], e_free[[*held_of[h], f]]) - _cover(e_held[h], e_free[held_of[h]])
                            if gain >= self.compound_gain:
                                best = (score, a, b)
            if best is None:
                break
            _, a, b = best
            p_of[a].append(b)
            g_of[b].append(a)
        return [(pi[a], gi[b]) for a, bs in p_of.items() for b in bs]


def offline_aligner_name(name: str) -> str:
    """The offline aligner ``name`` means: ``auto`` is ``embedded`` when the metrics extra is installed, else
    ``exact``; any other name is itself."""
    return ("embedded" if encoder_available() else "exact") if name == "auto" else name


def offline_aligner(name: str, threshold: float = DEFAULT_THRESHOLD) -> EmbeddingAligner | ExactAligner:
    """The offline stand-in for the paper's judge that ``name`` names (:func:`offline_aligner_name`): ``embedded``
    (with ``threshold``), else ``exact``."""
    return EmbeddingAligner(threshold=threshold) if offline_aligner_name(name) == "embedded" else ExactAligner()

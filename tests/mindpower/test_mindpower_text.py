"""BERTScore and Sentence-Transformer similarity, checked against each library's own pipeline."""

from __future__ import annotations

import sys
from collections import defaultdict
from typing import Any

import numpy as np
import pytest

from mindloop.errors import DependencyError, InvalidArgumentError
from mindloop.metrics.embeddings import MiniLMEncoder, encoder_path
from mindloop.metrics.text import TextSimilarity
from mindloop.systems.mindpower.metrics import layer_similarity

CANDS = [
    "I want to help Alice find the apple.",
    "I believe the apple is in the fridge.",
    "walk(fridge), open(fridge), pick(apple)",
    "The fire hydrant blocks his path.",
]
REFS = [
    "I want to assist Alice in retrieving her apple.",
    "I believe the apple is in the fridge.",
    "walk(fridge), open(fridge), pick(apple), walk(alice)",
    "Alice is thirsty and wants water.",
]

pytestmark = pytest.mark.metrics


def test_matches_bert_score_and_sentence_transformers(similarity: TextSimilarity) -> None:
    import bert_score.utils as bs

    model = similarity.encoder.sentence_transformer()
    tok = model.tokenizer
    idf = defaultdict(lambda: 1.0)
    idf[tok.sep_token_id] = 0
    idf[tok.cls_token_id] = 0
    expected = bs.bert_cos_score_idf(model[0].auto_model, REFS, CANDS, tok, idf, batch_size=8, device="cpu")
    got = similarity.score(CANDS, REFS)
    for g, e in zip(got, expected.tolist(), strict=True):
        assert (g.bertscore_precision, g.bertscore_recall, g.bertscore_f1) == pytest.approx(tuple(e), abs=1e-5)
    emb = similarity.encoder.encode(CANDS + REFS)
    for i, g in enumerate(got):
        assert g.st_cosine == pytest.approx(float(np.dot(emb[i], emb[len(CANDS) + i])), abs=1e-5)


def test_bertscore_equals_bert_score_score_called_directly(similarity: TextSimilarity) -> None:
    # The library's one-call API on the same offline weights: 6 layers (all of MiniLM's), no idf, no rescaling,
    # its default (slow) tokenizer and batch size; mindloop's scores must be the same numbers.
    import bert_score

    cands = [*CANDS, "Bob thinks the keys are still on the sofa.", "wait()"]
    refs = [*REFS, "Bob believes his keys are on the sofa.", "wait()"]
    p, r, f = bert_score.score(cands, refs, model_type=str(encoder_path()), num_layers=6, device="cpu")
    got = similarity.score(cands, refs)
    assert [g.bertscore_precision for g in got] == pytest.approx([min(1.0, x) for x in p.tolist()], abs=1e-6)
    assert [g.bertscore_recall for g in got] == pytest.approx([min(1.0, x) for x in r.tolist()], abs=1e-6)
    assert [g.bertscore_f1 for g in got] == pytest.approx([min(1.0, x) for x in f.tolist()], abs=1e-6)
    assert got[-1].bertscore_f1 == pytest.approx(1.0) and got[0].bertscore_f1 < 0.99


def test_st_cosine_is_the_same_with_or_without_the_shared_forward_pass(similarity: TextSimilarity) -> None:
    # The ST score normally reuses BERTScorer's forward pass; a sentence over the Sentence-Transformer's 256-token
    # limit, or a scorer that does not expose its model, falls back to SentenceTransformer.encode itself.
    long = " ".join(["the apple is in the fridge"] * 60)  # > 256 word pieces
    cands, refs = [*CANDS, long], [*REFS, "the apple is in the fridge"]
    emb = similarity.encoder.encode(cands + refs)
    expected = [float(np.dot(emb[i], emb[len(cands) + i])) for i in range(len(cands))]
    assert [g.st_cosine for g in similarity.score(cands, refs)] == pytest.approx(expected, abs=1e-5)

    class OnlyScore:  # the public API alone: no model to hook
        def __init__(self, inner: Any) -> None:
            self.score = inner.score

    hidden = TextSimilarity(similarity.encoder)
    hidden._scorer = OnlyScore(similarity.bert_scorer())
    assert [g.st_cosine for g in hidden.score(cands, refs)] == pytest.approx(expected, abs=1e-5)


def test_properties(similarity: TextSimilarity) -> None:
    same, para, other, empty = similarity.score([REFS[0], CANDS[0], CANDS[3], ""], [REFS[0], REFS[0], REFS[0], REFS[0]])
    assert same.bertscore_f1 == pytest.approx(1.0) and same.st_cosine == pytest.approx(1.0)
    assert 1.0 > para.st_cosine > other.st_cosine and 1.0 > para.bertscore_f1 > other.bertscore_f1
    assert (empty.bertscore_f1, empty.st_cosine) == (0.0, 0.0)
    # batching and chunking do not change results
    small = TextSimilarity(similarity.encoder, batch_size=1, chunk_pairs=2)

    def flat(rows: list) -> list[float]:
        return [v for r in rows for v in (r.bertscore_precision, r.bertscore_recall, r.bertscore_f1, r.st_cosine)]

    assert flat(small.score(CANDS, REFS)) == pytest.approx(flat(similarity.score(CANDS, REFS)), abs=1e-5)


def test_layer_similarity_batches_every_layer(similarity: TextSimilarity) -> None:
    gold = {"belief": REFS[1], "action": REFS[2]}
    rows = layer_similarity([{"belief": CANDS[1]}, {"action": REFS[2]}], [gold, gold], similarity, ["belief", "action"])
    assert rows[0]["belief"].bertscore_f1 == pytest.approx(1.0) and rows[0]["action"].st_cosine == 0.0
    assert rows[1]["belief"].bertscore_f1 == 0.0 and rows[1]["action"].bertscore_f1 == pytest.approx(1.0)
    with pytest.raises(InvalidArgumentError, match="no 'desire' layer"):
        layer_similarity([{}], [gold], similarity, ["desire"])
    with pytest.raises(InvalidArgumentError, match="must line up"):
        similarity.score(["a"], [])


def test_missing_bert_score_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bert_score", None)  # what an install without the extra sees
    sim = TextSimilarity(MiniLMEncoder(device="cpu"))
    assert sim.score(["", "x"], ["y", " "])[0].bertscore_f1 == 0.0  # nothing to score: nothing is loaded
    with pytest.raises(DependencyError, match=r"bert_score is missing\): pip install 'mindloop\[metrics\]'"):
        sim.score(["a cat"], ["a dog"])

"""BERTScore and Sentence-Transformer similarity: one forward pass, checked against each library's own pipeline."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from mindloop.errors import InvalidArgumentError
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

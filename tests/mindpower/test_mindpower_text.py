"""BERTScore and Sentence-Transformer similarity, checked against each library scoring every pair on its own."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindloop.errors import DependencyError, InvalidArgumentError
from mindloop.metrics.embedding_cache import EmbeddingCache
from mindloop.metrics.embeddings import MiniLMEncoder, encoder_path
from mindloop.metrics.text import PairSimilarity, TextSimilarity
from mindloop.systems.mindpower.metrics import layer_similarity

LONG = " ".join(["the apple is in the fridge"] * 60)  # > 256 word pieces: pooled from the first 256
CANDS = [
    "I want to help Alice find the apple.",
    "I believe the apple is in the fridge.",
    "walk(fridge), open(fridge), pick(apple)",
    "The fire hydrant blocks his path.",  # a token of it has a negative best cosine against its reference
    "Bob thinks the keys are still on the sofa.",
    "wait()",
    LONG,
]
REFS = [
    "I want to assist Alice in retrieving her apple.",
    "I believe the apple is in the fridge.",
    "walk(fridge), open(fridge), pick(apple), walk(alice)",
    "I want to take the organic carrot out of the old fridge and hand it to Aisha.",
    "Bob believes his keys are on the sofa.",
    "wait()",
    "the apple is in the fridge",
]

pytestmark = pytest.mark.metrics


def _flat(rows: list[PairSimilarity]) -> list[float]:
    return [v for r in rows for v in (r.bertscore_precision, r.bertscore_recall, r.bertscore_f1, r.st_cosine)]


@pytest.fixture(scope="module")
def bert_scorer() -> Any:
    """The library's own scorer (``bert_score.BERTScorer``, what ``bert_score.score`` builds on every call), loaded
    once for the module: the offline weights, all 6 layers, no idf, no rescaling, its default batch."""
    import bert_score

    return bert_score.BERTScorer(model_type=str(encoder_path()), num_layers=6, device="cpu")


@pytest.fixture(scope="module")
def alone(bert_scorer: Any) -> list[tuple[float, float, float, float]]:
    """Each pair scored on its own by the libraries: the library's BERTScore and the cosine of
    ``SentenceTransformer.encode``'s normalised vectors."""
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(encoder_path()), device="cpu")
    out = []
    for c, r in zip(CANDS, REFS, strict=True):
        p, rec, f = bert_scorer.score([c], [r])
        u, v = st.encode([c, r], normalize_embeddings=True)
        out.append((float(p[0]), float(rec[0]), float(f[0]), float(np.dot(u, v))))
    return out


def test_every_pair_scores_as_the_libraries_score_it_alone(
    similarity: TextSimilarity, alone: list[tuple[float, float, float, float]]
) -> None:
    got = similarity.score(CANDS, REFS)
    for g, (p, r, f, cos) in zip(got, alone, strict=True):
        assert g.bertscore_precision == pytest.approx(min(1.0, p), abs=1e-6)
        assert g.bertscore_recall == pytest.approx(min(1.0, r), abs=1e-6)
        assert g.bertscore_f1 == pytest.approx(min(1.0, f), abs=1e-6)
        assert g.st_cosine == pytest.approx(min(1.0, cos), abs=1e-6)
    assert got[5].bertscore_f1 == pytest.approx(1.0) and got[0].bertscore_f1 < 0.99


def test_no_score_depends_on_the_texts_that_shared_its_pass(similarity: TextSimilarity) -> None:
    together = similarity.score(CANDS, REFS)
    one_by_one = [similarity.score([c], [r])[0] for c, r in zip(CANDS, REFS, strict=True)]
    assert _flat(together) == _flat(one_by_one)  # bit for bit, not approximately
    reordered = similarity.score(CANDS[::-1], REFS[::-1])[::-1]
    assert _flat(reordered) == _flat(together)


def test_bert_score_in_its_batches_moves_a_score_that_a_pair_alone_does_not(
    similarity: TextSimilarity, alone: list[tuple[float, float, float, float]], bert_scorer: Any
) -> None:
    # Why pairs are matched alone: bert-score pads a batch's pairs and multiplies by the mask, so the hydrant
    # sentence's negative best cosine becomes the padding's 0 once a longer pair shares its batch.
    _, _, f = bert_scorer.score(CANDS[3:5], REFS[3:5])
    assert abs(float(f[0]) - alone[3][2]) > 1e-5
    assert similarity.score(CANDS[3:5], REFS[3:5])[0].bertscore_f1 == pytest.approx(alone[3][2], abs=1e-6)


def test_references_come_from_the_cache_as_they_were_computed(similarity: TextSimilarity, tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "embeddings.sqlite")
    first = similarity.score(CANDS, REFS, cache)
    with cache._connect() as conn:  # the references alone are kept: a model's replies change every run
        assert conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0] == len(set(REFS))
    warm = similarity.score(CANDS, REFS, EmbeddingCache(tmp_path / "embeddings.sqlite"))
    assert _flat(warm) == _flat(first) == _flat(similarity.score(CANDS, REFS))


def test_properties(similarity: TextSimilarity) -> None:
    same, para, other, empty = similarity.score([REFS[0], CANDS[0], CANDS[3], ""], [REFS[0], REFS[0], REFS[0], REFS[0]])
    assert same.bertscore_f1 == pytest.approx(1.0) and same.st_cosine == pytest.approx(1.0)
    assert 1.0 > para.st_cosine > other.st_cosine and 1.0 > para.bertscore_f1 > other.bertscore_f1
    assert (empty.bertscore_f1, empty.st_cosine) == (0.0, 0.0)


def test_layer_similarity_scores_every_layer(similarity: TextSimilarity) -> None:
    gold = {"belief": REFS[1], "action": REFS[2]}
    rows = layer_similarity([{"belief": CANDS[1]}, {"action": REFS[2]}], [gold, gold], similarity, ["belief", "action"])
    assert rows[0]["belief"].bertscore_f1 == pytest.approx(1.0) and rows[0]["action"].st_cosine == 0.0
    assert rows[1]["belief"].bertscore_f1 == 0.0 and rows[1]["action"].bertscore_f1 == pytest.approx(1.0)
    with pytest.raises(InvalidArgumentError, match="no 'desire' layer"):
        layer_similarity([{}], [gold], similarity, ["desire"])
    with pytest.raises(InvalidArgumentError, match="must line up"):
        similarity.score(["a"], [])


def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)  # what an install without the extra sees
    sim = TextSimilarity(MiniLMEncoder(device="cpu"))
    assert sim.score(["", "x"], ["y", " "])[0].bertscore_f1 == 0.0  # nothing to score: nothing is loaded
    with pytest.raises(DependencyError, match=r"transformers is missing\): pip install 'mindloop\[metrics\]'"):
        sim.score(["a cat"], ["a dog"])

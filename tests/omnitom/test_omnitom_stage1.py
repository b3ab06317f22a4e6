"""Stage 1 scoring: MatchCount alignment and P/R/F1, checked on the paper's Table 2 and hand-worked cases."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from numpy.typing import NDArray

from mindloop.metrics.embeddings import MiniLMEncoder
from mindloop.systems.omnitom.alignment import _contradicts
from mindloop.systems.omnitom.examples import TABLE2
from mindloop.systems.omnitom.metrics import (
    Alignment,
    AlignmentTask,
    EmbeddingAligner,
    ExactAligner,
    map_actors,
    score_records_sync,
    stage1_story_score,
    summarize_stage1,
)
from mindloop.systems.omnitom.records import BeliefLabels, BeliefRecord, StoryRecord


def rows(table: Sequence[tuple[str, str, int]]) -> tuple[BeliefRecord, ...]:
    return tuple(BeliefRecord(actor=a, belief=b) for a, b, _ in table)


def table2_task() -> AlignmentTask:
    return AlignmentTask(TABLE2.story, rows(TABLE2.predicted), rows(TABLE2.gold))


def test_table2_matchcounts_give_the_papers_precision_and_recall() -> None:
    # M_P = 6 of 6 predicted rows have a nonzero MatchCount, M_R = 5 of 6 gold rows: P = 1, R = 5/6.
    task = table2_task()
    alignment = Alignment(tuple(c for *_, c in TABLE2.predicted), tuple(c for *_, c in TABLE2.gold))
    score = stage1_story_score(task.predicted, task.gold, alignment)
    assert score.prf.precision == 1.0
    assert score.prf.recall == pytest.approx(5 / 6)
    assert score.prf.f1 == pytest.approx(2 * 1 * (5 / 6) / (1 + 5 / 6))  # = 10/11
    assert (score.matched_pred, score.matched_gold) == (6, 5)


@pytest.mark.metrics
def test_embedded_aligner_reproduces_table2(minilm: MiniLMEncoder) -> None:
    (alignment,) = EmbeddingAligner(minilm).align_sync([table2_task()])
    assert alignment.pred_counts == tuple(c for *_, c in TABLE2.predicted)
    assert alignment.gold_counts == tuple(c for *_, c in TABLE2.gold)  # incl. the compound gold row (mc_R = 2)


@pytest.mark.metrics
def test_embedded_aligner_blocks_contradictions_the_encoder_cannot_see(minilm: MiniLMEncoder) -> None:
    # MiniLM scores these pairs >= 0.8 although they disagree on where the object is / on nesting depth.
    a, b = minilm.encode(["The apple is in the green box", "The apple is in the red box"])
    assert float(a @ b) > 0.8
    gold = (
        BeliefRecord(actor="Bob", belief="Alice thinks the apple is in the green box"),
        BeliefRecord(actor="Bob", belief="The apple is in the green box"),
    )
    pred = (
        BeliefRecord(actor="Bob", belief="Alice thinks Bob thinks the apple is in the green box"),
        BeliefRecord(actor="Bob", belief="The apple is in the red box"),
    )
    (alignment,) = EmbeddingAligner(minilm).align_sync([AlignmentTask("", pred, gold)])
    assert alignment.pred_counts == (0, 0) and alignment.gold_counts == (0, 0)
    para = (
        BeliefRecord(actor="Bob", belief="Alice believes the apple is still in the green box"),
        BeliefRecord(actor="Bob", belief="The apple is inside the green box"),
    )
    (alignment,) = EmbeddingAligner(minilm).align_sync([AlignmentTask("", para, gold)])
    assert alignment.links == ((0, 0), (1, 1))


class FakeEncoder:
    """Fixed vectors per text, to test the aligner's bookkeeping apart from any encoder."""

    name = "fake"

    def __init__(self, vectors: dict[str, Sequence[float]]) -> None:
        self.vectors = {k: np.asarray(v, dtype=np.float32) / np.linalg.norm(v) for k, v in vectors.items()}

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return np.stack([self.vectors[t] for t in texts]) if texts else np.zeros((0, 3), dtype=np.float32)


def test_compound_rows_by_residual_coverage_and_no_credit_for_duplicates() -> None:
    pytest.importorskip("scipy.optimize")
    enc = FakeEncoder({"A and B": [1, 1, 0], "A": [1, 0, 0], "B": [0, 1, 0], "A again": [1, 0, 0.05], "C": [0, 0, 1]})
    aligner = EmbeddingAligner(enc, threshold=0.6)
    gold = (BeliefRecord(actor="x", belief="A and B"), BeliefRecord(actor="x", belief="C"))
    # "A" and "B" each cover half of the compound gold row: mc_R = 2, both predicted rows count.
    pred = (BeliefRecord(actor="x", belief="A"), BeliefRecord(actor="x", belief="B"))
    (al,) = aligner.align_sync([AlignmentTask("", pred, gold)])
    assert (al.pred_counts, al.gold_counts) == ((1, 1), (2, 0))
    # A paraphrased duplicate adds nothing to the coverage of the row already matched: no extra credit.
    gold1 = (BeliefRecord(actor="x", belief="A"),)
    pred1 = (BeliefRecord(actor="x", belief="A"), BeliefRecord(actor="x", belief="A again"))
    (al,) = aligner.align_sync([AlignmentTask("", pred1, gold1)])
    assert (al.pred_counts, al.gold_counts) == ((1, 0), (1,))


def test_alignment_stays_within_actor_groups() -> None:
    pytest.importorskip("scipy.optimize")
    enc = FakeEncoder({"p": [1, 0, 0]})
    pred = (BeliefRecord(actor="Alice", belief="p"), BeliefRecord(actor="world", belief="p"))
    gold = (BeliefRecord(actor="Bob", belief="p"), BeliefRecord(actor="World", belief="p"))
    for aligner in (EmbeddingAligner(enc), ExactAligner()):
        (al,) = (
            aligner.align_sync([AlignmentTask("", pred, gold)])
            if isinstance(aligner, EmbeddingAligner)
            else [aligner.align_one(AlignmentTask("", pred, gold))]
        )
        assert (al.pred_counts, al.gold_counts) == ((0, 1), (0, 1))


def test_actor_names_map_only_cosmetic_variants_and_clear_shortenings() -> None:
    gold = ["world", "Xiao Hong", "Xiao Li", "Rebecca's father"]
    got = map_actors(["WORLD", "xiao  hong", "Xiao", "Father", "Rebecca’s Father", "Dad"], gold)
    assert got == {
        "WORLD": "world",
        "xiao  hong": "Xiao Hong",
        "Xiao": None,
        "Father": "Rebecca's father",
        "Rebecca’s Father": "Rebecca's father",
        "Dad": None,
    }


@pytest.mark.parametrize(
    ("a", "b", "blocked"),
    [
        ("The apple is in the green box", "The apple is in the red box", True),
        ("Xiaoming is in the bedroom", "Xiaogang is in the bedroom", True),
        ("Bob thinks Alice thinks the ball is in the box", "Bob thinks the ball is in the box", True),
        ("Alice thinks Bob thinks p", "Bob thinks Alice thinks p", True),
        ("Bob left the room", "Bob leaves the room", False),
        ("The cabbage is in the handbag", "The cabbage was in the handbag", False),
        ("Bob thinks the ball is in the box", "Bob believes the ball is still in the box", False),
        ("Xiao Li might vacate the office if persuaded", "Xiao Li may swap offices if Xiao Hong persuades him", False),
    ],
)
def test_contradiction_guard(a: str, b: str, blocked: bool) -> None:
    assert _contradicts(a, b) is blocked


def _row(actor: str, text: str, order: int) -> BeliefRecord:
    return BeliefRecord(actor=actor, belief=text, labels=BeliefLabels.partial(order=order))


def test_order_buckets_hand_worked() -> None:
    pred = (_row("world", "w1", 0), _row("A", "a1", 1), _row("A", "a2", 1), _row("A", "B thinks x", 2))
    gold = (_row("world", "w1", 0), _row("world", "w2", 0), _row("A", "a1", 1), _row("A", "B thinks y", 2))
    al = ExactAligner().align_one(AlignmentTask("", pred, gold))
    assert (al.pred_counts, al.gold_counts) == ((1, 1, 0, 0), (1, 0, 1, 0))
    s = stage1_story_score(pred, gold, al)
    # bucket 0: P = 1/1, R = 1/2; bucket 1: P = 1/2, R = 1/1; bucket 2+: P = R = 0.
    assert (s.by_bucket["0"].precision, s.by_bucket["0"].recall) == (1.0, 0.5)
    assert (s.by_bucket["1"].precision, s.by_bucket["1"].recall) == (0.5, 1.0)
    assert s.by_bucket["2+"].f1 == 0.0
    assert s.by_bucket["0"].f1 == pytest.approx(2 / 3)
    assert (s.prf.precision, s.prf.recall) == (0.5, 0.5)


def test_macro_average_over_stories_and_missing_predictions() -> None:
    w = BeliefLabels(
        order="0",
        truth_status="True",
        knowledge_access="Public",
        representation="Explicit",
        content_type="Location",
        mental_source="Narration",
        context="Neutral",
    )
    g1 = StoryRecord(
        story_id=1,
        story_category="FBT",
        story="s",
        beliefs=(BeliefRecord(actor="world", belief="a", labels=w), BeliefRecord(actor="world", belief="b", labels=w)),
    )
    g2 = StoryRecord(
        story_id=2, story_category="HT", story="s", beliefs=(BeliefRecord(actor="world", belief="c", labels=w),)
    )
    p1 = StoryRecord(story_id=1, story_category="FBT", story="s", beliefs=(BeliefRecord(actor="world", belief="a"),))
    # story 1: P = 1, R = 1/2, F1 = 2/3; story 2: no prediction, F1 = 0; macro F1 = 1/3.
    result = score_records_sync([p1], [g1, g2], ExactAligner())
    assert result.stage1["f1"] == pytest.approx(1 / 3)
    assert result.stage1["precision"] == pytest.approx(0.5)
    assert result.stage1["by_category"]["False Belief Task"]["f1"] == pytest.approx(2 / 3)
    assert result.stage1["by_category"]["Hinting Task Test"]["f1"] == 0.0
    assert result.n_stories == 2


def test_failed_alignments_are_unscored_not_zero() -> None:
    s = summarize_stage1([], n_unscored=3)
    assert s["unscored"] == 3 and s["f1"] is None

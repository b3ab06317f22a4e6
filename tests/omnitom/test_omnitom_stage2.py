"""Stage 2 scoring: self-score, exact effect of one changed label, missing rows, and the paper's table layouts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindloop.errors import InvalidArgumentError
from mindloop.systems.omnitom.examples import appendix_e_records
from mindloop.systems.omnitom.metrics import (
    ExactAligner,
    format_table,
    score_records_sync,
    stage2_labels_for_gold,
    stage2_story_score,
    table3,
    table10,
)
from mindloop.systems.omnitom.records import DIMENSIONS, LABEL_SETS, BeliefLabels, BeliefRecord, StoryRecord

GOLD = appendix_e_records()


def test_a_record_against_itself_scores_100_percent() -> None:
    result = score_records_sync(GOLD, GOLD, ExactAligner())
    assert result.stage2["overall"] == 1.0
    assert result.stage2["by_dimension"] == dict.fromkeys(DIMENSIONS, 1.0)
    assert result.stage1["f1"] == 1.0
    assert result.to_json()["n_stories"] == 7


def _with_label(record: StoryRecord, i: int, dimension: str, label: str) -> StoryRecord:
    beliefs = list(record.beliefs)
    old = beliefs[i]
    beliefs[i] = BeliefRecord(
        actor=old.actor, belief=old.belief, labels=old.labels.model_copy(update={dimension: label})
    )
    return record.model_copy(update={"beliefs": tuple(beliefs)})


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_one_changed_label_moves_the_score_by_exactly_its_weight(data: st.DataObject) -> None:
    s = data.draw(st.integers(0, len(GOLD) - 1), label="story")
    story = GOLD[s]
    i = data.draw(st.integers(0, len(story.beliefs) - 1), label="belief")
    dim = data.draw(st.sampled_from(DIMENSIONS), label="dimension")
    current = story.beliefs[i].labels.get(dim)
    new = data.draw(st.sampled_from([x for x in LABEL_SETS[dim] if x != current]), label="label")
    pred = [_with_label(r, i, dim, new) if k == s else r for k, r in enumerate(GOLD)]
    result = score_records_sync(pred, GOLD, ExactAligner())
    n, stories = len(story.beliefs), len(GOLD)
    # Acc_d(s) loses 1/N_s; overall(s) is the mean of 7 dimensions; both are macro-averaged over S stories.
    assert result.stage2["by_dimension"][dim] == pytest.approx(1 - 1 / (n * stories), abs=1e-12)
    assert result.stage2["overall"] == pytest.approx(1 - 1 / (7 * n * stories), abs=1e-12)
    others = [d for d in DIMENSIONS if d != dim]
    assert all(result.stage2["by_dimension"][d] == 1.0 for d in others)
    per_story = next(x for x in result.stage2_stories if x.story_id == story.story_id)
    assert per_story.accuracy[dim] == pytest.approx(1 - 1 / n)


def test_missing_and_illegal_predictions_count_as_wrong() -> None:
    story = GOLD[5]  # Table 18, 9 beliefs
    labels: list[BeliefLabels | None] = [b.labels for b in story.beliefs]
    labels[0] = None  # the model gave no row for it
    labels[1] = BeliefLabels.partial(**{**story.beliefs[1].labels.model_dump(), "truth_status": "Maybe"})
    score = stage2_story_score(labels, story.beliefs)
    assert score.accuracy["truth_status"] == pytest.approx(7 / 9)
    assert score.accuracy["order"] == pytest.approx(8 / 9)
    assert score.overall == pytest.approx((6 * 8 / 9 + 7 / 9) / 7)
    assert score.n_missing == 1


def test_predicted_rows_are_matched_to_gold_by_actor_and_text() -> None:
    story = GOLD[1]
    shuffled = tuple(reversed(story.beliefs))
    assert stage2_labels_for_gold(shuffled, story.beliefs) == [b.labels for b in story.beliefs]
    restyled = tuple(
        BeliefRecord(actor=b.actor.upper(), belief=b.belief.lower() + ".", labels=b.labels) for b in story.beliefs
    )
    assert stage2_labels_for_gold(restyled, story.beliefs) == [b.labels for b in story.beliefs]
    # the same text held by two actors is not interchangeable
    bob_only = tuple(b for b in story.beliefs if b.actor == "Bob")
    got = stage2_labels_for_gold(bob_only, story.beliefs)
    assert all(x is None for x, g in zip(got, story.beliefs, strict=True) if g.actor != "Bob")


def test_gold_needs_complete_labels() -> None:
    bare = (BeliefRecord(actor="world", belief="x"),)
    with pytest.raises(InvalidArgumentError, match="lacks label"):
        stage2_story_score([None], bare)


def test_table_layouts_follow_the_paper() -> None:
    result = score_records_sync(GOLD, GOLD, ExactAligner())
    header, rows = table3({"gold": result})
    assert header == ["Model", "AST", "FBT", "FPT", "HT", "PST", "SIT", "SST", "Overall",
                      "Order", "Status", "Access", "Repr", "CType", "Source", "Context", "Overall"]  # fmt: skip
    assert rows == [["gold", *["100.00"] * 16]]
    header10, rows10 = table10({"a": result, "b": result})
    assert header10 == ["Model", "AST", "FBT", "FPT", "HT", "PST", "SIT", "SST"]
    assert [r[0] for r in rows10[:3]] == ["Order", "a", "b"] and len(rows10) == 7 * 3
    only_fbt = score_records_sync(GOLD[1:2], GOLD[1:2], ExactAligner())
    assert table3({"m": only_fbt})[1][0][1:3] == ["N/A", "100.00"]
    assert format_table((header10, rows10)).splitlines()[1] == "|---|---|---|---|---|---|---|---|"

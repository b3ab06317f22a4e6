"""TELeR prompt builders (App. C) and the tolerant pipe-table parsers."""

from __future__ import annotations

import pytest

from mindloop.errors import InvalidArgumentError
from mindloop.systems.omnitom.examples import appendix_e_record
from mindloop.systems.omnitom.prompts import (
    EXTRACTION_EMPHASIS,
    belief_table,
    judge_messages,
    labelled_table,
    stage1_messages,
    stage1_table,
    stage2_messages,
)
from mindloop.systems.omnitom.records import CATEGORIES, BeliefRecord
from mindloop.systems.omnitom.tables import parse_stage1, parse_stage2

FBT = appendix_e_record("FBT")


def test_level3_stage1_is_the_base_prompt_and_the_story() -> None:
    system, user = stage1_messages(FBT.story)
    assert system["role"] == "system" and user["content"] == f"Story: {FBT.story}"
    text = system["content"]
    assert text.startswith("You are a Theory of Mind expert whose task is to extract multi-order actor beliefs")
    assert "special actor 'world' (order 0)" in text and "(order 2 or higher)." in text
    assert "A good output" not in text and "Example" not in text  # zero-shot: no L4 blocks, no examples


def test_level4_stage1_adds_blocks_category_emphasis_and_examples() -> None:
    system, _ = stage1_messages(FBT.story, level=4, category="FBT", examples=[FBT])
    text = system["content"]
    parts = [
        "You are a Theory of Mind expert",
        "A good output should satisfy the following",
        "This story belongs to the False Belief Task category.",
        EXTRACTION_EMPHASIS["False Belief Task"],
        "The first row must be exactly: Actor | Belief | Order",
        "Example 1:\nStory: Alice and Bob are in a room.",
    ]
    positions = [text.index(p) for p in parts]
    assert positions == sorted(positions)  # base, content block, category insertion, formatting block, few-shot
    assert "Bob | Alice thinks Bob thinks the object is in the box | 3" in text
    assert set(EXTRACTION_EMPHASIS) == set(CATEGORIES)


def test_stage2_prompt_carries_the_belief_table() -> None:
    _, user = stage2_messages(FBT.story, FBT.beliefs)
    assert f"Belief table:\n{belief_table(FBT.beliefs)}\n\nAnswer with the belief table completed" in user["content"]
    assert user["content"].endswith(  # the header of the answer, apart from the rows to label
        "(never the whole set), under this header:\nActor | Belief | Order | Truth-Status | Knowledge-Access | "
        "Representation | Content Type | Mental-Source | Context"
    )
    assert belief_table(FBT.beliefs).splitlines()[1] == "world | Alice is in the room"
    system, _ = stage2_messages(FBT.story, FBT.beliefs, level=4, examples=[FBT])
    assert "Preserve the original order of beliefs" in system["content"]
    assert "Actor | Belief | Order | Truth-Status | Knowledge-Access" in system["content"]
    with pytest.raises(InvalidArgumentError, match="TELeR level"):
        stage2_messages(FBT.story, FBT.beliefs, level=2)  # type: ignore[arg-type]


def test_judge_prompt_quotes_csv_fields() -> None:
    system, user = judge_messages("s", [("Dad", 'Dad says, "Poor Emma"')], [("world", "Emma coughs")], level=3)
    assert "MatchCount column" in system["content"] and "A good output" not in system["content"]
    assert 'Prediction:\nActor,Belief\nDad,"Dad says, ""Poor Emma"""' in user["content"]
    assert user["content"].startswith("Story Narrative: s\n\n")


def test_stage1_parser_tolerates_wrapping_and_records_bad_rows() -> None:
    reply = """Sure! Here is the table.

```
| **Actor** | **Belief** | **Order** |
|:---|:---|---:|
| world | Alice is in the room | 0 |
| Alice | The object is in the safe | 1 |
| Bob | Alice thinks the object is in the box | second order |
| Bob | | 1 |
| Bob | The object is in the box | 7 |
```
I hope this helps."""
    parsed = parse_stage1(reply)
    assert [(b.actor, b.belief, b.labels.order) for b in parsed.beliefs] == [
        ("world", "Alice is in the room", "0"),
        ("Alice", "The object is in the safe", "1"),
        ("Bob", "Alice thinks the object is in the box", "2"),
        ("Bob", "The object is in the box", None),
    ]
    assert [m.reason for m in parsed.malformed] == [
        "empty actor or belief",
        "illegal order '7' (row kept without an order)",
    ]
    assert [m.line for m in parsed.malformed] == [9, 10]
    assert not parse_stage1("I cannot do that.").found_table


def test_stage1_table_round_trips() -> None:
    parsed = parse_stage1(stage1_table(FBT.beliefs))
    assert [(b.actor, b.belief, b.order) for b in parsed.beliefs] == [(b.actor, b.belief, b.order) for b in FBT.beliefs]
    assert parsed.malformed == ()


def test_stage2_table_round_trips_and_maps_columns_by_header() -> None:
    parsed = parse_stage2(labelled_table(FBT.beliefs), FBT.beliefs)
    assert list(parsed.labels) == [b.labels for b in FBT.beliefs] and parsed.malformed == ()
    # columns in another order, compact labels, prose around: read by header names
    header = "| Actor | Belief | Context | Order | Status | Access | Repr | Type | Source |"
    rows = [
        f"| {b.actor} | {b.belief} | {b.labels.context} | {b.labels.order} | {b.labels.truth_status} | "
        f"{b.labels.knowledge_access} | {b.labels.representation} | {(b.labels.content_type or '').split('/')[0]} "
        f"| {b.labels.mental_source} |"
        for b in FBT.beliefs
    ]
    parsed = parse_stage2("Labels:\n" + "\n".join([header, *rows]) + "\nDone.", FBT.beliefs)
    assert list(parsed.labels) == [b.labels for b in FBT.beliefs]


def test_stage2_parser_records_missing_rows_and_illegal_labels() -> None:
    beliefs = FBT.beliefs[:3]
    text = labelled_table(beliefs).replace("| Narration | Temporal", "| Narration | Stale", 1)
    lines = text.splitlines()
    del lines[1]  # the first belief's row is missing
    parsed = parse_stage2("\n".join([*lines, "| just | two |"]), beliefs)
    assert parsed.labels[0] is None and parsed.n_missing == 1
    assert parsed.labels[1] is not None and parsed.labels[1].context is None  # "Stale" is not a Context label
    assert parsed.labels[2] == beliefs[2].labels
    reasons = [m.reason for m in parsed.malformed]
    assert "illegal Context 'Stale' (read as missing)" in reasons
    assert "expected Actor | Belief and 7 labels, got 2 cell(s)" in reasons


def test_positional_fallback_when_rows_are_reworded() -> None:
    beliefs = (BeliefRecord(actor="Bob", belief="Bob left"), BeliefRecord(actor="Alice", belief="Alice stayed"))
    reply = "| Bob | Bob has left | 1 | True | Private | Implicit | Action | Perception | Neutral |\n" + (
        "| Alice | Alice stayed | 1 | True | Private | Implicit | Action | Perception | Neutral |"
    )
    parsed = parse_stage2(reply, beliefs)
    assert all(x is not None and x.content_type == "Action/Event" for x in parsed.labels)

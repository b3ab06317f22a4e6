"""Records (Table 7) and label sets (App. A): normalisation, validation messages, JSON/JSONL round trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems.omnitom.examples import appendix_e_records
from mindloop.systems.omnitom.records import (
    CATEGORIES,
    COMPACT_LABELS,
    DIMENSIONS,
    LABEL_SETS,
    BeliefLabels,
    canonical_category,
    canonical_label,
    normalize_label,
    parse_records,
    read_records,
    write_records,
)

PAPER_LABELS = {
    "order": {"0", "1", "2", "3"},
    "truth_status": {"True", "False", "Unknown"},
    "knowledge_access": {"Private", "Shared", "Public"},
    "representation": {"Explicit", "Implicit"},
    "content_type": {
        "Location", "Contents/Physical State", "Identity/Relation", "Epistemic", "Desire/Intention", "Emotion",
        "Trait/Value", "Action/Event",
    },
    "mental_source": {"Narration", "Perception", "Memory", "Testimony", "Inference", "Imagination", "Unknown"},
    "context": {"Deceptive", "Temporal", "Counterfactual", "Neutral"},
}  # fmt: skip


def test_label_sets_are_the_papers() -> None:
    assert {d: set(v) for d, v in LABEL_SETS.items()} == PAPER_LABELS
    assert set(DIMENSIONS) == set(PAPER_LABELS)


def test_compact_labels_of_appendix_e_map_to_full_labels() -> None:
    # App. E: "Identity abbreviates Identity/Relation, Physical abbreviates Contents/Physical State, ..."
    assert normalize_label("content_type", "Identity") == "Identity/Relation"
    assert normalize_label("content_type", "Physical") == "Contents/Physical State"
    assert normalize_label("content_type", "Desire") == "Desire/Intention"
    assert normalize_label("content_type", "Trait") == "Trait/Value"
    assert normalize_label("content_type", "Action") == "Action/Event"
    assert set(COMPACT_LABELS.values()) <= PAPER_LABELS["content_type"]


@pytest.mark.parametrize(
    ("dimension", "raw", "expected"),
    [
        ("truth_status", " true ", "True"),
        ("truth_status", "**False**", "False"),
        ("truth_status", "Truth-Status: Unknown", "Unknown"),
        ("truth_status", "Status = true", "True"),
        ("knowledge_access", "PUBLIC.", "Public"),
        ("content_type", "Contents / Physical State", "Contents/Physical State"),
        ("content_type", "action/event", "Action/Event"),
        ("content_type", "Content Type: Epistemic", "Epistemic"),
        ("order", 2, "2"),
        ("order", "Order 3", "3"),
        ("order", "second order", "2"),
        ("order", 1.0, "1"),
        ("mental_source", "`Inference`", "Inference"),
        ("context", '"Temporal"', "Temporal"),
    ],
)
def test_legal_variants_normalise(dimension: str, raw: object, expected: str) -> None:
    assert normalize_label(dimension, raw) == expected


@pytest.mark.parametrize(
    ("dimension", "raw"),
    [
        ("truth_status", "Maybe"),
        ("truth_status", "Context: True"),  # another dimension's prefix is not a legal variant
        ("context", "Temporal + False"),
        ("order", 4),
        ("order", 1.5),
        ("order", True),
        ("knowledge_access", ""),
        ("knowledge_access", None),
        ("representation", "Explicit, probably"),
    ],
)
def test_anything_else_is_not_a_label(dimension: str, raw: object) -> None:
    assert normalize_label(dimension, raw) is None
    with pytest.raises(InvalidArgumentError, match="not a legal"):
        canonical_label(dimension, raw)


@given(st.sampled_from(DIMENSIONS).flatmap(lambda d: st.tuples(st.just(d), st.sampled_from(LABEL_SETS[d]))),
       st.sampled_from(["", " ", "  "]), st.booleans())  # fmt: skip
def test_every_legal_label_survives_case_and_space(pair: tuple[str, str], pad: str, upper: bool) -> None:
    dimension, label = pair
    raw = pad + (label.upper() if upper else label.lower()) + pad
    assert normalize_label(dimension, raw) == label


def test_categories_and_abbreviations() -> None:
    assert canonical_category("FBT") == "False Belief Task"
    assert canonical_category("faux-pas recognition test") == "Faux-pas Recognition Test"
    assert len(CATEGORIES) == 7
    with pytest.raises(InvalidArgumentError, match="Unexpected Outcome"):
        canonical_category("Unexpected Outcome Test")


def _gold_dict() -> dict[str, object]:
    return {
        "story_id": 12,
        "story_category": "FBT",
        "story": "Alice and Bob are in a room.",
        "beliefs": [
            {"actor": "world", "belief": "Alice is in the room", "labels": dict.fromkeys(DIMENSIONS, None)
             | {"order": "0", "truth_status": "True", "knowledge_access": "Public", "representation": "Explicit",
                "content_type": "Location", "mental_source": "Narration", "context": "Neutral"}},
            {"actor": "Bob", "belief": "Alice is in the room", "labels": {
                "order": 1, "truth_status": "Maybe", "knowledge_access": "Private", "representation": "Implicit",
                "content_type": "Location", "mental_source": "Perception", "context": "Neutral"}},
        ],
    }  # fmt: skip


def test_validation_error_names_story_belief_and_field() -> None:
    with pytest.raises(ParseError) as info:
        parse_records([(3, _gold_dict())], source="gold.jsonl")
    message = str(info.value)
    assert message.startswith("gold.jsonl:3: [story_id=12].beliefs[1].labels.truth_status: ")
    assert "'Maybe' is not a legal Truth Status label" in message


def test_gold_needs_all_seven_labels_but_predictions_do_not() -> None:
    data = _gold_dict()
    data["beliefs"][1]["labels"] = {"order": 1, "context": "Neutral"}  # type: ignore[index]
    with pytest.raises(ParseError, match=r"beliefs\[1\]\.labels: missing label\(s\) truth_status"):
        parse_records([(1, data)])
    data["beliefs"][1]["labels"] = {"order": 1}  # type: ignore[index]
    (record,) = parse_records([(1, data)], partial=True)
    assert record.beliefs[1].labels.order == "1" and record.beliefs[1].labels.truth_status is None
    assert not record.beliefs[1].labels.complete


def test_prediction_with_illegal_label_reads_it_as_missing() -> None:
    (record,) = parse_records([(1, _gold_dict())], partial=True)
    assert record.beliefs[1].labels.truth_status is None
    assert record.beliefs[1].labels.knowledge_access == "Private"


def test_duplicate_story_ids_and_missing_fields_are_errors() -> None:
    good = _gold_dict()
    good["beliefs"] = []
    with pytest.raises(ParseError, match="story_id 12 appears twice"):
        parse_records([(1, good), (2, good)])
    with pytest.raises(ParseError, match=r"^<records>:1: \[story_id=1\]\.story_category: Field required$"):
        parse_records([(1, {"story_id": 1, "story": "x"})])
    with pytest.raises(ParseError, match=r"\[story_id=12\]\.beliefs\[0\]\.actor: must be a non-empty string"):
        parse_records([(1, {**good, "beliefs": [{"actor": " ", "belief": "x", "labels": None}]})], partial=True)


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_records_round_trip_through_files(tmp_path: Path, suffix: str) -> None:
    records = appendix_e_records()
    path = tmp_path / f"gold{suffix}"
    write_records(path, records)
    assert read_records(path) == records
    if suffix == ".jsonl":
        lines = path.read_text(encoding="utf-8").splitlines()
        assert len(lines) == 7 and json.loads(lines[1])["beliefs"][0]["labels"]["order"] == "0"


def test_single_json_object_and_bad_json(tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    one.write_text(json.dumps(appendix_e_records()[1].to_json()), encoding="utf-8")
    assert [r.story_id for r in read_records(one)] == [14]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(appendix_e_records()[1].to_json()) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ParseError, match=r"bad.jsonl:2: not valid JSON"):
        read_records(bad)
    with pytest.raises(ParseError, match="no such file"):
        read_records(tmp_path / "missing.jsonl")


def test_appendix_e_examples_are_the_papers_tables() -> None:
    records = appendix_e_records()
    assert [r.story_category for r in records] == list(CATEGORIES)
    assert [len(r.beliefs) for r in records] == [29, 21, 14, 11, 6, 9, 12]  # rows printed in Tables 13-19
    fbt = records[1]
    assert fbt.actors == ["world", "Alice", "Bob"]
    bob_box = next(b for b in fbt.beliefs if b.actor == "Bob" and b.belief == "The object is in the box")
    assert bob_box.labels == BeliefLabels(order="1", truth_status="False", knowledge_access="Private",
                                          representation="Implicit", content_type="Location",
                                          mental_source="Perception", context="Temporal")  # fmt: skip

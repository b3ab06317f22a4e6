"""The worked examples (App. E, Table 2) ship as package data and are checked on load."""

from __future__ import annotations

from pathlib import Path

import pytest
from data_files import edited_copy, refusal

from mindloop.datafiles import package_file
from mindloop.systems.omnitom.examples import APPENDIX_E, TABLE2, appendix_e_record, load_examples

SHIPPED = Path(str(package_file("mindloop.systems.omnitom", "examples.yaml")))


def test_the_shipped_examples_are_the_ones_the_code_held() -> None:
    # hand-copied from the examples as they were written in Python before they moved to data/examples.yaml
    assert [e.table for e in APPENDIX_E] == [13, 14, 15, 16, 17, 18, 19]
    assert [len(e.rows) for e in APPENDIX_E] == [29, 21, 14, 11, 6, 9, 12]
    fbt = APPENDIX_E[1]
    assert (fbt.category, fbt.title) == ("False Belief Task", "Hidden transfer and outdated belief.")
    assert fbt.story == (
        "Alice and Bob are in a room. There is an object in a box. Bob leaves. Alice moves the object to the safe."
    )
    assert fbt.rows[0] == ("world", "Alice is in the room", "0 True Public Explicit Location Narration Neutral")
    assert fbt.rows[-1] == (
        "Bob",
        "Alice thinks Bob thinks the object is in the box",
        "3 True Private Implicit Epistemic Inference Neutral",
    )
    assert (
        APPENDIX_E[3].story
        == 'Rebecca’s birthday is coming soon. She says to her father, "I like animals, especially dogs."'
    )
    assert TABLE2.story.startswith("Xiao Hong wants to change to a bigger office")
    assert [n for _, _, n in TABLE2.predicted] == [1, 1, 1, 1, 1, 1]
    assert [n for _, _, n in TABLE2.gold] == [1, 1, 0, 2, 1, 1]
    assert TABLE2.gold[3] == ("Xiao Hong", "Xiao Hong needs the bigger office that Xiao Li occupies", 2)
    record = appendix_e_record("FBT")
    assert record.story_id == 14 and len(record.beliefs) == 21


def test_loading_the_shipped_file_again_gives_equal_examples() -> None:
    assert load_examples() == (APPENDIX_E, TABLE2)
    assert load_examples(SHIPPED) == (APPENDIX_E, TABLE2)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            '"Alice is in the room", 0 True Public Explicit Location Narration Neutral]',
            '"Alice is in the room", 0 True Public Explicit Location Narration]',
            r"appendix_e\[table=14\]\.rows\[0\]\[2\]: has 6 labels, expected 7 \(got '0 True Public",
        ),
        (
            '"Alice is in the room", 0 True Public Explicit Location Narration Neutral]',
            '"Alice is in the room", 0 Maybe Public Explicit Location Narration Neutral]',
            r"appendix_e\[table=14\]\.rows\[0\]\[2\]\.truth_status: 'Maybe' is not a legal",
        ),
        ("category: False Belief Task", "category: FBT", r"appendix_e\[table=14\]\.category: .*'False Belief Task'"),
        ("category: False Belief Task", "category: Magic Task", r"appendix_e\[table=14\]\.category: .*unknown"),
        ("  - table: 15\n", "  - table: 14\n", r"appendix_e: table 14 appears twice"),
        ('"Xiao Hong and Xiao Li are colleagues", 0]', '"Xiao Hong and Xiao Li are colleagues", -1]', r"table2\.gold"),
        ("table2:\n", "table_two:\n", r"table2: Field required"),
    ],
)
def test_a_malformed_examples_file_names_the_file_the_table_and_the_field(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    refusal(load_examples, edited_copy(SHIPPED, old, new, tmp_path), expected)

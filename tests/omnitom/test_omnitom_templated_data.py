"""The templated-story generator's pools and variants ship as package data and are checked on load."""

from __future__ import annotations

from pathlib import Path

import pytest
from data_files import edited_copy, refusal

from mindloop.datafiles import package_file
from mindloop.systems.omnitom.templated import generate_false_belief_stories, load_story_tables

SHIPPED = Path(str(package_file("mindloop.systems.omnitom", "templated.yaml")))
CONTROL = 'control: "{a} and {b} are in the {room}. There is {an_obj} in the {c1}. {a} moves the {obj} to the {c2}."'


def test_the_generator_writes_the_stories_it_wrote_when_its_tables_were_code() -> None:
    # the first stories of seed 0, copied from the generator as it was before its tables moved to data
    assert generate_false_belief_stories(4, seed=0) == [
        "Youyou and Zhang Wei are in the attic. There is a marker in the crate. Zhang Wei leaves. Youyou moves the "
        "marker to the handbag. Zhang Wei comes back to the attic.",
        "Noah and Han Meimei are in the garden. There is a key in the safe. Han Meimei leaves. Noah moves the key to "
        "the cabinet.",
        "Xiao Ming and Emma are in the bedroom. There is a bottle in the basket. Xiao Ming moves the bottle to the "
        "suitcase.",
        "David, Han Meimei, and Zhang Wei are in the living room. The hat is in the cupboard. Zhang Wei leaves. David "
        "moves the hat to the drawer. Han Meimei leaves.",
    ]
    tables = load_story_tables()
    assert (len(tables.names), len(tables.rooms), len(tables.containers), len(tables.objects)) == (18, 10, 10, 12)
    assert tables.names[:3] == ("Alice", "Bob", "Carol") and tables.objects[-1] == "umbrella"
    assert list(tables.variants) == ["hidden_transfer", "tombench", "return", "third_agent", "control"]
    assert load_story_tables(SHIPPED) == tables


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("Grace, Henry", "Grace, henry", r"names\[7\]: String should match pattern .* \(got 'henry'\)"),
        ("[box, basket,", "[box, box,", r"containers: 'box' appears twice"),
        (CONTROL, CONTROL.replace("{obj} to", "{thing} to"), r"variants: control: unknown placeholder"),
        (CONTROL, CONTROL.replace("moves the", "juggles the"), r"variants: .*control: gives a story the parser"),
        ("objects: [", "things: [", r"objects: Field required"),
    ],
)
def test_malformed_story_tables_name_the_file_and_the_field(tmp_path: Path, old: str, new: str, expected: str) -> None:
    refusal(load_story_tables, edited_copy(SHIPPED, old, new, tmp_path), expected)

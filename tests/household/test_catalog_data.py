"""The household catalogue (rooms, places, items) and the cast ship as package data and are checked on load."""

from __future__ import annotations

from pathlib import Path

import pytest
from data_files import edited_copy, refusal

from mindloop.datafiles import package_file
from mindloop.errors import MindloopError
from mindloop.worlds.household.catalog import (
    ITEM_KINDS,
    PLACE_KINDS,
    PLURAL_KINDS,
    ROOM_TYPES,
    Catalog,
    ItemKind,
    PlaceKind,
    load_catalog,
)
from mindloop.worlds.household.characters import CHARACTERS, ROBOT_CHARACTER, Character, load_characters
from mindloop.worlds.household.vocab import Prop, Trait

CATALOG_FILE = Path(str(package_file("mindloop.worlds.household", "catalog.yaml")))
CHARACTERS_FILE = Path(str(package_file("mindloop.worlds.household", "characters.yaml")))


def test_the_shipped_catalogue_is_the_one_the_code_held() -> None:
    # hand-copied from the tables as they were written in Python before they moved to data/catalog.yaml
    assert list(ROOM_TYPES) == [
        "kitchen",
        "living_room",
        "dining_room",
        "bedroom",
        "kids_room",
        "bathroom",
        "study",
        "hallway",
    ]
    assert ROOM_TYPES["kids_room"] == "kids' room"
    assert len(PLACE_KINDS) == 12 + 9 + 5 + 7 + 4 + 6 + 5 + 4
    assert list(PLACE_KINDS)[:3] == ["fridge", "dishwasher", "kitchen_cabinet"]
    assert PLACE_KINDS["microwave"] == PlaceKind(
        "microwave",
        "microwave",
        "kitchen",
        1.3,
        frozenset({Prop.RECEPTACLE, Prop.OPENABLE, Prop.SWITCHABLE, Prop.NEEDS_POWER}),
    )
    assert PLACE_KINDS["kids_shelf"].name == "high shelf" and PLACE_KINDS["kids_shelf"].height == 1.7
    assert PLACE_KINDS["fridge"].prep == "in" and PLACE_KINDS["sofa"].prep == "on"
    assert len(ITEM_KINDS) == 13 + 9 + 17 + 9 + 4  # food, kitchenware, personal, home, obstacles
    assert list(ITEM_KINDS)[-1] == "fire_hydrant"
    assert ITEM_KINDS["apple"] == ItemKind(
        "apple",
        "apple",
        frozenset({Prop.GRASPABLE, Prop.EDIBLE, Prop.CUTTABLE}),
        ("kitchen_table", "kitchen_counter", "fridge", "dining_table", "coffee_table"),
    )
    assert ITEM_KINDS["ball"].homes[-1] == "living_room_corner"
    assert ITEM_KINDS["box"] == ItemKind("box", "big box", frozenset({Prop.MOVABLE, Prop.OBSTACLE}))
    assert frozenset({"headphones", "keys", "cookies", "glasses"}) == PLURAL_KINDS


def test_loading_the_shipped_catalogue_again_gives_equal_tables() -> None:
    assert load_catalog() == Catalog(ROOM_TYPES, PLACE_KINDS, ITEM_KINDS, PLURAL_KINDS)
    assert load_catalog(CATALOG_FILE).item_kinds == ITEM_KINDS


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "room: kitchen, height: 1.0, props: [receptacle, openable]}",
            "room: garage, height: 1.0, props: [fridge]}",
            r"places\.fridge\.props\[0\]: Input should be",
        ),
        (
            "fridge: {name: fridge, room: kitchen,",
            "fridge: {name: fridge, room: garage,",
            r"places\.fridge\.room: unknown room type 'garage'",
        ),
        (
            "sink: {name: sink, room: kitchen, height: 0.85,",
            "sink: {name: sink, room: kitchen, height: -1,",
            r"places\.sink\.height: Input should be greater than 0",
        ),
        ("homes: [fridge]}\n  juice", "homes: [attic]}\n  juice", r"items\.milk\.homes: unknown place 'attic'"),
        (
            "props: [graspable, liquid], homes: [fridge]}\n  juice",
            "props: [graspable, graspable], homes: [fridge]}\n  juice",
            r"items\.milk\.props: a property is listed twice",
        ),
        ("  spoon: {name: spoon,", "  spoon: {colour: red, name: spoon,", r"items\.spoon\.colour: Extra inputs"),
        ("  spoon: {name: spoon,", "  spoon: {", r"items\.spoon\.name: Field required"),
    ],
)
def test_a_malformed_catalogue_names_the_file_the_entry_and_the_field(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    assert isinstance(refusal(load_catalog, edited_copy(CATALOG_FILE, old, new, tmp_path), expected), MindloopError)


def test_the_shipped_cast_is_the_one_the_code_held() -> None:
    # hand-copied from the characters as they were written in Python before they moved to data/characters.yaml
    assert list(CHARACTERS) == [
        "alice", "david", "mia", "alex", "jamie", "sarah", "mark", "jake",
        "emma", "oliver", "grace", "henry", "nora", "lily", "sam", "tom",
    ]  # fmt: skip
    assert CHARACTERS["alice"] == Character(
        "alice", "Alice", Trait.ADULT, "f", 1.65, 0.0, 2.0, "a woman in a green sweater"
    )
    assert CHARACTERS["david"].height == 1.80 and CHARACTERS["grace"].description == "an elderly woman with grey hair"
    assert CHARACTERS["lily"] == Character("lily", "Lily", Trait.CHILD, "f", 1.2, 0.0, 1.3, "a little girl")
    assert CHARACTERS["tom"] == Character("tom", "Tom", Trait.WHEELCHAIR, "m", 1.25, 0.3, 1.2, "a man in a wheelchair")
    assert CHARACTERS["tom"].trait is Trait.WHEELCHAIR and not CHARACTERS["tom"].can_reach(1.3)
    assert ROBOT_CHARACTER.id not in CHARACTERS and ROBOT_CHARACTER.reach_max == 2.0
    assert load_characters() == CHARACTERS and load_characters(CHARACTERS_FILE) == CHARACTERS


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("  child: [0.0, 1.3]\n", "  child: [1.3, 0.0]\n", r"reach\.child: \[1\.3, 0\.0\] is not \[lowest, highest\]"),
        ("  wheelchair: [0.3, 1.2]\n", "", r"characters\.tom\.trait: no reach given for 'wheelchair'"),
        ("  sam: {trait: child,", "  sam: {trait: robot,", r"characters\.sam\.trait: Input should be"),
        ("  mia: {gender: f,", "  mia: {gender: x,", r"characters\.mia\.gender: Input should be 'f' or 'm'"),
        ("  nora: {gender: f, height: 1.66,", "  nora: {gender: f,", r"characters\.nora\.height: Field required"),
        (
            "  alice: {",
            "  robot: {gender: n, height: 1.5, description: a robot}\n  alice: {",
            r"characters\.robot\.gender",
        ),
    ],
)
def test_a_malformed_cast_names_the_file_the_entry_and_the_field(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    refusal(load_characters, edited_copy(CHARACTERS_FILE, old, new, tmp_path), expected)


def test_the_robot_cannot_be_listed_as_a_human(tmp_path: Path) -> None:
    robot = "  robot: {gender: m, height: 1.5, description: x}\n  alice: {"
    path = edited_copy(CHARACTERS_FILE, "  alice: {", robot, tmp_path)
    refusal(load_characters, path, r"characters\.robot: the robot is not a listed character")

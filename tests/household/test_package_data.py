"""The household data files (layouts, needs and combinations) ship with the package and are checked on load."""

from __future__ import annotations

from pathlib import Path

import pytest
from data_files import edited_copy, refusal

from mindloop.datafiles import DataFileError, load_data_file, package_file
from mindloop.errors import MindloopError
from mindloop.worlds.household import scenarios
from mindloop.worlds.household.actions import ALIASES, VERBS, ArgKind, VerbSpec, _VerbsFile
from mindloop.worlds.household.layouts import LAYOUTS, Layout, RoomPlan, load_layouts
from mindloop.worlds.household.scenarios.needs import (
    COMBOS,
    DIALOGUES,
    NEEDS,
    Combo,
    Need,
    combo_for,
    load_needs,
)
from mindloop.worlds.household.scenarios.taxonomy import SUBTYPES, Subtype, load_subtypes

SHIPPED = Path(str(package_file("mindloop.worlds.household", "layouts.yaml")))


def test_the_shipped_layouts_are_the_eight_the_code_held() -> None:
    # hand-copied from the layouts as they were written in Python before they moved to data/layouts.yaml
    assert list(LAYOUTS) == [
        "cozy_apartment",
        "family_house",
        "studio_flat",
        "townhouse",
        "garden_cottage",
        "city_loft",
        "suburban_home",
        "accessible_flat",
    ]
    family = LAYOUTS["family_house"]
    assert family.title == "Family house" and family.dock == "living_room"
    assert family.room_ids == ("kitchen", "dining_room", "living_room", "bedroom", "kids_room", "bathroom")
    assert family.room("kids_room") == RoomPlan("kids_room", ("kids_bed", "toy_box", "kids_table", "kids_shelf"))
    assert family.clutter == (
        ("toy_car", "kids_table"),
        ("vase", "china_shelf"),
        ("remote", "sofa"),
        ("book", "nightstand"),
    )
    studio = LAYOUTS["studio_flat"]
    assert len(studio.rooms) == 3 and len(studio.place_ids()) == 9 + 8 + 4
    assert studio.room("bathroom").places == ("bathroom_counter", "bathroom_cabinet", "bathroom_faucet", "towel_rack")
    cottage = LAYOUTS["garden_cottage"]
    assert cottage.dock == "hallway" and ("umbrella", "hallway_corner") in cottage.clutter
    assert cottage.room("kitchen").places[-2:] == ("kitchen_table", "dishwasher")
    # the shared furniture lists (YAML anchors) give every layout its own equal tuple
    assert LAYOUTS["cozy_apartment"].room("kitchen").places == LAYOUTS["townhouse"].room("kitchen").places
    assert len(LAYOUTS["cozy_apartment"].room("kitchen").places) == 12
    assert all(isinstance(lay, Layout) for lay in LAYOUTS.values())


def test_loading_the_shipped_file_again_gives_equal_layouts() -> None:
    assert load_layouts() == LAYOUTS
    assert load_layouts(SHIPPED) == LAYOUTS


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("    title: Townhouse\n", "    title: [Townhouse]\n", r"layouts\.townhouse\.title: Input should be"),
        ("    title: Townhouse\n", "    title: Townhouse\n    colour: red\n", r"layouts\.townhouse\.colour: Extra"),
        ("    title: City loft\n    dock: living_room\n", "    title: City loft\n", r"layouts\.city_loft\.dock: Field"),
        ("study: [desk, desk_drawer, office", "study: [desk, sofa, office", r"townhouse\.rooms\.study: 'sofa' cannot"),
        ("laptop: desk", "laptop: attic", r"layouts\.townhouse\.clutter\.laptop: .*unknown place 'attic'"),
        ("laptop: desk", "dragon: desk", r"layouts\.townhouse\.clutter: unknown item kind 'dragon'"),
        ("    dock: hallway\n", "    dock: garage\n", r"layouts\.garden_cottage\.dock: dock 'garage' is not one"),
        ("      notebook: desk\n", "      notebook: desk\n      notebook: desk\n", r":\d+: .*key 'notebook' twice"),
    ],
)
def test_a_malformed_layouts_file_names_the_file_the_layout_and_the_field(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    assert isinstance(refusal(load_layouts, edited_copy(SHIPPED, old, new, tmp_path), expected), MindloopError)


def test_a_missing_layouts_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="cannot read data file"):
        load_layouts(tmp_path / "nope.yaml")


NEEDS_FILE = Path(str(package_file("mindloop.worlds.household", "needs.yaml")))


def test_the_shipped_needs_and_combinations_are_the_ones_the_code_held() -> None:
    # hand-copied from the tables as they were written in Python before they moved to data/needs.yaml
    assert [c.name for c in COMBOS] == ["cut_carrot", "slice_bread", "cereal", "fry_egg", "write_note", "brush_teeth"]
    assert COMBOS[2] == Combo("cereal", ("bowl", "cereal"), "milk", "have a bowl of cereal with milk")
    assert list(NEEDS) == ["thirsty", "cold", "hungry", "headache", "cannot_read"]
    assert NEEDS["thirsty"] == Need(
        "thirsty", "is thirsty", ("glass", "cup", "mug"), "water", "a glass of water", "relieve {poss} thirst"
    )
    assert NEEDS["cannot_read"].offer == "{poss} reading glasses" and NEEDS["cold"].liquid == ""
    assert list(DIALOGUES) == list(NEEDS) and all(len(d) == 2 for d in DIALOGUES.values())
    assert DIALOGUES["cold"][1] == (
        "I can't stop shivering.",
        "Maybe the window was open all day.",
        "I'm freezing on this sofa.",
    )
    # the package exports the tables under their public names
    assert scenarios.NEEDS is NEEDS and scenarios.COMBOS is COMBOS
    assert combo_for(["cutting_board", "bread", "carrot"]) == COMBOS[0]  # first of two equally good matches


def test_loading_the_shipped_needs_again_gives_equal_tables() -> None:
    assert load_needs() == (COMBOS, NEEDS, DIALOGUES)


def test_every_combination_story_plays_a_known_combination_with_world_verbs() -> None:
    from mindloop.worlds.household.catalog import ITEM_KINDS, PLACE_KINDS
    from mindloop.worlds.household.scenarios.implicit_goal import _STORIES

    combos = {c.name: c for c in COMBOS}
    assert list(_STORIES) == ["cut_carrot", "slice_bread", "cereal", "fry_egg", "write_note"]
    for name, story in _STORIES.items():
        # the story starts with the combination's items and its missing piece, each at catalogue places
        assert set(combos[name].present) | {combos[name].tool} == set(story.items) <= set(ITEM_KINDS), name
        places = [p for where in story.items.values() for p in ([where] if isinstance(where, str) else where)]
        assert set(places) | set(story.avoid) | set(story.needs) <= set(PLACE_KINDS), name
        for verb, *_ in story.set_out + story.complete:
            assert verb in ("take", "rest") or verb in VERBS, (name, verb)
    assert [n for n, s in _STORIES.items() if s.complete] == ["cut_carrot", "slice_bread", "fry_egg"]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "tool: knife, task: cut the carrot",
            "tool: sword, task: cut the carrot",
            r"combos\.cut_carrot\.tool: .*'sword'",
        ),
        ("kinds: [blanket]", "kinds: [duvet]", r"needs\.cold\.kinds: unknown item kind 'duvet'"),
        ("relief: get warm", "relief: warm {obj} up", r"needs\.cold\.relief: .*placeholder \{obj\}"),
        ("        - It is a chilly evening.\n", "", r"needs\.cold\.dialogues\[0\]\[2\]: Field required"),
        ("    state: is hungry\n", "", r"needs\.hungry\.state: Field required"),
    ],
)
def test_a_malformed_needs_file_names_the_file_the_entry_and_the_field(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    refusal(load_needs, edited_copy(NEEDS_FILE, old, new, tmp_path), expected)


SUBTYPES_FILE = Path(str(package_file("mindloop.worlds.household", "subtypes.yaml")))


def test_the_shipped_subtypes_are_the_ones_the_code_held() -> None:
    # hand-copied from the taxonomy as it was written in Python before it moved to data/subtypes.yaml
    assert len(SUBTYPES) == 20 and list(SUBTYPES)[:3] == [
        "fb_two_humans",
        "fb_three_humans_first",
        "fb_three_humans_second",
    ]
    assert SUBTYPES["ig_control_child_reachable"] == Subtype(
        "ig_control_child_reachable",
        "implicit_goal_inference",
        "special_population",
        True,
        0.015,
        "child",
        "A child takes something within reach. Control.",
    )
    assert SUBTYPES["fb_two_humans"].description == (
        "A puts an object somewhere and leaves; B moves it out of sight; A comes back and searches. "
        "Help: fetch it for A."
    )
    assert [s.weight for s in SUBTYPES.values()][:4] == [0.22, 0.08, 0.07, 0.06]
    assert sum(s.control for s in SUBTYPES.values()) == 8
    assert load_subtypes(SUBTYPES_FILE) == SUBTYPES


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "    category: dialogue\n",
            "    category: gossip\n",
            r"subtypes\.ig_dialogue_need\.category: unknown category",
        ),
        ("    weight: 0.22\n", "    weight: lots\n", r"subtypes\.fb_two_humans\.weight: Input should be"),
        ("    special_needs: child\n", "    special_needs: giant\n", r"subtypes\.ig_child_reach\.special_needs"),
    ],
)
def test_a_malformed_subtypes_file_names_the_file_the_subtype_and_the_field(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    refusal(load_subtypes, edited_copy(SUBTYPES_FILE, old, new, tmp_path), expected)


VERBS_FILE = Path(str(package_file("mindloop.worlds.household", "verbs.yaml")))


def test_the_shipped_verbs_are_the_ones_the_code_held() -> None:
    # as written in Python before the table moved to data/verbs.yaml
    assert len(VERBS) == 32 and list(VERBS)[:4] == ["walk", "run", "walkaround", "turn"] and list(VERBS)[-1] == "wait"
    assert VERBS["say"] == VerbSpec(
        "say",
        (ArgKind.AGENT, ArgKind.TEXT, ArgKind.HOLDER),
        1,
        "speak to someone in the room: words, or 'item, place'",
    )
    assert VERBS["walkaround"].min_args == 0 and VERBS["standup"].args == () and VERBS["pour"].max_args == 2
    assert len(ALIASES) == 21 and ALIASES["grab"] == ("pick", ()) and ALIASES["turnright"] == ("turn", ("right",))


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("walk: {args: [any]", "walk: {args: [anything]", r"verbs\.walk\.args\[0\]: Input should be .any."),
        ("noop: wait", "noop: snooze", r"\.yaml: aliases\.noop: unknown verb 'snooze'"),
        ("walkaround: {args: [room], optional: 1", "walkaround: {args: [room], optional: 2", r"verbs\.walkaround"),
        (', doc: "stand up"', "", r"verbs\.standup\.doc"),
    ],
)
def test_a_malformed_verbs_file_names_the_file_the_verb_and_the_field(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    refusal(lambda path: load_data_file(_VerbsFile, path), edited_copy(VERBS_FILE, old, new, tmp_path), expected)

"""The household data files (layouts, scenario sentence tables) ship with the package and are checked on load."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindloop.datafiles import DataFileError, package_file
from mindloop.errors import MindloopError
from mindloop.worlds.household.layouts import LAYOUTS, Layout, RoomPlan, load_layouts

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


def _broken(tmp_path: Path, old: str, new: str) -> Path:
    text = SHIPPED.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "layouts.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


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
    path = _broken(tmp_path, old, new)
    with pytest.raises(DataFileError, match=expected) as info:
        load_layouts(path)
    assert str(info.value).startswith(str(path))
    assert isinstance(info.value, MindloopError)


def test_a_missing_layouts_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="cannot read data file"):
        load_layouts(tmp_path / "nope.yaml")

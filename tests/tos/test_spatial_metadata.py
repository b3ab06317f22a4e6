"""Every layout of the reference's ``example_data`` loads, and malformed ``meta_data.json`` files say what is wrong.

``data/example_data/3-room/run00..run09`` are excerpts of the release's ten scenes (MIT); ``2-room`` and ``4-room``
are written in the same shape (the release ships only 3-room scenes). The expectations below are read off the
release's files by hand: world ``(x, z)`` minus the agent camera's gives a position relative to the start, and
``object_ratios`` of the renderer's ``agent_facing_*`` images say what the agent sees at the start.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from mindloop.cli import main
from mindloop.errors import ParseError
from mindloop.systems.tos.world import LayoutConfig, Scene, generate_scene, load_scene, observe, scene_from_metadata
from mindloop.systems.tos.world.geometry import EAST, NORTH, SOUTH, WEST, Vec, direction_name, parse_direction
from mindloop.systems.tos.world.scene import DOOR_HORIZONTAL, DOOR_VERTICAL

EXAMPLE = Path(__file__).parent / "data" / "example_data"
RUNS = [f"run{i:02d}" for i in range(10)]

# run: (mask rows x columns, doors in scan order as (name, rooms, vertical), one object: (name, start-relative
# position, facing)); every run has 12 objects in 3 rooms and the agent starts in room 1.
REFERENCE: dict[str, tuple[tuple[int, int], list[tuple[str, list[int], bool]], tuple[str, Vec, Vec | None]]] = {
    "run00": ((15, 16), [("green door", [1, 3], True), ("blue door", [1, 2], False)], ("television", (2, -1), EAST)),
    "run01": ((16, 15), [("green door", [1, 3], True), ("red door", [1, 2], False)], ("truck", (-1, 2), EAST)),
    "run02": (
        (17, 15),
        [("green door", [1, 2], True), ("blue door", [1, 3], False)],
        ("fire extinguisher", (-2, 7), NORTH),  # fire_extinguisher in the file
    ),
    "run03": ((22, 9), [("yellow door", [1, 3], True), ("green door", [1, 2], True)], ("plant", (-9, 2), None)),
    "run04": ((15, 15), [("red door", [1, 2], True), ("brown door", [1, 3], False)], ("green chair", (-1, -7), EAST)),
    "run05": ((16, 17), [("yellow door", [1, 3], True), ("blue door", [1, 2], False)], ("red chair", (2, -7), SOUTH)),
    "run06": ((22, 12), [("red door", [1, 3], True), ("green door", [1, 2], True)], ("lego man", (-3, 3), SOUTH)),
    "run07": ((22, 9), [("brown door", [1, 2], True), ("yellow door", [1, 3], True)], ("white chair", (-7, -4), EAST)),
    "run08": ((15, 15), [("red door", [1, 3], True), ("yellow door", [1, 2], False)], ("suitcase", (-1, -6), WEST)),
    "run09": ((15, 16), [("brown door", [1, 3], True), ("yellow door", [1, 2], False)], ("bike", (6, 1), EAST)),
}

# What the reference's renderer saw from the agent's start (``object_ratios`` of agent_facing_<facing>.png).
RENDERED_AT_START = {
    "run00": {"north": ["bike", "lamp"], "east": ["television", "cap"], "south": [], "west": []},
    "run01": {"north": ["truck"], "east": ["backpack", "shoes"], "south": ["chair"], "west": []},
    "run02": {"north": [], "east": [], "south": [], "west": ["laptop", "pan", "teddybear", "desklamp"]},
    "run03": {"north": ["teddybear", "bike", "vase"], "east": ["television"], "south": [], "west": ["vase"]},
    "run04": {"north": ["scooter", "teddybear"], "east": [], "south": ["plant"], "west": ["truck", "teddybear"]},
    "run05": {"north": [], "east": ["shoes", "rubberduck", "alarmclock"], "south": ["pan"], "west": []},
    "run06": {"north": ["lego man"], "east": [], "south": ["backpack", "shoppingcart"], "west": ["bike", "lego man"]},
    "run07": {"north": [], "east": ["airplane"], "south": ["bike", "laptop", "shelf"], "west": []},
    "run08": {"north": ["laptop"], "east": [], "south": [], "west": ["desklamp", "shoppingcart", "truck"]},
    "run09": {"north": [], "east": [], "south": ["scooter"], "west": ["shoes", "backpack", "wine"]},
}


def _run(run: str) -> Path:
    return EXAMPLE / "3-room" / run


@pytest.mark.parametrize("run", RUNS)
def test_every_reference_run_loads(run: str) -> None:
    shape, doors, (name, rel, facing) = REFERENCE[run]
    scene = load_scene(_run(run))  # a run folder, read as the reference's example_data lays it out
    assert scene.name == run and (scene.width, scene.height) == shape
    assert scene.room_ids == (1, 2, 3) and scene.start_room == 1 and len(scene.objects) == 12
    assert [(d.name, sorted(d.rooms), d.vertical) for d in scene.doors] == doors
    obj = next(o for o in scene.objects if o.name == name)
    assert (scene.relative(obj.pos), obj.facing) == (rel, facing)
    raw = json.loads((_run(run) / "meta_data.json").read_text())
    rooms = {o["name"].replace("_", " "): o["attributes"]["room_id"] for o in raw["objects"] if "door" not in o["name"]}
    assert {o.name: o.room for o in scene.objects} == rooms  # the mask puts every object in the room the file names


@pytest.mark.parametrize("run", RUNS)
def test_start_views_match_the_reference_renderer(run: str) -> None:
    scene = load_scene(_run(run) / "meta_data.json")
    for facing, seen in RENDERED_AT_START[run].items():
        obs = observe(scene, scene.start, parse_direction(facing), scene.rooms_at(scene.start))
        assert [n for n in obs.names if "door" not in n] == seen, facing


def test_other_room_counts_in_the_same_shape() -> None:
    two = load_scene(EXAMPLE / "2-room" / "run00")
    assert two.room_ids == (1, 2) and [(d.name, sorted(d.rooms), d.vertical) for d in two.doors] == [
        ("purple door", [1, 2], True)
    ]
    assert {o.name: (two.relative(o.pos), o.facing) for o in two.objects} == {
        "sofa": ((1, 2), EAST),
        "floor lamp": ((3, 0), None),
        "fridge": ((7, 3), SOUTH),
        "plant": ((6, 0), None),
    }
    four = load_scene(EXAMPLE / "4-room" / "run00")
    assert four.room_ids == (1, 2, 3, 4) and four.start_room == 1
    # 100s are scanned before 101s; the 2-4 door has no door object: the third default colour, green
    assert [(d.name, four.relative(d.pos), sorted(d.rooms), d.vertical) for d in four.doors] == [
        ("orange door", (3, 1), [1, 2], True),
        ("black door", (1, 3), [1, 3], False),
        ("green door", (5, 3), [2, 4], False),
    ]
    rel = {o.name: (four.relative(o.pos), o.facing, o.label) for o in four.objects}
    assert rel["desk"] == ((2, 2), WEST, "1") and rel["mirror"] == ((6, 6), EAST, "5")
    assert rel["coffee table"] == ((4, 4), None, "6")  # no label in the file: its place in the object list


def _as_metadata(scene: Scene, offset: tuple[int, int] = (3, 5)) -> dict[str, Any]:
    """``scene`` written in the reference's layout (world = mask - offset, rot.y in degrees, doors as objects)."""
    ox, oz = offset
    rot = {NORTH: 0, EAST: 90, SOUTH: 180, WEST: 270}
    objects: list[dict[str, Any]] = [
        {
            "name": o.name.replace(" ", "_"),
            "label": o.label,
            "pos": {"x": float(o.pos[0] - ox), "y": 0.05, "z": float(o.pos[1] - oz)},
            "rot": {"x": 0, "y": rot[o.facing] if o.facing else 0, "z": 0},
            "attributes": {"has_orientation": o.facing is not None, "room_id": o.room},
        }
        for o in scene.objects
    ]
    objects += [
        {
            "name": d.name,
            "pos": {"x": float(d.pos[0] - ox), "y": 0, "z": float(d.pos[1] - oz)},
            "rot": {"x": 0, "y": 0, "z": 0},
            "attributes": {"connected_rooms": list(d.rooms), "orientation": "vertical" if d.vertical else "horizontal"},
        }
        for d in scene.doors
    ]
    agent = {"id": "agent", "position": {"x": float(scene.start[0] - ox), "y": 0.85, "z": float(scene.start[1] - oz)}}
    return {"objects": objects, "cameras": [agent], "mask": [list(r) for r in scene.mask], "offset": [ox, oz]}


@pytest.mark.parametrize("rooms", [1, 2, 4, 5, 6])
def test_any_room_count_round_trips_through_the_reference_layout(rooms: int) -> None:
    scene = generate_scene(rooms, LayoutConfig(rooms=rooms, objects_per_room=2))
    back = scene_from_metadata(_as_metadata(scene), name=scene.name)
    assert back.mask == scene.mask and back.start == scene.start and back.room_ids == scene.room_ids
    assert [(o.name, o.pos, o.facing, o.room) for o in back.objects] == [
        (o.name, o.pos, o.facing, o.room) for o in scene.objects
    ]
    assert sorted((d.name, d.pos, d.rooms) for d in back.doors) == sorted((d.name, d.pos, d.rooms) for d in scene.doors)
    assert all(
        (d.vertical, scene.mask[d.pos[0]][d.pos[1]]) in ((True, DOOR_VERTICAL), (False, DOOR_HORIZONTAL))
        for d in back.doors
    )


def test_example_data_facings_read_as_the_release_writes_them() -> None:
    # rot.y 0/90/180/270 is north/east/south/west (the release also writes the word in attributes.orientation)
    for run in RUNS:
        raw = json.loads((_run(run) / "meta_data.json").read_text())
        scene = load_scene(_run(run))
        by_name = {o.name: o for o in scene.objects}
        for o in raw["objects"]:
            if "door" in o["name"] or not o["attributes"]["has_orientation"]:
                continue
            want = {0: "north", 90: "east", 180: "south", 270: "west"}[o["rot"]["y"]]
            facing = by_name[o["name"].replace("_", " ")].facing
            assert facing is not None and direction_name(facing) == want


# ---- malformed files -------------------------------------------------------------------------------------------
def _set(path: list[Any], value: Any) -> Any:
    def change(meta: dict[str, Any]) -> None:
        target: Any = meta
        for key in path[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return change


_DELETE = object()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_set(["objects"], None), "objects: Input should be a valid list"),
        (_set(["cameras"], None), "cameras: Input should be a valid list"),
        (_set(["mask"], "[[0, 1]]"), "mask: Input should be a valid list"),
        (_set(["mask", 3], [0, 1]), "rectangular"),
        (_set(["mask", 3, 3], "3"), "mask[3][3]: must be a number"),
        (_set(["mask", 3, 3], 7000), "mask[3][3]: expected -1 (outside), 0 (wall), 1-99 (a room)"),
        (_set(["offset"], _DELETE), "offset: Field required"),
        (_set(["offset"], [1]), "offset[1]: Field required"),
        (_set(["objects", 0, "pos"], None), "objects[name=television].pos.x: Field required"),
        (
            _set(["objects", 0, "pos", "x"], float("nan")),
            "objects[name=television].pos.x: must be a number",
        ),
        (
            _set(["objects", 0, "pos", "x"], 2.5),
            "objects[name=television].pos.x: must lie on the integer grid",
        ),
        (
            _set(["objects", 0, "attributes"], [1]),
            "objects[name=television].attributes: Input should be a valid dictionary",
        ),
        (
            _set(["objects", 0, "attributes", "has_orientation"], "yes"),
            "objects[name=television].attributes.has_orientation: Input should be a valid boolean",
        ),
        (_set(["objects", 0, "rot", "y"], 45), "rotation 45; expected 0, 90, 180 or 270"),
        (_set(["objects", 0], "television"), "object #0 has no name"),
        (_set(["objects", 1, "name"], "television"), "'television' is used twice"),
        (_set(["cameras", 0, "id"], "top_down"), 'no camera with "id": "agent"'),
        (_set(["cameras", 0, "position", "x"], -11.0), "the agent's start (0, 2) is not inside a room"),
    ],
)
def test_malformed_metadata_names_the_file_and_the_field(tmp_path: Path, change: Any, message: str) -> None:
    meta = json.loads((_run("run03") / "meta_data.json").read_text())
    change(meta)
    path = tmp_path / "meta_data.json"
    path.write_text(json.dumps(meta))
    with pytest.raises(ParseError) as err:
        load_scene(path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value)


@pytest.mark.parametrize("field", ["objects", "cameras", "mask"])
def test_cli_refuses_a_malformed_layout_with_exit_1(
    tmp_path: Path, field: str, capsys: pytest.CaptureFixture[str]
) -> None:
    meta = json.loads((_run("run00") / "meta_data.json").read_text())
    meta[field] = "oops" if field == "mask" else None
    path = tmp_path / "meta_data.json"
    path.write_text(json.dumps(meta))
    assert main(["tos", "render", "--data", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"mindloop: error: {path}: {field}: Input should be a valid list") and err.count("\n") == 1


def test_cli_renders_every_layout(capsys: pytest.CaptureFixture[str]) -> None:
    for folder in sorted(EXAMPLE.glob("*/run*")):
        assert main(["tos", "render", "--data", str(folder / "meta_data.json"), "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["scene"] == folder.name and out["position"] == [0, 0] and out["facing"] == "north"
    assert main(["tos", "render", str(_run("run03")), "--data", str(_run("run04"))]) == 1
    assert "not both" in capsys.readouterr().err
    assert main(["tos", "render"]) == 1
    assert "missing the scene" in capsys.readouterr().err


def test_metadata_is_not_modified_by_loading() -> None:
    meta = json.loads((_run("run05") / "meta_data.json").read_text())
    before = copy.deepcopy(meta)
    scene_from_metadata(meta)
    assert meta == before

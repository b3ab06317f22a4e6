"""Scenes: mindloop's JSON format (round trip, validation), the reference's meta_data.json layout, generation."""

from __future__ import annotations

import copy
import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from mindloop.errors import InvalidArgumentError, ParseError, UnknownNameError
from mindloop.systems.tos.world import (
    Door,
    LayoutConfig,
    Scene,
    SceneObject,
    generate_scene,
    load_scene,
    observe,
    scene_from_dict,
    scene_from_metadata,
    scene_to_dict,
)
from mindloop.systems.tos.world.geometry import EAST, NORTH, SOUTH, WEST, parse_direction

DATA = Path(__file__).parent / "data"


def _obj(scene: Scene, name: str) -> SceneObject:
    it = scene.item(name)
    assert isinstance(it, SceneObject)
    return it


def test_two_room_scene_structure(two_rooms: Scene) -> None:
    s = two_rooms
    assert s.room_ids == (1, 2) and (s.width, s.height) == (9, 5) and s.grid_size == 9
    assert s.start == (1, 1) and s.start_room == 1
    door = s.item("red door")
    assert isinstance(door, Door)
    assert door.rooms == (1, 2) and door.normals == (WEST, EAST) and door.vertical
    assert s.rooms_at((4, 2)) == {1, 2} and s.rooms_at((0, 0)) == frozenset() and s.rooms_at((6, 3)) == {2}
    chair, lamp, sofa = (_obj(s, n) for n in ("chair", "lamp", "sofa"))
    assert chair.facing == SOUTH and lamp.facing is None and sofa.room == 2
    assert s.relative(s.item("sofa").pos) == (5, 1)
    assert s.adjacent_rooms(1) == [2] and s.door_between(2, 1).name == "red door"
    assert [o.name for o in s.objects_in(2)] == ["sofa", "plant"]
    assert s.cell((4, 2)) == 100 and s.cell((4, 1)) == 0 and s.cell((-1, 0)) == -1
    with pytest.raises(UnknownNameError):
        s.item("piano")


def test_round_trip_keeps_everything(two_rooms: Scene) -> None:
    data = scene_to_dict(two_rooms)
    assert data["rooms"] == [{"id": 1, "x": [1, 3], "y": [1, 3]}, {"id": 2, "x": [5, 7], "y": [1, 3]}]
    assert data["objects"][1] == {"name": "lamp", "pos": [3, 1], "facing": None, "label": "2"}
    assert scene_from_dict(json.loads(json.dumps(data))) == two_rooms


def test_mask_form_is_accepted(two_rooms: Scene, two_rooms_dict: dict[str, Any]) -> None:
    del two_rooms_dict["rooms"]
    two_rooms_dict["mask"] = [list(row) for row in two_rooms.mask]
    assert scene_from_dict(two_rooms_dict) == two_rooms


def _broken(base: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(base)
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


_DELETE = object()


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["format"], "something-else", "format: Input should be 'mindloop-spatial-scene'"),
        (["version"], 2, "version: Input should be 1"),
        (["objects", 0, "pos"], [4, 1], "not inside a room"),
        (["objects", 0, "pos"], [3, 1], "share the cell"),
        (["objects", 0, "pos"], [2.5, 1], "objects[name=chair].pos[0]: Input should be a valid integer"),
        (["objects", 0, "facing"], "up", "objects[name=chair].facing: unknown direction 'up'"),
        (["objects", 1, "name"], "chair", "used twice"),
        (["objects"], [], "objects: List should have at least 1 item"),
        (["agent", "pos"], [2, 3], "occupied by 'chair'"),
        (["agent", "facing"], "east", "start facing north"),
        (["agent"], _DELETE, "agent: Field required"),
        (["doors", 0, "pos"], [4, 4], "must join two rooms"),
        (["doors", 0, "rooms"], [1, 3], "joins rooms [1, 2]"),
        (["doors"], [], "cannot be reached"),
        (["rooms", 1, "x"], [3, 7], "overlap"),
        (["rooms", 1, "id"], 100, "rooms[id=100].id: Input should be less than or equal to 99"),
    ],
)
def test_invalid_scenes_say_what_is_wrong(
    two_rooms_dict: dict[str, Any], path: list[Any], value: Any, message: str
) -> None:
    with pytest.raises(ParseError, match=re.escape(message)) as err:
        scene_from_dict(_broken(two_rooms_dict, path, value), source="scene.json")
    assert str(err.value).startswith("scene.json: ") and "\n" not in str(err.value)


def test_load_scene_from_files(tmp_path: Path, two_rooms_dict: dict[str, Any], two_rooms: Scene) -> None:
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(two_rooms_dict))
    assert load_scene(path) == two_rooms
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ParseError, match="not valid JSON"):
        load_scene(bad)
    with pytest.raises(ParseError, match="no such scene file"):
        load_scene(tmp_path / "missing.json")
    with pytest.raises(ParseError, match="unrecognised scene"):
        load_scene({"hello": 1})
    run = tmp_path / "run07"
    run.mkdir()
    shutil.copy(DATA / "run00_meta_data.json", run / "meta_data.json")
    assert load_scene(run).name == "run07"  # a run folder is named after itself


# ---- the reference's example scene -------------------------------------------------------------------------
def test_reference_run00_loads_in_mask_space(run00: Scene) -> None:
    # Worked out from example_data/3-room/run00/meta_data.json: world (x, z) + offset (7, 8), relative to the
    # agent camera at world (-6, -5).
    rel = {o.name: (run00.relative(o.pos), o.facing) for o in run00.objects}
    assert rel["television"] == ((2, -1), EAST)
    assert rel["bike"] == ((2, 3), WEST)
    assert rel["backpack"] == ((0, 9), SOUTH)
    assert rel["lamp"] == ((0, 4), None)  # has_orientation false: no facing whatever rot.y says
    assert rel["shelf"] == ((12, -1), None)
    assert rel["rubberduck"] == ((4, 11), WEST)
    assert len(rel) == 12 and run00.room_ids == (1, 2, 3) and run00.start_room == 1
    doors = [(d.name, run00.relative(d.pos), sorted(d.rooms), d.vertical) for d in run00.doors]
    # vertical (100) door cells are scanned before horizontal (101) ones, each named after the JSON door
    # joining the same rooms
    assert doors == [("green door", (6, 3), [1, 3], True), ("blue door", (5, 5), [1, 2], False)]
    assert {o.room for o in run00.objects if o.name in ("television", "bike", "cap", "lamp")} == {1}


# What the reference's renderer saw (``object_ratios`` of example_data/3-room/run01's images), per camera and facing.
RUN01_RENDERED = {
    "agent": {"north": ["truck"], "east": ["backpack", "shoes"], "south": ["chair"], "west": []},
    "truck": {"north": [], "east": ["backpack", "shoes"], "south": ["chair"], "west": []},
    "televison": {"north": ["airplane", "wine"], "east": ["airplane", "shoppingcart"], "south": [], "west": []},
}


def test_reference_run01_views_match_the_reference_renders() -> None:
    scene = load_scene(DATA / "run01_meta_data.json")
    assert scene.relative(scene.item("televison").pos) == (1, 8)  # the reference's spelling is kept
    assert [(d.name, sorted(d.rooms)) for d in scene.doors] == [("green door", [1, 3]), ("red door", [1, 2])]
    for camera, views in RUN01_RENDERED.items():
        pos = scene.start if camera == "agent" else scene.item(camera).pos
        for facing, objects in views.items():
            obs = observe(scene, pos, parse_direction(facing), scene.rooms_at(pos))
            assert [n for n in obs.names if "door" not in n] == objects, (camera, facing)


def test_reference_false_belief_scene_has_two_turns_and_two_far_moves(run00: Scene) -> None:
    after = load_scene(DATA / "run00_falsebelief_exp.json")
    before = {o.name: o for o in run00.objects}
    turned = sorted(o.name for o in after.objects if o.pos == before[o.name].pos and o.facing != before[o.name].facing)
    moved = {o.name: math.dist(o.pos, before[o.name].pos) for o in after.objects if o.pos != before[o.name].pos}
    assert turned == ["cap", "pan"] and {_obj(after, n).facing for n in turned} == {NORTH}
    assert sorted(moved) == ["laptop", "vase"] and min(moved.values()) >= 6
    assert after.mask == run00.mask and after.start == run00.start


def _meta(two_rooms: Scene, *, door_object: bool = True, rot: int = 180) -> dict[str, Any]:
    ox, oz = 1, 1  # world = mask - offset

    def obj(name: str, x: int, y: int, oriented: bool, **extra: Any) -> dict[str, Any]:
        return {
            "name": name,
            "pos": {"x": float(x - ox), "y": 0.0, "z": float(y - oz)},
            "rot": {"y": rot},
            "attributes": {"has_orientation": oriented, **extra},
        }

    objects = [obj("chair", 2, 3, True), obj("table_lamp", 3, 1, False)]
    if door_object:
        objects.append(obj("green_door", 4, 2, False, connected_rooms=[2, 1]))
    return {
        "objects": objects,
        "cameras": [{"id": "top", "position": {"x": 0, "z": 0}}, {"id": "agent", "position": {"x": 0.0, "z": 0.0}}],
        "mask": [list(row) for row in two_rooms.mask],
        "offset": [ox, oz],
    }


def test_synthetic_metadata(two_rooms: Scene) -> None:
    scene = scene_from_metadata(_meta(two_rooms))
    assert scene.start == (1, 1) and _obj(scene, "chair").facing == SOUTH and scene.item("chair").pos == (2, 3)
    assert _obj(scene, "table lamp").facing is None  # underscores become spaces, as the reference's names
    assert [d.name for d in scene.doors] == ["green door"]
    unnamed = scene_from_metadata(_meta(two_rooms, door_object=False))
    assert [d.name for d in unnamed.doors] == ["red door"]  # the reference's default colour order


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m.update(cameras=[]), "agent"),
        (lambda m: m["objects"][0]["pos"].update(x=0.5), "integer grid"),
        (lambda m: m["objects"][0].update(rot={"y": 45}), "rotation"),
        (lambda m: m["objects"][0]["pos"].update(x=40.0), "not inside a room"),
        (lambda m: m.update(offset=[1]), "offset"),
    ],
)
def test_invalid_metadata(two_rooms: Scene, change: Any, message: str) -> None:
    meta = _meta(two_rooms)
    change(meta)
    with pytest.raises(ParseError, match=message):
        scene_from_metadata(meta)


# ---- procedural scenes ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(12))
def test_generated_scenes_follow_the_paper_layout(seed: int) -> None:
    scene = generate_scene(seed)
    assert len(scene.room_ids) == 3 and len(scene.doors) == 2  # a tree of rooms
    for rid in scene.room_ids:
        cells = scene.room_cells(rid)
        xs, ys = {c[0] for c in cells}, {c[1] for c in cells}
        assert len(cells) == 36 and len(xs) == len(ys) == 6  # 6 x 6 rooms
        assert len(scene.objects_in(rid)) == 4
    names = [it.name for it in scene.items]
    assert len(set(names)) == len(names)
    assert scene_from_dict(scene_to_dict(scene)) == scene  # validated: reachable, nothing shares a cell
    for i, a in enumerate(scene.objects):
        for b in scene.objects[i + 1 :]:
            assert math.dist(a.pos, b.pos) >= 1.42 - 1e-9


def test_generation_is_seeded() -> None:
    assert generate_scene(5) == generate_scene(5)
    assert generate_scene(5) != generate_scene(6)
    big = generate_scene(1, LayoutConfig(rooms=5, objects_per_room=2))
    assert len(big.room_ids) == 5 and len(big.doors) == 4 and len(big.objects) == 10
    with pytest.raises(InvalidArgumentError):
        LayoutConfig(rooms=0)
    with pytest.raises(InvalidArgumentError):
        LayoutConfig(rooms=11, objects_per_room=10)

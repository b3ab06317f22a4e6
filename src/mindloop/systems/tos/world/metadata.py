"""Read scenes in the reference's ``meta_data.json`` layout (mll-lab-nu/Theory-of-Space ``example_data``).

Those files come from the ThreeDWorld scene builder: object positions are world ``(x, z)`` floats (``z`` is north),
the room layout is a ``mask`` indexed ``[row][col]`` = ``[x][y]`` with an ``offset`` that maps world coordinates
onto mask indices, the agent is the camera with ``"id": "agent"``, and doors are objects whose name contains
``door`` with ``attributes.connected_rooms``. Like the reference loader we keep coordinates in mask space
(world + offset), derive rooms from the mask, generate doors from the mask's 100/101 cells (scanning 100s first,
row-major, then 101s) and name each after the JSON door joining the same two rooms. Answers are relative to
the start, so the offset never shows.

The release ships ``example_data/3-room/run00`` to ``run09``; they differ in ways the reader takes as they come: the
mask's shape (15x16, 16x15, 17x15, 22x9, 22x12, 16x17, 15x15) and offset, the doors (one 100 and one 101, or two
100s), names with underscores or spaces (``fire_extinguisher``, ``lego man``) and a misspelling (``televison``,
kept), an object colour given as a dict (``green_chair``), extra top-level keys (``rooms``, ``doors``,
``room_object_assignments``, ``images``, ``topdown_map``), which are ignored. Like the reference, the agent starts
facing north whatever its camera's rotation; unlike it, its room is read from the mask (the reference assumes 1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, RootModel, StrictBool

from mindloop.datafiles import field_path, load_package_data, read_json_file, read_text_file, validate_data
from mindloop.errors import ParseError
from mindloop.systems.tos.world.geometry import EAST, NORTH, SOUTH, WEST, Vec
from mindloop.systems.tos.world.scene import (
    DOOR_HORIZONTAL,
    DOOR_VERTICAL,
    SCENE_FORMAT,
    Scene,
    build_scene,
    scene_from_dict,
    sides,
)

DOOR_COLOURS: dict[str, tuple[int, int, int]] = load_package_data(
    RootModel[dict[str, tuple[int, int, int]]], __package__ or "", "doors.yaml"
).root
"""The door colours, in the order the reference names doors, and how the vision world paints each (RGB)."""

DEFAULT_DOOR_NAMES = tuple(f"{colour} door" for colour in DOOR_COLOURS)
"""Names given to mask doors that no JSON door matches, in scan order (as the reference does)."""

_ROTATION_TO_FACING: dict[int, Vec] = {0: NORTH, 90: EAST, 180: SOUTH, 270: WEST}


def is_metadata(data: Any) -> bool:
    """Whether ``data`` looks like a reference ``meta_data.json``: it has ``objects`` and ``cameras`` (a file that
    lacks ``mask`` or ``offset`` is still read as one, so that :func:`scene_from_metadata` can say what is missing)."""
    return isinstance(data, Mapping) and "objects" in data and "cameras" in data


def _on_grid(value: Any) -> int:
    """A number on the integer grid (the release writes floats such as ``-1.0``), as the integer it is."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError("must be a number")
    if abs(float(value) - round(float(value))) > 1e-6:
        raise ValueError("must lie on the integer grid")
    return round(float(value))


def _mask_code(value: int) -> int:
    if not -1 <= value <= DOOR_HORIZONTAL:
        raise ValueError("expected -1 (outside), 0 (wall), 1-99 (a room), 100 or 101 (a door)")
    return value


_Coord = Annotated[int, BeforeValidator(_on_grid)]
_OBJECT = BeforeValidator(lambda v: {} if v is None else v)
"""A JSON object that may be null (read as empty)."""


class _XZ(BaseModel):
    x: _Coord
    z: _Coord


class _Rot(BaseModel):
    y: _Coord


class _Attributes(BaseModel):
    has_orientation: StrictBool = False


class _Thing(BaseModel):
    """An object that is not a door (its ``rot`` is read only when it has a front)."""

    pos: Annotated[_XZ, _OBJECT]
    attributes: Annotated[_Attributes, _OBJECT] = _Attributes()


class _Door(BaseModel):
    attributes: Annotated[dict[str, Any], _OBJECT] = {}


class _Metadata(BaseModel):
    """The parts of ``meta_data.json`` a scene is read from, in the order they are checked."""

    offset: tuple[_Coord, _Coord]
    objects: list[Any]
    cameras: list[Any]
    mask: list[list[Annotated[_Coord, AfterValidator(_mask_code)]]]


def scene_from_metadata(data: Mapping[str, Any], *, source: str = "meta_data.json", name: str | None = None) -> Scene:
    """Build a :class:`Scene` from a parsed ``meta_data.json`` dict.

    Anything that does not fit the layout (a null or non-list ``objects``/``cameras``, a mask that is not a
    rectangle of integers, a position that is not a number on the grid) is a :class:`ParseError` naming ``source``
    and the field.
    """
    meta = validate_data(_Metadata, data, source=source, error=ParseError)
    ox, oy = meta.offset
    objects: list[tuple[str, Vec, Vec | None, str]] = []
    json_doors: list[tuple[Mapping[str, Any], str]] = []
    for i, obj in enumerate(meta.objects):
        if not isinstance(obj, Mapping) or not isinstance(obj.get("name"), str):
            raise ParseError(f"object #{i} has no name", source=source)
        at = field_path(("objects", i), data)
        if "door" in obj["name"]:
            json_doors.append((obj, at))
            continue
        oname = obj["name"].replace("_", " ")
        thing = validate_data(_Thing, obj, source=source, error=ParseError, at=at)
        facing: Vec | None = None
        if thing.attributes.has_orientation:
            rot = obj.get("rot")
            key = validate_data(_Rot, {} if rot is None else rot, source=source, error=ParseError, at=f"{at}.rot").y
            if key % 360 not in _ROTATION_TO_FACING:
                raise ParseError(f"object {oname!r} has rotation {key}; expected 0, 90, 180 or 270", source=source)
            facing = _ROTATION_TO_FACING[key % 360]
        objects.append((oname, (thing.pos.x + ox, thing.pos.z + oy), facing, str(obj.get("label", i + 1))))
    cameras = enumerate(meta.cameras)
    i, agent = next(((i, c) for i, c in cameras if isinstance(c, Mapping) and c.get("id") == "agent"), (0, None))
    if agent is None:
        raise ParseError('no camera with "id": "agent" (the agent\'s start)', source=source)
    position = agent.get("position")
    at = f"{field_path(('cameras', i), data)}.position"
    apos = validate_data(_XZ, {} if position is None else position, source=source, error=ParseError, at=at)
    start = (apos.x + ox, apos.z + oy)
    mask = meta.mask
    if not mask or not mask[0] or any(len(r) != len(mask[0]) for r in mask):
        raise ParseError("'mask' must be a non-empty rectangular list of lists", source=source)
    cells = [(x, y) for x, row in enumerate(mask) for y, v in enumerate(row) if v == DOOR_VERTICAL]
    cells += [(x, y) for x, row in enumerate(mask) for y, v in enumerate(row) if v == DOOR_HORIZONTAL]
    doors: list[tuple[str, Vec]] = []
    connected = [  # each JSON door checked once (and only when the mask has doors to name)
        (validate_data(_Door, jd, source=source, error=ParseError, at=where).attributes.get("connected_rooms"), jd)
        for jd, where in (json_doors if cells else ())
    ]
    for cnt, (x, y) in enumerate(cells):
        dname = DEFAULT_DOOR_NAMES[cnt] if cnt < len(DEFAULT_DOOR_NAMES) else f"door_{cnt}"
        pair = set(sides(mask, (x, y), mask[x][y] == DOOR_VERTICAL))  # -1 beyond the mask's edge
        for rooms, jd in connected:
            if (
                isinstance(rooms, list)
                and all(isinstance(r, int) and not isinstance(r, bool) for r in rooms)
                and set(rooms) == pair
            ):
                dname = jd["name"].replace("_", " ")
        doors.append((dname, (x, y)))
    scene_name = name or str(data.get("name") or f"meta_data seed {data.get('seed', '?')}")
    return build_scene(scene_name, mask, objects, doors, start, source=source)


def load_scene(path_or_data: str | Path | Mapping[str, Any]) -> Scene:
    """Load a scene from mindloop's format or the reference's ``meta_data.json`` layout (auto-detected).

    ``path_or_data`` is a parsed dict, a JSON file, or a directory holding ``meta_data.json`` (a reference run
    folder such as ``example_data/3-room/run00``).
    """
    if isinstance(path_or_data, Mapping):
        data: Any = path_or_data
        source = "scene"
    else:
        path = Path(path_or_data)
        if path.is_dir():
            path = path / "meta_data.json"
        source = str(path)
        if not path.exists():
            raise ParseError("no such scene file", source=source)
        text = read_text_file(path, what="the scene file")
        if not text.strip():
            raise ParseError("empty file (expected a scene: mindloop's JSON format or a meta_data.json)", source=source)
        data = read_json_file(path, text=text)
    if isinstance(data, Mapping) and data.get("format") == SCENE_FORMAT:
        return scene_from_dict(data, source=source)
    if is_metadata(data):
        src = Path(source)
        name = (src.parent.name if src.name == "meta_data.json" else src.stem) if source != "scene" else None
        return scene_from_metadata(data, source=source, name=name or None)
    raise ParseError(
        f'unrecognised scene: expected mindloop\'s format ("format": "{SCENE_FORMAT}") or a reference '
        "meta_data.json (objects, cameras, mask, offset)",
        source=source,
    )

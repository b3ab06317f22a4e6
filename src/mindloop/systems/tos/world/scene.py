"""A Theory-of-Space scene: rooms on a grid mask, objects with facings, doors that belong to two rooms.

The mask follows the reference layout: ``mask[x][y]`` is ``-1`` outside the building, ``0`` a wall, ``1..99`` a
room id, and ``100``/``101`` a door cell. A ``100`` door sits in a wall that runs north-south (you pass it going
east or west: the rooms are at ``x-1`` and ``x+1``); a ``101`` door sits in a wall that runs east-west (rooms at
``y-1`` and ``y+1``). A door belongs to both rooms; its *normal* for a room points into that room, which is how
an observer tells on which wall it is.

Scenes are immutable. :func:`scene_from_dict` reads mindloop's own JSON scene format (documented in
``docs/tos.md``) and :func:`scene_to_dict` writes it; :mod:`mindloop.systems.tos.world.metadata` reads the
reference's ``meta_data.json`` layout.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, Field, Strict, StrictInt, model_validator

from mindloop.datafiles import WholeNumber, validate_data
from mindloop.errors import InvalidArgumentError, ParseError, UnknownNameError
from mindloop.systems.tos.world.geometry import EAST, NORTH, SOUTH, WEST, Vec, direction_name, parse_direction

__all__ = [
    "DOOR_HORIZONTAL",
    "DOOR_VERTICAL",
    "SCENE_FORMAT",
    "Door",
    "Scene",
    "SceneObject",
    "build_scene",
    "scene_from_dict",
    "scene_to_dict",
]

SCENE_FORMAT = "mindloop-spatial-scene"
"""The ``format`` tag of mindloop's own scene files."""

DOOR_VERTICAL = 100
"""Mask value of a door in a north-south wall (rooms to its west and east)."""
DOOR_HORIZONTAL = 101
"""Mask value of a door in an east-west wall (rooms to its south and north)."""


@dataclass(frozen=True)
class SceneObject:
    """An object at an integer cell of one room; ``facing`` is ``None`` for objects without a front."""

    name: str
    pos: Vec
    facing: Vec | None
    room: int
    label: str = ""

    @property
    def oriented(self) -> bool:
        """Whether the object has a meaningful facing."""
        return self.facing is not None


@dataclass(frozen=True)
class Door:
    """A door cell joining ``rooms[0]`` and ``rooms[1]``; ``normals[i]`` points into ``rooms[i]``."""

    name: str
    pos: Vec
    rooms: tuple[int, int]
    normals: tuple[Vec, Vec]
    vertical: bool

    @property
    def ori(self) -> Vec:
        """The reference's base orientation of a door (east for vertical doors, north for horizontal ones)."""
        return EAST if self.vertical else NORTH

    def normal_for(self, room: int) -> Vec:
        """The door's normal as seen from ``room`` (pointing into it)."""
        return next((n for r, n in zip(self.rooms, self.normals, strict=True) if r == room), self.ori)


Item = SceneObject | Door


@dataclass(frozen=True)
class Scene:
    """Rooms, objects and doors, plus the agent's start cell (the agent always starts facing north)."""

    name: str
    mask: tuple[tuple[int, ...], ...]
    objects: tuple[SceneObject, ...]
    doors: tuple[Door, ...]
    start: Vec
    _by_name: dict[str, Item] = field(init=False, repr=False, compare=False)
    _rooms_at: dict[Vec, frozenset[int]] = field(init=False, repr=False, compare=False)
    _items: tuple[Item, ...] = field(init=False, repr=False, compare=False)
    _placed: tuple[tuple[str, Vec, frozenset[int]], ...] = field(init=False, repr=False, compare=False)
    _at: dict[Vec, Item] = field(init=False, repr=False, compare=False)
    _room_ids: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_name: dict[str, Item] = {}
        at: dict[Vec, Item] = {}
        everything: tuple[Item, ...] = (*self.objects, *self.doors)
        for item in everything:  # one pass builds both indexes: by name (each used once) and by cell (first wins)
            if item.name in by_name:
                raise InvalidArgumentError(f"scene {self.name!r}: the name {item.name!r} is used twice")
            by_name[item.name] = item
            at.setdefault(item.pos, item)
        object.__setattr__(self, "_by_name", by_name)
        object.__setattr__(self, "_rooms_at", {})
        object.__setattr__(self, "_items", everything)
        object.__setattr__(self, "_placed", tuple((it.name, it.pos, self.item_rooms(it.name)) for it in everything))
        object.__setattr__(self, "_at", at)
        object.__setattr__(self, "_room_ids", tuple(sorted({v for row in self.mask for v in row if 1 <= v < 100})))

    # ---- structure -------------------------------------------------------------------------------------------
    @property
    def width(self) -> int:
        """Number of mask rows (the x extent)."""
        return len(self.mask)

    @property
    def height(self) -> int:
        """Number of mask columns (the y extent)."""
        return len(self.mask[0]) if self.mask else 0

    @property
    def grid_size(self) -> int:
        """The larger mask dimension: the reference's grid size for information gain."""
        return max(self.width, self.height)

    @property
    def room_ids(self) -> tuple[int, ...]:
        """Room ids present in the mask, ascending."""
        return self._room_ids

    @property
    def items(self) -> tuple[Item, ...]:
        """Objects then doors, the order observations list them in."""
        return self._items

    @property
    def placed(self) -> tuple[tuple[str, Vec, frozenset[int]], ...]:
        """``(name, cell, rooms)`` of every item, in :attr:`items` order (precomputed for visibility tests)."""
        return self._placed

    @property
    def start_room(self) -> int:
        """The room the agent starts in."""
        return self.mask[self.start[0]][self.start[1]]

    def cell(self, pos: Sequence[int]) -> int:
        """The mask value at ``pos`` (``-1`` outside the mask)."""
        return _at(self.mask, (int(pos[0]), int(pos[1])))

    def rooms_at(self, pos: Sequence[int]) -> frozenset[int]:
        """The rooms a cell belongs to: one for a room cell, two for a door, none for a wall."""
        key = (int(pos[0]), int(pos[1]))
        if key not in self._rooms_at:  # cached per cell, as the environment caches its views per pose
            v = self.cell(key)
            if 1 <= v < 100:
                self._rooms_at[key] = frozenset({v})
            else:
                door = next((d for d in self.doors if d.pos == key), None)
                self._rooms_at[key] = frozenset(door.rooms) if door is not None else frozenset()
        return self._rooms_at[key]

    def room_cells(self, room: int) -> list[Vec]:
        """All cells of ``room`` in row-major order."""
        return [(x, y) for x in range(self.width) for y in range(self.height) if self.mask[x][y] == room]

    def item(self, name: str) -> Item:
        """The object or door called ``name``."""
        try:
            return self._by_name[name]
        except KeyError:
            raise UnknownNameError(f"no object or door named {name!r} in scene {self.name!r}") from None

    def has_item(self, name: str) -> bool:
        """Whether an object or door is called ``name``."""
        return name in self._by_name

    def item_rooms(self, name: str) -> frozenset[int]:
        """The rooms an object (one) or door (two) belongs to."""
        it = self.item(name)
        return frozenset(it.rooms) if isinstance(it, Door) else frozenset({it.room})

    def objects_in(self, room: int) -> list[SceneObject]:
        """Objects of ``room`` in scene order."""
        return [o for o in self.objects if o.room == room]

    def doors_of(self, room: int) -> list[Door]:
        """Doors of ``room`` in scene order."""
        return [d for d in self.doors if room in d.rooms]

    def adjacent_rooms(self, room: int) -> list[int]:
        """Rooms sharing a door with ``room``, ascending."""
        return sorted({r for d in self.doors_of(room) for r in d.rooms if r != room})

    def door_between(self, a: int, b: int) -> Door:
        """The door joining rooms ``a`` and ``b``."""
        for d in self.doors:
            if set(d.rooms) == {a, b}:
                return d
        raise UnknownNameError(f"no door between rooms {a} and {b} in scene {self.name!r}")

    def item_at(self, pos: Sequence[int]) -> Item | None:
        """The object or door standing on ``pos``, if any."""
        return self._at.get((int(pos[0]), int(pos[1])))

    def relative(self, pos: Sequence[int]) -> Vec:
        """``pos`` relative to the start cell (the agent's frame of reference: start at (0, 0), north +y)."""
        return (int(pos[0]) - self.start[0], int(pos[1]) - self.start[1])

    def with_objects(self, objects: Iterable[SceneObject]) -> Scene:
        """A copy with new objects (rooms re-derived from the mask), e.g. after covert changes."""
        fixed = []
        for o in objects:
            room = self.cell(o.pos)
            if not 1 <= room < 100:
                raise InvalidArgumentError(f"object {o.name!r} at {o.pos} is not inside a room")
            fixed.append(replace(o, room=room))
        return Scene(self.name, self.mask, tuple(fixed), self.doors, self.start)


# ---- construction and validation -----------------------------------------------------------------------------
def _at(mask: Sequence[Sequence[int]], pos: Vec) -> int:
    """The value of ``mask`` at the cell ``pos``, ``-1`` outside it (the building's outside)."""
    return mask[pos[0]][pos[1]] if 0 <= pos[0] < len(mask) and 0 <= pos[1] < len(mask[0]) else -1


def sides(mask: Sequence[Sequence[int]], pos: Vec, vertical: bool) -> tuple[int, int]:
    """The mask values on either side of a door cell: west and east of a door in a north-south wall (``vertical``),
    else south and north (``-1`` outside the mask)."""
    x, y = pos
    a, b = ((x - 1, y), (x + 1, y)) if vertical else ((x, y - 1), (x, y + 1))
    return _at(mask, a), _at(mask, b)


def _joins(sides: tuple[int, int]) -> bool:
    """Whether a door with these sides joins two different rooms."""
    return 1 <= sides[0] < 100 and 1 <= sides[1] < 100 and sides[0] != sides[1]


def _door_from_mask(mask: Sequence[Sequence[int]], pos: Vec, name: str, source: str) -> Door:
    vertical = mask[pos[0]][pos[1]] == DOOR_VERTICAL
    rooms = sides(mask, pos, vertical)
    if not _joins(rooms):
        kind = "west and east" if vertical else "south and north"
        raise ParseError(f"door {name!r} at {pos} must have two different rooms to its {kind}", source=source)
    return Door(name, pos, rooms, (WEST, EAST) if vertical else (SOUTH, NORTH), vertical)


S = TypeVar("S", bound=Hashable)
A = TypeVar("A")


def breadth_first(start: S, moves: Callable[[S], Iterable[tuple[S, A]]]) -> Iterator[tuple[S, list[A]]]:
    """Every state reachable from ``start`` through ``moves`` (a state's ``(next state, action)`` pairs, in the
    order to try them), each with the first shortest list of actions found to reach it, in breadth-first order and
    as it is found: a caller looking for one state stops the search there."""
    paths: dict[S, list[A]] = {start: []}
    queue = deque([start])
    yield start, []
    while queue:
        state = queue.popleft()
        for nxt, act in moves(state):
            if nxt not in paths:
                paths[nxt] = [*paths[state], act]
                queue.append(nxt)
                yield nxt, paths[nxt]


def _check_reachable(scene: Scene, source: str) -> None:
    reached = {r for r, _ in breadth_first(scene.start_room, lambda r: [(n, n) for n in scene.adjacent_rooms(r)])}
    missing = sorted(set(scene.room_ids) - reached)
    if missing:
        raise ParseError(f"room(s) {missing} cannot be reached from the start room through doors", source=source)


def build_scene(
    name: str,
    mask: Sequence[Sequence[int]],
    objects: Sequence[tuple[str, Vec, Vec | None, str]],
    doors: Sequence[tuple[str, Vec]],
    start: Vec,
    *,
    source: str = "scene",
) -> Scene:
    """Validate and assemble a scene from a mask of integers (the readers of scene files check their cells),
    ``(name, pos, facing, label)`` objects and ``(name, pos)`` doors (the door cells must carry 100/101 in the
    mask). Errors are :class:`ParseError` naming ``source``."""
    grid = tuple(tuple(int(v) for v in row) for row in mask)
    if not grid or not grid[0] or any(len(row) != len(grid[0]) for row in grid):
        raise ParseError("the mask must be a non-empty rectangular list of lists", source=source)
    objs: list[SceneObject] = []
    for oname, pos, facing, label in objects:
        if not oname or not oname.strip():
            raise ParseError("an object has an empty name", source=source)
        if not 1 <= _at(grid, pos) < 100:
            raise ParseError(f"object {oname!r} at {pos} is not inside a room", source=source)
        objs.append(SceneObject(oname, pos, facing, grid[pos[0]][pos[1]], label))
    door_list = []
    for dname, pos in doors:
        if _at(grid, pos) not in (DOOR_VERTICAL, DOOR_HORIZONTAL):
            raise ParseError(f"door {dname!r} at {pos} is not on a door cell (mask value 100 or 101)", source=source)
        door_list.append(_door_from_mask(grid, pos, dname, source))
    if not 1 <= _at(grid, start) < 100:
        raise ParseError(f"the agent's start {start} is not inside a room", source=source)
    taken: dict[Vec, str] = {}
    placed: list[Item] = [*objs, *door_list]
    for item in placed:
        if item.pos in taken:
            raise ParseError(f"{item.name!r} and {taken[item.pos]!r} share the cell {item.pos}", source=source)
        taken[item.pos] = item.name
    if start in taken:
        raise ParseError(f"the agent's start {start} is occupied by {taken[start]!r}", source=source)
    try:
        scene = Scene(name, grid, tuple(objs), tuple(door_list), start)
    except InvalidArgumentError as exc:
        raise ParseError(str(exc), source=source) from None
    _check_reachable(scene, source)
    return scene


_Pair = tuple[WholeNumber, WholeNumber]
"""``[x, y]``: two integers (whole floats such as ``2.0`` read as integers)."""
_Facing = Annotated[Vec | None, BeforeValidator(lambda v: None if v is None else parse_direction(str(v)))]
"""``north``, ``east``, ``south``, ``west`` (or ``n``/``e``/``s``/``w``, any case), or null: no front."""


def _not_null(value: Any) -> Any:
    if value is None:
        raise ValueError("must not be null (leave the key out instead)")
    return value


_GIVEN = BeforeValidator(_not_null)
"""An optional key's value may be left out, not given as null (defaults are not validated, so this checks only a
given value)."""


class _Room(BaseModel):
    id: Annotated[int, Strict(), Field(ge=1, le=99)]
    x: _Pair
    y: _Pair


class _Door(BaseModel):
    name: str
    pos: _Pair
    rooms: Annotated[list[StrictInt] | None, _GIVEN] = None  # optional, checked against the mask


class _Object(BaseModel):
    name: str
    pos: _Pair
    facing: _Facing = None
    label: Any = None


class _Agent(BaseModel):
    pos: _Pair
    facing: _Facing = NORTH


class _SceneFile(BaseModel):
    """mindloop's scene format (docs/tos.md), in the order its parts are checked."""

    format: Literal["mindloop-spatial-scene"]
    version: Literal[1] = 1
    name: Any = "scene"
    doors: list[_Door] = []
    mask: Annotated[list[list[WholeNumber]] | None, _GIVEN] = None
    rooms: Annotated[list[_Room] | None, _GIVEN, Field(min_length=1)] = None
    objects: list[_Object] = Field(min_length=1)
    agent: _Agent

    @model_validator(mode="before")
    @classmethod
    def _mask_or_rooms(cls, data: Any) -> Any:
        """A scene gives a full mask or rooms as rectangles; with a mask, ``rooms`` is not read."""
        return {k: v for k, v in data.items() if k != "rooms"} if isinstance(data, Mapping) and "mask" in data else data


def _mask_from_rooms(rooms: list[_Room] | None, doors: list[tuple[str, Vec]], source: str) -> list[list[int]]:
    if rooms is None:
        raise ParseError("'rooms' must be a non-empty list of {id, x: [x0, x1], y: [y0, y1]}", source=source)
    rects = []
    for r in rooms:
        (x0, x1), (y0, y1) = r.x, r.y
        if x0 < 1 or y0 < 1 or x1 < x0 or y1 < y0:
            raise ParseError(
                f"room {r.id} must span x0<=x1, y0<=y1 with coordinates >= 1 (0 is the outer wall)", source=source
            )
        rects.append((r.id, x0, x1, y0, y1))
    if len({r[0] for r in rects}) != len(rects):
        raise ParseError("two rooms share an id", source=source)
    w = max(r[2] for r in rects) + 2
    h = max(r[4] for r in rects) + 2
    mask = [[0] * h for _ in range(w)]
    for rid, x0, x1, y0, y1 in rects:
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                if mask[x][y]:
                    raise ParseError(f"rooms {mask[x][y]} and {rid} overlap at ({x}, {y})", source=source)
                mask[x][y] = rid
    for dname, (x, y) in doors:
        if _at(mask, (x, y)) != 0:
            raise ParseError(f"door {dname!r} at ({x}, {y}) must be on a wall cell between two rooms", source=source)
        if _joins(sides(mask, (x, y), True)):
            mask[x][y] = DOOR_VERTICAL
        elif _joins(sides(mask, (x, y), False)):
            mask[x][y] = DOOR_HORIZONTAL
        else:
            raise ParseError(f"door {dname!r} at ({x}, {y}) must join two rooms across a wall", source=source)
    return mask


def scene_from_dict(data: Mapping[str, Any], *, source: str = "scene") -> Scene:
    """Read mindloop's own scene format (``{"format": "mindloop-spatial-scene", ...}``, see docs/tos.md)."""
    spec = validate_data(_SceneFile, data, source=source, error=ParseError)
    doors = [(d.name, d.pos) for d in spec.doors]
    mask = spec.mask if spec.mask is not None else _mask_from_rooms(spec.rooms, doors, source)
    objects = [
        (o.name, o.pos, o.facing, str(o.label) if "label" in o.model_fields_set else str(i))
        for i, o in enumerate(spec.objects, 1)
    ]
    facing = spec.agent.facing
    if facing != NORTH:
        text = direction_name(facing) if facing else "null"
        raise ParseError("the agent must start facing north (the frame of every answer)", source=source, text=text)
    scene = build_scene(str(spec.name), mask, objects, doors, spec.agent.pos, source=source)
    declared = {d.name: sorted(d.rooms) for d in spec.doors if d.rooms is not None}
    for d in scene.doors:
        if d.name in declared and declared[d.name] != sorted(d.rooms):
            raise ParseError(f"door {d.name!r} joins rooms {sorted(d.rooms)}, not {declared[d.name]}", source=source)
    return scene


def _rectangles(scene: Scene) -> list[dict[str, Any]] | None:
    out = []
    for rid in scene.room_ids:
        cells = scene.room_cells(rid)
        xs, ys = [c[0] for c in cells], [c[1] for c in cells]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        if len(cells) != (x1 - x0 + 1) * (y1 - y0 + 1):
            return None
        out.append({"id": rid, "x": [x0, x1], "y": [y0, y1]})
    return out


def _plain(scene: Scene, rects: list[dict[str, Any]]) -> bool:
    """Whether the mask is exactly the rooms ``rects`` inside one outer wall, with walls and doors between them."""
    w = max(r["x"][1] for r in rects) + 2
    h = max(r["y"][1] for r in rects) + 2
    return (w, h) == (scene.width, scene.height) and all(
        scene.cell((x, y)) in (0, DOOR_VERTICAL, DOOR_HORIZONTAL) or 1 <= scene.cell((x, y)) < 100
        for x in range(scene.width)
        for y in range(scene.height)
    )


def scene_to_dict(scene: Scene) -> dict[str, Any]:
    """The scene in mindloop's own format (rooms as rectangles when they are, else the full mask)."""
    out: dict[str, Any] = {"format": SCENE_FORMAT, "version": 1, "name": scene.name}
    rects = _rectangles(scene)
    # A mask padded beyond rectangles + outer wall (e.g. from meta_data.json) is kept verbatim.
    if rects is not None and _plain(scene, rects):
        out["rooms"] = rects
    else:
        out["mask"] = [list(row) for row in scene.mask]
    out["doors"] = [{"name": d.name, "pos": list(d.pos), "rooms": sorted(d.rooms)} for d in scene.doors]
    out["objects"] = [
        {"name": o.name, "pos": list(o.pos), "facing": direction_name(o.facing) if o.facing else None, "label": o.label}
        for o in scene.objects
    ]
    out["agent"] = {"pos": list(scene.start), "facing": "north"}
    return out

"""A scene as a mind may hold it: items at cells relative to the start, facings, and which rooms they are in.

:class:`SpatialWorld` is what the downstream tasks are asked about. The gold world comes from a :class:`Scene`
(:func:`world_from_scene`); a believed world comes from an agent's cognitive map. Both answer the same
questions through the same functions (visibility, egocentric relations, observations), so a symbolic agent
with a correct map answers every question correctly and one with a wrong map answers as its map implies.
Rooms are labels (strings): the agent names rooms as it finds them, the gold world uses the scene's ids.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from mindloop.systems.tos.world.geometry import (
    Vec,
    bearing,
    cardinal_bin,
    distance_bin,
    ego_bin,
    ego_labels,
    in_fov,
)
from mindloop.systems.tos.world.observe import Observation, SeenItem, proximity_pairs, seen_item
from mindloop.systems.tos.world.scene import Door, Scene


@dataclass(frozen=True)
class WorldItem:
    """An object or door: cell relative to the start, facing (``None`` if it has no front), rooms, and for a
    door its normal per room (pointing into that room)."""

    name: str
    pos: Vec
    facing: Vec | None
    rooms: frozenset[str]
    door: bool = False
    normals: tuple[tuple[str, Vec], ...] = ()

    def normal_for(self, room: str) -> Vec | None:
        """The door's normal as seen from ``room``."""
        return dict(self.normals).get(room)


@dataclass(frozen=True)
class SpatialWorld:
    """Items by name, the start's room, and (when known) the free cells of each room."""

    items: tuple[WorldItem, ...]
    start_rooms: frozenset[str]
    room_cells: Mapping[str, tuple[Vec, ...]] = field(default_factory=dict)
    _by_name: dict[str, WorldItem] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {it.name: it for it in self.items})

    def get(self, name: str) -> WorldItem | None:
        """The item called ``name`` (case-sensitive), if the world has it."""
        return self._by_name.get(name)

    def find(self, name: str) -> WorldItem | None:
        """The item called ``name``, ignoring case, spaces vs underscores and surrounding punctuation."""
        key = _norm(name)
        return next((it for it in self.items if _norm(it.name) == key), None)

    def get_at(self, x: int, y: int) -> WorldItem | None:
        """The item standing on cell ``(x, y)``, if any."""
        return next((it for it in self.items if it.pos == (x, y)), None)

    @property
    def objects(self) -> tuple[WorldItem, ...]:
        """Items that are not doors."""
        return tuple(it for it in self.items if not it.door)

    @property
    def doors(self) -> tuple[WorldItem, ...]:
        """The doors."""
        return tuple(it for it in self.items if it.door)

    def rooms_at(self, pos: Vec) -> frozenset[str]:
        """Rooms of the item on ``pos``, or of the room whose free cells contain it, or the start's rooms."""
        it = self.get_at(*pos)
        if it is not None:
            return it.rooms
        for room, cells in self.room_cells.items():
            if pos in cells:
                return frozenset({room})
        return self.start_rooms if pos == (0, 0) else frozenset()

    def visible(self, pos: Vec, ori: Vec, rooms: frozenset[str] | None = None) -> list[WorldItem]:
        """Items visible from a pose, in world order (same rules as the environment)."""
        rooms = self.rooms_at(pos) if rooms is None else rooms
        return [it for it in self.items if it.pos != pos and (rooms & it.rooms) and in_fov(pos, ori, it.pos)]

    def seen_item(self, it: WorldItem, pos: Vec, ori: Vec, rooms: frozenset[str]) -> SeenItem:
        """How ``it`` appears from a pose (bins, facing or wall)."""
        shared = sorted(rooms & it.rooms)
        normal = it.normal_for(shared[0]) if it.door and len(shared) == 1 else None
        return seen_item(it.name, it.pos, pos, ori, facing=it.facing, door=it.door, normal=normal)

    def observe(self, pos: Vec, ori: Vec, rooms: frozenset[str] | None = None) -> Observation:
        """The observation from a pose, exactly as the environment would report it."""
        rooms = self.rooms_at(pos) if rooms is None else rooms
        vis = self.visible(pos, ori, rooms)
        seen = [self.seen_item(it, pos, ori, rooms) for it in vis]
        return Observation(tuple(seen), proximity_pairs([(it.pos, it.name) for it in vis], ori))

    def ego_relation(self, target: str, pos: Vec, ori: Vec) -> tuple[str, str] | None:
        """``(ego direction, distance)`` labels of ``target`` from a pose (``None`` if unknown)."""
        it = self.get(target)
        if it is None:
            return None
        return ego_labels(it.pos, pos, ori)

    def same_bin(
        self, pos: Vec, ori: Vec, rooms: frozenset[str], direction: str, distance: str
    ) -> list[tuple[WorldItem, float, float]]:
        """The items in view from a pose in the ego ``direction`` and ``distance`` bin, in world order, each with its
        bearing and distance (what a jump described by its bin picks from)."""
        group = []
        for it in self.visible(pos, ori, rooms):
            b, d = bearing(it.pos, pos, ori), math.dist(it.pos, pos)
            if ego_bin(b)[1] == direction and distance_bin(d)[1] == distance:
                group.append((it, b, d))
        return group

    def allo_relation(self, target: str, anchor: str, north: Vec = (0, 1)) -> tuple[str, str] | None:
        """``(cardinal direction, distance)`` of ``target`` relative to ``anchor`` (``north`` names the heading
        called north)."""
        a, b = self.get(target), self.get(anchor)
        if a is None or b is None:
            return None
        return cardinal_bin(bearing(a.pos, b.pos, north))[1], distance_bin(math.dist(a.pos, b.pos))[1]


def _norm(name: str) -> str:
    return " ".join(str(name).strip().strip("\"'.,;:()[]").replace("_", " ").lower().split())


def grown_box(points: Sequence[Vec]) -> list[Vec]:
    """The cells of the box around ``points`` grown by one cell on every side, ``x`` first (where a room or a
    pose may lie when only the items seen around it are known)."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return [(x, y) for x in range(min(xs) - 1, max(xs) + 2) for y in range(min(ys) - 1, max(ys) + 2)]


def world_from_scene(scene: Scene, *, names: Iterable[str] | None = None) -> SpatialWorld:
    """The gold world of a scene (positions relative to the start; rooms labelled by their ids)."""
    keep = None if names is None else set(names)
    items = []
    for it in scene.items:
        if keep is not None and it.name not in keep:
            continue
        pos = scene.relative(it.pos)
        if isinstance(it, Door):
            normals = tuple((str(r), n) for r, n in zip(it.rooms, it.normals, strict=True))
            items.append(WorldItem(it.name, pos, it.ori, frozenset(str(r) for r in it.rooms), True, normals))
        else:
            items.append(WorldItem(it.name, pos, it.facing, frozenset({str(it.room)})))
    occupied = {it.pos for it in scene.items}
    cells = {str(r): tuple(scene.relative(c) for c in scene.room_cells(r) if c not in occupied) for r in scene.room_ids}
    return SpatialWorld(tuple(items), frozenset({str(scene.start_room)}), cells)

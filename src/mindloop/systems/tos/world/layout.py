"""Seeded procedural scenes: rooms of a fixed size on a grid, joined as a tree by doors, objects in each room.

The paper's setting is three 6×6 rooms with four objects each. Rooms are placed on a lattice of room slots by
growing a random tree (each new room attaches to a random free side of an existing one), so the door graph is
a tree; each tree edge gets one door at a random cell of the shared wall. Objects come from a fixed catalogue
(some have a front, some not), get random facings, and keep at least ``min_distance`` apart (1.42 as in the
reference's scenes: no two objects on neighbouring cells). The agent starts at a free cell of room 1 facing
north. Same arguments, same scene.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import InvalidArgumentError
from mindloop.systems.tos.world.geometry import CARDINALS, Vec
from mindloop.systems.tos.world.metadata import DEFAULT_DOOR_NAMES
from mindloop.systems.tos.world.scene import DOOR_HORIZONTAL, DOOR_VERTICAL, Scene, build_scene


class _Catalogue(DataModel):
    """``data/objects.yaml``."""

    oriented: tuple[str, ...]
    unoriented: tuple[str, ...]


_OBJECTS = load_package_data(_Catalogue, __package__ or "", "objects.yaml")
OBJECT_CATALOGUE: tuple[tuple[str, bool], ...] = (
    *((name, True) for name in _OBJECTS.oriented),
    *((name, False) for name in _OBJECTS.unoriented),
)
"""Object names and whether each has a front (a facing)."""


@dataclass(frozen=True)
class LayoutConfig:
    """Size of a procedural scene: room count, room width/height in cells, objects per room, spacing."""

    rooms: int = 3
    room_size: tuple[int, int] = (6, 6)
    objects_per_room: int = 4
    min_distance: float = 1.42

    def __post_init__(self) -> None:
        if not 1 <= self.rooms <= len(DEFAULT_DOOR_NAMES) + 1:
            raise InvalidArgumentError(f"rooms must be between 1 and {len(DEFAULT_DOOR_NAMES) + 1}, got {self.rooms}")
        if min(self.room_size) < 3:
            raise InvalidArgumentError(f"rooms must be at least 3×3 cells, got {self.room_size}")
        if self.objects_per_room < 1:
            raise InvalidArgumentError("each room needs at least one object")
        if self.rooms * self.objects_per_room > len(OBJECT_CATALOGUE):
            raise InvalidArgumentError(
                f"{self.rooms} rooms × {self.objects_per_room} objects exceeds the {len(OBJECT_CATALOGUE)} "
                "catalogue objects"
            )


def _grow_tree(n: int, rng: random.Random) -> tuple[list[Vec], list[tuple[int, int]]]:
    slots: list[Vec] = [(0, 0)]
    edges: list[tuple[int, int]] = []
    while len(slots) < n:
        parent = rng.randrange(len(slots))
        px, py = slots[parent]
        free = [(px + dx, py + dy) for dx, dy in CARDINALS if (px + dx, py + dy) not in slots]
        if not free:
            continue
        slots.append(rng.choice(free))
        edges.append((parent, len(slots) - 1))
    return slots, edges


def generate_scene(seed: int, config: LayoutConfig | None = None, *, name: str | None = None) -> Scene:
    """A procedural scene; the same ``seed`` and ``config`` always give the same scene.

    >>> s = generate_scene(0)
    >>> len(s.room_ids), len(s.objects), len(s.doors), s.start_room
    (3, 12, 2, 1)
    """
    cfg = config or LayoutConfig()
    w, h = cfg.room_size
    for attempt in range(100):
        rng = random.Random(f"tos-scene:{seed}:{attempt}")
        scene = _try_generate(rng, cfg, w, h, name or f"tos-{cfg.rooms}room-seed{seed}")
        if scene is not None:
            return scene
    raise InvalidArgumentError(
        f"could not place {cfg.objects_per_room} objects per {w}×{h} room with spacing {cfg.min_distance}"
    )


def _try_generate(rng: random.Random, cfg: LayoutConfig, w: int, h: int, name: str) -> Scene | None:
    slots, edges = _grow_tree(cfg.rooms, rng)
    mx, my = min(s[0] for s in slots), min(s[1] for s in slots)
    slots = [(sx - mx, sy - my) for sx, sy in slots]
    nx, ny = max(s[0] for s in slots) + 1, max(s[1] for s in slots) + 1
    width, height = nx * (w + 1) + 1, ny * (h + 1) + 1
    mask = [[-1] * height for _ in range(width)]
    for i, (sx, sy) in enumerate(slots, 1):
        x0, y0 = sx * (w + 1), sy * (h + 1)
        for x in range(x0, x0 + w + 2):
            for y in range(y0, y0 + h + 2):
                if mask[x][y] == -1:
                    mask[x][y] = 0
        for x in range(x0 + 1, x0 + w + 1):
            for y in range(y0 + 1, y0 + h + 1):
                mask[x][y] = i
    door_names = rng.sample(DEFAULT_DOOR_NAMES, len(edges))
    doors: list[tuple[str, Vec]] = []
    for (a, b), dname in zip(edges, door_names, strict=True):
        (ax, ay), (bx, by) = slots[a], slots[b]
        if ay == by:  # side by side along x: a door in a north-south wall
            wx = max(ax, bx) * (w + 1)
            pos = (wx, ay * (h + 1) + 1 + rng.randrange(h))
            mask[pos[0]][pos[1]] = DOOR_VERTICAL
        else:
            wy = max(ay, by) * (h + 1)
            pos = (ax * (w + 1) + 1 + rng.randrange(w), wy)
            mask[pos[0]][pos[1]] = DOOR_HORIZONTAL
        doors.append((dname, pos))
    start_cells = [(x, y) for x in range(width) for y in range(height) if mask[x][y] == 1]
    start = rng.choice(start_cells)
    catalogue = rng.sample(OBJECT_CATALOGUE, cfg.rooms * cfg.objects_per_room)
    placed: list[tuple[str, Vec, Vec | None]] = []
    for rid in range(1, cfg.rooms + 1):
        cells = [(x, y) for x in range(width) for y in range(height) if mask[x][y] == rid and (x, y) != start]
        rng.shuffle(cells)
        chosen: list[Vec] = []
        for c in cells:
            if all(math.dist(c, p) >= cfg.min_distance for p in chosen):
                chosen.append(c)
            if len(chosen) == cfg.objects_per_room:
                break
        if len(chosen) < cfg.objects_per_room:
            return None
        for c in chosen:
            oname, oriented = catalogue[len(placed)]
            placed.append((oname, c, rng.choice(CARDINALS) if oriented else None))
    rng.shuffle(placed)
    objects = [(oname, pos, facing, str(i)) for i, (oname, pos, facing) in enumerate(placed, 1)]
    return build_scene(name, mask, objects, doors, start, source=name)

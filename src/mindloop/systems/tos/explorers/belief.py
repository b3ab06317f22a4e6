"""A symbolic agent's spatial belief, built only from its own actions and what they reported.

The belief follows the agent's pose as the agent knows it (its heading from its rotations, where it stands from
its jumps), turns every observation into relation triples for the constraint solver, records facings (an
egocentric facing plus the known heading gives the absolute one) and door walls, and works out which objects
share a room (an item seen from inside a room is in it; from a doorway, the side of the door it appears on says
which of the two rooms). From this it writes a cognitive map in the paper's JSON format and a believed
:class:`~mindloop.systems.tos.world.world.SpatialWorld` that answers the downstream questions. When a domain has several
cells the map uses the cell nearest its centre (a best guess, marked in :meth:`SpatialBelief.uncertain`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from mindloop.systems.tos.world.env import ActionResult
from mindloop.systems.tos.world.geometry import (
    EAST,
    NORTH,
    WEST,
    Vec,
    direction_name,
    parse_direction,
    rotate,
)
from mindloop.systems.tos.world.observe import Observation
from mindloop.systems.tos.world.relations import INITIAL, RelationTriple, observation_triples, query_triple
from mindloop.systems.tos.world.solver import SpatialSolver
from mindloop.systems.tos.world.world import SpatialWorld, WorldItem, grown_box

__all__ = ["SpatialBelief"]

FACING_TURN = {"forward": 0, "right": 90, "backward": 180, "left": -90}
_WALL_TURN = {"on back wall": 0, "on left wall": 90, "on front wall": 180, "on right wall": -90}
_LEFT = {"front-left", "front-slight-left"}
_RIGHT = {"front-right", "front-slight-right"}


class SpatialBelief:
    """Pose, solver, facings and room grouping of one agent (see the module docstring)."""

    def __init__(self, objects: Sequence[str], doors: Sequence[str], grid_size: int) -> None:
        self.objects = list(objects)
        self.doors = list(doors)
        self.solver = SpatialSolver([*self.objects, *self.doors, INITIAL], grid_size, origin=INITIAL)
        self.heading: Vec = NORTH
        self.anchor = INITIAL
        self.rooms: frozenset[str] = frozenset({"1"})
        self.facing: dict[str, Vec] = {}
        self.door_normals: dict[str, dict[str, Vec]] = {}
        self.room_of: dict[str, frozenset[str]] = {INITIAL: frozenset({"1"})}
        self.seen: set[str] = set()
        self.triples: list[RelationTriple] = []
        self._rooms_made = 1

    # ---- following the agent ---------------------------------------------------------------------------------
    def update(self, results: Iterable[ActionResult]) -> None:
        """Follow the results of one step's actions (failed ones change nothing)."""
        for r in results:
            if not r.success:
                continue
            if r.kind == "rotate":
                deg = int(r.action[len("Rotate(") : -1])
                self.heading = rotate(self.heading, deg)
            elif r.kind == "move":
                target = r.action[len("JumpTo(") : -1]
                self.anchor = target
                self.rooms = self.room_of.get(target, self.rooms)
            elif r.kind == "observe" and r.observation is not None:
                self.observe(r.observation)
            elif r.kind == "query" and r.query is not None:
                name = r.action[len("Query(") : -1]
                offset, facing = r.query
                self.add([query_triple(name, offset)])
                if facing:
                    self.facing[name] = parse_direction(facing)

    def add(self, triples: Sequence[RelationTriple]) -> bool:
        """Add evidence to the solver; ``False`` when it contradicts what was known (the domains are kept)."""
        self.triples.extend(triples)
        return self.solver.add(triples)

    def observe(self, obs: Observation) -> None:
        """Take in one observation made at the current pose."""
        self.add(observation_triples(obs, self.anchor, self.heading))
        for it in obs.items:
            self.seen.add(it.name)
            if it.facing:
                self.facing[it.name] = rotate(self.heading, FACING_TURN[it.facing])
            side = self._side(it.direction)
            if it.wall:
                normal = rotate(self.heading, _WALL_TURN[it.wall])
                known = self.door_normals.setdefault(it.name, {})
                room = side or next(iter(sorted(self.rooms)))
                if not known:
                    self._rooms_made += 1
                    other = f"room{self._rooms_made}"
                    known[room] = normal
                    known[other] = (-normal[0], -normal[1])
                    self.room_of[it.name] = frozenset({room, other})
            elif side is not None:
                self.room_of[it.name] = frozenset({side})

    def _side(self, direction: str) -> str | None:
        """Which of the agent's rooms an item seen in ``direction`` is in (``None`` if it cannot tell)."""
        if len(self.rooms) == 1:
            return next(iter(self.rooms))
        normals = self.door_normals.get(self.anchor, {})
        known = [r for r in sorted(self.rooms) if r in normals]
        if len(self.rooms) != 2 or not known:
            return None
        a = known[0]
        b = next(r for r in self.rooms if r != a)
        n = normals[a]
        right = rotate(self.heading, 90)
        if n == self.heading:
            return a
        if n == (-self.heading[0], -self.heading[1]):
            return b
        if direction in _RIGHT:
            return a if n == right else b
        if direction in _LEFT:
            return b if n == right else a
        return None

    # ---- reading the belief ---------------------------------------------------------------------------------
    def estimate(self, name: str) -> Vec | None:
        """The believed cell of ``name``: its only possible cell, or the possible cell nearest the domain's centre;
        ``None`` when nothing constrains it."""
        dom = self.solver.domains.get(name)
        if dom is None:
            return None
        cells = np.argwhere(dom)
        if len(cells) == 0:
            return None
        centre = cells.mean(axis=0)
        best = min(range(len(cells)), key=lambda i: (float(((cells[i] - centre) ** 2).sum()), tuple(cells[i])))
        g = self.solver.grid_size
        return (int(cells[best][0]) - g, int(cells[best][1]) - g)

    def uncertain(self) -> list[str]:
        """Seen items whose position is not pinned to one cell."""
        return [n for n in sorted(self.seen) if self.solver.resolved(n) is None]

    def agent_position(self) -> Vec | None:
        """Where the agent believes it stands."""
        return (0, 0) if self.anchor == INITIAL else self.estimate(self.anchor)

    def world(self) -> SpatialWorld:
        """The believed world: every seen item at its believed cell."""
        items = []
        order = self.objects + self.doors
        for name in sorted(self.seen, key=lambda n: (order.index(n) if n in order else len(order), n)):
            pos = self.estimate(name)
            if pos is None:
                continue
            rooms = self.room_of.get(name, frozenset())
            if name in self.door_normals:
                normals = tuple(sorted(self.door_normals[name].items()))
                base = EAST if normals and normals[0][1] in (EAST, WEST) else NORTH
                items.append(WorldItem(name, pos, base, rooms, True, normals))
            else:
                items.append(WorldItem(name, pos, self.facing.get(name), rooms))
        return SpatialWorld(tuple(items), self.room_of[INITIAL], self._room_extents(items))

    @staticmethod
    def _room_extents(items: Sequence[WorldItem]) -> dict[str, tuple[Vec, ...]]:
        """Believed free cells of each room: the box around its items grown by one cell, cut by its doors'
        walls (a room lies on the side its door normals point to)."""
        occupied = {it.pos for it in items}
        out: dict[str, tuple[Vec, ...]] = {}
        for label in sorted({r for it in items for r in it.rooms}):
            members = [it for it in items if label in it.rooms]
            walls = [(it.pos, it.normal_for(label)) for it in members if it.door]
            box = [c for c in grown_box([it.pos for it in members]) if c not in occupied]
            out[label] = tuple(
                (x, y) for x, y in box if all(n is None or (x - p[0]) * n[0] + (y - p[1]) * n[1] >= 1 for p, n in walls)
            )
        return out

    def cognitive_map(self) -> dict[str, Any]:
        """The global cognitive map in the paper's JSON: ``{"agent": {...}, "chair": {"position": [x, y],
        "facing": "north"}, ...}`` with the start at ``[0, 0]`` and north ``+y``."""
        out: dict[str, Any] = {}
        pos = self.agent_position()
        if pos is not None:
            out["agent"] = {"position": list(pos), "facing": direction_name(self.heading)}
        for it in self.world().items:
            entry: dict[str, Any] = {"position": list(it.pos)}
            if it.facing is not None:
                entry["facing"] = direction_name(it.facing)
            out[it.name] = entry
        return out

    def information_gain(self) -> float:
        """The reference's information gain of this belief's domains."""
        from mindloop.systems.tos.world.solver import information_gain

        return information_gain(self.solver.counts(), self.solver.grid_size)

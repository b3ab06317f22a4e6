"""Answering a downstream-task question's ``spec`` from a world, gold or believed (:func:`answer_spec`): the
reference's answer formats, with the shortest move sequence for ``view2act`` (:func:`shortest_plan`).

A symbolic agent answers from the world its map describes; the gold answer is the same function on the true world.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from mindloop.errors import InvalidArgumentError
from mindloop.systems.tos.world.geometry import (
    CARDINALS,
    NORTH,
    Vec,
    bearing,
    parse_direction,
    rotate,
)
from mindloop.systems.tos.world.scene import breadth_first
from mindloop.systems.tos.world.world import SpatialWorld, WorldItem, grown_box

__all__ = ["answer_spec", "shortest_plan"]


def _rel_label(pair: tuple[str, str] | None) -> str:
    if pair is None:
        return "unknown"
    return f"{pair[0]}, {pair[1]}"


_NavState = tuple[Vec, Vec, frozenset[str]]


def shortest_plan(world: SpatialWorld, goal_pos: Vec, goal_ori: Vec) -> list[tuple[str, Any]] | None:
    """A shortest sequence of ``Rotate``/``JumpTo`` moves from the start pose to a pose (breadth-first)."""

    def moves(state: _NavState) -> list[tuple[_NavState, tuple[str, Any]]]:
        pos, ori, rooms = state
        turns: list[tuple[_NavState, tuple[str, Any]]] = [
            ((pos, rotate(ori, d), rooms), ("rotate", d)) for d in (90, -90, 180)
        ]
        return turns + [((it.pos, ori, it.rooms), ("jumpto", it.name)) for it in world.visible(pos, ori, rooms)]

    paths = breadth_first(((0, 0), NORTH, world.start_rooms), moves)
    return next((plan for (pos, ori, _), plan in paths if pos == goal_pos and ori == goal_ori), None)


def _resolve_jump(
    world: SpatialWorld, pos: Vec, ori: Vec, rooms: frozenset[str], desc: dict[str, Any]
) -> WorldItem | None:
    group = world.same_bin(pos, ori, rooms, desc["direction"], desc["distance"])
    if not group:
        return None
    if desc["group"] > 1 and len(group) > 1:
        by_left = [g[0] for g in sorted(group, key=lambda g: g[1])]
        idx = min(int(desc["from_left"]), len(by_left)) - 1
        return by_left[idx]
    return group[0][0]


def turn_order(pos: Vec, turn: str) -> tuple[float, float]:
    """Where ``pos`` comes in a full ``turn`` (``clockwise`` or ``counterclockwise``) at the start from north: the
    angle turned before facing it, then its distance (the order ``ment.rot`` asks for)."""
    b = bearing(pos, (0, 0), NORTH)
    return (b % 360.0 if turn == "clockwise" else (-b) % 360.0), math.dist(pos, (0, 0))


def _origin(world: SpatialWorld, spec: dict[str, Any]) -> Vec | None:
    """Where a question's ``origin`` stands: the start, or the named door (``None`` when the world lacks it)."""
    if spec["origin"] == "your starting position":
        return (0, 0)
    door = world.get(spec["origin"].removeprefix("the "))
    return None if door is None else door.pos


def answer_spec(task: str, spec: dict[str, Any], world: SpatialWorld) -> Any:
    """The answer a world implies for a question spec (gold when ``world`` is the true one).

    Returns the reference's answer format: ``"dir, dist"`` strings for relation tasks, a list of names for
    ``ment.rot``, a list of ``[x, y]`` for ``alloc.map``, an object name for ``perc.dec``, an action string for
    ``view2act`` and ``[x, y]`` for ``view2loc``. Objects the world does not know give ``"unknown"``.
    """
    if task == "direction":
        return _rel_label(world.allo_relation(spec["target"], spec["anchor"]))
    if task == "persp.take":
        anchor = world.get(spec["anchor"])
        if anchor is None or anchor.facing is None:
            return "unknown"
        return _rel_label(world.ego_relation(spec["target"], anchor.pos, anchor.facing))
    if task == "alloc.map":  # an object the world lacks at the origin
        found = [world.get(name) for name in spec["objects"]]
        return [list(it.pos) if it is not None else [0, 0] for it in found]
    if task == "ment.rot":  # the objects the world has, by when a full turn faces them
        named = [(world.get(name), name) for name in spec["objects"]]
        keyed = sorted((*turn_order(it.pos, spec["turn"]), name) for it, name in named if it is not None)
        return [k[2] for k in keyed]
    if task == "loc2view":
        origin = _origin(world, spec)
        if origin is None:
            return "unknown"
        pos = (origin[0] + spec["loc"][0], origin[1] + spec["loc"][1])
        return _rel_label(world.ego_relation(spec["target"], pos, parse_direction(spec["facing"])))
    if task == "act2view":
        pos, ori, rooms = (0, 0), NORTH, world.start_rooms
        for kind, value in spec["steps"]:
            if kind == "rotate":
                ori = rotate(ori, int(value))
            else:
                it = _resolve_jump(world, pos, ori, rooms, value)
                if it is None:
                    return "unknown"
                pos, rooms = it.pos, it.rooms
        return _rel_label(world.ego_relation(spec["target"], pos, ori))
    if task == "perc.dec":
        return _answer_perc_dec(world, spec)
    if task == "view2act":
        return _answer_view2act(world, spec)
    if task == "view2loc":
        return _answer_view2loc(world, spec)
    raise InvalidArgumentError(f"unknown task {task!r}")


def _matches(world: SpatialWorld, pos: Vec, ori: Vec, rooms: frozenset[str], seen: Sequence[dict[str, str]]) -> bool:
    visible = {it.name.lower(): it for it in world.visible(pos, ori, rooms)}
    for s in seen:
        it = visible.get(s["name"].lower())
        if it is None:
            return False
        got = world.seen_item(it, pos, ori, rooms)
        if got.direction != s["direction"] or got.distance != s["distance"]:
            return False
        want, have = s.get("orientation"), got.orientation
        if want and have and want != have:
            return False
    return True


def _answer_perc_dec(world: SpatialWorld, spec: dict[str, Any]) -> str:
    for it in world.objects:
        if it.facing is not None and _matches(world, it.pos, it.facing, it.rooms, spec["observation"]):
            return it.name
    return "unknown"


def _answer_view2act(world: SpatialWorld, spec: dict[str, Any]) -> str:
    for it in world.items:
        for ori in CARDINALS:
            if _matches(world, it.pos, ori, it.rooms, spec["observation"]):
                plan = shortest_plan(world, it.pos, ori)
                if plan:
                    return ", ".join(f"Rotate({v})" if k == "rotate" else f"JumpTo({v})" for k, v in plan)
    return "unknown"


def _answer_view2loc(world: SpatialWorld, spec: dict[str, Any]) -> list[int] | str:
    ori = parse_direction(spec["facing"])
    origin = _origin(world, spec)
    if origin is None:
        return "unknown"
    names = {s["name"].lower() for s in spec["observation"]}
    cands: list[tuple[Vec, frozenset[str]]] = [
        (c, frozenset({r})) for r, cells in world.room_cells.items() for c in cells
    ]
    if not cands:  # a believed world without room extents: search the bounding box of the rooms seen
        seen_rooms = frozenset(
            r for s in spec["observation"] if (it := world.find(s["name"])) is not None for r in it.rooms
        )
        if not world.items:
            return "unknown"
        cands = [(c, seen_rooms) for c in grown_box([it.pos for it in world.items]) if world.get_at(*c) is None]
    found = []
    for pos, rooms in cands:
        vis = {it.name.lower() for it in world.visible(pos, ori, rooms)}
        if vis == names and _matches(world, pos, ori, rooms, spec["observation"]):
            found.append(pos)
    if not found:
        return "unknown"
    centre = (sum(p[0] for p in found) / len(found), sum(p[1] for p in found) / len(found))
    best = min(found, key=lambda p: math.dist(p, centre))
    return [best[0] - origin[0], best[1] - origin[1]]

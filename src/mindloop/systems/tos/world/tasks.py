"""The nine downstream tasks of the paper, with gold answers in the reference's formats.

=============  ===========  ===========================================================================
short name     reference    question
=============  ===========  ===========================================================================
direction      dir          where is A relative to B on a top-down map (cardinal direction, distance)
persp.take     pov          standing on an object, facing its front: where is B (ego direction, distance)
perc.dec       bwd_pov      from a described view, which object are you standing on
act2view       fwd_fov      after a described action sequence, where is B (ego direction, distance)
view2act       bwd_nav      which move sequence leads to a described view
alloc.map      e2a          coordinates of some objects (start = origin, north = +y)
ment.rot       rot          order in which objects pass straight ahead during a full turn at the start
loc2view       fwd_loc      at a given pose, where is B (ego direction, distance)
view2loc       bwd_loc      from a described view at a given facing, your coordinates
=============  ===========  ===========================================================================

Route tasks are the first five, survey tasks the last four (the paper's Table 1). Every question carries its
text (the reference's templates), its gold ``answer`` (JSON, the reference's format) and a ``spec``: the same
question as structured data, so a symbolic agent can answer it from its own map (:func:`answer_spec`, in
:mod:`~mindloop.systems.tos.world.answers`, re-exported here). Scoring lives in :mod:`mindloop.systems.tos.metrics`.
Questions are generated from a seed; the same seed gives the same questions.

The question texts are package data, ``data/task_templates.yaml`` beside this module, read and checked once on
import (:func:`load_templates`): every task has one template using exactly the placeholders its generator fills
(:data:`TEMPLATE_FIELDS`); a malformed file raises :class:`~mindloop.datafiles.DataFileError` naming the file and
the task.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from pydantic import field_validator

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import InvalidArgumentError
from mindloop.records_codec import Record
from mindloop.systems.tos.world.answers import answer_spec, shortest_plan, turn_order
from mindloop.systems.tos.world.geometry import (
    CARDINALS,
    NORTH,
    Vec,
    closest_heading,
    direction_name,
    in_fov,
    rotate,
    rotation_between,
)
from mindloop.systems.tos.world.observe import SeenItem, observation_text
from mindloop.systems.tos.world.world import SpatialWorld, WorldItem

__all__ = [
    "REFERENCE_TASKS",
    "ROUTE_TASKS",
    "SURVEY_TASKS",
    "TASKS",
    "TEMPLATES",
    "TEMPLATE_FIELDS",
    "TaskQuestion",
    "answer_spec",
    "describe_view",
    "generate_tasks",
    "load_templates",
    "shortest_plan",
]

ROUTE_TASKS = ("direction", "persp.take", "perc.dec", "act2view", "view2act")
SURVEY_TASKS = ("alloc.map", "ment.rot", "loc2view", "view2loc")
TASKS = ROUTE_TASKS + SURVEY_TASKS
"""The paper's short task names, in its Table 1 order."""


@dataclass(frozen=True)
class TaskQuestion(Record):
    """One question: its task, the text asked, the gold answer and the structured spec (all JSON-ready, written
    and read back as they are: ``to_dict``/``from_dict``)."""

    task: str
    question: str
    answer: Any
    spec: dict[str, Any]


class _SkipDrawError(Exception):
    """This attempt at a question failed; try again with the next random draw."""


def _seen_dict(s: SeenItem) -> dict[str, str]:
    d = {"name": s.name, "direction": s.direction, "distance": s.distance}
    if s.orientation:
        d["orientation"] = s.orientation
    return d


def describe_view(items: Sequence[dict[str, str]]) -> str:
    """A compact description of observed items: ``lamp is at front-left, near; chair is at front, mid distance,
    facing left`` (the reference's ``obj is at direction, distance`` form)."""
    parts = []
    for it in items:
        tail = f", {it['orientation']}" if it.get("orientation") else ""
        parts.append(f"{it['name']} is at {it['direction']}, {it['distance']}{tail}")
    return "; ".join(parts)


def _scene_facts(world: SpatialWorld) -> dict[str, Any]:
    """Positions, facings, rooms and door data the view-based scorers simulate against."""
    return {
        "object_positions": {it.name.lower(): list(it.pos) for it in world.items},
        "object_orientations": {it.name.lower(): list(it.facing) for it in world.items if it.facing is not None},
        "object_rooms": {it.name.lower(): sorted(it.rooms) for it in world.items},
        "gate_info": {
            it.name.lower(): {"room_ids": sorted(it.rooms), "ori_by_room": {r: list(n) for r, n in it.normals}}
            for it in world.items
            if it.door
        },
    }


def _asked(task: str, text: str, spec: dict[str, Any], world: SpatialWorld) -> TaskQuestion:
    """A question whose gold answer is what ``world`` implies for ``spec``."""
    return TaskQuestion(task, text, answer_spec(task, spec, world), spec)


# ---- individual generators ---------------------------------------------------------------------------------
def _gen_direction(world: SpatialWorld, rng: random.Random) -> TaskQuestion:
    objs = list(world.objects)
    if len(objs) < 2:
        raise _SkipDrawError
    obj, anchor = rng.sample(objs, 2)
    spec = {"target": obj.name, "anchor": anchor.name}
    return _asked("direction", DIRECTION_TEMPLATE.format(obj=obj.name, anchor=anchor.name), spec, world)


def _oriented(world: SpatialWorld, rng: random.Random) -> list[tuple[WorldItem, Vec]]:
    """The objects with a front, each with its facing, in a seeded random order (the poses to ask from)."""
    oriented = [(o, o.facing) for o in world.objects if o.facing is not None]
    rng.shuffle(oriented)
    return oriented


def _gen_pov(world: SpatialWorld, rng: random.Random) -> TaskQuestion:
    for anchor, facing in _oriented(world, rng):
        vis = [it for it in world.visible(anchor.pos, facing, anchor.rooms) if not it.door]
        if vis:
            target = rng.choice(vis)
            spec = {"anchor": anchor.name, "target": target.name}
            return _asked("persp.take", POV_TEMPLATE.format(anchor=anchor.name, obj=target.name), spec, world)
    raise _SkipDrawError


def _gen_perc_dec(world: SpatialWorld, rng: random.Random) -> TaskQuestion:
    for anchor, facing in _oriented(world, rng):
        obs = world.observe(anchor.pos, facing, anchor.rooms)
        if not obs.items:
            continue
        seen = [_seen_dict(s) for s in obs.items]
        rng.shuffle(seen)
        seen = sorted(seen[:3], key=lambda d: d["name"])
        answer = {
            "answer": anchor.name,
            "final_pos": list(anchor.pos),
            "final_ori": list(facing),
            "final_observation": seen,
            "room_id": sorted(anchor.rooms),
            **_scene_facts(world),
        }
        return TaskQuestion(
            "perc.dec", PERC_DEC_TEMPLATE.format(observation=describe_view(seen)), answer, {"observation": seen}
        )
    raise _SkipDrawError


def _gen_alloc(world: SpatialWorld, rng: random.Random) -> TaskQuestion:
    pool = list(world.objects)
    if len(pool) < 3:
        raise _SkipDrawError
    rng.shuffle(pool)
    chosen = pool[: rng.randint(3, min(5, len(pool)))]
    spec = {"objects": [o.name for o in chosen]}
    return _asked("alloc.map", ALLOC_TEMPLATE.format(objects=", ".join(spec["objects"])), spec, world)


def _gen_rot(world: SpatialWorld, rng: random.Random) -> TaskQuestion:
    turn = rng.choice(["clockwise", "counterclockwise"])
    cands = []
    for o in world.objects:
        if o.pos == (0, 0):
            continue
        ang, dist = turn_order(o.pos, turn)
        if ang < 1e-3 or ang > 360.0 - 1e-3:
            continue
        cands.append((o.name, ang, dist))
    if len(cands) < 3:
        raise _SkipDrawError
    for eps in (30.0, 15.0, 7.5, 1.0):
        for _ in range(5):
            rng.shuffle(cands)
            selected: list[tuple[str, float, float]] = []
            for item in cands:
                if all(abs(item[1] - s[1]) > eps for s in selected):
                    selected.append(item)
            if len(selected) >= 3:
                selected.sort(key=lambda x: (x[1], x[2]))
                count = rng.randint(3, min(len(selected), 5))
                names = [x[0] for x in selected[:count]]
                spec = {"turn": turn, "objects": sorted(names)}
                answer = answer_spec("ment.rot", spec, world)
                if answer != names:  # ties in bearing resolved differently: skip the draw
                    continue
                return TaskQuestion(
                    "ment.rot", ROT_TEMPLATE.format(turn=turn, pool=", ".join(sorted(names))), answer, spec
                )
    raise _SkipDrawError


def _sample_pose(world: SpatialWorld, rng: random.Random) -> tuple[Vec, Vec, str]:
    rooms = sorted(world.room_cells)
    rng.shuffle(rooms)
    for room in rooms:
        in_room = [o for o in world.objects if room in o.rooms]
        if len(in_room) < 2:
            continue
        cells = list(world.room_cells[room])
        rng.shuffle(cells)
        for pos in cells:
            oris = list(CARDINALS)
            rng.shuffle(oris)
            for ori in oris:
                vis = [o for o in in_room if o.pos != pos and in_fov(pos, ori, o.pos)]
                hid = [o for o in in_room if o not in vis and o.pos != pos]
                if vis and hid:
                    return pos, ori, room
    raise _SkipDrawError


def _origin(world: SpatialWorld, room: str, pos: Vec, rng: random.Random) -> tuple[str, Vec]:
    """The origin a pose in ``room`` is given from (the start, or a door of the room when the start is elsewhere)
    and ``pos`` relative to it."""
    doors = [] if room in world.start_rooms else [d for d in world.doors if room in d.rooms]
    if not doors:
        return "your starting position", pos
    d = rng.choice(doors)
    return f"the {d.name}", (pos[0] - d.pos[0], pos[1] - d.pos[1])


def _gen_loc2view(world: SpatialWorld, rng: random.Random) -> TaskQuestion:
    pos, ori, room = _sample_pose(world, rng)
    origin_name, loc = _origin(world, room, pos, rng)
    vis = [it for it in world.visible(pos, ori, frozenset({room}))]
    if not vis:
        raise _SkipDrawError
    target = rng.choice(vis)
    spec = {"origin": origin_name, "loc": list(loc), "facing": direction_name(ori), "target": target.name}
    text = LOC2VIEW_TEMPLATE.format(
        origin=origin_name, x=loc[0], y=loc[1], facing=direction_name(ori), target=target.name
    )
    return _asked("loc2view", text, spec, world)


def _gen_view2loc(world: SpatialWorld, rng: random.Random) -> TaskQuestion:
    pos, ori, room = _sample_pose(world, rng)
    origin_name, coord = _origin(world, room, pos, rng)
    obs = world.observe(pos, ori, frozenset({room}))
    spec = {
        "facing": direction_name(ori),
        "origin": origin_name,
        "observation": [_seen_dict(s) for s in obs.items],
        "pairs": [[p.a, p.b, p.direction, p.distance] for p in obs.pairs],
    }
    text = VIEW2LOC_TEMPLATE.format(facing=direction_name(ori), observation=observation_text(obs), origin=origin_name)
    return TaskQuestion("view2loc", text, {"coord": list(coord), "final_ori": list(ori)}, spec)


# ---- navigation ----------------------------------------------------------------------------------------
def _nav_plan(
    world: SpatialWorld, rng: random.Random, jumps: int
) -> tuple[list[tuple[str, Any]], Vec, Vec, frozenset[str]]:
    pos, ori, rooms = (0, 0), NORTH, world.start_rooms
    plan: list[tuple[str, Any]] = []
    after_gate: frozenset[str] = frozenset()
    for _ in range(jumps):
        cand = [it for it in world.items if (rooms & it.rooms) and it.pos != pos]
        if not cand:
            raise _SkipDrawError
        gates = [it for it in cand if it.door]
        plain = [it for it in cand if not it.door]
        if after_gate:
            pool = [it for it in plain if it.rooms & after_gate] or plain or gates
            target = rng.choice(pool)
        elif gates and rng.randrange(10) < 6:
            target = rng.choice(gates)
        else:
            target = rng.choice(plain or cand)
        desired = closest_heading((target.pos[0] - pos[0], target.pos[1] - pos[1]))
        delta = rotation_between(ori, desired)
        if delta:
            plan.append(("rotate", delta))
            ori = desired
        plan.append(("jumpto", target.name))
        after_gate = (target.rooms - rooms) if target.door else frozenset()
        pos, rooms = target.pos, target.rooms
    oris = [o for o in CARDINALS if world.visible(pos, o, rooms)]
    if not oris:
        raise _SkipDrawError
    final = rng.choice(oris)
    delta = rotation_between(ori, final)
    if delta:
        plan.append(("rotate", delta))
    return plan, pos, final, rooms


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _describe_jump(world: SpatialWorld, pos: Vec, ori: Vec, rooms: frozenset[str], name: str) -> dict[str, Any]:
    relation = world.ego_relation(name, pos, ori)
    assert relation is not None
    dlabel, slabel = relation
    group = world.same_bin(pos, ori, rooms, dlabel, slabel)
    out: dict[str, Any] = {"direction": dlabel, "distance": slabel, "group": len(group)}
    if len(group) > 1:
        out["from_left"] = 1 + [g[0].name for g in sorted(group, key=lambda g: g[1])].index(name)
        out["nearest"] = 1 + [g[0].name for g in sorted(group, key=lambda g: g[2])].index(name)
    return out


def _jump_text(desc: dict[str, Any]) -> str:
    if desc["group"] > 1:
        n, k = desc["group"], desc["nearest"]
        near = "nearest" if k == 1 else "farthest" if k == n else f"{_ordinal(k)} nearest"
        return (
            f"Among objects which are {desc['direction']}, {desc['distance']} to you, you jump to the "
            f"{_ordinal(desc['from_left'])} from left also {near} one."
        )
    return f"Jump to the object at {desc['direction']}, {desc['distance']}."


def _gen_act2view(world: SpatialWorld, rng: random.Random) -> TaskQuestion:
    plan, pos, ori, rooms = _nav_plan(world, rng, 2)
    steps_spec: list[Any] = []
    lines = []
    cpos, cori, crooms = (0, 0), NORTH, world.start_rooms
    for i, (kind, value) in enumerate(plan, 1):
        if kind == "rotate":
            steps_spec.append(["rotate", value])
            lines.append(f"{i}. Rotate({value})")
            cori = rotate(cori, value)
        else:
            desc = _describe_jump(world, cpos, cori, crooms, value)
            steps_spec.append(["jump", desc])
            lines.append(f"{i}. {_jump_text(desc)}")
            it = world.get(value)
            assert it is not None
            cpos, crooms = it.pos, it.rooms
    vis = world.visible(pos, ori, rooms)
    target = rng.choice(vis)
    spec = {"steps": steps_spec, "target": target.name}
    return _asked("act2view", ACT2VIEW_TEMPLATE.format(actions="\n".join(lines), target=target.name), spec, world)


def _gen_view2act(world: SpatialWorld, rng: random.Random) -> TaskQuestion:
    best = None
    for _ in range(5):
        try:
            plan, pos, ori, rooms = _nav_plan(world, rng, 3)
        except _SkipDrawError:
            continue
        n = len(world.visible(pos, ori, rooms))
        if best is None or n > best[4]:
            best = (plan, pos, ori, rooms, n)
    if best is None:
        raise _SkipDrawError
    plan, pos, ori, rooms, _ = best
    obs = world.observe(pos, ori, rooms)
    seen = [_seen_dict(s) for s in obs.items]
    rng.shuffle(seen)
    seen = seen[:3]
    minimal = shortest_plan(world, pos, ori)
    answer = {
        "final_pos": list(pos),
        "final_ori": list(ori),
        "room_id": sorted(rooms),
        "init_pos": [0, 0],
        "init_ori": list(NORTH),
        "final_observation": seen,
        "minimal_plan": [[k, v] for k, v in (minimal or [])],
        **_scene_facts(world),
    }
    text = VIEW2ACT_TEMPLATE.format(final_obs=describe_view(seen))
    return TaskQuestion("view2act", text, answer, {"observation": seen})


# ---- the nine tasks and their question templates ------------------------------------------------------------
# Below the generators, which the table names; they read the templates loaded here only when they are called.
_TASK_TABLE: dict[str, tuple[str, set[str], Callable[[SpatialWorld, random.Random], TaskQuestion]]] = {
    "direction": ("dir", {"obj", "anchor"}, _gen_direction),
    "persp.take": ("pov", {"anchor", "obj"}, _gen_pov),
    "perc.dec": ("bwd_pov_text", {"observation"}, _gen_perc_dec),
    "act2view": ("fwd_fov", {"actions", "target"}, _gen_act2view),
    "view2act": ("bwd_nav_text", {"final_obs"}, _gen_view2act),
    "alloc.map": ("e2a", {"objects"}, _gen_alloc),
    "ment.rot": ("rot", {"turn", "pool"}, _gen_rot),
    "loc2view": ("fwd_loc", {"origin", "x", "y", "facing", "target"}, _gen_loc2view),
    "view2loc": ("bwd_loc_text", {"facing", "observation", "origin"}, _gen_view2loc),
}
"""Each task's name in the reference implementation, the placeholders its question template must use and its
generator."""

REFERENCE_TASKS = {task: reference for task, (reference, _, _) in _TASK_TABLE.items()}
"""Each task's name in the reference implementation."""

TEMPLATE_FIELDS: dict[str, frozenset[str]] = {task: frozenset(fields) for task, (_, fields, _) in _TASK_TABLE.items()}
"""The placeholders each task's question template must use: exactly what its generator fills in."""


class _TemplatesFile(DataModel):
    """The whole of ``data/task_templates.yaml``: one question template per task."""

    templates: dict[str, str]

    @field_validator("templates")
    @classmethod
    def _every_task_with_its_fields(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = [t for t in value if t not in TEMPLATE_FIELDS]
        if unknown:
            raise ValueError(f"unknown task {unknown[0]!r} (tasks: {', '.join(TASKS)})")
        missing = [t for t in TASKS if t not in value]
        if missing:
            raise ValueError(f"no template for task {missing[0]!r}")
        for task, text in value.items():
            try:
                used = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
            except ValueError as exc:
                raise ValueError(f"{task}: not a format string ({exc})") from None
            if used != TEMPLATE_FIELDS[task]:
                expected = ", ".join(f"{{{f}}}" for f in sorted(TEMPLATE_FIELDS[task]))
                got = ", ".join(f"{{{f}}}" for f in sorted(used)) or "none"
                raise ValueError(f"{task}: uses {got}; expected exactly {expected}")
        return value


def load_templates(path: str | Path | Traversable | None = None) -> dict[str, str]:
    """Read and check a question-templates file (the one shipped with mindloop when ``path`` is ``None``)."""
    return dict(load_package_data(_TemplatesFile, __name__.rsplit(".", 1)[0], "task_templates.yaml", path).templates)


TEMPLATES: dict[str, str] = load_templates()
"""Each task's question template, by short name (from ``data/task_templates.yaml``)."""

DIRECTION_TEMPLATE = TEMPLATES["direction"]
POV_TEMPLATE = TEMPLATES["persp.take"]
PERC_DEC_TEMPLATE = TEMPLATES["perc.dec"]
ACT2VIEW_TEMPLATE = TEMPLATES["act2view"]
VIEW2ACT_TEMPLATE = TEMPLATES["view2act"]
ALLOC_TEMPLATE = TEMPLATES["alloc.map"]
ROT_TEMPLATE = TEMPLATES["ment.rot"]
LOC2VIEW_TEMPLATE = TEMPLATES["loc2view"]
VIEW2LOC_TEMPLATE = TEMPLATES["view2loc"]


def generate_tasks(
    world: SpatialWorld, seed: int, *, per_task: int = 3, tasks: Sequence[str] = TASKS
) -> list[TaskQuestion]:
    """``per_task`` distinct questions of each task (fewer when the scene cannot support more), seeded."""
    unknown = [t for t in tasks if t not in _TASK_TABLE]
    if unknown:
        raise InvalidArgumentError(f"unknown task(s) {unknown}; known: {', '.join(TASKS)}")
    out: list[TaskQuestion] = []
    for task in tasks:
        _, _, generate = _TASK_TABLE[task]
        seen: set[str] = set()
        rng = random.Random(f"tos-task:{seed}:{task}")
        attempts = 0
        while len(seen) < per_task and attempts < 40 * per_task:
            attempts += 1
            try:
                q = generate(world, rng)
            except _SkipDrawError:
                continue
            if q.question in seen:
                continue
            seen.add(q.question)
            out.append(q)
    return out

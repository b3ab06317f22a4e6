"""Theory-of-Space downstream task scoring (:func:`score_answer`): direction and distance labels matched
leniently, exact order for ``ment.rot``, coordinate similarity for ``alloc.map``/``view2loc``, simulated view
checks for ``view2act``/``perc.dec``.

See :mod:`mindloop.systems.tos.metrics` for how each score follows the reference implementation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from mindloop.datafiles import load_package_data
from mindloop.errors import InvalidArgumentError
from mindloop.systems.tos.cogmap import MapEntry, map_scores
from mindloop.systems.tos.world.geometry import (
    CARDINALS,
    NORTH,
    Vec,
    bearing,
    distance_bin,
    ego_bin,
    in_fov,
    relative_facing,
    rotate,
    wall_side,
)

__all__ = ["labels_match", "score_answer"]


# ==== downstream task scoring ==================================================================================
class _Labels(BaseModel, extra="forbid", frozen=True):
    """``world/data/labels.yaml``: each label as the environment spells it, and the spellings read as it."""

    scoring: dict[str, tuple[str, ...]]
    directions: dict[str, tuple[str, ...]]
    distances: dict[str, tuple[str, ...]]


LABEL_SPELLINGS = load_package_data(_Labels, "mindloop.systems.tos.world", "labels.yaml")
"""The scorer's label aliases (``scoring``) and the reply reader's direction and distance labels."""


def _joined(text: str) -> str:
    return re.sub(r"[\s-]+", "", str(text).lower())


_LOOKUP: dict[str, str] = {}
_PARTS: dict[str, set[str]] = {}
for _canon, _variants in LABEL_SPELLINGS.scoring.items():
    _key = _joined(_canon)
    _LOOKUP[_key] = _key
    _PARTS[_key] = {_joined(t) for t in re.split(r"[-\s]+", _canon) if t} | {_key}
    for _v in _variants:
        _LOOKUP[_joined(_v)] = _key


def _canonical(label: str) -> str:
    key = _joined(label)
    return _LOOKUP.get(key, key)


def labels_match(pred: str, gold: str) -> bool:
    """The reference's label match: same label up to spelling, or one is a component of the other (so
    ``north`` matches ``north east`` and ``far`` matches ``slightly far``, as the reference scores them)."""
    p, g = _canonical(pred), _canonical(gold)
    if not p or not g:
        return False
    if p == g:
        return True
    return p in _PARTS.get(g, {g}) or g in _PARTS.get(p, {p})


def _sequence(raw: str) -> list[str] | None:
    text = str(raw)
    brackets = r"\((.*?)\)" if "(" in text and ")" in text else r"\[(.*?)\]" if "[" in text and "]" in text else None
    m = re.search(brackets, text) if brackets else None  # the first bracketed part, else the whole text
    content = m.group(1) if m else text
    items = [t.strip().strip("'\"") for t in content.split(",")]
    items = [t for t in items if t]
    return items or None


def _direction_distance(raw: str) -> tuple[str, str] | None:
    items = _sequence(raw)
    if items and len(items) >= 2:
        return items[0], items[1]
    segs = [s.strip() for s in re.split(r"[;\n]", str(raw)) if s.strip()]
    if len(segs) >= 2:
        return segs[0], segs[1]
    words = [w.strip() for w in re.split(r"[ ,]", str(raw)) if w.strip()]
    if len(words) >= 2:
        return (" ".join(words[:-1]), words[-1]) if len(words) > 2 else (words[0], words[1])
    return None


def _score_relation(pred: str, gold: str) -> float:
    p, g = _direction_distance(pred), _direction_distance(gold)
    if p is None or g is None:
        return 0.0
    normal = (labels_match(p[0], g[0]) + labels_match(p[1], g[1])) / 2
    swapped = (labels_match(p[1], g[0]) + labels_match(p[0], g[1])) / 2
    return max(normal, swapped)


def _coords(text: str) -> list[tuple[float, float]]:
    return [(float(a), float(b)) for a, b in re.findall(r"(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)", str(text))]


def _score_alloc(pred: str, gold: Sequence[Sequence[float]]) -> float:
    coords = _coords(pred)
    if not coords or len(coords) != len(gold):
        return 0.0
    g = {str(i): MapEntry((float(c[0]), float(c[1]))) for i, c in enumerate(gold)}
    p = {str(i): MapEntry(c) for i, c in enumerate(coords)}
    norm = math.sqrt(sum(c[0] ** 2 + c[1] ** 2 for c in gold) / len(gold)) or 1.0
    s = map_scores(p, g, pos_norm_l=norm)
    return (s.pos + s.dir) / 2


def _norm_ori(v: Sequence[float]) -> Vec:
    key = (int(v[0]), int(v[1]))
    if key in CARDINALS:
        return key
    return max(CARDINALS, key=lambda c: c[0] * v[0] + c[1] * v[1])


def _visible_from(
    pos: Sequence[float], ori: Vec, target: Sequence[float], rooms: Any = None, target_rooms: Any = None
) -> bool:
    def as_set(v: Any) -> set[str]:
        if v is None:
            return set()
        return {str(x) for x in v} if isinstance(v, list | tuple | set | frozenset) else {str(v)}

    if rooms is not None and target_rooms is not None and not (as_set(rooms) & as_set(target_rooms)):
        return False
    return in_fov(pos, ori, target)


def _fov_consistent(
    pos: tuple[float, float], ori: Vec, answer: Mapping[str, Any], rooms: Sequence[Any] | None = None
) -> bool:
    """Whether the view from ``pos`` facing ``ori``, standing in ``rooms`` (default: the gold pose's room), is the
    described ``final_observation``: every object in it visible, in its direction and distance bin, its facing or
    a door's wall side as described."""
    positions = {k: tuple(v) for k, v in answer.get("object_positions", {}).items()}
    orientations = {k: _norm_ori(v) for k, v in answer.get("object_orientations", {}).items()}
    gates = answer.get("gate_info", {})
    rooms = answer.get("room_id") if rooms is None else rooms
    for item in answer.get("final_observation", []):
        name = str(item.get("name", "")).strip().lower()
        target = positions.get(name)
        if target is None or not _visible_from(pos, ori, target, rooms, answer.get("object_rooms", {}).get(name)):
            return False
        if _canonical(ego_bin(bearing(target, pos, ori))[1]) != _canonical(item["direction"]) or _canonical(
            distance_bin(math.dist(target, pos))[1]
        ) != _canonical(item["distance"]):
            return False
        want = item.get("orientation")
        if want and name in orientations:
            if name in gates:
                shared = sorted({str(r) for r in (rooms or [])} & {str(r) for r in gates[name]["room_ids"]})
                normal = _norm_ori(gates[name]["ori_by_room"][shared[0]]) if len(shared) == 1 else orientations[name]
                have = wall_side(normal, ori)
            else:
                have = f"facing {relative_facing(orientations[name], ori)}"
            if _canonical(have) != _canonical(want):
                return False
    return True


def _parse_moves(text: str) -> list[tuple[str, Any]] | None:
    body = str(text).strip()
    body = re.sub(r"^\s*actions\s*:\s*", "", body, flags=re.IGNORECASE).strip().strip("[]").strip()
    out: list[tuple[str, Any]] = []
    for token in [p.strip() for p in body.split(",") if p.strip()]:
        if m := re.match(r"JumpTo\s*\(\s*(.+?)\s*\)$", token, re.IGNORECASE):
            out.append(("jumpto", m.group(1).replace("_", " ").strip()))
        elif m := re.match(r"Rotate\s*\(\s*(-?\d+)\s*\)$", token, re.IGNORECASE):
            out.append(("rotate", int(m.group(1))))
        else:
            return None
    return out or None


def _score_view2act(pred: str, answer: Mapping[str, Any]) -> float:
    moves = _parse_moves(pred)
    if moves is None:
        return 0.0
    positions = {k: (float(v[0]), float(v[1])) for k, v in answer["object_positions"].items()}
    pos = (float(answer["init_pos"][0]), float(answer["init_pos"][1]))
    ori = _norm_ori(answer["init_ori"])
    on: str | None = None
    for kind, value in moves:
        if kind == "rotate":
            if int(value) % 90:
                return 0.0
            ori = rotate(ori, int(value))
        else:
            on = str(value).lower()
            target = positions.get(on)
            if target is None or not in_fov(pos, ori, target):
                return 0.0
            pos = target
    # a sequence that ends elsewhere than the gold pose is judged from the room of the object it ends on (as
    # perc.dec judges another object); at the gold pose, from the gold's room
    elsewhere = on is not None and list(pos) != [float(c) for c in answer.get("final_pos", pos)]
    rooms = answer.get("object_rooms", {}).get(on) if elsewhere else None
    return 1.0 if _fov_consistent(pos, ori, answer, rooms) else 0.0


def _score_perc_dec(pred: str, answer: Mapping[str, Any]) -> float:
    positions = {k: tuple(v) for k, v in answer.get("object_positions", {}).items()}
    orientations = {k: _norm_ori(v) for k, v in answer.get("object_orientations", {}).items()}
    key = _joined(str(pred).strip().strip(".\"'"))
    name = next((k for k in positions if _joined(k) == key), None)
    if name is None:
        return 0.0
    if key == _joined(answer["answer"]):
        return 1.0
    # another object whose view is the described one is right too, seen from the object's own room (a door's wall
    # side depends on the room it is seen from; the gold's room is the gold object's)
    rooms = answer.get("object_rooms", {}).get(name)
    return 1.0 if _fov_consistent(positions[name], orientations.get(name, NORTH), answer, rooms) else 0.0


def _score_view2loc(pred: str, answer: Mapping[str, Any]) -> float:
    coords = _coords(pred)
    if not coords:
        return 0.0
    gx, gy = (float(answer["coord"][0]), float(answer["coord"][1]))
    err = math.dist(coords[0], (gx, gy))
    scale = math.hypot(gx, gy)
    if scale == 0:
        return 1.0 if err == 0 else 0.0
    return math.exp(-err / scale)


def _score_rotation(pred: str, answer: Sequence[str]) -> float:
    tokens = _sequence(pred)
    if not tokens or len(tokens) != len(answer):
        return 0.0
    norm = [" ".join(t.lower().split()) for t in tokens]
    return float(norm == [" ".join(a.lower().split()) for a in answer])


_SCORERS: dict[str, Callable[[str, Any], float]] = {
    **dict.fromkeys(("direction", "persp.take", "act2view", "loc2view"), lambda p, a: _score_relation(p, str(a))),
    **{"ment.rot": _score_rotation, "alloc.map": _score_alloc, "perc.dec": _score_perc_dec},
    **{"view2act": _score_view2act, "view2loc": _score_view2loc},
}


def score_answer(task: str, prediction: str | None, answer: Any) -> float:
    """Score a reply (the text after ``FINAL ANSWER:`` or an agent's answer) to a downstream question, in [0, 1].

    ``task`` is one of the paper's short names (:data:`mindloop.systems.tos.world.tasks.TASKS`). A missing reply
    scores 0.
    """
    if prediction is None:
        return 0.0
    if task not in _SCORERS:
        raise InvalidArgumentError(f"unknown task {task!r}")
    return _SCORERS[task](str(prediction).strip(), answer)

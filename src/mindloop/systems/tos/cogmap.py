"""Theory-of-Space cognitive maps: parsing a model's map, scoring it against the truth, the true global and local
maps, and the per-turn belief diagnostics (update, stability, self-tracking, perception, local-global agreement).

See :mod:`mindloop.systems.tos.metrics` for how each score follows the reference implementation.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mindloop.metrics.stats import mean
from mindloop.systems.tos.world.geometry import (
    EAST,
    NORTH,
    SOUTH,
    WEST,
    Vec,
    bearing,
    cardinal_bin,
    rotate,
    to_local,
)
from mindloop.systems.tos.world.observe import visible_names
from mindloop.systems.tos.world.scene import Door, Scene

__all__ = [
    "CogMap",
    "MapEntry",
    "MapScores",
    "belief_diagnostics",
    "extract_json",
    "facing_of",
    "gt_global_map",
    "gt_local_map",
    "map_scores",
    "parse_cognitive_map",
    "pos_norm",
]


# ==== cognitive maps ===========================================================================================
@dataclass(frozen=True)
class MapEntry:
    """One item of a cognitive map: a position (floats allowed) and a facing (``None``: none given)."""

    pos: tuple[float, float]
    facing: Vec | None = None


CogMap = dict[str, MapEntry]
"""A cognitive map: item name (``agent`` for the agent) → entry."""


@dataclass(frozen=True)
class MapScores:
    """Direction, facing and position similarity of a map, and their mean."""

    dir: float
    facing: float
    pos: float

    @property
    def overall(self) -> float:
        """Mean of the three scores."""
        return (self.dir + self.facing + self.pos) / 3.0

    def to_dict(self) -> dict[str, float]:
        """JSON-ready form, with ``overall``."""
        return {"dir": self.dir, "facing": self.facing, "pos": self.pos, "overall": self.overall}


def extract_json(text: str) -> Any | None:
    """The largest JSON object in ``text`` (fenced ```json blocks and balanced-brace spans), or ``None``."""
    fenced = re.findall(r"```(?:json)?\s*(\{.*?\})\s*```", text, flags=re.DOTALL | re.IGNORECASE)
    candidates = list(fenced)
    depth, start = 0, -1
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0 and start >= 0:
                candidates.append(text[start : i + 1])
    for cand in sorted(candidates, key=len, reverse=True):
        try:
            return json.loads(cand)
        except json.JSONDecodeError:
            continue
    return None


_GLOBAL_FACING = {
    **dict.fromkeys(("north", "n", "+y", "forward", "front", "ahead", "up"), NORTH),
    **dict.fromkeys(("south", "s", "-y", "back", "backward", "behind", "down"), SOUTH),
    **dict.fromkeys(("east", "e", "+x", "right"), EAST),
    **dict.fromkeys(("west", "w", "-x", "left"), WEST),
}
_LOCAL_AXES = {
    **dict.fromkeys(("+y", "forward", "front"), 0),
    **dict.fromkeys(("+x", "right"), 90),
    **dict.fromkeys(("-y", "backward", "back"), 180),
    **dict.fromkeys(("-x", "left"), -90),
}


def _norm_name(name: str) -> str:
    return " ".join(str(name).replace("_", " ").strip().lower().split())


def _as_pair(value: Any) -> tuple[float, float] | None:
    if isinstance(value, str):
        nums = re.findall(r"-?\d+(?:\.\d+)?", value)
        value = nums if len(nums) == 2 else None
    if isinstance(value, Mapping):
        value = [value.get("x"), value.get("y")]
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    try:
        x, y = float(value[0]), float(value[1])
    except (TypeError, ValueError):
        return None
    if not (math.isfinite(x) and math.isfinite(y)):
        return None
    return (x, y)


def _flatten(data: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in ("objects", "gates", "doors", "items") and isinstance(value, list | Mapping):
            entries = (
                value.items()
                if isinstance(value, Mapping)
                else [
                    (v.get("name") or v.get("label") or v.get("id") or v.get("type"), v)
                    for v in value
                    if isinstance(v, Mapping)
                ]
            )
            for name, info in entries:
                if name and isinstance(info, Mapping):
                    out[str(name)] = info
        elif isinstance(value, Mapping):
            out[str(key)] = value
    return out


def parse_cognitive_map(
    source: str | Mapping[str, Any],
    *,
    names: Iterable[str] | None = None,
    local_heading: Vec | None = None,
) -> CogMap | None:
    """Read a cognitive map from a model reply (or a parsed dict); ``None`` when there is no JSON object.

    ``names`` (the scene's item names plus ``agent``) keeps only known items, matching names case-insensitively
    and ignoring underscores. For a local map pass ``local_heading`` (the agent's heading): facings in local axes
    (``+y`` ahead, ``+x`` right) are turned into compass facings, as the reference evaluates them.
    """
    data = extract_json(source) if isinstance(source, str) else source
    if not isinstance(data, Mapping):
        return None
    flat = _flatten(data)
    canon = {_norm_name(n): n for n in names} if names is not None else None
    out: CogMap = {}
    for raw, info in flat.items():
        key = _norm_name(raw)
        if canon is not None:
            if key not in canon:
                continue
            name = canon[key]
        else:
            name = str(raw).replace("_", " ").strip()
        pos = _as_pair(info.get("position", info.get("pos", info.get("xy"))))
        if pos is None:
            continue
        facing: Vec | None = None
        f = info.get("facing", info.get("orientation"))
        if isinstance(f, str):
            s = f.strip().lower()
            if local_heading is not None and s in _LOCAL_AXES:
                facing = rotate(local_heading, _LOCAL_AXES[s])
            else:
                facing = _GLOBAL_FACING.get(s)
        out[name] = MapEntry(pos, facing)
    return out


def _dir_bin(a: tuple[float, float], b: tuple[float, float]) -> int:
    return cardinal_bin(bearing(a, b, NORTH))[0]


def map_scores(
    pred: Mapping[str, MapEntry],
    gt: Mapping[str, MapEntry],
    *,
    pos_norm_l: float | None = None,
    oriented: Iterable[str] | None = None,
) -> MapScores:
    """Score a predicted map against a gold one (the reference's ``compute_map_metrics``, no scaling).

    ``oriented`` names the gold items whose facing counts (default: gold entries with a facing, doors excluded).
    """
    origin = MapEntry((0.0, 0.0), NORTH)
    p = dict(pred) | {"initial": origin}
    g = dict(gt) | {"initial": origin}
    names = sorted(g)
    tot = cor = 0.0
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            a, b = names[i], names[j]
            tot += 1
            if a in p and b in p and _dir_bin(p[a].pos, p[b].pos) == _dir_bin(g[a].pos, g[b].pos):
                cor += 1
    dir_sim = cor / tot if tot else 1.0
    facing_names = (
        [n for n in sorted(gt) if gt[n].facing is not None and "door" not in n]
        if oriented is None
        else sorted(oriented)
    )
    f_cor = sum(1 for n in facing_names if n in pred and pred[n].facing == gt[n].facing)
    facing_sim = f_cor / len(facing_names) if facing_names else 1.0
    matched = [n for n in sorted(gt) if n in pred]
    if not gt:
        pos_sim = 1.0
    elif not matched:
        pos_sim = 0.0
    else:
        sq = [(pred[n].pos[0] - gt[n].pos[0]) ** 2 + (pred[n].pos[1] - gt[n].pos[1]) ** 2 for n in matched]
        rmse = math.sqrt(sum(sq) / len(sq))
        norm = pos_norm_l or math.sqrt(sum(gt[n].pos[0] ** 2 + gt[n].pos[1] ** 2 for n in matched) / len(matched))
        pos_sim = (math.exp(-rmse / norm) if norm > 0 else 0.0) * len(matched) / len(gt)
    return MapScores(dir_sim, facing_sim, pos_sim)


def pos_norm(scene: Scene) -> float:
    """``L``: the RMS distance of the objects (doors excluded) from the start (1 if that is 0)."""
    pts = [scene.relative(o.pos) for o in scene.objects]
    val = math.sqrt(sum(x * x + y * y for x, y in pts) / len(pts)) if pts else 0.0
    return val if val > 0 else 1.0


def _door_facing(d: Door) -> Vec:
    return d.ori


def gt_global_map(scene: Scene, pose: tuple[Vec, Vec] | None, names: Iterable[str] | None = None) -> CogMap:
    """The true global map (start at the origin, north +y): the given items (all by default) and the agent."""
    keep = None if names is None else set(names)
    out: CogMap = {}
    for it in scene.items:
        if keep is not None and it.name not in keep:
            continue
        rel = scene.relative(it.pos)
        facing = _door_facing(it) if isinstance(it, Door) else it.facing
        out[it.name] = MapEntry((float(rel[0]), float(rel[1])), facing)
    if pose is not None:
        rel = scene.relative(pose[0])
        out["agent"] = MapEntry((float(rel[0]), float(rel[1])), pose[1])
    return out


def gt_local_map(scene: Scene, pose: tuple[Vec, Vec]) -> CogMap:
    """The true local map: visible items in the agent's frame (``+y`` ahead, ``+x`` right), compass facings."""
    pos, ori = pose
    out: CogMap = {}
    for it in map(scene.item, visible_names(scene, pos, ori, scene.rooms_at(pos))):
        facing = _door_facing(it) if isinstance(it, Door) else it.facing
        out[it.name] = MapEntry(to_local(it.pos, pos, ori), facing)
    return out


def facing_of(name: Any) -> Vec | None:
    """The global facing a written name stands for (``north``, ``N``, ``+y``, ``forward`` ...), or ``None``."""
    return _GLOBAL_FACING.get(str(name).lower()) if name else None


# ==== per-turn belief diagnostics ==============================================================================
def belief_diagnostics(
    maps: Sequence[CogMap | None],
    gt_maps: Sequence[CogMap],
    newly_seen: Sequence[Iterable[str]],
    *,
    pos_norm_l: float,
    local_maps: Sequence[CogMap | None] | None = None,
    gt_local_maps: Sequence[CogMap] | None = None,
    poses: Sequence[tuple[Vec, Vec]] | None = None,
    threshold: float = 1.0,
) -> dict[str, Any]:
    """Per-turn diagnostics of a sequence of global maps (one per turn, ``None`` when unparseable).

    * ``update``: share of items first seen this turn that the map places within ``threshold`` of the truth
      (``facing_update``: with the right facing);
    * ``stability``: share of items placed within ``threshold`` last turn that still are (``facing_stability``);
    * ``self_tracking``: map scores of the ``agent`` entry alone;
    * ``perception``: local map vs the true local map (when local maps are given);
    * ``local_global``: the local map carried into the global frame with the true pose, vs the global map, on
      the items both contain.
    Averages skip turns where a score is undefined.
    """
    out: dict[str, list[float | None]] = {
        k: []
        for k in (
            "update",
            "facing_update",
            "stability",
            "facing_stability",
            "self_tracking",
            "perception",
            "local_global",
        )
    }
    prev_ok: set[str] = set()
    prev_face: set[str] = set()
    for t, (pred, gt) in enumerate(zip(maps, gt_maps, strict=True)):
        ok = {n for n, e in (pred or {}).items() if n in gt and math.dist(e.pos, gt[n].pos) <= threshold + 1e-9}
        face = {n for n, e in (pred or {}).items() if n in gt and gt[n].facing is not None and e.facing == gt[n].facing}
        new = [n for n in newly_seen[t] if n in gt]
        oriented_new = [n for n in new if gt[n].facing is not None and "door" not in n]
        out["update"].append(sum(n in ok for n in new) / len(new) if new else None)
        out["facing_update"].append(sum(n in face for n in oriented_new) / len(oriented_new) if oriented_new else None)
        out["stability"].append(len(prev_ok & ok) / len(prev_ok) if prev_ok and pred is not None else None)
        out["facing_stability"].append(
            len(prev_face & face) / len(prev_face) if prev_face and pred is not None else None
        )
        if pred is not None:
            prev_ok, prev_face = ok, face
        out["self_tracking"].append(_self_tracking(pred, gt, pos_norm_l))
        if local_maps is not None and gt_local_maps is not None and poses is not None:
            perception, local_global = _local_scores(local_maps[t], gt_local_maps[t], pred, gt, poses[t], pos_norm_l)
            out["perception"].append(perception)
            out["local_global"].append(local_global)
    summary: dict[str, Any] = {"per_turn": out}
    for k, vals in out.items():
        summary[k] = mean(v for v in vals if v is not None)
    return summary


def _self_tracking(pred: CogMap | None, gt: CogMap, pos_norm_l: float) -> float | None:
    """Map scores of the ``agent`` entry alone (``None`` without a map or a true agent)."""
    if "agent" not in gt or pred is None:
        return None
    mine = {k: v for k, v in pred.items() if k == "agent"}
    return map_scores(mine, {"agent": gt["agent"]}, pos_norm_l=pos_norm_l).overall


def _local_scores(
    local: CogMap | None,
    gt_local: CogMap,
    pred: CogMap | None,
    gt: CogMap,
    pose: tuple[Vec, Vec],
    pos_norm_l: float,
) -> tuple[float | None, float | None]:
    """``perception`` (the local map against the true local map) and ``local_global`` (the local map carried into
    the global frame with the true pose, against the global map on the items both contain)."""
    perception = map_scores(local, gt_local, pos_norm_l=pos_norm_l).overall if local is not None and gt_local else None
    if local is None or pred is None:
        return perception, None
    _, ori = pose
    fwd, right = ori, (ori[1], -ori[0])
    apos = gt["agent"].pos if "agent" in gt else (0.0, 0.0)
    glob = {}
    for n, e in local.items():
        x, y = e.pos
        glob[n] = MapEntry((apos[0] + x * right[0] + y * fwd[0], apos[1] + x * right[1] + y * fwd[1]), e.facing)
    common = sorted(set(glob) & set(pred))  # sorted: a set's order follows the hash seed, and sums follow the order
    sub_pred = {n: pred[n] for n in common}
    sub_glob = {n: glob[n] for n in common}
    return perception, map_scores(sub_glob, sub_pred, pos_norm_l=pos_norm_l).overall if common else None

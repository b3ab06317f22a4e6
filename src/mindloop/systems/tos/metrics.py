"""Theory-of-Space metrics: cognitive maps, belief diagnostics, uncertainty, exploration, false belief, tasks.

Everything follows the reference implementation (mll-lab-nu/Theory-of-Space) where it defines a score:

* **Cognitive map** (:func:`map_scores`): *direction* is the share of item pairs (the origin added as an item)
  whose 8-bin allocentric relation matches; *facing* the share of oriented objects (doors excluded) with the
  right facing; *position* ``(K/N)·exp(-RMSE/L)`` over the K of N items present, ``L`` the RMS norm of the true
  object positions; *overall* their mean. Maps are parsed leniently (:func:`parse_cognitive_map`): the largest
  JSON block, fenced blocks first, nested ``objects``/``gates`` lists, ``pos``/``xy`` synonyms, facings written
  as ``N``, ``+y``, ``forward``...
* **Uncertainty probe**: cells never in view, sampled per room against seen ones, labelled A–Z; F1 of the
  labels chosen as unexplored.
* **Exploration efficiency**: steps, action cost, node and edge coverage, and the information gain per step (the
  reference's domain-size definition, :func:`mindloop.systems.tos.world.solver.information_gain`), plotted by
  :func:`plot_information_gain`.
* **False belief**: detection F1 (identity and type), redundancy (cost spent after every change was in view),
  belief correctness of the revised map for the changed objects, and belief inertia ``s_pos``/``s_ori`` (how
  much the revised map still holds the obsolete position/facing).
* **Downstream tasks** (:func:`score_answer`): direction + distance 0.5 each (the reference's lenient label
  matching), exact order for ``ment.rot``, coordinate similarity for ``alloc.map``/``view2loc``, simulated
  view checks for ``view2act``/``perc.dec``.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mindloop.errors import InvalidArgumentError
from mindloop.metrics.stats import mean, prf
from mindloop.systems.tos.world.geometry import (
    CARDINALS,
    EAST,
    LABEL_SPELLINGS,
    NORTH,
    SOUTH,
    WEST,
    Vec,
    bearing,
    cardinal_bin,
    closest_heading,
    ego_labels,
    in_fov,
    relative_facing,
    rotate,
    to_local,
    to_world,
    wall_side,
)
from mindloop.systems.tos.world.relations import INITIAL, RelationTriple
from mindloop.systems.tos.world.scene import Scene
from mindloop.systems.tos.world.solver import SpatialSolver, information_gain
from mindloop.systems.tos.world.world import SpatialWorld, world_from_scene


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


def norm_name(name: str) -> str:
    """A name as maps, replies and scenes are matched: in lower case, underscores as spaces, runs of spaces as one
    (``Red_Door``, ``red  door`` and ``red_door`` are one name)."""
    return " ".join(str(name).replace("_", " ").lower().split())


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
    canon = {norm_name(n): n for n in names} if names is not None else None
    out: CogMap = {}
    for raw, info in flat.items():
        key = norm_name(raw)
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
    agree = [
        a in p and b in p and _dir_bin(p[a].pos, p[b].pos) == _dir_bin(g[a].pos, g[b].pos)
        for a, b in itertools.combinations(sorted(g), 2)
    ]
    dir_sim = sum(agree) / len(agree) if agree else 1.0
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


def gt_global_map(
    scene: Scene, pose: tuple[Vec, Vec] | None, names: Iterable[str] | None = None, world: SpatialWorld | None = None
) -> CogMap:
    """The true global map (start at the origin, north +y): the given items (all by default) of the gold world
    (``world``, else :func:`~mindloop.systems.tos.world.world.world_from_scene`: an object's facing, a door's base
    orientation) and the agent."""
    keep = None if names is None else set(names)
    items = (world or world_from_scene(scene)).items
    entries = [(it.name, it.pos, it.facing) for it in items if keep is None or it.name in keep]
    if pose is not None:
        entries.append(("agent", scene.relative(pose[0]), pose[1]))
    return {name: MapEntry((float(pos[0]), float(pos[1])), facing) for name, pos, facing in entries}


def gt_local_map(scene: Scene, pose: tuple[Vec, Vec], world: SpatialWorld | None = None) -> CogMap:
    """The true local map: the items of the gold world (``world``, else the scene's) visible from ``pose``, in the
    agent's frame (``+y`` ahead, ``+x`` right), compass facings."""
    here, ori = scene.relative(pose[0]), pose[1]
    rooms = frozenset(str(r) for r in scene.rooms_at(pose[0]))
    visible = (world or world_from_scene(scene)).visible(here, ori, rooms)
    return {it.name: MapEntry(to_local(it.pos, here, ori), it.facing) for it in visible}


def final_map_scores(scene: Scene, pred: CogMap | None, turns: Sequence[Any]) -> MapScores:
    """A final cognitive map (none: an empty one) against the whole scene, from the pose of the last turn (before
    any turn, the start facing north)."""
    pose = (turns[-1].pos, turns[-1].ori) if turns else (scene.start, NORTH)
    return map_scores(pred or {}, gt_global_map(scene, pose), pos_norm_l=pos_norm(scene))


def facing_of(name: Any) -> Vec | None:
    """The global facing a written name stands for (``north``, ``N``, ``+y``, ``forward`` ...), or ``None``."""
    return _GLOBAL_FACING.get(str(name).lower()) if name else None


# ==== per-turn belief diagnostics ==============================================================================
BELIEF_DIAGNOSTICS = (
    "update",
    "facing_update",
    "stability",
    "facing_stability",
    "self_tracking",
    "perception",
    "local_global",
)
"""The per-turn diagnostics :func:`belief_diagnostics` averages, in the order it writes them."""


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
    out: dict[str, list[float | None]] = {k: [] for k in BELIEF_DIAGNOSTICS}
    prev_ok: set[str] = set()
    prev_face: set[str] = set()
    for t, (pred, gt) in enumerate(zip(maps, gt_maps, strict=True)):
        ok = {n for n, e in (pred or {}).items() if n in gt and math.dist(e.pos, gt[n].pos) <= threshold + 1e-9}
        face = {n for n, e in (pred or {}).items() if n in gt and gt[n].facing is not None and e.facing == gt[n].facing}
        new = [n for n in newly_seen[t] if n in gt]
        oriented_new = [n for n in new if gt[n].facing is not None and "door" not in n]
        out["update"].append(mean(n in ok for n in new))  # a share: the mean of 0/1, None for no items
        out["facing_update"].append(mean(n in face for n in oriented_new))
        out["stability"].append(mean(n in ok for n in prev_ok) if pred is not None else None)
        out["facing_stability"].append(mean(n in face for n in prev_face) if pred is not None else None)
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
    apos = gt["agent"].pos if "agent" in gt else (0.0, 0.0)
    glob = {n: MapEntry(to_world(e.pos, apos, pose[1]), e.facing) for n, e in local.items()}
    common = sorted(set(glob) & set(pred))  # sorted: a set's order follows the hash seed, and sums follow the order
    sub_pred = {n: pred[n] for n in common}
    sub_glob = {n: glob[n] for n in common}
    return perception, map_scores(sub_glob, sub_pred, pos_norm_l=pos_norm_l).overall if common else None


# ==== uncertainty probe ========================================================================================
def unexplored_cells(scene: Scene, views: Iterable[tuple[Vec, Vec]]) -> tuple[dict[int, set[Vec]], dict[int, set[Vec]]]:
    """Cells of each visited room never in view (and those seen), after observing from ``views`` (poses).

    As the reference: an observation clears the observer's cell and every cell of its room(s) within the field
    of view (90° plus 2e-3° of slack). Rooms never observed from are left out.
    """
    unexplored = {r: set(scene.room_cells(r)) for r in scene.room_ids}
    explored: dict[int, set[Vec]] = {r: set() for r in scene.room_ids}
    visited: set[int] = set()
    half = math.cos(math.radians((90 + 2e-3) / 2.0))
    for pos, ori in views:
        for r in scene.rooms_at(pos):
            visited.add(r)
            cells = unexplored[r]
            for c in list(cells):
                dx, dy = c[0] - pos[0], c[1] - pos[1]
                d = math.hypot(dx, dy)
                if d == 0 or (ori[0] * dx + ori[1] * dy) / d >= half:
                    cells.discard(c)
                    explored[r].add(c)
    return ({r: c for r, c in unexplored.items() if r in visited}, {r: c for r, c in explored.items() if r in visited})


def fog_probe_candidates(
    scene: Scene, views: Iterable[tuple[Vec, Vec]], agent_pos: Vec, seed: int
) -> tuple[list[Vec], list[Vec]]:
    """Candidate cells (relative to the start) and the correct (unexplored) ones for the uncertainty probe.

    Per visited room, up to 3 unexplored and as many explored cells (doors and the agent's cell excluded), in a
    seeded shuffled order; label them ``A``, ``B``, ... in that order. Empty when nothing is left unexplored.
    """
    rng = random.Random(f"fog:{seed}")
    unexplored, explored = unexplored_cells(scene, views)
    doors = {d.pos for d in scene.doors}
    cands: list[Vec] = []
    correct: list[Vec] = []
    for r in sorted(unexplored):
        u = sorted(c for c in unexplored[r] if c not in doors and c != agent_pos)
        e = sorted(c for c in explored[r] if c not in doors and c != agent_pos)
        k = min(3, len(u), len(e))
        if k <= 0:
            continue
        us, es = rng.sample(u, k), rng.sample(e, k)
        correct += us
        cands += us + es
    rng.shuffle(cands)
    return [scene.relative(c) for c in cands], [scene.relative(c) for c in correct]


def parse_fog_probe(text: str, candidates: Sequence[Vec]) -> list[Vec]:
    """The candidate cells a reply selects (``{"unexplored": ["A", "C"]}`` or bare letters)."""
    data = extract_json(text)
    labels: list[str] = []
    if isinstance(data, Mapping):
        v = data.get("unexplored", data.get("points", data.get("candidates")))
        if isinstance(v, list):
            labels = [str(x).strip().upper() for x in v if isinstance(x, str) and len(str(x).strip()) == 1]
        elif isinstance(v, str):
            labels = re.findall(r"\b([A-Z])\b", v)
    else:
        labels = re.findall(r"\b([A-Z])\b", text)
    out: list[Vec] = []
    for lab in dict.fromkeys(labels):
        idx = ord(lab) - ord("A")
        if 0 <= idx < len(candidates):
            out.append((int(candidates[idx][0]), int(candidates[idx][1])))
    return out


def score_fog_probe(predicted: Sequence[Vec], correct: Sequence[Vec]) -> dict[str, float]:
    """Precision, recall and F1 (``overall``) of predicted unexplored cells."""
    if not correct:
        raise InvalidArgumentError("the uncertainty probe needs at least one unexplored candidate")
    s = prf(map(tuple, predicted), map(tuple, correct))  # nothing chosen: all 0 (the shared convention)
    return {"precision": s.precision, "recall": s.recall, "overall": s.f1}


# ==== exploration efficiency ===================================================================================
def information_gain_curve(
    turn_triples: Sequence[Sequence[RelationTriple]], names: Sequence[str], grid_size: int
) -> list[float]:
    """Information gain after each turn, from the cumulative evidence of the turns so far."""
    solver = SpatialSolver([*names, INITIAL], grid_size, origin=INITIAL)
    curve: list[float] = []
    for triples in turn_triples:
        if triples:
            solver.add(triples)
        curve.append(information_gain(solver.counts(), grid_size))
    return curve


def plot_information_gain(curves: Mapping[str, Sequence[float]], path: str | Path, *, title: str = "") -> Path:
    """Plot accumulated information gain per step, one line per agent (mean over episodes, the last value
    carried forward), like the paper's Figure 2. Writes a PNG and returns its path."""
    from matplotlib.figure import Figure  # a bare figure, as the run report draws them: no pyplot, no global state

    fig = Figure(figsize=(6, 4))
    ax = fig.add_subplot()
    for label, ys in curves.items():
        ax.plot(range(1, len(ys) + 1), list(ys), marker="o", markersize=3, label=label)
    ax.set_xlabel("exploration step")
    ax.set_ylabel("accumulated information gain")
    ax.set_ylim(0, 1)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    out = Path(path)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    return out


def mean_curve(curves: Iterable[Sequence[float]]) -> list[float]:
    """Mean of curves of different lengths, each carried forward at its last value (reference convention)."""
    cs = [list(c) for c in curves if c]
    if not cs:
        return []
    n = max(len(c) for c in cs)
    padded = [c + [c[-1]] * (n - len(c)) for c in cs]
    return [sum(c[i] for c in padded) / len(padded) for i in range(n)]


# ==== false belief =============================================================================================
def false_belief_scores(
    result: Mapping[str, Any],
    prior: Mapping[str, MapEntry] | None,
    revised: Mapping[str, MapEntry] | None,
    *,
    pos_norm_l: float,
) -> dict[str, float | None]:
    """Scores of a false-belief phase from the environment's result, the map before and after revision.

    ``belief_pos``/``belief_ori``: for moved objects, ``exp(-d/L)`` between revised and new position; for turned
    ones, whether the revised facing is the new one. Belief inertia: ``inertia_pos`` (``s_pos``) is the share of
    each move *not* taken into the revised belief, ``clip(1 - |revised - old| / |new - old|, 0, 1)`` (1: the belief
    stayed at the obsolete cell, 0: it moved all the way or elsewhere); ``inertia_ori`` (``s_ori``) the share of
    turned objects still believed to face the old way. ``retention_pos`` is the reference's retention:
    ``exp(-d/L)`` between the revised and the prior belief of moved objects. ``redundancy``: action cost spent
    after every changed object had been in view.
    """
    truth = list(result.get("truth", []))
    revised = revised or {}
    moved = [c for c in truth if c["type"] == "position"]
    turned = [c for c in truth if c["type"] == "orientation"]

    def rel(c: Mapping[str, Any], key: str) -> tuple[float, float]:
        return (float(c[key][0]), float(c[key][1]))

    def sim(a: tuple[float, float], b: tuple[float, float]) -> float:
        return math.exp(-math.dist(a, b) / pos_norm_l)

    def inertia(c: Mapping[str, Any]) -> float:
        if c["name"] not in revised:
            return 0.0
        old, new, got = rel(c, "old_rel"), rel(c, "new_rel"), revised[c["name"]].pos
        span = math.dist(old, new)
        return max(0.0, min(1.0, 1.0 - math.dist(got, old) / span)) if span else 0.0

    belief_pos = [sim(revised[c["name"]].pos, rel(c, "new_rel")) if c["name"] in revised else 0.0 for c in moved]
    inertia_pos = [inertia(c) for c in moved]
    retention_pos = [
        sim(revised[c["name"]].pos, prior[c["name"]].pos)
        for c in moved
        if prior and c["name"] in prior and c["name"] in revised
    ]

    def faces(c: Mapping[str, Any], key: str) -> float:
        return float(c["name"] in revised and revised[c["name"]].facing == facing_of(c[key]))

    belief_ori = [faces(c, "new_facing") for c in turned]
    inertia_ori = [faces(c, "old_facing") for c in turned]

    return {
        "f1": float(result.get("f1", 0.0)),
        "f1_position": float(result.get("f1_position", 0.0)),
        "f1_facing": float(result.get("f1_facing", 0.0)),
        "steps": float(result.get("steps", 0)),
        "redundancy": None if result.get("action_cost_after_seen") is None else float(result["action_cost_after_seen"]),
        "belief_pos": mean(belief_pos),
        "belief_ori": mean(belief_ori),
        "inertia_pos": mean(inertia_pos),
        "inertia_ori": mean(inertia_ori),
        "retention_pos": mean(retention_pos),
        "prior_known": None if prior is None else float(all(c["name"] in prior for c in truth)),
    }


# ==== downstream task scoring ==================================================================================
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
    return closest_heading(v)


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
        direction, distance = ego_labels(target, pos, ori)
        if _canonical(direction) != _canonical(item["direction"]) or _canonical(distance) != _canonical(
            item["distance"]
        ):
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

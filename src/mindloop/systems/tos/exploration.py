"""Theory-of-Space exploration metrics: the uncertainty probe (cells never in view), exploration efficiency
(information gain per step, and its plot) and the false-belief phase (detection, redundancy, revised belief,
belief inertia).

See :mod:`mindloop.systems.tos.metrics` for how each score follows the reference implementation.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mindloop.errors import DependencyError, InvalidArgumentError
from mindloop.metrics.stats import mean, prf
from mindloop.systems.tos.cogmap import MapEntry, extract_json, facing_of
from mindloop.systems.tos.world.geometry import (
    Vec,
)
from mindloop.systems.tos.world.relations import INITIAL, RelationTriple
from mindloop.systems.tos.world.scene import Scene
from mindloop.systems.tos.world.solver import SpatialSolver, information_gain

__all__ = [
    "false_belief_scores",
    "fog_probe_candidates",
    "information_gain_curve",
    "mean_curve",
    "parse_fog_probe",
    "plot_information_gain",
    "score_fog_probe",
    "unexplored_cells",
]


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
    solver = SpatialSolver([*names, INITIAL], grid_size)
    solver.set_position(INITIAL, (0, 0))
    curve: list[float] = []
    for triples in turn_triples:
        if triples:
            solver.add(triples)
        curve.append(information_gain(solver.counts(), grid_size))
    return curve


def plot_information_gain(curves: Mapping[str, Sequence[float]], path: str | Path, *, title: str = "") -> Path:
    """Plot accumulated information gain per step, one line per agent (mean over episodes, the last value
    carried forward), like the paper's Figure 2. Writes a PNG and returns its path."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - matplotlib is a core dependency
        raise DependencyError("plotting needs matplotlib: pip install matplotlib") from exc
    fig, ax = plt.subplots(figsize=(6, 4))
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
    plt.close(fig)
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
    belief_ori = [
        float(c["name"] in revised and revised[c["name"]].facing == facing_of(c["new_facing"])) for c in turned
    ]
    inertia_ori = [
        float(c["name"] in revised and revised[c["name"]].facing == facing_of(c["old_facing"])) for c in turned
    ]

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

"""Relation triples: what one observation or query says about positions, in solver-ready form.

An observation made at anchor ``A`` (the start, ``initial_pos``, or the object the agent stands on) facing
``ori`` says, for each visible item ``X``, "X lies in ego bin *d*, distance bin *s* from A facing ori"; each
proximity line says "X lies in cardinal bin *d*, distance bin *s* from Y, with ori called north"; a query says
"X is exactly (dx, dy) from the start". These are the constraints of :mod:`mindloop.systems.tos.world.solver` and
everything an agent may legitimately know about positions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mindloop.systems.tos.world.geometry import CARDINAL_LABELS, DISTANCE_LABELS, EGO_LABELS, Vec
from mindloop.systems.tos.world.observe import Observation

INITIAL = "initial_pos"
"""The name of the agent's start cell in relation triples and solvers."""

_RelationKind = Literal["ego", "proximity", "exact"]


@dataclass(frozen=True, slots=True)
class Relation:
    """A binned (``ego``/``proximity``) or exact relation; for ``exact``, ``direction, distance`` = ``dx, dy``."""

    kind: _RelationKind
    direction: int
    distance: int


@dataclass(frozen=True, slots=True)
class RelationTriple:
    """``subject`` relative to ``anchor`` under ``relation``, seen with heading ``orientation``."""

    subject: str
    anchor: str
    relation: Relation
    orientation: Vec


def observation_triples(obs: Observation, anchor: str, ori: Vec) -> list[RelationTriple]:
    """The constraints an observation adds, made at ``anchor`` facing ``ori``."""
    out = [
        RelationTriple(
            it.name, anchor, Relation("ego", EGO_LABELS.index(it.direction), DISTANCE_LABELS.index(it.distance)), ori
        )
        for it in obs.items
    ]
    out += [
        RelationTriple(
            p.a, p.b, Relation("proximity", CARDINAL_LABELS.index(p.direction), DISTANCE_LABELS.index(p.distance)), ori
        )
        for p in obs.pairs
    ]
    return out


def query_triple(name: str, offset: Vec) -> RelationTriple:
    """The constraint a query adds: ``name`` is exactly ``offset`` from the start."""
    return RelationTriple(name, INITIAL, Relation("exact", offset[0], offset[1]), (0, 1))

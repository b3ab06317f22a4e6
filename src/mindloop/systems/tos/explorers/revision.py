"""Belief revision in the false-belief phase: a symbolic change detector.

Back at the start after covert changes, the detector sweeps the rooms again (SCOUT's route) and compares every
view with its prior map: an item seen in other bins than its believed cell implies, or with another facing, has
changed; an item the prior map puts in view, in the same room, that does not show up has moved. It stops
sweeping once it has found as many changes as it was told there are, queries the moved objects it still cannot
place exactly (when steps allow) and reports ``Term(changes="...")``. Its revised map keeps the prior map for
unchanged items and uses only the new evidence for moved ones.
"""

from __future__ import annotations

from collections.abc import Iterator

from mindloop.systems.tos.explorers.base import format_actions
from mindloop.systems.tos.explorers.belief import FACING_TURN, SpatialBelief
from mindloop.systems.tos.explorers.scout import ScoutExplorer
from mindloop.systems.tos.world.env import SpatialEnv
from mindloop.systems.tos.world.geometry import ego_labels, in_fov, rotate
from mindloop.systems.tos.world.observe import Observation
from mindloop.systems.tos.world.relations import INITIAL


class ChangeDetector(ScoutExplorer):
    """Finds covert changes against a prior belief (see the module docstring)."""

    name = "symbolic"

    def __init__(self, prior: SpatialBelief, expected: int | None = None) -> None:
        self.prior = prior
        self.expected = expected
        self.moved: set[str] = set()
        self.turned: set[str] = set()
        self.revised: SpatialBelief | None = None

    def actions(self, env: SpatialEnv) -> Iterator[str]:
        """Sweep with detection, queries for moved objects, then the report."""
        self._prior_pos = {n: self.prior.estimate(n) for n in self.prior.seen}
        self._prior_pos[INITIAL] = (0, 0)
        self._anchor = INITIAL
        self._follow = SpatialBelief(self.prior.objects, self.prior.doors, self.prior.solver.grid_size)
        self._checked = len(env.turns)
        self._env = env
        sweep = super().actions(env)
        for action in sweep:
            if action.endswith("[Term()]"):
                break
            yield action
            self._check()
        for name in sorted(self.moved):
            if env.steps_left <= 1:
                break
            if self._follow.solver.resolved(name) is None and name in env.observed:
                yield format_actions([f"Query({name})"])
                self._check()
        self.revised = self._revise()
        report = [f"{n}: position" for n in sorted(self.moved)] + [f"{n}: orientation" for n in sorted(self.turned)]
        yield f'Actions: [Term(changes="{", ".join(report)}")]' if report else 'Actions: [Term(changes="nothing")]'

    def all_known(self) -> bool:
        """Stop when the announced number of changes has been found, or everything was seen again."""
        if self.expected is not None and len(self.moved | self.turned) >= self.expected:
            return True
        return super().all_known()

    def _check(self) -> None:
        env = self._env
        for t in env.turns[self._checked :]:
            self._follow.update(t.results)
            for r in t.results:
                if r.kind == "observe" and r.observation is not None:
                    self._compare(r.observation)
        self._checked = len(env.turns)

    def _compare(self, obs: Observation) -> None:
        anchor, heading = self._follow.anchor, self._follow.heading
        here = self._prior_pos.get(anchor)
        if here is None:
            return
        seen = set(obs.names)
        for it in obs.items:
            old = self._prior_pos.get(it.name)
            if (
                old is not None
                and it.name not in self.prior.door_normals
                and (ego_labels(old, here, heading) != (it.direction, it.distance) or not in_fov(here, heading, old))
            ):
                self.moved.add(it.name)
            if (
                it.facing
                and it.name in self.prior.facing
                and it.name not in self.moved
                and rotate(heading, FACING_TURN[it.facing]) != self.prior.facing[it.name]
            ):
                self.turned.add(it.name)
        rooms = self._follow.rooms
        for name, old in self._prior_pos.items():
            if name in (INITIAL, anchor) or name in seen or old is None or name in self.prior.door_normals:
                continue
            if self.prior.room_of.get(name, frozenset()) & rooms and in_fov(here, heading, old):
                self.moved.add(name)

    def _revise(self) -> SpatialBelief:
        changed = self.moved
        out = SpatialBelief(self.prior.objects, self.prior.doors, self.prior.solver.grid_size)
        keep = [t for t in self.prior.triples if t.subject not in changed and t.anchor not in changed]
        out.add(keep)
        out.add(self._follow.triples)
        out.seen = set(self.prior.seen) | set(self._follow.seen)
        out.facing = dict(self.prior.facing) | dict(self._follow.facing)
        out.door_normals = dict(self.prior.door_normals)
        out.room_of = dict(self.prior.room_of)
        out.heading, out.anchor = self._follow.heading, self._follow.anchor
        return out

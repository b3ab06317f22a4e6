"""STRATEGIST: SCOUT's sweep, then a room-local constraint solver to resolve what the sweep left ambiguous.

In each room, after the entry sweep, a solver over the room's objects and doors (origin: the entry point, the
start or the door it came in by) takes the room's observations. While some domain has more than one cell and
some pair in the room was never observed from one of its ends, it picks the object with unobserved pairs and
the largest domain, jumps there, faces the heading that covers most candidate pairs (sampled cells of the
anchor against sampled cells of the others), observes, and keeps turning at that object while it still has
unobserved pairs. Finally, as the reference's strategist does, it queries objects greedily (largest drop of the
total domain size first) until every position is a single cell. This is the reference's ``strategist`` proxy
(``AnalystAgentProxy`` with the ``candidate_planner`` delegate), with seeded sampling.
"""

from __future__ import annotations

import random
from collections.abc import Generator, Iterator

from mindloop.systems.tos.explorers.base import format_actions
from mindloop.systems.tos.explorers.scout import ScoutExplorer
from mindloop.systems.tos.world.env import SpatialEnv
from mindloop.systems.tos.world.geometry import CARDINALS, Vec, closest_heading
from mindloop.systems.tos.world.relations import INITIAL, query_triple
from mindloop.systems.tos.world.solver import SpatialSolver


class StrategistExplorer(ScoutExplorer):
    """The STRATEGIST proxy (see the module docstring)."""

    name = "strategist"

    def __init__(self, *, seed: int = 0, samples: int = 30, max_queries: int = 16, max_observes: int = 100) -> None:
        self.seed = seed
        self.samples = samples
        self.max_queries = max_queries
        self.max_observes = max_observes

    def actions(self, env: SpatialEnv) -> Iterator[str]:
        """Sweep with room-local resolution, greedy queries, then ``Term()``."""
        self._rng = random.Random(f"strategist:{self.seed}")
        scene = env.scene
        self._nodes = {
            r: {o.name for o in scene.objects_in(r)} | {d.name for d in scene.doors_of(r)} for r in scene.room_ids
        }
        self._edges = SpatialEnv.room_edges(scene)
        self._known: dict[int, set[frozenset[str]]] = {r: set() for r in scene.room_ids}
        return super().actions(env)

    # ---- per-room planning -----------------------------------------------------------------------------------
    def _record(self, room: int, anchor: str) -> None:
        """Note the pairs the last observation covered from ``anchor``."""
        obs = self._env.turns[-1].observations
        if obs:
            for name in obs[-1].names:
                if name != anchor:
                    self._known[room].add(frozenset({anchor, name}))

    def explore_room(self, room: int, initial: bool, prefix: list[str]) -> Generator[str, None, bool]:
        """Entry sweep (recording pairs from the entry point), then the candidate planner."""
        env = self._env
        self._entry = entry = INITIAL if initial else self._entry_gate(room)
        start_turn = len(env.turns)
        observed = yield from super().explore_room(room, initial, prefix)
        prefix = [] if observed else prefix
        solver = SpatialSolver(sorted(self._nodes[room] | {entry}), env.scene.grid_size, origin=entry)
        for t in env.turns[start_turn:]:
            solver.add(t.triples)
        if self._done(solver, room):
            return observed
        budget, moved = self.max_observes, set[str]()
        while budget > 0 and not self._done(solver, room):
            candidates = sorted(a for a in self._nodes[room] - moved if self._open(room, a))
            if not candidates:
                break
            anchor = max(candidates, key=lambda n: solver.count(n))
            used: set[Vec] = set()
            seen: set[str] = set()
            while budget > 0 and self._open(room, anchor) and not self._done(solver, room):
                ori = self._best_direction(solver, room, anchor, seen | moved, used)
                if ori is None:
                    break
                motions = prefix + self._pose.move_to_visible(anchor)
                prefix = []
                if self._pose.pos != env.scene.item(anchor).pos:
                    self._pose.sync()  # not reachable in one view from here: give this anchor up
                    break
                yield self.observe(motions + self._pose.rotate_to(ori))
                observed = True
                self._record(room, anchor)
                solver.add(env.turns[-1].triples)
                used.add(ori)
                budget -= 1
                last = env.turns[-1].observations
                seen |= set(last[-1].names) - {anchor} if last else set()
            moved.add(anchor)
        return observed

    def viewed(self, room: int) -> None:
        """Note the pairs each view of the entry sweep covered from the entry point."""
        self._record(room, self._entry)

    def _entry_gate(self, room: int) -> str:
        for d in self._env.scene.doors_of(room):
            if d.pos == self._pose.pos:
                return d.name
        return INITIAL

    def _open(self, room: int, anchor: str) -> bool:
        """Whether ``anchor`` has an unobserved pair with another object or door of the room."""
        nodes = self._nodes[room]
        return any(anchor in e and (e - {anchor}) <= nodes for e in self._edges[room] - self._known[room])

    def _done(self, solver: SpatialSolver, room: int) -> bool:
        """Whether the room needs no more views: every position in it is one cell, or every pair was observed."""
        if all(solver.domains.get(n) is not None and solver.count(n) == 1 for n in self._nodes[room]):
            return True
        return not (self._edges[room] - self._known[room])

    def _best_direction(
        self, solver: SpatialSolver, room: int, anchor: str, exclude: set[str], used: set[Vec]
    ) -> Vec | None:
        dirs = [d for d in CARDINALS if d not in used]
        if not dirs:
            return None
        others = sorted(
            o for o in self._nodes[room] - {anchor} - exclude if frozenset({anchor, o}) not in self._known[room]
        )
        totals = dict.fromkeys(dirs, 0)

        def sample(name: str) -> list[Vec]:
            cells = solver.cells(name)
            return cells if len(cells) <= self.samples else self._rng.sample(cells, self.samples)

        anchor_cells = sample(anchor)
        for other in others:
            for pb in sample(other):
                for pa in anchor_cells:
                    v = (pb[0] - pa[0], pb[1] - pa[1])
                    key = closest_heading(v)
                    if key in totals:
                        totals[key] += 1
        best = max(dirs, key=lambda d: totals[d])
        return best if totals[best] > 0 else None

    # ---- global queries --------------------------------------------------------------------------------------
    def after_sweep(self) -> Iterator[str]:
        """Greedy queries until every position is a single cell (or no query helps)."""
        env, scene = self._env, self._env.scene
        names = [it.name for it in scene.items]
        solver = SpatialSolver([*names, INITIAL], scene.grid_size, origin=INITIAL)
        for t in env.turns:
            solver.add(t.triples)
        for _ in range(self.max_queries):
            total = sum(self._full_count(solver, n) for n in [*names, INITIAL])
            if total <= len(names) + 1:
                return
            best: tuple[int, str] | None = None
            for name in names:
                if name not in env.observed or solver.resolved(name) is not None:
                    continue
                trial = solver.copy()
                trial.add([query_triple(name, scene.relative(scene.item(name).pos))])
                gain = total - sum(self._full_count(trial, n) for n in [*names, INITIAL])
                if best is None or gain > best[0]:
                    best = (gain, name)
            if best is None or best[0] <= 0:
                return
            yield format_actions([f"Query({best[1]})"])
            solver.add(env.turns[-1].triples)

    @staticmethod
    def _full_count(solver: SpatialSolver, name: str) -> int:
        """Domain size with an unconstrained domain counted as the whole grid ``(2g+1)²``."""
        return (2 * solver.grid_size + 1) ** 2 if solver.domains[name] is None else solver.count(name)

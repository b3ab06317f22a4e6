"""The symbolic explorer: SCOUT's sweep for coverage, then the steps that pin its cognitive map down exactly.

It keeps an exact belief: the set of cells each object and door may occupy given everything observed
(:class:`~mindloop.systems.tos.explorers.belief.SpatialBelief`). After the sweep it spends the remaining steps on
whichever single step resolves most positions: an ``Observe()`` from any reachable pose (jumping through
visible items and turning within the same step) or a ``Query(OBJ)``. Like the reference's oracle proxy it plans
with the simulator (what a view would show, what a query would return); its map is built only from the
environment's replies. It stops with ``Term()`` when every seen item is pinned to one cell.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from mindloop.systems.tos.explorers.base import format_actions
from mindloop.systems.tos.explorers.belief import SpatialBelief
from mindloop.systems.tos.explorers.scout import ScoutExplorer
from mindloop.systems.tos.world.env import SpatialEnv
from mindloop.systems.tos.world.geometry import Vec, rotate
from mindloop.systems.tos.world.observe import visible_names
from mindloop.systems.tos.world.relations import INITIAL, RelationTriple, observation_triples, query_triple
from mindloop.systems.tos.world.scene import breadth_first

_Pose = tuple[Vec, Vec]


class SymbolicExplorer(ScoutExplorer):
    """Sweep, then greedily resolve every position (see the module docstring)."""

    name = "symbolic"

    def __init__(self, belief: SpatialBelief | None = None) -> None:
        self.belief = belief

    def actions(self, env: SpatialEnv) -> Iterator[str]:
        """The sweep, the resolving steps, then ``Term()``."""
        if self.belief is None:
            from mindloop.systems.tos.explorers.base import new_belief

            self.belief = new_belief(env)
        return super().actions(env)

    def after_sweep(self) -> Iterator[str]:
        """Resolving steps while something is unresolved and steps remain."""
        env, belief = self._env, self.belief
        assert belief is not None
        while env.steps_left > 0 and belief.uncertain():
            choice = self._best_step()
            if choice is None:
                return
            yield choice
            self._pose.sync()

    def _reachable(self) -> dict[_Pose, list[str]]:
        """Every pose reachable within one step through observed items, with the motions that reach it."""
        env, scene = self._env, self._env.scene

        def moves(pose: _Pose) -> list[tuple[_Pose, str]]:
            pos, ori = pose
            steps: list[tuple[_Pose, str]] = [((pos, rotate(ori, d)), f"Rotate({d})") for d in (90, -90, 180)]
            # the observed items in view, sorted: so paths and ties never follow the hash seed
            for name in sorted(env.observed.intersection(visible_names(scene, pos, ori, scene.rooms_at(pos)))):
                steps.append(((scene.item(name).pos, ori), f"JumpTo({name})"))
            return steps

        return dict(breadth_first(env.pose, moves))

    def _best_step(self) -> str | None:
        env, scene, belief = self._env, self._env.scene, self.belief
        assert belief is not None
        unresolved = set(belief.uncertain())
        base_total = sum(belief.solver.count(n) for n in unresolved)
        best: tuple[tuple[int, int, int], str] | None = None

        def consider(triples: Iterable[RelationTriple], cost: int, action: str) -> None:
            """Score ``action`` by what its ``triples`` would resolve (ties: the lower ``cost``, a query costing 1)."""
            nonlocal best
            trial = belief.solver.copy()
            trial.add(triples)
            left = [n for n in unresolved if trial.resolved(n) is None]
            score = (len(unresolved) - len(left), base_total - sum(trial.count(n) for n in left), -cost)
            if best is None or score > best[0]:
                best = (score, action)

        for name in sorted(unresolved):
            consider([query_triple(name, scene.relative(scene.item(name).pos))], 1, f"Query({name})")
        for (pos, ori), motions in self._reachable().items():
            it = scene.item_at(pos)
            anchor = INITIAL if pos == scene.start else (it.name if it is not None else None)
            if anchor is None:
                continue
            obs, _ = env.observation_at(pos, ori)
            if not (unresolved & (set(obs.names) | {anchor})):
                continue
            consider(observation_triples(obs, anchor, ori), len(motions), format_actions([*motions, "Observe()"]))
        if best is None or best[0][:2] == (0, 0):
            return None
        action = best[1]
        return action if action.startswith("Actions:") else format_actions([action])

"""SCOUT: sweep each room, depth-first through doors, until every object and door has been seen.

At the start it observes in four directions (turning 90° clockwise between views); on entering a room through a
door it faces into the room and observes ahead, to the right and to the left. Rooms are visited depth-first in
room-id order, coming back through the same doors. It stops as soon as every object and door has been seen
(it was told all their names). This is the reference's sweep proxy (``scout``).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator

from mindloop.systems.tos.explorers.base import PosePlanner, format_actions
from mindloop.systems.tos.world.env import SpatialEnv


class ScoutExplorer:
    """The SCOUT proxy (see the module docstring)."""

    name = "scout"

    def actions(self, env: SpatialEnv) -> Iterator[str]:
        """The sweep, then ``Term()``."""
        self._env = env
        self._pose = PosePlanner(env)
        self._visited: set[int] = set()
        self._total = {it.name for it in env.scene.items}
        self._scanned = len(env.turns)
        self._seen: set[str] = set()
        yield from self._dfs(env.scene.start_room, True, [])
        yield from self.after_sweep()
        yield format_actions(["Term()"])

    # hooks for subclasses -------------------------------------------------------------------------------------
    def after_sweep(self) -> Iterator[str]:
        """Steps after the sweep and before ``Term()`` (none for SCOUT)."""
        return iter(())

    def explore_room(self, room: int, initial: bool, prefix: list[str]) -> Generator[str, None, bool]:
        """Observe a room on entry; returns whether anything was observed (so pending motions were used)."""
        observed = False
        for d in (0, 90, 90, 90) if initial else (0, 90, 180):
            if self.all_known():
                break
            yield self.observe(prefix + self._pose.rotate_by(d))
            self.viewed(room)
            prefix = []
            observed = True
        return observed

    def viewed(self, room: int) -> None:
        """Called after each view of a room's entry sweep, the pose planner in step (nothing for SCOUT)."""

    # shared machinery -----------------------------------------------------------------------------------------
    def seen(self) -> set[str]:
        """Names seen since this explorer started (a later phase starts from nothing)."""
        for t in self._env.turns[self._scanned :]:
            for obs in t.observations:
                self._seen.update(obs.names)
        self._scanned = len(self._env.turns)
        return self._seen

    def all_known(self) -> bool:
        """Whether every object and door has been seen."""
        return self.seen() >= self._total

    def observe(self, motions: list[str]) -> str:
        """The action string of motions followed by ``Observe()`` (the pose planner already moved)."""
        return format_actions([*motions, "Observe()"])

    def _dfs(self, room: int, initial: bool, prefix: list[str]) -> Generator[str, None, list[str]]:
        self._visited.add(room)
        observed = yield from self._wrap(self.explore_room(room, initial, prefix))
        carry = [] if observed else list(prefix)
        if self.all_known():
            return carry
        for child in self._env.scene.adjacent_rooms(room):
            if child in self._visited:
                continue
            carry = yield from self._dfs(child, False, carry + self._pose.traverse(room, child))
            if self.all_known():
                return carry
            carry = carry + self._pose.traverse(child, room)
        return carry

    def _wrap(self, gen: Generator[str, None, bool]) -> Generator[str, None, bool]:
        """Re-sync the pose planner with the environment after every executed step."""
        try:
            action = next(gen)
            while True:
                yield action
                self._pose.sync()
                action = gen.send(None)
        except StopIteration as stop:
            return bool(stop.value)

"""What every explorer shares: the protocol, a pose planner for scripted proxies, and the episode runner.

An explorer is a generator of action strings (``Actions: [...]``): :func:`run_exploration` steps the
environment with each one before asking for the next, so an explorer can read what its last action produced.
Scripted proxies (SCOUT, STRATEGIST, the symbolic explorer) plan with the scene itself, as the reference's proxy
agents do (room membership, where a door is, whether a target is in view); what they *know* is kept apart, in a
:class:`~mindloop.systems.tos.explorers.belief.SpatialBelief` fed only with the environment's replies.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from mindloop.systems.tos.explorers.belief import SpatialBelief
from mindloop.systems.tos.world.env import SpatialEnv, Turn
from mindloop.systems.tos.world.geometry import Vec, closest_heading, in_fov, rotate, rotation_between
from mindloop.systems.tos.world.scene import Scene


@runtime_checkable
class Explorer(Protocol):
    """Chooses actions in a :class:`SpatialEnv`; ``name`` is what benchmarks call it."""

    name: str

    def actions(self, env: SpatialEnv) -> Iterator[str]:
        """Action strings, one per step; the environment has executed each before the next is requested."""
        ...


def format_actions(actions: list[str]) -> str:
    """``["Rotate(90)", "Observe()"]`` → ``Actions: [Rotate(90), Observe()]``."""
    return "Actions: [" + ", ".join(actions) + "]"


def new_belief(env: SpatialEnv) -> SpatialBelief:
    """An empty belief for the agent in ``env`` (it knows the object and door names and the grid size)."""
    scene = env.initial_scene
    return SpatialBelief([o.name for o in scene.objects], [d.name for d in scene.doors], scene.grid_size)


@dataclass
class Exploration:
    """One phase of exploration: its turns (privileged records), the agent's belief, and how it ended."""

    turns: list[Turn] = field(default_factory=list)
    belief: SpatialBelief | None = None
    terminated: bool = False
    truncated: bool = False
    infos: list[dict[str, Any]] = field(default_factory=list)

    @property
    def steps(self) -> int:
        """Steps taken, not counting a final ``Term``."""
        return sum(1 for t in self.turns if not (t.valid and t.results and t.results[-1].kind == "term"))


def run_exploration(env: SpatialEnv, explorer: Explorer, belief: SpatialBelief | None = None) -> Exploration:
    """Let ``explorer`` act until it stops, the phase ends (``Term``) or the budget runs out."""
    out = Exploration(belief=belief)
    phase = env.phase
    for action in explorer.actions(env):
        _, _, terminated, truncated, info = env.step(action)
        out.turns.append(env.turns[-1])
        out.infos.append(info)
        if belief is not None:
            belief.update(info["results"])
        if terminated or truncated or env.phase != phase:
            out.terminated, out.truncated = terminated, truncated
            break
    return out


class PosePlanner:
    """Tracks the agent's pose while a scripted proxy plans a step's motions before executing them."""

    def __init__(self, env: SpatialEnv) -> None:
        self.env = env
        self.sync()

    @property
    def scene(self) -> Scene:
        """The scene being explored (privileged)."""
        return self.env.scene

    def sync(self) -> None:
        """Take the pose from the environment (after a step)."""
        self.pos, self.ori = self.env.pose
        self.rooms = self.scene.rooms_at(self.pos)

    def rotate_by(self, degrees: int) -> list[str]:
        """A rotation (normalised to ``(-180, 180]``), or nothing for 0."""
        d = degrees % 360
        if d > 180:
            d -= 360
        if d == 0:
            return []
        self.ori = rotate(self.ori, d)
        return [f"Rotate({d})"]

    def rotate_to(self, ori: Vec) -> list[str]:
        """Turn to face ``ori``."""
        return self.rotate_by(rotation_between(self.ori, ori))

    def face(self, target: Vec) -> list[str]:
        """Turn to the heading closest to ``target`` (ties: north, east, south, west first)."""
        v = (target[0] - self.pos[0], target[1] - self.pos[1])
        if v == (0, 0):
            return []
        return self.rotate_to(closest_heading(v))

    def jump(self, name: str) -> list[str]:
        """Jump to an item (the caller made sure it is visible)."""
        self.pos, self.rooms = self.scene.item(name).pos, self.scene.item_rooms(name)
        return [f"JumpTo({name})"]

    def visible(self, name: str) -> bool:
        """Whether ``name`` is in view from the planned pose."""
        return bool(self.rooms & self.scene.item_rooms(name)) and in_fov(self.pos, self.ori, self.scene.item(name).pos)

    def move_to_visible(self, name: str) -> list[str]:
        """Turn (up to a full circle, starting with the heading closest to it) until ``name`` is in view, then
        jump to it; nothing if already there."""
        it = self.scene.item(name)
        if it.pos == self.pos:
            return []
        v = (it.pos[0] - self.pos[0], it.pos[1] - self.pos[1])
        base = closest_heading(v)
        acts: list[str] = []
        for d in (0, 90, 180, 270):
            acts += self.rotate_to(rotate(base, d))
            if self.visible(name):
                return acts + self.jump(name)
        return acts

    def traverse(self, current: int, nxt: int) -> list[str]:
        """Go to the door from room ``current`` to room ``nxt`` and face into ``nxt``."""
        door = self.scene.door_between(current, nxt)
        acts: list[str] = []
        if self.pos != door.pos:
            acts += self.face(door.pos)
            acts += self.jump(door.name)
        n = door.normal_for(current)
        acts += self.rotate_to((-n[0], -n[1]))
        return acts

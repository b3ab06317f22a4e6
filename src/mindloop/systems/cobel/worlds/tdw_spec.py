"""The TDW-MAT-style world's specification, apart from its simulator (:mod:`~mindloop.systems.cobel.worlds.tdw`).

The rules' numbers (frame budget and costs, hands, container capacity, ten targets), the task categories of
Table 5, the episode spec, the house's geometry (rooms ``ROOM_SIZE`` metres square, seen in quarters) and the
records an agent observes. This is what an agent's model of the world may read (``tdw_domain`` does) without
the simulator; :mod:`~mindloop.systems.cobel.worlds.tdw` re-exports all of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mindloop.errors import InvalidArgumentError
from mindloop.systems.cobel.worlds.common import Entity, Message, TransportEpisode, agent_names

FRAME_BUDGET = 3000
"""Frames an episode may last."""

ROOM_SIZE = 8.0
"""Rooms are ``ROOM_SIZE`` metres square; walking through a door to the next room's centre is that far."""

FRAMES_PER_METER = 20
"""Frames per metre walked (TDW-MAT's move-forward is 0.5 m)."""

FRAME_COSTS: Mapping[str, int] = {
    "turn_left": 30,
    "turn_right": 30,
    "grasp": 50,
    "put_in": 40,
    "drop": 30,
    "send_message": 5,
    "wait": 10,
    "failed": 5,
}
"""Frames each non-moving action takes (a 90° look-around turn is six 15° turns); a failed action costs 5."""

CONTAINER_CAPACITY = 3
"""Objects a container holds."""
HANDS = 2
"""Things an agent can hold at once (at most one of them a container)."""
N_TARGETS = 10
"""Target objects in every episode."""

TDW_ACTIONS = ("move", "turn_left", "turn_right", "grasp", "put_in", "drop", "send_message", "wait")
"""Actions in action-space index order: B.1's seven (move = walk towards a room, an object or the bed) + wait."""

TDW_CATEGORIES: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "food": (("apple", "banana", "orange", "bread", "loaf_bread", "burger"), ("bowl", "plate", "tea_tray")),
    "stuff": (
        ("calculator", "mouse", "pen", "lighter", "purse", "iphone"),
        ("plastic_basket", "wood_basket", "wicker_basket"),
    ),
}
"""Target and container kinds of each task category (appendix B.1, Table 5)."""

CONTAINERS_PER_CAPACITY: Mapping[str, int] = {"low": 2, "high": 5}
"""Containers in the house of a low- and a high-capacity episode."""


def exploration_state(seen_quarters: int) -> str:
    """``none``, ``part`` or ``all`` for the number of a room's four quarters an agent has seen."""
    return "none" if seen_quarters == 0 else ("all" if seen_quarters >= 4 else "part")


@dataclass(frozen=True, slots=True)
class TdwEpisode(TransportEpisode):
    """Task category (food/stuff), capacity (low/high), team size and scene seed."""

    WORLD = "tdw-mat"
    KIND = "TDW-MAT episode"

    category: str
    capacity: str
    n_agents: int
    seed: int

    @property
    def task(self) -> str:
        """``food-low-capacity`` etc., the row names of Table 1."""
        return f"{self.category}-{self.capacity}-capacity"

    def check(self) -> None:
        """Raise ``InvalidArgumentError`` for an unknown category or capacity."""
        if self.category not in TDW_CATEGORIES:
            raise InvalidArgumentError(f"unknown TDW-MAT category {self.category!r} (known: food, stuff)")
        if self.capacity not in CONTAINERS_PER_CAPACITY:
            raise InvalidArgumentError(f"unknown TDW-MAT capacity {self.capacity!r} (known: low, high)")
        agent_names(self.n_agents)


@dataclass(frozen=True, slots=True)
class TdwSeen:
    """A target, container or the bed in a quarter the agent has seen: where it lies and what it contains."""

    entity: Entity
    room: int
    pos: tuple[float, float]
    contents: tuple[Entity, ...] = ()
    on_bed: bool = False


@dataclass(frozen=True, slots=True)
class HeldView:
    """One held thing and, for a container, what is in it."""

    entity: Entity
    contents: tuple[Entity, ...] = ()


@dataclass(frozen=True, slots=True)
class TdwPartnerView:
    """A partner in the same room and what it carries."""

    name: str
    holding: tuple[HeldView, ...]


@dataclass(frozen=True, slots=True)
class TdwObservation:
    """What one agent perceives: its place, hands, the room's seen quarters, partners nearby and messages."""

    frame: int
    ready: bool
    agent: str
    room: Entity
    pos: tuple[float, float]
    near: int | None
    holding: tuple[HeldView, ...]
    seen: tuple[TdwSeen, ...]
    explored: str
    quarters: tuple[int, ...]
    partners: tuple[TdwPartnerView, ...]
    messages: tuple[Message, ...]
    goal: tuple[tuple[str, int], ...]
    bed: Entity
    bed_room: int
    rooms: tuple[Entity, ...]
    doors: tuple[tuple[int, int], ...]
    transported: int


def quarter(pos: tuple[float, float]) -> int:
    """Which quarter (0–3, clockwise from north-east) of its room a position lies in."""
    x, y = pos
    half = ROOM_SIZE / 2
    if y < half:
        return 0 if x >= half else 3
    return 1 if x >= half else 2

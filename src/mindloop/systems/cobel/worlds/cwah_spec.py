"""The C-WAH-style world's specification, apart from its simulator (:mod:`~mindloop.systems.cobel.worlds.cwah`).

The rules' numbers (step limit, steps per door, hands), the action set of appendix B.2, the tasks of Table 6 and
their goal predicates, the episode spec, the furniture of each room type and the records an agent observes. This
is what an agent's model of the world may read (``cwah_domain`` does) without the simulator;
:mod:`~mindloop.systems.cobel.worlds.cwah` re-exports all of it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mindloop.errors import InvalidArgumentError
from mindloop.systems.cobel.worlds.common import Entity, Message, agent_names

__all__ = [
    "CWAH_ACTIONS",
    "CWAH_TASKS",
    "FURNITURE",
    "HANDS",
    "HOP_STEPS",
    "MAX_STEPS",
    "CwahEpisode",
    "CwahObservation",
    "GoalPredicate",
    "PartnerView",
    "Seen",
    "make_cwah_episode",
]

MAX_STEPS = 250
"""The C-WAH step limit."""

HOP_STEPS = 3
"""Steps it takes to walk from one room through a door into the next."""

CWAH_ACTIONS = ("walk", "turn_left", "turn_right", "grasp", "open", "close", "put", "send_message")
"""The action set of appendix B.2, in action-space index order."""

HANDS = 2
"""Objects an agent can hold at once."""

CWAH_TASKS: Mapping[str, tuple[tuple[str, str, str], ...]] = {
    "prepare_afternoon_tea": tuple(("ON", o, "coffeetable") for o in ("cupcake", "pudding", "apple", "juice", "wine")),
    "wash_dishes": (("IN", "plate", "dishwasher"), ("IN", "fork", "dishwasher")),
    "prepare_a_meal": tuple(
        ("ON", o, "dinnertable")
        for o in ("coffeepot", "cupcake", "pancake", "poundcake", "pudding", "apple", "juice", "wine")
    ),
    "put_groceries": tuple(
        ("IN", o, "fridge") for o in ("cupcake", "pancake", "poundcake", "pudding", "apple", "juice", "wine")
    ),
    "set_up_a_dinner_table": (("ON", "plate", "dinnertable"), ("ON", "fork", "dinnertable")),
}
"""Table 6: each task's predicates ``(ON|IN, object class, target class)``."""

FURNITURE: Mapping[str, tuple[tuple[str, str], ...]] = {
    "kitchen": (
        ("fridge", "container"),
        ("dishwasher", "container"),
        ("kitchencabinet", "container"),
        ("kitchencabinet", "container"),
        ("kitchencabinet", "container"),
        ("stove", "container"),
        ("dinnertable", "surface"),
        ("kitchencounter", "surface"),
    ),
    "livingroom": (
        ("coffeetable", "surface"),
        ("sofa", "surface"),
        ("cabinet", "container"),
        ("cabinet", "container"),
        ("bookshelf", "surface"),
        ("tvstand", "surface"),
    ),
    "bedroom": (
        ("nightstand", "container"),
        ("nightstand", "container"),
        ("desk", "surface"),
        ("bed", "surface"),
        ("wardrobe", "container"),
    ),
    "bathroom": (
        ("bathroomcabinet", "container"),
        ("bathroomcabinet", "container"),
        ("bathroomcounter", "surface"),
        ("towelrack", "surface"),
    ),
}
"""The furniture of each room type, in id order: ``(class name, "surface" | "container")``."""


@dataclass(frozen=True, slots=True)
class GoalPredicate:
    """``relation(obj, target): count`` — at least ``count`` objects of class ``obj`` ON/IN the ``target``."""

    relation: str
    obj: str
    target: str
    count: int

    def __str__(self) -> str:
        return f"{self.relation}({self.obj},{self.target}): {self.count}"


@dataclass(frozen=True, slots=True)
class CwahEpisode:
    """A fully specified episode: task, goal, agent count and the scene seed (JSON-friendly via ``to_dict``)."""

    task: str
    goal: tuple[GoalPredicate, ...]
    n_agents: int
    seed: int

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a benchmark sample."""
        return {
            "world": "cwah",
            "task": self.task,
            "goal": [[p.relation, p.obj, p.target, p.count] for p in self.goal],
            "n_agents": self.n_agents,
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CwahEpisode:
        """Read back :meth:`to_dict`'s form, checking task and predicates."""
        try:
            task = str(data["task"])
            goal = tuple(GoalPredicate(str(r), str(o), str(t), int(c)) for r, o, t, c in data["goal"])
            ep = cls(task, goal, int(data.get("n_agents", 2)), int(data["seed"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"malformed C-WAH episode {dict(data)!r}: {exc}") from None
        ep.check()
        return ep

    def check(self) -> None:
        """Raise ``InvalidArgumentError`` unless every predicate belongs to the task of Table 6."""
        if self.task not in CWAH_TASKS:
            raise InvalidArgumentError(f"unknown C-WAH task {self.task!r} (known: {', '.join(CWAH_TASKS)})")
        allowed = set(CWAH_TASKS[self.task])
        for p in self.goal:
            if (p.relation, p.obj, p.target) not in allowed or p.count < 1:
                raise InvalidArgumentError(f"predicate {p} is not part of task {self.task!r}")
        agent_names(self.n_agents)


def make_cwah_episode(task: str, seed: int, n_agents: int = 2) -> CwahEpisode:
    """A seeded episode of ``task``: 1–4 of its predicates with counts totalling 3 to 5 objects."""
    if task not in CWAH_TASKS:
        raise InvalidArgumentError(f"unknown C-WAH task {task!r} (known: {', '.join(CWAH_TASKS)})")
    rng = random.Random(f"cwah-goal:{task}:{seed}")
    preds = list(CWAH_TASKS[task])
    k = rng.randint(min(2, len(preds)), min(4, len(preds)))
    chosen = rng.sample(preds, k)
    total = rng.randint(max(3, k), 5)
    counts = [1] * k
    for _ in range(total - k):
        counts[rng.randrange(k)] += 1
    goal = tuple(GoalPredicate(r, o, t, c) for (r, o, t), c in zip(chosen, counts, strict=True))
    ep = CwahEpisode(task, goal, n_agents, seed)
    ep.check()
    return ep


@dataclass(frozen=True, slots=True)
class Seen:
    """One thing visible in the agent's room: the entity, where it is (relation and holder id) and its state.

    Furniture is ``IN`` its room; objects are ``ON`` a surface or ``INSIDE`` an open container. ``state`` is
    ``opened``/``closed`` for containers and empty otherwise.
    """

    entity: Entity
    relation: str
    holder: int
    state: str = ""


@dataclass(frozen=True, slots=True)
class PartnerView:
    """A partner in the same room: its name, what it holds and what it stands near."""

    name: str
    holding: tuple[Entity, ...]
    near: int | None


@dataclass(frozen=True, slots=True)
class CwahObservation:
    """What one agent perceives after a step (symbolic observation of B.2)."""

    t: int
    agent: str
    room: Entity
    near: int | None
    holding: tuple[Entity, ...]
    seen: tuple[Seen, ...]
    partners: tuple[PartnerView, ...]
    messages: tuple[Message, ...]
    goal: tuple[GoalPredicate, ...]
    rooms: tuple[Entity, ...]
    doors: tuple[tuple[int, int], ...]
    walking_to: int | None = None

"""The C-WAH-style world's specification, apart from its simulator (:mod:`~mindloop.systems.cobel.worlds.cwah`).

The rules' numbers (step limit, steps per door, hands), the action set of appendix B.2, the tasks of Table 6 and
their goal predicates, the episode spec, the furniture of each room type and the records an agent observes. This
is what an agent's model of the world may read (``cwah_domain`` does) without the simulator;
:mod:`~mindloop.systems.cobel.worlds.cwah` re-exports all of it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import Field

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import InvalidArgumentError
from mindloop.records_codec import Codec
from mindloop.systems.cobel.worlds.common import Entity, Message, TransportEpisode, agent_names

MAX_STEPS = 250
"""The C-WAH step limit."""

HOP_STEPS = 3
"""Steps it takes to walk from one room through a door into the next."""

CWAH_ACTIONS = ("walk", "turn_left", "turn_right", "grasp", "open", "close", "put", "send_message")
"""The action set of appendix B.2, in action-space index order."""

HANDS = 2
"""Objects an agent can hold at once."""


class _Task(DataModel):
    """One task of ``data/cwah.yaml``: the object classes to put ``relation`` (ON or IN) the ``target``."""

    relation: Literal["ON", "IN"]
    target: str
    objects: tuple[str, ...] = Field(min_length=1)


class _CwahFile(DataModel):
    """The whole of ``data/cwah.yaml``: the tasks, each room type's furniture, and where objects may start."""

    tasks: dict[str, _Task] = Field(min_length=1)
    furniture: dict[str, tuple[tuple[str, Literal["surface", "container"]], ...]] = Field(min_length=1)
    goal_objects: dict[str, tuple[str, ...]]
    distractors: dict[str, tuple[str, ...]]

    def problems(self) -> Iterator[tuple[str, str]]:
        """Every target and starting place is furniture, and every goal object has somewhere to start."""
        classes = {name for items in self.furniture.values() for name, _ in items}
        for name, task in self.tasks.items():
            if task.target not in classes or not set(task.objects) <= set(self.goal_objects):
                yield f"tasks.{name}", "the target must be a furniture class and every object a goal object"
        for table in ("goal_objects", "distractors"):
            for obj, spots in getattr(self, table).items():
                if not spots or not set(spots) <= classes:
                    yield f"{table}.{obj}", "every place must be a furniture class"


_DATA = load_package_data(_CwahFile, __name__.rsplit(".", 1)[0], "cwah.yaml")

CWAH_TASKS: Mapping[str, tuple[tuple[str, str, str], ...]] = {
    name: tuple((task.relation, o, task.target) for o in task.objects) for name, task in _DATA.tasks.items()
}
"""Table 6: each task's predicates ``(ON|IN, object class, target class)``."""

FURNITURE: Mapping[str, tuple[tuple[str, str], ...]] = _DATA.furniture
"""The furniture of each room type, in id order: ``(class name, "surface" | "container")``."""

SPOTS: Mapping[str, tuple[str, ...]] = _DATA.goal_objects
"""Where each goal object class may start (furniture classes)."""

DISTRACTORS: Mapping[str, tuple[str, ...]] = _DATA.distractors
"""The other objects a scene may scatter, and where each may lie."""


@dataclass(frozen=True, slots=True)
class GoalPredicate:
    """``relation(obj, target): count`` — at least ``count`` objects of class ``obj`` ON/IN the ``target``."""

    relation: str
    obj: str
    target: str
    count: int

    def __str__(self) -> str:
        return f"{self.relation}({self.obj},{self.target}): {self.count}"


def _predicate(item: Any) -> GoalPredicate:
    """A goal predicate from its plain-data form, ``[relation, object, target, count]``."""
    r, o, t, c = item
    return GoalPredicate(str(r), str(o), str(t), int(c))


@dataclass(frozen=True, slots=True)
class CwahEpisode(TransportEpisode):
    """A fully specified episode: task, goal, agent count and the scene seed (JSON-friendly via ``to_dict``, the
    goal as ``[relation, object, target, count]`` lists)."""

    WORLD = "cwah"
    KIND = "C-WAH episode"
    CODECS: ClassVar[Mapping[str, Codec]] = {
        "GoalPredicate": (lambda p: [p.relation, p.obj, p.target, p.count], _predicate)
    }

    task: str
    goal: tuple[GoalPredicate, ...]
    n_agents: int
    seed: int

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
    CwahEpisode(task, (), n_agents, seed).check()  # the task and the team, before drawing from the task
    rng = random.Random(f"cwah-goal:{task}:{seed}")
    preds = list(CWAH_TASKS[task])
    k = rng.randint(min(2, len(preds)), min(4, len(preds)))
    chosen = rng.sample(preds, k)
    total = rng.randint(max(3, k), 5)
    counts = [1] * k
    for _ in range(total - k):
        counts[rng.randrange(k)] += 1
    goal = tuple(GoalPredicate(r, o, t, c) for (r, o, t), c in zip(chosen, counts, strict=True))
    return CwahEpisode(task, goal, n_agents, seed)  # every predicate is the task's, each counted at least once


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

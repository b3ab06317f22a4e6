"""MindClaw's Memory (§IV-D): the belief table, as a view of the belief core, and the recent-operation history.

The belief table of eq. (3) is kept in a :class:`~mindloop.beliefs.BeliefStore` owned by the robot:

* ``visual_facts[object] -> location`` is the store's depth-0 chain (what the robot takes as the world: what it
  saw), written with source Perception;
* ``actor_beliefs[actor][object] -> location`` is the chain ``("robot", actor)``, written with source Inference
  (the robot infers what the actor saw).

Both columns hold an object's location, the belief core's canonical ``at`` relation (:data:`TABLE_RELATION`).
So a stale belief is exactly a store mismatch of ``("robot", actor)`` against the world chain, and every entry
keeps its ``since`` time and history. The table is written only by trigger operations (the engine applies
``belief_*`` operations here); nothing else writes it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from mindloop.beliefs import WORLD, BeliefStore, Fact, Source
from mindloop.beliefs.vocab import AT, ROBOT
from mindloop.errors import InvalidArgumentError
from mindloop.systems.mindclaw.operations import BELIEF_VERBS, CREATE_VISUAL, UPDATE_VISUAL, Operation
from mindloop.systems.mindclaw.records import ReasoningRecord

TABLE_RELATION: Final[str] = AT
"""The belief table's adapter onto the canonical vocabulary: ``visual_facts[object]`` and
``actor_beliefs[actor][object]`` are facts ``(object, at, location)``."""


@dataclass(frozen=True, slots=True)
class StaleBelief:
    """An actor belief that disagrees with the robot's visual fact: ``actor`` thinks ``object`` is at
    ``believed`` (since ``since``); the robot saw it at ``seen``."""

    actor: str
    object: str
    believed: str
    seen: str | None
    since: int


class BeliefTable:
    """``visual_facts`` and ``actor_beliefs`` (eq. (3)) as a view of a :class:`~mindloop.beliefs.BeliefStore`.

    >>> table = BeliefTable()
    >>> table.write_visual("apple", "kitchen_table", t=1)
    >>> table.write_actor("alice", "apple", "kitchen_table", t=1)
    >>> table.write_visual("apple", "fridge", t=3)
    >>> table.visual("apple"), table.actor("alice", "apple")
    ('fridge', 'kitchen_table')
    >>> [(s.actor, s.believed, s.seen) for s in table.stale()]
    [('alice', 'kitchen_table', 'fridge')]
    """

    def __init__(self, store: BeliefStore | None = None, *, robot: str = ROBOT) -> None:
        self.store = store if store is not None else BeliefStore()
        self.robot = robot
        self._objects: dict[str, None] = {}
        self._actors: dict[str, dict[str, None]] = {}

    # ---- writes (only trigger operations call these) ----------------------------------------------------------
    def write_visual(self, obj: str, location: str, *, t: int) -> None:
        """``visual_facts[obj] = location`` from time ``t`` (what the robot saw)."""
        self.store.assert_belief(WORLD, Fact(obj, TABLE_RELATION, location), t=t, source=Source.PERCEPTION)
        self._objects[obj] = None

    def write_actor(self, actor: str, obj: str, location: str, *, t: int) -> None:
        """``actor_beliefs[actor][obj] = location`` from time ``t`` (what the robot thinks the actor believes)."""
        if actor == self.robot:
            raise InvalidArgumentError("the robot's own beliefs are its visual facts, not an actor belief")
        self.store.assert_belief((self.robot, actor), Fact(obj, TABLE_RELATION, location), t=t, source=Source.INFERENCE)
        self._actors.setdefault(actor, {})[obj] = None

    # ---- reads -------------------------------------------------------------------------------------------------
    def visual(self, obj: str, *, at: int | None = None) -> str | None:
        """``visual_facts[obj]`` (as of time ``at``), or ``None``."""
        return self.store.value(WORLD, obj, TABLE_RELATION, at=at)

    def actor(self, actor: str, obj: str, *, at: int | None = None) -> str | None:
        """``actor_beliefs[actor][obj]`` (as of time ``at``), or ``None``."""
        return self.store.value((self.robot, actor), obj, TABLE_RELATION, at=at)

    def objects(self) -> list[str]:
        """Objects with a visual fact, in first-written order."""
        return list(self._objects)

    def actors(self) -> list[str]:
        """Actors with at least one belief, in first-written order."""
        return list(self._actors)

    def actor_objects(self, actor: str) -> list[str]:
        """Objects ``actor`` holds a belief about."""
        return list(self._actors.get(actor, ()))

    def visual_facts(self) -> dict[str, str]:
        """``{object: location}``."""
        return {obj: value for obj in self._objects if (value := self.visual(obj)) is not None}

    def actor_beliefs(self) -> dict[str, dict[str, str]]:
        """``{actor: {object: location}}``."""
        out: dict[str, dict[str, str]] = {}
        for actor, objs in self._actors.items():
            row = {o: v for o in objs if (v := self.actor(actor, o)) is not None}
            if row:
                out[actor] = row
        return out

    def stale(self, actor: str | None = None) -> list[StaleBelief]:
        """Actor beliefs that disagree with the visual facts (the store's mismatches of ``("robot", actor)``)."""
        out = []
        for who in [actor] if actor is not None else list(self._actors):
            if who not in self._actors:
                continue
            for m in self.store.mismatches((self.robot, who)):
                if m.key[1] == TABLE_RELATION and m.held.value is not None:
                    out.append(StaleBelief(who, m.key[0], m.held.value, m.actual, m.held.since))
        return out

    def __len__(self) -> int:
        return len(self._objects) + sum(len(v) for v in self._actors.values())

    def to_dict(self) -> dict[str, Any]:
        """``{"visual_facts": {...}, "actor_beliefs": {...}}``."""
        return {"visual_facts": self.visual_facts(), "actor_beliefs": self.actor_beliefs()}


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One thing the runtime did: a trigger operation (``kind="op"``), a reasoning call, an action-generation call
    or an execution result, at window ``t``; ``op`` is the operation's text, ``data`` any details."""

    t: int
    kind: str
    op: str = ""
    actor: str = ""
    object: str = ""
    data: tuple[tuple[str, str], ...] = ()

    def get(self, key: str, default: str = "") -> str:
        """A detail by name."""
        return next((v for k, v in self.data if k == key), default)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: every field, in order, the details as a dict."""
        return {**asdict(self), "data": dict(self.data)}


class OperationHistory:
    """The recent operation history ``H`` of eq. (4): trigger outputs, reasoning and action-generation calls and
    execution results, newest last, at most ``maxlen`` entries; plus the set of (actor, object) already helped
    (an intervention is never forgotten, however long the history)."""

    def __init__(self, maxlen: int = 64) -> None:
        if maxlen < 1:
            raise InvalidArgumentError(f"history length must be at least 1, got {maxlen}")
        self._entries: deque[HistoryEntry] = deque(maxlen=maxlen)
        self._helped: dict[tuple[str, str], int] = {}
        self.version = 0

    def add(self, entry: HistoryEntry) -> None:
        """Append an entry (an ``action`` entry with a non-empty plan marks its focus as helped)."""
        self._entries.append(entry)
        self.version += 1
        if entry.kind == "action" and entry.get("plan", "none") != "none":
            self._helped.setdefault((entry.actor, entry.object), entry.t)

    def helped(self, actor: str, obj: str) -> bool:
        """Whether the robot already acted to help ``actor`` about ``obj``."""
        return (actor, obj) in self._helped

    def helped_any(self) -> list[tuple[str, str]]:
        """Every (actor, object) helped so far, in order."""
        return list(self._helped)

    def recent(self, n: int = 8) -> list[HistoryEntry]:
        """The last ``n`` entries, oldest first."""
        return list(self._entries)[-n:]

    def __iter__(self) -> Iterator[HistoryEntry]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


@dataclass
class Memory:
    """The Claw layer's memory: the belief table (``None`` in the no-belief-table ablation) and the history."""

    table: BeliefTable | None = field(default_factory=BeliefTable)
    history: OperationHistory = field(default_factory=OperationHistory)

    @classmethod
    def fresh(cls, *, belief_table: bool = True, history: int = 64) -> Memory:
        """An empty memory (with or without a belief table)."""
        return cls(BeliefTable() if belief_table else None, OperationHistory(history))

    def apply(self, op: Operation, t: int) -> None:
        """Log trigger operation ``op`` of window ``t`` in the history; a belief write also goes to the belief table
        (when there is one)."""
        self.history.add(HistoryEntry(t, "op", str(op), op.actor, op.object))
        if op.verb in BELIEF_VERBS and self.table is not None:
            if op.verb in (CREATE_VISUAL, UPDATE_VISUAL):
                self.table.write_visual(op.object, op.location, t=t)
            else:
                self.table.write_actor(op.actor, op.object, op.location, t=t)

    def reasoned(self, op: Operation, t: int, record: ReasoningRecord) -> None:
        """Log the reasoning ``op`` ran at window ``t`` and its verdict in the history."""
        details = (("context", record.context), ("warranted", str(record.warranted)))
        self.history.add(HistoryEntry(t, "reasoning", str(op), op.actor, op.object, details))

"""Typed results of world steps: failures that name what went wrong, and events that carry witnesses.

A failed action never changes the world. Failures a bystander could *see* (a child reaching for a high shelf
in vain, a wheelchair stopped by a box, a lamp that stays dark in a power cut) still produce an event, so the
people and the robot in the room witness the attempt; input errors (unknown verb, unknown object, wrong
number of arguments) produce none.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from mindloop.beliefs import Event, Fact, Utterance


class FailureKind(StrEnum):
    """Why an action failed."""

    PARSE_ERROR = "parse_error"
    UNKNOWN_VERB = "unknown_verb"
    WRONG_ARITY = "wrong_arity"
    UNKNOWN_ACTOR = "unknown_actor"
    UNKNOWN_ENTITY = "unknown_entity"
    WRONG_ARGUMENT = "wrong_argument"
    NOT_HERE = "not_here"
    CONTAINER_CLOSED = "container_closed"
    NOT_GRASPABLE = "not_graspable"
    NOT_MOVABLE = "not_movable"
    NOT_OPENABLE = "not_openable"
    NOT_SWITCHABLE = "not_switchable"
    NOT_A_RECEPTACLE = "not_a_receptacle"
    NOT_A_SURFACE = "not_a_surface"
    NOT_SITTABLE = "not_sittable"
    ALREADY = "already"
    HANDS_FULL = "hands_full"
    NOT_HOLDING = "not_holding"
    HELD_BY_OTHER = "held_by_other"
    OUT_OF_REACH = "out_of_reach"
    BLOCKED = "blocked"
    UNABLE = "unable"
    NO_POWER = "no_power"
    EMPTY = "empty"
    SITTING = "sitting"
    MISSING_TOOL = "missing_tool"
    NO_LIQUID = "no_liquid"


INPUT_ERRORS = frozenset(
    {
        FailureKind.PARSE_ERROR,
        FailureKind.UNKNOWN_VERB,
        FailureKind.WRONG_ARITY,
        FailureKind.UNKNOWN_ACTOR,
        FailureKind.UNKNOWN_ENTITY,
        FailureKind.WRONG_ARGUMENT,
    }
)
"""Failures about the request itself rather than the world."""

VISIBLE_FAILURES = frozenset({FailureKind.OUT_OF_REACH, FailureKind.BLOCKED, FailureKind.NO_POWER})
"""Failed attempts that bystanders see (they produce an event with witnesses)."""


@dataclass(frozen=True, slots=True)
class Failure:
    """A refused action: the kind of failure, a one-line message naming the problem, and the action text."""

    kind: FailureKind
    message: str
    action: str = ""

    @property
    def is_input_error(self) -> bool:
        """True when the request was malformed (unknown verb/name, wrong arity) rather than impossible."""
        return self.kind in INPUT_ERRORS

    def __str__(self) -> str:
        return f"{self.kind.value}: {self.message}"


@dataclass(frozen=True, slots=True)
class WorldEvent:
    """One thing that happened, as the belief core sees it (``core``) plus what narration and gold need.

    ``phrase`` is the predicate without its subject (``puts the apple on the kitchen table``) so consecutive
    events of one actor can be told as one sentence; ``failure`` is set for a witnessed failed attempt.
    """

    core: Event | Utterance
    verb: str
    args: tuple[str, ...]
    room: str | None
    phrase: str
    failure: FailureKind | None = None

    @property
    def t(self) -> int:
        """Time step."""
        return self.core.t

    @property
    def actor(self) -> str | None:
        """Who did it (the speaker of an utterance; ``None`` for a power cut)."""
        core = self.core
        return core.speaker if isinstance(core, Utterance) else core.actor

    @property
    def kind(self) -> str:
        """The belief-core event kind, or ``"say"`` for an utterance."""
        core = self.core
        return "say" if isinstance(core, Utterance) else core.kind.value

    @property
    def witnesses(self) -> frozenset[str]:
        """Everyone who saw (or heard) it."""
        core = self.core
        if isinstance(core, Utterance):
            return core.listeners | {core.speaker}
        return core.witnesses

    @property
    def facts(self) -> tuple[Fact, ...]:
        """Facts it made true, perceived, or (for an utterance) stated."""
        return self.core.facts

    @property
    def text(self) -> str:
        """One narration line (empty for silent observations)."""
        return self.core.text

    @property
    def is_utterance(self) -> bool:
        """True for speech."""
        return isinstance(self.core, Utterance)


@dataclass(frozen=True, slots=True)
class StepResult:
    """The outcome of one action: success, the request, a typed failure, and the events it caused.

    ``request`` is what was asked (the parsed action, or the text that could not be parsed); ``action`` is its
    text form, made on demand.
    """

    ok: bool
    request: Any
    failure: Failure | None
    events: tuple[WorldEvent, ...]
    t: int

    @property
    def action(self) -> str:
        """The action as text (``pick(apple)``)."""
        request = self.request
        return request if isinstance(request, str) else str(request)

    @property
    def core_events(self) -> tuple[Event | Utterance, ...]:
        """The belief-core events and utterances, ready for :meth:`mindloop.beliefs.Tracker.apply`."""
        return tuple(e.core for e in self.events)

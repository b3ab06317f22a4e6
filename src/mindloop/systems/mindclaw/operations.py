"""The trigger's operation space (MindClaw eq. (8)): ``z = verb(actor, object, location)`` with grounded slots.

>>> op = parse_operation("belief_update_actor_belief(alice, apple, fridge)")
>>> op.verb, op.actor, op.object, op.location
('belief_update_actor_belief', 'alice', 'apple', 'fridge')
>>> str(Operation("noop"))
'noop(none, none, none)'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems.mindclaw.window import Candidates

__all__ = [
    "ACTION_RUN",
    "BELIEF_VERBS",
    "CREATE_ACTOR",
    "CREATE_VISUAL",
    "NONE",
    "NOOP",
    "OPERATION_VERBS",
    "REASONING_RUN",
    "SIGNATURES",
    "UPDATE_ACTOR",
    "UPDATE_VISUAL",
    "Operation",
    "SlotError",
    "check_operation",
    "find_operations",
    "parse_operation",
]

NONE = "none"
CREATE_VISUAL = "belief_create_visual_fact"
UPDATE_VISUAL = "belief_update_visual_fact"
CREATE_ACTOR = "belief_create_actor_belief"
UPDATE_ACTOR = "belief_update_actor_belief"
REASONING_RUN = "reasoning_run"
ACTION_RUN = "action_run"
NOOP = "noop"

OPERATION_VERBS: tuple[str, ...] = (
    CREATE_VISUAL,
    UPDATE_VISUAL,
    CREATE_ACTOR,
    UPDATE_ACTOR,
    REASONING_RUN,
    ACTION_RUN,
    NOOP,
)
"""The seven operations of eq. (8), in the paper's order."""

BELIEF_VERBS = frozenset({CREATE_VISUAL, UPDATE_VISUAL, CREATE_ACTOR, UPDATE_ACTOR})

SIGNATURES: dict[str, tuple[str, str, str]] = {
    CREATE_VISUAL: (NONE, "object", "location"),
    UPDATE_VISUAL: (NONE, "object", "location"),
    CREATE_ACTOR: ("actor", "object", "location"),
    UPDATE_ACTOR: ("actor", "object", "location"),
    REASONING_RUN: ("actor", "object", NONE),
    ACTION_RUN: ("actor", "object", NONE),
    NOOP: (NONE, NONE, NONE),
}
"""Which candidate set fills each slot (actor, object, location) of each verb; ``none`` = the slot is empty."""


class SlotError(InvalidArgumentError):
    """An operation names a slot filler outside the window's candidates (or fills a slot that must be empty)."""


@dataclass(frozen=True, slots=True)
class Operation:
    """One trigger output ``z_t = (v, i, j, l)`` (eq. (5)); empty slots are ``"none"``."""

    verb: str
    actor: str = NONE
    object: str = NONE
    location: str = NONE

    def __str__(self) -> str:
        return f"{self.verb}({self.actor}, {self.object}, {self.location})"

    def as_tuple(self) -> tuple[str, str, str, str]:
        """``(verb, actor, object, location)``: the plain form gold annotations use."""
        return (self.verb, self.actor, self.object, self.location)

    @property
    def is_belief(self) -> bool:
        """Whether this writes the belief table."""
        return self.verb in BELIEF_VERBS

    @classmethod
    def from_tuple(cls, value: tuple[str, str, str, str] | list[str]) -> Operation:
        """Inverse of :meth:`as_tuple`."""
        if len(value) != 4:
            raise InvalidArgumentError(f"an operation tuple has 4 parts (verb, actor, object, location), got {value!r}")
        return cls(*(str(v) for v in value))


_NAME = r"[A-Za-z0-9_.\-]+"
_OP_RE = re.compile(
    rf"\b({'|'.join(OPERATION_VERBS)})\s*\(\s*({_NAME})\s*,\s*({_NAME})\s*,\s*({_NAME})\s*\)", re.IGNORECASE
)
_BARE_NOOP = re.compile(r"\bnoop\s*(\(\s*\))?(?!\s*\(\s*\w)", re.IGNORECASE)


def _norm(name: str) -> str:
    return name.strip().lower()


def find_operations(text: str) -> list[Operation]:
    """Every ``verb(a, b, c)`` operation written in ``text``, in order (names lower-cased)."""
    return [Operation(m.group(1).lower(), *(_norm(m.group(k)) for k in (2, 3, 4))) for m in _OP_RE.finditer(text)]


def parse_operation(text: str) -> Operation:
    """Read exactly one operation from ``text`` (a model reply or a typed line).

    Accepted: ``verb(actor, object, location)`` anywhere in the text (several identical ones count as one), and a
    bare ``noop`` / ``noop()``. No operation, or two different ones, is a :class:`~mindloop.errors.ParseError`.
    """
    found = list(dict.fromkeys(find_operations(text)))
    if not found and _BARE_NOOP.search(text):
        found = [Operation(NOOP)]
    if not found:
        raise ParseError("no trigger operation verb(actor, object, location) found", text=text[:200])
    if len(found) > 1:
        listed = ", ".join(str(o) for o in found[:4])
        raise ParseError(f"several different trigger operations ({listed}); expected exactly one", text=text[:200])
    op = found[0]
    sig = SIGNATURES[op.verb]
    # slots that must be empty may be written as "none", "null" or "-"; normalise them
    slots = [
        NONE if kind == NONE and v in ("none", "null", "-", "_") else v
        for kind, v in zip(sig, op.as_tuple()[1:], strict=True)
    ]
    return Operation(op.verb, *slots)


def check_operation(op: Operation, candidates: Candidates) -> Operation:
    """Return ``op`` if its slots are grounded in ``candidates`` (eq. (8)); raise :class:`SlotError` naming the bad
    slot otherwise (an unknown verb, a filled slot that must be ``none``, a filler outside the candidates)."""
    sig = SIGNATURES.get(op.verb)
    if sig is None:
        raise SlotError(f"unknown operation {op.verb!r} (operations: {', '.join(OPERATION_VERBS)})")
    pools = {"actor": candidates.actors, "object": candidates.objects, "location": candidates.locations}
    for slot, kind, value in zip(("actor", "object", "location"), sig, op.as_tuple()[1:], strict=True):
        if kind == NONE:
            if value != NONE:
                raise SlotError(f"{op}: the {slot} slot of {op.verb} must be none, got {value!r}")
            continue
        if value == NONE or value not in pools[kind]:
            raise SlotError(f"{op}: {slot} {value!r} is not one of the window's candidate {kind}s")
    return op

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

NONE = "none"
CREATE_VISUAL = "belief_create_visual_fact"
UPDATE_VISUAL = "belief_update_visual_fact"
CREATE_ACTOR = "belief_create_actor_belief"
UPDATE_ACTOR = "belief_update_actor_belief"
REASONING_RUN = "reasoning_run"
ACTION_RUN = "action_run"
NOOP = "noop"

SIGNATURES: dict[str, tuple[str, str, str]] = {
    CREATE_VISUAL: (NONE, "object", "location"),
    UPDATE_VISUAL: (NONE, "object", "location"),
    CREATE_ACTOR: ("actor", "object", "location"),
    UPDATE_ACTOR: ("actor", "object", "location"),
    REASONING_RUN: ("actor", "object", NONE),
    ACTION_RUN: ("actor", "object", NONE),
    NOOP: (NONE, NONE, NONE),
}
"""Which candidate set fills each slot (actor, object, location) of each verb, in the paper's order;
``none`` = the slot is empty."""

OPERATION_VERBS: tuple[str, ...] = tuple(SIGNATURES)
"""The seven operations of eq. (8), in the paper's order."""

BELIEF_VERBS = frozenset({CREATE_VISUAL, UPDATE_VISUAL, CREATE_ACTOR, UPDATE_ACTOR})


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
_SLOT = r"""\s*['"]?\s*([A-Za-z0-9_./\-]+(?:[ ][A-Za-z0-9_./\-]+){0,3})\s*['"]?\s*"""
_OP_RE = re.compile(
    rf"\b({'|'.join(OPERATION_VERBS)})\s*(?:\({_SLOT},{_SLOT},{_SLOT}\)|:{_SLOT},{_SLOT},{_SLOT}(?=[.;]?\s*$|[.;]\s))",
    re.IGNORECASE | re.MULTILINE,
)
_BARE_NOOP = re.compile(r"\bnoop\s*(\(\s*\))?(?!\s*\(\s*\w)", re.IGNORECASE)
_EMPTY = ("none", "null", "-", "_", "n/a", "nothing")

PLACEHOLDERS = frozenset({"ACTOR", "OBJECT", "LOCATION", "PERSON", "ITEM", "PLACE"})
"""Slot names the prompt's operation list writes in capitals: a reply that keeps one copies the template."""


def _norm(name: str) -> str:
    return re.sub(r"\s+", "_", name.strip().rstrip(".")).lower()


def _is_placeholder(raw: str) -> bool:
    low = " ".join(raw.lower().split())
    return raw.strip() in PLACEHOLDERS or low in ("i", "j", "l", "\u2113", "a person", "an object", "a location")


def find_operations(text: str) -> list[Operation]:
    """Every ``verb(a, b, c)`` operation written in ``text``, in order (names lower-cased; markdown emphasis and
    code quotes ignored; a name written with spaces read with underscores)."""
    text = text.replace("`", "").replace("**", "").replace("\\_", "_")
    return [Operation(m.group(1).lower(), *(_norm(s) for s in _slots(m))) for m in _OP_RE.finditer(text)]


def _slots(m: re.Match[str]) -> tuple[str, str, str]:
    """The three slots of an operation match (the parenthesised form, or ``verb: a, b, c`` ending a line)."""
    got = [g for g in m.groups()[1:] if g is not None]
    return got[0], got[1], got[2]


def _templates(text: str) -> list[str]:
    text = text.replace("`", "").replace("**", "").replace("\\_", "_")
    return [m.group(0) for m in _OP_RE.finditer(text) if any(_is_placeholder(s) for s in _slots(m))]


def parse_operation(text: str) -> Operation:
    """Read exactly one operation from ``text`` (a model reply or a typed line).

    Accepted: ``verb(actor, object, location)`` anywhere in the text (several identical ones count as one; case,
    spaces, quotes, markdown emphasis and code quotes do not matter), and a bare ``noop`` / ``noop()``. An
    operation that keeps the template's capitalised slot names (``reasoning_run(ACTOR, OBJECT, none)``) is a copy
    of the prompt, not an answer. No operation, only template copies, or two different operations is a
    :class:`~mindloop.errors.ParseError` with a one-line reason.
    """
    copies = _templates(text)
    found = [o for o in dict.fromkeys(find_operations(text)) if str(o) not in {_template_key(c) for c in copies}]
    if not found and not copies and _BARE_NOOP.search(text):
        found = [Operation(NOOP)]
    if not found:
        if copies:
            raise ParseError(
                f"the operation {copies[0]} copies the template's slot names; fill every slot with a candidate "
                "name or none",
                text=text[:200],
            )
        raise ParseError(
            "no trigger operation found: write one verb with its three slots in parentheses", text=text[:200]
        )
    ops = list(dict.fromkeys(_normalise_empty(o) for o in found))
    if len(ops) > 1:
        listed = ", ".join(str(o) for o in ops[:4])
        raise ParseError(f"several different trigger operations ({listed}); expected exactly one", text=text[:200])
    return ops[0]


def _template_key(raw: str) -> str:
    found = find_operations(raw)
    return str(found[0]) if found else raw


def _normalise_empty(op: Operation) -> Operation:
    """Slots that must be empty may be written as ``none``, ``null``, ``-``, ``n/a``: all read as ``none``."""
    sig = SIGNATURES[op.verb]
    slots = [NONE if kind == NONE and v in _EMPTY else v for kind, v in zip(sig, op.as_tuple()[1:], strict=True)]
    return Operation(op.verb, *slots)


def read_operation(text: str, candidates: Candidates) -> Operation:
    """:func:`parse_operation` and :func:`check_operation` in one: the operation a trigger reply gives, grounded in
    ``candidates``; a slot outside them is a :class:`~mindloop.errors.ParseError` too (its reason names the slot),
    so a format retry can send it back to the model."""
    op = parse_operation(text)
    try:
        return check_operation(op, candidates)
    except SlotError as exc:
        raise ParseError(str(exc), text=text[:200]) from None


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

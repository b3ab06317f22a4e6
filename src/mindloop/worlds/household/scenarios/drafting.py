"""The parts every gold builder shares: the focus of a story, the draft of its six layers, sentence helpers, and
what the robot saw people do (searching, taking, the scene atomic actions of Table 3's ``<Perception>``).

:mod:`~mindloop.worlds.household.scenarios.gold` derives the gold annotation with them (the false-belief family
there, the Implicit Goal families in :mod:`~mindloop.worlds.household.scenarios.gold_implicit`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mindloop.beliefs import Tracker
from mindloop.errors import InvalidArgumentError
from mindloop.worlds.household.characters import Character
from mindloop.worlds.household.goals import Goal, GoalKind
from mindloop.worlds.household.narration import merged_moves
from mindloop.worlds.household.results import WorldEvent
from mindloop.worlds.household.scenarios.model import GoldBelief
from mindloop.worlds.household.vocab import AT, ROBOT, Prop
from mindloop.worlds.household.world import World

R = (ROBOT,)
"""The robot's own belief chain."""

FAMILIES = ("find", "reach", "blocked", "faucet", "power", "combo", "dialogue")
"""How the robot must reason in a scenario: which cues it reads and which help can follow."""


SEARCH_VERBS = frozenset({"walkaround", "lookat", "open", "turn"})
"""Verbs that, after coming back or after a setback, show someone looking for something."""


@dataclass(frozen=True, slots=True)
class Focus:
    """What a scenario is about: the reasoning ``family``, the ``human`` concerned and the ``target`` object."""

    family: str
    human: str
    target: str

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise InvalidArgumentError(f"unknown scenario family {self.family!r} (known: {', '.join(FAMILIES)})")


# ---- sentence helpers ----------------------------------------------------------------------------------------
def place_of(world: World, value: str | None) -> str:
    """How a believed location reads: ``on the kitchen table``, ``with David``, ``somewhere unknown``."""
    if value is None:
        return "somewhere unknown"
    return world.where(value)


def from_phrase(world: World, holder: str) -> str:
    where = world.where(holder)
    return "from " + where.split(" ", 1)[1] if where.startswith(("on ", "in ")) else "from " + where


def out_of(world: World, holder: str) -> str:
    """``out of the fridge`` for a receptacle, else ``from the kitchen table``."""
    if holder in world.places and Prop.RECEPTACLE in world.places[holder].props:
        return f"out of the {world.places[holder].name}"
    return from_phrase(world, holder)


def verb_be(world: World, item: str) -> str:
    return "are" if world.plural(item) else "is"


def pronoun(world: World, item: str) -> str:
    return "them" if world.plural(item) else "it"


def atom(verb: str, *args: str) -> str:
    return f"{verb}({', '.join(args)})"


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


# ---- what the robot saw ---------------------------------------------------------------------------------------
def last_enter(events: Sequence[WorldEvent], human: str) -> int:
    return max((e.t for e in events if e.actor == human and e.kind == "enter"), default=0)


def is_searching(seen: Sequence[WorldEvent], human: str, since: int, target: str) -> bool:
    """Did the robot see ``human`` look about (walk around, look at, open, turn) after ``since`` without taking
    ``target``?"""
    looked = False
    for e in seen:
        if e.actor != human or e.t <= since:
            continue
        if e.verb == "pick" and e.args and e.args[0] == target and e.failure is None:
            return False
        if e.verb in SEARCH_VERBS:
            looked = True
    return looked


def perception_atoms(seen: Sequence[WorldEvent], world: World) -> tuple[str, ...]:
    """Scene atomic actions (C.1 templates ``verb(character, object, from=..., to=...)``) of perceived events."""
    out: list[str] = []
    for e in merged_moves(seen, same_step=False):
        who = e.actor or "house"
        verb, args = e.verb, e.args
        if e.actor is None:
            out.append(atom(verb, "house"))
            continue
        if e.is_utterance:
            out.append(atom("say", who, *args[:1]))
            continue
        if e.failure is not None:
            out.append(atom(verb, who, *args, "failed"))
            continue
        if e.kind == "exit":
            out.append(atom("walk", who, f"from={e.room}"))
        elif e.kind == "enter" or verb == "walkaround":
            out.append(atom("walk", who, e.room or ""))
        elif verb == "pick":
            src = taken_from(e, seen)
            out.append(atom("pick", who, args[0], *([f"from={src}"] if src else [])))
        elif verb in ("place", "putin", "putback", "move", "give", "drop"):
            to = e.facts[0].value if e.facts else ""
            name = "place" if verb == "drop" else verb
            out.append(atom(name, who, args[0], f"to={to}"))
        else:
            out.append(atom(verb, who, *args))
    return tuple(out)


def taken_from(event: WorldEvent, seen: Sequence[WorldEvent]) -> str:
    """Where a picked item lay just before (the latest perceived fact about it)."""
    item = event.args[0]
    before = (f for e in reversed(seen) if e.t < event.t for f in reversed(e.facts))
    return next((f.value for f in before if f.subject == item and f.relation == AT and f.value), "")


# ---- the draft ------------------------------------------------------------------------------------------------
@dataclass
class Draft:
    """Layer texts and atoms under construction."""

    belief: str
    desire: str
    intention: str
    decision: str
    belief_atoms: list[str]
    desire_atoms: list[str]
    intention_atoms: list[str]
    decision_atoms: list[str]
    beliefs: list[GoldBelief]
    goal: Goal


NO_HELP_DECISION = "No help is needed now, so I keep watching and do not intervene."


def gold_belief(tracker: Tracker, chain: tuple[str, ...], subject: str, relation: str) -> GoldBelief:
    return GoldBelief(
        chain, subject, relation, tracker.value(chain, subject, relation), tracker.world(subject, relation)
    )


def no_help(
    h: Character, about: str, belief: str, belief_atoms: list[str], beliefs: list[GoldBelief], target: str
) -> Draft:
    """The draft of a scenario where ``h`` needs no help (``about``: with what, or ``""``), the robot only watching."""
    return Draft(
        belief,
        " ".join(filter(None, (f"I want to help {h.name}, but {h.subj} does not need my help", about, "right now."))),
        f"I will not interfere, and keep an eye on {h.name} in case {h.subj} needs me later.",
        NO_HELP_DECISION,
        belief_atoms,
        [atom("attribute_desire", ROBOT, atom("no_assist", h.id))],
        [atom("form_intention", ROBOT, "wait")],
        [atom("make_decision", ROBOT, "wait")],
        beliefs,
        Goal(GoalKind.NONE, h.id, target),
    )


def help_draft(
    texts: tuple[str, str, str, str],
    belief_atoms: list[str],
    h: Character,
    assist: str,
    act: str,
    beliefs: list[GoldBelief],
    goal: Goal,
    *,
    resolve: str = "",
) -> Draft:
    """The draft of a scenario where the robot helps ``h``: ``texts`` are the belief, desire, intention and
    decision; the robot wants to ``assist`` and intends and decides ``act`` (after the ``resolve`` atom, if any)."""
    return Draft(
        *texts,
        belief_atoms,
        [atom("attribute_desire", ROBOT, atom("assist", h.id, assist))],
        [atom("form_intention", ROBOT, act)],
        [*([resolve] if resolve else []), atom("make_decision", ROBOT, act)],
        beliefs,
        goal,
    )

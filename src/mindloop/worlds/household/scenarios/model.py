"""Scenario records: setup, script, perceived window, structured events, hidden goal and gold annotation.

Everything is a frozen dataclass with ``to_dict``/``from_dict``; ``to_dict`` gives the same keys for every
scenario (no keys that depend on content), so a JSONL file of them loads as one Arrow/``datasets`` table. The
records are written and read field by field, each field as its annotation says (:mod:`mindloop.records_codec`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from mindloop.beliefs import Event, EventKind, Fact, Source, Utterance
from mindloop.errors import InvalidArgumentError
from mindloop.records_codec import Codec, Record, keyed, write_record
from mindloop.worlds.household.goals import Goal
from mindloop.worlds.household.results import FailureKind, WorldEvent
from mindloop.worlds.household.scenarios.card import SCHEMA
from mindloop.worlds.household.setup import WorldSetup
from mindloop.worlds.household.vocab import ROBOT

LAYERS: tuple[str, ...] = ("perception", "belief", "desire", "intention", "decision", "action")
"""The six layers of the MindPower Reasoning Hierarchy, in order."""

_TAGS: dict[str, str] = {layer: f"<{layer.capitalize()}>" for layer in LAYERS}

_Said = tuple[str, str]
"""One line of a scenario's dialogue: ``(speaker, text)``, written as ``{"speaker", "text"}``."""

_Note = tuple[str, str]
"""One entry of a scenario's ``meta``: ``(key, value)``, written as ``{"key", "value"}``."""


def fact_to_dict(fact: Fact) -> dict[str, Any]:
    """``{"subject", "relation", "value"}`` (value ``None`` for an emptied slot). Written out rather than through
    :mod:`~mindloop.records_codec`, as is :func:`fact_from_dict`: a dataset holds some 60,000 facts for 700
    scenarios."""
    return {"subject": fact.subject, "relation": fact.relation, "value": fact.value}


def fact_from_dict(data: dict[str, Any]) -> Fact:
    """Inverse of :func:`fact_to_dict`."""
    value = data.get("value")
    return Fact(str(data["subject"]), str(data["relation"]), None if value is None else str(value))


def event_to_dict(event: WorldEvent) -> dict[str, Any]:
    """A world event as plain data (same keys for events and utterances)."""
    core = event.core
    return {
        "t": event.t,
        "kind": event.kind,
        "actor": event.actor or "",
        "verb": event.verb,
        "args": list(event.args),
        "room": event.room or "",
        "facts": [fact_to_dict(f) for f in event.facts],
        "witnesses": sorted(event.witnesses),
        "source": core.source.value if isinstance(core, Event) else Source.TESTIMONY.value,
        "text": event.text,
        "phrase": event.phrase,
        "failure": event.failure.value if event.failure is not None else "",
        "robot_saw": ROBOT in event.witnesses,
    }


def event_from_dict(data: dict[str, Any]) -> WorldEvent:
    """Rebuild a :class:`WorldEvent` (with its belief-core event or utterance) from :func:`event_to_dict`."""
    facts = tuple(fact_from_dict(f) for f in data["facts"])
    witnesses = frozenset(str(w) for w in data["witnesses"])
    actor = str(data["actor"]) or None
    core: Event | Utterance
    if data["kind"] == "say":
        if actor is None:
            raise InvalidArgumentError("an utterance record needs a speaker")
        core = Utterance(int(data["t"]), actor, witnesses - {actor}, facts, True, str(data["text"]))
    else:
        core = Event(
            int(data["t"]), EventKind(data["kind"]), actor, facts, witnesses, Source(data["source"]), str(data["text"])
        )
    failure = FailureKind(data["failure"]) if data.get("failure") else None
    return WorldEvent(
        core,
        str(data["verb"]),
        tuple(str(a) for a in data["args"]),
        str(data["room"]) or None,
        str(data.get("phrase", "")),
        failure,
    )


class _Record(Record):
    """A record of this module: facts and events written out (:func:`fact_to_dict`, :func:`event_to_dict`)."""

    __slots__ = ()
    CODECS: ClassVar[Mapping[str, Codec]] = {
        "_Said": keyed("speaker", "text"),
        "_Note": keyed("key", "value"),
        "Fact": (fact_to_dict, fact_from_dict),
        "WorldEvent": (event_to_dict, event_from_dict),
    }


@dataclass(frozen=True, slots=True)
class ScriptStep(_Record):
    """One scripted step: ``actor`` does ``action`` (text form); speech may carry stated ``facts``.

    ``actor == "environment"`` marks world events nobody performs (``powercut()``).
    """

    actor: str
    action: str
    facts: tuple[Fact, ...] = ()


@dataclass(frozen=True, slots=True)
class GoldBelief(_Record):
    """One belief the gold relies on: ``chain`` believes ``subject relation value``; ``actual`` is the truth."""

    chain: tuple[str, ...]
    subject: str
    relation: str
    value: str | None
    actual: str | None

    @property
    def is_false(self) -> bool:
        """Whether the belief disagrees with the world."""
        return self.value != self.actual


@dataclass(frozen=True, slots=True)
class AtomicActions(_Record):
    """The gold in the atomic-action form of MindPower C.1 / Table 3, one tuple per layer.

    Perception: ``verb(character, object, from=..., to=...)``; Belief: ``attribute_belief(robot, ...)``,
    ``hold_true_belief``, ``lack_belief``, ``know``; Desire: ``attribute_desire(robot, assist(...))``;
    Intention: ``form_intention(robot, ...)``; Decision: ``resolve_misbelief`` / ``make_decision``;
    Action: ``plan_action(robot, walk(fridge), ...)``.
    """

    perception: tuple[str, ...] = ()
    belief: tuple[str, ...] = ()
    desire: tuple[str, ...] = ()
    intention: tuple[str, ...] = ()
    decision: tuple[str, ...] = ()
    action: tuple[str, ...] = ()

    def layer(self, name: str) -> tuple[str, ...]:
        """Atoms of one layer by name."""
        if name not in LAYERS:
            raise InvalidArgumentError(f"unknown layer {name!r} (layers: {', '.join(LAYERS)})")
        value: tuple[str, ...] = getattr(self, name)
        return value

    def all(self) -> list[str]:
        """Every atom, layer by layer (the sequence Mind-Reward's ROUGE scores compare)."""
        return [a for name in LAYERS for a in self.layer(name)]


@dataclass(frozen=True, slots=True)
class Gold(_Record):
    """The gold MindPower Reasoning Hierarchy of a scenario, computed from the world and the belief store.

    ``action`` is the paper's ``<Action>`` line; ``actions`` the same plan one ``verb(arg, ...)`` per step
    (executable in the world: checked when the gold is made); ``beliefs`` the beliefs the layers state.
    """

    perception: str
    belief: str
    desire: str
    intention: str
    decision: str
    action: str
    actions: tuple[str, ...]
    atomic: AtomicActions
    beliefs: tuple[GoldBelief, ...]
    help_needed: bool

    def layers(self) -> dict[str, str]:
        """``{layer: text}`` for the six layers."""
        return {name: getattr(self, name) for name in LAYERS}

    def to_text(self) -> str:
        """The six layers as the tagged lines a model is asked to produce (``<Perception> ...``)."""
        return "\n".join(f"{_TAGS[name]} {text}" for name, text in self.layers().items())


@dataclass(frozen=True)
class Scenario(_Record):
    """One MindPower-style sample: how to rebuild it (``setup`` + ``script``), what the robot perceived
    (``observation``, ``dialogue``), every event with witnesses (``events``: privileged, with everything the
    robot did not see), the hidden ``goal`` and the ``gold`` annotation."""

    id: str
    seed: int
    index: int
    task_type: str
    subtype: str
    category: str
    control: bool
    special_needs: str
    humans: tuple[str, ...]
    setup: WorldSetup
    script: tuple[ScriptStep, ...]
    observation: str
    dialogue: tuple[_Said, ...]
    events: tuple[WorldEvent, ...]
    goal: Goal
    gold: Gold
    split: str = ""
    meta: tuple[_Note, ...] = field(default=())

    KIND: ClassVar[str | None] = "scenario record"

    @property
    def help_needed(self) -> bool:
        """Whether the robot should intervene (``False`` for controls)."""
        return self.gold.help_needed

    @property
    def n_humans(self) -> int:
        """How many humans appear."""
        return len(self.humans)

    @property
    def has_dialogue(self) -> bool:
        """Whether the window contains speech."""
        return bool(self.dialogue)

    @property
    def layout(self) -> str:
        """The home layout's name."""
        return self.setup.layout

    def with_split(self, split: str) -> Scenario:
        """The same scenario labelled with its dataset split."""
        return replace(self, split=split)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record (one line of the dataset's JSONL files): the fields and what follows from them, in
        the order of the dataset's schema (``data/schema.yaml``)."""
        derived = {"help_needed": self.help_needed, "n_humans": self.n_humans, "has_dialogue": self.has_dialogue}
        data = {**write_record(self), **derived, "layout": self.layout, "gold_text": self.gold.to_text()}
        return {key: data[key] for key in SCHEMA}

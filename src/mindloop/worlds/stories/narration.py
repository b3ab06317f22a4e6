"""ToMi and Hi-ToM sentences as events: who witnesses what, under each dataset's :class:`StoryPolicy`.

The narrator keeps a small world model (who is in which room, which container is in which room, where each object
is) only to work out *who witnesses* each sentence; the beliefs themselves are kept by the
:class:`~mindloop.beliefs.Tracker` (:func:`track_story`). Reading the files and answering the questions is
:mod:`~mindloop.worlds.stories.tomi`, which re-exports this module's API.

Witnesses: who witnesses an event is who is in the room where it happens. A move happens in the mover's room. A
container's room is the room of the first event that places something in it. A narrated ``The O is in the C.``
names no room: it happens in C's room when an earlier sentence fixed it; otherwise in the room where the story
next shows an agent handling O (moving it out of C) or C (moving something into it, looking in it), since an
agent can only do that in the container's room; otherwise in the room named by the latest ``entered`` sentence.
(ToMi lets a third agent enter another room between the others' entrance and the narrated location, so "the
latest room entered" alone would put the object in the wrong room.)

A sentence of no known form raises :class:`~mindloop.errors.ParseError` naming the source, line number and text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from mindloop.beliefs import Event, EventKind, Fact, Tracker, Utterance, trust_policy
from mindloop.beliefs.vocab import AT, surface_map
from mindloop.errors import ParseError

IN = "in"
"""The one location relation: objects are *in* containers, containers and agents *in* rooms."""

CANONICAL_RELATIONS: Mapping[str, str] = surface_map({IN: AT})
"""ToMi's adapter onto :mod:`mindloop.beliefs.vocab`: its one location word ``in`` is the canonical ``at`` (ToMi
does not separate an agent's room from where a thing is). Stories, gold and answers keep ``in``."""

StoryFormat = Literal["tomi", "hitom"]


@dataclass(frozen=True, slots=True)
class StoryPolicy:
    """What a dataset's generator assumes beyond its sentences, chosen by the format.

    ``reveal_on_entry``: an agent who enters a room sees where every object in it is (and everyone there sees
    that). ToMi's generator does this (its ``EnterAction`` gives the entrant the location of every object in the
    room); Hi-ToM's does not: an agent who comes back to a room does not learn where objects went while it was
    away, and only a narrated ``The O is in the C.`` tells those present. ``trust`` names the
    :func:`~mindloop.beliefs.trust_policy` for what agents say (ToMi's tells are truthful; Hi-ToM's agents trust
    only speakers who left the room later than themselves).
    """

    name: str
    reveal_on_entry: bool
    trust: str


POLICIES: Mapping[str, StoryPolicy] = MappingProxyType(
    {
        "tomi": StoryPolicy("tomi", reveal_on_entry=True, trust="everyone"),
        "hitom": StoryPolicy("hitom", reveal_on_entry=False, trust="hitom"),
    }
)
"""The policy of each format's generator (read-only)."""


def story_policy(fmt: StoryFormat) -> StoryPolicy:
    """The :class:`StoryPolicy` of a format (``tomi`` or ``hitom``)."""
    return POLICIES[fmt]


NAME_PATTERN = r"[A-Za-z][\w-]*"
"""An agent's name in a sentence or question."""
THING_PATTERN = r"[\w-]+"
"""A room, container or object in a sentence or question (``red_box``)."""
_NAME, _THING = NAME_PATTERN, THING_PATTERN  # short names for the patterns below
_END = r"\s*\.?\s*"


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(r"^" + pattern + _END + r"$")


# -- sentences ------------------------------------------------------------------------------------------------
_ENTER = _rx(rf"(?P<names>{_NAME}(?:(?:,| and|, and) {_NAME})*) entered the (?P<room>{_THING})")
_EXIT = _rx(rf"(?P<a>{_NAME}) (?:exited|left|went out of) the (?P<room>{_THING})")
_OBJ_IN = _rx(rf"The (?P<obj>{_THING}) (?:is|are) in the (?P<con>{_THING})")
_MOVE = _rx(rf"(?P<a>{_NAME}) moved the (?P<obj>{_THING}) to the (?P<con>{_THING})")
_AGENT_IN = _rx(rf"(?P<names>{_NAME}(?: and {_NAME})?) (?:is|are) in the (?P<room>{_THING})")
_PEEK = _rx(rf"(?P<a>{_NAME}) looked in the (?P<con>{_THING})")
_TELL_WHERE = _rx(rf"(?P<a>{_NAME}) told (?P<b>{_NAME}) where the (?P<obj>{_THING}) is")
_PRIVATE = _rx(
    rf"(?P<a>{_NAME}) privately told (?P<b>{_NAME}) that (?:the )?(?P<obj>{_THING}) (?:is|are) in the "
    rf"(?P<con>{_THING})(?: now)?"
)
_PUBLIC = _rx(
    rf"(?P<a>{_NAME}) publicly claimed that (?:the )?(?P<obj>{_THING}) (?:is|are) in the (?P<con>{_THING})(?: now)?"
)
_STAY = _rx(rf"(?P<a>{_NAME}) made no movements? and stayed in the (?P<room>{_THING}) for \d+ minutes?")
_NOISE = [
    _rx(rf"(?P<a>{_NAME}) (?:likes|dislikes|loves|hates) the {_THING}"),
    _rx(rf"(?P<a>{_NAME}) saw an? {_THING}"),
    _rx(rf"(?P<a>{_NAME}) lost (?:his|her|their) {_THING}"),
]

PREAMBLE = re.compile(r"^(\*+|Story:.*|Note:.*|Read the following story\b.*|Question:.*)$")
"""Unnumbered lines a story file may hold: separators and the instructions of Hi-ToM exports."""


def _names(group: str) -> list[str]:
    return [n for n in re.split(r",\s*(?:and\s+)?|\s+and\s+", group) if n]


_FORMS: tuple[tuple[str, Callable[[str], bool] | None, re.Pattern[str]], ...] = (
    ("enter", lambda text: " entered the " in text, _ENTER),
    ("exit", lambda text: " exited the " in text or " left the " in text or " went out of " in text, _EXIT),
    ("move", lambda text: " moved the " in text, _MOVE),
    ("put", lambda text: text.startswith("The "), _OBJ_IN),
    ("private", None, _PRIVATE),
    ("public", None, _PUBLIC),
    ("tell_where", None, _TELL_WHERE),
    ("stay", None, _STAY),
    *(("noise", None, rx) for rx in _NOISE),
    ("enter", lambda text: not text.startswith("The "), _AGENT_IN),
    ("peek", None, _PEEK),
)
"""Each sentence form in the order they are tried: its kind, a cheap test a sentence of it passes (``None``: none)
and its pattern, whose groups are its slots (an entrance's ``names`` split into one slot per name)."""


@functools.lru_cache(maxsize=1 << 16)
def _classify(text: str) -> tuple[str, tuple[str, ...]]:
    """Which sentence form ``text`` has and its slots; pure, so identical sentences are matched once."""
    for kind, hint, rx in _FORMS:
        if (hint is None or hint(text)) and (m := rx.match(text)):
            return kind, (*_names(m["names"]), m["room"]) if kind == "enter" else m.groups()
    raise ParseError("unknown sentence", text=text)


_NOBODY: frozenset[str] = frozenset()


@functools.lru_cache(maxsize=1 << 16)
def _located(thing: str, place: str | None) -> Fact:
    """``Fact(thing, IN, place)``, shared: stories repeat the same few facts many times."""
    return Fact(thing, IN, place)


def _put_rooms(texts: Sequence[str]) -> dict[int, str]:
    """Rooms of narrated ``The O is in the C.`` sentences that only a later sentence reveals, by 1-based position.

    A put whose container has no room yet is resolved by the first later sentence where an agent handles the
    object while it is still in that container (a move of it), or handles the container (a move into it, a look
    in it): the agent's room at that sentence. Sentences of unknown form are skipped here (the main pass names
    them with their line).
    """
    agent_room: dict[str, str] = {}
    known: set[str] = set()  # containers whose room an earlier sentence fixed
    by_object: dict[str, tuple[int, str]] = {}  # object -> (put index, container) still unresolved
    by_container: dict[str, list[int]] = {}  # container -> put indices still unresolved
    out: dict[int, str] = {}

    def resolve(con: str, room: str | None) -> None:
        if room is None:
            return
        for i in by_container.pop(con, ()):
            out[i] = room
        known.add(con)

    for i, text in enumerate(texts, 1):
        try:
            kind, g = _classify(text)
        except ParseError:
            continue
        if kind == "enter":
            for name in g[:-1]:
                agent_room[name] = g[-1]
        elif kind == "exit":
            agent_room.pop(g[0], None)
        elif kind == "put":
            obj, con = g
            by_object.pop(obj, None)
            if con not in known:
                by_object[obj] = (i, con)
                by_container.setdefault(con, []).append(i)
        elif kind == "move":
            a, obj, con = g
            room = agent_room.get(a)
            pending = by_object.pop(obj, None)
            if pending is not None:
                resolve(pending[1], room)
            resolve(con, room)
        elif kind == "peek":
            resolve(g[1], agent_room.get(g[0]))
    return out


class _Narrator:
    """Minimal world model for a story: rooms of agents and containers, containers of objects."""

    def __init__(self, put_rooms: dict[int, str] | None = None, *, reveal_on_entry: bool = True) -> None:
        self.reveal_on_entry = reveal_on_entry
        self.agent_room: dict[str, str] = {}
        self.occupants: dict[str, frozenset[str]] = {}
        self.container_room: dict[str, str] = {}
        self.obj_container: dict[str, str] = {}
        self.scene: str | None = None
        self.put_rooms = put_rooms or {}

    def present(self, room: str | None) -> frozenset[str]:
        return self.occupants.get(room, _NOBODY) if room is not None else _NOBODY

    def place(self, agent: str, room: str | None) -> None:
        old = self.agent_room.pop(agent, None)
        if old is not None:
            self.occupants[old] = self.occupants[old] - {agent}
        if room is not None:
            self.agent_room[agent] = room
            self.occupants[room] = self.occupants.get(room, _NOBODY) | {agent}

    def room_of_container(self, con: str, fallback: str | None) -> str | None:
        room = self.container_room.get(con)
        if room is None and fallback is not None:
            self.container_room[con] = fallback
            room = fallback
        return room

    def visible(self, room: str) -> tuple[Fact, ...]:
        rooms = self.container_room
        return tuple([_located(obj, con) for obj, con in self.obj_container.items() if rooms.get(con) == room])

    def events(self, t: int, text: str) -> list[Event | Utterance]:
        """The events one sentence stands for; raises ParseError for a sentence of no known form."""
        kind, g = _classify(text)
        if kind == "enter":
            return self._enter(t, text, list(g[:-1]), g[-1])
        if kind == "exit":
            a = g[0]
            here = self.present(g[1]) | {a}
            self.place(a, None)
            return [Event(t, EventKind.EXIT, a, (_located(a, None),), here, text=text)]
        if kind == "move":
            a, obj, con = g
            room = self.room_of_container(con, self.agent_room.get(a) or self.scene)
            self.obj_container[obj] = con
            return [Event(t, EventKind.MOVE, a, (_located(obj, con),), self.present(room) | {a}, text=text)]
        if kind == "put":
            obj, con = g
            room = self.room_of_container(con, self.put_rooms.get(t, self.scene))
            self.obj_container[obj] = con
            return [Event(t, EventKind.PUT, None, (_located(obj, con),), self.present(room), text=text)]
        if kind == "stay":
            return [Event(t, EventKind.NOISE, g[0], (), self.present(g[1]) | {g[0]}, text=text)]
        if kind == "noise":
            return [Event(t, EventKind.NOISE, g[0], (), frozenset(), text=text)]
        if kind == "private":
            return [Utterance(t, g[0], frozenset({g[1]}), (Fact(g[2], IN, g[3]),), False, text)]
        if kind == "public":
            a = g[0]
            listeners = self.present(self.agent_room.get(a)) - {a}
            return [Utterance(t, a, listeners, (Fact(g[1], IN, g[2]),), True, text)]
        if kind == "peek":
            a, con = g
            room = self.room_of_container(con, self.agent_room.get(a) or self.scene)
            seen = tuple([_located(o, c) for o, c in self.obj_container.items() if c == con])
            return [Event(t, EventKind.OBSERVE, a, seen, self.present(room) | {a}, text=text)]
        # kind == "tell_where": a truthful tell of where the object really is (ToMi's TellAction)
        a, b, obj = g
        where = self.obj_container.get(obj)
        if where is None:
            raise ParseError(f"{a} tells where the {obj} is before it was placed", text=text)
        return [Utterance(t, a, frozenset({b}), (Fact(obj, IN, where),), False, text)]

    def _enter(self, t: int, text: str, names: list[str], room: str) -> list[Event | Utterance]:
        left: set[str] = set()
        for n in names:
            old = self.agent_room.get(n)
            if old != room:
                if old is not None:
                    left |= self.occupants[old]
                self.place(n, room)
        self.scene = room
        here = self.present(room)
        facts = tuple([_located(n, room) for n in names])
        witnesses = here | left if left else here
        out: list[Event | Utterance] = [Event(t, EventKind.ENTER, names[0], facts, witnesses, text=text)]
        seen = self.visible(room) if self.reveal_on_entry else ()
        if seen:
            out.append(Event(t, EventKind.OBSERVE, names[0], seen, here, text=text))
        return out


def narrate(
    sentences: Sequence[tuple[int, str]], source: str = "<story>", policy: StoryPolicy | None = None
) -> list[Event | Utterance]:
    """Turn ``(line number, sentence)`` pairs into events and utterances; time step = position in the story.

    ``policy`` says what an entrance reveals (ToMi's policy when ``None``). Errors name ``source`` and the line
    number given with the sentence.
    """
    reveal = POLICIES["tomi"].reveal_on_entry if policy is None else policy.reveal_on_entry
    narrator = _Narrator(_put_rooms([text for _, text in sentences]), reveal_on_entry=reveal)
    out: list[Event | Utterance] = []
    for t, (lineno, text) in enumerate(sentences, 1):
        try:
            out.extend(narrator.events(t, text))
        except ParseError as exc:
            raise ParseError(exc.reason, source=source, line=lineno, text=text) from None
    return out


_CONTAINER_SLOT = {"move": 2, "put": 1, "private": 3, "public": 2, "peek": 1}


def story_containers(sentences: Sequence[tuple[int, str]]) -> tuple[str, ...]:
    """The containers a story names, in order of first mention: the answer options of its questions.

    >>> story = ["Ann entered the den.", "The pen is in the box.", "Ann moved the pen to the bag."]
    >>> story_containers(list(enumerate(story, 1)))
    ('box', 'bag')
    """
    seen: dict[str, None] = {}
    for _, text in sentences:
        if PREAMBLE.match(text):
            continue
        kind, slots = _classify(text)
        slot = _CONTAINER_SLOT.get(kind)
        if slot is not None:
            seen.setdefault(slots[slot], None)
    return tuple(seen)


def track_story(
    sentences: Sequence[tuple[int, str]],
    fmt: StoryFormat,
    source: str = "<story>",
    max_depth: int = 6,
    policy: StoryPolicy | None = None,
) -> Tracker:
    """Run a story through a fresh tracker under the format's :class:`StoryPolicy` (or ``policy`` when given).

    ``tomi``: entrances reveal object locations, trust-everyone; ``hitom``: entrances reveal nothing, Hi-ToM's
    exit-order trust rule.
    """
    chosen = policy if policy is not None else story_policy(fmt)
    tracker = Tracker(max_depth=max_depth, trust=trust_policy(chosen.trust))
    tracker.apply_all(narrate(sentences, source, chosen))
    return tracker

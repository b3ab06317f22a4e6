"""Templated false-belief stories in plain prose: a parser into events, and a seeded generator.

The parser reads the unexpected-transfer stories of the paper's worked example (Table 14: "Alice and Bob are in
a room. There is an object in a box. Bob leaves. Alice moves the object to the safe.") and of ToMBench's False
Belief Task ("Xiaogang and Xiaoming are wandering in the bedroom, they see a handbag, a briefcase, and a
backpack, they find cabbage in the handbag, Xiaoming leaves the bedroom, Xiaogang moves the cabbage to the
backpack."). A story is split into sentences and comma clauses (list items are joined back); each clause must
be one of a few forms (agents present in a room; containers seen; an object found / stated in a container; an
agent leaving, entering or moving an object); anything else raises :class:`~mindloop.errors.ParseError` naming
the clause. Every container the story mentions stands in the room where it is first mentioned from the moment
that room is first described, seen by whoever is there (the paper's gold has both actors perceive the safe).

Who witnesses what follows co-presence, as in ToMi: everyone in the room sees what happens there; a leaving agent
sees nothing after; an entering agent sees where the objects of the room are.

It also reads ToMBench's unexpected-*contents* stories ("Xiao Bei finds a cabinet in the office, the label on the
cabinet is pineapple, Xiao Bei cannot see what is inside the cabinet, Xiao Bei opens the cabinet and finds a
calculator, there is no pineapple in the cabinet, Xiao Bei closes the cabinet and puts it back in its place, Han
Mei Mei enters the office and sees the cabinet."). The container holds what is found in it from the start (a world
fact nobody has seen, ``contains``); reading the label is a ``believe`` event
(:attr:`~mindloop.beliefs.EventKind.BELIEVE`, source Inference) that writes "the cabinet contains pineapple" to
every holder chain over the agents present except those made only of agents who saw inside (they know better, and
so does every chain that is their view of each other); opening it shows the contents to everyone present. A closed
container's contents are not seen by an agent who enters.

The generator's pools and story variants are package data (``data/templated.yaml``), checked on import: every
variant must give a story this parser reads.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated

from pydantic import Field, StringConstraints, ValidationInfo, field_validator

from mindloop.beliefs import BeliefStore, Chain, Event, EventKind, Fact, Source
from mindloop.beliefs.vocab import AT, CONTAINS, OPEN, surface_map
from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import InvalidArgumentError, ParseError

IN = "in"
"""The location relation: agents and containers are *in* rooms, objects *in* containers."""

LABEL = "label"
"""What a container's label or tag says is inside (unexpected-contents stories; a relation of these stories only)."""

BELIEF_DEPTH = 3
"""How deep the holder chains of a label's ``believe`` event go (OmniToM's deepest order)."""

CANONICAL_RELATIONS: Mapping[str, str] = surface_map({IN: AT})
"""The templated stories' adapter onto :mod:`mindloop.beliefs.vocab`: their location word ``in`` is the canonical
``at``; ``contains`` and ``open`` are canonical already, ``label`` has no counterpart. Events and annotations keep
``in``."""

_NAME = r"[A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,2}"
_NAMES = rf"{_NAME}(?:(?:, and |, | and ){_NAME})*"
_ART = r"(?:(?:a|an|the|some) )?"
_NOUN = r"[a-z][a-z ]*?"
_ACTIVITY = r"(?: (?:wandering|strolling|roaming|hanging out|playing|walking|sitting|standing|chatting))?"


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile("^" + pattern + "$")


_PRESENT = _rx(
    rf"(?P<names>{_NAMES}) (?:are|is|were|was){_ACTIVITY}(?: around)? (?:in|on|at|around|inside) {_ART}"
    rf"(?P<room>{_NOUN})"
)
_PRESENT_VERB = _rx(
    rf"(?P<names>{_NAMES}) (?:stroll|wander|walk|roam|hang out|play|sit|stand)s?(?: around)? "
    rf"(?:in|on|at|around|inside) {_ART}(?P<room>{_NOUN})"
)
_FIND = _rx(
    rf"(?:[Tt]hey|{_NAMES}) (?:finds?|found|discovers?|discovered|sees?|saw|notices?|noticed) {_ART}(?P<obj>{_NOUN}) "
    rf"(?:in|inside) {_ART}(?P<con>{_NOUN})"
)
_SEE = _rx(rf"(?:[Tt]hey|{_NAMES}) (?:see|saw|notice|noticed|spot|spotted) (?P<list>[a-z][a-z ,]*)")
_THERE = _rx(rf"[Tt]here (?:is|are) {_ART}(?P<obj>{_NOUN}) (?:in|inside) {_ART}(?P<con>{_NOUN})")
_THE_IN = _rx(rf"[Tt]he (?P<obj>{_NOUN}) (?:is|are) (?:in|inside) {_ART}(?P<con>{_NOUN})")
_EXIT = _rx(
    rf"(?P<a>{_NAME}) (?:leaves|left|exits|exited|goes out|went out|walks out|walked out)(?: of)?"
    rf"(?: {_ART}(?P<room>{_NOUN}))?"
)
_MOVE = _rx(
    rf"(?P<a>{_NAME}) (?:moves|moved|puts|put|places|placed|transfers|transferred|hides|hid) {_ART}"
    rf"(?P<obj>{_NOUN}) (?:to|into|in|inside) {_ART}(?P<con>{_NOUN})"
)
_ENTER = _rx(
    rf"(?P<a>{_NAME}) (?:enters|entered|comes back to|came back to|returns to|returned to|comes into|came into|"
    rf"comes back into|came back into) {_ART}(?P<room>{_NOUN})"
    rf"(?: and (?:sees|saw|notices|noticed) {_ART}(?P<seen>{_NOUN}))?"
)
# unexpected-contents stories
_PHRASE = r"(?:(?:a|an|some) )?[a-z][a-z ]*?"
_FIND_CONTAINER = _rx(
    rf"(?P<a>{_NAME}) (?:finds|found|sees|saw|notices|noticed|discovers|discovered) {_ART}(?P<con>{_NOUN}) "
    rf"(?:in|on|at|inside) {_ART}(?P<room>{_NOUN})"
)
_LABEL = _rx(rf"[Tt]he (?:label|tag|sign|sticker) on {_ART}(?P<con>{_NOUN}) (?:is|says|reads) (?P<label>{_PHRASE})")
_CANNOT_SEE = _rx(
    rf"(?P<a>{_NAME}) (?:cannot|can't|can not|could not|couldn't|does not|doesn't|did not|didn't) see what"
    rf"(?: is|'s)? (?:inside|in) {_ART}(?P<con>{_NOUN})"
)
_OPEN_FIND = _rx(
    rf"(?P<a>{_NAME}) (?:opens|opened) {_ART}(?P<con>{_NOUN}) and (?:finds|found|sees|saw|discovers|discovered) "
    rf"(?P<content>{_PHRASE})"
)
_NO_CONTENT = _rx(rf"[Tt]here (?:is|are) no (?P<label>{_NOUN}) (?:in|inside) {_ART}(?P<con>{_NOUN})")
_CLOSE = _rx(
    rf"(?P<a>{_NAME}) (?:closes|closed) {_ART}(?P<con>{_NOUN})(?: and (?:puts|put|places|placed) it back"
    rf"(?: in its place| in place| where it belongs| to its place)?)?"
)
_CLAUSE_START = re.compile(rf"^(?:(?:and|then|after that|later) )?(?:[Tt]hey |[Tt]here |[Tt]he |{_NAME}\b)")
_BARE_NAME = re.compile(rf"^{_NAME}$")
_LEAD = re.compile(r"^(?:and|then|after that|later),? ", re.IGNORECASE)


def _singular(noun: str) -> str:
    words = noun.split()
    last = words[-1]
    if len(last) > 4 and last.endswith("es") and last[:-2].endswith(("x", "ss", "ch", "sh")):
        last = last[:-2]
    elif len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us")):
        last = last[:-1]
    return " ".join([*words[:-1], last])


def _names(group: str) -> list[str]:
    return [n for n in re.split(r", and |, | and ", group) if n]


def split_clauses(text: str) -> list[str]:
    """Sentences split at commas into clauses; list items ("a briefcase", "and a backpack") rejoin their clause.

    >>> split_clauses("They see a box, a bag, and a safe, Bob leaves. Alice moves the ball to the safe.")
    ['They see a box, a bag, and a safe', 'Bob leaves', 'Alice moves the ball to the safe']
    """
    clauses: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+", text.strip()):
        sentence = sentence.strip().rstrip(".!?").strip()
        if not sentence:
            continue
        first = True
        pending = ""  # bare names of a list ("Emma", "Carol") wait for the chunk with their verb
        for chunk in sentence.split(", "):
            chunk = chunk.strip()
            if _BARE_NAME.match(chunk) and (first or pending):
                pending += chunk + ", "
                continue
            if pending:
                clauses.append(pending + chunk)
                pending = ""
            elif first or not clauses:
                clauses.append(chunk)
            elif _CLAUSE_START.match(chunk) and not re.match(r"^and (?:a|an|the|some) ", chunk):
                clauses.append(_LEAD.sub("", chunk))
            else:
                clauses[-1] = f"{clauses[-1]}, {chunk}"
            first = False
        if pending:
            clauses.append(pending.rstrip(", "))
    return clauses


@dataclass(frozen=True)
class TemplatedStory:
    """A parsed story: its clauses, the events they stand for, and the kinds of things it names."""

    text: str
    clauses: tuple[str, ...]
    events: tuple[Event, ...]
    agents: tuple[str, ...]
    objects: tuple[str, ...]
    containers: tuple[str, ...]
    rooms: tuple[str, ...]

    @property
    def kinds(self) -> dict[str, str]:
        """``agent`` / ``object`` / ``container`` of every thing named (what the annotator realises)."""
        out = dict.fromkeys(self.containers, "container")
        out.update(dict.fromkeys(self.objects, "object"))
        out.update(dict.fromkeys(self.agents, "agent"))
        return out


def _classify(clause: str) -> tuple[str, dict[str, str]]:
    for kind, rx in (
        ("present", _PRESENT),
        ("present", _PRESENT_VERB),
        ("exit", _EXIT),
        ("move", _MOVE),
        ("enter", _ENTER),
        ("find", _FIND),
        ("no_content", _NO_CONTENT),
        ("there", _THERE),
        ("the_in", _THE_IN),
        ("see", _SEE),
        ("label", _LABEL),
        ("cannot_see", _CANNOT_SEE),
        ("open_find", _OPEN_FIND),
        ("close", _CLOSE),
        ("find_container", _FIND_CONTAINER),
    ):
        m = rx.match(clause)
        if m:
            return kind, {k: v for k, v in m.groupdict().items() if v is not None}
    raise ParseError("not a templated false-belief clause", text=clause)


def _see_list(items: str) -> list[str]:
    return [_singular(p) for part in _names(items) if (p := re.sub(r"^(?:a|an|the|some) ", "", part.strip()))]


def _classify_all(clauses: Sequence[str], source: str) -> list[tuple[str, dict[str, str]]]:
    """Classify every clause; an agent finding something before any room is described finds a *container* in a
    room ("Xiao Li finds a box in the basement"), which opens an unexpected-contents story."""
    parsed: list[tuple[str, dict[str, str]]] = []
    scene = False
    for clause in clauses:
        try:
            kind, groups = _classify(clause)
        except ParseError as exc:
            raise ParseError(exc.reason, source=source, text=clause) from None
        if kind in ("find", "find_container") and not scene:
            m = _FIND_CONTAINER.match(clause)
            if m is None:
                raise ParseError("something is found before any room is described", source=source, text=clause)
            kind, groups = "find_container", {k: v for k, v in m.groupdict().items() if v is not None}
        elif kind == "find_container":
            raise ParseError("not a templated false-belief clause", source=source, text=clause)
        scene = scene or kind in ("present", "enter", "find_container")
        parsed.append((kind, groups))
    return parsed


def _container_rooms(parsed: Sequence[tuple[str, dict[str, str]]], source: str) -> dict[str, str]:
    """The room each container stands in: the scene where it is first mentioned (first pass over the clauses)."""
    scene: str | None = None
    container_room: dict[str, str] = {}
    agent_room: dict[str, str] = {}
    for kind, g in parsed:
        if kind == "present":
            scene = g["room"]
            agent_room.update(dict.fromkeys(_names(g["names"]), scene))
        elif kind in ("enter", "find_container"):
            scene = g["room"]
            agent_room[g["a"]] = scene
        mentioned = _see_list(g["list"]) if kind == "see" else [_singular(g["con"])] if "con" in g else []
        mentioned += [_singular(g["seen"])] if "seen" in g else []
        room = agent_room.get(g.get("a", ""), scene)
        for con in mentioned:
            if room is None:
                raise ParseError("a container is mentioned before any room is", source=source, text=con)
            container_room.setdefault(con, room)
    return container_room


class _Narrator:
    """The second pass: turns classified clauses into events, following who is where (co-presence witnessing)."""

    def __init__(self, container_room: dict[str, str], contents: dict[str, str], source: str) -> None:
        self.container_room = container_room
        self.contents = contents
        self.labels: dict[str, str] = {}
        self.informed: dict[str, set[str]] = {}
        self.source = source
        self.events: list[Event] = []
        self.agents: list[str] = []
        self.objects: list[str] = []
        self.rooms: list[str] = []
        self.where: dict[str, str | None] = {}
        self.obj_in: dict[str, str] = {}
        self.described: set[str] = set()
        self.t = 0

    def add(
        self,
        kind: EventKind,
        actor: str | None,
        facts: tuple[Fact, ...],
        room: str | None,
        text: str,
        source: Source = Source.PERCEPTION,
        chains: frozenset[Chain] = frozenset(),
    ) -> None:
        """The next event, witnessed by whoever is in ``room`` (nobody when it is ``None``); a belief's ``source``
        and ``chains`` as :class:`~mindloop.beliefs.Event` takes them."""
        self.t += 1
        self.events.append(Event(self.t, kind, actor, facts, self.present(room), source, text=text, chains=chains))

    def present(self, room: str | None) -> frozenset[str]:
        return frozenset(a for a, r in self.where.items() if r == room and room is not None)

    def describe(self, room: str) -> None:
        """Set up the containers of ``room`` the first time it is described, seen by whoever is there."""
        if room in self.described:
            return
        self.described.add(room)
        cons = tuple(Fact(c, IN, room) for c, r in self.container_room.items() if r == room)
        if cons:
            self.add(EventKind.OTHER, None, cons, room, "")
        hidden = tuple(Fact(c, CONTAINS, self.contents[c]) for c, _ in (f.key for f in cons) if c in self.contents)
        if hidden:  # what a closed container holds is true from the start, and seen by nobody yet
            self.add(EventKind.OTHER, None, hidden, None, "")

    def room_of(self, agent: str, clause: str) -> str:
        room = self.where.get(agent)
        if room is None:
            raise ParseError(f"{agent} is not in any room here", source=self.source, text=clause)
        return room

    def clause(self, clause: str, kind: str, g: dict[str, str]) -> None:
        """Narrate one classified clause."""
        if "a" in g and g["a"] not in self.agents:
            self.agents.append(g["a"])
        if kind == "present":
            self.present_clause(g)
        elif kind == "see":
            return  # the containers were set up with the room: seeing them adds nothing new
        elif kind in ("find_container", "label", "cannot_see", "open_find", "no_content", "close"):
            self.contents_clause(clause, kind, g)
        elif kind in ("find", "there", "the_in"):
            obj, con = _singular(g["obj"]), _singular(g["con"])
            self._note_object(obj, con)
            narrated = clause[0].upper() + clause[1:] if kind in ("there", "the_in") else ""
            self.add(EventKind.PUT, None, (Fact(obj, IN, con),), self.container_room[con], narrated)
        elif kind == "exit":
            self.exit_clause(clause, g["a"], g.get("room"))
        elif kind == "move":
            a, obj, con = g["a"], _singular(g["obj"]), _singular(g["con"])
            room = self.room_of(a, clause)
            self._note_object(obj, con)
            self.add(EventKind.MOVE, a, (Fact(obj, IN, con),), room, clause)
        else:
            self.enter_clause(clause, g["a"], g["room"], g.get("seen"))

    def _note_object(self, obj: str, con: str) -> None:
        if obj not in self.objects:
            self.objects.append(obj)
        self.obj_in[obj] = con

    def present_clause(self, g: dict[str, str]) -> None:
        names = _names(g["names"])
        self.agents.extend(n for n in names if n not in self.agents)
        room = g["room"]
        if room not in self.rooms:
            self.rooms.append(room)
        for n in names:
            self.where[n] = room
        self.add(EventKind.OTHER, None, tuple(Fact(n, IN, room) for n in names), room, "")
        self.describe(room)

    def exit_clause(self, clause: str, a: str, named: str | None) -> None:
        room = self.room_of(a, clause)
        if named is not None and named != room:
            raise ParseError(f"{a} leaves the {named} but is in the {room}", source=self.source, text=clause)
        self.add(EventKind.EXIT, a, (Fact(a, IN, None),), room, clause)
        self.where[a] = None

    def enter_clause(self, clause: str, a: str, room: str, looked: str | None = None) -> None:
        if room not in self.rooms:
            self.rooms.append(room)
        self.where[a] = room
        self.add(EventKind.ENTER, a, (Fact(a, IN, room),), room, clause)
        self.describe(room)
        seen = tuple(Fact(o, IN, c) for o, c in self.obj_in.items() if self.container_room.get(c) == room)
        if seen:
            self.add(EventKind.OBSERVE, a, seen, room, "")
        if looked is not None:
            con = _singular(looked)  # placed in its room by the first pass
            facts = [Fact(con, IN, room)] + ([Fact(con, LABEL, self.labels[con])] if con in self.labels else [])
            self.add(EventKind.OBSERVE, a, tuple(facts), room, "")
            self.read_label(con, room)

    # ---- unexpected contents -------------------------------------------------------------------------------
    def read_label(self, con: str, room: str) -> None:
        """Everyone present takes the label at its word, except in the chains of those who saw inside."""
        label = self.labels.get(con)
        if label is None:
            return
        informed = self.informed.get(con, set())
        # every holder chain over those present (the world's empty chain is made only of the informed: left out)
        chains = BeliefStore.holders(self.present(room), BELIEF_DEPTH)
        believers = frozenset(c for c in chains if not set(c) <= informed)
        if believers:
            facts = (Fact(con, CONTAINS, label),)
            self.add(EventKind.BELIEVE, None, facts, None, "", source=Source.INFERENCE, chains=believers)

    def contents_clause(self, clause: str, kind: str, g: dict[str, str]) -> None:
        """Narrate a clause of an unexpected-contents story."""
        if kind == "find_container":
            self.present_clause({"names": g["a"], "room": g["room"]})
            return
        con = _singular(g["con"])  # placed in its room by the first pass
        room = self.container_room[con]
        if kind == "label":
            self.labels[con] = g["label"]
            self.add(EventKind.OTHER, None, (Fact(con, LABEL, g["label"]),), room, clause[0].upper() + clause[1:])
            self.read_label(con, room)
        elif kind == "open_find":
            self.room_of(g["a"], clause)
            self.add(EventKind.OPEN, g["a"], (Fact(con, OPEN, "open"),), room, clause)
            self.add(EventKind.OBSERVE, g["a"], (Fact(con, CONTAINS, g["content"]),), room, "")
            self.informed.setdefault(con, set()).update(self.present(room))
        elif kind == "close":
            self.room_of(g["a"], clause)
            self.add(EventKind.CLOSE, g["a"], (Fact(con, OPEN, "closed"),), room, clause)
        # "cannot see what is inside" and "there is no pineapple in the cabinet" state what the events already hold


def parse_templated_story(text: str, *, source: str = "<story>") -> TemplatedStory:
    """Parse one templated false-belief story into events (time step = clause number, container set-up after
    the clause that first describes a room). Raises :class:`ParseError` naming the clause it cannot read."""
    clauses = split_clauses(text)
    if not clauses:
        raise ParseError("empty story", source=source)
    parsed = _classify_all(clauses, source)
    container_room = _container_rooms(parsed, source)
    contents = {_singular(g["con"]): g["content"] for kind, g in parsed if kind == "open_find"}
    narrator = _Narrator(container_room, contents, source)
    for clause, (kind, g) in zip(clauses, parsed, strict=True):
        narrator.clause(clause, kind, g)
    return TemplatedStory(
        text=text,
        clauses=tuple(clauses),
        events=tuple(narrator.events),
        agents=tuple(narrator.agents),
        objects=tuple(narrator.objects),
        containers=tuple(container_room),
        rooms=tuple(narrator.rooms),
    )


# ---- generator ----------------------------------------------------------------------------------------------------
_PLACEHOLDERS = frozenset({"a", "b", "c", "room", "c1", "c2", "obj", "an_obj", "an_c1", "an_c2"})


def _a(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def _fill(template: str, names: Sequence[str], room: str, c1: str, c2: str, obj: str) -> str:
    a, b, c = names
    return template.format(a=a, b=b, c=c, room=room, c1=c1, c2=c2, obj=obj, an_obj=_a(obj), an_c1=_a(c1), an_c2=_a(c2))


_Names = Annotated[tuple[Annotated[str, StringConstraints(pattern=f"^{_NAME}$")], ...], Field(min_length=3)]
_Nouns = Annotated[tuple[Annotated[str, StringConstraints(pattern=r"^[a-z][a-z ]*[a-z]$")], ...], Field(min_length=1)]


class StoryTables(DataModel):
    """The generator's pools (names, rooms, containers, objects) and story variants, as ``data/templated.yaml``
    writes them."""

    names: _Names
    rooms: _Nouns
    containers: Annotated[_Nouns, Field(min_length=2)]
    objects: _Nouns
    variants: dict[str, str] = Field(min_length=1)

    @field_validator("names", "rooms", "containers", "objects")
    @classmethod
    def _distinct(cls, pool: tuple[str, ...]) -> tuple[str, ...]:
        repeated = [x for i, x in enumerate(pool) if x in pool[:i]]
        if repeated:
            raise ValueError(f"{repeated[0]!r} appears twice")
        return pool

    @field_validator("variants")
    @classmethod
    def _readable(cls, variants: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        """Every variant uses known placeholders, and a story filled in from it is read back by the parser."""
        pools = info.data
        for name, template in variants.items():
            used = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}
            if used - _PLACEHOLDERS:
                raise ValueError(f"{name}: unknown placeholder {{{sorted(used - _PLACEHOLDERS)[0]}}}")
            if not {"names", "rooms", "containers", "objects"} <= set(pools):
                continue  # a pool is malformed and reported on its own
            example = (pools["rooms"][0], *pools["containers"][:2], pools["objects"][0])
            try:
                parse_templated_story(_fill(template, pools["names"][:3], *example))
            except ParseError as exc:
                raise ValueError(f"{name}: gives a story the parser cannot read: {exc}") from None
        return variants


def load_story_tables(path: str | Path | Traversable | None = None) -> StoryTables:
    """Read and check the generator's pools and variants (the file shipped with mindloop when ``path`` is ``None``).
    A malformed file raises :class:`~mindloop.datafiles.DataFileError` naming the file and the field."""
    return load_package_data(StoryTables, __name__.rsplit(".", 1)[0], "templated.yaml", path)


_TABLES = load_story_tables()


def generate_false_belief_stories(n: int, *, seed: int = 0) -> list[str]:
    """``n`` seeded templated false-belief stories the parser reads (same seed, same stories).

    Variants (``data/templated.yaml``): the classic hidden transfer (Table 14's wording or ToMBench's), a return that
    repairs the belief, a third agent who leaves at another time, and a transfer everyone sees (a true-belief
    control).
    """
    if n < 0:
        raise InvalidArgumentError(f"n must be >= 0, got {n}")
    rng = random.Random(seed)
    tables = _TABLES
    variants = list(tables.variants.values())
    stories = []
    for _ in range(n):
        names = rng.sample(tables.names, 3)
        room = rng.choice(tables.rooms)
        c1, c2 = rng.sample(tables.containers, 2)
        obj = rng.choice(tables.objects)
        stories.append(_fill(variants[rng.randrange(len(variants))], names, room, c1, c2, obj))
    return stories

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
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass

from mindloop.beliefs import Event, EventKind, Fact
from mindloop.beliefs.vocab import AT, surface_map
from mindloop.errors import InvalidArgumentError, ParseError

__all__ = [
    "CANONICAL_RELATIONS",
    "IN",
    "TemplatedStory",
    "generate_false_belief_stories",
    "parse_templated_story",
    "split_clauses",
]

IN = "in"
"""The location relation: agents and containers are *in* rooms, objects *in* containers."""

CANONICAL_RELATIONS: Mapping[str, str] = surface_map({IN: AT})
"""The templated stories' adapter onto :mod:`mindloop.beliefs.vocab`: their location word ``in`` is the canonical
``at``. Events and annotations keep ``in``."""

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
        ("there", _THERE),
        ("the_in", _THE_IN),
        ("see", _SEE),
    ):
        m = rx.match(clause)
        if m:
            return kind, {k: v for k, v in m.groupdict().items() if v is not None}
    raise ParseError("not a templated false-belief clause", text=clause)


def _see_list(items: str) -> list[str]:
    parts = re.split(r", and |, | and ", items)
    out = []
    for p in parts:
        p = re.sub(r"^(?:a|an|the|some) ", "", p.strip())
        if p:
            out.append(_singular(p))
    return out


def parse_templated_story(text: str, *, source: str = "<story>") -> TemplatedStory:
    """Parse one templated false-belief story into events (time step = clause number, container set-up after
    the clause that first describes a room). Raises :class:`ParseError` naming the clause it cannot read."""
    clauses = split_clauses(text)
    if not clauses:
        raise ParseError("empty story", source=source)
    parsed: list[tuple[str, dict[str, str]]] = []
    for clause in clauses:
        try:
            parsed.append(_classify(clause))
        except ParseError as exc:
            raise ParseError(exc.reason, source=source, text=clause) from None
    # first pass: which room each container stands in (the scene where it is first mentioned)
    scene: str | None = None
    container_room: dict[str, str] = {}
    agent_room: dict[str, str] = {}
    for kind, g in parsed:
        if kind == "present":
            scene = g["room"]
            agent_room.update(dict.fromkeys(_names(g["names"]), scene))
        elif kind == "enter":
            scene = g["room"]
            agent_room[g["a"]] = scene
        mentioned = _see_list(g["list"]) if kind == "see" else [_singular(g["con"])] if "con" in g else []
        room = agent_room.get(g.get("a", ""), scene)
        for con in mentioned:
            if room is None:
                raise ParseError("a container is mentioned before any room is", source=source, text=con)
            container_room.setdefault(con, room)
    # second pass: events
    events: list[Event] = []
    agents: list[str] = []
    objects: list[str] = []
    rooms: list[str] = []
    where: dict[str, str | None] = {}
    obj_in: dict[str, str] = {}
    described: set[str] = set()
    t = 0

    def present(room: str | None) -> frozenset[str]:
        return frozenset(a for a, r in where.items() if r == room and room is not None)

    def describe(room: str) -> None:
        nonlocal t
        if room in described:
            return
        described.add(room)
        cons = tuple(Fact(c, IN, room) for c, r in container_room.items() if r == room)
        if cons:
            t += 1
            events.append(Event(t, EventKind.OTHER, None, cons, present(room), text=""))

    def room_of(agent: str, clause: str) -> str:
        room = where.get(agent)
        if room is None:
            raise ParseError(f"{agent} is not in any room here", source=source, text=clause)
        return room

    for clause, (kind, g) in zip(clauses, parsed, strict=True):
        if "a" in g and g["a"] not in agents:
            agents.append(g["a"])
        if kind == "present":
            names = _names(g["names"])
            agents.extend(n for n in names if n not in agents)
            room = g["room"]
            rooms.append(room) if room not in rooms else None
            for n in names:
                where[n] = room
            t += 1
            events.append(Event(t, EventKind.OTHER, None, tuple(Fact(n, IN, room) for n in names), present(room)))
            describe(room)
        elif kind == "see":
            continue  # the containers were set up with the room: seeing them adds nothing new
        elif kind in ("find", "there", "the_in"):
            obj, con = _singular(g["obj"]), _singular(g["con"])
            objects.append(obj) if obj not in objects else None
            obj_in[obj] = con
            t += 1
            narrated = clause[0].upper() + clause[1:] if kind in ("there", "the_in") else ""
            witnesses = present(container_room[con])
            events.append(Event(t, EventKind.PUT, None, (Fact(obj, IN, con),), witnesses, text=narrated))
        elif kind == "exit":
            a = g["a"]
            room = room_of(a, clause)
            if "room" in g and g["room"] != room:
                raise ParseError(f"{a} leaves the {g['room']} but is in the {room}", source=source, text=clause)
            t += 1
            events.append(Event(t, EventKind.EXIT, a, (Fact(a, IN, None),), present(room), text=clause))
            where[a] = None
        elif kind == "move":
            a, obj, con = g["a"], _singular(g["obj"]), _singular(g["con"])
            room = room_of(a, clause)
            objects.append(obj) if obj not in objects else None
            obj_in[obj] = con
            t += 1
            events.append(Event(t, EventKind.MOVE, a, (Fact(obj, IN, con),), present(room), text=clause))
        else:  # enter
            a, room = g["a"], g["room"]
            rooms.append(room) if room not in rooms else None
            where[a] = room
            t += 1
            events.append(Event(t, EventKind.ENTER, a, (Fact(a, IN, room),), present(room), text=clause))
            describe(room)
            seen = tuple(Fact(o, IN, c) for o, c in obj_in.items() if container_room.get(c) == room)
            if seen:
                t += 1
                events.append(Event(t, EventKind.OBSERVE, a, seen, present(room), text=""))
    return TemplatedStory(
        text=text,
        clauses=tuple(clauses),
        events=tuple(events),
        agents=tuple(agents),
        objects=tuple(objects),
        containers=tuple(container_room),
        rooms=tuple(rooms),
    )


# ---- generator ----------------------------------------------------------------------------------------------------
_NAMES_POOL = (
    "Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Xiao Ming", "Xiao Hong", "Li Lei",
    "Han Meimei", "Youyou", "Zhang Wei", "Olivia", "Noah", "Sofia", "Lucas",
)  # fmt: skip
_ROOMS_POOL = (
    "kitchen", "bedroom", "office", "garage", "attic", "living room", "study", "basement", "garden", "classroom",
)  # fmt: skip
_CONTAINERS_POOL = (
    "box", "basket", "safe", "drawer", "cabinet", "suitcase", "backpack", "handbag", "crate", "cupboard",
)  # fmt: skip
_OBJECTS_POOL = (
    "ball", "apple", "key", "book", "cabbage", "scarf", "marker", "bottle", "hat", "ring", "orange", "umbrella",
)  # fmt: skip


def _a(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def generate_false_belief_stories(n: int, *, seed: int = 0) -> list[str]:
    """``n`` seeded templated false-belief stories the parser reads (same seed, same stories).

    Variants: the classic hidden transfer (Table 14's wording or ToMBench's), a return that repairs the belief,
    a third agent who leaves at another time, and a transfer everyone sees (a true-belief control).
    """
    if n < 0:
        raise InvalidArgumentError(f"n must be >= 0, got {n}")
    rng = random.Random(seed)
    stories = []
    for _ in range(n):
        a, b, c = rng.sample(_NAMES_POOL, 3)
        room = rng.choice(_ROOMS_POOL)
        c1, c2 = rng.sample(_CONTAINERS_POOL, 2)
        obj = rng.choice(_OBJECTS_POOL)
        variant = rng.randrange(5)
        if variant == 0:
            s = (
                f"{a} and {b} are in the {room}. There is {_a(obj)} in the {c1}. {b} leaves. {a} moves the {obj} to "
                f"the {c2}."
            )
        elif variant == 1:
            s = (
                f"{a} and {b} are wandering in the {room}, they see {_a(c1)} and {_a(c2)}, they find {_a(obj)} in the "
                f"{c1}, {b} leaves the {room}, {a} moves the {obj} to the {c2}."
            )
        elif variant == 2:
            s = (
                f"{a} and {b} are in the {room}. There is {_a(obj)} in the {c1}. {b} leaves. {a} moves the {obj} to "
                f"the {c2}. {b} comes back to the {room}."
            )
        elif variant == 3:
            s = (
                f"{a}, {b}, and {c} are in the {room}. The {obj} is in the {c1}. {c} leaves. {a} moves the {obj} to "
                f"the {c2}. {b} leaves."
            )
        else:
            s = f"{a} and {b} are in the {room}. There is {_a(obj)} in the {c1}. {a} moves the {obj} to the {c2}."
        stories.append(s)
    return stories

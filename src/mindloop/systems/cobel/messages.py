"""Messages between agents: facts and a plan rendered as short sentences with SBL entity names, and read back.

The sentences follow the paper's example message (Fig. 13: "I've explored all of the <kitchen>(2000) and found
<apple>(12123) there. I'm holding <banana>(12234). My subplan is to grasp <apple>(12123)…"), so the same reader
takes what a symbolic agent writes and much of what a model writes. Anything it cannot read is ignored by the
reader (a message is testimony, not a command) and reported in :attr:`Reading.unread`.

>>> from mindloop.beliefs import Fact
>>> text = render([Fact("<apple>(12)", "INSIDE", "<fridge>(105)"), Fact("<kitchen>(2000)", "EXPLORED", "all")],
...               "Alice", plan="grab <apple>(12)")
>>> text
"I've explored all of <kitchen>(2000). <apple>(12) is inside <fridge>(105). My plan: grab <apple>(12)."
>>> r = read(text, "Alice", inside="INSIDE")
>>> sorted(map(str, r.facts)), r.plan
(['<apple>(12) INSIDE <fridge>(105)', '<kitchen>(2000) EXPLORED all'], ('grab', '<apple>(12)'))
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from mindloop.beliefs import Fact

_REF = r"<[^<>()]+>\s*\(\s*[A-Za-z0-9_.\-]+\s*\)"
_REFS = rf"({_REF}(?:\s*(?:,|and|,\s*and)\s*{_REF})*)"
_REF_RE = re.compile(_REF)
_LOC = re.compile(
    rf"{_REFS}\s+(?:is|are)\s+(?:now\s+)?(inside|in|on)\s+(?:the\s+)?({_REF})(?:\s+in\s+(?:the\s+)?({_REF}))?",
    re.IGNORECASE,
)
_FOUND = re.compile(rf"found\s+{_REFS}\s+(?:(inside|in|on)\s+(?:the\s+)?({_REF})|there)", re.IGNORECASE)
_EXPLORED = re.compile(rf"explored\s+(all|part)\s+of\s+(?:the\s+)?({_REF})", re.IGNORECASE)
_CHECKED = re.compile(rf"checked\s+{_REFS}", re.IGNORECASE)
_HOLD_ME = re.compile(rf"I(?:'m| am)\s+holding\s+{_REFS}", re.IGNORECASE)
_HOLD_OTHER = re.compile(rf"([A-Z][a-z]+)\s+is\s+holding\s+{_REFS}")
_STATE = re.compile(rf"({_REF})\s+is\s+(open|opened|closed)\b", re.IGNORECASE)
_PLAN = re.compile(
    rf"my\s+(?:sub)?plan(?:\s+is)?(?:\s+to)?\s*:?\s*([a-z]+)\s+(?:the\s+)?({_REF}|holding things|[a-z ]+)",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _refs(text: str) -> list[str]:
    return [re.sub(r"\s+", "", m) for m in _REF_RE.findall(text)]


def _is_room(ref: str) -> bool:
    m = re.search(r"\(([0-9]+)\)$", ref)
    return m is not None and int(m.group(1)) >= 1000 and int(m.group(1)) % 1000 == 0


@dataclass(frozen=True)
class Reading:
    """What a message said: facts (as the speaker's claims), the speaker's plan ``(verb, target)`` if any."""

    facts: tuple[Fact, ...]
    plan: tuple[str, str] | None
    unread: tuple[str, ...]


def render(
    facts: Iterable[Fact],
    speaker: str,
    *,
    plan: str | None = None,
    greeting: str | None = None,
) -> str:
    """Sentences for ``facts`` (grouped by place) and the plan; empty slots (``value=None``) are left out."""
    explored: dict[str, list[str]] = {"all": [], "part": []}
    checked: list[str] = []
    held: list[str] = []
    others_held: dict[str, list[str]] = {}
    places: dict[tuple[str, str], list[str]] = {}
    states: list[str] = []
    facts = list(facts)
    holder_room: dict[str, str] = {}
    used_as_place = {f.value for f in facts if f.relation in ("INSIDE", "CONTAINED_BY", "ON") and f.value}
    for f in facts:
        if f.relation == "IN" and f.value and f.subject in used_as_place and _is_room(f.value):
            holder_room[f.subject] = f.value
    for f in facts:
        if f.relation == "IN" and f.subject in holder_room:
            continue
        if f.value is None:
            continue
        rel = f.relation
        if rel == "EXPLORED":
            if _is_room(f.subject) and f.value in explored:
                explored[f.value].append(f.subject)
            elif f.value == "all":
                checked.append(f.subject)
        elif rel == "HELD_BY":
            if f.value == speaker:
                held.append(f.subject)
            else:
                others_held.setdefault(f.value, []).append(f.subject)
        elif rel in ("INSIDE", "CONTAINED_BY"):
            places.setdefault(("inside", f.value), []).append(f.subject)
        elif rel in ("ON", "IN"):
            places.setdefault((rel.lower(), f.value), []).append(f.subject)
        elif rel == "STATE":
            states.append(f"{f.subject} is {'open' if f.value == 'opened' else f.value}.")
    parts: list[str] = []
    if greeting:
        parts.append(greeting)
    for level in ("all", "part"):
        if explored[level]:
            parts.append(f"I've explored {level} of {_join(explored[level])}.")
    if checked:
        parts.append(f"I've checked {_join(checked)}.")
    for (prep, where), what in places.items():
        room = f" in {holder_room[where]}" if where in holder_room else ""
        parts.append(f"{_join(what)} {'is' if len(what) == 1 else 'are'} {prep} {where}{room}.")
    parts.extend(states)
    if held:
        parts.append(f"I'm holding {_join(held)}.")
    for who, what in others_held.items():
        parts.append(f"{who} is holding {_join(what)}.")
    if plan:
        parts.append(f"My plan: {plan}.")
    return " ".join(parts)


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def read(
    text: str,
    speaker: str,
    *,
    inside: str = "INSIDE",
    is_room: Callable[[str], bool] = _is_room,
) -> Reading:
    """Facts and plan in a message from ``speaker``; ``inside`` is the world's containment relation.

    ``in <room>`` becomes ``IN``; ``in``/``inside <container>`` becomes ``inside``; ``on`` becomes ``ON``.
    """
    facts: list[Fact] = []
    unread: list[str] = []
    plan: tuple[str, str] | None = None
    last_room: str | None = None
    for sentence in _SENTENCE.split(text.strip()):
        got = False
        for m in _EXPLORED.finditer(sentence):
            ref = re.sub(r"\s+", "", m.group(2))
            facts.append(Fact(ref, "EXPLORED", m.group(1).lower()))
            last_room = ref
            got = True
        for m in _CHECKED.finditer(sentence):
            facts.extend(Fact(r, "EXPLORED", "all") for r in _refs(m.group(1)) if not is_room(r))
            got = True
        for m in _LOC.finditer(sentence):
            where = re.sub(r"\s+", "", m.group(3))
            facts.extend(_place(r, m.group(2).lower(), where, inside, is_room) for r in _refs(m.group(1)))
            if m.group(4):
                facts.append(Fact(where, "IN", re.sub(r"\s+", "", m.group(4))))
            got = True
        for m in _FOUND.finditer(sentence):
            found_at = re.sub(r"\s+", "", m.group(3)) if m.group(3) else last_room
            if found_at is None:
                continue
            prep = m.group(2).lower() if m.group(2) else "in"
            facts.extend(_place(r, prep, found_at, inside, is_room) for r in _refs(m.group(1)))
            got = True
        for m in _HOLD_ME.finditer(sentence):
            facts.extend(Fact(r, "HELD_BY", speaker) for r in _refs(m.group(1)))
            got = True
        for m in _HOLD_OTHER.finditer(sentence):
            facts.extend(Fact(r, "HELD_BY", m.group(1)) for r in _refs(m.group(2)))
            got = True
        for m in _STATE.finditer(sentence):
            ref = re.sub(r"\s+", "", m.group(1))
            facts.append(Fact(ref, "STATE", "closed" if m.group(2).lower() == "closed" else "opened"))
            got = True
        pm = _PLAN.search(sentence)
        if pm:
            raw = pm.group(2).strip()
            plan = (pm.group(1).lower(), re.sub(r"\s+", "", raw) if _REF_RE.fullmatch(raw) else raw)
            got = True
        if not got and sentence.strip() and _REF_RE.search(sentence):
            unread.append(sentence.strip())
    last = {f.key: i for i, f in enumerate(facts)}  # later statements about a slot win
    return Reading(tuple(f for i, f in enumerate(facts) if last[f.key] == i), plan, tuple(unread))


def _place(ref: str, prep: str, where: str, inside: str, is_room: Callable[[str], bool]) -> Fact:
    if prep == "on":
        return Fact(ref, "ON", where)
    if is_room(where):
        return Fact(ref, "IN", where)
    return Fact(ref, inside, where)

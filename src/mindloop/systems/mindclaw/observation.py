"""The Observation module (§IV-E): window -> structured observation ``o_t``; descriptive, never prescriptive.

``o_t`` lists the perceived events, the object movements they show (``object -> location`` with the humans who
saw it), which items were handled (so memory can start tracking them), who is where, whether any human acted,
and an activity log: what each person has been seen doing since the stream began (so "she came back and is
opening cupboards" is something the observation *says*, not something it decides about).

Two implementations: :class:`SymbolicObserver` reads the window's structured events; :class:`ModelObserver`
asks a model to read the narration (and frames) and parses its answer strictly.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from mindloop.beliefs import Fact
from mindloop.beliefs.vocab import AT, POWER, ROBOT
from mindloop.errors import ParseError
from mindloop.models.base import ChatModel, GenerationConfig, image_part
from mindloop.systems.mindclaw.replies import PROMPTS, ModelPart, chat, clean, find_names, words
from mindloop.systems.mindclaw.window import SceneView, Window, WindowEvent

HANDLING_VERBS = frozenset({"pick", "place", "putin", "putback", "drop", "give", "move"})
"""Verbs that move an item by hand: the robot starts tracking an item once someone handles it."""

SEARCH_VERBS = frozenset({"walkaround", "lookat", "open", "turn"})
"""Verbs that, after coming back or after a setback, show someone looking for something."""


@dataclass(frozen=True, slots=True)
class Move:
    """An item seen at a location (``object -> location``) by ``witnesses``; ``event`` indexes ``o_t.events``."""

    event: int
    object: str
    location: str
    witnesses: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Act:
    """One thing a person was seen doing: world time ``t``, window ``w``, ``verb(args)``, a failure if it failed,
    the event kind and any facts it stated (speech)."""

    t: int
    w: int
    kind: str
    verb: str
    args: tuple[str, ...]
    failure: str = ""
    facts: tuple[Fact, ...] = ()


class ActivityLog:
    """What each person has been seen doing, oldest first (one list per actor), and when the power went out."""

    def __init__(self) -> None:
        self.acts: dict[str, list[Act]] = {}
        self.last_enter: dict[str, int] = {}
        self.power_cut_at: int | None = None

    def add(self, actor: str, act: Act) -> None:
        """Log one act (an ``enter`` also moves the actor's "since coming in" mark)."""
        self.acts.setdefault(actor, []).append(act)
        if act.kind == "enter":
            self.last_enter[actor] = act.t

    def of(self, actor: str) -> list[Act]:
        """The actor's acts, oldest first."""
        return self.acts.get(actor, [])

    def since_entry(self, actor: str) -> int:
        """World time of the actor's last seen entry into a room (0 if never seen entering)."""
        return self.last_enter.get(actor, 0)

    def searched(self, actor: str, since: int, target: str, *, ignore: frozenset[str] = frozenset()) -> bool:
        """Whether ``actor`` looked about (walk around, look at, open, turn) after time ``since`` without handling
        ``target`` (someone who took or put it away knows where it is); acts aimed at anything in ``ignore`` do
        not count as looking."""
        looked = False
        for act in self.acts.get(actor, ()):
            if act.t <= since:
                continue
            if act.verb in HANDLING_VERBS and not act.failure and act.args[:1] == (target,):
                return False
            if act.verb in SEARCH_VERBS and not (act.args and act.args[0] in ignore):
                looked = True
        return looked


@dataclass
class Observation:
    """``o_t``: the structured description of window ``t`` (see the module docstring)."""

    t: int
    events: tuple[WindowEvent, ...]
    moves: tuple[Move, ...]
    handled: tuple[tuple[int, str], ...]
    present: Mapping[str, str | None]
    quiet: bool
    text: str
    activity: ActivityLog
    scene: SceneView | None = None
    error: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """What the trace stores about ``o_t`` (compact, JSON-ready)."""
        out: dict[str, Any] = {
            "events": [e.text for e in self.events if e.text],
            "moves": [f"{m.object} -> {m.location} (seen by {', '.join(m.witnesses) or 'nobody'})" for m in self.moves],
            "present": {a: r for a, r in self.present.items() if r is not None},
            "quiet": self.quiet,
        }
        if self.error:
            out["error"] = self.error
        return out


class Observer(Protocol):
    """Turns windows into observations; stateful over one episode (``reset`` starts a new one)."""

    def reset(self) -> None:
        """Forget everything seen (a new episode)."""
        ...

    async def observe(self, window: Window) -> Observation:
        """``o_t`` for ``window``."""
        ...


def _moves_and_handled(events: Sequence[WindowEvent]) -> tuple[tuple[Move, ...], tuple[tuple[int, str], ...]]:
    moves: list[Move] = []
    handled: list[tuple[int, str]] = []
    for i, e in enumerate(events):
        if e.verb in HANDLING_VERBS and not e.failure and e.args and e.actor:
            handled.append((i, e.args[0]))
        for f in e.facts:
            if f.relation == AT and f.value is not None:
                moves.append(Move(i, f.subject, f.value, e.witnesses))
    return tuple(moves), tuple(handled)


def _log(activity: ActivityLog, window: Window, events: Sequence[WindowEvent]) -> None:
    for e in events:
        if e.kind == "other" and not e.actor and any(f.relation == POWER and f.value == "off" for f in e.facts):
            activity.power_cut_at = e.t
        if not e.actor or e.kind == "observe" or e.actor == ROBOT:
            continue
        activity.add(e.actor, Act(e.t, window.t, e.kind, e.verb, e.args, e.failure, e.facts if e.kind == "say" else ()))


def _present(window: Window) -> dict[str, str | None]:
    scene = window.state
    if scene is None:
        return {a: None for a in sorted(window.candidates.actors)}
    return {a: scene.agent_room(a) for a in scene.humans()}


class _ActivityObserver:
    """What both observers share: the activity log of the episode, and ``o_t`` made of a window's events."""

    activity: ActivityLog

    def reset(self) -> None:
        """Start a new episode."""
        self.activity = ActivityLog()

    def _observation(self, window: Window, events: tuple[WindowEvent, ...], quiet: bool, **more: Any) -> Observation:
        """``o_t`` of ``events`` seen in ``window`` (``more``: its ``error`` and ``extra``), logged as the episode's
        activity."""
        _log(self.activity, window, events)
        moves, handled = _moves_and_handled(events)
        present = _present(window)
        return Observation(
            window.t, events, moves, handled, present, quiet, window.text, self.activity, window.state, **more
        )


class SymbolicObserver(_ActivityObserver):
    """``o_t`` from the window's structured events (exact for simulator and recorded windows)."""

    def __init__(self) -> None:
        self.reset()

    async def observe(self, window: Window) -> Observation:
        """Describe ``window``: events, moves, handled items, who is where, quiet or not, activity so far."""
        return self._observation(window, window.events, not window.humans_acted)


# ---- the model-driven observer --------------------------------------------------------------------------------

_OBSERVE_SYSTEM = PROMPTS["observe_system"]

_OBSERVE_TEMPLATE = PROMPTS["observe_template"]
"""The Observation module's user prompt. The paper gives no prompt text. Its format lines are templates
(``PERSON: verb(arg, ...)``); the real 0.5B model did not copy them (0 of 12 replies), so they stay, and a copy would
be refused (:func:`parse_observation_reply`)."""

_HEADER = re.compile(r"^[<\[]?\s*/?\s*(events|moves)\s*[>\]]?\s*:?\s*(.*)$", re.IGNORECASE)
_CLOSE = re.compile(r"</\s*(?:events|moves)\s*>", re.IGNORECASE)
_EVENT_LINE = re.compile(
    r"^([A-Za-z0-9_]+)\s*(?::\s*|\s+)([A-Za-z_]+)\s*\(([^)]*)\)\s*[.,;]?\s*\(?\s*(failed)?\s*\)?\s*[.]?$",
    re.IGNORECASE,
)
_MOVE_LINE = re.compile(
    r"^(.+?)\s*(?:->|\u2192|=>)\s*(.+?)\s*(?:\|\s*|\(\s*|,\s*|\s)seen\s+by\s*:?\s*(.*?)\s*\)?\s*[.]?$", re.IGNORECASE
)
_EMPTY_LINES = frozenset(
    {
        "",
        "none",
        "nothing",
        "(none)",
        "(empty)",
        "empty",
        "n/a",
        "-",
        "(nothing)",
        "no events",
        "no moves",
        "nothing to list",
    }
)
_TEMPLATE_WORDS = frozenset({"PERSON", "OBJECT", "LOCATION", "verb(arg", "arg, ..."})


def _is_template(line: str) -> bool:
    return any(w in line for w in _TEMPLATE_WORDS)


def _sections(reply: str) -> dict[str, list[str]]:
    """The lines under each ``<Events>`` / ``<Moves>`` header (tags, ``Events:`` headers, markdown headers; a
    section ends at the next header or a closing tag)."""
    out: dict[str, list[str]] = {}
    current: str | None = None
    split = re.sub(r"(</?\s*(?:events|moves)\s*>)", r"\n\1\n", reply, flags=re.IGNORECASE)
    for raw in split.splitlines():
        line = clean(raw)
        closed = bool(_CLOSE.search(line))
        line = _CLOSE.sub("", line).strip()
        m = _HEADER.match(line)
        if m is not None and not (m.group(2) and "(" not in m.group(2) and "->" not in m.group(2)):
            current = m.group(1).lower()
            out.setdefault(current, [])
            rest = m.group(2).strip()
            if rest:
                out[current].append(rest)
        elif current is not None and line:
            out[current].append(line)
        if closed:
            current = None
    return out


def _names_in(value: str, pool: frozenset[str], what: str, line: str) -> list[str]:
    parts = [p.strip().strip("'\"") for p in re.split(r",|\band\b", value) if p.strip()]
    got: list[str] = []
    for part in parts:
        names = find_names(part, pool)
        if len(names) != 1 or len(words(part)) > len(words(names[0])) + 1:
            raise ParseError(f"unknown {what} {part.lower()!r}", text=line)
        got.append(names[0])
    return got


def _matched(lines: Sequence[str], pattern: re.Pattern[str], refusal: str) -> Iterator[tuple[str, re.Match[str]]]:
    """Each line of a section but its ``none`` lines, with its match of ``pattern``; a line that does not match is
    refused with ``refusal``."""
    for line in lines:
        if line.lower().strip(" .") in _EMPTY_LINES:
            continue
        m = pattern.match(line)
        if m is None:
            raise ParseError(refusal, text=line)
        yield line, m


def parse_observation_reply(
    reply: str, *, actors: frozenset[str], objects: frozenset[str], locations: frozenset[str], t: int
) -> tuple[WindowEvent, ...]:
    """Read a model's ``<Events>``/``<Moves>`` answer into window events (moves become facts), in any form models
    write it: markdown bullets and emphasis, ``Events:`` headers instead of tags, names in any case or with
    spaces, ``seen by`` with or without ``|`` and colon, ``(failed)``; ``none`` lines in an empty section.

    Every name must be a known candidate; a line in neither format, a missing section, a line that copies the
    prompt's format, or a reply that has only copies is a :class:`~mindloop.errors.ParseError` with a one-line
    reason naming the line.
    """
    sections = _sections(reply)
    missing = [s for s in ("events", "moves") if s not in sections]
    if missing:
        raise ParseError(f"the observation reply has no <{missing[0].capitalize()}> section", text=reply[:200])
    copied = [line for lines in sections.values() for line in lines if _is_template(line)]
    if copied:
        raise ParseError("a line copies the prompt's format instead of describing the window", text=copied[0])
    names = actors | objects | locations
    out: list[WindowEvent] = []
    for line, m in _matched(
        sections["events"], _EVENT_LINE, "an <Events> line is not a person's name, a colon and verb(arguments)"
    ):
        actor = m.group(1).lower()
        if actor not in actors:
            raise ParseError(f"unknown person {actor!r} in <Events>", text=line)
        args: list[str] = []
        for raw in (a.strip().strip("'\"") for a in m.group(3).split(",") if a.strip()):
            if raw.lower() in ("left", "right", "around", "back"):
                args.append(raw.lower())
                continue
            found = find_names(raw, names)
            if len(found) != 1 or len(words(raw)) != len(words(found[0])):
                raise ParseError(f"unknown name {raw.lower()!r} in <Events>", text=line)
            args.append(found[0])
        verb = m.group(2).lower()
        kind = "say" if verb == "say" else "other"
        out.append(WindowEvent(t, kind, actor, verb, tuple(args), failure="failed" if m.group(4) else "", text=line))
    for line, m in _matched(
        sections["moves"], _MOVE_LINE, "a <Moves> line is not an object, ->, a location and | seen by: the people"
    ):
        (obj,) = _names_in(m.group(1), objects, "object", line) or [""]
        (loc,) = _names_in(m.group(2), locations, "location", line) or [""]
        seen_text = m.group(3).strip().strip(".")
        seen = (
            []
            if words(seen_text) in ([], ["nobody"], ["none"], ["no", "one"])
            else _names_in(seen_text, actors, "person", line)
        )
        out.append(WindowEvent(t, "observe", "", "observe", facts=(Fact(obj, AT, loc),), witnesses=tuple(sorted(seen))))
    return tuple(out)


class ModelObserver(ModelPart, _ActivityObserver):
    """``o_t`` read by a model from the window's narration (and frames): its ``<Events>`` and ``<Moves>`` replace
    the structured events. A malformed reply gives an empty observation with ``error`` set (a recorded failure)."""

    def __init__(
        self, model: ChatModel, config: GenerationConfig | None = None, *, frames: bool = True, retries: int = 1
    ) -> None:
        super().__init__(model, config, retries=retries)
        self.frames = frames
        self.reset()

    def prompt(self, window: Window) -> list[dict[str, Any]]:
        """The chat messages sent for ``window``."""
        c = window.candidates
        return chat(
            _OBSERVE_SYSTEM,
            _OBSERVE_TEMPLATE,
            *(image_part(f) for f in window.frames if self.frames),
            t=window.t,
            text=window.text or "(nothing narrated)",
            actors=", ".join(sorted(c.actors)) or "none",
            objects=", ".join(sorted(c.objects)) or "none",
            locations=", ".join(sorted(c.locations)) or "none",
        )

    async def observe(self, window: Window) -> Observation:
        """Ask the model (with format retries), read its answer, and build ``o_t`` from it; a reply still refused
        gives an empty observation with ``error`` set."""
        c = window.candidates

        def read(text: str) -> tuple[WindowEvent, ...]:
            return parse_observation_reply(text, actors=c.actors, objects=c.objects, locations=c.locations, t=window.t)

        got, replies, error = await self.ask(self.prompt(window), read, "malformed observation")
        events = got or ()
        quiet = not any(e.actor and e.kind != "observe" for e in events)
        return self._observation(window, events, quiet, error=error, extra={"reply": replies[-1]})

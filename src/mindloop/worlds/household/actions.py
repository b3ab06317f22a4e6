"""The unified action set (MindPower B.1 high-level actions and the C.1 verb set) and its text form.

An action is ``verb(arg, ...)``: ``walk(fridge)``, ``putin(apple, fridge)``, ``give(mug, david)``,
``say(alice, "The mug is in the dishwasher.")``. Parsing is forgiving about spacing, case, articles and
``snake_case`` (``Walk (the Kitchen Table)`` is ``walk(kitchen_table)``) and maps B.1/VirtualHome/ThreeDWorld
names onto one canonical verb (``Grab`` -> ``pick``, ``Put`` -> ``place``, ``TurnLeft`` -> ``turn(left)``).
Anything else becomes a typed :class:`~mindloop.worlds.household.results.Failure`, never an exception.

>>> parse_action("Walk (the Kitchen Table)")
Action(verb='walk', args=('kitchen_table',), text=None, facts=())
>>> str(parse_action("grab(mug)"))
'pick(mug)'
>>> parse_action("fly(moon)").kind.value
'unknown_verb'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from mindloop.beliefs import Fact
from mindloop.worlds.household.results import Failure, FailureKind

__all__ = [
    "ALIASES",
    "VERBS",
    "Action",
    "ArgKind",
    "VerbSpec",
    "canonical_verb",
    "format_actions",
    "normalize_name",
    "parse_action",
    "parse_actions",
    "validate_action",
]


class ArgKind(StrEnum):
    """What an argument slot accepts (checked by the world against its entities)."""

    ANY = "any"  # room, place, item or agent
    ROOM = "room"
    PLACE = "place"
    ITEM = "item"
    AGENT = "agent"
    THING = "thing"  # place or item
    HOLDER = "holder"  # place, or an item others can sit on (cutting board, plate)
    DIRECTION = "direction"
    TEXT = "text"  # a quoted sentence, or an item (say(alice, apple, fridge))


@dataclass(frozen=True, slots=True)
class VerbSpec:
    """A canonical verb: its argument slots (the last ``optional`` of them may be left out) and meaning."""

    name: str
    args: tuple[ArgKind, ...]
    optional: int
    doc: str

    @property
    def min_args(self) -> int:
        """Fewest arguments accepted."""
        return len(self.args) - self.optional

    @property
    def max_args(self) -> int:
        """Most arguments accepted."""
        return len(self.args)


@dataclass(frozen=True, slots=True)
class Action:
    """One action: canonical ``verb``, entity-id ``args``; for speech, the words (``text``) and stated ``facts``."""

    verb: str
    args: tuple[str, ...] = ()
    text: str | None = None
    facts: tuple[Fact, ...] = ()

    def __str__(self) -> str:
        parts = list(self.args)
        if self.text is not None and self.verb == "say" and len(parts) == 1:
            parts.append('"' + self.text.replace('"', "'") + '"')
        return f"{self.verb}({', '.join(parts)})"


_A = ArgKind
VERBS: dict[str, VerbSpec] = {
    v.name: v
    for v in (
        VerbSpec("walk", (_A.ANY,), 0, "go to a room, or to a place, item or person (entering its room)"),
        VerbSpec("run", (_A.ANY,), 0, "like walk, faster (not in a wheelchair)"),
        VerbSpec("walkaround", (_A.ROOM,), 1, "walk around the current room, looking"),
        VerbSpec("turn", (_A.DIRECTION,), 0, "turn left, right or around"),
        VerbSpec("sit", (_A.PLACE,), 0, "sit on a sittable place in the room"),
        VerbSpec("standup", (), 0, "stand up"),
        VerbSpec("open", (_A.THING,), 0, "open something openable in the room, within reach"),
        VerbSpec("close", (_A.THING,), 0, "close something openable in the room, within reach"),
        VerbSpec("pick", (_A.ITEM,), 0, "pick up a graspable item in the room, within reach, not in a closed box"),
        VerbSpec("place", (_A.ITEM, _A.HOLDER), 0, "put a held item on a surface or in an open receptacle"),
        VerbSpec("putin", (_A.ITEM, _A.PLACE), 0, "put a held item into an open receptacle"),
        VerbSpec("putback", (_A.ITEM,), 0, "put a held item back where it was picked up from"),
        VerbSpec("drop", (_A.ITEM,), 0, "drop a held item on the floor"),
        VerbSpec("give", (_A.ITEM, _A.AGENT), 0, "hand a held item to someone in the room"),
        VerbSpec("move", (_A.ITEM, _A.HOLDER), 0, "move an item (also big, ungraspable ones) to a place in the room"),
        VerbSpec("switchon", (_A.THING,), 0, "switch on (a faucet runs; a candle is lit); powered things need power"),
        VerbSpec("switchoff", (_A.THING,), 0, "switch off"),
        VerbSpec("drink", (_A.ITEM,), 0, "drink from a held cup, glass or bottle"),
        VerbSpec("pour", (_A.ITEM, _A.ITEM), 0, "pour a liquid (water from a faucet in the room) into a held cup"),
        VerbSpec("lookat", (_A.ANY,), 0, "look at something in the room"),
        VerbSpec("touch", (_A.ANY,), 0, "touch something in the room"),
        VerbSpec("say", (_A.AGENT, _A.TEXT, _A.HOLDER), 1, "speak to someone in the room: words, or 'item, place'"),
        VerbSpec("remind", (_A.AGENT, _A.ITEM), 0, "tell someone an item is no longer where they left it"),
        VerbSpec("read", (_A.ITEM,), 0, "read a held book"),
        VerbSpec("write", (_A.ITEM,), 0, "write in a notebook, holding a pen"),
        VerbSpec("watch", (_A.PLACE,), 0, "watch a switched-on TV in the room"),
        VerbSpec("listen", (_A.ANY,), 0, "listen to something or someone in the room"),
        VerbSpec("sleep", (_A.PLACE,), 0, "lie down and sleep on a bed in the room"),
        VerbSpec("cut", (_A.ITEM,), 0, "cut an item lying in the room, holding a knife"),
        VerbSpec("cook", (_A.ITEM,), 0, "cook an item lying on a switched-on stove"),
        VerbSpec("hold", (_A.ITEM,), 0, "keep holding an item already in hand"),
        VerbSpec("wait", (), 0, "do nothing this step (the robot: decide not to intervene)"),
    )
}
"""Canonical verbs by name."""

ALIASES: dict[str, tuple[str, tuple[str, ...]]] = {
    **dict.fromkeys(("grab", "pickup", "take", "reachfor"), ("pick", ())),
    **dict.fromkeys(("put", "puton", "putdown"), ("place", ())),
    **dict.fromkeys(("speak", "tell"), ("say", ())),
    "stand": ("standup", ()),
    **dict.fromkeys(("walkto", "walktowards", "goto", "moveto", "nextto"), ("walk", ())),
    "turnleft": ("turn", ("left",)),
    "turnright": ("turn", ("right",)),
    "turnon": ("switchon", ()),
    "turnoff": ("switchoff", ()),
    "look": ("lookat", ()),
    "noop": ("wait", ()),
}
"""Other names (B.1 high-level actions, common synonyms) -> canonical verb and implied leading arguments."""

_ARITY: dict[str, tuple[int, int]] = {name: (v.min_args, v.max_args) for name, v in VERBS.items()}

DIRECTIONS = frozenset({"left", "right", "around", "back"})

_ACTION_RE = re.compile(r"^\s*([A-Za-z][A-Za-z_ ]*?)\s*(?:\((.*)\))?\s*[.;]?\s*$", re.DOTALL)
_ARTICLES = ("the ", "a ", "an ")


def normalize_name(raw: str) -> str:
    """Entity id from free text: lower case, articles dropped, spaces and dashes to ``_``.

    >>> normalize_name("  The Kitchen-Table ")
    'kitchen_table'
    """
    name = raw.strip().lower()
    for article in _ARTICLES:
        if name.startswith(article):
            name = name[len(article) :].lstrip()
            break
    return "_".join(name.replace("-", " ").split())


def canonical_verb(raw: str) -> tuple[str, tuple[str, ...]] | None:
    """Canonical verb and implied arguments for a verb name or alias; ``None`` if unknown."""
    key = raw.strip().lower().replace("_", "").replace(" ", "")
    if key in VERBS:
        return key, ()
    return ALIASES.get(key)


def _split_args(body: str) -> list[str] | None:
    """Split on top-level commas, keeping quoted strings whole; ``None`` on an unterminated quote."""
    out: list[str] = []
    buf: list[str] = []
    quote = ""
    for ch in body:
        if quote:
            buf.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "\"'" and not "".join(buf).strip():
            quote = ch
            buf.append(ch)
        elif ch == ",":
            out.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    if quote:
        return None
    last = "".join(buf)
    if last.strip() or out:
        out.append(last)
    return out


def validate_action(action: Action) -> Failure | None:
    """Check the verb is canonical and the number of arguments fits; ``None`` when it does."""
    arity = _ARITY.get(action.verb)
    if arity is None:
        return Failure(FailureKind.UNKNOWN_VERB, _unknown_verb_message(action.verb), str(action))
    n = len(action.args)
    if action.text is not None and action.verb == "say":
        n += 1
    if not arity[0] <= n <= arity[1]:
        return Failure(FailureKind.WRONG_ARITY, _arity_message(VERBS[action.verb], n), str(action))
    return None


def _unknown_verb_message(verb: str) -> str:
    import difflib

    names = sorted(set(VERBS) | set(ALIASES))
    close = difflib.get_close_matches(verb.lower(), names, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown verb {verb!r}{hint} (verbs: {', '.join(sorted(VERBS))})"


def _arity_message(spec: VerbSpec, n: int) -> str:
    want = str(spec.min_args) if spec.min_args == spec.max_args else f"{spec.min_args} to {spec.max_args}"
    slots = ", ".join(a.value for a in spec.args) or "no arguments"
    return f"{spec.name} takes {want} argument{'s' if spec.max_args != 1 else ''} ({slots}), got {n}"


def parse_action(text: str) -> Action | Failure:
    """Parse ``verb(arg, ...)`` into a canonical :class:`Action`, or a typed :class:`Failure` saying why not."""
    if not isinstance(text, str):
        return Failure(
            FailureKind.PARSE_ERROR, f"an action must be text like 'walk(fridge)', got {type(text).__name__}"
        )
    m = _ACTION_RE.match(text)
    if m is None:
        return Failure(FailureKind.PARSE_ERROR, f"cannot read {text.strip()[:80]!r} as verb(arg, ...)", text)
    verb_raw, body = m.group(1), m.group(2)
    known = canonical_verb(verb_raw)
    if known is None:
        return Failure(FailureKind.UNKNOWN_VERB, _unknown_verb_message(verb_raw.strip()), text)
    verb, implied = known
    raw_args = _split_args(body) if body is not None else []
    if raw_args is None:
        return Failure(FailureKind.PARSE_ERROR, f"unterminated quote in {text.strip()[:80]!r}", text)
    args: list[str] = list(implied)
    spoken: str | None = None
    for raw in raw_args:
        piece = raw.strip()
        if not piece:
            return Failure(FailureKind.PARSE_ERROR, f"empty argument in {text.strip()[:80]!r}", text)
        if piece[0] in "\"'":
            if verb != "say" or spoken is not None or len(args) != 1:
                return Failure(FailureKind.WRONG_ARGUMENT, f'only say(person, "words") takes quoted text: {text!r}')
            spoken = piece[1:-1]
            continue
        if "=" in piece:
            piece = piece.split("=", 1)[1]
        args.append(normalize_name(piece))
    action = Action(verb, tuple(args), spoken)
    failure = validate_action(action)
    if failure is not None:
        return Failure(failure.kind, failure.message, text)
    if verb == "turn" and action.args[0] not in DIRECTIONS:
        return Failure(
            FailureKind.WRONG_ARGUMENT,
            f"turn takes a direction ({', '.join(sorted(DIRECTIONS))}), got {action.args[0]!r}",
            text,
        )
    return action


def parse_actions(text: str) -> list[Action | Failure]:
    """Parse a sequence like ``walk (fridge), open (fridge), pick (apple).`` into actions (or failures)."""
    out: list[Action | Failure] = []
    depth = 0
    quote = ""
    buf: list[str] = []
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in '"' and depth:
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch in ",;\n" and depth == 0:
            piece = "".join(buf).strip().rstrip(".")
            if piece:
                out.append(parse_action(piece))
            buf = []
            continue
        buf.append(ch)
    piece = "".join(buf).strip().rstrip(".")
    if piece:
        out.append(parse_action(piece))
    return out


def format_actions(actions: list[Action] | tuple[Action, ...]) -> str:
    """The paper's ``<Action>`` line: ``walk(fridge), open(fridge), pick(apple)``."""
    return ", ".join(str(a) for a in actions)

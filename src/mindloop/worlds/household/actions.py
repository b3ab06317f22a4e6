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
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from pydantic import Field

from mindloop.beliefs import Fact
from mindloop.datafiles import DataModel, load_package_data
from mindloop.worlds.household.results import Failure, FailureKind


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


class _VerbRow(DataModel):
    """One verb as ``data/verbs.yaml`` writes it."""

    args: tuple[ArgKind, ...]
    optional: int = Field(default=0, ge=0)
    doc: str = Field(min_length=1)


class _VerbsFile(DataModel):
    """The whole of ``data/verbs.yaml``: the canonical verbs in order, and the other names (``verb [arg ...]``)."""

    verbs: dict[str, _VerbRow] = Field(min_length=1)
    aliases: dict[str, str]

    def problems(self) -> Iterator[tuple[str, str]]:
        for name, row in self.verbs.items():
            if row.optional > len(row.args):
                yield f"verbs.{name}", f"optional is {row.optional}, but it has {len(row.args)} arguments"
        for alias, words in self.aliases.items():
            verb = (words.split() or [""])[0]
            if verb not in self.verbs:
                yield f"aliases.{alias}", f"unknown verb {verb!r}"


_VERBS_FILE = load_package_data(_VerbsFile, "mindloop.worlds.household", "verbs.yaml")
VERBS: dict[str, VerbSpec] = {
    name: VerbSpec(name, row.args, row.optional, row.doc) for name, row in _VERBS_FILE.verbs.items()
}
"""Canonical verbs by name (from ``data/verbs.yaml``)."""

ALIASES: dict[str, tuple[str, tuple[str, ...]]] = {
    alias: (words.split()[0], tuple(words.split()[1:])) for alias, words in _VERBS_FILE.aliases.items()
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
    article = next((a for a in _ARTICLES if name.startswith(a)), "")
    name = name[len(article) :].lstrip()
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
    pieces: list[str] = []
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
            pieces.append("".join(buf))
            buf = []
            continue
        buf.append(ch)
    pieces.append("".join(buf))
    return [parse_action(piece) for piece in (p.strip().rstrip(".") for p in pieces) if piece]


def format_actions(actions: list[Action] | tuple[Action, ...]) -> str:
    """The paper's ``<Action>`` line: ``walk(fridge), open(fridge), pick(apple)``."""
    return ", ".join(str(a) for a in actions)

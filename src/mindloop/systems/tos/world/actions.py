"""The action language, as the reference writes it: ``Actions: [JumpTo(chair), Rotate(90), Observe()]``.

Grammar: zero or more motions (``JumpTo(OBJ)``, ``Rotate(DEG)``) then exactly one final action (``Observe()``,
``Query(OBJ)``, ``Term()``); ``Term()`` must be alone. In the false-belief phase the final ``Term`` carries the
reported changes: ``Term(changes="apple: position, chair: orientation")``. Anything else is invalid and the
parser says why (the environment reports it and the step still counts).

>>> parse_actions("Actions: [JumpTo(red_door), Rotate(-90), Observe()]").actions
(JumpTo(target='red door'), Rotate(degrees=-90), Observe())
>>> parse_actions("[Observe(), Observe()]")
Traceback (most recent call last):
...
mindloop.systems.tos.world.actions.ActionParseError: more than one final action: Observe() must be the last action
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from mindloop.errors import ParseError


class ActionParseError(ParseError):
    """An action string that does not follow the grammar; the message says what is wrong."""


class _Call:
    """An action written as a call: its name, then its fields' values (``JumpTo(table)``, ``Observe()``)."""

    def __str__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(str, vars(self).values()))})"


@dataclass(frozen=True)
class JumpTo(_Call):
    """Move to the cell of a visible, already observed object or door (orientation unchanged)."""

    target: str


@dataclass(frozen=True)
class Rotate(_Call):
    """Turn in place by ``degrees`` (positive clockwise)."""

    degrees: int


@dataclass(frozen=True)
class Observe(_Call):
    """Report what is in the field of view (cost 1)."""


@dataclass(frozen=True)
class Query(_Call):
    """Exact coordinates and facing of an observed object relative to the start pose (cost 2)."""

    target: str


@dataclass(frozen=True)
class ChangeReport:
    """One reported change in the false-belief phase: which object, and whether it moved and/or turned."""

    name: str
    position: bool = False
    orientation: bool = False


@dataclass(frozen=True)
class Term:
    """End the phase; in the false-belief phase ``changes`` holds the reported changes (``raw`` their text)."""

    changes: tuple[ChangeReport, ...] | None = None
    raw: str | None = None

    def __str__(self) -> str:
        return "Term()" if self.raw is None else f'Term(changes="{self.raw}")'


Action = JumpTo | Rotate | Observe | Query | Term


@dataclass(frozen=True)
class ActionSequence:
    """Motions then one final action."""

    actions: tuple[Action, ...]

    @property
    def motions(self) -> tuple[Action, ...]:
        """Everything but the final action."""
        return self.actions[:-1]

    @property
    def final(self) -> Action:
        """The final action."""
        return self.actions[-1]

    def __str__(self) -> str:
        return "Actions: [" + ", ".join(str(a) for a in self.actions) + "]"


_NAMED = re.compile(r"^(JumpTo|Query)\(([A-Za-z0-9_ -]+)\)$")
"""The two actions that name an object or door, as one pattern: the call, then the name."""
_ROTATE = re.compile(r"^Rotate\(([0-9-]+)\)$")
_TERM_CHANGES = re.compile(r'^Term\(changes="([^"]+)"\)$')
_POS_WORDS = ("position", "location", "moved", "pos")
_ORI_WORDS = ("orientation", "rotation", "rotated", "ori", "facing")


def parse_changes(text: str) -> tuple[ChangeReport, ...]:
    """Parse ``"apple: position, chair: orientation"`` leniently (unparseable parts are skipped, as in the
    reference); the same object named twice merges its change types.

    >>> [(c.name, c.position, c.orientation) for c in parse_changes("apple: position, chair: rotated, apple: facing")]
    [('apple', True, True), ('chair', False, True)]
    """
    merged: dict[str, ChangeReport] = {}
    for part in text.split(","):
        s = part.strip().strip("\"'")
        if ":" in s:
            name, rest = s.split(":", 1)
        else:
            pieces = s.rsplit(" ", 1)
            if len(pieces) != 2:
                continue
            name, rest = pieces
        low = rest.lower()
        pos = any(k in low for k in _POS_WORDS)
        ori = any(k in low for k in _ORI_WORDS)
        if not (pos or ori):
            continue
        key = name.strip().strip("\"'").replace("_", " ")
        if not key:
            continue
        old = merged.get(key, ChangeReport(key))
        merged[key] = ChangeReport(key, old.position or pos, old.orientation or ori)
    return tuple(merged.values())


def _parse_one(text: str, false_belief: bool) -> Action:
    if m := _NAMED.match(text):
        target = m.group(2).replace("_", " ")
        return JumpTo(target) if m.group(1) == "JumpTo" else Query(target)
    if m := _ROTATE.match(text):
        try:
            return Rotate(int(m.group(1)))
        except ValueError:
            raise ActionParseError(f"invalid rotation {text!r}; use Rotate(90), Rotate(-90), ...") from None
    if text == "Observe()":
        return Observe()
    if text == "Term()":
        if false_belief:
            raise ActionParseError('in the false-belief phase terminate with Term(changes="obj: type, ...")')
        return Term()
    if false_belief and (m := _TERM_CHANGES.match(text)):
        return Term(parse_changes(m.group(1)), m.group(1))
    raise ActionParseError(f"unknown action {text!r}")


def parse_actions(text: str, *, false_belief: bool = False) -> ActionSequence:
    """Parse ``Actions: [ ... ]`` (the brackets are required) into an :class:`ActionSequence`.

    Raises :class:`ActionParseError` naming the problem for anything outside the grammar. Results are memoised
    (sequences are immutable), so replayed action strings are parsed once.
    """
    got = _parse_cached(str(text), false_belief)
    if isinstance(got, str):
        raise ActionParseError(got)
    return got


_LIST = re.compile(r"\[(.*)\]", flags=re.DOTALL)
_PART = re.compile(r"([A-Za-z]+\([^()]*\))")


@lru_cache(maxsize=8192)
def _parse_cached(text: str, false_belief: bool) -> ActionSequence | str:
    """The parsed sequence, or the reason it is invalid."""
    m = _LIST.search(text.strip())
    if not m:
        return "no action list found; write Actions: [ ... ]"
    parts = _PART.findall(m.group(1))
    if not parts:
        return "the action list is empty"
    try:
        actions = tuple(_parse_one(p.strip(), false_belief) for p in parts)
    except ActionParseError as exc:
        return exc.reason
    finals = [i for i, a in enumerate(actions) if isinstance(a, Observe | Query | Term)]
    if not finals or finals[-1] != len(actions) - 1:
        return "no final action: end with Observe(), Query(OBJ) or Term()"
    if len(finals) > 1:
        return f"more than one final action: {actions[finals[0]]} must be the last action"
    if isinstance(actions[-1], Term) and len(actions) > 1:
        return "Term() must be alone, with no movement actions"
    return ActionSequence(actions)

"""The ``verb(arg, ...)`` call grammar shared by MindPower's action lines and atomic actions.

Both the ``<Action>`` layer (``walk (fridge), open (fridge), pick (apple)``) and the atomic actions of Mind-Reward
(``attribute_belief(robot, human_believes(alice, object_on(apple, table)))``) are comma-separated calls. This
module splits such text at top-level separators and normalises each call so that spelling differences the
paper's metrics should ignore — case and spaces — disappear:

>>> split_calls("Walk (the Fridge), open(fridge); pick (apple).")
['Walk (the Fridge)', 'open(fridge)', 'pick (apple)']
>>> normalize_call("Give ( Mug , David )")
'give(mug, david)'
>>> normalize_call("walk(Kitchen  Table)")
'walk(kitchen_table)'
>>> normalize_call("plan_action(robot, walk (fridge), from = Kitchen Table)")
'plan_action(robot, walk(fridge), from=kitchen_table)'
>>> normalize_call("wait")
'wait()'

Arguments keep their words: ``the fridge`` stays ``the_fridge`` (articles are not case or space), and verbs are
not mapped to synonyms (``grab`` stays ``grab``): ROUGE compares what the agent wrote.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Call", "normalize_call", "normalize_calls", "parse_call", "split_calls", "split_top_level"]

_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’"}
_SEPARATORS = frozenset(",;\n")
_ARROWS = re.compile(r"\s*(?:->|→|=>)\s*")
_MARKER = re.compile(r"^\s*(?:[-*•·]+|\d+\s*[.)]|step\s*\d+\s*[:.)])\s*", re.IGNORECASE)
_NAME = re.compile(r"^[A-Za-z_][\w\- ]*$")
_WS = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def split_top_level(text: str, separators: frozenset[str] = _SEPARATORS) -> list[str]:
    """Split ``text`` at ``separators`` that are outside parentheses, brackets and quotes (pieces unstripped)."""
    pieces: list[str] = []
    depth = 0
    quote: str | None = None
    start = 0
    for i, ch in enumerate(text):
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch in _QUOTES and (ch != "'" or not (0 < i < len(text) - 1 and text[i - 1].isalnum())):
            quote = _QUOTES[ch]  # an apostrophe inside a word (Alice's) opens nothing
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and ch in separators:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    return pieces


def _clean_piece(piece: str) -> str:
    piece = _MARKER.sub("", piece.strip().strip("`").strip())
    return piece.rstrip(".").strip().strip("`").strip()


def split_calls(text: str) -> list[str]:
    """The pieces of an action line, one per step: split at top-level ``,`` ``;`` newlines and arrows, with list
    markers (``-``, ``1.``), backticks and a trailing full stop removed; empty pieces dropped."""
    text = _ARROWS.sub("\n", text)
    return [p for p in (_clean_piece(x) for x in split_top_level(text)) if p]


@dataclass(frozen=True)
class Call:
    """One parsed call: its name and its arguments as written (stripped)."""

    name: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.name}({', '.join(self.args)})"


@lru_cache(maxsize=8192)  # Mind-Reward parses the same nested atoms again and again (a frozen Call is shared safely)
def parse_call(text: str) -> Call | None:
    """``verb(arg, ...)`` (or a bare ``verb``) as a :class:`Call`; ``None`` when the text is not a call.

    >>> parse_call("give (mug, David)")
    Call(name='give', args=('mug', 'David'))
    >>> parse_call("walk to the fridge") is None
    True
    """
    text = text.strip()
    if not text:
        return None
    if "(" not in text:
        return Call(text, ()) if re.fullmatch(r"[A-Za-z_]\w*", text) else None
    open_at = text.index("(")
    name = text[:open_at].strip()
    if not text.endswith(")") or not _NAME.match(name):
        return None
    body = text[open_at + 1 : -1]
    depth = 0
    quote: str | None = None
    for ch in body:  # the closing parenthesis must close the opening one
        if quote is not None:
            quote = None if ch == quote else quote
        elif ch in _QUOTES:
            quote = _QUOTES[ch]
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return None
    if depth != 0:
        return None
    args = tuple(a.strip() for a in split_top_level(body, frozenset(","))) if body.strip() else ()
    if any(not a for a in args):
        return None
    return Call(name, args)


def _normalize_word(text: str) -> str:
    return _WS.sub("_", _CONTROL.sub(" ", text).strip().lower())


def _normalize_arg(arg: str) -> str:
    arg = arg.strip()
    if len(arg) >= 2 and arg[0] in _QUOTES and arg[-1] == _QUOTES[arg[0]]:
        inner = _WS.sub(" ", _CONTROL.sub(" ", arg[1:-1])).strip().lower()
        return f'"{inner}"'
    call = parse_call(arg)
    if call is not None and "(" in arg:
        return _normalize_parsed(call)
    key, eq, value = arg.partition("=")
    if eq and _NAME.match(key.strip()):
        return f"{_normalize_word(key)}={_normalize_arg(value)}"
    return _normalize_word(arg)


def _normalize_parsed(call: Call) -> str:
    return f"{_normalize_word(call.name)}({', '.join(_normalize_arg(a) for a in call.args)})"


@lru_cache(maxsize=8192)
def normalize_call(text: str) -> str:
    """One call in canonical form: lower case, no spaces around parentheses, commas or ``=``, spaces inside
    a name or an argument turned into ``_``, quoted speech kept (lower-cased, spaces collapsed), nested calls
    normalised too. Text that is not a call is lower-cased with spaces collapsed, so it can never equal a call."""
    call = parse_call(_clean_piece(text))
    if call is None:
        return _WS.sub(" ", _CONTROL.sub(" ", text)).strip().lower()
    return _normalize_parsed(call)


def normalize_calls(actions: str | Sequence[str]) -> list[str]:
    """Normalised calls of an action line (split with :func:`split_calls`) or of a list (one call per item)."""
    if isinstance(actions, str):
        return [normalize_call(p) for p in split_calls(actions)]
    return [n for n in (normalize_call(a) for a in actions) if n]


def call_atoms(text: str) -> list[str]:
    """The ``name(args)`` calls of ``text``, normalised; pieces that are not calls are skipped."""
    return [normalize_call(p) for p in split_calls(text) if "(" in p and parse_call(p) is not None]


def plan_atoms(calls: list[str]) -> list[str]:
    """An ``<Action>`` layer's calls as one ``plan_action(robot, step, ...)`` atom, as in the gold (a layer that
    already states that one atom is kept as it is; no calls, no atom)."""
    if len(calls) == 1 and calls[0].startswith("plan_action("):
        return calls
    return [f"plan_action(robot, {', '.join(calls)})"] if calls else []

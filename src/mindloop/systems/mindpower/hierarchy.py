"""The MindPower Reasoning Hierarchy as text: its tags, a strict parser, and the action line's steps.

A full answer has six tagged layers in order, ``<Perception> → <Belief> → <Desire> → <Intention> → <Decision>
→ <Action>``. The paper spells them two ways and both are accepted: the Sec. 3.1 names and the Fig. 15 prompt's
``<Description>``, ``<Robot Belief>``, ``<Robot Desire>``, ``<Robot Intention>`` (any case, optional ``:`` after
the tag, optional closing tags such as ``</Belief>``, markdown bold, bullets and numbering around them). A reply
with no angle-bracket tag at all is read by the layer names at the start of its lines (``**Robot Belief:**``,
``### Decision``, ``3. Robot Desire:``). The ablation settings of Sec. 3.4 ask for fewer layers:
``decision`` (Fig. 17: ``<Decision>``, ``<Action>``) and ``think`` (Fig. 18: ``<Think>``, ``<Decision>``,
``<Action>``).

:func:`parse_hierarchy` returns a typed :class:`Hierarchy` or raises :class:`HierarchyParseError`, which lists
every problem: missing layers, layers out of order, repeated or unexpected layers, empty layers, and action
steps that are not ``verb(args)``.

>>> h = parse_hierarchy("<Decision> Give Alice the apple.\\n<Action> walk (fridge), open (fridge), pick (apple)",
...                     setting="decision")
>>> [str(s) for s in h.actions]
['walk(fridge)', 'open(fridge)', 'pick(apple)']
>>> try:
...     parse_hierarchy("<Action> wait()\\n<Decision> Wait.\\n<Belief> x", setting="decision")
... except HierarchyParseError as e:
...     print(e)
malformed decision output: <Action> comes before <Decision>; unexpected <Belief> in the decision setting
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems.mindpower.calls import Call, parse_call, split_calls

LAYERS: tuple[str, ...] = ("perception", "belief", "desire", "intention", "decision", "action")
"""The six layers, in order."""

Setting = Literal["hierarchy", "decision", "think"]
SETTINGS: tuple[str, ...] = ("hierarchy", "decision", "think")
SETTING_LAYERS: dict[str, tuple[str, ...]] = {
    "hierarchy": LAYERS,
    "decision": ("decision", "action"),
    "think": ("think", "decision", "action"),
}
"""Which layers each prompt setting asks for, in order (Fig. 15, Fig. 17, Fig. 18)."""

TAGS: dict[str, str] = {layer: f"<{layer.capitalize()}>" for layer in (*LAYERS, "think")}
"""The canonical tag of each layer (``<Perception>``); :func:`parse_hierarchy` also accepts the Fig. 15 names."""

_ALIASES = {**{x: x for x in (*LAYERS, "think")}, "description": "perception", "actions": "action"}
"""Each tag name a reply may use (lower case), and the layer it names: the Fig. 15 names are aliases."""
_TAG = re.compile(
    r"(?P<bold>\*\*)?<\s*(?P<close>/)?\s*(?:robot[\s_-]*)?"
    r"(?P<name>perception|description|belief|desire|intention|decision|actions?|think)\s*>(?:\*\*)?\s*:?",
    re.IGNORECASE,
)
_LABEL = re.compile(
    r"^[ \t]*(?:(?:[-*•>]+|\d+[.)]|#{1,6})[ \t]*)*(?P<bold>\*\*|__)?[ \t]*(?P<close>(?!))?(?:robot[ \t_-]*)?"
    r"(?P<name>perception|description|belief|desire|intention|decision|actions?|think)[ \t]*(?:\*\*|__)?[ \t]*"
    r"(?::[ \t]*(?:\*\*|__)?|(?=\r?\n)|$)",
    re.IGNORECASE | re.MULTILINE,
)
"""A layer named without angle brackets at the start of a line: ``**Robot Belief:**``, ``### Decision``,
``2. Desire:`` (a colon, or the name alone on its line as a heading)."""
_HEADER = re.compile(r"^[\s\-*#>]*tom[\s_-]*reasoning\s*:?[\s*]*$", re.IGNORECASE | re.MULTILINE)
_EDGE = " \t\r\n-*:#>"


def check_setting(setting: str) -> Setting:
    """``setting`` if it is one of :data:`SETTINGS`, else an :class:`InvalidArgumentError` naming them."""
    if setting not in SETTINGS:
        raise InvalidArgumentError(f"unknown setting {setting!r} (settings: {', '.join(SETTINGS)})")
    return setting  # type: ignore[return-value]


ActionStep = Call
"""One step of the ``<Action>`` line: ``name`` (the verb) and ``args`` as written."""


@dataclass(frozen=True)
class Hierarchy:
    """A parsed answer: the text of each layer present (``think`` for Fig. 18), and the action steps."""

    setting: Setting
    layers: Mapping[str, str]
    actions: tuple[ActionStep, ...]
    preamble: str = ""

    def text(self, layer: str) -> str:
        """The text of ``layer`` (empty when the setting does not ask for it)."""
        return self.layers.get(layer, "")

    def action_line(self) -> str:
        """The steps as one line, ``walk(fridge), open(fridge)``."""
        return ", ".join(str(s) for s in self.actions)

    def to_text(self) -> str:
        """The answer again, with canonical tags (``<Perception> ...``), one layer per line."""
        return "\n".join(f"{TAGS[name]} {self.layers[name]}" for name in SETTING_LAYERS[self.setting])

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {"setting": self.setting, "layers": dict(self.layers), "actions": [str(s) for s in self.actions]}


class HierarchyParseError(ParseError):
    """An answer that does not have the setting's layers in order; every problem found is listed."""

    def __init__(
        self,
        setting: str,
        *,
        missing: Sequence[str] = (),
        out_of_order: Sequence[tuple[str, str]] = (),
        repeated: Sequence[str] = (),
        unexpected: Sequence[str] = (),
        empty: Sequence[str] = (),
        bad_steps: Sequence[str] = (),
    ) -> None:
        self.setting = setting
        self.missing = list(missing)
        self.out_of_order = list(out_of_order)
        self.repeated = list(repeated)
        self.unexpected = list(unexpected)
        self.empty = list(empty)
        self.bad_steps = list(bad_steps)
        super().__init__(f"malformed {setting} output: {'; '.join(self.problems())}")

    def problems(self) -> list[str]:
        """One line per problem, naming the layers involved."""
        out: list[str] = []
        if self.missing:
            out.append("missing " + ", ".join(TAGS[m] for m in self.missing))
        out.extend(f"{TAGS[a]} comes before {TAGS[b]}" for a, b in self.out_of_order)
        out.extend(f"{TAGS[r]} appears more than once" for r in self.repeated)
        if self.unexpected:
            out.append(f"unexpected {', '.join(TAGS[u] for u in self.unexpected)} in the {self.setting} setting")
        out.extend(f"{TAGS[e]} is empty" for e in self.empty)
        out.extend(f"<Action> step {s} is not verb(args)" for s in self.bad_steps)
        return out or ["no problem"]


def _clean(text: str) -> str:
    text = _HEADER.sub("", text)
    return re.sub(r"\s*\n\s*", " ", text.strip(_EDGE)).strip(_EDGE).strip()


def tagged_layers(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The text before the first tag and ``(layer, raw content)`` for every opening tag, in order of appearance
    (lenient: no check of order or completeness; :func:`parse_hierarchy` does those).

    Tags are the angle-bracket ones (``<Belief>``); a reply with none is read by layer names at the start of lines
    instead (``**Robot Belief:**``, ``### Decision``, ``1. Description:``), never a mix of the two.
    """
    found: list[tuple[str, str]] = []
    matches = list(_TAG.finditer(text))
    if not any(not m.group("close") for m in matches):
        matches = list(_LABEL.finditer(text))
    first_open = next((m for m in matches if not m.group("close")), None)
    preamble = text[: first_open.start()] if first_open is not None else text
    for i, m in enumerate(matches):
        if m.group("close"):
            continue
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        found.append((_ALIASES[m.group("name").lower()], text[m.end() : end]))
    return preamble.strip(), found


def first_layers(text: str, setting: str) -> dict[str, str] | None:
    """The raw content of the first tag of each of ``setting``'s layers in ``text``; ``None`` without any tag."""
    wanted = SETTING_LAYERS[check_setting(setting)]
    found = tagged_layers(text)[1]
    if not found:
        return None
    by_layer: dict[str, str] = {}
    for name, content in found:
        if name in wanted:
            by_layer.setdefault(name, content)
    return by_layer


def parse_hierarchy(text: str, setting: str = "hierarchy") -> Hierarchy:
    """Parse a model's answer strictly for ``setting``; raise :class:`HierarchyParseError` naming every problem."""
    wanted = SETTING_LAYERS[check_setting(setting)]
    preamble, found = tagged_layers(text)
    seen: list[str] = []
    layers: dict[str, str] = {}
    raw: dict[str, str] = {}
    repeated: list[str] = []
    unexpected: list[str] = []
    for name, content in found:
        if name not in wanted:
            unexpected += [] if name in unexpected else [name]
        elif name in layers:
            repeated += [] if name in repeated else [name]
        else:
            layers[name] = _clean(content)
            raw[name] = _HEADER.sub("", content)
            seen.append(name)
    order = [w for w in wanted if w in layers]
    out_of_order = [(a, b) for a, b in itertools.pairwise(seen) if order.index(a) > order.index(b)]
    empty = [n for n in order if not layers[n]]
    steps: list[ActionStep] = []
    bad_steps: list[str] = []
    if layers.get("action"):
        for i, piece in enumerate(split_calls(raw["action"].strip(_EDGE)), 1):  # newlines separate steps too
            call = parse_call(piece)
            if call is None:
                bad_steps.append(f"{i} {piece!r}")
            else:
                steps.append(call)
        if not steps and not bad_steps:
            empty.append("action")
    missing = [w for w in wanted if w not in layers]
    if missing or out_of_order or repeated or unexpected or empty or bad_steps:
        raise HierarchyParseError(
            setting,
            missing=missing,
            out_of_order=out_of_order,
            repeated=repeated,
            unexpected=unexpected,
            empty=empty,
            bad_steps=bad_steps,
        )
    return Hierarchy(check_setting(setting), layers, tuple(steps), preamble)


def _alternatives(layer: str) -> str:
    names = [k for k, v in _ALIASES.items() if v == layer]
    return r"<\s*(?:robot[\s_-]*)?(?:" + "|".join(names) + r")\s*>"


_IN_ORDER = {
    setting: re.compile(r".*?".join(_alternatives(x) for x in layers), re.IGNORECASE | re.DOTALL)
    for setting, layers in SETTING_LAYERS.items()
}


def layers_in_order(text: str, setting: str = "hierarchy") -> bool:
    """The paper's format check (Sec. 4, Format-Reward): a sequential regular-expression match of the setting's
    tags, in order (either spelling). Content, repeats and extra text are not checked.

    >>> layers_in_order("<Perception> a <Belief> b <Desire> c <Intention> d <Decision> e <Action> walk(x)")
    True
    >>> layers_in_order("<Belief> b <Perception> a <Desire> c <Intention> d <Decision> e <Action> walk(x)")
    False
    """
    return _IN_ORDER[check_setting(setting)].search(text) is not None

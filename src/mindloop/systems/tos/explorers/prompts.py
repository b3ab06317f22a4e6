"""The prompts of the model-driven explorer: the paper's exploration instructions, belief probes and questions.

The exploration prompt, action grammar and answer format follow the reference's messages (its experiment logs
show them verbatim); the cognitive-map probes follow its global and local map instructions; the uncertainty
probe asks for labelled candidate cells. Every reply is expected as ``THINK: ... FINAL ANSWER: ...``.

Two styles of the *format* lines (:data:`PROMPT_STYLES`, ``--opt prompt=``); everything else (rules, action
grammar with its examples, layout, question texts) is the same text in both:

* ``reference``: the release's format lines as the release writes them: the system prompt
  ``THINK: Your thoughts / FINAL ANSWER: Your final answer``, the step footer ``THINK:\n[Your thoughts on next
  step actions]\nFINAL ANSWER:\nActions: [ ... ]`` (verbatim from the official implementation's
  ``get_format_footer``), bracketed placeholders for answers, and a filled-in example map or label list where
  the reply goes. Small models copy these verbatim (on Qwen2.5-Coder-0.5B every reply of a short run repeated
  ``[Your thoughts ...]`` and the map probes returned the example map itself).
* ``explicit`` (the default): the same labels, with the slots described in words and any example set apart
  from the slot and marked as an example from another scene. The paper's text (file ``004``) gives no prompt,
  so no paper-verbatim text changes; the deviation from the release's format lines is named in each sample's
  output (``prompt``) and the run summary (``prompt_note``).

:func:`echoed_markers` finds the format lines and examples of a prompt that a reply copied verbatim (the echo
rate of a run).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mindloop.errors import InvalidArgumentError
from mindloop.systems.tos.world.env import describe_layout
from mindloop.systems.tos.world.geometry import Vec
from mindloop.systems.tos.world.scene import Scene

__all__ = [
    "ANSWER_FOOTER",
    "COGMAP_GLOBAL_PROMPT",
    "COGMAP_LOCAL_PROMPT",
    "ECHO_MARKERS",
    "PROMPT_STYLES",
    "STEP_FOOTER",
    "SYSTEM_PROMPT",
    "PromptSet",
    "echoed_markers",
    "exploration_prompt",
    "fog_probe_prompt",
    "passive_prompt",
    "prompt_set",
    "question_prompt",
]

SYSTEM_PROMPT = "You answer should strictly follow this format:\nTHINK: Your thoughts\nFINAL ANSWER: Your final answer"

STEP_FOOTER = (
    "Strictly follow this format:\nTHINK:\n[Your thoughts on next step actions]\nFINAL ANSWER:\nActions: [ ... ]"
)
ANSWER_FOOTER = "Strictly follow this format:\nTHINK:\n[Your thoughts]\nFINAL ANSWER:\n[Your answer]"

_RULES = """\
You are a spatial reasoner in a 2D, {modality} N×M grid. Every object including you is a point at integer (x, y) \
coordinates.

Goal: **Minimize total COST** while building a complete and accurate map of the environment.

Multi-room rules (may exist multiple rooms):
- Your vision is confined to your current room.
- Doors block vision between rooms.
- Exception: When located in a doorway, door is open and invisible, you can see into both connected rooms.
- Rooms connect via doors on vertical (front/back) or horizontal (left/right) walls.


Relationship instructions:
Relationship: bearing in degrees; distance is Euclidean. Use binned labels.
Bearing is a degree in [-180, 180]; 0° is front. +: clockwise, -: counterclockwise.
Orientation:
\t-forward/backward/right/left (ego) or north/east/south/west (allo).
\t-When agent faces north: forward = north, right = east, etc.
\t-Gate's orientation: report wall position (e.g., 'on left wall').
Binned relationship reporting:
EgoFront (egocentric, object-to-agent); Cardinal (object-to-object).
Egocentric angle bins (0° is front): [-45°,-22.5°)→front-left, [-22.5°,0°)→front-slight-left, 0°→front, \
(0°,22.5°]→front-slight-right, (22.5°,45°]→front-right, otherwise→beyond-fov.
Cardinal angle bins (45° each): [-22.5°,22.5°)→north, [22.5°,67.5°)→north east, [67.5°,112.5°)→east, \
[112.5°,157.5°)→south east, [157.5°,202.5°)→south, [202.5°,247.5°)→south west, [247.5°,292.5°)→west, \
[292.5°,337.5°)→north west.
Distance bins: =0→same distance, (0,2]→near, (2,4]→mid distance, (4,8]→slightly far, (8,16]→far, (16,32]→very far, \
>32→extremely far.
Proximity: relations between close objects (≤2.0m). Use cardinal directions and standard distance bins.
"""

_ACTIONS = """\
Action Instructions:
You can jump to objects within and across rooms, turn, and observe.
When you are at a door, you can see objects from both connected rooms (within FOV).

Available Actions:
Movement (<M>):
- JumpTo(OBJ): Jump to the same position as the object or door. Your orientation does NOT change. The object you \
jump to MUST be in your field of view and previously observed. Use object or door names only. NO numbers or \
directions or others. Invalid: JumpTo(left), JumpTo(1).
- Rotate(DEG): Rotate relative to your current orientation. Positive = clockwise, negative = counterclockwise. \
Valid: -270, -180, -90, 0, 90, 180, 270. You must rotate by these specified degrees; otherwise your action will be \
invalid.
Final (<F>):
- Observe(): {observe}
- Query(obj): Return object's coordinates with agent's initial position as origin, north as y+ axis. You can only \
query objects that you have previously observed. High cost, only use when necessary to eliminate ambiguities.
- Term(): Terminate the exploration phase. Term() must be alone with no movement actions. You MUST ONLY use it in \
the last turn and no other turns. Otherwise your action sequence will be invalid.

Action Grammar (HARD CONSTRAINT):
Actions: [ <M>* <F> ]
<M> = "JumpTo(OBJ)" | "Rotate(DEG)"
<F> = "Observe()" | "Query(OBJ)" | "Term()"
Constraints:
- Zero, one or more <M>. No JumpTo at first step.
- Exactly one <F>, and it must be the final action.
- No more than one Observe().
- Term() may appear only alone.
- Any violation is invalid.

Examples:
Valid: Actions: [JumpTo(red door), Rotate(90), JumpTo(table), Observe()]
Valid: Actions: [Observe()] | Query(table)
Invalid (no final action): Actions: [JumpTo(table)]
Invalid (more than one final action): Actions: [Observe(), Rotate(90), Observe()]
Invalid (termination with other actions): Actions: [JumpTo(table), Term()]


Rules:
- Observe action only reports from your current position and facing direction. If you jump multiple times, the \
final Observe() action gives the view only from your last position.
- Actions execute in order. Field of view: 90°.

Observe and Query action have costs:
- Observe(): 1
- Query(obj): 2


Rules:
- Achieve complete coverage with the fewest steps;
- Prefer actions that reveal more unknowns; avoid redundancy
- FOV is 90°, you can NOT see objects outside your FOV.
- Track your current and initial pose
"""

_OBSERVE_TEXT = (
    "Report objects (including doors) and their spatial relationships from your current position in your FOV. Also "
    "reports relations between mutually close objects in your FOV, using your current facing direction as north (a "
    "relative reference frame, not true north).Use exactly one Observe() per step and make it the last action. "
    "Never call Term() after Observe()."
)
_OBSERVE_VISION = (
    "Return an RGB image of your current field of view from your current position and facing. Use exactly one "
    "Observe() per step and make it the last action. Never call Term() after Observe()."
)

COGMAP_GLOBAL_PROMPT = (
    """\
## Cognitive Map (JSON)

Represent the scene as a JSON map.

- position: [x, y] integers (or integer-like)
- Grid: concise global map on an N×M grid.
- Frame: origin [0,0] is your initial position; +Y is your initial facing direction (north).
- Content: include all observed objects and gates; include the agent
- Facing: use "north|south|east|west".
- Include only observed/known information—do not invent.

Example:
```json
{
    "agent": {"position": [2, 3], "facing": "east"},
    "chair": {"position": [2, 4], "facing": "north"}
}
```
Give the cognitive map JSON after FINAL ANSWER.
"""
    + ANSWER_FOOTER
)

COGMAP_LOCAL_PROMPT = (
    """\
## Cognitive Map — Local (JSON)

- Frame: must include "origin":"agent". The origin is your current position and orientation (+y ahead, +x right).
- Structure: include an "objects" dict; each object's position and facing are relative to you now.
- Content: include all objects and doors in your current field of view; DO NOT include yourself in "objects".
- Facing: use "+x|-x|+y|-y" (local axes).

Example:
```json
{
    "origin": "agent",
    "objects": {
      "chair": {"position": [0, 1], "facing": "-x"}
    }
}
```
Give the local map JSON after FINAL ANSWER.
"""
    + ANSWER_FOOTER
)


_FOG_TAIL = 'Answer with JSON after FINAL ANSWER, e.g. {"unexplored": ["A", "C"]}.'

# ---- the explicit style: slots described in words, examples set apart ------------------------------------------
SYSTEM_PROMPT_EXPLICIT = (
    "Every reply has two labelled parts. After the label THINK: write your own reasoning. After the label "
    "FINAL ANSWER: write only the answer that was asked for."
)
STEP_FOOTER_EXPLICIT = (
    "Reply format: write THINK: and then, in your own words, what you know so far and what to explore next. "
    "Then write FINAL ANSWER: and then this step's actions, as the word Actions: followed by the list of actions "
    "in square brackets, using only the actions and names given above."
)
ANSWER_FOOTER_EXPLICIT = (
    "Reply format: give your reasoning in your own words after the label THINK: and then only your answer to the "
    "question after the label FINAL ANSWER:"
)
JSON_FOOTER_EXPLICIT = (
    "Reply format: give your reasoning in your own words after the label THINK: and then only the JSON object after "
    "the label FINAL ANSWER:"
)
COGMAP_GLOBAL_PROMPT_EXPLICIT = (
    """\
## Cognitive Map (JSON)

Give your map of the scene as one JSON object.

- Keys: "agent" for yourself, and the name of every object and door you have observed.
- Value of each key: an object with the key "position" (a list of two integers, x then y) and the key "facing"
  (one of "north", "south", "east", "west"; leave it out for items without a front).
- Frame: origin [0, 0] is your initial position; +y is your initial facing direction (north), +x is east.
- Include only what you have observed; do not invent items.

Give your map after FINAL ANSWER.
"""
    + JSON_FOOTER_EXPLICIT
)
COGMAP_LOCAL_PROMPT_EXPLICIT = (
    """\
## Cognitive Map — Local (JSON)

Give the objects and doors in your current field of view as one JSON object, in your own frame now: the origin
is your current position, +y is straight ahead and +x is to your right.

- The JSON object has the key "origin" with the value "agent", and the key "objects": an object whose keys are
  the names of the items you see now (not yourself).
- Value of each item: an object with the key "position" (a list of two integers, x then y, relative to you now)
  and the key "facing" (one of "+x", "-x", "+y", "-y"; leave it out for items without a front).

Give your local map after FINAL ANSWER.
"""
    + JSON_FOOTER_EXPLICIT
)
_FOG_TAIL_EXPLICIT = (
    'After FINAL ANSWER: write a JSON object with the key "unexplored" whose value is the list of the letters of '
    "the points you have not observed (an empty list when you have observed them all)."
)

PROMPT_STYLES = ("explicit", "reference")
"""The styles of format lines (``--opt prompt=``); ``explicit`` is the default."""


@dataclass(frozen=True)
class PromptSet:
    """The format-dependent texts of one style."""

    style: str
    system: str
    step_footer: str
    answer_footer: str
    cogmap_global: str
    cogmap_local: str
    fog_tail: str
    probe_footer: str


_SETS = {
    "reference": PromptSet(
        "reference",
        SYSTEM_PROMPT,
        STEP_FOOTER,
        ANSWER_FOOTER,
        COGMAP_GLOBAL_PROMPT,
        COGMAP_LOCAL_PROMPT,
        _FOG_TAIL,
        ANSWER_FOOTER,
    ),
    "explicit": PromptSet(
        "explicit",
        SYSTEM_PROMPT_EXPLICIT,
        STEP_FOOTER_EXPLICIT,
        ANSWER_FOOTER_EXPLICIT,
        COGMAP_GLOBAL_PROMPT_EXPLICIT,
        COGMAP_LOCAL_PROMPT_EXPLICIT,
        _FOG_TAIL_EXPLICIT,
        JSON_FOOTER_EXPLICIT,
    ),
}


def prompt_set(style: str = "explicit") -> PromptSet:
    """The texts of ``style`` (one of :data:`PROMPT_STYLES`)."""
    try:
        return _SETS[style]
    except KeyError:
        raise InvalidArgumentError(
            f"unknown prompt style {style!r}; expected one of {', '.join(PROMPT_STYLES)}"
        ) from None


def exploration_prompt(scene: Scene, max_steps: int, *, vision: bool = False, style: str = "explicit") -> str:
    """The opening message of active exploration (rules, actions, layout, step budget)."""
    rules = _RULES.format(modality="vision" if vision else "text-only")
    actions = _ACTIONS.format(observe=_OBSERVE_VISION if vision else _OBSERVE_TEXT)
    return (
        f"# Spatial Exploration Task\n\n{rules}\n{actions}\n\nRoom Layout and initial state:\n"
        f"{describe_layout(scene)}\n\n\nYou have a maximum of {max_steps} exploration steps.\n\n\n\n"
        f"{prompt_set(style).step_footer}"
    )


def passive_prompt(
    scene: Scene, history: Sequence[str] | Sequence[tuple[int, str]], *, vision: bool = False, omitted: int = 0
) -> str:
    """The opening message of passive comprehension: rules, layout and a proxy's exploration log (lines, or
    ``(number, line)`` pairs; ``omitted`` earlier entries left out are announced)."""
    rules = _RULES.format(modality="vision" if vision else "text-only")
    numbered = [h if isinstance(h, tuple) else (i, h) for i, h in enumerate(history, 1)]
    log = "\n".join(f"{i}. {line}" for i, line in numbered)
    if omitted:
        log = f"[The first {omitted} entries are not shown.]\n{log}"
    return (
        f"# Spatial Reasoning Task\n\n{rules}\nAn explorer moved through the environment for you (JumpTo, Rotate, "
        f"Observe, Query) and saw the following.\n\nRoom Layout and initial state:\n{describe_layout(scene)}\n\n"
        f"## Exploration History\n{log}\n\nAfter reading the history, you will answer questions about the space."
    )


def question_prompt(question: str, *, style: str = "explicit") -> str:
    """One downstream question (the reference's template text) with the answer format."""
    return f"{question}\n{prompt_set(style).answer_footer}"


def fog_probe_prompt(candidates: Sequence[Vec], *, style: str = "explicit") -> str:
    """The uncertainty probe: which labelled cells (relative to the start) have never been in view."""
    lines = "\n".join(f"{chr(ord('A') + i)}: ({x}, {y})" for i, (x, y) in enumerate(candidates))
    texts = prompt_set(style)
    return (
        "## Uncertainty probe\n\nThese points are inside rooms you have visited (origin = your initial position, "
        "north = +y). Which of them have you NOT observed yet (never in your field of view)?\n"
        f"{lines}\n\n{texts.fog_tail}\n{texts.probe_footer}"
    )


# ---- echoes -----------------------------------------------------------------------------------------------------
ECHO_MARKERS: tuple[str, ...] = (
    "[Your thoughts on next step actions]",
    "[Your thoughts]",
    "[Your answer]",
    "THINK: Your thoughts",
    "Your final answer",
    "Actions: [ ... ]",
    "Actions: [JumpTo(red door), Rotate(90), JumpTo(table), Observe()]",
    "Actions: [Observe()] | Query(table)",
    "Actions: [Observe(), Rotate(90), Observe()]",
    "Actions: [JumpTo(table), Term()]",
    '"agent": {"position": [2, 3], "facing": "east"}',
    '"chair": {"position": [2, 4], "facing": "north"}',
    '"chair": {"position": [0, 1], "facing": "-x"}',
    '{"agent": {"position": [0, 0], "facing": "north"}, "lamp": {"position": [2, 0]}}',
    '{"origin": "agent", "objects": {"lamp": {"position": [0, 1]}}}',
    '{"unexplored": ["A", "C"]}',
    "For illustration only",
    "lamp two cells east of the start",
    "and then your reasoning in your own words",
    "and then only the JSON object",
    "with your own values",
    "copy neither",
    "the words in angle brackets",
    "in your own words after the label",
    "only your answer to the question after the label",
    "what you know so far and what to explore next",
    "using only the actions and names given above",
    "Reply format:",
)
"""Format lines, placeholders and examples of both styles that a reply should never contain verbatim."""

_TEMPLATE_LINE = re.compile(r"^(?:Answer format: .+|Example: .+)$", re.MULTILINE)
_SLOT = re.compile(r"<[a-z_ ]+>")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def echoed_markers(reply: str, prompt: str) -> list[str]:
    """The format lines and examples of ``prompt`` that ``reply`` repeats verbatim (whitespace ignored): the
    markers of :data:`ECHO_MARKERS`, a question's ``Answer format: ...`` or ``Example: ...`` line, its ``<slot>``
    placeholders, and an answer that is exactly the question's example (``Example: north-west, near`` answered
    ``north-west, near``).

    >>> echoed_markers("THINK:\\n[Your thoughts]\\nFINAL ANSWER: north", "THINK:\\n[Your thoughts]\\n...")
    ['[Your thoughts]']
    """
    from mindloop.systems.tos.replies import answer_slot

    r, p = _squash(reply), _squash(prompt)
    found = [m for m in ECHO_MARKERS if _squash(m) in r and _squash(m) in p]
    lines = _TEMPLATE_LINE.findall(prompt)
    found += [line for line in lines if _squash(line) in r]
    slot = answer_slot(reply)
    if slot is not None:
        examples = [line.split(":", 1)[1].strip() for line in lines if line.startswith("Example:")]
        found += [f"Example: {x}" for x in examples if _squash(x).lower() == _squash(slot).lower()]
    found += [s for s in dict.fromkeys(_SLOT.findall(prompt)) if s in reply]
    return list(dict.fromkeys(found))

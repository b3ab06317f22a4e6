"""The prompts of CoBel-World (Fig. 5–15), as templates with the paper's ``$NAME$`` placeholders.

The texts follow the paper. Its task sentences are TDW-MAT's ("transport as many target objects as possible to
the bed … within 3000 steps"); for C-WAH the world supplies its own goal sentence and abilities through
``$TASK$`` and ``$ABILITIES$``. Where they differ from the paper's figures: the atomic actions (``$ATOMIC$``) are
our worlds' (:data:`TDW_ATOMIC`, :data:`CWAH_ATOMIC`), named apart from their argument so that small models do not
copy a slot such as ``'explore <room>(id)'`` into a plan; Fig. 10, 11 and 15 take the world's ``$ABILITIES$`` where
the paper lists TDW-MAT's; Fig. 13 ends with ``Answer in this format: Message:``; Fig. 14's note keeps only its
last sentence. The texts are package data, ``data/prompts.yaml`` (read and checked on import); the constants here
are what it holds, with the parts several prompts share written out. :func:`fill` substitutes placeholders and
refuses to leave one unfilled; :func:`echoes` finds the format slots and examples of a prompt that a reply copied
verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import InvalidArgumentError
from mindloop.systems.cobel.replies import section as labelled_section

__all__ = [
    "ADAPTIVE_COLLABORATION",
    "COMMUNICATION",
    "FIRST_ORDER_PREDICTION",
    "FIRST_ORDER_UPDATE",
    "NL_FIRST_ORDER_UPDATE",
    "NL_ZERO_ORDER_UPDATE",
    "PLANNING",
    "REPLANNING",
    "RULES_DISCUSS",
    "RULES_INIT",
    "RULES_REFINE",
    "TASK_DESCRIPTIONS",
    "ZERO_ORDER_PREDICTION",
    "ZERO_ORDER_UPDATE",
    "echoes",
    "fill",
    "section",
    "written_out",
]


class _PromptsFile(DataModel):
    """``data/prompts.yaml``: every prompt text and shared part, and the echo markers."""

    tdw_task: str
    cwah_task: str
    tdw_abilities: str
    tdw_atomic: str
    cwah_abilities: str
    cwah_atomic: str
    task_descriptions: dict[str, str]
    rules_init: str
    rules_refine: str
    rules_discuss: str
    first_order_update: str
    zero_order_update: str
    nl_zero_order_update: str
    nl_first_order_update: str
    plan_rules: str
    my_reasoning: str
    first_order_prediction: str
    zero_order_prediction: str
    adaptive_collaboration: str
    communication: str
    planning: str
    replanning: str
    echo_markers: tuple[str, ...]


def written_out(text: str, **parts: str) -> str:
    """``text`` with each ``[[NAME]]`` of ``parts`` written out (the parts prompts share in their data files)."""
    for name, part in parts.items():
        text = text.replace(f"[[{name}]]", part)
    return text


_T = load_package_data(_PromptsFile, "mindloop.systems.cobel", "prompts.yaml")
_SHARED = {"PLAN_RULES": _T.plan_rules, "MY_REASONING": _T.my_reasoning}

TDW_TASK = _T.tdw_task
"""TDW-MAT's task sentence (the paper's)."""
CWAH_TASK = _T.cwah_task
"""C-WAH's task sentence (ours, in the style of TDW-MAT's; ``$GOAL$`` is the episode's predicates)."""
TDW_ABILITIES = _T.tdw_abilities
"""TDW-MAT's abilities (the paper's)."""
TDW_ATOMIC = _T.tdw_atomic
"""TDW-MAT's atomic actions in our world (the paper's five, ``go to`` … ``put``, are three here: ``explore`` goes
to the room, ``grab`` puts into a held container). The actions are named apart from their argument: a slot such as
``'explore <room>(id)'`` was copied verbatim by small models as if it were a plan."""
CWAH_ABILITIES = _T.cwah_abilities
"""C-WAH's abilities."""
CWAH_ATOMIC = _T.cwah_atomic
"""C-WAH's atomic actions, named apart from their argument (see :data:`TDW_ATOMIC`)."""

TASK_DESCRIPTIONS = _T.task_descriptions
"""Task descriptions (``$TASK_DESCRIPTION$``) of rule construction, for the two worlds."""

RULES_INIT = _T.rules_init
"""Fig. 5, Alice's init prompt."""

RULES_REFINE = _T.rules_refine
"""Fig. 5, Alice's refine prompt."""

RULES_DISCUSS = _T.rules_discuss
"""Fig. 6, Bob's discuss prompt."""

FIRST_ORDER_UPDATE = _T.first_order_update
"""Fig. 8."""

ZERO_ORDER_UPDATE = _T.zero_order_update
"""Fig. 9."""

NL_ZERO_ORDER_UPDATE = _T.nl_zero_order_update
"""Fig. 9 without the Symbolic Belief Representation (the No-SBR ablation): the zero-order update in words."""

NL_FIRST_ORDER_UPDATE = _T.nl_first_order_update
"""Fig. 8 without the Symbolic Belief Representation (the No-SBR ablation): the first-order update in words."""

FIRST_ORDER_PREDICTION = written_out(_T.first_order_prediction, **_SHARED)
"""Fig. 10. Fig. 10, 11 and 15 share what a plan must satisfy, then the goal their information starts with
(``plan_rules`` in the data file); Fig. 11 and 15 also share their start, reasoning from my zero-order belief
(``my_reasoning``)."""

ZERO_ORDER_PREDICTION = written_out(_T.zero_order_prediction, **_SHARED)
"""Fig. 11."""

ADAPTIVE_COLLABORATION = _T.adaptive_collaboration
"""Fig. 12."""

COMMUNICATION = _T.communication
"""Fig. 13."""

PLANNING = _T.planning
"""Fig. 14."""

REPLANNING = written_out(_T.replanning, **_SHARED)
"""Fig. 15."""

ECHO_MARKERS: tuple[str, ...] = _T.echo_markers
"""Format slots and examples the prompts show, which a reply should never copy: the markers :func:`echoes` looks
for. An example entity counts only when the prompt's own data does not name it too (C-WAH's living room is
``<livingroom>(1000)``, as in the paper's example)."""


def echoes(prompt: str, reply: str) -> list[str]:
    """The :data:`ECHO_MARKERS` that ``reply`` copied verbatim (case-insensitive) from ``prompt``; an example entity
    is left out when the prompt names it more often than its examples do (it is then the world's own).

    >>> p = "Actions: 1) 'explore <room>(id)': go to a room. e.g., <livingroom>(1000). Beliefs: <kitchen>(7) IN x"
    >>> echoes(p, "plan1: 'explore <room>(id)'\\nplan2: explore <kitchen>(7)")
    ['<room>(id)']
    >>> echoes(p, "plan: explore <livingroom>(1000)")
    ['<livingroom>(1000)']
    """
    low_prompt, low_reply = prompt.lower(), reply.lower()
    out = []
    for marker in ECHO_MARKERS:
        m = marker.lower()
        if m not in low_reply or m not in low_prompt:
            continue
        if re.fullmatch(r"<\w+>\(\d+\)|\d+", m) and low_prompt.count(m) > _example_count(low_prompt, m):
            continue
        out.append(marker)
    return out


_EXAMPLE_CONTEXT = re.compile(r"(?:e\.g\.,?|such as|for example,?|example: message:)[^\n]{0,160}", re.IGNORECASE)


def _example_count(prompt: str, marker: str) -> int:
    """How often ``marker`` occurs inside the prompt's examples (``e.g., …``, ``For example, …``, ``Example: …``)."""
    return sum(m.group(0).lower().count(marker) for m in _EXAMPLE_CONTEXT.finditer(prompt))


_PLACEHOLDER = re.compile(r"\$([A-Z_]+)\$")


def fill(template: str, values: Mapping[str, str]) -> str:
    """Substitute ``$NAME$`` placeholders (nested ones too, e.g. ``$TASK$`` naming ``$AGENT_NAME$``).

    Raises :class:`~mindloop.errors.InvalidArgumentError` naming any placeholder left without a value.
    """
    text = template
    for _ in range(3):
        text = _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)
    missing = sorted(set(_PLACEHOLDER.findall(text)))
    if missing:
        raise InvalidArgumentError(f"prompt placeholders without a value: {', '.join(missing)}")
    return text


def section(text: str, label: str, labels: tuple[str, ...]) -> str | None:
    """The text after ``label:`` up to the next of ``labels`` (case-insensitive); ``None`` if ``label`` is absent:
    :func:`mindloop.systems.cobel.replies.section` with these labels taken literally.

    >>> section("reasons: far\\nanswer: Yes\\nmisaligned information: <a>(1) ON <bed>(2)", "answer",
    ...         ("reasons", "answer", "misaligned information"))
    'Yes'
    """
    literal = {f"label{k}": re.escape(x) for k, x in enumerate(dict.fromkeys((label, *labels)))}
    return labelled_section(text, "label0", (), literal)

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

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import InvalidArgumentError
from mindloop.systems.tos.world.env import describe_layout
from mindloop.systems.tos.world.geometry import Vec
from mindloop.systems.tos.world.scene import Scene


class _Texts(DataModel):
    """``data/prompts.yaml``."""

    rules: str
    actions: str
    exploration: str
    passive: str
    fog_probe: str
    observe_text: str
    observe_vision: str
    styles: dict[str, dict[str, str]]
    echo_markers: tuple[str, ...]


_TEXTS = load_package_data(_Texts, __package__ or "", "prompts.yaml")
PROMPT_STYLES = ("explicit", "reference")
"""The styles of format lines (``--opt prompt=``); ``explicit`` is the default."""


@dataclass(frozen=True)
class PromptSet:
    """The format-dependent texts of one style (a cognitive-map prompt ends with the style's ``probe_footer``)."""

    style: str
    system: str
    step_footer: str
    answer_footer: str
    cogmap_global: str
    cogmap_local: str
    fog_tail: str
    probe_footer: str

    @classmethod
    def from_data(cls, style: str, texts: dict[str, str]) -> PromptSet:
        cogmaps = {k: texts[k] + texts["probe_footer"] for k in ("cogmap_global", "cogmap_local")}
        return cls(style, **{**texts, **cogmaps})


_SETS = {style: PromptSet.from_data(style, _TEXTS.styles[style]) for style in PROMPT_STYLES}
_REF = _SETS["reference"]
SYSTEM_PROMPT, STEP_FOOTER, ANSWER_FOOTER = _REF.system, _REF.step_footer, _REF.answer_footer
COGMAP_GLOBAL_PROMPT, COGMAP_LOCAL_PROMPT = _REF.cogmap_global, _REF.cogmap_local
"""The reference style's format lines and map probes, as the release writes them."""


def prompt_set(style: str = "explicit") -> PromptSet:
    """The texts of ``style`` (one of :data:`PROMPT_STYLES`)."""
    try:
        return _SETS[style]
    except KeyError:
        raise InvalidArgumentError(
            f"unknown prompt style {style!r}; expected one of {', '.join(PROMPT_STYLES)}"
        ) from None


def _rules(vision: bool) -> str:
    """The rules, for a vision or a text-only explorer."""
    return _TEXTS.rules.format(modality="vision" if vision else "text-only")


def exploration_prompt(scene: Scene, max_steps: int, *, vision: bool = False, style: str = "explicit") -> str:
    """The opening message of active exploration (rules, actions, layout, step budget)."""
    actions = _TEXTS.actions.format(observe=_TEXTS.observe_vision if vision else _TEXTS.observe_text)
    layout, footer = describe_layout(scene), prompt_set(style).step_footer
    return _TEXTS.exploration.format(
        rules=_rules(vision), actions=actions, layout=layout, max_steps=max_steps, step_footer=footer
    )


def passive_prompt(
    scene: Scene, history: Sequence[str] | Sequence[tuple[int, str]], *, vision: bool = False, omitted: int = 0
) -> str:
    """The opening message of passive comprehension: rules, layout and a proxy's exploration log (lines, or
    ``(number, line)`` pairs; ``omitted`` earlier entries left out are announced)."""
    numbered = [h if isinstance(h, tuple) else (i, h) for i, h in enumerate(history, 1)]
    log = "\n".join(f"{i}. {line}" for i, line in numbered)
    if omitted:
        log = f"[The first {omitted} entries are not shown.]\n{log}"
    return _TEXTS.passive.format(rules=_rules(vision), layout=describe_layout(scene), log=log)


def question_prompt(question: str, *, style: str = "explicit") -> str:
    """One downstream question (the reference's template text) with the answer format."""
    return f"{question}\n{prompt_set(style).answer_footer}"


def fog_probe_prompt(candidates: Sequence[Vec], *, style: str = "explicit") -> str:
    """The uncertainty probe: which labelled cells (relative to the start) have never been in view."""
    lines = "\n".join(f"{chr(ord('A') + i)}: ({x}, {y})" for i, (x, y) in enumerate(candidates))
    texts = prompt_set(style)
    return _TEXTS.fog_probe.format(points=lines, fog_tail=texts.fog_tail, probe_footer=texts.probe_footer)


# ---- echoes -----------------------------------------------------------------------------------------------------
ECHO_MARKERS: tuple[str, ...] = _TEXTS.echo_markers
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

"""The paper's prompts for the three reasoning settings (supplementary B.5), and the messages built from them.

* ``hierarchy`` — Fig. 15: the full MindPower Reasoning Hierarchy (``<Description>``, ``<Robot Belief>``,
  ``<Robot Desire>``, ``<Robot Intention>``, ``<Decision>``, ``<Action>``), with its two worked examples;
* ``decision`` — Fig. 17: ``<Decision>`` and ``<Action>`` only, no reasoning;
* ``think`` — Fig. 18: standard step-by-step reasoning in ``<Think>``, then ``<Decision>`` and ``<Action>``.

The texts are the figures' (typesetting escapes such as ``next\\_to`` removed). The input is either the
narration of what the robot perceived (text models) or rendered frames as image parts (vision models); dialogue
always goes in as text, as the paper's videos carry speech.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mindloop.datafiles import DataModel, load_package_data
from mindloop.models.base import Message, image_part, message
from mindloop.systems.mindpower.hierarchy import check_setting

__all__ = ["PROMPTS", "HierarchyInput", "build_messages"]


class PromptTexts(DataModel):
    """``data/prompts.yaml``: the instruction of each setting and the judges' and atom extractor's prompts."""

    intro: str
    action_spec: str
    settings: dict[str, str]
    robot_centric: str
    bpc: str
    atomic: str


TEXTS = load_package_data(PromptTexts, __package__ or "", "prompts.yaml")
PROMPTS: dict[str, str] = {
    k: v.format(intro=TEXTS.intro, action_spec=TEXTS.action_spec) for k, v in TEXTS.settings.items()
}
"""The instruction of each setting (Fig. 15, Fig. 17, Fig. 18)."""


@dataclass(frozen=True)
class HierarchyInput:
    """What the robot perceived: the narrated window (with dialogue lines), or rendered frames plus the dialogue.

    ``frames`` are PNG bytes in time order; when given they replace the narration (dialogue stays as text).
    """

    observation: str
    dialogue: tuple[tuple[str, str], ...] = ()
    frames: tuple[bytes, ...] = field(default=(), repr=False)


def _speaker(name: str) -> str:
    return name[:1].upper() + name[1:]


def build_messages(setting: str, given: HierarchyInput) -> list[Message]:
    """One user message: the setting's instruction, then the input, then ``Output:`` (as in the examples).

    >>> msgs = build_messages("decision", HierarchyInput("Alice walks into the kitchen."))
    >>> msgs[0]["content"].endswith("Input video:\\nAlice walks into the kitchen.\\n\\nOutput:")
    True
    """
    label = "Input (Video and Dialogue):" if given.dialogue else "Input video:"
    head = f"{PROMPTS[check_setting(setting)]}\n\n# Input\n{label}\n"
    if not given.frames:
        return [message("user", f"{head}{given.observation.strip()}\n\nOutput:")]
    n = len(given.frames)
    parts: list[str | dict[str, Any]] = [f"{head}{n} frame{'s' if n != 1 else ''} of the video, in time order."]
    parts.extend(image_part(f) for f in given.frames)
    tail = ""
    if given.dialogue:
        tail = "Dialogue:\n" + "\n".join(f'{_speaker(s)}: "{t}"' for s, t in given.dialogue) + "\n\n"
    parts.append(f"{tail}Output:")
    return [message("user", *parts)]

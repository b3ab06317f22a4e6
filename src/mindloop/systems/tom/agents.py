"""Ask a model a ToMi or Hi-ToM question.

The Hi-ToM prompt follows the dataset's evaluation prompt (Wu et al., Findings of EMNLP 2023): the story, the
four assumptions the authors give every model, the question, and lettered choices; the model is asked to give
the answer first and then explain it. ToMi ships no prompt, so mindloop asks the same multiple-choice way
without the Hi-ToM assumptions. The choices are the containers the story names, in order of first mention. The
reply is read by the one choice reader (:func:`mindloop.bench.reader.read_choice`): an option letter in any form
or a container name; a reply naming none, or several, is a failure with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence

from mindloop.models.base import Message, message
from mindloop.models.replies import letters
from mindloop.systems.tom.data import RELEASES

HITOM_ASSUMPTIONS = RELEASES.hitom_assumptions
"""The assumptions Hi-ToM's authors state to every model (the dataset's own instructions)."""

_INSTRUCTION = RELEASES.hitom_instruction
"""Hi-ToM's chain-of-thought instruction (prompting type ``CoTP``), also mindloop's default."""

_VP_INSTRUCTION = RELEASES.hitom_vp_instruction
"""Hi-ToM's vanilla instruction (prompting type ``VP``)."""


def build_prompt(
    story: Sequence[str], question: str, choices: Sequence[str], *, hitom: bool, prompting_type: str | None = None
) -> list[Message]:
    """The chat messages for one question: instruction, story lines, (Hi-ToM assumptions), question, choices.

    ``prompting_type`` is Hi-ToM's: ``VP`` items get the release's vanilla instruction (answer without
    explanation), every other item the chain-of-thought one.
    """
    options = ", ".join(f"{letter}. {choice}" for letter, choice in zip(letters(len(choices)), choices, strict=True))
    parts = [_VP_INSTRUCTION if prompting_type == "VP" else _INSTRUCTION, "", "Story:", *story, ""]
    if hitom:
        parts += [HITOM_ASSUMPTIONS, ""]
    parts += [f"Question: {question}", f"Choices: {options}"]
    return [message("user", "\n".join(parts))]

"""Ask a model a ToMi or Hi-ToM question, and read its answer back however the model chose to phrase it.

The Hi-ToM prompt follows the dataset's evaluation prompt (Wu et al., Findings of EMNLP 2023): the story, the
four assumptions the authors give every model, the question, and lettered choices; the model is asked to give
the answer first and then explain it. ToMi ships no prompt, so mindloop asks the same multiple-choice way
without the Hi-ToM assumptions. The choices are the containers the story names, in order of first mention.

The parser accepts what models really produce: an option letter (``L``, ``(B)``, ``C.``), a container name
(``blue_pantry``, ``blue pantry``, ``the Blue Pantry``), either inside a sentence, after ``Answer:`` or on the
first line. When the reply names no choice, or names several with nothing to tell which is the answer, the
reply is unparseable and the sample is recorded as a failure with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mindloop.models.base import Message, message
from mindloop.models.replies import letters, strip_markdown

__all__ = ["HITOM_ASSUMPTIONS", "ParsedAnswer", "build_prompt", "letters", "parse_answer", "strict_answer"]

HITOM_ASSUMPTIONS = (
    "Note: You should assume the following. (1) An agent witnesses everything and every movement before exiting "
    "a location. (2) An agent A can infer another agent B's mental state only if A and B have been in the same "
    "location, or have private or public interactions. (3) Note that every agent tends to lie. What a character "
    "tells others doesn't affect his actual belief. An agent tends to trust an agent that exited the room later "
    "than himself. The exit order is known to all agents. (4) Agents in private communications know that others "
    "won't hear them, but they know that anyone can hear any public claims."
)
"""The assumptions Hi-ToM's authors state to every model (the dataset's own instructions)."""

_INSTRUCTION = (
    "Read the following story and answer the multiple-choice question. Think step-by-step. "
    "Provide the answer first, and then explain it."
)
"""Hi-ToM's chain-of-thought instruction (prompting type ``CoTP``), also mindloop's default."""

_VP_INSTRUCTION = (
    "Read the following story and answer the multiple-choice question. Please provide answer without explanations."
)
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


@dataclass(frozen=True)
class ParsedAnswer:
    """What a reply answers, read two ways, as evaluation harnesses report it.

    ``choice`` is the flexible extraction (the headline): a cue such as ``the answer is`` and the line after it,
    markdown emphasis, ``choice is X``, a letter or a whole choice name anywhere, refusing to guess between
    several. ``strict`` is the strict extraction: the reply's first line is exactly a letter, ``X. name`` or a
    choice name, and nothing else. ``how`` says how the flexible one was found, or why it found nothing.
    """

    choice: str | None
    how: str
    strict: str | None = None


_CUE = re.compile(
    r"(?:(?:final|correct|right|best)\s+)?(?:answer|choice|option)"
    r"(?:\s+to\s+(?:the|this)\s+[\w\s-]{0,40}?question)?\s*(?:is|would\s+be|:|=)\s*:?\s*",
    re.IGNORECASE,
)
_LEADING_LETTER = re.compile(r"^\W*?(?:\(([A-Z])\)|([A-Z])(?:[.):,]|\s*$))")
_INLINE_LETTER = re.compile(r"(?:option|choice)\s*\(?([A-Z])\)?\b", re.IGNORECASE)


def _normal(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text.lower()).strip()


def _named(text: str, choices: Sequence[str]) -> list[str]:
    """The choices named in ``text`` as whole names, in order of first mention.

    Longer names are matched first and their spans masked, so ``crate`` is not found inside ``red_crate``;
    spaces, underscores and hyphens are interchangeable (``blue pantry`` names ``blue_pantry``).
    """
    low = f" {_normal(text)} "
    taken = [False] * len(low)
    found = []
    for choice in sorted(set(choices), key=lambda c: (-len(_normal(c)), c)):
        first = None
        for m in re.finditer(rf"(?<![a-z0-9]){re.escape(_normal(choice))}(?![a-z0-9])", low):
            if any(taken[m.start() : m.end()]):
                continue
            taken[m.start() : m.end()] = [True] * (m.end() - m.start())
            first = m.start() if first is None else first
        if first is not None:
            found.append((first, choice))
    return [c for _, c in sorted(found)]


def _from_segment(segment: str, choices: Sequence[str]) -> str | None:
    """The one choice a short segment names: by a letter at its start, an 'option X', or a single name."""
    options = dict(zip(letters(len(choices)), choices, strict=True))
    named = _named(segment, choices)
    m = _LEADING_LETTER.match(segment.strip())
    letter = m and (m.group(1) or m.group(2))
    if letter and letter in options:
        letter_choice = options[letter]
        # "A. green_drawer": the letter and the name agree; a lone letter stands on its own.
        if not named or named[0] == letter_choice:
            return letter_choice
    m = _INLINE_LETTER.search(segment)
    if m and m.group(1).upper() in options and not named:
        return options[m.group(1).upper()]
    if len(named) == 1:
        return named[0]
    return None


def strict_answer(reply: str, choices: Sequence[str]) -> str | None:
    """The strict extraction: the first non-empty line is exactly ``B``, ``(B)``, ``B.``, ``B. name`` or a name.

    >>> strict_answer("B. red_box\\nbecause ...", ["green_drawer", "red_box"])
    'red_box'
    >>> strict_answer("The answer is B.", ["green_drawer", "red_box"]) is None
    True
    """
    line = next((line.strip() for line in reply.splitlines() if line.strip()), "")
    options = dict(zip(letters(len(choices)), choices, strict=True))
    names = {_normal(c): c for c in choices}
    m = re.fullmatch(r"\(?([A-Z])\)?\.?(?:\s+(.+?))?\.?", line)
    if m and m.group(1) in options:
        rest = m.group(2)
        return options[m.group(1)] if rest is None or names.get(_normal(rest)) == options[m.group(1)] else None
    return names.get(_normal(line.rstrip(".")))


def _after_cues(text: str, choices: Sequence[str]) -> str | None:
    """The choice after the last answer cue that names one (the cue's line, or the next line when it is empty)."""
    for cue in reversed(list(_CUE.finditer(text))):
        rest = text[cue.end() :]
        line, _, after = rest.partition("\n")
        if not line.strip():
            line = next((x for x in after.splitlines() if x.strip()), "")
        if (choice := _from_segment(line, choices)) is not None:
            return choice
    return None


def parse_answer(reply: str, choices: Sequence[str]) -> ParsedAnswer:
    """Read the choice a model's reply gives (flexible, the headline) and its strict reading.

    >>> parse_answer("L. blue_pantry\\n\\nExplanation: ...", ["red_box"] * 11 + ["blue_pantry"]).choice
    'blue_pantry'
    >>> parse_answer("I think it is in the green drawer.", ["green_drawer", "red_box"]).choice
    'green_drawer'
    >>> parse_answer("The answer is **B**.", ["green_drawer", "red_box"]).choice
    'red_box'
    >>> parse_answer("It moved from the red_box to the green_drawer.", ["green_drawer", "red_box"]).choice is None
    True
    """
    text = strip_markdown(reply).strip()
    if not text:
        return ParsedAnswer(None, "empty reply")
    strict = strict_answer(text, choices)
    if (choice := _after_cues(text, choices)) is not None:
        return ParsedAnswer(choice, "after an answer cue", strict)
    first_line = next(line for line in text.splitlines() if line.strip())
    if (choice := _from_segment(first_line, choices)) is not None:
        return ParsedAnswer(choice, "first line", strict)
    named = _named(text, choices)
    if len(named) == 1:
        return ParsedAnswer(named[0], "only choice named", strict)
    if not named:
        return ParsedAnswer(None, "names none of the choices")
    return ParsedAnswer(None, f"names several choices ({', '.join(named)}) without saying which is the answer")

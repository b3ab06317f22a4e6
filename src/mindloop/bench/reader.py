"""Read which option of a multiple-choice question a reply names, the way a person reads it: one reader for every
multiple-choice set.

A reply names an option by its label, in any of the forms people write (``b``, ``B``, ``(b)``, ``b)``, ``b.``,
``Answer: b``, ``Answer:b``, ``The answer is (b).``, ``option b``, and ``Answer:<b>)``, a template's brackets
copied), or by the option's own text (``blue_pantry``,
``the Blue Pantry``, ``Mark thinks that the salmon is not inside the microwave``). Labels are read only when the
question showed them (``labels``), case-insensitively, and only in those forms: a leading ``a`` that begins a
sentence is an article, not option (a). The answer is looked for after the last answer cue (``answer is``,
``Answer:``, ``the correct option would be``), then on the first line, then anywhere as the one option named.

A reply that names two options (``(a) or (b)``, two options' texts with nothing to choose between them) is
ambiguous, and one that names none is unread: either is no answer, never a guess. There is no first-character
fallback. :func:`read_choice` also gives the strict reading (the first line is exactly a label, ``B. name`` or an
option's text), which evaluation harnesses report beside the flexible one.

>>> read_choice("Answer: b", ["apple", "pear"], "ab").choice
'pear'
>>> read_choice("The answer is (B).", ["apple", "pear"], "ab").choice
'pear'
>>> read_choice("a) or b)", ["apple", "pear"], "ab").how
'names several choices (apple, pear) without saying which is the answer'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mindloop.models.replies import strip_markdown


@dataclass(frozen=True)
class Reading:
    """What a reply answers: ``choice`` (the flexible reading, ``None``: unread or ambiguous), ``how`` it was
    found or why nothing was, and ``strict`` (the strict reading of the first line)."""

    choice: str | None
    how: str
    strict: str | None = None


_CUE = re.compile(
    r"(?:(?:final|correct|right|best)\s+)?(?:answer|choice|option)"
    r"(?:\s+to\s+(?:the|this)\s+[\w\s-]{0,40}?question)?\s*(?:is|would\s+be|:|=)\s*:?\s*",
    re.IGNORECASE,
)


def _normal(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text.lower()).strip().rstrip(".!?;:, ")


class _Options:
    """A question's options, their labels as shown, and the label forms to look for."""

    def __init__(self, choices: Sequence[str], labels: Sequence[str]) -> None:
        self.choices = list(choices)
        self.by_label = {lab.lower(): c for lab, c in zip(labels, choices, strict=False)}
        alt = "|".join(re.escape(lab) for lab in sorted(self.by_label, key=len, reverse=True)) or r"(?!x)x"
        # "<a>)": the label in the angle brackets of a template such as BigToM's 'Answer:<option>)<answer>'
        self.leading = re.compile(rf"^\W*?(?:\(({alt})\)|<({alt})>\)?|({alt})(?:[.):,]|\s*$))", re.IGNORECASE)
        self.inline = re.compile(
            rf"(?:(?:option|choice)\s*\(?({alt})\)?(?!\w)|\(({alt})\)|<({alt})>\)?|(?<!\w)({alt})\))",
            re.IGNORECASE,
        )
        self.strict = re.compile(rf"\(?({alt})(?:(?:[.)]|\s)\s*(.+?))?[.)]?\.?", re.IGNORECASE)

    def label(self, m: re.Match[str]) -> str:
        return self.by_label[next(g for g in m.groups() if g).lower()]

    def named(self, text: str) -> list[str]:
        """The options named in ``text`` by their whole text, in order of first mention; longer texts first, their
        spans masked (``crate`` is not found inside ``red_crate``); spaces, ``_`` and ``-`` are interchangeable."""
        low = f" {_normal(text)} "
        taken = [False] * len(low)
        found = []
        for choice in sorted(set(self.choices), key=lambda c: (-len(_normal(c)), c)):
            first = None
            for m in re.finditer(rf"(?<![a-z0-9]){re.escape(_normal(choice))}(?![a-z0-9])", low):
                if any(taken[m.start() : m.end()]):
                    continue
                taken[m.start() : m.end()] = [True] * (m.end() - m.start())
                first = m.start() if first is None else first
            if first is not None:
                found.append((first, choice))
        return [c for _, c in sorted(found)]

    def segment(self, segment: str) -> str | None:
        """The one option a short segment names: by a label at its start (its text, if named too, agreeing), a
        label form inside it (``option b``, ``(b)``, ``b)``), or one option's text; two labels, or a label with
        another option's text (``<b>)`` and a's text, a real 1.5B reply to BigToM): none."""
        by_forms = {self.label(m) for m in self.inline.finditer(segment)}
        named = self.named(segment)
        m = self.leading.match(segment.strip())
        if m:
            by_forms.add(self.label(m))
        if len(by_forms) > 1:
            return None
        if by_forms and named and next(iter(by_forms)) not in named:  # the key names one option, the text another
            return None
        if m and (not named or named[0] == self.label(m)):
            return self.label(m)
        if by_forms and not named:
            return by_forms.pop()
        return named[0] if len(named) == 1 else None


_ANSWER_PREFIX = re.compile(r"^answer\s*:\s*", re.IGNORECASE)


def strict_choice(reply: str, choices: Sequence[str], labels: Sequence[str] = ()) -> str | None:
    """The strict reading: the first non-empty line, after an ``Answer:`` it may begin with (the form the
    MMToM-QA and BigToM prompts ask for), is exactly a label (``B``, ``(b)``, ``B.``, ``b)``), a label and its own
    option's text (``B. red_box``, ``b)red_box``), or an option's text.

    >>> strict_choice("B. red_box\\nbecause ...", ["green_drawer", "red_box"], "AB")
    'red_box'
    >>> strict_choice("Answer:b)red_box", ["green_drawer", "red_box"], "ab")
    'red_box'
    >>> strict_choice("The answer is B.", ["green_drawer", "red_box"], "AB") is None
    True
    """
    options = _Options(choices, labels)
    line = next((x.strip() for x in strip_markdown(reply).splitlines() if x.strip()), "")
    line = _ANSWER_PREFIX.sub("", line, count=1)  # "Answer: b", the form the MMToM-QA and BigToM prompts ask for
    names = {_normal(c): c for c in choices}
    m = options.strict.fullmatch(line)
    if m:
        picked = options.by_label[m.group(1).lower()]
        rest = m.group(2)
        return picked if rest is None or not _normal(rest) or names.get(_normal(rest)) == picked else None
    return names.get(_normal(line))


def _after_cues(text: str, options: _Options) -> str | None:
    """The option after the last answer cue that names one (the cue's line, or the next line when it is empty)."""
    for cue in reversed(list(_CUE.finditer(text))):
        line, _, after = text[cue.end() :].partition("\n")
        if not line.strip():
            line = next((x for x in after.splitlines() if x.strip()), "")
        if (choice := options.segment(line)) is not None:
            return choice
    return None


def read_choice(reply: str, choices: Sequence[str], labels: Sequence[str] = ()) -> Reading:
    """Read the option ``reply`` names among ``choices`` (shown with ``labels``, in order; empty: shown without),
    flexibly (the headline) and strictly (:func:`strict_choice`).

    >>> read_choice("L. blue_pantry\\n\\nExplanation: ...", ["red_box"] * 11 + ["blue_pantry"], "ABCDEFGHIJKL").choice
    'blue_pantry'
    >>> read_choice("I think it is in the green drawer.", ["green_drawer", "red_box"]).choice
    'green_drawer'
    >>> read_choice("It moved from the red_box to the green_drawer.", ["green_drawer", "red_box"]).choice is None
    True
    """
    text = strip_markdown(reply).strip()
    if not text:
        return Reading(None, "empty reply")
    options = _Options(choices, labels)
    strict = strict_choice(text, choices, labels)
    if (choice := _after_cues(text, options)) is not None:
        return Reading(choice, "after an answer cue", strict)
    first_line = next(x for x in text.splitlines() if x.strip())
    if (choice := options.segment(first_line)) is not None:
        return Reading(choice, "first line", strict)
    named = list(dict.fromkeys([options.label(m) for m in options.inline.finditer(text)] + options.named(text)))
    if len(named) == 1:
        return Reading(named[0], "only choice named", strict)
    if not named:
        return Reading(None, "names none of the choices")
    return Reading(None, f"names several choices ({', '.join(named)}) without saying which is the answer")

"""ToMi and Hi-ToM stories in the numbered-line format: reading, turning sentences into events, answering.

Format (Le et al., EMNLP 2019; Hi-ToM, Wu et al., Findings of EMNLP 2023): each example is a story of lines
``N sentence`` numbered from 1, ending with one question line ``N question<TAB>answer<TAB>1``; the next example
starts again at 1. Turning the sentences into witnessed events (who witnesses what, under each dataset's
:class:`StoryPolicy`) is :mod:`~mindloop.worlds.stories.narration`, re-exported here; the beliefs themselves are
kept by the :class:`~mindloop.beliefs.Tracker`, and every answer is read from its store (:func:`answer_question`).

Sentences the parser does not know raise :class:`~mindloop.errors.ParseError` naming the file, line number and
text; nothing is skipped silently. The only unnumbered lines accepted are the known separators and instructions
that appear in Hi-ToM exports (``***``, ``Story:``, ``Read the following story …``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mindloop.beliefs import WORLD, Chain, Tracker
from mindloop.datafiles import iter_text_lines
from mindloop.errors import ParseError
from mindloop.worlds.stories.narration import (
    CANONICAL_RELATIONS,
    IN,
    POLICIES,
    PREAMBLE,
    StoryFormat,
    StoryPolicy,
    narrate,
    story_containers,
    story_policy,
    track_story,
)
from mindloop.worlds.stories.narration import NAME_PATTERN as _NAME
from mindloop.worlds.stories.narration import THING_PATTERN as _THING

__all__ = [
    "CANONICAL_RELATIONS",
    "HITOM_TYPES",
    "IN",
    "POLICIES",
    "TOMI_TYPES",
    "Example",
    "HiToMInfo",
    "Question",
    "StoryFormat",
    "StoryPolicy",
    "ToMiTrace",
    "answer_question",
    "detect_format",
    "iter_story_file",
    "narrate",
    "parse_question",
    "read_examples",
    "read_story_file",
    "story_containers",
    "story_policy",
    "story_sentences",
    "track_story",
]

QuestionKind = Literal["reality", "memory", "belief"]

TOMI_TYPES: tuple[str, ...] = ("reality", "memory", "first_order", "second_order")
"""ToMi's question types, in report order."""
HITOM_TYPES: tuple[str, ...] = tuple(f"order_{k}" for k in range(5))
"""Hi-ToM's question types (the depth of the chain asked about), in report order."""

# -- questions ------------------------------------------------------------------------------------------------
_Q_REALITY = re.compile(rf"^Where is the (?P<obj>{_THING}) really\?$")
_Q_MEMORY = re.compile(rf"^Where was the (?P<obj>{_THING}) at the beginning\?$")
_Q_LOOK = re.compile(rf"^Where will (?P<a>{_NAME}) look for the (?P<obj>{_THING})\?$")
_Q_SEARCH = re.compile(rf"^Where does (?P<a>{_NAME}) think that (?P<b>{_NAME}) searches for the (?P<obj>{_THING})\?$")
_Q_THINK = re.compile(
    rf"^Where does (?P<a>{_NAME}) (?:really )?think (?:that )?(?P<rest>(?:{_NAME} thinks (?:that )?)*)"
    rf"the (?P<obj>{_THING}) is\?$"
)


@dataclass(frozen=True, slots=True)
class Question:
    """A parsed question: what kind, whose belief (``chain``), about which object, and its gold answer."""

    text: str
    answer: str
    kind: QuestionKind
    chain: Chain
    obj: str
    qtype: str


@dataclass(frozen=True, slots=True)
class ToMiTrace:
    """One line of a ToMi ``.trace`` file: how ToMi's generator built the story and what its question tests.

    ``story_type`` is ``true_belief``, ``false_belief`` or ``second_order_false_belief``; ``question_type`` is
    ``reality``, ``memory`` or ``{first,second}_order_{0,1}_{tom,no_tom}`` (``tom`` when the answer differs from
    the object's real place); ``events`` are the generator's steps (``enter_agent_0``, ``agent_1_exits``, ...).
    """

    story_type: str
    question_type: str
    events: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HiToMInfo:
    """The fields Hi-ToM's released JSON gives each question beside story, question and answer."""

    sample_id: int
    question_order: int
    deception: bool
    story_length: int
    prompting_type: str
    choices: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Example:
    """One story and its question, with where it came from (file and line of its first sentence).

    ``trace`` is set when a ToMi ``.trace`` file lay beside the story file; ``hitom`` when the example came from
    Hi-ToM's released JSON (then ``line`` is the item's position in its ``data`` list).
    """

    source: str
    line: int
    sentences: tuple[tuple[int, str], ...]
    question: Question
    question_line: int
    trace: ToMiTrace | None = None
    hitom: HiToMInfo | None = None

    @property
    def story_text(self) -> str:
        """The story as numbered lines (numbered from 1, as in the file format), for display."""
        return "\n".join(f"{i} {s}" for i, (_, s) in enumerate(self.sentences, 1))


def parse_question(text: str, answer: str, fmt: StoryFormat) -> Question | None:
    """Parse a question line; ``None`` if it is not a known question form.

    ToMi question types are ``reality``, ``memory``, ``first_order`` and ``second_order``; Hi-ToM's are
    ``order_0`` … ``order_4`` (the depth of the chain asked about).
    """
    m = _Q_REALITY.match(text)
    if m:
        return Question(text, answer, "reality", WORLD, m["obj"], TOMI_TYPES[0] if fmt == "tomi" else HITOM_TYPES[0])
    m = _Q_MEMORY.match(text)
    if m:
        return Question(text, answer, "memory", WORLD, m["obj"], TOMI_TYPES[1])
    chain: Chain
    m = _Q_LOOK.match(text)
    if m:
        chain = (m["a"],)
    elif (m := _Q_SEARCH.match(text)) is not None:
        chain = (m["a"], m["b"])
    elif (m := _Q_THINK.match(text)) is not None:
        inner = re.findall(rf"({_NAME}) thinks", m["rest"])
        chain = (m["a"], *inner)
    else:
        return None
    qtype = TOMI_TYPES[len(chain) + 1] if fmt == "tomi" and len(chain) <= 2 else f"order_{len(chain)}"
    return Question(text, answer, "belief", chain, m["obj"], qtype)


def detect_format(lines: Iterable[str]) -> StoryFormat:
    """Guess ``hitom`` or ``tomi`` from the phrasing of the questions and sentences in ``lines``."""
    for line in lines:
        if " thinks " in line or "really think " in line or "publicly claimed" in line or "privately told" in line:
            return "hitom"
        if "made no movement" in line:
            return "hitom"
    return "tomi"


def read_examples(path: str | Path, fmt: StoryFormat | None = None) -> list[Example]:
    """Read every example of a ToMi/Hi-ToM numbered-line file.

    ``fmt=None`` detects the format. Raises :class:`ParseError` naming the line for anything malformed.
    """
    return read_story_file(path, fmt)[1]


def story_sentences(text: str, source: str = "<story>") -> tuple[tuple[int, str], ...]:
    """The numbered sentences of one story given as a block of text (Hi-ToM's JSON ``story`` field).

    Returns ``(number, sentence)`` pairs. Blank lines and the known instruction lines (Hi-ToM's
    ``Read the following story …``) are skipped; any other unnumbered line raises :class:`ParseError`.

    >>> story_sentences("Read the following story and answer.\\n1 Ann entered the den.\\n2 Ann saw a dog.\\n\\n")
    ((1, 'Ann entered the den.'), (2, 'Ann saw a dog.'))
    """
    out: list[tuple[int, str]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or PREAMBLE.match(stripped):
            continue
        head, _, body = stripped.partition(" ")
        if not head.isdigit() or not body.strip():
            raise ParseError("expected a numbered line 'N sentence' in the story", source=source, text=line)
        if out and int(head) <= out[-1][0]:
            raise ParseError(f"story line {head} comes after line {out[-1][0]}", source=source, text=line)
        out.append((int(head), body.strip()))
    if not out:
        raise ParseError("the story has no numbered sentences", source=source)
    return tuple(out)


def read_story_file(path: str | Path, fmt: StoryFormat | None = None) -> tuple[StoryFormat, list[Example]]:
    """Like :func:`read_examples`, also returning the format used (detected when ``fmt`` is ``None``)."""
    fmt, examples = iter_story_file(path, fmt)
    return fmt, list(examples)


def iter_story_file(path: str | Path, fmt: StoryFormat | None = None) -> tuple[StoryFormat, Iterator[Example]]:
    """The format and a lazy iterator over the examples of a numbered-line file: the file is read line by line as
    the examples are taken, so memory does not grow with its size (``fmt=None`` reads it once more, first, to detect
    the format).

    UTF-8 with or without a byte-order mark; a line that is not UTF-8 text, or anything malformed, raises
    :class:`ParseError` naming the file and line when the iterator reaches it.
    """
    p = Path(path)
    if fmt is None:
        fmt = detect_format(line for _, line in iter_text_lines(p))
    return fmt, _examples(p, fmt)


def _examples(p: Path, fmt: StoryFormat) -> Iterator[Example]:
    source = str(p)
    story: list[tuple[int, str]] = []
    start = 0
    last_n = 0
    found = False
    for lineno, line in iter_text_lines(p):
        head, _, body = line.strip().partition(" ")
        if not head.isdigit():
            if not line.strip() or PREAMBLE.match(line.strip()):
                continue
            raise ParseError("expected a numbered line 'N sentence'", source=source, line=lineno, text=line)
        n = int(head)
        body = body.strip(" ")
        if n == 1 or n <= last_n:
            if story:
                raise ParseError(
                    "a new story starts before the previous one ended with a question",
                    source=source,
                    line=lineno,
                    text=line,
                )
            start = lineno
        last_n = n
        if "\t" in body:
            parts = [x.strip() for x in body.split("\t")]
            if len(parts) < 2 or not parts[1]:
                raise ParseError("question line without an answer after a tab", source=source, line=lineno, text=line)
            q = parse_question(parts[0], parts[1], fmt)
            if q is None:
                raise ParseError("unknown question form", source=source, line=lineno, text=parts[0])
            if not story:
                raise ParseError("question without a story", source=source, line=lineno, text=line)
            found = True
            yield Example(source, start, tuple(story), q, lineno)
            story = []
            last_n = 0
        else:
            story.append((lineno, body))
    if story:
        raise ParseError("file ends with a story that has no question", source=source, line=story[-1][0])
    if not found:
        raise ParseError(
            "no examples found (expected numbered lines ending in a tab-separated question)", source=source
        )


def answer_question(tracker: Tracker, question: Question) -> str | None:
    """Answer from the tracker's store.

    Reality: the world's value now. Memory: the first value the world held. Beliefs: the chain's value; a chain
    that holds nothing about the object falls back to its outer chain (an agent assumes others know what it
    knows), and finally to the world.
    """
    obj = question.obj
    if question.kind == "reality":
        return tracker.world(obj, IN)
    if question.kind == "memory":
        past = tracker.history(WORLD, obj, IN)
        return past[0].value if past else None
    chain = question.chain
    while chain:
        held = tracker.value(chain, obj, IN)
        if held is not None:
            return held
        chain = chain[:-1]
    return tracker.world(obj, IN)

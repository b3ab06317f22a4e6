"""An independent check of ToMi gold answers against what the story shows, without the belief tracker.

ToMi's released gold comes from its generator's bookkeeping, not from the story text, and the two can disagree:
the generator builds a third agent's entrance after every other action and only then inserts it earlier in the
story, so at that point the object is already in its final container and the observers it updates are the two
main agents as listed at the end (see docs/tom.md). This module re-derives each answer from the story alone, with
its own sentence patterns and bookkeeping (it shares no code with the reader's narrator or with
:class:`~mindloop.beliefs.Tracker`), under the story's witness semantics:

* who witnesses an event is who is in the room where it happens; witnesses of an event all know that the others
  present saw it too, so every first- and second-order belief among them takes the new place;
* a narrated ``The O is in the C.`` happens in the room of the agent who next moves O (ToMi's generator only
  narrates the object where its two main agents are), else in the room entered last;
* entering a room shows everyone there where the room's objects are (ToMi's entrance policy).

A question whose answer the story does not determine (a belief never formed) or whose story uses a sentence this
check does not model is left unchecked rather than guessed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from mindloop.worlds.stories.tomi import Example

_W = r"[\w-]+"
_S = re.compile
_ENTER = _S(rf"^({_W}) entered the ({_W})\.?$")
_IS_IN = _S(rf"^({_W})(?: and ({_W}))? (?:is|are) in the ({_W})\.?$")
_EXIT = _S(rf"^({_W}) (?:exited|left|went out of) the ({_W})\.?$")
_PUT = _S(rf"^The ({_W}) (?:is|are) in the ({_W})\.?$")
_MOVE = _S(rf"^({_W}) moved the ({_W}) to the ({_W})\.?$")
_NOISE = _S(rf"^{_W} (?:likes|dislikes|loves|hates) the {_W}\.?$|^{_W} saw an? {_W}\.?$")

_Q_REALITY = _S(rf"^Where is the ({_W}) really\?$")
_Q_MEMORY = _S(rf"^Where was the ({_W}) at the beginning\?$")
_Q_FIRST = _S(rf"^Where will ({_W}) look for the ({_W})\?$")
_Q_SECOND = _S(rf"^Where does ({_W}) think that ({_W}) searches for the ({_W})\?$")


class _UnsupportedError(Exception):
    """A sentence outside the forms this check models."""


def _step(text: str) -> tuple[str, ...]:
    """``(kind, slots...)`` for one sentence; raises _UnsupportedError for anything else."""
    if m := _PUT.match(text):
        return ("put", m[1], m[2])
    if m := _MOVE.match(text):
        return ("move", m[1], m[2], m[3])
    if m := _EXIT.match(text):
        return ("exit", m[1])
    if m := _ENTER.match(text):
        return ("enter", m[2], m[1])
    if m := _IS_IN.match(text):
        return ("enter", m[3], *[a for a in (m[1], m[2]) if a])
    if _NOISE.match(text):
        return ("noise",)
    raise _UnsupportedError(text)


@dataclass
class _Story:
    """The story's state and every agent's first- and second-order belief, kept by hand."""

    room: dict[str, str] = field(default_factory=dict)  # agent -> room
    container_room: dict[str, str] = field(default_factory=dict)
    where: dict[str, str] = field(default_factory=dict)  # object -> container
    first: dict[str, str] = field(default_factory=dict)  # object -> first container
    belief: dict[tuple[str, ...], dict[str, str]] = field(default_factory=dict)
    last_entered: str | None = None

    def present(self, room: str | None) -> list[str]:
        return [a for a, r in self.room.items() if r == room]

    def seen(self, obj: str, con: str, room: str | None) -> None:
        """Everyone in ``room`` sees ``obj`` in ``con``, and knows the others there saw it."""
        here = self.present(room)
        for a in here:
            self.belief.setdefault((a,), {})[obj] = con
            for b in here:
                if a != b:
                    self.belief.setdefault((a, b), {})[obj] = con


def _put_room(steps: Sequence[tuple[str, ...]], at: int, obj: str) -> str | None:
    """The room of the agent who next moves ``obj`` after step ``at`` (replaying entrances and exits)."""
    room: dict[str, str | None] = {}
    for i, step in enumerate(steps):
        if step[0] == "enter":
            for a in step[2:]:
                room[a] = step[1]
        elif step[0] == "exit":
            room[step[1]] = None
        elif step[0] == "move" and i > at and step[2] == obj:
            return room.get(step[1])
        elif step[0] == "put" and i > at and step[1] == obj:
            return None
    return None


def _replay(texts: Sequence[str]) -> _Story:
    steps = [_step(t) for t in texts]
    story = _Story()
    for i, step in enumerate(steps):
        kind = step[0]
        if kind == "enter":
            room = step[1]
            for a in step[2:]:
                story.room[a] = room
            story.last_entered = room
            for obj, con in story.where.items():
                if story.container_room.get(con) == room:
                    story.seen(obj, con, room)
        elif kind == "exit":
            story.room.pop(step[1], None)
        elif kind == "put":
            obj, con = step[1], step[2]
            where = story.container_room.get(con) or _put_room(steps, i, obj) or story.last_entered
            if where is not None:
                story.container_room.setdefault(con, where)
            story.where[obj] = con
            story.first.setdefault(obj, con)
            story.seen(obj, con, story.container_room.get(con))
        elif kind == "move":
            agent, obj, con = step[1], step[2], step[3]
            mover_room = story.room.get(agent)
            if mover_room is not None:
                story.container_room.setdefault(con, mover_room)
            story.where[obj] = con
            story.seen(obj, con, mover_room)
    return story


def _answer(story: _Story, question: str) -> str | None:
    if m := _Q_REALITY.match(question):
        return story.where.get(m[1])
    if m := _Q_MEMORY.match(question):
        return story.first.get(m[1])
    if m := _Q_FIRST.match(question):
        return story.belief.get((m[1],), {}).get(m[2])
    if m := _Q_SECOND.match(question):
        return story.belief.get((m[1], m[2]), {}).get(m[3])
    return None


def _story(texts: Sequence[str]) -> _Story | None:
    try:
        return _replay(texts)
    except _UnsupportedError:
        return None


def story_answer(sentences: Sequence[str], question: str) -> str | None:
    """The answer the story itself gives to a ToMi question, or ``None`` when it gives none (or is not modelled).

    >>> s = ["Ann entered the den.", "Bo entered the den.", "The pen is in the box.", "Ann exited the den.",
    ...      "Bo moved the pen to the bag."]
    >>> story_answer(s, "Where will Ann look for the pen?"), story_answer(s, "Where is the pen really?")
    ('box', 'bag')
    """
    story = _story(sentences)
    return None if story is None else _answer(story, question)


@dataclass(frozen=True, slots=True)
class Finding:
    """A question whose released gold differs from what the story shows."""

    example: Example
    story: str


@dataclass(frozen=True, slots=True)
class AuditReport:
    """How many questions the check could judge, and those whose gold contradicts the story."""

    checked: int
    contradictions: tuple[Finding, ...]

    @property
    def contradicted(self) -> int:
        """The number of questions whose gold contradicts the story's witness semantics."""
        return len(self.contradictions)


class Auditor:
    """:func:`audit_examples` one example at a time, for a stream: only the contradictions are kept, and the last
    few stories' replays (questions about the same story usually follow one another)."""

    def __init__(self, cache: int = 64) -> None:
        self.checked = 0
        self.found: list[Finding] = []
        self._story = functools.lru_cache(maxsize=cache)(_story)

    def add(self, ex: Example) -> None:
        """Judge one question (left unchecked when the story does not determine its answer)."""
        story = self._story(tuple([s for _, s in ex.sentences]))
        answer = None if story is None else _answer(story, ex.question.text)
        if answer is None:
            return
        self.checked += 1
        if answer != ex.question.answer:
            self.found.append(Finding(ex, answer))

    def report(self) -> AuditReport:
        """What has been judged so far."""
        return AuditReport(self.checked, tuple(self.found))


def audit_examples(examples: Iterable[Example]) -> AuditReport:
    """Judge every ToMi question the story determines; collect those whose gold answer differs from the story's."""
    auditor = Auditor()
    for ex in examples:
        auditor.add(ex)
    return auditor.report()

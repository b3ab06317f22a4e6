"""The ``exploretom`` benchmark: ExploreToM (Sclar et al., 2024) read from its released data sample, and its audit.

**The release.** ``ExploreToM-data-sample.csv`` of the Hugging Face dataset ``facebook/ExploreToM`` (CC BY-NC 4.0;
not shipped with mindloop), written by ``compute_statistics.py`` of facebookresearch/ExploreToM
(``dump_all_infilled_stories``; pandas ``to_csv``, so a leading unnamed index column): one question a row with
``story_structure`` (the generated story's plain sentences), ``infilled_story`` (the story rewritten as prose),
``question``, ``expected_answer``, ``qprop=params`` (a Python tuple: the people asked about, the entity and the
relation, e.g. ``(None, 'silver letter opener', 'memory-container_location')``), ``qprop=nth_order`` (-1 for
memory and factual questions, 1, 2), ``qprop=non_unique_mental_state`` (whether the question is interesting: the
answer differs between minds), ``sprop=…`` story properties and ``param=…`` search settings (``param=story_type``,
the action set: ``tomi``, ``tomi+room-changes``, …).

**Protocol** (``--agent model``): the story (``--opt story=infilled``, the default, or ``structure``) and the
question, asking for a short answer. The release grades a reply by whether the expected answer occurs in it,
lower-cased (``_precomputations``: ``expected_answer in model_response.lower()``); that reading is kept as
``correct_release``. A question whose answers are a fixed pair (``yes``/``no``, ``knows about it``/``does not
know about it``) is read as a choice between them by the choice reader (the release's rule, beside it, reads "I
don't know" as ``no``: a deviation); the others by the release's rule. Accuracy per order, per relation (question
type), per story type and per interestingness. The set is a data-driven declaration (:data:`EXPLORETOM`).

**Symbolic agent.** The tracker reads ``story_structure`` when every sentence is one of the ToMi-like forms
(``X entered the R.``, ``X left the R.``, ``X moved the O to the C, which is also located in the R.``, ``X told out
loud that the O is in the C.``, ``X told Y privately that the O is in the C.``) and answers the container and room
questions from the people, entity and relation in ``qprop=params``; stories with other actions (containers moved
between rooms, object states, peeking, distraction) and yes/no questions are not covered.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from mindloop.beliefs import Event, EventKind, Fact, Tracker, Utterance
from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample
from mindloop.bench.choice import (
    ChoiceBenchmark,
    ChoiceSet,
    Fields,
    Prompt,
    Release,
    covered,
    not_covered,
    occurring,
    release_rows,
)
from mindloop.bench.declaration import Grouping, SmallRun
from mindloop.errors import ParseError

EXPLORETOM_FIELDS = (
    "question",
    "expected_answer",
    "qprop=params",
    "qprop=nth_order",
    ("infilled_story", "story_structure"),
)
"""The fields every row must have (a tuple: one of them)."""

_PAIRS = (("yes", "no"), ("knows about it", "does not know about it"))

_StoryKind = Literal["infilled", "structure"]


@dataclass(frozen=True, slots=True)
class ExploreToMItem:
    """One row: its line, story texts, question, expected answer and properties."""

    line: int
    structure: str
    infilled: str
    question: str
    answer: str
    order: int
    relation: str
    interesting: bool | None
    story_type: str
    people: tuple[str, ...]
    entity: str


def _bool(value: str | None) -> bool | None:
    return {"true": True, "false": False}.get((value or "").strip().lower())


def read_exploretom(path: str | Path) -> list[ExploreToMItem]:
    """Every row of ``ExploreToM-data-sample.csv`` (or the CSV in the given folder)."""
    p, rows = release_rows(path, (EXPLORETOM.data,), EXPLORETOM.data, EXPLORETOM_FIELDS, csv_=True)
    out = []
    for row in rows:
        line = row["line"]
        try:
            params = ast.literal_eval(row["qprop=params"])
            order = int(float(row["qprop=nth_order"]))
        except (ValueError, SyntaxError, TypeError):
            raise ParseError(
                "'qprop=params' must be a tuple literal and 'qprop=nth_order' a number", source=str(p), line=line
            ) from None
        if not isinstance(params, tuple) or len(params) < 3:
            raise ParseError("'qprop=params' must be a (people, entity, relation) tuple", source=str(p), line=line)
        out.append(
            ExploreToMItem(
                line,
                row.get("story_structure") or "",
                row.get("infilled_story") or "",
                row["question"],
                row["expected_answer"].strip(),
                order,
                str(params[2]),
                _bool(row.get("qprop=non_unique_mental_state")),
                row.get("param=story_type") or "",
                tuple(str(x) for x in params[0]) if isinstance(params[0], list | tuple) else (),
                str(params[1]),
            )
        )
    return out


def _pair(answer: str) -> tuple[str, str] | None:
    low = answer.lower()
    for pair in _PAIRS:
        if low in pair:
            return pair
    return None


def audit_exploretom(items: Sequence[ExploreToMItem]) -> tuple[int, list[tuple[ExploreToMItem, str, str]]]:
    """Rows whose expected answer the story never mentions (a place or entity answer must be one the story names),
    and one story and question released twice with different expected answers."""
    found: list[tuple[ExploreToMItem, str, str]] = []
    checked = 0
    seen: dict[tuple[str, str], list[ExploreToMItem]] = defaultdict(list)
    for item in items:
        story = item.structure or item.infilled
        seen[(story, item.question)].append(item)
        if _pair(item.answer) is not None or not item.answer:
            continue
        checked += 1
        if item.answer.lower() not in story.lower():
            why = f"the expected answer {item.answer!r} appears nowhere in the story"
            found.append((item, why, "answer not in story"))
    for group in seen.values():
        if len({i.answer.lower() for i in group}) > 1:
            checked += len(group)
            for item in group:
                lines = ", ".join(str(o.line) for o in group if o is not item)
                found.append(
                    (item, f"the same story and question (lines {lines}) expect another answer", "copies disagree")
                )
    return checked, found


class ExploreToMOptions(Options):
    """Options of ``exploretom``."""

    data: str | None = Field(None, description="ExploreToM's ExploreToM-data-sample.csv (--data PATH)")
    story: _StoryKind = Field("infilled", description="the infilled prose story or the plain story structure")


def _input(item: ExploreToMItem, options: ExploreToMOptions) -> dict[str, Any]:
    story = item.infilled if options.story == "infilled" else item.structure
    if not story:
        raise ParseError(f"no {options.story} story on this row", source=options.data, line=item.line)
    return {
        "story": story,
        "question": item.question,
        "answer": item.answer,
        "order": str(item.order),
        "relation": item.relation,
        "interesting": item.interesting,
        "story_type": item.story_type,
        "line": item.line,
        "structure": item.structure,
        **({"choices": list(pair)} if (pair := _pair(item.answer)) else {}),
        "people": list(item.people),
        "entity": item.entity,
    }


async def _symbolic(sample: Sample, ctx: AgentContext) -> Outcome:
    inp = sample.input
    answer, why = track_structure(inp["structure"], tuple(inp["people"]), inp["entity"], inp["relation"])
    if answer is None:
        return not_covered(why)
    return covered(inp["answer"] if answer == _norm(inp["answer"]) else answer)


def _release_reading(reply: str, sample: Sample) -> str | None:
    """The release's reading as a choice: the gold when it occurs in the reply, else the other one when it does."""
    return occurring(reply, [c.lower() for c in sample.choices], sample)


EXPLORETOM = ChoiceSet(
    name="exploretom",
    description="ExploreToM data sample, accuracy per order, question type and story type (--data CSV)",
    data="ExploreToM-data-sample.csv",
    options=ExploreToMOptions,
    load=lambda path, options: read_exploretom(path),
    prepare=_input,
    fields=Fields(id="l{line:06d}", group="{relation}"),
    prompt=Prompt(
        user="{story}\n\nQuestion: {question} Answer {or_list}.",
        open="{story}\n\nQuestion: {question} Answer with a short phrase.",
        labels="",
    ),
    release=Release(
        "the expected answer occurring in the reply, lower-cased",
        _release_reading,
        "'no' occurs in 'I do not know', so the release counts that reply as 'no'",
    ),
    groupings=(
        Grouping("by_order", "order", ("-1", "1", "2")),
        Grouping("by_type", "relation"),
        Grouping("by_story_type", "story_type"),
        Grouping("by_interesting", "interesting", ("True", "False"), rename=(("true", "True"), ("false", "False"))),
    ),
    agents={
        "symbolic": AgentSpec("the belief tracker reads the story structure's ToMi-like sentences", _symbolic),
    },
    small=SmallRun(n=None, agent="symbolic", data="exploretom_excerpt.csv"),
    checked_against="authors' code",
)
"""ExploreToM as data: accuracy per order, per question type (relation), per story type and per interestingness
(the row names the input's ``True``/``False`` as the release writes them); a question whose answers are a fixed
pair is a choice between them, the others open answers scored by the release's rule."""


class ExploreToMBenchmark(ChoiceBenchmark):
    """ExploreToM's generated stories: memory, first- and second-order questions."""

    choice_set = EXPLORETOM


# -- the tracker ------------------------------------------------------------------------------------------------

_N = r"[A-Z][\w'-]*"
_ENTER = re.compile(rf"^({_N}) entered the (.+)$")
_LEFT = re.compile(rf"^({_N}) left the (.+)$")
_MOVE = re.compile(rf"^({_N}) moved the (.+?) to the (.+?), which is also located in the (.+)$")
_LOUD = re.compile(rf"^({_N}) told out loud that the (.+?) is in the (.+)$")
_PRIVATE = re.compile(rf"^({_N}) told ({_N}) privately that the (.+?) is in the (.+)$")


def _norm(text: str) -> str:
    return re.sub(r"^(?:the|a|an) ", "", text.strip().rstrip(".").lower())


def _sentences(story: str) -> list[str]:
    return [s.strip().rstrip(".") for s in re.split(r"(?<=\.)\s+", story.strip()) if s.strip()]


def track_structure(story: str, people: tuple[str, ...], entity: str, relation: str) -> tuple[str | None, str]:
    """The tracker's answer (lower case, no article) to a container or room question, or ``None`` and why not.

    >>> s = "Ann entered the den. Ann moved the key to the box, which is also located in the den. Ann left the den. "
    >>> s += "Bo entered the den. Bo moved the key to the bag, which is also located in the den."
    >>> track_structure(s, ("Ann",), "key", "container_location"), track_structure(s, (), "key", "container_location")
    (('box', ''), ('bag', ''))
    """
    kind = relation.removeprefix("memory-")
    if kind not in ("container_location", "room_location"):
        return None, f"{relation} questions are not location questions"
    tracker = Tracker(max_depth=max(2, len(people)))
    room: dict[str, str] = {}
    first: dict[str, str] = {}
    for t, sentence in enumerate(_sentences(story), 1):
        if m := _ENTER.match(sentence):
            room[m[1]] = _norm(m[2])
            tracker.apply(Event(t, EventKind.ENTER, m[1], (Fact(m[1], "at", room[m[1]]),), frozenset({m[1]})))
        elif m := _LEFT.match(sentence):
            here = frozenset(a for a, r in room.items() if r == room.get(m[1]))
            tracker.apply(Event(t, EventKind.EXIT, m[1], (Fact(m[1], "at", None),), here or frozenset({m[1]})))
            room.pop(m[1], None)
        elif m := _MOVE.match(sentence):
            obj, con, where = _norm(m[2]), _norm(m[3]), _norm(m[4])
            first.setdefault(obj, con)
            here = frozenset(a for a, r in room.items() if r == where) | {m[1]}
            facts = (Fact(obj, "in", con), Fact(con, "room", where))
            tracker.apply(Event(t, EventKind.MOVE, m[1], facts, here))
        elif m := _LOUD.match(sentence):
            here = frozenset(a for a, r in room.items() if r == room.get(m[1]) and a != m[1])
            tracker.apply(Utterance(t, m[1], here, (Fact(_norm(m[2]), "in", _norm(m[3])),), public=True))
        elif m := _PRIVATE.match(sentence):
            tracker.apply(Utterance(t, m[1], frozenset({m[2]}), (Fact(_norm(m[3]), "in", _norm(m[4])),), public=False))
        else:
            return None, f"a sentence the tracker does not read: {sentence!r}"
    entity = _norm(entity)
    chain = tuple(people)
    if relation.startswith("memory-"):
        if kind != "container_location" or chain:
            return None, "only the memory of the first container is read"
        value = first.get(entity)
        return (value, "") if value else (None, "the story never places it")
    # its container, or its room: the entity's room if it is a container, else its container's room, as the chain
    # believes them
    container = tracker.value(chain, entity, "in")
    value = container if kind == "container_location" else tracker.value(chain, container or entity, "room")
    return (value, "") if value else (None, "the story never shows this belief")

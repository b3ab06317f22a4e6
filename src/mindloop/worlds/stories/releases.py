"""The datasets' released files, read as released: ToMi's ``.txt`` with its ``.trace``, Hi-ToM's JSON.

ToMi (Le et al., EMNLP 2019; facebookresearch/ToMi) writes each split as ``NAME.txt`` (one story per question in
the numbered-line format) and ``NAME.trace``: one line per story, in the same order, holding the generator's steps,
then the question's type, then the story's type, separated by commas::

    enter_agent_1,enter_agent_0,agent_1_exits,agent_0_moves_obj,first_order_1_tom,false_belief

:func:`read_dataset` attaches each trace line to its example when the ``.trace`` file lies beside the ``.txt``.

Hi-ToM (Wu et al., Findings of EMNLP 2023; ying-hui-he/Hi-ToM_dataset) releases ``Hi-ToM_data.json``: an object
whose ``data`` list holds one item per question, with ``story`` (numbered lines, the VP copies preceded by an
instruction line), ``question``, ``choices`` (``"A. blue_drawer, B. green_crate, ..."``: fifteen lettered
containers), ``answer``, ``question_order`` (0-4), ``deception``, ``story_length`` (chapters), ``prompting_type``
(``CoTP`` or ``VP``) and ``sample_id``. Every story-question pair is released twice, once per prompting type.
A numbered-line Hi-ToM file may carry the same fields in ``NAME.meta.json`` beside it (the bundled split does).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TypeVar, cast

from pydantic import BaseModel, Field

from mindloop.datafiles import iter_text_lines, read_json_file, validate_data
from mindloop.errors import ParseError
from mindloop.worlds.stories.tomi import (
    Example,
    HiToMInfo,
    StoryFormat,
    ToMiTrace,
    iter_story_file,
    parse_question,
    story_sentences,
)

PROMPTING_TYPES: tuple[str, ...] = ("CoTP", "VP")
"""Hi-ToM's prompting types: chain-of-thought prompting and vanilla prompting."""

TOMI_STORY_TYPES: tuple[str, ...] = ("true_belief", "false_belief", "second_order_false_belief")
"""ToMi's story types (the last field of a trace line), in report order."""

TOMI_QUESTION_TYPES: tuple[str, ...] = (
    "reality",
    "memory",
    "first_order_0_tom",
    "first_order_1_tom",
    "first_order_0_no_tom",
    "first_order_1_no_tom",
    "second_order_0_tom",
    "second_order_1_tom",
    "second_order_0_no_tom",
    "second_order_1_no_tom",
)
"""ToMi's question types (the next-to-last field of a trace line), in the order papers report them."""

_T = TypeVar("_T")

_QUESTION_TYPE = re.compile(r"^(?:reality|memory|(?P<order>first_order|second_order)_[01]_(?:no_)?tom)$")
_EVENT = re.compile(r"^[a-z][a-z0-9_]*$")


def read_tomi_trace(path: str | Path) -> list[ToMiTrace]:
    """Read a ToMi ``.trace`` file: one :class:`ToMiTrace` per non-empty line.

    Raises :class:`ParseError` naming the line for an unknown story type, question type or malformed step.
    """
    return list(iter_tomi_trace(path))


def iter_tomi_trace(path: str | Path) -> Iterator[ToMiTrace]:
    """:func:`read_tomi_trace` line by line, lazily (memory does not grow with the file)."""
    p = Path(path)
    for lineno, line in iter_text_lines(p):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) < 2:
            raise ParseError("expected 'step,...,question type,story type'", source=str(p), line=lineno, text=line)
        *events, qtype, story_type = fields
        if story_type not in TOMI_STORY_TYPES:
            raise ParseError(
                f"unknown story type (expected one of {', '.join(TOMI_STORY_TYPES)})",
                source=str(p),
                line=lineno,
                text=story_type,
            )
        if not _QUESTION_TYPE.match(qtype):
            raise ParseError(
                "unknown question type (expected reality, memory or {first,second}_order_{0,1}_{tom,no_tom})",
                source=str(p),
                line=lineno,
                text=qtype,
            )
        bad = next((e for e in events if not _EVENT.match(e)), None)
        if bad is not None:
            raise ParseError("malformed generator step", source=str(p), line=lineno, text=bad)
        yield ToMiTrace(story_type, qtype, tuple(events))


def _family(question_type: str) -> str:
    """The reader's question type a trace question type belongs to (``first_order_1_tom`` -> ``first_order``)."""
    m = _QUESTION_TYPE.match(question_type)
    return m["order"] if m and m["order"] else question_type


_END = object()


def _beside(examples: Iterator[Example], entries: Iterator[_T], path: Path, unit: str) -> Iterator[tuple[Example, _T]]:
    """Each example with its entry of the file beside the story file (its ``unit``s, one per question), lazily; a
    count that differs is found when one side runs out."""
    n = 0
    for ex in examples:
        entry = next(entries, _END)
        if entry is _END:
            questions = n + 1 + sum(1 for _ in examples)
            raise ParseError(f"has {n} {unit} but the story file beside it has {questions} questions", source=str(path))
        n += 1
        yield ex, cast(_T, entry)
    extra = sum(1 for _ in entries)
    if extra:
        raise ParseError(f"has {n + extra} {unit} but the story file beside it has {n} questions", source=str(path))


def _attach_traces(examples: Iterator[Example], trace_path: Path) -> Iterator[Example]:
    """Each example with its trace line, lazily."""
    for n, (ex, trace) in enumerate(_beside(examples, iter_tomi_trace(trace_path), trace_path, "trace lines"), 1):
        if _family(trace.question_type) != ex.question.qtype:
            raise ParseError(
                f"trace line {n} says {trace.question_type!r} but the question is {ex.question.qtype!r}",
                source=ex.source,
                line=ex.question_line,
                text=ex.question.text,
            )
        yield dataclasses.replace(ex, trace=trace)


_CHOICE = re.compile(r"^([A-Z])\.\s*([\w-]+)$")


def parse_choices(choices: str | Sequence[str], source: str = "<choices>") -> tuple[str, ...]:
    """The containers of Hi-ToM's lettered choices, in letter order.

    >>> parse_choices("A. blue_drawer, B. green_crate, C. red_bucket")
    ('blue_drawer', 'green_crate', 'red_bucket')
    """
    parts = [c.strip() for c in choices.split(",")] if isinstance(choices, str) else [str(c).strip() for c in choices]
    out: list[str] = []
    for i, part in enumerate(parts):
        m = _CHOICE.match(part)
        if m is None or m[1] != chr(ord("A") + i):
            expected = chr(ord("A") + i) if i < 26 else "?"
            raise ParseError(f"expected choice '{expected}. container'", source=source, text=part)
        out.append(m[2])
    if not out:
        raise ParseError("no choices", source=source)
    return tuple(out)


class _HiToMItem(BaseModel, extra="ignore"):
    """One item of ``Hi-ToM_data.json``'s ``data`` list (fields the release has and mindloop reads)."""

    prompting_type: str
    deception: bool
    story_length: int = Field(ge=1)
    question_order: int = Field(ge=0, le=4)
    sample_id: int
    story: str
    question: str
    choices: str | list[str]
    answer: str


def read_hitom_json(path: str | Path) -> list[Example]:
    """Read Hi-ToM's released JSON: one :class:`Example` per item, its fields in ``Example.hitom``.

    Each item's question must be a Hi-ToM question of its ``question_order``, its answer one of its choices, and
    its ``prompting_type`` one of :data:`PROMPTING_TYPES`; anything else raises :class:`ParseError` naming the
    item (by position and ``sample_id``) and the field.
    """
    p = Path(path)
    raw = read_json_file(p)
    items = raw.get("data") if isinstance(raw, dict) else raw
    if not isinstance(items, list) or not items:
        raise ParseError("expected Hi-ToM's release: an object whose 'data' is a non-empty list", source=str(p))
    out: list[Example] = []
    for index, obj in enumerate(items, 1):
        at = f"data[{index - 1}]" if isinstance(raw, dict) else f"[{index - 1}]"
        item = validate_data(_HiToMItem, obj, source=str(p), error=ParseError, at=at)
        where = f"{p} (sample_id {item.sample_id})"
        if item.prompting_type not in PROMPTING_TYPES:
            raise ParseError(
                f"prompting_type must be one of {', '.join(PROMPTING_TYPES)}", source=where, text=item.prompting_type
            )
        choices = parse_choices(item.choices, where)
        if item.answer not in choices:
            raise ParseError(f"the answer is not one of the {len(choices)} choices", source=where, text=item.answer)
        question = parse_question(item.question.strip(), item.answer, "hitom")
        if question is None:
            raise ParseError("unknown question form", source=where, text=item.question)
        if question.qtype != f"order_{item.question_order}":
            raise ParseError(
                f"question_order is {item.question_order} but the question asks order {question.qtype[-1]}",
                source=where,
                text=item.question,
            )
        info = HiToMInfo(
            item.sample_id, item.question_order, item.deception, item.story_length, item.prompting_type, choices
        )
        sentences = story_sentences(item.story, where)
        out.append(Example(where, index, sentences, question, index, hitom=info))
    return out


def _attach_meta(examples: Iterator[Example], meta_path: Path) -> Iterator[Example]:
    """Give each example of a numbered-line Hi-ToM file the fields its ``.meta.json`` lists, in file order."""
    meta = read_json_file(meta_path)
    if not isinstance(meta, list):
        raise ParseError("has no entries: expected a JSON list with one entry per question", source=str(meta_path))
    for i, (ex, m) in enumerate(_beside(examples, iter(meta), meta_path, "entries"), 1):
        try:
            order, deception, length, sid = int(m["order"]), bool(m["deception"]), int(m["length"]), int(m["sample_id"])
        except (KeyError, TypeError, ValueError):
            raise ParseError(
                f"entry {i}: expected order, deception, length and sample_id", source=str(meta_path)
            ) from None
        if ex.question.qtype != f"order_{order}":
            raise ParseError(
                f"entry {i} has order {order} but its question is {ex.question.qtype}", source=str(meta_path)
            )
        prompting = m.get("prompting_type")
        if prompting is not None and prompting not in PROMPTING_TYPES:
            raise ParseError(f"entry {i}: unknown prompting_type", source=str(meta_path), text=str(prompting))
        info = HiToMInfo(sid, order, deception, length, prompting or "", ())
        yield dataclasses.replace(ex, hitom=info)


def read_dataset(path: str | Path, fmt: StoryFormat | None = None) -> tuple[StoryFormat, list[Example]]:
    """Read a released file in its own format, and return its format and examples.

    ``*.json`` is Hi-ToM's release (:func:`read_hitom_json`). A numbered-line file is read with
    :func:`~mindloop.worlds.stories.tomi.read_story_file` (``fmt=None`` detects ToMi or Hi-ToM); for ToMi,
    ``NAME.trace`` beside ``NAME.txt`` is read too and each example gets its trace; for Hi-ToM, ``NAME.meta.json``.
    """
    fmt, examples = iter_dataset(path, fmt)
    return fmt, list(examples)


def iter_dataset(path: str | Path, fmt: StoryFormat | None = None) -> tuple[StoryFormat, Iterator[Example]]:
    """:func:`read_dataset` as a lazy iterator: a numbered-line file (and its ``.trace``) is read line by line as
    the examples are taken, so memory does not grow with the file; Hi-ToM's JSON is parsed whole.
    """
    p = Path(path)
    if p.suffix.lower() == ".json":
        if fmt == "tomi":
            raise ParseError("a .json file is read as Hi-ToM's release, not as ToMi", source=str(p))
        return "hitom", iter(read_hitom_json(p))
    fmt, examples = iter_story_file(p, fmt)
    trace = p.with_suffix(".trace")
    meta = p.with_suffix(".meta.json")
    if fmt == "tomi" and p.suffix != ".trace" and trace.is_file():
        examples = _attach_traces(examples, trace)
    elif fmt == "hitom" and meta.is_file():
        examples = _attach_meta(examples, meta)
    return fmt, examples

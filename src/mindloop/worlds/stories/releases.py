"""The datasets' released files, read as released: ToMi's ``.txt`` with its ``.trace``, Hi-ToM's JSON.

ToMi (Le et al., EMNLP 2019; facebookresearch/ToMi) writes each split as ``NAME.txt`` (one story per question in
the numbered-line format) and ``NAME.trace``: one line per story, in the same order, holding the generator's steps,
then the question's type, then the story's type, separated by commas::

    enter_agent_1,enter_agent_0,agent_1_exits,agent_0_moves_obj,first_order_1_tom,false_belief

:func:`read_dataset` attaches each trace line to its example when the ``.trace`` file lies beside the ``.txt``.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from mindloop.errors import ParseError
from mindloop.worlds.stories.tomi import Example, StoryFormat, ToMiTrace, read_story_file

__all__ = [
    "TOMI_QUESTION_TYPES",
    "TOMI_STORY_TYPES",
    "read_dataset",
    "read_tomi_trace",
]

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

_QUESTION_TYPE = re.compile(r"^(?:reality|memory|(?P<order>first_order|second_order)_[01]_(?:no_)?tom)$")
_EVENT = re.compile(r"^[a-z][a-z0-9_]*$")


def read_tomi_trace(path: str | Path) -> list[ToMiTrace]:
    """Read a ToMi ``.trace`` file: one :class:`ToMiTrace` per non-empty line.

    Raises :class:`ParseError` naming the line for an unknown story type, question type or malformed step.
    """
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ParseError("no such file", source=str(p)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ParseError(f"cannot read file: {exc}", source=str(p)) from None
    out: list[ToMiTrace] = []
    for lineno, line in enumerate(lines, 1):
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
        out.append(ToMiTrace(story_type, qtype, tuple(events)))
    return out


def _family(question_type: str) -> str:
    """The reader's question type a trace question type belongs to (``first_order_1_tom`` -> ``first_order``)."""
    m = _QUESTION_TYPE.match(question_type)
    return m["order"] if m and m["order"] else question_type


def _attach_traces(examples: list[Example], trace_path: Path) -> list[Example]:
    traces = read_tomi_trace(trace_path)
    if len(traces) != len(examples):
        raise ParseError(
            f"has {len(traces)} trace lines but the story file beside it has {len(examples)} questions",
            source=str(trace_path),
        )
    out = []
    for i, (ex, trace) in enumerate(zip(examples, traces, strict=True), 1):
        if _family(trace.question_type) != ex.question.qtype:
            raise ParseError(
                f"trace line {i} says {trace.question_type!r} but the question is {ex.question.qtype!r}",
                source=ex.source,
                line=ex.question_line,
                text=ex.question.text,
            )
        out.append(dataclasses.replace(ex, trace=trace))
    return out


def read_dataset(path: str | Path, fmt: StoryFormat | None = None) -> tuple[StoryFormat, list[Example]]:
    """Read a released file in its own format, and return its format and examples.

    A numbered-line file is read with :func:`~mindloop.worlds.stories.tomi.read_story_file` (``fmt=None`` detects
    ToMi or Hi-ToM); for ToMi, ``NAME.trace`` beside ``NAME.txt`` is read too and each example gets its trace.
    """
    p = Path(path)
    fmt, examples = read_story_file(p, fmt)
    trace = p.with_suffix(".trace")
    if fmt == "tomi" and p.suffix != ".trace" and trace.is_file():
        examples = _attach_traces(examples, trace)
    return fmt, examples

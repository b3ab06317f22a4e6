"""The ``mmtom-qa`` benchmark: MMToM-QA's text version (Jin et al., ACL 2024) read from its release file.

**The release.** ``Benchmark/questions.json`` of chuanyangjin/MMToM-QA (MIT): despite the name, JSON Lines — one
object per line with ``question`` (the apartment's contents, the person's actions and the two-choice question,
ending ``Please respond with either a or b.``), ``answer`` (``a`` or ``b``), ``question_type`` (1.1–1.3 belief
inference, 2.1–2.4 goal inference), ``test``, ``episode``, ``start_time``, ``end_time`` and ``answer_list``.

**Protocol** (``--agent model``): the release's ``testing_gpt.py`` (zero-shot): the system message ``You are a
helpful assistant.`` and the question followed by ``\\nAnswer: ``; the release reads the first character of the
reply. That reading is kept as ``release_answer`` (a deviation: it reads ``Answer: b`` as a); the headline is read
by mindloop's choice reader (a letter in any form, or the text of one statement). Accuracy per question type, as
in the paper. The set is a data-driven declaration (:data:`MMTOM_QA`).

No symbolic agent: answering needs inverse planning over the person's route (which container they head for),
not belief tracking of narrated events.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mindloop.bench.api import Sample
from mindloop.bench.choice import (
    ChoiceBenchmark,
    ChoiceSet,
    DataOptions,
    Fields,
    Prompt,
    Release,
    release_rows,
)
from mindloop.bench.declaration import Grouping, SmallRun
from mindloop.errors import ParseError
from mindloop.systems.tom.data import RELEASES

MMTOM_TYPES = RELEASES.mmtom_types
"""The paper's question types (``question_type``)."""

_OPTIONS = re.compile(r"\(a\)\s*(.+?)\s*\(b\)\s*(.+?)\s*Please respond with either a or b\.?\s*$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class MMToMItem:
    """One line of ``questions.json``."""

    line: int
    question: str
    answer: str
    qtype: str
    fields: dict[str, Any]


def read_mmtom(path: str | Path) -> list[MMToMItem]:
    """Every item of MMToM-QA's ``questions.json`` (JSON Lines; a JSON list of the same objects is read too)."""
    p, rows = release_rows(
        path, ("questions.json",), MMTOM_QA.data, ("question", "answer", "question_type"), csv_=False
    )
    out = []
    for obj in rows:
        i = obj.pop("line")
        if not isinstance(obj["question"], str) or not isinstance(obj["answer"], str):
            raise ParseError("'question' and 'answer' must be text", source=str(p), line=i)
        qtype = obj["question_type"]
        if isinstance(qtype, bool) or not isinstance(qtype, int | float | str):
            raise ParseError(f"'question_type' must be a number such as 1.1, got {qtype!r}", source=str(p), line=i)
        out.append(MMToMItem(i, obj["question"], obj["answer"].strip().lower(), str(qtype), obj))
    return out


def options_of(question: str) -> tuple[str, str] | None:
    """The two statements ``(a) …`` and ``(b) …`` of a question, or ``None`` when they are not there.

    >>> options_of("Q? (a) Mark thinks that the salmon is inside the microwave. (b) Mark thinks that the salmon is "
    ...            "not inside the microwave. Please respond with either a or b.")[1]
    'Mark thinks that the salmon is not inside the microwave.'
    """
    m = _OPTIONS.search(question)
    return (m[1].strip(), m[2].strip()) if m else None


def _format_problem(item: MMToMItem) -> tuple[str, str] | None:
    """How an item breaks the release's own format rules, as ``(reason, rule)``; ``None`` when it does not."""
    allowed = item.fields.get("answer_list", ["a", "b"])
    if item.answer not in ("a", "b") or (isinstance(allowed, list) and item.answer not in allowed):
        return f"gold {item.answer!r} is not one of the item's answers {allowed!r}", "gold not an answer"
    options = options_of(item.question)
    if options is None:
        return "the question has no '(a) … (b) …' statements to choose from", "no statements"
    if item.qtype.startswith("1.") and options[0].replace(" not ", " ") != options[1].replace(" not ", " "):
        return "a belief question's two statements are not one belief and its negation", "statements not a negation"
    if options[0] == options[1]:
        return "the two statements are the same", "same statements"
    return None


def audit_mmtom(items: Sequence[MMToMItem]) -> tuple[int, list[tuple[MMToMItem, str, str]]]:
    """Items whose gold or options contradict the release's own format rules, or another item's gold for the
    same text; returns how many were checked and the findings with their reasons."""
    found: list[tuple[MMToMItem, str, str]] = []
    golds: dict[str, list[MMToMItem]] = {}
    for item in items:
        if (problem := _format_problem(item)) is not None:
            found.append((item, *problem))
        else:
            golds.setdefault(item.question, []).append(item)
    for same in golds.values():
        answers = {i.answer for i in same}
        if len(answers) > 1:
            for item in same:
                lines = ", ".join(str(o.line) for o in same if o is not item)
                why = f"the same question text (lines {lines}) has gold answers {sorted(answers)}"
                found.append((item, why, "copies disagree"))
    return len(items), found


def release_reading(reply: str, sample: Sample) -> str | None:
    """The release's reading (``testing_gpt.py``): the reply's first character, lower-cased, as ``a`` or ``b``."""
    first = reply.strip("\n").strip(" ").lower()[:1]
    return dict(zip("ab", sample.choices, strict=True)).get(first)


def _input(item: MMToMItem, options: DataOptions) -> dict[str, Any]:
    """An item as the sample's input; one without two statements, or with a gold other than a/b, is refused."""
    statements = options_of(item.question)
    if statements is None or item.answer not in ("a", "b"):
        raise ParseError("no '(a) … (b) …' statements, or a gold other than a/b", source=options.data, line=item.line)
    return {
        "question": item.question,
        "answer": statements["ab".index(item.answer)],
        "letter": item.answer,
        "choices": list(statements),
        "question_type": item.qtype,
        "episode": item.fields.get("episode"),
        "line": item.line,
    }


MMTOM_QA = ChoiceSet(
    name="mmtom-qa",
    description="MMToM-QA text version, accuracy per question type (--data questions.json)",
    data="MMToM-QA's Benchmark/questions.json",
    load=lambda path, options: read_mmtom(path),
    prepare=_input,
    fields=Fields(id="l{line:04d}", group="{question_type}"),
    prompt=Prompt(system="You are a helpful assistant.", user="{question}\nAnswer: ", labels="ab"),
    release=Release(
        "the reply's first character",
        release_reading,
        "it reads 'Answer: b' as its first letter, a, and '(b)' or 'The answer is (b).' as nothing",
    ),
    groupings=(
        Grouping("by_type", "group", tuple(MMTOM_TYPES)),
        Grouping(
            "by_kind", "group", ("belief", "goal"), tuple((t, "belief" if t[0] == "1" else "goal") for t in MMTOM_TYPES)
        ),
    ),
    small=SmallRun(n=None, reply="a", data="mmtom_excerpt.json"),
    checked_against="released file",
)
"""Accuracy per question type, and belief (1.x) vs goal (2.x) inference over the paper's types."""


class MMToMQABenchmark(ChoiceBenchmark):
    """MMToM-QA text-only questions: belief and goal inference from a home and a person's actions."""

    choice_set = MMTOM_QA

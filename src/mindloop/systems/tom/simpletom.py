"""The ``simpletom`` benchmark: SimpleToM (Gu et al., 2024) read from its release, and its label audit.

**The release.** The Hugging Face dataset ``allenai/SimpleToM`` (ODC-BY; not shipped with mindloop): three question
sets, ``mental-state-qa/test.jsonl``, ``behavior-qa/test.jsonl`` and ``judgment-qa/test.jsonl``, one JSON object a
line with ``id``, ``story``, ``question``, ``scenario_name``, ``choices`` (``{"text": [...], "label": ["A", "B"]}``)
and ``answerKey``. ``--data`` is the dataset's folder (every set found in it is read) or one of the files.

**Protocol** (``--agent model``): the story, the question and the lettered choices, asking for the letter of the
correct choice (the dataset ships no prompt; this is its multiple-choice format). The reply is read as for ToMi:
the flexible reading (a letter, or the text of one choice) is the headline, the strict one (first line alone)
beside it. Accuracy per question set (mental state, behavior, judgment — the paper's three kinds) and per
scenario.

No symbolic agent: the stories are everyday prose (what the person could not see), not narrated events.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mindloop.bench.choice import ChoiceBenchmark, ChoiceSet, DataOptions, Fields, Prompt, release_rows
from mindloop.bench.declaration import Grouping, SmallRun
from mindloop.errors import InvalidArgumentError, ParseError

SIMPLETOM_SETS = ("mental-state-qa", "behavior-qa", "judgment-qa")
"""The release's question sets (its folders), in the paper's order."""

_AWARE = re.compile(r'aware that "(.+)"\?$')


@dataclass(frozen=True, slots=True)
class SimpleToMItem:
    """One question: its set, file line, and fields."""

    qset: str
    source: str
    line: int
    id: str
    story: str
    question: str
    scenario: str
    choices: tuple[str, ...]
    labels: tuple[str, ...]
    answer_key: str


def _read_file(path: Path, qset: str) -> list[SimpleToMItem]:
    out = []
    needs = ("id", "story", "question", "choices", "answerKey")
    for obj in release_rows(path, needs=needs, csv_=False)[1]:
        i = obj["line"]
        choices = obj["choices"]
        if not isinstance(choices, dict) or not isinstance(choices.get("text"), list):
            raise ParseError('\'choices\' must be {"text": [...], "label": [...]}', source=str(path), line=i)
        texts = tuple(str(t) for t in choices["text"])
        labels = tuple(str(t) for t in choices.get("label", [chr(65 + k) for k in range(len(texts))]))
        if len(labels) != len(texts):
            raise ParseError("'choices' has as many labels as texts", source=str(path), line=i)
        sid, story, question = str(obj["id"]), str(obj["story"]), str(obj["question"])
        scenario, key = str(obj.get("scenario_name", "")), str(obj["answerKey"])
        out.append(SimpleToMItem(qset, path.name, i, sid, story, question, scenario, texts, labels, key))
    return out


def read_simpletom(path: str | Path) -> list[SimpleToMItem]:
    """Every question of a SimpleToM folder (its three sets) or of one set's ``test.jsonl``."""
    p = Path(path)
    if not p.exists():
        raise InvalidArgumentError(f"--data {str(path)!r}: no such file or folder (SimpleToM's dataset folder)")
    if p.is_file():
        qset = p.parent.name if p.parent.name in SIMPLETOM_SETS else p.stem
        return _read_file(p, qset)
    out = []
    for qset in SIMPLETOM_SETS:
        f = p / qset / "test.jsonl"
        if f.is_file():
            out.extend(_read_file(f, qset))
    if not out:
        raise InvalidArgumentError(
            f"--data {str(path)!r}: none of {', '.join(f'{s}/test.jsonl' for s in SIMPLETOM_SETS)} is there"
        )
    return out


def audit_simpletom(items: Sequence[SimpleToMItem]) -> tuple[int, list[tuple[SimpleToMItem, str, str]]]:
    """Questions whose answer key names no choice, whose choices repeat, or whose awareness question quotes a fact
    the story does not state."""
    found: list[tuple[SimpleToMItem, str, str]] = []
    for item in items:
        m = _AWARE.search(item.question) if item.qset == "mental-state-qa" else None
        if item.answer_key not in item.labels:
            why = f"answer key {item.answer_key!r} is none of the labels {list(item.labels)}"
            found.append((item, why, "key not a label"))
        elif len({c.strip().lower() for c in item.choices}) < len(item.choices):
            found.append((item, "two choices have the same text", "choices repeat"))
        elif m is not None and m[1].strip().lower() not in item.story.lower():
            found.append(
                (item, f"the question asks about {m[1]!r}, which the story does not state", "fact not in story")
            )
    return len(items), found


def _input(item: SimpleToMItem, options: DataOptions) -> dict[str, Any]:
    if item.answer_key not in item.labels:
        raise ParseError(f"answer key {item.answer_key!r} names no choice", source=item.source, line=item.line)
    return {
        "story": item.story,
        "question": item.question,
        "choices": list(item.choices),
        "labels": list(item.labels),
        "answer": item.choices[item.labels.index(item.answer_key)],
        "scenario": item.scenario,
        "set": item.qset,
    }


SIMPLETOM = ChoiceSet(
    name="simpletom",
    description="SimpleToM mental-state/behavior/judgment questions, accuracy per kind (--data SimpleToM/)",
    data="SimpleToM's dataset folder",
    load=lambda path, options: read_simpletom(path),
    prepare=_input,
    fields=Fields(id="{set}:{id}", group="{set}", labels="labels"),
    prompt=Prompt(
        user="Given the following story, answer the question by giving the correct answer choice, {letters}.\n\n"
        "Story: {story}\n\nQuestion: {question}\n{options}",
    ),
    groupings=(Grouping("by_set", "group", tuple(SIMPLETOM_SETS)), Grouping("by_scenario", "scenario")),
    small=SmallRun(n=6, reply="A", data="simpletom"),
    checked_against="authors' code",
)
"""SimpleToM as data: accuracy per question set (the paper's three kinds) and per scenario."""


class SimpleToMBenchmark(ChoiceBenchmark):
    """SimpleToM's mental-state, behavior and judgment questions."""

    choice_set = SIMPLETOM

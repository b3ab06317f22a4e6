"""The official OmniToM release's evaluation protocol: its prompts, its parsers of model replies, its judge, and its
row matching, as its public replication script runs them.

The release (the OmniToM review release, MIT) ships ``benchmark_story_belief_labels.jsonl`` and a replication
script that builds one system prompt and one user message per stage, parses the replies, asks a semantic judge for
Stage 1 MatchCounts and scores both stages. mindloop follows it here, and it is mindloop's default protocol
(``protocol=release``); the protocol mindloop had before is kept as ``protocol=mindloop``
(:mod:`~mindloop.systems.omnitom.prompts`, :mod:`~mindloop.systems.omnitom.tables`,
:mod:`~mindloop.systems.omnitom.judge`). docs/omnitom.md sets the two side by side. What the release does:

* **User messages.** Stage 1: a format instruction, ``Story Narrative:`` and the story, a closing line naming the
  table header. Stage 2: the same with ``Belief table:`` (``Actor | Belief`` rows). The judge: an instruction,
  ``Story Narrative:``, ``Prediction Table:`` (CSV, quoted only where needed) and ``Ground Truth Table:`` (every
  field quoted), a closing line. No story id or category reaches the model (the release's prompt-builder
  revision whose three builders all leave them out, in line with its README).
* **The judge's system prompt** is C.4's Level 4 prompt followed by the release's three few-shot matching
  examples (``data/release_judge_examples.yaml``).
* **Parsing.** Stage 1 and 2 replies: every line with a ``|``; the first row is dropped when it starts with
  ``Actor``; rows with too few cells are dropped; a trailing ``.`` is cut from each predicted belief. Stage 2
  labels are read by position and canonicalised with the release's alias table (:func:`release_label`); anything
  else stays as written and so is wrong. Judge replies: the section after a ``Prediction`` heading and the one
  after a ``Ground Truth`` heading, the CSV table in each from its ``Actor ... MatchCount`` header; each input row
  takes the count of the reply row with the same normalised ``(actor, belief)`` (highest first when repeated),
  and 0 when there is none. A reply that cannot be read therefore scores that story's rows as unmatched.
* **Stage 2 matching.** A predicted row labels the gold belief with the same normalised ``(actor, belief,
  occurrence)`` key (:func:`release_key`: whitespace collapsed, lower case, outer quotes stripped), and no other:
  there is no positional fallback and no actor shortening.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Annotated, Literal

from pydantic import Field, field_validator

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import InvalidArgumentError
from mindloop.models.base import Message, message
from mindloop.systems.omnitom.prompts import _TEXTS, _csv
from mindloop.systems.omnitom.records import (
    _SCHEMA,
    DIMENSIONS,
    LABEL_SETS,
    RELEASE_EXTRA_LABELS,
    BeliefLabels,
    BeliefRecord,
)

Protocol = Literal["release", "mindloop"]
"""``release``: the official release's protocol (this module; the default). ``mindloop``: mindloop's own."""


STAGE1_SYSTEM = _TEXTS.release["stage1_system"]
"""The release's Stage 1 system prompt (C.2's Level 3 prompt, one step per line)."""

STAGE1_INSTRUCTION = _TEXTS.release["stage1_instruction"]
STAGE1_CLOSING = _TEXTS.release["stage1_closing"]

STAGE2_SYSTEM = _TEXTS.release["stage2_system"]
"""The release's Stage 2 system prompt (C.3's Level 3 prompt as the release writes it)."""

STAGE2_INSTRUCTION = _TEXTS.release["stage2_instruction"]
STAGE2_CLOSING = _TEXTS.release["stage2_closing"]

JUDGE_SYSTEM = _TEXTS.release["judge_system"]
"""The release's judge prompt: C.4's Level 3 prompt and Level 4 block (few-shot examples are appended by
:func:`judge_system`)."""

JUDGE_INSTRUCTION = _TEXTS.release["judge_instruction"]
JUDGE_CLOSING = _TEXTS.release["judge_closing"]


# ---- normalisation ---------------------------------------------------------------------------------------------
def _space(value: object) -> str:
    return re.sub(r"\s+", " ", "" if value is None else str(value)).strip()


def release_key(text: object) -> str:
    """The release's row key of an actor or a belief: whitespace collapsed, lower case, outer quotes stripped.

    >>> release_key('  "Bob   Leaves the room" ')
    'bob leaves the room'
    """
    return _space(text).lower().strip("\"'")


_ORDER_DIGITS = re.compile(r"(\d+)")
_ALIASES: dict[str, dict[str, str]] = {
    d: {label.lower(): label for label in (*LABEL_SETS[d], *RELEASE_EXTRA_LABELS.get(d, ()))} for d in DIMENSIONS[1:]
} | {"content_type": _SCHEMA.release_content_types}
"""The release's label aliases per dimension (keys as its canonicaliser reduces a cell)."""


def release_label(dimension: str, value: object) -> str:
    """A predicted label as the release canonicalises it: for ``order`` the first run of digits, otherwise the
    alias of the cell reduced to ``[a-z0-9/ ]`` (spaces also squeezed out); anything else stays as written.

    >>> release_label("order", "Order 2"), release_label("knowledge_access", " unknown "), release_label("context", "x")
    ('2', 'Unknown', 'x')
    """
    text = _space(value)
    if not text:
        return ""
    if dimension == "order":
        m = _ORDER_DIGITS.search(text)
        return m.group(1) if m else text
    lookup = _ALIASES[dimension]
    key = _space(re.sub(r"[^a-z0-9/ ]+", "", text.lower()))
    return lookup.get(key) or lookup.get(key.replace(" ", "")) or text


def release_labels(cells: Mapping[str, str]) -> BeliefLabels:
    """Cells (by dimension) canonicalised by :func:`release_label`; a value outside the accepted sets is ``None``
    (wrong either way: the release compares it as written, and no gold label is written so)."""
    values = {d: release_label(d, cell) for d, cell in cells.items()}
    return BeliefLabels.partial(
        **{d: v for d, v in values.items() if v in LABEL_SETS[d] or v in RELEASE_EXTRA_LABELS.get(d, ())}
    )


# ---- messages ------------------------------------------------------------------------------------------------------
def stage1_messages(story: str, *, system: str = STAGE1_SYSTEM) -> list[Message]:
    """The release's Stage 1 messages (``system`` replaced only for mindloop's Level 4 directive)."""
    user = f"{STAGE1_INSTRUCTION}\n\nStory Narrative:\n{story.strip()}\n\n{STAGE1_CLOSING}"
    return [message("system", system), message("user", user)]


def _pipe_table(beliefs: Sequence[BeliefRecord]) -> str:
    return "\n".join(["Actor | Belief", *(f"{b.actor.strip()} | {b.belief.strip()}" for b in beliefs)])


def stage2_messages(story: str, beliefs: Sequence[BeliefRecord], *, system: str = STAGE2_SYSTEM) -> list[Message]:
    """The release's Stage 2 messages: the story and the ``Actor | Belief`` table to label."""
    user = (
        f"{STAGE2_INSTRUCTION}\n\nStory Narrative:\n{story.strip()}\n\nBelief table:\n{_pipe_table(beliefs)}\n\n"
        f"{STAGE2_CLOSING}"
    )
    return [message("system", system), message("user", user)]


def _gold_csv(rows: Sequence[tuple[str, str]]) -> str:
    def q(text: str) -> str:
        return '"' + text.strip().replace('"', '""') + '"'

    return "\n".join(["Actor,Belief", *(f"{q(a)},{q(b)}" for a, b in rows if a.strip() and b.strip())])


_Row = Annotated[tuple[str, str, Annotated[int, Field(ge=0, le=3)]], Field()]


class JudgeExample(DataModel):
    """One of the release's judge few-shot examples: a story and both tables with their MatchCounts."""

    name: str
    story: str
    prediction: tuple[_Row, ...] = Field(min_length=1)
    ground_truth: tuple[_Row, ...] = Field(min_length=1)

    @field_validator("prediction", "ground_truth")
    @classmethod
    def _unquoted(cls, rows: tuple[tuple[str, str, int], ...]) -> tuple[tuple[str, str, int], ...]:
        for actor, belief, _ in rows:
            if "," in actor or "," in belief or not actor.strip() or not belief.strip():
                raise ValueError(f"row {actor!r}, {belief!r}: needs a non-empty actor and belief without commas")
        return rows

    def render(self, number: int) -> str:
        """The example as the release writes it into the judge's system prompt."""

        def table(rows: Sequence[tuple[str, str, int]], counts: bool) -> str:
            head = "Actor,Belief,MatchCount" if counts else "Actor,Belief"
            return "\n".join([head, *(f"{a},{b},{c}" if counts else f"{a},{b}" for a, b, c in rows)])

        inp = (
            f"\nINPUT:\n\nStory Narrative:\n{self.story}\n\nPrediction Table:\n{table(self.prediction, False)}\n\n"
            f"Ground Truth Table:\n{table(self.ground_truth, False)}\n"
        )
        out = (
            f"\nOUTPUT:\n\nPrediction Table:\n{table(self.prediction, True)}\n\n"
            f"Ground Truth Table:\n{table(self.ground_truth, True)}\n"
        )
        return f"Example {number}:\n\n{inp}\n{out}"


class JudgeExamples(DataModel):
    """``data/release_judge_examples.yaml``: the release's judge few-shot examples, in its order."""

    examples: tuple[JudgeExample, ...] = Field(min_length=3, max_length=3)


def load_judge_examples() -> JudgeExamples:
    """The release's three judge examples shipped with mindloop (checked on load)."""
    return load_package_data(JudgeExamples, __name__.rsplit(".", 1)[0], "release_judge_examples.yaml")


def judge_system(fewshots: int = 3) -> str:
    """The judge's system prompt with the first ``fewshots`` (0-3; the release's setting is 3) examples."""
    examples = load_judge_examples().examples
    if not 0 <= fewshots <= len(examples):
        raise InvalidArgumentError(f"fewshots must be between 0 and {len(examples)}, got {fewshots}")
    if fewshots == 0:
        return JUDGE_SYSTEM
    parts = ["Here are examples showing the matching process:\n"]
    parts += [ex.render(i) for i, ex in enumerate(examples[:fewshots], 1)]
    return JUDGE_SYSTEM + "\n\n" + "\n\n".join(parts)


def judge_messages(
    story: str | None, predicted: Sequence[tuple[str, str]], gold: Sequence[tuple[str, str]], *, fewshots: int = 3
) -> list[Message]:
    """The release's judge messages: the system prompt with its examples, then the story and both tables."""
    narrative = f"Story Narrative:\n{story.strip()}\n\n" if story else ""
    user = (
        f"{JUDGE_INSTRUCTION}\n\n{narrative}Prediction Table:\n{_csv(predicted)}\n\n"
        f"Ground Truth Table:\n{_gold_csv(gold)}\n\n{JUDGE_CLOSING}"
    )
    return [message("system", judge_system(fewshots)), message("user", user)]


# ---- parsing replies -------------------------------------------------------------------------------------------
_RULE = re.compile(r"^:?-{2,}:?$")
_FENCE = re.compile(r"^\s*```")


def _clean(cell: str) -> str:
    return " ".join(cell.strip().strip("*_`").strip().split())


def pipe_rows(text: str | None, *, literal: bool = False) -> list[tuple[int, list[str]]]:
    """``(line number, cells)`` of every line that looks like a pipe-table row, rules left out: as mindloop reads
    them (fences left out too, markdown emphasis cleaned from the cells), or ``literal``: as the release's parser
    does (every line with a ``|``, cells only stripped, a rule being three dashes or more)."""
    rows = []
    for lineno, line in enumerate((text or "").splitlines(), 1):  # no reply (None) has no rows
        if "|" not in line or (not literal and _FENCE.match(line)):
            continue
        body = line.strip()
        body = body[1:] if body.startswith("|") else body
        body = body[:-1] if body.endswith("|") else body
        cells = [c.strip() if literal else _clean(c) for c in body.split("|")]
        if all(re.fullmatch(r":?-{3,}:?", c) if literal else _RULE.match(c.replace(" ", "")) for c in cells if c):
            continue
        rows.append((lineno, cells))
    return rows


def parse_extraction(text: str | None) -> tuple[list[BeliefRecord], list[str]]:
    """A Stage 1 reply read as the release reads it: ``(beliefs, dropped rows)``.

    The first row is a header when it starts with ``Actor``; rows of fewer than three cells are dropped; the
    belief loses a trailing ``.``. A row with an empty actor or belief, which the release keeps, cannot be a
    belief record here and is returned as dropped.
    """
    beliefs: list[BeliefRecord] = []
    dropped: list[str] = []
    for i, (_, cells) in enumerate(pipe_rows(text, literal=True)):
        if i == 0 and len(cells) >= 3 and release_key(cells[0]) == "actor":
            continue
        if len(cells) < 3:
            continue
        actor, belief = _space(cells[0]), _space(cells[1]).rstrip(".")
        if not actor or not belief:
            dropped.append(" | ".join(cells))
            continue
        order = release_label("order", cells[2])
        labels = BeliefLabels.partial(order=order if order in LABEL_SETS["order"] else None)
        beliefs.append(BeliefRecord(actor=actor, belief=belief, labels=labels))
    return beliefs, dropped


def parse_labels(text: str | None) -> list[tuple[str, str, BeliefLabels]]:
    """A Stage 2 reply read as the release reads it: ``(actor, belief, labels)`` per row of at least nine cells,
    labels by position and canonicalised by :func:`release_label`."""
    out = []
    for i, (_, cells) in enumerate(pipe_rows(text, literal=True)):
        if i == 0 and len(cells) >= 2 and release_key(cells[0]) == "actor":
            continue
        if len(cells) < 9:
            continue
        labels = release_labels(dict(zip(DIMENSIONS, cells[2:9], strict=True)))
        out.append((_space(cells[0]), _space(cells[1]).rstrip("."), labels))
    return out


def stage2_labels_by_key(
    predicted: Sequence[tuple[str, str, BeliefLabels]] | Sequence[BeliefRecord], gold: Sequence[BeliefRecord]
) -> list[BeliefLabels | None]:
    """The labels of each gold belief: those of the predicted row with the same ``(actor, belief, occurrence)``
    key (:func:`release_key`), else ``None``. No positional fallback, no actor shortening."""

    def indexed(rows: Sequence[tuple[str, str]]) -> list[tuple[str, str, int]]:
        seen: Counter[tuple[str, str]] = Counter()
        keys = []
        for actor, belief in rows:
            base = (release_key(actor), release_key(belief))
            keys.append((*base, seen[base]))
            seen[base] += 1
        return keys

    rows = [(p.actor, p.belief, p.labels) if isinstance(p, BeliefRecord) else p for p in predicted]
    by_key = dict(zip(indexed([(a, b) for a, b, _ in rows]), (labels for *_, labels in rows), strict=True))
    return [by_key.get(k) for k in indexed([(g.actor, g.belief) for g in gold])]


def _heading(line: str, kind: str) -> bool:
    text = _space(line).lower().strip("*").strip(":")
    if kind == "pred":
        return bool(re.match(r"^(prediction|predictions)\b", text))
    return bool(re.match(r"^(ground\s*truth|groundtruth|gt)\b", text))


def _section(text: str, kind: str) -> str:
    lines = (text or "").splitlines()
    start = next((i + 1 for i, line in enumerate(lines) if _heading(line, kind)), None)
    if start is None:
        return ""
    end = next((i for i in range(start, len(lines)) if _heading(lines[i], "pred") or _heading(lines[i], "gt")), None)
    return "\n".join(lines[start:end]).strip()


def _csv_table(section: str) -> list[dict[str, str]]:
    lines = [line.strip() for line in section.splitlines() if line.strip()]
    heads = [release_key(line.replace(",", " ")) for line in lines]
    start = next((i for i, head in enumerate(heads) if "actor" in head and "matchcount" in head), None)
    if start is None:
        return []
    table: list[str] = []
    for line in lines[start:]:
        if "," not in line:
            if table:
                break
            continue
        table.append(line)
    reader = csv.DictReader(io.StringIO("\n".join(table)))
    return [{k: _space(v) for k, v in row.items() if k is not None} for row in reader]


def parse_judge_tables(text: str) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The prediction and ground-truth CSV rows of a judge reply as the release finds them (empty when absent)."""
    return _csv_table(_section(text, "pred")), _csv_table(_section(text, "gt"))


def match_count(value: object) -> int:
    """A judge table's MatchCount cell as the release reads it (``int(float(...))``; unreadable is 0)."""
    try:
        return int(float(str(value).strip()))
    except (TypeError, ValueError, OverflowError):
        return 0


def judge_counts(inputs: Sequence[tuple[str, str]], parsed: Sequence[Mapping[str, str]]) -> list[int]:
    """Each input row's MatchCount: that of the unused reply row with the same normalised ``(actor, belief)``
    (the highest count first when several), else 0 -- the release's alignment of a judge table to its input."""
    pool = [
        (
            release_key(row.get("Actor", row.get("actor", ""))),
            release_key(row.get("Belief", row.get("belief", ""))),
            match_count(row.get("MatchCount", row.get("matchcount", 0))),
            i,
        )
        for i, row in enumerate(parsed)
    ]
    used: set[int] = set()
    counts = []
    for actor, belief in inputs:
        key = (release_key(actor), release_key(belief))
        candidates = sorted((-c, i) for a, b, c, i in pool if (a, b) == key and i not in used)
        if candidates:
            used.add(candidates[0][1])
        counts.append(-candidates[0][0] if candidates else 0)
    return counts

"""Tolerant parsers for the pipe tables models write in Stage 1 (``Actor | Belief | Order``) and Stage 2
(``Actor | Belief |`` seven labels).

Models wrap tables in prose, code fences and markdown (``**bold**``, ``|---|`` rules, repeated headers). The
parsers keep every row they can read and *record* the others (line, text, reason) instead of raising: a reply
with no table at all is reported with ``found_table = False``, and the caller turns that into a failed sample.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mindloop.systems.omnitom.metrics import actor_key, belief_key
from mindloop.systems.omnitom.records import (
    DIMENSION_NAMES,
    DIMENSIONS,
    BeliefLabels,
    BeliefRecord,
    normalize_label,
)

__all__ = ["MalformedRow", "Stage1Parse", "Stage2Parse", "parse_stage1", "parse_stage2", "pipe_rows"]


@dataclass(frozen=True)
class MalformedRow:
    """A table row that was dropped or kept incomplete: its line in the reply, its text and why."""

    line: int
    text: str
    reason: str

    def to_json(self) -> dict[str, object]:
        """JSON-ready form for run records."""
        return {"line": self.line, "text": self.text, "reason": self.reason}


_RULE = re.compile(r"^:?-{2,}:?$")
_FENCE = re.compile(r"^\s*```")


def _clean(cell: str) -> str:
    return " ".join(cell.strip().strip("*_`").strip().split())


def _key(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def pipe_rows(text: str) -> list[tuple[int, list[str]]]:
    """``(line number, cells)`` of every line that looks like a pipe-table row, rules and fences left out."""
    rows = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if "|" not in line or _FENCE.match(line):
            continue
        body = line.strip()
        body = body[1:] if body.startswith("|") else body
        body = body[:-1] if body.endswith("|") else body
        cells = [_clean(c) for c in body.split("|")]
        if all(not c or _RULE.match(c.replace(" ", "")) for c in cells):
            continue
        rows.append((lineno, cells))
    return rows


def _is_header(cells: Sequence[str]) -> bool:
    return len(cells) >= 2 and _key(cells[0]) == "actor" and _key(cells[1]).startswith("belief")


@dataclass(frozen=True)
class Stage1Parse:
    """Beliefs read from a Stage 1 reply, the rows that were dropped or kept incomplete, and whether any
    table row was found."""

    beliefs: tuple[BeliefRecord, ...]
    malformed: tuple[MalformedRow, ...]
    found_table: bool


def parse_stage1(text: str) -> Stage1Parse:
    """Read an ``Actor | Belief | Order`` table; rows with a missing or illegal order are kept without one.

    >>> p = parse_stage1("Here you go:\\n| Actor | Belief | Order |\\n|---|---|---|\\n| world | Bob leaves | 0 |\\n"
    ...                  "| Bob | the ball is in the box | first |\\n| oops |")
    >>> [(b.actor, b.belief, b.labels.order) for b in p.beliefs], [m.reason for m in p.malformed]
    ([('world', 'Bob leaves', '0'), ('Bob', 'the ball is in the box', None)], ["illegal order 'first' \
(row kept without an order)", 'expected Actor | Belief | Order, got 1 cell(s)'])
    """
    beliefs: list[BeliefRecord] = []
    bad: list[MalformedRow] = []
    rows = pipe_rows(text)
    for lineno, cells in rows:
        if _is_header(cells):
            continue
        raw = " | ".join(cells)
        while len(cells) > 3 and not cells[-1]:
            cells = cells[:-1]
        if len(cells) < 2:
            bad.append(MalformedRow(lineno, raw, f"expected Actor | Belief | Order, got {len(cells)} cell(s)"))
            continue
        actor, order_cell = cells[0], cells[-1] if len(cells) >= 3 else ""
        belief = " | ".join(cells[1:-1]) if len(cells) >= 3 else cells[1]
        if not actor or not belief:
            bad.append(MalformedRow(lineno, raw, "empty actor or belief"))
            continue
        order = normalize_label("order", order_cell)
        if order is None:
            why = f"illegal order {order_cell!r}" if order_cell else "no order"
            bad.append(MalformedRow(lineno, raw, f"{why} (row kept without an order)"))
        beliefs.append(BeliefRecord(actor=actor, belief=belief, labels=BeliefLabels.partial(order=order)))
    return Stage1Parse(tuple(beliefs), tuple(bad), bool(rows))


@dataclass(frozen=True)
class Stage2Parse:
    """Labels read from a Stage 2 reply, one entry per input belief (``None``: no row for it), with the rows
    dropped or read incompletely, and whether any table row was found."""

    labels: tuple[BeliefLabels | None, ...]
    malformed: tuple[MalformedRow, ...]
    found_table: bool

    @property
    def n_missing(self) -> int:
        """Input beliefs the reply gave no row for."""
        return sum(1 for x in self.labels if x is None)


_COLUMN_KEYS: dict[str, str] = {}
for _dim in DIMENSIONS:
    for _name in (_dim, DIMENSION_NAMES[_dim]):
        _COLUMN_KEYS[_key(_name)] = _dim
_COLUMN_KEYS.update(
    {
        "status": "truth_status",
        "access": "knowledge_access",
        "repr": "representation",
        "type": "content_type",
        "ctype": "content_type",
        "source": "mental_source",
        "ord": "order",
    }
)


def _columns(header: Sequence[str]) -> list[str | None] | None:
    """Dimension of each label column named in a header, or ``None`` if the header does not name all seven."""
    dims = [_COLUMN_KEYS.get(_key(c)) for c in header[2:]]
    return dims if set(DIMENSIONS) <= {d for d in dims if d} else None


def parse_stage2(text: str, beliefs: Sequence[BeliefRecord]) -> Stage2Parse:
    """Read an ``Actor | Belief | <seven labels>`` table and match its rows to the input ``beliefs``.

    Label columns are found by header name when the header names all seven, else taken in the prompt's order.
    Illegal labels are read as missing (so scored incorrect) and recorded. Rows are matched to input beliefs by
    actor and text; when the reply has exactly one row per input belief, unmatched rows are matched by position.
    """
    bad: list[MalformedRow] = []
    parsed: list[tuple[str, str, BeliefLabels]] = []
    columns: list[str | None] = list(DIMENSIONS)
    rows = pipe_rows(text)
    for lineno, cells in rows:
        if _is_header(cells):
            named = _columns(cells)
            columns = named if named is not None else list(DIMENSIONS)
            continue
        raw = " | ".join(cells)
        while len(cells) > 2 + len(columns) and not cells[-1]:
            cells = cells[:-1]
        if len(cells) != 2 + len(columns):
            bad.append(MalformedRow(lineno, raw, f"expected Actor | Belief and 7 labels, got {len(cells)} cell(s)"))
            continue
        values: dict[str, object] = {}
        problems = []
        for dim, cell in zip(columns, cells[2:], strict=True):
            if dim is None:
                continue
            label = normalize_label(dim, cell)
            if label is None:
                problems.append(f"illegal {DIMENSION_NAMES[dim]} {cell!r}")
            values[dim] = label
        if problems:
            bad.append(MalformedRow(lineno, raw, "; ".join(problems) + " (read as missing)"))
        parsed.append((cells[0], cells[1], BeliefLabels.partial(**values)))
    out: list[BeliefLabels | None] = [None] * len(beliefs)
    used: set[int] = set()
    for i, b in enumerate(beliefs):
        for k, (actor, belief, labels) in enumerate(parsed):
            if k not in used and belief_key(belief) == belief_key(b.belief) and actor_key(actor) == actor_key(b.actor):
                out[i] = labels
                used.add(k)
                break
    if len(parsed) == len(beliefs):
        for i in range(len(beliefs)):
            if out[i] is None and i not in used:
                out[i] = parsed[i][2]
                used.add(i)
    for k, (actor, belief, _) in enumerate(parsed):
        if k not in used:
            bad.append(MalformedRow(0, f"{actor} | {belief}", "row matches no input belief (ignored)"))
    return Stage2Parse(tuple(out), tuple(bad), bool(rows))

"""Tolerant parsers for the pipe tables models write in Stage 1 (``Actor | Belief | Order``) and Stage 2
(``Actor | Belief |`` seven labels).

Models wrap tables in prose, code fences and markdown (``**bold**``, ``|---|`` rules, repeated headers, rows with
or without the outer pipes, extra columns). :func:`parse_stage1` and :func:`parse_stage2` keep every row they can
read and *record* the others (line, text, reason) instead of raising: a reply with no table at all is reported with
``found_table = False``.

:func:`read_stage1` and :func:`read_stage2` are what the benchmarks read model replies with, under either protocol:
they return what could be read and raise :class:`~mindloop.errors.ParseError` with a one-line reason (which
:func:`~mindloop.models.replies.ask` sends back to the model) when a reply holds nothing usable -- no table rows
in Stage 1; in Stage 2 no gold belief given a readable label (a reply that only repeats the ``Actor | Belief``
input table, for one). Under ``protocol="release"`` they apply the release's rules (its header and short-row
drops, trailing ``.`` cut, label aliases, exact-key row matching) to the rows mindloop's reader finds, and say in
``notes`` where the release's literal reader (:func:`~mindloop.systems.omnitom.release.parse_extraction`,
:func:`~mindloop.systems.omnitom.release.parse_labels`) would have read the reply differently.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mindloop.errors import ParseError
from mindloop.models.replies import compact_key
from mindloop.systems.omnitom import release
from mindloop.systems.omnitom.metrics import actor_key, belief_key
from mindloop.systems.omnitom.records import (
    DIMENSION_NAMES,
    DIMENSION_SHORT_NAMES,
    DIMENSIONS,
    LABEL_SETS,
    BeliefLabels,
    BeliefRecord,
    normalize_label,
)
from mindloop.systems.omnitom.release import pipe_rows

__all__ = [
    "MalformedRow",
    "Stage1Parse",
    "Stage1Reading",
    "Stage2Parse",
    "Stage2Reading",
    "parse_stage1",
    "parse_stage2",
    "pipe_rows",
    "read_stage1",
    "read_stage2",
]


@dataclass(frozen=True)
class MalformedRow:
    """A table row that was dropped or kept incomplete: its line in the reply, its text and why."""

    line: int
    text: str
    reason: str

    def to_json(self) -> dict[str, object]:
        """JSON-ready form for run records."""
        return {"line": self.line, "text": self.text, "reason": self.reason}


_ACTOR_NAMES = frozenset({"actor", "actors", "actorname", "agent", "character", "holder", "believer"})
_ORDER_NAMES = frozenset({"order", "beliefo", "beliefor", "belieford", "beliefordr", "ord", "level", "depth"})


def _column(name: str) -> str | None:
    """``actor``, ``belief`` or ``order`` for a Stage 1 header cell (``Actor``, ``**Belief**``, ``Belief Order``)."""
    key = compact_key(name)
    if key in _ACTOR_NAMES:
        return "actor"
    if key in _ORDER_NAMES or key.endswith("order"):
        return "order"
    if key.startswith("belief") or key in ("proposition", "statement"):
        return "belief"
    return None


def _is_header(cells: Sequence[str]) -> bool:
    """A header row: it names an actor and a belief column (``Actor | Belief | Order``, in emphasis or not)."""
    named = [_column(c) for c in cells]
    return "actor" in named and "belief" in named


def _stage1_positions(header: Sequence[str]) -> tuple[int, int, int | None] | None:
    """Where a header puts the actor, belief and order columns, or ``None`` for the plain ``Actor | Belief |
    Order`` layout (read positionally, so a belief written with a ``|`` stays whole)."""
    named = [_column(c) for c in header]
    actor, belief = named.index("actor"), named.index("belief")
    order = named.index("order") if "order" in named else None
    if (actor, belief, order) == (0, 1, 2) and len(header) == 3:
        return None
    return actor, belief, order


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
    beliefs, bad, found = _stage1_rows(text, release_rules=False)
    return Stage1Parse(tuple(beliefs), tuple(bad), found)


def _stage1_rows(text: str, *, release_rules: bool) -> tuple[list[BeliefRecord], list[MalformedRow], bool]:
    """The beliefs of a Stage 1 reply's table rows, the rows dropped or kept incomplete, and whether any table row
    was found. mindloop's rules: a missing or illegal order keeps the row without one, a belief written with a
    ``|`` stays whole. ``release_rules``: the release's on the same rows: rows of fewer than three cells (or
    without the header's order column) dropped, a trailing ``.`` cut from the belief, the order by the release's
    alias."""
    beliefs: list[BeliefRecord] = []
    bad: list[MalformedRow] = []
    rows = pipe_rows(text)
    positions: tuple[int, int, int | None] | None = None
    order: str | None
    for lineno, cells in rows:
        if _is_header(cells):
            positions = _stage1_positions(cells)
            continue
        raw = " | ".join(cells)
        if positions is not None:  # columns named by the header: Actor and Belief where it says, extra ones ignored
            a, b, o = positions
            if len(cells) <= max(a, b) or (release_rules and (o is None or len(cells) <= o)):
                bad.append(MalformedRow(lineno, raw, f"expected the header's columns, got {len(cells)} cell(s)"))
                continue
            cells = [cells[a], cells[b], cells[o] if o is not None and o < len(cells) else ""]
        while len(cells) > 3 and not cells[-1] and not release_rules:
            cells = cells[:-1]
        if len(cells) < (3 if release_rules else 2):
            bad.append(MalformedRow(lineno, raw, f"expected Actor | Belief | Order, got {len(cells)} cell(s)"))
            continue
        if release_rules:
            actor, belief, order_cell = cells[0], cells[1].rstrip("."), cells[2]
        else:
            actor, order_cell = cells[0], cells[-1] if len(cells) >= 3 else ""
            belief = " | ".join(cells[1:-1]) if len(cells) >= 3 else cells[1]
        if not actor or not belief:
            bad.append(MalformedRow(lineno, raw, "empty actor or belief"))
            continue
        if release_rules:
            order = release.release_label("order", order_cell)
            order = order if order in LABEL_SETS["order"] else None
        elif (order := normalize_label("order", order_cell)) is None:
            why = f"illegal order {order_cell!r}" if order_cell else "no order"
            bad.append(MalformedRow(lineno, raw, f"{why} (row kept without an order)"))
        beliefs.append(BeliefRecord(actor=actor, belief=belief, labels=BeliefLabels.partial(order=order)))
    return beliefs, bad, bool(rows)


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


_COLUMN_KEYS: dict[str, str] = {
    compact_key(name): d for d in DIMENSIONS for name in (d, DIMENSION_NAMES[d], DIMENSION_SHORT_NAMES[d])
} | {"type": "content_type", "ord": "order"}
"""Stage 2 header cells naming a dimension: its field, display or Table 3 name, ``type`` and ``ord``."""


@dataclass(frozen=True)
class _Layout:
    """Where a Stage 2 row keeps its actor, its belief and each dimension's label (cell index, dimension)."""

    actor: int
    belief: int
    labels: tuple[tuple[int, str], ...]
    exact: bool
    """Rows must have exactly the layout's cells (the positional layout); else at least enough for its columns."""

    @property
    def width(self) -> int:
        """Cells a row needs."""
        return max(self.actor, self.belief, *(i for i, _ in self.labels)) + 1


_POSITIONAL = _Layout(0, 1, tuple((2 + k, d) for k, d in enumerate(DIMENSIONS)), exact=True)


def _header_name(cell: str) -> str | None:
    column = _column(cell)
    return column if column in ("actor", "belief") else _COLUMN_KEYS.get(compact_key(cell))


def _layout(header: Sequence[str]) -> _Layout:
    """The columns a Stage 2 header names (actor, belief and all seven dimensions, in any order, extra columns
    allowed), else the prompt's order."""
    names = [_header_name(c) for c in header]
    dims = [(i, d) for i, d in enumerate(names) if d in DIMENSIONS]
    if "actor" not in names or "belief" not in names or {d for _, d in dims} != set(DIMENSIONS):
        return _POSITIONAL
    first = {d: i for i, d in reversed(dims)}  # a dimension named twice: its first column
    labels = tuple(sorted((i, d) for d, i in first.items()))
    return _Layout(names.index("actor"), names.index("belief"), labels, exact=False)


def _stage2_rows(text: str) -> tuple[list[tuple[int, str, str, dict[str, str]]], list[MalformedRow], int]:
    """``(line, actor, belief, {dimension: cell})`` of each Stage 2 row, the rows that do not fit the layout, and
    the most cells any data row had."""
    layout = _POSITIONAL
    out: list[tuple[int, str, str, dict[str, str]]] = []
    bad: list[MalformedRow] = []
    widest = 0
    for lineno, cells in pipe_rows(text):
        if _is_header(cells):
            layout = _layout(cells)
            continue
        raw = " | ".join(cells)
        while len(cells) > layout.width and not cells[-1]:
            cells = cells[:-1]
        widest = max(widest, len(cells))
        if len(cells) < layout.width or (layout.exact and len(cells) != layout.width):
            bad.append(MalformedRow(lineno, raw, f"expected Actor | Belief and 7 labels, got {len(cells)} cell(s)"))
            continue
        out.append((lineno, cells[layout.actor], cells[layout.belief], {d: cells[i] for i, d in layout.labels}))
    return out, bad, widest


def parse_stage2(text: str, beliefs: Sequence[BeliefRecord]) -> Stage2Parse:
    """Read an ``Actor | Belief | <seven labels>`` table and match its rows to the input ``beliefs``.

    Label columns are found by header name when the header names all seven, else taken in the prompt's order.
    Illegal labels are read as missing (so scored incorrect) and recorded. Rows are matched to input beliefs by
    actor and text; when the reply has exactly one row per input belief, unmatched rows are matched by position.
    """
    parsed: list[tuple[str, str, BeliefLabels]] = []
    rows, bad, _ = _stage2_rows(text)
    for lineno, actor, belief, cells in rows:
        values: dict[str, object] = {}
        problems = []
        for dim, cell in cells.items():
            label = normalize_label(dim, cell)
            if label is None:
                problems.append(f"illegal {DIMENSION_NAMES[dim]} {cell!r}")
            values[dim] = label
        if problems:
            raw = " | ".join([actor, belief, *cells.values()])
            bad.append(MalformedRow(lineno, raw, "; ".join(problems) + " (read as missing)"))
        parsed.append((actor, belief, BeliefLabels.partial(**values)))
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
    return Stage2Parse(tuple(out), tuple(bad), bool(pipe_rows(text)))


# ---- what the benchmarks read replies with ------------------------------------------------------------------------
@dataclass(frozen=True)
class Stage1Reading:
    """The beliefs read from a Stage 1 reply, the rows dropped or kept incomplete, and ``notes``: where the
    release's literal reader would have read it differently (``protocol="release"`` only)."""

    beliefs: tuple[BeliefRecord, ...]
    malformed: tuple[MalformedRow, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Stage2Reading:
    """One label set (or ``None``) per gold belief read from a Stage 2 reply, the rows dropped or read
    incompletely, and ``notes`` as in :class:`Stage1Reading`."""

    labels: tuple[BeliefLabels | None, ...]
    malformed: tuple[MalformedRow, ...]
    notes: tuple[str, ...] = ()


_NO_TABLE = "no pipe-separated table in the reply: answer with one table, one 'Actor | Belief | Order' row per belief"


def _differences(text: str) -> list[str]:
    """How mindloop's reader departs from the release's literal one on ``text`` (markdown, header rows)."""
    raw = [line for line in text.splitlines() if "|" in line]
    out = []
    if any(re.search(r"\*\*|__|`", line) for line in raw):
        out.append("markdown emphasis removed from cells")
    headers = [i for i, (_, cells) in enumerate(pipe_rows(text)) if _is_header(cells)]
    if headers and (headers != [0] or not re.match(r"^\s*\|?\s*actor\b", raw[0], re.IGNORECASE)):
        out.append("header rows recognised wherever they are (the release drops only a first row starting 'Actor')")
    return out


def _rows_of(beliefs: Sequence[BeliefRecord]) -> list[tuple[str, str, str | None]]:
    return [(b.actor, b.belief, b.labels.order) for b in beliefs]


def read_stage1(text: str, protocol: str = "mindloop") -> Stage1Reading:
    """The beliefs of a Stage 1 reply; raises :class:`~mindloop.errors.ParseError` when it has no readable row.

    ``protocol="mindloop"``: :func:`parse_stage1`. ``protocol="release"``: the release's rules on the rows
    mindloop's reader finds (so a bold or repeated header is a header, not a belief), with ``notes`` when the
    release's literal reader would have read different rows.
    """
    if not pipe_rows(text):
        raise ParseError(_NO_TABLE, text=text[:200])
    if protocol == "release":
        beliefs, bad, _ = _stage1_rows(text, release_rules=True)
        literal, _ = release.parse_extraction(text)
        notes = tuple(_differences(text)) if _rows_of(literal) != _rows_of(beliefs) else ()
    else:
        parsed = parse_stage1(text)
        beliefs, bad, notes = list(parsed.beliefs), list(parsed.malformed), ()
    if not beliefs:
        raise ParseError(
            "no table row has an actor, a belief and an order: write one 'Actor | Belief | Order' row per belief",
            text=text[:200],
        )
    return Stage1Reading(tuple(beliefs), tuple(bad), notes)


def _lists_a_set(cell: str) -> bool:
    """Whether a cell lists several labels of one closed set (``0/1/2/3``, ``True/False/Unknown``) instead of one."""
    if any(normalize_label(d, cell) is not None for d in DIMENSIONS):
        return False  # one label, maybe with a slash of its own (Contents/Physical State)
    parts = [x for x in re.split(r"\s*[/,]\s*", cell) if x]
    return len(parts) >= 2 and any(all(normalize_label(d, x) is not None for x in parts) for d in DIMENSIONS)


def _labels_actors_not_beliefs(table: Sequence[tuple[int, list[str]]], gold: Sequence[BeliefRecord]) -> bool:
    """Whether every row starts with an input actor and none carries an input belief (``world | True | ...`` or
    ``world | Order 0``): one label set per actor, which cannot say which of the actor's beliefs it labels."""
    actors = {actor_key(b.actor) for b in gold}
    beliefs = {belief_key(b.belief) for b in gold}
    rows = [c for _, c in table if not _is_header(c) and not all(_header_name(x) for x in c)]
    labelled = any(normalize_label(d, x) is not None for c in rows for x in c[1:] for d in DIMENSIONS)
    return labelled and all(
        actor_key(c[0]) in actors and not any(belief_key(x) in beliefs for x in c[1:]) for c in rows
    )


def _readable(labels: BeliefLabels | None) -> bool:
    return labels is not None and any(labels.get(d) is not None for d in DIMENSIONS)


def read_stage2(text: str, gold: Sequence[BeliefRecord], protocol: str = "mindloop") -> Stage2Reading:
    """One label set per ``gold`` belief from a Stage 2 reply; raises :class:`~mindloop.errors.ParseError` when
    no gold belief gets a readable label (the reason says what is missing).

    ``protocol="mindloop"``: :func:`parse_stage2` (rows matched by actor and text, then by position).
    ``protocol="release"``: the release's rules on the rows mindloop's reader finds -- labels canonicalised by its
    aliases, rows matched to gold by the exact normalised ``(actor, belief, occurrence)`` key only -- with
    ``notes`` when the release's literal reader would have given different labels.
    """
    table = pipe_rows(text)
    if not table:
        raise ParseError(
            "no pipe-separated table in the reply: answer with the belief table, each row with its seven labels",
            text=text[:200],
        )
    rows, bad, widest = _stage2_rows(text)
    notes: tuple[str, ...] = ()
    if protocol == "release":
        read = [(actor, belief.rstrip("."), release.release_labels(cells)) for _, actor, belief, cells in rows]
        labels = release.stage2_labels_by_key(read, gold)
        literal = release.stage2_labels_by_key(release.parse_labels(text), gold)
        if literal != labels:
            notes = tuple(_differences(text)) or ("label columns taken by header name",)
    else:
        parsed = parse_stage2(text, gold)
        labels, bad = list(parsed.labels), list(parsed.malformed)
    if not any(_readable(x) for x in labels):
        listed = next((c for _, cells in table for c in cells if _lists_a_set(c)), None)
        if listed is not None:
            why = f"label cells list a whole closed set ({listed[:40]!r}): give one value in each cell"
        elif _labels_actors_not_beliefs(table, gold):
            why = (
                f"the rows label actors, not beliefs: copy each of the {len(gold)} Actor | Belief rows of the input "
                "table and add its seven labels"
            )
        elif widest <= 2:
            why = (
                "the table has no label columns: after Actor | Belief, give each row its Order, Truth-Status, "
                "Knowledge-Access, Representation, Content Type, Mental-Source and Context labels"
            )
        elif not rows:
            why = "no row has Actor, Belief and seven labels (Order ... Context)"
        elif all(not _readable(lab) for lab in (release.release_labels(c) for *_, c in rows)):
            why = "no label is one of the closed sets the prompt lists"
        else:
            why = "no row repeats an Actor and a Belief of the input table exactly: label the given rows"
        raise ParseError(why, text=text[:200])
    return Stage2Reading(tuple(labels), tuple(bad), notes)

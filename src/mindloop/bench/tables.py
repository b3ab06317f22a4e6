"""Paper tables as text: the one renderer of every table a benchmark declares (:class:`PaperTable`).

The suite report lays the declared tables out in HTML (:mod:`mindloop.bench.report.suite`); the research systems'
``table`` commands print theirs as text from the same declarations through :func:`grid`, whose cells are the suite
report's: the metric at the row's prefix and the column's path, times the column's scale, with its digits.
:func:`markdown` and :func:`aligned` lay a grid out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from mindloop.bench.declaration import Column, PaperTable, Row

Grid = tuple[list[str], list[list[str]]]
"""A table's header and its rows of cells, as text."""


def number(value: Any) -> float | None:
    """``value`` as a float when it is a finite number (not a bool), else ``None``: what a page shows as –."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(float(value)):
        return None
    return float(value)


def json_safe(value: Any) -> Any:
    """``value`` with every non-finite float (which ``JSON.parse`` rejects) as ``None``, inside mappings and lists
    too (a list or tuple becomes a list, a key its text)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def dig(metrics: Any, path: Sequence[str]) -> Any:
    """The value at ``path`` inside nested mappings, or ``None``."""
    node = metrics
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def bound_at(tree: Any, path: Sequence[str]) -> Any:
    """The entry of the metric at ``path`` in one interval tree: by its dotted name (stored flat; metric names may
    hold dots themselves), else nested like the metrics; ``None`` when there is none."""
    if not isinstance(tree, Mapping):
        return None
    entry = tree.get(".".join(path))
    return dig(tree, path) if entry is None else entry


def interval_at(intervals: Any, path: Sequence[str]) -> tuple[float, float] | None:
    """The 95% interval of the metric at ``path`` in a summary's ``intervals``: nested like the metrics under
    ``intervals["metrics"]`` (:func:`mindloop.bench.uncertainty.bootstrap_intervals`), or at the top level, or
    flat by dotted name; each entry ``{"low", "high", ...}`` or ``[low, high]``. ``None`` when there is none."""
    if not isinstance(intervals, Mapping):
        return None
    for tree in (intervals.get("metrics"), intervals):
        entry = bound_at(tree, path)
        if isinstance(entry, Mapping):
            entry = [entry.get("low"), entry.get("high")]
        if isinstance(entry, list | tuple) and len(entry) == 2:
            low, high = number(entry[0]), number(entry[1])
            if low is not None and high is not None:
                return low, high
    return None


def cell_text(value: float | None, scale: float, digits: int, missing: str = "–", thousands: str = ",") -> str:
    """A cell's text: the value scaled, with ``digits`` decimals (and ``thousands`` between groups of three
    digits: ``,`` or none); no value is ``missing``, never 0."""
    return missing if value is None else f"{value * scale:{thousands}.{digits}f}"


def grid(
    table: PaperTable,
    methods: Mapping[str, Mapping[str, Any]],
    *,
    columns: Sequence[Column] | None = None,
    rows: Sequence[Row] | None = None,
    first: str = "Method",
    missing: str = "–",
    grouped: bool = False,
    transpose: bool = False,
) -> Grid:
    """A declared table over ``methods`` (``{name: metrics}``, one run's summary metrics each): its ``columns``
    and ``rows`` (default: all it declares), under a header that names the first column ``first`` (each column by
    its label, ``grouped``: after its group). Each declared row gives a row per method, labelled by the row's label
    with ``{method}`` the method's name; a row whose label does not name the method heads its methods' rows (each
    named by the method). ``transpose``: the methods are the columns of one declared column, a row per declared
    row. A cell without a value reads ``missing``."""
    columns = table.columns if columns is None else columns
    rows = table.rows if rows is None else rows

    def cell(metrics: Mapping[str, Any], row: Row, col: Column) -> str:
        return cell_text(number(dig(metrics, (*row.prefix, *col.path))), col.scale, col.digits, missing, "")

    if transpose:
        (col,) = columns
        return [first, *methods], [[row.label, *(cell(m, row, col) for m in methods.values())] for row in rows]
    body: list[list[str]] = []
    for row in rows:
        named = "{method}" in row.label
        if not named:
            body.append([row.label, *[""] * len(columns)])
        for name, metrics in methods.items():
            body.append([row.label.format(method=name) if named else name, *(cell(metrics, row, c) for c in columns)])
    header = [first, *(f"{c.group} {c.label}" if grouped and c.group else c.label for c in columns)]
    return header, body


def markdown(table: Grid) -> str:
    """A grid as a Markdown table."""
    header, body = table
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in body])


def aligned(table: Grid, first: int, width: int) -> str:
    """A grid as aligned text: the first column left-aligned in ``first`` characters, the others right-aligned in
    ``width``."""
    header, body = table
    return "\n".join(f"{row[0]:<{first}}" + "".join(f"{c:>{width}}" for c in row[1:]) for row in (header, *body))

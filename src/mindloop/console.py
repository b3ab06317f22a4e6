"""Where command output goes, and how wide it is: results and tables on stdout, progress and diagnostics on stderr.

Every command prints through these consoles: :func:`out_console` for what it was asked for (a table, a summary, a
listing: it pipes to ``grep`` and ``less``), :func:`err_console` for what happens on the way (progress, warnings,
``wrote FILE``). Both take their width from :func:`output_width`: ``COLUMNS`` when it is set (also when the
output is a file or a pipe), else the terminal's, else :data:`DEFAULT_WIDTH`. :func:`fit_table` builds a table that
fits that width without breaking a word or a timestamp: it abbreviates headers, cuts free-text columns with an
ellipsis, then leaves out columns by priority and says which; :func:`print_table` prints it on a console.
:func:`emit` writes data to stdout or a file, :func:`emit_json` a ``--json`` object, :func:`emit_table` a report's
table or its JSON.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.console import Console

from mindloop.errors import MindloopError, escaped
from mindloop.paths import write_atomic

if TYPE_CHECKING:  # rich's table modules load when a table is built, not when a command starts
    from rich.table import Column as RichColumn
    from rich.table import Table
    from rich.text import Text


def json_opt(help: str = "Print one JSON object on stdout.") -> Any:
    """Every command's ``--json``, declared once; ``help`` says what a command's object holds where it says more."""
    return typer.Option("--json", help=help)


def out_opt(help: str = "Write here instead of stdout.", **kwargs: Any) -> Any:
    """Every command's ``--out``/``-o``, declared once; ``help`` (and typer's ``kwargs``) say what it writes."""
    return typer.Option("--out", "-o", help=help, **kwargs)


JsonFlag = Annotated[bool, json_opt()]
"""The plain ``--json``: ``as_json: JsonFlag = False`` (one that says more: ``Annotated[bool, json_opt(HELP)]``)."""

OutFile = Annotated[Path | None, out_opt(dir_okay=False)]
"""A command's ``--out FILE`` that stands in for stdout: ``out: OutFile = None``."""

DEFAULT_WIDTH = 160
"""Columns when neither ``COLUMNS`` nor a terminal says (a log file, CI): wide enough that tables do not wrap."""

_MIN_WIDTH = 40  # a COLUMNS below this is taken as this: a table needs some room


def output_width(stream: IO[str] | None = None) -> int:
    """The width to print at: ``COLUMNS`` if set, else the width of the first terminal among ``stream``, stdout
    and stderr (so ``mindloop runs | grep x`` in a terminal still fits it), else :data:`DEFAULT_WIDTH`."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return max(_MIN_WIDTH, int(columns))
    for candidate in (stream, sys.stdout, sys.stderr):
        try:
            if candidate is not None and candidate.isatty():
                return max(_MIN_WIDTH, os.get_terminal_size(candidate.fileno()).columns)
        except (OSError, ValueError, AttributeError):  # a closed or fake stream (pytest's capture) has no size
            continue
    return DEFAULT_WIDTH


def out_console() -> Console:
    """A console on stdout (looked up when it prints, so a redirected ``sys.stdout`` is honoured) for results."""
    return Console(highlight=False, width=output_width(sys.stdout))


def err_console() -> Console:
    """A console on stderr for progress, warnings and diagnostics."""
    return Console(stderr=True, highlight=False, width=output_width(sys.stderr))


@dataclass(frozen=True)
class Column:
    """A column :func:`fit_table` may lay out: its ``header`` (``short`` when space is short), whether it is
    right-aligned, ``drop`` (columns with the lowest number are left out first when the table is too wide;
    ``None``: never left out), ``shrink`` (free text that may be cut with an ellipsis down to this width; 0:
    never cut) and ``wrap`` (free text shown whole, wrapped at spaces to the width the table leaves it)."""

    header: str
    short: str | None = None
    justify: Literal["left", "right"] = "left"
    drop: int | None = None
    shrink: int = 0
    wrap: bool = False


def _build(
    columns: Sequence[Column],
    rows: Sequence[Sequence[str | Text]],
    keep: list[int],
    short: bool,
    limits: dict[int, int],
    title: str | None,
) -> Table:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0),  # with the box's blank divider: two spaces between columns
        title=title,
        title_justify="left",
        title_style="bold",
        header_style="bold",
    )
    for i in keep:
        c = columns[i]
        header = c.short if short and c.short else c.header
        table.add_column(
            header,
            justify=c.justify,
            no_wrap=not c.wrap,  # a word or a timestamp is never broken over lines
            overflow="fold" if c.wrap else "ellipsis",
            max_width=limits.get(i),
        )
    for row in rows:
        table.add_row(*(row[i] if isinstance(row[i], Text) else Text(escaped(str(row[i]))) for i in keep))
    return table


def plain_table(header: Sequence[str | RichColumn], rows: Iterable[Sequence[str]], title: str | None = None) -> Table:
    """Rich's default table of ``rows`` under ``header`` (a column's name, or rich's ``Column`` where it is aligned
    otherwise; cells read as markup), laid out at the console's width as it comes: for a short table of known
    columns, where :func:`fit_table` is not needed."""
    from rich.table import Table

    table = Table(*header, title=title)
    for row in rows:
        table.add_row(*row)
    return table


def table_width(table: Table) -> int:
    """The width ``table`` takes when nothing limits it."""
    from io import StringIO

    from rich.measure import Measurement

    console = Console(width=100_000, file=StringIO())  # measured only: nothing is written
    return Measurement.get(console, console.options, table).maximum


def fit_table(
    columns: Sequence[Column],
    rows: Sequence[Sequence[str | Text]],
    width: int,
    *,
    title: str | None = None,
) -> tuple[Table, list[str]]:
    """A table of ``rows`` (one cell per column; ``Text`` keeps its style, a ``str`` is shown as it is, never read
    as markup, its control characters escaped) that fits ``width`` columns, and the headers of the columns it left
    out.

    No cell wraps: headers are abbreviated first, then ``shrink`` columns are cut (with an ellipsis), then
    columns are left out, lowest ``drop`` first. A table that still does not fit (every column it has left
    never drops) is cut at the right by the console.
    """
    from rich.text import Text

    keep = list(range(len(columns)))
    short = False
    dropped: list[str] = []
    while True:
        table = _build(columns, rows, keep, short, {}, title)
        excess = table_width(table) - width
        if excess <= 0:
            return table, dropped
        if not short and any(columns[i].short for i in keep):
            short = True
            continue
        limits: dict[int, int] = {}
        for i in sorted(keep, key=lambda i: (columns[i].drop is None, columns[i].drop or 0)):  # least needed first
            c = columns[i]
            if not c.shrink or excess <= 0:
                continue
            cells = [Text(escaped(str(r[i]))).cell_len for r in rows]
            natural = max([len(c.short if short and c.short else c.header), *cells])
            take = min(max(0, natural - c.shrink), excess)
            if take:
                limits[i] = natural - take
                excess -= take
        droppable = [i for i in keep if columns[i].drop is not None]
        if excess <= 0 or not droppable:
            return _build(columns, rows, keep, short, limits, title), dropped
        gone = min(droppable, key=lambda i: (columns[i].drop or 0, -i))
        keep.remove(gone)
        dropped.append(columns[gone].header)


def print_table(
    console: Console, columns: Sequence[Column], rows: Sequence[Sequence[str | Text]], title: str | None = None
) -> list[str]:
    """Print on ``console`` the :func:`fit_table` of ``rows`` at its width; returns the headers of the columns left
    out (each command says which, in its own words)."""
    table, dropped = fit_table(columns, rows, console.width, title=title)
    console.print(table)
    return dropped


def emit(text: str, out: Path | None, wrote: str | None = None, notes: Iterable[str] = ()) -> None:
    """Write ``text`` to ``out``, or to stdout when ``out`` is ``None``; an unwritable file is a one-line error.
    Then on stderr each of ``notes`` (plain text) and, with ``out`` and ``wrote``, ``wrote WROTE to OUT``.

    The file is written whole or not at all (:func:`~mindloop.paths.write_atomic`)."""
    if out is None:
        sys.stdout.write(text)
    else:
        try:
            write_atomic(out, text)
        except OSError as exc:
            raise MindloopError(f"cannot write {out}: {exc.strerror or exc}") from None
    for note in notes:
        err_console().print(note, markup=False, soft_wrap=True)
    if out is not None and wrote is not None:
        err_console().print(f"wrote {wrote} to {out}", markup=False, soft_wrap=True)


def emit_json(data: Any, out: Path | None = None) -> None:
    """``data`` as one line of JSON, to ``out`` or stdout (:func:`emit`): every command's ``--json`` object."""
    emit(json.dumps(data) + "\n", out)


def emit_table(text: str, rows: Any, as_json: bool, out: Path | None, wrote: str, notes: Iterable[str] = ()) -> None:
    """A report command's output (``mindpower table``, ``mindclaw table``): with ``as_json`` one object
    ``{"rows": rows, "table": text}``, else ``text``, each to ``out`` or stdout; then on stderr each of ``notes``
    (plain text) and, with ``out``, ``wrote WROTE to OUT`` (:func:`emit`)."""
    if as_json:
        emit_json({"rows": rows, "table": text}, out)
    else:
        emit(text + "\n", out, wrote, notes)


@contextmanager
def writing(
    what: str, target: Path, choose: str = "a writable file or folder", why: Callable[[OSError], object] | None = None
) -> Iterator[None]:
    """Inside, an ``OSError`` is the one-line error ``cannot write WHAT to TARGET (why): choose ... with -o``
    (``why``: the system's reason unless given)."""
    try:
        yield
    except OSError as exc:
        reason = why(exc) if why is not None else exc.strerror or exc
        raise MindloopError(f"cannot write {what} to {target} ({reason}): choose {choose} with -o") from None

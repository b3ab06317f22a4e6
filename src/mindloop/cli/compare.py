"""``mindloop compare RUN_OR_SUITE_ID ...``: runs side by side with intervals, paired tests and disagreements.

Registered as the ``compare`` entry of ``mindloop.commands``. The tables go to stdout, as wide as the terminal (or
``COLUMNS``, :func:`mindloop.console.output_width`): a value and its interval take two lines, then each run gets a
table of its own against the baseline, before a cell wraps at its spaces. ``--json`` prints one object on stdout
instead; ``-o FILE`` writes the self-contained HTML page (:mod:`mindloop.bench.report.compare`), and says so on
stderr.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from mindloop.cli.shared import open_store, own_group
from mindloop.console import Column, err_console, fit_table, json_opt, out_console, out_opt, table_width, writing

if TYPE_CHECKING:
    from rich.table import Table

    from mindloop.bench.compare import BenchmarkComparison, Comparison, Difference
    from mindloop.bench.uncertainty import PairedDifference

__all__ = ["compare_app"]

# options after the ids (a group stops at its first argument)
compare_app = own_group(
    "compare", single=True, no_args_is_help=True, context_settings={"allow_interspersed_args": True}
)


@compare_app.callback()
def compare(
    ids: Annotated[list[str], typer.Argument(help="Two or more run ids or suite ids; the first is the baseline.")],
    out: Annotated[
        Path | None,
        out_opt(
            "Write the comparison as one self-contained HTML file (compare.html in an existing folder), whole or "
            "not at all."
        ),
    ] = None,
    as_json: Annotated[
        bool,
        json_opt(
            "Print one JSON object on stdout; each benchmark's comparison leads with key_differences "
            "[{run_id, baseline, fields, text}]: how each run's comparability key differs from the baseline's."
        ),
    ] = False,
    resamples: Annotated[int, typer.Option("--resamples", min=100, help="Bootstrap resamples.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap resamples.")] = 0,
) -> None:
    """Compare runs (or suites, benchmark by benchmark) against the first one, on the samples they share; any
    difference in the runs' comparability keys (samples, options, data, protocol, declaration) is named first."""
    from mindloop.bench.compare import compare_runs

    with open_store() as store:
        comparison = compare_runs(store, ids, resamples=resamples, seed=seed)
    if out is not None:
        from mindloop.bench.report.compare import write_compare

        with writing("the comparison", out, "a writable file"):
            path = write_compare(comparison, out)
        err_console().print(f"wrote {path}")
    if as_json:
        from mindloop.bench.tables import json_safe
        from mindloop.console import emit_json

        emit_json(json_safe(comparison.to_json()))
    else:
        _print(comparison, out_console())


def _num(value: Any, sign: str = "") -> str:
    """A value to four places (whole, with separators, from 1000; ``sign="+"``: signed, an integer too); ``–`` for
    none or a value that is not finite."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    if isinstance(value, float) or sign:
        return f"{value:{sign}.4f}" if abs(value) < 1000 else f"{value:{sign},.0f}"
    return str(value)


def _signed(value: float) -> str:
    return _num(value, "+")


def _p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _value_cell(value: Any, bound: Any, lines: int) -> str:
    sep = " " if lines == 1 else "\n"
    if not isinstance(bound, dict):  # a metric without an interval (its run's intervals.none says why): —
        return f"{_num(value)}{sep}—" if isinstance(value, float) and math.isfinite(value) else _num(value)
    return f"{_num(value)}{sep}[{_num(bound['low'])}, {_num(bound['high'])}]"


def _diff_cell(d: PairedDifference | None, lines: int) -> str:
    """``+0.2000 [+0.0333, +0.3667] p 0.109, Holm 1.000`` on ``lines`` lines: ``*`` after the p-value that decides
    (the headline's own, another row's Holm-adjusted one) when it is below 0.05."""
    from mindloop.bench.compare import SIGNIFICANT

    if d is None:
        return "–"
    star = "*" if d.p_star < SIGNIFICANT and d.diff != 0 else ""
    p = f"p {_p(d.p)}" + (star if d.p_adjusted is None else "")
    holm = "" if d.p_adjusted is None else f", Holm {_p(d.p_adjusted)}{star}"
    ci, tests = ("\n" if lines == 3 else " "), (" " if lines == 1 else "\n")  # what comes before each
    return f"{_signed(d.diff)}{ci}[{_signed(d.low)}, {_signed(d.high)}]{tests}{p}{holm}"


LAYOUTS = ((False, 1), (False, 2), (False, 3), (True, 2), (True, 3))
"""The ways to lay the metrics out, tried in order until one fits (the last one otherwise): (one table per run
against the baseline instead of one for all, the lines a difference takes: a value's interval has a line of its
own from 2)."""


def _run_tag(label: str) -> str:
    """``run 3f2a``: the run part of a column label."""
    return label[label.rfind("(run ") + 1 : -1]


def _header(label: str, cells: list[str]) -> str:
    """``label`` wrapped at its spaces to the width of its column's cells: a heading widens no column."""
    width = max((len(line) for cell in cells for line in cell.split("\n")), default=1)
    return textwrap.fill(label, width, break_on_hyphens=False)


def _table(bc: BenchmarkComparison, lines: int, pair: int | None) -> tuple[list[Column], list[list[str | Text]]]:
    """The columns and rows of the metrics of every run and difference (or of the baseline, run ``pair + 1`` and
    its difference); a cell wraps at its spaces. A breakdown row is named within its section (``reality.accuracy``
    under ``by_type``); the headline is bold."""
    from mindloop.bench.tables import dig

    runs = range(len(bc.runs)) if pair is None else (0, pair + 1)
    diffs = range(len(bc.differences)) if pair is None else (pair,)
    paths = bc.metric_paths(by_name=True)
    sides = [bc.runs[k] for k in runs]
    body = [
        [_value_cell(dig(s.metrics, path), dig(s.intervals.get("metrics"), path), lines) for s in sides]
        + [_diff_cell(bc.differences[k].metrics.get(path), lines) for k in diffs]
        for path in paths
    ]
    heads = [bc.runs[k].label for k in runs] + [f"Δ {_run_tag(bc.runs[k + 1].label)}" for k in diffs]
    columns = [Column("metric")] + [
        Column(_header(label, [row[i] for row in body]), justify="right", wrap=True) for i, label in enumerate(heads)
    ]
    head = bc.headline.metric if bc.headline else None
    rows: list[list[str | Text]] = []
    section = None
    for path, cells in zip(paths, body, strict=True):
        group = path[0] if len(path) > 1 else None
        if group != section and group is not None:
            rows.append([Text(group, style="bold"), *[""] * len(cells)])
        section = group
        name = path[0] if len(path) == 1 else "  " + ".".join(path[1:])
        rows.append([Text(name, style="bold" if path == (head,) else ""), *map(Text, cells)])
    return columns, rows


def _least(rows: list[list[str | Text]]) -> int:
    """The fewest columns a table of ``rows`` takes with its metric names whole and no word of another cell
    broken (a heading wraps; two spaces between columns, as :func:`~mindloop.console.fit_table` lays them out)."""
    names, *cells = zip(*rows, strict=True)
    words = [max(len(w) for cell in column for w in str(cell).split()) for column in cells]
    return max(len(str(name)) for name in names) + sum(words) + 2 * len(words)


def _tables(bc: BenchmarkComparison, width: int) -> list[Table]:
    """The metrics tables (:func:`~mindloop.console.fit_table`) in the first of :data:`LAYOUTS` whose tables fit
    ``width`` columns; when none does, the last one, where a table's metric names are cut (…) only as far as
    keeps every number whole. Every run and difference keeps its column."""
    built: list[tuple[list[Column], list[list[str | Text]]]] = []
    for pairs, lines in LAYOUTS:
        if pairs and len(bc.runs) < 3:
            continue
        built = [_table(bc, lines, pair) for pair in (range(len(bc.differences)) if pairs else [None])]
        tables = [fit_table(columns, rows, width)[0] for columns, rows in built]
        if all(table_width(t) <= width for t in tables):
            return tables
    out = []
    for columns, rows in built:
        names = max(len(str(row[0])) for row in rows)
        shrink = max(8, names - (_least(rows) - width)) if _least(rows) > width else 0
        out.append(fit_table([Column("metric", shrink=shrink), *columns[1:]], rows, width)[0])
    return out


def _print(comparison: Comparison, console: Console) -> None:
    """Each benchmark's metrics side by side, its references, verdicts and paired score tests, then the method."""
    for bc in comparison.benchmarks:
        _print_benchmark(bc, console)
    if comparison.unmatched:
        shown = "; ".join(f"{k} ({', '.join(v)})" for k, v in comparison.unmatched.items())
        console.print(f"not compared (only one argument has a run of them): {shown}", markup=False)
    console.print(
        f"intervals: 95%, {comparison.method()['intervals']}, paired for differences (Δ: run minus the first), "
        f"{comparison.resamples} resamples, seed {comparison.seed}. * p < 0.05: the headline is the one unadjusted "
        "test; the other rows of each comparison are one family (every metric but the headline), Holm-adjusted, and "
        "starred by the adjusted p. Metrics that are not proportions get no interval or test below n = 10; — marks a "
        "metric with no interval (too few samples, or the resamples collapse).",
        markup=False,
    )


def _references(bc: BenchmarkComparison) -> str:
    """The reference policies beside the headline: one line when every run has the same, else one per run."""
    if bc.headline is None:
        return ""
    better = "higher" if bc.headline.higher_is_better else "lower"
    texts = [side.reference_text(bc.headline) for side in bc.runs]
    lead = f"headline {bc.headline.metric} ({better} is better); reference policies on these samples: "
    if len(set(texts)) == 1:
        return lead + (texts[0] or "none declared for this benchmark")
    return lead + "; ".join(f"{s.label}: {t or 'none'}" for s, t in zip(bc.runs, texts, strict=True))


def _print_benchmark(bc: BenchmarkComparison, console: Console) -> None:
    console.print(Text(f"{bc.benchmark} · {bc.paired_on}", style="bold"))
    console.print(Text(bc.key_text(), style="yellow" if bc.key_differences else ""))
    for table in _tables(bc, console.width):
        console.print(table)
    if refs := _references(bc):
        console.print(refs, markup=False)
    for side in bc.runs:
        if decided := side.decided():
            console.print(f"{side.label}: {decided}", markup=False)
    whole = [s.label for s in bc.runs if not s.whole]
    if whole:
        console.print(
            f"{', '.join(whole)}: numbers over the {bc.shared:,} paired samples, not every sample the run finished "
            "(its own summary: mindloop report, or compare --json's run_metrics)",
            markup=False,
        )
    if bc.differs:
        console.print(
            "settings that differ: "
            + "; ".join(
                f"{k} ({' | '.join('–' if v is None else str(v) for v in vals)})" for k, vals in bc.differs.items()
            ),
            markup=False,
        )
    for diff in bc.differences:
        _print_scores(diff, bc, console)
    for verdict in bc.verdicts(_signed, lambda p: f"p {_p(p)}"):
        style = {"good": "green", "bad": "red"}.get(verdict.tone, "")
        console.print(Text(verdict.text, style=style))
    key = f" ({bc.key_score} score, status or answer)" if bc.key_score else " (status, answer or scores)"
    console.print(
        f"{len(bc.disagreements)} samples where the runs disagree{key}; list them with --json or -o FILE", markup=False
    )


def _print_scores(diff: Difference, bc: BenchmarkComparison, console: Console) -> None:
    """McNemar's exact test on each 0/1 per-sample score of one run against the baseline."""
    labels = {s.info.run_id: s.label for s in bc.runs}
    run, base = labels[diff.run_id], labels[diff.baseline]
    binary = [t for t in diff.scores if t.b is not None and t.c is not None]
    for t in binary:
        if t.b or t.c:
            console.print(
                f"{t.score}: {t.b} right only in {base}, {t.c} only in {run} ({t.n} pairs), McNemar exact p {_p(t.p)}",
                markup=False,
            )
    same = [t.score for t in binary if not t.b and not t.c]
    if same:
        console.print(f"{run} vs {base}: no discordant pair on {', '.join(same)} (McNemar p 1.000)", markup=False)

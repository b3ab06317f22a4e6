"""``mindloop compare RUN_OR_SUITE_ID ...``: runs side by side with intervals, paired tests and disagreements.

Registered as the ``compare`` entry of ``mindloop.commands``. The tables go to stdout, as wide as the terminal (or
``COLUMNS``; 80 columns off a terminal without it): cells lose their intervals, then take two lines, before a
word is broken. ``--json`` prints one object on stdout instead; ``-o FILE`` writes the self-contained HTML page
(:mod:`mindloop.bench.report.compare`), and says so on stderr.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from mindloop.console import err_console, out_console, writing

if TYPE_CHECKING:
    from mindloop.bench.compare import BenchmarkComparison, Comparison, Difference
    from mindloop.bench.uncertainty import MetricPath, PairedDifference

__all__ = ["compare_app"]

compare_app = typer.Typer(
    name="compare",
    help="Compare runs (or suites) paired on the samples they share: metrics with 95% intervals and reference "
    "policies, paired differences, McNemar tests, which run is better where, and the samples where they disagree.",
    invoke_without_command=True,
    no_args_is_help=True,
    context_settings={"allow_interspersed_args": True},
    subcommand_metavar="",  # options after the ids (a group stops at its first argument)
)


@compare_app.callback()
def compare(
    ids: Annotated[list[str], typer.Argument(help="Two or more run ids or suite ids; the first is the baseline.")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write the comparison as one self-contained HTML file (compare.html in an existing folder), whole "
            "or not at all.",
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print one JSON object on stdout; each benchmark's comparison leads with key_differences "
            "[{run_id, baseline, fields, text}]: how each run's comparability key differs from the baseline's.",
        ),
    ] = False,
    resamples: Annotated[int, typer.Option("--resamples", min=100, help="Bootstrap resamples.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap resamples.")] = 0,
) -> None:
    """Compare runs (or suites, benchmark by benchmark) against the first one, on the samples they share; any
    difference in the runs' comparability keys (samples, options, data, protocol, declaration) is named first."""
    from mindloop.bench.compare import compare_runs
    from mindloop.bench.store import RunStore
    from mindloop.paths import runs_path

    with RunStore(runs_path(create=False), readonly=True) as store:
        comparison = compare_runs(store, ids, resamples=resamples, seed=seed)
    if out is not None:
        from mindloop.bench.report.compare import write_compare

        with writing("the comparison", out, "a writable file"):
            path = write_compare(comparison, out)
        err_console().print(f"wrote {path}")
    if as_json:
        from mindloop.bench.tables import json_safe

        print(json.dumps(json_safe(comparison.to_json())))
    else:
        _print(comparison, out_console())


def _num(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        if not math.isfinite(value):
            return "–"
        return f"{value:.4f}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def _signed(value: float) -> str:
    if not math.isfinite(value):
        return "–"
    return f"{value:+.4f}" if abs(value) < 1000 else f"{value:+,.0f}"


def _p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


STYLES = ("wide", "two lines", "narrow")
"""How much each cell holds, widest first: value and interval on one line; on two lines; the value and p alone."""


def _value_cell(value: Any, bound: Any, style: str) -> str:
    if style == "narrow":
        return _num(value)
    sep = " " if style == "wide" else "\n"
    if not isinstance(bound, dict):  # a metric without an interval (its run's intervals.none says why): —
        return f"{_num(value)}{sep}—" if isinstance(value, float) and math.isfinite(value) else _num(value)
    return f"{_num(value)}{sep}[{_num(bound['low'])}, {_num(bound['high'])}]"


def _diff_cell(d: PairedDifference | None, style: str) -> str:
    """``+0.2000 [+0.0333, +0.3667] p 0.109, Holm 1.000``: ``*`` after the p-value that decides (the headline's
    own, another row's Holm-adjusted one) when it is below 0.05."""
    from mindloop.bench.compare import SIGNIFICANT

    if d is None:
        return "–"
    star = "*" if d.p_star < SIGNIFICANT and d.diff != 0 else ""
    p = f"p {_p(d.p)}" + (star if d.p_adjusted is None else "")
    holm = "" if d.p_adjusted is None else f"Holm {_p(d.p_adjusted)}{star}"
    ci = f"[{_signed(d.low)}, {_signed(d.high)}]"
    if style == "wide":
        return f"{_signed(d.diff)} {ci} {p}" + (f", {holm}" if holm else "")
    if style == "two lines":
        return f"{_signed(d.diff)} {ci}\n{p}" + (f", {holm}" if holm else "")
    return f"{_signed(d.diff)} {p}" + (f"\n{holm}" if holm else "")


LAYOUTS: tuple[tuple[bool, bool, str], ...] = (
    (False, False, "wide"),
    (False, False, "two lines"),
    (False, False, "narrow"),
    (False, True, "two lines"),
    (False, True, "narrow"),
    (True, False, "two lines"),
    (True, False, "narrow"),
    (True, True, "narrow"),
)
"""The ways to lay the metrics out, tried in order until one fits: (one table per run against the baseline instead
of one for all, short column headings with a legend above, cell style from :data:`STYLES`)."""


def _columns(bc: BenchmarkComparison, pair: int | None) -> tuple[list[int], list[int]]:
    """The runs and the differences a table shows: all, or the baseline, run ``pair + 1`` and its difference."""
    if pair is None:
        return list(range(len(bc.runs))), list(range(len(bc.differences)))
    return [0, pair + 1], [pair]


def _cells(bc: BenchmarkComparison, style: str, pair: int | None) -> list[tuple[MetricPath, list[str]]]:
    from mindloop.bench.tables import dig

    runs, diffs = _columns(bc, pair)
    out = []
    for path in bc.metric_paths(by_name=True):
        sides = [bc.runs[k] for k in runs]
        cells = [
            _value_cell(dig(s.metrics, path), dig(s.intervals.get("metrics"), path), style) for s in sides
        ]
        cells += [_diff_cell(bc.differences[k].metrics.get(path), style) for k in diffs]
        out.append((path, cells))
    return out


def _run_tag(label: str) -> str:
    """``run 3f2a``: the run part of a column label."""
    return label[label.rfind("(run ") + 1 : -1]


def _headers(bc: BenchmarkComparison, short: bool, pair: int | None) -> list[str]:
    """Each run's label (agent and model, then the run on a line of its own; only the run when ``short``), then
    Δ per compared run."""
    runs, diffs = _columns(bc, pair)
    labels = [bc.runs[k].label for k in runs]
    heads = [_run_tag(lab) if short else lab.replace(" (run ", "\n(run ") for lab in labels]
    return ["metric", *heads, *(f"Δ {_run_tag(bc.runs[k + 1].label)}" for k in diffs)]


def _name(path: MetricPath) -> str:
    """A row's name: a breakdown row is named within its section (``reality.accuracy`` under ``by_type``)."""
    return path[0] if len(path) == 1 else "  " + ".".join(path[1:])


def _widths(headers: list[str], rows: list[tuple[MetricPath, list[str]]]) -> list[int]:
    """Each column's width with no cell wrapped and each header wrapped at its spaces only."""
    widths = [max(len(w) for w in h.split()) if h.split() else 1 for h in headers]
    for path, cells in rows:
        names = [_name(path), *([path[0]] if len(path) > 1 else [])]
        for k, text in enumerate([max(names, key=len), *cells]):
            widths[k] = max(widths[k], *(len(line) for line in text.split("\n")))
    return widths


def _tables(bc: BenchmarkComparison, width: int) -> tuple[list[Table], list[str]]:
    """The metrics tables in the first of :data:`LAYOUTS` that fits ``width`` columns (the last one otherwise),
    and the legend of short headings (empty with full ones). Every run and difference keeps its column; a word is
    not broken while a layout fits."""
    built: list[tuple[list[str], list[tuple[MetricPath, list[str]]], list[int]]] = []
    short = False
    for pairs, short, style in LAYOUTS:
        if pairs and len(bc.runs) < 3:
            continue
        built = []
        for pair in range(len(bc.differences)) if pairs else [None]:
            headers, rows = _headers(bc, short, pair), _cells(bc, style, pair)
            built.append((headers, rows, _widths(headers, rows)))
        if all(sum(w) + 3 * len(w) + 1 <= width for _, _, w in built):
            break
    legend = [f"{_run_tag(s.label)}: {s.label[: s.label.rfind(' (run ')]}" for s in bc.runs] if short else []
    return [_table(bc, *b) for b in built], legend


def _table(
    bc: BenchmarkComparison, headers: list[str], rows: list[tuple[MetricPath, list[str]]], widths: list[int]
) -> Table:
    table = Table(show_header=True, header_style="bold", pad_edge=True)
    for k, (header, w) in enumerate(zip(headers, widths, strict=True)):
        table.add_column(header, justify="left" if k == 0 else "right", max_width=w)
    head = bc.headline.metric if bc.headline else None
    section = None
    for path, cells in rows:
        group = path[0] if len(path) > 1 else None
        if group != section and group is not None:
            table.add_section()
            table.add_row(Text(group, style="bold"), *[""] * len(cells))
        section = group
        name = Text(_name(path), style="bold" if path == (head,) else "")
        table.add_row(name, *cells)
    return table


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
    tables, legend = _tables(bc, console.width)
    for line in legend:
        console.print(line, markup=False)
    for table in tables:
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

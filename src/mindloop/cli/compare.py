"""``mindloop compare RUN_OR_SUITE_ID ...``: runs side by side with intervals, paired tests and disagreements.

Registered as the ``compare`` entry of ``mindloop.commands``. The tables go to stderr; ``--json`` prints one object
on stdout; ``-o FILE`` writes the self-contained HTML page (:mod:`mindloop.bench.report.compare`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from mindloop.console import err_console
from mindloop.errors import MindloopError

if TYPE_CHECKING:
    from mindloop.bench.compare import BenchmarkComparison, Comparison

__all__ = ["compare_app"]

compare_app = typer.Typer(
    name="compare",
    help="Compare runs (or suites) of the same samples: metrics with 95% intervals, paired differences, "
    "McNemar tests and the samples where the runs disagree.",
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
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")] = False,
    resamples: Annotated[int, typer.Option("--resamples", min=100, help="Bootstrap resamples.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap resamples.")] = 0,
) -> None:
    """Compare runs of the same samples (or suites, benchmark by benchmark) against the first one."""
    from mindloop.bench.compare import compare_runs
    from mindloop.bench.store import RunStore
    from mindloop.paths import runs_path

    with RunStore(runs_path(create=False), readonly=True) as store:
        comparison = compare_runs(store, ids, resamples=resamples, seed=seed)
    if out is not None:
        from mindloop.bench.report.compare import write_compare

        try:
            path = write_compare(comparison, out)
        except OSError as exc:
            raise MindloopError(
                f"cannot write the comparison to {out} ({exc.strerror or exc}): choose a writable file with -o"
            ) from None
        err_console().print(f"wrote {path}")
    if as_json:
        print(json.dumps(_finite(comparison.to_json())))
    else:
        _print(comparison)


def _finite(value: Any) -> Any:
    """JSON-safe: a non-finite float (no interval could be formed) becomes ``null``."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _num(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4f}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def _signed(value: float) -> str:
    return f"{value:+.4f}" if abs(value) < 1000 else f"{value:+,.0f}"


def _p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _print(comparison: Comparison) -> None:
    """Each benchmark's metrics side by side, its paired 0/1 score tests and its disagreement count, on stderr."""
    console = err_console()
    for bc in comparison.benchmarks:
        _print_benchmark(bc)
    if comparison.unmatched:
        shown = "; ".join(f"{k} ({', '.join(v)})" for k, v in comparison.unmatched.items())
        console.print(f"not compared (only one argument has a run of them): {shown}", markup=False)
    console.print(
        f"intervals: 95%, {comparison.method()['intervals']}, paired for differences (Δ: run minus the first), "
        f"{comparison.resamples} resamples, seed {comparison.seed}; * p < 0.05: the headline unadjusted, breakdown "
        "rows Holm-adjusted over each comparison's rows (family: every metric but the headline); metrics that are "
        "not proportions get no interval or test below n = 10",
        markup=False,
    )


def _print_benchmark(bc: BenchmarkComparison) -> None:
    from mindloop.bench.uncertainty import get_path, numeric_leaves

    console = err_console()
    runs = [s.info.run_id for s in bc.runs]
    table = Table("metric", *runs, *(f"Δ {r}" for r in runs[1:]), title=f"{bc.benchmark} · {bc.shared} shared samples")
    paths: dict[tuple[str, ...], None] = {}
    for side in bc.runs:
        paths.update(dict.fromkeys(numeric_leaves(side.summary.metrics)))
    head = bc.headline.metric if bc.headline else None
    diffs = [d.metrics for d in bc.differences]
    for path in sorted(paths, key=lambda p: (len(p) > 1, p[0] != head)):
        cells = []
        for side in bc.runs:
            value = get_path(side.summary.metrics, path)
            bound = get_path(side.summary.intervals.get("metrics"), path)
            ci = f" [{_num(bound['low'])}, {_num(bound['high'])}]" if isinstance(bound, dict) else ""
            cells.append(_num(value) + ci)
        for per_run in diffs:
            d = per_run.get(path)
            star = "*" if d is not None and d.p_star < 0.05 and d.diff != 0 else ""
            adj = f" (Holm {_p(d.p_adjusted)})" if d is not None and d.p_adjusted is not None else ""
            text = f"{_signed(d.diff)} [{_signed(d.low)}, {_signed(d.high)}] p {_p(d.p)}{adj}{star}" if d else "–"
            cells.append(text)
        table.add_row(".".join(path), *cells)
    if bc.differs:
        table.caption = "differ: " + "; ".join(
            f"{k} ({' | '.join('–' if v is None else str(v) for v in vals)})" for k, vals in bc.differs.items()
        )
    console.print(table)
    for diff in bc.differences:
        binary = [t for t in diff.scores if t.b is not None and t.c is not None]
        for t in binary:
            if t.b or t.c:
                console.print(
                    f"{diff.run_id} vs {diff.baseline}, {t.score}: {t.b} right only in the baseline, {t.c} only in the "
                    f"run ({t.n} pairs), McNemar exact p {_p(t.p)}",
                    markup=False,
                    soft_wrap=True,
                )
        same = [t.score for t in binary if not t.b and not t.c]
        if same:
            console.print(
                f"{diff.run_id} vs {diff.baseline}: no discordant pair on {', '.join(same)} (McNemar p 1.000)",
                markup=False,
                soft_wrap=True,
            )
    if bc.headline is not None:
        for diff in bc.differences:
            d = diff.metrics.get((bc.headline.metric,))
            if d is None:
                continue
            better = (d.diff > 0) == bc.headline.higher_is_better
            verdict = (
                ("better" if better else "worse") + " (significant)"
                if d.p_star < 0.05 and d.diff != 0
                else "no significant difference"
            )
            console.print(
                f"headline {bc.headline.metric}: {diff.run_id} {_signed(d.diff)} vs {diff.baseline}, p {_p(d.p)}: "
                f"{verdict}",
                markup=False,
                soft_wrap=True,
            )
    key = f" ({bc.key_score} score, status or answer)" if bc.key_score else " (status, answer or scores)"
    console.print(f"{len(bc.disagreements)} samples where the runs disagree{key}; list them with --json or -o FILE")

"""``mindloop suite``: run every benchmark that has a model-driven agent under one suite id, list suites, report.

All state lives in the run store under ``MINDLOOP_HOME`` (see :mod:`mindloop.paths`); a suite's runs are ordinary
runs (``mindloop runs`` lists them, ``mindloop report RUN_ID`` reports one).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from mindloop.cli.run_options import RunOptions, exit_for, with_run_options, write_output
from mindloop.cli.shared import ForceResume, open_store, own_group
from mindloop.console import (
    Column,
    JsonFlag,
    emit_json,
    err_console,
    json_opt,
    out_console,
    out_opt,
    print_table,
    writing,
)

if TYPE_CHECKING:
    from mindloop.bench.suite import SuiteResult

__all__ = ["suite_app"]

suite_app = own_group("suite", no_args_is_help=True)


@suite_app.command("run")
@with_run_options
def suite_run(
    preset: Annotated[
        Literal["quick", "paper"], typer.Option("--preset", help="quick (small n per benchmark) or paper (full sets).")
    ] = "quick",
    only: Annotated[
        str | None,
        typer.Option("--only", metavar="NAMES", help="Comma-separated benchmarks to run (default: all of them)."),
    ] = None,
    max_n: Annotated[
        int | None,
        typer.Option(
            "--max-n",
            min=1,
            metavar="N",
            help="At most N samples per benchmark (below the preset's n), for a slow model.",
        ),
    ] = None,
    *,
    run: RunOptions,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume", metavar="SUITE_ID", help="Finish this suite: pending runs resume, missing ones start."
        ),
    ] = None,
    force_resume: ForceResume = False,
    opt: Annotated[
        list[str] | None,
        typer.Option(
            "--opt",
            metavar="BENCHMARK.KEY=VALUE",
            help="Benchmark option (repeatable), e.g. mindpower.judge=M.",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Run a suite (or --resume one): each benchmark's run with its paper's settings; progress goes to stderr."""
    from mindloop.bench.suite import SUITE_FORMAT_RETRIES, SuiteRequest, run_suite

    models = tuple(run.models or ())
    request = SuiteRequest(
        model=models[0] if models else None,
        models=models if len(models) > 1 else (),
        preset=preset,
        only=tuple(name.strip() for name in (only or "").split(",") if name.strip()),
        opts=tuple(opt or ()),
        temperature=run.temperature,
        max_tokens=run.max_tokens,
        max_n=max_n,
        **run.request_args(SUITE_FORMAT_RETRIES),
    )
    folder = run.results_folder()  # a folder that cannot be written fails before the suite is recorded
    result = run_suite(request, resume=resume, force_resume=force_resume)
    suite = {k: v for k, v in result.to_json().items() if k != "runs"}  # results.json lists each run in full
    write_output(folder, [summary.run_id for summary in result.summaries], suite=suite)
    if as_json:
        emit_json(result.to_json())
    else:
        _print_result(result)
    exit_for(
        result.n_bugs, f"suite {result.suite_id}", " each run's report", bool(result.interrupted or result.stopped)
    )


def _print_result(result: SuiteResult) -> None:
    """One row per run (samples, failures, the headline metric, seconds, calls, tokens) and the totals, on stdout."""
    from mindloop.bench.headline import headline_of, headline_value
    from mindloop.bench.registry import installed_benchmark
    from mindloop.bench.suite import token_sum
    from mindloop.cli.numbers import metric_text

    several = len(result.models) > 1  # a model column, and the runs of each model in turn
    columns = [
        Column("benchmark"),
        *([Column("model", shrink=12)] if several else []),
        Column("run", drop=3),
        Column("agent", drop=4, shrink=8),
        Column("samples", short="n", justify="right", drop=6),
        Column("failed", short="fail", justify="right", drop=5),
        Column("headline"),
        Column("seconds", short="s", justify="right", drop=2),
        Column("calls", justify="right", drop=1),
        Column("tokens", justify="right", drop=0),
    ]
    rows = []
    for s in result.summaries:
        head = headline_of(s.benchmark, s.metrics)
        bench = installed_benchmark(s.benchmark)
        shown = "–" if head is None else metric_text(bench, head.metric, headline_value(head, s.metrics))
        rows.append(
            [
                s.benchmark,
                *([s.model or "–"] if several else []),
                s.run_id,
                s.agent,
                f"{s.n_completed}/{s.n}",
                str(s.n_failed) + (f" +{s.n_bugs} bug" if s.n_bugs else ""),
                shown,
                f"{s.seconds:.1f}",
                str(s.tokens.get("calls", 0)),
                str(s.tokens.get("total_tokens", 0)),
            ]
        )
    tokens = token_sum([s.tokens for s in result.summaries])
    console = out_console()
    title = f"suite {result.suite_id} · {', '.join(m or 'symbolic agents' for m in result.models)} · {result.preset}"
    dropped = print_table(console, columns, rows, title)
    planned = len(result.benchmarks) * max(1, len(result.models))
    console.print(
        f"{len(result.summaries)}/{planned} {'runs' if several else 'benchmarks'}, {result.seconds:.1f} s wall clock, "
        f"{tokens['calls']} model calls ({tokens['cache_hits']} cached), {tokens['total_tokens']} tokens",
        markup=False,
        soft_wrap=True,
    )
    if dropped:
        console.print(f"not shown at this width: {', '.join(dropped)} (--json has every field)", markup=False)
    console.print(f"report: mindloop suite report {result.suite_id}", markup=False)


@suite_app.command("list")
def suite_list(
    as_json: JsonFlag = False,
) -> None:
    """List recorded suites, oldest first (the store is opened read-only)."""
    from mindloop.bench.suite import runs_of_suite

    with open_store() as store:
        rows = [
            {
                "suite_id": s.suite_id,
                "model": s.model,
                "models": s.config.get("models") or [s.model],
                "preset": s.preset,
                "started": s.started,
                "finished": s.finished,
                "seconds": round(s.seconds, 3),
                "benchmarks": s.config.get("benchmarks", []),
                "runs": runs_of_suite(store, s.suite_id),
            }
            for s in store.suites()
        ]
    if as_json:
        emit_json({"suites": rows})
        return
    from mindloop.cli.bench import compact_time

    columns = [
        Column("suite id"),
        Column("model", shrink=12, drop=5),
        Column("preset", drop=3),
        Column("started", drop=4),
        Column("runs", justify="right", drop=6),
        Column("finished", drop=2),
        Column("seconds", short="s", justify="right", drop=1),
    ]
    lines = [
        [
            row["suite_id"],
            ", ".join(m or "(symbolic)" for m in row["models"]),
            row["preset"],
            compact_time(row["started"]),
            f"{len(row['runs'])}/{len(row['benchmarks']) * len(row['models'])}",
            "no" if not row["finished"] else compact_time(row["finished"]),
            f"{row['seconds']:.1f}",
        ]
        for row in rows
    ]
    if rows:
        print_table(out_console(), columns, lines)
    else:
        err_console().print("no suites yet")


@suite_app.command("report")
def suite_report_command(
    suite_id: Annotated[str, typer.Argument(help="The suite to report on (see `mindloop suite list`).")],
    out: Annotated[
        Path | None,
        out_opt(
            "File to write (the run reports go beside it), or an existing folder to write SUITE_ID.html (or .json) "
            "and the run reports in (default: here); each file is written whole or not at all."
        ),
    ] = None,
    as_json: Annotated[bool, json_opt("Print the report's numbers as one JSON object (to -o FILE if given).")] = False,
    run_reports: Annotated[
        bool,
        typer.Option("--run-reports/--no-run-reports", help="Also write each run's report beside the page."),
    ] = True,
) -> None:
    """Write one self-contained HTML page: each paper's headline table, links to each run's report, the ledger."""
    from mindloop.bench.report.suite import suite_report, write_suite_report
    from mindloop.paths import output_file

    with open_store() as store:
        store.suite(suite_id)  # an unknown suite is named before anything is written
        if as_json:
            where = None if out is None else output_file(out, f"{suite_id}.json")
            emit_json(suite_report(store, suite_id), where)
            return
        target = output_file(out, f"{suite_id}.html")
        with writing("the suite report", target):
            path, written = write_suite_report(store, suite_id, target, run_reports=run_reports)
    beside = f" and {len(written)} run report(s) beside it" if written else ""
    err_console().print(f"wrote {path}{beside}")

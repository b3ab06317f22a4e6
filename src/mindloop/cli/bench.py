"""``mindloop bench``, ``mindloop runs`` and ``mindloop report``: run benchmarks, list and export runs, report.

All state lives in the run store under ``MINDLOOP_HOME`` (see :mod:`mindloop.paths`).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from mindloop.cli.run_options import RunOptions, exit_for, with_run_options, write_output
from mindloop.cli.shared import ForceResume, TagFilter, open_store, own_group
from mindloop.console import (
    Column,
    JsonFlag,
    emit,
    emit_json,
    err_console,
    json_opt,
    out_console,
    out_opt,
    print_table,
    writing,
)
from mindloop.errors import MindloopError

if TYPE_CHECKING:
    from datetime import datetime

    from mindloop.bench.listing import RunLine
    from mindloop.bench.runner import RunRequest, RunSummary

__all__ = ["bench_app", "report", "runs_app"]

bench_app = own_group("bench", no_args_is_help=True)
runs_app = own_group("runs", invoke_without_command=True, no_args_is_help=False)


@bench_app.command("list")
def bench_list(
    as_json: JsonFlag = False,
) -> None:
    """Show each benchmark with its agents (* needs --model), its whole description (wrapped), whether it needs
    --data (it reads a released file) and what its loader was checked against: the released file itself, or only
    the authors' code that reads it (the file was out of reach; docs/datasets.md says which and where).

    With --json each benchmark also lists its agents' specs, its options' JSON schema (with defaults) and its
    declaration's headline, metrics and reference policies.
    """
    from rich.text import Text

    from mindloop.bench.options import options_schema
    from mindloop.bench.registry import BENCHMARKS, get_benchmark
    from mindloop.errors import escaped

    rows: list[dict[str, Any]] = []
    for entry in BENCHMARKS.entries():
        bench = get_benchmark(entry.name)
        specs = [
            {"name": name, "description": s.description, "needs_model": s.needs_model, "team": s.team}
            for name, s in bench.agents.items()
        ]
        rows.append(
            {
                "name": entry.name,
                "aliases": list(bench.spec.aliases),
                "agents": list(bench.agents),
                "agent_specs": specs,
                "description": bench.description,
                "needs_data": bench.spec.small.data is not None,  # it runs on a released file only
                "checked_against": bench.spec.checked_against,
                "options": options_schema(bench.options_model),
                "headline": None if bench.spec.headline is None else bench.spec.headline.to_json(),
                "metrics": [m.to_json() for m in bench.spec.metrics],
                "references": [r.name for r in bench.spec.references],
            }
        )
    if as_json:
        emit_json({"benchmarks": rows})
        return
    columns = [
        Column("benchmark"),
        Column("agents (* needs --model)", short="agents", wrap=True),
        Column("description", wrap=True),
    ]
    lines: list[list[str | Text]] = []
    for row in rows:
        agents = ", ".join(f"{a['name']}{'*' if a['needs_model'] else ''}" for a in row["agent_specs"])
        name = str(row["name"]) + (f" ({', '.join(row['aliases'])})" if row["aliases"] else "")
        cell = Text(escaped(name)).append("\n  needs --data" if row["needs_data"] else "", style="bold")
        if row["checked_against"]:
            cell.append(f"\n  checked: {row['checked_against']}")
        lines.append([cell, agents, str(row["description"])])
    dropped = print_table(out_console(), columns, lines)
    err_console().print(
        "* needs --model; needs --data: runs on a released file only; checked: what its loader was checked against, "
        "the released file or only the authors' code (docs/datasets.md); each benchmark's options: "
        "mindloop bench run NAME --help-options; every field: --json" + _left_out(dropped),
        markup=False,
        soft_wrap=True,
    )


def _left_out(dropped: list[str]) -> str:
    """``; not shown at this width: seconds, started (set COLUMNS wider)``, or "" when every column is shown."""
    return f"; not shown at this width: {', '.join(dropped)} (widen the terminal or set COLUMNS)" if dropped else ""


@bench_app.command("run")
@with_run_options
def bench_run(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Benchmark name (see `mindloop bench list`).")],
    agent: Annotated[
        str | None,
        typer.Option("--agent", "--agents", metavar="AGENT", help="Agent, or a comma-separated team (cobel,cobel)."),
    ] = None,
    n: Annotated[int | None, typer.Option("--n", min=0, metavar="N", help="Run only the first N samples.")] = None,
    *,
    run: RunOptions,
    resume: Annotated[
        str | None,
        typer.Option("--resume", metavar="RUN_ID", help="Finish this run: only its pending samples are run."),
    ] = None,
    retry_failed: Annotated[
        bool,
        typer.Option(
            "--retry-failed", help="With --resume: run the failed (and bug) samples again, keeping earlier attempts."
        ),
    ] = False,
    force_resume: ForceResume = False,
    data: Annotated[
        Path | None,
        typer.Option("--data", metavar="PATH", help="A data file (or folder) for benchmarks that read one."),
    ] = None,
    opt: Annotated[
        list[str] | None, typer.Option("--opt", metavar="KEY=VALUE", help="Benchmark option (repeatable).")
    ] = None,
    as_json: Annotated[bool, json_opt("Print one JSON summary object on stdout.")] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="After the summary, list every metric with its interval.")
    ] = False,
    help_options: Annotated[
        bool,
        typer.Option("--help-options", help="Print the benchmark's options (type, default, allowed values) and exit."),
    ] = False,
) -> None:
    """Run a benchmark (or --resume one) and print its summary on stdout (headline with its interval and reference
    policies, one table of breakdowns, counts); progress goes to stderr."""
    if help_options:
        _print_options(name, as_json)
        return
    from mindloop.bench.runner import run_benchmark

    request = _request(name, agent, n, run, opt or [], data)
    folder = run.results_folder()  # a folder that cannot be written fails before the run is recorded
    summary = run_benchmark(request, resume=resume, retry_failed=retry_failed, force_resume=force_resume)
    write_output(folder, [summary.run_id])
    if as_json:
        emit_json(summary.to_json())
    else:  # the summary (mindloop.cli.summary), each breakdown once
        from mindloop.cli.summary import print_summary

        print_summary(summary, verbose=verbose, same_as=_same_breakdowns(summary))
    ended = bool(summary.interrupted or summary.stopped)
    exit_for(summary.n_bugs, f"run {summary.run_id}", f": mindloop report {summary.run_id}", ended)


def _request(
    name: str, agent: str | None, n: int | None, run: RunOptions, opt: list[str], data: Path | None
) -> RunRequest:
    """The run ``bench run`` asks for: its options, generation settings and the shared run options."""
    from mindloop.bench.generation import resolve_generation
    from mindloop.bench.options import parse_opt_pairs
    from mindloop.bench.registry import get_benchmark
    from mindloop.bench.runner import RunRequest
    from mindloop.models.replies import DEFAULT_FORMAT_RETRIES

    generation, generation_source = resolve_generation(
        get_benchmark(name), temperature=run.temperature, max_tokens=run.max_tokens
    )
    return RunRequest(
        benchmark=name,
        agent=agent,
        model=run.model,
        n=n,
        options=parse_opt_pairs(name, opt, None if data is None else str(data)),
        generation=generation,
        generation_source=generation_source,
        **run.request_args(DEFAULT_FORMAT_RETRIES),
    )


def _same_breakdowns(summary: RunSummary) -> dict[str, str]:
    """The run's declared breakdowns that split its samples as an earlier one does (nothing when unreadable)."""
    import sqlite3

    from mindloop.bench.registry import get_benchmark
    from mindloop.cli.summary import duplicate_groupings

    try:
        bench = get_benchmark(summary.benchmark)
        if not any(m.groupings for m in bench.spec.metrics):
            return {}
        with open_store() as store:
            return duplicate_groupings(bench, store.records(summary.run_id), list(summary.metrics))
    except (MindloopError, sqlite3.DatabaseError):  # the summary is still printed, breakdowns as they are
        return {}


def _print_options(name: str, as_json: bool) -> None:
    """``bench run NAME --help-options``: the options as text, or (``--json``) as the JSON schema."""
    from mindloop.bench.options import format_options_help, options_schema
    from mindloop.bench.registry import get_benchmark

    bench = get_benchmark(name)
    if as_json:
        emit_json({"benchmark": bench.name, "options": options_schema(bench.options_model)})
    else:
        print(format_options_help(bench), end="")


_Status = Literal["finished", "running", "stale", "stopped", "unknown"]


@runs_app.callback()
def runs_list(
    ctx: typer.Context,
    benchmark: Annotated[
        str | None, typer.Option("--benchmark", metavar="NAME", help="Only runs of this benchmark (or alias).")
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", metavar="TEXT", help="Only runs whose model contains TEXT (case-insensitive); 'none': no model."
        ),
    ] = None,
    suite: Annotated[
        str | None, typer.Option("--suite", metavar="SUITE_ID", help="Only the runs of this suite.")
    ] = None,
    status: Annotated[_Status | None, typer.Option("--status", help="Only runs in this state.")] = None,
    tag: TagFilter = None,
    last: Annotated[
        int | None, typer.Option("--last", min=1, metavar="N", help="Only the N most recent of the runs selected.")
    ] = None,
    as_json: Annotated[
        bool,
        json_opt(
            'Print one JSON object on stdout: {"runs": [...]}, each run with its row, status, pending, headline, '
            "tags and key (its comparability key: benchmark, declaration, options, data, samples, protocol, team, "
            "id; unknown says why it could not be derived)."
        ),
    ] = False,
) -> None:
    """List recorded runs, oldest first, one line each: id, agent, model, status (finished, running with live
    counts, stale, stopped), samples done, failures and the headline metric (the store is opened read-only; a
    damaged one lists what it still holds)."""
    if ctx.invoked_subcommand is not None:
        return
    from mindloop.bench.listing import list_runs
    from mindloop.bench.suite import runs_of_suite

    with open_store() as store:
        only = None if suite is None else set(runs_of_suite(store, suite))  # an unknown suite is named
        lines, damage = list_runs(store)  # a damaged store: what it still holds, then the damage (exit 1)
    if tag:
        lines = [line for line in lines if set(tag) <= set(line.tags)]
    lines = _select(lines, benchmark, model, only, status, last)
    if as_json:
        emit_json({"runs": [line.to_dict() for line in lines]} | ({"damaged": str(damage)} if damage else {}))
    elif lines:
        _print_runs(lines)
    else:
        filtered = any(x is not None for x in (benchmark, model, suite, status, last, tag))
        empty = "no run matches these filters" if filtered else f"no runs yet in {store.path}"
        err_console().print(empty if damage is None else f"no run can be read from {store.path}", markup=False)
    if damage is not None:
        raise damage


def _select(
    lines: list[RunLine],
    benchmark: str | None,
    model: str | None,
    only: set[str] | None,
    status: str | None,
    last: int | None,
) -> list[RunLine]:
    """The runs the filters let through, oldest first (``last``: the most recent ``last`` of them)."""
    if benchmark is not None:
        names = {benchmark, _canonical(benchmark)}
        lines = [line for line in lines if line.info.benchmark in names]
    if model is not None:
        want = model.lower()
        lines = [
            line
            for line in lines
            if (line.info.model is None if want == "none" else want in (line.info.model or "").lower())
        ]
    if only is not None:
        lines = [line for line in lines if line.info.run_id in only]
    if status is not None:
        lines = [line for line in lines if line.state == status]
    return lines[-last:] if last is not None else lines


def _canonical(benchmark: str) -> str:
    """The registered name of ``benchmark`` (an alias, or itself when it is not registered: old runs still list)."""
    from mindloop.bench.registry import installed_benchmark

    bench = installed_benchmark(benchmark)
    return benchmark if bench is None else bench.name


def compact_time(stamp: str, now: datetime | None = None) -> str:
    """``11-27 08:24`` from the store's ``2026-11-27T08:24:52+00:00`` (UTC); ``2025-11-27 08:24`` for another year
    than ``now``'s; the stamp as it is when it cannot be read.

    >>> from datetime import datetime
    >>> compact_time("2026-11-27T08:24:52+00:00", datetime(2026, 12, 1)), compact_time("x")
    ('11-27 08:24', 'x')
    """
    from datetime import datetime

    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    year = (now or datetime.now(when.tzinfo)).year
    return when.strftime("%m-%d %H:%M" if when.year == year else "%Y-%m-%d %H:%M")


def _print_runs(lines: list[RunLine]) -> None:
    """One line a run on stdout; columns left out at a narrow width are named on stderr."""
    from rich.text import Text

    from mindloop.bench.registry import installed_benchmark
    from mindloop.cli.numbers import metric_text

    columns = [
        Column("run id"),  # an id is copied from here: never cut, never left out
        Column("benchmark", short="bench", drop=1),  # the id begins with it
        Column("agent", drop=5, shrink=8),
        Column("model", drop=6, shrink=10),
        Column("started", drop=4),
        Column("status", drop=7),
        Column("done", justify="right", drop=8),
        Column("failed", short="fail", justify="right", drop=3),
        Column("headline"),  # never cut: the number is what the line is for
        Column("seconds", short="s", justify="right", drop=2),
    ]
    rows: list[list[str | Text]] = []
    for line in lines:
        r = line.info
        known = r.samples_readable  # "?" for a damaged store's run whose samples cannot be counted
        status = line.state if line.state in ("finished", "unknown") else f"{line.state}: {line.pending} pending"
        failed = (str(r.n_failed) + (f"+{r.n_bugs}bug" if r.n_bugs else "")) if known else "?"
        head = ""
        if line.headline is not None:
            head = metric_text(installed_benchmark(r.benchmark), line.headline.metric, line.value)
        style = "" if line.state == "finished" else "yellow"
        rows.append(
            [
                r.run_id,
                r.benchmark,
                r.agent,
                r.model or "–",
                compact_time(r.started),
                Text(status, style=style),
                f"{r.n_completed if known else '?'}/{r.n}",
                Text(failed, style="red" if known and (r.n_failed or r.n_bugs) else ""),
                head,
                f"{r.seconds:.1f}",
            ]
        )
    dropped = print_table(out_console(), columns, rows)
    if dropped:
        err_console().print(_left_out(dropped).removeprefix("; "), markup=False, soft_wrap=True)


@runs_app.command("tag")
def runs_tag(
    run_id: Annotated[str, typer.Argument(metavar="RUN_ID", help="The run to tag.")],
    tags: Annotated[list[str], typer.Argument(metavar="TAG...", help="Tags to add (or, with --remove, remove).")],
    remove: Annotated[bool, typer.Option("--remove", help="Remove these tags instead of adding them.")] = False,
) -> None:
    """Tag a run (letters, digits and . _ : @ + -; no spaces or commas); mindloop runs --tag and board --tag
    select by tag. Prints the run's tags after, one line."""
    from mindloop.bench.runner import backfill_summaries

    with open_store(readonly=False) as store:
        backfill_summaries(store)  # a store this open upgraded gets what a run would have given it
        after = store.untag(run_id, tags) if remove else store.tag(run_id, tags)
    print(f"{run_id}: {', '.join(after) if after else 'no tags'}")


@runs_app.command("delete")
def runs_delete(
    run_ids: Annotated[list[str], typer.Argument(metavar="RUN_ID...", help="The runs to delete.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Delete without asking.")] = False,
) -> None:
    """Delete runs from the store: each run's samples, stored summary, tags and place in its suite, in one commit.
    Says what it removes and asks first (unless --yes); a run a live process is executing is refused. The response
    cache is left as it is (a run repeated later still reads its replies from it)."""
    from mindloop.bench.runner import backfill_summaries

    with open_store(readonly=False) as store:
        backfill_summaries(store)
        lines = store.deletion(run_ids)  # unknown or live runs are refused here, before asking
        err = err_console()
        err.print(f"{'deletes' if yes else 'would delete'} {len(lines)} run(s) from {store.path}:", markup=False)
        for line in lines:
            err.print(f"  {line}", markup=False, soft_wrap=True)
        err.print("the response cache is left as it is", markup=False)
        if not yes and not _confirmed("delete them?"):
            raise MindloopError("nothing deleted: answer y to delete, or pass --yes")
        removed = store.delete_runs(run_ids)
    print(f"deleted {removed} run(s)")


def _confirmed(question: str) -> bool:
    """The answer to a yes/no question asked on stderr and read from stdin (nothing on stdout, which carries results;
    no answer, an empty stdin: no)."""
    import sys

    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline()
    if not answer.endswith("\n"):
        print(file=sys.stderr)  # the question's line ends
    return answer.strip().lower() in ("y", "yes")


@runs_app.command("export")
def runs_export(
    run_id: Annotated[str, typer.Argument(help="The run to export.")],
    fmt: Annotated[
        Literal["jsonl", "csv"], typer.Option("--format", help="jsonl (everything) or csv (flat).")
    ] = "jsonl",
    out: Annotated[
        Path | None,
        out_opt(
            "Write this file instead of stdout, or RUN_ID.jsonl (.csv) in an existing folder; written whole or not "
            "at all."
        ),
    ] = None,
) -> None:
    """Export every sample of a run: input, output, status, error, scores, model calls, seconds and Ray node."""
    from mindloop.bench.results import sample_rows
    from mindloop.paths import output_file

    out = None if out is None else output_file(out, f"{run_id}.{fmt}")

    with open_store() as store:
        rows = sample_rows(store, run_id)
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows) if fmt == "jsonl" else _csv(rows)
    emit(text, out, f"{len(rows)} samples")


def _csv(rows: list[dict[str, Any]]) -> str:
    """Flat CSV: one column per score, JSON text for input, output and calls."""
    score_keys = sorted({k for row in rows for k in row["scores"]})
    flat = ["run_id", "index", "sample_id", "group", "status", "error", "seconds", "node"]
    texts = ["input", "output", "calls"]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([*flat, *score_keys, *texts])
    for row in rows:  # csv writes None (no error, no node) as an empty field
        writer.writerow(
            [
                *(row[k] for k in flat),
                *(row["scores"].get(k, "") for k in score_keys),
                *(json.dumps(row[k], ensure_ascii=False) for k in texts),
            ]
        )
    return buf.getvalue()


def report(
    run_id: Annotated[str, typer.Argument(help="The run to report on (see `mindloop runs`).")],
    out: Annotated[
        Path | None,
        out_opt(
            "HTML file to write, or an existing folder to write RUN_ID.html in (default: here); written whole or "
            "not at all."
        ),
    ] = None,
) -> None:
    """Write one self-contained HTML report of a run: metrics, plots, and every sample with its transcript."""
    from mindloop.bench.report import write_report
    from mindloop.paths import output_file

    target = output_file(out, f"{run_id}.html")
    with open_store() as store:
        store.run(run_id)  # an unknown run is named before anything is written
        with writing("the report", target, why=lambda exc: _why_unwritable(exc, target)):
            path = write_report(run_id, store, target)
    err_console().print(f"wrote {path}")


def _why_unwritable(exc: OSError, target: Path) -> str:
    """Why ``target`` could not be written, in a few words: a parent that is a file, or the system's reason."""
    where = None if exc.filename is None else Path(exc.filename)
    if where is not None and where != target and where in target.parents:
        blocker = next((p for p in (where, *where.parents) if p.is_file()), None)
        if blocker is not None:
            return f"{blocker} is a file, not a folder"
    return exc.strerror or str(exc)

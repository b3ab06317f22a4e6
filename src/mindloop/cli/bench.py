"""``mindloop bench``, ``mindloop runs`` and ``mindloop report``: run benchmarks, list and export runs, report.

All state lives in the run store under ``MINDLOOP_HOME`` (see :mod:`mindloop.paths`).
"""

from __future__ import annotations

import csv
import io
import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from mindloop.cli.run_options import RunOptions, with_run_options
from mindloop.console import emit, err_console
from mindloop.errors import MindloopError

if TYPE_CHECKING:
    from mindloop.bench.runner import RunSummary

__all__ = ["bench_app", "report", "runs_app"]

bench_app = typer.Typer(
    help="Run registered benchmarks and record every sample in the run store.", no_args_is_help=True
)
runs_app = typer.Typer(
    help="List recorded runs (oldest first), or export one.", invoke_without_command=True, no_args_is_help=False
)


@bench_app.command("list")
def bench_list(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")] = False,
) -> None:
    """Show each benchmark with its agents (* needs --model) and a one-line description.

    With --json each benchmark also lists its agents' specs, its options' JSON schema (with defaults) and its
    declaration's headline, metrics and reference policies.
    """
    from mindloop.bench.options import options_schema
    from mindloop.bench.registry import BENCHMARKS, get_benchmark

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
                "options": options_schema(bench.options_model),
                "headline": None if bench.spec.headline is None else bench.spec.headline.to_json(),
                "metrics": [m.to_json() for m in bench.spec.metrics],
                "references": [r.name for r in bench.spec.references],
            }
        )
    if as_json:
        print(json.dumps({"benchmarks": rows}))
        return
    table = Table("benchmark", "agents", "description", caption="* needs --model; see options with --help-options")
    for row in rows:
        agents = ", ".join(f"{a['name']}{'*' if a['needs_model'] else ''}" for a in row["agent_specs"])
        name = str(row["name"]) + (f" ({', '.join(row['aliases'])})" if row["aliases"] else "")
        table.add_row(name, agents, str(row["description"]))
    err_console().print(table)


def _flat(metrics: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for key, value in metrics.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows += _flat(value, f"{name}.")
        else:
            rows.append((name, value))
    return rows


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
    force_resume: Annotated[
        bool,
        typer.Option(
            "--force-resume",
            help="With --resume: take the run over even from a process that still looks alive (its writes are "
            "then refused). A lock whose process is gone or whose heartbeat is stale is taken over without it.",
        ),
    ] = False,
    data: Annotated[
        Path | None,
        typer.Option("--data", metavar="PATH", help="A data file (or folder) for benchmarks that read one."),
    ] = None,
    opt: Annotated[
        list[str] | None, typer.Option("--opt", metavar="KEY=VALUE", help="Benchmark option (repeatable).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON summary object on stdout.")] = False,
    help_options: Annotated[
        bool,
        typer.Option("--help-options", help="Print the benchmark's options (type, default, allowed values) and exit."),
    ] = False,
) -> None:
    """Run a benchmark (or --resume one) and print its summary; progress goes to stderr."""
    if help_options:
        _print_options(name, as_json)
        return
    from mindloop.bench.generation import resolve_generation
    from mindloop.bench.options import parse_opt_pairs
    from mindloop.bench.registry import get_benchmark
    from mindloop.bench.runner import RunRequest, run_benchmark
    from mindloop.models.replies import DEFAULT_FORMAT_RETRIES

    generation, generation_source = resolve_generation(
        get_benchmark(name), temperature=run.temperature, max_tokens=run.max_tokens
    )
    request = RunRequest(
        benchmark=name,
        agent=agent,
        model=run.model,
        n=n,
        seed=run.seed,
        options=parse_opt_pairs(name, opt or [], None if data is None else str(data)),
        concurrency=run.concurrency,
        executor=run.executor.value,
        ray_address=run.ray_address,
        model_options=run.model_options(),
        generation=generation,
        generation_source=generation_source,
        format_retries=DEFAULT_FORMAT_RETRIES if run.format_retries is None else run.format_retries,
        breaker=run.breaker,
        progress_every=run.progress_every,
    )
    summary = run_benchmark(request, resume=resume, retry_failed=retry_failed, force_resume=force_resume)
    if as_json:
        print(json.dumps(summary.to_json()))
    else:
        _print_summary(summary)
    _exit_for(summary)


def _protocol_text(summary: RunSummary) -> str:
    """`` · single-shot (format retries 0)``: the protocol that produced the table."""
    p = summary.protocol
    if not p:
        return ""
    return f" · {p['name']} (format retries {p['format_retries']})"


def _headline_text(summary: RunSummary) -> str | None:
    """``headline accuracy 0.8000 (chance 0.3542, oracle 1.0000)``: the headline metric with the benchmark's
    reference policies on the same samples, or a word that it declares none yet."""
    from mindloop.bench.headline import headline_of, reference_text
    from mindloop.bench.registry import get_benchmark

    head = headline_of(summary.benchmark, summary.metrics)
    value = None if head is None else summary.metrics.get(head.metric)
    if head is None or not isinstance(value, int | float):
        return None
    policies = [p.to_json() for p in get_benchmark(summary.benchmark).spec.references]
    refs = reference_text(summary.references, policies, head.higher_is_better)
    tail = f" ({refs})" if refs else " (no reference policies declared for this benchmark yet)"
    better = "higher" if head.higher_is_better else "lower"
    return f"headline {head.metric} {value:.4f}, {better} is better{tail}"


def _print_summary(summary: RunSummary) -> None:
    """The metrics table, the run's counts and where its report is, on stderr."""
    console = err_console()
    table = Table(
        "metric",
        "value",
        "95% CI",
        "SE",
        title=f"{summary.benchmark} · {summary.agent}"
        + (f" · {summary.model}" if summary.model else "")
        + _protocol_text(summary),
    )
    bounds = summary.intervals.get("metrics", {})
    for key, value in _flat(summary.metrics):
        shown = "–" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)
        bound = _lookup(bounds, key)
        ci = f"[{bound['low']:.4f}, {bound['high']:.4f}]" if bound else ""
        se = f"{bound['se']:.4f}" if bound and bound.get("se") is not None else ""
        table.add_row(key, shown, ci, se)  # a metric with no data is None: "–", never a zero
    table.caption = _failure_counts(summary)  # no metric without the failures beside it
    console.print(table)
    head = _headline_text(summary)
    if head:
        console.print(head, markup=False, soft_wrap=True)
    if summary.intervals.get("metrics"):
        iv = summary.intervals
        console.print(
            f"95% CI: {iv['method']}, {iv['resamples']} resamples, seed {iv['seed']}; SE: standard error of metrics "
            "that are means of per-sample scores"
            + (
                f"; n too small (< {iv['too_small']['min_n']}) for an interval: {', '.join(iv['too_small']['metrics'])}"
                if iv.get("too_small")
                else ""
            )
            + (
                f"; no interval (not declared): {', '.join(iv['undeclared']['metrics'])}"
                if iv.get("undeclared")
                else ""
            ),
            markup=False,
            soft_wrap=True,
        )
    bugs = f", {summary.n_bugs} hit a bug" if summary.n_bugs else ""
    console.print(
        f"run {summary.run_id}: {summary.n_completed}/{summary.n} samples, {summary.n_failed} failed{bugs}, "
        f"{summary.seconds:.2f} s; {summary.tokens['calls']} model calls ({summary.tokens['cache_hits']} cached), "
        f"{summary.tokens['total_tokens']} tokens"
    )
    if summary.replies:
        r = summary.replies
        console.print(
            f"agent replies: {r['parsed']} parsed, {r['rejected']} rejected by the parser, {r['no_reply']} no reply"
            + (f", {r['unread']} read without a parser" if r["unread"] else "")
            + f"; {r['retries']} format retries"
            + (f"; {r['cut_at_limit']} cut at the token limit (raise --max-tokens)" if r.get("cut_at_limit") else "")
        )
    console.print(f"report: mindloop report {summary.run_id}")


def _lookup(bounds: dict[str, Any], dotted: str) -> dict[str, Any] | None:
    """The interval of the metric ``_flat`` named ``dotted`` (metric names may hold dots themselves)."""
    if not bounds:
        return None
    if dotted in bounds:
        found = bounds[dotted]
        return found if isinstance(found, dict) and "low" in found else None
    for key, sub in bounds.items():
        if dotted.startswith(f"{key}.") and isinstance(sub, dict) and "low" not in sub:
            hit = _lookup(sub, dotted[len(key) + 1 :])
            if hit is not None:
                return hit
    return None


def _failed_words(summary: RunSummary) -> str:
    """``3 failed (2 model/transport, 1 unanswered or unparsed)``, or ``0 failed``."""
    if not summary.n_failed:
        return "0 failed"
    other = summary.n_failed - summary.n_model_failures
    return f"{summary.n_failed} failed ({summary.n_model_failures} model/transport, {other} unanswered or unparsed)"


def _failure_counts(summary: RunSummary) -> str:
    """The metrics table's caption: how many samples are in them and how many of those failed, and why."""
    pending = summary.n - summary.n_completed
    left = f"; {pending} pending" if pending else ""
    return f"over {summary.n_completed} samples: {_failed_words(summary)} (scored as wrong){left}"


def _exit_for(summary: RunSummary) -> None:
    """Exit 2 when a sample hit a bug, 1 when the run was interrupted or stopped by the circuit breaker; return
    (exit 0) otherwise."""
    if summary.n_bugs:  # a defect, not a model failure: the metrics cannot be trusted (exit 2, internal error)
        err_console().print(
            f"mindloop: internal error: {summary.n_bugs} sample(s) of run {summary.run_id} raised an exception that "
            f"is not a MindloopError (a bug); their tracebacks are in: mindloop report {summary.run_id}",
            style="red",
            markup=False,
            soft_wrap=True,
        )
        raise typer.Exit(2)
    if summary.interrupted or summary.stopped:  # stopped early: the why and the --resume line are on stderr
        raise typer.Exit(1)


def _print_options(name: str, as_json: bool) -> None:
    """``bench run NAME --help-options``: the options as text, or (``--json``) as the JSON schema."""
    from mindloop.bench.options import format_options_help, options_schema
    from mindloop.bench.registry import get_benchmark

    bench = get_benchmark(name)
    if as_json:
        print(json.dumps({"benchmark": bench.name, "options": options_schema(bench.options_model)}))
    else:
        print(format_options_help(bench), end="")


@runs_app.callback()
def runs_list(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")] = False,
) -> None:
    """List recorded runs, oldest first, with each run's status (finished, running with live counts, stopped) and
    headline metric (the store is opened read-only; a damaged one lists what it still holds)."""
    if ctx.invoked_subcommand is not None:
        return
    from mindloop.bench.listing import list_runs
    from mindloop.bench.store import RunStore
    from mindloop.paths import runs_path

    path = runs_path(create=False)
    with RunStore(path, readonly=True) as store:
        lines, damage = list_runs(store)  # a damaged store: what it still holds, then the damage (exit 1)
    if as_json:
        print(json.dumps({"runs": [line.to_dict() for line in lines]} | ({"damaged": str(damage)} if damage else {})))
        if damage is not None:
            raise damage
        return
    table = Table()
    widest = max((len(line.info.run_id) for line in lines), default=6)
    table.add_column("run id", no_wrap=True, min_width=widest)  # an id is copied from here: never cut
    for name in ("benchmark", "agent", "model", "started", "status", "done", "failed", "bugs", "headline", "seconds"):
        table.add_column(name, overflow="fold")
    for line in lines:
        r = line.info
        known = r.samples_readable  # "?" for a damaged store's run whose samples cannot be counted
        status = line.state if line.state in ("finished", "unknown") else f"{line.state}: {line.pending} pending"
        value = "–" if line.value is None else f"{line.value:.4g}"
        table.add_row(
            r.run_id,
            r.benchmark,
            r.agent,
            r.model or "",
            r.started,
            status,
            f"{r.n_completed if known else '?'}/{r.n}",
            str(r.n_failed) if known else "?",
            str(r.n_bugs) if known else "?",
            "" if line.headline is None else f"{line.headline.metric} {value}",
            f"{r.seconds:.2f}",
        )
    empty = f"no runs yet in {path}" if damage is None else f"no run can be read from {path}"
    err_console().print(table if lines else empty)
    if damage is not None:
        raise damage


class _ExportFormat(StrEnum):
    jsonl = "jsonl"
    csv = "csv"


@runs_app.command("export")
def runs_export(
    run_id: Annotated[str, typer.Argument(help="The run to export.")],
    fmt: Annotated[
        _ExportFormat, typer.Option("--format", help="jsonl (everything) or csv (flat).")
    ] = _ExportFormat.jsonl,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write this file instead of stdout, or RUN_ID.jsonl (.csv) in an existing folder; written whole or "
            "not at all.",
        ),
    ] = None,
) -> None:
    """Export every sample of a run: input, output, status, error, scores, model calls, seconds and Ray node."""
    from mindloop.bench.store import RunStore
    from mindloop.paths import output_file, runs_path

    out = None if out is None else output_file(out, f"{run_id}.{fmt.value}")

    with RunStore(runs_path(create=False), readonly=True) as store:
        store.run(run_id)
        records = store.records(run_id, include_pending=True)
    rows = [
        {
            "run_id": run_id,
            "index": r.index,
            "sample_id": r.sample.id,
            "group": r.sample.group,
            "status": r.status,
            "error": r.error,
            "seconds": r.seconds,
            "node": r.node,
            "scores": r.scores,
            "input": r.sample.input,
            "output": r.output,
            "calls": r.calls,
        }
        for r in records
    ]
    if fmt == _ExportFormat.jsonl:
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    else:
        text = _csv(rows)
    emit(text, out)
    if out is not None:
        err_console().print(f"wrote {len(rows)} samples to {out}")


def _csv(rows: list[dict[str, Any]]) -> str:
    """Flat CSV: one column per score, JSON text for input, output and calls."""
    score_keys = sorted({k for row in rows for k in row["scores"]})
    header = [
        "run_id",
        "index",
        "sample_id",
        "group",
        "status",
        "error",
        "seconds",
        "node",
        *score_keys,
        "input",
        "output",
        "calls",
    ]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(
            [
                row["run_id"],
                row["index"],
                row["sample_id"],
                row["group"],
                row["status"],
                row["error"] or "",
                row["seconds"],
                row["node"] or "",
                *(row["scores"].get(k, "") for k in score_keys),
                json.dumps(row["input"], ensure_ascii=False),
                json.dumps(row["output"], ensure_ascii=False),
                json.dumps(row["calls"], ensure_ascii=False),
            ]
        )
    return buf.getvalue()


def report(
    run_id: Annotated[str, typer.Argument(help="The run to report on (see `mindloop runs`).")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="HTML file to write, or an existing folder to write RUN_ID.html in (default: here); written whole "
            "or not at all.",
        ),
    ] = None,
) -> None:
    """Write one self-contained HTML report of a run: metrics, plots, and every sample with its transcript."""
    from mindloop.bench.report import write_report
    from mindloop.bench.store import RunStore
    from mindloop.paths import output_file, runs_path

    target = output_file(out, f"{run_id}.html")
    with RunStore(runs_path(create=False), readonly=True) as store:
        store.run(run_id)  # an unknown run is named before anything is written
        try:
            path = write_report(run_id, store, target)
        except OSError as exc:
            raise MindloopError(
                f"cannot write the report to {target} ({_why_unwritable(exc, target)}): choose a writable file or "
                "folder with -o"
            ) from None
    err_console().print(f"wrote {path}")


def _why_unwritable(exc: OSError, target: Path) -> str:
    """Why ``target`` could not be written, in a few words: a parent that is a file, or the system's reason."""
    where = None if exc.filename is None else Path(exc.filename)
    if where is not None and where != target and where in target.parents:
        blocker = next((p for p in (where, *where.parents) if p.is_file()), None)
        if blocker is not None:
            return f"{blocker} is a file, not a folder"
    return exc.strerror or str(exc)

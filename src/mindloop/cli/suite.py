"""``mindloop suite``: run every benchmark that has a model-driven agent under one suite id, list suites, report.

All state lives in the run store under ``MINDLOOP_HOME`` (see :mod:`mindloop.paths`); a suite's runs are ordinary
runs (``mindloop runs`` lists them, ``mindloop report RUN_ID`` reports one).
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from mindloop.cli.run_options import Cache, Executor, ModelOptArg, ProgressEveryArg
from mindloop.console import emit, err_console
from mindloop.errors import MindloopError

if TYPE_CHECKING:
    from mindloop.bench.suite import SuiteResult

__all__ = ["suite_app"]

suite_app = typer.Typer(
    name="suite",
    help="Run every benchmark that has a model-driven agent with one model and one preset (one suite id), "
    "list suites, and report a suite as each paper's headline table.",
    no_args_is_help=True,
)


class _Preset(StrEnum):
    quick = "quick"
    paper = "paper"


@suite_app.command("run")
def suite_run(
    model: Annotated[
        str | None,
        typer.Option("--model", help="BACKEND/NAME (openai/..., llamacpp/...); without it the symbolic agents run."),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1.")
    ] = None,
    api_key_env: Annotated[
        str, typer.Option("--api-key-env", help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    preset: Annotated[
        _Preset, typer.Option("--preset", help="quick (small n per benchmark) or paper (full sets).")
    ] = _Preset.quick,
    only: Annotated[
        str | None, typer.Option("--only", help="Comma-separated benchmarks to run (default: all of them).")
    ] = None,
    opt: Annotated[
        list[str] | None,
        typer.Option("--opt", help="Benchmark option BENCHMARK.KEY=VALUE (repeatable), e.g. mindpower.judge=M."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed for sample generation and agents.")] = 0,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="Samples in flight at once.")] = 8,
    executor: Annotated[
        Executor, typer.Option("--executor", help="local (asyncio), process (a process pool) or ray.")
    ] = Executor.local,
    ray_address: Annotated[
        str | None, typer.Option("--ray-address", help="Ray cluster address (default: start a local Ray).")
    ] = None,
    resume: Annotated[
        str | None, typer.Option("--resume", help="Finish this suite: pending runs resume, missing ones start.")
    ] = None,
    force_resume: Annotated[
        bool,
        typer.Option(
            "--force-resume",
            help="With --resume: take the suite over even from a process that still looks alive (a stale lock is "
            "taken over without it).",
        ),
    ] = False,
    breaker: Annotated[
        int,
        typer.Option("--breaker", min=1, help="Stop after this many samples in a row fail to reach the model."),
    ] = 5,
    temperature: Annotated[
        float | None,
        typer.Option("--temperature", min=0.0, help="Override every paper's temperature (default: each paper's)."),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option("--max-tokens", min=1, help="Override every paper's completion limit (default: each paper's)."),
    ] = None,
    timeout: Annotated[float, typer.Option("--timeout", min=0.001, help="Seconds per model request.")] = 120.0,
    retries: Annotated[int, typer.Option("--retries", min=0, help="Retries after a failed model request.")] = 5,
    max_n: Annotated[
        int | None,
        typer.Option(
            "--max-n", min=1, help="At most N samples per benchmark (below the preset's n), for a slow model."
        ),
    ] = None,
    format_retries: Annotated[
        int,
        typer.Option("--format-retries", min=0, help="Times an unreadable reply goes back with the reason."),
    ] = 1,
    cache: Annotated[
        Cache, typer.Option("--cache", help="Response cache: auto (temperature 0 only), on, off.")
    ] = Cache.auto,
    model_opt: ModelOptArg = None,
    progress_every: ProgressEveryArg = 30.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")] = False,
) -> None:
    """Run a suite (or --resume one): each benchmark's run with its paper's settings; progress goes to stderr."""
    # Long only because Typer declares one annotated parameter per flag.
    from mindloop.bench.suite import SuiteRequest, run_suite
    from mindloop.models.backend_options import parse_model_opts
    from mindloop.models.base import ModelOptions

    request = SuiteRequest(
        model=model,
        preset=preset.value,
        only=tuple(name.strip() for name in (only or "").split(",") if name.strip()),
        opts=tuple(opt or ()),
        seed=seed,
        concurrency=concurrency,
        executor=executor.value,
        ray_address=ray_address,
        model_options=ModelOptions(
            base_url=base_url,
            api_key_env=api_key_env,
            concurrency=concurrency,
            timeout_s=timeout,
            max_retries=retries,
            cache=cache.value,
            extra=parse_model_opts(model, model_opt or []),
        ),
        temperature=temperature,
        max_tokens=max_tokens,
        format_retries=format_retries,
        breaker=breaker,
        max_n=max_n,
        progress_every=progress_every,
    )
    result = run_suite(request, resume=resume, force_resume=force_resume)
    if as_json:
        print(json.dumps(result.to_json()))
    else:
        _print_result(result)
    if result.n_bugs:
        err_console().print(
            f"mindloop: internal error: {result.n_bugs} sample(s) of suite {result.suite_id} raised an exception that "
            "is not a MindloopError (a bug); their tracebacks are in each run's report",
            style="red",
            markup=False,
            soft_wrap=True,
        )
        raise typer.Exit(2)
    if result.interrupted or result.stopped:
        raise typer.Exit(1)


def _print_result(result: SuiteResult) -> None:
    """One row per run (samples, failures, the headline metric, seconds, calls, tokens) and the totals, on stderr."""
    from mindloop.bench.headline import headline_of, headline_value
    from mindloop.bench.suite import token_sum

    table = Table(
        "benchmark",
        "run",
        "agent",
        "samples",
        "failed",
        "headline",
        "seconds",
        "calls",
        "tokens",
        title=f"suite {result.suite_id} · {result.model or 'symbolic agents'} · {result.preset}",
    )
    for s in result.summaries:
        head = headline_of(s.benchmark, s.metrics)
        value = headline_value(head, s.metrics)
        shown = "–" if value is None else f"{value:.3f}"  # no value: "–", never 0
        table.add_row(
            s.benchmark,
            s.run_id,
            s.agent,
            f"{s.n_completed}/{s.n}",
            str(s.n_failed) + (f" +{s.n_bugs} bug" if s.n_bugs else ""),
            f"{head.metric} {shown}" if head else "–",
            f"{s.seconds:.2f}",
            str(s.tokens.get("calls", 0)),
            f"{s.tokens.get('total_tokens', 0):,}",
        )
    tokens = token_sum([s.tokens for s in result.summaries])
    table.caption = (
        f"{len(result.summaries)}/{len(result.benchmarks)} benchmarks, {result.seconds:.1f} s wall clock, "
        f"{tokens['calls']} model calls ({tokens['cache_hits']} cached), {tokens['total_tokens']:,} tokens"
    )
    console = err_console()
    console.print(table)
    console.print(f"report: mindloop suite report {result.suite_id}")


@suite_app.command("list")
def suite_list(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")] = False,
) -> None:
    """List recorded suites, oldest first (the store is opened read-only)."""
    from mindloop.bench.store import RunStore
    from mindloop.bench.suite import runs_of_suite
    from mindloop.paths import runs_path

    with RunStore(runs_path(create=False), readonly=True) as store:
        rows = [
            {
                "suite_id": s.suite_id,
                "model": s.model,
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
        print(json.dumps({"suites": rows}))
        return
    table = Table("suite id", "model", "preset", "started", "runs", "finished", "seconds")
    for row in rows:
        table.add_row(
            row["suite_id"],
            row["model"] or "(symbolic)",
            row["preset"],
            row["started"],
            f"{len(row['runs'])}/{len(row['benchmarks'])}",
            row["finished"] or "no",
            f"{row['seconds']:.1f}",
        )
    err_console().print(table if rows else "no suites yet")


@suite_app.command("report")
def suite_report_command(
    suite_id: Annotated[str, typer.Argument(help="The suite to report on (see `mindloop suite list`).")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="File to write (the run reports go beside it), or an existing folder to write SUITE_ID.html (or "
            ".json) and the run reports in (default: here); each file is written whole or not at all.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report's numbers as one JSON object (to -o FILE if given).")
    ] = False,
    run_reports: Annotated[
        bool,
        typer.Option("--run-reports/--no-run-reports", help="Also write each run's report beside the page."),
    ] = True,
) -> None:
    """Write one self-contained HTML page: each paper's headline table, links to each run's report, the ledger."""
    from mindloop.bench.report.suite import suite_report, write_suite_report
    from mindloop.bench.store import RunStore
    from mindloop.paths import output_file, runs_path

    with RunStore(runs_path(create=False), readonly=True) as store:
        store.suite(suite_id)  # an unknown suite is named before anything is written
        if as_json:
            where = None if out is None else output_file(out, f"{suite_id}.json")
            emit(json.dumps(suite_report(store, suite_id)) + "\n", where)
            return
        target = output_file(out, f"{suite_id}.html")
        try:
            path, written = write_suite_report(store, suite_id, target, run_reports=run_reports)
        except OSError as exc:
            raise MindloopError(
                f"cannot write the suite report to {target} ({exc.strerror or exc}): choose a writable file or "
                "folder with -o"
            ) from None
    beside = f" and {len(written)} run report(s) beside it" if written else ""
    err_console().print(f"wrote {path}{beside}")

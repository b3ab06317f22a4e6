"""The model and run options that ``bench run`` and ``suite run`` share, declared once.

:class:`RunOptions` is the one declaration: each field is a command-line option (its name, range, default and
help). :func:`with_run_options` puts those options into a command's signature where the command has a
``run: RunOptions`` parameter, and hands the command one :class:`RunOptions` instead of sixteen parameters, so
the two commands cannot drift apart in names, ranges or help, and build their
:class:`~mindloop.models.base.ModelOptions` the same way (:meth:`RunOptions.model_options`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, fields
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, get_type_hints

import typer

from mindloop.console import err_console
from mindloop.errors import InvalidArgumentError

if TYPE_CHECKING:
    from mindloop.models.base import ModelOptions

_F = TypeVar("_F", bound=Callable[..., Any])


class Executor(StrEnum):
    """Where samples run: asyncio in this process, worker processes, or Ray."""

    local = "local"
    process = "process"
    ray = "ray"


class Cache(StrEnum):
    """The response cache: on at temperature 0 only, always, or never."""

    auto = "auto"
    on = "on"
    off = "off"


@dataclass(frozen=True)
class RunOptions:
    """The options both run commands take: which model and how to reach it, and how the samples run."""

    models: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            metavar="BACKEND/NAME",
            help="The model: openai/NAME, scripted/NAME or llamacpp/PATH.gguf (without it the symbolic agents run); "
            "suite run takes several (--model A --model B), run side by side under one suite id.",
        ),
    ] = None
    base_url: Annotated[
        str | None,
        typer.Option("--base-url", metavar="URL", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1."),
    ] = None
    api_key_env: Annotated[
        str, typer.Option("--api-key-env", metavar="VAR", help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY"
    seed: Annotated[int, typer.Option("--seed", metavar="SEED", help="Seed for sample generation and agents.")] = 0
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, metavar="N", help="Samples in flight at once.")
    ] = 8
    executor: Annotated[
        Executor, typer.Option("--executor", help="local (asyncio), process (worker processes) or ray.")
    ] = Executor.local
    ray_address: Annotated[
        str | None,
        typer.Option("--ray-address", metavar="ADDRESS", help="Ray cluster address (default: start a local Ray)."),
    ] = None
    breaker: Annotated[
        int,
        typer.Option(
            "--breaker",
            min=1,
            metavar="N",
            help=(
                "Circuit breaker: stop the run (samples not finished left pending for --resume) once this many "
                "requests in a row find no server (connection refused/reset, DNS/TLS failure, HTTP 502/503 without "
                "Retry-After), counted over every sample, retry and worker; any answer in between resets the count, "
                "so an occasional 503 never trips it. Timeouts and 429s do not count (a slow or busy server keeps "
                "its retries); this many samples in a row failing for the endpoint after their retries also stop it."
            ),
        ),
    ] = 5
    temperature: Annotated[
        float | None,
        typer.Option(
            "--temperature",
            metavar="T",
            help="Sampling temperature, a finite number of at least 0 (default: each paper's, else 0.0).",
        ),
    ] = None
    max_tokens: Annotated[
        int | None,
        typer.Option(
            "--max-tokens",
            min=1,
            metavar="N",
            help="Completion token limit per call (default: each paper's, else 1024).",
        ),
    ] = None
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout", min=0.001, metavar="SECONDS", help="Seconds per model request, from its turn at the server."
        ),
    ] = 120.0
    retries: Annotated[
        int, typer.Option("--retries", min=0, metavar="N", help="Retries after a failed model request.")
    ] = 5
    format_retries: Annotated[
        int | None,
        typer.Option(
            "--format-retries",
            min=0,
            metavar="N",
            help="Times a reply the parser cannot read goes back to the model with the reason (counted; default: 1 "
            "in bench run, 0 in suite run, the papers' single-shot protocol).",
            show_default=False,
        ),
    ] = None
    cache: Annotated[Cache, typer.Option("--cache", help="Response cache: auto (temperature 0 only), on, off.")] = (
        Cache.auto
    )
    model_opt: Annotated[
        list[str] | None,
        typer.Option(
            "--model-opt",
            metavar="KEY=VALUE",
            help="Backend option (repeatable): llamacpp n_ctx, n_threads, n_gpu_layers, chat_format, seed; "
            "openai server_slots, max_reply_bytes.",
        ),
    ] = None
    progress_every: Annotated[
        float,
        typer.Option(
            "--progress-every",
            min=0.0,
            metavar="SECONDS",
            help="When stderr is not a terminal, a progress line (done, rate, ETA) every this many seconds (0: none).",
        ),
    ] = 10.0
    output_dir: Annotated[
        Path | None,
        typer.Option(
            "--output-dir",
            metavar="DIR",
            help="Also write results.json (summary, intervals, references, protocol, comparability key, "
            "configuration) and samples.jsonl (one line per sample: input, target, output, scores, status, error, "
            "model calls) to DIR (created if missing; those two files replaced).",
        ),
    ] = None
    tag: Annotated[
        list[str] | None,
        typer.Option(
            "--tag",
            metavar="TAG",
            help="Tag the run (every run of a suite) with TAG (repeatable): mindloop runs --tag and board --tag "
            "select by it; mindloop runs tag adds more later.",
        ),
    ] = None

    @property
    def model(self) -> str | None:
        """The one model (``None``: none); several are refused where one is expected (``bench run``)."""
        if self.models and len(self.models) > 1:
            raise InvalidArgumentError(
                f"--model is given {len(self.models)} times; bench run takes one model (several models side by side: "
                "mindloop suite run --model A --model B)"
            )
        return self.models[0] if self.models else None

    def model_options(self) -> ModelOptions:
        """How to reach and wrap the model (``--model-opt`` read for its backend; a bad pair is a clear error)."""
        from mindloop.models.base import ModelOptions

        return ModelOptions(
            base_url=self.base_url,
            api_key_env=self.api_key_env,
            concurrency=self.concurrency,
            timeout_s=self.timeout,
            max_retries=self.retries,
            cache=self.cache.value,
            extra=self._model_extra(),
        )

    def request_args(self, format_retries: int) -> dict[str, Any]:
        """What a benchmark run and a suite are asked for alike (:class:`~mindloop.bench.runner.RunRequest`,
        :class:`~mindloop.bench.suite.SuiteRequest`): seed, how samples run and reach the model, breaker, tags, and
        ``--format-retries`` (``format_retries``, the command's own default, without it)."""
        return {
            "format_retries": format_retries if self.format_retries is None else self.format_retries,
            "seed": self.seed,
            "concurrency": self.concurrency,
            "executor": self.executor.value,
            "ray_address": self.ray_address,
            "model_options": self.model_options(),
            "breaker": self.breaker,
            "progress_every": self.progress_every,
            "tags": tuple(self.tag or ()),
        }

    def _model_extra(self) -> dict[str, Any]:
        """``--model-opt`` read for the model's backend: with several models, valid for each of them."""
        from mindloop.models.backend_options import parse_model_opts

        extras = [parse_model_opts(model, self.model_opt or []) for model in self.models or (None,)]
        return extras[0]

    def results_folder(self) -> Path | None:
        """The ``--output-dir`` folder, created and checked writable before anything runs (``None``: not asked)."""
        if self.output_dir is None:
            return None
        from mindloop.bench.results import output_dir

        return output_dir(self.output_dir)


def write_output(folder: Path | None, run_ids: list[str], *, suite: dict[str, Any] | None = None) -> None:
    """Write ``results.json`` and ``samples.jsonl`` of ``run_ids`` (a suite's, with ``suite``) to ``folder`` when
    ``--output-dir`` asked for it, and say so on stderr."""
    if folder is None or not run_ids:
        return
    from mindloop.bench.results import write_results
    from mindloop.cli.shared import open_store

    with open_store() as store:
        results, samples = write_results(folder, store, run_ids, suite=suite)
    err_console().print(f"wrote {results} and {samples}", markup=False, soft_wrap=True)


def exit_for(bugs: int, what: str, tracebacks: str, ended: bool) -> None:
    """Exit 2 when a sample of ``what`` (a run, a suite) hit a bug (said on stderr, with where its ``tracebacks``
    are), 1 when it ``ended`` early: interrupted or stopped by the circuit breaker (the why and the --resume line
    are on stderr already); return (exit 0) otherwise."""
    if bugs:  # a defect, not a model failure: the metrics cannot be trusted (exit 2, internal error)
        err_console().print(
            f"mindloop: internal error: {bugs} sample(s) of {what} raised an exception that is not a MindloopError "
            f"(a bug); their tracebacks are in{tracebacks}",
            style="red",
            markup=False,
            soft_wrap=True,
        )
        raise typer.Exit(2)
    if ended:
        raise typer.Exit(1)


def _shared_parameters() -> list[inspect.Parameter]:
    """One keyword parameter per :class:`RunOptions` field, with its option declaration and default."""
    hints = get_type_hints(RunOptions, include_extras=True)
    return [
        inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=hints[f.name])
        for f in fields(RunOptions)
    ]


def with_run_options(command: _F) -> _F:
    """Give ``command`` the :class:`RunOptions` options in place of its ``run: RunOptions`` parameter.

    The command's signature (what Typer reads) lists the shared options where ``run`` stood; a call collects
    them into one :class:`RunOptions` and passes it as ``run``.
    """
    own = inspect.signature(command, eval_str=True)
    if "run" not in own.parameters:
        raise TypeError(f"{command.__name__} needs a 'run: RunOptions' parameter for the shared options")
    shared = _shared_parameters()
    names = [p.name for p in shared]
    params: list[inspect.Parameter] = []
    for p in own.parameters.values():
        params += shared if p.name == "run" else [p.replace(kind=inspect.Parameter.KEYWORD_ONLY)]

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> Any:
        run = RunOptions(**{name: kwargs.pop(name) for name in names})
        return command(**kwargs, run=run)

    wrapper.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    return wrapper  # type: ignore[return-value]

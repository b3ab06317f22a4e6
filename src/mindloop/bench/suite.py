"""Suites: every benchmark that has a model-driven agent, run with one model and one preset, under one suite id.

``mindloop suite run --model M`` runs each registered benchmark that declares an agent needing a model
(:attr:`~mindloop.bench.api.AgentSpec.needs_model`), with that benchmark's model agent and its paper's settings
(each benchmark's declared presets, :class:`~mindloop.bench.declaration.Suite`: ``paper`` runs the full sets with
the paper's generation settings, ``quick`` a small ``n`` per benchmark for a first look); without a model it runs
the same benchmarks with their default (symbolic) agents.
Each benchmark is one ordinary run made by :func:`~mindloop.bench.runner.run_benchmark` (the same pre-flight
check, circuit breaker, progress and resumable store), joined to the suite in the run's own transaction
(:meth:`~mindloop.bench.store.RunStore.joining`), so ``--resume SUITE_ID`` finishes a suite however it stopped:
runs left pending are resumed, benchmarks not reached are started, finished runs are kept.

:func:`runs_of_suite` lists a suite's run ids (``mindloop compare`` reads them). The suite's report, each paper's
headline table in the paper's layout, is :mod:`mindloop.bench.report.suite`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from typing import Any

from mindloop._version import __version__
from mindloop.bench.agents import model_agents
from mindloop.bench.api import Benchmark
from mindloop.bench.declaration import PRESET_NAMES, PresetEntry
from mindloop.bench.generation import resolve_generation
from mindloop.bench.headline import headline_of, headline_value
from mindloop.bench.options import validate_options
from mindloop.bench.ray_cluster import executor_session
from mindloop.bench.registry import BENCHMARKS, canonical_name, get_benchmark
from mindloop.bench.runner import (
    EXECUTORS,
    Executor,
    RunRequest,
    RunSummary,
    resumed_model_options,
    run_benchmark,
    stored_model_options,
    summarize_run,
)
from mindloop.bench.store import RunStore, StoreError, check_tags
from mindloop.errors import InvalidArgumentError, MindloopError, escaped
from mindloop.models.base import ModelOptions, preflight
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES
from mindloop.paths import runs_path

__all__ = [
    "PRESET_NAMES",
    "QUICK_DEFAULT_N",
    "SUITE_FORMAT_RETRIES",
    "SUITE_PREFIX",
    "TOKEN_KEYS",
    "PresetEntry",
    "SuiteRequest",
    "SuiteResult",
    "lineup",
    "preset_entry",
    "run_suite",
    "runs_of_suite",
    "suite_plan",
    "token_sum",
]

SUITE_PREFIX = "suite-"
"""Every suite id begins with this (``suite-YYYYMMDD-HHMMSS-xxxx``); run ids begin with their benchmark's name."""

QUICK_DEFAULT_N = 10
"""Samples a ``quick`` suite runs of a benchmark whose declaration has no ``quick`` preset (a plug-in's)."""

_PAPER = PresetEntry(None, "the whole set, as the paper evaluates it")

SUITE_FORMAT_RETRIES = 0
"""Format retries of a suite unless asked (``--format-retries``): the papers' single-shot protocol (``bench run``
keeps :data:`~mindloop.models.replies.DEFAULT_FORMAT_RETRIES`)."""


def preset_entry(preset: str, benchmark: str) -> PresetEntry:
    """How ``benchmark`` runs in ``preset``: its declaration's entry, else the default (:data:`QUICK_DEFAULT_N`
    samples in ``quick``, the whole set in ``paper``)."""
    if preset not in PRESET_NAMES:
        raise InvalidArgumentError(f"unknown preset {preset!r}; expected one of: {', '.join(PRESET_NAMES)}")
    default = PresetEntry(QUICK_DEFAULT_N, "the quick default") if preset == "quick" else _PAPER
    return get_benchmark(benchmark).spec.suite.presets.get(preset, default)


def _has_symbolic_agent(bench: Benchmark) -> bool:
    return any(not spec.needs_model for spec in bench.agents.values())


def suite_plan(*, model: bool, only: Sequence[str] = ()) -> list[str]:
    """The benchmarks a suite runs, in their declared suite order: every registered one with a model-driven agent
    (less those whose declaration excludes them), or the ones ``only`` names (aliases accepted), in the order
    given. Without a model, each must also have an agent that needs none (its default agent plays)."""
    if not only:
        names = [
            name
            for name in BENCHMARKS.names()
            if (bench := get_benchmark(name)).spec.suite.excluded is None
            and model_agents(bench)
            and (model or _has_symbolic_agent(bench))
        ]
        return sorted(names, key=lambda n: (get_benchmark(n).spec.suite.order, n))
    names = list(dict.fromkeys(canonical_name(name.strip()) for name in only))  # an unknown name: the closest ones
    for name in names:
        bench = get_benchmark(name)
        if not model_agents(bench):
            raise InvalidArgumentError(
                f"--only {name!r}: benchmark {name!r} has no model-driven agent, so it is not part of a suite"
            )
        if not model and not _has_symbolic_agent(bench):
            raise InvalidArgumentError(
                f"--only {name!r}: every agent of benchmark {name!r} needs a model; pass --model BACKEND/NAME"
            )
    return names


def _split_opts(pairs: Sequence[str]) -> dict[str, dict[str, str]]:
    """``--opt BENCH.KEY=VALUE`` strings as ``{benchmark: {key: value}}`` (benchmark names canonical)."""
    out: dict[str, dict[str, str]] = {}
    for pair in pairs:
        target, eq, value = pair.partition("=")
        bench, dot, key = target.partition(".")
        if not (eq and dot and bench.strip() and key.strip()):
            raise InvalidArgumentError(
                f"--opt {pair!r}: expected BENCHMARK.KEY=VALUE, e.g. mindpower.judge=openai/gpt-4o"
            )
        out.setdefault(canonical_name(bench.strip()), {})[key.strip()] = value
    return out


# -- running a suite ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SuiteRequest:
    """Everything that defines a suite. ``model=None`` runs the default (symbolic) agents; ``only`` limits it to
    those benchmarks; ``opts`` are ``BENCHMARK.KEY=VALUE`` benchmark options on top of the preset's;
    ``temperature``/``max_tokens`` override every benchmark's paper settings when given."""

    model: str | None = None
    preset: str = "quick"
    models: tuple[str, ...] = ()
    """Several models under one suite id (``suite run --model A --model B``): each runs every planned benchmark, in
    this order; empty for a suite of one model (``model``) or none. When given, ``model`` is its first."""
    only: tuple[str, ...] = ()
    opts: tuple[str, ...] = ()
    seed: int = 0
    concurrency: int = 8
    executor: Executor = "local"
    ray_address: str | None = None
    model_options: ModelOptions = field(default_factory=ModelOptions)
    temperature: float | None = None
    max_tokens: int | None = None
    format_retries: int = SUITE_FORMAT_RETRIES
    breaker: int = 5
    max_n: int | None = None
    """At most this many samples per benchmark, below the preset's ``n`` (a first look with a slow model)."""
    progress_every: float = 10.0
    """Seconds between plain progress lines when stderr is not a terminal (0: none), as ``bench run``'s."""
    tags: tuple[str, ...] = ()
    """Tags every run of the suite gets (``--tag``): kept with the suite, so a resumed suite's new runs get them
    too, with any given at the resume."""


def lineup(request: SuiteRequest) -> list[str | None]:
    """The models a suite runs, in order: ``models``, else ``[model]`` (``[None]``: the default agents)."""
    return list(request.models) if request.models else [request.model]


@dataclass(frozen=True)
class SuiteResult:
    """What a suite session did: the summary of each of the suite's runs so far (in plan order), the benchmarks
    not reached, and why the session stopped early (``interrupted``: Ctrl-C or SIGTERM; ``stopped``: the circuit
    breaker), if it did."""

    suite_id: str
    model: str | None
    preset: str
    benchmarks: list[str]
    summaries: list[RunSummary]
    seconds: float
    interrupted: bool = False
    stopped: str | None = None
    models: tuple[str | None, ...] = ()
    """Every model of the suite, in order (``(model,)`` for a suite of one)."""

    @property
    def complete(self) -> bool:
        """Whether every planned benchmark has a run with no sample pending, for each model."""
        done = {(s.benchmark, s.model) for s in self.summaries if s.n_completed == s.n}
        models = self.models or (self.model,)
        return {(b, m) for b in self.benchmarks for m in models} <= done

    @property
    def n_bugs(self) -> int:
        """Samples stopped by a bug, over every run."""
        return sum(s.n_bugs for s in self.summaries)

    def to_json(self) -> dict[str, Any]:
        """The ``mindloop suite run --json`` object: the suite, each run's ``bench run --json`` summary, totals."""
        return {
            "suite_id": self.suite_id,
            "model": self.model,
            "models": list(self.models or (self.model,)),
            "preset": self.preset,
            "benchmarks": list(self.benchmarks),
            "complete": self.complete,
            "interrupted": self.interrupted,
            "stopped": self.stopped,
            "seconds": round(self.seconds, 3),
            "tokens": token_sum([s.tokens for s in self.summaries]),
            "runs": [s.to_json() for s in self.summaries],
        }


_STORED = ("seed", "temperature", "max_tokens", "format_retries", "max_n", "executor", "concurrency")
"""The settings a suite's stored configuration keeps as they are (after its benchmarks, models, only and opts)."""

_PASSED = ("model", "seed", "concurrency", "executor", "ray_address", "model_options", "format_retries", "breaker")
"""The settings every run of a suite takes from the suite's request as they are (with ``progress_every`` and
``tags``)."""


def _config(request: SuiteRequest, plan: Sequence[str]) -> dict[str, Any]:
    """What the store keeps about a suite: everything that shapes its results, nothing secret."""
    return {
        "benchmarks": list(plan),
        **({"models": list(request.models)} if len(request.models) > 1 else {}),
        "only": list(request.only),
        "opts": list(request.opts),
        **{key: getattr(request, key) for key in _STORED},
        "model_options": stored_model_options(request.model_options),
        "tags": list(request.tags),
    }


def _resumed(request: SuiteRequest, store: RunStore, suite_id: str) -> tuple[SuiteRequest, list[str]]:
    """The request of a resumed suite: results-shaping settings from the store, execution settings from now."""
    info = store.suite(suite_id)
    cfg = info.config
    request = replace(
        request,
        model=info.model,
        models=tuple(cfg.get("models", ())),
        preset=info.preset,
        only=tuple(cfg.get("only", ())),
        opts=tuple(cfg.get("opts", ())),
        seed=cfg.get("seed", 0),
        temperature=cfg.get("temperature"),
        max_tokens=cfg.get("max_tokens"),
        format_retries=cfg.get("format_retries", DEFAULT_FORMAT_RETRIES),
        max_n=cfg.get("max_n"),
        tags=tuple(dict.fromkeys([*cfg.get("tags", ()), *request.tags])),
        model_options=resumed_model_options(request.model_options, cfg.get("model_options", {})),
    )
    return request, list(cfg.get("benchmarks", []))


def _run_request(request: SuiteRequest, name: str, opts: Mapping[str, Mapping[str, str]]) -> RunRequest:
    """The run of benchmark ``name`` in this suite: its preset's ``n`` and options, its paper's generation."""
    bench = get_benchmark(name)
    entry = preset_entry(request.preset, name)
    options = {**entry.options, **(entry.with_model if request.model else {}), **opts.get(name, {})}
    generation, source = resolve_generation(bench, temperature=request.temperature, max_tokens=request.max_tokens)
    n = entry.n
    if request.max_n is not None:
        n = request.max_n if n is None else min(n, request.max_n)
    passed = {key: getattr(request, key) for key in (*_PASSED, "progress_every", "tags")}
    return RunRequest(name, n=n, options=options, generation=generation, generation_source=source, **passed)


def _say(progress: bool, text: str) -> None:
    if progress:
        print(text, file=sys.stderr, flush=True)


def _check(request: SuiteRequest) -> None:
    if request.preset not in PRESET_NAMES:
        raise InvalidArgumentError(f"unknown preset {request.preset!r}; expected one of: {', '.join(PRESET_NAMES)}")
    if request.executor not in EXECUTORS:
        raise InvalidArgumentError(f"unknown executor {request.executor!r} (executors: {', '.join(EXECUTORS)})")
    if request.concurrency < 1:
        raise InvalidArgumentError(f"concurrency must be at least 1, got {request.concurrency}")
    if request.breaker < 1:
        raise InvalidArgumentError(f"the circuit breaker needs at least 1 failure, got {request.breaker}")
    if request.max_n is not None and request.max_n < 1:
        raise InvalidArgumentError(f"--max-n must be at least 1, got {request.max_n}")
    if request.models:
        twice = next((m for i, m in enumerate(request.models) if m in request.models[:i]), None)
        if twice is not None:
            raise InvalidArgumentError(f"--model {twice!r} is given twice; give each model once")
        if request.model != request.models[0]:
            raise InvalidArgumentError("SuiteRequest.model must be the first of models when models are given")
    check_tags(request.tags)


def run_suite(
    request: SuiteRequest,
    *,
    store: RunStore | None = None,
    resume: str | None = None,
    progress: bool = True,
    force_resume: bool = False,
) -> SuiteResult:
    """Run (or ``resume``) a suite: one :func:`~mindloop.bench.runner.run_benchmark` run per planned benchmark.

    A model suite checks its endpoint once before the suite is recorded (a wrong URL or key fails in seconds).
    When a run is interrupted (Ctrl-C, SIGTERM) or stopped by the circuit breaker the suite stops there, and
    ``--resume SUITE_ID`` finishes it; a set-up error is raised with the same hint. Runs that hit a bug do not
    stop the suite (their ``n_bugs`` is in the result). ``force_resume`` (with ``resume``) takes the suite and its
    unfinished runs over even from a process that still looks alive (a stale lock is taken over without it)."""
    _check(request)
    if force_resume and resume is None:
        raise InvalidArgumentError("--force-resume takes over a suite's lock: give it with --resume SUITE_ID")
    with ExitStack() as session:
        if store is None:  # the run store under MINDLOOP_HOME, closed after the Ray connection
            store = session.enter_context(RunStore(runs_path()))
        if resume is not None:
            request, plan = _resumed(request, store, resume)
            opts, suite_id = _split_opts(request.opts), resume
        else:
            plan = suite_plan(model=request.model is not None, only=request.only)
            opts = _split_opts(request.opts)
            stray = sorted(set(opts) - set(plan))
            if stray:
                raise InvalidArgumentError(
                    f"--opt {stray[0]}.KEY=VALUE: benchmark {stray[0]!r} is not in this suite ({', '.join(plan)})"
                )
            for name in plan:  # every run's options are checked before anything is recorded or called
                validate_options(get_benchmark(name), _run_request(request, name, opts).options)
            for model in lineup(request):  # every model's set-up, before anything is recorded
                if model is not None:
                    preflight(model, request.model_options)
        # one Ray connection for the whole suite (each run would otherwise start or join Ray anew): the runs find Ray
        # initialised, use it, and leave it to this, which shuts it down at the end if it started it; a cluster it
        # cannot join records no suite
        session.enter_context(executor_session(request.executor, request.ray_address))
        if resume is None:
            suite_id = store.create_suite(
                model=request.model, preset=request.preset, config=_config(request, plan), version=__version__
            )
        with store.locked_suite(suite_id, force=force_resume):
            return _run_plan(store, suite_id, request, plan, opts, progress, force_resume)


def _run_plan(
    store: RunStore,
    suite_id: str,
    request: SuiteRequest,
    plan: Sequence[str],
    opts: Mapping[str, Mapping[str, str]],
    progress: bool,
    force_resume: bool = False,
) -> SuiteResult:
    """Run or resume each planned benchmark's run in order, stopping at the first interrupted or stopped one."""
    start = time.perf_counter()
    completed = False
    summaries: list[RunSummary] = []
    interrupted, stopped = False, None
    resume_line = f"mindloop suite run --resume {suite_id}"
    models = lineup(request)
    if len(models) > 1:
        what = f"{len(models)} models ({', '.join(escaped(m or 'none') for m in models)})"
    else:
        what = f"model {escaped(request.model)}" if request.model else "the default (symbolic) agents"
    count = f"{len(plan)} benchmark" + ("" if len(plan) == 1 else "s")
    _say(progress, f"suite {suite_id}: {count}, preset {request.preset}, {what}")
    steps = [(model, name) for model in models for name in plan]
    try:
        for i, (model, name) in enumerate(steps, 1):
            members = {(b, m): r for b, m, r in store.suite_members(suite_id)}
            run_id = members.get((name, model))
            run_request = _run_request(replace(request, model=model), name, opts)
            label = f"[{i}/{len(steps)}] {name}" + (f" · {escaped(model or 'none')}" if len(models) > 1 else "")
            if run_id is not None and _finished(store, run_id):
                summary = summarize_run(run_id, store)
                _say(progress, f"{label}: already finished ({run_id})")
            else:
                _say(progress, label + (f": resuming {run_id}" if run_id else ""))
                with store.joining(suite_id):
                    force = force_resume and run_id is not None
                    summary = run_benchmark(
                        run_request, store=store, resume=run_id, progress=progress, force_resume=force
                    )
                _say(progress, f"{label}: {_one_line(summary)}")
                now = time.perf_counter()  # the session's time so far, kept should the session be killed later
                store.add_suite_seconds(suite_id, now - start, finished=False)
                start = now
            summaries.append(summary)
            if summary.interrupted or summary.stopped:
                interrupted, stopped = summary.interrupted, summary.stopped
                break
        completed = True
    except MindloopError:
        _say(True, f"suite {suite_id} stopped; once fixed, finish it with: {resume_line}")
        raise
    except KeyboardInterrupt:  # between two runs (within one, the runner stops it and says how to resume)
        _say(True, f"suite {suite_id} interrupted; finish it with: {resume_line}")
        raise
    finally:
        finished = len(summaries) == len(steps) and all(s.n_completed == s.n for s in summaries)
        try:
            store.add_suite_seconds(suite_id, time.perf_counter() - start, finished=finished)
        except StoreError:
            if completed:
                raise
            # already stopping for an error (a full disk, a lock taken over): that error is the one to show
    seconds = store.suite(suite_id).seconds
    result = SuiteResult(
        suite_id,
        request.model,
        request.preset,
        list(plan),
        summaries,
        seconds,
        interrupted,
        stopped,
        models=tuple(models),
    )
    if interrupted or stopped:
        left = len(steps) - sum(1 for s in summaries if s.n_completed == s.n)
        _say(True, f"suite {suite_id}: {left} benchmark(s) not finished; finish with: {resume_line}")
    else:
        _say(progress, f"suite {suite_id} done: report with: mindloop suite report {suite_id}")
    return result


def _finished(store: RunStore, run_id: str) -> bool:
    info = store.run(run_id)
    return info.n_completed == info.n


def _one_line(summary: RunSummary) -> str:
    """``20/20 samples, 0 failed, accuracy 0.950, 1.2 s, 20 calls, 4,321 tokens (tomi-…)``."""
    head = headline_of(summary.benchmark, summary.metrics)
    value = headline_value(head, summary.metrics)
    metric = f", {head.metric} {'–' if value is None else f'{value:.3f}'}" if head else ""
    bugs = f", {summary.n_bugs} bug(s)" if summary.n_bugs else ""
    tokens = summary.tokens
    return (
        f"{summary.n_completed}/{summary.n} samples, {summary.n_failed} failed{bugs}{metric}, {summary.seconds:.1f} s, "
        f"{tokens.get('calls', 0)} calls, {tokens.get('total_tokens', 0):,} tokens ({summary.run_id})"
    )


def runs_of_suite(store: RunStore, suite_id: str) -> list[str]:
    """The run ids of suite ``suite_id`` so far, in the suite's order (an unknown suite is an
    :class:`~mindloop.errors.InvalidArgumentError` naming it). Suite ids begin with :data:`SUITE_PREFIX`."""
    info = store.suite(suite_id)
    members = store.suite_members(suite_id)
    order = list(info.config.get("benchmarks", []))
    models = list(dict.fromkeys([*info.config.get("models", []), *(m for _, m, _ in members)]))
    rank = {(b, m): (models.index(m), order.index(b) if b in order else len(order)) for b, m, _ in members}
    return [run_id for b, m, run_id in sorted(members, key=lambda x: rank[(x[0], x[1])])]


TOKEN_KEYS = ("calls", "cache_hits", "failed_calls", "prompt_tokens", "completion_tokens", "total_tokens")
"""The token ledger's counts a suite adds up over its runs."""


def token_sum(ledgers: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """The :data:`TOKEN_KEYS` counts of several runs' ``tokens`` added up."""
    return {key: sum(int(t.get(key, 0) or 0) for t in ledgers) for key in TOKEN_KEYS}

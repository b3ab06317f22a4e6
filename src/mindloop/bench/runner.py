"""Run a benchmark's samples with bounded concurrency and stream every finished sample into the run store.

Three executors share one per-sample function (:func:`execute_sample`): ``local`` (asyncio in this process:
the right choice for model calls), ``process`` (a process pool: CPU-bound simulation) and ``ray`` (Ray tasks
on a local instance or a cluster). Whatever the executor, results come back to this process, which alone
writes the store, commits each sample as it ends and drives the progress bar. A run interrupted by Ctrl-C or
killed outright resumes with :func:`run_benchmark` ``(resume=RUN_ID)``, which runs only the pending samples.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import hashlib
import signal
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from mindloop._version import __version__
from mindloop.bench.agents import model_agents, team_members
from mindloop.bench.api import AgentContext, Benchmark, Options, Outcome, Sample, SampleRecord
from mindloop.bench.options import validate_options
from mindloop.bench.registry import get_benchmark
from mindloop.bench.store import RunInfo, RunStore, SampleResult
from mindloop.errors import DependencyError, InvalidArgumentError, MindloopError
from mindloop.models.base import (
    BACKENDS,
    ChatModel,
    GenerationConfig,
    ModelOptions,
    RecordingModel,
    TokenLedger,
    load_model,
    split_model_name,
)
from mindloop.paths import runs_path

__all__ = [
    "EXECUTORS",
    "RunRequest",
    "RunSummary",
    "execute_sample",
    "run_benchmark",
    "summarize_run",
    "token_totals",
]

Executor = Literal["local", "process", "ray"]
EXECUTORS: tuple[Executor, ...] = ("local", "process", "ray")


@dataclass(frozen=True)
class RunRequest:
    """Everything that defines a run. ``agent=None`` picks the benchmark's default (or its model agent when a
    model is given); ``options`` are benchmark-specific settings such as ``data`` (a file to read)."""

    benchmark: str
    agent: str | None = None
    model: str | None = None
    n: int | None = None
    seed: int = 0
    options: Mapping[str, str] = field(default_factory=dict)
    concurrency: int = 8
    executor: Executor = "local"
    ray_address: str | None = None
    model_options: ModelOptions = field(default_factory=ModelOptions)
    generation: GenerationConfig = field(default_factory=GenerationConfig)


@dataclass(frozen=True)
class RunSummary:
    """The outcome of a run: counts, the benchmark's metrics, wall-clock seconds and the token ledger.

    ``n_completed`` counts finished samples, failed ones included; ``n_failed`` those that failed.
    """

    run_id: str
    benchmark: str
    agent: str
    model: str | None
    n: int
    n_completed: int
    n_failed: int
    metrics: dict[str, Any]
    seconds: float
    tokens: dict[str, Any]
    interrupted: bool = False

    def to_json(self) -> dict[str, Any]:
        """The ``mindloop bench run --json`` object."""
        out = asdict(self)
        out["seconds"] = round(self.seconds, 3)
        return out


# -- one sample -------------------------------------------------------------------------------------------------


def sample_seed(seed: int, sample_id: str) -> int:
    """The seed one sample gets: a stable function of the run seed and the sample id, whatever the executor."""
    digest = hashlib.sha256(f"{seed}:{sample_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


async def execute_sample(
    bench: Benchmark,
    index: int,
    sample: Sample,
    agent: str,
    model: ChatModel | None,
    generation: GenerationConfig,
    seed: int,
) -> SampleResult:
    """Run one sample and package it for the store; input errors and model failures become failed samples."""
    recorder = RecordingModel(model) if model is not None else None
    ctx = AgentContext(agent=agent, model=recorder, config=generation, seed=sample_seed(seed, sample.id))
    start = time.perf_counter()
    try:
        outcome = await bench.run(sample, ctx)
    except MindloopError as exc:
        outcome = Outcome(output={}, error=f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a bug in a benchmark: keep the run going, keep the evidence
        outcome = Outcome(output={}, error=f"internal error: {type(exc).__name__}: {exc}")
    calls = [c.to_dict() for c in recorder.calls] if recorder else []
    return SampleResult(
        index=index,
        status="failed" if outcome.error else "done",
        output=outcome.output,
        scores=outcome.scores,
        error=outcome.error,
        calls=calls,
        seconds=time.perf_counter() - start,
    )


@dataclass(frozen=True)
class _Job:
    """One sample for a worker process or Ray task (plain data: it is pickled)."""

    benchmark: str
    index: int
    sample: Sample
    agent: str
    model: str | None
    model_options: ModelOptions
    generation: GenerationConfig
    seed: int


class _Worker:
    """Per-process state of a pool worker or Ray worker: one event loop, benchmarks and models built once."""

    loop: asyncio.AbstractEventLoop | None = None
    benches: dict[str, Benchmark] = {}  # noqa: RUF012 - process-wide caches by design
    models: dict[tuple[str, ModelOptions], ChatModel] = {}  # noqa: RUF012


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and shuts the pool down


def _run_job(job: _Job) -> SampleResult:
    if _Worker.loop is None:
        _Worker.loop = asyncio.new_event_loop()
    bench = _Worker.benches.get(job.benchmark)
    if bench is None:
        bench = _Worker.benches[job.benchmark] = get_benchmark(job.benchmark)
    model = None
    if job.model is not None:
        key = (job.model, job.model_options)
        model = _Worker.models.get(key)
        if model is None:
            model = _Worker.models[key] = load_model(job.model, job.model_options)
    coro = execute_sample(bench, job.index, job.sample, job.agent, model, job.generation, job.seed)
    return _Worker.loop.run_until_complete(coro)


# -- executors ----------------------------------------------------------------------------------------------------

Sink = Callable[[SampleResult], None]


async def _run_local(
    bench: Benchmark,
    pending: Sequence[tuple[int, Sample]],
    request: RunRequest,
    agent: str,
    model: ChatModel | None,
    sink: Sink,
) -> None:
    queue: Iterator[tuple[int, Sample]] = iter(pending)

    async def worker() -> None:
        for index, sample in queue:
            sink(await execute_sample(bench, index, sample, agent, model, request.generation, request.seed))

    try:
        await asyncio.gather(*(worker() for _ in range(max(1, min(request.concurrency, len(pending))))))
    finally:
        if model is not None:
            await model.aclose()


def _jobs(pending: Sequence[tuple[int, Sample]], request: RunRequest, agent: str, model: str | None) -> Iterator[_Job]:
    for index, sample in pending:
        yield _Job(
            request.benchmark, index, sample, agent, model, request.model_options, request.generation, request.seed
        )


def _run_process(
    pending: Sequence[tuple[int, Sample]], request: RunRequest, agent: str, model: str | None, sink: Sink
) -> None:
    workers = max(1, min(request.concurrency, len(pending)))
    jobs = _jobs(pending, request, agent, model)
    pool = cf.ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint)
    try:
        in_flight = {pool.submit(_run_job, job) for job in _take(jobs, 2 * workers)}
        while in_flight:
            done, in_flight = cf.wait(in_flight, return_when=cf.FIRST_COMPLETED)
            for future in done:
                sink(future.result())
            in_flight |= {pool.submit(_run_job, job) for job in _take(jobs, len(done))}
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _run_ray(
    pending: Sequence[tuple[int, Sample]], request: RunRequest, agent: str, model: str | None, sink: Sink
) -> None:
    try:
        import ray
    except ImportError:
        raise DependencyError("--executor ray needs Ray: pip install 'mindloop[scale]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(
            address=request.ray_address,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    task = ray.remote(max_retries=0)(_run_job)
    jobs = _jobs(pending, request, agent, model)
    limit = max(1, request.concurrency)
    refs = [task.remote(job) for job in _take(jobs, limit)]
    try:
        while refs:
            done, refs = ray.wait(refs, num_returns=1)
            for ref in done:
                sink(ray.get(ref))
            refs += [task.remote(job) for job in _take(jobs, len(done))]
    finally:
        for ref in refs:
            ray.cancel(ref, force=True)
        if started_here:
            ray.shutdown()


def _take(jobs: Iterator[_Job], k: int) -> list[_Job]:
    out = []
    for job in jobs:
        out.append(job)
        if len(out) >= k:
            break
    return out


# -- progress ---------------------------------------------------------------------------------------------------


class _RateColumn(ProgressColumn):
    """Samples per second, from rich's running speed estimate."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.1f} samples/s" if speed else "- samples/s", style="progress.data.speed")


def _progress(enabled: bool) -> Progress:
    console = Console(stderr=True)
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[failed]}", style="red"),
        console=console,
        disable=not enabled or not console.is_terminal,
    )


# -- runs ---------------------------------------------------------------------------------------------------------


def _choose_agent(bench: Benchmark, agent: str | None, model: str | None, options: Options) -> str:
    """The agent (or team) of a new run, checked against the benchmark's agent specs and these options."""
    first = next(iter(bench.agents))
    if agent is None:
        agent = next(iter(model_agents(bench)), first) if model else first
    members = team_members(bench, agent, options)
    needs = sorted({m for m in members if bench.agents[m].needs_model})
    if needs and model is None:
        raise InvalidArgumentError(f"agent {needs[0]!r} needs a model: pass --model BACKEND/NAME")
    if model is not None and not needs:
        raise InvalidArgumentError(
            f"agent {agent!r} does not use a model; drop --model or pick one of: {', '.join(model_agents(bench))}"
        )
    return agent


def _config(request: RunRequest) -> dict[str, Any]:
    """What the store keeps about a request: everything that shapes the results, nothing secret.

    Options are kept as given (``--opt`` strings), and validated again when the run resumes."""
    mo = request.model_options
    return {
        "n": request.n,
        "seed": request.seed,
        "options": dict(request.options),
        "generation": request.generation.params(),
        "executor": request.executor,
        "concurrency": request.concurrency,
        "model_options": {"base_url": mo.base_url, "api_key_env": mo.api_key_env, "cache": mo.cache},
    }


def _resumed(request: RunRequest, info: RunInfo) -> RunRequest:
    """The request of a resumed run: results-shaping settings from the store, execution settings from now."""
    if request.benchmark != info.benchmark:
        raise InvalidArgumentError(f"run {info.run_id} is a {info.benchmark!r} run, not {request.benchmark!r}")
    cfg = info.config
    stored_mo = cfg.get("model_options", {})
    return replace(
        request,
        agent=info.agent,
        model=info.model,
        n=cfg.get("n"),
        seed=cfg.get("seed", 0),
        options=dict(cfg.get("options", {})),
        generation=GenerationConfig.from_params(cfg.get("generation", {})),
        model_options=replace(
            request.model_options,
            base_url=request.model_options.base_url or stored_mo.get("base_url"),
            cache=stored_mo.get("cache", request.model_options.cache),
        ),
    )


def run_benchmark(
    request: RunRequest,
    *,
    store: RunStore | None = None,
    resume: str | None = None,
    progress: bool = True,
) -> RunSummary:
    """Run (or resume) a benchmark and return its summary; every finished sample is already in the store.

    Ctrl-C stops the run cleanly: finished samples are kept and the summary says ``interrupted``.
    """
    if request.executor not in EXECUTORS:
        raise InvalidArgumentError(f"unknown executor {request.executor!r} (executors: {', '.join(EXECUTORS)})")
    if request.concurrency < 1:
        raise InvalidArgumentError(f"concurrency must be at least 1, got {request.concurrency}")
    if request.n is not None and request.n < 0:
        raise InvalidArgumentError(f"n must be non-negative, got {request.n}")
    own_store = store is None
    store = store or RunStore(runs_path())
    try:
        bench = get_benchmark(request.benchmark)
        if resume is not None:
            request = _resumed(request, store.run(resume))
            validate_options(bench, request.options)  # the stored options still mean what they meant
            agent, run_id = request.agent or next(iter(bench.agents)), resume
        else:
            options = validate_options(bench, request.options)
            agent = _choose_agent(bench, request.agent, request.model, options)
            if request.model is not None:  # a bad model string fails before a run is recorded
                BACKENDS.get(split_model_name(request.model)[0])
            samples = bench.samples(request.n, request.seed, options)
            run_id = store.create_run(
                benchmark=bench.name,
                agent=agent,
                model=request.model,
                config=_config(request),
                samples=samples,
                version=__version__,
            )
        with store.locked(run_id):
            interrupted = _execute_pending(bench, store, run_id, request, agent, progress)
        return summarize_run(run_id, store, bench=bench, interrupted=interrupted)
    finally:
        if own_store:
            store.close()


def _execute_pending(
    bench: Benchmark, store: RunStore, run_id: str, request: RunRequest, agent: str, progress: bool
) -> bool:
    """Run the pending samples of ``run_id``; returns whether the run was interrupted."""
    pending = store.pending(run_id)
    info = store.run(run_id)
    start = time.perf_counter()
    failed = info.n_failed
    interrupted = False
    with _progress(progress) as bar:
        task = bar.add_task(f"{bench.name} · {agent}", total=info.n, completed=info.n_completed, failed="")

        def sink(result: SampleResult) -> None:
            nonlocal failed
            store.finish(run_id, [result])
            failed += result.status == "failed"
            bar.update(task, advance=1, failed=f"{failed} failed" if failed else "")

        try:
            if pending and request.executor == "local":
                model = load_model(request.model, request.model_options) if request.model else None
                asyncio.run(_run_local(bench, pending, request, agent, model, sink))
            elif pending and request.executor == "process":
                _run_process(pending, request, agent, request.model, sink)
            elif pending:
                _run_ray(pending, request, agent, request.model, sink)
        except KeyboardInterrupt:
            interrupted = True
    remaining = len(store.pending(run_id))
    store.add_seconds(run_id, time.perf_counter() - start, finished=remaining == 0)
    if interrupted:
        print(
            f"interrupted: {remaining} sample(s) not run; finish with: mindloop bench run {bench.name} "
            f"--resume {run_id}",
            file=sys.stderr,
        )
    return interrupted


def token_totals(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """The token ledger over every recorded call of ``records``, without latency (it differs run to run, so a
    resumed run's summary still equals an uninterrupted one's)."""
    ledger = TokenLedger()
    for record in records:
        for call in record.calls:
            ledger.add(call)
    tokens = ledger.to_dict()
    tokens.pop("latency_s")
    return tokens


def summarize_run(
    run_id: str, store: RunStore, *, bench: Benchmark | None = None, interrupted: bool = False
) -> RunSummary:
    """Recompute a run's summary from the store (the same numbers however many sessions the run took)."""
    info = store.run(run_id)
    bench = bench or get_benchmark(info.benchmark)
    records = store.records(run_id)
    return RunSummary(
        run_id=run_id,
        benchmark=info.benchmark,
        agent=info.agent,
        model=info.model,
        n=info.n,
        n_completed=info.n_completed,
        n_failed=info.n_failed,
        metrics=bench.summarize(records),
        seconds=info.seconds,
        tokens=token_totals(records),
        interrupted=interrupted,
    )

"""Run a benchmark's samples with bounded concurrency and stream every finished sample into the run store.

Three executors share one per-sample function (:func:`execute_sample`): ``local`` (asyncio in this process:
the right choice for model calls), ``process`` (a process pool: CPU-bound simulation) and ``ray`` (Ray tasks
on a local instance or a cluster). Whatever the executor, results come back to this process, which alone
writes the store, commits each sample as it ends and drives the progress bar. A run interrupted by Ctrl-C or
killed outright resumes with :func:`run_benchmark` ``(resume=RUN_ID)``, which runs only the pending samples.

What a sample raises decides what it becomes (:func:`execute_sample`): a set-up error (:data:`SETUP_ERRORS`: a
missing optional dependency, an invalid option or argument, an unknown name) stops the whole run, on whichever
executor, and is raised to the caller with the sample left ``pending`` for a later ``--resume``; it is never
recorded as a failed sample that scores 0. Any other :class:`~mindloop.errors.MindloopError` (a model that failed
after its retries, a malformed reply) is a ``failed`` sample; any other exception is a ``bug`` sample, counted
apart in the summary (``n_bugs``) so a defect never passes for a model's failure.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import hashlib
import signal
import sys
import time
import traceback
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
from mindloop.bench.registry import canonical_name, get_benchmark
from mindloop.bench.store import RunInfo, RunStore, SampleResult
from mindloop.errors import SETUP_ERRORS, DependencyError, InvalidArgumentError, MindloopError, UnknownNameError
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
    "SETUP_ERRORS",
    "RunRequest",
    "RunSummary",
    "benchmark_metrics",
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

    ``n_completed`` counts finished samples, failed ones and bugs included; ``n_failed`` those whose model or
    answer failed; ``n_bugs`` those stopped by a bug (an exception that is not a ``MindloopError``).
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
    n_bugs: int = 0

    def to_json(self) -> dict[str, Any]:
        """The ``mindloop bench run --json`` object (``n_bugs`` right after ``n_failed``)."""
        fields = asdict(self)
        head = ("run_id", "benchmark", "agent", "model", "n", "n_completed", "n_failed", "n_bugs")
        out = {key: fields.pop(key) for key in head} | fields
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
    """Run one sample and package it for the store.

    A set-up error (:data:`SETUP_ERRORS`) is raised, unrecorded: the run cannot go on as set up. Any other
    ``MindloopError`` makes a ``failed`` sample, any other exception a ``bug`` sample whose error keeps the
    traceback; both keep the model calls made so far.
    """
    recorder = RecordingModel(model) if model is not None else None
    ctx = AgentContext(agent=agent, model=recorder, config=generation, seed=sample_seed(seed, sample.id))
    start = time.perf_counter()
    status = "failed"
    try:
        outcome = await bench.run(sample, ctx)
    except SETUP_ERRORS:
        raise
    except MindloopError as exc:
        outcome = Outcome(output={}, error=f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a bug in a benchmark: keep the run going, keep the evidence, count it apart
        status = "bug"
        trace = "".join(traceback.format_tb(exc.__traceback__)[-10:]).rstrip()
        outcome = Outcome(output={}, error=f"internal error: {type(exc).__name__}: {exc}\n{trace}")
    calls = [c.to_dict() for c in recorder.calls] if recorder else []
    return SampleResult(
        index=index,
        status=status if outcome.error else "done",
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


@dataclass(frozen=True)
class _Abort:
    """A set-up error met by a worker, sent back as plain data (any executor can carry it) for the parent to
    raise: the error's family (one of :data:`SETUP_ERRORS`' classes) and its message."""

    index: int
    kind: type[MindloopError]
    message: str

    @classmethod
    def of(cls, index: int, exc: MindloopError) -> _Abort:
        """The abort for ``exc`` met at sample ``index``."""
        return cls(index, _setup_class(exc), str(exc))

    def stop(self) -> _AbortRunError:
        """The exception that stops the run in the parent."""
        return _AbortRunError(self.index, self.kind(self.message))


def _setup_class(exc: BaseException) -> type[MindloopError]:
    """The public class that stands for a set-up error (a subclass defined by a plug-in may not unpickle)."""
    families: tuple[type[MindloopError], ...] = (UnknownNameError, *SETUP_ERRORS)
    return next((k for k in families if isinstance(exc, k)), MindloopError)


class _AbortRunError(Exception):
    """Raised in the parent to stop every executor: sample ``index`` met a set-up error."""

    def __init__(self, index: int, error: MindloopError) -> None:
        super().__init__(str(error))
        self.index = index
        self.error = error


class _Worker:
    """Per-process state of a pool worker or Ray worker: one event loop, benchmarks and models built once."""

    loop: asyncio.AbstractEventLoop | None = None
    benches: dict[str, Benchmark] = {}  # noqa: RUF012 - process-wide caches by design
    models: dict[tuple[str, ModelOptions], ChatModel] = {}  # noqa: RUF012


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and shuts the pool down


def _run_job(job: _Job) -> SampleResult | _Abort:
    """Run one job in a worker; a set-up error (here or in the sample) comes back as an :class:`_Abort`."""
    if _Worker.loop is None:
        _Worker.loop = asyncio.new_event_loop()
    try:
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
    except SETUP_ERRORS as exc:
        return _Abort.of(job.index, exc)


# -- executors ----------------------------------------------------------------------------------------------------

Sink = Callable[[SampleResult], None]


def _deliver(result: SampleResult | _Abort, sink: Sink) -> None:
    """Store a worker's result, or stop the run when the worker met a set-up error."""
    if isinstance(result, _Abort):
        raise result.stop()
    sink(result)


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
            try:
                result = await execute_sample(bench, index, sample, agent, model, request.generation, request.seed)
            except SETUP_ERRORS as exc:
                raise _AbortRunError(index, exc) from exc
            sink(result)

    workers = [asyncio.ensure_future(worker()) for _ in range(max(1, min(request.concurrency, len(pending))))]
    try:
        # The first error stops every worker: samples in flight are cancelled and stay pending.
        await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        if model is not None:
            await model.aclose()
    for task in workers:
        error = None if task.cancelled() else task.exception()
        if error is not None:
            raise error


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
            aborts = _keep([f.result() for f in done], sink)
            if aborts:  # stop: jobs not started are cancelled, samples still running are kept when they finish
                for future in in_flight:
                    future.cancel()
                _keep([f.result() for f in cf.as_completed(in_flight) if not f.cancelled()], sink)
                raise aborts[0].stop()
            in_flight |= {pool.submit(_run_job, job) for job in _take(jobs, len(done))}
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _keep(results: Sequence[SampleResult | _Abort], sink: Sink) -> list[_Abort]:
    """Store every finished sample of ``results``; returns the set-up errors among them."""
    for result in results:
        if isinstance(result, SampleResult):
            sink(result)
    return [r for r in results if isinstance(r, _Abort)]


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
                _deliver(ray.get(ref), sink)
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
    if canonical_name(request.benchmark) != info.benchmark:
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
    """Run the pending samples of ``run_id``; returns whether the run was interrupted.

    A set-up error stops the run and is raised again, as its public class, with a message that names the sample
    and how to finish the run once the set-up is fixed (the sample that met it is still pending).
    """
    pending = store.pending(run_id)
    info = store.run(run_id)
    start = time.perf_counter()
    counts = {"failed": info.n_failed, "bug": info.n_bugs}
    interrupted = False
    aborted: tuple[int | None, MindloopError] | None = None
    with _progress(progress) as bar:
        task = bar.add_task(f"{bench.name} · {agent}", total=info.n, completed=info.n_completed, failed="")

        def sink(result: SampleResult) -> None:
            store.finish(run_id, [result])
            if result.status in counts:
                counts[result.status] += 1
            bar.update(task, advance=1, failed=_failed_text(counts["failed"], counts["bug"]))

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
        except _AbortRunError as exc:
            aborted = (exc.index, exc.error)
        except SETUP_ERRORS as exc:  # met before any sample ran (a model that cannot load, Ray missing)
            aborted = (None, exc)
    remaining = len(store.pending(run_id))
    store.add_seconds(run_id, time.perf_counter() - start, finished=remaining == 0)
    resume = f"mindloop bench run {bench.name} --resume {run_id}"
    if aborted is not None:
        index, error = aborted
        where = next((f"sample {s.id!r} of " for i, s in pending if i == index), "") if index is not None else ""
        raise _setup_class(error)(
            f"{error} ({where}run {run_id}: stopped with {remaining} of {info.n} samples pending; "
            f"once fixed, finish it with: {resume})"
        ) from error
    if interrupted:
        print(f"interrupted: {remaining} sample(s) not run; finish with: {resume}", file=sys.stderr)
    return interrupted


def _failed_text(failed: int, bugs: int) -> str:
    """The progress bar's failure column: ``3 failed · 1 bug`` (empty while all is well)."""
    parts = [f"{failed} failed"] if failed else []
    if bugs:
        parts.append(f"{bugs} bug{'s' if bugs != 1 else ''}")
    return " · ".join(parts)


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


def benchmark_metrics(bench: Benchmark, records: Sequence[SampleRecord]) -> dict[str, Any]:
    """The benchmark's summary of finished samples, with each bug sample shown to it as a failed one: a benchmark
    scores failures as failures, so a bug can never raise a metric, whatever the benchmark knows of statuses."""
    return bench.summarize([replace(r, status="failed") if r.status == "bug" else r for r in records])


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
        metrics=benchmark_metrics(bench, records),
        seconds=info.seconds,
        tokens=token_totals(records),
        interrupted=interrupted,
        n_bugs=info.n_bugs,
    )

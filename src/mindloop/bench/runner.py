"""Run a benchmark's samples with bounded concurrency and stream every finished sample into the run store.

The samples run on one of three executors (``local``, ``process``, ``ray``; :mod:`~mindloop.bench.executors`,
which also holds the per-sample function :func:`execute_sample`, re-exported here). Whatever the executor, results
come back to this process, which alone writes the store, commits each sample as it ends and drives the progress
bar. A run interrupted by Ctrl-C or killed outright resumes with :func:`run_benchmark` ``(resume=RUN_ID)``, which
runs only the pending samples.

What a sample raises decides what it becomes (:func:`execute_sample`): a set-up error (:data:`SETUP_ERRORS`: a
missing optional dependency, an invalid option or argument, an unknown name) stops the whole run, on whichever
executor, and is raised to the caller with the sample left ``pending`` for a later ``--resume``; it is never
recorded as a failed sample that scores 0. A new run it stops before any sample finished is removed instead: it
holds nothing to resume (the model back-end's pre-flight, :func:`~mindloop.models.base.preflight`, catches most
such set-ups before a run is recorded at all). Any other :class:`~mindloop.errors.MindloopError` (a model that failed
after its retries, a malformed reply) is a ``failed`` sample; any other exception is a ``bug`` sample, counted
apart in the summary (``n_bugs``) so a defect never passes for a model's failure.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import time
from collections.abc import Coroutine, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field, replace
from typing import Any, NoReturn

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
from mindloop.bench.api import Benchmark, Options, SampleRecord
from mindloop.bench.breaker import CircuitBreaker, no_answer
from mindloop.bench.executors import (
    AbortRunError,
    execute_sample,
    run_local,
    run_process,
    run_ray,
    sample_seed,
    setup_class,
)
from mindloop.bench.headline import no_intervals_of
from mindloop.bench.key import data_digest, run_key
from mindloop.bench.options import validate_options
from mindloop.bench.progress import ProgressLog, run_estimate
from mindloop.bench.ray_cluster import executor_session
from mindloop.bench.registry import canonical_name, get_benchmark
from mindloop.bench.request import EXECUTORS, Executor, RunRequest
from mindloop.bench.scoring import definitions, reference_values, run_metrics
from mindloop.bench.store import LockLostError, RunInfo, RunStore, SampleResult, StoreError, check_tags
from mindloop.errors import SETUP_ERRORS, ClusterError, InvalidArgumentError, MindloopError, ModelError, escaped
from mindloop.models import outages
from mindloop.models.base import GenerationConfig, ModelOptions, TokenLedger, load_model, preflight
from mindloop.models.replies import reply_outcomes
from mindloop.paths import runs_path

__all__ = [
    "EXECUTORS",
    "MAX_N",
    "SETUP_ERRORS",
    "Executor",
    "RunRequest",
    "RunSummary",
    "as_scored",
    "backfill_summaries",
    "benchmark_metrics",
    "execute_sample",
    "is_model_failure",
    "metric_intervals",
    "run_benchmark",
    "run_protocol",
    "sample_seed",
    "stored_policies",
    "stored_summary",
    "summarize_run",
    "token_totals",
]


MAX_N = 100_000
"""The most samples a new run may ask for (``--n``): a generated benchmark (ToMi, the household scenarios, ...) would
otherwise keep generating whatever number it is given (ToMi takes about 1.4 ms a question on one core)."""


@dataclass(frozen=True)
class RunSummary:
    """The outcome of a run: counts, the benchmark's metrics, wall-clock seconds and the token ledger.

    ``replies`` says how the agent's model replies fared (:func:`~mindloop.models.replies.reply_outcomes`:
    parsed, rejected by the parser, no reply, read without a parser, format retries), empty for a run with no model.
    ``n_completed`` counts finished samples, failed ones and bugs included; ``n_failed`` those whose model or
    answer failed, of which ``n_model_failures`` failed in the model call itself (:func:`is_model_failure`: the
    endpoint, a timeout, a malformed reply) and the rest in the answer (unparsed, invalid); ``n_bugs`` those stopped
    by a bug (an exception that is not a ``MindloopError``). ``stopped`` says why a run stopped before its end
    (the circuit breaker, or a Ray cluster that failed it), ``None`` otherwise.
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
    n_model_failures: int = 0
    stopped: str | None = None
    replies: dict[str, int] = field(default_factory=dict)
    intervals: dict[str, Any] = field(default_factory=dict)
    """95% bootstrap intervals of the metrics (:func:`~mindloop.bench.uncertainty.bootstrap_intervals`)."""
    protocol: dict[str, Any] = field(default_factory=dict)
    """How the replies were asked for: ``format_retries`` (times an unreadable reply went back with the reason;
    0 is the papers' single-shot protocol). Every table and JSON of the run names it."""
    references: dict[str, float | None] = field(default_factory=dict)
    """The benchmark's reference policies (chance, the oracle, ...) on the same samples, by name: the headline
    metric each reaches with no model (:attr:`~mindloop.bench.declaration.BenchmarkSpec.references`)."""
    reference_policies: list[dict[str, Any]] = field(default_factory=list)
    """What each reference policy is (name, kind, description, optimistic, none_reason), as stored with the run
    (``definitions["references"]``): an old run is read with the definitions it was computed with."""
    summary_source: dict[str, Any] = field(default_factory=dict)
    """Where the metrics come from: ``computed_by`` (``run``: the run's own session; ``backfill``: computed
    later for a run stored without one) and the mindloop ``version`` that computed them."""
    key: dict[str, Any] | None = None
    """The run's comparability key as stored (:meth:`~mindloop.bench.key.RunKey.to_json`): what its numbers may be
    ranked against."""
    tags: list[str] = field(default_factory=list)
    """The run's tags (``--tag``, ``mindloop runs tag``)."""

    def to_json(self) -> dict[str, Any]:
        """The ``mindloop bench run --json`` object (``n_bugs`` then ``n_model_failures`` after ``n_failed``,
        ``intervals`` after ``metrics``)."""
        fields = asdict(self)
        head: tuple[str, ...] = ("run_id", "benchmark", "agent", "model", "n", "n_completed", "n_failed", "n_bugs")
        head += ("n_model_failures", "metrics", "intervals")
        out = {key: fields.pop(key) for key in head} | fields
        out["seconds"] = round(self.seconds, 3)
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
    return {
        "n": request.n,
        "seed": request.seed,
        "options": dict(request.options),
        "generation": request.generation.params(),
        "generation_source": dict(request.generation_source),
        "format_retries": request.format_retries,
        "executor": request.executor,
        "concurrency": request.concurrency,
        "model_options": stored_model_options(request.model_options),
    }


def stored_model_options(mo: ModelOptions) -> dict[str, Any]:
    """What a run's or a suite's stored config keeps of its model options: the endpoint, the name of the key's
    variable (never the key), the cache and ``--model-opt`` (``chat_format`` shapes the replies)."""
    return {"base_url": mo.base_url, "api_key_env": mo.api_key_env, "cache": mo.cache} | (
        {"extra": dict(mo.extra)} if mo.extra else {}
    )


def resumed_model_options(now: ModelOptions, stored: Mapping[str, Any]) -> ModelOptions:
    """The model options of a resumed run or suite: the stored cache; the endpoint, ``--api-key-env`` and
    ``--model-opt`` given now, else the stored ones."""
    return replace(
        now,
        base_url=now.base_url or stored.get("base_url"),
        api_key_env=now.api_key_env
        if now.api_key_env != ModelOptions.api_key_env
        else stored.get("api_key_env", now.api_key_env),
        cache=stored.get("cache", now.cache),
        extra=now.extra or stored.get("extra", {}),
    )


def _resumed(request: RunRequest, info: RunInfo) -> RunRequest:
    """The request of a resumed run: results-shaping settings from the store, execution settings from now."""
    if canonical_name(request.benchmark) != info.benchmark:
        raise InvalidArgumentError(f"run {info.run_id} is a {info.benchmark!r} run, not {request.benchmark!r}")
    cfg = info.config
    return replace(
        request,
        agent=info.agent,
        model=info.model,
        n=cfg.get("n"),
        seed=cfg.get("seed", 0),
        options=dict(cfg.get("options", {})),
        generation=GenerationConfig.from_params(cfg.get("generation", {})),
        format_retries=cfg.get("format_retries", 0),  # runs stored before format retries existed had none
        model_options=resumed_model_options(request.model_options, cfg.get("model_options", {})),
    )


def run_benchmark(
    request: RunRequest,
    *,
    store: RunStore | None = None,
    resume: str | None = None,
    progress: bool = True,
    retry_failed: bool = False,
    force_resume: bool = False,
) -> RunSummary:
    """Run (or resume) a benchmark and return its summary; every finished sample is already in the store.

    A model run first checks its endpoint (:func:`~mindloop.models.base.preflight`), so a wrong URL or key fails
    before a run is recorded. Ctrl-C or SIGTERM stops the run within moments on any executor: finished samples are
    kept, the rest stay pending and the summary says ``interrupted``; the circuit breaker (``request.breaker``) stops
    it the same way when the endpoint goes down, with ``stopped`` saying why. ``retry_failed`` (with ``resume``)
    runs the failed and bug samples again, each keeping its earlier attempts in the store's history.

    A run held by a process that is gone (killed, on a host that no longer exists, suspended past the heartbeat's
    interval) is taken over with a message (:meth:`~mindloop.bench.store.RunStore.locked`); ``force_resume`` takes
    it over even from a holder that still looks live. A store write that fails (a full disk) stops the run with a
    one-line :class:`~mindloop.bench.store.StoreError` that says how to finish it.
    """
    if retry_failed and resume is None:
        raise InvalidArgumentError("--retry-failed re-runs the failed samples of a run: give it with --resume RUN_ID")
    if force_resume and resume is None:
        raise InvalidArgumentError("--force-resume takes over a run's lock: give it with --resume RUN_ID")
    if request.executor not in EXECUTORS:  # its breaker, concurrency and n were checked as it was made (RunRequest)
        raise InvalidArgumentError(f"unknown executor {request.executor!r} (executors: {', '.join(EXECUTORS)})")
    check_tags(request.tags)  # before anything is recorded
    with ExitStack() as cluster:  # the Ray connection of an --executor ray run, joined before the run is recorded
        if store is None:  # the run store under MINDLOOP_HOME, closed after the Ray connection
            store = cluster.enter_context(RunStore(runs_path()))
        backfill_summaries(store)
        bench = get_benchmark(request.benchmark)
        if resume is not None:
            request = _resumed(request, store.run(resume))
            validate_options(bench, request.options)  # the stored options still mean what they meant
            agent, run_id = request.agent or next(iter(bench.agents)), resume
            if request.model is not None and (retry_failed or store.pending(run_id)):
                preflight(request.model, request.model_options)
            cluster.enter_context(executor_session(request.executor, request.ray_address))
        else:
            options = validate_options(bench, request.options)
            agent = _choose_agent(bench, request.agent, request.model, options)
            if request.n == 0:  # empty work is not a result: refused before a run is recorded
                raise InvalidArgumentError(
                    f"nothing to run: benchmark {bench.name!r} has no samples (--n 0 asks for none)"
                )
            if request.n is not None and request.n > MAX_N:  # before a generator starts on it
                raise InvalidArgumentError(f"--n {request.n} is above the cap of {MAX_N:,} samples a run")
            if request.model is not None:  # a bad model string, URL or key fails in seconds, before a run is recorded
                preflight(request.model, request.model_options)
            # a cluster it cannot join fails in seconds, before a run is recorded
            cluster.enter_context(executor_session(request.executor, request.ray_address))
            if progress:  # the first line, before samples that take a while to generate or read
                asked = "every sample" if request.n is None else f"up to {request.n} sample{'s' * (request.n != 1)}"
                print(f"{bench.name}: preparing {asked} (seed {request.seed})", file=sys.stderr, flush=True)
            samples = bench.samples(request.n, request.seed, options)
            if not samples:
                data = request.options.get("data")
                why = f"{data} holds none" if data else "these options give none"
                raise InvalidArgumentError(f"nothing to run: benchmark {bench.name!r} has no samples ({why})")
            config = _config(request)
            run_id = store.create_run(
                benchmark=bench.name,
                agent=agent,
                model=request.model,
                config=config,
                samples=samples,
                version=__version__,
                key=run_key(
                    bench, agent=agent, model=request.model, config=config, samples={}, data=_data_hash(request)
                ),
                tags=request.tags,
            )
        if resume is not None and request.tags:
            store.tag(run_id, request.tags)
        with store.locked(run_id, force=force_resume):
            if retry_failed:
                store.retry_failed(run_id)
            interrupted, stopped = _execute_pending(bench, store, run_id, request, agent, progress, new=resume is None)
        return summarize_run(run_id, store, bench=bench, interrupted=interrupted, stopped=stopped, computed_by="run")


def _data_hash(request: RunRequest) -> str | None:
    """The content hash of the run's ``--data`` file or folder (:func:`~mindloop.bench.key.data_digest`), part of its
    key; ``None`` when it reads none."""
    data = request.options.get("data")
    if data is None:
        return None
    try:
        return data_digest(data)
    except OSError as exc:
        raise InvalidArgumentError(f"cannot read --data {data} to hash it ({exc.strerror or exc})") from None


class _BreakerOpenError(Exception):
    """Raised by the sink to stop every executor: ``breaker`` samples in a row met an outage."""


class _Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM, raised where the run's main thread is (the executors' clean-up runs from there)."""


class _SignalGate:
    """Turns SIGINT and SIGTERM into :class:`_Interrupted` in the main thread while :meth:`installed`.

    A handler of our own (rather than Python's default for SIGINT) also keeps ``asyncio.run`` from installing its
    own, which only cancels the main task at its next ``await``: a symbolic run whose samples never wait would run
    to its end before noticing Ctrl-C. Elsewhere than the main thread nothing is installed. Inside :meth:`shield` a
    signal is held until the block ends: a store write the signal lands in commits whole (its samples are kept),
    and the interrupt is raised the moment it is done.

    While :meth:`run_loop` runs the local executor's event loop, the first signal is never raised where it lands:
    an exception thrown into the middle of httpx's or anyio's code can leave a lock held that a cancelled request's
    clean-up then waits on for ever (the run hung on Ctrl-C). It cancels the loop's main task instead (requests in
    flight are cancelled as asyncio cancels them) and is raised at the next store write (a run whose samples never
    wait stops at the end of the sample it is in). A second signal is raised at once.
    """

    def __init__(self) -> None:
        self._shielded = 0
        self._held: str | None = None
        self._task: asyncio.Task[None] | None = None

    def _handler(self, signum: int, frame: object) -> None:
        name = signal.Signals(signum).name
        if self._shielded:
            self._held = self._held or name
            return
        if self._task is not None and self._held is None:
            self._held = name
            self._task.get_loop().call_soon_threadsafe(self._task.cancel)
            return
        raise _Interrupted(name)

    @contextmanager
    def installed(self) -> Iterator[None]:
        """The handler for SIGINT and SIGTERM inside; the previous handlers come back after."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {sig: signal.signal(sig, self._handler) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, old in previous.items():
                signal.signal(sig, old)

    @contextmanager
    def shield(self) -> Iterator[None]:
        """Hold a signal that arrives inside until the block ends, then raise it."""
        self._shielded += 1
        try:
            yield
        finally:
            self._shielded -= 1
        if not self._shielded and self._held is not None:
            name, self._held = self._held, None
            raise _Interrupted(name)

    def run_loop(self, main: Coroutine[Any, Any, None]) -> None:
        """``asyncio.run(main)``, a signal cancelling ``main`` (see the class docstring); a run so cancelled raises
        :class:`_Interrupted`."""

        async def cancellable() -> None:
            self._task = asyncio.current_task()
            try:
                await main
            finally:
                self._task = None

        try:
            asyncio.run(cancellable())
        except asyncio.CancelledError:
            if self._held is None:
                raise
        if self._held is not None:  # also when the signal came as the run ended, before the cancel ran
            name, self._held = self._held, None
            raise _Interrupted(name)


def _execute_pending(
    bench: Benchmark, store: RunStore, run_id: str, request: RunRequest, agent: str, progress: bool, *, new: bool
) -> tuple[bool, str | None]:
    """Run the pending samples of ``run_id``; returns whether the run was interrupted and why it stopped early
    (the circuit breaker), if it did.

    A set-up error stops the run and is raised again, as its public class, with a message that names the sample
    and how to finish the run once the set-up is fixed (the sample that met it is still pending); a ``new`` run
    (not one being resumed) that it stopped before any sample finished holds nothing worth resuming and is removed
    from the store (:meth:`~mindloop.bench.store.RunStore.discard_unstarted`), the message saying so. Samples that
    fail for an outage are held back until a sample gets through (then they are stored as failed) or the breaker
    opens (then they stay pending, so the outage loses nothing).
    """
    pending = store.pending(run_id)
    info = store.run(run_id)
    accounted = time.perf_counter()  # the session's time up to here is in the store (none yet)
    counts = {"failed": info.n_failed, "bug": info.n_bugs}
    interrupted: str | None = None
    stopped: str | None = None
    until = "the endpoint answers again"  # what a stopped run waits for
    aborted: tuple[int | None, MindloopError] | None = None
    store_failed: StoreError | None = None
    held: list[SampleResult] = []  # outage failures in a row, not yet stored
    if progress and pending:  # what is about to happen, before the first sample ends (a model or encoder may load)
        who = agent + (f" on {escaped(request.model)}" if request.model else "")
        print(
            f"{run_id}: running {len(pending)} of {info.n} samples with {who} ({request.executor}, "
            f"{request.concurrency} at a time)",
            file=sys.stderr,
            flush=True,
        )
    if progress and request.model is not None and pending:  # what the run will cost, before it starts
        finished = store.records(run_id)
        print(run_estimate(bench, [s for _, s in pending], finished, request.generation.max_tokens), file=sys.stderr)
    with (
        _progress(progress) as bar,
        ProgressLog(  # no bar off a terminal (a log file): plain lines instead
            f"{bench.name} · {agent}",
            info.n,
            info.n_completed,
            every=request.progress_every if progress and not bar.console.is_terminal else 0.0,
        ) as log,
    ):
        task = bar.add_task(f"{bench.name} · {agent}", total=info.n, completed=info.n_completed, failed="")

        gate = _SignalGate()

        def store_results(results: list[SampleResult]) -> None:
            nonlocal accounted
            now = time.perf_counter()
            with gate.shield():  # a signal landing in the write waits for its commit: finished samples are kept
                # the session's time goes in with its samples, so a session killed later keeps it
                store.finish(run_id, results, seconds=now - accounted)
            accounted = now
            for result in results:
                if result.status in counts:
                    counts[result.status] += 1
            bar.update(task, advance=len(results), failed=_failed_text(counts["failed"], counts["bug"]))
            log.advance(len(results), failed=counts["failed"], bugs=counts["bug"])

        breaker = CircuitBreaker(request.breaker)  # hears every request of the run, on whichever executor

        def sink(result: SampleResult) -> None:
            if result.outage:
                held.append(result)
                if len(held) >= request.breaker:
                    raise _BreakerOpenError(result.error)
                return
            store_results([*held, result])
            held.clear()

        try:
            with gate.installed(), outages.watching(breaker):
                limit = request.breaker if request.model is not None else None  # workers judge with their own
                if pending and request.executor == "local":
                    model = load_model(request.model, request.model_options) if request.model else None
                    gate.run_loop(run_local(bench, pending, request, agent, model, sink))
                elif pending and request.executor == "process":
                    run_process(pending, request, agent, request.model, sink, limit)
                elif pending:
                    run_ray(pending, request, agent, request.model, sink, limit)
            if held:  # the run ended with a few outage failures, too few to open the breaker: they failed
                store_results(held)
        except outages.BreakerOpen as exc:  # requests in a row found no server: everything in flight was cancelled
            stopped = str(exc)
        except ClusterError as exc:  # the Ray cluster lost a node or the breaker's actor, or a worker again and again
            stopped, until = str(exc), "the cluster is back"
        except KeyboardInterrupt as exc:
            interrupted = str(exc) if isinstance(exc, _Interrupted) else "SIGINT"
        except _BreakerOpenError as exc:
            stopped = no_answer(len(held), "samples", str(exc))
        except AbortRunError as exc:
            aborted = (exc.index, exc.error)
        except SETUP_ERRORS as exc:  # met before any sample ran (a model that cannot load, Ray missing)
            aborted = (None, exc)
        except StoreError as exc:  # a store write failed (a full disk) or the lock was taken over: stop here
            store_failed = exc
    resume = f"mindloop bench run {bench.name} --resume {run_id}"
    if store_failed is not None:
        _stop_for_store(store, run_id, info.n, store_failed, resume)
    try:
        remaining = len(store.pending(run_id))
        store.add_seconds(run_id, time.perf_counter() - accounted, finished=remaining == 0)
    except StoreError as exc:  # the disk filled up at the very end
        _stop_for_store(store, run_id, info.n, exc, resume)
    if aborted is not None:
        index, error = aborted
        where = next((f"sample {s.id!r} of " for i, s in pending if i == index), "") if index is not None else ""
        if new and remaining == info.n and _discarded(store, run_id):
            raise setup_class(error)(
                f"{error} ({where}run {run_id}: stopped before any sample finished, so the run was removed; "
                "once fixed, run the same command again)"
            ) from error
        raise setup_class(error)(
            f"{error} ({where}run {run_id}: stopped with {remaining} of {info.n} samples pending; "
            f"once fixed, finish it with: {resume})"
        ) from error
    if stopped is not None:
        print(
            f"stopped: {stopped}; {remaining} sample(s) left pending; once {until}, finish with: {resume}",
            file=sys.stderr,
        )
    if interrupted is not None:
        print(f"interrupted ({interrupted}): {remaining} sample(s) not run; finish with: {resume}", file=sys.stderr)
    return interrupted is not None, stopped


def _discarded(store: RunStore, run_id: str) -> bool:
    """Remove ``run_id`` if none of its samples finished; whether it was (a failed write keeps it, resumable)."""
    try:
        return store.discard_unstarted(run_id)
    except StoreError:
        return False


def _stop_for_store(store: RunStore, run_id: str, n: int, error: StoreError, resume: str) -> NoReturn:
    """Raise the one line that stops a run whose store write failed: the store's reason, what is left pending and
    the ``--resume`` line. A lock taken over is raised as it is: the new holder finishes the run."""
    if isinstance(error, LockLostError):
        raise error
    try:
        left = f"{len(store.pending(run_id))} of {n} samples pending"
    except StoreError:
        left = "its unfinished samples pending"
    raise StoreError(f"{error}; run {run_id} stopped with {left}; once fixed, finish it with: {resume}") from None


def _failed_text(failed: int, bugs: int) -> str:
    """The progress bar's failure column: ``3 failed · 1 bug`` (empty while all is well)."""
    parts = [f"{failed} failed"] if failed else []
    if bugs:
        parts.append(f"{bugs} bug{'s' if bugs != 1 else ''}")
    return " · ".join(parts)


def token_totals(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """The token ledger over every recorded call of ``records``, without latency (it differs run to run, so a
    resumed run's summary still equals an uninterrupted one's); with ``by_role`` (the same totals per role:
    ``agent``, ``judge``) when some call was not the agent's."""
    ledger = TokenLedger()
    roles: dict[str, TokenLedger] = {}
    for record in records:
        for call in record.calls:
            ledger.add(call)
            roles.setdefault(str(call.get("role") or "agent"), TokenLedger()).add(call)
    tokens = ledger.to_dict()
    tokens.pop("latency_s")
    if set(roles) - {"agent"}:  # the split by role (agent, judge) once a run calls a model in another role
        tokens["by_role"] = {
            role: {k: v for k, v in roles[role].to_dict().items() if k != "latency_s"} for role in sorted(roles)
        }
    return tokens


def reply_totals(records: Sequence[SampleRecord]) -> dict[str, int]:
    """How the agent's model replies fared over ``records`` (empty when no agent call was made)."""
    calls = [call for record in records for call in record.calls if (call.get("role") or "agent") == "agent"]
    return reply_outcomes(calls) if calls else {}


def benchmark_metrics(bench: Benchmark, records: Sequence[SampleRecord]) -> dict[str, Any]:
    """The benchmark's summary of finished samples (its declared metrics, then what ``summarize`` adds:
    :func:`~mindloop.bench.scoring.run_metrics`), with each bug sample shown to it as a failed one: a benchmark
    scores failures as failures, so a bug can never raise a metric, whatever the benchmark knows of statuses."""
    return run_metrics(bench, as_scored(records))


def as_scored(records: Sequence[SampleRecord]) -> list[SampleRecord]:
    """``records`` as a benchmark's summary sees them: each bug sample shown as a failed one."""
    return [replace(r, status="failed") if r.status == "bug" else r for r in records]


def metric_intervals(bench: Benchmark, records: Sequence[SampleRecord], metrics: dict[str, Any]) -> dict[str, Any]:
    """The 95% intervals of ``metrics``, the benchmark's summary of the finished ``records``: its declared metrics
    drawn from their per-sample scores, the keys it declares ``resampled`` by summarising each resample, and none
    for any other number (listed as undeclared)."""
    from mindloop.bench.uncertainty import bootstrap_intervals  # numpy: not before the run's first line

    return bootstrap_intervals(
        as_scored(records),
        lambda rs: run_metrics(bench, rs),
        metrics,
        exclude=no_intervals_of(bench),
        declared=bench.spec.metrics,
        resampled=bench.spec.resampled,
        resample=bench.summarize,  # a resampled leaf is never a declared one, so the declared means are not redone
    )


def _counts(info: RunInfo) -> list[int]:
    return [info.n_done, info.n_failed, info.n_bugs]


def stored_summary(store: RunStore, info: RunInfo) -> dict[str, Any] | None:
    """The run's stored summary when it still covers every finished sample (``None``: none stored, or samples
    finished, failed or were retried since it was computed)."""
    return current_summary(store.stored_summary(info.run_id), info)


def current_summary(stored: dict[str, Any] | None, info: RunInfo) -> dict[str, Any] | None:
    """``stored`` (a run's stored summary, already read) when it still covers every finished sample, else ``None``."""
    return stored if stored and stored.get("counts") == _counts(info) else None


def stored_policies(stored: Mapping[str, Any] | None, bench: Benchmark | None = None) -> list[Any]:
    """What each reference policy is (name, kind, description, optimistic) as a stored summary keeps it
    (``definitions["references"]``): the one reader of them. For a summary kept before they were (or none), what
    ``bench`` declares today (as :func:`~mindloop.bench.scoring.definitions` keeps it); none without one."""
    kept = ((stored or {}).get("definitions") or {}).get("references")
    if isinstance(kept, list) or bench is None:
        return list(kept or [])
    return [policy.to_json() for policy in bench.spec.references]


def _model_error_prefixes(cls: type[ModelError] = ModelError) -> tuple[str, ...]:
    """``"ModelError: "`` and the same for every subclass: how a model failure's stored error begins."""
    return (f"{cls.__name__}: ", *(p for sub in cls.__subclasses__() for p in _model_error_prefixes(sub)))


def is_model_failure(record: SampleRecord) -> bool:
    """Whether a failed sample failed in the model call itself (its error is a :class:`ModelError`, or its last
    recorded call failed), rather than in its answer (unparsed, invalid): the two are counted apart."""
    if record.status != "failed":
        return False
    if (record.error or "").startswith(_model_error_prefixes()):
        return True
    return bool(record.calls) and record.calls[-1].get("error") is not None


def summarize_run(
    run_id: str,
    store: RunStore,
    *,
    bench: Benchmark | None = None,
    interrupted: bool = False,
    stopped: str | None = None,
    computed_by: str = "backfill",
) -> RunSummary:
    """A run's summary: the one stored with it when it covers every finished sample (the numbers the run
    reported, whatever the code computes today), else computed from the store's records by the benchmark's
    declaration and kept (a store opened for writing) with the definitions, the version and ``computed_by``
    (``run``: at the end of a session of the run; ``backfill``: later, for a run that had none)."""
    info = store.run(run_id)
    records = store.records(run_id)
    stored = stored_summary(store, info)
    if stored is not None:
        metrics, intervals, source = stored["metrics"], stored["intervals"], _source(stored)
        references = stored.get("references", {})
        policies = stored_policies(stored)
    else:
        bench = bench or get_benchmark(info.benchmark)
        metrics = benchmark_metrics(bench, records)
        intervals = metric_intervals(bench, records, metrics)
        references = reference_values(bench, records)
        policies = stored_policies(None, bench)
        source = {"computed_by": computed_by, "version": __version__}
        if not store.readonly:
            summary = {"metrics": metrics, "intervals": intervals, "definitions": definitions(bench)}
            summary |= {"references": references}
            store.save_summary(run_id, summary | source | {"counts": _counts(info)})
    return RunSummary(
        run_id=info.run_id,
        benchmark=info.benchmark,
        agent=info.agent,
        model=info.model,
        n=info.n,
        n_completed=info.n_completed,
        n_failed=info.n_failed,
        n_bugs=info.n_bugs,
        seconds=info.seconds,
        metrics=metrics,
        intervals=intervals,
        tokens=token_totals(records),
        replies=reply_totals(records),
        interrupted=interrupted,
        n_model_failures=sum(map(is_model_failure, records)),
        stopped=stopped,
        protocol=run_protocol(info.config),
        references=references,
        reference_policies=policies,
        summary_source=source,
        key=next((k.to_json() for k in store.run_keys(run_id=run_id).values()), None),
        tags=store.run_tags().get(run_id, []),
    )


def backfill_summaries(store: RunStore) -> list[str]:
    """Once, right after ``store`` was upgraded from a layout that kept no summaries: compute and keep the summary
    of every run it holds without one (labelled ``computed_by: backfill`` with the version that computed it), and
    return their ids. A run whose benchmark is not installed now keeps none (it gets one the first time it is
    summarised with it), and so does one whose summary fails on its records. Does nothing for a store that was
    not upgraded in this open."""
    if store.readonly or store.upgraded_from is None:
        return []
    store.upgraded_from = None  # once per upgrade
    done = []
    pending = store.runs_without_summary()
    if pending:
        print(f"computing the summaries of {len(pending)} runs stored without one (once)", file=sys.stderr)
    for run_id in pending:
        try:
            summarize_run(run_id, store, bench=get_benchmark(store.run(run_id).benchmark), computed_by="backfill")
        except MindloopError as exc:  # not installed now, or its summary fails on these records: later, lazily
            print(f"run {run_id} keeps no summary for now: {exc}", file=sys.stderr)
            continue
        done.append(run_id)
    return done


def _source(stored: dict[str, Any]) -> dict[str, Any]:
    return {"computed_by": stored.get("computed_by"), "version": stored.get("version")}


def run_protocol(config: Mapping[str, Any]) -> dict[str, Any]:
    """The protocol of a stored run's configuration: ``format_retries`` (a run stored before format retries
    existed had none: 0) and a word for it (``single-shot`` at 0)."""
    retries = int(config.get("format_retries", 0))
    return {
        "format_retries": retries,
        "name": "single-shot" if retries == 0 else f"{retries} format retr" + ("y" if retries == 1 else "ies"),
    }

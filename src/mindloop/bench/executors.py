"""How a run's samples are executed: one per-sample function and three executors around it.

Three executors share one per-sample function (:func:`execute_sample`): ``local`` (asyncio in this process:
the right choice for model calls), ``process`` (worker processes: CPU-bound simulation) and ``ray`` (Ray tasks
on a local instance or a cluster). Whatever the executor, every finished sample is handed to a :data:`Sink` in
this process (the runner's, which alone writes the store and drives the progress bar).

What a sample raises decides what it becomes (:func:`execute_sample`): a set-up error (:data:`SETUP_ERRORS`)
stops every executor with :class:`AbortRunError` (a worker sends it back as plain data, any executor can carry
it), leaving the sample pending; any other :class:`~mindloop.errors.MindloopError` is a ``failed`` sample and any
other exception a ``bug`` sample. :mod:`~mindloop.bench.runner` builds the run around these.

Every model request of a run is reported to its circuit breaker (:mod:`~mindloop.bench.breaker`) wherever it is
made: the ``local`` executor's to the runner's own, the ``process`` executor's workers to one in the run's process
over their pipes, Ray tasks to one actor. Once it opens no request leaves any worker, and the executor stops with
:class:`~mindloop.models.outages.BreakerOpen`, the samples in flight left pending.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import itertools
import multiprocessing as mp
import multiprocessing.connection as mp_connection
import os
import signal
import textwrap
import threading
import time
import traceback
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext, Benchmark, Outcome, Sample
from mindloop.bench.breaker import CircuitBreaker
from mindloop.bench.ray_cluster import connect, current_node, import_ray
from mindloop.bench.registry import BENCHMARKS, get_benchmark
from mindloop.bench.store import SampleResult
from mindloop.errors import SETUP_ERRORS, ClusterError, MindloopError, UnknownNameError
from mindloop.models import outages
from mindloop.models.base import CallRecord, ChatModel, GenerationConfig, ModelOptions, RecordingModel, load_model
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    from mindloop.bench.request import RunRequest

_RAY_TASK_RETRIES = 3
"""How many times Ray runs a sample again whose worker process died (Ray's own default)."""

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
    format_retries: int = DEFAULT_FORMAT_RETRIES,
    model_options: ModelOptions | None = None,
) -> SampleResult:
    """Run one sample and package it for the store.

    A set-up error (:data:`SETUP_ERRORS`) is raised, unrecorded: the run cannot go on as set up. Any other
    ``MindloopError`` makes a ``failed`` sample, any other exception a ``bug`` sample whose error keeps the
    traceback; both keep the model calls made so far.
    """
    ledger: list[CallRecord] = []  # every model call of the sample, the agent's and any judge's (ctx.recorded)
    recorder = RecordingModel(model, calls=ledger) if model is not None else None
    ctx = AgentContext(
        agent=agent,
        model=recorder,
        config=generation,
        seed=sample_seed(seed, sample.id),
        ledger=ledger,
        format_retries=format_retries,
        model_options=model_options,
    )
    start = time.perf_counter()
    status = "failed"
    try:
        outcome = await run_sample(bench, sample, ctx)
    except SETUP_ERRORS:
        raise
    except MindloopError as exc:
        outcome = Outcome(output={}, error=f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a bug in a benchmark: keep the run going, keep the evidence, count it apart
        status = "bug"
        trace = "".join(traceback.format_tb(exc.__traceback__)[-10:]).rstrip()
        outcome = Outcome(output={}, error=f"internal error: {type(exc).__name__}: {exc}\n{trace}")
    calls = [c.to_dict() for c in ledger]
    status = status if outcome.error else "done"
    return SampleResult(
        index=index,
        status=status,
        output=outcome.output,
        scores=outcome.scores,
        error=outcome.error,
        calls=calls,
        seconds=time.perf_counter() - start,
        outage=status == "failed" and recorder is not None and recorder.outage,
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
    format_retries: int
    watch: Any = None
    """Where a Ray task reports its requests (a :class:`_RayWatch`; ``None``: a process worker's breaker comes with
    the pool, or there is none)."""
    source: str | None = None
    """Where a worker process that does not know ``benchmark`` imports it from (``"module:attr"``): a benchmark
    registered by the caller rather than by an entry point."""


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
        return cls(index, setup_class(exc), str(exc))

    def stop(self) -> AbortRunError:
        """The exception that stops the run in the parent."""
        return AbortRunError(self.index, self.kind(self.message))


def setup_class(exc: BaseException) -> type[MindloopError]:
    """The public class that stands for a set-up error (a subclass defined by a plug-in may not unpickle)."""
    families: tuple[type[MindloopError], ...] = (UnknownNameError, *SETUP_ERRORS)
    return next((k for k in families if isinstance(exc, k)), MindloopError)


class AbortRunError(Exception):
    """Raised in the parent to stop every executor: sample ``index`` met a set-up error."""

    def __init__(self, index: int, error: MindloopError) -> None:
        super().__init__(str(error))
        self.index = index
        self.error = error


class _Worker:
    """Per-process state of a pool worker or Ray worker: one event loop, benchmarks and models built once
    (:func:`functools.cache`: ``benchmark`` by name, ``model`` by name and options), and the circuit breaker a pool
    worker's requests are reported to (a :class:`_PipeWatch` to its parent; ``None``: no breaker)."""

    loop: asyncio.AbstractEventLoop | None = None
    watch: outages.EndpointWatch | None = None
    benchmark = staticmethod(functools.cache(get_benchmark))  # process-wide caches by design
    model = staticmethod(functools.cache(load_model))


def _judge(breaker: CircuitBreaker | None, message: tuple[Any, ...]) -> str | None:
    """Apply a worker's report (``("failed", cause)``, ``("answered",)``) or question (``("opened",)``) to the run's
    breaker, and answer why it opened (``None``: it has not, or there is none)."""
    if breaker is None:
        return None
    if message[0] == "failed":
        breaker.request_failed(message[1])
    elif message[0] == "answered":
        breaker.request_answered()
    return breaker.opened


class _RayBreaker:
    """A Ray actor holding the run's :class:`~mindloop.bench.breaker.CircuitBreaker`: Ray tasks report each request
    to it and ask it before each one (:func:`_judge`); the driver polls it with ``("opened",)``."""

    def __init__(self, limit: int) -> None:
        self._breaker = CircuitBreaker(limit)

    def ask(self, *message: Any) -> str | None:
        return _judge(self._breaker, message)


class _RemoteWatch:
    """A worker's :class:`~mindloop.models.outages.EndpointWatch` whose breaker lives elsewhere: each report and
    question goes to it (:meth:`_ask`) and is waited for, so the breaker judges the requests in the order they
    ended (a report sent without waiting could reach it after another worker's later ones, and an old answer reset
    a run of failures)."""

    def _ask(self, *message: Any) -> str | None:
        raise NotImplementedError

    def request_failed(self, cause: str) -> None:
        self._ask("failed", cause)

    def request_answered(self) -> None:
        self._ask("answered")

    @property
    def opened(self) -> str | None:
        return self._ask("opened")


class _RayWatch(_RemoteWatch):
    """A Ray task's watch: the breaker is the :class:`_RayBreaker` actor."""

    def __init__(self, actor: Any) -> None:
        self._actor = actor

    def _ask(self, *message: Any) -> str | None:
        import ray

        reason: str | None = ray.get(self._actor.ask.remote(*message))
        return reason


def _run_job(job: _Job) -> SampleResult | _Abort:
    """Run one job in a worker; a set-up error (here or in the sample) comes back as an :class:`_Abort`."""
    if _Worker.loop is None:
        _Worker.loop = asyncio.new_event_loop()
    try:
        if job.source is not None and job.benchmark not in BENCHMARKS:
            BENCHMARKS.register(job.benchmark, job.source, description="registered by the process that runs it")
        bench = _Worker.benchmark(job.benchmark)
        model = None if job.model is None else _Worker.model(job.model, job.model_options)
        coro = _execute(job, bench, model)
        watch = job.watch if job.watch is not None else _Worker.watch
        if watch is None:
            return _Worker.loop.run_until_complete(coro)
        with outages.watching(watch):  # the task the loop makes for coro copies this context
            return _Worker.loop.run_until_complete(coro)
    except SETUP_ERRORS as exc:
        return _Abort.of(job.index, exc)


def _execute(job: _Job, bench: Benchmark, model: ChatModel | None) -> Coroutine[Any, Any, SampleResult]:
    """:func:`execute_sample` of ``job`` on ``bench`` with ``model``: what every executor runs for a sample."""
    return execute_sample(
        bench, job.index, job.sample, job.agent, model, job.generation, job.seed, job.format_retries, job.model_options
    )


# -- executors ----------------------------------------------------------------------------------------------------

Sink = Callable[[SampleResult], None]


def _deliver(result: SampleResult | _Abort, sink: Sink) -> None:
    """Store a worker's result, or stop the run when the worker met a set-up error."""
    if isinstance(result, _Abort):
        raise result.stop()
    sink(result)


async def run_local(
    bench: Benchmark,
    pending: Sequence[tuple[int, Sample]],
    request: RunRequest,
    agent: str,
    model: ChatModel | None,
    sink: Sink,
) -> None:
    queue = _jobs(pending, request, agent, request.model)  # shared by the workers: each job is taken once

    async def worker() -> None:
        for job in queue:
            try:
                result = await _execute(job, bench, model)
            except SETUP_ERRORS as exc:
                raise AbortRunError(job.index, exc) from exc
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


def _jobs(
    pending: Sequence[tuple[int, Sample]],
    request: RunRequest,
    agent: str,
    model: str | None,
    watch: Any = None,
    source: str | None = None,
) -> Iterator[_Job]:
    for index, sample in pending:
        yield _Job(
            request.benchmark,
            index,
            sample,
            agent,
            model,
            request.model_options,
            request.generation,
            request.seed,
            request.format_retries,
            watch,
            source,
        )


def run_process(
    pending: Sequence[tuple[int, Sample]],
    request: RunRequest,
    agent: str,
    model: str | None,
    sink: Sink,
    breaker: int | None = None,
) -> None:
    """Run the samples on worker processes, each fed one job at a time over a pipe of its own.

    With ``breaker`` (the circuit breaker's limit) the workers report every model request to one
    :class:`~mindloop.bench.breaker.CircuitBreaker` here and ask it before each (:class:`_PipeWatch`): once it
    opens no worker sends another request and :class:`~mindloop.models.outages.BreakerOpen` is raised. Whatever
    stops the run (a set-up error, a signal, the breaker), the workers are killed at once and the samples they were
    running stay pending: a worker shares no lock or queue with another, so killing one can block nothing.
    """
    jobs = list(_jobs(pending, request, agent, model, source=_source(request.benchmark)))
    with _Pool(max(1, min(request.concurrency, len(jobs))), CircuitBreaker(breaker) if breaker else None) as pool:
        for result in pool.imap(jobs):
            _deliver(result, sink)


_WORKER_RETRIES = 1
"""How many more times a sample whose worker process died under it (killed, out of memory) is run, on a new
worker, before it is recorded as a bug: samples are idempotent and a dead worker's calls never reached the store."""


class _Pool:
    """Worker processes for :func:`run_process`: started from a ``forkserver`` (no fork of this process and its
    threads), each on a :class:`~multiprocessing.connection.Connection` of its own that carries one job out, the
    breaker's questions and answers both ways, and the result back.

    A worker ends when its parent does (it watches the parent's sentinel), so a ``kill -9`` of the run leaves no
    worker behind; leaving the ``with`` block kills any worker still alive.
    """

    def __init__(self, size: int, breaker: CircuitBreaker | None) -> None:
        self.size = size
        self.breaker = breaker
        self._context = _context()
        self._workers: list[tuple[BaseProcess, Connection]] = []

    def __enter__(self) -> _Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        for _, conn in list(self._workers):
            self._stop(conn)  # SIGKILL: nothing a worker holds is shared with the others or with this process

    def _start(self) -> Connection:
        here: Connection
        here, there = self._context.Pipe()
        process = self._context.Process(target=_serve, args=(there, self.breaker is not None), daemon=True)
        process.start()
        there.close()
        self._workers.append((process, here))
        return here

    def _stop(self, conn: Connection) -> int | None:
        """Kill the worker on ``conn`` (if it is still alive); its exit code."""
        process = self._process(conn)
        self._workers.remove((process, conn))
        process.kill()
        process.join()
        code = process.exitcode
        conn.close()
        process.close()
        return code

    def imap(self, jobs: Sequence[_Job]) -> Iterator[SampleResult | _Abort]:
        """Run ``jobs``, at most :attr:`size` at a time, yielding each result as it comes (in any order)."""
        todo = list(reversed(jobs))
        tries: dict[int, int] = {}
        busy: dict[Connection, _Job] = {}
        idle = [self._start() for _ in range(min(self.size, len(jobs)))]
        while todo or busy:
            while todo and idle:
                conn = idle.pop()
                busy[conn] = job = todo.pop()
                with contextlib.suppress(OSError):  # a worker that died idle: its sentinel says so below
                    conn.send(job)
            sentinels = {self._process(c).sentinel: c for c in busy}
            for ready in mp_connection.wait([*busy, *sentinels]):
                conn = sentinels[ready] if isinstance(ready, int) else cast("Connection", ready)
                if conn not in busy:  # already handled: its pipe and its sentinel were both ready
                    continue
                message = _receive(conn)
                if message is None:  # the worker died running the job: run it again on a new one, or record it
                    job = busy.pop(conn)
                    code = self._stop(conn)
                    idle.append(self._start())
                    tries[job.index] = tries.get(job.index, 0) + 1
                    if tries[job.index] <= _WORKER_RETRIES:
                        todo.append(job)
                    else:
                        yield _died(job, code, tries[job.index])
                elif message[0] == "result":
                    busy.pop(conn)
                    idle.append(conn)
                    yield message[1]
                elif message[0] == "stopped":  # the sample met the open breaker: it stays pending
                    busy.pop(conn)
                    idle.append(conn)
                else:  # the breaker: a request ended, or a worker asks before sending one
                    conn.send(_judge(self.breaker, message))
            if self.breaker is not None and self.breaker.opened is not None:
                yield from self._drain(busy)
                raise outages.BreakerOpen(self.breaker.opened)

    def _drain(self, busy: dict[Connection, _Job]) -> Iterator[SampleResult | _Abort]:
        """The results the busy workers have already sent (the breaker has opened: none is waited for)."""
        for conn in busy:
            while conn.poll(0) and (message := _receive(conn)) is not None:
                if message[0] == "result":
                    yield message[1]
                elif message[0] != "stopped":
                    conn.send(_judge(self.breaker, message))

    def _process(self, conn: Connection) -> BaseProcess:
        return next(p for p, c in self._workers if c is conn)


def _context() -> Any:
    """Where workers start: a fork server that has imported this module (a fork of this process could copy a lock
    held by one of its threads; a fresh interpreter per worker is slow), or a fresh interpreter where there is
    none."""
    if "forkserver" not in mp.get_all_start_methods():
        return mp.get_context("spawn")
    context = mp.get_context("forkserver")
    context.set_forkserver_preload([__name__])  # read when the fork server starts: once per process
    return context


def _receive(conn: Connection) -> tuple[Any, ...] | None:
    """The worker's next message, ``None`` when it died (its pipe closed)."""
    try:
        message: tuple[Any, ...] = conn.recv()
    except (EOFError, OSError):
        return None
    return message


def _died(job: _Job, code: int | None, tries: int) -> SampleResult:
    """The bug sample for a job whose worker died under it ``tries`` times (``code``: the last one's exit code)."""
    how = f"killed by {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit code {code}"
    error = f"internal error: the worker process running this sample died {tries} times (last {how})"
    return SampleResult(index=job.index, status="bug", output={}, scores={}, error=error, calls=[], seconds=0.0)


class _PipeWatch(_RemoteWatch):
    """A pool worker's watch: the breaker is the parent's, asked over the worker's pipe."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()  # a backend reporting from a thread of its own waits its turn on the pipe

    def _ask(self, *message: Any) -> str | None:
        with self._lock:
            self._conn.send(message)
            reason: str | None = self._conn.recv()
        return reason


def _serve(conn: Connection, watched: bool) -> None:
    """A pool worker: run the jobs that come over ``conn`` until it closes; end when the parent ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the workers
    parent = mp.parent_process()
    if parent is not None:  # the parent gone (even by kill -9), nothing is left to run for: end at once
        threading.Thread(target=_end_with, args=(parent.sentinel,), daemon=True).start()
    _Worker.watch = _PipeWatch(conn) if watched else None
    while True:
        try:
            job: _Job = conn.recv()
        except (EOFError, OSError):
            return
        try:
            conn.send(("result", _run_job(job)))
        except outages.BreakerOpen:  # the sample stays pending
            conn.send(("stopped",))


def _end_with(sentinel: int) -> None:
    mp_connection.wait([sentinel])
    os._exit(1)


def _source(benchmark: str) -> str | None:
    """Where a worker process imports ``benchmark`` from if it does not know the name (one registered by the caller,
    a test or a notebook, rather than by an entry point): the registered ``"module:attr"``, or the registered
    class's own when it can be imported."""
    entry = next((e for e in BENCHMARKS.entries() if e.name == benchmark), None)
    if entry is None:
        return None
    target = entry.target
    if isinstance(target, str):
        return target
    module, name = getattr(target, "__module__", None), getattr(target, "__qualname__", "")
    return f"{module}:{name}" if module and module != "__main__" and "<" not in name else None


def _run_job_on_ray(job: _Job) -> SampleResult | _Abort:
    """:func:`_run_job` as a Ray task: a finished sample carries the id of the node that ran it."""
    result = _run_job(job)
    return replace(result, node=current_node()) if isinstance(result, SampleResult) else result


def run_ray(
    pending: Sequence[tuple[int, Sample]],
    request: RunRequest,
    agent: str,
    model: str | None,
    sink: Sink,
    breaker: int | None = None,
) -> None:
    """Run the samples as Ray tasks. With ``breaker`` (the circuit breaker's limit) the tasks report their requests
    to one :class:`_RayBreaker` actor and ask it before each; once it opens the tasks send nothing more, they are
    stopped and :class:`~mindloop.models.outages.BreakerOpen` is raised, the samples in flight left pending.

    A sample whose worker process dies (killed, out of memory) runs again in another (Ray's task retries: a sample is
    idempotent, and only the finished run's calls come back, so none is counted twice). When the cluster fails the
    run otherwise (a worker dying on every try, the breaker's actor or a node gone) a
    :class:`~mindloop.errors.ClusterError` saying so is raised, the samples not finished left pending."""
    ray = import_ray()
    started_here = not ray.is_initialized()  # the runner connects first (ray_session); a direct caller may not
    if started_here:
        connect(request.ray_address)
    # SPREAD: samples go to every node of a cluster from the start (packed, a few short ones all ran on one node)
    task = ray.remote(max_retries=_RAY_TASK_RETRIES, scheduling_strategy="SPREAD")(_run_job_on_ray)
    actor: Any = ray.remote(num_cpus=0)(_RayBreaker).remote(breaker) if breaker is not None else None
    jobs = _jobs(pending, request, agent, model, _RayWatch(actor) if actor is not None else None)
    limit = max(1, request.concurrency)
    refs = [task.remote(job) for job in itertools.islice(jobs, limit)]
    try:
        while refs:
            done, refs = ray.wait(refs, num_returns=1, timeout=0.2)  # a timeout, so signals are handled meanwhile
            reason = ray.get(actor.ask.remote("opened")) if actor is not None else None
            if reason is not None:  # the samples just finished are left pending too: a resume runs them again
                raise outages.BreakerOpen(reason)
            for ref in done:
                _deliver(ray.get(ref), sink)
            refs += [task.remote(job) for job in itertools.islice(jobs, len(done))]  # none while none finished
    except ray.exceptions.RayError as exc:
        if isinstance(exc, ray.exceptions.RayTaskError):  # raised by mindloop's own code in the task: a bug
            raise
        (line, *_) = str(exc).strip().splitlines() or [""]
        said = textwrap.shorten(line, 200, placeholder=" ...")
        raise ClusterError(f"the Ray cluster failed the run ({type(exc).__name__}: {said})") from None
    finally:
        # Samples still in flight stay pending. When the run stops with tasks in flight (interrupted, stopped, a
        # set-up error), this process leaves Ray at once (ray.shutdown): a local Ray ends with its workers, and a
        # cluster ends the tasks whose owner has gone while it keeps running. Their tasks are not cancelled: a
        # cancel racing a task's completion aborts Ray's core worker (forced: "Tried to complete task that was
        # not pending"; unforced: a failed check in task_manager.cc), which took the interrupted run down with it.
        if started_here or refs:
            ray.shutdown()
        elif actor is not None:  # the breaker's actor goes with the run (a shutdown above ends it with the rest)
            ray.kill(actor)

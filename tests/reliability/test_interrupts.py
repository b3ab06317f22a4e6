"""SIGINT and SIGTERM stop a run on every executor: finished samples kept, the rest pending, the --resume line.

Each signal test starts ``mindloop bench run`` in a real subprocess, waits (by reading the SQLite store) until some
samples are finished, sends one real signal, and checks the exit status, the ``--resume`` line, that every sample
finished before the signal is still there, and that ``--resume`` (in the test's process, the ``cli`` fixture)
finishes the run to the summary of an uninterrupted run (computed once a module). Symbolic samples block: ToMi's
are slowed by a blocking sleep in the subprocess (``_SLOW``) on the local executor (a sample that never awaits is
exactly what used to hide Ctrl-C from the local executor until the run's end); the process executor's workers
start from a fork server and never see that patch, so there the run is the ``faulty`` test benchmark, whose
samples sleep (blocking) and fail on request in any process (``tests/support/faulty_bench.py``).

A model run is stopped once per executor (local by SIGTERM, process and Ray by SIGINT): both signals reach the
runner's one handler, and each is sent on the local and process executors by the symbolic runs. Ray's run starts a
head of its own (the costliest start here), so it is stopped once, with a model run: a symbolic Ray run stopped by
SIGINT would check the same stop and resume again.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import pytest
from cli_run import Cli

from mindloop.bench.records import Sample
from mindloop.bench.runner import RunRequest, _Interrupted, _SignalGate, run_benchmark
from mindloop.bench.store import RunStore, SampleResult
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer

SUPPORT = Path(__file__).resolve().parents[1] / "support"

_SLOW = """
import sys, time
from mindloop.systems.tom.benchmarks import ToMiBenchmark
_run = ToMiBenchmark._symbolic
async def run(self, sample, ctx):
    time.sleep(0.01)  # blocks the event loop, as a CPU-bound symbolic sample does
    return await _run(self, sample, ctx)
ToMiBenchmark._symbolic = run
from mindloop.cli import main
sys.exit(main(sys.argv[1:]))
"""
_PLAIN = "import sys\nfrom mindloop.cli import main\nsys.exit(main(sys.argv[1:]))\n"
_FAULTY = f"""
import sys
sys.path.insert(0, {str(SUPPORT)!r})
from mindloop.bench.registry import BENCHMARKS
BENCHMARKS.register("faulty", "faulty_bench:FaultyBenchmark", description="a test benchmark")
from mindloop.cli import main
sys.exit(main(sys.argv[1:]))
"""
"""The command line with the ``faulty`` test benchmark registered (its module found by the workers too)."""

N_SYMBOLIC, N_MODEL = 400, 160
FAULTS = ",".join(f"f{i:05d}:model" for i in range(3, N_SYMBOLIC, 37))
"""Every 37th ``faulty`` sample fails (a model error): a resumed run must count them as a clean one does."""
FAULTY_OPTIONS = {"faults": FAULTS}


def _start(home: Path, args: list[str], code: str) -> subprocess.Popen[str]:
    env = dict(os.environ, MINDLOOP_HOME=str(home), COLUMNS="200")
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _statuses(home: Path) -> dict[str, int]:
    path = home / "runs.sqlite"
    if not path.exists():
        return {}
    try:
        with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=5) as db:
            return dict(db.execute("SELECT status, COUNT(*) FROM samples GROUP BY status").fetchall())
    except sqlite3.OperationalError:  # the tables are not there yet
        return {}


def _finished(home: Path) -> int:
    counts = _statuses(home)
    return sum(v for k, v in counts.items() if k != "pending")


def _interrupt(home: Path, args: list[str], sig: signal.Signals, *, code: str, after: int) -> tuple[int, str, int]:
    """Run, signal once ``after`` samples are finished; returns exit code, stderr and the finished count seen."""
    proc = _start(home, args, code)
    deadline = time.monotonic() + 300  # only against hanging
    while _finished(home) < after and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before the signal: " + proc.communicate()[1][-2000:]
    seen = _finished(home)
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return proc.returncode, err, seen


def _run_id(home: Path) -> str:
    with RunStore(home / "runs.sqlite", readonly=True) as store:
        (info,) = store.runs()
    return info.run_id


def _check(
    cli: Cli,
    home: Path,
    benchmark: str,
    rc: int,
    err: str,
    seen: int,
    n: int,
    expected: dict[str, object],
    *resume_args: str,
) -> None:
    run_id = _run_id(home)
    assert rc == 1, err[-2000:]
    assert f"--resume {run_id}" in err and "interrupted" in err
    assert "Traceback" not in err  # neither the run nor its terminated workers print one
    counts = _statuses(home)
    assert sum(v for k, v in counts.items() if k != "pending") >= seen  # every finished sample kept
    assert counts.get("pending", 0) > 0
    resumed = cli("bench", "run", benchmark, "--resume", run_id, "--json", *resume_args, home=home)
    assert resumed.code == 0, resumed.stderr[-2000:]
    summary = json.loads(resumed.out)
    assert summary["n_completed"] == n and summary["n"] == n
    assert summary["metrics"] == expected["metrics"]
    counted = ("n_failed", "n_model_failures", "n_bugs")
    assert {k: summary[k] for k in counted} == {k: expected[k] for k in counted}


@pytest.fixture(scope="module")
def clean_tomi(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The summary of an uninterrupted symbolic ToMi run of ``N_SYMBOLIC`` samples."""
    with RunStore(tmp_path_factory.mktemp("clean") / "runs.sqlite") as store:
        return run_benchmark(RunRequest("tomi", n=N_SYMBOLIC), store=store, progress=False).to_json()


@pytest.fixture
def clean_faulty(faulty_benchmark: str, tmp_path: Path) -> dict[str, object]:
    """The summary of an uninterrupted ``faulty`` run of ``N_SYMBOLIC`` samples with :data:`FAULTY_OPTIONS` (its
    samples not slowed: the summary is the same)."""
    with RunStore(tmp_path / "clean.sqlite") as store:
        request = RunRequest(faulty_benchmark, n=N_SYMBOLIC, options=FAULTY_OPTIONS)
        return run_benchmark(request, store=store, progress=False).to_json()


@pytest.fixture(scope="module")
def clean_model(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The summary of an uninterrupted ToMi model run of ``N_MODEL`` samples against the echo server."""
    with FakeChatServer() as server:
        opts = ModelOptions(base_url=server.base_url, cache="off")
        request = RunRequest("tomi", n=N_MODEL, agent="model", model="openai/fake", model_options=opts)
        with RunStore(tmp_path_factory.mktemp("clean") / "runs.sqlite") as store:
            return run_benchmark(request, store=store, progress=False).to_json()


_EXECUTORS = [
    pytest.param("local", signal.SIGINT, id="local-SIGINT"),
    pytest.param("local", signal.SIGTERM, id="local-SIGTERM"),
    pytest.param("process", signal.SIGINT, id="process-SIGINT"),
    pytest.param("process", signal.SIGTERM, id="process-SIGTERM"),
]
"""Each signal on the executors of this process; Ray's run (a head of its own) is the model run's."""


@pytest.mark.boundary
@pytest.mark.parametrize(("executor", "sig"), _EXECUTORS)
def test_a_symbolic_run_stops_on_a_signal_and_resumes_to_the_same_summary(
    request: pytest.FixtureRequest, cli: Cli, tmp_path: Path, executor: str, sig: signal.Signals
) -> None:
    home = tmp_path / "home"
    args = ["--n", str(N_SYMBOLIC), "--executor", executor, "--concurrency", "2"]
    if executor == "process":  # workers from a fork server: the slow samples are the faulty benchmark's
        benchmark, code, expected = "faulty", _FAULTY, request.getfixturevalue("clean_faulty")
        args += ["--opt", "sleep_s=0.01", "--opt", f"faults={FAULTS}"]
    else:
        benchmark, code, expected = "tomi", _SLOW, request.getfixturevalue("clean_tomi")
    rc, err, seen = _interrupt(home, ["bench", "run", benchmark, *args], sig, code=code, after=20)
    # faulty's samples sleep (blocking) on resume too: spread over workers rather than one event loop
    resume_args = ["--executor", "process", "--concurrency", "4"] if benchmark == "faulty" else []
    _check(cli, home, benchmark, rc, err, seen, N_SYMBOLIC, expected, *resume_args)


@pytest.mark.slow  # two runs of 160 samples through a fake server (the clean one is shared)
@pytest.mark.boundary
@pytest.mark.parametrize(
    ("executor", "sig"),
    [
        pytest.param("local", signal.SIGTERM, id="local-SIGTERM"),
        pytest.param("process", signal.SIGINT, id="process-SIGINT"),
        pytest.param("ray", signal.SIGINT, id="ray-SIGINT", marks=[pytest.mark.scale]),
    ],
)
def test_a_model_run_stops_on_a_signal_and_resumes_to_the_same_summary(
    cli: Cli, clean_model: dict[str, object], tmp_path: Path, executor: str, sig: signal.Signals
) -> None:
    if executor == "ray":
        pytest.importorskip("ray")
    with FakeChatServer(latency_s=0.03) as server:
        model = ["--agent", "model", "--model", "openai/fake", "--base-url", server.base_url, "--cache", "off"]
        home = tmp_path / "home"
        args = ["bench", "run", "tomi", *model, "--n", str(N_MODEL), "--executor", executor, "--concurrency", "2"]
        rc, err, seen = _interrupt(home, args, sig, code=_PLAIN, after=10)
        _check(cli, home, "tomi", rc, err, seen, N_MODEL, clean_model)


class _InterruptedAfterBegin:
    """A store connection whose first ``BEGIN`` is followed by a ``KeyboardInterrupt``, raised where a signal
    handler raises it: the moment the statement returns, before the code after it runs."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self.fired = False

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        cursor = self._db.execute(sql, *args)
        if sql.startswith("BEGIN") and not self.fired:
            self.fired = True
            raise KeyboardInterrupt
        return cursor

    def __getattr__(self, name: str) -> object:
        return getattr(self._db, name)


def test_an_interrupt_the_moment_a_store_transaction_begins_leaves_no_transaction_open(tmp_path: Path) -> None:
    """CI met ``cannot start a transaction within a transaction`` after a Ctrl-C: the interrupt landed between
    ``BEGIN IMMEDIATE`` and the block that rolls back, and the run's last write could not begin."""
    with RunStore(tmp_path / "runs.sqlite") as store:
        run_id = store.create_run(
            benchmark="b", agent="a", model=None, config={}, samples=[Sample("s0", {}), Sample("s1", {})], version="0"
        )
        real = store._db
        store._db = _InterruptedAfterBegin(real)  # type: ignore[assignment]
        with pytest.raises(KeyboardInterrupt):
            store.finish(run_id, [SampleResult(0, "done", {}, {}, None, [], 0.1)])
        assert store._db.fired  # type: ignore[attr-defined]
        store._db = real
        assert not real.in_transaction
        store.add_seconds(run_id, 1.0, finished=False)  # the write after an interrupt, as the runner makes it
        assert store.finish(run_id, [SampleResult(0, "done", {}, {}, None, [], 0.1)]) == 1
        assert [r.status for r in store.records(run_id)] == ["done"] and len(store.pending(run_id)) == 1


def test_a_signal_inside_a_store_write_is_held_until_it_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real SIGINT raised in the middle of the fifth write of finished samples: the write commits whole (its
    samples are kept), the run stops there as interrupted, and --resume finishes it to the uninterrupted summary."""
    n = 40
    with RunStore(tmp_path / "clean.sqlite") as store:
        expected = run_benchmark(RunRequest("tomi", n=n), store=store, progress=False).to_json()
    written: list[int] = []
    armed = False
    finish, fence = RunStore.finish, RunStore._fence

    def counting_finish(self: RunStore, run_id: str, results: Iterable[SampleResult], **kw: float) -> int:
        nonlocal armed
        results = list(results)
        armed = len(written) == 4
        stored = finish(self, run_id, results, **kw)
        written.append(stored)
        return stored

    def signalling_fence(self: RunStore, db: sqlite3.Connection, *args: str) -> None:
        nonlocal armed
        fence(self, db, *args)
        if armed and db.in_transaction:
            armed = False
            signal.raise_signal(signal.SIGINT)  # its handler runs here, inside the transaction

    monkeypatch.setattr(RunStore, "finish", counting_finish)
    monkeypatch.setattr(RunStore, "_fence", signalling_fence)
    with RunStore(tmp_path / "runs.sqlite") as store:
        summary = run_benchmark(RunRequest("tomi", n=n), store=store, progress=False)
        assert summary.interrupted
        assert len(written) == 5 and all(written)  # the fifth write, the one the signal landed in, committed
        (info,) = store.runs()
        assert info.n_completed == sum(written) < n
        monkeypatch.undo()
        resumed = run_benchmark(RunRequest("tomi"), store=store, resume=info.run_id, progress=False).to_json()
    assert resumed["n_completed"] == n and resumed["metrics"] == expected["metrics"]


def test_a_signal_while_the_local_loop_runs_cancels_it_at_its_next_await_and_not_where_it_lands() -> None:
    """CI met a run that hung on Ctrl-C (and one that recorded a bug sample instead of stopping): the interrupt was
    raised wherever the main thread was, once inside httpx's and anyio's code, which left a lock held that a
    cancelled request's clean-up then waited on for ever. The first signal now cancels the loop's main task; the
    code it lands in runs on to its next ``await``, which is cancelled (a long sleep here: the test would wait it
    out if it were not)."""
    gate = _SignalGate()
    reached: list[str] = []

    async def main() -> None:
        os.kill(os.getpid(), signal.SIGINT)  # the handler runs at the next bytecode, in this coroutine
        reached.append("the code the signal landed in")
        await asyncio.sleep(3600)
        reached.append("past the await")

    with gate.installed(), pytest.raises(_Interrupted, match="SIGINT"):
        gate.run_loop(main())
    assert reached == ["the code the signal landed in"]


def test_a_second_signal_while_the_local_loop_runs_is_raised_where_it_lands() -> None:
    """Ctrl-C twice stops a sample that never awaits (a long computation) at once."""
    gate = _SignalGate()
    reached: list[str] = []

    async def main() -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        reached.append("after the first")
        os.kill(os.getpid(), signal.SIGINT)
        reached.append("after the second")

    with gate.installed(), pytest.raises(_Interrupted, match="SIGINT"):
        gate.run_loop(main())
    assert reached == ["after the first"]

"""SIGINT and SIGTERM stop a run on every executor: finished samples kept, the rest pending, the --resume line.

Each test starts ``mindloop bench run`` in a real subprocess, waits (by reading the SQLite store) until some
samples are finished, sends one real signal, and checks the exit status, the ``--resume`` line, that every sample
finished before the signal is still there, and that ``--resume`` finishes the run to the summary of an
uninterrupted run. Symbolic samples are slowed by a blocking sleep in the subprocess (``_SLOW``): a sample that
never awaits is exactly what used to hide Ctrl-C from the local executor until the run's end.
"""

from __future__ import annotations

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

from mindloop.bench.records import Sample
from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore, SampleResult
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer

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


def _start(home: Path, args: list[str], *, slow: bool) -> subprocess.Popen[str]:
    env = dict(os.environ, MINDLOOP_HOME=str(home), COLUMNS="200")
    code = _SLOW if slow else _PLAIN
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


def _interrupt(home: Path, args: list[str], sig: signal.Signals, *, slow: bool, after: int) -> tuple[int, str, int]:
    """Run, signal once ``after`` samples are finished; returns exit code, stderr and the finished count seen."""
    proc = _start(home, args, slow=slow)
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


def _resume(home: Path, run_id: str) -> dict[str, object]:
    proc = _start(home, ["bench", "run", "tomi", "--resume", run_id, "--json"], slow=False)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-2000:]
    return dict(json.loads(out))


def _check(home: Path, rc: int, err: str, seen: int, n: int, expected: dict[str, object]) -> None:
    run_id = _run_id(home)
    assert rc == 1, err[-2000:]
    assert f"--resume {run_id}" in err and "interrupted" in err
    assert "Traceback" not in err  # neither the run nor its terminated workers print one
    counts = _statuses(home)
    assert sum(v for k, v in counts.items() if k != "pending") >= seen  # every finished sample kept
    assert counts.get("pending", 0) > 0
    summary = _resume(home, run_id)
    assert summary["n_completed"] == n and summary["n"] == n
    assert summary["metrics"] == expected["metrics"]
    assert (summary["n_failed"], summary["n_model_failures"]) == (expected["n_failed"], expected["n_model_failures"])


_EXECUTORS = [
    pytest.param("local", signal.SIGINT, id="local-SIGINT"),
    pytest.param("local", signal.SIGTERM, id="local-SIGTERM"),
    pytest.param("process", signal.SIGINT, id="process-SIGINT"),
    pytest.param("process", signal.SIGTERM, id="process-SIGTERM"),
    pytest.param("ray", signal.SIGINT, id="ray-SIGINT", marks=[pytest.mark.scale, pytest.mark.slow]),
]


@pytest.mark.parametrize(("executor", "sig"), _EXECUTORS)
def test_a_symbolic_run_stops_on_a_signal_and_resumes_to_the_same_summary(
    tmp_path: Path, executor: str, sig: signal.Signals
) -> None:
    if executor == "ray":
        pytest.importorskip("ray")
    n = 400
    with RunStore(tmp_path / "clean.sqlite") as store:
        expected = run_benchmark(RunRequest("tomi", n=n), store=store, progress=False).to_json()
    home = tmp_path / "home"
    args = ["bench", "run", "tomi", "--n", str(n), "--executor", executor, "--concurrency", "2"]
    rc, err, seen = _interrupt(home, args, sig, slow=executor != "ray", after=20)
    _check(home, rc, err, seen, n, expected)


@pytest.mark.slow  # ~15 s each on a 2-core machine: three runs of 160 samples through a fake server
@pytest.mark.parametrize(("executor", "sig"), _EXECUTORS)
def test_a_model_run_stops_on_a_signal_and_resumes_to_the_same_summary(
    tmp_path: Path, executor: str, sig: signal.Signals
) -> None:
    if executor == "ray":
        pytest.importorskip("ray")
    n = 160
    with FakeChatServer(latency_s=0.03) as server:
        model = ["--agent", "model", "--model", "openai/fake", "--base-url", server.base_url, "--cache", "off"]
        opts = ModelOptions(base_url=server.base_url, cache="off")
        with RunStore(tmp_path / "clean.sqlite") as store:
            request = RunRequest("tomi", n=n, agent="model", model="openai/fake", model_options=opts)
            expected = run_benchmark(request, store=store, progress=False).to_json()
        home = tmp_path / "home"
        args = ["bench", "run", "tomi", *model, "--n", str(n), "--executor", executor, "--concurrency", "2"]
        rc, err, seen = _interrupt(home, args, sig, slow=False, after=10)
        _check(home, rc, err, seen, n, expected)


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

    def counting_finish(self: RunStore, run_id: str, results: Iterable[SampleResult]) -> int:
        nonlocal armed
        results = list(results)
        armed = len(written) == 4
        stored = finish(self, run_id, results)
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

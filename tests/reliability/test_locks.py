"""Run locks that heal, and fenced takeovers (issue 24, case 4), against real ``mindloop bench run`` processes.

A run killed with ``kill -9`` leaves its lock behind. It is taken over, with a message, when its holder is gone:
its process no longer exists on this host, its PID now names another process, or its heartbeat is older than the
stale interval (the only way to tell from another host, such as a new container). ``--force-resume`` takes over a
holder that still looks live, and fencing refuses every later write of the old holder (a suspended process woken
with SIGCONT), so no sample is stored twice. Each test waits on conditions read from the store, never on sleeps.
The runs whose lock is left behind are real processes (killed, suspended); the commands that list runs or take a
lock over run in the test's process (the ``cli`` fixture), whose PID then holds the lock.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_run import Cli, CliRun

from mindloop.bench.api import Sample
from mindloop.bench.store import LockLostError, RunStore, SampleResult
from mindloop.errors import InvalidArgumentError
from mindloop.models.fake_server import FakeChatServer

from .watch import acting_when

_PLAIN = "import sys\nfrom mindloop.cli import main\nsys.exit(main(sys.argv[1:]))\n"
_N = 16


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, MINDLOOP_HOME=str(home), COLUMNS="200")
    env.pop("MINDLOOP_LOCK_STALE_S", None)
    return env | extra


def _start(home: Path, args: list[str], **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _PLAIN, *args],
        env=_env(home, **env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def mindloop(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> Callable[..., CliRun]:
    """``mindloop(home, args, **env)``: the command line in this process, with ``env`` set for that command alone
    (and no stale interval from the caller's shell)."""
    monkeypatch.delenv("MINDLOOP_LOCK_STALE_S", raising=False)

    def mindloop(home: Path, args: list[str], **env: str) -> CliRun:
        with monkeypatch.context() as scoped:
            for name, value in env.items():
                scoped.setenv(name, value)
            return cli(*args, home=home)

    return mindloop


def _query(home: Path, sql: str, args: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    path = home / "runs.sqlite"
    if not path.exists():
        return []
    try:
        with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=10) as db:
            return db.execute(sql, args).fetchall()
    except sqlite3.OperationalError:  # the tables are not there yet
        return []


def _finished(home: Path) -> int:
    rows = _query(home, "SELECT COUNT(*) FROM samples WHERE status != 'pending'")
    return int(rows[0][0]) if rows else 0  # type: ignore[call-overload]


def _lock(home: Path) -> tuple[object, ...]:
    (row,) = _query(home, "SELECT run_id, lock_owner, lock_process, lock_heartbeat, lock_generation FROM runs")
    return row


def _wait(condition: Callable[[], bool], *procs: subprocess.Popen[str]) -> None:
    """Wait until ``condition`` holds; a watched process that ends first fails the test with its stderr."""
    deadline = time.monotonic() + 300  # only against hanging
    while not condition():
        for proc in procs:
            if proc.poll() is not None:
                pytest.fail(f"process ended first (rc {proc.returncode}): {proc.communicate()[1][-3000:]}")
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def _run_args(server: FakeChatServer) -> list[str]:
    return ["--base-url", server.base_url, "--cache", "off"]


def _new_run(home: Path, server: FakeChatServer, **env: str) -> subprocess.Popen[str]:
    args = ["bench", "run", "hitom", "--agent", "model", "--model", "openai/x", "--n", str(_N), "--concurrency", "2"]
    return _start(home, [*args, *_run_args(server)], **env)


def _rewrite(home: Path, sql: str, args: tuple[object, ...]) -> None:
    _rewrite_file(home / "runs.sqlite", sql, args)


def _rewrite_file(path: Path, sql: str, args: tuple[object, ...]) -> None:
    db = sqlite3.connect(path, timeout=30)
    with db:
        db.execute(sql, args)
    db.close()


def _status(mindloop: Callable[..., CliRun], home: Path, **env: str) -> str:
    listed = mindloop(home, ["runs", "--json"], **env)
    assert listed.code == 0, listed.stderr
    (run,) = json.loads(listed.out)["runs"]
    return str(run["status"])


def _all_finished_once(home: Path) -> None:
    counts = {
        str(status): int(count) for status, count in _query(home, "SELECT status, COUNT(*) FROM samples GROUP BY 1")
    }  # type: ignore[call-overload]
    assert "pending" not in counts and sum(counts.values()) == _N, counts


@pytest.mark.boundary  # a run's process killed with SIGKILL
def test_a_killed_run_on_another_host_is_taken_over_once_its_heartbeat_is_stale(
    mindloop: Callable[..., CliRun], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    stale = {"MINDLOOP_LOCK_STALE_S": "2"}  # beats every 0.5 s; stale after 2 s without one
    with FakeChatServer(latency_s=0.2) as server:
        holder = _new_run(home, server, **stale)
        _wait(lambda: _finished(home) >= 2, holder)
        first_beat = _lock(home)[3]
        _wait(lambda: _lock(home)[3] != first_beat, holder)  # the heartbeat thread is beating
        holder.kill()  # kill -9: nothing is released
        holder.wait()
        run_id, owner, _, _, generation = _lock(home)
        assert owner == f"{socket.gethostname()}:{holder.pid}" and generation == 1
        # the holder's container is gone: its lock names a host that is not this one
        _rewrite(home, "UPDATE runs SET lock_owner = ?", (f"gone-container:{holder.pid}",))
        _wait(lambda: time.time() - float(_lock(home)[3]) > 2.5)  # type: ignore[arg-type]
        assert _status(mindloop, home, **stale) == "stale"
        kept = _query(home, "SELECT idx, finished, output FROM samples WHERE status != 'pending'")

        resumed = mindloop(home, ["bench", "run", "hitom", "--resume", str(run_id), *_run_args(server)], **stale)
    assert resumed.code == 0, resumed.stderr[-3000:]
    assert f"mindloop: taking over run {run_id} from process gone-container:{holder.pid} (its last heartbeat was" in (
        resumed.stderr
    )
    _all_finished_once(home)
    assert set(kept) <= set(_query(home, "SELECT idx, finished, output FROM samples"))  # earlier samples untouched
    assert _query(home, "SELECT lock_owner, lock_generation FROM runs") == [(None, 2)]
    assert _status(mindloop, home, **stale) == "finished"


@pytest.mark.boundary  # a run's process killed with SIGKILL
def test_a_lock_whose_pid_is_dead_or_reused_on_this_host_is_taken_over(
    mindloop: Callable[..., CliRun], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    with FakeChatServer(latency_s=0.2) as server:
        holder = _new_run(home, server)
        _wait(lambda: _finished(home) >= 1, holder)
        holder.kill()
        holder.wait()
        run_id = str(_lock(home)[0])
        assert _status(mindloop, home) == "stale"  # its process no longer exists (the heartbeat is still fresh)
        other = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)  # lives until stdin ends
        try:  # the PID is given to another process: same host, live PID, but not the holder
            _rewrite(home, "UPDATE runs SET lock_owner = ?", (f"{socket.gethostname()}:{other.pid}",))
            assert _status(mindloop, home) == "stale"
            resumed = mindloop(home, ["bench", "run", "hitom", "--resume", run_id, *_run_args(server)])
        finally:
            other.communicate(b"")
    assert resumed.code == 0, resumed.stderr[-3000:]
    assert f"taking over run {run_id} from process {socket.gethostname()}:{other.pid} (process id {other.pid} now " in (
        resumed.stderr
    )
    _all_finished_once(home)


@pytest.mark.boundary  # a run's process suspended with SIGSTOP, woken with SIGCONT under a second holder
def test_a_suspended_holder_is_refused_then_forced_out_and_its_late_writes_are_fenced(
    mindloop: Callable[..., CliRun], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    with FakeChatServer(latency_s=0.3) as server:
        first = _new_run(home, server)
        _wait(lambda: _finished(home) >= 2, first)
        first.send_signal(signal.SIGSTOP)
        try:
            run_id, owner, _, _, generation = _lock(home)
            assert owner == f"{socket.gethostname()}:{first.pid}" and generation == 1
            assert _status(mindloop, home) == "running"  # alive, heartbeat fresh: not stale
            resume = ["bench", "run", "hitom", "--resume", str(run_id), *_run_args(server)]
            refused = mindloop(home, resume)
            assert refused.code == 1
            (line,) = refused.err
            assert line.startswith(f"mindloop: error: run {run_id} is being executed by process {owner}, last heartb")
            assert "--force-resume" in line
            by_first = set(_query(home, "SELECT idx FROM samples WHERE generation = 1"))

            # the second holder runs in this process; the first is woken once the second has written a sample
            second_wrote = lambda: bool(_query(home, "SELECT 1 FROM samples WHERE generation = 2"))  # noqa: E731
            with acting_when(second_wrote, lambda: first.send_signal(signal.SIGCONT)):
                second = mindloop(home, [*resume, "--force-resume"])
        finally:
            first.send_signal(signal.SIGCONT)
        _, first_err = first.communicate(timeout=300)
    assert first.returncode == 1, first_err[-3000:]
    lines = [ln for ln in first_err.splitlines() if ln.startswith("mindloop: error:")]
    assert len(lines) == 1 and f"run {run_id} was taken over by" in lines[0] and "Traceback" not in first_err
    assert second.code == 0, second.stderr[-3000:]
    assert f"taking over run {run_id} from process {owner} (--force-resume)" in second.stderr
    _all_finished_once(home)
    # every sample was written once, by one generation: the woken holder stored nothing after the takeover
    assert set(_query(home, "SELECT idx FROM samples WHERE generation = 1")) == by_first
    assert _query(home, "SELECT COUNT(*) FROM samples WHERE generation = 2") == [(_N - len(by_first),)]


# -- the store's lock, in process ---------------------------------------------------------------------------


def _one_run(path: Path) -> str:
    with RunStore(path) as store:
        return store.create_run(
            benchmark="b", agent="a", model=None, config={}, samples=[Sample(str(i), {}) for i in range(3)], version="0"
        )


def _result(index: int) -> SampleResult:
    return SampleResult(index, "done", {"answer": index}, {"correct": 1.0}, None, [], 0.1)


def test_a_holder_taken_over_has_every_write_refused_and_the_new_one_writes_under_its_generation(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.sqlite"
    run_id = _one_run(path)
    said: list[str] = []
    with RunStore(path) as old, RunStore(path) as new, old.locked(run_id):
        assert old.finish(run_id, [_result(0)]) == 1
        with pytest.raises(InvalidArgumentError, match="is being executed by process"), new.locked(run_id):
            pass
        with new.locked(run_id, force=True, notify=said.append):
            with pytest.raises(LockLostError, match=f"run {run_id} was taken over by process"):
                old.finish(run_id, [_result(1)])
            with pytest.raises(LockLostError):
                old.add_seconds(run_id, 1.0, finished=False)
            with pytest.raises(LockLostError):
                old.retry_failed(run_id)
            assert new.finish(run_id, [_result(1), _result(2)]) == 2
    assert said == [f"taking over run {run_id} from process {socket.gethostname()}:{os.getpid()} (--force-resume); "
                    "its writes are refused from now on (lock generation 2)"]  # fmt: skip
    db = sqlite3.connect(path)
    assert db.execute("SELECT idx, generation FROM samples ORDER BY idx").fetchall() == [(0, 1), (1, 2), (2, 2)]
    assert db.execute("SELECT lock_owner, lock_token, lock_generation FROM runs").fetchall() == [(None, None, 2)]
    db.close()


def test_the_heartbeat_beats_while_held_and_a_bad_stale_interval_is_one_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "runs.sqlite"
    run_id = _one_run(path)
    monkeypatch.setenv("MINDLOOP_LOCK_STALE_S", "0.4")  # a beat every 0.1 s

    def beat() -> float:
        db = sqlite3.connect(path, timeout=10)
        try:
            return float(db.execute("SELECT lock_heartbeat FROM runs").fetchone()[0])
        finally:
            db.close()

    with RunStore(path) as store, store.locked(run_id):
        first = beat()
        done = threading.Event()
        deadline = time.monotonic() + 120
        while beat() == first and time.monotonic() < deadline:
            done.wait(0.05)
        assert beat() > first
    for bad in ("0", "-3", "nan", "soon"):
        monkeypatch.setenv("MINDLOOP_LOCK_STALE_S", bad)
        with RunStore(path) as store, pytest.raises(InvalidArgumentError, match="MINDLOOP_LOCK_STALE_S must be"):
            store.locked(run_id).__enter__()


def test_a_suite_lock_heals_and_fences_the_same_way(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        suite_id = store.create_suite(model=None, preset="quick", config={}, version="0")
    dead = subprocess.Popen(["true"])  # a process that has ended: its PID names nothing now
    dead.wait()
    _rewrite_file(path, "UPDATE suites SET lock_owner = ?", (f"{socket.gethostname()}:{dead.pid}",))
    said: list[str] = []
    with RunStore(path) as old, RunStore(path) as new:
        # the first holder's process is gone: taken over; then forced out by a second holder
        with old.locked_suite(suite_id, notify=said.append), new.locked_suite(suite_id, force=True, notify=said.append):
            with pytest.raises(LockLostError, match=f"suite {suite_id} was taken over by process"):
                old.add_suite_seconds(suite_id, 1.0, finished=False)
            new.add_suite_seconds(suite_id, 2.0, finished=True)
        assert new.suite(suite_id).seconds == 2.0
    assert [m.split(" (")[0] for m in said] == [f"taking over suite {suite_id} from process {socket.gethostname()}:"
                                                f"{dead.pid}", f"taking over suite {suite_id} from process "
                                                f"{socket.gethostname()}:{os.getpid()}"]  # fmt: skip
    assert "no longer exists" in said[0] and "(--force-resume)" in said[1]

"""The ``process`` executor cannot hang or leave workers behind.

Each worker runs one job at a time over a pipe of its own, so a stop (a set-up error, a signal, the circuit
breaker) kills the workers without waiting on anything they hold; a worker that dies under a sample is replaced and
the sample run once more; and a worker ends with its parent, even one killed with SIGKILL. The samples come from the
``faulty`` test benchmark (``tests/support/faulty_bench.py``), whose faults travel with each job.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.errors import DependencyError

SUPPORT = Path(__file__).resolve().parents[1] / "support"


def _calls(log: Path) -> list[tuple[str, int]]:
    """Each sample started (its id) and the worker that ran it (its pid), in order."""
    lines = [line.split() for line in log.read_text().splitlines()]
    return [(sample, int(pid)) for sample, pid, _, event in lines if event == "start"]


def _request(faulty: str, n: int, concurrency: int, **options: object) -> RunRequest:
    opts = {k: str(v) for k, v in options.items()}
    return RunRequest(faulty, n=n, executor="process", concurrency=concurrency, options=opts)


def test_a_worker_that_dies_under_a_sample_is_replaced_and_the_sample_run_once_more(
    tmp_path: Path, faulty_benchmark: str
) -> None:
    log = tmp_path / "calls.log"
    with RunStore(tmp_path / "runs.sqlite") as store:
        summary = run_benchmark(
            _request(faulty_benchmark, 4, 2, log=log, faults="f00001:die-once"), store=store, progress=False
        )
        statuses = {r.sample.id: r.status for r in store.records(summary.run_id)}
    assert statuses == dict.fromkeys(["f00000", "f00001", "f00002", "f00003"], "done")
    tries = [pid for sample, pid in _calls(log) if sample == "f00001"]
    assert len(tries) == 2 and tries[0] != tries[1]  # the second try ran on a new worker


def test_a_sample_that_kills_its_worker_each_time_is_a_bug_after_one_more_try(
    tmp_path: Path, faulty_benchmark: str
) -> None:
    log = tmp_path / "calls.log"
    with RunStore(tmp_path / "runs.sqlite") as store:
        summary = run_benchmark(
            _request(faulty_benchmark, 3, 2, log=log, faults="f00001:die"), store=store, progress=False
        )
        records = {r.sample.id: r for r in store.records(summary.run_id)}
    assert (summary.n_completed, summary.n_bugs) == (3, 1)
    assert records["f00001"].status == "bug"
    assert records["f00001"].error == (
        "internal error: the worker process running this sample died 2 times (last killed by SIGKILL)"
    )
    assert [s for s, _ in _calls(log)].count("f00001") == 2


def test_a_setup_error_stops_the_run_while_another_worker_is_stuck_in_a_sample(
    tmp_path: Path, faulty_benchmark: str
) -> None:
    log = tmp_path / "calls.log"
    request = _request(faulty_benchmark, 6, 2, log=log, hang_ids="f00000", faults="f00001:dependency")
    with RunStore(tmp_path / "runs.sqlite") as store:
        with pytest.raises(DependencyError, match="stopped before any sample finished, so the run was removed"):
            run_benchmark(request, store=store, progress=False)
        assert store.runs() == []  # the stuck sample was killed with its worker: none finished, nothing is kept
    workers = {pid for _, pid in _calls(log)}
    assert _wait_until_gone(workers)


def test_the_breaker_hears_every_worker_and_stops_the_run_with_the_rest_pending(
    tmp_path: Path, faulty_benchmark: str
) -> None:
    n = 12
    request = RunRequest(
        faulty_benchmark,
        agent="model",
        model="scripted/echo",
        n=n,
        executor="process",
        concurrency=2,
        breaker=3,
        options={"no_server_from": "4"},
    )
    with RunStore(tmp_path / "runs.sqlite") as store:
        summary = run_benchmark(request, store=store, progress=False)
        pending = len(store.pending(summary.run_id))
        done = [r.sample.id for r in store.records(summary.run_id) if r.status == "done"]
    assert summary.stopped is not None
    assert summary.stopped.startswith("3 requests in a row could not get an answer from the model")
    assert set(done) <= {f"f{i:05d}" for i in range(4)}  # no sample that found no server is done
    assert summary.n_completed + pending == n and pending > 0 and summary.n_failed == summary.n_completed - len(done)


# -- the process boundary: a parent killed, or signalled -----------------------------------------------------------

_PARENT = f"""
import sys
sys.path.insert(0, {str(SUPPORT)!r})
from mindloop.bench.registry import BENCHMARKS
BENCHMARKS.register("faulty", "faulty_bench:FaultyBenchmark")
from mindloop.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _start(home: Path, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, MINDLOOP_HOME=str(home))
    argv = [sys.executable, "-c", _PARENT, "bench", "run", "faulty", "--executor", "process", *args]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting for its reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in {"Z", "X"}


def _wait_until_gone(pids: set[int], deadline_s: float = 120.0) -> bool:
    """Wait (on the condition, with a deadline only against hanging) until none of ``pids`` is alive."""
    end = time.monotonic() + deadline_s
    while any(_alive(p) for p in pids):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def _wait_for_workers(log: Path, k: int, proc: subprocess.Popen[str]) -> set[int]:
    end = time.monotonic() + 240
    while not (log.exists() and len({pid for _, pid in _calls(log)}) >= k):
        assert proc.poll() is None, proc.communicate()[1][-2000:]
        assert time.monotonic() < end, "the workers never started"
        time.sleep(0.05)
    return {pid for _, pid in _calls(log)}


@pytest.mark.boundary
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_killing_the_parent_with_sigkill_leaves_no_worker_alive(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    proc = _start(
        tmp_path, "--n", "6", "--concurrency", "3", "--opt", f"log={log}", "--opt", "hang_ids=f00000,f00001,f00002"
    )
    try:
        workers = _wait_for_workers(log, 3, proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert _wait_until_gone(workers), [p for p in workers if _alive(p)]
    finally:
        proc.kill()
        proc.communicate()


@pytest.mark.boundary
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_run_with_workers_stuck_in_samples(tmp_path: Path, sig: signal.Signals) -> None:
    log = tmp_path / "calls.log"
    hang = "hang_ids=f00001,f00002"
    proc = _start(tmp_path, "--n", "8", "--concurrency", "2", "--opt", f"log={log}", "--opt", hang, "--json")
    try:
        workers = _wait_for_workers(log, 2, proc)
        end = time.monotonic() + 240
        while len(_calls(log)) < 3:  # f00000 finished, both workers stuck in a sample that never ends
            assert time.monotonic() < end
            time.sleep(0.05)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 1, err[-2000:]
    assert "interrupted" in err and "--resume faulty-" in err and "Traceback" not in err
    with RunStore(tmp_path / "runs.sqlite", readonly=True) as store:
        (run,) = store.runs()
        done, pending = store.records(run.run_id), store.pending(run.run_id)
    assert [r.sample.id for r in done] == ["f00000"] and len(done) + len(pending) == 8
    assert _wait_until_gone(workers)

"""The circuit breaker judges the endpoint by its requests, through real processes: a server killed mid-run stops
the run (exit 1, the ``stopped:`` line and its ``--resume`` hint) with no request sent after the breaker opened, at
concurrency 1 and 8 and on the process executor; a server that answers slowly or with an occasional 503 does not.

Requests are counted, never timed: once the server is killed, a listener takes its port, counts every connection
and resets it (a server that is not there). Each request that reaches it fails; the breaker opens at the
``--breaker``-th failure in a row, so at most ``breaker + concurrency - 1`` connections can arrive (the failures that
opened it and the requests already in flight then), where a run that kept retrying would send dozens.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mindloop.bench.store import RunStore
from mindloop.models.fake_server import FakeChatServer

_CODE = "import sys\nfrom mindloop.cli import main\nsys.exit(main(sys.argv[1:]))\n"
MODEL = ("--agent", "model", "--model", "openai/fake", "--cache", "off", "--format-retries", "0")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(port: int) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mindloop.models.fake_server", "--port", str(port), "--latency", "0.02"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().startswith("http://127.0.0.1:")  # listening
    return proc


def _finished(path: Path) -> int:
    try:
        with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT COUNT(*) FROM samples WHERE status != 'pending'").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


class _ResetListener:
    """Takes a dead server's port: accepts every connection, counts it and resets it at once."""

    def __init__(self, port: int) -> None:
        self.accepted = 0
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self._sock.listen(128)
        self._sock.settimeout(0.05)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close = RST
            conn.close()

    def close(self) -> int:
        """Stop listening (every connection that arrived has been counted); returns the count."""
        self._stop.set()
        self._thread.join(timeout=30)
        self._sock.close()
        return self.accepted


def _kill_mid_run(tmp_path: Path, concurrency: int, executor: str, breaker: int) -> None:
    port, n = _free_port(), 400 * concurrency
    home = tmp_path / "home"
    server = _serve(port)
    env = dict(os.environ, MINDLOOP_HOME=str(home), COLUMNS="200")
    args = ["bench", "run", "tomi", *MODEL, "--base-url", f"http://127.0.0.1:{port}/v1", "--n", str(n)]
    args += ["--concurrency", str(concurrency), "--executor", executor, "--breaker", str(breaker), "--retries", "8"]
    run = subprocess.Popen(
        [sys.executable, "-c", _CODE, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    listener = None
    try:
        deadline = time.monotonic() + 240  # only against hanging
        while _finished(home / "runs.sqlite") < 2 * concurrency and time.monotonic() < deadline:
            assert run.poll() is None, run.communicate()[1][-2000:]
            time.sleep(0.02)
        server.send_signal(signal.SIGKILL)
        server.wait()
        listener = _ResetListener(port)
        _, err = run.communicate(timeout=240)
    finally:
        server.kill()
        server.wait()
        if run.poll() is None:
            run.kill()
            run.communicate()
        accepted = listener.close() if listener is not None else -1
    assert run.returncode == 1, err[-2000:]
    with RunStore(home / "runs.sqlite", readonly=True) as store:
        (info,) = store.runs()
        pending = len(store.pending(info.run_id))
    (line,) = [line for line in err.splitlines() if line.startswith("stopped:")]  # one line says why, and what next
    assert line.startswith(f"stopped: {breaker} requests in a row could not get an answer from the model"), line
    assert f"{pending} sample(s) left pending" in line and line.endswith(f"--resume {info.run_id}")
    assert 0 < pending < n
    # No request after the breaker opened: the connections that reached the dead port are at most the failures
    # that opened it and the requests then in flight (with --retries 8 a sample alone would try 9 times).
    assert accepted <= breaker + concurrency - 1, (accepted, err[-2000:])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("concurrency", "executor"),
    [
        pytest.param(1, "local", id="local-1"),
        pytest.param(8, "local", id="local-8"),
        pytest.param(4, "process", id="process-4"),
        pytest.param(2, "ray", id="ray-2", marks=pytest.mark.scale),
    ],
)
def test_a_server_killed_mid_run_stops_it_with_no_request_after_the_breaker_opens(
    tmp_path: Path, concurrency: int, executor: str
) -> None:
    if executor == "ray":
        pytest.importorskip("ray")
    _kill_mid_run(tmp_path, concurrency, executor, breaker=5)


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MINDLOOP_HOME=str(home), COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-c", _CODE, *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.parametrize("concurrency", [1, 8])
def test_an_occasional_503_does_not_open_the_breaker(tmp_path: Path, concurrency: int) -> None:
    n = 40
    # one request in four is a 503 without Retry-After (a request that finds no server); the other three answer
    with FakeChatServer(faults=["503", "ok", "ok", "ok"] * n) as server:
        args = ("--base-url", server.base_url, "--n", str(n), "--concurrency", str(concurrency), "--json")
        done = _cli(tmp_path, "bench", "run", "tomi", *MODEL, *args, "--breaker", "2" if concurrency == 1 else "5")
        assert done.returncode == 0, done.stderr[-2000:]
        summary = json.loads(done.stdout)
        assert summary["stopped"] is None and summary["n_completed"] == n and summary["n_model_failures"] == 0
        assert server.requests_by_status[503] >= n // 4 - 1  # the 503s were sent, and each retried to an answer


def test_a_slow_server_that_times_out_does_not_open_the_breaker(tmp_path: Path) -> None:
    # three requests in a row time out (no answer within --timeout), more than --breaker 1: timeouts do not count
    with FakeChatServer(faults=["hang", "hang", "hang"], hang_s=10) as server:
        args = ("--base-url", server.base_url, "--n", "3", "--concurrency", "1", "--json", "--timeout", "1")
        done = _cli(tmp_path, "bench", "run", "tomi", *MODEL, *args, "--breaker", "1", "--retries", "4")
        assert done.returncode == 0, done.stderr[-2000:]
        summary = json.loads(done.stdout)
        assert summary["stopped"] is None and summary["n_completed"] == 3 and summary["n_model_failures"] == 0
        assert server.requests == 3 + 3  # the three that timed out, then one answer per sample

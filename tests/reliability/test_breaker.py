"""The circuit breaker judges the endpoint by its requests, through the real command line: a server killed mid-run stops
the run (exit 1, the ``stopped:`` line and its ``--resume`` hint) with no request sent after the breaker opened, at
concurrency 1 and 8 and on the process executor; a server that answers slowly or with an occasional 503 does not.

Requests are counted, never timed: once the server is killed, a listener takes its port, counts every connection
and resets it (a server that is not there). Each request that reaches it fails; the breaker opens at the
``--breaker``-th failure in a row, so at most ``breaker + concurrency - 1`` connections can arrive (the failures that
opened it and the requests already in flight then), where a run that kept retrying would send dozens.

The server is a process of its own, killed with SIGKILL; the command line runs in the test's process (the ``cli``
fixture), except on Ray, whose run starts a head of its own as a user's command does.
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
from pathlib import Path

import pytest
from cli_run import Cli

from mindloop.bench.store import RunStore
from mindloop.models.fake_server import FakeChatServer

from .watch import acting_when

_CODE = "import sys\nfrom mindloop.cli import main\nsys.exit(main(sys.argv[1:]))\n"
MODEL = ("--agent", "model", "--model", "openai/fake", "--cache", "off", "--format-retries", "0")


def _serve(port: int = 0) -> tuple[subprocess.Popen[str], int]:
    """A fake server in a process of its own (one a test can kill), on ``port`` (0: one the system picks, so no
    other test can hold it); returns the process and its port, once it listens."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mindloop.models.fake_server", "--port", str(port), "--latency", "0.02"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    url = proc.stdout.readline()
    assert url.startswith("http://127.0.0.1:"), url  # listening
    return proc, int(url.removeprefix("http://127.0.0.1:").split("/")[0])


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


def _kill_mid_run(tmp_path: Path, concurrency: int, executor: str, breaker: int, cli: Cli | None) -> None:
    """Run with ``cli`` (in this process), or in a subprocess without it (Ray: a head of its own, as a user's
    command starts it); kill the server once ``2 * concurrency`` samples are finished and count what arrives."""
    n = 400 * concurrency
    home = tmp_path / "home"
    server, port = _serve()
    args = ["bench", "run", "tomi", *MODEL, "--base-url", f"http://127.0.0.1:{port}/v1", "--n", str(n)]
    args += ["--concurrency", str(concurrency), "--executor", executor, "--breaker", str(breaker), "--retries", "8"]
    listener: _ResetListener | None = None
    run: subprocess.Popen[str] | None = None

    def started() -> bool:
        return _finished(home / "runs.sqlite") >= 2 * concurrency

    def kill_and_listen() -> None:
        nonlocal listener
        server.send_signal(signal.SIGKILL)
        server.wait()
        listener = _ResetListener(port)

    try:
        if cli is not None:
            with acting_when(started, kill_and_listen) as killed:
                done = cli(*args, home=home)
            code, err = done.code, done.stderr
        else:
            env = dict(os.environ, MINDLOOP_HOME=str(home), COLUMNS="200")
            run = subprocess.Popen(
                [sys.executable, "-c", _CODE, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            with acting_when(started, kill_and_listen) as killed:
                _, err = run.communicate(timeout=480)
            code = run.returncode
    finally:
        server.kill()
        server.wait()
        if run is not None and run.poll() is None:
            run.kill()
            run.communicate()
        accepted = listener.close() if listener is not None else -1
    assert killed.is_set(), err[-2000:]  # the server died under the run, not after it
    assert code == 1, err[-2000:]
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
@pytest.mark.boundary  # a model server's process killed mid-run
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
    cli: Cli, tmp_path: Path, concurrency: int, executor: str
) -> None:
    if executor == "ray":
        pytest.importorskip("ray")
    _kill_mid_run(tmp_path, concurrency, executor, breaker=5, cli=None if executor == "ray" else cli)


@pytest.mark.parametrize("concurrency", [1, 8])
def test_an_occasional_503_does_not_open_the_breaker(cli: Cli, concurrency: int) -> None:
    n = 40
    # one request in four is a 503 without Retry-After (a request that finds no server); the other three answer
    with FakeChatServer(faults=["503", "ok", "ok", "ok"] * n) as server:
        args = ("--base-url", server.base_url, "--n", str(n), "--concurrency", str(concurrency), "--json")
        done = cli("bench", "run", "tomi", *MODEL, *args, "--breaker", "2" if concurrency == 1 else "5")
        assert done.code == 0, done.stderr[-2000:]
        summary = json.loads(done.out)
        assert summary["stopped"] is None and summary["n_completed"] == n and summary["n_model_failures"] == 0
        assert server.requests_by_status[503] >= n // 4 - 1  # the 503s were sent, and each retried to an answer


def test_a_slow_server_that_times_out_does_not_open_the_breaker(cli: Cli) -> None:
    # three requests in a row time out (no answer within --timeout), more than --breaker 1: timeouts do not count
    with FakeChatServer(faults=["hang", "hang", "hang"], hang_s=10) as server:
        args = ("--base-url", server.base_url, "--n", "3", "--concurrency", "1", "--json", "--timeout", "1")
        done = cli("bench", "run", "tomi", *MODEL, *args, "--breaker", "1", "--retries", "4")
        assert done.code == 0, done.stderr[-2000:]
        summary = json.loads(done.out)
        assert summary["stopped"] is None and summary["n_completed"] == 3 and summary["n_model_failures"] == 0
        assert server.requests == 3 + 3  # the three that timed out, then one answer per sample

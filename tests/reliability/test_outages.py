"""Model outages through the real command line and a real local server: pre-flight, the circuit breaker, --resume
after the server is back, and --retry-failed keeping each sample's earlier attempts.

The command line runs in the test's process (the ``cli`` fixture); the server that dies mid-run is a process of its
own, killed with SIGKILL from a thread once the run has finished some samples."""

from __future__ import annotations

import json
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_run import Cli, CliRun

from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer

from .watch import acting_when


@pytest.fixture
def mindloop(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> Callable[..., CliRun]:
    """``mindloop(home, *args, env=None)``: the command line in this process with ``home`` as MINDLOOP_HOME and
    ``env`` set for that command alone."""

    def mindloop(home: Path, *args: str, env: dict[str, str] | None = None) -> CliRun:
        with monkeypatch.context() as scoped:
            for name, value in (env or {}).items():
                scoped.setenv(name, value)
            return cli(*args, home=home)

    return mindloop


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _runs(home: Path) -> list[str]:
    if not (home / "runs.sqlite").exists():
        return []
    with RunStore(home / "runs.sqlite", readonly=True) as store:
        return [r.run_id for r in store.runs()]


MODEL = ("--agent", "model", "--model", "openai/fake", "--cache", "off")


def test_nothing_listening_fails_at_preflight_in_one_line_before_a_run_is_recorded(
    mindloop: Callable[..., CliRun], tmp_path: Path
) -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"
    done = mindloop(tmp_path, "bench", "run", "tomi", *MODEL, "--base-url", url, "--n", "40")
    assert done.code == 1
    lines = done.err
    assert len(lines) == 1 and "pre-flight" in lines[0] and f"{url}/models" in lines[0]
    assert _runs(tmp_path) == []


@pytest.mark.parametrize("url", ["notaurl", "http://", "ftp://host/v1", "http://host:port/v1"])
def test_an_invalid_base_url_is_refused_before_anything_runs(
    mindloop: Callable[..., CliRun], tmp_path: Path, url: str
) -> None:
    done = mindloop(tmp_path, "bench", "run", "tomi", *MODEL, "--base-url", url, "--n", "4")
    assert done.code == 1
    assert len(done.err) == 1 and repr(url) in done.stderr
    assert _runs(tmp_path) == []


@pytest.mark.parametrize(
    ("model", "says"),
    [("scripted/ecko", "unknown script 'ecko'; did you mean 'echo'?"), ("scripted/missing.jsonl", "does not exist")],
)
def test_a_bad_scripted_model_fails_in_one_line_before_a_run_is_recorded(
    mindloop: Callable[..., CliRun], tmp_path: Path, model: str, says: str
) -> None:
    # the script is read at pre-flight: a typo used to record a run, stopped with every sample pending
    done = mindloop(tmp_path, "bench", "run", "tomi", "--model", model, "--n", "4")
    assert done.code == 1 and len(done.err) == 1 and says in done.stderr
    assert _runs(tmp_path) == []


def test_a_rejected_key_fails_at_preflight_and_the_right_key_runs(
    mindloop: Callable[..., CliRun], tmp_path: Path
) -> None:
    with FakeChatServer(api_key="right") as server:
        base = ("bench", "run", "tomi", *MODEL, "--base-url", server.base_url, "--n", "3")
        wrong = mindloop(tmp_path, *base, env={"OPENAI_API_KEY": "wrong"})
        assert wrong.code == 1 and "refused the API key" in wrong.stderr and "OPENAI_API_KEY" in wrong.stderr
        assert len(wrong.err) == 1 and server.requests == 0 and _runs(tmp_path) == []
        # the echo server's replies name no choice: without format retries, one request per question
        right = mindloop(tmp_path, *base, "--json", "--format-retries", "0", env={"OPENAI_API_KEY": "right"})
        assert right.code == 0, right.stderr
        assert server.requests == 3 and json.loads(right.out)["n_completed"] == 3


def test_models_not_served_falls_back_to_one_tiny_chat_call(
    mindloop: Callable[..., CliRun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mindloop.models import fake_server

    monkeypatch.setattr(fake_server._Handler, "do_GET", lambda self: self._send_error(404, "no /models here"))
    with FakeChatServer() as server:
        args = ("--base-url", server.base_url, "--n", "2", "--format-retries", "0", "--json")  # echoes name no choice
        done = mindloop(tmp_path, "bench", "run", "tomi", *MODEL, *args)
        assert done.code == 0, done.stderr
        assert server.requests == 3 and server.bodies[0]["max_tokens"] == 1  # the ping, then the two samples


def _statuses(path: Path) -> dict[str, int]:
    try:
        with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=5) as db:
            return dict(db.execute("SELECT status, COUNT(*) FROM samples GROUP BY status").fetchall())
    except sqlite3.OperationalError:
        return {}


def _serve(port: int = 0) -> tuple[subprocess.Popen[str], int]:
    """A fake server in a process of its own (one a test can kill), on ``port`` (0: one the system picks, so no
    other test can hold it); returns the process and its port, once it listens."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mindloop.models.fake_server", "--port", str(port), "--latency", "0.03"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    url = proc.stdout.readline()
    assert url.startswith("http://127.0.0.1:"), url  # listening
    return proc, int(url.removeprefix("http://127.0.0.1:").split("/")[0])


@pytest.mark.boundary  # a model server's process killed mid-run
def test_the_server_dies_mid_run_the_breaker_stops_it_and_resume_finishes_it(
    mindloop: Callable[..., CliRun], tmp_path: Path
) -> None:
    n = 80
    with FakeChatServer(port=0) as clean_server:  # the same replies (echo) from an undisturbed server
        opts = ModelOptions(base_url=clean_server.base_url, cache="off")
        with RunStore(tmp_path / "clean.sqlite") as store:
            request = RunRequest("tomi", n=n, agent="model", model="openai/fake", model_options=opts)
            expected = run_benchmark(request, store=store, progress=False).to_json()

    home, store_path = tmp_path / "home", tmp_path / "home" / "runs.sqlite"
    server, port = _serve()
    url = f"http://127.0.0.1:{port}/v1"
    args = ["bench", "run", "tomi", *MODEL, "--base-url", url, "--n", str(n), "--concurrency", "2"]

    def six_finished() -> bool:
        return sum(v for k, v in _statuses(store_path).items() if k != "pending") >= 6

    def kill_server() -> None:
        server.send_signal(signal.SIGKILL)
        server.wait()

    try:
        with acting_when(six_finished, kill_server) as killed:
            run = mindloop(home, *args, "--retries", "1", "--breaker", "3")
    finally:
        server.kill()
        server.wait()
    assert killed.is_set(), run  # the server died under the run, not after it
    (run_id,) = _runs(home)
    assert run.code == 1, run.err[-20:]
    assert "stopped:" in run.stderr and "could not get an answer" in run.stderr and f"--resume {run_id}" in run.stderr
    counts = _statuses(store_path)
    assert counts.get("pending", 0) > 0 and sum(counts.values()) == n
    with RunStore(store_path, readonly=True) as store:
        failed = [r for r in store.records(run_id) if r.status == "failed"]
    assert not any("ModelUnavailableError" in (r.error or "") for r in failed)  # outage samples went back to pending

    server, _ = _serve(port)  # back on its port: the run's stored base URL
    try:
        resumed = mindloop(home, "bench", "run", "tomi", "--resume", run_id, "--json")
        assert resumed.code == 0, resumed.stderr
        summary = json.loads(resumed.out)
        assert summary["n_completed"] == n and summary["tokens"]["calls"] >= counts["pending"]
        assert summary["metrics"] == expected["metrics"] and summary["n_failed"] == expected["n_failed"]

        retried = mindloop(home, "bench", "run", "tomi", "--resume", run_id, "--retry-failed", "--json")
        assert retried.code == 0, retried.stderr
        again = json.loads(retried.out)
        assert again["metrics"] == expected["metrics"] and again["n_completed"] == n
        with RunStore(store_path, readonly=True) as store:
            history = store.history(run_id)
            records = {r.index: r for r in store.records(run_id)}
        reran = sorted(history)
        assert len(reran) == summary["n_failed"] + summary["n_bugs"]  # each failed sample ran again, once more
        for idx in reran:
            (earlier,) = history[idx]
            assert earlier["status"] == "failed" and earlier["error"] == records[idx].error  # same echo, same failure
            assert earlier["calls"] and records[idx].calls
    finally:
        server.kill()
        server.wait()

"""Model outages through real subprocesses and a real local server: pre-flight, the circuit breaker, --resume
after the server is back, and --retry-failed keeping each sample's earlier attempts."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer


def _cli(home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ, MINDLOOP_HOME=str(home), COLUMNS="200", **(env or {}))
    code = "import sys\nfrom mindloop.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    return subprocess.run(
        [sys.executable, "-c", code, *args], env=full, capture_output=True, text=True, timeout=300, check=False
    )


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


def test_nothing_listening_fails_at_preflight_in_one_line_before_a_run_is_recorded(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"
    done = _cli(tmp_path, "bench", "run", "tomi", *MODEL, "--base-url", url, "--n", "40")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "pre-flight" in lines[0] and f"{url}/models" in lines[0]
    assert _runs(tmp_path) == []


@pytest.mark.parametrize("url", ["notaurl", "http://", "ftp://host/v1", "http://host:port/v1"])
def test_an_invalid_base_url_is_refused_before_anything_runs(tmp_path: Path, url: str) -> None:
    done = _cli(tmp_path, "bench", "run", "tomi", *MODEL, "--base-url", url, "--n", "4")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and repr(url) in done.stderr
    assert _runs(tmp_path) == []


@pytest.mark.parametrize(
    ("model", "says"),
    [("scripted/ecko", "unknown script 'ecko'; did you mean 'echo'?"), ("scripted/missing.jsonl", "does not exist")],
)
def test_a_bad_scripted_model_fails_in_one_line_before_a_run_is_recorded(tmp_path: Path, model: str, says: str) -> None:
    # the script is read at pre-flight: a typo used to record a run, stopped with every sample pending
    done = _cli(tmp_path, "bench", "run", "tomi", "--model", model, "--n", "4")
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and says in done.stderr
    assert _runs(tmp_path) == []


def test_a_rejected_key_fails_at_preflight_and_the_right_key_runs(tmp_path: Path) -> None:
    with FakeChatServer(api_key="right") as server:
        base = ("bench", "run", "tomi", *MODEL, "--base-url", server.base_url, "--n", "3")
        wrong = _cli(tmp_path, *base, env={"OPENAI_API_KEY": "wrong"})
        assert wrong.returncode == 1 and "refused the API key" in wrong.stderr and "OPENAI_API_KEY" in wrong.stderr
        assert wrong.stderr.count("\n") == 1 and server.requests == 0 and _runs(tmp_path) == []
        # the echo server's replies name no choice: without format retries, one request per question
        right = _cli(tmp_path, *base, "--json", "--format-retries", "0", env={"OPENAI_API_KEY": "right"})
        assert right.returncode == 0, right.stderr
        assert server.requests == 3 and json.loads(right.stdout)["n_completed"] == 3


def test_models_not_served_falls_back_to_one_tiny_chat_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mindloop.models import fake_server

    monkeypatch.setattr(fake_server._Handler, "do_GET", lambda self: self._send_error(404, "no /models here"))
    with FakeChatServer() as server:
        args = ("--base-url", server.base_url, "--n", "2", "--format-retries", "0", "--json")  # echoes name no choice
        done = _cli(tmp_path, "bench", "run", "tomi", *MODEL, *args)
        assert done.returncode == 0, done.stderr
        assert server.requests == 3 and server.bodies[0]["max_tokens"] == 1  # the ping, then the two samples


def _statuses(path: Path) -> dict[str, int]:
    try:
        with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=5) as db:
            return dict(db.execute("SELECT status, COUNT(*) FROM samples GROUP BY status").fetchall())
    except sqlite3.OperationalError:
        return {}


def _serve(port: int) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mindloop.models.fake_server", "--port", str(port), "--latency", "0.03"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().startswith("http://127.0.0.1:")  # listening
    return proc


def test_the_server_dies_mid_run_the_breaker_stops_it_and_resume_finishes_it(tmp_path: Path) -> None:
    n, port = 80, _free_port()
    url = f"http://127.0.0.1:{port}/v1"
    with FakeChatServer(port=0) as clean_server:  # the same replies (echo) from an undisturbed server
        opts = ModelOptions(base_url=clean_server.base_url, cache="off")
        with RunStore(tmp_path / "clean.sqlite") as store:
            request = RunRequest("tomi", n=n, agent="model", model="openai/fake", model_options=opts)
            expected = run_benchmark(request, store=store, progress=False).to_json()

    home, store_path = tmp_path / "home", tmp_path / "home" / "runs.sqlite"
    server = _serve(port)
    env = dict(os.environ, MINDLOOP_HOME=str(home), COLUMNS="200")
    args = ["bench", "run", "tomi", *MODEL, "--base-url", url, "--n", str(n), "--concurrency", "2"]
    code = "import sys\nfrom mindloop.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    run = subprocess.Popen(
        [sys.executable, "-c", code, *args, "--retries", "1", "--breaker", "3"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120  # only against hanging
    while sum(v for k, v in _statuses(store_path).items() if k != "pending") < 6 and time.monotonic() < deadline:
        assert run.poll() is None
        time.sleep(0.02)
    server.send_signal(signal.SIGKILL)
    server.wait()
    _, err = run.communicate(timeout=120)
    (run_id,) = _runs(home)
    assert run.returncode == 1, err[-2000:]
    assert "stopped:" in err and "could not get an answer" in err and f"--resume {run_id}" in err
    counts = _statuses(store_path)
    assert counts.get("pending", 0) > 0 and sum(counts.values()) == n
    with RunStore(store_path, readonly=True) as store:
        failed = [r for r in store.records(run_id) if r.status == "failed"]
    assert not any("ModelUnavailableError" in (r.error or "") for r in failed)  # outage samples went back to pending

    server = _serve(port)
    try:
        resumed = _cli(home, "bench", "run", "tomi", "--resume", run_id, "--json")
        assert resumed.returncode == 0, resumed.stderr
        summary = json.loads(resumed.stdout)
        assert summary["n_completed"] == n and summary["tokens"]["calls"] >= counts["pending"]
        assert summary["metrics"] == expected["metrics"] and summary["n_failed"] == expected["n_failed"]

        retried = _cli(home, "bench", "run", "tomi", "--resume", run_id, "--retry-failed", "--json")
        assert retried.returncode == 0, retried.stderr
        again = json.loads(retried.stdout)
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

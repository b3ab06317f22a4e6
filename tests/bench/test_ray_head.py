"""A suite on a real Ray cluster: a Ray head started in its own process, the suite sent to it with
``--executor ray --ray-address``, and every sample equal to the same suite run locally.

The head is ``ray start --head --block`` from the interpreter's own Ray, on free ports, in a process group of its
own, so the test stops exactly that head at the end, pass or fail: SIGTERM to the ``ray start`` process (which then
stops every process it started), SIGKILL to whatever of its group is left after a grace period. (``ray stop`` would
also stop every other Ray of this user on the machine, such as another test run's.) Its temporary folder is a short
one under ``/tmp`` rather than under ``tmp_path``: Ray puts Unix sockets in it, whose paths may not exceed about
107 characters. Token authentication is turned off for this throw-away local cluster (``RAY_AUTH_MODE=disabled``
for the head and for the client). No wall-clock limit is asserted; the timeouts only keep a stuck head from hanging
CI on a loaded 2-core machine.

The suite is the quick symbolic one without MindPower and OmniToM Stage 1, whose similarity encoders would load
torch in every Ray worker: what is checked is that the work travels to the cluster and back unchanged.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.store import RunStore
from mindloop.bench.suite import runs_of_suite

pytestmark = [pytest.mark.scale, pytest.mark.slow]

ONLY = "tomi,hitom,claw,omnitom-stage2,cwah,tdw-mat,tos-active,tos-passive"
BIN = Path(sys.executable).parent
START_TIMEOUT_S = 240.0
RUN_TIMEOUT_S = 1200.0


@dataclass(frozen=True)
class Head:
    """A running Ray head: its address and its temporary folder."""

    address: str
    temp_dir: Path


def _free_ports(k: int) -> list[int]:
    socks = []
    try:
        for _ in range(k):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            socks.append(sock)
        return [s.getsockname()[1] for s in socks]
    finally:
        for sock in socks:
            sock.close()


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0", **extra}


def _stop(proc: subprocess.Popen[bytes], temp_dir: Path) -> None:
    """Stop the head this test started, and only it: its ``ray start`` process, then what is left of its group,
    then any process still naming its temporary folder (a worker that left the group)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=60)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=30)
    for pid in _processes_naming(temp_dir):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _processes_naming(folder: Path) -> list[int]:
    """The processes whose command line names ``folder`` (the head's own temporary folder)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(folder) in cmdline:
            pids.append(int(entry.name))
    return pids


@pytest.fixture
def ray_head(tmp_path: Path) -> Iterator[Head]:
    """A Ray head on free ports in a separate process, stopped at the end whatever happened."""
    temp_dir = Path(tempfile.mkdtemp(prefix="mlray-", dir="/tmp"))
    gcs, *ports = _free_ports(8)
    flags = {  # every port a head opens, so it never meets another Ray on this machine
        "--dashboard-port": ports[0],
        "--dashboard-agent-listen-port": ports[1],
        "--dashboard-agent-grpc-port": ports[2],
        "--metrics-export-port": ports[3],
        "--runtime-env-agent-port": ports[4],
        "--node-manager-port": ports[5],
        "--object-manager-port": ports[6],
    }
    command = [
        str(BIN / "ray"), "start", "--head", "--block", "--port", str(gcs), "--node-ip-address", "127.0.0.1",
        "--num-cpus", "2", "--include-dashboard", "false", "--disable-usage-stats", "--temp-dir", str(temp_dir),
        *(f"{flag}={port}" for flag, port in flags.items()),
    ]  # fmt: skip
    log = tmp_path / "ray-head.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=_env(), start_new_session=True)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"ray start --head exited {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", gcs), timeout=2):
                break
            if time.monotonic() > deadline:
                pytest.fail(f"the Ray head did not listen on {gcs}:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)
        yield Head(f"127.0.0.1:{gcs}", temp_dir)
    finally:
        _stop(proc, temp_dir)
        shutil.rmtree(temp_dir, ignore_errors=True)


def _suite(home: Path, *args: str) -> str:
    """``mindloop suite run --only ONLY ... --json`` in ``home``; returns the suite id."""
    import json

    proc = subprocess.run(
        [str(BIN / "mindloop"), "suite", "run", "--only", ONLY, "--concurrency", "4", "--json", *args],
        capture_output=True,
        text=True,
        env=_env(MINDLOOP_HOME=str(home)),
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = json.loads(proc.stdout)
    assert out["complete"] and not out["interrupted"], out
    return str(out["suite_id"])


def _samples(store: RunStore, run_id: str) -> list[tuple[str, str, Any, Any, str | None]]:
    return [(r.sample.id, r.status, r.output, r.scores, r.error) for r in store.records(run_id, include_pending=True)]


def test_a_suite_on_a_real_ray_head_equals_the_local_suite_sample_for_sample(ray_head: Head, tmp_path: Path) -> None:
    home = tmp_path / "home"
    on_ray = _suite(home, "--executor", "ray", "--ray-address", ray_head.address)
    local = _suite(home)
    workers = list(ray_head.temp_dir.glob("session_*/logs/worker-*"))
    assert workers, "no Ray worker ran on the head: the suite did not reach the cluster"
    with RunStore(home / "runs.sqlite", readonly=True) as store:
        assert store.suite(on_ray).config["executor"] == "ray"
        pairs = list(zip(runs_of_suite(store, on_ray), runs_of_suite(store, local), strict=True))
        assert [store.run(r).benchmark for r, _ in pairs] == ONLY.split(",")
        for ray_run, local_run in pairs:
            assert store.run(ray_run).config["executor"] == "ray" and store.run(local_run).config["executor"] == "local"
            samples = _samples(store, ray_run)
            assert samples == _samples(store, local_run), store.run(ray_run).benchmark
            assert samples and all(status == "done" for _, status, *_ in samples)

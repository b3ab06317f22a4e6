"""Real Ray nodes for tests: a head (``ray start --head``) and more nodes (``ray start --address``) on this machine,
in Ray's default mode (token authentication on), and ``mindloop`` run against them as a user runs it.

Token mode as a user meets it: every Ray process and client here runs with ``HOME`` set to a folder of the test's
own whose ``.ray/auth_token`` was made by ``ray get-auth-token --generate`` (what Ray leaves behind after any local
``ray.init()``), with ``RAY_AUTH_MODE`` unset; ``ray start`` then turns token authentication on by itself, and
mindloop must find the token as Ray's tools do. The user's own ``~/.ray`` is never touched.

Each node is ``ray start --block`` from the interpreter's own Ray, on free ports, with a temporary folder of its own,
in a process group of its own, so each test class stops exactly the nodes it started, pass or fail: SIGTERM to the
``ray start`` process (which then stops every process it started), SIGKILL to whatever of its group is left after
a grace period, then to any process still naming its temporary folder. (``ray stop`` would also stop every other
Ray of this user on the machine, such as another test run's.) The temporary folders are short ones under ``/tmp``
rather than under ``tmp_path``: Ray puts Unix sockets in them, whose paths may not exceed about 107 characters.
No wall-clock limit is asserted; the timeouts only keep a stuck cluster from hanging CI on a loaded 2-core machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.store import RunStore

BIN = Path(sys.executable).parent
START_TIMEOUT_S = 240.0
RUN_TIMEOUT_S = 1200.0
RAY_ENV = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS")
"""Variables of the test's own environment that would change how Ray authenticates or where it connects."""


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


def _env(home: Path, **extra: str) -> dict[str, str]:
    """Ray's default mode: ``RAY_AUTH_MODE`` unset, the token only in ``HOME/.ray/auth_token``."""
    env = {k: v for k, v in os.environ.items() if k not in RAY_ENV}
    return {**env, "HOME": str(home), "RAY_USAGE_STATS_ENABLED": "0", **extra}


@pytest.fixture(scope="module")
def ray_home() -> Iterator[Path]:
    """A home folder with a Ray token made by Ray's own command, as a user's is after a first ``ray.init()``."""
    home = Path(tempfile.mkdtemp(prefix="mlrayhome-", dir="/tmp"))
    try:
        made = subprocess.run(
            [str(BIN / "ray"), "get-auth-token", "--generate"],
            capture_output=True,
            text=True,
            env=_env(home),
            timeout=START_TIMEOUT_S,
            check=False,
        )
        assert made.returncode == 0, made.stderr[-2000:]
        assert (home / ".ray" / "auth_token").read_text().strip() == made.stdout.strip()
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


@dataclass
class _Node:
    """One ``ray start --block`` process: its temporary folder, its log and, for a head, its address."""

    proc: subprocess.Popen[bytes]
    temp_dir: Path
    log: Path
    address: str = ""
    others: list[int] = field(default_factory=list)

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        """Stop this node and only it: its ``ray start`` process, then what is left of its group and of the
        processes it started, then any process still naming its temporary folder."""
        started = _descendants(self.proc.pid)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=60)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=30)
        left = [pid for pid, since in started.items() if _stat(str(pid), 19) == since]
        for pid in {*_descendants(self.proc.pid), *left, *_processes_naming(self.temp_dir)}:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.temp_dir, ignore_errors=True)


def _descendants(root: int) -> dict[int, str]:
    """The processes started, directly or not, by process ``root`` that are still running, each with its start
    time (so that a pid the system has given to another process since is never taken for one of them)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        ppid = _stat(entry.name, 1)
        if ppid is not None:
            children.setdefault(int(ppid), []).append(int(entry.name))
    found: dict[int, str] = {}
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            started = _stat(str(child), 19)
            if child not in found and started is not None:
                found[child] = started
                todo.append(child)
    return found


def _stat(pid: str, field: int) -> str | None:
    """Field ``field`` after the command name in ``/proc/PID/stat`` (1: the parent's pid, 19: the start time)."""
    if not pid.isdigit():
        return None
    try:
        return (Path("/proc") / pid / "stat").read_text().rsplit(")", 1)[1].split()[field]
    except (OSError, IndexError):
        return None


def _processes_naming(folder: Path) -> list[int]:
    """The processes whose command line names ``folder`` (a node's own temporary folder)."""
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


def _start(home: Path, logs: Path, *, cpus: int, head_address: str | None = None) -> _Node:
    """``ray start --head`` (``head_address`` ``None``) or ``ray start --address HEAD``, every port its own."""
    temp_dir = Path(tempfile.mkdtemp(prefix="mlray-", dir="/tmp"))
    gcs, *ports = _free_ports(8)
    flags = {  # every port a node opens, so it never meets another Ray on this machine
        "--dashboard-agent-listen-port": ports[1],
        "--dashboard-agent-grpc-port": ports[2],
        "--metrics-export-port": ports[3],
        "--runtime-env-agent-port": ports[4],
        "--node-manager-port": ports[5],
        "--object-manager-port": ports[6],
    }
    if head_address is None:
        where = ["--head", "--port", str(gcs), "--include-dashboard", "false", f"--dashboard-port={ports[0]}"]
    else:
        where = ["--address", head_address]
    command = [
        str(BIN / "ray"), "start", *where, "--block", "--node-ip-address", "127.0.0.1", "--num-cpus", str(cpus),
        "--disable-usage-stats", "--temp-dir", str(temp_dir), *(f"{flag}={port}" for flag, port in flags.items()),
    ]  # fmt: skip
    # as docs/suite.md starts them: `ray start --address` looks for the token only when told to
    env = _env(home) if head_address is None else _env(home, RAY_AUTH_MODE="token")
    log = logs / f"ray-{temp_dir.name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    return _Node(proc, temp_dir, log, address=f"127.0.0.1:{gcs}" if head_address is None else "")


def _started(node: _Node) -> bool:
    """Wait until ``ray start`` says the node runs (``True``) or exits (``False``: it failed to start)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if "Ray runtime started" in node.log.read_text(errors="replace"):
            return True
        if node.proc.poll() is not None:
            return False
        if time.monotonic() > deadline:
            pytest.fail(f"a Ray node did not start within {START_TIMEOUT_S:.0f} s:\n{node.tail()}")
        time.sleep(0.5)


def _start_node(started: list[_Node], home: Path, logs: Path, *, cpus: int, head_address: str | None = None) -> _Node:
    """Start a node and wait until it runs. On a loaded machine Ray may give up starting one (its raylet waits a
    fixed 15 s for its agents), so a node that exits while starting is started again, twice at most."""
    for _ in range(3):
        node = _start(home, logs, cpus=cpus, head_address=head_address)
        started.append(node)
        if _started(node):
            return node
        node.stop()
        started.remove(node)
    pytest.fail(f"ray start exited {node.proc.returncode} three times:\n{node.tail()}")


_NODES_SCRIPT = """
import json, sys, time
import ray
from mindloop.bench.ray_cluster import connect
connect(sys.argv[1])
while True:
    alive = sorted(n["NodeID"] for n in ray.nodes() if n["Alive"])
    if len(alive) >= int(sys.argv[2]):
        break
    time.sleep(0.5)
print(json.dumps(alive))
"""


def _alive_nodes(home: Path, address: str, want: int, nodes: list[_Node]) -> list[str]:
    """The ids of the cluster's live nodes, once there are ``want`` of them (asked as a client, with the token
    found the way mindloop finds it)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _NODES_SCRIPT, address, str(want)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(home),
    )
    deadline = time.monotonic() + START_TIMEOUT_S
    while proc.poll() is None:
        gone = [n for n in nodes if n.proc.poll() is not None]
        if gone or time.monotonic() > deadline:
            proc.kill()
            proc.communicate()
            logs = "\n".join(n.tail() for n in nodes)
            pytest.fail(f"the cluster at {address} did not reach {want} live nodes:\n{logs}")
        time.sleep(0.5)
    out, err = proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    ids: list[str] = json.loads(out)
    return ids


@dataclass(frozen=True)
class Cluster:
    """A running cluster: the head's address, the ids of its live nodes, the home folder holding its token."""

    address: str
    node_ids: list[str]
    home: Path
    head_temp_dir: Path


@contextlib.contextmanager
def _cluster(home: Path, logs: Path, *, nodes: int) -> Iterator[Cluster]:
    """A head with ``3 - nodes`` CPUs, or with a second node (one CPU each), stopped at the end whatever
    happened."""
    started: list[_Node] = []
    try:
        head = _start_node(started, home, logs, cpus=2 if nodes == 1 else 1)
        if nodes == 2:
            _start_node(started, home, logs, cpus=1, head_address=head.address)
        ids = _alive_nodes(home, head.address, nodes, started)
        assert len(ids) == nodes
        yield Cluster(head.address, ids, home, head.temp_dir)
    finally:
        for node in reversed(started):
            node.stop()


def _mindloop(home: Path, store_home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "mindloop"), *args],
        capture_output=True,
        text=True,
        env=_env(home, MINDLOOP_HOME=str(store_home), **env),
        timeout=RUN_TIMEOUT_S,
        check=False,
    )


def _samples(store: RunStore, run_id: str) -> list[tuple[str, str, Any, Any, str | None]]:
    return [(r.sample.id, r.status, r.output, r.scores, r.error) for r in store.records(run_id, include_pending=True)]

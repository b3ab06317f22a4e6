"""Suites on real Ray clusters in Ray's default mode (token authentication on), started the way docs/suite.md
starts them: a head (``ray start --head``), and a head plus a second node (``ray start --address``) on this
machine. What is checked: a suite sent with ``--executor ray --ray-address`` equals the same suite run locally,
sample for sample; on two nodes the samples run on both (each sample's node is in the store and in the report);
an interrupted suite resumed on the cluster loses nothing; a client that cannot reach the cluster or lacks its
token gets one line naming the address and the fix, and nothing is recorded.

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

The suites are symbolic ones without MindPower and OmniToM Stage 1, whose similarity encoders would load torch in
every Ray worker, and, for the interruption, a model suite against the fake OpenAI server of
:mod:`mindloop.models.fake_server`, which holds every request after the first few until the suite has been cut, so
that samples are in flight on the cluster when it is interrupted.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cli_run import Cli

from mindloop.bench.store import RunStore
from mindloop.bench.suite import runs_of_suite
from mindloop.models.fake_server import FakeChatServer, echo_reply

pytestmark = [pytest.mark.scale, pytest.mark.slow, pytest.mark.boundary]  # real Ray nodes, started with `ray start`

ONLY = "tomi,hitom,claw,omnitom-stage2,cwah,tdw-mat,tos-active,tos-passive"
SPREAD_ONLY = "tomi,cwah,tos-passive"
BIN = Path(sys.executable).parent
START_TIMEOUT_S = 240.0
RUN_TIMEOUT_S = 1200.0
FIRST_ANSWERS = 6
"""Model requests the fake server answers at once in the interrupted suite; later ones wait until it is cut."""
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


def _suite(home: Path, store_home: Path, *args: str) -> str:
    """``mindloop suite run ... --json``; returns the suite id."""
    proc = _mindloop(home, store_home, "suite", "run", "--concurrency", "4", "--json", *args)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = json.loads(proc.stdout)
    assert out["complete"] and not out["interrupted"], out
    return str(out["suite_id"])


def _local_suite(cli: Cli, store_home: Path, *args: str) -> str:
    """The same ``mindloop suite run ... --json`` on the local executor, in this process (no Ray in it); returns the
    suite id."""
    run = cli("suite", "run", "--concurrency", "4", "--json", *args, home=store_home)
    assert run.code == 0, run.stderr[-4000:]
    out = json.loads(run.out)
    assert out["complete"] and not out["interrupted"], out
    return str(out["suite_id"])


def _samples(store: RunStore, run_id: str) -> list[tuple[str, str, Any, Any, str | None]]:
    return [(r.sample.id, r.status, r.output, r.scores, r.error) for r in store.records(run_id, include_pending=True)]


def _same_suites(store: RunStore, on_ray: str, local: str, benchmarks: list[str]) -> list[str]:
    """Check the two suites equal sample for sample; returns the Ray suite's run ids."""
    assert store.suite(on_ray).config["executor"] == "ray"
    pairs = list(zip(runs_of_suite(store, on_ray), runs_of_suite(store, local), strict=True))
    assert [store.run(r).benchmark for r, _ in pairs] == benchmarks
    for ray_run, local_run in pairs:
        assert store.run(ray_run).config["executor"] == "ray" and store.run(local_run).config["executor"] == "local"
        samples = _samples(store, ray_run)
        assert samples == _samples(store, local_run), store.run(ray_run).benchmark
        assert samples and all(status == "done" for _, status, *_ in samples)
        assert all(r.node is None for r in store.records(local_run))  # the local executor names no node
    return [r for r, _ in pairs]


def _node_counts(store: RunStore, runs: list[str]) -> Counter[str | None]:
    return Counter(r.node for run in runs for r in store.records(run))


def _one_line(proc: subprocess.CompletedProcess[str], start: str) -> str:
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-3000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(start), proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    return lines[0]


def _nothing_recorded(store_home: Path) -> None:
    path = store_home / "runs.sqlite"
    if path.exists():
        with RunStore(path, readonly=True) as store:
            assert store.runs() == [] and store.suites() == []


# -- connecting ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["bench", "suite"])
def test_an_address_where_nothing_listens_is_one_line_naming_it(tmp_path: Path, command: str) -> None:
    (port,) = _free_ports(1)
    address = f"127.0.0.1:{port}"
    args = ["bench", "run", "cwah", "--n", "2"] if command == "bench" else ["suite", "run", "--only", "tomi"]
    proc = _mindloop(tmp_path, tmp_path / "home", *args, "--executor", "ray", "--ray-address", address)
    line = _one_line(proc, f"mindloop: error: cannot reach the Ray cluster at {address}: nothing listens there")
    assert f"ray start --head --port {port}" in line
    _nothing_recorded(tmp_path / "home")


def test_a_version_mismatch_as_ray_reports_it_is_one_line_naming_both_versions() -> None:
    from ray._private.utils import check_version_info

    from mindloop.bench.ray_cluster import explain

    cluster = {"ray_version": "0.0.1", "python_version": "3.0.0"}
    with pytest.raises(RuntimeError) as raised:  # Ray's own check, given a cluster of another version
        check_version_info(cluster, "127.0.0.1:6379")
    error = explain("127.0.0.1:6379", None, raised.value)
    text = str(error)
    assert "\n" not in text and text.startswith("cannot use the Ray cluster at 127.0.0.1:6379: its Ray or Python")
    assert "Ray: 0.0.1" in text and "Python: 3.0.0" in text and "install the same Ray and Python" in text


# -- one head -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="class")
def head(ray_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One head with two CPUs, for the tests of one class (stopped when they are done)."""
    with _cluster(ray_home, tmp_path_factory.mktemp("logs"), nodes=1) as cluster:
        yield cluster


@pytest.fixture(scope="class")
def pair(ray_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A head and a second node, one CPU each, for the tests of one class (stopped when they are done)."""
    with _cluster(ray_home, tmp_path_factory.mktemp("logs"), nodes=2) as cluster:
        yield cluster


class TestOneHead:
    """One head with two CPUs, as the single-machine block of docs/suite.md starts it."""

    def test_a_suite_on_a_real_ray_head_equals_the_local_suite_sample_for_sample(
        self, head: Cluster, cli: Cli, tmp_path: Path
    ) -> None:
        store_home = tmp_path / "home"
        on_ray = _suite(head.home, store_home, "--only", ONLY, "--executor", "ray", "--ray-address", head.address)
        local = _local_suite(cli, store_home, "--only", ONLY)
        workers = list(head.head_temp_dir.glob("session_*/logs/worker-*"))
        assert workers, "no Ray worker ran on the head: the suite did not reach the cluster"
        with RunStore(store_home / "runs.sqlite", readonly=True) as store:
            runs = _same_suites(store, on_ray, local, ONLY.split(","))
            assert set(_node_counts(store, runs)) == set(head.node_ids)  # every sample names the one node

    def test_a_client_without_the_token_is_told_how_to_get_it(self, head: Cluster, tmp_path: Path) -> None:
        bare = tmp_path / "bare-home"  # no ~/.ray/auth_token: a client on another machine, or another user
        bare.mkdir()
        proc = _mindloop(
            bare, tmp_path / "home", "bench", "run", "cwah", "--n", "2", "--executor", "ray", "--ray-address",
            head.address,
        )  # fmt: skip
        line = _one_line(proc, f"mindloop: error: cannot connect to the Ray cluster at {head.address}: it asks")
        assert "this client has none" in line and "RAY_AUTH_TOKEN=$(ray get-auth-token)" in line
        _nothing_recorded(tmp_path / "home")

    def test_a_wrong_token_is_one_line_naming_the_address_and_the_fix(self, head: Cluster, tmp_path: Path) -> None:
        proc = _mindloop(
            head.home, tmp_path / "home", "suite", "run", "--only", "tomi", "--executor", "ray", "--ray-address",
            head.address, RAY_AUTH_TOKEN="0" * 32,
        )  # fmt: skip
        line = _one_line(proc, f"mindloop: error: cannot connect to the Ray cluster at {head.address}: it refused")
        assert "(from RAY_AUTH_TOKEN)" in line and "RAY_AUTH_TOKEN=$(ray get-auth-token)" in line
        print(line)  # the line itself, for the record (pytest -s)
        _nothing_recorded(tmp_path / "home")


# -- a head and a second node -------------------------------------------------------------------------------------


class TestTwoNodes:
    """A head and a second node (``ray start --address``), one CPU each, so that samples run on both."""

    def test_a_suite_runs_on_both_nodes_and_equals_the_local_suite(
        self, pair: Cluster, cli: Cli, tmp_path: Path
    ) -> None:
        store_home = tmp_path / "home"
        cap = ("--only", SPREAD_ONLY, "--max-n", "6")
        on_ray = _suite(pair.home, store_home, *cap, "--executor", "ray", "--ray-address", pair.address)
        local = _local_suite(cli, store_home, *cap)
        with RunStore(store_home / "runs.sqlite", readonly=True) as store:
            runs = _same_suites(store, on_ray, local, SPREAD_ONLY.split(","))
            counts = _node_counts(store, runs)
        print(f"samples per node: {dict(counts)}")
        assert set(counts) == set(pair.node_ids), counts  # every sample names a node, and both nodes ran some
        out = tmp_path / "report.html"
        assert cli("report", runs[0], "-o", out, home=store_home).code == 0
        html = out.read_text()
        assert "Ray node" in html
        with RunStore(store_home / "runs.sqlite", readonly=True) as store:
            shown = {r.node for r in store.records(runs[0])}
        assert shown and all(node is not None and node in html for node in shown)

    def test_an_interrupted_suite_resumes_on_the_cluster_and_loses_nothing(
        self, pair: Cluster, cli: Cli, tmp_path: Path
    ) -> None:
        store_home = tmp_path / "home"
        n = 24  # at most: the quick preset's n when smaller
        gate = threading.Event()  # closed: requests after the first few wait, so samples are in flight at the cut
        answered = itertools.count()

        def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
            if next(answered) >= FIRST_ANSWERS:
                gate.wait(RUN_TIMEOUT_S)
            return echo_reply(messages, body)

        with FakeChatServer(reply, latency_s=0.05) as server:
            model = ["--model", "openai/fake", "--base-url", server.base_url, "--cache", "off"]
            args = ["suite", "run", "--only", "tomi", "--max-n", str(n), *model, "--concurrency", "4", "--json"]
            cluster = ["--executor", "ray", "--ray-address", pair.address]
            proc = subprocess.Popen(
                [str(BIN / "mindloop"), *args, *cluster],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=_env(pair.home, MINDLOOP_HOME=str(store_home)),
            )
            try:
                deadline = time.monotonic() + RUN_TIMEOUT_S
                while _finished(store_home / "runs.sqlite") < 1 and proc.poll() is None:
                    assert time.monotonic() < deadline, "no sample finished on the cluster"
                    time.sleep(0.05)
                proc.send_signal(signal.SIGINT)
                out, err = proc.communicate(timeout=RUN_TIMEOUT_S)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                gate.set()  # the cut samples' requests are answered now, to a client that has gone
            assert proc.returncode == 1 and out.strip(), (proc.returncode, out, err[-3000:])
            cut = json.loads(out)
            assert cut["interrupted"] and not cut["complete"], cut
            suite_id = cut["suite_id"]
            assert f"finish it with: mindloop suite run --resume {suite_id}" in err or (
                f"finish with: mindloop suite run --resume {suite_id}" in err
            ), err[-3000:]
            with RunStore(store_home / "runs.sqlite", readonly=True) as store:
                (run_id,) = runs_of_suite(store, suite_id)
                before = {r.sample.id: r for r in store.records(run_id)}
                pending = len(store.records(run_id, include_pending=True)) - len(before)
            assert before and pending > 0, (len(before), pending)
            asked = server.requests

            resumed = _mindloop(
                pair.home, store_home, "suite", "run", "--resume", suite_id, "--base-url", server.base_url, *cluster,
                "--concurrency", "4", "--json",
            )  # fmt: skip
            assert resumed.returncode == 0, resumed.stderr[-3000:]
            assert json.loads(resumed.stdout)["complete"]
            assert server.requests - asked >= pending  # the pending samples were asked (again, if cut in flight)
            local = _local_suite(cli, store_home, "--only", "tomi", "--max-n", str(n), *model)
        with RunStore(store_home / "runs.sqlite", readonly=True) as store:
            (local_run,) = runs_of_suite(store, local)
            after = store.records(run_id)  # finished samples (echoed replies mostly fail to parse: failed, kept)
            assert len(after) == store.run(run_id).n and all(r.status in ("done", "failed") for r in after)
            assert _samples(store, run_id) == _samples(store, local_run)  # nothing lost, nothing different
            assert all(before[r.sample.id] == r for r in after if r.sample.id in before)  # kept as they were
            assert {r.node for r in after} <= set(pair.node_ids) and None not in {r.node for r in after}


def _finished(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(db)) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM samples WHERE status != 'pending'").fetchone()[0])
    except sqlite3.OperationalError:
        return 0

"""Suites on real Ray clusters in Ray's default mode (token authentication on), started the way docs/suite.md
starts them: a head (``ray start --head``), and a head plus a second node (``ray start --address``) on this
machine. What is checked: a suite sent with ``--executor ray --ray-address`` equals the same suite run locally,
sample for sample; on two nodes the samples run on both (each sample's node is in the store and in the report);
an interrupted suite resumed on the cluster loses nothing; a client that cannot reach the cluster or lacks its
token gets one line naming the address and the fix, and nothing is recorded.

The nodes and the token home come from :mod:`ray_nodes` (``tests/support``), shared with
``tests/reliability/test_ray_faults.py``.

The suites are symbolic ones without MindPower and OmniToM Stage 1, whose similarity encoders would load torch in
every Ray worker, and, for the interruption, a model suite against the fake OpenAI server of
:mod:`mindloop.models.fake_server`, which holds every request after the first few until the suite has been cut, so
that samples are in flight on the cluster when it is interrupted.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import signal
import sqlite3
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_run import Cli
from ray_nodes import (  # tests/support
    BIN,
    RUN_TIMEOUT_S,
    Cluster,
    _cluster,
    _env,
    _free_ports,
    _mindloop,
    _samples,
    ray_home,  # noqa: F401 - the fixture the heads below are started in
)

from mindloop.bench.store import RunStore
from mindloop.bench.suite import runs_of_suite
from mindloop.models.fake_server import FakeChatServer, echo_reply

pytestmark = [pytest.mark.scale, pytest.mark.slow, pytest.mark.boundary]  # real Ray nodes, started with `ray start`

ONLY = "tomi,hitom,claw,omnitom-stage2,cwah,tdw-mat,tos-active,tos-passive"
SPREAD_ONLY = "tomi,cwah,tos-passive"
FIRST_ANSWERS = 6
"""Model requests the fake server answers at once in the interrupted suite; later ones wait until it is cut."""


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
def head(ray_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:  # noqa: F811
    """One head with two CPUs, for the tests of one class (stopped when they are done)."""
    with _cluster(ray_home, tmp_path_factory.mktemp("logs"), nodes=1) as cluster:
        yield cluster


@pytest.fixture(scope="class")
def pair(ray_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:  # noqa: F811
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

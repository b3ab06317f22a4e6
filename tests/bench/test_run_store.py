"""The run store keeps every sample, finishes each at most once, and refuses two live runners on one run."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from mindloop.bench.api import Sample
from mindloop.bench.store import RunStore, SampleResult
from mindloop.errors import InvalidArgumentError, MindloopError


def _samples(k: int) -> list[Sample]:
    return [Sample(f"s{i}", {"x": i, "text": "naïve ✓"}, group="even" if i % 2 == 0 else "odd") for i in range(k)]


def _result(index: int, status: str = "done") -> SampleResult:
    return SampleResult(index, status, {"y": index * 2}, {"correct": 1.0}, None if status == "done" else "bad", [], 0.5)


def _new(store: RunStore, k: int = 5) -> str:
    return store.create_run(
        benchmark="toy", agent="a", model=None, config={"seed": 1}, samples=_samples(k), version="t"
    )


def test_a_new_run_has_every_sample_pending_in_order(tmp_path: Path) -> None:
    with RunStore(tmp_path / "r.sqlite") as store:
        run_id = _new(store)
        assert run_id.startswith("toy-")
        assert [i for i, _ in store.pending(run_id)] == [0, 1, 2, 3, 4]
        assert store.pending(run_id)[3][1] == Sample("s3", {"x": 3, "text": "naïve ✓"}, "odd")
        info = store.run(run_id)
        assert (info.n, info.n_completed, info.config) == (5, 0, {"seed": 1})


def test_a_sample_is_finished_once_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with RunStore(path) as store:
        run_id = _new(store)
        assert store.finish(run_id, [_result(1), _result(3, "failed")]) == 2
        assert store.finish(run_id, [_result(1)]) == 0  # already finished: never written twice
    with RunStore(path) as store:
        assert [i for i, _ in store.pending(run_id)] == [0, 2, 4]
        records = store.records(run_id)
        assert [(r.index, r.status, r.error) for r in records] == [(1, "done", None), (3, "failed", "bad")]
        assert records[0].output == {"y": 2}
        info = store.run(run_id)
        assert (info.n_done, info.n_failed, info.n_completed) == (1, 1, 2)
        assert len(store.records(run_id, include_pending=True)) == 5


def test_a_pending_sample_is_run_again_whatever_its_unread_outcome_columns_hold(tmp_path: Path) -> None:
    # only the sample columns of a pending row are read: a resume runs it again, and overwrites the rest
    path = tmp_path / "r.sqlite"
    with RunStore(path) as store:
        run_id = _new(store, 3)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE samples SET output = '{truncated', scores = 'x', calls = '[' WHERE idx = 1")
    with RunStore(path) as store:
        assert store.pending(run_id) == [(i, s) for i, s in enumerate(_samples(3))]
        assert store.finish(run_id, [_result(1)]) == 1
        assert store.records(run_id)[0].output == {"y": 2}


def test_duplicate_sample_ids_are_refused(tmp_path: Path) -> None:
    with RunStore(tmp_path / "r.sqlite") as store, pytest.raises(InvalidArgumentError, match="'s0' twice"):
        store.create_run(
            benchmark="toy", agent="a", model=None, config={}, samples=[Sample("s0", {}), Sample("s0", {})], version="t"
        )


def test_unknown_run_names_recent_ones(tmp_path: Path) -> None:
    with RunStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(InvalidArgumentError, match="no runs recorded yet"):
            store.run("nope")
        run_id = _new(store)
        with pytest.raises(InvalidArgumentError, match=run_id):
            store.run("nope")


def test_runs_are_listed_oldest_first(tmp_path: Path) -> None:
    with RunStore(tmp_path / "r.sqlite") as store:
        ids = [_new(store) for _ in range(3)]
        assert [r.run_id for r in store.runs()] == ids


def test_a_live_owner_blocks_a_second_runner_and_a_dead_one_does_not(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with RunStore(path) as store:
        run_id = _new(store)
    db = sqlite3.connect(path)
    live = f"{socket.gethostname()}:{os.getppid()}"
    db.execute("UPDATE runs SET lock_owner = ?", (live,))
    db.commit()
    with RunStore(path) as store, pytest.raises(InvalidArgumentError, match="being executed"), store.locked(run_id):
        pass
    dead = subprocess.Popen(["true"])  # a process that has ended (and been reaped): its id names no live process
    assert dead.wait(timeout=60) == 0
    db.execute("UPDATE runs SET lock_owner = ?", (f"{socket.gethostname()}:{dead.pid}",))
    db.commit()
    with RunStore(path) as store:
        with store.locked(run_id):
            owner = sqlite3.connect(path).execute("SELECT lock_owner FROM runs").fetchone()[0]
            assert owner == f"{socket.gethostname()}:{os.getpid()}"
        assert sqlite3.connect(path).execute("SELECT lock_owner FROM runs").fetchone()[0] is None


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(MindloopError, match="not a usable mindloop run store"):
        RunStore(path)


def test_the_node_a_sample_ran_on_is_kept_and_an_older_layout_reads_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mindloop.bench.store as store_module

    path = tmp_path / "r.sqlite"
    with RunStore(path) as store:
        run_id = _new(store, 3)
        store.finish(run_id, [replace(_result(0), node="n" * 56), _result(1), replace(_result(2, "failed"), node="m")])
        assert [r.node for r in store.records(run_id)] == ["n" * 56, None, "m"]
        assert store.retry_failed(run_id) == 1
        assert store.history(run_id)[2][0]["node"] == "m"  # the earlier attempt keeps its node
        assert [r.node for r in store.records(run_id, include_pending=True)] == ["n" * 56, None, None]

    old = tmp_path / "layout5.sqlite"  # a store written before layout 6 (the node column)
    run_id = _old_run(old, 5, monkeypatch, [Sample("s0", {"x": 0}), Sample("s1", {"x": 1})])
    with sqlite3.connect(old) as db:  # a sample finished as that layout finished it
        db.execute("UPDATE samples SET status = 'done', output = '{}', scores = '{}', calls = '[]' WHERE idx = 0")
    with RunStore(old, readonly=True) as store:  # read as it is: no node column, every node unknown
        assert [(r.index, r.node) for r in store.records(run_id)] == [(0, None)]
    with RunStore(old) as store:  # opened for writing: migrated, and the new sample keeps its node
        store.finish(run_id, [replace(_result(1), node="k")])
        assert [r.node for r in store.records(run_id)] == [None, "k"]
    with sqlite3.connect(old) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == store_module.SCHEMA_VERSION == 10


def _old_run(path: Path, layout: int, monkeypatch: pytest.MonkeyPatch, samples: list[Sample]) -> str:
    """A store of an older ``layout`` holding one run of ``samples``, written as that layout wrote them."""
    import mindloop.bench.store as store_module

    with monkeypatch.context() as patch:
        patch.setattr(store_module, "SCHEMA_VERSION", layout)
        patch.setattr(store_module, "MIGRATIONS", {k: v for k, v in store_module.MIGRATIONS.items() if k < layout})
        RunStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO runs (run_id, benchmark, agent, model, config, n, started, version)"
            " VALUES ('toy-old', 'toy', 'a', NULL, '{}', ?, '2025-01-01T00:00:00+00:00', 't')",
            (len(samples),),
        )
        db.executemany(
            "INSERT INTO samples (run_id, idx, sample_id, grp, input) VALUES ('toy-old', ?, ?, ?, ?)",
            [(i, s.id, s.group, json.dumps(s.input)) for i, s in enumerate(samples)],
        )
    return "toy-old"


def test_a_sample_keeps_its_target_and_choices_and_an_older_one_reads_them_from_its_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with RunStore(tmp_path / "r.sqlite") as store:
        samples = [Sample("q", {"question": "?"}, "t", target="box", choices=("box", "bag")), Sample("e", {})]
        run_id = store.create_run(benchmark="toy", agent="a", model=None, config={}, samples=samples, version="t")
        assert [s for _, s in store.pending(run_id)] == samples  # a sample without a target keeps none
    old = tmp_path / "layout7.sqlite"  # before layout 8: the gold lives in the input, read as reports read it
    inputs = [{"answer": "bag", "choices": ["box", "bag"]}, {"gold": {"help": True}}, {"question": "?"}]
    run_id = _old_run(old, 7, monkeypatch, [Sample(f"s{i}", inp) for i, inp in enumerate(inputs)])
    for readonly in (True, False):  # as it is, and migrated
        with RunStore(old, readonly=readonly) as store:
            read = [r.sample for r in store.records(run_id, include_pending=True)]
            assert [(s.target, s.choices) for s in read] == [("bag", ("box", "bag")), ({"help": True}, ()), (None, ())]


def test_headlines_read_past_a_summary_that_is_not_json_and_one_whose_metrics_are_not_an_object(
    tmp_path: Path,
) -> None:
    # one summary that is not JSON sends stored_headlines to its Python fallback; there a summary whose metrics
    # are a list (a hand-edited store) must read as one without the metric, as SQLite's cut reads it, not raise
    path = tmp_path / "r.sqlite"
    head = {"definitions": {"headline": {"metric": "acc"}}, "counts": {"n": 5}}
    with RunStore(path) as store:
        good, listed, broken = _new(store), _new(store), _new(store)
        store.save_summary(good, head | {"metrics": {"acc": 0.5}})
        store.save_summary(listed, head | {"metrics": [0.5]})
        store.save_summary(broken, head | {"metrics": {"acc": 0.25}})
        sql_cut = store.stored_headlines()  # every summary JSON: SQLite cuts them
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE run_summaries SET summary = '{not json' WHERE run_id = ?", (broken,))
    db.close()
    with RunStore(path, readonly=True) as store:
        cut = store.stored_headlines()
    assert set(cut) == {good, listed}  # an unreadable summary is left out, as stored_summaries leaves it
    assert cut[good]["metrics"] == sql_cut[good]["metrics"] == {"acc": 0.5}
    assert cut[listed]["metrics"] == sql_cut[listed]["metrics"] == {"acc": None}


def test_headlines_read_a_metric_whose_name_json_escapes(tmp_path: Path) -> None:
    # a user's metric may be named with a backslash, a tab or a double quote; the cut must find it under its own name
    # (a json_set over quoted paths once wrote the first two under a doubly escaped key, and SQLite's JSON path
    # cannot quote the third: the board showed no value)
    with RunStore(tmp_path / "r.sqlite") as store:
        runs = {}
        for name in ("acc\\v2", "acc\tx", 'acc "strict"', "plain"):
            run_id = runs[name] = _new(store)
            interval = {"low": 0.5, "high": 0.9}
            store.save_summary(
                run_id,
                {
                    "definitions": {"headline": {"metric": name}},
                    "metrics": {name: 0.75},
                    "intervals": {"metrics": {name: interval}},
                },
            )
        cut = store.stored_headlines()
    for name, run_id in runs.items():
        assert cut[run_id]["metrics"] == {name: 0.75}
        assert cut[run_id]["intervals"]["metrics"] == {name: {"low": 0.5, "high": 0.9}}

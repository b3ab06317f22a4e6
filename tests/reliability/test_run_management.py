"""Tagging and deleting runs: ``--tag``, ``runs tag``, the ``--tag`` filters, ``runs delete``.

Deleting must leave the store as if the run had never been recorded (no sample, summary, tag or suite membership
of it left; every other run intact), touch no other file (the response cache), ask first, and refuse a run a live
process is executing. Checked on real SQLite files through the command line in-process.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sqlite3
import time
from pathlib import Path

from cli_run import Cli


def _run(cli: Cli, home: Path, *args: str) -> str:
    done = cli("bench", "run", *args, "--json", home=home)
    assert done.code == 0, done
    return str(json.loads(done.out)["run_id"])


def _listed(cli: Cli, home: Path, *args: str) -> list[str]:
    done = cli("runs", "--json", *args, home=home)
    assert done.code == 0, done
    return [run["run_id"] for run in json.loads(done.out)["runs"]]


def _rows(path: Path, run_id: str) -> dict[str, int]:
    """How many rows of each table name ``run_id``."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        return {
            table: db.execute(f"SELECT COUNT(*) FROM {table} WHERE run_id = ?", (run_id,)).fetchone()[0]
            for table in ("runs", "samples", "run_summaries", "run_tags", "suite_runs")
        }


def test_tags_are_given_added_removed_and_filter_runs_and_the_board(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = _run(cli, home, "hitom", "--n", "3", "--tag", "baseline", "--tag", "v1")
    second = _run(cli, home, "hitom", "--n", "3", "--tag", "v1")
    third = _run(cli, home, "tomi", "--n", "3")
    assert _listed(cli, home, "--tag", "v1") == [first, second]
    assert _listed(cli, home, "--tag", "v1", "--tag", "baseline") == [first]  # every tag given
    tagged = cli("runs", "tag", third, "v1", "ablation", home=home)
    assert tagged.code == 0 and tagged.out == f"{third}: ablation, v1\n"
    assert _listed(cli, home, "--tag", "v1") == [first, second, third]
    removed = cli("runs", "tag", first, "baseline", "--remove", home=home)
    assert removed.out == f"{first}: v1\n"
    entries = {r["run_id"]: r["tags"] for r in json.loads(cli("runs", "--json", home=home).out)["runs"]}
    assert entries == {first: ["v1"], second: ["v1"], third: ["ablation", "v1"]}
    board = json.loads(cli("board", "--json", "--tag", "ablation", home=home).out)
    assert [r["id"] for r in board["runs"]] == [third]
    assert [b["benchmark"] for b in board["leaderboards"]] == ["tomi"]
    bad = cli("runs", "tag", first, "two words", home=home)
    assert bad.code == 1 and bad.err == [
        "mindloop: error: tag 'two words' is not a tag: use a letter or digit, then up to 63 letters, digits or "
        ". _ : @ + -"
    ]
    refused = cli("bench", "run", "hitom", "--n", "2", "--tag", "a,b", home=home)
    assert refused.code == 1 and _listed(cli, home) == [first, second, third]  # refused before a run is recorded
    unknown = cli("runs", "tag", "hitom-nope", "x", home=home)
    assert unknown.code == 1 and "no run 'hitom-nope'" in unknown.stderr


def test_a_suites_tags_reach_its_runs(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = cli("suite", "run", "--only", "hitom", "--max-n", "2", "--tag", "nightly", "--json", home=home)
    assert done.code == 0, done
    assert _listed(cli, home, "--tag", "nightly") == _listed(cli, home) != []


def test_delete_asks_says_what_it_removes_and_leaves_the_store_consistent(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = cli("suite", "run", "--only", "hitom,tomi", "--max-n", "2", "--json", home=home)
    assert done.code == 0, done
    suite = json.loads(done.out)["suite_id"]
    kept, gone = _listed(cli, home)
    assert cli("runs", "tag", gone, "junk", home=home).code == 0
    store = home / "runs.sqlite"
    cache = home / "cache.sqlite"
    cache.write_bytes(b"a response cache mindloop must not touch")
    digest = hashlib.sha256(cache.read_bytes()).hexdigest()
    assert _rows(store, gone) == {"runs": 1, "samples": 2, "run_summaries": 1, "run_tags": 1, "suite_runs": 1}

    asked = cli("runs", "delete", gone, home=home)  # no answer (an empty stdin): nothing deleted
    assert asked.code == 1 and asked.err[-1] == "mindloop: error: nothing deleted: answer y to delete, or pass --yes"
    assert asked.err[0] == f"would delete 1 run(s) from {store}:"
    assert asked.err[1].startswith(f"  {gone} (") and "2 sample(s) (2 finished)" in asked.err[1]
    assert "its stored summary" in asked.err[1] and "tag(s) junk" in asked.err[1]
    assert f"its place in suite {suite}" in asked.err[1]
    assert _rows(store, gone)["runs"] == 1
    no = cli("runs", "delete", gone, home=home, stdin="n\n")
    assert no.code == 1 and _rows(store, gone)["runs"] == 1

    yes = cli("runs", "delete", gone, home=home, stdin="y\n")
    assert yes.code == 0 and yes.out == "deleted 1 run(s)\n"
    assert _rows(store, gone) == dict.fromkeys(("runs", "samples", "run_summaries", "run_tags", "suite_runs"), 0)
    assert _rows(store, kept) == {"runs": 1, "samples": 2, "run_summaries": 1, "run_tags": 0, "suite_runs": 1}
    assert hashlib.sha256(cache.read_bytes()).hexdigest() == digest
    with contextlib.closing(sqlite3.connect(store)) as db:
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert _listed(cli, home) == [kept]
    listed = cli("suite", "report", suite, "--json", home=home)  # the suite reads on with the run it keeps
    assert listed.code == 0, listed
    again = cli("runs", "delete", gone, "--yes", home=home)
    assert again.code == 1 and f"no run {gone!r}" in again.stderr


def test_delete_refuses_a_run_a_live_process_executes(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    run_id = _run(cli, home, "hitom", "--n", "2")
    store = home / "runs.sqlite"
    with contextlib.closing(sqlite3.connect(store)) as db:  # held by this (live) process, heartbeat fresh
        db.execute(
            "UPDATE runs SET lock_owner = ?, lock_token = 'x', lock_heartbeat = ? WHERE run_id = ?",
            (f"{socket.gethostname()}:{os.getpid()}", time.time(), run_id),
        )
        db.commit()
    refused = cli("runs", "delete", run_id, "--yes", home=home)
    assert refused.code == 1
    assert refused.err == [
        f"mindloop: error: run {run_id} is being executed by a live process: wait for it to end (or stop it) "
        "before deleting it"
    ]
    assert _rows(store, run_id)["samples"] == 2

"""Comparability keys: what a run's numbers may be ranked against (``board --json`` leaderboards, ``compare``).

Runs are made with the command line in-process on real SQLite stores; the expectations are worked out apart from
the code under test: a sample set's size from ``--n``, a ``--data`` file's hash with :mod:`hashlib` over its bytes,
one team from two spellings of it, the reason a run is not ranked from how it was made.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from cli_run import Cli

from mindloop.bench.options import validate_options
from mindloop.bench.registry import get_benchmark
from mindloop.bench.store import RunStore, SampleResult
from mindloop.worlds.stories import generate_tomi, to_numbered_text

DATA = Path(__file__).resolve().parents[1] / "tom" / "data" / "exploretom_excerpt.csv"


def _run(cli: Cli, home: Path, *args: str) -> str:
    """A ``bench run`` made through the command line; its run id."""
    done = cli("bench", "run", *args, "--json", home=home)
    assert done.code == 0, done
    return str(json.loads(done.out)["run_id"])


def _board(cli: Cli, home: Path, *args: str) -> dict[str, Any]:
    done = cli("board", "--json", *args, home=home)
    assert done.code == 0, done
    data: dict[str, Any] = json.loads(done.out)
    return data


def _keys(cli: Cli, home: Path) -> dict[str, dict[str, Any]]:
    done = cli("runs", "--json", home=home)
    assert done.code == 0, done
    return {run["run_id"]: run["key"] for run in json.loads(done.out)["runs"]}


def _stopped_hitom(home: Path, n: int, finish: int) -> str:
    """A Hi-ToM run of the symbolic agent on the first ``n`` samples, left with ``finish`` of them finished (as a
    run stopped by Ctrl-C, the circuit breaker or a set-up error is), made through the Python API."""
    bench = get_benchmark("hitom")
    samples = bench.samples(n, 0, validate_options(bench, {}))
    with RunStore(home / "runs.sqlite") as store:
        run_id = store.create_run(
            benchmark="hitom",
            agent="symbolic",
            model=None,
            config={"n": n, "seed": 0, "options": {}},
            samples=samples,
            version="test",
        )
        store.finish(run_id, [SampleResult(i, "done", {}, {"correct": 1.0}, None, [], 0.0) for i in range(finish)])
    return run_id


def test_runs_of_other_sample_sets_are_never_ranked_together_and_stopped_runs_never_ranked(
    cli: Cli, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    small = _run(cli, home, "hitom", "--n", "4")
    big = _run(cli, home, "hitom", "--n", "8")
    again = _run(cli, home, "hitom", "--n", "4")  # the same samples again: the same key
    stopped = _stopped_hitom(home, 4, 0)  # no sample finished: what a set-up error leaves
    partial = _stopped_hitom(home, 4, 2)
    keys = _keys(cli, home)
    assert keys[small]["samples"]["n"] == keys[stopped]["samples"]["n"] == 4 and keys[big]["samples"]["n"] == 8
    assert keys[small]["id"] == keys[again]["id"] == keys[stopped]["id"] == keys[partial]["id"] != keys[big]["id"]

    boards = [b for b in _board(cli, home)["leaderboards"] if b["benchmark"] == "hitom"]
    assert sorted(b["key"]["samples"]["n"] for b in boards) == [4, 8]
    by_n = {b["key"]["samples"]["n"]: b for b in boards}
    four, eight = by_n[4], by_n[8]
    for board in boards:  # a leaderboard ranks only runs whose key is its own
        ranked = [r for entry in board["ranked"] for r in entry["runs"]]
        assert {keys[r]["id"] for r in ranked} == {board["key"]["id"]}
    # one entry for the symbolic agent: its latest complete run, both of its runs with this key counted
    (entry,) = four["ranked"]
    assert (entry["run_id"], entry["runs"], entry["team"], entry["rank"]) == (again, [small, again], "symbolic", 1)
    apart = {a["run_id"]: a for a in four["apart"]}
    assert set(apart) == {big, stopped, partial}
    assert apart[big] == {
        "run_id": big,
        "team": "symbolic",
        "model": None,
        "reason": "other sample set",
        "detail": "sample set (8 vs 4 samples): this run's, then the leaderboard's",
    }
    assert apart[stopped]["reason"] == apart[partial]["reason"] == "incomplete"
    assert "before any of its 4 samples finished" in apart[stopped]["detail"]
    assert "2 of 4 samples finished" in apart[partial]["detail"]
    assert [e["run_id"] for e in eight["ranked"]] == [big]
    assert {a["run_id"]: a["reason"] for a in eight["apart"]} == {
        small: "other sample set",
        again: "other sample set",
        stopped: "incomplete",
        partial: "incomplete",
    }


def test_a_benchmark_with_no_complete_run_has_a_leaderboard_with_every_run_apart(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    stopped = _stopped_hitom(home, 3, 1)
    (board,) = _board(cli, home)["leaderboards"]
    assert board == {
        "benchmark": "hitom",
        "key": None,
        "ranked": [],
        "apart": [
            {
                "run_id": stopped,
                "team": "symbolic",
                "model": None,
                "reason": "incomplete",
                "detail": "stopped: 1 of 3 samples finished",
            }
        ],
    }


def test_bench_run_json_carries_the_key_and_tags_it_stored(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = cli("bench", "run", "hitom", "--n", "3", "--tag", "first", "--json", home=home)
    assert done.code == 0, done
    summary = json.loads(done.out)
    assert summary["tags"] == ["first"]
    assert summary["key"] == _keys(cli, home)[summary["run_id"]] and summary["key"]["samples"]["n"] == 3


def test_one_team_spelled_two_ways_is_one_entry(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    pair = _run(cli, home, "cwah", "--agents", "cobel,cobel", "--n", "1")
    alone = _run(cli, home, "cwah", "--agent", "cobel", "--n", "1")  # one name fills the team of two
    keys = _keys(cli, home)
    assert keys[pair]["team"] == keys[alone]["team"] == "cobel,cobel" and keys[pair]["id"] == keys[alone]["id"]
    (board,) = _board(cli, home)["leaderboards"]
    (entry,) = board["ranked"]
    assert entry["team"] == "cobel,cobel" and entry["runs"] == [pair, alone] and board["apart"] == []


def test_a_model_run_with_another_protocol_is_listed_apart(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    single = _run(cli, home, "hitom", "--n", "4", "--model", "scripted/echo", "--format-retries", "0")
    retried = _run(cli, home, "hitom", "--n", "4", "--model", "scripted/echo", "--format-retries", "1")
    symbolic = _run(cli, home, "hitom", "--n", "4")
    keys = _keys(cli, home)
    assert keys[single]["protocol"]["format_retries"] == 0 and keys[retried]["protocol"]["format_retries"] == 1
    assert keys[symbolic]["protocol"] is None  # no model: nothing asked of one
    boards = {b["key"]["protocol"]["format_retries"]: b for b in _board(cli, home)["leaderboards"]}
    assert set(boards) == {0, 1}
    for retries, own, other in ((0, single, retried), (1, retried, single)):
        board = boards[retries]
        # the symbolic run, on the same samples with no protocol, is ranked beside each protocol's model runs
        assert sorted(e["run_id"] for e in board["ranked"]) == sorted([own, symbolic])
        assert [(a["run_id"], a["reason"]) for a in board["apart"]] == [(other, "other protocol")]


def test_a_data_files_content_hash_is_part_of_the_key(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    copy = tmp_path / "excerpt.csv"
    copy.write_bytes(DATA.read_bytes())
    first = _run(cli, home, "exploretom", "--data", str(copy), "--n", "3")
    changed = DATA.read_bytes() + b"\n"  # one more (empty) line: the same samples, other bytes
    copy.write_bytes(changed)
    second = _run(cli, home, "exploretom", "--data", str(copy), "--n", "3")
    keys = _keys(cli, home)
    assert keys[first]["data"] == "sha256:" + hashlib.sha256(DATA.read_bytes()).hexdigest()
    assert keys[second]["data"] == "sha256:" + hashlib.sha256(changed).hexdigest()
    assert keys[first]["samples"] == keys[second]["samples"] and "data" not in keys[first]["options"]
    board = next(b for b in _board(cli, home)["leaderboards"] if b["key"]["data"] == keys[second]["data"])
    assert [a["reason"] for a in board["apart"]] == ["other data"]


def test_the_same_data_file_in_another_place_is_the_same_key(cli: Cli, tmp_path: Path) -> None:
    """A ToMi sample names the file it was read from (its ``source``): the sample set's hash writes that path as
    ``<data>``, so a file copied elsewhere gives the key it gave where it was."""
    home = tmp_path / "home"
    here, there = tmp_path / "a" / "stories.txt", tmp_path / "b" / "elsewhere.txt"
    for path in (here, there):
        path.parent.mkdir()
        path.write_text(to_numbered_text(generate_tomi(4, seed=0)), encoding="utf-8")
    first = _run(cli, home, "tomi", "--data", str(here))
    second = _run(cli, home, "tomi", "--data", str(there))
    keys = _keys(cli, home)
    assert keys[first]["id"] == keys[second]["id"] is not None and keys[first]["samples"]["n"] == 4
    (board,) = (b for b in _board(cli, home)["leaderboards"] if b["benchmark"] == "tomi")
    assert [e["runs"] for e in board["ranked"]] == [[first, second]] and board["apart"] == []


def _to_layout_9(path: Path) -> None:
    """The store as a mindloop of layout 9 left it: no keys, no tags."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("ALTER TABLE runs DROP COLUMN key")
        db.execute("DROP TABLE run_tags")
        db.execute("PRAGMA user_version = 9")
        db.commit()


def test_old_runs_get_a_key_where_it_can_be_derived_and_key_unknown_where_not(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    hitom = _run(cli, home, "hitom", "--n", "4")
    data = _run(cli, home, "exploretom", "--data", str(DATA), "--n", "3")
    before = _keys(cli, home)
    path = home / "runs.sqlite"
    _to_layout_9(path)

    # read-only, the old store's runs read as key unknown on the board (it never loads a benchmark) ...
    (hitom_board,) = (b for b in _board(cli, home)["leaderboards"] if b["benchmark"] == "hitom")
    assert hitom_board["key"] is None and hitom_board["apart"][0]["reason"] == "key unknown"
    # ... and opened for writing (any bench run), the step to layout 10 derives what it can
    later = _run(cli, home, "hitom", "--n", "4")
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 10
    keys = _keys(cli, home)
    assert keys[hitom] == before[hitom] and keys[hitom]["id"] == keys[later]["id"]
    assert keys[data]["id"] is None and "content of its --data file was not recorded" in keys[data]["unknown"]
    boards = {b["benchmark"]: b for b in _board(cli, home)["leaderboards"]}
    assert [e["runs"] for e in boards["hitom"]["ranked"]] == [[hitom, later]]
    assert boards["exploretom"]["key"] is None
    assert [(a["run_id"], a["reason"]) for a in boards["exploretom"]["apart"]] == [(data, "key unknown")]


def test_compare_names_a_key_difference_first(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    big = _run(cli, home, "hitom", "--n", "8")
    small = _run(cli, home, "hitom", "--n", "4")
    done = cli("compare", big, small, "--json", home=home)
    assert done.code == 0, done
    (comparison,) = json.loads(done.out)["comparisons"]
    assert next(iter(comparison)) == "benchmark" and list(comparison)[1] == "key_differences"
    (diff,) = comparison["key_differences"]
    assert (diff["run_id"], diff["baseline"], diff["fields"]) == (small, big, ["samples"])
    text = cli("compare", big, small, home=home)
    assert text.code == 0
    lines = text.out.splitlines()
    assert lines[1] == f"comparability key differs: {small} differs from {big} in sample set (4 vs 8 samples)"
    same = cli("compare", small, _run(cli, home, "hitom", "--n", "4"), home=home)
    assert same.out.splitlines()[1].startswith("comparability key: every run has the baseline's")

"""Several models under one suite id: ``suite run --model A --model B`` runs every planned benchmark for each, and
the suite report, ``runs --suite``, ``--output-dir`` and the board show them side by side.

``smoke`` asks a model to repeat a word inside its prompt, so ``scripted/echo`` (which repeats the prompt) scores 1
and a model that always replies ``nothing`` scores 0: the expected numbers need no code under test.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cli_run import Cli

import mindloop
from mindloop.bench.store import RunStore
from mindloop.bench.suite import SuiteRequest, run_suite


@pytest.fixture
def silent_model(tmp_path: Path) -> str:
    replies = tmp_path / "nothing.txt"
    replies.write_text("nothing\n")
    return f"scripted/{replies}"


def _json(done: Any) -> Any:
    assert done.code == 0, done
    return json.loads(done.out)


def test_two_models_run_every_benchmark_under_one_suite_id(cli: Cli, tmp_path: Path, silent_model: str) -> None:
    home, out = tmp_path / "home", tmp_path / "out"
    args = ["suite", "run", "--only", "smoke", "--max-n", "4", "--model", "scripted/echo", "--model", silent_model]
    printed = _json(cli(*args, "--output-dir", out, "--json", home=home))
    suite = printed["suite_id"]
    assert printed["models"] == ["scripted/echo", silent_model] and printed["complete"] is True
    assert [(r["benchmark"], r["model"], r["n"]) for r in printed["runs"]] == [
        ("smoke", "scripted/echo", 4),
        ("smoke", silent_model, 4),
    ]
    assert [r["metrics"]["accuracy"] for r in printed["runs"]] == [1.0, 0.0]
    run_ids = [r["run_id"] for r in printed["runs"]]
    assert [r["run_id"] for r in _json(cli("runs", "--suite", suite, "--json", home=home))["runs"]] == run_ids
    [listed] = _json(cli("suite", "list", "--json", home=home))["suites"]
    assert (listed["models"], listed["runs"]) == (["scripted/echo", silent_model], run_ids)

    # the suite report: each model's run of each benchmark, side by side
    report = _json(cli("suite", "report", suite, "--json", home=home))
    assert report["models"] == ["scripted/echo", silent_model]
    assert [(e["model"], e["run_id"], e["headline"]["value"]) for e in report["runs"]] == [
        ("scripted/echo", run_ids[0], 1.0),
        (silent_model, run_ids[1], 0.0),
    ]
    assert (report["ledger"]["runs"], report["ledger"]["benchmarks"]) == (2, 2)
    page = cli("suite", "report", suite, "-o", tmp_path / "suite.html", home=home)
    assert page.code == 0
    html = (tmp_path / "suite.html").read_text()
    assert f"2 models side by side: scripted/echo, {silent_model}" in html

    # the board: one suite of two models, both runs in it
    board = _json(cli("board", "--json", home=home))
    [entry] = board["suites"]
    assert (entry["models"], entry["runs"], entry["planned"]) == (["scripted/echo", silent_model], 2, 2)
    assert {r["id"]: r["suite"] for r in board["runs"]} == dict.fromkeys(run_ids, suite)

    # the frames: both runs in the suite
    pytest.importorskip("pandas")
    frame = mindloop.runs_frame(home / "runs.sqlite")
    assert list(frame["run_id"]) == run_ids and list(frame["suite_id"]) == [suite, suite]
    assert list(frame["model"]) == ["scripted/echo", silent_model] and list(frame["score_accuracy"]) == [1.0, 0.0]
    assert len(mindloop.samples_frame(suite, store=home / "runs.sqlite")) == 8

    # --output-dir: both runs' results and every sample
    results = json.loads((out / "results.json").read_text())
    assert [(r["model"], r["metrics"]["accuracy"]) for r in results["runs"]] == [
        ("scripted/echo", 1.0),
        (silent_model, 0.0),
    ]
    lines = (out / "samples.jsonl").read_text().splitlines()
    assert [json.loads(x)["run_id"] for x in lines] == [run_ids[0]] * 4 + [run_ids[1]] * 4


def test_a_paper_table_has_each_models_rows(tmp_path: Path, silent_model: str) -> None:
    from mindloop.bench.report.suite import suite_report

    request = SuiteRequest(model="scripted/echo", models=("scripted/echo", silent_model), only=("tomi",), max_n=4)
    with RunStore(tmp_path / "runs.sqlite") as store:
        result = run_suite(request, store=store, progress=False)
        report = suite_report(store, result.suite_id)
    [table] = [t for t in report["tables"] if t["key"] == "tomi"]
    labels = [row["label"] for row in table["rows"]]
    types = ["reality", "memory", "first order", "second order"]
    assert labels == [
        *(f"scripted/echo · {t}" for t in types),
        "all (scripted/echo)",
        *(f"{silent_model} · {t}" for t in types),
        f"all ({silent_model})",
    ]
    assert table["runs"] == [s.run_id for s in result.summaries]


def test_every_models_setup_is_checked_before_the_suite_is_recorded(cli: Cli, tmp_path: Path) -> None:
    done = cli("suite", "run", "--only", "smoke", "--model", "scripted/echo", "--model", "scripted/nope", home=tmp_path)
    assert done.code == 1 and done.err[-1].startswith("mindloop: error: unknown script 'nope'")
    assert _json(cli("suite", "list", "--json", home=tmp_path))["suites"] == []
    twice = cli(
        "suite", "run", "--only", "smoke", "--model", "scripted/echo", "--model", "scripted/echo", home=tmp_path
    )
    assert twice.code == 1 and twice.err == [
        "mindloop: error: --model 'scripted/echo' is given twice; give each model once"
    ]


def test_bench_run_takes_one_model(cli: Cli, tmp_path: Path) -> None:
    done = cli("bench", "run", "smoke", "--model", "scripted/echo", "--model", "scripted/silent", home=tmp_path)
    assert done.code == 1
    assert done.err == [
        "mindloop: error: --model is given 2 times; bench run takes one model (several models side by side: "
        "mindloop suite run --model A --model B)"
    ]


def test_a_layout_8_store_keeps_its_suites_when_suite_runs_are_keyed_by_model(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        result = run_suite(SuiteRequest(only=("tomi", "hitom"), max_n=2), store=store, progress=False)
    db = sqlite3.connect(path)  # back to layout 8: suite_runs keyed by (suite_id, benchmark), no model column
    db.executescript(
        "ALTER TABLE runs DROP COLUMN key; DROP TABLE run_tags;"  # nor layout 10's keys and tags
        "CREATE TABLE old (suite_id TEXT NOT NULL REFERENCES suites(suite_id), benchmark TEXT NOT NULL,"
        " run_id TEXT NOT NULL UNIQUE REFERENCES runs(run_id), PRIMARY KEY (suite_id, benchmark));"
        "INSERT INTO old SELECT suite_id, benchmark, run_id FROM suite_runs ORDER BY rowid;"
        "DROP TABLE suite_runs; ALTER TABLE old RENAME TO suite_runs; PRAGMA user_version = 8;"
    )
    db.close()
    expected = [(s.benchmark, None, s.run_id) for s in result.summaries]
    with RunStore(path, readonly=True) as store:  # read as it is: the model comes from the run
        assert store.suite_members(result.suite_id) == expected
    with RunStore(path) as store:  # upgraded for writing
        assert store.suite_members(result.suite_id) == expected
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 10
    assert db.execute("SELECT benchmark, model FROM suite_runs ORDER BY rowid").fetchall() == [
        ("tomi", ""),
        ("hitom", ""),
    ]
    db.close()


def test_a_suite_keeps_its_model_options_and_a_resume_takes_them_unless_given_again(tmp_path: Path) -> None:
    # --model-opt shapes replies (a llama.cpp chat_format): a suite resumed without it used to start the benchmarks
    # it had not reached without it, since the suite's stored config left it out
    from mindloop.bench.runner import resumed_model_options
    from mindloop.models import FakeChatServer, ModelOptions

    with FakeChatServer() as server, RunStore(tmp_path / "runs.sqlite") as store:
        url = server.base_url
        options = ModelOptions(base_url=url, cache="off", extra={"server_slots": 1})
        request = SuiteRequest(model="openai/q", only=("smoke",), max_n=2, model_options=options)
        result = run_suite(request, store=store, progress=False)
        stored = store.suite(result.suite_id).config["model_options"]
        run_stored = store.run(result.summaries[0].run_id).config["model_options"]
    assert (
        stored
        == run_stored
        == {
            "base_url": url,
            "api_key_env": "OPENAI_API_KEY",
            "cache": "off",
            "extra": {"server_slots": 1},
        }
    )
    assert resumed_model_options(ModelOptions(), stored) == ModelOptions(
        base_url=url, cache="off", extra={"server_slots": 1}
    )
    # what the resuming command gives wins, except the cache (it shapes which replies are fresh)
    now = ModelOptions(base_url="http://elsewhere/v1", api_key_env="MY_KEY", cache="on", extra={"server_slots": 2})
    assert resumed_model_options(now, stored) == ModelOptions(
        base_url="http://elsewhere/v1", api_key_env="MY_KEY", cache="off", extra={"server_slots": 2}
    )
    assert resumed_model_options(ModelOptions(), {"api_key_env": "MY_KEY"}).api_key_env == "MY_KEY"


def test_deleting_the_second_models_run_names_its_place_in_the_suite(
    cli: Cli, tmp_path: Path, silent_model: str
) -> None:
    home = tmp_path / "home"
    args = ["suite", "run", "--only", "smoke", "--max-n", "2", "--model", "scripted/echo", "--model", silent_model]
    printed = _json(cli(*args, "--json", home=home))
    suite = printed["suite_id"]
    first, second = (r["run_id"] for r in printed["runs"])
    for run_id in (first, second):  # each model's run is in the suite, the second as the first
        asked = cli("runs", "delete", run_id, home=home)
        assert asked.code == 1 and asked.err[1].startswith(f"  {run_id} (")
        assert asked.err[1].endswith(f"its place in suite {suite}")
    deleted = cli("runs", "delete", second, "--yes", home=home)
    assert deleted.code == 0 and f"its place in suite {suite}" in deleted.err[1]
    with RunStore(home / "runs.sqlite") as store:
        assert store.suite_members(suite) == [("smoke", "scripted/echo", first)]

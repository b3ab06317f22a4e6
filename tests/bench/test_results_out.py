"""Results out: ``--output-dir`` writes results.json and samples.jsonl, and pandas frames read the run store.

The expectations are derived apart from the code under test: the exact (Clopper–Pearson) interval of 4 correct of 4
is ``[0.025 ** (1/4), 1]``; the fake server's reply and the smoke prompt are known, so every sample's score and
call transcript is; the frames are compared with ``mindloop runs --json`` and ``runs export``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_run import Cli

import mindloop
from mindloop.bench.store import RunStore
from mindloop.errors import DependencyError
from mindloop.models.fake_server import FakeChatServer

SAMPLE_KEYS = {
    "run_id", "benchmark", "model", "index", "sample_id", "group", "status", "error", "seconds", "node", "scores",
    "input", "target", "choices", "output", "calls",
}  # fmt: skip


def _read(folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    results = json.loads((folder / "results.json").read_text())
    samples = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
    return results, samples


def _runs(cli: Cli, home: Path) -> list[dict[str, Any]]:
    done = cli("runs", "--json", home=home)
    assert done.code == 0
    runs: list[dict[str, Any]] = json.loads(done.out)["runs"]
    return runs


def test_bench_run_output_dir_writes_the_results_and_one_line_a_sample(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "out" / "tomi"  # missing parents are created
    done = cli("bench", "run", "tomi", "--n", "4", "--output-dir", out, "--json", home=tmp_path)
    assert done.code == 0
    summary = json.loads(done.out)
    results, samples = _read(out)
    [run] = _runs(cli, tmp_path)
    assert results["run_id"] == summary["run_id"] == run["run_id"]
    assert {k: results[k] for k in summary} == summary  # the --json summary, whole
    assert (results["n"], results["n_completed"], results["n_failed"]) == (4, 4, 0)
    accuracy = results["intervals"]["metrics"]["accuracy"]
    assert accuracy["low"] == pytest.approx(0.025**0.25) and accuracy["high"] == 1.0  # 4 of 4, exact
    assert accuracy["n"] == 4 and results["metrics"]["accuracy"] == 1.0
    assert {"chance", "oracle"} <= set(results["references"])
    assert results["protocol"]["format_retries"] == run["config"]["format_retries"]
    assert results["config"] == run["config"] and (results["config"]["n"], results["config"]["seed"]) == (4, 0)
    assert results["started"] == run["started"] and results["finished"] == run["finished"]
    assert results["key"] == run["key"] and results["key"]["id"] is not None  # the comparability key, as stored

    assert [s["sample_id"] for s in samples] == ["q00000", "q00001", "q00002", "q00003"]
    for line in samples:
        assert set(line) == SAMPLE_KEYS
        assert (line["run_id"], line["benchmark"], line["model"], line["status"]) == (
            run["run_id"],
            "tomi",
            None,
            "done",
        )
        assert line["target"] == line["input"]["answer"] and line["scores"]["correct"] == 1.0
        assert line["calls"] == [] and line["error"] is None
    exported = cli("runs", "export", run["run_id"], home=tmp_path).out.splitlines()
    assert [json.loads(x) for x in exported] == samples  # the same rows as runs export
    assert done.err[-1] == f"wrote {out / 'results.json'} and {out / 'samples.jsonl'}"


def test_a_model_runs_samples_carry_its_calls(cli: Cli, tmp_path: Path) -> None:
    with FakeChatServer(lambda messages, body: "apple") as server:
        args = ["bench", "run", "smoke", "--model", "openai/fake-model", "--base-url", server.base_url]
        done = cli(*args, "--n", "6", "--cache", "off", "--output-dir", tmp_path / "out", home=tmp_path)
    assert done.code == 0
    results, samples = _read(tmp_path / "out")
    words = [line["input"]["word"] for line in samples]
    assert len(samples) == 6 and results["model"] == "openai/fake-model"
    assert results["metrics"]["accuracy"] == pytest.approx(words.count("apple") / 6)
    for line, word in zip(samples, words, strict=True):
        assert line["model"] == "openai/fake-model" and line["scores"]["correct"] == float(word == "apple")
        [call] = line["calls"]
        assert call["text"] == "apple"
        assert call["messages"][-1]["content"] == f"Reply with exactly this word and nothing else: {word}"


def test_an_output_dir_that_is_a_file_is_refused_before_a_run_is_recorded(cli: Cli, tmp_path: Path) -> None:
    taken = tmp_path / "results"
    taken.write_text("mine")
    done = cli("bench", "run", "tomi", "--n", "2", "--output-dir", taken, home=tmp_path)
    assert done.code == 1
    assert done.err == [
        f"mindloop: error: --output-dir {str(taken)!r} is a file; name a folder (it is created if missing)"
    ]
    assert _runs(cli, tmp_path) == [] and taken.read_text() == "mine"


def test_suite_run_output_dir_holds_every_run_and_every_sample(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "suite"
    done = cli("suite", "run", "--only", "tomi,hitom", "--max-n", "3", "--output-dir", out, "--json", home=tmp_path)
    assert done.code == 0
    printed = json.loads(done.out)
    results, samples = _read(out)
    assert results["suite_id"] == printed["suite_id"] and results["benchmarks"] == ["tomi", "hitom"]
    assert [r["run_id"] for r in results["runs"]] == [r["run_id"] for r in printed["runs"]]
    assert [r["benchmark"] for r in results["runs"]] == ["tomi", "hitom"]
    assert all("intervals" in r and "references" in r and "config" in r for r in results["runs"])
    by_run = {r["run_id"]: r["n"] for r in results["runs"]}
    assert len(samples) == sum(by_run.values()) == 6
    assert {line["run_id"] for line in samples} == set(by_run)


# -- frames ---------------------------------------------------------------------------------------------------------


@pytest.mark.frames
def test_runs_frame_and_samples_frame_read_the_store(cli: Cli, tmp_path: Path) -> None:
    assert cli("bench", "run", "tomi", "--n", "4", home=tmp_path).code == 0
    assert cli("suite", "run", "--only", "hitom", "--max-n", "3", home=tmp_path).code == 0
    runs = _runs(cli, tmp_path)
    suite = json.loads(cli("suite", "list", "--json", home=tmp_path).out)["suites"][0]["suite_id"]

    frame = mindloop.runs_frame(tmp_path / "runs.sqlite")
    assert list(frame["run_id"]) == [r["run_id"] for r in runs]
    assert list(frame["benchmark"]) == ["tomi", "hitom"]
    assert frame["suite_id"].isna()[0] and frame["suite_id"][1] == suite
    assert list(frame["total_samples"]) == [4, 3] and list(frame["completed_samples"]) == [4, 3]
    assert list(frame["status"]) == ["finished", "finished"]
    assert list(frame["score_headline_name"]) == ["accuracy", "accuracy"]
    assert list(frame["score_headline_value"]) == [r["headline"]["value"] for r in runs]
    assert frame["score_headline_low"][0] == pytest.approx(0.025**0.25)  # 4 of 4, exact
    assert list(frame["score_accuracy"]) == list(frame["score_headline_value"])

    samples = mindloop.samples_frame(store=tmp_path / "runs.sqlite")
    assert len(samples) == 7 and list(samples["run_id"].unique()) == [r["run_id"] for r in runs]
    exported = [json.loads(x) for x in cli("runs", "export", runs[0]["run_id"], home=tmp_path).out.splitlines()]
    tomi = samples[samples["run_id"] == runs[0]["run_id"]]
    assert list(tomi["id"]) == [x["sample_id"] for x in exported]
    assert list(tomi["target"]) == [x["target"] for x in exported]
    assert list(tomi["score_correct"]) == [x["scores"]["correct"] for x in exported]
    assert set(tomi["model_calls"]) == {0} and set(tomi["status"]) == {"done"}
    # a suite id stands for its runs; a run id for itself
    assert list(mindloop.samples_frame(suite, store=tmp_path / "runs.sqlite")["run_id"].unique()) == [runs[1]["run_id"]]
    with RunStore(tmp_path / "runs.sqlite", readonly=True) as store:
        assert len(mindloop.samples_frame(runs[0]["run_id"], store=store)) == 4


@pytest.mark.frames
def test_frames_of_an_empty_store_have_their_columns(tmp_path: Path) -> None:
    assert mindloop.runs_frame(tmp_path / "none.sqlite").empty
    frame = mindloop.samples_frame(store=tmp_path / "none.sqlite")
    assert frame.empty and {"run_id", "id", "input", "target", "output", "status"} <= set(frame.columns)


def test_frames_without_pandas_name_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # as on an install without it
    for frame in (mindloop.runs_frame, mindloop.samples_frame):
        with pytest.raises(DependencyError) as caught:
            frame(store=tmp_path / "runs.sqlite") if frame is mindloop.samples_frame else frame(tmp_path / "r.sqlite")
        assert str(caught.value).startswith("runs_frame and samples_frame need pandas: pip install 'mindloop[frames]'")
        assert "\n" not in str(caught.value)

"""``mindloop bench``/``runs`` as a user drives them: one JSON object per --json, clear one-line errors."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter

import pytest

from mindloop.cli import main

SUMMARY_KEYS = {"run_id", "benchmark", "agent", "model", "n", "n_completed", "n_failed", "metrics", "seconds", "tokens"}


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1, "--json prints exactly one line"
    return json.loads(out)


def test_bench_list_names_each_benchmark_with_a_description(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, ["bench", "list", "--json"])
    by_name = {b["name"]: b for b in data["benchmarks"]}
    assert {"tomi", "hitom", "smoke"} <= set(by_name)
    assert by_name["hitom"]["agents"] == ["symbolic", "model"]
    assert all(b["description"] for b in data["benchmarks"])


def test_bench_list_says_what_each_released_sets_loader_was_checked_against(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every benchmark that reads a released file says whether its loader met that file or only the authors' code
    (docs/datasets.md: OpenToM, BigToM and MMToM-QA were read in full; FANToM, ExploreToM and SimpleToM sit on hosts
    this machine cannot reach); the table prints it under the name."""
    rows = {b["name"]: b for b in _json(capsys, ["bench", "list", "--json"])["benchmarks"]}
    checked = {name: b["checked_against"] for name, b in rows.items() if b["needs_data"]}
    assert checked == {
        "opentom": "released file",
        "bigtom": "released file",
        "mmtom-qa": "released file",
        "fantom": "authors' code",
        "exploretom": "authors' code",
        "simpletom": "authors' code",
    }
    assert main(["bench", "list"]) == 0
    table = capsys.readouterr().out
    assert table.count("checked: released file") == 3 and table.count("checked: authors' code") == 3


def test_bench_run_json_then_runs_lists_and_exports_it(capsys: pytest.CaptureFixture[str]) -> None:
    first = _json(capsys, ["bench", "run", "tomi", "--n", "12", "--seed", "4", "--json"])
    assert set(first) >= SUMMARY_KEYS
    assert (first["benchmark"], first["agent"], first["model"], first["n"], first["n_completed"]) == (
        "tomi",
        "symbolic",
        None,
        12,
        12,
    )
    assert first["metrics"]["accuracy"] == 1.0
    second = _json(capsys, ["bench", "run", "hitom", "--n", "5", "--json"])

    runs = _json(capsys, ["runs", "--json"])["runs"]
    assert [r["run_id"] for r in runs] == [first["run_id"], second["run_id"]]
    assert {"run_id", "benchmark", "started", "n_completed"} <= set(runs[0])

    assert main(["runs", "export", first["run_id"], "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["index"] for r in rows] == list(range(12))
    assert all(r["status"] == "done" and r["output"]["answer"] == r["input"]["answer"] for r in rows)

    assert main(["runs", "export", second["run_id"], "--format", "csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(table) == 5 and {"correct", "parsed", "input", "status"} <= set(table[0])
    assert json.loads(table[0]["input"])["format"] == "hitom"


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["bench", "run", "hitm"], "did you mean 'hitom'"),
        (["bench", "run", "tomi", "--agent", "model"], "needs a model"),
        (["bench", "run", "tomi", "--opt", "oops"], "KEY=VALUE"),
        (["bench", "run", "tomi", "--resume", "nope"], "no run 'nope'"),
        (["runs", "export", "nope"], "no run 'nope'"),
        (["bench", "run", "tomi", "--model", "gpt4"], "BACKEND/NAME"),
    ],
)
def test_errors_are_one_line_with_exit_code_1(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], captured.err


def test_a_bad_model_string_records_no_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "run", "tomi", "--model", "nosuch/x"]) == 1
    assert "unknown model backend 'nosuch'" in capsys.readouterr().err
    assert _json(capsys, ["runs", "--json"]) == {"runs": []}


def test_the_headline_is_printed_with_its_reference_policies(capsys: pytest.CaptureFixture[str]) -> None:
    """Hi-ToM's tracker on 20 questions: the headline line names chance (the mean of 1 / choices, worked out here
    from the samples themselves) and the oracle beside it; chance, a reference value, gets no interval."""
    assert main(["bench", "run", "hitom", "--n", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    from mindloop.bench import get_benchmark
    from mindloop.bench.options import validate_options

    bench = get_benchmark("hitom")
    samples = bench.samples(20, 0, validate_options(bench, {}))
    chance = sum(1 / len(set(map(str, s.input["choices"]))) for s in samples) / 20
    # the best constant per question type (fitted on these questions: Hi-ToM has no train split): the gold text
    # or the gold's position among the choices that most questions of the type share
    best = 0
    for qtype in {s.group for s in samples}:
        of_type = [s for s in samples if s.group == qtype]
        texts = Counter(str(s.input["answer"]).lower() for s in of_type)
        positions = Counter(list(map(str, s.input["choices"])).index(s.input["answer"]) for s in of_type)
        best += max(*texts.values(), *positions.values())
    assert out["references"] == {"chance": pytest.approx(chance), "best constant": best / 20, "oracle": 1.0}
    assert [p["kind"] for p in out["reference_policies"]] == ["chance", "constant", "oracle"]
    assert out["reference_policies"][1]["optimistic"] is True
    assert "chance" not in out["intervals"]["metrics"]
    assert main(["bench", "run", "hitom", "--n", "20"]) == 0
    summary = capsys.readouterr().out.splitlines()  # the summary is on stdout, its headline right under the title
    assert summary[1].startswith("accuracy 1.0000 [")
    assert summary[1].endswith(
        f", higher is better · chance {chance:.4f}, best trivial {best / 20:.4f} [best constant, optimistic], "
        "oracle 1.0000"
    )

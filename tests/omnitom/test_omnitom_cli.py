"""``mindloop omnitom score`` / ``annotate`` and ``describe_tombench`` through typer's test runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from mindloop.errors import InvalidArgumentError, MindloopError, ParseError
from mindloop.systems.omnitom.cli import describe_tombench, omnitom_app
from mindloop.systems.omnitom.examples import appendix_e_records
from mindloop.systems.omnitom.records import DIMENSIONS, read_records, write_records

runner = CliRunner()
CONTRACT_DIMENSIONS = {
    "order", "truth_status", "knowledge_access", "representation", "content_type", "mental_source", "context",
}  # fmt: skip


@pytest.fixture
def gold_file(tmp_path: Path) -> Path:
    path = tmp_path / "gold.jsonl"
    write_records(path, appendix_e_records())
    return path


def test_score_json_contract(gold_file: Path, tmp_path: Path) -> None:
    pred = [r.to_json() for r in appendix_e_records()]
    pred[1]["beliefs"][0]["labels"]["context"] = "Temporal"  # one wrong label of 21 in one of 7 stories
    pred[1]["beliefs"][1]["labels"]["truth_status"] = "not sure"  # illegal: counted as wrong, not an error
    del pred[6]["beliefs"][0]  # a missing belief costs Stage 1 recall and all its Stage 2 cells
    pred_file = tmp_path / "pred.json"
    pred_file.write_text(json.dumps(pred), encoding="utf-8")
    result = runner.invoke(omnitom_app, ["score", "--pred", str(pred_file), "--gold", str(gold_file), "--aligner",
                                         "exact", "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == {"stage1", "stage2", "n_stories", "protocol", "aligner"} and out["n_stories"] == 7
    assert (out["protocol"], out["aligner"]) == ("release", "exact")
    assert set(out["stage1"]) == {"precision", "recall", "f1"}
    assert (
        set(out["stage2"]) == {"overall", "by_dimension"} and set(out["stage2"]["by_dimension"]) == CONTRACT_DIMENSIONS
    )
    assert out["stage1"]["precision"] == 1.0
    assert out["stage1"]["recall"] == pytest.approx((6 + 11 / 12) / 7)  # Table 19 has 12 gold beliefs
    by_dim = out["stage2"]["by_dimension"]
    assert by_dim["context"] == pytest.approx(1 - (1 / 21 + 1 / 12) / 7)
    assert by_dim["truth_status"] == pytest.approx(1 - (1 / 21 + 1 / 12) / 7)
    assert by_dim["order"] == pytest.approx(1 - (1 / 12) / 7)
    assert out["stage2"]["overall"] == pytest.approx(sum(by_dim[d] for d in DIMENSIONS) / 7)
    assert all(0.0 <= v <= 1.0 for v in [*out["stage1"].values(), *by_dim.values()])


@pytest.mark.metrics
def test_score_with_the_embedded_aligner_and_human_output(gold_file: Path) -> None:
    result = runner.invoke(omnitom_app, ["score", "--pred", str(gold_file), "--gold", str(gold_file)])
    assert result.exit_code == 0, result.output
    assert "Table 3 layout" in result.stdout and "embedded(threshold=0.8)" in result.stdout  # results: stdout
    assert "Table 3 layout" not in result.stderr


def test_score_input_errors_name_the_problem(gold_file: Path, tmp_path: Path) -> None:
    bad = [r.to_json() for r in appendix_e_records()]
    bad[2]["beliefs"][3]["labels"]["knowledge_access"] = "Everyone"
    bad_file = tmp_path / "bad.jsonl"
    bad_file.write_text("\n".join(json.dumps(x) for x in bad) + "\n", encoding="utf-8")
    result = runner.invoke(omnitom_app, ["score", "--pred", str(gold_file), "--gold", str(bad_file), "--json"])
    assert isinstance(result.exception, ParseError)
    assert "bad.jsonl:3: [story_id=15].beliefs[3].labels.knowledge_access: " in str(result.exception)
    assert "'Everyone' is not a legal Knowledge Access label" in str(result.exception)
    missing = runner.invoke(omnitom_app, ["score", "--pred", str(tmp_path / "nope.json"), "--gold", str(gold_file)])
    assert isinstance(missing.exception, ParseError) and "no such file" in str(missing.exception)


def test_annotate_writes_records(tmp_path: Path) -> None:
    stories = tmp_path / "stories.txt"
    stories.write_text(
        "Alice and Bob are in a room. There is an object in a box. Bob leaves. Alice moves the object to the safe.\n"
        "Sam and Kim are in the garage. The key is in the drawer. Kim leaves. Sam moves the key to the crate.\n"
        "Once upon a time.\n",
        encoding="utf-8",
    )
    result = runner.invoke(omnitom_app, ["annotate", str(stories)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["beliefs"][0]["belief"] == "Alice is in the room"
    assert "skipped 1" in result.stderr
    out = tmp_path / "gold.jsonl"
    result = runner.invoke(omnitom_app, ["annotate", str(stories), "--out", str(out), "--json", "--max-order", "2"])
    summary = json.loads(result.stdout)
    assert summary["n_stories"] == 2 and summary["skipped"][0]["reason"].startswith("not a templated")
    records = read_records(out)
    assert max(b.order or 0 for r in records for b in r.beliefs) == 2
    assert summary["n_beliefs"] == sum(len(r.beliefs) for r in records)
    no_out = runner.invoke(omnitom_app, ["annotate", str(stories), "--json"])
    assert isinstance(no_out.exception, InvalidArgumentError)


def _describe_app() -> typer.Typer:
    app = typer.Typer()
    app.command("tombench")(describe_tombench)
    return app


def test_describe_tombench(tombench_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = runner.invoke(_describe_app(), [str(tombench_dir), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["total"] == {"stories": 916, "questions": 2170}
    assert out["categories"]["False Belief Task"] == {"stories": 100, "questions": 600}
    monkeypatch.setenv("MINDLOOP_TOMBENCH", str(tombench_dir))
    human = runner.invoke(_describe_app(), [])
    assert human.exit_code == 0 and "Strange Story Task" in human.stdout
    monkeypatch.delenv("MINDLOOP_TOMBENCH")
    bundled = runner.invoke(_describe_app(), ["--json"])  # no path, no variable: the copy shipped with mindloop
    assert bundled.exit_code == 0 and json.loads(bundled.stdout)["total"] == {"stories": 916, "questions": 2170}
    missing = runner.invoke(_describe_app(), [str(tombench_dir / "nope")])
    assert isinstance(missing.exception, MindloopError) and "no such file or directory" in str(missing.exception)


def test_score_with_a_model_judge_over_http(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mindloop.models.fake_server import FakeChatServer
    from mindloop.systems.omnitom.examples import TABLE2

    monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    labels = dict(zip(DIMENSIONS, ["1", "True", "Private", "Implicit", "Desire", "Inference", "Neutral"], strict=True))

    def record(rows: tuple[tuple[str, str, int], ...]) -> dict[str, object]:
        beliefs = [{"actor": a, "belief": b, "labels": labels} for a, b, _ in rows]
        return {"story_id": 1, "story_category": "PST", "story": TABLE2.story, "beliefs": beliefs}

    (tmp_path / "gold.json").write_text(json.dumps(record(TABLE2.gold)), encoding="utf-8")
    (tmp_path / "pred.json").write_text(json.dumps(record(TABLE2.predicted)), encoding="utf-8")

    def csv(rows: tuple[tuple[str, str, int], ...]) -> str:
        return "\n".join(["Actor,Belief,MatchCount", *(f"{a},{b},{c}" for a, b, c in rows)])

    reply = f"Prediction Table\n{csv(TABLE2.predicted)}\n\nGround Truth Table\n{csv(TABLE2.gold)}"
    seen: list[str] = []

    def answer(messages: list[dict[str, object]], body: dict[str, object]) -> str:
        seen.append(str(messages[0]["content"]))
        return reply

    with FakeChatServer(reply=answer) as server:
        args = ["score", "--pred", str(tmp_path / "pred.json"), "--gold", str(tmp_path / "gold.json"), "--json"]
        result = runner.invoke(omnitom_app, [*args, "--judge", "openai/judge", "--base-url", server.base_url])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["stage1"]["precision"] == 1.0 and out["stage1"]["recall"] == pytest.approx(5 / 6)
    assert out["stage1"]["f1"] == pytest.approx(10 / 11)
    assert len(seen) == 1 and seen[0].startswith("You are a Theory of Mind evaluation expert")


def test_a_stage1_gold_file_is_scored_in_text_with_stage2_not_applicable(tmp_path: Path) -> None:
    # Stage 1 golds label only the order (docs/omnitom.md): no story reaches Stage 2, so its tables are N/A throughout
    records = [r.to_json() for r in appendix_e_records()]
    for record in records:
        for belief in record["beliefs"]:
            belief["labels"] = {"order": belief["labels"]["order"]}
    gold = tmp_path / "orders_only.json"
    gold.write_text(json.dumps(records), encoding="utf-8")
    result = runner.invoke(omnitom_app, ["score", "--pred", str(gold), "--gold", str(gold), "--aligner", "exact"])
    assert result.exit_code == 0, result.output
    assert "Stage 1 (exact, offline stand-in for the judge): P 1.0000 R 1.0000 F1 1.0000 · Stage 2 overall N/A" in (
        result.stdout
    )
    table10 = result.stdout.split("Table 10 layout (%)")[1].split("By order bucket")[0]
    assert table10.count("N/A") == 7 * 7 and not any(ch.isdigit() for ch in table10), table10


def test_describe_tombench_shows_a_category_called_total_beside_the_total(
    tombench_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = sorted(tombench_dir.glob("*.jsonl"))[0].read_text(encoding="utf-8").splitlines()[0]
    (tmp_path / "total.jsonl").write_text(first + "\n" + first + "\n", encoding="utf-8")
    monkeypatch.setenv("COLUMNS", "100")
    human = runner.invoke(_describe_app(), [str(tmp_path / "total.jsonl")])
    assert human.exit_code == 0, human.output
    rows = [line.split("│")[1:4] for line in human.stdout.splitlines() if line.startswith("│ total")]
    assert [[cell.strip() for cell in row] for row in rows] == [["total", "1", "2"], ["total", "1", "2"]]

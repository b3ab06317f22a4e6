"""Issue 22 item 4: a suite runs the papers' single-shot protocol unless asked, ``bench run`` keeps its own default,
and every summary, table and JSON names the protocol that produced it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mindloop.bench.suite import SUITE_FORMAT_RETRIES, SuiteRequest
from mindloop.cli import main
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES


def test_defaults() -> None:
    assert SuiteRequest().format_retries == SUITE_FORMAT_RETRIES == 0
    assert DEFAULT_FORMAT_RETRIES == 1


def test_suite_json_and_report_name_the_protocol_and_the_samples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path))
    assert main(["suite", "run", "--only", "tomi", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    run = out["runs"][0]
    assert run["protocol"] == {"format_retries": 0, "name": "single-shot"}
    assert main(["suite", "report", out["suite_id"], "--json", "--no-run-reports", "-o", str(tmp_path / "r.json")]) == 0
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    entry = report["runs"][0]
    assert entry["protocol"]["format_retries"] == 0 and len(entry["sample_ids"]) == 20
    assert entry["sample_ids"] == [f"q{i:05d}" for i in range(20)]  # ToMi's balanced 20: five of each type
    table = report["tables"][0]
    assert "tomi protocol: single-shot (format retries 0)" in table["notes"]
    assert table["protocol"] == {"tomi": {"format_retries": 0, "name": "single-shot"}}
    assert main(["suite", "run", "--only", "tomi", "--format-retries", "2", "--json"]) == 0
    asked = json.loads(capsys.readouterr().out)["runs"][0]["protocol"]
    assert asked == {"format_retries": 2, "name": "2 format retries"}
    assert main(["bench", "run", "tomi", "--n", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["protocol"]["format_retries"] == 1  # bench run's own default

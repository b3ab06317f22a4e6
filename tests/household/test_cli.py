"""The ``data`` commands (``describe``, ``export``), run through typer's CliRunner on ``data_app``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from typer.testing import CliRunner

from mindloop.cli.data import data_app
from mindloop.errors import InvalidArgumentError, UnknownNameError

runner = CliRunner()


def test_describe_json_is_one_object_on_stdout() -> None:
    result = runner.invoke(data_app, ["describe", "mindpower-sim", "--n", "60", "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    # --n counts the scenarios that need help (the paper's 590 all do); controls add n // 5 beside them
    assert data["dataset"] == "mindpower-sim" and data["n"] == 72 and data["seed"] == 1
    assert data["help_needed"] == 60 and data["controls"] == 12
    assert set(data) >= {"task_type", "subtype", "humans", "controls", "special_needs", "dialogue_share"}
    assert result.stderr == ""


def test_describe_human_output_goes_to_stdout() -> None:
    result = runner.invoke(data_app, ["describe", "--n", "40"])
    assert result.exit_code == 0
    assert result.stderr == ""  # the tables are the result: they pipe
    assert "false_belief_correction" in result.stdout and "humans per scenario" in result.stdout


def test_export_writes_identical_files_for_the_same_seed(tmp_path: Path) -> None:
    outs = []
    for name in ("one", "two"):
        result = runner.invoke(
            data_app, ["export", "mindpower-sim", "--out", str(tmp_path / name), "--seed", "3", "--n", "25", "--json"]
        )
        assert result.exit_code == 0, result.output
        outs.append(json.loads(result.stdout))
    assert outs[0]["files"] == outs[1]["files"]
    for rel, sha in outs[0]["files"].items():
        assert hashlib.sha256((tmp_path / "two" / rel).read_bytes()).hexdigest() == sha
    human = runner.invoke(data_app, ["export", "--out", str(tmp_path / "three"), "--n", "5"])
    assert human.exit_code == 0 and "sha256" in human.stderr and human.stdout == ""


def test_bad_input_raises_mindloop_errors() -> None:
    unknown = runner.invoke(data_app, ["describe", "mindpower-sm"])
    assert isinstance(unknown.exception, UnknownNameError) and "did you mean 'mindpower-sim'" in str(unknown.exception)
    missing = runner.invoke(data_app, ["export", "mindpower-sim"])
    assert isinstance(missing.exception, InvalidArgumentError) and "--out" in str(missing.exception)
    zero = runner.invoke(data_app, ["describe", "--n", "0"])
    assert zero.exit_code == 2 and "--n" in zero.output

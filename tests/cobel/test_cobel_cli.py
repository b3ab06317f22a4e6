"""``mindloop cobel play``: one episode, the same numbers the benchmark records, beliefs that are valid SBL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mindloop.beliefs.views.sbl import parse_line
from mindloop.cli import main


def _play(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["cobel", "play", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_play_matches_the_benchmark_on_the_same_episode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    played = _play(capsys, "--world", "cwah", "--agents", "cobel,cobel", "--episode", "0")
    monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path))
    assert main(["bench", "run", "cwah", "--agents", "cobel,cobel", "--n", "1", "--json"]) == 0
    bench = json.loads(capsys.readouterr().out)
    # the benchmark's first sample is episode 0 of the same fixed test set: same team, same steps and tokens
    assert bench["metrics"]["avg_steps"] == played["steps"]
    assert bench["metrics"]["comm_tokens"] == played["comm_tokens"]
    assert played["comm_tokens"] == sum(m["tokens"] for m in played["messages"])


def test_beliefs_are_sbl_lines_of_each_agent(capsys: pytest.CaptureFixture[str]) -> None:
    played = _play(capsys, "--episode", "3", "--beliefs")
    assert set(played["beliefs"]) == {"Alice", "Bob"}
    for name, lines in played["beliefs"].items():
        assert lines, f"{name} believes nothing at the end of an episode"
        for line in lines:
            statement = parse_line(line, extend=True)
            assert statement.chain[0] == name  # every line is something this agent believes


def test_tdw_reports_a_transport_rate(capsys: pytest.CaptureFixture[str]) -> None:
    played = _play(capsys, "--world", "tdw-mat", "--agents", "heuristic")
    assert played["team"] == ["heuristic", "heuristic"]
    assert 0.0 <= played["transport_rate"] <= 1.0


def test_an_episode_outside_the_test_set_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cobel", "play", "--episode", "10"]) == 1
    assert "the cwah test set has 10" in capsys.readouterr().err


def test_old_group_names_still_work(capsys: pytest.CaptureFixture[str]) -> None:
    for old, new, command in (("claw", "mindclaw", "replay"), ("space", "tos", "render")):
        assert main([old, "--help"]) == 0
        alias = capsys.readouterr().out
        assert main([new, "--help"]) == 0
        assert command in alias and command in capsys.readouterr().out  # the same group under both names
    assert main(["--help"]) == 0
    listing = capsys.readouterr().out
    for slug in ("tom", "mindpower", "mindclaw", "omnitom", "cobel", "tos"):
        assert f"  {slug} " in listing
    assert "  claw " not in listing and "  space " not in listing  # aliases are hidden

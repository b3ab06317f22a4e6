"""``mindloop claw``: play a scripted session, record and replay, mine and validate skills (CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mindloop.systems.mindclaw.cli import mindclaw_app
from mindloop.worlds.household.scenarios import generate_scenario

runner = CliRunner()


def test_play_a_scripted_session_as_json(tmp_path: Path) -> None:
    lines = tmp_path / "lines.txt"
    # the scenario's own people (a dressed story names them): the one the gold plan gives the medicine to says it
    scenario = generate_scenario("ig_dialogue_need", 0, 0)
    give = scenario.gold.actions[-1]  # give(<the medicine>, <who needs it>)
    who = give.removesuffix(")").split(", ")[-1]
    other = next(h for h, _ in scenario.setup.humans if h != who)
    lines.write_text(f'{who}: say({other}, "I have a terrible headache.")\nwait\nquit\n')
    result = runner.invoke(
        mindclaw_app,
        [
            "play",
            "--subtype",
            "ig_dialogue_need",
            "--lines",
            str(lines),
            "--json",
            "--trace",
            str(tmp_path / "t.jsonl"),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["windows"] == 3 and data["actions"][0]["t"] == 2 and data["actions"][0]["ok"] is True
    assert data["actions"][0]["steps"][-1] == give
    assert len((tmp_path / "t.jsonl").read_text().splitlines()) == 3


def test_record_then_replay(tmp_path: Path) -> None:
    out = tmp_path / "w.jsonl"
    result = runner.invoke(mindclaw_app, ["record", "fb_two_humans", "--out", str(out), "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout) == {"windows": 22, "path": str(out)}
    result = runner.invoke(mindclaw_app, ["replay", str(out), "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["windows"] == 22 and [a["t"] for a in data["actions"]] == [15] and data["failures"] == []
    human = runner.invoke(mindclaw_app, ["replay", str(out)])
    gold = generate_scenario("fb_two_humans", 0, 0).gold.actions  # walk(<cupboard>), ..., give(<item>, <who>)
    item, who = gold[-1].removeprefix("give(").removesuffix(")").split(", ")
    assert f"t15  reasoning({who}, {item}): false_belief, intervene; action: {gold[0]}" in human.output
    bad = runner.invoke(mindclaw_app, ["replay", str(tmp_path / "nothing")])
    assert bad.exit_code != 0 and "neither a window file" in str(bad.exception)


@pytest.mark.xdist_group("claw-train")  # one worker makes the train split's decisions, once
def test_skills_mine_and_validate(tmp_path: Path) -> None:
    out = tmp_path / "skills.yaml"
    small = ["--dataset-n", "150"]  # a quarter of the default set: the same nine skills, mined in a quarter the time
    result = runner.invoke(mindclaw_app, ["skills", "mine", "--out", str(out), *small, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["skills"] == data["strong"] + data["preferred"] + data["negative"] > 0 and data["failures"] == []
    # a person edits the file: loosens a strong skill; validation measures what that costs
    doc = yaml.safe_load(out.read_text())
    doc["operations"]["noop"]["strong"][0]["when"] = {"next_write": "none"}
    out.write_text(yaml.safe_dump(doc, sort_keys=False))
    result = runner.invoke(mindclaw_app, ["skills", "validate", str(out), *small, "--json"])
    assert result.exit_code == 0
    rows = {r["id"]: r for r in json.loads(result.stdout)["skills"]}
    assert rows["noop-s1"]["precision"] < 1.0  # without "no cue", noop is sometimes wrong

"""``mindloop space`` (render / generate / explore) through typer's CliRunner on ``tos_app``."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems.tos.cli import tos_app
from mindloop.systems.tos.world import generate_scene, load_scene

runner = CliRunner()
DATA = Path(__file__).parent / "data"
RUN00 = str(DATA / "run00_meta_data.json")


def test_render_prints_the_start_observation() -> None:
    result = runner.invoke(tos_app, ["render", RUN00])
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "You observe: \n• bike: front-right, mid distance, facing left\n• lamp: front, mid distance\n"
        "• blue door: front-right, slightly far, on front wall.\n"
    )


def test_render_other_poses_json_image_and_map(tmp_path: Path) -> None:
    image = tmp_path / "view.png"
    result = runner.invoke(tos_app, ["render", RUN00, "--facing", "east", "--json", "--image", str(image), "--map"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["position"] == [0, 0] and data["facing"] == "east"
    assert [i["name"] for i in data["items"]] == ["television", "cap", "green door", "blue door"]
    assert data["pairs"] == [{"a": "television", "b": "cap", "direction": "south", "distance": "near"}]
    assert image.read_bytes()[:4] == b"\x89PNG" and "green door joins rooms 1-3" in result.stderr
    at = runner.invoke(tos_app, ["render", RUN00, "--at", "green door", "--facing", "east", "--json"])
    assert json.loads(at.stdout)["position"] == [6, 3]


def test_generate_and_explore(tmp_path: Path) -> None:
    out = tmp_path / "scene.json"
    result = runner.invoke(tos_app, ["generate", "--seed", "4", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert load_scene(out) == generate_scene(4)
    explored = runner.invoke(tos_app, ["explore", str(out), "--agent", "symbolic", "--json"])
    assert explored.exit_code == 0, explored.output
    data = json.loads(explored.stdout)
    assert data["coverage"] == 1.0 and data["map"]["overall"] == 1.0 and data["steps"] <= 20
    human = runner.invoke(tos_app, ["explore", RUN00, "--agent", "scout"])
    assert human.exit_code == 0 and human.stderr == "" and "scout:" in human.stdout


def test_bad_input_raises_mindloop_errors(tmp_path: Path) -> None:
    missing = runner.invoke(tos_app, ["render", str(tmp_path / "nope.json")])
    assert isinstance(missing.exception, ParseError) and "no such scene file" in str(missing.exception)
    unknown = runner.invoke(tos_app, ["render", RUN00, "--at", "piano"])
    assert isinstance(unknown.exception, InvalidArgumentError) and "piano" in str(unknown.exception)
    bad_facing = runner.invoke(tos_app, ["render", RUN00, "--facing", "up"])
    assert bad_facing.exit_code == 2

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mindloop import __version__
from mindloop.cli import main
from mindloop.systems.mindclaw.demo import DEMO_SCENARIO
from mindloop.worlds.household.scenarios import generate_scenario

TINY = "1 Ann entered the den.\n2 The pear is in the box.\n3 Where is the pear really?\tbox\t1\n"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"mindloop {__version__}"


def test_help_lists_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "demo" in out and "tom" in out


def test_demo_shows_the_false_belief(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the timeline wraps; compare with whitespace collapsed
    # the demo's people and thing as its dressed story names them: the gold plan ends give(<thing>, <searcher>)
    give = generate_scenario(*DEMO_SCENARIO).gold.actions[-1]
    item, who = give.removeprefix("give(").removesuffix(")").split(", ")
    person, thing = who.capitalize(), item.replace("_", " ")
    assert f"{person} still believes the {thing} is in the" in out  # the stale belief appears
    assert f"silent: {person}'s stale belief blocks nobody" in out  # ... and the robot stays silent
    assert f"{person} is searching for the {thing}: she believes it is in the" in out  # reasoning when she searches
    assert give in out and f"{person} now has the {thing}" in out  # one action, executed, and its effect
    assert f"One intervention, at window 15, the moment {person} came back searching" in out
    assert f"The {thing} is with {person}." in out
    assert "HTML report:" in out or "mindloop report RUN_ID" in out  # the report (or how to get it)


def test_tom_eval_json_is_one_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.txt"
    path.write_text(TINY)
    assert main(["tom", "eval", str(path), "--format", "tomi", "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert set(data) >= {"accuracy", "n", "by_type", "seconds"}
    assert data["accuracy"] == 1.0 and data["n"] == 1
    assert data["by_type"] == {"reality": {"accuracy": 1.0, "n": 1}}


def test_tom_eval_hitom_dev_json(hitom_dev: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tom", "eval", str(hitom_dev), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n"] == 240 and sorted(data["by_type"]) == [f"order_{k}" for k in range(5)]
    assert all(v["n"] == 48 for v in data["by_type"].values())


def test_tom_eval_human_output_lists_wrong_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.txt"
    path.write_text(TINY.replace("\tbox\t", "\tcrate\t"))
    assert main(["tom", "eval", str(path)]) == 0
    out = capsys.readouterr().out  # results go to stdout, so they pipe
    assert "1 wrong" in out and "gold crate, tracker box" in out


@pytest.mark.parametrize(
    "args",
    [
        ["tom", "eval", "/nonexistent/file.txt"],
        ["tom", "eval", "x.txt", "--format", "babi"],
        ["no-such-command"],
        ["tom", "eval"],
    ],
)
def test_usage_and_input_errors_exit_1_with_one_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip()


def test_malformed_file_exits_1_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("1 Ann entered the den.\n2 Ann sang loudly.\n3 Where is the pear really?\tbox\t1\n")
    assert main(["tom", "eval", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:2: unknown sentence (got 'Ann sang loudly.')" in err
    assert len(err.strip().splitlines()) == 1


def test_internal_errors_exit_2(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import mindloop.systems.mindclaw.demo

    def boom(*_: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(mindloop.systems.mindclaw.demo, "run_demo", boom)
    assert main(["demo"]) == 2
    assert "internal error: RuntimeError: kaboom" in capsys.readouterr().err


@pytest.mark.boundary  # the installed entry point, as a process
def test_console_script_runs_as_a_process() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mindloop.cli", "--version"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and proc.stdout.strip() == f"mindloop {__version__}"


def test_tom_generate_is_seeded_and_scores_perfectly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mindloop.worlds.stories import generate_tomi, to_numbered_text

    out = tmp_path / "gen.txt"
    assert main(["tom", "generate", "--n", "50", "--seed", "7", "--hitom", "-o", str(out)]) == 0
    expected = to_numbered_text(generate_tomi(50, seed=7, max_order=4, hitom_questions=True, reveal_on_entry=False))
    assert out.read_text(encoding="utf-8") == expected
    capsys.readouterr()
    assert main(["tom", "eval", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n"] == 50 and data["accuracy"] == 1.0


def test_tom_generate_rejects_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tom", "generate", "--noise", "0.9"]) == 1
    assert capsys.readouterr().err.strip() == "mindloop: error: noise must be between 0 and 0.5, got 0.9"

"""The datasets' released files read as released: ToMi's ``.txt`` + ``.trace``.

``data/tomi_excerpt.txt`` and ``.trace`` are four stories written here in the shape of ToMi's release (each story
once per question, six questions per story, one trace line per question). Their gold answers and trace labels
were worked by hand from ToMi's generator (facebookresearch/ToMi, ``tomi/story.py``): in the fourth story a third
agent enters the room, and the generator applies that entrance after everything else, so its second-order gold
answers are the final container (see docs/tom.md).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindloop.cli import app
from mindloop.errors import ParseError
from mindloop.systems.tom import evaluate_file
from mindloop.worlds.stories.releases import TOMI_QUESTION_TYPES, read_dataset, read_tomi_trace

DATA = Path(__file__).parent / "data"
EXCERPT = DATA / "tomi_excerpt.txt"


def test_trace_lines_are_read_with_story_and_question_types() -> None:
    traces = read_tomi_trace(EXCERPT.with_suffix(".trace"))
    assert len(traces) == 24
    first = traces[0]
    assert first.story_type == "false_belief" and first.question_type == "memory"
    assert first.events == ("enter_agent_1", "enter_agent_0", "agent_1_exits", "agent_0_moves_obj")
    kinds = [t.story_type for t in traces[::6]]
    assert kinds == ["false_belief", "second_order_false_belief", "true_belief", "false_belief"]


def test_tom_eval_reports_by_story_type_and_question_type() -> None:
    report = evaluate_file(EXCERPT)
    assert report.format == "tomi" and report.n == 24
    # Worked by hand: the tracker misses only the two second-order questions of the fourth story, whose released
    # gold (the final container) follows the generator's late third-agent entrance, not the story.
    assert [(a.example.line, a.predicted) for a in report.wrong] == [(153, "basket"), (174, "basket")]
    story = {k: (v.n, v.accuracy) for k, v in report.breakdowns["by_story_type"].items()}
    assert story == {"true_belief": (6, 1.0), "false_belief": (12, 10 / 12), "second_order_false_belief": (6, 1.0)}
    question = {k: (v.n, v.accuracy) for k, v in report.breakdowns["by_question_type"].items()}
    assert question == {
        "reality": (4, 1.0),
        "memory": (4, 1.0),
        "first_order_0_tom": (1, 1.0),
        "first_order_1_tom": (1, 1.0),
        "first_order_0_no_tom": (3, 1.0),
        "first_order_1_no_tom": (3, 1.0),
        "second_order_0_tom": (2, 1.0),
        "second_order_1_tom": (2, 1.0),
        "second_order_0_no_tom": (2, 0.5),
        "second_order_1_no_tom": (2, 0.5),
    }
    assert list(question) == list(TOMI_QUESTION_TYPES)


def test_tom_eval_json_keeps_its_keys_and_adds_the_trace_breakdowns() -> None:
    result = CliRunner().invoke(app, ["tom", "eval", str(EXCERPT), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert {"format", "accuracy", "n", "by_type", "seconds", "by_story_type", "by_question_type"} <= set(out)
    assert out["accuracy"] == 22 / 24 and out["by_type"]["second_order"] == {"accuracy": 0.75, "n": 8}
    assert out["by_story_type"]["false_belief"] == {"accuracy": 10 / 12, "n": 12}
    human = CliRunner().invoke(app, ["tom", "eval", str(EXCERPT)])
    assert human.exit_code == 0 and "second_order_false_belief" in human.output and "story type" in human.output


def test_without_a_trace_there_is_no_trace_breakdown(tmp_path: Path) -> None:
    alone = tmp_path / "test.txt"
    shutil.copy(EXCERPT, alone)
    report = evaluate_file(alone)
    assert report.breakdowns == {} and "by_story_type" not in report.to_json()
    assert all(a.example.trace is None for a in report.answers)


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda lines: lines[:-1], "has 23 trace lines but the story file beside it has 24 questions"),
        (lambda lines: ["x," + lines[0].replace("false_belief", "odd_belief"), *lines[1:]], "unknown story type"),
        (lambda lines: [lines[0].replace("memory", "third_order_0_tom"), *lines[1:]], "unknown question type"),
        (lambda lines: [lines[0].replace("memory", "reality"), *lines[1:]], "trace line 1 says 'reality'"),
        (lambda lines: ["Enter Agent,memory,true_belief", *lines[1:]], "malformed generator step"),
    ],
)
def test_a_bad_trace_is_a_clear_error(tmp_path: Path, edit: Callable[[list[str]], list[str]], needle: str) -> None:
    shutil.copy(EXCERPT, tmp_path / "test.txt")
    lines = EXCERPT.with_suffix(".trace").read_text(encoding="utf-8").splitlines()
    (tmp_path / "test.trace").write_text("\n".join(edit(lines)) + "\n", encoding="utf-8")
    with pytest.raises(ParseError, match=needle):
        read_dataset(tmp_path / "test.txt")

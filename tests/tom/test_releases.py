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


# -- Hi-ToM's released JSON -----------------------------------------------------------------------------------
# data/hitom_excerpt.json: two stories written here in the shape of Hi-ToM_data.json, each question released twice
# (CoTP, then VP with the instruction line), 15 lettered choices. The VP copy of the order-2 question carries the
# label Hi-ToM's VP copies give such questions (the place before the asker's own move: red_box); by the dataset's
# rules Ann saw Bo watch her move the pear, so the answer is blue_crate (the CoTP copy, and the tracker).
HITOM_JSON = DATA / "hitom_excerpt.json"


def test_hitom_json_items_carry_every_released_field() -> None:
    fmt, examples = read_dataset(HITOM_JSON)
    assert fmt == "hitom" and len(examples) == 10
    vp = examples[6]
    assert vp.hitom is not None
    assert (vp.hitom.sample_id, vp.hitom.prompting_type, vp.hitom.question_order) == (302, "VP", 2)
    assert (vp.hitom.deception, vp.hitom.story_length) == (False, 1)
    assert vp.question.chain == ("Ann", "Bo") and vp.question.answer == "red_box"
    assert len(vp.hitom.choices) == 15 and {"red_box", "blue_crate", "green_bag"} <= set(vp.hitom.choices)
    raw = json.loads(HITOM_JSON.read_text(encoding="utf-8"))["data"][6]["choices"]
    assert raw.startswith(f"A. {vp.hitom.choices[0]}, B. {vp.hitom.choices[1]},")
    # the VP story's instruction line is not a sentence; numbering is the story's own
    assert vp.sentences[0] == (1, "Ann, Bo and Cy entered the den.") and len(vp.sentences) == 9
    assert [e.hitom.deception for e in examples if e.hitom] == [False] * 8 + [True] * 2


def test_tom_eval_on_hitom_json_reports_by_every_field() -> None:
    report = evaluate_file(HITOM_JSON)
    assert [a.example.hitom.sample_id for a in report.wrong if a.example.hitom] == [302]
    table = {key: {k: (v.n, v.accuracy) for k, v in scores.items()} for key, scores in report.breakdowns.items()}
    assert table == {
        "by_order": {"0": (2, 1.0), "1": (4, 1.0), "2": (2, 0.5), "3": (2, 1.0)},
        "by_deception": {"false": (8, 7 / 8), "true": (2, 1.0)},
        "by_length": {"1": (10, 0.9)},
        "by_prompting_type": {"CoTP": (5, 1.0), "VP": (5, 0.8)},
    }
    assert report.pairs is not None
    assert [report.pairs[k] for k in ("pairs", "disagreeing", "n", "accuracy")] == [5, 1, 4, 1.0]
    out = json.loads(CliRunner().invoke(app, ["tom", "eval", str(HITOM_JSON), "--json"]).stdout)
    assert out["accuracy"] == 0.9 and out["n"] == 10 and out["by_type"]["order_2"] == {"accuracy": 0.5, "n": 2}
    assert out["agreed_pairs"] == {"accuracy": 1.0, "n": 4, "pairs": 5, "disagreeing": 1, "unpaired": 0}


def test_bundled_hitom_split_carries_both_copies() -> None:
    """The bundled split holds 120 pairs twice (its meta names each copy's prompting type); 34 pairs disagree."""
    from mindloop.systems.tom.benchmarks import bundled_hitom_path

    report = evaluate_file(bundled_hitom_path())
    assert report.pairs is not None
    assert [report.pairs[k] for k in ("pairs", "disagreeing", "n", "unpaired")] == [120, 34, 86, 0]
    by_prompting = report.breakdowns["by_prompting_type"]
    assert {k: round(v.accuracy * v.n) for k, v in by_prompting.items()} == {"CoTP": 117, "VP": 85}
    assert report.pairs["accuracy"] == 84 / 86
    # the VP copies are exactly the stories preceded by the VP instruction line
    lines = bundled_hitom_path().read_text(encoding="utf-8").splitlines()
    for a in report.answers:
        assert a.example.hitom is not None
        assert (a.example.hitom.prompting_type == "VP") == lines[a.example.line - 2].startswith("Read the following")


def _item(**changes: object) -> dict[str, object]:
    item = dict(json.loads(HITOM_JSON.read_text(encoding="utf-8"))["data"][2])
    item.update(changes)
    return item


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{", "not valid JSON"),
        (json.dumps({"rows": []}), "'data' is a non-empty list"),
        (
            json.dumps({"data": [_item(question_order=7)]}),
            r"data\[0\]\.question_order: .*less than or equal to 4 \(got '7'\)",
        ),
        (json.dumps({"data": [_item(question_order=3)]}), "question_order is 3 but the question asks order 2"),
        (json.dumps({"data": [_item(answer="jar")]}), r"sample_id 2\): the answer is not one of the 15 choices"),
        (json.dumps({"data": [_item(choices="A. red_box, C. jar")]}), "expected choice 'B. container'"),
        (json.dumps({"data": [_item(prompting_type="ZS")]}), "prompting_type must be one of CoTP, VP"),
        (json.dumps({"data": [_item(question="Who is Ann?")]}), "unknown question form"),
        (json.dumps({"data": [_item(story="Ann entered the den.")]}), "expected a numbered line"),
    ],
)
def test_a_bad_hitom_json_is_a_clear_error(tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "Hi-ToM_data.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ParseError, match=needle):
        read_dataset(path)
    with pytest.raises(ParseError, match="not as ToMi"):
        read_dataset(path, "tomi")

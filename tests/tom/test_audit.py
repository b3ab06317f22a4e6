"""The independent check of ToMi gold against the story (mindloop.systems.tom.audit), on hand-worked stories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindloop.cli import app
from mindloop.systems.tom import evaluate_file
from mindloop.systems.tom.audit import audit_examples, story_answer
from mindloop.worlds.stories import generate_tomi, read_examples, to_numbered_text
from mindloop.worlds.stories.releases import read_dataset

EXCERPT = Path(__file__).parent / "data" / "tomi_excerpt.txt"

# ToMi's generator story with a third agent (data/tomi_excerpt.txt, fourth story). Worked by hand: Zoe enters while
# Ava and Liam are there and nothing is placed yet; all three see the plum put in the basket; Liam leaves; Ava
# moves it to the bucket with only Zoe watching. Liam last saw it in the basket, and Ava saw him leave before her
# move, so both "Ava thinks Liam searches" and "Liam thinks Ava searches" are basket. ToMi's generator built Zoe's
# entrance after the move and gave every pair of its stale observer list the final container: its gold is bucket.
THIRD_AGENT = [
    "Ava entered the den.",
    "Liam entered the den.",
    "Zoe entered the den.",
    "The plum is in the basket.",
    "Liam exited the den.",
    "Ava moved the plum to the bucket.",
]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Where was the plum at the beginning?", "basket"),
        ("Where is the plum really?", "bucket"),
        ("Where will Ava look for the plum?", "bucket"),
        ("Where will Liam look for the plum?", "basket"),
        ("Where does Ava think that Liam searches for the plum?", "basket"),
        ("Where does Liam think that Ava searches for the plum?", "basket"),
        ("Where does Zoe think that Ava searches for the plum?", "bucket"),
        ("Where does Zoe think that Liam searches for the plum?", "basket"),
    ],
)
def test_story_answers_worked_by_hand(question: str, expected: str) -> None:
    assert story_answer(THIRD_AGENT, question) == expected


def test_the_issue_stories_with_an_agent_in_another_room() -> None:
    first = ["Mia entered the kitchen.", "Noah entered the kitchen.", "Owen entered the garage."]
    rest = ["The apple is in the red_box.", "Mia exited the kitchen.", "Noah moved the apple to the blue_crate."]
    assert story_answer([*first, *rest], "Where will Mia look for the apple?") == "red_box"
    story = [*first, "Owen exited the garage.", *rest]
    assert story_answer(story, "Where does Noah think that Mia searches for the apple?") == "red_box"
    assert story_answer(story, "Where will Owen look for the apple?") is None  # never in the kitchen


def test_entering_shows_the_room_and_second_order_false_belief() -> None:
    # ToMi's second-order false belief: Jack moves the apple after Chloe left, then leaves; Chloe comes back and
    # sees it (ToMi's entrance policy), but Jack is gone and does not know she saw it.
    story = [
        "Jack entered the kitchen.",
        "Chloe entered the kitchen.",
        "The apple is in the red_box.",
        "Chloe exited the kitchen.",
        "Jack moved the apple to the blue_crate.",
        "Jack exited the kitchen.",
        "Jack loves the apple",
        "Chloe entered the kitchen.",
    ]
    assert story_answer(story, "Where will Chloe look for the apple?") == "blue_crate"
    assert story_answer(story, "Where does Jack think that Chloe searches for the apple?") == "red_box"
    assert story_answer(story, "Where does Chloe think that Jack searches for the apple?") == "red_box"


def test_what_the_check_does_not_model_is_left_unchecked() -> None:
    told = ["Ann entered the den.", "The pen is in the box.", "Ann told Bo where the pen is."]
    assert story_answer(told, "Where will Bo look for the pen?") is None
    assert story_answer(["Ann entered the den."], "Where is the pen really?") is None
    assert story_answer(THIRD_AGENT, "Where does Ava think Liam thinks the plum is?") is None  # Hi-ToM phrasing


def test_audit_of_the_excerpt_flags_exactly_the_generator_errors() -> None:
    _, examples = read_dataset(EXCERPT)
    report = audit_examples(examples)
    assert report.checked == 24 and report.contradicted == 2
    flagged = [(f.example.question.text, f.example.question.answer, f.story) for f in report.contradictions]
    assert flagged == [
        ("Where does Ava think that Liam searches for the plum?", "bucket", "basket"),
        ("Where does Liam think that Ava searches for the plum?", "bucket", "basket"),
    ]


def test_audit_agrees_with_the_generators_independent_gold(tmp_path: Path) -> None:
    """Three separate bookkeepings (generator, audit, and the tracker elsewhere) agree on generated ToMi."""
    path = tmp_path / "generated.txt"
    path.write_text(to_numbered_text(generate_tomi(600, seed=11, noise=0.2)), encoding="utf-8")
    report = audit_examples(read_examples(path))
    assert report.checked == 600 and report.contradicted == 0


def test_tom_eval_prints_the_count_beside_accuracy() -> None:
    report = evaluate_file(EXCERPT)
    assert report.audit is not None and report.audit.contradicted == 2
    out = json.loads(CliRunner().invoke(app, ["tom", "eval", str(EXCERPT), "--json"]).stdout)
    assert (out["accuracy"], out["gold_contradicts_story"], out["gold_checked"]) == (22 / 24, 2, 24)
    human = " ".join(CliRunner().invoke(app, ["tom", "eval", str(EXCERPT), "--show-wrong", "0"]).output.split())
    assert "accuracy against the released gold: 0.917" in human and "witness semantics: 2 of the 24" in human
    assert evaluate_file(Path(__file__).parent / "data" / "hitom_excerpt.json").audit is None

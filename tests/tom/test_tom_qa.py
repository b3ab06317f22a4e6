"""The choice reader reads the forms models really produce on ToMi and Hi-ToM's lettered containers, and refuses
to guess between choices."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from mindloop.bench.reader import Reading, read_choice
from mindloop.models.replies import letters
from mindloop.systems.tom.agents import HITOM_ASSUMPTIONS, build_prompt

CHOICES = ["green_drawer", "blue_pantry", "red_box"]


def parse_answer(reply: str, choices: Sequence[str]) -> Reading:
    """The reading of a reply to a ToMi or Hi-ToM prompt, whose choices are lettered A, B, ..."""
    return read_choice(reply, choices, letters(len(choices)))


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("B", "blue_pantry"),
        ("(C)", "red_box"),
        ("B.", "blue_pantry"),
        ("A. green_drawer\n\nExplanation: Owen saw it.", "green_drawer"),
        ("blue_pantry", "blue_pantry"),
        ("The Blue Pantry.", "blue_pantry"),
        ("Answer: red_box", "red_box"),
        ("Let me think. It was in the red_box, then moved.\nFinal answer: green drawer", "green_drawer"),
        ("Owen thinks the lettuce is in the green_drawer.", "green_drawer"),
        ("The answer is option C because Jack left early.", "red_box"),
    ],
)
def test_parses_letters_names_and_sentences(reply: str, expected: str) -> None:
    assert parse_answer(reply, CHOICES).choice == expected


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("", "empty"),
        ("I don't know.", "names none"),
        ("It went from the red_box to the blue_pantry.", "names several"),
    ],
)
def test_refuses_to_guess(reply: str, reason: str) -> None:
    parsed = parse_answer(reply, CHOICES)
    assert parsed.choice is None and reason in parsed.how


def test_a_letter_that_disagrees_with_the_name_beside_it_is_not_trusted() -> None:
    # "A. blue_pantry": letter A is green_drawer, the name says blue_pantry; the name is the only unambiguous part.
    assert parse_answer("A. blue_pantry", CHOICES).choice == "blue_pantry"


def test_names_match_whole_words_only() -> None:
    assert parse_answer("the box", ["box", "boxes"]).choice == "box"
    assert parse_answer("boxes", ["box", "boxes"]).choice == "boxes"


def test_hitom_prompt_carries_the_assumptions_and_lettered_choices() -> None:
    [msg] = build_prompt(["Ann entered the den."], "Where is the pen really?", CHOICES, hitom=True)
    text = msg["content"]
    assert HITOM_ASSUMPTIONS in text
    assert "Choices: A. green_drawer, B. blue_pantry, C. red_box" in text
    assert text.index("Story:") < text.index("Ann entered the den.") < text.index("Question: Where is the pen")
    [plain] = build_prompt(["Ann entered the den."], "Where is the pen really?", CHOICES, hitom=False)
    assert HITOM_ASSUMPTIONS not in plain["content"]


# Replies a real small model wrote (Qwen2.5-Coder-0.5B on llama.cpp, issue 17), which the old parser rejected.
@pytest.mark.parametrize(
    ("reply", "choices", "expected"),
    [
        (
            "It was in the red_box, then Owen moved it.\nSo the answer is:\nC. blue_pantry",
            ["red_box", "green_drawer", "blue_pantry"],
            "blue_pantry",
        ),
        (
            "Noah saw the move to the blue_box. Mia did not, "
            "so the answer to the multiple-choice question is B. red_drawer.",
            ["blue_box", "red_drawer"],
            "red_drawer",
        ),
        (
            "The green_cupboard was empty. The correct choice is B: cupboard.",
            ["green_cupboard", "cupboard"],
            "cupboard",
        ),
        ("Not the green_drawer: the answer is **B**.", ["green_drawer", "red_box"], "red_box"),
        ("### Answer\n**red_crate**", ["crate", "red_crate"], "red_crate"),
    ],
)
def test_reads_cues_the_line_after_and_markdown(reply: str, choices: list[str], expected: str) -> None:
    assert parse_answer(reply, choices).choice == expected


@pytest.mark.parametrize(("gold", "other"), [("crate", "red_crate"), ("cupboard", "green_cupboard")])
def test_a_name_inside_a_longer_name_is_not_a_mention(gold: str, other: str) -> None:
    for choices in ([gold, other], [other, gold]):
        assert parse_answer(gold, choices).choice == gold
        assert parse_answer(other, choices).choice == other
        assert parse_answer(f"It is in the {other}.", choices).choice == other


def test_an_exact_gold_reply_parses_on_every_generated_tomi_question() -> None:
    from mindloop.worlds.stories import generate_tomi
    from mindloop.worlds.stories.tomi import story_containers

    for ex in generate_tomi(1000, seed=0):
        choices = list(story_containers(list(enumerate(ex.sentences, 1))))
        assert parse_answer(ex.answer, choices).choice == ex.answer, (ex.answer, choices)
        assert parse_answer(ex.answer, choices).strict == ex.answer


@pytest.mark.parametrize(
    ("reply", "strict", "flexible"),
    [
        ("B", "blue_pantry", "blue_pantry"),
        ("(C)", "red_box", "red_box"),
        ("A. green_drawer\nbecause Owen saw it", "green_drawer", "green_drawer"),
        ("blue pantry.", "blue_pantry", "blue_pantry"),
        ("The answer is B.", None, "blue_pantry"),  # readable, but not in the strict format
        ("A. blue_pantry", None, "blue_pantry"),  # letter and name disagree: strict refuses, the name decides
    ],
)
def test_strict_and_flexible_extraction(reply: str, strict: str | None, flexible: str | None) -> None:
    parsed = parse_answer(reply, CHOICES)
    assert (parsed.strict, parsed.choice) == (strict, flexible)


def test_hitom_vp_items_get_the_release_vanilla_instruction() -> None:
    [vp] = build_prompt(["Ann entered the den."], "Where is the pen really?", CHOICES, hitom=True, prompting_type="VP")
    assert vp["content"].startswith("Read the following story and answer the multiple-choice question. Please provide")
    [cot] = build_prompt(
        ["Ann entered the den."], "Where is the pen really?", CHOICES, hitom=True, prompting_type="CoTP"
    )
    assert "Think step-by-step" in cot["content"] and "without explanations" not in cot["content"]


def test_every_readable_real_reply_parses_to_its_hand_label_and_unusable_ones_are_refused() -> None:
    """Replies a real small model wrote in a hitom run, each labelled by a person ("readable: X" or "unusable")."""
    import json
    from pathlib import Path

    rows = [json.loads(line) for line in (Path(__file__).parent / "data" / "real_replies.jsonl").open()]
    corpus = [item for item in rows if item["benchmark"] == "hitom"]  # OpenToM's: tests/tom/test_opentom.py
    assert len(corpus) >= 12
    for item in corpus:
        parsed = parse_answer(item["reply"], item["choices"])
        if item["label"] == "unusable":
            assert parsed.choice is None, item["reply"]
        else:
            assert parsed.choice == item["label"].removeprefix("readable: "), item["reply"]

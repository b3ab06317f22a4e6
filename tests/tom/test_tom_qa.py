"""The answer parser reads the forms models really produce, and refuses to guess between choices."""

from __future__ import annotations

import pytest

from mindloop.systems.tom.agents import HITOM_ASSUMPTIONS, build_prompt, parse_answer

CHOICES = ["green_drawer", "blue_pantry", "red_box"]


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

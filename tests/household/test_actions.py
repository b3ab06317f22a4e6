"""The text form of actions: parsing, aliases of the paper's action names, and typed failures."""

from __future__ import annotations

import pytest

from mindloop.worlds.household import Action, Failure, FailureKind, parse_action, parse_actions


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("walk(fridge)", Action("walk", ("fridge",))),
        ("walk (fridge)", Action("walk", ("fridge",))),
        ("Walk (the Kitchen Table).", Action("walk", ("kitchen_table",))),
        ("grab(mug)", Action("pick", ("mug",))),
        ("Grab(mug)", Action("pick", ("mug",))),
        ("put(apple, kitchen_table)", Action("place", ("apple", "kitchen_table"))),
        ("PutIn(apple, fridge)", Action("putin", ("apple", "fridge"))),
        ("TurnLeft", Action("turn", ("left",))),
        ("SwitchOff(faucet)", Action("switchoff", ("faucet",))),
        ("next_to(fridge)", Action("walk", ("fridge",))),
        ("give (mug, David)", Action("give", ("mug", "david"))),
        ("move(fire hydrant, corner)", Action("move", ("fire_hydrant", "corner"))),
        (
            'say(alice, "The mug, I think, is in the dishwasher.")',
            Action("say", ("alice",), "The mug, I think, is in the dishwasher."),
        ),
        ("speak(alice, apple, fridge)", Action("say", ("alice", "apple", "fridge"))),
        ("wait", Action("wait")),
        ("stand", Action("standup")),
    ],
)
def test_parse(text: str, expected: Action) -> None:
    assert parse_action(text) == expected


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("fly(moon)", FailureKind.UNKNOWN_VERB),
        ("walk(a, b)", FailureKind.WRONG_ARITY),
        ("give(mug)", FailureKind.WRONG_ARITY),
        ("standup(now)", FailureKind.WRONG_ARITY),
        ("pick(apple", FailureKind.PARSE_ERROR),
        ("pick(apple,)", FailureKind.PARSE_ERROR),
        ('say(alice, "unterminated)', FailureKind.PARSE_ERROR),
        ("turn(up)", FailureKind.WRONG_ARGUMENT),
        ('walk("kitchen")', FailureKind.WRONG_ARGUMENT),
        ("", FailureKind.PARSE_ERROR),
        ("42", FailureKind.PARSE_ERROR),
    ],
)
def test_bad_text_is_a_typed_failure(text: str, kind: FailureKind) -> None:
    result = parse_action(text)
    assert isinstance(result, Failure)
    assert result.kind is kind and result.is_input_error
    assert result.message


def test_unknown_verb_suggests_close_names() -> None:
    result = parse_action("opne(fridge)")
    assert isinstance(result, Failure) and "open" in result.message


def test_round_trip_through_str() -> None:
    for text in ("walk(fridge)", "give(mug, david)", 'say(alice, "Hello there.")', "wait()"):
        action = parse_action(text)
        assert isinstance(action, Action)
        assert str(action) == text
        assert parse_action(str(action)) == action


def test_parse_the_papers_action_line() -> None:
    # Fig. 15, Example 1 <Action> line.
    line = "walk (dishwasher), open (dishwasher), pick (mug), close (dishwasher), walk (David), give (mug, David)."
    actions = parse_actions(line)
    assert [str(a) for a in actions] == [
        "walk(dishwasher)",
        "open(dishwasher)",
        "pick(mug)",
        "close(dishwasher)",
        "walk(david)",
        "give(mug, david)",
    ]

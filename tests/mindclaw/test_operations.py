"""The operation space of eq. (8): text form, strict parsing, slot grounding in the window's candidates."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mindloop.errors import ParseError
from mindloop.systems.mindclaw.operations import (
    OPERATION_VERBS,
    SIGNATURES,
    Operation,
    SlotError,
    check_operation,
    parse_operation,
)
from mindloop.systems.mindclaw.window import Candidates

C = Candidates(frozenset({"alice", "bob"}), frozenset({"apple", "faucet"}), frozenset({"fridge", "kitchen", "bob"}))


def test_the_seven_operations_of_eq_8_in_order() -> None:
    assert OPERATION_VERBS == (
        "belief_create_visual_fact",
        "belief_update_visual_fact",
        "belief_create_actor_belief",
        "belief_update_actor_belief",
        "reasoning_run",
        "action_run",
        "noop",
    )
    # visual facts have no actor; reasoning and action have no location; noop has no slot at all
    assert SIGNATURES["belief_update_visual_fact"][0] == "none"
    assert SIGNATURES["reasoning_run"][2] == "none" and SIGNATURES["action_run"][2] == "none"
    assert SIGNATURES["noop"] == ("none", "none", "none")


names = st.sampled_from(["alice", "apple", "fridge", "kitchen_cabinet", "x-1", "a.b"])


@given(st.sampled_from(OPERATION_VERBS), names, names, names)
def test_text_round_trip(verb: str, a: str, b: str, c: str) -> None:
    op = Operation(
        verb, *[x if kind != "none" else "none" for kind, x in zip(SIGNATURES[verb], (a, b, c), strict=True)]
    )
    assert parse_operation(f"The next step is {op}. Done.") == op


def test_parsing_is_forgiving_about_case_and_spaces_but_not_about_ambiguity() -> None:
    assert parse_operation("Reasoning_Run( Alice ,Apple , None )") == Operation("reasoning_run", "alice", "apple")
    assert parse_operation("noop") == Operation("noop")
    assert parse_operation("noop(null, -, none)") == Operation("noop")
    # the same operation twice is one answer
    assert parse_operation("noop(none, none, none)\nnoop(none, none, none)") == Operation("noop")
    with pytest.raises(ParseError, match="no trigger operation"):
        parse_operation("I would help Alice now.")
    with pytest.raises(ParseError, match="several different"):
        parse_operation("reasoning_run(alice, apple, none) or noop(none, none, none)")


def test_slots_are_grounded_only_in_the_candidates() -> None:
    ok = Operation("belief_update_actor_belief", "alice", "apple", "bob")  # an item can be with a person
    assert check_operation(ok, C) is ok
    with pytest.raises(SlotError, match="actor 'carol'"):
        check_operation(Operation("reasoning_run", "carol", "apple"), C)
    with pytest.raises(SlotError, match="location 'moon'"):
        check_operation(Operation("belief_create_visual_fact", "none", "apple", "moon"), C)
    with pytest.raises(SlotError, match="must be none"):
        check_operation(Operation("belief_create_visual_fact", "alice", "apple", "fridge"), C)
    with pytest.raises(SlotError, match="must be none"):
        check_operation(Operation("action_run", "alice", "apple", "fridge"), C)
    with pytest.raises(SlotError, match="unknown operation"):
        check_operation(Operation("fly", "alice"), C)
    with pytest.raises(SlotError, match="object 'none'"):
        check_operation(Operation("reasoning_run", "alice", "none"), C)


def test_tuple_form() -> None:
    op = Operation("action_run", "alice", "apple")
    assert op.as_tuple() == ("action_run", "alice", "apple", "none")
    assert Operation.from_tuple(list(op.as_tuple())) == op
    assert str(op) == "action_run(alice, apple, none)"

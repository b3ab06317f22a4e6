"""The readers of cobel-llm's replies: what models really write is read, ambiguous replies are refused with a reason."""

from __future__ import annotations

import pytest

from mindloop.errors import ParseError
from mindloop.systems.cobel.prompts import echoes
from mindloop.systems.cobel.replies import (
    ActionChoice,
    find_sections,
    parse_plan,
    read_action,
    read_belief_update,
    read_collaboration,
    read_message,
    read_plan,
    read_predictions,
    read_review,
    read_rules,
    read_yes_no,
)

OPTIONS = ["explore <kitchen>(2000)", "grab <plate>(1)", "grab <plate>(12)", "deliver <dishwasher>(140)"]


def _texts(steps: list) -> list[str]:
    return [s.text for s in steps]


@pytest.mark.parametrize(
    "reply",
    [
        "reasoning: r\nplans:\nplan1: explore <kitchen>(2000)\nplan2: grab <plate>(1)\nplan3: explore <bath>(4000)",
        "reasoning: r\n**Plan 1**: explore <kitchen>(2000)\n**Plan 2**: grab <plate>(1)\n"
        "**Plan 3**: explore <bath>(4000)",
        "Reasoning - r\nPlan 1 - explore <kitchen>(2000)\nPlan 2 - grab <plate>(1)\nPlan 3 - explore <bath>(4000)",
        "### Reasoning\nr\n### Plan 1\nexplore <kitchen>(2000)\n### Plan 2\ngrab <plate>(1)\n### Plan 3\n"
        "explore <bath>(4000)",
        "reasoning: r\nplans:\n1. explore <kitchen>(2000)\n2. grab <plate>(1)\n3. explore <bath>(4000)",
        "REASONING: r\n- PLAN1: Go to <kitchen>(2000)\n- PLAN2: go grasp `<plate>(1)`\n- PLAN3: explore <bath>(4000).",
    ],
)
def test_three_plans_in_every_layout_models_use(reply: str) -> None:
    plans = read_predictions(reply)
    assert [_texts(p) for p in plans] == [["explore <kitchen>(2000)"], ["grab <plate>(1)"], ["explore <bath>(4000)"]]


def test_a_plan_with_no_usable_step_keeps_the_others_ranks() -> None:
    reply = "plan1: 'grab <object>(id)' go to grasp a specified object\nplan2: explore <kitchen>(2000)\nplan3: None"
    assert [_texts(p) for p in read_predictions(reply)] == [[], ["explore <kitchen>(2000)"], []]
    with pytest.raises(ParseError, match="name no action"):
        read_predictions("plan1: 'explore <room>(id)'\nplan2: go to a room and open its unexplored containers")
    with pytest.raises(ParseError, match="no 'plan1:' section"):
        read_predictions("Bob will probably explore the kitchen.")


def test_plan_steps_in_the_papers_wordings_and_tdw_transport() -> None:
    assert _texts(parse_plan("go to <kitchen>(2000), go grasp <apple>(1) then put <apple>(1) on <table>(9)")) == [
        "explore <kitchen>(2000)",
        "grab <apple>(1)",
        "deliver <apple>(1)",
    ]
    # TDW-MAT: transport goes to the bed (the paper's 'transport' takes no entity); put into a container is a grab
    assert _texts(
        parse_plan("grab <apple>(1), put <bread>(2) into <basket>(3), transport them to the bed", bed="<bed>(500)")
    ) == ["grab <apple>(1)", "grab <bread>(2)", "transport <bed>(500)"]
    assert _texts(parse_plan("transport <apple>(1) to <bed>(500)", bed="<bed>(500)")) == ["transport <bed>(500)"]
    assert parse_plan("'explore <room>(id)' and 'grab <object>(id)'") == []  # copied slots are no steps


def test_my_plan_with_markdown_or_a_cue_in_prose() -> None:
    steps, text = read_plan("reasoning: near\n**Plan:** explore <kitchen>(2000), then grab <plate>(12)", "Fig. 11")
    assert _texts(steps) == ["explore <kitchen>(2000)", "grab <plate>(12)"] and text.startswith("explore")
    steps, _ = read_plan("Let's see.\n\nThe best plan would be:\n- `grab <plate>(1)`\n- `explore <bath>(4)`", "Fig. 11")
    assert _texts(steps) == ["grab <plate>(1)", "explore <bath>(4)"]
    with pytest.raises(ParseError, match="no 'plan:' section"):
        read_plan("reasoning: the kitchen is near", "Fig. 11")
    with pytest.raises(ParseError, match="names no action"):
        read_plan("plan: explore <room>(id)", "Fig. 15")
    with pytest.raises(ParseError, match="no 'plan:' section"):  # "plans:" is not "plan:"
        read_plan("plans: explore <kitchen>(2000)", "Fig. 11")


@pytest.mark.parametrize(
    ("text", "value"),
    [("Yes", True), ("Yes.", True), ("**No**", False), ("NO", False), ("No, the plans do not conflict.", False)],
)
def test_yes_and_no_as_written(text: str, value: bool) -> None:
    assert read_yes_no(text) is value


@pytest.mark.parametrize("text", ["Yes/No", "yes or no", "maybe", "", "I would say no; well, yes"])
def test_ambiguous_or_missing_yes_no_is_refused(text: str) -> None:
    with pytest.raises(ParseError, match="Yes"):
        read_yes_no(text)


def test_adaptive_collaboration_reply() -> None:
    got = read_collaboration(
        "**Reasons:** Bob may go to the kitchen\n**Answer:** Yes.\n**Misaligned information:** I know <plate>(1) "
        "is in <kitchen>(2000)"
    )
    assert got.talk and got.misaligned == "I know <plate>(1) is in <kitchen>(2000)"
    assert read_collaboration("reasons: none\nanswer: No\nmisaligned information: None").misaligned == ""
    assert read_collaboration("NO").talk is False  # "If there is no heavy miscoordination, just answer NO."
    with pytest.raises(ParseError, match="no 'answer:' section"):
        read_collaboration("reasons: the plans conflict")
    with pytest.raises(ParseError, match="empty"):
        read_collaboration("reasons: x\nanswer:\nmisaligned information: y")


@pytest.mark.parametrize(
    ("reply", "index"),
    [
        ("reasons: near\nanswer: B", 1),
        ("reasons: near\nanswer: (B)", 1),
        ("reasons: near\n**Answer:** **B.** grab <plate>(1)", 1),
        ("reasons: near\nanswer: Option C", 2),
        ("reasons: near\nanswer: I will grab '<plate>(12)' now.", 2),  # <plate>(1) is not inside <plate>(12)
        ("reasons: near\nanswer: grab <plate>(1)", 1),
        ('reasons: near\nANSWER: the best next action is "deliver <dishwasher>(140)"', 3),
        ("reasons: near\nanswer: <kitchen>(2000)", 0),  # a target only one action has
        ("reasons: near. answer: A", 0),  # Fig. 14's own one-line format
        ("B. grab <plate>(1)", 1),  # no labels at all: the whole reply is the answer
    ],
)
def test_an_action_named_as_models_name_it(reply: str, index: int) -> None:
    assert read_action(reply, OPTIONS) == ActionChoice(index)


def test_subplan_done() -> None:
    assert read_action("reasons: all done\nanswer: SUBPLAN DONE", OPTIONS) == ActionChoice(None, True)
    assert read_action("reasons: x\n**Answer**: `Subplan done`.", OPTIONS).done


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("reasons: x\nanswer: grab <plate>(1) and then grab <plate>(12)", "more than one action"),
        ("reasons: x\nanswer: A. grab <plate>(1)", "letter A is not the action it names"),
        ("reasons: x\nanswer: SUBPLAN DONE, then explore <kitchen>(2000)", "SUBPLAN DONE and names an action"),
        ("reasons: x\nanswer: dance a jig", "not an action from the list"),
        ("reasons: x\nanswer: <plate>(1)", "not which of its"),  # reading a target shared by no-one else is fine
        ("reasons: x\nanswer: F", "the list ends at D"),
        ("reasons: x\nanswer: B\nanswer: C", "two different answers"),
        ("reasons: I should explore <kitchen>(2000)", "no 'answer:' section"),
    ],
)
def test_ambiguous_or_unknown_actions_are_refused_with_a_reason(reply: str, reason: str) -> None:
    options = [*OPTIONS, "deliver <plate>(1)"] if "not which" in reason else OPTIONS
    with pytest.raises(ParseError, match=reason):
        read_action(reply, options)


def test_message_with_or_without_its_label() -> None:
    assert read_message('Message: "Hi Bob, I found <plate>(1)."') == "Hi Bob, I found <plate>(1)."
    assert read_message("**Message:**\nHi Bob,\nmy plan is to explore <kitchen>(2000).") == (
        "Hi Bob, my plan is to explore <kitchen>(2000)."
    )
    assert read_message("Hi Bob, I am taking <plate>(1).") == "Hi Bob, I am taking <plate>(1)."
    with pytest.raises(ParseError, match="empty message"):
        read_message("Message:   ")
    with pytest.raises(ParseError, match="no 'Message:' line"):
        read_message("First, think.\n\nThen write a message.")


def test_belief_updates_with_bullets_markdown_and_none() -> None:
    reply = (
        "**Extracted Information:** Bob explored the kitchen\n**First-order beliefs:**\n"
        "- `Alice BELIEVE Bob BELIEVE <kitchen>(2000) EXPLORED all`.\n"
        "2. Alice BELIEVE Bob BELIEVE <plate>(1) IN <kitchen>(2000), Alice BELIEVE Bob BELIEVE Bob AT <kitchen>(2000)\n"
        "Bob knows where the plate is\n"
        "**Bob's plan:** go grasp <plate>(1)"
    )
    got = read_belief_update(reply, "first", "Bob")
    assert [str(s) for s in got.statements] == [
        "Alice BELIEVE Bob BELIEVE <kitchen>(2000) EXPLORED all",
        "Alice BELIEVE Bob BELIEVE <plate>(1) IN <kitchen>(2000)",
        "Alice BELIEVE Bob BELIEVE Bob AT <kitchen>(2000)",
    ]
    assert [i.text for i in got.issues] == ["Bob knows where the plate is"]
    assert _texts(list(got.plan)) == ["grab <plate>(1)"]
    none = read_belief_update("Extracted Information: nothing\nZero-order beliefs: None", "zero")
    assert none.statements == () and none.plan == ()
    with pytest.raises(ParseError, match="no line under 'Zero order beliefs:' is a belief"):
        read_belief_update("Zero order beliefs:\nAlice knows the kitchen is explored.", "zero")
    with pytest.raises(ParseError, match="no 'First order beliefs:' section"):
        read_belief_update("Zero order beliefs: Alice BELIEVE <a>(1) IN <b>(2)", "first", "Bob")


def test_sections_do_not_take_a_longer_label_for_a_shorter_one() -> None:
    text = "Zero order belief rules:\n?agent BELIEVE ?agent AT ?room\nZero order beliefs: x\nplans: p\nplan: q"
    keys = ["zero_rules", "zero", "plans", "plan"]
    assert [(s.key, s.text) for s in find_sections(text, keys)] == [
        ("zero_rules", "?agent BELIEVE ?agent AT ?room"),
        ("zero", "x"),
        ("plans", "p"),
        ("plan", "q"),
    ]
    # a word inside prose is no label; "answer" without a colon inside a line neither
    assert find_sections("I think the answer is B", ["answer"]) == []


def test_rule_construction_replies() -> None:
    got = read_rules(
        "**Entity and predicate reasoning:** x\n**Zero-order belief rules:**\n- ?agent BELIEVE ?agent AT ?room\n"
        "**First-order belief rules:**\n- ?agentA BELIEVE ?agentB BELIEVE ?agent AT ?room"
    )
    assert got.zero == "?agent BELIEVE ?agent AT ?room"
    assert got.first == "?agentA BELIEVE ?agentB BELIEVE ?agent AT ?room"
    assert read_review("Reasoning: ok\nSuggestions: None\n**Satisfied:** Yes.") == (True, "")
    assert read_review("Reasoning: x\nSuggestions: add AT\nSatisfied: Unsatisfied") == (False, "add AT")
    with pytest.raises(ParseError, match="both Yes and No"):
        read_review("Reasoning: x\nSuggestions: y\nSatisfied:(yes or no)")  # the format line, copied


def test_echoes_are_format_slots_and_examples_the_world_does_not_have() -> None:
    prompt = (
        "1) 'explore <room>(id)': go to a room and open its unexplored containers.\n"
        "Notice: entities as <name>(id), e.g., <livingroom>(1000), <wicker_basket>(5388017).\n"
        "Beliefs: Alice BELIEVE <kitchen>(2000) EXPLORED part"
    )
    assert echoes(prompt, "plan1: explore <kitchen>(2000)") == []
    assert echoes(prompt, "plan1: Go to a room and open its unexplored containers") == [
        "go to a room and open its unexplored containers"
    ]
    assert echoes(prompt, "plan: grab <wicker_basket>(5388017)") == ["<wicker_basket>(5388017)", "5388017"]
    # the world's own living room is no echo when the prompt's data names it
    assert echoes(prompt + "\nAlice BELIEVE Bob AT <livingroom>(1000)", "explore <livingroom>(1000)") == []


def test_a_concluding_sentence_decides_when_the_answer_label_is_missing_or_rambles() -> None:
    # real replies: a 'Reasons:' section and no 'answer:', ending "Therefore, my plan is SUBPLAN DONE."
    assert read_action("Reasons:\n1. Actions A, B and C are done.\n\nTherefore, my plan is SUBPLAN DONE.", OPTIONS).done
    assert read_action("Reasons:\nSubplan DONE. Alice has completed the goal.", OPTIONS).done
    rambling = "reasons: x\nanswer: A would waste time and so would C. Thus, B."
    assert read_action(rambling, OPTIONS) == ActionChoice(1)
    # a plan that names several entities is no choice of one action (a target alone counts only when it is alone)
    with pytest.raises(ParseError, match="a plan of 3 steps"):
        read_action("reasons: x\nanswer: my plan explores <kitchen>(2000), grabs <cup>(7), delivers <sink>(9)", OPTIONS)


def test_a_numbered_list_after_a_sentence_about_the_plans_and_enumerated_targets() -> None:
    reply = (
        "### Conclusion:\nBased on this, the top three candidate plans are as follows:\n\n"
        "1. **Explore <livingroom>(1000)**\n   - Go to <livingroom>(1000).\n"
        "   - Grab <apple>(9), <pen>(8) and <cup>(7).\n"
        "2. **Grab <bread>(6)**\n3. **Transport <bed>(500)**\n   - Transport them to the bed."
    )
    assert [_texts(p) for p in read_predictions(reply, bed="<bed>(500)")] == [
        ["explore <livingroom>(1000)", "grab <apple>(9)", "grab <pen>(8)", "grab <cup>(7)"],  # one step per target
        ["grab <bread>(6)"],
        ["transport <bed>(500)"],  # the header and its bullet are one step
    ]


def test_plan_steps_in_the_third_person_and_what_is_not_a_step() -> None:
    assert _texts(parse_plan("1. Alice explores <kitchen>(3000)\n2. Alice grabs all <bread>(603), and <pen>(2)")) == [
        "explore <kitchen>(3000)",
        "grab <bread>(603)",
        "grab <pen>(2)",
    ]
    # an entity several words on, after another verb, is that verb's; "-ing" narrates a belief, not a plan
    assert parse_plan("Alice explores the kitchen room and finds <livingroom>(1000) not fully explored") == []
    assert parse_plan("Alice believes Bob is exploring <kitchen>(3000)") == []
    dropped = parse_plan("3. Alice drops all the <pen>(2) on the bed.", bed="<bed>(500)")
    assert _texts(dropped) == ["transport <bed>(500)"]


def test_the_first_plan_section_that_names_a_step_is_the_plan() -> None:
    reply = (
        "### Best Plan:\nObjects are written as <name>(id), e.g., <livingroom>(1000).\n\n"
        "Here's a step-by-step plan:\n1. Go to <kitchen>(2000) and open its containers.\n2. Grab <cup>(7)."
    )
    steps, _ = read_plan(reply, "Fig. 11")
    assert _texts(steps) == ["explore <kitchen>(2000)", "grab <cup>(7)"]


def test_two_different_plans_under_one_label_are_refused() -> None:
    with pytest.raises(ParseError, match="two different 'plan1:'"):
        read_predictions("plan1: explore <kitchen>(2000)\nplan2: grab <cup>(7)\n\nplan1: grab <cup>(7)")
    # the same plan said twice (a summary repeating it) is one plan
    assert [_texts(p) for p in read_predictions("plan1: grab <cup>(7)\nConclusion:\nplan1: grab <cup>(7)")] == [
        ["grab <cup>(7)"],
        [],
        [],
    ]

"""The strict six-layer parser, the format check and the prompts of the three settings."""

from __future__ import annotations

import pytest

from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems.mindpower import (
    PROMPTS,
    HierarchyInput,
    HierarchyParseError,
    build_messages,
    layers_in_order,
    parse_hierarchy,
)

# The Fig. 15 prompt's Example 1 output, verbatim (the paper's own spelling of the tags).
FIG15_EXAMPLE = """<Description> David walks into the kitchen, places a mug on the table, and leaves. Mia enters, \
takes the mug, places it in the dishwasher, and leaves. David reenters the kitchen and looks around.
<Robot Belief> I believe David is currently searching for the mug. I believe David thinks the mug is still on the \
table. I believe the mug is actually inside the dishwasher.
<Robot Desire> I want to help David achieve his goal of finding the mug, and resolve the mismatch between his belief \
and the real state of the world.
<Robot Intention> Retrieve the mug from the dishwasher and hand it to David.
<Decision> Correct his false belief and open the dishwasher and give the mug to David.
<Action> walk (dishwasher), open (dishwasher), pick (mug), close (dishwasher), walk (David), give (mug, David)."""

# B.4: Example 2 of Fig. 1, in the Sec. 3.1 spelling.
B4_EXAMPLE = """<Perception> The man in the wheelchair moves forward, then forward-left, backward, and forward-right. \
There is a fire hydrant in front of him.
<Belief> I think the man wants to move forward, but I believe the fire hydrant blocks his path.
<Desire> I should help him achieve his goal of moving forward.
<Intention> Move the fire hydrant to the corner.
<Decision> I need to achieve his hidden goal by moving the fire hydrant out of the way.
<Action> walk (fire_hydrant), move (fire_hydrant, corner)"""


def test_fig15_example_parses_with_the_prompts_tag_names() -> None:
    h = parse_hierarchy(FIG15_EXAMPLE)
    assert h.text("perception").startswith("David walks into the kitchen")
    assert h.text("belief").endswith("inside the dishwasher.")
    assert h.text("intention") == "Retrieve the mug from the dishwasher and hand it to David."
    assert [(s.name, s.args) for s in h.actions] == [
        ("walk", ("dishwasher",)),
        ("open", ("dishwasher",)),
        ("pick", ("mug",)),
        ("close", ("dishwasher",)),
        ("walk", ("David",)),
        ("give", ("mug", "David")),
    ]


def test_b4_example_parses_and_round_trips() -> None:
    h = parse_hierarchy(B4_EXAMPLE)
    assert h.action_line() == "walk(fire_hydrant), move(fire_hydrant, corner)"
    again = parse_hierarchy(h.to_text())
    assert dict(again.layers) == dict(h.layers)
    assert again.actions == h.actions


def test_markdown_bullets_colons_closing_tags_and_header_are_tolerated() -> None:
    text = (
        "Output:\n- **<Description>**: Alice walks in.\n- ToM-Reasoning:\n- <Robot Belief>: She looks for the key.\n"
        "- <Robot Desire>: help her </Robot Desire>\n- <robot intention>: fetch it\n<Decision>: Give the key.\n"
        "<Action>:\n1. walk(key)\n2. pick(key)\n3. give(key, alice)\n"
    )
    h = parse_hierarchy(text)
    assert h.preamble == "Output:\n-"
    assert h.text("perception") == "Alice walks in."
    assert h.text("desire") == "help her"
    assert h.action_line() == "walk(key), pick(key), give(key, alice)"


def test_every_problem_is_named() -> None:
    text = "<Belief> b\n<Perception> p\n<Desire>\n<Desire> again\n<Decision> d\n<Action> walk to the fridge, pick(x)"
    with pytest.raises(HierarchyParseError) as info:
        parse_hierarchy(text)
    err = info.value
    assert isinstance(err, ParseError)
    assert err.missing == ["intention"]
    assert err.out_of_order == [("belief", "perception")]
    assert err.repeated == ["desire"]
    assert err.empty == ["desire"]
    assert err.bad_steps == ["1 'walk to the fridge'"]
    message = str(err)
    for part in ("missing <Intention>", "<Belief> comes before <Perception>", "<Desire> appears more than once",
                 "<Desire> is empty", "<Action> step 1 'walk to the fridge' is not verb(args)"):  # fmt: skip
        assert part in message


def test_no_tags_at_all() -> None:
    with pytest.raises(HierarchyParseError, match="missing <Perception>, <Belief>, <Desire>, <Intention>"):
        parse_hierarchy("I would help Alice find her apple.")


def test_decision_and_think_settings() -> None:
    h = parse_hierarchy("<Decision> Open the dishwasher.\n<Action> walk (dishwasher), open (dishwasher)", "decision")
    assert set(h.layers) == {"decision", "action"}
    t = parse_hierarchy("<Think> David left; Mia moved it.\n<Decision> Give it.\n<Action> give(mug, david)", "think")
    assert t.text("think") == "David left; Mia moved it."
    with pytest.raises(HierarchyParseError, match="unexpected <Think> in the decision setting"):
        parse_hierarchy("<Think> x\n<Decision> y\n<Action> wait()", "decision")
    with pytest.raises(HierarchyParseError, match="missing <Think>"):
        parse_hierarchy("<Decision> y\n<Action> wait()", "think")
    with pytest.raises(InvalidArgumentError, match="unknown setting"):
        parse_hierarchy("x", "cot")


def test_layers_in_order_is_the_papers_sequential_match() -> None:
    assert layers_in_order(FIG15_EXAMPLE) and layers_in_order(B4_EXAMPLE)
    swapped = B4_EXAMPLE.replace("<Desire>", "<TMP>").replace("<Intention>", "<Desire>").replace("<TMP>", "<Intention>")
    assert not layers_in_order(swapped)
    assert not layers_in_order(B4_EXAMPLE.replace("<Belief>", ""))
    assert layers_in_order("<Think> t <Decision> d <Action> a", "think")


def test_prompts_are_the_papers() -> None:
    assert "<Robot Belief>" in PROMPTS["hierarchy"] and "next_to (object)" in PROMPTS["hierarchy"]
    assert "<Robot Belief>" not in PROMPTS["decision"] and "<Decision> Open the dishwasher" in PROMPTS["decision"]
    assert "<Think>" in PROMPTS["think"] and "# Example" not in PROMPTS["think"]
    # the examples inside the prompts parse under their own setting
    fig15_example_1 = PROMPTS["hierarchy"].split("# Example 1")[1].split("Output:")[1].split("# Example 2")[0]
    assert parse_hierarchy(fig15_example_1).action_line().startswith("walk(dishwasher)")


def test_text_and_frame_messages() -> None:
    given = HierarchyInput(
        'Alex: "So stuffy."\nJamie: "My mouth is dry."', (("alex", "So stuffy."), ("jamie", "My mouth is dry."))
    )
    text = build_messages("hierarchy", given)
    assert len(text) == 1 and isinstance(text[0]["content"], str)
    assert 'Input (Video and Dialogue):\nAlex: "So stuffy."' in text[0]["content"]
    png = b"\x89PNG\r\n\x1a\n" + b"0" * 10
    framed = build_messages("decision", HierarchyInput("narration not shown", given.dialogue, (png, png)))
    parts = framed[0]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "image_url", "text"]
    assert "2 frames of the video" in parts[0]["text"] and "narration not shown" not in str(parts)
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert parts[3]["text"].startswith('Dialogue:\nAlex: "So stuffy."')


def test_layer_names_without_angle_brackets_are_read_at_line_starts() -> None:
    text = (
        "### Description\nAlice walks in and looks in the fridge.\n"
        "**Robot Belief:** I believe Alice thinks the apple is in the fridge.\n"
        "**Robot Desire:** I want to help Alice.\n3. Robot Intention: Fetch the apple from the table.\n"
        "- **Decision**: Give Alice the apple.\n**Action:**\n1. walk(table)\n2. pick(apple)\n3. give(apple, Alice)\n"
    )
    h = parse_hierarchy(text)
    assert h.text("perception") == "Alice walks in and looks in the fridge."
    assert h.text("belief") == "I believe Alice thinks the apple is in the fridge."
    assert (h.text("desire"), h.text("intention")) == ("I want to help Alice.", "Fetch the apple from the table.")
    assert h.text("decision") == "Give Alice the apple."
    assert h.action_line() == "walk(table), pick(apple), give(apple, Alice)"
    # with angle-bracket tags present, a line that merely starts with a layer name is content, not a layer
    tagged = parse_hierarchy(FIG15_EXAMPLE.replace("<Robot Intention> ", "<Robot Intention> Decision: "))
    assert tagged.text("intention").startswith("Decision: Retrieve the mug")
    # the same layer named twice is two answers: refused
    with pytest.raises(HierarchyParseError, match="<Belief> appears more than once"):
        parse_hierarchy(text.replace("**Robot Desire:**", "**Robot Belief:** again.\n**Robot Desire:**"))

"""The model-driven CoBel agent and rule construction, against a scripted fake model."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fakes import FakeModel, sensible_replies

from mindloop.beliefs.views.sbl import FIG7_RULES, parse_rules
from mindloop.errors import InvalidArgumentError
from mindloop.systems.cobel.episode import arun_episode
from mindloop.systems.cobel.mind import Intent
from mindloop.systems.cobel.prompts import ADAPTIVE_COLLABORATION, fill
from mindloop.systems.cobel.replies import parse_plan
from mindloop.systems.cobel.rules import construct_rules, review_rules
from mindloop.systems.cobel.worlds.testsets import cwah_test_set


def test_plans_in_the_papers_wordings() -> None:
    assert parse_plan("go to <kitchen>(2000), go grasp <apple>(1) then transport to <bed>(9)") == [
        Intent("explore", "<kitchen>(2000)"),
        Intent("grab", "<apple>(1)"),
        Intent("transport", "<bed>(9)"),
    ]


def test_prompt_placeholders_must_all_be_filled() -> None:
    with pytest.raises(InvalidArgumentError, match="MY_PLAN"):
        fill(ADAPTIVE_COLLABORATION, {"TASK": "t", "ABILITIES": "a", "OPPO_NAME": "Bob", "AGENT_NAME": "Alice"})


def test_episode_with_a_model_driven_agent_uses_every_prompt_and_talks_when_told() -> None:
    model = FakeModel(sensible_replies(talk=True))
    result = asyncio.run(arun_episode(cwah_test_set()[0], "cobel-llm,cobel", model=model))
    assert result.error is None and result.finished
    kinds = Counter(k for k, _ in model.seen)
    assert {"fig10", "fig11", "fig12", "fig13", "fig14", "fig8", "fig9"} <= set(kinds)
    alice_msgs = [m for m in result.messages if m.sender == "Alice"]
    assert alice_msgs and alice_msgs[0].text.startswith("Hi Bob, I've explored all of <livingroom>(1000)")
    # the paper's prompt text is what the model sees, with the world's goal and beliefs filled in
    fig12 = next(t for k, t in model.seen if k == "fig12")
    assert "Belief misalignment" in fig12 and "My zero-order belief:" in fig12 and "$" not in fig12


def test_quiet_model_sends_nothing() -> None:
    model = FakeModel(sensible_replies(talk=False))
    result = asyncio.run(arun_episode(cwah_test_set()[1], "cobel-llm,cobel-llm", model=model))
    assert result.error is None and result.n_messages == 0


def test_malformed_model_output_is_a_recorded_failure() -> None:
    replies = sensible_replies()
    replies["fig14"] = lambda p: "reasons: no idea\nanswer: dance a jig"
    result = asyncio.run(arun_episode(cwah_test_set()[0], "cobel-llm,cobel", model=FakeModel(replies)))
    assert result.error is not None and "Fig. 14 answer is not an action from the list" in result.error
    assert not result.finished and result.steps == 250  # a failure never counts as a success
    replies = sensible_replies()
    replies["fig11"] = lambda p: "reasoning: hmm"
    result = asyncio.run(arun_episode(cwah_test_set()[0], "cobel-llm", model=FakeModel(replies)))
    assert result.error is not None and "no 'plan:' section" in result.error


def test_symbolic_reviewer_catches_what_bob_should() -> None:
    rules, issues = parse_rules(
        "zero-order belief rules:\n?agent BELIEVE ?object IN ?room\n?agent BELIEVE ?agent HOLD ?object\n"
        "first-order belief rules:\n?agentA BELIEVE ?agentB BELIEVE ?object IN ?room\nnonsense here\n",
        strict=False,
    )
    review = review_rules(rules, issues)
    assert not review.satisfied
    text = "\n".join(review.suggestions)
    assert "nonsense here" in text and "relation AT" in text and "?agent BELIEVE ?agent HOLD ?object" in text
    assert review_rules(FIG7_RULES).satisfied


def test_propose_and_revise_until_satisfied() -> None:
    first = (
        "Entity and predicate reasoning: x\nZero order belief rules:\n?agent BELIEVE ?object IN ?room\n"
        "First order belief rules:\n?agentA BELIEVE ?agentB BELIEVE ?object IN ?room\n"
    )
    fixed = "Reasoning: added\n" + "\n".join(
        line.replace("zero-order belief rules:", "Zero order belief rules:").replace(
            "first-order belief rules:", "First order belief rules:"
        )
        for line in FIG7_RULES.text().splitlines()
    )
    model = FakeModel({"fig5-init": lambda p: first, "fig5-refine": lambda p: fixed})
    result = asyncio.run(construct_rules("tdw-mat", proposer=model))
    assert result.satisfied and result.rounds == 2 and result.rules == FIG7_RULES
    refine = next(t for k, t in model.seen if k == "fig5-refine")
    assert "relation AT" in refine  # the symbolic Bob's suggestion reached Alice
    default = asyncio.run(construct_rules("tdw-mat"))
    assert default.rules == FIG7_RULES and default.rounds == 0


def test_model_reviewer() -> None:
    alice = FakeModel(
        {
            "fig5-init": lambda p: (
                "Zero order belief rules:\n?agent BELIEVE ?agent AT ?room\n"
                "First order belief rules:\n?agentA BELIEVE ?agentB BELIEVE ?agent AT ?room"
            )
        }
    )
    bob = FakeModel({"fig6": lambda p: "Reasoning: fine\nSuggestions: none\nSatisfied: yes"})
    result = asyncio.run(construct_rules("cwah", proposer=alice, reviewer=bob))
    assert result.satisfied and len(result.rules) == 2
    assert "Alice content:" in bob.seen[0][1]

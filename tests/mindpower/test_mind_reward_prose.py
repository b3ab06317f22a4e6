"""Mind-Reward with the offline prose extractor gives signal: properties over every scenario of the test split.

The reference is each scenario's structured gold (``gold.atomic``); what is scored is *text*: the gold answer as
Fig. 15 prose (``Gold.to_text()``) and damaged versions of it (``reward_damage``), read by the default extractor.
"""

from __future__ import annotations

import itertools
import pickle
import statistics
from collections.abc import Callable

import pytest

from mindloop.errors import InvalidArgumentError
from mindloop.systems.mindpower.rewards import (
    MIND_WEIGHTS,
    RELEASED_REWARD_WEIGHTS,
    REWARD_PRESETS,
    MindReward,
    extract_atoms_prose,
    released_format_reward,
    released_mind_reward,
    reward_preset,
)
from mindloop.worlds.household.scenarios import Scenario

from .reward_damage import DAMAGES, LADDER, OFF_TOPIC, ladder

Scores = dict[str, float]


def _mind(texts: list[str], scenario: Scenario, reward: MindReward | None = None) -> list[float]:
    reward = reward or MindReward()
    gold = scenario.gold.atomic.all()
    out = reward(prompts=[""] * len(texts), completions=texts, gold_atomic=[gold] * len(texts))
    assert all(x is not None for x in out)
    return [float(x) for x in out if x is not None]


@pytest.fixture(scope="module")
def gold_scores(test_split: list[Scenario]) -> Scores:
    return {s.id: _mind([s.gold.to_text()], s)[0] for s in test_split}


def test_the_gold_in_prose_scores_high_on_every_scenario(test_split: list[Scenario], gold_scores: Scores) -> None:
    assert len(test_split) >= 100
    assert statistics.fmean(gold_scores.values()) >= 0.9
    assert min(gold_scores.values()) >= 0.5  # no scenario family is unread


def test_the_symbolic_extractor_finds_almost_nothing_in_prose(test_split: list[Scenario]) -> None:
    # the "before": prose layers give no atoms, only the one plan_action atom of the <Action> line
    before = [_mind([s.gold.to_text()], s, MindReward(extractor="symbolic"))[0] for s in test_split]
    assert statistics.fmean(before) < 0.15


@pytest.mark.parametrize("name", list(DAMAGES))
def test_each_damage_scores_below_the_gold(name: str, test_split: list[Scenario], gold_scores: Scores) -> None:
    damage: Callable[[Scenario, str], str | None] = DAMAGES[name]
    below = applicable = 0
    for s in test_split:
        damaged = damage(s, s.gold.to_text())
        if damaged is None:  # e.g. a one-step plan cannot be reordered
            continue
        applicable += 1
        below += _mind([damaged], s)[0] < gold_scores[s.id]
    assert applicable >= 0.75 * len(test_split)
    assert below >= 0.95 * applicable, f"{name}: {below} of {applicable} below the gold"


def test_more_damage_scores_lower(test_split: list[Scenario], gold_scores: Scores) -> None:
    rungs = [[gold_scores[s.id], *_mind(ladder(s, s.gold.to_text()), s)] for s in test_split]
    means = [statistics.fmean(r[i] for r in rungs) for i in range(len(LADDER) + 1)]
    assert all(a > b for a, b in itertools.pairwise(means)), means
    never_up = sum(all(a >= b for a, b in itertools.pairwise(r)) for r in rungs)
    assert never_up >= 0.95 * len(rungs)


def test_empty_and_off_topic_answers_score_near_zero(test_split: list[Scenario]) -> None:
    for s in test_split[:20]:
        empty, off = _mind(["", OFF_TOPIC], s)
        assert empty == 0.0
        assert off < 0.05


def test_prose_extraction_of_the_papers_example_1() -> None:
    # MindPower supplementary B.4, Example 1 of Fig. 1, as printed (with its "his" and "fridge"/"refrigerator")
    text = """<Perception> Alice walks into the kitchen, puts the apple on the table, and then leaves the kitchen. \
Then David walks into the kitchen, picks up the apple, and puts it in the refrigerator. Alice comes back and walks \
around.
<Belief> I think Alice is looking for the apple. I believe she thinks the apple is on the table, but I also believe \
the apple is actually in the refrigerator.
<Desire> I want to assist Alice in achieving his goal of retrieving the apple. and I want to resolve the mismatch \
between Alice's belief and the real world state.
<Intention> I want to take out the apple from fridge, and hand it to Alice.
<Decision> I need to correct her false belief by opening the refrigerator and giving the apple to Alice.
<Action> walk(fridge), open(fridge), pick(apple), walk(Alice)"""
    assert extract_atoms_prose(text) == [
        "walk(alice, kitchen)",
        "place(alice, apple, to=table)",
        "walk(alice, from=kitchen)",
        "walk(david, kitchen)",
        "pick(david, apple)",
        "putin(david, apple, to=refrigerator)",
        "walk(alice, kitchen)",  # "comes back": to the room she was last seen enter
        "walk(alice, kitchen)",  # "walks around" it
        "attribute_belief(robot, searching(alice, apple))",
        "attribute_belief(robot, human_believes(alice, object_on(apple, table)))",
        "hold_true_belief(robot, object_on(apple, refrigerator))",
        "attribute_desire(robot, assist(alice, find(apple)))",
        "form_intention(robot, fetch(apple, from=fridge, to=alice))",
        "resolve_misbelief(robot, belief_conflict(alice, apple, table))",  # where her belief (above) puts it
        "make_decision(robot, fetch(apple, from=fridge, to=alice))",  # the source from the intention
        "plan_action(robot, walk(fridge), open(fridge), pick(apple), walk(alice))",
    ]


def test_catalogue_names_map_to_ids() -> None:
    text = "<Perception> Mark puts the reading glasses in the wall cabinet.\n<Action> walk(kitchen_cabinet)"
    assert extract_atoms_prose(text)[0] == "putin(mark, glasses, to=kitchen_cabinet)"


def test_released_word_rouge_by_hand() -> None:
    # lower-cased, punctuation dropped, Porter-stemmed: "cats" -> "cat"
    assert released_mind_reward("The cats sat.", "the cat sat") == pytest.approx(1.0)
    # "cat sat the" vs "the cat sat": R1 = 1; bigrams {cat sat, sat the} vs {the cat, cat sat}: 1 of 2 -> 1/2;
    # LCS "cat sat" = 2 of 3 -> 2/3; 0.2·1 + 0.3·1/2 + 0.5·2/3 = 0.35 + 1/3
    assert released_mind_reward("cat sat the", "the cat sat") == pytest.approx(0.35 + 1 / 3)
    assert MIND_WEIGHTS == (0.2, 0.3, 0.5)


def test_released_format_is_strict(test_split: list[Scenario]) -> None:
    gold = test_split[0].gold.to_text()
    assert released_format_reward(gold) == 1.0
    fig15 = gold.replace("<Perception>", "<Description>").replace("<Belief>", "<Robot Belief>")
    assert released_format_reward(fig15) == 1.0
    assert released_format_reward("Sure! Here is my answer.\n" + gold) == 0.0  # the paper's R_Format allows this
    assert released_format_reward(gold.split("<Action>")[0] + "<Action>") == 0.0  # an empty last layer
    assert released_format_reward(gold.replace("<Desire>", "<Wish>")) == 0.0


def test_presets(test_split: list[Scenario]) -> None:
    assert REWARD_PRESETS[0] == "paper"
    s = test_split[0]
    text, atoms = s.gold.to_text(), s.gold.atomic.all()
    released = reward_preset("released")
    assert released.weights == RELEASED_REWARD_WEIGHTS == (0.1, 0.9)
    assert released.total([text], atoms, text) == [pytest.approx(1.0)]  # the gold text against itself
    paper = reward_preset("paper")
    assert paper.total([text], atoms, text)[0] == pytest.approx(1.0 + _mind([text], s)[0])  # R_Format + R_Mind
    assert reward_preset("paper-symbolic").total([""], atoms, text) == [0.0]
    with pytest.raises(InvalidArgumentError, match="unknown reward preset"):
        reward_preset("nope")
    for p in REWARD_PRESETS:
        again = pickle.loads(pickle.dumps(reward_preset(p)))
        assert again.total([text], atoms, text) == reward_preset(p).total([text], atoms, text)

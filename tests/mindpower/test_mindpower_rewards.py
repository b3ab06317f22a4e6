"""Mind-Reward, Format-Reward and their TRL reward callables, on hand-worked cases."""

from __future__ import annotations

import asyncio
import json
import pickle
from pathlib import Path

import pytest

from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems.mindpower.rewards import (
    ATOMIC_PROMPT,
    FormatReward,
    MindPowerReward,
    MindReward,
    atoms_from_gold,
    completion_text,
    extract_atoms_model,
    extract_atoms_symbolic,
    format_reward,
    mind_reward,
    parse_atom_lines,
    tag_atoms,
)

A = "walk(alice, kitchen)"
B = "attribute_belief(robot, human_believes(alice, object_on(apple, table)))"
C = "form_intention(robot, fetch(apple, from=fridge, to=alice))"
D = "plan_action(robot, walk(fridge), open(fridge), pick(apple))"
E = "attribute_desire(robot, assist(alice, find(apple)))"

SYMBOLIC = f"""<Perception> {A}
<Belief> {B}
<Desire> {E}
<Intention> {C}
<Decision> make_decision(robot, fetch(apple, from=fridge, to=alice))
<Action> walk (fridge), open (fridge), pick (apple)"""


def test_hand_worked_mind_reward() -> None:
    # gold [A, B, C, D], pred [A, C, D, E]
    # R_atomic = ROUGE-1: 3 shared of 4 and 4 -> 3/4
    # R_local  = ROUGE-2: gold AB BC CD, pred AC CD DE, shared CD -> P = R = 1/3 -> 1/3
    # R_global = ROUGE-L: LCS A C D = 3 -> 3/4
    # R_Mind = 0.2·3/4 + 0.3·1/3 + 0.5·3/4 = 0.15 + 0.1 + 0.375 = 0.625
    r = mind_reward([A, C, D, E], [A, B, C, D])
    assert (r.atomic, r.local, r.global_) == pytest.approx((0.75, 1 / 3, 0.75))
    assert r.mind == pytest.approx(0.625)
    # other weights: 1/3 each -> (3/4 + 1/3 + 3/4) / 3 = 11/18
    assert mind_reward([A, C, D, E], [A, B, C, D], (1 / 3, 1 / 3, 1 / 3)).mind == pytest.approx(11 / 18)


def test_perspective_is_part_of_the_token() -> None:
    assert tag_atoms([A, B]) == [f"human|{A}", f"robot|{B}"]
    # the same content attributed to the human instead of the robot does not match
    human_view = "attribute_belief(alice, human_believes(alice, object_on(apple, table)))"
    assert mind_reward([human_view], [B]).mind == 0.0
    # spacing and case do not matter
    assert mind_reward(["Walk ( Alice , Kitchen )"], [A]).mind == 1.0


def test_format_reward() -> None:
    assert format_reward(SYMBOLIC) == 1.0
    assert format_reward(SYMBOLIC.replace("<Desire>", "<Wish>")) == 0.0
    assert format_reward("<Think> x <Decision> y <Action> wait()", "think") == 1.0


def test_symbolic_extraction_reads_calls_and_folds_the_action_line() -> None:
    atoms = extract_atoms_symbolic(SYMBOLIC)
    assert atoms == [A, B, E, C, "make_decision(robot, fetch(apple, from=fridge, to=alice))", D]
    prose = "<Perception> Alice walked in.\n<Belief> She thinks it is on the table.\n<Action> walk(fridge)"
    assert extract_atoms_symbolic(prose) == ["plan_action(robot, walk(fridge))"]
    assert extract_atoms_symbolic(f"{A}\n{B}") == [A, B]  # untagged: a list of atoms


def test_gold_forms() -> None:
    by_layer = {"perception": [A], "belief": [B], "action": [D]}
    assert atoms_from_gold(by_layer) == [A, B, D]
    assert atoms_from_gold([A, B]) == [A, B]
    assert atoms_from_gold(SYMBOLIC)[-1] == D
    with pytest.raises(InvalidArgumentError, match="unknown layer"):
        atoms_from_gold({"feelings": [A]})


def test_completion_text_forms() -> None:
    assert completion_text("plain") == "plain"
    assert completion_text([{"role": "assistant", "content": "conv"}]) == "conv"
    parts = [
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}],
        }
    ]
    assert completion_text(parts) == "a\nb"
    with pytest.raises(InvalidArgumentError):
        completion_text(42)


def test_trl_signature_strings_and_conversations() -> None:
    gold = [A, B, E, C, "make_decision(robot, fetch(apple, from=fridge, to=alice))", D]
    reward = MindPowerReward()
    out = reward(
        prompts=["p1", "p2", "p3"],
        completions=[SYMBOLIC, [{"role": "assistant", "content": SYMBOLIC}], "no layers at all"],
        completion_ids=[[1], [2], [3]],
        gold_atomic=[gold, gold, gold],
        trainer_state=None,
    )
    assert out == [2.0, 2.0, 0.0]  # R = R_Mind + R_Format; the last has no atoms and no format
    assert MindReward()(prompts=["p"], completions=[SYMBOLIC], gold_atomic=[None]) == [None]
    assert FormatReward()(completions=[SYMBOLIC, "x"]) == [1.0, 0.0]
    with pytest.raises(InvalidArgumentError, match="no 'gold_atomic' column"):
        MindReward()(prompts=["p"], completions=[SYMBOLIC], answer=["x"])


def test_callables_pickle_and_have_names() -> None:
    for fn in (MindReward(weights=(0.5, 0.25, 0.25)), FormatReward("think"), MindPowerReward("gold")):
        again = pickle.loads(pickle.dumps(fn))
        assert again.__name__ == fn.__name__
    assert pickle.loads(pickle.dumps(MindReward(weights=(0.5, 0.25, 0.25)))).weights == (0.5, 0.25, 0.25)
    with pytest.raises(InvalidArgumentError):
        MindReward(weights=(1.0, -1.0, 1.0))


def test_model_extraction_with_the_fig20_prompt(fake_chat: type) -> None:
    def reply(prompt: str, messages: list) -> str:
        assert messages[0]["content"] == ATOMIC_PROMPT
        return "Scene Atomic Actions:\nwalk (alice, kitchen)\n\nToM Atomic Actions:\n- " + B

    atoms = asyncio.run(extract_atoms_model(fake_chat(reply), "Alice walks into the kitchen..."))
    assert atoms == [A, B]
    with pytest.raises(ParseError, match="no name\\(args\\) atom"):
        parse_atom_lines("Nothing to extract here.")


def test_model_extractor_reward_via_scripted_backend(tmp_path: Path) -> None:
    # reply files for the scripted backend stand in for Qwen3-Max: one always returns the same atoms, the other
    # has no rule for any prompt, so every call fails with a model error
    atoms, down = tmp_path / "extractor.txt", tmp_path / "down.json"
    atoms.write_text(f"{A}\n{B}", encoding="utf-8")
    down.write_text(json.dumps({"rules": [{"match": "(?!)", "reply": "never"}]}), encoding="utf-8")
    reward = MindReward(extractor=f"scripted/{atoms}")
    assert reward(prompts=["p"], completions=["anything"], gold_atomic=["any gold text"]) == [1.0]
    failing = MindReward(extractor=f"scripted/{down}")
    assert failing(prompts=["p"], completions=["anything"], gold_atomic=[[A]]) == [None]

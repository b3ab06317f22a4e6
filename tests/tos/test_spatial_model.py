"""The model-driven explorer with a fake chat model: prompts, probes, malformed replies, questions."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest

from mindloop.models.base import Completion, GenerationConfig, Message, message_text
from mindloop.systems.tos.explorers.model import ask_questions, final_answer, run_model_exploration, run_model_passive
from mindloop.systems.tos.explorers.prompts import PROMPT_STYLES, prompt_set
from mindloop.systems.tos.metrics import MapEntry
from mindloop.systems.tos.world import Scene, SpatialEnv, SpatialEnvConfig, TaskQuestion
from mindloop.systems.tos.world.geometry import EAST

GLOBAL_HEADING = "## Cognitive Map (JSON)"
LOCAL_HEADING = "## Cognitive Map — Local (JSON)"
assert all(prompt_set(s).cogmap_global.startswith(GLOBAL_HEADING) for s in PROMPT_STYLES)
assert all(prompt_set(s).cogmap_local.startswith(LOCAL_HEADING) for s in PROMPT_STYLES)

GLOBAL_MAP = {
    "agent": {"position": [0, 0], "facing": "east"},
    "lamp": {"position": [2, 0]},
    "red door": {"position": [3, 1], "facing": "east"},
}


class FakeModel:
    """Answers probes and questions from fixed texts and exploration turns from a script."""

    def __init__(self, actions: Sequence[str], answer: str = "THINK: easy\nFINAL ANSWER: east, slightly far") -> None:
        self.actions = list(actions)
        self.answer = answer
        self.calls: list[list[Message]] = []

    @property
    def name(self) -> str:
        return "fake/explorer"

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        self.calls.append(list(messages))
        last = message_text(messages[-1])
        if last.startswith(GLOBAL_HEADING):
            text = "THINK: map\nFINAL ANSWER:\n```json\n" + json.dumps(GLOBAL_MAP) + "\n```"
        elif last.startswith(LOCAL_HEADING):
            text = 'FINAL ANSWER: {"origin": "agent", "objects": {"lamp": {"position": [0, 2]}}}'
        elif last.startswith("## Uncertainty probe"):
            text = "no json, sorry"
        elif "Answer format: <" in last:
            text = self.answer
        else:
            text = self.actions.pop(0) if self.actions else "FINAL ANSWER: Actions: [Term()]"
        return Completion(text=text, model=self.name)

    async def aclose(self) -> None:
        return None


def test_final_answer() -> None:
    assert final_answer("THINK: x\nFINAL ANSWER: Actions: [Observe()]") == "Actions: [Observe()]"
    assert final_answer("final answer: a\nFinal Answer:  b ") == "b"
    assert final_answer("no answer") is None and final_answer("FINAL ANSWER:   ") is None


def test_model_exploration_records_turns_probes_and_failures(two_rooms: Scene) -> None:
    env = SpatialEnv(two_rooms)
    env.reset(seed=0)
    model = FakeModel(
        [
            "THINK: turn right\nFINAL ANSWER: Actions: [Rotate(90), Observe()]",
            "I will just look around",  # no action list; with no format retry the environment gets the text
            "FINAL ANSWER: Actions: [JumpTo(red_door), Observe()]",
            "FINAL ANSWER: Actions: [Term()]",
        ]
    )
    ep = asyncio.run(run_model_exploration(env, model, GenerationConfig(), seed=1, retries=0))
    assert [t.action.split("Actions: ")[-1] for t in ep.turns] == [
        "[Rotate(90), Observe()]",
        "I will just look around",
        "[JumpTo(red_door), Observe()]",
        "[Term()]",
    ]
    assert ep.failures == [
        "step 2: unreadable reply (no action list: write FINAL ANSWER: Actions: [ ... ] with real actions)",
        "step 2: invalid action (no action list found; write Actions: [ ... ])",
    ]
    assert len(ep.probes) == 4 and str(env.phase) == "done"
    assert ep.probes[0].global_map is not None and ep.probes[0].global_map["lamp"] == MapEntry((2.0, 0.0), None)
    # the local map is read in the agent's frame: nothing to turn here (no facing given)
    assert ep.probes[0].local_map == {"lamp": MapEntry((0.0, 2.0), None)}
    # the fog probe got no JSON and no letters: nothing selected, F1 0
    assert ep.probes[0].fog is not None and ep.probes[0].fog["overall"] == 0.0
    first_prompt = message_text(model.calls[0][1])
    assert first_prompt.startswith("# Spatial Exploration Task") and "Objects: 1: chair, 2: lamp" in first_prompt
    # the main history: system, opening, then assistant/user pairs; probes never enter it
    assert [m["role"] for m in ep.messages] == ["system", "user"] + ["assistant", "user"] * 4
    assert "You rotated clockwise 90°" in message_text(ep.messages[3])


def test_a_format_retry_that_reads_is_not_an_invalid_step(two_rooms: Scene) -> None:
    """With the default retry, the unreadable reply goes back with the reason and the next reply is the step."""
    env = SpatialEnv(two_rooms)
    env.reset(seed=0)
    model = FakeModel(["I will just look around", "FINAL ANSWER\n** Actions: [Rotate(90), Observe()]", "Term()"])
    ep = asyncio.run(run_model_exploration(env, model, GenerationConfig(), probes=()))
    assert [t.action for t in ep.turns] == ["Actions: [Rotate(90), Observe()]", "Actions: [Term()]"]
    assert all(t.valid for t in ep.turns) and ep.failures == []
    retry = model.calls[1]
    assert [m["role"] for m in retry[-2:]] == ["assistant", "user"]
    assert message_text(retry[-1]).startswith("Your reply could not be read: no action list")
    # the main history keeps the accepted reply only
    assert message_text(ep.messages[2]) == "FINAL ANSWER\n** Actions: [Rotate(90), Observe()]"


def test_model_false_belief_phase(two_rooms: Scene) -> None:
    env = SpatialEnv(two_rooms, config=SpatialEnvConfig(false_belief=True))
    env.reset(seed=2)
    model = FakeModel(
        [
            "FINAL ANSWER: Actions: [Observe()]",
            "FINAL ANSWER: Actions: [Term()]",
            'FINAL ANSWER: Actions: [Term(changes="lamp: position")]',
        ]
    )
    ep = asyncio.run(run_model_exploration(env, model, GenerationConfig(), probes=("global",)))
    assert len(ep.turns) == 2 and len(ep.fb_turns) == 1 and len(ep.fb_probes) == 1
    assert str(env.phase) == "done" and env.false_belief_result is not None
    assert "There are" in message_text(ep.messages[5])


def test_questions_are_asked_one_by_one(two_rooms: Scene) -> None:
    q = TaskQuestion(
        "direction",
        "Where is the sofa?\nAnswer format: <cardinal direction>, <distance>\n",
        "east, slightly far",
        {"target": "sofa", "anchor": "chair"},
    )
    model = FakeModel([])
    answers = asyncio.run(ask_questions(model, GenerationConfig(), [], [q, q]))
    assert [a["score"] for a in answers] == [1.0, 1.0] and all(a["parsed"] for a in answers)
    # a relation without the THINK/FINAL ANSWER format is still the model's answer: right direction, wrong distance
    bare = asyncio.run(ask_questions(FakeModel([], answer="The sofa is East, near."), GenerationConfig(), [], [q]))
    assert bare[0]["answer"] == "east, near" and bare[0]["score"] == 0.5 and bare[0]["parsed"]
    unparsed = asyncio.run(ask_questions(FakeModel([], answer="THINK: hmm"), GenerationConfig(), [], [q], retries=0))
    assert unparsed[0]["answer"] is None and unparsed[0]["score"] == 0.0 and not unparsed[0]["parsed"]
    assert unparsed[0]["reason"].startswith("no FINAL ANSWER line after THINK")


def test_passive_history_comes_from_the_proxy_log(two_rooms: Scene) -> None:
    env = SpatialEnv(two_rooms)
    env.reset()
    env.step("Actions: [Rotate(90), Observe()]")
    history, probe = asyncio.run(run_model_passive(env, env.turns, FakeModel([]), GenerationConfig()))
    prompt = message_text(history[1])
    assert "## Exploration History\n1. Actions: [Rotate(90), Observe()]. You rotated clockwise 90°." in prompt
    assert "exploration steps left" not in prompt
    assert probe.global_map is not None and probe.global_map["agent"] == MapEntry((0.0, 0.0), EAST)


@pytest.mark.parametrize("mode", ["vision"])
def test_vision_turns_carry_images(two_rooms: Scene, mode: Any) -> None:
    env = SpatialEnv(two_rooms, config=SpatialEnvConfig(mode=mode, image_size=32))
    env.reset()
    model = FakeModel(["FINAL ANSWER: Actions: [Observe()]", "FINAL ANSWER: Actions: [Term()]"])
    ep = asyncio.run(run_model_exploration(env, model, GenerationConfig(), probes=()))
    content = ep.messages[3]["content"]
    assert isinstance(content, list) and content[1]["type"] == "image_url"
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")

"""The model-driven explorer: a chat model explores, is probed for its beliefs every turn, and answers questions.

Active exploration: the model gets the paper's exploration prompt, answers each turn with
``THINK: ... FINAL ANSWER: Actions: [...]``, and the environment's reply (plus, in the vision world, the
rendered view) comes back as the next user message. After every step a side conversation (the history plus a
probe) asks for the global cognitive map, the local map and, optionally, which candidate cells are still
unexplored; probes never enter the main history. Passive comprehension gives a proxy's exploration log instead.
Downstream questions are asked the same way, one side conversation each. A reply that cannot be parsed is a
recorded failure of that turn or question (an invalid action, an unreadable map, an unanswered question), never
a crash and never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mindloop.models.base import ChatModel, GenerationConfig, Message, image_part, message
from mindloop.systems.tos.explorers.prompts import (
    COGMAP_GLOBAL_PROMPT,
    COGMAP_LOCAL_PROMPT,
    STEP_FOOTER,
    SYSTEM_PROMPT,
    exploration_prompt,
    fog_probe_prompt,
    passive_prompt,
    question_prompt,
)
from mindloop.systems.tos.metrics import (
    CogMap,
    fog_probe_candidates,
    parse_cognitive_map,
    parse_fog_probe,
    score_answer,
    score_fog_probe,
)
from mindloop.systems.tos.world.env import SpatialEnv, Turn
from mindloop.systems.tos.world.tasks import TaskQuestion

__all__ = ["ModelEpisode", "ask_questions", "final_answer", "run_model_exploration", "run_model_passive"]

PROBES = ("global", "local", "fog")


def final_answer(reply: str) -> str | None:
    """The text after the last ``FINAL ANSWER:`` (case-insensitive), or ``None`` when there is none."""
    matches = list(re.finditer(r"final\s*answer\s*:", reply, flags=re.IGNORECASE))
    if not matches:
        return None
    return reply[matches[-1].end() :].strip() or None


@dataclass
class ProbeResult:
    """What one turn's probes returned (``None``: no parseable JSON) and the uncertainty-probe score."""

    global_map: CogMap | None = None
    local_map: CogMap | None = None
    fog: dict[str, float] | None = None
    replies: dict[str, str] = field(default_factory=dict)


@dataclass
class ModelEpisode:
    """Everything a model-driven episode produced (turns are the environment's privileged records)."""

    turns: list[Turn] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    probes: list[ProbeResult] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    fb_turns: list[Turn] = field(default_factory=list)
    fb_probes: list[ProbeResult] = field(default_factory=list)


def _user(text: str, image: Any | None = None) -> Message:
    if image is None:
        return message("user", text)
    from mindloop.systems.tos.world.vision import png_bytes

    return message("user", text, image_part(png_bytes(image)))


async def _probe(
    model: ChatModel,
    config: GenerationConfig,
    history: Sequence[Message],
    env: SpatialEnv,
    probes: Sequence[str],
    seed: int,
) -> ProbeResult:
    names = [it.name for it in env.scene.items] + ["agent"]
    out = ProbeResult()
    if "global" in probes:
        reply = (await model.generate([*history, message("user", COGMAP_GLOBAL_PROMPT)], config)).text
        out.replies["global"] = reply
        out.global_map = parse_cognitive_map(final_answer(reply) or reply, names=names)
    if "local" in probes:
        reply = (await model.generate([*history, message("user", COGMAP_LOCAL_PROMPT)], config)).text
        out.replies["local"] = reply
        _, heading = env.pose  # the agent knows its own heading; used only to read local facings
        out.local_map = parse_cognitive_map(final_answer(reply) or reply, names=names, local_heading=heading)
    if "fog" in probes:
        views = [(t.pos, t.ori) for t in env.turns if t.observations]
        cands, correct = fog_probe_candidates(env.scene, views, env.pose[0], seed)
        if correct:
            reply = (await model.generate([*history, message("user", fog_probe_prompt(cands))], config)).text
            out.replies["fog"] = reply
            out.fog = score_fog_probe(parse_fog_probe(final_answer(reply) or reply, cands), correct)
    return out


async def run_model_exploration(
    env: SpatialEnv,
    model: ChatModel,
    config: GenerationConfig,
    *,
    probes: Sequence[str] = PROBES,
    seed: int = 0,
) -> ModelEpisode:
    """Active exploration by a model, probed after every step; continues into the false-belief phase when the
    environment has one (the model then ends with ``Term(changes=...)``)."""
    vision = env.config.mode == "vision"
    ep = ModelEpisode()
    history: list[Message] = [
        message("system", SYSTEM_PROMPT),
        message("user", exploration_prompt(env.scene, env.config.max_steps, vision=vision)),
    ]
    while env.phase != "done":
        phase = env.phase
        reply = (await model.generate(history, config)).text
        ep.replies.append(reply)
        action = final_answer(reply)
        if action is None:
            ep.failures.append(f"step {len(ep.replies)}: no FINAL ANSWER in the reply")
            action = reply
        text, _, terminated, truncated, info = env.step(action)
        turn = env.turns[-1]
        if not info["valid"]:
            ep.failures.append(f"step {turn.step}: invalid action ({info['error']})")
        elif turn.action_failed:
            refused = next(r for r in turn.results if not r.success)
            ep.failures.append(f"step {turn.step}: refused action {refused.action} ({refused.message})")
        history.append(message("assistant", reply))
        image = info.get("image") if vision else None
        footer = "" if str(env.phase) == "done" else "\n" + STEP_FOOTER
        history.append(_user(text + footer, image))
        probe = await _probe(
            model, config, history, env, probes if phase == "exploration" else ("global",), seed + turn.step
        )
        if phase == "exploration":
            ep.turns.append(turn)
            ep.probes.append(probe)
        else:
            ep.fb_turns.append(turn)
            ep.fb_probes.append(probe)
        if terminated or truncated:
            break
    ep.messages = history
    return ep


def run_model_passive_history(turns: Sequence[Turn]) -> list[str]:
    """A proxy's exploration log as the numbered lines a passive model reads (``Actions: [...]. You ...``)."""
    lines = []
    for t in turns:
        text = t.text.split("\nYou have a maximum")[0].split("\nExploration ended")[0]
        lines.append(f"{t.action}. {text}" if t.action.startswith("Actions:") else text)
    return lines


async def run_model_passive(
    env: SpatialEnv, turns: Sequence[Turn], model: ChatModel, config: GenerationConfig
) -> tuple[list[Message], ProbeResult]:
    """The passive setting: the model reads a proxy's log; returns the history and its final global map."""
    history: list[Message] = [
        message("system", SYSTEM_PROMPT),
        message(
            "user",
            passive_prompt(env.initial_scene, run_model_passive_history(turns), vision=env.config.mode == "vision"),
        ),
    ]
    probe = await _probe(model, config, history, env, ("global",), 0)
    return history, probe


async def ask_questions(
    model: ChatModel, config: GenerationConfig, history: Sequence[Message], questions: Sequence[TaskQuestion]
) -> list[dict[str, Any]]:
    """Ask each question in its own side conversation; score the text after ``FINAL ANSWER:``."""
    out = []
    for q in questions:
        reply = (await model.generate([*history, message("user", question_prompt(q.question))], config)).text
        answer = final_answer(reply)
        out.append(
            {
                "task": q.task,
                "question": q.question,
                "reply": reply,
                "answer": answer,
                "score": score_answer(q.task, answer, q.answer),
                "parsed": answer is not None,
            }
        )
    return out

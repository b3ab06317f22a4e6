"""The model-driven explorer: a chat model explores, is probed for its beliefs every turn, and answers questions.

Active exploration: the model gets the paper's exploration prompt, answers each turn with
``THINK: ... FINAL ANSWER: Actions: [...]``, and the environment's reply (plus, in the vision world, the
rendered view) comes back as the next user message. After every step a side conversation (the history plus a
probe) asks for the global cognitive map, the local map and, optionally, which candidate cells are still
unexplored; probes never enter the main history. Passive comprehension gives a proxy's exploration log instead.
Downstream questions are asked the same way, one side conversation each.

Every call goes through :func:`mindloop.models.replies.ask` with a reader of :mod:`mindloop.systems.tos.replies`:
a reply the reader refuses goes back to the model with the reason (``retries`` times, ``--format-retries``), and
only the accepted reply (or, when none was, the last one) enters the main history; the retry turns stay in the
call's side conversation and in the run's call records. A reply still refused after the retries is a recorded
failure of that turn or question (the environment gets its answer text and reports an invalid action; an
unreadable map; an unanswered question), never a crash and never a guess. An action list that can be read but
breaks the grammar (two final actions, ``Term()`` with motions) is not refused: the environment reports it as an
invalid step, as in the paper's protocol. :class:`~.context.HistoryPolicy`
decides how many exploration turns each call is sent and refuses a prompt longer than the model's context.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from mindloop.errors import ParseError
from mindloop.models.base import ChatModel, GenerationConfig, Message, image_part, message
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES, ask
from mindloop.systems.tos.explorers.context import HistoryPolicy
from mindloop.systems.tos.explorers.prompts import (
    exploration_prompt,
    fog_probe_prompt,
    passive_prompt,
    prompt_set,
    question_prompt,
)
from mindloop.systems.tos.metrics import CogMap, fog_probe_candidates, score_answer, score_fog_probe
from mindloop.systems.tos.replies import answer_slot, read_actions, read_answer, read_fog, read_map
from mindloop.systems.tos.world.env import SpatialEnv, Turn
from mindloop.systems.tos.world.tasks import TaskQuestion

__all__ = [
    "ModelEpisode",
    "ProbeResult",
    "ask_questions",
    "final_answer",
    "run_model_exploration",
    "run_model_passive",
]

PROBES = ("global", "local", "fog")

T = TypeVar("T")


final_answer = answer_slot
"""The text of the last ``FINAL ANSWER`` slot, cleaned of markdown (``None`` when there is none): another name of
:func:`mindloop.systems.tos.replies.answer_slot`."""


@dataclass
class ProbeResult:
    """What one turn's probes returned (``None``: no readable map) and the uncertainty-probe score."""

    global_map: CogMap | None = None
    local_map: CogMap | None = None
    fog: dict[str, float] | None = None
    replies: dict[str, str] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)


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
    unreadable: int = 0
    """Steps whose reply had no readable action list even after the format retries."""


@dataclass
class _Caller:
    """How every call of one sample is made: the model, its settings, the format retries, the prompt style and
    the history policy."""

    model: ChatModel
    config: GenerationConfig
    retries: int = DEFAULT_FORMAT_RETRIES
    style: str = "explicit"
    policy: HistoryPolicy = field(default_factory=HistoryPolicy)

    async def ask(
        self, history: Sequence[Message], extra: Sequence[Message], read: Callable[[str], T], what: str
    ) -> tuple[T | None, str, str | None]:
        """Send ``history`` (cut by the policy) plus ``extra``, checked against the context, read by ``read``:
        ``(value, reply, None)`` for an accepted reply, ``(None, last reply, reason)`` when every attempt was
        refused."""
        messages = [*self.policy.cut(history), *extra]
        self.policy.check(messages, what, self.config.max_tokens)
        try:
            value, completion, _ = await ask(self.model, messages, read, self.config, retries=self.retries)
        except ParseError as exc:
            return None, exc.replies[-1], (exc.reason or str(exc)).splitlines()[0]
        return value, completion.text, None


def _user(text: str, image: Any | None = None) -> Message:
    if image is None:
        return message("user", text)
    from mindloop.systems.tos.world.vision import png_bytes

    return message("user", text, image_part(png_bytes(image)))


async def _probe(
    caller: _Caller,
    history: Sequence[Message],
    env: SpatialEnv,
    probes: Sequence[str],
    seed: int,
) -> ProbeResult:
    names = [it.name for it in env.scene.items] + ["agent"]
    texts = prompt_set(caller.style)
    out = ProbeResult()

    async def ask(key: str, prompt: str, read: Callable[[str], T], what: str) -> T | None:
        """One probe: its reply kept under ``key``, and why it was refused if it was."""
        value, out.replies[key], why = await caller.ask(history, [message("user", prompt)], read, what)
        if why is not None:
            out.refused[key] = why
        return value

    if "global" in probes:
        out.global_map = await ask(
            "global", texts.cogmap_global, lambda t: read_map(t, names=names), "the global map probe"
        )
    if "local" in probes:
        _, heading = env.pose  # the agent knows its own heading; used only to read local facings
        out.local_map = await ask(
            "local",
            texts.cogmap_local,
            lambda t: read_map(t, names=names, local_heading=heading),
            "the local map probe",
        )
    if "fog" in probes:
        views = [(t.pos, t.ori) for t in env.turns if t.observations]
        cands, correct = fog_probe_candidates(env.scene, views, env.pose[0], seed)
        if correct:
            prompt = fog_probe_prompt(cands, style=caller.style)
            labels = await ask("fog", prompt, lambda t: read_fog(t, len(cands)), "the uncertainty probe")
            chosen = [(int(cands[ord(x) - 65][0]), int(cands[ord(x) - 65][1])) for x in labels or []]
            out.fog = score_fog_probe(chosen, correct)
    return out


async def run_model_exploration(
    env: SpatialEnv,
    model: ChatModel,
    config: GenerationConfig,
    *,
    probes: Sequence[str] = PROBES,
    seed: int = 0,
    retries: int = DEFAULT_FORMAT_RETRIES,
    style: str = "explicit",
    policy: HistoryPolicy | None = None,
) -> ModelEpisode:
    """Active exploration by a model, probed after every step; continues into the false-belief phase when the
    environment has one (the model then ends with ``Term(changes=...)``).

    ``retries`` is the format retries per call, ``style`` the prompt style
    (:data:`~mindloop.systems.tos.explorers.prompts.PROMPT_STYLES`), ``policy`` the history policy (default: the
    whole history, no context check)."""
    caller = _Caller(model, config, retries, style, policy or HistoryPolicy())
    texts = prompt_set(style)
    vision = env.config.mode == "vision"
    ep = ModelEpisode()
    history: list[Message] = [
        message("system", texts.system),
        message("user", exploration_prompt(env.scene, env.config.max_steps, vision=vision, style=style)),
    ]
    while env.phase != "done":
        phase = env.phase
        action, reply, why = await caller.ask(history, [], read_actions, f"step {len(ep.replies) + 1}")
        ep.replies.append(reply)
        if action is None:
            ep.failures.append(f"step {len(ep.replies)}: unreadable reply ({why})")
            ep.unreadable += 1
            action = answer_slot(reply) or reply
        text, _, terminated, truncated, info = env.step(action)
        turn = env.turns[-1]
        if not info["valid"]:
            ep.failures.append(f"step {turn.step}: invalid action ({info['error']})")
        elif turn.action_failed:
            refused = next(r for r in turn.results if not r.success)
            ep.failures.append(f"step {turn.step}: refused action {refused.action} ({refused.message})")
        history.append(message("assistant", reply))
        image = info.get("image") if vision else None
        footer = "" if str(env.phase) == "done" else "\n" + texts.step_footer
        history.append(_user(text + footer, image))
        probe = await _probe(caller, history, env, probes if phase == "exploration" else ("global",), seed + turn.step)
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
    env: SpatialEnv,
    turns: Sequence[Turn],
    model: ChatModel,
    config: GenerationConfig,
    *,
    retries: int = DEFAULT_FORMAT_RETRIES,
    style: str = "explicit",
    policy: HistoryPolicy | None = None,
) -> tuple[list[Message], ProbeResult]:
    """The passive setting: the model reads a proxy's log; returns the history and its final global map.

    ``policy.turns`` keeps the last entries of the log (the entries left out are announced)."""
    caller = _Caller(model, config, retries, style, policy or HistoryPolicy())
    log, omitted = caller.policy.cut_log(run_model_passive_history(turns))
    history: list[Message] = [
        message("system", prompt_set(style).system),
        message("user", passive_prompt(env.initial_scene, log, vision=env.config.mode == "vision", omitted=omitted)),
    ]
    probe = await _probe(caller, history, env, ("global",), 0)
    return history, probe


async def ask_questions(
    model: ChatModel,
    config: GenerationConfig,
    history: Sequence[Message],
    questions: Sequence[TaskQuestion],
    *,
    names: Sequence[str] = (),
    retries: int = DEFAULT_FORMAT_RETRIES,
    style: str = "explicit",
    policy: HistoryPolicy | None = None,
) -> list[dict[str, Any]]:
    """Ask each question in its own side conversation and score the answer read from the reply
    (:func:`~mindloop.systems.tos.replies.read_answer`; ``names`` are the scene's objects and doors). An answer
    still unreadable after the retries scores 0 with ``parsed`` false and the reader's ``reason``."""
    caller = _Caller(model, config, retries, style, policy or HistoryPolicy())
    out = []
    for q in questions:
        answer, reply, why = await caller.ask(
            history,
            [message("user", question_prompt(q.question, style=style))],
            partial(read_answer, q.task, names=names),
            f"the {q.task} question",
        )
        out.append(
            {
                "task": q.task,
                "question": q.question,
                "reply": reply,
                "answer": answer,
                "score": score_answer(q.task, answer, q.answer),
                "parsed": answer is not None,
                **({"reason": why} if why is not None else {}),
            }
        )
    return out

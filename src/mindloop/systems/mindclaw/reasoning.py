"""Mental Reasoning (§IV-E): given the focus actor and object, judge the mismatch, whether it blocks the actor's
goal, and whether intervention is warranted. The result is a :class:`ReasoningRecord` ``r_t`` — never a command.

:class:`SymbolicReasoner` reads the cues of :mod:`~mindloop.systems.mindclaw.cues` and the belief table;
:class:`ModelReasoner` asks a model and parses its tagged answer strictly (a malformed answer is a record with
``error`` set and ``warranted=False``: the robot stays silent, and the failure is in the trace).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Protocol

from mindloop.errors import ParseError
from mindloop.systems.mindclaw.context import TriggerContext
from mindloop.systems.mindclaw.cues import CONTEXTS, Cue
from mindloop.systems.mindclaw.records import ReasoningRecord
from mindloop.systems.mindclaw.render import render_context
from mindloop.systems.mindclaw.replies import PROMPTS, ModelPart, chat, clean, find_names, read_tags, single, words
from mindloop.systems.mindclaw.window import SceneView
from mindloop.worlds.household.scenarios.gold import NEEDS

_GOALS = {
    "unreachable": "deliver",
    "blocked": "clear",
    "left_running": "switch_off",
    "power_cut": "deliver",
    "missing_tool": "deliver",
    "stated_need": "deliver",
}


def goal_for(context: str, actor: str, obj: str, seen: str | None, scene: SceneView | None) -> tuple[str, str]:
    """The kind of help a context calls for, and the liquid to fill a container with (``("deliver", "water")``).

    A false belief is corrected by fetching the object when the robot knows where it is (a place or an item it
    sits on); when the robot last saw someone carry it out of view, all it can do is tell the actor (``inform``).
    """
    if context == "false_belief":
        if seen == actor:
            return "none", ""
        if seen is not None and scene is not None and (scene.place_room(seen) is not None or seen in scene.items()):
            return "deliver", ""
        return "inform", ""
    if context == "stated_need":
        feeling = ""
        if scene is not None:
            feeling = scene.feels(actor) or ""
        need = NEEDS.get(feeling)
        return "deliver", need.liquid if need is not None else ""
    return _GOALS.get(context, "none"), ""


class Reasoner(Protocol):
    """Mental Reasoning: ``reason(ctx, actor, object) -> r_t``."""

    async def reason(self, ctx: TriggerContext, actor: str, obj: str) -> ReasoningRecord:
        """Judge the focus (actor, object) in this context."""
        ...


def _explain(cue: Cue, believed: str | None, seen: str | None) -> str:
    a, o = cue.actor, cue.object
    if cue.context == "false_belief":
        where = f"at {seen}" if seen else "somewhere I cannot see"
        return (
            f"{a} is searching for the {o}. {a} believes it is at {believed}, but it is {where}. The false belief "
            f"blocks {a}'s search, so helping is warranted."
        )
    return {
        "unreachable": f"{a} tried to take the {o} and cannot reach it; {a}'s goal is blocked.",
        "blocked": f"The {o} in the doorway stops {a}'s wheelchair; {a} cannot get through.",
        "left_running": f"{a} left the {o} running and went to another room; water is being wasted.",
        "power_cut": f"The power is out and {a} is searching for light; the {o} needs no power.",
        "missing_tool": f"{a} set out the things to {cue.detail.replace('_', ' ')} and is looking for the {o}.",
        "stated_need": f"{a} said they are {cue.detail.replace('_', ' ')} and nobody has done anything about it; "
        f"the {o} would help.",
    }.get(cue.context, "")


class SymbolicReasoner:
    """Reasoning from cues and the belief table (exact on simulated data)."""

    async def reason(self, ctx: TriggerContext, actor: str, obj: str) -> ReasoningRecord:
        """A cue for exactly this focus, not yet helped, makes intervention warranted; a stale belief without one
        is a mismatch that does not block anyone (no intervention)."""
        table = ctx.memory.table
        scene = ctx.observation.scene
        believed = table.actor(actor, obj) if table is not None else None
        seen = table.visual(obj) if table is not None else (scene.location(obj) if scene is not None else None)
        cue = next((c for c in ctx.cues() if c.actor == actor and c.object == obj and not c.helped), None)
        if cue is None:
            mismatch = believed is not None and believed != seen
            context = "false_belief" if mismatch else "none"
            why = (
                f"{actor} believes the {obj} is at {believed}, but it is at {seen}; {actor} is not looking for it, "
                "so the mismatch blocks nothing and I stay silent."
                if mismatch
                else f"Nothing blocks {actor} about the {obj}; I stay silent."
            )
            return ReasoningRecord(actor, obj, context, believed or "", mismatch, False, False, "none", "",
                                   believed, seen, why)  # fmt: skip
        goal, liquid = goal_for(cue.context, actor, obj, seen, scene)
        believed_out = believed if cue.context == "false_belief" else None
        return ReasoningRecord(
            actor,
            obj,
            cue.context,
            cue.detail,
            mismatch=True,
            blocks=True,
            warranted=goal != "none",
            goal=goal,
            liquid=liquid,
            believed=believed_out,
            seen=seen,
            text=_explain(cue, believed, seen),
        )


_REASON_SYSTEM = PROMPTS["reason_system"]

_REASON_TEMPLATE = PROMPTS["reason_template"]
"""Mental Reasoning's user prompt. The paper gives no prompt text; the allowed values are listed apart from the
tags to fill (a small model copied ``<Context> one of: false_belief, ...`` verbatim when the list sat in the slot)."""

_REASON_TAGS = ("context", "believed", "blocks", "intervene", "reason")

_ECHOES = {
    "context": ("one of:", "one of "),
    "believed": ("believes the", "a location name", "location from", "or none"),
    "blocks": ("yes or no",),
    "intervene": ("yes or no",),
    "reason": ("one sentence",),
}
"""Phrases of the prompt's format lines (this prompt's and the one before it) that no answer contains."""


def _echo(value: str, tag: str) -> bool:
    low = " ".join(clean(value).lower().split())
    if low.strip(" .:-[]<>") in ("", "...", "\u2026", "value", "the value you choose"):
        return True
    return any(p in low for p in _ECHOES[tag])


def _read_context(value: str) -> str:
    names = list(dict.fromkeys(find_names(value, CONTEXTS)))
    if not names and words(value)[:1] == ["none"]:
        return "none"
    if len(names) == 1:
        return names[0]
    if len(names) > 1:
        if _echo(value, "context") or len(names) > 2:
            raise ParseError("the <Context> line copies the list of allowed contexts; write the one that applies")
        raise ParseError(f"<Context> names two contexts ({names[0]}, {names[1]}); give one")
    if _echo(value, "context"):
        raise ParseError("<Context> has no value; write one of " + ", ".join((*CONTEXTS, "none")))
    raise ParseError(f"<Context> must be one of {', '.join((*CONTEXTS, 'none'))}, got {value[:60]!r}")


def _read_believed(value: str, locations: frozenset[str]) -> str | None:
    if _echo(value, "believed"):
        raise ParseError("the <Believed> line copies the prompt; write a location name or none")
    names = list(dict.fromkeys(find_names(value, locations)))
    if len(names) > 1:  # "the hairbrush is in the bathroom": the place after the last in/on/at/inside
        tail = re.split(r"\b(?:in|on|at|inside|into)\b", value, flags=re.IGNORECASE)[-1]
        after = list(dict.fromkeys(find_names(tail, locations)))
        if len(after) == 1 and tail != value:
            names = after
    if len(names) == 1:
        return names[0]
    if len(names) > 1:
        raise ParseError(f"<Believed> names two locations ({names[0]}, {names[1]}); give one")
    w = words(value)
    if w[:1] in (["none"], ["unknown"], ["nowhere"], ["n"]) or w == ["no"]:
        return None
    if not w:
        raise ParseError("<Believed> has no value; write a location name or none")
    raise ParseError(f"<Believed> is not a known location, got {value[:60]!r}")


def _read_flag(tag: str) -> Callable[[str], bool]:
    def read(value: str) -> bool:
        w = words(value)
        if w[:3] == ["yes", "or", "no"] or _echo(value, tag):
            raise ParseError(f"the <{tag.capitalize()}> line copies the prompt; write yes or no")
        if w[:1] in (["yes"], ["true"]):
            return True
        if w[:1] in (["no"], ["false"]):
            return False
        raise ParseError(f"<{tag.capitalize()}> must be yes or no, got {value[:60]!r}")

    return read


def parse_reasoning_reply(reply: str, *, locations: frozenset[str]) -> dict[str, Any]:
    """Read ``<Context>``, ``<Believed>``, ``<Blocks>``, ``<Intervene>`` (and ``<Reason>``) from a reply, in any
    form models write them (:func:`~mindloop.systems.mindclaw.replies.read_tags`: markdown, no angle brackets or
    colon, the value on the next line, any case).

    Raises :class:`~mindloop.errors.ParseError` with a one-line reason for a missing tag, a value outside its set,
    a line that copies the prompt's format (``<Context> one of: ...``) and two different answers for one tag. A
    ``<Reason>`` that copies the prompt is dropped (the reason is free text and optional).
    """
    tags = read_tags(reply, _REASON_TAGS)
    missing = [t for t in _REASON_TAGS[:4] if not tags[t]]
    if len(missing) == 4:
        raise ParseError("no <Context>, <Believed>, <Blocks> or <Intervene> line", text=reply[:200])
    try:
        context = single("context", tags["context"], _read_context)
        believed = single("believed", tags["believed"], lambda v: _read_believed(v, locations), show=str)
        blocks = single("blocks", tags["blocks"], _read_flag("blocks"))
        intervene = single("intervene", tags["intervene"], _read_flag("intervene"))
    except ParseError as exc:
        raise ParseError(exc.reason, text=reply[:200]) from None
    reason = next((r for r in tags["reason"] if not _echo(r, "reason")), "")
    return {"context": context, "believed": believed, "blocks": blocks, "intervene": intervene, "reason": reason}


class ModelReasoner(ModelPart):
    """Mental Reasoning by a model, prompted with the rendered context and the focus; its reply is read through
    :func:`~mindloop.models.replies.ask` (a refused reply goes back with the reason, at most ``retries`` times)."""

    def prompt(self, ctx: TriggerContext, actor: str, obj: str) -> list[dict[str, Any]]:
        """The chat messages for one reasoning call."""
        context = render_context(ctx, skills=None)
        return chat(
            _REASON_SYSTEM, _REASON_TEMPLATE, context=context, actor=actor, obj=obj, contexts=", ".join(CONTEXTS)
        )

    async def reason(self, ctx: TriggerContext, actor: str, obj: str) -> ReasoningRecord:
        """Ask (with format retries); a reply still refused is a record with ``error`` and no intervention."""

        def read(text: str) -> dict[str, Any]:
            return parse_reasoning_reply(text, locations=ctx.candidates.locations)

        got, replies, error = await self.ask(self.prompt(ctx, actor, obj), read, "malformed reasoning")
        if got is None:
            return ReasoningRecord(actor, obj, error=error, text=replies[-1][:500])
        table = ctx.memory.table
        scene = ctx.observation.scene
        seen = table.visual(obj) if table is not None else (scene.location(obj) if scene is not None else None)
        record = judged_record(ctx, actor, obj, seen, got)
        return replace(record, warranted=record.goal != "none")  # warranted only when there is help to give


def judged_record(
    ctx: TriggerContext, actor: str, obj: str, seen: str | None, got: Mapping[str, Any]
) -> ReasoningRecord:
    """The reasoning record of a model's judgement ``got`` (``context``, ``believed``, ``blocks``, ``intervene``,
    ``reason``: the reasoner's reply or the direct baseline's): the help :func:`goal_for` finds when it says to
    intervene, and as detail the believed location of a false belief or the feeling of a stated need."""
    scene = ctx.observation.scene
    context, believed, warranted = got["context"], got["believed"], bool(got["intervene"])
    goal, liquid = goal_for(context, actor, obj, seen, scene) if warranted else ("none", "")
    detail = believed or "" if context == "false_belief" else ""
    if context == "stated_need" and scene is not None:
        detail = scene.feels(actor) or ""
    return ReasoningRecord(actor, obj, context, detail, context != "none", got["blocks"], warranted, goal, liquid,
                           believed, seen, got["reason"])  # fmt: skip

"""Mental Reasoning (§IV-E): given the focus actor and object, judge the mismatch, whether it blocks the actor's
goal, and whether intervention is warranted. The result is a :class:`ReasoningRecord` ``r_t`` — never a command.

:class:`SymbolicReasoner` reads the cues of :mod:`~mindloop.systems.mindclaw.cues` and the belief table;
:class:`ModelReasoner` asks a model and parses its tagged answer strictly (a malformed answer is a record with
``error`` set and ``warranted=False``: the robot stays silent, and the failure is in the trace).
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from mindloop.errors import ParseError
from mindloop.models.base import ChatModel, GenerationConfig, message
from mindloop.systems.mindclaw.context import TriggerContext
from mindloop.systems.mindclaw.cues import CONTEXTS, Cue
from mindloop.systems.mindclaw.records import ReasoningRecord
from mindloop.systems.mindclaw.render import render_context
from mindloop.systems.mindclaw.window import SceneView
from mindloop.worlds.household.scenarios.gold import NEEDS

__all__ = ["ModelReasoner", "Reasoner", "SymbolicReasoner", "goal_for", "parse_reasoning_reply"]


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
        """See :meth:`reason_now`."""
        return self.reason_now(ctx, actor, obj)

    def reason_now(self, ctx: TriggerContext, actor: str, obj: str) -> ReasoningRecord:
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


REASON_SYSTEM = (
    "You are the Mental Reasoning module of an embodied assistant robot. Given what the robot observed and its "
    "belief table, judge whether the focus person is acting under a false belief, a hidden goal or another "
    "mental-state mismatch, whether it blocks their goal, and whether the robot should intervene. Help only when "
    "help is useful; a mismatch that blocks nothing needs no intervention."
)

REASON_TEMPLATE = """{context}

Focus: person {actor}, object {obj}.

Answer in exactly these five tagged lines:
<Context> one of: {contexts}, none
<Believed> where {actor} believes the {obj} is (a location name), or none
<Blocks> yes or no
<Intervene> yes or no
<Reason> one sentence"""

_TAG = re.compile(
    r"<(Context|Believed|Blocks|Intervene|Reason)>\s*(.*?)\s*(?:</\1>)?\s*$", re.IGNORECASE | re.MULTILINE
)


def parse_reasoning_reply(reply: str, *, locations: frozenset[str]) -> dict[str, Any]:
    """Strictly read ``<Context>``, ``<Believed>``, ``<Blocks>``, ``<Intervene>`` (and ``<Reason>``) from a reply.

    Raises :class:`~mindloop.errors.ParseError` naming the missing tag or the value outside its set.
    """
    tags: dict[str, str] = {}
    for m in _TAG.finditer(reply):
        tags.setdefault(m.group(1).lower(), m.group(2).strip())
    for tag in ("context", "believed", "blocks", "intervene"):
        if tag not in tags:
            raise ParseError(f"the reasoning reply has no <{tag.capitalize()}> line", text=reply[:200])
    context = tags["context"].lower().strip(" .")
    if context not in (*CONTEXTS, "none"):
        raise ParseError(f"<Context> must be one of {', '.join((*CONTEXTS, 'none'))}", text=tags["context"])
    believed = tags["believed"].lower().strip(" .")
    if believed != "none" and believed not in locations:
        raise ParseError("<Believed> is not a known location", text=tags["believed"])
    flags = {}
    for tag in ("blocks", "intervene"):
        value = tags[tag].lower().strip(" .")
        if value not in ("yes", "no"):
            raise ParseError(f"<{tag.capitalize()}> must be yes or no", text=tags[tag])
        flags[tag] = value == "yes"
    return {
        "context": context,
        "believed": None if believed == "none" else believed,
        "blocks": flags["blocks"],
        "intervene": flags["intervene"],
        "reason": tags.get("reason", ""),
    }


class ModelReasoner:
    """Mental Reasoning by a model, prompted with the rendered context and the focus."""

    def __init__(self, model: ChatModel, config: GenerationConfig | None = None) -> None:
        self.model = model
        self.config = config or GenerationConfig()

    def prompt(self, ctx: TriggerContext, actor: str, obj: str) -> list[dict[str, Any]]:
        """The chat messages for one reasoning call."""
        user = REASON_TEMPLATE.format(
            context=render_context(ctx, skills=None), actor=actor, obj=obj, contexts=", ".join(CONTEXTS)
        )
        return [message("system", REASON_SYSTEM), message("user", user)]

    async def reason(self, ctx: TriggerContext, actor: str, obj: str) -> ReasoningRecord:
        """Ask, parse strictly; a malformed reply is a record with ``error`` and no intervention."""
        reply = await self.model.generate(self.prompt(ctx, actor, obj), self.config)
        try:
            got = parse_reasoning_reply(reply.text, locations=ctx.candidates.locations)
        except ParseError as exc:
            return ReasoningRecord(actor, obj, error=f"malformed reasoning: {exc}", text=reply.text[:500])
        table = ctx.memory.table
        scene = ctx.observation.scene
        seen = table.visual(obj) if table is not None else (scene.location(obj) if scene is not None else None)
        warranted = bool(got["intervene"])
        goal, liquid = goal_for(got["context"], actor, obj, seen, scene) if warranted else ("none", "")
        detail = got["believed"] or "" if got["context"] == "false_belief" else ""
        if got["context"] == "stated_need" and scene is not None:
            detail = scene.feels(actor) or ""
        return ReasoningRecord(
            actor,
            obj,
            got["context"],
            detail,
            mismatch=got["context"] != "none",
            blocks=got["blocks"],
            warranted=warranted and goal != "none",
            goal=goal,
            liquid=liquid,
            believed=got["believed"],
            seen=seen,
            text=got["reason"],
        )

"""Action Generation (§IV-E): turn a warranted reasoning record into a minimal helpful action ``a_t``, or ``none``.

Plans follow MindPower's ``<Action>`` style (``walk(fridge), open(fridge), pick(apple), close(fridge),
walk(alice), give(apple, alice)``) and are built from what the robot knows (its scene), never from ground truth:
if the robot is wrong about where something is, the plan fails when the simulator runs it.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from mindloop.errors import ParseError
from mindloop.systems.mindclaw.context import TriggerContext
from mindloop.systems.mindclaw.records import ActionPlan, ReasoningRecord
from mindloop.systems.mindclaw.render import render_context
from mindloop.systems.mindclaw.replies import PROMPTS, ModelPart, chat, read_tags, single, words
from mindloop.systems.mindclaw.window import SceneView, base_place, room_of
from mindloop.worlds.household.actions import Action, parse_actions


def _take(scene: SceneView, item: str) -> list[str]:
    base = base_place(scene, item)
    props = scene.props(base) if base is not None else frozenset()
    steps = [f"walk({base})" if base is not None and "receptacle" in props else f"walk({item})"]
    if base is not None and "openable" in props and not scene.is_open(base):
        steps += [f"open({base})", f"pick({item})", f"close({base})"]
    else:
        steps.append(f"pick({item})")
    return steps


def plan_help(record: ReasoningRecord, scene: SceneView) -> tuple[str, ...]:
    """The robot's steps for a warranted record (empty when there is nothing it can do)."""
    actor, obj = record.actor, record.object
    if record.goal == "deliver":
        steps = _take(scene, obj)
        if record.liquid:
            source = next((i for i in scene.items() if scene.kind(i) == record.liquid), record.liquid)
            if room_of(scene, source) != room_of(scene, obj):
                steps.append(f"walk({source})")
            steps.append(f"pour({source}, {obj})")
        return (*steps, f"walk({actor})", f"give({obj}, {actor})")
    if record.goal == "inform":
        return (f"walk({actor})", f"remind({actor}, {obj})")
    if record.goal == "switch_off":
        return (f"walk({obj})", f"switchoff({obj})")
    if record.goal == "clear":
        where = scene.location(obj)
        room = scene.place_room(where) if where is not None else None
        if room is None:
            return ()
        return (f"walk({obj})", f"move({obj}, {room}_corner)")
    return ()


class ActionGenerator(Protocol):
    """Action Generation: ``act(ctx, record) -> a_t``."""

    async def act(self, ctx: TriggerContext, record: ReasoningRecord | None, actor: str, obj: str) -> ActionPlan:
        """The robot's action for the focus, given this window's reasoning record (``None`` if none ran)."""
        ...


def _refuse(record: ReasoningRecord | None, actor: str, obj: str) -> ActionPlan | None:
    if record is None:
        return ActionPlan(actor=actor, object=obj, text="no reasoning record in this window: reasoning precedes action")
    if record.actor != actor or record.object != obj:
        return ActionPlan(actor=actor, object=obj, text=f"reasoning was about {record.actor}/{record.object}")
    if not record.warranted:
        return ActionPlan(actor=actor, object=obj, text="reasoning found no intervention warranted")
    return None


class SymbolicActionGenerator:
    """Plans from the record and the robot's scene (see :func:`plan_help`)."""

    async def act(self, ctx: TriggerContext, record: ReasoningRecord | None, actor: str, obj: str) -> ActionPlan:
        """``none`` unless this window's reasoning about exactly this focus found help warranted."""
        refused = _refuse(record, actor, obj)
        if refused is not None:
            return refused
        assert record is not None
        scene = ctx.observation.scene
        if scene is None:
            return ActionPlan(actor=actor, object=obj, goal=record.goal, error="no scene state to plan in")
        steps = plan_help(record, scene)
        return ActionPlan(steps, actor, obj, record.goal, record.text)


class EagerActionGenerator(SymbolicActionGenerator):
    """The action generator of the ``first`` reference agent: the symbolic plan when the reasoning found help
    warranted, else the robot goes to the person anyway (``walk(person)``): an intervention either way."""

    async def act(self, ctx: TriggerContext, record: ReasoningRecord | None, actor: str, obj: str) -> ActionPlan:
        """The symbolic plan, or ``walk(actor)`` where it would be ``none``."""
        plan = await super().act(ctx, record, actor, obj)
        if plan.is_none:
            return ActionPlan((f"walk({actor})",), actor, obj, plan.goal, "act at once, whatever the reasoning found")
        return plan


_ACT_SYSTEM = PROMPTS["act_system"]

_ACT_TEMPLATE = PROMPTS["act_template"]
"""Action Generation's user prompt. The paper gives no prompt text; the answer line is described in words, with
no template to copy: the old prompt's lines ``<Action> verb(arg, ...), ...`` / ``<Action> none`` are the kind the real
0.5B model copied verbatim from the other prompts (it never reached action generation with the old prompts)."""

PLACEHOLDER_ARGS = frozenset({"x", "arg", "item", "place", "person", "liquid", "container", "..."})
"""Argument names of the prompt's verb list: a step whose arguments are all among them copies the list."""

_FORMAT_ECHOES = ("verb(arg", "verb(x", "verb(")
_STEP_LIST = re.compile(r"^\s*[<*#\-\s]*step\s*\d+\s*[:.)]", re.IGNORECASE | re.MULTILINE)


def _read_action(value: str) -> tuple[str, ...]:
    body = value.strip().rstrip(".").strip()
    low = body.lower()
    if any(e in low for e in _FORMAT_ECHOES):
        raise ParseError("the <Action> line copies the format (verb(arg, ...)); write the robot's steps or none")
    if not body:
        raise ParseError("the <Action> line is empty; write the robot's steps or none")
    if words(body) == ["none"] or low in ("none", "no action", "nothing"):
        return ()
    steps: list[str] = []
    for parsed in parse_actions(body):
        if not isinstance(parsed, Action):
            raise ParseError(f"invalid action in <Action>: {parsed}")
        if parsed.args and all(a in PLACEHOLDER_ARGS for a in parsed.args):
            raise ParseError(f"the step {parsed} copies the verb list's argument names; use names from <Candidates>")
        steps.append(str(parsed))
    return tuple(steps)


def parse_action_reply(reply: str) -> tuple[str, ...]:
    """Read the ``<Action>`` line, in any form models write it (markdown, no angle brackets or colon, the steps
    on the following lines, one per line or numbered): ``none`` (an empty tuple) or valid ``verb(args)`` steps.

    Refused with a one-line :class:`~mindloop.errors.ParseError`: no ``<Action>`` line, an empty one, an invalid
    step, a line that copies the format (``<Action> verb(arg, ...)``), two different answers, and a reply whose
    only answer besides a copied format line is ``none`` (the old prompt's two template lines, echoed).
    """
    values = read_tags(reply, ("action",))["action"]
    if not values and re.fullmatch(r"[\s*`\"'<>\[\]().]*none[\s*`\"'<>\[\]().]*", reply, flags=re.IGNORECASE):
        return ()  # the whole reply is the word none (``<None>``, ``**none**``): no steps, as the prompt allows
    if not values:
        raise ParseError("the action reply has no <Action> line", text=reply[:200])
    if _STEP_LIST.search(reply):  # "<Action> walk(x)" then "<Step 1: Walk to ...>": two different plans
        raise ParseError(
            "the <Action> line is followed by a separate list of steps; write every step on the <Action> line",
            text=reply[:200],
        )
    echoed = any(any(e in v.lower() for e in _FORMAT_ECHOES) for v in values)
    try:
        steps = single("action", values, _read_action, show=lambda s: ", ".join(s) or "none")
    except ParseError as exc:
        raise ParseError(exc.reason, text=reply[:200]) from None
    if echoed and not steps:
        raise ParseError("the reply copies the format lines; write the robot's steps or none", text=reply[:200])
    return steps


class ModelActionGenerator(ModelPart):
    """Action Generation by a model, its reply read through :func:`~mindloop.models.replies.ask` (a refused reply
    goes back with the reason, at most ``retries`` times); a reply still refused is a plan with ``error`` and no
    steps (a recorded failure)."""

    def prompt(self, ctx: TriggerContext, record: ReasoningRecord) -> list[dict[str, Any]]:
        """The chat messages for one action-generation call."""
        return chat(
            _ACT_SYSTEM,
            _ACT_TEMPLATE,
            context=render_context(ctx, skills=None),
            actor=record.actor,
            obj=record.object,
            rcontext=record.context,
            intervene="yes" if record.warranted else "no",
            text=record.text,
        )

    async def act(self, ctx: TriggerContext, record: ReasoningRecord | None, actor: str, obj: str) -> ActionPlan:
        """Ask (with format retries); the model is asked only when this window's reasoning found help warranted."""
        refused = _refuse(record, actor, obj)
        if refused is not None:
            return refused
        assert record is not None
        steps, _, error = await self.ask(self.prompt(ctx, record), parse_action_reply, "malformed action")
        if steps is None:
            return ActionPlan(actor=actor, object=obj, goal=record.goal, error=error)
        return ActionPlan(steps, actor, obj, record.goal, record.text)

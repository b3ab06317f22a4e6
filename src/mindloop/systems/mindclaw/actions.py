"""Action Generation (§IV-E): turn a warranted reasoning record into a minimal helpful action ``a_t``, or ``none``.

Plans follow MindPower's ``<Action>`` style (``walk(fridge), open(fridge), pick(apple), close(fridge),
walk(alice), give(apple, alice)``) and are built from what the robot knows (its scene), never from ground truth:
if the robot is wrong about where something is, the plan fails when the simulator runs it.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from mindloop.errors import ParseError
from mindloop.models.base import ChatModel, GenerationConfig, message
from mindloop.systems.mindclaw.context import TriggerContext
from mindloop.systems.mindclaw.records import ActionPlan, ReasoningRecord
from mindloop.systems.mindclaw.render import render_context
from mindloop.systems.mindclaw.window import SceneView, base_place, room_of
from mindloop.worlds.household.actions import Action, parse_actions

__all__ = ["ActionGenerator", "ModelActionGenerator", "SymbolicActionGenerator", "parse_action_reply", "plan_help"]


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
        """See :meth:`act_now`."""
        return self.act_now(ctx, record, actor, obj)

    def act_now(self, ctx: TriggerContext, record: ReasoningRecord | None, actor: str, obj: str) -> ActionPlan:
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


ACT_SYSTEM = (
    "You are the Action Generation module of an embodied assistant robot. Convert the reasoning record into the "
    "robot's minimal helpful action sequence, or none when no intervention is justified."
)

ACT_TEMPLATE = """{context}

Reasoning record: person {actor}, object {obj}, context {rcontext}, intervene {intervene}. {text}

Robot verbs: walk(x), open(x), close(x), pick(item), place(item, place), putin(item, place), give(item, person),
move(item, place), switchoff(x), switchon(x), pour(liquid, container), remind(person, item).
Answer with one line:
<Action> verb(arg, ...), verb(arg, ...), ...
or
<Action> none"""

_ACTION_LINE = re.compile(r"<Action>\s*(.*?)\s*(?:</Action>|$)", re.IGNORECASE | re.DOTALL)


def parse_action_reply(reply: str) -> tuple[str, ...]:
    """Strictly read the ``<Action>`` line: ``none`` (empty tuple) or a sequence of valid ``verb(args)`` steps."""
    m = _ACTION_LINE.search(reply)
    if m is None:
        raise ParseError("the action reply has no <Action> line", text=reply[:200])
    body = m.group(1).strip().splitlines()[0].strip() if m.group(1).strip() else ""
    if body.lower().strip(" .") in ("none", ""):
        if not body:
            raise ParseError("the <Action> line is empty; write none for no action", text=reply[:200])
        return ()
    steps: list[str] = []
    for parsed in parse_actions(body):
        if not isinstance(parsed, Action):
            raise ParseError(f"invalid action in <Action>: {parsed}", text=body)
        steps.append(str(parsed))
    return tuple(steps)


class ModelActionGenerator:
    """Action Generation by a model; a malformed reply is a plan with ``error`` and no steps (a recorded failure)."""

    def __init__(self, model: ChatModel, config: GenerationConfig | None = None) -> None:
        self.model = model
        self.config = config or GenerationConfig()

    def prompt(self, ctx: TriggerContext, record: ReasoningRecord) -> list[dict[str, Any]]:
        """The chat messages for one action-generation call."""
        user = ACT_TEMPLATE.format(
            context=render_context(ctx, skills=None),
            actor=record.actor,
            obj=record.object,
            rcontext=record.context,
            intervene="yes" if record.warranted else "no",
            text=record.text,
        )
        return [message("system", ACT_SYSTEM), message("user", user)]

    async def act(self, ctx: TriggerContext, record: ReasoningRecord | None, actor: str, obj: str) -> ActionPlan:
        """Ask, parse strictly; the model is asked only when this window's reasoning found help warranted."""
        refused = _refuse(record, actor, obj)
        if refused is not None:
            return refused
        assert record is not None
        reply = await self.model.generate(self.prompt(ctx, record), self.config)
        try:
            steps = parse_action_reply(reply.text)
        except ParseError as exc:
            return ActionPlan(actor=actor, object=obj, goal=record.goal, error=f"malformed action: {exc}")
        return ActionPlan(steps, actor, obj, record.goal, record.text)

"""Cues: the situations in which a person may need the robot, read from ``o_t``, the belief table and the scene.

A cue names a focus (actor, object) and a mental context. It is evidence, not a decision: the trigger decides
whether to run mental reasoning on it, reasoning decides whether it blocks the person's goal, and only then may
action generation run. The seven contexts follow MindPower's task taxonomy:

=================  ===============================================================================================
``false_belief``   a present person searches (opens, looks at, walks around, turns) since coming back, and the
                   belief table says they believe an object is somewhere it no longer is
``unreachable``    a person reached for an item and could not reach it, and does not hold it
``blocked``        a person's wheelchair was stopped by an obstacle that sits in a doorway
``left_running``   a person turned on a water source and left its room while it still runs
``power_cut``      the power is out and a person searches since; a light that needs no power is known
``missing_tool``   a person set out part of a known task (cutting board + carrot) and searches for the missing
                   tool, without going for the place the tool is in
``stated_need``    a person said they need something (thirst, cold, ...) in an earlier window, still does, and a
                   window passed in which nobody did anything about it
=================  ===============================================================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mindloop.beliefs.vocab import FEELS
from mindloop.systems.mindclaw.memory import BeliefTable, OperationHistory
from mindloop.systems.mindclaw.observation import ActivityLog, Observation
from mindloop.systems.mindclaw.window import SceneView, base_place, room_of
from mindloop.worlds.household.scenarios.gold import NEEDS, combo_for

__all__ = ["CONTEXTS", "Cue", "find_cues", "light_source", "need_item"]

CONTEXTS: tuple[str, ...] = (
    "false_belief",
    "unreachable",
    "blocked",
    "left_running",
    "power_cut",
    "missing_tool",
    "stated_need",
)
"""Mental contexts a cue (and a reasoning record) can name, in priority order."""


@dataclass(frozen=True, slots=True)
class Cue:
    """A possible need: ``actor`` and ``object`` (the focus), the mental ``context`` and a ``detail`` (where the
    actor believes the object is; the feeling; the task), plus ``helped`` if the robot already acted on it."""

    context: str
    actor: str
    object: str
    detail: str = ""
    helped: bool = False


def light_source(scene: SceneView) -> str | None:
    """The first item the robot knows that gives light without power (a candle)."""
    return next((i for i in scene.items() if "light_source" in (p := scene.props(i)) and "needs_power" not in p), None)


def need_item(scene: SceneView, feeling: str) -> str | None:
    """The item that meets a stated need, by the need's order of preference (a glass before a cup)."""
    need = NEEDS.get(feeling)
    if need is None:
        return None
    items = scene.items()
    return next((item for kind in need.kinds for item in items if scene.kind(item) == kind), None)


def _false_belief(o: Observation, table: BeliefTable, scene: SceneView) -> list[Cue]:
    out = []
    log = o.activity
    for actor in table.actors():
        if scene.agent_room(actor) is None:
            continue
        since = log.since_entry(actor)
        for obj in table.actor_objects(actor):
            believed = table.actor(actor, obj)
            if believed is None or believed == table.visual(obj):
                continue
            if log.searched(actor, since, obj):
                out.append(Cue("false_belief", actor, obj, believed))
    return out


def _unreachable(o: Observation, scene: SceneView) -> list[Cue]:
    out: list[Cue] = []
    items = set(scene.items())
    for actor, acts in o.activity.acts.items():
        for act in acts:
            if act.failure == "out_of_reach" and act.args and act.args[0] in items:
                obj = act.args[0]
                if scene.location(obj) != actor and not any(c.object == obj for c in out):
                    out.append(Cue("unreachable", actor, obj))
    return out


def _blocked(o: Observation, scene: SceneView) -> list[Cue]:
    out = []
    for actor, acts in o.activity.acts.items():
        tries = [a for a in acts if a.failure == "blocked"]
        if not tries:
            continue
        rooms = [scene.agent_room(actor)]
        if tries[-1].args:
            rooms.append(room_of(scene, tries[-1].args[0]))
        doorways = {f"{r}_doorway" for r in rooms if r}
        item = next((i for i in scene.items() if scene.location(i) in doorways), None)
        if item is not None:
            out.append(Cue("blocked", actor, item))
    return out


def _left_running(o: Observation, scene: SceneView) -> list[Cue]:
    out: list[Cue] = []
    for actor, acts in o.activity.acts.items():
        for act in acts:
            if act.verb != "switchon" or not act.args:
                continue
            thing = act.args[0]
            if "water_source" not in scene.props(thing) or not scene.is_on(thing):
                continue
            if scene.agent_room(actor) != scene.place_room(thing) and not any(c.object == thing for c in out):
                out.append(Cue("left_running", actor, thing))
    return out


def _power_cut(o: Observation, scene: SceneView) -> list[Cue]:
    log = o.activity
    if scene.power() or log.power_cut_at is None:
        return []
    light = light_source(scene)
    if light is None or scene.location(light) is None:
        return []
    out = []
    for actor in log.acts:
        if scene.location(light) != actor and log.searched(actor, log.power_cut_at, light):
            out.append(Cue("power_cut", actor, light))
    return out


def _missing_tool(o: Observation, scene: SceneView) -> list[Cue]:
    out = []
    log: ActivityLog = o.activity
    for actor, acts in log.acts.items():
        kinds: list[str] = []
        last_set = 0
        done = False
        picked: set[str] = set()
        for act in acts:
            if act.verb in ("cut", "cook", "write"):
                done = True
            if act.failure or not act.args:
                continue
            if act.verb == "pick":
                picked.add(act.args[0])
            if act.verb in ("pick", "place", "putin"):
                kind = scene.kind(act.args[0])
                if kind not in kinds:
                    kinds.append(kind)
                last_set = act.t
        if done or not kinds:
            continue
        combo = combo_for(kinds)
        if combo is None:
            continue
        tool = next((i for i in scene.items() if scene.kind(i) == combo.tool), None)
        if tool is None or tool in picked or scene.location(tool) == actor:
            continue
        going_for = frozenset(x for x in (tool, base_place(scene, tool)) if x)
        if log.searched(actor, last_set, tool, ignore=going_for):
            out.append(Cue("missing_tool", actor, tool, combo.name))
    return out


def _stated_need(o: Observation, scene: SceneView) -> list[Cue]:
    if not o.quiet:
        return []
    out = []
    for actor, acts in o.activity.acts.items():
        feeling = scene.feels(actor)
        if feeling is None or feeling not in NEEDS:
            continue
        said = any(
            a.kind == "say" and a.w < o.t and any(f.subject == actor and f.relation == FEELS for f in a.facts)
            for a in acts
        )
        item = need_item(scene, feeling)
        if said and item is not None:
            out.append(Cue("stated_need", actor, item, feeling))
    return out


def find_cues(o: Observation, table: BeliefTable | None, history: OperationHistory | None) -> list[Cue]:
    """Every cue in ``o_t`` (with the belief table and scene it needs), in :data:`CONTEXTS` order; each marked
    ``helped`` when the history shows the robot already acted for that actor and object.

    Without a scene nothing but the belief table can be read; without a belief table no false belief is seen.
    """
    scene = o.scene
    cues: list[Cue] = []
    if scene is not None:
        if table is not None:
            cues += _false_belief(o, table, scene)
        for detect in (_unreachable, _blocked, _left_running, _power_cut, _missing_tool, _stated_need):
            cues += detect(o, scene)
    if history is None:
        return cues
    return [Cue(c.context, c.actor, c.object, c.detail, history.helped(c.actor, c.object)) for c in cues]


def first_new(cues: Sequence[Cue]) -> Cue | None:
    """The first cue the robot has not acted on yet."""
    return next((c for c in cues if not c.helped), None)

"""The robot's plans for each kind of help, checked by running them on a copy of the world.

Plans follow the paper's ``<Action>`` style: walk to the thing first, open what is closed, take, close again,
walk to the person, give (``walk(dishwasher), open(dishwasher), pick(mug), close(dishwasher), walk(david),
give(mug, david)``).
"""

from __future__ import annotations

from mindloop.beliefs import Tracker
from mindloop.errors import MindloopError
from mindloop.worlds.household.actions import Action
from mindloop.worlds.household.goals import Goal, GoalKind, goal_satisfied
from mindloop.worlds.household.vocab import ROBOT, EntityKind, Prop
from mindloop.worlds.household.world import World


class PlanError(MindloopError):
    """A plan could not be made, or does not achieve its goal when executed."""


def _take(world: World, item: str) -> list[Action]:
    """Walk to an item, open what shuts it in, pick it up, close again."""
    base = world.base_place(item) or ""
    props = world.places[base].props if base else frozenset()
    walk = Action("walk", (base if Prop.RECEPTACLE in props else item,))
    if Prop.OPENABLE in props and not world.is_open(base):
        return [walk, Action("open", (base,)), Action("pick", (item,)), Action("close", (base,))]
    return [walk, Action("pick", (item,))]


def plan_fetch(world: World, item: str, human: str, *, liquid: str = "", source: str = "") -> list[Action]:
    """Fetch ``item`` (filling it with ``liquid`` from ``source`` on the way) and hand it to ``human``."""
    steps = _take(world, item)
    if liquid:
        source = source or liquid
        if world.room_of(source) != world.room_of(item):
            steps.append(Action("walk", (source,)))
        steps.append(Action("pour", (source, item)))
    return [*steps, Action("walk", (human,)), Action("give", (item, human))]


def plan_for(goal: Goal, world: World) -> list[Action]:
    """The robot's plan for ``goal`` from the current state of ``world``."""
    kind = goal.kind
    if kind is GoalKind.DELIVER:
        return plan_fetch(world, goal.target, goal.human, liquid=goal.liquid)
    if kind is GoalKind.INFORM:
        return [Action("walk", (goal.human,)), Action("remind", (goal.human, goal.target))]
    if kind is GoalKind.SWITCH_OFF:
        return [Action("walk", (goal.target,)), Action("switchoff", (goal.target,))]
    if kind is GoalKind.CLEAR:
        room = world.room_of(goal.target)
        if world.kind_of(goal.target) is not EntityKind.ITEM or room is None:
            raise PlanError(f"cannot clear {goal.target!r}: it is not an item in the home")
        return [Action("walk", (goal.target,)), Action("move", (goal.target, f"{room}_corner"))]
    return [Action("wait")]


def check_plan(goal: Goal, world: World, plan: list[Action], tracker: Tracker | None = None) -> None:
    """Run ``plan`` for the robot on a copy of ``world`` (and of ``tracker``); raise :class:`PlanError` if a step
    fails or the goal is not met at the end."""
    sim = world.clone()
    track: Tracker | None = None
    if tracker is not None and goal.kind is GoalKind.INFORM:  # only beliefs decide an INFORM goal
        track = Tracker(max_depth=tracker.max_depth, trust=tracker.trust)
        track.apply_all(tracker.log)
    for action in plan:
        result = sim.step(ROBOT, action)
        if not result.ok:
            raise PlanError(f"plan step {action} fails: {result.failure}")
        if track is not None:
            track.apply_all(result.core_events)
    if goal.kind is not GoalKind.NONE and not goal_satisfied(goal, sim, track):
        raise PlanError(f"plan {', '.join(map(str, plan))} does not achieve {goal}")

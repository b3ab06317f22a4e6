"""What would resolve a scenario: the help a human needs, as a predicate on the world (and on beliefs).

A :class:`Goal` is part of a scenario's hidden truth (like the script of a MindPower story). The Gym
environment rewards the robot when it becomes true; the gold annotation derives the same goal independently
from what the robot perceived and believes, and the two are checked to agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mindloop.beliefs import Tracker
from mindloop.records_codec import Record
from mindloop.worlds.household.vocab import AT
from mindloop.worlds.household.world import World


class GoalKind(StrEnum):
    """The kinds of help scenarios call for."""

    DELIVER = "deliver"  # the human should end up holding ``target`` (filled with ``liquid`` if set)
    INFORM = "inform"  # the human should no longer hold a false belief about where ``target`` is
    SWITCH_OFF = "switch_off"  # ``target`` should be off (a faucet left running)
    CLEAR = "clear"  # the obstacle ``target`` should no longer block a doorway
    NONE = "none"  # no help is needed: the right move is to wait


@dataclass(frozen=True, slots=True)
class Goal(Record):
    """The help a scenario calls for: ``kind`` of help for ``human`` about ``target`` (``to_dict``/``from_dict``:
    the same keys for every goal)."""

    kind: GoalKind
    human: str
    target: str
    liquid: str = ""


def goal_satisfied(goal: Goal, world: World, tracker: Tracker | None = None) -> bool:
    """Whether the world (and, for :attr:`GoalKind.INFORM`, the human's beliefs in ``tracker``) meets the goal.

    ``NONE`` is never "satisfied" by the world: it is met by not intervening (the environment decides).
    """
    kind = goal.kind
    if kind is GoalKind.DELIVER:
        if world.holder_of(goal.target) != goal.human:
            return False
        return not goal.liquid or world.contents(goal.target) == goal.liquid
    if kind is GoalKind.INFORM:
        if world.holder_of(goal.target) == goal.human:
            return True
        if tracker is None:
            return False
        held = tracker.value((goal.human,), goal.target, AT)
        return held is None or held == world.location(goal.target)
    if kind is GoalKind.SWITCH_OFF:
        return not world.is_on(goal.target)
    if kind is GoalKind.CLEAR:
        return not world.location(goal.target).endswith("_doorway")
    return False

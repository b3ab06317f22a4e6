"""The MindPower household world: a fast symbolic home simulator whose every step is a belief-core event.

* :class:`World` — rooms, furniture, items, humans (adults, a 1.2 m child, a wheelchair user) and a robot;
  ``World.step(actor, "pick(apple)")`` checks preconditions and returns events with witnesses.
* :mod:`~mindloop.worlds.household.actions` — the unified action set and its ``verb(arg, ...)`` text form.
* :mod:`~mindloop.worlds.household.scenarios` — seeded MindPower-style scenarios with exact gold annotations and
  the ``mindpower-sim`` dataset.
* :class:`HouseholdEnv` — the robot's Gymnasium environment (``mindloop/Household-v0``); importing it registers it.

Each name here is imported from its submodule on first use (:func:`mindloop.lazy.lazy_exports`): the world and
its scenarios need neither Gymnasium nor NumPy (only the environment does), and a benchmark that imports one
submodule does not import the rest, so ``bench run`` prints its first line sooner.

See ``docs/household.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mindloop.lazy import lazy_exports

if TYPE_CHECKING:
    from mindloop.worlds.household.actions import ALIASES as ALIASES
    from mindloop.worlds.household.actions import VERBS as VERBS
    from mindloop.worlds.household.actions import Action as Action
    from mindloop.worlds.household.actions import ArgKind as ArgKind
    from mindloop.worlds.household.actions import VerbSpec as VerbSpec
    from mindloop.worlds.household.actions import format_actions as format_actions
    from mindloop.worlds.household.actions import parse_action as parse_action
    from mindloop.worlds.household.actions import parse_actions as parse_actions
    from mindloop.worlds.household.catalog import ITEM_KINDS as ITEM_KINDS
    from mindloop.worlds.household.catalog import PLACE_KINDS as PLACE_KINDS
    from mindloop.worlds.household.catalog import ROOM_TYPES as ROOM_TYPES
    from mindloop.worlds.household.catalog import ItemKind as ItemKind
    from mindloop.worlds.household.catalog import PlaceKind as PlaceKind
    from mindloop.worlds.household.characters import CHARACTERS as CHARACTERS
    from mindloop.worlds.household.characters import ROBOT_CHARACTER as ROBOT_CHARACTER
    from mindloop.worlds.household.characters import Character as Character
    from mindloop.worlds.household.entities import WorldSnapshot as WorldSnapshot
    from mindloop.worlds.household.gym_env import ENV_ID as ENV_ID
    from mindloop.worlds.household.gym_env import HouseholdEnv as HouseholdEnv
    from mindloop.worlds.household.gym_env import register_envs as register_envs
    from mindloop.worlds.household.layouts import LAYOUTS as LAYOUTS
    from mindloop.worlds.household.layouts import Layout as Layout
    from mindloop.worlds.household.layouts import RoomPlan as RoomPlan
    from mindloop.worlds.household.results import Failure as Failure
    from mindloop.worlds.household.results import FailureKind as FailureKind
    from mindloop.worlds.household.results import StepResult as StepResult
    from mindloop.worlds.household.results import WorldEvent as WorldEvent
    from mindloop.worlds.household.setup import WorldSetup as WorldSetup
    from mindloop.worlds.household.vocab import AT as AT
    from mindloop.worlds.household.vocab import CONTAINS as CONTAINS
    from mindloop.worlds.household.vocab import FEELS as FEELS
    from mindloop.worlds.household.vocab import OPEN as OPEN
    from mindloop.worlds.household.vocab import POWER as POWER
    from mindloop.worlds.household.vocab import ROBOT as ROBOT
    from mindloop.worlds.household.vocab import ROOM as ROOM
    from mindloop.worlds.household.vocab import SWITCH as SWITCH
    from mindloop.worlds.household.vocab import Prop as Prop
    from mindloop.worlds.household.vocab import Trait as Trait
    from mindloop.worlds.household.world import World as World

__getattr__ = lazy_exports(__name__)

"""The MindPower household world: a fast symbolic home simulator whose every step is a belief-core event.

* :class:`World` — rooms, furniture, items, humans (adults, a 1.2 m child, a wheelchair user) and a robot;
  ``World.step(actor, "pick(apple)")`` checks preconditions and returns events with witnesses.
* :mod:`~mindloop.worlds.household.actions` — the unified action set and its ``verb(arg, ...)`` text form.
* :mod:`~mindloop.worlds.household.scenarios` — seeded MindPower-style scenarios with exact gold annotations and
  the ``mindpower-sim`` dataset.
* :class:`HouseholdEnv` — the robot's Gymnasium environment (``mindloop/Household-v0``), imported (with Gymnasium
  and NumPy) on first use of ``HouseholdEnv``, ``ENV_ID`` or ``register_envs``: the world and its scenarios need
  neither, and a ``bench run`` prints its first line sooner without them. Importing the environment registers it.

See ``docs/household.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mindloop.worlds.household.actions import (
    ALIASES,
    VERBS,
    Action,
    ArgKind,
    VerbSpec,
    format_actions,
    parse_action,
    parse_actions,
)
from mindloop.worlds.household.catalog import ITEM_KINDS, PLACE_KINDS, ROOM_TYPES, ItemKind, PlaceKind
from mindloop.worlds.household.characters import CHARACTERS, ROBOT_CHARACTER, Character
from mindloop.worlds.household.layouts import LAYOUTS, Layout, RoomPlan
from mindloop.worlds.household.results import Failure, FailureKind, StepResult, WorldEvent
from mindloop.worlds.household.setup import WorldSetup
from mindloop.worlds.household.vocab import AT, CONTAINS, FEELS, OPEN, POWER, ROBOT, ROOM, SWITCH, Prop, Trait
from mindloop.worlds.household.world import World, WorldSnapshot

if TYPE_CHECKING:
    from mindloop.worlds.household.gym_env import ENV_ID, HouseholdEnv, register_envs

_ENV_NAMES = ("ENV_ID", "HouseholdEnv", "register_envs")


def __getattr__(name: str) -> Any:
    """Import the Gymnasium environment on first use of one of its names."""
    if name not in _ENV_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module("mindloop.worlds.household.gym_env"), name)
    globals()[name] = value
    return value


__all__ = [
    "ALIASES",
    "AT",
    "CHARACTERS",
    "CONTAINS",
    "ENV_ID",
    "FEELS",
    "ITEM_KINDS",
    "LAYOUTS",
    "OPEN",
    "PLACE_KINDS",
    "POWER",
    "ROBOT",
    "ROBOT_CHARACTER",
    "ROOM",
    "ROOM_TYPES",
    "SWITCH",
    "VERBS",
    "Action",
    "ArgKind",
    "Character",
    "Failure",
    "FailureKind",
    "HouseholdEnv",
    "ItemKind",
    "Layout",
    "PlaceKind",
    "Prop",
    "RoomPlan",
    "StepResult",
    "Trait",
    "VerbSpec",
    "World",
    "WorldEvent",
    "WorldSetup",
    "WorldSnapshot",
    "format_actions",
    "parse_action",
    "parse_actions",
    "register_envs",
]

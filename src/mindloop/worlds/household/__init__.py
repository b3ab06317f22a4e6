"""The MindPower household world: a fast symbolic home simulator whose every step is a belief-core event.

* :class:`World` — rooms, furniture, items, humans (adults, a 1.2 m child, a wheelchair user) and a robot;
  ``World.step(actor, "pick(apple)")`` checks preconditions and returns events with witnesses.
* :mod:`~mindloop.worlds.household.actions` — the unified action set and its ``verb(arg, ...)`` text form.
* :mod:`~mindloop.worlds.household.scenarios` — seeded MindPower-style scenarios with exact gold annotations and
  the ``mindpower-sim`` dataset.
* :class:`HouseholdEnv` — the robot's Gymnasium environment (``mindloop/Household-v0``); importing it registers it.

Each name here is imported from its submodule on first use (:func:`mindloop.lazy.lazy_attributes`): the world and
its scenarios need neither Gymnasium nor NumPy (only the environment does), and a benchmark that imports one
submodule does not import the rest, so ``bench run`` prints its first line sooner.

See ``docs/household.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mindloop.lazy import lazy_attributes

if TYPE_CHECKING:
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
    from mindloop.worlds.household.gym_env import ENV_ID, HouseholdEnv, register_envs
    from mindloop.worlds.household.layouts import LAYOUTS, Layout, RoomPlan
    from mindloop.worlds.household.results import Failure, FailureKind, StepResult, WorldEvent
    from mindloop.worlds.household.setup import WorldSetup
    from mindloop.worlds.household.vocab import AT, CONTAINS, FEELS, OPEN, POWER, ROBOT, ROOM, SWITCH, Prop, Trait
    from mindloop.worlds.household.world import World, WorldSnapshot

__getattr__ = lazy_attributes(
    __name__,
    {
        "actions": (
            "ALIASES",
            "VERBS",
            "Action",
            "ArgKind",
            "VerbSpec",
            "format_actions",
            "parse_action",
            "parse_actions",
        ),
        "catalog": ("ITEM_KINDS", "PLACE_KINDS", "ROOM_TYPES", "ItemKind", "PlaceKind"),
        "characters": ("CHARACTERS", "ROBOT_CHARACTER", "Character"),
        "layouts": ("LAYOUTS", "Layout", "RoomPlan"),
        "results": ("Failure", "FailureKind", "StepResult", "WorldEvent"),
        "setup": ("WorldSetup",),
        "vocab": ("AT", "CONTAINS", "FEELS", "OPEN", "POWER", "ROBOT", "ROOM", "SWITCH", "Prop", "Trait"),
        "gym_env": ("ENV_ID", "HouseholdEnv", "register_envs"),
        "world": ("World", "WorldSnapshot"),
    },
)

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

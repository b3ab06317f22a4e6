"""Shared vocabulary of the household world: relation names, entity properties, human traits.

Relations are the ``relation`` of belief-core :class:`~mindloop.beliefs.Fact` records the world emits, so a
tracker following the world can be queried with them (``tracker.value(("robot", "alice"), "apple", AT)``).
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "AT",
    "CONTAINS",
    "ENVIRONMENT",
    "FEELS",
    "HOUSE",
    "OPEN",
    "POSTURE",
    "POWER",
    "ROBOT",
    "ROOM",
    "STATE",
    "SWITCH",
    "EntityKind",
    "Prop",
    "Trait",
]

AT = "at"
"""Where an item is: a place id, another item id (a cutting board, a plate) or the id of the agent holding it."""
ROOM = "room"
"""Which room an agent is in (``None`` right after it leaves a room: the witnesses do not see where it goes)."""
OPEN = "open"
"""``"open"`` or ``"closed"`` for anything that opens."""
SWITCH = "switch"
"""``"on"`` or ``"off"`` for anything switchable (a running faucet is ``on``; a lit candle is ``on``)."""
CONTAINS = "contains"
"""The liquid a cup or glass holds (``None`` when empty)."""
POWER = "power"
"""Mains power of the house (subject :data:`HOUSE`): ``"on"`` or ``"off"``."""
POSTURE = "posture"
"""``"sitting"`` or ``"standing"``."""
FEELS = "feels"
"""A bodily state of a human (``thirsty``, ``cold``, ``hungry``, ...): what dialogue-driven needs are about."""
STATE = "state"
"""Other object state changed by an action (``cut``, ``cooked``)."""

HOUSE = "house"
"""Subject of house-wide facts (power)."""
ROBOT = "robot"
"""The id of the one robot in every home."""
ENVIRONMENT = "environment"
"""Reserved actor id of events nobody performs (a power cut)."""


class EntityKind(StrEnum):
    """The four namespaces of ids in a home; every id belongs to exactly one."""

    ROOM = "room"
    PLACE = "place"
    ITEM = "item"
    AGENT = "agent"


class Prop(StrEnum):
    """Properties of places (furniture, fixtures) and items that actions check as preconditions."""

    GRASPABLE = "graspable"
    MOVABLE = "movable"
    SURFACE = "surface"
    RECEPTACLE = "receptacle"
    OPENABLE = "openable"
    SWITCHABLE = "switchable"
    NEEDS_POWER = "needs_power"
    LIGHT_SOURCE = "light_source"
    WATER_SOURCE = "water_source"
    CONTAINER = "container"
    LIQUID = "liquid"
    SITTABLE = "sittable"
    BED = "bed"
    WATCHABLE = "watchable"
    READABLE = "readable"
    WRITABLE = "writable"
    WRITER = "writer"
    CUTTER = "cutter"
    CUTTABLE = "cuttable"
    COOKER = "cooker"
    EDIBLE = "edible"
    FLOOR = "floor"
    DOORWAY = "doorway"
    OBSTACLE = "obstacle"


class Trait(StrEnum):
    """Physical profile of an agent: what it can reach and how it moves."""

    ADULT = "adult"
    CHILD = "child"
    WHEELCHAIR = "wheelchair"
    ROBOT = "robot"

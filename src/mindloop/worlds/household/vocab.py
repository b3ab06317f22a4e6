"""Shared vocabulary of the household world: relation names, entity properties, human traits.

Relations are the ``relation`` of belief-core :class:`~mindloop.beliefs.Fact` records the world emits, so a
tracker following the world can be queried with them (``tracker.value(("robot", "alice"), "apple", AT)``). The
relation names and the robot's id are the belief core's canonical ones (:mod:`mindloop.beliefs.vocab`),
re-exported here; ``at`` is where an item is: a place id, another item id (a cutting board, a plate) or the id of
the agent holding it. What is household-only (the house subject, the environment actor, entity kinds,
properties, traits) is defined here.
"""

from __future__ import annotations

from enum import StrEnum

from mindloop.beliefs.vocab import AT, CONTAINS, FEELS, OPEN, POSTURE, POWER, ROBOT, ROOM, STATE, SWITCH

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
    "HasProps",
    "Prop",
    "Trait",
]

HOUSE = "house"
"""Subject of house-wide facts (power)."""
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


class HasProps:
    """A place or a kind of place, with its ``props``: ``prep`` says how a thing sits at it."""

    __slots__ = ()
    props: frozenset[Prop]

    @property
    def prep(self) -> str:
        """``in`` for receptacles (fridge, drawer), ``on`` for surfaces and everything else."""
        return "in" if Prop.RECEPTACLE in self.props else "on"


class Trait(StrEnum):
    """Physical profile of an agent: what it can reach and how it moves."""

    ADULT = "adult"
    CHILD = "child"
    WHEELCHAIR = "wheelchair"
    ROBOT = "robot"

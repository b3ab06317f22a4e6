"""Shared helpers for the household tests: small homes built through the public API."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mindloop.beliefs import Tracker
from mindloop.worlds.household import World, WorldSetup


def _tracked(world: World) -> Tracker:
    tr = Tracker()
    tr.apply_all(e.core for e in world.initial_events())
    return tr


@pytest.fixture
def tracked() -> Callable[[World], Tracker]:
    """Make a tracker that has seen a world's initial events."""
    return _tracked


@pytest.fixture
def home() -> World:
    """Cozy apartment: Alice (adult) in the kitchen holding an apple, Lily (child) and Tom (wheelchair) in the
    living room, cookies on the high pantry shelf, a mug in the closed fridge, the robot docked in the living
    room, its camera on every room."""
    return World(
        WorldSetup(
            "cozy_apartment",
            (("alice", "kitchen"), ("lily", "living_room"), ("tom", "living_room")),
            (("apple", "apple", "alice"), ("cookies", "cookies", "pantry_shelf"), ("mug", "mug", "fridge")),
        )
    )

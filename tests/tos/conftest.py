"""Shared fixtures: a hand-made two-room scene (every expectation in the tests is worked out by hand from its
coordinates) and the reference's example scene ``3-room/run00`` (in ``data/``)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from mindloop.systems.tos.world import Scene, load_scene, scene_from_dict

DATA = Path(__file__).parent / "data"

# Room 1: x 1..3, y 1..3; room 2: x 5..7, y 1..3; the red door at (4, 2) joins them. The agent starts at (1, 1),
# so relative to the start: chair (1, 2) facing south, lamp (2, 0), red door (3, 1), sofa (5, 1) facing west,
# plant (6, 2).
TWO_ROOMS: dict[str, Any] = {
    "format": "mindloop-spatial-scene",
    "version": 1,
    "name": "two-rooms",
    "rooms": [{"id": 1, "x": [1, 3], "y": [1, 3]}, {"id": 2, "x": [5, 7], "y": [1, 3]}],
    "doors": [{"name": "red door", "pos": [4, 2], "rooms": [1, 2]}],
    "objects": [
        {"name": "chair", "pos": [2, 3], "facing": "south"},
        {"name": "lamp", "pos": [3, 1], "facing": None},
        {"name": "sofa", "pos": [6, 2], "facing": "west"},
        {"name": "plant", "pos": [7, 3]},
    ],
    "agent": {"pos": [1, 1], "facing": "north"},
}


@pytest.fixture
def two_rooms_dict() -> dict[str, Any]:
    """A fresh copy of the two-room scene in mindloop's format."""
    return copy.deepcopy(TWO_ROOMS)


@pytest.fixture
def two_rooms() -> Scene:
    """The two-room scene."""
    return scene_from_dict(TWO_ROOMS)


@pytest.fixture(scope="session")
def run00() -> Scene:
    """The reference's example scene 3-room/run00 (meta_data.json layout)."""
    return load_scene(DATA / "run00_meta_data.json")

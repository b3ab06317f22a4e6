"""Shared MindClaw fixtures: the demo's false-belief episode and the standard test split."""

from __future__ import annotations

import pytest

from mindloop.systems.mindclaw import Engine, build_engine, default_skills
from mindloop.worlds.household.scenarios import Scenario, generate_scenario, mindpower_sim


@pytest.fixture(scope="session")
def lily() -> Scenario:
    """generate_scenario("fb_two_humans", 0, 0): Lily puts the apple in the fridge, leaves; Sarah moves it to the
    wall cabinet; Lily comes back (window 14) and opens the fridge (window 15)."""
    return generate_scenario("fb_two_humans", 0, 0, dressed=False)  # the cast and catalogue ids, undressed


@pytest.fixture(scope="session")
def test_split() -> list[Scenario]:
    """The 118 scenarios of the mindpower-sim test split (seed 0)."""
    return mindpower_sim("test")


@pytest.fixture
def symbolic() -> Engine:
    """A fresh symbolic runtime with the shipped skills."""
    return build_engine("symbolic", skills=default_skills())

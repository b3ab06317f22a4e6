"""ToS counts both kinds of bad action apart: strings that cannot be read (``unparsed_actions``) and actions the
environment refused (``refused_actions``); ``invalid_actions`` is their sum (it used to count only the first)."""

from __future__ import annotations

import asyncio

from mindloop.models.base import GenerationConfig
from mindloop.systems.tos.benchmarks import action_failure_counts
from mindloop.systems.tos.explorers.model import run_model_exploration
from mindloop.systems.tos.world import Scene, SpatialEnv

from .test_spatial_model import FakeModel


def test_refused_and_unparsed_actions_are_counted_apart(two_rooms: Scene) -> None:
    env = SpatialEnv(two_rooms)
    env.reset(seed=0)
    jump = "THINK: go\nFINAL ANSWER: Actions: [JumpTo(laptop), Observe()]"  # no laptop in this scene
    model = FakeModel([jump] * 5 + ["I will just look around", "FINAL ANSWER: Actions: [Term()]"])
    ep = asyncio.run(run_model_exploration(env, model, GenerationConfig(), seed=1, retries=0))
    assert len(ep.turns) == 7
    counts = action_failure_counts(ep.turns)
    assert counts == {"unparsed_actions": 1.0, "refused_actions": 5.0, "invalid_actions": 6.0}
    refused = [f for f in ep.failures if "refused action" in f]
    assert [f.split(":")[0] for f in refused] == [f"step {k}" for k in range(1, 6)]
    assert all("JumpTo(laptop)" in f for f in refused)

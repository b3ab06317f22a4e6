"""The TDW-MAT-style world: PettingZoo contract, Table 5 settings, frame costs, hands, containers, the bed."""

from __future__ import annotations

import math
import warnings

import pytest
from gymnasium.error import ResetNeeded
from pettingzoo.test import parallel_api_test

from mindloop.systems.cobel.worlds import Action, TdwEnv, TdwEpisode
from mindloop.systems.cobel.worlds.tdw_spec import (
    FRAME_BUDGET,
    FRAME_COSTS,
    FRAMES_PER_METER,
    ROOM_SIZE,
    TDW_CATEGORIES,
)
from mindloop.systems.cobel.worlds.testsets import tdw_test_set


@pytest.mark.parametrize("n", [2, 3, 4])
def test_parallel_api(n: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parallel_api_test(TdwEnv(n_agents=n), num_cycles=400)


def test_test_set_mirrors_the_paper_split() -> None:
    eps = tdw_test_set()
    assert len(eps) == 24
    for cat in ("food", "stuff"):
        for cap in ("low", "high"):
            assert sum(1 for e in eps if (e.category, e.capacity) == (cat, cap)) == 6


@pytest.mark.parametrize(("category", "capacity", "n_containers"), [("food", "low", 2), ("stuff", "high", 5)])
def test_scene_has_ten_targets_and_the_right_containers(category: str, capacity: str, n_containers: int) -> None:
    env = TdwEnv(TdwEpisode(category, capacity, 2, 3))
    obs, _ = env.reset()
    targets, containers = TDW_CATEGORIES[category]
    assert len(env.targets) == 10 and all(env.entities[t].name in targets for t in env.targets)
    assert len(env.containers) == n_containers and all(env.entities[c].name in containers for c in env.containers)
    assert sum(n for _, n in obs["Alice"].goal) == 10
    assert env.entities[env.room_of[env.bed.id]].name == "bedroom"


def _ready_step(env: TdwEnv, agent: str, action: Action) -> dict:
    """Act with ``agent`` (others wait) and run until ``agent`` is ready again; returns its last info."""
    _, _, _, _, info = env.step({agent: action})
    while env.agents and env._agent[agent].busy_until > env.frame:
        _, _, _, _, info = env.step({})
    return info.get(agent, {})


def test_frame_costs_and_moving_to_the_next_room() -> None:
    env = TdwEnv(TdwEpisode("food", "low", 2, 1))
    env.reset()
    alice = env._agent["Alice"]
    room = alice.room
    nxt = next(b if a == room else a for a, b in env.doors if room in (a, b))
    start = env.frame
    env.step({"Alice": Action("move", nxt), "Bob": Action("wait")})
    assert alice.busy_until - start == math.ceil(ROOM_SIZE * FRAMES_PER_METER)  # from the room centre
    while alice.busy_until > env.frame:
        env.step({})
    assert alice.room == nxt and env.frame == start + ROOM_SIZE * FRAMES_PER_METER
    before = env.frame
    _ready_step(env, "Alice", Action("turn_right"))
    assert env.frame - before == FRAME_COSTS["turn_right"]


def test_exploring_by_turning_goes_none_part_all() -> None:
    env = TdwEnv(TdwEpisode("stuff", "low", 2, 2))
    obs, _ = env.reset()
    assert obs["Alice"].explored == "part" and len(obs["Alice"].quarters) == 1
    states = []
    for _ in range(3):
        _ready_step(env, "Alice", Action("turn_right"))
        states.append(env._observe("Alice").explored)
    assert states == ["part", "part", "all"]


def _carry(env: TdwEnv, agent: str, target: int) -> None:
    while env._agent[agent].room != env.room_of[target]:
        _ready_step(env, agent, Action("move", env.room_of[target]))
    ag = env._agent[agent]
    while target not in [i for i, r in env.room_of.items() if r == ag.room] or not env._visible_to(ag, target):
        _ready_step(env, agent, Action("turn_right"))
    _ready_step(env, agent, Action("move", target))
    info = _ready_step(env, agent, Action("grasp", target))
    assert info.get("ok", True), info


def test_two_hands_a_container_of_three_and_the_bed() -> None:
    env = TdwEnv(TdwEpisode("food", "high", 2, 4))
    env.reset()
    cont, objs = env.containers[0], env.targets[:4]
    _carry(env, "Alice", cont)
    for o in objs[:3]:
        _carry(env, "Alice", o)
        assert _ready_step(env, "Alice", Action("put_in"))["ok"]
    assert env.contents[cont] == objs[:3]
    _carry(env, "Alice", objs[3])
    info = _ready_step(env, "Alice", Action("put_in"))
    assert not info["ok"] and "full" in info["error"]
    extra = env.targets[4]
    _ready_step(env, "Alice", Action("move", env.room_of[extra]))
    info = _ready_step(env, "Alice", Action("grasp", extra))
    assert not info["ok"]  # both hands are taken (or it is not in reach)
    while not (env._agent["Alice"].room == env.room_of[env.bed.id] and env._agent["Alice"].near == env.bed.id):
        _ready_step(env, "Alice", Action("move", env.bed.id))
    _ready_step(env, "Alice", Action("drop"))
    assert env.on_bed == set(objs) and env.transport_rate() == 0.4
    assert cont not in env.room_of  # containers are used up at the bed


def test_budget_truncates_at_3000_frames() -> None:
    env = TdwEnv(TdwEpisode("food", "low", 2, 5))
    env.reset()
    trunc = {}
    while env.agents:
        _, _, _, trunc, _ = env.step({})
    assert env.frame == FRAME_BUDGET and all(trunc.values())
    with pytest.raises(ResetNeeded):
        env.step({})
    with pytest.raises(ResetNeeded):
        TdwEnv().step({})  # never reset


def test_ground_truth_only_in_privileged_mode() -> None:
    ep = TdwEpisode("stuff", "high", 2, 2)
    _, info = TdwEnv(ep).reset()
    assert "ground_truth" not in info["Alice"] and all(e.witnesses for e in info["Alice"]["events"])
    _, info = TdwEnv(ep).reset(options={"privileged": True})
    truth = info["Bob"]["ground_truth"]
    # the ten targets and five containers each lie in a room, and both agents are somewhere
    assert sum(1 for f in truth["state"] if f.relation == "IN" and f.subject != "<bed>(500)") == 15
    assert {f.subject for f in truth["state"] if f.relation == "AT"} == {"Alice", "Bob"}
    assert truth["transported"] == 0 and not truth["events"][0].witnesses  # the opening world facts


def test_actions_of_busy_agents_are_ignored() -> None:
    env = TdwEnv(TdwEpisode("food", "low", 2, 6))
    env.reset()
    far = next(r for r in env.layout.rooms if env.layout.hops(env._agent["Alice"].room, r) == 2)
    env.step({"Alice": Action("move", far), "Bob": Action("wait")})
    busy_until = env._agent["Alice"].busy_until
    obs, *_ = env.step({"Alice": Action("turn_right"), "Bob": Action("wait")})
    assert not obs["Alice"].ready and env._agent["Alice"].busy_until == busy_until

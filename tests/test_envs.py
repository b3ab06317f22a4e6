"""The environment contract, checked over every id in the environment registry (``mindloop.environments``).

Each registered world must pass its library's API checker, replay the same episode from the same seed and the
same seeded random actions, raise ``ResetNeeded`` when stepped after its episode ended, and put ground truth in
``info["ground_truth"]`` in privileged mode and nowhere at all otherwise. The ids come from the registry, so a
newly registered environment is covered without editing this file.
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env
from pettingzoo import ParallelEnv
from pettingzoo.test import parallel_api_test

from mindloop.environments import ENVS, env_api, make_env
from mindloop.errors import RegistryError, UnknownNameError

ENV_IDS = ENVS.names()
MAX_STEPS = 5_000
"""A random rollout longer than this means the episode never ends: a contract failure of its own."""

Record = list[tuple[Any, ...]]


def _drop_truth(info: dict[str, Any], multi: bool) -> dict[str, Any]:
    if multi:
        return {a: {k: v for k, v in i.items() if k != "ground_truth"} for a, i in info.items()}
    return {k: v for k, v in info.items() if k != "ground_truth"}


def _check_truth(info: dict[str, Any], multi: bool, privileged: bool) -> None:
    for one in info.values() if multi else [info]:
        assert ("ground_truth" in one) == privileged, sorted(one)


def _rollout(env_id: str, seed: int, *, privileged: bool) -> Record:
    """Reset with ``seed`` and act with actions sampled from spaces seeded with ``seed`` until the episode ends.

    Checks the ground-truth rule at every step and ``ResetNeeded`` at the end; returns what the env returned,
    infos without their ground truth.
    """
    env = make_env(env_id, privileged=privileged)
    multi = env_api(env_id) == "pettingzoo"
    record: Record = []
    if multi:
        obs, infos = env.reset(seed=seed)
        spaces = {id(env.action_space(a)): env.action_space(a) for a in env.possible_agents}
        for k, space in enumerate(spaces.values()):
            space.seed(seed + k)
        _check_truth(infos, multi, privileged)
        record.append((obs, _drop_truth(infos, multi)))
        while env.agents:
            assert len(record) <= MAX_STEPS, f"{env_id}: no end after {MAX_STEPS} random steps"
            actions = {a: env.action_space(a).sample() for a in env.agents}
            obs, rewards, terms, truncs, infos = env.step(actions)
            _check_truth(infos, multi, privileged)
            record.append((actions, obs, rewards, terms, truncs, _drop_truth(infos, multi)))
        with pytest.raises(ResetNeeded):
            env.step({})
    else:
        env.action_space.seed(seed)
        obs, info = env.reset(seed=seed)
        _check_truth(info, multi, privileged)
        record.append((obs, _drop_truth(info, multi)))
        done = False
        while not done:
            assert len(record) <= MAX_STEPS, f"{env_id}: no end after {MAX_STEPS} random steps"
            action = env.action_space.sample()
            obs, reward, terminated, truncated, info = env.step(action)
            _check_truth(info, multi, privileged)
            record.append((action, obs, float(reward), terminated, truncated, _drop_truth(info, multi)))
            done = terminated or truncated
        with pytest.raises(ResetNeeded):
            env.step(env.action_space.sample())
    return record


def _equal(a: Any, b: Any) -> bool:
    """Deep equality that also compares numpy arrays element-wise."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def test_the_built_in_worlds_are_registered() -> None:
    assert {"mindloop/Household-v0", "mindloop/TheoryOfSpace-v0", "mindloop/cwah_v0", "mindloop/tdw_mat_v0"} <= set(
        ENV_IDS
    ), "reinstall the package (pip install -e .) so its mindloop.envs entry points are visible"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_api_names_the_library_and_gymnasium_knows_single_agent_ids(env_id: str) -> None:
    env = make_env(env_id)
    if env_api(env_id) == "gymnasium":
        assert isinstance(env, gymnasium.Env) and env_id in gymnasium.registry
        assert isinstance(gymnasium.make(env_id).unwrapped, type(env))
    else:
        assert isinstance(env, ParallelEnv) and env_id not in gymnasium.registry


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_library_api_checker_passes(env_id: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if env_api(env_id) == "gymnasium":
            check_env(gymnasium.make(env_id).unwrapped)
        else:
            parallel_api_test(make_env(env_id), num_cycles=200)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_same_seed_same_episode_and_reset_needed_after_it(env_id: str) -> None:
    first = _rollout(env_id, 7, privileged=False)
    assert len(first) >= 2
    assert _equal(first, _rollout(env_id, 7, privileged=False))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_ground_truth_is_in_info_ground_truth_and_nowhere_else(env_id: str) -> None:
    # privileged mode adds info["ground_truth"] at every reset and step (checked inside the rollout) and changes
    # nothing else: observations, rewards and the rest of info are those of the unprivileged episode
    assert _equal(_rollout(env_id, 3, privileged=True), _rollout(env_id, 3, privileged=False))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_reset_option_turns_privileged_mode_on_and_off(env_id: str) -> None:
    env = make_env(env_id)
    multi = env_api(env_id) == "pettingzoo"
    _, info = env.reset(seed=1, options={"privileged": True})
    _check_truth(info, multi, True)
    _, info = env.reset(seed=1)
    _check_truth(info, multi, False)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_stepping_before_reset_needs_a_reset(env_id: str) -> None:
    env = make_env(env_id)
    with pytest.raises(ResetNeeded):
        env.step({}) if env_api(env_id) == "pettingzoo" else env.step(env.action_space.sample())


def test_ids_name_their_api_and_unknown_ids_are_refused() -> None:
    assert env_api("mindloop/Household-v0") == "gymnasium" and env_api("other/walker_v2") == "pettingzoo"
    with pytest.raises(RegistryError, match="must end in '-vN'"):
        env_api("mindloop/Household")
    with pytest.raises(UnknownNameError, match="did you mean 'mindloop/Household-v0'"):
        make_env("mindloop/HousEhold-v0")

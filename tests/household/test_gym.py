"""The robot's Gymnasium environment: the API contract (check_env), privileged information, rewards."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env

from mindloop.beliefs import Event, Utterance
from mindloop.errors import InvalidArgumentError
from mindloop.worlds.household import ENV_ID, HouseholdEnv
from mindloop.worlds.household.scenarios import generate_scenario, mindpower_sim


@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array"])
def test_check_env_passes_without_warnings(render_mode: str | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(gym.make(ENV_ID, render_mode=render_mode).unwrapped)


def test_observation_is_the_perceived_window_and_truth_only_on_request() -> None:
    s = generate_scenario("fb_camera_blind", 0, 0)
    env = HouseholdEnv()
    obs, info = env.reset(seed=0, options={"scenario": s})
    assert obs["text"] == s.observation and obs["step"] == 0 and obs["robot_room"] == s.setup.robot_room
    assert "ground_truth" not in info
    assert all(
        isinstance(e, Event | Utterance)
        and "robot" in (e.witnesses if isinstance(e, Event) else e.listeners | {e.speaker})
        for e in info["events"]
    )
    hidden = [e for e in s.events if e.text and "robot" not in e.witnesses]
    assert hidden and all(e.text not in obs["text"] for e in hidden)
    assert all(ev["text"] in obs["text"] for ev in obs["events"])
    _, info = env.reset(seed=0, options={"scenario": s, "privileged": True})
    truth = info["ground_truth"]
    assert truth["gold"]["actions"] == list(s.gold.actions) and truth["help_needed"] is True
    assert any(e["text"] == hidden[0].text for e in truth["events"])
    *_, info = env.step(truth["gold"]["actions"][0])  # a step's ground truth holds that step's events only
    step_truth = info["ground_truth"]["events"]
    assert step_truth and min(e["t"] for e in step_truth) > max(e["t"] for e in truth["events"])
    assert [e["text"] for e in step_truth if "robot" in e["witnesses"]] == [e.text for e in info["events"]]


def test_gold_plan_earns_the_reward_and_ends_the_episode() -> None:
    env = HouseholdEnv(scenarios=mindpower_sim("test", n=40))
    for i in range(len(env.scenarios or [])):
        _, info = env.reset(seed=i, options={"index": i, "privileged": True})
        actions = info["ground_truth"]["gold"]["actions"]
        total = 0.0
        for k, action in enumerate(actions):
            _, reward, terminated, truncated, _ = env.step(action)
            total += float(reward)
            assert terminated == (k == len(actions) - 1) and not truncated
        assert total == 1.0


def test_waiting_is_right_only_when_no_help_is_needed() -> None:
    env = HouseholdEnv()
    env.reset(seed=0, options={"scenario": generate_scenario("fb_control_not_needed", 1)})
    assert env.step("wait")[1:3] == (1.0, True)
    env.reset(seed=0, options={"scenario": generate_scenario("fb_two_humans", 1)})
    assert env.step("wait")[1:3] == (0.0, True)


def test_invalid_actions_are_typed_failures_in_the_observation() -> None:
    env = HouseholdEnv(max_steps=3)
    env.reset(seed=0, options={"scenario": generate_scenario("ig_faucet_running", 2)})
    for action, kind in [
        ("fly(moon)", "unknown_verb"),
        ("pick(unicorn)", "unknown_entity"),
        ("give(mug)", "wrong_arity"),
    ]:
        obs, reward, terminated, truncated, info = env.step(action)
        assert obs["last_failure"] == kind == info["failure"] and reward == 0.0 and not terminated
        assert "failed" in obs["text"]
    assert truncated  # third step reaches max_steps
    with pytest.raises(ResetNeeded, match="episode is over"):
        env.step("wait")


def test_renders() -> None:
    env = HouseholdEnv(render_mode="rgb_array")
    env.reset(seed=1)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.shape == (480, 640, 3) and frame.dtype == np.uint8
    text_env = HouseholdEnv(render_mode="ansi")
    text_env.reset(seed=1)
    text = text_env.render()
    assert isinstance(text, str) and "here" in text


def test_bad_arguments() -> None:
    with pytest.raises(InvalidArgumentError):
        HouseholdEnv(render_mode="human")
    with pytest.raises(ResetNeeded, match="reset"):
        HouseholdEnv().step("wait")
    env = HouseholdEnv(scenarios=[generate_scenario("fb_two_humans", 0)])
    with pytest.raises(InvalidArgumentError):
        env.reset(options={"index": 5})


def test_generated_episodes_are_seeded() -> None:
    a, b = HouseholdEnv(), HouseholdEnv()
    assert a.reset(seed=42)[0]["text"] == b.reset(seed=42)[0]["text"]
    assert HouseholdEnv(subtypes=["ig_dialogue_need"]).reset(seed=1)[0]["text"].count('"') >= 6

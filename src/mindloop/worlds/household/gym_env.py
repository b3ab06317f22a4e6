"""The robot's Gymnasium environment: watch a window of household life, then act to help (or decide not to).

``reset`` plays a scenario's window and returns what the robot perceived; each ``step`` takes one robot action
in the unified ``verb(arg, ...)`` form. The episode ends with reward 1 when the hidden goal is met (the human
holds what they needed, the faucet is off, the false belief is corrected, ...), or when the robot says ``wait``
(reward 1 in a control, where no help is needed; 0 otherwise). Ground truth (world state, gold, goal, and every
event of the reset or step, witnessed or not) is in ``info["ground_truth"]`` only when asked for:
``HouseholdEnv(privileged=True)`` or ``reset(options={"privileged": True})``. Stepping a finished episode, or
one never reset, raises :class:`gymnasium.error.ResetNeeded` (the contract of :mod:`mindloop.environments`).

>>> env = HouseholdEnv()
>>> obs, info = env.reset(seed=3)
>>> sorted(obs)
['events', 'holding', 'last_failure', 'robot_room', 'step', 'text']
>>> "ground_truth" in info
False
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from mindloop.errors import InvalidArgumentError
from mindloop.worlds.household.actions import Action
from mindloop.worlds.household.goals import GoalKind, goal_satisfied
from mindloop.worlds.household.results import WorldEvent
from mindloop.worlds.household.scenarios.episode import Episode
from mindloop.worlds.household.scenarios.generate import generate_scenario, pick_subtype
from mindloop.worlds.household.scenarios.model import Scenario, event_to_dict
from mindloop.worlds.household.scenarios.taxonomy import subtype as subtype_spec
from mindloop.worlds.household.vocab import ROBOT

ENV_ID = "mindloop/Household-v0"
CHARSET = string.ascii_letters + string.digits + string.punctuation + " \n"
"""Characters text observations and actions are made of (all narration is plain ASCII)."""

_NAME = 48
_EVENT_TEXT = {"kind": 16, "actor": _NAME, "verb": 16, "args": 128, "room": _NAME, "failure": _NAME, "text": 512}
"""The text fields of an event in an observation, with their longest lengths (a longer one keeps its end)."""


def _text(limit: int) -> spaces.Text:
    return spaces.Text(limit, min_length=0, charset=CHARSET)


_EVENT = spaces.Dict({"t": spaces.Discrete(1_000_000), **{key: _text(n) for key, n in _EVENT_TEXT.items()}})


class HouseholdEnv(gym.Env[dict[str, Any], str]):
    """One robot, one household scenario per episode; text and structured observations; reward for real help.

    ``scenarios``: a fixed list to draw episodes from (e.g. ``mindpower_sim("test")``); otherwise a fresh
    scenario is generated per reset, its subtype drawn with the taxonomy's weights (or from ``subtypes``).
    ``max_steps`` caps the robot's actions per episode.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}  # noqa: RUF012 - Gymnasium's convention

    def __init__(
        self,
        *,
        scenarios: Sequence[Scenario] | None = None,
        subtypes: Sequence[str] | None = None,
        max_steps: int = 24,
        privileged: bool = False,
        render_mode: str | None = None,
        max_text: int = 8192,
        max_events: int = 256,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidArgumentError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        if max_steps < 1:
            raise InvalidArgumentError(f"max_steps must be at least 1, got {max_steps}")
        self.scenarios = list(scenarios) if scenarios is not None else None
        self.subtypes = {subtype_spec(s).name: 1.0 for s in subtypes} if subtypes else None
        self.max_steps = max_steps
        self.privileged = privileged
        self.render_mode = render_mode
        self.max_text = max_text
        self.max_events = max_events
        self.action_space = spaces.Text(200, min_length=1, charset=CHARSET)
        self.observation_space = spaces.Dict(
            {
                "text": _text(max_text),
                "events": spaces.Sequence(_EVENT, stack=False),
                "robot_room": _text(_NAME),
                "holding": _text(128),
                "last_failure": _text(_NAME),
                "step": spaces.Discrete(max_steps + 1),
            }
        )
        self.scenario: Scenario | None = None
        self.episode: Episode | None = None
        self._steps = 0
        self._done = False
        self._privileged_now = privileged

    # ---- Gymnasium API --------------------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode: play a scenario's window and return what the robot perceived.

        ``options``: ``scenario`` (a :class:`Scenario` or its dict), ``index`` (into ``scenarios``), ``subtype``
        (generate one of that subtype), ``privileged`` (add ground truth to ``info``).
        """
        super().reset(seed=seed)
        opts = dict(options or {})
        scenario = self._choose(opts)
        self.scenario = scenario
        episode = Episode(scenario.setup)
        episode.replay(scenario.script)
        self.episode = episode
        self._steps = 0
        self._done = False
        self._privileged_now = bool(opts.get("privileged", self.privileged))
        seen = [e for e in episode.events if e.text and ROBOT in e.witnesses]
        obs = self._observation(scenario.observation, seen, "")
        info: dict[str, Any] = {"scenario_id": scenario.id, "events": [e.core for e in seen]}
        self._add_truth(info, episode.events)
        return obs, info

    def step(self, action: str | Action) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """The robot tries ``action``; returns observation, reward, terminated, truncated, info.

        Raises :class:`gymnasium.error.ResetNeeded` before the first ``reset`` and after the episode has ended.
        """
        if self.episode is None or self.scenario is None:
            raise ResetNeeded("call reset() before step()")
        if self._done:
            raise ResetNeeded("the episode is over (terminated or truncated); call reset() before step()")
        episode, scenario = self.episode, self.scenario
        self._steps += 1
        result = episode.world.step(ROBOT, action)
        episode.record(result.events)
        seen = [e for e in result.events if e.text and ROBOT in e.witnesses]
        lines = [e.text for e in seen]
        failure = result.failure
        if failure is not None:
            lines.append(f"Your action {result.action} failed: {failure.message}")
        goal = scenario.goal
        terminated = success = False
        if result.ok and result.action.startswith("wait("):
            terminated, success = True, goal.kind is GoalKind.NONE
        elif result.ok and goal.kind is not GoalKind.NONE and goal_satisfied(goal, episode.world, episode.tracker):
            terminated = success = True
        reward = 1.0 if success else 0.0
        truncated = not terminated and self._steps >= self.max_steps
        self._done = terminated or truncated
        obs = self._observation("\n".join(lines), seen, failure.kind.value if failure is not None else "")
        info: dict[str, Any] = {
            "events": [e.core for e in seen],
            "failure": failure.kind.value if failure is not None else "",
            "success": success,
        }
        self._add_truth(info, result.events)
        return obs, reward, terminated, truncated, info

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the robot's view of the home as text; ``rgb_array``: a top-down picture from its camera."""
        if self.render_mode is None or self.episode is None:
            return None
        world = self.episode.world
        if self.render_mode == "ansi":
            rooms = [r for r in world.rooms if world.sees(ROBOT, r)]
            return "\n".join(world.describe_room(r) for r in rooms) + "\n"
        from mindloop.worlds.household.render import render_frame

        return render_frame(world)

    # ---- helpers --------------------------------------------------------------------------------------------
    def _choose(self, opts: dict[str, Any]) -> Scenario:
        given = opts.get("scenario")
        if isinstance(given, Scenario):
            return given
        if isinstance(given, dict):
            return Scenario.from_dict(given)
        if given is not None:
            raise InvalidArgumentError(
                f"options['scenario'] must be a Scenario or its dict, got {type(given).__name__}"
            )
        if self.scenarios:
            index = opts.get("index")
            if index is None:
                index = int(self.np_random.integers(len(self.scenarios)))
            if not 0 <= int(index) < len(self.scenarios):
                raise InvalidArgumentError(f"options['index'] {index} is outside 0..{len(self.scenarios) - 1}")
            return self.scenarios[int(index)]
        rng = random.Random(int(self.np_random.integers(2**31)))
        kind = str(opts["subtype"]) if opts.get("subtype") else pick_subtype(rng, self.subtypes)
        return generate_scenario(subtype_spec(kind).name, int(self.np_random.integers(2**31)), 0)

    def _observation(self, text: str, seen: Sequence[WorldEvent], failure: str) -> dict[str, Any]:
        assert self.episode is not None
        world = self.episode.world
        events = tuple(self._event_obs(e) for e in seen[-self.max_events :])
        return {
            "text": _fit(text, self.max_text),
            "events": events,
            "robot_room": world.agent_room(ROBOT),
            "holding": ",".join(world.holding(ROBOT)),
            "last_failure": failure,
            "step": min(self._steps, self.max_steps),
        }

    @staticmethod
    def _event_obs(e: WorldEvent) -> dict[str, Any]:
        failure = e.failure.value if e.failure is not None else ""
        text = (e.kind, e.actor or "", e.verb, ",".join(e.args), e.room or "", failure, e.text)
        return {
            "t": int(e.t),
            **{key: _fit(value, _EVENT_TEXT[key]) for key, value in zip(_EVENT_TEXT, text, strict=True)},
        }

    def _add_truth(self, info: dict[str, Any], events: Sequence[WorldEvent]) -> None:
        """In privileged mode, add ``info["ground_truth"]``: state, goal, gold and ``events`` (witnessed or not)."""
        if not self._privileged_now or self.episode is None or self.scenario is None:
            return
        s = self.scenario
        info["ground_truth"] = {
            "world": self.episode.world.state_dict(),
            "goal": s.goal.to_dict(),
            "gold": s.gold.to_dict(),
            "help_needed": s.help_needed,
            "task_type": s.task_type,
            "subtype": s.subtype,
            "events": [event_to_dict(e) for e in events],
        }


def _fit(text: str, limit: int) -> str:
    """Keep the end of an over-long text and drop characters outside :data:`CHARSET`."""
    clean = text if _CHARSET_SET.issuperset(text) else "".join(ch if ch in _CHARSET_SET else "?" for ch in text)
    return clean[-limit:] if len(clean) > limit else clean


_CHARSET_SET = frozenset(CHARSET)


def register_envs() -> None:
    """Register ``mindloop/Household-v0`` with Gymnasium (idempotent), so ``gymnasium.make`` finds it."""
    if ENV_ID not in gym.registry:
        gym.register(id=ENV_ID, entry_point="mindloop.worlds.household.gym_env:HouseholdEnv")


register_envs()  # importing the environment registers it: gymnasium.make(ENV_ID) works from here

"""The Theory-of-Space environment: a Gymnasium env whose actions and observations are the reference's text.

One step takes one action string (``Actions: [JumpTo(sofa), Rotate(90), Observe()]``): motions are executed in
order; if one fails its message is kept, the rest is skipped and an ``Observe()`` is executed instead (as in the
reference); the final action is then executed. The step's text is the action messages joined by spaces,
followed by how many steps are left. Invalid strings are reported and cost the step. ``Observe()`` costs 1 and
``Query(OBJ)`` costs 2; the budget is 20 steps.

With ``false_belief=True``, ``Term()`` starts a second phase: two objects are turned and two moved far away
without the agent seeing it, the agent is put back at the start facing north with 15 steps, and it ends the
phase with ``Term(changes="apple: position, chair: orientation")``, scored by F1 (``info["false_belief"]``).

The environment keeps the whole episode in :attr:`SpatialEnv.turns` (privileged: poses included) for
evaluation; observations and ``info`` carry only what the agent may know. ``info["events"]`` lists belief-core
:class:`~mindloop.beliefs.Event` records of what the agent perceived. With ``SpatialEnv(privileged=True)`` (or
``reset(options={"privileged": True})``) ``info["ground_truth"]`` adds the scene, the agent's pose, the covert
changes and every event (the covert changes too, witnessed by nobody). Stepping a finished episode, or one never
reset, raises :class:`gymnasium.error.ResetNeeded` (the contract of :mod:`mindloop.environments`).

This module is the simulator; the settings, the step records, the opening description and the false-belief
instruction and score are in :mod:`~mindloop.systems.tos.world.episode`, re-exported here.
"""

from __future__ import annotations

import string
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.error import ResetNeeded

from mindloop.beliefs import Event, EventKind, Fact
from mindloop.beliefs.vocab import AT
from mindloop.errors import InvalidArgumentError
from mindloop.systems.tos.world.actions import (
    ActionParseError,
    ActionSequence,
    ChangeReport,
    JumpTo,
    Observe,
    Query,
    Rotate,
    Term,
    parse_actions,
)
from mindloop.systems.tos.world.changes import Change, covert_changes
from mindloop.systems.tos.world.episode import (
    FALSE_BELIEF_INSTRUCTION,
    ActionResult,
    Phase,
    SpatialEnvConfig,
    Turn,
    describe_layout,
    score_change_report,
)
from mindloop.systems.tos.world.geometry import NORTH, VALID_ROTATIONS, Vec, direction_name, in_fov, rotate
from mindloop.systems.tos.world.layout import OBJECT_CATALOGUE, generate_scene
from mindloop.systems.tos.world.observe import Observation, observation_text, observe
from mindloop.systems.tos.world.relations import INITIAL, RelationTriple, observation_triples, query_triple
from mindloop.systems.tos.world.scene import Door, Scene, scene_to_dict

__all__ = [
    "FALSE_BELIEF_INSTRUCTION",
    "ActionResult",
    "SpatialEnv",
    "SpatialEnvConfig",
    "Turn",
    "describe_layout",
    "score_change_report",
]

_CHARSET = frozenset(string.printable) | frozenset("•°×")


class SpatialEnv(gym.Env[str, str]):
    """Text (or vision) Theory-of-Space world. See the module docstring for the rules.

    Pass ``scene`` to play a fixed scene (e.g. one loaded from ``meta_data.json``); otherwise ``reset(seed=...)``
    generates one from the seed. ``reset(options={"scene": scene})`` switches scenes. ``privileged=True`` adds
    ``info["ground_truth"]`` (the default for ``reset``'s ``privileged`` option).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}  # noqa: RUF012 (gymnasium's convention)

    def __init__(
        self,
        scene: Scene | None = None,
        *,
        config: SpatialEnvConfig | None = None,
        render_mode: str | None = None,
        privileged: bool = False,
    ) -> None:
        super().__init__()
        self.config = config or SpatialEnvConfig()
        self.privileged = privileged
        self._privileged_now = privileged
        self._scene_dict: tuple[Scene, dict[str, Any]] | None = None
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = self.metadata["render_modes"]
            raise InvalidArgumentError(f"render_mode must be one of {modes}, got {render_mode!r}")
        self.render_mode = render_mode
        self._fixed_scene = scene
        names = [it.name for it in scene.items] if scene is not None else [name for name, _ in OBJECT_CATALOGUE]
        charset = set(_CHARSET)
        charset |= {ch for name in names for ch in name}
        self.action_space = gym.spaces.Text(max_length=2000, charset=frozenset(string.printable))
        self.observation_space = gym.spaces.Text(max_length=200_000, min_length=0, charset=frozenset(charset))
        self._scene: Scene | None = None
        self._initial: Scene | None = None
        self._episode_seed = 0
        self.turns: list[Turn] = []
        self.changes: list[Change] = []

    # ---- state accessors -----------------------------------------------------------------------------------
    @property
    def scene(self) -> Scene:
        """The current (possibly covertly changed) scene. Privileged."""
        if self._scene is None:
            raise InvalidArgumentError("call reset() first")
        return self._scene

    @property
    def initial_scene(self) -> Scene:
        """The scene as it was at reset (before any false-belief change). Privileged."""
        if self._initial is None:
            raise InvalidArgumentError("call reset() first")
        return self._initial

    @property
    def pose(self) -> tuple[Vec, Vec]:
        """The agent's cell and heading. Privileged."""
        return self._pos, self._ori

    @property
    def phase(self) -> Phase:
        """``exploration``, ``false_belief`` or ``done``."""
        return self._phase

    @property
    def anchor(self) -> str:
        """Where the agent stands, as it knows it: ``initial_pos`` or the object/door it jumped to."""
        return self._anchor()

    @property
    def observed(self) -> frozenset[str]:
        """Names the agent has seen so far."""
        return frozenset(self._observed)

    @property
    def node_coverage(self) -> float:
        """Share of objects and doors seen at least once."""
        nodes = len(self.scene.items)
        return len(self._observed) / nodes if nodes else 1.0

    @property
    def target_edges(self) -> set[frozenset[str]]:
        """Every room's pairs in the initial scene (:meth:`room_edges`): what edge coverage counts."""
        return self._target_edges

    @property
    def edge_coverage(self) -> float:
        """Share of same-room pairs (and start-to-start-room pairs) observed from one end."""
        return len(self._known_edges) / len(self._target_edges) if self._target_edges else 1.0

    @property
    def action_cost(self) -> int:
        """Total cost so far: 1 per Observe, 2 per Query."""
        return self._cost

    @property
    def steps_left(self) -> int:
        """Steps left in the current phase."""
        return self._steps_left

    # ---- gym API ------------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode (a new procedural scene from ``seed`` unless a scene was given).

        ``options``: ``scene`` (play this :class:`Scene`), ``privileged`` (add ``info["ground_truth"]``).
        """
        super().reset(seed=seed)
        opts = options or {}
        self._privileged_now = bool(opts.get("privileged", self.privileged))
        scene = opts.get("scene", self._fixed_scene)
        self._episode_seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        if scene is None:
            scene = generate_scene(self._episode_seed, self.config.layout)
        elif not isinstance(scene, Scene):
            raise InvalidArgumentError("options['scene'] must be a Scene")
        self._initial = scene
        self._observed: set[str] = set()
        self._known_edges: set[frozenset[str]] = set()
        self._target_edges: set[frozenset[str]] = set().union(*self.room_edges(scene).values())
        self._cost = 0
        self._step = 0
        self._enter(scene, "exploration", self.config.max_steps)
        self.turns = []
        self.changes = []
        self.false_belief_result: dict[str, Any] | None = None
        text = describe_layout(scene, max_steps=self.config.max_steps)
        info = {
            "phase": self._phase,
            "steps_left": self._steps_left,
            "objects": [o.name for o in scene.objects],
            "doors": [d.name for d in scene.doors],
            "rooms": list(scene.room_ids),
            "events": [],
        }
        self._add_truth(info, [])
        return text, info

    def _enter(self, scene: Scene, phase: Phase, steps: int) -> None:
        """Begin a phase of ``steps`` steps in ``scene`` (the one reset, or the covertly changed one): the agent at
        the start facing north, no view cached (the scene may have changed), the false-belief counters from now."""
        self._scene = scene
        self._pos: Vec = scene.start
        self._ori: Vec = NORTH
        self._rooms = scene.rooms_at(scene.start)
        self._phase: Phase = phase
        self._steps_left = steps
        self._cache: dict[tuple[Vec, Vec], tuple[Observation, str]] = {}
        self._evidence: dict[tuple[Vec, Vec], tuple[tuple[RelationTriple, ...], tuple[Fact, ...]]] = {}
        self._image_cache: dict[tuple[Vec, Vec], np.ndarray] = {}
        self._fb_cost_start = self._cost
        self._fb_seen: set[str] = set()
        self._fb_all_seen_cost: int | None = None

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Execute one action string; returns ``(text, reward, terminated, truncated, info)``.

        Raises :class:`gymnasium.error.ResetNeeded` before the first ``reset`` and after the episode has ended.
        """
        if self._scene is None:
            raise ResetNeeded("call reset() before step()")
        if self._phase == "done":
            raise ResetNeeded("the episode is over (terminated or truncated); call reset() before step()")
        self._step += 1
        self._steps_left -= 1
        phase = self._phase
        reward = -0.1
        events: list[Event] = []
        hidden: list[Event] = []  # covert changes: ground truth, witnessed by nobody
        results: list[ActionResult] = []
        triples: list[RelationTriple] = []
        error: str | None = None
        cost0 = self._cost
        try:
            seq: ActionSequence | None = parse_actions(str(action), false_belief=phase == "false_belief")
        except ActionParseError as exc:
            seq, error = None, exc.reason
        if seq is None:
            reward -= 0.5
            text = f"Invalid action: {error}."
        else:
            results = self._execute_sequence(seq, events, triples)
            text = " ".join(r.message for r in results)
        pose_after = (self._pos, self._ori, self._rooms, self._anchor())
        tail, phase_reward, terminated, truncated = self._end_of_step(results[-1] if results else None, phase, hidden)
        text += tail
        if phase_reward is not None:
            reward = phase_reward
        turn = Turn(
            self._step,
            phase,
            str(action),
            seq is not None,
            error,
            tuple(results),
            text,
            pose_after[3],
            pose_after[0],
            pose_after[1],
            pose_after[2],
            tuple(triples),
            self._cost - cost0,
        )
        self.turns.append(turn)
        info = self._step_info(turn, results, events)
        self._add_truth(info, events + hidden)
        return text, reward, terminated, truncated, info

    def _execute_sequence(
        self, seq: ActionSequence, events: list[Event], triples: list[RelationTriple]
    ) -> list[ActionResult]:
        """The motions in order, then the final action; a failed motion skips the rest for an ``Observe()``."""
        results: list[ActionResult] = []
        for motion in seq.motions:
            res = self._execute(motion, events, triples)
            results.append(res)
            if not res.success:
                obs = self._execute(Observe(), events, triples)
                results.append(
                    ActionResult(
                        obs.action,
                        obs.kind,
                        obs.success,
                        "Subsequent actions are skipped due to failure, instead an observe is executed: " + obs.message,
                        obs.observation,
                    )
                )
                return results
        results.append(self._execute(seq.final, events, triples))
        return results

    def _end_of_step(
        self, final: ActionResult | None, phase: Phase, hidden: list[Event]
    ) -> tuple[str, float | None, bool, bool]:
        """Close the phase on ``Term()`` or an exhausted budget (starting the false-belief phase when configured).

        Returns the text to append, the reward that replaces the step's (the false-belief F1) or ``None``, and
        whether the episode terminated or was truncated.
        """
        term = final is not None and final.kind == "term"
        if not term and self._steps_left > 0:
            return f"\nYou have a maximum of {self._steps_left} exploration steps left.", None, False, False
        # the phase ends: by Term() (the episode terminates), or with the budget spent (it is truncated)
        text = "" if term else "\nExploration ended. No further exploration actions are allowed."
        if phase == "exploration" and self.config.false_belief:
            return text + "\n" + self._start_false_belief(hidden), None, False, False
        reported = (final.changes if term and final is not None else None) or ()
        reward = self._finish_false_belief(reported) if phase == "false_belief" else None
        self._phase = "done"
        return text, reward if term else None, term, not term

    def _step_info(self, turn: Turn, results: list[ActionResult], events: list[Event]) -> dict[str, Any]:
        """The ``info`` of a step: what the agent may know (ground truth is added by :meth:`_add_truth`)."""
        info: dict[str, Any] = {
            "phase": self._phase,
            "valid": turn.valid,
            "error": turn.error,
            "results": results,
            "observation": next((r.observation for r in reversed(results) if r.observation is not None), None),
            "anchor": turn.anchor,
            "steps_left": max(self._steps_left, 0),
            "coverage": self.node_coverage,
            "edge_coverage": self.edge_coverage,
            "action_cost": self._cost,
            "events": events,
        }
        if self.config.mode == "vision" and info["observation"] is not None:
            info["image"] = self.image()
        if self.false_belief_result is not None and self._phase == "done" and turn.phase == "false_belief":
            info["false_belief"] = {k: v for k, v in self.false_belief_result.items() if k != "truth"}
        return info

    def render(self) -> Any:
        """``ansi``: a top-down text map; ``rgb_array``: the egocentric view of the current pose."""
        if self.render_mode == "rgb_array":
            return self.image()
        if self.render_mode == "ansi":
            from mindloop.systems.tos.world.vision import ascii_map

            return ascii_map(self.scene, self._pos, self._ori)
        return None

    def image(self) -> np.ndarray:
        """The egocentric rendering of the current pose (vision world); cached per pose."""
        key = (self._pos, self._ori)
        if key not in self._image_cache:
            from mindloop.systems.tos.world.vision import render_view

            self._image_cache[key] = render_view(
                self.scene, self._pos, self._ori, self._rooms, size=self.config.image_size
            )
        return self._image_cache[key]

    # ---- internals ----------------------------------------------------------------------------------------
    def _add_truth(self, info: dict[str, Any], events: list[Event]) -> None:
        """In privileged mode, add ``info["ground_truth"]``: scene, pose, covert changes, every event."""
        if not self._privileged_now:
            return
        scene = self.scene
        if self._scene_dict is None or self._scene_dict[0] is not scene:
            self._scene_dict = (scene, scene_to_dict(scene))
        info["ground_truth"] = {
            "scene": self._scene_dict[1],
            "pos": list(self._pos),
            "facing": direction_name(self._ori),
            "rooms": sorted(self._rooms),
            "changes": self._change_records(),
            "events": events,
        }

    def _change_records(self) -> list[dict[str, Any]]:
        """The covert changes, each with its old and new position relative to the start."""
        rel = self.scene.relative
        return [c.to_dict() | {"old_rel": list(rel(c.old_pos)), "new_rel": list(rel(c.new_pos))} for c in self.changes]

    @staticmethod
    def room_edges(scene: Scene) -> dict[int, set[frozenset[str]]]:
        """Each room's pairs of items (objects and doors) that exploration should observe from one end, the start
        room's also pairing the start (``initial_pos``) with each of its items."""
        edges = {}
        for rid in scene.room_ids:
            names = [o.name for o in scene.objects_in(rid)] + [d.name for d in scene.doors_of(rid)]
            edges[rid] = {frozenset({a, b}) for i, a in enumerate(names) for b in names[i + 1 :]}
            if rid == scene.start_room:
                edges[rid] |= {frozenset({INITIAL, n}) for n in names}
        return edges

    def _anchor(self) -> str:
        scene = self.scene
        if self._pos == scene.start:
            return INITIAL
        it = scene.item_at(self._pos)
        return it.name if it is not None else INITIAL

    def observation_at(self, pos: Vec, ori: Vec) -> tuple[Observation, str]:
        """The observation (and its text) at a pose of the current scene; cached per pose."""
        if (pos, ori) not in self._cache:
            obs = observe(self.scene, pos, ori, self.scene.rooms_at(pos))
            self._cache[(pos, ori)] = (obs, observation_text(obs))
        return self._cache[(pos, ori)]

    def _execute(self, act: Any, events: list[Event], triples: list[RelationTriple]) -> ActionResult:
        scene = self.scene
        if isinstance(act, Rotate):
            if act.degrees not in VALID_ROTATIONS:
                return ActionResult(
                    str(act), "rotate", False, f"Cannot rotate by {act.degrees}°: only {list(VALID_ROTATIONS)} allowed."
                )
            self._ori = rotate(self._ori, act.degrees)
            if act.degrees == 0:
                msg = "You rotated 0°."
            else:
                msg = f"You rotated {'clockwise' if act.degrees > 0 else 'counterclockwise'} {abs(act.degrees)}°."
            fact = Fact("agent", "heading", direction_name(self._ori))
            events.append(self._agent_event(EventKind.OTHER, (fact,), msg))
            return ActionResult(str(act), "rotate", True, msg)
        if isinstance(act, JumpTo):
            name = act.target
            if not scene.has_item(name):
                return ActionResult(str(act), "move", False, f"Cannot jump to '{name}': object not found.")
            if name not in self._observed:
                return ActionResult(str(act), "move", False, f"Cannot jump to '{name}': object not observed yet.")
            it = scene.item(name)
            it_rooms = scene.item_rooms(name)
            if not (self._rooms & it_rooms) or not in_fov(self._pos, self._ori, it.pos):
                return ActionResult(str(act), "move", False, f"Cannot jump to '{name}': object not visible.")
            self._pos, self._rooms = it.pos, it_rooms
            events.append(self._agent_event(EventKind.MOVE, (Fact("agent", AT, name),), f"You jumped to {name}."))
            return ActionResult(str(act), "move", True, f"You jumped to {name}.")
        if isinstance(act, Observe):
            obs, text = self.observation_at(self._pos, self._ori)
            key = (self._pos, self._ori)
            if key not in self._evidence:  # cached per pose, as the observation and the image are
                self._evidence[key] = (
                    tuple(observation_triples(obs, self._anchor(), self._ori)),
                    tuple(Fact(i.name, "seen", i.line().split(": ", 1)[1]) for i in obs.items),
                )
            extra = self._evidence[key]
            self._cost += 1
            self._record_observation(obs)
            triples.extend(extra[0])
            events.append(self._agent_event(EventKind.OBSERVE, extra[1], text))
            if self.config.mode == "vision":
                text = "You observe: <image>."
            return ActionResult(str(act), "observe", True, text, observation=obs)
        if isinstance(act, Query):
            name = act.target
            if not scene.has_item(name):
                return ActionResult(str(act), "query", False, "Cannot query: object not found")
            if name not in self._observed:
                return ActionResult(str(act), "query", False, "Cannot query: object not observed yet")
            it = scene.item(name)
            off = scene.relative(it.pos)
            facing = direction_name(it.facing) if not isinstance(it, Door) and it.facing else None
            self._cost += 2
            triples.append(query_triple(name, off))
            answer = f"({off[0]}, {off[1]})" + (f", facing {facing}" if facing else "")
            return ActionResult(str(act), "query", True, f"You query {name}: {answer}", query=(off, facing))
        if isinstance(act, Term):
            if act.changes is None:
                return ActionResult(str(act), "term", True, "Exploration terminated.")
            return ActionResult(
                str(act), "term", True, f"Exploration terminated. Reported changes: {act.raw}", changes=act.changes
            )
        raise InvalidArgumentError(f"unknown action {act!r}")  # pragma: no cover

    def _agent_event(self, kind: EventKind, facts: tuple[Fact, ...], text: str) -> Event:
        """An event of this step that the agent itself perceived."""
        return Event(self._step, kind, "agent", facts, frozenset({"agent"}), text=text)

    def _record_observation(self, obs: Observation) -> None:
        anchor = self._anchor()
        for name in obs.names:
            self._observed.add(name)
            pair = frozenset({anchor, name})
            if name != anchor and pair in self._target_edges:
                self._known_edges.add(pair)
        if self._phase == "false_belief":
            changed = {c.name for c in self.changes}
            self._fb_seen |= changed & set(obs.names)
            if self._fb_all_seen_cost is None and self._fb_seen >= changed:
                self._fb_all_seen_cost = self._cost - self._fb_cost_start

    def _start_false_belief(self, hidden: list[Event]) -> str:
        scene, changes = covert_changes(self.scene, self._episode_seed)
        self.changes = changes
        self._enter(scene, "false_belief", self.config.false_belief_steps)
        if self._privileged_now:
            for c in changes:
                fact = (
                    Fact(c.name, "position", str(scene.relative(c.new_pos)))
                    if c.position
                    else Fact(c.name, "facing", direction_name(c.new_facing) if c.new_facing else None)
                )
                hidden.append(
                    Event(
                        self._step,
                        EventKind.MOVE if c.position else EventKind.OTHER,
                        None,
                        (fact,),
                        frozenset(),
                        text=c.describe(),
                    )
                )
        return FALSE_BELIEF_INSTRUCTION.format(n_changes=len(changes), max_steps=self.config.false_belief_steps)

    def _finish_false_belief(self, reported: tuple[ChangeReport, ...]) -> float:
        scores = score_change_report(reported, self.changes)
        cost = self._cost - self._fb_cost_start
        self.false_belief_result = {
            **scores,
            "reported": [{"name": r.name, "position": r.position, "orientation": r.orientation} for r in reported],
            "truth": self._change_records(),
            "steps": sum(1 for t in self.turns if t.phase == "false_belief") + 1,
            "action_cost": cost,
            "action_cost_after_seen": None if self._fb_all_seen_cost is None else cost - self._fb_all_seen_cost,
        }
        return scores["f1"]

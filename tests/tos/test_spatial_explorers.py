"""The scripted explorers: SCOUT's cost, STRATEGIST's resolution, the symbolic explorer's exact map, and the
change detector of the false-belief phase."""

from __future__ import annotations

import pytest

from mindloop.systems.tos.explorers import (
    ChangeDetector,
    Explorer,
    ScoutExplorer,
    StrategistExplorer,
    SymbolicExplorer,
    new_belief,
    run_exploration,
)
from mindloop.systems.tos.metrics import gt_global_map, map_scores, parse_cognitive_map, pos_norm
from mindloop.systems.tos.world import Scene, SpatialEnv, SpatialEnvConfig, generate_scene

SEEDS = range(6)


def _env(scene: Scene, **config: object) -> SpatialEnv:
    env = SpatialEnv(scene, config=SpatialEnvConfig(**config))  # type: ignore[arg-type]
    env.reset(seed=0)
    return env


@pytest.mark.parametrize("seed", SEEDS)
def test_symbolic_explorer_builds_the_exact_map(seed: int) -> None:
    scene = generate_scene(seed)
    env = _env(scene)
    belief = new_belief(env)
    ex = run_exploration(env, SymbolicExplorer(belief), belief)
    assert ex.terminated and ex.steps <= 20 and env.node_coverage == 1.0
    assert belief.uncertain() == []
    last = ex.turns[-1]
    pred = parse_cognitive_map(belief.cognitive_map())
    assert pred is not None
    scores = map_scores(pred, gt_global_map(scene, (last.pos, last.ori)), pos_norm_l=pos_norm(scene))
    assert scores.to_dict() == {"dir": 1.0, "facing": 1.0, "pos": 1.0, "overall": 1.0}


def test_symbolic_explorer_on_the_reference_scene(run00: Scene) -> None:
    env = _env(run00)
    belief = new_belief(env)
    ex = run_exploration(env, SymbolicExplorer(belief), belief)
    cmap = belief.cognitive_map()
    assert ex.steps <= 20 and env.node_coverage == 1.0
    assert cmap["television"] == {"position": [2, -1], "facing": "east"}
    assert cmap["lamp"] == {"position": [0, 4]}
    assert cmap["green door"]["position"] == [6, 3]


def test_scout_takes_about_nine_steps_and_sees_everything() -> None:
    steps = []
    for seed in range(10):
        env = _env(generate_scene(seed))
        ex = run_exploration(env, ScoutExplorer())
        assert env.node_coverage == 1.0 and ex.terminated
        assert all(t.valid and not t.action_failed for t in ex.turns)
        steps.append(ex.steps)
    assert 7.0 <= sum(steps) / len(steps) <= 11.0


@pytest.mark.parametrize("seed", SEEDS)
def test_strategist_resolves_every_position(seed: int) -> None:
    scene = generate_scene(seed)
    env = _env(scene, max_steps=1000)
    belief = new_belief(env)
    ex = run_exploration(env, StrategistExplorer(seed=seed), belief)
    assert ex.terminated and env.node_coverage == 1.0
    assert belief.uncertain() == []
    for it in scene.items:  # resolved, and resolved to the truth
        assert belief.solver.resolved(it.name) == scene.relative(it.pos)


def test_beliefs_only_follow_the_environment(two_rooms: Scene) -> None:
    env = _env(two_rooms)
    belief = new_belief(env)
    for action in (
        "Actions: [Rotate(90), Observe()]",
        "Actions: [JumpTo(red door), Observe()]",
        "Actions: [JumpTo(chair), Observe()]",
        "Actions: [Query(sofa)]",
    ):
        _, _, _, _, info = env.step(action)
        belief.update(info["results"])
    assert belief.heading == (1, 0) and belief.anchor == "red door"  # the failed jump changed nothing
    assert belief.solver.resolved("sofa") == (5, 1) and belief.facing["sofa"] == (-1, 0)
    assert belief.estimate("piano") is None and belief.seen == {"lamp", "red door", "sofa", "plant"}
    # the door is seen from room 1 and the sofa/plant from the doorway, on the far side of the door
    assert belief.room_of["sofa"] == belief.room_of["plant"] != belief.room_of["lamp"]


@pytest.mark.parametrize("seed", SEEDS)
def test_change_detector_finds_the_covert_changes(seed: int) -> None:
    env = _env(generate_scene(seed), false_belief=True)
    belief = new_belief(env)
    run_exploration(env, SymbolicExplorer(belief), belief)
    assert env.phase == "false_belief"
    detector = ChangeDetector(belief, expected=len(env.changes))
    run_exploration(env, detector)
    assert str(env.phase) == "done" and env.false_belief_result is not None
    assert env.false_belief_result["f1"] == 1.0
    assert detector.revised is not None
    for c in env.changes:
        if c.position:
            assert detector.revised.estimate(c.name) is not None


def test_explorers_satisfy_the_protocol() -> None:
    for ex in (ScoutExplorer(), StrategistExplorer(), SymbolicExplorer()):
        assert isinstance(ex, Explorer)

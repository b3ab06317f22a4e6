"""The Gymnasium environment: messages, costs, budget, invalid actions, the false-belief phase, vision."""

from __future__ import annotations

import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env

from mindloop.beliefs import EventKind
from mindloop.errors import InvalidArgumentError
from mindloop.systems.tos.world import Scene, SceneObject, SpatialEnv, SpatialEnvConfig, covert_changes, generate_scene
from mindloop.systems.tos.world.changes import MIN_MOVE
from mindloop.systems.tos.world.geometry import EAST, NORTH

LEFT = "\nYou have a maximum of {} exploration steps left."
CHAIR_VIEW = "You observe: \n• chair: front-right, mid distance, facing backward."
DOOR_VIEW = (
    "You observe: \n• sofa: front, near, facing backward\n• plant: front-slight-left, mid distance\n"
    'Assume your current facing direction is called "north":\n• sofa is south east, near to plant.'
)


def test_gymnasium_api() -> None:
    check_env(SpatialEnv(), skip_render_check=True)


def test_opening_description(two_rooms: Scene) -> None:
    env = SpatialEnv(two_rooms)
    text, info = env.reset(seed=0)
    assert text == (
        "Imagine 2 rooms connected by doors: room 1, room 2. You current (initial) position is in room 1 and you "
        "face north. Unless otherwise specified, treat your initial position as the origin (0, 0), and north is "
        "+y.\nObjects: 1: chair, 2: lamp, 3: sofa, 4: plant\nDoors: red door\nYou have a maximum of 20 exploration "
        "steps."
    )
    assert info["objects"] == ["chair", "lamp", "sofa", "plant"] and info["doors"] == ["red door"]


def test_a_hand_played_episode(two_rooms: Scene) -> None:
    env = SpatialEnv(two_rooms)
    env.reset(seed=0)
    text, _, term, trunc, info = env.step("Actions: [JumpTo(sofa), Observe()]")
    assert text == (
        "Cannot jump to 'sofa': object not observed yet. Subsequent actions are skipped due to failure, "
        f"instead an observe is executed: {CHAIR_VIEW}" + LEFT.format(19)
    )
    assert info["valid"] and info["action_cost"] == 1 and info["coverage"] == pytest.approx(1 / 5)
    assert env.turns[-1].action_failed and not (term or trunc)

    text, *_ = env.step("Actions: [Rotate(90), Observe()]")
    assert text.startswith("You rotated clockwise 90°. You observe: \n• lamp: front, near\n")
    assert env.pose == ((1, 1), EAST)

    text, _, _, _, info = env.step("Actions: [JumpTo(red_door), Observe()]")
    assert text == f"You jumped to red door. {DOOR_VIEW}" + LEFT.format(17)
    assert env.pose == ((4, 2), EAST) and info["anchor"] == "red door" and info["coverage"] == 1.0

    text, _, _, _, info = env.step("Actions: [Query(sofa)]")
    assert text == "You query sofa: (5, 1), facing west" + LEFT.format(16)
    assert info["action_cost"] == 5  # three observes and a query
    assert env.step("Actions: [Query(plant)]")[0].startswith("You query plant: (6, 2)\n")  # no facing

    text, reward, *_ = env.step("Actions: [Query(piano)]")
    assert text == "Cannot query: object not found" + LEFT.format(14)
    text, reward, _, _, info = env.step("Actions: [Observe(), Observe()]")
    assert text == "Invalid action: more than one final action: Observe() must be the last action." + LEFT.format(13)
    assert not info["valid"] and reward < -0.5 and env.steps_left == 13  # an invalid action costs the step

    text, *_ = env.step("Actions: [JumpTo(chair), Observe()]")  # seen, but behind the agent
    assert text.startswith("Cannot jump to 'chair': object not visible. Subsequent actions are skipped")
    text, *_ = env.step("Actions: [Rotate(45), Observe()]")
    assert text.startswith("Cannot rotate by 45°: only [0, 90, 180, 270, -90, -180, -270] allowed.")

    text, _, term, trunc, _ = env.step("Actions: [Term()]")
    assert text == "Exploration terminated." and term and not trunc and str(env.phase) == "done"
    with pytest.raises(ResetNeeded, match="over"):
        env.step("Actions: [Observe()]")


def test_budget_truncates_after_twenty_steps(two_rooms: Scene) -> None:
    env = SpatialEnv(two_rooms)
    env.reset()
    for i in range(1, 21):
        text, _, term, trunc, info = env.step("Actions: [Observe()]")
        assert not term and trunc == (i == 20)
    assert text == CHAIR_VIEW + "\nExploration ended. No further exploration actions are allowed."
    assert info["steps_left"] == 0 and env.action_cost == 20


def test_events_report_what_the_agent_perceived(two_rooms: Scene) -> None:
    env = SpatialEnv(two_rooms)
    env.reset()
    *_, info = env.step("Actions: [Rotate(90), Observe()]")
    kinds = [e.kind for e in info["events"]]
    assert kinds == [EventKind.OTHER, EventKind.OBSERVE]
    facts = {(f.subject, f.value) for f in info["events"][1].facts}
    assert facts == {("lamp", "front, near"), ("red door", "front-slight-left, mid distance, on front wall")}


def test_seeded_procedural_episodes_are_reproducible() -> None:
    a, b = SpatialEnv(), SpatialEnv()
    assert a.reset(seed=11)[0] == b.reset(seed=11)[0]
    assert a.scene == generate_scene(11)
    for action in ("Actions: [Observe()]", "Actions: [Rotate(180), Observe()]", "Actions: [Rotate(90), Observe()]"):
        assert a.step(action)[0] == b.step(action)[0]
    assert a.reset(seed=12)[0] != b.reset(seed=11)[0]


def test_config_is_validated() -> None:
    with pytest.raises(InvalidArgumentError):
        SpatialEnvConfig(max_steps=0)
    with pytest.raises(InvalidArgumentError):
        SpatialEnvConfig(mode="audio")  # type: ignore[arg-type]
    with pytest.raises(ResetNeeded):
        SpatialEnv().step("Actions: [Observe()]")


# ---- covert changes and the false-belief phase ---------------------------------------------------------------
@pytest.mark.parametrize("seed", range(15))
def test_covert_changes_are_two_turns_and_two_far_moves(seed: int) -> None:
    scene = generate_scene(seed)
    after, changes = covert_changes(scene, seed)
    turned = [c for c in changes if c.orientation]
    moved = [c for c in changes if c.position]
    assert len(turned) == 2 and len(moved) == 2 and not any(c.position and c.orientation for c in changes)
    assert len({c.name for c in changes}) == 4
    for c in turned:
        o = after.item(c.name)
        assert isinstance(o, SceneObject)
        assert o.pos == c.old_pos and o.facing == c.new_facing != c.old_facing is not None
    occupied = [it.pos for it in after.items]
    for c in moved:
        o = after.item(c.name)
        assert o.pos == c.new_pos and ((o.pos[0] - c.old_pos[0]) ** 2 + (o.pos[1] - c.old_pos[1]) ** 2) >= MIN_MOVE**2
        assert 1 <= after.cell(o.pos) < 100 and occupied.count(o.pos) == 1 and o.pos != after.start
    assert covert_changes(scene, seed)[1] == changes


def test_false_belief_phase_on_the_reference_scene(run00: Scene) -> None:
    env = SpatialEnv(run00, config=SpatialEnvConfig(false_belief=True))
    env.reset(seed=3)
    env.step("Actions: [Rotate(90), Observe()]")
    text, _, term, trunc, info = env.step("Actions: [Term()]")
    assert not (term or trunc) and env.phase == "false_belief" and env.pose == (run00.start, NORTH)
    assert "There are 4 objects in the room that have been changed" in text and "maximum of 15 steps" in text
    truth = {(c.name, "position" if c.position else "orientation") for c in env.changes}
    assert truth == {
        ("cap", "orientation"),
        ("television", "orientation"),
        ("backpack", "position"),
        ("vase", "position"),
    }
    text, _, _, _, info = env.step("Actions: [Term()]")
    assert "Invalid action" in text and env.phase == "false_belief"
    text, reward, term, _, info = env.step(
        'Actions: [Term(changes="cap: orientation, television: orientation, backpack: position, lamp: position")]'
    )
    assert term and str(env.phase) == "done"
    fb = info["false_belief"]
    # 3 of 4 reported labels right, 3 of 4 true labels found: F1 = 0.75; moved objects {backpack, vase} vs
    # reported {backpack, lamp}: 0.5; turned ones exactly right
    assert fb["f1"] == pytest.approx(0.75) and reward == pytest.approx(0.75)
    assert fb["f1_position"] == pytest.approx(0.5) and fb["f1_facing"] == 1.0
    assert fb["steps"] == 2 and fb["action_cost"] == 0 and fb["action_cost_after_seen"] is None
    assert "truth" not in fb and "ground_truth" not in info  # what changed is ground truth


def test_covert_changes_are_ground_truth_only_in_privileged_mode(run00: Scene) -> None:
    env = SpatialEnv(run00, config=SpatialEnvConfig(false_belief=True), privileged=True)
    _, info = env.reset(seed=3)
    assert info["ground_truth"]["pos"] == list(run00.start) and info["ground_truth"]["facing"] == "north"
    assert info["ground_truth"]["changes"] == []
    *_, info = env.step("Actions: [Rotate(90), Observe()]")
    assert info["ground_truth"]["facing"] == "east" and info["ground_truth"]["events"] == info["events"]
    *_, info = env.step("Actions: [Term()]")
    truth = info["ground_truth"]
    assert {c["name"] for c in truth["changes"]} == {"cap", "television", "backpack", "vase"}
    covert = [e for e in truth["events"] if not e.witnesses]
    assert len(covert) == 4 and all(e.witnesses for e in info["events"])
    assert {f.subject for e in covert for f in e.facts} == {"cap", "television", "backpack", "vase"}


def test_false_belief_budget_runs_out(two_rooms: Scene) -> None:
    env = SpatialEnv(two_rooms, config=SpatialEnvConfig(max_steps=1, false_belief=True, false_belief_steps=2))
    env.reset(seed=0)
    text, _, _, trunc, _ = env.step("Actions: [Observe()]")
    assert not trunc and "Exploration ended" in text and env.phase == "false_belief"
    env.step("Actions: [Observe()]")
    *_, trunc, _ = env.step("Actions: [Observe()]")
    assert trunc and str(env.phase) == "done" and env.false_belief_result is not None
    assert env.false_belief_result["f1"] == 0.0


# ---- vision --------------------------------------------------------------------------------------------------
def test_vision_world_renders_the_same_view(two_rooms: Scene) -> None:
    env = SpatialEnv(two_rooms, config=SpatialEnvConfig(mode="vision", image_size=64), render_mode="rgb_array")
    env.reset()
    text, _, _, _, info = env.step("Actions: [Rotate(90), Observe()]")
    assert text.startswith("You rotated clockwise 90°. You observe: <image>.")
    img = info["image"]
    assert img.shape == (64, 64, 3) and img.dtype.name == "uint8"
    # the red door is 3 ahead and 1 left: centred at column 32 - 32/3, it spans rows ~18..41
    assert tuple(img[30, 21]) == (200, 40, 40)
    # the lamp 2 ahead is straight in the middle, below the horizon
    assert tuple(img[40, 32]) not in ((205, 215, 225), (190, 170, 140))
    assert (env.render() == img).all()
    ansi = SpatialEnv(two_rooms, render_mode="ansi")
    ansi.reset()
    assert ansi.render().splitlines()[0] == "#########"

"""Observation text (the reference's exact wording and bins) and the action grammar."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindloop.errors import ParseError
from mindloop.systems.tos.world import (
    Scene,
    generate_scene,
    observation_text,
    observe,
    parse_actions,
    parse_observation_text,
)
from mindloop.systems.tos.world.actions import ActionParseError, JumpTo, Observe, Query, Rotate, Term, parse_changes
from mindloop.systems.tos.world.geometry import CARDINALS, EAST, NORTH, SOUTH, WEST, in_fov

PAIR_HEADER = 'Assume your current facing direction is called "north":'


def _text(scene: Scene, pos: tuple[int, int], ori: tuple[int, int]) -> str:
    return observation_text(observe(scene, pos, ori, scene.rooms_at(pos)))


def test_two_rooms_hand_worked_views(two_rooms: Scene) -> None:
    # chair is 1 right, 2 ahead: bearing 26.6° (front-right), distance 2.24 (mid distance); it faces south.
    assert _text(two_rooms, (1, 1), NORTH) == "You observe: \n• chair: front-right, mid distance, facing backward."
    # facing east: the lamp 2 ahead; the door 3 ahead, 1 left (-18.4°, 3.16), its normal into room 1 points west,
    # towards the observer; lamp and door are 1.41 apart, the lamp behind-right of the door.
    assert _text(two_rooms, (1, 1), EAST) == (
        "You observe: \n• lamp: front, near\n• red door: front-slight-left, mid distance, on front wall\n"
        f"{PAIR_HEADER}\n• lamp is south east, near to red door."
    )
    # in the doorway both rooms are in view
    assert _text(two_rooms, (4, 2), EAST) == (
        "You observe: \n• sofa: front, near, facing backward\n• plant: front-slight-left, mid distance\n"
        f"{PAIR_HEADER}\n• sofa is south east, near to plant."
    )
    # from room 2 the door is on the front wall, and room 1's lamp is not visible through the wall
    assert _text(two_rooms, (6, 2), WEST) == "You observe: \n• red door: front, near, on front wall."
    assert _text(two_rooms, (1, 1), SOUTH) == "You observe: No objects in field of view.."


def test_reference_run00_start_views(run00: Scene) -> None:
    start = run00.start
    assert _text(run00, start, NORTH) == (
        "You observe: \n• bike: front-right, mid distance, facing left\n• lamp: front, mid distance\n"
        "• blue door: front-right, slightly far, on front wall."
    )
    assert _text(run00, start, EAST) == (
        "You observe: \n• television: front-right, mid distance, facing forward\n"
        "• cap: front-slight-right, slightly far, facing forward\n"
        "• green door: front-left, slightly far, on front wall\n"
        "• blue door: front-left, slightly far, on left wall\n"
        f"{PAIR_HEADER}\n• television is south, near to cap."
    )


def test_reference_wording_parses() -> None:
    text = (
        "You observe: \n• lamp: front-slight-left, near\n• green door: front, far, on back wall\n"
        f"{PAIR_HEADER}\n• lamp is north west, near to green door."
    )
    obs = parse_observation_text(text)
    assert obs.names == ("lamp", "green door") and obs.items[1].wall == "on back wall" and obs.items[0].facing is None
    assert obs.pairs[0].direction == "north west" and observation_text(obs) == text
    assert parse_observation_text("You observe: No objects in field of view..").items == ()
    with pytest.raises(ParseError):
        parse_observation_text("You observe: \n• lamp: somewhere, near")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.data())
def test_observations_round_trip_and_respect_the_rules(seed: int, data: st.DataObject) -> None:
    scene = generate_scene(seed)
    pos = data.draw(st.sampled_from([it.pos for it in scene.items] + [scene.start]))
    ori = data.draw(st.sampled_from(CARDINALS))
    rooms = scene.rooms_at(pos)
    obs = observe(scene, pos, ori, rooms)
    assert parse_observation_text(observation_text(obs)) == obs
    for name in obs.names:
        it = scene.item(name)
        assert it.pos != pos and in_fov(pos, ori, it.pos) and scene.item_rooms(name) & rooms
    hidden = [
        it.name
        for it in scene.items
        if it.name not in obs.names and it.pos != pos and in_fov(pos, ori, it.pos) and scene.item_rooms(it.name) & rooms
    ]
    assert hidden == []


# ---- actions -------------------------------------------------------------------------------------------------
def test_action_grammar() -> None:
    seq = parse_actions("THINK ... Actions: [JumpTo(red_door), Rotate(-90), Observe()]")
    assert seq.actions == (JumpTo("red door"), Rotate(-90), Observe())
    assert seq.final == Observe() and str(seq) == "Actions: [JumpTo(red door), Rotate(-90), Observe()]"
    assert parse_actions("Actions: [Query(sofa)]").final == Query("sofa")
    assert parse_actions("Actions: [Term()]").actions == (Term(),)
    fb = parse_actions('Actions: [Term(changes="lamp: position, chair: orientation")]', false_belief=True)
    assert isinstance(fb.final, Term) and fb.final.changes is not None
    assert [(c.name, c.position, c.orientation) for c in fb.final.changes] == [
        ("lamp", True, False),
        ("chair", False, True),
    ]


@pytest.mark.parametrize(
    ("text", "false_belief", "message"),
    [
        ("Observe()", False, "no action list"),
        ("Actions: []", False, "empty"),
        ("Actions: [Rotate(90)]", False, "no final action"),
        ("Actions: [Observe(), Rotate(90)]", False, "no final action"),
        ("Actions: [Observe(), Query(lamp)]", False, "more than one final action"),
        ("Actions: [Rotate(90), Term()]", False, "must be alone"),
        ("Actions: [Fly(lamp), Observe()]", False, "unknown action"),
        ("Actions: [Rotate(ninety), Observe()]", False, "unknown action"),
        ("Actions: [Term()]", True, "Term\\(changes="),
        ('Actions: [Term(changes="lamp: position")]', False, "unknown action"),
    ],
)
def test_invalid_action_strings(text: str, false_belief: bool, message: str) -> None:
    with pytest.raises(ActionParseError, match=message):
        parse_actions(text, false_belief=false_belief)


def test_change_reports_are_read_leniently() -> None:
    got = parse_changes("apple: moved, 'chair': rotation, bowl facing, nonsense, : position, apple: ori")
    assert [(c.name, c.position, c.orientation) for c in got] == [
        ("apple", True, True),
        ("chair", False, True),
        ("bowl", False, True),
    ]
    assert parse_changes("nothing") == ()

"""The common window type: JSON round trips, scene records, bad records."""

from __future__ import annotations

import json

import pytest

from mindloop.beliefs import Fact
from mindloop.errors import InvalidArgumentError
from mindloop.systems.mindclaw import HouseholdSource
from mindloop.systems.mindclaw.window import Candidates, DictScene, Window, WindowEvent, base_place, room_of
from mindloop.worlds.household.scenarios import Scenario

SCENE = {
    "rooms": ["kitchen", "living_room"],
    "places": {
        "fridge": {"room": "kitchen", "props": ["openable", "receptacle"], "open": False},
        "kitchen_table": {"room": "kitchen", "props": ["surface"], "open": False},
    },
    "items": {
        "board": {"kind": "cutting_board", "at": "kitchen_table", "props": ["graspable", "surface"]},
        "carrot": {"kind": "carrot", "at": "board", "props": ["graspable"]},
        "apple": {"kind": "apple", "at": "alice", "props": ["graspable"]},
    },
    "agents": {"alice": {"room": "living_room", "feels": "cold"}, "robot": {"room": "kitchen", "feels": None}},
    "switched_on": [],
    "power": False,
}


def test_dict_scene_answers_what_the_record_says() -> None:
    scene = DictScene(SCENE)
    assert list(scene.items()) == ["board", "carrot", "apple"] and list(scene.humans()) == ["alice"]
    assert scene.kind("board") == "cutting_board" and scene.location("carrot") == "board"
    assert base_place(scene, "carrot") == "kitchen_table"  # through the board it sits on
    assert base_place(scene, "apple") is None  # held
    assert room_of(scene, "carrot") == "kitchen" and room_of(scene, "apple") == "living_room"
    assert "receptacle" in scene.props("fridge") and not scene.is_open("fridge")
    assert scene.feels("alice") == "cold" and scene.power() is False
    assert DictScene(scene.to_dict()).to_dict() == scene.to_dict()


def test_window_round_trip_through_json(lily: Scenario) -> None:
    windows = list(HouseholdSource(lily).windows())
    for w in windows[:9]:
        back = Window.from_dict(json.loads(json.dumps(w.to_dict())))
        assert back.events == w.events and back.text == w.text and back.candidates == w.candidates
        assert back.state is not None and w.state is not None
        assert back.state.to_dict() == w.state.to_dict()
    # window 8: Sarah picks up the apple, seen by the robot and by Sarah (Lily is in the living room)
    pick = next(e for e in windows[8].events if e.verb == "pick")
    assert pick.actor == "sarah" and pick.args == ("apple",) and pick.witnesses == ("sarah",)
    assert Fact("apple", "at", "sarah") in pick.facts


def test_bad_records_are_named() -> None:
    with pytest.raises(InvalidArgumentError, match="integer 't'"):
        Window.from_dict({"events": []})
    with pytest.raises(InvalidArgumentError, match="JSON object"):
        Window.from_dict(["t", 1])  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="window event"):
        WindowEvent.from_dict({"kind": "move"})
    assert Candidates.from_dict({"actors": ["b", "a"]}).to_dict()["actors"] == ["a", "b"]

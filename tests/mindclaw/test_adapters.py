"""Input sources: replayed windows and frames give the live run's decisions; the terminal session closes the loop;
the VirtualHome and ThreeDWorld stubs read recorded snapshots (fixtures) into the same windows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems.mindclaw import (
    Engine,
    FramesFolderSource,
    HouseholdSource,
    JsonlReplaySource,
    TerminalSource,
    ThreeDWorldAdapter,
    VirtualHomeAdapter,
    build_engine,
    default_skills,
    record_frames_folder,
    record_windows,
)
from mindloop.systems.mindclaw.records import ActionPlan
from mindloop.worlds.household.scenarios import Scenario, generate_scenario

FIXTURES = Path(__file__).parent / "fixtures"


def _decisions(trace: list) -> list[tuple[int, list[str], str]]:
    return [(s.t, [str(op) for op in s.ops], str(s.action)) for s in trace]


def test_a_recorded_episode_replays_to_the_same_decisions(lily: Scenario, tmp_path: Path) -> None:
    """Before the robot acts, a replay sees exactly what the live run saw, so it decides the same."""
    live = build_engine("symbolic", skills=default_skills()).run_now(HouseholdSource(lily))
    path = tmp_path / "lily.jsonl"
    assert record_windows(HouseholdSource(lily).windows(), path) == 22
    source = JsonlReplaySource(path)
    replayed = build_engine("symbolic", skills=default_skills()).run_now(source)
    assert _decisions(replayed)[:16] == _decisions(live)[:16]  # through the intervention at window 15
    assert replayed[15].execution is not None and not replayed[15].execution.executed  # a recording cannot act


def test_replay_errors_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"t": 0}\n\n{"t": "x"}\n')
    with pytest.raises(ParseError, match=r"bad.jsonl:3: .*integer 't'"):
        list(JsonlReplaySource(path).windows())
    path.write_text("{not json\n")
    with pytest.raises(ParseError, match=r"bad.jsonl:1: not valid JSON"):
        list(JsonlReplaySource(path).windows())
    path.write_text('{"t": 0}\n[1, 2]\n')
    with pytest.raises(ParseError, match=r"bad.jsonl:2: expected a JSON object per line \(got '\[1, 2\]'\)"):
        list(JsonlReplaySource(path).windows())
    with pytest.raises(InvalidArgumentError):
        JsonlReplaySource(tmp_path / "none.jsonl")


def test_frames_folder_is_the_static_video_source(lily: Scenario, tmp_path: Path) -> None:
    folder = tmp_path / "video"
    assert record_frames_folder(HouseholdSource(lily), folder, size=(64, 48)) == 22
    source = FramesFolderSource(folder)
    windows = list(source.windows())
    assert len(windows) == 22 and all(len(w.frames) == 1 and Path(w.frames[0]).is_file() for w in windows)
    trace = build_engine("symbolic", skills=default_skills()).run_now(source)
    assert [s.t for s in trace if not s.action.is_none] == [15]
    # frames only (no sidecar windows): grouped frames_per_window at a time
    sidecar = json.loads((folder / "sidecar.json").read_text())
    (folder / "sidecar.json").write_text(json.dumps({"frames_per_window": 4}))
    grouped = list(FramesFolderSource(folder).windows())
    assert [len(w.frames) for w in grouped] == [4, 4, 4, 4, 4, 2] and grouped[0].events == ()
    # a sidecar describing a different number of windows than the frames make is refused
    (folder / "sidecar.json").write_text(json.dumps({"frames_per_window": 2, "windows": [{"t": 0}]}))
    with pytest.raises(ParseError, match="22 frames make 11 windows of 2"):
        list(FramesFolderSource(folder).windows())
    sidecar["windows"][0]["frames"] = ["missing.png"]
    (folder / "sidecar.json").write_text(json.dumps(sidecar))
    with pytest.raises(ParseError, match=r"'missing\.png' is not in the folder"):
        list(FramesFolderSource(folder).windows())


def test_a_person_at_the_terminal_drives_the_story_and_the_robot_helps() -> None:
    scenario = generate_scenario("ig_dialogue_need", 0, 0, dressed=False)  # Jamie and Grace; medicine in reach
    said: list[str] = []
    lines = [
        "help",
        "carol: walk(kitchen)",
        "jamie: fly(moon)",
        'jamie: say(grace, "My head is pounding, I have a headache.")',
        "! please keep an eye on Jamie",
        "wait",
        "wait",
        "quit",
        "grace: walk(kitchen)",  # never read: the session ended
    ]
    source = TerminalSource(scenario, lines, say=said.append)
    engine = build_engine("symbolic", skills=default_skills())
    trace = engine.run_now(source)
    assert "commands:" in said[0] and "no one called 'carol'" in said[1] and "cannot read 'fly(moon)'" in said[2]
    assert [w.t for w in trace] == [0, 1, 2, 3, 4]
    assert trace[2].observation.events == () and "You (to the robot)" in trace[2].text
    # the need was stated at window 1; window 2 (an instruction, nobody acting) is the first quiet one
    acted = [s for s in trace if not s.action.is_none]
    assert [s.t for s in acted] == [2] and acted[0].action.steps[-1] == "give(medicine, jamie)"
    assert source.episode is not None and source.episode.world.holder_of("medicine") == "jamie"


def test_virtualhome_snapshots_become_windows() -> None:
    adapter = VirtualHomeAdapter.from_file(FIXTURES / "virtualhome_episode.json")
    windows = list(adapter.windows())
    assert len(windows) == 9
    put = windows[1].events[0]
    assert (put.actor, put.verb, put.args, put.witnesses) == (
        "alice",
        "place",
        ("apple", "kitchen_table"),
        ("alice", "bob"),
    )
    assert [(e.actor, e.verb) for e in windows[3].events] == [("bob", "pick")]
    assert [(e.actor, e.verb, e.args) for e in windows[5].events] == [("bob", "putin", ("apple", "fridge"))]
    assert [(e.actor, e.verb) for e in windows[8].events] == [("alice", "lookat")]  # a logged action, no change
    scene = windows[5].state
    assert scene is not None and scene.location("apple") == "fridge" and scene.agent_room("alice") == "living_room"
    assert "receptacle" in scene.props("fridge") and "openable" in scene.props("fridge")
    assert adapter.names["kitchentable.11"] == "kitchen_table"
    engine: Engine = build_engine("symbolic", skills=default_skills())
    trace = engine.run_now(adapter)
    acted = [s for s in trace if not s.action.is_none]
    assert [s.t for s in acted] == [8]  # Alice came back and looks at the table where she left the apple
    r = acted[0].record
    assert r is not None and (r.actor, r.object, r.believed, r.seen) == ("alice", "apple", "kitchen_table", "fridge")
    exe = acted[0].execution
    assert exe is not None and not exe.executed
    assert exe.commands[:4] == (
        "<char2> [Walk] <fridge> (10)",
        "<char2> [Open] <fridge> (10)",
        "<char2> [Grab] <apple> (20)",
        "<char2> [Close] <fridge> (10)",
    )
    assert exe.commands[4] == "<char2> [Walk] <character> (100)" and exe.commands[5].startswith("# give(apple, alice)")


def test_malformed_json_files_name_file_line_and_column(tmp_path: Path) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    (folder / "sidecar.json").write_text('{"frames_per_window": 2,\n "x": }\n')
    with pytest.raises(ParseError, match=r"sidecar\.json:2: not valid JSON at column 7: Expecting value$"):
        FramesFolderSource(folder)
    recording = tmp_path / "episode.json"
    recording.write_text('{"frames": []} extra')
    for adapter in (ThreeDWorldAdapter, VirtualHomeAdapter):
        with pytest.raises(ParseError, match=r"episode\.json:1: not valid JSON at column 16: Extra data$"):
            adapter.from_file(recording)


def test_virtualhome_errors() -> None:
    data = json.loads((FIXTURES / "virtualhome_episode.json").read_text())
    with pytest.raises(InvalidArgumentError, match="character node 102 has no name"):
        VirtualHomeAdapter(data["steps"], {"100": "alice", "101": "bob"})
    data["steps"][1]["script"] = ["[Put] apple"]
    with pytest.raises(ParseError, match="not a VirtualHome script line"):
        VirtualHomeAdapter(data["steps"], data["characters"])
    adapter = VirtualHomeAdapter.from_file(FIXTURES / "virtualhome_episode.json")
    with pytest.raises(InvalidArgumentError, match="'teapot' is not a node"):
        adapter.compile(ActionPlan(("pick(teapot)",)))


def test_threedworld_snapshots_become_windows() -> None:
    adapter = ThreeDWorldAdapter.from_file(FIXTURES / "tdw_episode.json")
    windows = list(adapter.windows())
    assert len(windows) == 7
    assert [(e.actor, e.verb, e.args) for e in windows[1].events] == [("alice", "place", ("apple", "kitchen_table"))]
    assert [(e.actor, e.verb) for e in windows[2].events] == [("alice", "walk")]
    assert [(e.actor, e.verb, e.args) for e in windows[5].events] == [("bob", "putin", ("apple", "fridge"))]
    scene = windows[6].state
    assert scene is not None and scene.location("apple") == "fridge" and not scene.is_open("fridge")
    table = build_engine("symbolic", skills=default_skills())
    table.run_now(adapter)
    assert table.memory.table is not None
    assert table.memory.table.actor("alice", "apple") == "kitchen_table"  # she saw it put there, not moved
    assert table.memory.table.visual("apple") == "fridge"
    calls = adapter.compile(ActionPlan(("walk(fridge)", "open(fridge)", "pick(apple)", "give(apple, alice)")))
    assert calls[0] == "replicant.move_to(target=7)" and "grasp(target=3" in calls[2]
    assert calls[3] == "replicant.move_to(target=100); replicant.drop(arm=Arm.right)"
    with pytest.raises(InvalidArgumentError):
        ThreeDWorldAdapter([])


def test_a_threedworld_place_in_no_region_gives_its_events_no_room() -> None:
    # a cabinet with no region (none known to the snapshot) is in no room, nor is what goes into it: the events say
    # "" (a merge of the room walk once wrote the string "None" here)
    def frame(n: int, opened: bool, inside: bool) -> dict[str, object]:
        return {
            "frame": n,
            "regions": {"0": "kitchen"},
            "objects": {
                "7": {"name": "cabinet", "props": ["openable", "receptacle"], "open": opened},
                "3": {"name": "apple", "region": 0, "props": ["graspable"]},
            },
            "containment": {"7": [3]} if inside else {},
            "replicants": {"100": {"name": "alice", "region": 0, "held": {"left": None, "right": None}}},
        }

    windows = list(ThreeDWorldAdapter([frame(0, False, False), frame(1, True, False), frame(2, True, True)]).windows())
    events = [e for w in windows for e in w.events]
    assert [(e.verb, e.room) for e in events] == [("open", ""), ("move", "")]
    assert all(event["room"] == "" for w in windows for event in w.to_dict()["events"])

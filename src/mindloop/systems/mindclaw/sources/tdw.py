"""ThreeDWorld adapter **stub**: recorded per-frame state snapshots in, MindClaw windows out; robot actions out as
Replicant API calls. It does not start or talk to the TDW build.

A snapshot is what a TDW controller can gather each frame from its output data — object names
(``SegmentationColors``/object records), containment (the ``ContainerManager``'s ``Containment`` data: container
id -> ids inside, or on, it), scene regions (``SceneRegions``: the rooms), open states, and the Replicants
(humanoid agents: their region and what each hand holds). Saved as::

    {"robot": "robot",
     "frames": [{"frame": 0,
                 "regions": {"0": "kitchen", "1": "living_room"},
                 "objects": {"7": {"name": "fridge", "region": 0, "props": ["openable", "receptacle"], "open": false},
                             "3": {"name": "apple", "region": 0, "props": ["graspable"]}},
                 "containment": {"7": [3]},
                 "replicants": {"100": {"name": "alice", "region": 1, "held": {"left": null, "right": null}}}},
                ...]}

An object with ``graspable`` among its props is an item, any other object a place. An item is in (or on) the
container whose containment lists it, or with the replicant holding it; otherwise on its region's floor
(``<room>_floor``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mindloop.beliefs.vocab import ROBOT
from mindloop.errors import InvalidArgumentError
from mindloop.records_codec import not_a
from mindloop.systems.mindclaw.records import ActionPlan, ExecutionResult
from mindloop.systems.mindclaw.sources.base import compile_plan, not_executed, read_recording, step_ids
from mindloop.systems.mindclaw.sources.snapshots import SnapshotState, snapshot_windows
from mindloop.systems.mindclaw.window import Window
from mindloop.worlds.household.actions import Action


def read_frame(frame: Mapping[str, Any], *, robot: str = ROBOT) -> tuple[SnapshotState, dict[str, int]]:
    """One TDW snapshot as a :class:`SnapshotState`, with the map from canonical name to TDW id."""
    with not_a("TDW snapshot", (KeyError, TypeError, AttributeError)):
        regions = {str(k): str(v) for k, v in frame["regions"].items()}
        objects = {str(k): dict(v) for k, v in frame["objects"].items()}
        replicants = {str(k): dict(v) for k, v in frame.get("replicants", {}).items()}
        containment = {str(k): [str(x) for x in v] for k, v in frame.get("containment", {}).items()}
    state = SnapshotState(robot=robot)
    state.rooms = sorted(set(regions.values()))
    ids: dict[str, int] = {}
    inside: dict[str, str] = {}
    for container, contents in containment.items():
        for x in contents:
            inside.setdefault(x, container)
    holder: dict[str, str] = {}
    for rid, r in replicants.items():
        name = str(r["name"])
        ids[name] = int(rid)
        state.agents[name] = {"room": regions.get(str(r.get("region")))}
        for hand in ("left", "right"):
            held = (r.get("held") or {}).get(hand)
            if held is not None:
                holder[str(held)] = name
    for oid, o in objects.items():
        name = str(o["name"])
        ids[name] = int(oid)
        room = regions.get(str(o.get("region")))
        props = [str(p) for p in o.get("props", [])]
        if "graspable" in props:
            if oid in holder:
                where: str | None = holder[oid]
            elif oid in inside:
                where = str(objects[inside[oid]]["name"])
            else:
                where = f"{room}_floor" if room else None
            state.items[name] = {"kind": str(o.get("kind", name)), "at": where, "props": props}
        else:
            state.places[name] = {"room": room, "props": props, "open": bool(o.get("open")), "on": bool(o.get("on"))}
    for room in state.rooms:
        state.places.setdefault(f"{room}_floor", {"room": room, "props": ["surface"], "open": False, "on": False})
    return state, ids


_CALLS = {
    "walk": "replicant.move_to(target={id})",
    "pick": "replicant.reach_for(target={id}, arm=Arm.right); replicant.grasp(target={id}, arm=Arm.right)",
    "place": "replicant.move_to(target={id2}); replicant.drop(arm=Arm.right)",
    "putin": "replicant.move_to(target={id2}); replicant.drop(arm=Arm.right)",
    "give": "replicant.move_to(target={id2}); replicant.drop(arm=Arm.right)",
    "open": "communicate({{'$type': 'open_container', 'id': {id}}})",
    "close": "communicate({{'$type': 'close_container', 'id': {id}}})",
}


class ThreeDWorldAdapter:
    """Windows from recorded TDW snapshots (a **stub**: see the module docstring); ``execute`` compiles the robot's
    action into Replicant calls and reports them, without running anything."""

    name = "threedworld"

    def __init__(self, frames: Sequence[Mapping[str, Any]], *, robot: str = ROBOT) -> None:
        if not frames:
            raise InvalidArgumentError("a TDW recording needs at least one frame")
        self.robot = robot
        self.states: list[SnapshotState] = []
        self.ids: dict[str, int] = {}
        for frame in frames:
            state, ids = read_frame(frame, robot=robot)
            self.states.append(state)
            for k, v in ids.items():
                self.ids.setdefault(k, v)
        self.names = {f"{name}#{i}": name for name, i in self.ids.items()}

    @classmethod
    def from_file(cls, path: str | Path) -> ThreeDWorldAdapter:
        """Read ``{"robot": ..., "frames": [...]}`` (module docstring)."""
        return read_recording(path, "TDW", lambda data: cls(data["frames"], robot=data.get("robot", ROBOT)))

    def windows(self) -> Iterator[Window]:
        """One window per recorded frame."""
        return snapshot_windows(self.states, [], source=self.name, names=self.names)

    def compile(self, plan: ActionPlan) -> tuple[str, ...]:
        """The robot's steps as Replicant calls (steps without a Replicant counterpart become comments)."""
        return compile_plan(plan, self._call)

    def _call(self, text: str, action: Action) -> str:
        template = _CALLS.get(action.verb)
        if template is None:
            return f"# {text}: no Replicant call"
        ids = step_ids(text, action, self.ids, "has no TDW id")
        return template.format(id=ids[0], id2=ids[-1])

    def execute(self, plan: ActionPlan) -> ExecutionResult:
        """Compile, do not run (the stub never talks to TDW)."""
        return not_executed(plan, "ThreeDWorld stub: Replicant calls are compiled, not run", self.compile(plan))

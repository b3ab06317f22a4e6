"""VirtualHome adapter **stub**: recorded environment-graph snapshots in, MindClaw windows out; robot actions out as
VirtualHome script lines. It does not start or talk to the Unity program — feed it what ``comm.environment_graph()``
returned after each step (and, optionally, the script lines that ran), e.g. saved as::

    {"characters": {"1": "alice", "2": "robot"},
     "steps": [{"graph": {"nodes": [...], "edges": [...]}, "script": ["<char0> [Walk] <kitchen> (11)"]}, ...]}

Graph reading (VirtualHome's format: nodes with ``id``, ``class_name``, ``category``, ``properties``, ``states``;
edges ``from_id`` -> ``to_id`` with ``relation_type`` ``INSIDE``/``ON``/``HOLDS_RH``/``HOLDS_LH``/``CLOSE``/...):

* ``category == "Rooms"`` nodes are rooms, ``class_name == "character"`` nodes are people (named by
  ``characters``), ``GRABBABLE`` nodes are items, every other node is a place;
* an item is where its ``ON``/``INSIDE`` edge to a non-room points, or with the person whose ``HOLDS_*`` edge
  points at it; a person is in the room of their ``INSIDE`` edge;
* ``OPEN``/``ON`` states are open / switched on; ``CONTAINERS``, ``CAN_OPEN``, ``HAS_SWITCH``, ``SURFACES``,
  ``GRABBABLE`` properties become ``receptacle``, ``openable``, ``switchable``, ``surface``, ``graspable``;
* canonical names: the class name in mindloop's spelling (``kitchencabinet`` -> ``kitchen_cabinet``, see
  :data:`CLASS_NAMES`), suffixed with the node id when a class occurs twice (``chair_57``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mindloop.beliefs.vocab import ROBOT
from mindloop.datafiles import DataModel, load_data_file
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems.mindclaw.records import ActionPlan, ExecutionResult
from mindloop.systems.mindclaw.sources.base import compile_plan, not_executed, read_recording, step_ids
from mindloop.systems.mindclaw.sources.snapshots import LoggedAction, SnapshotState, snapshot_windows
from mindloop.systems.mindclaw.window import Window
from mindloop.worlds.household.actions import Action


class _Names(DataModel):
    """``virtualhome.yaml``."""

    class_names: dict[str, str]
    verbs: dict[str, str]


_NAMES = load_data_file(_Names, Path(__file__).parents[1] / "virtualhome.yaml")
CLASS_NAMES = _NAMES.class_names
"""VirtualHome class names that mindloop spells differently (the rest keep their class name)."""
VH_VERBS = _NAMES.verbs
"""mindloop verbs and the VirtualHome script actions they compile to."""

_PROPS = {"CONTAINERS": "receptacle", "CAN_OPEN": "openable", "HAS_SWITCH": "switchable", "SURFACES": "surface",
          "GRABBABLE": "graspable"}  # fmt: skip
_SCRIPT = re.compile(r"<char(\d+)>\s*\[(\w+)\]((?:\s*<[^>]+>\s*\(\d+\))*)")
_ARG = re.compile(r"<([^>]+)>\s*\((\d+)\)")


def _canonical(class_name: str) -> str:
    low = class_name.lower().replace(" ", "")
    return CLASS_NAMES.get(low, low)


def read_graph(
    graph: Mapping[str, Any], characters: Mapping[str, str], *, robot: str = ROBOT
) -> tuple[SnapshotState, dict[int, str]]:
    """One environment graph as a :class:`SnapshotState`, with the map from node id to canonical name."""
    try:
        nodes = list(graph["nodes"])
        edges = list(graph["edges"])
    except (KeyError, TypeError):
        raise InvalidArgumentError("a VirtualHome graph has 'nodes' and 'edges'") from None
    counts = Counter(_canonical(str(n["class_name"])) for n in nodes if n.get("class_name") != "character")
    names: dict[int, str] = {}
    kinds: dict[int, str] = {}
    for n in nodes:
        nid = int(n["id"])
        if n.get("class_name") == "character":
            who = characters.get(str(nid))
            if who is None:
                raise InvalidArgumentError(f"character node {nid} has no name (give characters={{'{nid}': ...}})")
            names[nid], kinds[nid] = who, "agent"
            continue
        base = _canonical(str(n["class_name"]))
        names[nid] = base if counts[base] == 1 else f"{base}_{nid}"
        if n.get("category") == "Rooms":
            kinds[nid] = "room"
        elif "GRABBABLE" in n.get("properties", []):
            kinds[nid] = "item"
        else:
            kinds[nid] = "place"
    state = SnapshotState(robot=robot)
    state.rooms = [names[i] for i, k in kinds.items() if k == "room"]
    node_by_id = {int(n["id"]): n for n in nodes}
    room_of: dict[int, str] = {}
    on: dict[int, int] = {}
    held: dict[int, int] = {}
    for e in edges:
        a, b, rel = int(e["from_id"]), int(e["to_id"]), str(e["relation_type"]).upper()
        if a not in kinds or b not in kinds:
            raise InvalidArgumentError(f"edge {a} -> {b} names a node the graph does not have")
        if rel == "INSIDE" and kinds[b] == "room":
            room_of[a] = names[b]
        elif rel in ("ON", "INSIDE") and kinds[b] != "room" and kinds[a] == "item":
            on.setdefault(a, b)
        elif rel in ("HOLDS_RH", "HOLDS_LH") and kinds[a] == "agent":
            held[b] = a
    for nid, kind in kinds.items():
        node = node_by_id[nid]
        props = sorted(_PROPS[p] for p in node.get("properties", []) if p in _PROPS)
        states = {str(s).upper() for s in node.get("states", [])}
        if kind == "place":
            state.places[names[nid]] = {"room": room_of.get(nid), "props": props, "open": "OPEN" in states,
                                        "on": "ON" in states}  # fmt: skip
        elif kind == "item":
            where = names[held[nid]] if nid in held else (names[on[nid]] if nid in on else room_of.get(nid))
            state.items[names[nid]] = {"kind": _canonical(str(node["class_name"])), "at": where, "props": props}
        elif kind == "agent":
            state.agents[names[nid]] = {"room": room_of.get(nid)}
    return state, names


def _parse_script_line(line: str, names: Mapping[int, str], characters: Mapping[str, str]) -> LoggedAction:
    """``<char0> [Grab] <apple> (12)`` as a :class:`LoggedAction` in canonical names (``char0`` is the first
    character listed in ``characters``)."""
    m = _SCRIPT.match(line.strip())
    if m is None:
        raise ParseError("not a VirtualHome script line '<charN> [Action] <object> (id) ...'", text=line)
    order = list(characters.values())
    idx = int(m.group(1))
    if idx >= len(order):
        raise ParseError(f"char{idx} is not one of the {len(order)} characters", text=line)
    verb_vh = m.group(2)
    back = {v.lower(): k for k, v in VH_VERBS.items()}
    verb = back.get(verb_vh.lower(), verb_vh.lower())
    args = []
    for cls, nid in _ARG.findall(m.group(3)):
        name = names.get(int(nid))
        if name is None:
            raise ParseError(f"object id {nid} ({cls}) is not in the graph", text=line)
        args.append(name)
    return LoggedAction(order[idx], verb, tuple(args))


class VirtualHomeAdapter:
    """Windows from recorded VirtualHome graphs (a **stub**: see the module docstring); ``execute`` compiles the
    robot's action into script lines and reports them as commands, without running anything."""

    name = "virtualhome"

    def __init__(self, steps: Sequence[Mapping[str, Any]], characters: Mapping[str, str], *, robot: str = ROBOT):
        if not steps:
            raise InvalidArgumentError("a VirtualHome recording needs at least one step")
        self.characters = dict(characters)
        self.robot = robot
        self.states: list[SnapshotState] = []
        self.logs: list[list[LoggedAction]] = []
        self.ids: dict[str, int] = {}
        self.classes: dict[str, str] = {}
        names: dict[str, str] = {}
        for i, step in enumerate(steps):
            if "graph" not in step:
                raise InvalidArgumentError(f"step {i} has no 'graph'")
            state, by_id = read_graph(step["graph"], self.characters, robot=robot)
            self.states.append(state)
            self.logs.append([_parse_script_line(x, by_id, self.characters) for x in step.get("script", [])])
            for nid, name in by_id.items():
                self.ids.setdefault(name, nid)
            for n in step["graph"]["nodes"]:
                names.setdefault(f"{n['class_name']}.{n['id']}", by_id[int(n["id"])])
                self.classes.setdefault(by_id[int(n["id"])], str(n["class_name"]))
        self.names = names

    @classmethod
    def from_file(cls, path: str | Path) -> VirtualHomeAdapter:
        """Read ``{"characters": {...}, "steps": [...]}`` (module docstring)."""
        return read_recording(
            path, "VirtualHome", lambda data: cls(data["steps"], data["characters"], robot=data.get("robot", ROBOT))
        )

    def windows(self) -> Iterator[Window]:
        """One window per recorded step."""
        return snapshot_windows(self.states, self.logs, source=self.name, names=self.names)

    def compile(self, plan: ActionPlan) -> tuple[str, ...]:
        """The robot's steps as VirtualHome script lines for character ``robot`` (``give`` and ``remind`` have no
        VirtualHome action: they become a walk to the person and a comment line)."""
        return compile_plan(plan, self._line)

    def _line(self, text: str, action: Action) -> str:
        char = list(self.characters.values()).index(self.robot) if self.robot in self.characters.values() else 0
        if action.verb in ("give", "remind"):
            return f"# {text}: no VirtualHome action; deliver by walking to the person"
        vh = VH_VERBS.get(action.verb)
        if vh is None:
            return f"# {text}: no VirtualHome action"
        ids = step_ids(text, action, self.ids, "is not a node of the graph")
        args = [f"<{self.classes.get(a, a)}> ({i})" for a, i in zip(action.args, ids, strict=True)]
        return f"<char{char}> [{vh}] {' '.join(args)}".rstrip()

    def execute(self, plan: ActionPlan) -> ExecutionResult:
        """Compile, do not run (the stub never talks to Unity)."""
        return not_executed(plan, "VirtualHome stub: the script is compiled, not run", self.compile(plan))

"""Turning a sequence of simulator state snapshots into windows: the shared core of the VirtualHome and
ThreeDWorld adapter stubs.

Each adapter first reads its simulator's snapshot into a :class:`SnapshotState` (canonical names, where every item
is, which room every person is in, what is open or on), then :func:`diff_events` compares two consecutive states:
an item now held by a person was picked up by them; an item leaving a person's hands was put down by them; a
person in a new room walked there; a thing that opened or closed was opened or closed. Who saw an event is the
adapter's visibility rule: every person in the room where it happened. Actions named in the snapshot's own action
log (a VirtualHome script line, say) supply the actor of changes and the actions that change nothing (looking,
walking about).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mindloop.beliefs import Fact
from mindloop.beliefs.vocab import AT, OPEN, ROBOT, ROOM, SWITCH
from mindloop.systems.mindclaw.window import Candidates, DictScene, Window, WindowEvent


@dataclass
class SnapshotState:
    """A simulator state in canonical names: places (room, properties, open/on), items (kind, location,
    properties), people (room, holding), and the robot's name."""

    places: dict[str, dict[str, Any]] = field(default_factory=dict)
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    agents: dict[str, dict[str, Any]] = field(default_factory=dict)
    rooms: list[str] = field(default_factory=list)
    robot: str = ROBOT

    def room_of(self, entity: str) -> str | None:
        """The room of a place, item (through where it is) or person."""
        for _ in range(8):
            if entity in self.rooms:
                return entity
            if entity in self.places:
                return str(self.places[entity].get("room") or "") or None
            if entity in self.agents:
                return self.agents[entity].get("room")
            if entity in self.items:
                entity = str(self.items[entity].get("at") or "")
                continue
            return None
        return None

    def present(self, room: str | None) -> tuple[str, ...]:
        """The people (not the robot) in ``room``."""
        if room is None:
            return ()
        return tuple(sorted(a for a, v in self.agents.items() if v.get("room") == room and a != self.robot))

    def scene(self) -> DictScene:
        """The state as a :class:`~mindloop.systems.mindclaw.window.DictScene`."""
        return DictScene(
            {
                "rooms": self.rooms,
                "places": {p: {"room": v.get("room"), "props": v.get("props", []), "open": v.get("open", False)}
                           for p, v in self.places.items()},
                "items": {i: {"kind": v.get("kind", i), "at": v.get("at"), "props": v.get("props", [])}
                          for i, v in self.items.items()},
                "agents": {a: {"room": v.get("room"), "feels": None} for a, v in self.agents.items()},
                "switched_on": sorted(p for p, v in self.places.items() if v.get("on")),
                "power": True,
            }
        )  # fmt: skip

    def candidates(self) -> Candidates:
        """People, objects and locations of this state."""
        humans = frozenset(a for a in self.agents if a != self.robot)
        return Candidates(
            actors=humans,
            objects=frozenset(self.items)
            | frozenset(p for p, v in self.places.items() if "switchable" in v.get("props", [])),
            locations=frozenset(self.places) | frozenset(self.rooms) | frozenset(self.items) | frozenset(self.agents),
        )  # fmt: skip


@dataclass(frozen=True)
class LoggedAction:
    """An action the simulator's own log names: ``actor`` did ``verb(args)`` (canonical names)."""

    actor: str
    verb: str
    args: tuple[str, ...]


def _event(t: int, kind: str, actor: str, verb: str, args: tuple[str, ...], facts: tuple[Fact, ...],
           state: SnapshotState, room: str | None) -> WindowEvent:  # fmt: skip
    who = actor or "someone"
    text = f"{who} {verb}s {' '.join(args)}".strip() + "."
    return WindowEvent(t, kind, actor, verb, args, room or "", text, "", facts, state.present(room))


def diff_events(
    t: int, before: SnapshotState | None, after: SnapshotState, log: Sequence[LoggedAction] = ()
) -> list[WindowEvent]:
    """The events that turn ``before`` into ``after`` (module docstring); ``before=None``: the logged actions alone."""
    before = after if before is None else before  # nothing changed since: only the logged actions are events
    out: list[WindowEvent] = []
    explained: set[str] = set()
    for who, v in after.agents.items():
        old = before.agents.get(who, {}).get("room")
        new = v.get("room")
        if new and new != old:
            out.append(_event(t, "enter", who, "walk", (new,), (Fact(who, ROOM, new),), after, new))
            explained.add(who)
    for i, v in after.items.items():
        old = before.items.get(i, {}).get("at")
        new = v.get("at")
        if new == old or new is None:
            continue
        fact = (Fact(i, AT, new),)
        if new in after.agents:
            out.append(_event(t, "move", new, "pick", (i,), fact, after, after.room_of(new)))
        elif old in after.agents:
            verb = "putin" if "receptacle" in after.places.get(new, {}).get("props", []) else "place"
            out.append(_event(t, "put", old, verb, (i, new), fact, after, after.room_of(new)))
        else:
            mover = next((a.actor for a in log if i in a.args), "")
            out.append(_event(t, "move", mover, "move", (i, new), fact, after, after.room_of(new)))
        explained.add(i)
    for p, v in after.places.items():
        was = before.places.get(p, {})
        changes = (
            ("open", "open", "close", OPEN, "open", "closed"),
            ("on", "switchon", "switchoff", SWITCH, "on", "off"),
        )
        for key, on_verb, off_verb, relation, yes, no in changes:
            if bool(v.get(key)) != bool(was.get(key)):
                verb = on_verb if v.get(key) else off_verb
                actor = next((a.actor for a in log if a.verb == verb and p in a.args), "")
                facts = [Fact(p, relation, yes if v.get(key) else no)]
                if verb == "open":
                    facts += [Fact(i, AT, p) for i, iv in after.items.items() if iv.get("at") == p]
                out.append(_event(t, "open" if verb == "open" else "other", actor, verb, (p,), tuple(facts), after,
                                  after.room_of(p)))  # fmt: skip
                explained.add(p)
    for a in log:  # logged actions that changed nothing visible (looking about, walking to furniture)
        if a.verb in ("walk", "pick", "place", "putin", "open", "close", "switchon", "switchoff") and (
            set(a.args) & explained or a.actor in explained
        ):
            continue
        out.append(_event(t, "other", a.actor, a.verb, a.args, (), after, after.room_of(a.actor)))
    return out


def snapshot_windows(
    states: Sequence[SnapshotState],
    logs: Sequence[Sequence[LoggedAction]],
    *,
    source: str,
    names: Mapping[str, str],
) -> Iterator[Window]:
    """One window per snapshot: the events since the previous snapshot, the state as the scene."""
    before: SnapshotState | None = None
    for t, state in enumerate(states):
        log = logs[t] if t < len(logs) else ()
        events = tuple(diff_events(t, before, state, log))
        yield Window(
            t=t,
            events=events,
            text="\n".join(e.text for e in events),
            state=state.scene(),
            candidates=state.candidates(),
            source=source,
            names=dict(names),
        )
        before = state

"""A C-WAH-style household world (Communicative Watch-And-Help, CoBel-World appendix B.2) as a PettingZoo env.

Two to four agents must make the goal predicates of one of the five tasks of Table 6 true (``ON(apple,
coffeetable): 2``…) within 250 steps. The house has four rooms joined by doors (walking through a door takes
:data:`HOP_STEPS` steps), furniture that is a surface or a container that opens and closes, goal objects
scattered over it (some inside closed containers), and distractors. Every agent acts every step with one of the
actions of B.2 — walk towards a room or an object in its room, turn left/right, grasp, open, close, put, send a
message (one step, at most 500 characters) — and observes symbolically what is visible in its room (objects on
surfaces or in open containers, container states), its own holdings, the partners in the same room with their
holdings, and the messages sent to it.

``info[agent]["events"]`` carries the step's :class:`~mindloop.beliefs.Event`/``Utterance`` records with their
witnesses, so a :class:`~mindloop.beliefs.Tracker` can follow the episode; ground truth (``state``: world facts,
``progress``, ``events``: every event, the unwitnessed opening world facts included) is
``info[agent]["ground_truth"]`` only with ``CwahEnv(privileged=True)`` or ``reset(options={"privileged": True})``.

This module is the simulator (the house, where things are put, the actions' effects); the rules' numbers, the
tasks, the episode spec and the observation records are in :mod:`~mindloop.systems.cobel.worlds.cwah_spec`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mindloop.beliefs import Event, EventKind, Fact, Utterance
from mindloop.systems.cobel.worlds.common import Action, Entity, Layout, Seat, StepResult, TransportEnv, coerce_action
from mindloop.systems.cobel.worlds.cwah_spec import (
    CWAH_ACTIONS,
    CWAH_TASKS,
    DISTRACTORS,
    FURNITURE,
    HANDS,
    HOP_STEPS,
    MAX_STEPS,
    SPOTS,
    CwahEpisode,
    CwahObservation,
    PartnerView,
    Seen,
    make_cwah_episode,
)

# Rooms (id, name) and doors: a ring kitchen - livingroom - bedroom - bathroom - kitchen.
_ROOMS = ((1000, "livingroom"), (2000, "kitchen"), (3000, "bedroom"), (4000, "bathroom"))
_DOORS = ((1000, 2000), (1000, 3000), (3000, 4000), (4000, 2000))


@dataclass(frozen=True)
class _House:
    """The static part of every C-WAH scene: rooms, furniture, where it stands, how it is seen."""

    entities: dict[int, Entity]
    room_of: dict[int, int]
    furniture_ids: dict[str, list[int]]
    furniture: list[int]
    containers: list[int]
    rooms: tuple[Entity, ...]
    room_furniture: dict[int, list[tuple[int, bool]]]
    seen: dict[tuple[int, Any], Seen]
    next_id: int


def _make_house() -> _House:
    entities = {rid: Entity.make(rid, rname, "room") for rid, rname in _ROOMS}
    room_of: dict[int, int] = {}
    furniture_ids: dict[str, list[int]] = {}
    room_furniture: dict[int, list[tuple[int, bool]]] = {rid: [] for rid, _ in _ROOMS}
    seen: dict[tuple[int, Any], Seen] = {}
    next_id = 100
    for rid, rname in _ROOMS:
        for fname, kind in FURNITURE[rname]:
            f = entities[next_id] = Entity.make(next_id, fname, kind)
            room_of[next_id] = rid
            furniture_ids.setdefault(fname, []).append(next_id)
            room_furniture[rid].append((next_id, kind == "container"))
            for opened in (False, True):
                state = ("opened" if opened else "closed") if kind == "container" else ""
                seen[(next_id, opened)] = Seen(f, "IN", rid, state)
            next_id += 1
    furniture = sorted(room_of)
    containers = [i for i in furniture if entities[i].kind == "container"]
    rooms = tuple(entities[r] for r, _ in _ROOMS)
    return _House(entities, room_of, furniture_ids, furniture, containers, rooms, room_furniture, seen, next_id)


@dataclass(slots=True)
class _Agent(Seat):
    transit: int | None = None  # next room on the way
    progress: int = 0

    def halt(self) -> None:
        """Stop on the way between rooms: no next room, no steps toward it."""
        self.transit = None
        self.progress = 0


_HOUSE = _make_house()


class CwahEnv(TransportEnv[CwahObservation]):
    """The C-WAH-style world; ``reset(seed=s, options={"episode": CwahEpisode | dict})`` picks the episode.

    Without an ``episode`` option, ``reset(seed=s)`` draws a task and a goal from ``s``. The same episode and
    seed give the same run, byte for byte.
    """

    ENV_NAME = "cwah_v0"
    KINDS = CWAH_ACTIONS
    OBSERVATION = CwahObservation
    EPISODE = CwahEpisode
    episode: CwahEpisode | None
    layout = Layout(tuple(r for r, _ in _ROOMS), _DOORS)
    t = 0

    # ---- episode setup --------------------------------------------------------------------------------------
    def _draw(self, s: int) -> CwahEpisode:
        task = sorted(CWAH_TASKS)[random.Random(f"cwah-task:{s}").randrange(len(CWAH_TASKS))]
        return make_cwah_episode(task, s, len(self.possible_agents))

    def _build(self, ep: CwahEpisode) -> None:
        self.t = 0
        rng = random.Random(f"cwah-scene:{ep.task}:{ep.seed}")
        house = _HOUSE  # rooms and furniture are the same in every episode: built once, shared read-only
        self.entities: dict[int, Entity] = dict(house.entities)
        self.room_of: dict[int, int] = dict(house.room_of)
        self.by_name: dict[str, list[int]] = {}
        furniture_ids = house.furniture_ids
        next_id = house.next_id
        self.is_open: dict[int, bool] = dict.fromkeys(house.containers, False)
        self.loc: dict[int, tuple[str, int]] = {}  # object -> (INSIDE|ON|HELD_BY, holder id or agent index)
        self.contents: dict[int, list[int]] = {i: [] for i in house.furniture}
        goal_targets = {(p.obj, p.target) for p in ep.goal}
        objects: list[tuple[str, tuple[str, ...]]] = []
        for p in ep.goal:
            spots = tuple(s for s in SPOTS[p.obj] if (p.obj, s) not in goal_targets)
            objects.extend((p.obj, spots) for _ in range(p.count))
        for name in sorted({p.obj for p in ep.goal}):  # a few spares of each needed class
            spots = tuple(s for s in SPOTS[name] if (name, s) not in goal_targets)
            objects.extend((name, spots) for _ in range(rng.randint(0, 1)))
        for name in rng.sample(sorted(DISTRACTORS), 5):
            objects.append((name, DISTRACTORS[name]))
        for name, spots in objects:
            holder = rng.choice([fid for spot in spots for fid in furniture_ids[spot]])
            self.entities[next_id] = Entity.make(next_id, name, "object")
            rel = "INSIDE" if self.entities[holder].kind == "container" else "ON"
            self.loc[next_id] = (rel, holder)
            self.contents[holder].append(next_id)
            self.room_of[next_id] = self.room_of[holder]
            self.by_name.setdefault(name, []).append(next_id)  # ids grow: each list is in id order
            next_id += 1
        self._furniture = house.furniture
        self._rooms = house.rooms
        start = rng.choice(_ROOMS)[0]  # the team enters the house together
        self._seat([_Agent(name, start) for name in self.possible_agents])
        self._room_version = dict.fromkeys(self.layout.rooms, 0)
        self._room_furniture = house.room_furniture
        self._seen_memo: dict[tuple[int, Any], Seen] = dict(house.seen)
        self._room_cache: dict[int, tuple[int, tuple[Seen, ...]]] = {}
        self._goal = ep.goal
        self._goal_spec = [(p, "INSIDE" if p.relation == "IN" else "ON", furniture_ids[p.target][0]) for p in ep.goal]
        self.satisfied = self._count_satisfied()

    # ---- stepping -------------------------------------------------------------------------------------------
    def step(self, actions: Mapping[str, Any]) -> StepResult:
        """Apply every live agent's action (in agent order), then observe; missing actions are a no-op.

        Raises :class:`gymnasium.error.ResetNeeded` once the episode has ended (or before ``reset``).
        """
        self._check_running()
        self.t += 1
        t = self.t
        events: list[Event | Utterance] = []
        results: dict[str, tuple[bool, str]] = {}
        kinds, kind_set = self._kinds, self._kind_set
        for name in self.agents:
            raw = actions.get(name)
            if raw is None:
                results[name] = (True, "")
                continue
            act = coerce_action(raw, kinds, kind_set)
            results[name] = self._apply(self._agent[name], act, t, events)
        before = self.satisfied
        if events and any(isinstance(e, Event) and e.kind is EventKind.PUT for e in events):
            self.satisfied = self._count_satisfied()
        self.last_events = tuple(events)
        done = self.satisfied == self._goal_total
        return self._stepped(float(self.satisfied - before), done, not done and t >= MAX_STEPS, results)

    def _apply(self, ag: _Agent, act: Action, t: int, events: list[Event | Utterance]) -> tuple[bool, str]:
        kind = act.kind
        # any action but walking on or talking stops a walk between rooms
        if ag.transit is not None and kind not in ("walk", "send_message"):
            ag.halt()
        if kind in ("turn_left", "turn_right"):
            ag.facing = (ag.facing + (1 if kind == "turn_right" else -1)) % 12
            return True, ""
        if kind == "send_message":
            text = act.text.strip()
            if not text:
                return False, "a message needs text"
            self._say(ag.name, act.text, t, events)
            return True, ""
        target = act.target
        ent = self.entities.get(target) if target is not None else None
        if ent is None:
            return False, f"{kind}: no entity with id {target}"
        if kind == "walk":
            return self._walk(ag, ent, t, events)
        if kind == "grasp":
            return self._grasp(ag, ent, t, events)
        if kind in ("open", "close"):
            return self._open_close(ag, ent, kind == "open", t, events)
        if kind == "put":
            return self._put(ag, act.obj, ent, t, events)
        raise AssertionError(kind)  # pragma: no cover - kinds are checked by coerce_action

    def _walk(self, ag: _Agent, ent: Entity, t: int, events: list[Event | Utterance]) -> tuple[bool, str]:
        if ent.kind == "room":
            if ent.id == ag.room:
                ag.near = None
                ag.halt()
                return True, ""
            nxt = self.layout.next_hop(ag.room, ent.id)
            if ag.transit != nxt:
                ag.transit = nxt
                ag.progress = 0
            ag.near = None
            ag.progress += 1
            if ag.progress >= HOP_STEPS:
                ag.halt()
                self._cross(ag, nxt, t, events)
            return True, ""
        if ag.transit is not None:
            ag.halt()
        if self.room_of.get(ent.id) != ag.room or not self._visible(ent.id):
            return False, f"walk: {ent.ref} is not visible in {self.entities[ag.room].ref}"
        ag.near = ent.id
        return True, ""

    def _visible(self, i: int) -> bool:
        loc = self.loc.get(i)
        if loc is None:
            return True  # furniture
        rel, holder = loc
        if rel == "HELD_BY":
            return False
        return rel == "ON" or self.is_open[holder]

    def _grasp(self, ag: _Agent, ent: Entity, t: int, events: list[Event | Utterance]) -> tuple[bool, str]:
        if ent.kind != "object":
            return False, f"grasp: {ent.ref} cannot be grasped"
        loc = self.loc[ent.id]
        if loc[0] == "HELD_BY":
            return False, f"grasp: {ent.ref} is already held"
        if self.room_of[ent.id] != ag.room or not self._visible(ent.id):
            return False, f"grasp: {ent.ref} is not visible here"
        if ag.near not in (ent.id, loc[1]):
            return False, f"grasp: not close to {ent.ref}"
        if len(ag.holding) >= HANDS:
            return False, "grasp: both hands are full"
        holder = loc[1]
        self.contents[holder].remove(ent.id)
        self.loc[ent.id] = ("HELD_BY", -1)
        ag.holding.append(ent.id)
        self._room_version[ag.room] += 1
        facts = (Fact(ent.ref, "HELD_BY", ag.name), Fact(ent.ref, loc[0], None))
        events.append(Event(t, EventKind.MOVE, ag.name, facts, self._witnesses(ag.room)))
        return True, ""

    def _open_close(
        self, ag: _Agent, ent: Entity, opening: bool, t: int, events: list[Event | Utterance]
    ) -> tuple[bool, str]:
        verb = "open" if opening else "close"
        if ent.kind != "container":
            return False, f"{verb}: {ent.ref} is not a container"
        if self.room_of[ent.id] != ag.room or ag.near != ent.id:
            return False, f"{verb}: not close to {ent.ref}"
        if self.is_open[ent.id] == opening:
            return False, f"{verb}: {ent.ref} is already {'open' if opening else 'closed'}"
        self.is_open[ent.id] = opening
        self._room_version[ag.room] += 1
        facts: tuple[Fact, ...] = (Fact(ent.ref, "STATE", "opened" if opening else "closed"),)
        if opening:
            facts += tuple(Fact(self.entities[o].ref, "INSIDE", ent.ref) for o in self.contents[ent.id])
        kind = EventKind.OPEN if opening else EventKind.CLOSE
        events.append(Event(t, kind, ag.name, facts, self._witnesses(ag.room)))
        return True, ""

    def _put(
        self, ag: _Agent, obj: int | None, ent: Entity, t: int, events: list[Event | Utterance]
    ) -> tuple[bool, str]:
        if obj is None or obj not in ag.holding:
            return False, f"put: not holding object {obj}"
        if ent.kind not in ("surface", "container"):
            return False, f"put: {ent.ref} is neither a surface nor a container"
        if self.room_of[ent.id] != ag.room or ag.near != ent.id:
            return False, f"put: not close to {ent.ref}"
        if ent.kind == "container" and not self.is_open[ent.id]:
            return False, f"put: {ent.ref} is closed"
        rel = "INSIDE" if ent.kind == "container" else "ON"
        ag.holding.remove(obj)
        self.loc[obj] = (rel, ent.id)
        self.contents[ent.id].append(obj)
        self.room_of[obj] = ag.room
        self._room_version[ag.room] += 1
        oref = self.entities[obj].ref
        facts = (Fact(oref, rel, ent.ref), Fact(oref, "HELD_BY", None))
        events.append(Event(t, EventKind.PUT, ag.name, facts, self._witnesses(ag.room)))
        return True, ""

    # ---- goal -----------------------------------------------------------------------------------------------
    def _count_satisfied(self) -> int:
        total = 0
        need = 0
        for p, rel, holder in self._goal_spec:
            have = sum(1 for o in self.contents[holder] if self.entities[o].name == p.obj and self.loc[o][0] == rel)
            total += min(have, p.count)
            need += p.count
        self._goal_total = need
        return total

    def goal_progress(self) -> tuple[int, int]:
        """``(satisfied, required)`` predicate units of the goal."""
        return self.satisfied, self._goal_total

    # ---- observing ------------------------------------------------------------------------------------------
    def _room_view(self, room: int) -> tuple[Seen, ...]:
        version = self._room_version[room]
        cached = self._room_cache.get(room)
        if cached is not None and cached[0] == version:
            return cached[1]
        seen: list[Seen] = []
        memo = self._seen_memo
        is_open = self.is_open
        for fid, is_container in self._room_furniture[room]:
            opened = is_container and is_open[fid]
            seen.append(memo[(fid, opened)])
            if not is_container or opened:
                for o in self.contents[fid]:
                    item = memo.get((o, fid))
                    if item is None:
                        item = memo[(o, fid)] = Seen(self.entities[o], "INSIDE" if is_container else "ON", fid)
                    seen.append(item)
        view = tuple(seen)
        self._room_cache[room] = (version, view)
        return view

    def _observe(self, name: str) -> CwahObservation:
        ag = self._agent[name]
        ents = self.entities
        room = ag.room
        partners = tuple(PartnerView(o.name, tuple([ents[i] for i in o.holding]), o.near) for o in self._partners(ag))
        return CwahObservation(
            self.t,
            name,
            ents[ag.room],
            ag.near,
            tuple([ents[i] for i in ag.holding]),
            self._room_view(room),
            partners,
            self._messages(name),
            self._goal,
            self._rooms,
            _DOORS,
            ag.transit,
        )

    def _look(self, ag: _Agent, t: int) -> Event:
        facts = [Fact(ag.name, "AT", self.entities[ag.room].ref)]
        for s in self._room_view(ag.room):
            if s.entity.kind == "object":
                facts.append(Fact(s.entity.ref, s.relation, self.entities[s.holder].ref))
            else:
                facts.append(Fact(s.entity.ref, "IN", self.entities[s.holder].ref))
                if s.state:
                    facts.append(Fact(s.entity.ref, "STATE", s.state))
        facts += self._partners_holding(ag)
        return Event(t, EventKind.OBSERVE, ag.name, tuple(facts), frozenset({ag.name}))

    def _ground_truth(self) -> dict[str, Any]:
        return {"state": self.world_facts(), "progress": self.goal_progress(), "events": self.last_events}

    def world_facts(self) -> list[Fact]:
        """Ground truth as belief-core facts (privileged: for trackers and metrics, never for agents)."""
        ents = self.entities
        facts: list[Fact] = []
        for fid in self._furniture:
            f = ents[fid]
            facts.append(Fact(f.ref, "IN", ents[self.room_of[fid]].ref))
            if f.kind == "container":
                facts.append(Fact(f.ref, "STATE", "opened" if self.is_open[fid] else "closed"))
        holder_of = {o: a.name for a in self._agents_list for o in a.holding}
        for oid, (rel, holder) in sorted(self.loc.items()):
            if rel == "HELD_BY":
                facts.append(Fact(ents[oid].ref, "HELD_BY", holder_of[oid]))
            else:
                facts.append(Fact(ents[oid].ref, rel, ents[holder].ref))
        return facts + self._agents_at()

    def render(self) -> str | None:
        """An ``ansi`` text picture: each room with its agents and what lies where."""
        lines = [f"t={self.t} goal {self.satisfied}/{self._goal_total}: " + ", ".join(map(str, self._goal))]
        for room in self._rooms:
            who = [
                f"{a.name}{'[' + ','.join(self.entities[i].ref for i in a.holding) + ']' if a.holding else ''}"
                for a in self._agents_list
                if a.room == room.id
            ]
            lines.append(f"{room.ref}: agents {', '.join(who) or '-'}")
            for fid in self._furniture:
                if self.room_of[fid] != room.id:
                    continue
                f = self.entities[fid]
                state = "" if f.kind != "container" else (" (open)" if self.is_open[fid] else " (closed)")
                stuff = ", ".join(self.entities[o].ref for o in self.contents[fid])
                lines.append(f"  {f.ref}{state}: {stuff}")
        return "\n".join(lines)

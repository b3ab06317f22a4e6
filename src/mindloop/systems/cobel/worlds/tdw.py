"""A TDW-MAT-style transport world (ThreeDWorld Multi-Agent Transport, CoBel-World appendix B.1) for PettingZoo.

Two to four agents carry as many of the 10 target objects as they can to the bed within a budget of 3,000
frames. Food tasks use apples, bananas, oranges, bread, loaf bread and burgers with bowls, plates and tea trays;
stuff tasks use calculators, mice, pens, lighters, purses and iPhones with plastic, wooden and wicker baskets.
Low-capacity episodes have 2 containers, high-capacity ones 5; a container holds 3 objects, an agent has two
hands and may hold one container. The house is a 2×3 grid of rooms (living room, office, kitchen, bedroom) 8 m
across, each seen in four quarters: an agent sees the quarter it faces when it enters and turns (90° at a time)
to see the others, so each room it knows is explored ``none``, ``part`` or ``all``.

Time is simulated frames. Every action costs frames (:data:`FRAME_COSTS`; moving costs
:data:`FRAMES_PER_METER` per metre): an agent is *ready* when its last action has finished, and ``step`` takes
actions only from ready agents, then advances the clock to the next moment some agent finishes. An action's
effect happens when it finishes; one that would finish after frame 3,000 never does.

Ground truth (``state``: world facts, ``transported``, ``events``: every event, witnessed or not) is
``info[agent]["ground_truth"]`` only with ``TdwEnv(privileged=True)`` or ``reset(options={"privileged": True})``.

This module is the simulator; the rules' numbers, the episode spec and the observation records are in
:mod:`~mindloop.systems.cobel.worlds.tdw_spec`.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mindloop.beliefs import Event, EventKind, Fact, Utterance
from mindloop.systems.cobel.worlds.common import Action, Entity, Layout, Seat, StepResult, TransportEnv, coerce_action
from mindloop.systems.cobel.worlds.tdw_spec import (
    CONTAINER_CAPACITY,
    CONTAINERS_PER_CAPACITY,
    FRAME_BUDGET,
    FRAME_COSTS,
    FRAMES_PER_METER,
    HANDS,
    N_TARGETS,
    ROOM_SIZE,
    TDW_ACTIONS,
    TDW_CATEGORIES,
    HeldView,
    TdwEpisode,
    TdwObservation,
    TdwPartnerView,
    TdwSeen,
    exploration_state,
    quarter,
)

_ROOM_WEIGHTS: Mapping[str, Mapping[str, int]] = {
    "food": {"kitchen": 4, "livingroom": 2, "office": 1, "bedroom": 1},
    "stuff": {"office": 4, "livingroom": 2, "bedroom": 2, "kitchen": 1},
}
_EXTRA_ROOMS = ("livingroom", "office", "kitchen")
_GRID_COLS = 3


@dataclass(slots=True)
class _TAgent(Seat):
    seen: dict[int, set[int]] = field(kw_only=True)  # quarters seen, per room
    pos: tuple[float, float] = (ROOM_SIZE / 2, ROOM_SIZE / 2)
    busy_until: int = 0
    pending: Action | None = None


class TdwEnv(TransportEnv[TdwObservation]):
    """The TDW-MAT-style world; ``reset(options={"episode": TdwEpisode | dict})`` picks the episode."""

    ENV_NAME = "tdw_mat_v0"
    KINDS = TDW_ACTIONS
    OBSERVATION = TdwObservation
    EPISODE = TdwEpisode
    CHECK_EPISODE = True
    episode: TdwEpisode | None
    frame = 0

    # ---- setup ----------------------------------------------------------------------------------------------
    def _extra(self) -> dict[str, Any]:
        """Every info carries the frame."""
        return {"frame": self.frame}

    def _draw(self, s: int) -> TdwEpisode:
        rng = random.Random(f"tdw-task:{s}")
        return TdwEpisode(rng.choice(("food", "stuff")), rng.choice(("low", "high")), len(self.possible_agents), s)

    def _build(self, ep: TdwEpisode) -> None:
        self.frame = 0
        rng = random.Random(f"tdw-scene:{ep.category}:{ep.capacity}:{ep.seed}")
        types = ["livingroom", "office", "kitchen", "bedroom", *(rng.choice(_EXTRA_ROOMS) for _ in range(2))]
        rng.shuffle(types)
        room_ids = [1000 * (k + 1) for k in range(len(types))]
        self.entities: dict[int, Entity] = {
            r: Entity.make(r, name, "room") for r, name in zip(room_ids, types, strict=True)
        }
        self._room_ids = tuple(room_ids)
        self._grid = {rid: (k % _GRID_COLS, k // _GRID_COLS) for k, rid in enumerate(room_ids)}
        doors = []
        for k, rid in enumerate(room_ids):
            if k % _GRID_COLS + 1 < _GRID_COLS:
                doors.append((rid, room_ids[k + 1]))
            if k + _GRID_COLS < len(room_ids):
                doors.append((rid, room_ids[k + _GRID_COLS]))
        self.doors = tuple(doors)
        self.layout = Layout(self._room_ids, self.doors)
        self.room_of: dict[int, int] = {}
        self.pos: dict[int, tuple[float, float]] = {}
        self.inside: dict[int, int] = {}  # object -> container it is in
        self.held_by: dict[int, str] = {}
        self.on_bed: set[int] = set()

        def put(ident: int, name: str, kind: str, room: int) -> int:
            """A new entity ``ident`` in ``room``, at a random spot."""
            self.entities[ident] = Entity.make(ident, name, kind)
            self.room_of[ident] = room
            self.pos[ident] = (round(rng.uniform(0.5, ROOM_SIZE - 0.5), 2), round(rng.uniform(0.5, ROOM_SIZE - 0.5), 2))
            return ident

        # the draws' order (each thing's kind, then its room, then its spot) makes the scene: keep it
        self.bed = self.entities[put(500, "bed", "bed", room_ids[types.index("bedroom")])]
        targets, containers = TDW_CATEGORIES[ep.category]
        weights = [_ROOM_WEIGHTS[ep.category][name] for name in types]
        self.targets = [
            put(600 + k, rng.choice(targets), "object", rng.choices(room_ids, weights)[0]) for k in range(N_TARGETS)
        ]
        self.containers = [
            put(600 + N_TARGETS + k, rng.choice(containers), "container", rng.choice(room_ids))
            for k in range(CONTAINERS_PER_CAPACITY[ep.capacity])
        ]
        self.contents: dict[int, list[int]] = {c: [] for c in self.containers}
        self._goal = tuple(sorted(Counter(self.entities[t].name for t in self.targets).items()))
        self._rooms = tuple(self.entities[r] for r in room_ids)
        team = []
        for name in self.possible_agents:
            ag = _TAgent(name, rng.choice(room_ids), seen={r: set() for r in self._room_ids})
            ag.facing = rng.randrange(4)
            ag.seen[ag.room].add(ag.facing)
            team.append(ag)
        self._seat(team)

    # ---- stepping -------------------------------------------------------------------------------------------
    def step(self, actions: Mapping[str, Any]) -> StepResult:
        """Start the ready agents' actions, advance to the next finish, and apply the actions that finish then.

        Raises :class:`gymnasium.error.ResetNeeded` once the episode has ended (or before ``reset``).
        """
        self._check_running()
        results: dict[str, tuple[bool, str]] = {a: (True, "") for a in self.agents}
        for ag in self._agents_list:
            if ag.busy_until > self.frame:
                continue
            raw = actions.get(ag.name)
            act = Action("wait") if raw is None else coerce_action(raw, TDW_ACTIONS, self._kind_set)
            why = self._precheck(ag, act)
            if why:
                ag.pending = None
                ag.busy_until = self.frame + FRAME_COSTS["failed"]
                results[ag.name] = (False, why)
            else:
                ag.pending = act
                ag.busy_until = self.frame + self._cost(ag, act)
        nxt = min(ag.busy_until for ag in self._agents_list)
        before = len(self.on_bed)
        events: list[Event | Utterance] = []
        if nxt > FRAME_BUDGET:
            self.frame = FRAME_BUDGET
        else:
            self.frame = nxt
            for ag in self._agents_list:
                if ag.busy_until == nxt and ag.pending is not None:
                    act, ag.pending = ag.pending, None
                    why = self._precheck(ag, act) or self._finish(ag, act, events)
                    if why:
                        results[ag.name] = (False, why)
        self.last_events = tuple(events)
        done = len(self.on_bed) == N_TARGETS
        truncated = not done and self.frame >= FRAME_BUDGET
        return self._stepped(float(len(self.on_bed) - before), done, truncated, results)

    def _visible_to(self, ag: _TAgent, i: int) -> bool:
        if i in self.held_by or i in self.inside or i in self.on_bed:
            return False
        return self.room_of.get(i) == ag.room and quarter(self.pos[i]) in ag.seen[ag.room]

    def _precheck(self, ag: _TAgent, act: Action) -> str:
        kind = act.kind
        if kind in ("turn_left", "turn_right", "wait"):
            return ""
        if kind == "send_message":
            return "" if act.text.strip() else "a message needs text"
        if kind == "drop":
            return "" if ag.holding else "drop: holding nothing"
        if kind == "put_in":
            conts = [h for h in ag.holding if h in self.contents]
            objs = [h for h in ag.holding if h not in self.contents]
            if not conts or not objs:
                return "put_in: needs a container in one hand and an object in the other"
            if len(self.contents[conts[0]]) >= CONTAINER_CAPACITY:
                return f"put_in: {self.entities[conts[0]].ref} is full"
            return ""
        ent = self.entities.get(act.target) if act.target is not None else None
        if ent is None:
            return f"{kind}: no entity with id {act.target}"
        if kind == "move":
            if ent.kind == "room" or ent.kind == "bed":
                return ""
            return "" if self._visible_to(ag, ent.id) else f"move: {ent.ref} is not visible here"
        if kind == "grasp":
            if ent.kind not in ("object", "container"):
                return f"grasp: {ent.ref} cannot be grasped"
            if not self._visible_to(ag, ent.id):
                return f"grasp: {ent.ref} is not visible here"
            if ag.near != ent.id:
                return f"grasp: not close to {ent.ref}"
            if len(ag.holding) >= HANDS:
                return "grasp: both hands are full"
            if ent.kind == "container" and any(h in self.contents for h in ag.holding):
                return "grasp: already holding a container"
            return ""
        raise AssertionError(kind)  # pragma: no cover

    def _cost(self, ag: _TAgent, act: Action) -> int:
        if act.kind != "move":
            return FRAME_COSTS[act.kind]
        assert act.target is not None
        return max(1, math.ceil(self._move_distance(ag, act.target) * FRAMES_PER_METER))

    def _move_goal(self, ag: _TAgent, target: int) -> tuple[int, tuple[float, float], int | None]:
        """Where one move action toward ``target`` ends: room, position, and the entity it is near."""
        ent = self.entities[target]
        room = target if ent.kind == "room" else self.room_of[target]
        centre = (ROOM_SIZE / 2, ROOM_SIZE / 2)
        if room != ag.room:
            return self.layout.next_hop(ag.room, room), centre, None
        if ent.kind == "room":
            return room, centre, None
        return room, self.pos[target], target

    def _move_distance(self, ag: _TAgent, target: int) -> float:
        room, pos, _ = self._move_goal(ag, target)  # another room's move ends at its centre, a room further on
        return math.dist(ag.pos, pos) + (ROOM_SIZE if room != ag.room else 0.0)

    def _finish(self, ag: _TAgent, act: Action, events: list[Event | Utterance]) -> str:
        """Apply an action that finishes now (its precheck passed again); returns ``""`` (it cannot fail here)."""
        kind, t = act.kind, self.frame
        if kind == "move":
            assert act.target is not None
            self._finish_move(ag, act.target, t, events)
        elif kind in ("turn_left", "turn_right"):
            ag.facing = (ag.facing + (1 if kind == "turn_right" else -1)) % 4
            if ag.facing not in ag.seen[ag.room]:
                ag.seen[ag.room].add(ag.facing)
                events.append(self._look(ag, t))
        elif kind == "send_message":
            self._say(ag.name, act.text, t, events)
        elif kind == "grasp":
            assert act.target is not None
            self._finish_grasp(ag, self.entities[act.target], t, events)
        elif kind == "put_in":
            self._finish_put_in(ag, t, events)
        elif kind == "drop":
            self._finish_drop(ag, t, events)
        elif kind != "wait":
            raise AssertionError(kind)  # pragma: no cover
        return ""

    def _finish_move(self, ag: _TAgent, target: int, t: int, events: list[Event | Utterance]) -> None:
        """Walk towards ``target``: through a door into the next room (seeing the quarter ahead), or up to it."""
        room, pos, near = self._move_goal(ag, target)
        if room != ag.room:
            (x0, y0), (x1, y1) = self._grid[ag.room], self._grid[room]
            ag.facing = {(1, 0): 0, (0, 1): 1, (-1, 0): 2, (0, -1): 3}[(x1 - x0, y1 - y0)]
            ag.seen[room].add(ag.facing)  # the quarter ahead, seen on the way in
            self._cross(ag, room, t, events)
        ag.pos = pos
        ag.near = near
        if near is not None:
            q = quarter(pos)
            if q not in ag.seen[room]:
                ag.seen[room].add(q)
                events.append(self._look(ag, t))

    def _finish_grasp(self, ag: _TAgent, ent: Entity, t: int, events: list[Event | Utterance]) -> None:
        """Pick ``ent`` up into a free hand."""
        ag.holding.append(ent.id)
        self.held_by[ent.id] = ag.name
        facts = (Fact(ent.ref, "HELD_BY", ag.name), Fact(ent.ref, "IN", None))
        events.append(Event(t, EventKind.MOVE, ag.name, facts, self._witnesses(ag.room)))

    def _finish_put_in(self, ag: _TAgent, t: int, events: list[Event | Utterance]) -> None:
        """Put the object in one hand into the container in the other."""
        cont = next(h for h in ag.holding if h in self.contents)
        obj = next(h for h in ag.holding if h not in self.contents)
        ag.holding.remove(obj)
        del self.held_by[obj]
        self.contents[cont].append(obj)
        self.inside[obj] = cont
        oref, cref = self.entities[obj].ref, self.entities[cont].ref
        put = (Fact(oref, "CONTAINED_BY", cref), Fact(oref, "HELD_BY", None))
        events.append(Event(t, EventKind.PUT, ag.name, put, self._witnesses(ag.room)))

    def _finish_drop(self, ag: _TAgent, t: int, events: list[Event | Utterance]) -> None:
        """Drop everything held: onto the bed when standing at it (a container is emptied and used up), else here."""
        at_bed = ag.room == self.room_of[self.bed.id] and ag.near == self.bed.id
        facts: list[Fact] = []
        for h in list(ag.holding):
            ag.holding.remove(h)
            del self.held_by[h]
            ref = self.entities[h].ref
            facts.append(Fact(ref, "HELD_BY", None))
            if at_bed:
                for c in self.contents.get(h, ()):
                    self.on_bed.add(c)
                    del self.inside[c]
                    cref = self.entities[c].ref
                    facts += [Fact(cref, "CONTAINED_BY", None), Fact(cref, "ON", self.bed.ref)]
                if h in self.contents:
                    self.contents[h] = []
                    self.room_of.pop(h, None)  # containers are used up at the bed
                    facts.append(Fact(ref, "IN", None))
                else:
                    self.on_bed.add(h)
                    facts.append(Fact(ref, "ON", self.bed.ref))
            else:
                self.pos[h] = ag.pos
                facts.append(Fact(ref, "IN", self.entities[ag.room].ref))
        events.append(Event(t, EventKind.PUT, ag.name, tuple(facts), self._witnesses(ag.room)))

    # ---- observing ------------------------------------------------------------------------------------------
    def _held(self, ids: list[int]) -> tuple[HeldView, ...]:
        ents = self.entities
        return tuple(HeldView(ents[i], tuple(ents[c] for c in self.contents.get(i, ()))) for i in ids)

    def _seen(self, ag: _TAgent) -> tuple[TdwSeen, ...]:
        ents = self.entities
        room = ag.room
        out = []
        for i in self.room_of:
            if self._visible_to(ag, i):
                out.append(TdwSeen(ents[i], room, self.pos[i], tuple(ents[c] for c in self.contents.get(i, ()))))
        if self.bed.id in {s.entity.id for s in out}:
            out.extend(TdwSeen(ents[o], room, self.pos[self.bed.id], (), True) for o in sorted(self.on_bed))
        return tuple(out)

    def _observe(self, name: str) -> TdwObservation:
        ag = self._agent[name]
        partners = tuple(TdwPartnerView(o.name, self._held(o.holding)) for o in self._partners(ag))
        return TdwObservation(
            self.frame,
            ag.busy_until <= self.frame,
            ag.name,
            self.entities[ag.room],
            ag.pos,
            ag.near,
            self._held(ag.holding),
            self._seen(ag),
            exploration_state(len(ag.seen[ag.room])),
            tuple(sorted(ag.seen[ag.room])),
            partners,
            self._messages(name),
            self._goal,
            self.bed,
            self.room_of[self.bed.id],
            self._rooms,
            self.doors,
            len(self.on_bed),
        )

    def _look(self, ag: _TAgent, t: int) -> Event:
        room_ref = self.entities[ag.room].ref
        facts = [Fact(ag.name, "AT", room_ref), Fact(room_ref, "EXPLORED", exploration_state(len(ag.seen[ag.room])))]
        for s in self._seen(ag):
            ref = s.entity.ref
            if s.on_bed:
                facts.append(Fact(ref, "ON", self.bed.ref))
            else:
                facts.append(Fact(ref, "IN", room_ref))
                facts.extend(Fact(c.ref, "CONTAINED_BY", ref) for c in s.contents)
        facts += self._partners_holding(ag)
        return Event(t, EventKind.OBSERVE, ag.name, tuple(facts), frozenset({ag.name}))

    def _ground_truth(self) -> dict[str, Any]:
        return {"state": self.world_facts(), "transported": len(self.on_bed), "events": self.last_events}

    def transport_rate(self) -> float:
        """Fraction of the 10 targets on the bed."""
        return len(self.on_bed) / N_TARGETS

    def world_facts(self) -> list[Fact]:
        """Ground truth as belief-core facts (privileged)."""
        ents = self.entities
        facts = [Fact(self.bed.ref, "IN", ents[self.room_of[self.bed.id]].ref)]
        for i in [*self.targets, *self.containers]:
            ref = ents[i].ref
            if i in self.on_bed:
                facts.append(Fact(ref, "ON", self.bed.ref))
            elif i in self.held_by:
                facts.append(Fact(ref, "HELD_BY", self.held_by[i]))
            elif i in self.inside:
                facts.append(Fact(ref, "CONTAINED_BY", ents[self.inside[i]].ref))
            elif i in self.room_of:
                facts.append(Fact(ref, "IN", ents[self.room_of[i]].ref))
        return facts + self._agents_at()

    def render(self) -> str | None:
        """An ``ansi`` text picture of rooms, agents and where the targets are."""
        lines = [f"frame {self.frame}/{FRAME_BUDGET}, transported {len(self.on_bed)}/{N_TARGETS}"]
        for room in self._rooms:
            here = [self.entities[i].ref for i, r in self.room_of.items() if r == room.id and i not in self.held_by]
            who = [a.name for a in self._agents_list if a.room == room.id]
            lines.append(f"{room.ref}: agents {', '.join(who) or '-'}; {', '.join(here) or '-'}")
        return "\n".join(lines)

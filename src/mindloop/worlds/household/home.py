"""The state of a home and the queries on it: rooms, places, items, people, what is open, on, held, felt.

:class:`Home` is built from a :class:`~mindloop.worlds.household.setup.WorldSetup`; it answers questions
(where is the apple, who witnesses events in the kitchen, what can be seen there) and makes the events and
failures the actions in :mod:`mindloop.worlds.household.world` return. Nothing in this module changes the
state except through those actions. What a home is made of (places, items, snapshots, the per-layout frame) is in
:mod:`~mindloop.worlds.household.entities`.

Why this module is longer than 600 lines: it is one class, the state of a home and the queries and event-making
helpers on it, which the verbs in ``world.py`` all share. Its parts (construction, queries, events, name resolution,
copies and views) are each short; spreading one class's private state over several modules would make it harder,
not easier, to see what a verb may touch.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any, Self

from mindloop.beliefs import Event, EventKind, Fact, Source
from mindloop.errors import InvalidArgumentError, UnknownNameError
from mindloop.worlds.household.actions import Action, ArgKind, normalize_name
from mindloop.worlds.household.catalog import ITEM_KINDS, PLURAL_KINDS, ItemKind
from mindloop.worlds.household.characters import CHARACTERS, ROBOT_CHARACTER, Character
from mindloop.worlds.household.entities import Item, Place, WorldSnapshot, dressed_name, home_frame
from mindloop.worlds.household.layouts import Layout
from mindloop.worlds.household.layouts import layout as layout_named
from mindloop.worlds.household.results import Failure, FailureKind, StepResult, WorldEvent
from mindloop.worlds.household.setup import WorldSetup
from mindloop.worlds.household.vocab import (
    AT,
    CONTAINS,
    ENVIRONMENT,
    FEELS,
    HOUSE,
    OPEN,
    POSTURE,
    POWER,
    ROBOT,
    ROOM,
    STATE,
    SWITCH,
    EntityKind,
    Prop,
)

HANDS = 2
"""Hands per agent: at most this many things held at once."""


class Home:
    """A home and everyone in it, as state; :class:`~mindloop.worlds.household.world.World` adds the actions."""

    def __init__(
        self,
        setup: WorldSetup,
        *,
        layout: Layout | None = None,
        item_kinds: Mapping[str, ItemKind] | None = None,
    ) -> None:
        lay = layout if layout is not None else layout_named(setup.layout)
        self.layout = lay
        self.setup = setup
        kinds: Mapping[str, ItemKind] = {**ITEM_KINDS, **item_kinds} if item_kinds else ITEM_KINDS
        static = home_frame(lay, setup.place_ids)
        self._kind: dict[str, EntityKind] = dict(static.kinds)
        self.room_names: dict[str, str] = static.room_names
        self.places: dict[str, Place] = static.places
        self._room_places: dict[str, tuple[str, ...]] = static.room_places
        self._facts = static.facts
        self._init_agents(setup)
        self._init_items(setup, kinds)
        self._init_switches(setup)
        self._init_people(setup)
        self._state: dict[str, str] = {}
        self.power = setup.power
        self.camera: frozenset[str] = frozenset(setup.camera) if setup.camera is not None else frozenset(self._occ)
        for room in self.camera:
            if room not in self._occ:
                raise InvalidArgumentError(f"camera room {room!r} is not a room of {lay.name!r}")
        self.t = 0
        self._wit: dict[str, frozenset[str]] = {}

    # ---- construction helpers -------------------------------------------------------------------------------
    def _init_agents(self, setup: WorldSetup) -> None:
        """The humans where the setup puts them, and the robot (in its room or at the layout's dock)."""
        self.chars: dict[str, Character] = {}
        self._room: dict[str, str] = {}
        self._near: dict[str, str | None] = {}
        self._sitting: dict[str, str | None] = {}
        self._hands: dict[str, list[str]] = {}
        self._facing: dict[str, str] = {}
        self._left: dict[str, set[str]] = {}
        self._occ: dict[str, set[str]] = {r: set() for r in self.room_names}
        robot_room = setup.robot_room or self.layout.dock
        avatars = dict(setup.avatars)
        for cid, room in setup.humans:
            body = avatars.get(cid, cid)
            if cid == ROBOT or body not in CHARACTERS:
                raise UnknownNameError(f"unknown character {body!r} (known: {', '.join(sorted(CHARACTERS))})")
            char = CHARACTERS[body]
            self._add_agent(char if body == cid else replace(char, id=cid, name=cid.capitalize()), room)
        self._add_agent(ROBOT_CHARACTER, robot_room)

    def _init_items(self, setup: WorldSetup, kinds: Mapping[str, ItemKind]) -> None:
        """The layout's clutter (unless the setup turns it off), water in the sink, then the setup's items."""
        self.items: dict[str, Item] = {}
        self._loc: dict[str, str] = {}
        self._on: dict[str, list[str]] = {}
        placements: list[tuple[str, str, str]] = []
        given = {i for i, _, _ in setup.items}
        if setup.clutter:
            placements += [(k, k, where) for k, where in self.layout.clutter if k not in given]
        if "sink" in self.places and "water" not in given:
            placements.append(("water", "water", "sink"))
        placements += list(setup.items)
        for iid, kind, _ in placements:
            spec = kinds.get(kind)
            if spec is None:
                raise UnknownNameError(f"unknown item kind {kind!r} for item {iid!r}")
            self._claim(iid, EntityKind.ITEM)
            self.items[iid] = Item(iid, kind, dressed_name(iid, kind, spec.name), spec.props)
        for iid, _, where in placements:
            self._set_down(iid, where)
        self._taken_from: dict[str, str] = {}

    def _set_down(self, iid: str, where: str) -> None:
        """Put a new item at its starting location (a room means the room's floor corner)."""
        holder_kind = self._kind.get(where)
        if holder_kind is None:
            raise InvalidArgumentError(f"item {iid!r} is set at unknown location {where!r}")
        if holder_kind is EntityKind.ROOM:
            where = f"{where}_corner"
        elif holder_kind is EntityKind.ITEM and Prop.SURFACE not in self.items[where].props:
            raise InvalidArgumentError(f"item {iid!r} cannot sit on {where!r}, which is not a surface")
        self._loc[iid] = where
        self._on.setdefault(where, []).append(iid)
        if holder_kind is EntityKind.AGENT:
            if len(self._hands[where]) >= HANDS:
                raise InvalidArgumentError(f"{where!r} cannot hold {iid!r}: both hands are full")
            self._hands[where].append(iid)

    def _init_switches(self, setup: WorldSetup) -> None:
        """Everything that opens starts closed, everything switchable off, every cup empty, unless the setup says."""
        self._open: dict[str, bool] = {}
        self._switch: dict[str, bool] = {}
        for eid, props in [(p.id, p.props) for p in self.places.values()] + [
            (i.id, i.props) for i in self.items.values()
        ]:
            if Prop.OPENABLE in props:
                self._open[eid] = False
            if Prop.SWITCHABLE in props:
                self._switch[eid] = False
        self._contains: dict[str, str | None] = {i.id: None for i in self.items.values() if Prop.CONTAINER in i.props}
        starts: list[tuple[dict[str, Any], dict[str, Any], str]] = [
            (dict.fromkeys(setup.opened, True), self._open, "open: it does not open"),
            (dict.fromkeys(setup.switched_on, True), self._switch, "switched on: it has no switch"),
            (dict(setup.filled), self._contains, "filled: it is not a cup or glass"),
        ]
        for values, state, why in starts:
            for eid, value in values.items():
                if eid not in state:
                    raise InvalidArgumentError(f"{eid!r} cannot start {why}")
                state[eid] = value

    def _init_people(self, setup: WorldSetup) -> None:
        """How people feel and who sits where at the start."""
        self._feels: dict[str, str | None] = {}
        for who, feeling in setup.feelings:
            if who not in self.chars:
                raise InvalidArgumentError(f"feeling for unknown character {who!r}")
            self._feels[who] = feeling
        for who, seat in setup.sitting:
            if who not in self.chars or seat not in self.places or Prop.SITTABLE not in self.places[seat].props:
                raise InvalidArgumentError(f"{who!r} cannot start sitting on {seat!r}")
            if self.places[seat].room != self._room[who]:
                raise InvalidArgumentError(f"{who!r} cannot sit on {seat!r}: it is in another room")
            self._sitting[who] = seat
            self._near[who] = seat

    def _claim(self, eid: str, kind: EntityKind) -> None:
        if not eid or eid != normalize_name(eid):
            raise InvalidArgumentError(f"invalid id {eid!r}: ids are lower-case snake_case")
        if eid in self._kind or eid in (ENVIRONMENT, HOUSE):
            raise InvalidArgumentError(f"id {eid!r} is used twice in this home")
        self._kind[eid] = kind

    def _f(self, subject: str, relation: str, value: str | None) -> Fact:
        """The fact ``(subject, relation, value)``, built once per home layout."""
        key = (subject, relation, value)
        fact = self._facts.get(key)
        if fact is None:
            fact = self._facts[key] = Fact(subject, relation, value)
        return fact

    def _add_agent(self, char: Character, room: str) -> None:
        if room not in self._occ:
            raise InvalidArgumentError(f"{char.id!r} cannot start in {room!r}: not a room of {self.layout.name!r}")
        self._claim(char.id, EntityKind.AGENT)
        self.chars[char.id] = char
        self._room[char.id] = room
        self._near[char.id] = None
        self._sitting[char.id] = None
        self._hands[char.id] = []
        self._facing[char.id] = "forward"
        self._left[char.id] = set()
        self._occ[room].add(char.id)

    # ---- queries --------------------------------------------------------------------------------------------
    @property
    def humans(self) -> list[str]:
        """Ids of the humans, in setup order."""
        return [c for c in self.chars if c != ROBOT]

    @property
    def rooms(self) -> list[str]:
        """Room ids in layout order."""
        return list(self.room_names)

    def kind_of(self, eid: str) -> EntityKind | None:
        """Which namespace ``eid`` belongs to, or ``None`` if nothing in this home has that id."""
        return self._kind.get(eid)

    def room_of(self, eid: str) -> str | None:
        """The room an entity is in (a room is in itself); ``None`` for an unknown id."""
        kind = self._kind.get(eid)
        if kind is EntityKind.ITEM:
            holder = self._bottom(eid)
            return self.places[holder].room if holder in self.places else self._room[holder]
        if kind is EntityKind.PLACE:
            return self.places[eid].room
        if kind is EntityKind.AGENT:
            return self._room[eid]
        if kind is EntityKind.ROOM:
            return eid
        return None

    def agent_room(self, agent: str) -> str:
        """The room an agent is in."""
        return self._room[agent]

    def location(self, item: str) -> str:
        """Where an item is: a place id, an item id it sits on, or the agent holding it."""
        return self._loc[item]

    def base_place(self, item: str) -> str | None:
        """The place an item ultimately rests on (through boards and plates); ``None`` while someone holds it."""
        holder = self._bottom(item)
        return holder if holder in self.places else None

    def holder_of(self, item: str) -> str | None:
        """The agent holding an item (directly or on a board it carries), or ``None``."""
        holder = self._bottom(item)
        return holder if holder in self.chars else None

    def _bottom(self, item: str) -> str:
        """The place or agent under an item, through the items (boards, plates) between."""
        holder = self._loc[item]
        while self._kind[holder] is EntityKind.ITEM:
            holder = self._loc[holder]
        return holder

    def on(self, holder: str) -> tuple[str, ...]:
        """Items directly on or in a place, on an item, or held by an agent."""
        return tuple(self._on.get(holder, ()))

    def holding(self, agent: str) -> tuple[str, ...]:
        """Items an agent holds."""
        return tuple(self._hands[agent])

    def occupants(self, room: str) -> frozenset[str]:
        """Agents in a room (the robot included when it is there)."""
        return frozenset(self._occ[room])

    def is_open(self, eid: str) -> bool:
        """Whether something that opens is open."""
        return self._open.get(eid, False)

    def is_on(self, eid: str) -> bool:
        """Whether something switchable is on (a running faucet, a lit candle)."""
        return self._switch.get(eid, False)

    def contents(self, cup: str) -> str | None:
        """The liquid a cup holds, or ``None``."""
        return self._contains.get(cup)

    def feeling(self, agent: str) -> str | None:
        """A human's current bodily state (``thirsty``), or ``None``."""
        return self._feels.get(agent)

    def sitting(self, agent: str) -> str | None:
        """The place an agent sits or lies on, or ``None`` when standing."""
        return self._sitting[agent]

    def near(self, agent: str) -> str | None:
        """What an agent last walked up to in its room."""
        return self._near[agent]

    def item_state(self, item: str) -> str | None:
        """``cut``/``cooked`` once an item has been cut or cooked."""
        return self._state.get(item)

    def blocking(self, room: str) -> str | None:
        """An obstacle in a room's doorway (it stops wheelchair users going in or out), or ``None``."""
        return next((i for i in self._on.get(f"{room}_doorway", ()) if Prop.OBSTACLE in self.items[i].props), None)

    def sees(self, agent: str, room: str) -> bool:
        """Whether ``agent`` witnesses what happens in ``room`` (it is there; for the robot, or its camera is)."""
        return self._room[agent] == room or (agent == ROBOT and room in self.camera)

    def witnesses(self, room: str) -> frozenset[str]:
        """Everyone who sees events in ``room``: its occupants, plus the robot if its camera covers the room."""
        w = self._wit.get(room)
        if w is None:
            occ = self._occ[room]
            w = frozenset(occ | {ROBOT}) if room in self.camera else frozenset(occ)
            self._wit[room] = w
        return w

    def name(self, eid: str) -> str:
        """Display name: ``kitchen table``, ``apple``, ``Alice``, ``the robot``."""
        kind = self._kind.get(eid)
        if kind is EntityKind.PLACE:
            return self.places[eid].name
        if kind is EntityKind.ITEM:
            return self.items[eid].name
        if kind is EntityKind.AGENT:
            return self.chars[eid].name
        if kind is EntityKind.ROOM:
            return self.room_names[eid]
        return eid

    def plural(self, eid: str) -> bool:
        """Whether an item's name is plural (``keys``, ``headphones``)."""
        item = self.items.get(eid)
        return item is not None and item.kind in PLURAL_KINDS

    def the(self, eid: str) -> str:
        """Name with its article: ``the kitchen table``, ``Alice``, ``the robot``."""
        if self._kind.get(eid) is EntityKind.AGENT:
            return self.chars[eid].name
        return f"the {self.name(eid)}"

    def where(self, holder: str) -> str:
        """How a location reads in a sentence: ``on the kitchen table``, ``in the fridge``, ``with Alice``."""
        kind = self._kind.get(holder)
        if kind is EntityKind.PLACE:
            place = self.places[holder]
            if Prop.FLOOR in place.props:
                return f"on the floor of the {self.room_names[place.room]}"
            return f"{place.prep} the {place.name}"
        if kind is EntityKind.ITEM:
            return f"on the {self.items[holder].name}"
        if kind is EntityKind.AGENT:
            return f"with {self.the(holder)}"
        if kind is EntityKind.ROOM:
            return f"in the {self.room_names[holder]}"
        return f"at {holder}"

    def reach_height(self, eid: str) -> float | None:
        """Height of the spot where ``eid`` sits (a place's own height); ``None`` when held or a room/agent."""
        kind = self._kind.get(eid)
        if kind is EntityKind.PLACE:
            return self.places[eid].height
        if kind is EntityKind.ITEM:
            base = self.base_place(eid)
            return self.places[base].height if base is not None else None
        return None

    # ---- initial knowledge ----------------------------------------------------------------------------------
    def truth_facts(self) -> tuple[Fact, ...]:
        """Every fact of the current world state (item locations, open/switch states, rooms, power, ...)."""
        out = [Fact(i, AT, loc) for i, loc in self._loc.items()]
        out += [Fact(e, OPEN, "open" if v else "closed") for e, v in self._open.items()]
        out += [Fact(e, SWITCH, "on" if v else "off") for e, v in self._switch.items()]
        out += [Fact(c, CONTAINS, v) for c, v in self._contains.items() if v is not None]
        out += [Fact(a, ROOM, r) for a, r in self._room.items()]
        out += [Fact(a, POSTURE, "sitting") for a, s in self._sitting.items() if s is not None]
        out += [Fact(a, FEELS, f) for a, f in self._feels.items() if f is not None]
        out += [Fact(i, STATE, s) for i, s in self._state.items()]
        out.append(Fact(HOUSE, POWER, "on" if self.power else "off"))
        return tuple(out)

    def visible_facts(self, room: str) -> tuple[Fact, ...]:
        """What anyone in ``room`` can see: items not shut away, what people hold, who is there."""
        out: list[Fact] = []
        on = self._on
        f = self._f
        for pid in self._room_places[room]:
            here = on.get(pid)
            if not here or (not self._open.get(pid, True)):
                continue
            for iid in here:
                out.append(f(iid, AT, pid))
                for jid in on.get(iid, ()):
                    out.append(f(jid, AT, iid))
        for agent in sorted(self._occ[room]):
            out.append(f(agent, ROOM, room))
            for iid in self._hands[agent]:
                out.append(f(iid, AT, agent))
        return tuple(out)

    def initial_events(self) -> tuple[WorldEvent, ...]:
        """Events at t=0: the world's truth, the robot's memory of its home, what each human sees and feels.

        The robot knows the initial state of the whole home (Memory); humans know what they see in their
        room and how they feel. Apply these to a tracker before any step.
        """
        truth = self.truth_facts()
        memory = tuple(f for f in truth if f.relation != FEELS)
        out = [
            WorldEvent(
                Event(0, EventKind.OTHER, None, truth, frozenset(), Source.NARRATION, ""), "setup", (), None, ""
            ),
            WorldEvent(
                Event(0, EventKind.OBSERVE, None, memory, frozenset({ROBOT}), Source.MEMORY, ""), "recall", (), None, ""
            ),
        ]
        for room, occ in self._occ.items():
            if occ - {ROBOT}:
                out.append(self._observe(0, room))
        for who, feeling in self._feels.items():
            if feeling is not None:
                ev = Event(0, EventKind.OBSERVE, who, (Fact(who, FEELS, feeling),), frozenset({who}))
                out.append(WorldEvent(ev, "feel", (), self._room[who], ""))
        return tuple(out)

    # ---- internals: results and events ----------------------------------------------------------------------
    def _ok(self, action: Action | str, events: tuple[WorldEvent, ...]) -> StepResult:
        if events:
            self.t = events[-1].core.t
        return StepResult(True, action, None, events, self.t)

    def _fail(self, kind: FailureKind, message: str, action: Action) -> StepResult:
        return self._reject(Failure(kind, message, str(action)))

    def _attempt(self, actor: str, action: Action, kind: FailureKind, message: str, phrase: str) -> StepResult:
        """A failure bystanders see: the world is unchanged, but the attempt is an event with witnesses."""
        ev = self._event(EventKind.OTHER, actor, (), action, phrase, failure=kind)
        self.t = ev.core.t
        return StepResult(False, str(action), Failure(kind, message, str(action)), (ev,), self.t)

    def _event(
        self,
        kind: EventKind,
        actor: str,
        facts: tuple[Fact, ...],
        action: Action,
        phrase: str,
        room: str | None = None,
        failure: FailureKind | None = None,
    ) -> WorldEvent:
        """What ``actor`` does in ``room`` (default: its own) at the next step, seen by its witnesses; ``failure``
        for a witnessed attempt that failed."""
        room = room if room is not None else self._room[actor]
        text = f"{self._named(actor)} {phrase}." if phrase else ""
        ev = Event(self.t + 1, kind, actor, facts, self.witnesses(room), Source.PERCEPTION, text)
        return WorldEvent(ev, action.verb, action.args, room, phrase, failure)

    def _observe(self, t: int, room: str) -> WorldEvent:
        facts = self.visible_facts(room)
        ev = Event(t, EventKind.OBSERVE, None, facts, self.witnesses(room))
        return WorldEvent(ev, "observe", (), room, "")

    def _resolve(self, raw: str, want: ArgKind, action: Action) -> str | Failure:
        kind = self._kind.get(raw)
        if kind is None:
            norm = normalize_name(raw)
            kind = self._kind.get(norm)
            if kind is None:  # a person's name as it is said: "Alice"
                said = raw.strip().lower()
                norm = next((eid for eid, char in self.chars.items() if char.name.lower() == said), norm)
                kind = self._kind.get(norm)
            if kind is None:
                close = difflib.get_close_matches(norm, list(self._kind), n=3)
                hint = f"; did you mean {', '.join(close)}?" if close else ""
                return Failure(FailureKind.UNKNOWN_ENTITY, f"nothing called {raw!r} in this home{hint}", str(action))
            raw = norm
        accepted, described = _ACCEPT[want]
        if kind not in accepted:
            return Failure(
                FailureKind.WRONG_ARGUMENT,
                f"{action.verb} needs {described} here, but {raw!r} is a {kind.value}",
                str(action),
            )
        return raw

    def _args(self, action: Action, *wants: ArgKind) -> list[str] | Failure:
        out: list[str] = []
        kinds = self._kind
        for raw, want in zip(action.args, wants, strict=False):
            kind = kinds.get(raw)
            if kind is not None and kind in _ACCEPT[want][0]:
                out.append(raw)
                continue
            got = self._resolve(raw, want, action)
            if isinstance(got, Failure):
                return got
            out.append(got)
        return out

    def _reject(self, failure: Failure) -> StepResult:
        return StepResult(False, failure.action, failure, (), self.t)

    def _named(self, actor: str) -> str:
        """How an actor opens a sentence: its name, or ``The robot``."""
        return self.chars[actor].name if actor != ROBOT else "The robot"

    def _reachable(self, actor: str, eid: str) -> bool:
        h = self.reach_height(eid)
        return h is None or self.chars[actor].can_reach(h)

    def _inside_closed(self, item: str) -> str | None:
        """The closed receptacle an item is shut in, or ``None``."""
        holder = self._loc[item]
        while True:
            if not self._open.get(holder, True):
                return holder
            if self._kind[holder] is not EntityKind.ITEM:
                return None
            holder = self._loc[holder]

    def _move_item(self, item: str, to: str) -> None:
        old = self._loc[item]
        self._on[old].remove(item)
        if old in self._hands:
            self._hands[old].remove(item)
        self._loc[item] = to
        self._on.setdefault(to, []).append(item)
        if to in self._hands:
            self._hands[to].append(item)

    def _relocate(self, agent: str, dest: str) -> None:
        old = self._room[agent]
        self._occ[old].discard(agent)
        self._occ[dest].add(agent)
        self._room[agent] = dest
        self._left[agent].add(old)
        self._wit.pop(old, None)
        self._wit.pop(dest, None)

    # ---- internals: properties ------------------------------------------------------------------------------
    def _props(self, eid: str) -> frozenset[Prop]:
        place = self.places.get(eid)
        return place.props if place is not None else self.items[eid].props

    def _relief(self, agent: str, item: str) -> tuple[Fact, ...]:
        """Getting hold of the right thing ends a feeling (a blanket for the cold, a snack for hunger)."""
        feeling = self._feels.get(agent)
        if feeling is None:
            return ()
        it = self.items[item]
        if it.kind in _RELIEF.get(feeling, ()) or (feeling == "hungry" and Prop.EDIBLE in it.props):
            self._feels[agent] = None
            return (self._f(agent, FEELS, None),)
        return ()

    # ---- copies and views -----------------------------------------------------------------------------------
    def clone(self) -> Self:
        """An independent copy (for planning: try a plan without touching this world)."""
        w = object.__new__(type(self))
        w.__dict__.update(self.__dict__)
        for name in _STATE:  # the mutable state, one level deep: its dicts, and the lists and sets they hold
            setattr(w, name, {k: v.copy() if isinstance(v, list | set) else v for k, v in getattr(self, name).items()})
        w._wit = {}
        return w

    def snapshot(self) -> WorldSnapshot:
        """A frozen picture of the state (what rendering needs)."""
        return WorldSnapshot(
            self.t,
            self.layout.name,
            tuple(
                (a, self._room[a], self._near[a], self._sitting[a] is not None, tuple(self._hands[a]))
                for a in self.chars
            ),
            tuple(self._loc.items()),
            frozenset(k for k, v in self._open.items() if v),
            frozenset(k for k, v in self._switch.items() if v),
            self.power,
            self.camera,
        )

    def state_dict(self) -> dict[str, Any]:
        """The full ground-truth state as plain JSON-ready data (privileged: not for the robot's observation)."""
        return {
            "t": self.t,
            "layout": self.layout.name,
            "power": self.power,
            "camera": sorted(self.camera),
            "agents": [
                {
                    "id": a,
                    "room": self._room[a],
                    "near": self._near[a] or "",
                    "sitting": self._sitting[a] or "",
                    "holding": list(self._hands[a]),
                    "feels": self._feels.get(a) or "",
                }
                for a in self.chars
            ],
            "items": [{"id": i, "location": loc, "room": self.room_of(i) or ""} for i, loc in self._loc.items()],
            "opened": sorted(k for k, v in self._open.items() if v),
            "switched_on": sorted(k for k, v in self._switch.items() if v),
            "filled": [{"id": c, "liquid": v} for c, v in self._contains.items() if v is not None],
        }

    def describe_room(self, room: str) -> str:
        """A sentence listing what is visible in a room (used by text renderings)."""
        parts = []
        for pid in self._room_places[room]:
            here = self._on.get(pid)
            if here and self._open.get(pid, True):
                things = ", ".join(self.the(i) for i in here)
                parts.append(f"{things} {self.where(pid)}")
        people = sorted(self._occ[room])
        who = ", ".join(self.the(p) for p in people) or "nobody"
        seen = "; ".join(parts) if parts else "nothing out in the open"
        return f"The {self.room_names[room]}: {who} here; {seen}."

    def entity_ids(self, kinds: Iterable[EntityKind] | None = None) -> list[str]:
        """Every id in this home (optionally only of the given kinds), in creation order."""
        wanted = set(kinds) if kinds is not None else None
        return [e for e, k in self._kind.items() if wanted is None or k in wanted]


_STATE = ("_room", "_near", "_sitting", "_hands", "_facing", "_left", "_occ", "_loc", "_on", "_taken_from", "_open",
          "_switch", "_contains", "_feels", "_state")  # fmt: skip
"""The attributes of a :class:`Home` that its actions change (what :meth:`Home.clone` copies)."""
_RELIEF: dict[str, frozenset[str]] = {
    "cold": frozenset({"blanket"}),
    "headache": frozenset({"medicine"}),
    "cannot_read": frozenset({"glasses"}),
}
"""Feelings that end when the agent gets hold of one of these item kinds (thirst ends by drinking; hunger by
getting anything edible)."""
_E = EntityKind
_ACCEPT: dict[ArgKind, tuple[frozenset[EntityKind], str]] = {
    ArgKind.ANY: (frozenset(_E), "a room, place, item or person"),
    ArgKind.ROOM: (frozenset({_E.ROOM}), "a room"),
    ArgKind.PLACE: (frozenset({_E.PLACE}), "a piece of furniture or a fixture"),
    ArgKind.ITEM: (frozenset({_E.ITEM}), "an item"),
    ArgKind.AGENT: (frozenset({_E.AGENT}), "a person"),
    ArgKind.THING: (frozenset({_E.PLACE, _E.ITEM}), "a piece of furniture or an item"),
    ArgKind.HOLDER: (frozenset({_E.PLACE, _E.ITEM}), "somewhere to put things"),
    ArgKind.TEXT: (frozenset({_E.ITEM}), "an item or quoted words"),
    ArgKind.DIRECTION: (frozenset(), "a direction"),
}
"""What an argument slot of each kind accepts, and how a refusal names it."""

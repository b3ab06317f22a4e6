"""The household world: rooms, furniture, items, humans and one robot, changed only through checked actions.

``World.step(actor, action)`` checks the action's preconditions, applies it and returns a
:class:`~mindloop.worlds.household.results.StepResult` whose events carry belief-core facts and witnesses
(everyone in the room, plus the robot when its fixed camera sees the room). A refused action returns a typed
failure and leaves the world exactly as it was. The world never writes beliefs: feed ``result.core_events``
to a :class:`~mindloop.beliefs.Tracker`.

>>> from mindloop.worlds.household import World, WorldSetup
>>> w = World(WorldSetup("cozy_apartment", (("alice", "kitchen"),), (("apple", "apple", "alice"),)))
>>> w.step("alice", "place(apple, kitchen_table)").ok, w.location("apple")
(True, 'kitchen_table')
>>> r = w.step("alice", "putin(apple, fridge)")
>>> r.ok, r.failure.kind.value, w.location("apple")
(False, 'not_holding', 'kitchen_table')

Why this module is longer than 600 lines: it is the one table of verbs (about thirty handlers, none longer than
~60 lines, dispatched by :meth:`World.step`), each checking its preconditions against the same private state of
:class:`~mindloop.worlds.household.home.Home`. Splitting the handlers into mixins by topic would scatter that
dispatch table and the shared checks without making any handler shorter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from mindloop.beliefs import Event, EventKind, Fact, Utterance
from mindloop.worlds.household.actions import Action, ArgKind, parse_action, validate_action
from mindloop.worlds.household.catalog import ITEM_KINDS, ItemKind
from mindloop.worlds.household.home import HANDS, Home, Item, Place, WorldSnapshot
from mindloop.worlds.household.layouts import Layout
from mindloop.worlds.household.results import Failure, FailureKind, StepResult, WorldEvent
from mindloop.worlds.household.setup import WorldSetup
from mindloop.worlds.household.vocab import (
    AT,
    CONTAINS,
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
    Trait,
)

__all__ = ["Item", "Place", "World", "WorldSnapshot"]

_Handler = Callable[[str, Action], StepResult]


class World(Home):
    """A home and everyone in it; the only way to change it is :meth:`step` (or :meth:`environment`)."""

    def __init__(
        self,
        setup: WorldSetup,
        *,
        layout: Layout | None = None,
        item_kinds: Mapping[str, ItemKind] | None = None,
    ) -> None:
        super().__init__(setup, layout=layout, item_kinds=item_kinds)
        self._handlers: dict[str, _Handler] = {
            "walk": self._walk,
            "run": self._run,
            "walkaround": self._walkaround,
            "turn": self._turn,
            "sit": self._sit,
            "standup": self._standup,
            "open": self._open_close,
            "close": self._open_close,
            "pick": self._pick,
            "place": self._place,
            "putin": self._place,
            "putback": self._putback,
            "drop": self._drop,
            "give": self._give,
            "move": self._move,
            "switchon": self._switch_onoff,
            "switchoff": self._switch_onoff,
            "drink": self._drink,
            "pour": self._pour,
            "lookat": self._look,
            "touch": self._look,
            "listen": self._look,
            "say": self._say,
            "remind": self._remind,
            "read": self._read,
            "write": self._write,
            "watch": self._watch,
            "sleep": self._sleep,
            "cut": self._cut,
            "cook": self._cook,
            "hold": self._hold,
            "wait": self._wait,
        }

    # ---- stepping -------------------------------------------------------------------------------------------
    def step(self, actor: str, action: Action | str) -> StepResult:
        """Have ``actor`` try ``action`` (an :class:`Action` or text such as ``"pick(apple)"``).

        Returns the outcome; on failure the world is unchanged and ``failure`` says why.
        """
        if isinstance(action, str):
            parsed = parse_action(action)
            if isinstance(parsed, Failure):
                return StepResult(False, action, parsed, (), self.t)
            action = parsed
        else:
            bad = validate_action(action)
            if bad is not None:
                return StepResult(False, action, bad, (), self.t)
        if actor not in self.chars:
            known = ", ".join(self.chars)
            return self._fail(FailureKind.UNKNOWN_ACTOR, f"no agent {actor!r} in this home (agents: {known})", action)
        return self._handlers[action.verb](actor, action)

    def environment(self, verb: str) -> StepResult:
        """Something nobody does: ``powercut`` or ``powerrestore``. Everyone at home notices it."""
        if verb not in ("powercut", "powerrestore"):
            return StepResult(
                False,
                verb,
                Failure(FailureKind.UNKNOWN_VERB, f"unknown environment event {verb!r} (powercut, powerrestore)"),
                (),
                self.t,
            )
        want = verb == "powerrestore"
        if self.power == want:
            state = "on" if want else "off"
            return StepResult(
                False, verb, Failure(FailureKind.ALREADY, f"the power is already {state}", verb), (), self.t
            )
        self.power = want
        t = self.t + 1
        everyone = frozenset(self.chars)
        text = "The power comes back on." if want else "The power goes out and the lights go off."
        ev = Event(t, EventKind.OTHER, None, (self._f(HOUSE, POWER, "on" if want else "off"),), everyone, text=text)
        return self._ok(verb, (self._wev(ev, verb, (), None, text[4:-1]),))

    # ---- verbs: moving about --------------------------------------------------------------------------------
    def _run(self, a: str, act: Action) -> StepResult:
        return self._go(a, act, running=True)

    def _walk(self, a: str, act: Action) -> StepResult:
        return self._go(a, act, running=False)

    def _go(self, a: str, act: Action, *, running: bool) -> StepResult:
        got = self._args(act, ArgKind.ANY)
        if isinstance(got, Failure):
            return self._reject(got)
        target = got[0]
        char = self.chars[a]
        if target == a:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{a} cannot walk to itself", act)
        kind = self._kind[target]
        if kind is EntityKind.ITEM and self.holder_of(target) == a:
            return self._fail(FailureKind.ALREADY, f"{a} is already holding {target}", act)
        if self._sitting[a] is not None:
            return self._fail(FailureKind.SITTING, f"{a} is sitting on {self._sitting[a]}; stand up first", act)
        if running and char.trait is Trait.WHEELCHAIR:
            return self._fail(FailureKind.UNABLE, f"{a} uses a wheelchair and cannot run", act)
        here = self._room[a]
        dest = self.room_of(target)
        assert dest is not None
        wheel = char.trait is Trait.WHEELCHAIR
        go = "rolls" if wheel else ("runs" if running else "walks")
        if dest == here:
            self._near[a] = target if kind is not EntityKind.ROOM else None
            phrase = (
                f"{go} across the {self.room_names[here]}" if kind is EntityKind.ROOM else f"{go} to {self.the(target)}"
            )
            ev = self._event(EventKind.OTHER, a, (), act, phrase)
            return self._ok(act, (ev,))
        if wheel:
            obstacle = self.blocking(here) or self.blocking(dest)
            if obstacle is not None:
                side = here if self.blocking(here) == obstacle else dest
                doing = f"leave the {self.room_names[here]}" if side == here else f"go into the {self.room_names[dest]}"
                return self._attempt(
                    a,
                    act,
                    FailureKind.BLOCKED,
                    f"{self.the(obstacle)} in the doorway of the {self.room_names[side]} blocks {a}'s wheelchair",
                    f"tries to {doing}, but {self.the(obstacle)} blocks the way",
                )
        t = self.t + 1
        name = self._subject(a).capitalize() if a == ROBOT else char.name
        leave = f"leaves the {self.room_names[here]}"
        exit_ev = Event(t, EventKind.EXIT, a, (self._f(a, ROOM, None),), self.witnesses(here), text=f"{name} {leave}.")
        returning = dest in self._left[a]
        self._relocate(a, dest)
        self._near[a] = target if kind is not EntityKind.ROOM else None
        rn = self.room_names[dest]
        enter = f"comes back to the {rn}" if returning else f"{go} into the {rn}"
        if kind is not EntityKind.ROOM:
            enter += f" and goes to {self.the(target)}"
        wit = self.witnesses(dest)
        enter_ev = Event(t, EventKind.ENTER, a, (self._f(a, ROOM, dest),), wit, text=f"{name} {enter}.")
        events = (
            WorldEvent(exit_ev, act.verb, act.args, here, leave),
            WorldEvent(enter_ev, act.verb, act.args, dest, enter),
            self._observe(t, dest),
        )
        return self._ok(act, events)

    def _walkaround(self, a: str, act: Action) -> StepResult:
        here = self._room[a]
        if act.args:
            got = self._args(act, ArgKind.ROOM)
            if isinstance(got, Failure):
                return self._reject(got)
            if got[0] != here:
                return self._fail(FailureKind.NOT_HERE, f"{a} is in the {here}, not the {got[0]}", act)
        if self._sitting[a] is not None:
            return self._fail(FailureKind.SITTING, f"{a} is sitting; stand up first", act)
        go = "rolls" if self.chars[a].trait is Trait.WHEELCHAIR else "walks"
        self._near[a] = None
        return self._ok(act, (self._event(EventKind.OTHER, a, (), act, f"{go} around the {self.room_names[here]}"),))

    def _turn(self, a: str, act: Action) -> StepResult:
        direction = act.args[0]
        if direction not in ("left", "right", "around", "back"):
            return self._fail(
                FailureKind.WRONG_ARGUMENT, f"turn takes left, right, around or back, got {direction!r}", act
            )
        self._facing[a] = direction
        phrase = "backs up" if direction == "back" else f"turns {direction}"
        return self._ok(act, (self._event(EventKind.OTHER, a, (), act, phrase),))

    def _sit(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.PLACE)
        if isinstance(got, Failure):
            return self._reject(got)
        seat = got[0]
        if self.chars[a].trait in (Trait.WHEELCHAIR, Trait.ROBOT):
            return self._fail(FailureKind.UNABLE, f"{a} cannot sit down ({self.chars[a].trait.value})", act)
        if Prop.SITTABLE not in self.places[seat].props:
            return self._fail(FailureKind.NOT_SITTABLE, f"{seat} is not something to sit on", act)
        if self.places[seat].room != self._room[a]:
            return self._fail(FailureKind.NOT_HERE, f"{seat} is in the {self.places[seat].room}, not here", act)
        if self._sitting[a] is not None:
            return self._fail(FailureKind.ALREADY, f"{a} is already sitting on {self._sitting[a]}", act)
        self._sitting[a] = seat
        self._near[a] = seat
        ev = self._event(EventKind.OTHER, a, (self._f(a, POSTURE, "sitting"),), act, f"sits on {self.the(seat)}")
        return self._ok(act, (ev,))

    def _standup(self, a: str, act: Action) -> StepResult:
        if self.chars[a].trait in (Trait.WHEELCHAIR, Trait.ROBOT):
            return self._fail(FailureKind.UNABLE, f"{a} cannot stand up ({self.chars[a].trait.value})", act)
        if self._sitting[a] is None:
            return self._fail(FailureKind.ALREADY, f"{a} is already standing", act)
        self._sitting[a] = None
        ev = self._event(EventKind.OTHER, a, (self._f(a, POSTURE, "standing"),), act, "stands up")
        return self._ok(act, (ev,))

    def _sleep(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.PLACE)
        if isinstance(got, Failure):
            return self._reject(got)
        bed = got[0]
        if self.chars[a].trait in (Trait.WHEELCHAIR, Trait.ROBOT):
            return self._fail(FailureKind.UNABLE, f"{a} cannot lie down here ({self.chars[a].trait.value})", act)
        if Prop.BED not in self.places[bed].props:
            return self._fail(FailureKind.NOT_SITTABLE, f"{bed} is not a bed", act)
        if self.places[bed].room != self._room[a]:
            return self._fail(FailureKind.NOT_HERE, f"{bed} is in the {self.places[bed].room}, not here", act)
        self._sitting[a] = bed
        self._near[a] = bed
        ev = self._event(EventKind.OTHER, a, (self._f(a, POSTURE, "sitting"),), act, f"lies down on {self.the(bed)}")
        return self._ok(act, (ev,))

    def _open_close(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.THING)
        if isinstance(got, Failure):
            return self._reject(got)
        x = got[0]
        opening = act.verb == "open"
        if Prop.OPENABLE not in self._props(x):
            return self._fail(FailureKind.NOT_OPENABLE, f"{x} does not open or close", act)
        away = self._here(a, x, act)
        if away is not None:
            return away
        if not self._reachable(a, x):
            return self._attempt(
                a,
                act,
                FailureKind.OUT_OF_REACH,
                f"{x} is too high or too low for {a}",
                f"reaches for {self.the(x)} but cannot reach it",
            )
        if self._open[x] == opening:
            return self._fail(FailureKind.ALREADY, f"{x} is already {'open' if opening else 'closed'}", act)
        self._open[x] = opening
        if opening:
            facts = [self._f(x, OPEN, "open")]
            for iid in self._on.get(x, ()):
                facts.append(self._f(iid, AT, x))
                facts.extend(self._f(j, AT, iid) for j in self._on.get(iid, ()))
            ev = self._event(EventKind.OPEN, a, tuple(facts), act, f"opens {self.the(x)}")
        else:
            ev = self._event(EventKind.CLOSE, a, (self._f(x, OPEN, "closed"),), act, f"closes {self.the(x)}")
        return self._ok(act, (ev,))

    def _switch_onoff(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.THING)
        if isinstance(got, Failure):
            return self._reject(got)
        x = got[0]
        on = act.verb == "switchon"
        props = self._props(x)
        if Prop.SWITCHABLE not in props:
            return self._fail(FailureKind.NOT_SWITCHABLE, f"{x} has no switch", act)
        away = self._here(a, x, act)
        if away is not None:
            return away
        if not self._reachable(a, x):
            return self._attempt(
                a,
                act,
                FailureKind.OUT_OF_REACH,
                f"{x} is out of {a}'s reach",
                f"reaches for {self.the(x)} but cannot reach it",
            )
        if on and Prop.NEEDS_POWER in props and not self.power:
            return self._attempt(
                a,
                act,
                FailureKind.NO_POWER,
                f"{x} needs power and the power is out",
                f"flips the switch of {self.the(x)}, but nothing happens",
            )
        if self._switch[x] == on:
            return self._fail(FailureKind.ALREADY, f"{x} is already {'on' if on else 'off'}", act)
        self._switch[x] = on
        if Prop.WATER_SOURCE in props:
            phrase = f"turns {'on' if on else 'off'} {self.the(x)}"
        elif self._kind[x] is EntityKind.ITEM and Prop.LIGHT_SOURCE in props:
            phrase = f"lights {self.the(x)}" if on else f"blows out {self.the(x)}"
        else:
            phrase = f"switches {'on' if on else 'off'} {self.the(x)}"
        ev = self._event(EventKind.OTHER, a, (self._f(x, SWITCH, "on" if on else "off"),), act, phrase)
        return self._ok(act, (ev,))

    # ---- verbs: handling items ------------------------------------------------------------------------------
    def _pick(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.ITEM)
        if isinstance(got, Failure):
            return self._reject(got)
        item = got[0]
        props = self.items[item].props
        if Prop.GRASPABLE not in props:
            how = "move it instead" if Prop.MOVABLE in props else "pour it into a cup instead"
            return self._fail(FailureKind.NOT_GRASPABLE, f"{item} cannot be picked up; {how}", act)
        holder = self.holder_of(item)
        if holder == a:
            return self._fail(FailureKind.ALREADY, f"{a} is already holding {item}", act)
        if holder is not None:
            return self._fail(FailureKind.HELD_BY_OTHER, f"{item} is held by {holder}", act)
        away = self._here(a, item, act)
        if away is not None:
            return away
        closed = self._inside_closed(item)
        if closed is not None:
            return self._fail(FailureKind.CONTAINER_CLOSED, f"{item} is inside {closed}, which is closed", act)
        if not self._reachable(a, item):
            base = self.base_place(item)
            assert base is not None
            return self._attempt(
                a,
                act,
                FailureKind.OUT_OF_REACH,
                f"{item} is on {base} at {self.places[base].height} m, out of {a}'s reach",
                f"reaches for {self.the(item)} {self.where(base)} but cannot reach it",
            )
        if len(self._hands[a]) >= HANDS:
            return self._fail(FailureKind.HANDS_FULL, f"{a}'s hands are full ({', '.join(self._hands[a])})", act)
        src = self._loc[item]
        self._move_item(item, a)
        self._taken_from[item] = src
        facts = (self._f(item, AT, a), *self._relief(a, item))
        ev = self._event(EventKind.MOVE, a, facts, act, f"picks up {self.the(item)} {_from(self.where(src))}")
        return self._ok(act, (ev,))

    def _place_into(self, a: str, act: Action, item: str, target: str, *, need_receptacle: bool) -> StepResult:
        if item not in self._hands[a]:
            return self._fail(FailureKind.NOT_HOLDING, f"{a} is not holding {item}", act)
        if target == item:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{item} cannot be put on itself", act)
        tprops = self._props(target)
        if need_receptacle and Prop.RECEPTACLE not in tprops:
            return self._fail(FailureKind.NOT_A_RECEPTACLE, f"{target} is not something to put things in", act)
        if not tprops & _HOLDS:
            return self._fail(FailureKind.NOT_A_SURFACE, f"{target} is not something to put things on or in", act)
        if self._kind[target] is EntityKind.ITEM and self.holder_of(target) is not None:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{target} is being held; put it down first", act)
        away = self._here(a, target, act)
        if away is not None:
            return away
        if not self._open.get(target, True):
            return self._fail(FailureKind.CONTAINER_CLOSED, f"{target} is closed; open it first", act)
        if not self._reachable(a, target):
            return self._attempt(
                a,
                act,
                FailureKind.OUT_OF_REACH,
                f"{target} is out of {a}'s reach",
                f"tries to put {self.the(item)} {self.where(target)} but cannot reach it",
            )
        self._move_item(item, target)
        kind = EventKind.PUT
        ev = self._event(kind, a, (self._f(item, AT, target),), act, f"puts {self.the(item)} {self.where(target)}")
        return self._ok(act, (ev,))

    def _place(self, a: str, act: Action) -> StepResult:
        want = ArgKind.PLACE if act.verb == "putin" else ArgKind.HOLDER
        got = self._args(act, ArgKind.ITEM, want)
        if isinstance(got, Failure):
            return self._reject(got)
        return self._place_into(a, act, got[0], got[1], need_receptacle=act.verb == "putin")

    def _putback(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.ITEM)
        if isinstance(got, Failure):
            return self._reject(got)
        item = got[0]
        if item not in self._hands[a]:
            return self._fail(FailureKind.NOT_HOLDING, f"{a} is not holding {item}", act)
        src = self._taken_from.get(item)
        if src is None or self._kind.get(src) is EntityKind.AGENT:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{item} was not picked up from a place", act)
        return self._place_into(a, act, item, src, need_receptacle=False)

    def _drop(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.ITEM)
        if isinstance(got, Failure):
            return self._reject(got)
        item = got[0]
        if item not in self._hands[a]:
            return self._fail(FailureKind.NOT_HOLDING, f"{a} is not holding {item}", act)
        floor = f"{self._room[a]}_corner"
        self._move_item(item, floor)
        ev = self._event(EventKind.PUT, a, (self._f(item, AT, floor),), act, f"drops {self.the(item)} on the floor")
        return self._ok(act, (ev,))

    def _give(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.ITEM, ArgKind.AGENT)
        if isinstance(got, Failure):
            return self._reject(got)
        item, to = got
        if item not in self._hands[a]:
            return self._fail(FailureKind.NOT_HOLDING, f"{a} is not holding {item}", act)
        if to == a:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{a} cannot give {item} to itself", act)
        if self._room[to] != self._room[a]:
            return self._fail(FailureKind.NOT_HERE, f"{to} is in the {self._room[to]}, not with {a}", act)
        if len(self._hands[to]) >= HANDS:
            return self._fail(FailureKind.HANDS_FULL, f"{to}'s hands are full", act)
        self._move_item(item, to)
        self._near[a] = to
        facts = (self._f(item, AT, to), *self._relief(to, item))
        ev = self._event(EventKind.MOVE, a, facts, act, f"gives {self.the(item)} to {self.the(to)}")
        return self._ok(act, (ev,))

    def _move(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.ITEM, ArgKind.HOLDER)
        if isinstance(got, Failure):
            return self._reject(got)
        item, target = got
        props = self.items[item].props
        if not props & {Prop.GRASPABLE, Prop.MOVABLE}:
            return self._fail(FailureKind.NOT_MOVABLE, f"{item} cannot be moved", act)
        if item in self._hands[a]:
            return self._place_into(a, act, item, target, need_receptacle=False)
        holder = self.holder_of(item)
        if holder is not None:
            return self._fail(FailureKind.HELD_BY_OTHER, f"{item} is held by {holder}", act)
        if Prop.OBSTACLE in props and self.chars[a].trait in (Trait.CHILD, Trait.WHEELCHAIR):
            return self._fail(FailureKind.UNABLE, f"{item} is too heavy for {a} to move", act)
        for eid in (item, target):
            away = self._here(a, eid, act)
            if away is not None:
                return away
        closed = self._inside_closed(item)
        if closed is not None:
            return self._fail(FailureKind.CONTAINER_CLOSED, f"{item} is inside {closed}, which is closed", act)
        tprops = self._props(target)
        if target == item or not tprops & _HOLDS:
            return self._fail(FailureKind.NOT_A_SURFACE, f"{target} is not somewhere to move things to", act)
        if not self._open.get(target, True):
            return self._fail(FailureKind.CONTAINER_CLOSED, f"{target} is closed; open it first", act)
        if Prop.GRASPABLE in props and not (self._reachable(a, item) and self._reachable(a, target)):
            return self._attempt(
                a,
                act,
                FailureKind.OUT_OF_REACH,
                f"{item} or {target} is out of {a}'s reach",
                f"tries to move {self.the(item)} but cannot reach it",
            )
        if self._loc[item] == target:
            return self._fail(FailureKind.ALREADY, f"{item} is already {self.where(target)}", act)
        self._move_item(item, target)
        dest = "to the corner" if target.endswith("_corner") else _to(self.where(target))
        ev = self._event(EventKind.MOVE, a, (self._f(item, AT, target),), act, f"moves {self.the(item)} {dest}")
        return self._ok(act, (ev,))

    def _drink(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.ITEM)
        if isinstance(got, Failure):
            return self._reject(got)
        item = got[0]
        if a == ROBOT:
            return self._fail(FailureKind.UNABLE, "the robot does not drink", act)
        if item not in self._hands[a]:
            return self._fail(FailureKind.NOT_HOLDING, f"{a} is not holding {item}", act)
        props = self.items[item].props
        facts: list[Fact] = []
        if Prop.CONTAINER in props:
            liquid = self._contains.get(item)
            if liquid is None:
                return self._fail(FailureKind.EMPTY, f"{item} is empty", act)
            self._contains[item] = None
            facts.append(self._f(item, CONTAINS, None))
            phrase = f"drinks the {ITEM_KINDS[liquid].name if liquid in ITEM_KINDS else liquid} from {self.the(item)}"
        elif Prop.LIQUID in props:
            phrase = f"drinks some {self.items[item].name}"
        else:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{item} is nothing to drink from", act)
        if self._feels.get(a) == "thirsty":
            self._feels[a] = None
            facts.append(self._f(a, FEELS, None))
        return self._ok(act, (self._event(EventKind.OTHER, a, tuple(facts), act, phrase),))

    def _pour(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.ITEM, ArgKind.ITEM)
        if isinstance(got, Failure):
            return self._reject(got)
        liquid, cup = got
        if Prop.LIQUID not in self.items[liquid].props:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{liquid} is not a liquid", act)
        if Prop.CONTAINER not in self.items[cup].props:
            return self._fail(FailureKind.NOT_A_RECEPTACLE, f"{cup} cannot hold a liquid", act)
        if cup not in self._hands[a]:
            return self._fail(FailureKind.NOT_HOLDING, f"{a} must hold {cup} to pour into it", act)
        if Prop.GRASPABLE in self.items[liquid].props:
            if liquid not in self._hands[a]:
                return self._fail(FailureKind.NOT_HOLDING, f"{a} must hold {liquid} to pour it", act)
        elif self.room_of(liquid) != self._room[a]:
            return self._fail(FailureKind.NO_LIQUID, f"there is no {liquid} in the {self._room[a]}", act)
        if self._contains.get(cup) is not None:
            return self._fail(FailureKind.ALREADY, f"{cup} is already full", act)
        kind = self.items[liquid].kind
        self._contains[cup] = kind
        ev = self._event(
            EventKind.OTHER,
            a,
            (self._f(cup, CONTAINS, kind),),
            act,
            f"pours {self.items[liquid].name} into {self.the(cup)}",
        )
        return self._ok(act, (ev,))

    def _look(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.ANY)
        if isinstance(got, Failure):
            return self._reject(got)
        x = got[0]
        if x == a:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{a} cannot {act.verb} itself", act)
        away = self._here(a, x, act)
        if away is not None:
            return away
        verb = {"lookat": "looks at", "touch": "touches", "listen": "listens to"}[act.verb]
        return self._ok(act, (self._event(EventKind.OTHER, a, (), act, f"{verb} {self.the(x)}"),))

    def _read(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.ITEM)
        if isinstance(got, Failure):
            return self._reject(got)
        item = got[0]
        if Prop.READABLE not in self.items[item].props:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{item} is nothing to read", act)
        if item not in self._hands[a]:
            return self._fail(FailureKind.NOT_HOLDING, f"{a} must hold {item} to read it", act)
        return self._ok(act, (self._event(EventKind.OTHER, a, (), act, f"reads {self.the(item)}"),))

    def _write(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.ITEM)
        if isinstance(got, Failure):
            return self._reject(got)
        item = got[0]
        if Prop.WRITABLE not in self.items[item].props:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{item} is nothing to write in", act)
        away = self._here(a, item, act)
        if away is not None:
            return away
        if not any(Prop.WRITER in self.items[i].props for i in self._hands[a]):
            return self._fail(FailureKind.MISSING_TOOL, f"{a} needs to hold a pen to write", act)
        return self._ok(act, (self._event(EventKind.OTHER, a, (), act, f"writes in {self.the(item)}"),))

    def _watch(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.PLACE)
        if isinstance(got, Failure):
            return self._reject(got)
        x = got[0]
        if Prop.WATCHABLE not in self.places[x].props:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{x} is nothing to watch", act)
        away = self._here(a, x, act)
        if away is not None:
            return away
        if not self.power:
            return self._fail(FailureKind.NO_POWER, f"{x} needs power and the power is out", act)
        if not self._switch.get(x, False):
            return self._fail(FailureKind.UNABLE, f"{x} is switched off", act)
        return self._ok(act, (self._event(EventKind.OTHER, a, (), act, f"watches {self.the(x)}"),))

    def _cut(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.ITEM)
        if isinstance(got, Failure):
            return self._reject(got)
        item = got[0]
        if Prop.CUTTABLE not in self.items[item].props:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{item} cannot be cut", act)
        away = self._here(a, item, act)
        if away is not None:
            return away
        if self.holder_of(item) is not None:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"put {item} down on something before cutting it", act)
        knife = next((i for i in self._hands[a] if Prop.CUTTER in self.items[i].props), None)
        if knife is None:
            return self._fail(FailureKind.MISSING_TOOL, f"{a} needs to hold a knife to cut {item}", act)
        self._state[item] = "cut"
        ev = self._event(
            EventKind.OTHER, a, (self._f(item, STATE, "cut"),), act, f"cuts {self.the(item)} with {self.the(knife)}"
        )
        return self._ok(act, (ev,))

    def _cook(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.ITEM)
        if isinstance(got, Failure):
            return self._reject(got)
        item = got[0]
        away = self._here(a, item, act)
        if away is not None:
            return away
        base = self.base_place(item)
        if base is None or Prop.COOKER not in self.places[base].props:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{item} must be on the stove to cook it", act)
        if not self._switch.get(base, False):
            return self._fail(FailureKind.UNABLE, f"{base} is switched off", act)
        self._state[item] = "cooked"
        ev = self._event(EventKind.OTHER, a, (self._f(item, STATE, "cooked"),), act, f"cooks {self.the(item)}")
        return self._ok(act, (ev,))

    def _hold(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.ITEM)
        if isinstance(got, Failure):
            return self._reject(got)
        if got[0] not in self._hands[a]:
            return self._fail(FailureKind.NOT_HOLDING, f"{a} is not holding {got[0]}", act)
        return self._ok(act, ())

    def _wait(self, a: str, act: Action) -> StepResult:
        return self._ok(act, ())

    # ---- verbs: speech --------------------------------------------------------------------------------------
    def _speech(self, a: str, act: Action, listener: str, words: str, facts: tuple[Fact, ...]) -> StepResult:
        if listener == a:
            return self._fail(FailureKind.WRONG_ARGUMENT, f"{a} cannot talk to itself", act)
        room = self._room[a]
        if self._room[listener] != room:
            return self._fail(FailureKind.NOT_HERE, f"{listener} is in the {self._room[listener]}, out of earshot", act)
        hearers = self.witnesses(room) - {a}
        name = self.chars[a].name if a != ROBOT else "Robot"
        t = self.t + 1
        utt = Utterance(t, a, frozenset(hearers), facts, True, f'{name}: "{words}"')
        self._near[a] = listener
        return self._ok(act, (WorldEvent(utt, act.verb, act.args, room, f'says to {self.the(listener)}, "{words}"'),))

    def _say(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.AGENT)
        if isinstance(got, Failure):
            return self._reject(got)
        listener = got[0]
        if len(act.args) == 1:
            return self._speech(a, act, listener, act.text or "", act.facts)
        if len(act.args) != 3:
            return self._fail(FailureKind.WRONG_ARITY, 'say takes (person, "words") or (person, item, place)', act)
        where = self._args(Action(act.verb, act.args[1:]), ArgKind.ITEM, ArgKind.HOLDER)
        if isinstance(where, Failure):
            return self._reject(Failure(where.kind, where.message, str(act)))
        item, holder = where
        words = act.text or f"The {self.name(item)} is {self.where(holder)}."
        return self._speech(a, act, listener, words, act.facts or (self._f(item, AT, holder),))

    def _remind(self, a: str, act: Action) -> StepResult:
        got = self._args(act, ArgKind.AGENT, ArgKind.ITEM)
        if isinstance(got, Failure):
            return self._reject(got)
        listener, item = got
        has, it_is, it = ("have", "they are", "them") if self.plural(item) else ("has", "it is", "it")
        words = act.text or (
            f"{self.name(listener)}, the {self.name(item)} {has} been moved; {it_is} no longer where you left {it}."
        )
        return self._speech(a, act, listener, words, act.facts or (self._f(item, AT, None),))


_HOLDS = frozenset({Prop.SURFACE, Prop.RECEPTACLE, Prop.FLOOR})


def _from(where: str) -> str:
    """``on the table`` -> ``from the table``; ``in the fridge`` -> ``from the fridge``."""
    for prefix in ("on the floor of ", "on ", "in ", "with "):
        if where.startswith(prefix):
            return "from " + where[len(prefix) :] if prefix != "on the floor of " else "from the floor"
    return "from " + where


def _to(where: str) -> str:
    """``on the table`` -> ``onto the table``; ``in the fridge`` -> ``into the fridge``."""
    if where.startswith("in "):
        return "into " + where[3:]
    if where.startswith("on "):
        return "onto " + where[3:]
    return "to " + where

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

Every verb is one row of :data:`VERB_RULES` (its arguments are those its
:data:`~mindloop.worlds.household.actions.VERBS` entry declares): its preconditions (:class:`Need`: a check on
the same private state of :class:`~mindloop.worlds.household.home.Home`, the failure it gives and its message),
checked in order, and its effect, which runs once they all hold. :meth:`World.step` reads the row; no verb checks
its preconditions itself, except where a check needs what only the effect computes (a reach height, a liquid).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import takewhile

from mindloop.beliefs import Event, EventKind, Fact, Utterance
from mindloop.worlds.household.actions import DIRECTIONS, VERBS, Action, ArgKind, parse_action, validate_action
from mindloop.worlds.household.catalog import ITEM_KINDS
from mindloop.worlds.household.home import HANDS, Home
from mindloop.worlds.household.results import Failure, FailureKind, StepResult, WorldEvent
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


class World(Home):
    """A home and everyone in it; the only way to change it is :meth:`step` (or :meth:`environment`)."""

    # ---- stepping -------------------------------------------------------------------------------------------
    def step(self, actor: str, action: Action | str) -> StepResult:
        """Have ``actor`` try ``action`` (an :class:`Action` or text such as ``"pick(apple)"``).

        Returns the outcome; on failure the world is unchanged and ``failure`` says why. The verb's row of
        :data:`~mindloop.worlds.household.actions.VERBS` says what its arguments are, its row of :data:`VERB_RULES`
        what must hold before it and what it does.
        """
        parsed = parse_action(action) if isinstance(action, str) else validate_action(action) or action
        if isinstance(parsed, Failure):  # text that does not parse, or an action with a wrong verb or arity
            return StepResult(False, action, parsed, (), self.t)
        action = parsed
        if actor not in self.chars:
            known = ", ".join(self.chars)
            return self._fail(FailureKind.UNKNOWN_ACTOR, f"no agent {actor!r} in this home (agents: {known})", action)
        got = self._args(action, *_ENTITY_ARGS[action.verb])
        if isinstance(got, Failure):
            return self._reject(got)
        rule = VERB_RULES[action.verb]
        return self._check(rule.needs, actor, action, got) or rule.effect(self, actor, action, got)

    def _check(self, needs: Sequence[Need], a: str, act: Action, x: list[str]) -> StepResult | None:
        """The first of ``needs`` that does not hold, as its refusal; ``None`` when all hold."""
        for need in needs:
            if not need.ok(self, a, x):
                words = _Words(self, a, act, x)
                message = need.message.format_map(words)
                if need.seen is None:
                    return self._fail(need.kind, message, act)
                return self._attempt(a, act, need.kind, message, need.seen.format_map(words))
        return None

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
        state = "on" if want else "off"
        if self.power == want:
            return self._reject(Failure(FailureKind.ALREADY, f"the power is already {state}", verb))
        self.power = want
        t = self.t + 1
        everyone = frozenset(self.chars)
        text = "The power comes back on." if want else "The power goes out and the lights go off."
        ev = Event(t, EventKind.OTHER, None, (self._f(HOUSE, POWER, state),), everyone, text=text)
        return self._ok(verb, (WorldEvent(ev, verb, (), None, text[4:-1]),))

    # ---- effects: each runs once its row's preconditions hold -------------------------------------------------
    def _said(
        self, a: str, act: Action, phrase: str, facts: tuple[Fact, ...] = (), kind: EventKind = EventKind.OTHER
    ) -> StepResult:
        """One event of ``kind`` everyone in the room sees: ``phrase`` and ``facts``."""
        return self._ok(act, (self._event(kind, a, facts, act, phrase),))

    def _go(self, a: str, act: Action, x: list[str]) -> StepResult:
        target, running = x[0], act.verb == "run"
        char = self.chars[a]
        kind = self._kind[target]
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
            return self._said(a, act, phrase)
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
        name = self._named(a)
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

    def _walkaround(self, a: str, act: Action, x: list[str]) -> StepResult:
        self._near[a] = None
        go = "rolls" if self.chars[a].trait is Trait.WHEELCHAIR else "walks"
        return self._said(a, act, f"{go} around the {self.room_names[self._room[a]]}")

    def _turn(self, a: str, act: Action, x: list[str]) -> StepResult:
        direction = act.args[0]
        if direction not in DIRECTIONS:
            return self._fail(
                FailureKind.WRONG_ARGUMENT, f"turn takes left, right, around or back, got {direction!r}", act
            )
        self._facing[a] = direction
        return self._said(a, act, "backs up" if direction == "back" else f"turns {direction}")

    def _sit(self, a: str, act: Action, x: list[str]) -> StepResult:
        self._sitting[a] = self._near[a] = x[0]
        phrase = f"{'sits on' if act.verb == 'sit' else 'lies down on'} {self.the(x[0])}"
        return self._said(a, act, phrase, (self._f(a, POSTURE, "sitting"),))

    def _standup(self, a: str, act: Action, x: list[str]) -> StepResult:
        self._sitting[a] = None
        return self._said(a, act, "stands up", (self._f(a, POSTURE, "standing"),))

    def _open_close(self, a: str, act: Action, x: list[str]) -> StepResult:
        opening = self._open[x[0]] = act.verb == "open"
        facts = [self._f(x[0], OPEN, "open" if opening else "closed")]
        for iid in self._on.get(x[0], ()) if opening else ():  # opening shows what it holds
            facts.append(self._f(iid, AT, x[0]))
            facts.extend(self._f(j, AT, iid) for j in self._on.get(iid, ()))
        kind, verb = (EventKind.OPEN, "opens") if opening else (EventKind.CLOSE, "closes")
        return self._said(a, act, f"{verb} {self.the(x[0])}", tuple(facts), kind)

    def _switch_onoff(self, a: str, act: Action, x: list[str]) -> StepResult:
        on = self._switch[x[0]] = act.verb == "switchon"
        props = self._props(x[0])
        if Prop.WATER_SOURCE in props:
            phrase = f"turns {'on' if on else 'off'} {self.the(x[0])}"
        elif self._kind[x[0]] is EntityKind.ITEM and Prop.LIGHT_SOURCE in props:
            phrase = f"lights {self.the(x[0])}" if on else f"blows out {self.the(x[0])}"
        else:
            phrase = f"switches {'on' if on else 'off'} {self.the(x[0])}"
        return self._said(a, act, phrase, (self._f(x[0], SWITCH, "on" if on else "off"),))

    def _pick(self, a: str, act: Action, x: list[str]) -> StepResult:
        item = x[0]
        src = self._taken_from[item] = self._loc[item]
        return self._hand_to(a, act, item, a, f"picks up {self.the(item)} {_from(self.where(src))}")

    def _hand_to(self, a: str, act: Action, item: str, to: str, phrase: str) -> StepResult:
        """``item`` goes into the hands of ``to`` (which may end a feeling of theirs), seen as ``phrase``."""
        self._move_item(item, to)
        return self._said(a, act, phrase, (self._f(item, AT, to), *self._relief(to, item)), EventKind.MOVE)

    def _put(self, a: str, act: Action, x: list[str]) -> StepResult:
        return self._set_down_at(a, act, x[0], x[1], f"puts {self.the(x[0])} {self.where(x[1])}")

    def _set_down_at(self, a: str, act: Action, item: str, to: str, phrase: str) -> StepResult:
        """``item`` leaves ``a``'s hands for ``to``, seen as ``phrase``."""
        self._move_item(item, to)
        return self._said(a, act, phrase, (self._f(item, AT, to),), EventKind.PUT)

    def _putback(self, a: str, act: Action, x: list[str]) -> StepResult:
        back = [x[0], self._taken_from[x[0]]]
        return self._check(_PUT, a, act, back) or self._put(a, act, back)

    def _drop(self, a: str, act: Action, x: list[str]) -> StepResult:
        return self._set_down_at(a, act, x[0], f"{self._room[a]}_corner", f"drops {self.the(x[0])} on the floor")

    def _give(self, a: str, act: Action, x: list[str]) -> StepResult:
        item, to = x
        self._near[a] = to
        return self._hand_to(a, act, item, to, f"gives {self.the(item)} to {self.the(to)}")

    def _move(self, a: str, act: Action, x: list[str]) -> StepResult:
        if x[0] in self._hands[a]:
            return self._check(_PUT, a, act, x) or self._put(a, act, x)
        refused = self._check(_MOVE, a, act, x)
        if refused is not None:
            return refused
        item, target = x
        self._move_item(item, target)
        dest = "to the corner" if target.endswith("_corner") else _to(self.where(target))
        return self._said(a, act, f"moves {self.the(item)} {dest}", (self._f(item, AT, target),), EventKind.MOVE)

    def _drink(self, a: str, act: Action, x: list[str]) -> StepResult:
        item = x[0]
        facts: list[Fact] = []
        liquid = self._contains.get(item)
        if liquid is not None:  # a filled cup (the row refuses an empty one)
            self._contains[item] = None
            facts.append(self._f(item, CONTAINS, None))
            phrase = f"drinks the {ITEM_KINDS[liquid].name if liquid in ITEM_KINDS else liquid} from {self.the(item)}"
        else:
            phrase = f"drinks some {self.items[item].name}"
        if self._feels.get(a) == "thirsty":
            self._feels[a] = None
            facts.append(self._f(a, FEELS, None))
        return self._said(a, act, phrase, tuple(facts))

    def _pour(self, a: str, act: Action, x: list[str]) -> StepResult:
        liquid, cup = x
        kind = self.items[liquid].kind
        self._contains[cup] = kind
        phrase = f"pours {self.items[liquid].name} into {self.the(cup)}"
        return self._said(a, act, phrase, (self._f(cup, CONTAINS, kind),))

    def _cut(self, a: str, act: Action, x: list[str]) -> StepResult:
        knife = next(i for i in self._hands[a] if Prop.CUTTER in self.items[i].props)
        return self._become(a, act, x[0], "cut", f"cuts {self.the(x[0])} with {self.the(knife)}")

    def _cook(self, a: str, act: Action, x: list[str]) -> StepResult:
        return self._become(a, act, x[0], "cooked", f"cooks {self.the(x[0])}")

    def _become(self, a: str, act: Action, item: str, state: str, phrase: str) -> StepResult:
        """``item`` is now ``state``, seen as ``phrase``."""
        self._state[item] = state
        return self._said(a, act, phrase, (self._f(item, STATE, state),))

    def _nothing(self, a: str, act: Action, x: list[str]) -> StepResult:
        return self._ok(act, ())

    # ---- speech ---------------------------------------------------------------------------------------------
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

    def _say(self, a: str, act: Action, x: list[str]) -> StepResult:
        listener = x[0]
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

    def _remind(self, a: str, act: Action, x: list[str]) -> StepResult:
        listener, item = x
        has, it_is, it = ("have", "they are", "them") if self.plural(item) else ("has", "it is", "it")
        words = act.text or (
            f"{self.name(listener)}, the {self.name(item)} {has} been moved; {it_is} no longer where you left {it}."
        )
        return self._speech(a, act, listener, words, act.facts or (self._f(item, AT, None),))


# ---- the verbs: what each takes, what must hold before it, what it does ------------------------------------------


class _Words(dict[str, object]):
    """What a refusal's message or an event's phrase names, computed when named: ``a`` (the actor), ``verb``,
    ``here`` (the actor's room), ``trait``, ``seat`` (what it sits on), and per argument ``i``: ``x{i}`` (its id),
    ``the{i}``, ``at{i}`` (where it is, as a phrase), ``where{i}`` (``in the ROOM``, or ``nowhere``), ``room{i}``,
    ``holder{i}``, ``closed{i}`` (the closed receptacle it is shut in), ``base{i}`` (the place under it),
    ``onbase{i}`` (that place as a phrase) and ``height{i}`` (its height), and ``hands`` (what the actor holds)."""

    def __init__(self, w: World, a: str, act: Action, x: list[str]) -> None:
        super().__init__()
        self.w, self.a, self.act, self.x = w, a, act, x

    def __missing__(self, key: str) -> object:
        w, a = self.w, self.a
        if key[-1].isdigit():
            name, eid = key[:-1], self.x[int(key[-1])]
            room = w.room_of(eid)
            per_arg: dict[str, Callable[[], object]] = {
                "x": lambda: eid,
                "the": lambda: w.the(eid),
                "at": lambda: w.where(eid),
                "where": lambda: f"in the {room}" if room is not None else "nowhere",
                "room": lambda: room,
                "holder": lambda: w.holder_of(eid),
                "closed": lambda: w._inside_closed(eid),
                "base": lambda: w.base_place(eid),
                "onbase": lambda: w.where(w.base_place(eid) or ""),
                "height": lambda: w.places[w.base_place(eid) or ""].height,
            }
            return per_arg[name]()
        actor: dict[str, Callable[[], object]] = {
            "a": lambda: a,
            "verb": lambda: self.act.verb,
            "here": lambda: w._room[a],
            "trait": lambda: w.chars[a].trait.value,
            "seat": lambda: w._sitting[a],
            "hands": lambda: ", ".join(w._hands[a]),
        }
        return actor[key]()


@dataclass(frozen=True)
class Need:
    """A precondition of a verb: ``ok(world, actor, args)``; when it is false the step is refused with ``kind``
    and ``message`` (a template over :class:`_Words`), the world unchanged, or, with ``seen`` (the phrase
    bystanders see), refused as an attempt others witness."""

    kind: FailureKind
    message: str
    ok: Callable[[World, str, list[str]], bool]
    seen: str | None = None


@dataclass(frozen=True)
class VerbRule:
    """A verb's row: its preconditions, checked in order once its arguments (its
    :class:`~mindloop.worlds.household.actions.VerbSpec`'s, up to the first that is words or a direction) are
    resolved, and its effect, run once they all hold."""

    needs: tuple[Need, ...]
    effect: Callable[[World, str, Action, list[str]], StepResult]


def _prop(i: int, prop: Prop | frozenset[Prop], kind: FailureKind, message: str) -> Need:
    """``x{i}`` has ``prop`` (or one of a set of them)."""
    if isinstance(prop, Prop):
        return Need(kind, message, lambda w, a, x: prop in w._props(x[i]))
    return Need(kind, message, lambda w, a, x: not prop.isdisjoint(w._props(x[i])))


def _here(i: int) -> Need:
    return Need(
        FailureKind.NOT_HERE,
        f"{{x{i}}} is {{where{i}}}, but {{a}} is in the {{here}}",
        lambda w, a, x: w.room_of(x[i]) == w._room[a],
    )


def _holding(i: int, message: str = "{a} is not holding {x0}") -> Need:
    return Need(FailureKind.NOT_HOLDING, message, lambda w, a, x: x[i] in w._hands[a])


def _reach(i: int, message: str, seen: str) -> Need:
    return Need(FailureKind.OUT_OF_REACH, message, lambda w, a, x: w._reachable(a, x[i]), seen)


def _tool(prop: Prop, message: str) -> Need:
    return Need(FailureKind.MISSING_TOOL, message, lambda w, a, x: any(prop in w.items[i].props for i in w._hands[a]))


def _can(what: str) -> Need:
    return Need(FailureKind.UNABLE, f"{{a}} cannot {what} ({{trait}})", lambda w, a, x: w.chars[a].trait not in _SEATED)


def _holds_things(w: World, eid: str) -> bool:
    return bool(w._props(eid) & _HOLDS)


_SEATED = (Trait.WHEELCHAIR, Trait.ROBOT)
_NO_POWER = "{x0} needs power and the power is out"
_HOLDS = frozenset({Prop.SURFACE, Prop.RECEPTACLE, Prop.FLOOR})
_OPEN_1 = Need(FailureKind.CONTAINER_CLOSED, "{x1} is closed; open it first", lambda w, a, x: w._open.get(x[1], True))
_NOT_SHUT_0 = Need(
    FailureKind.CONTAINER_CLOSED,
    "{x0} is inside {closed0}, which is closed",
    lambda w, a, x: w._inside_closed(x[0]) is None,
)
_IN_ROOM = Need(FailureKind.NOT_HERE, "{x0} is in the {room0}, not here", lambda w, a, x: w.room_of(x[0]) == w._room[a])
_FREE_0 = Need(FailureKind.HELD_BY_OTHER, "{x0} is held by {holder0}", lambda w, a, x: w.holder_of(x[0]) is None)
_NOT_HELD_YET = Need(
    FailureKind.ALREADY,
    "{a} is already holding {x0}",
    lambda w, a, x: w._kind[x[0]] is not EntityKind.ITEM or w.holder_of(x[0]) != a,
)
_STANDING = Need(FailureKind.SITTING, "{a} is sitting on {seat}; stand up first", lambda w, a, x: w._sitting[a] is None)
_PUT_HEAD = (
    _holding(0),
    Need(FailureKind.WRONG_ARGUMENT, "{x0} cannot be put on itself", lambda w, a, x: x[1] != x[0]),
)
_PUT_TAIL = (
    _prop(1, _HOLDS, FailureKind.NOT_A_SURFACE, "{x1} is not something to put things on or in"),
    Need(
        FailureKind.WRONG_ARGUMENT,
        "{x1} is being held; put it down first",
        lambda w, a, x: w._kind[x[1]] is not EntityKind.ITEM or w.holder_of(x[1]) is None,
    ),
    _here(1),
    _OPEN_1,
    _reach(1, "{x1} is out of {a}'s reach", "tries to put {the0} {at1} but cannot reach it"),
)
_PUT = (*_PUT_HEAD, *_PUT_TAIL)
"""Putting a held item (``x0``) on or in a place or item (``x1``)."""
_PUT_IN = (
    *_PUT_HEAD,
    _prop(1, Prop.RECEPTACLE, FailureKind.NOT_A_RECEPTACLE, "{x1} is not something to put things in"),
    *_PUT_TAIL,
)
_MOVE = (
    _FREE_0,
    Need(
        FailureKind.UNABLE,
        "{x0} is too heavy for {a} to move",
        lambda w, a, x: (
            Prop.OBSTACLE not in w.items[x[0]].props or w.chars[a].trait not in (Trait.CHILD, Trait.WHEELCHAIR)
        ),
    ),
    _here(0),
    _here(1),
    _NOT_SHUT_0,
    Need(
        FailureKind.NOT_A_SURFACE,
        "{x1} is not somewhere to move things to",
        lambda w, a, x: x[1] != x[0] and _holds_things(w, x[1]),
    ),
    _OPEN_1,
    Need(
        FailureKind.OUT_OF_REACH,
        "{x0} or {x1} is out of {a}'s reach",
        lambda w, a, x: Prop.GRASPABLE not in w.items[x[0]].props or (w._reachable(a, x[0]) and w._reachable(a, x[1])),
        "tries to move {the0} but cannot reach it",
    ),
    Need(FailureKind.ALREADY, "{x0} is already {at1}", lambda w, a, x: w._loc[x[0]] != x[1]),
)
"""Moving an item (``x0``) the actor does not hold to a place (``x1``)."""
_WALK = (
    Need(FailureKind.WRONG_ARGUMENT, "{a} cannot walk to itself", lambda w, a, x: x[0] != a),
    _NOT_HELD_YET,
    _STANDING,
)
_LOOK = (
    Need(FailureKind.WRONG_ARGUMENT, "{a} cannot {verb} itself", lambda w, a, x: x[0] != a),
    _here(0),
)
_ENTITY_ARGS = {
    name: tuple(takewhile(lambda k: k not in (ArgKind.TEXT, ArgKind.DIRECTION), spec.args))
    for name, spec in VERBS.items()
}
"""The arguments of each verb that name entities, resolved before its preconditions are checked."""


def _event(phrase: str) -> Callable[[World, str, Action, list[str]], StepResult]:
    """An effect that changes nothing but is seen: ``phrase`` (a template over :class:`_Words`)."""
    return lambda w, a, act, x: w._said(a, act, phrase.format_map(_Words(w, a, act, x)))


def _within_reach(prop: Prop, kind: FailureKind, lacking: str, too_far: str, *more: Need) -> VerbRule:
    """Opening or switching something: it has ``prop`` (else it ``lacking``), stands here and within reach (else
    it ``too_far``, an attempt others see), then ``more``; the effect is the verb's."""
    effect = World._open_close if prop is Prop.OPENABLE else World._switch_onoff
    reach = _reach(0, "{x0} " + too_far, "reaches for {the0} but cannot reach it")
    return VerbRule((_prop(0, prop, kind, "{x0} " + lacking), _here(0), reach, *more), effect)


def _not_yet(state: str, flags: str, value: bool) -> Need:
    """``x0`` (its flag in the world's ``flags``) is not already ``value``, which reads as ``state``."""
    return Need(FailureKind.ALREADY, f"{{x0}} is already {state}", lambda w, a, x: getattr(w, flags)[x[0]] != value)


_OPENING = (Prop.OPENABLE, FailureKind.NOT_OPENABLE, "does not open or close", "is too high or too low for {a}")
_SWITCHING = (Prop.SWITCHABLE, FailureKind.NOT_SWITCHABLE, "has no switch", "is out of {a}'s reach")


VERB_RULES: Mapping[str, VerbRule] = {
    "walk": VerbRule(_WALK, World._go),
    "run": VerbRule(
        (
            *_WALK,
            Need(
                FailureKind.UNABLE,
                "{a} uses a wheelchair and cannot run",
                lambda w, a, x: w.chars[a].trait is not Trait.WHEELCHAIR,
            ),
        ),
        World._go,
    ),
    "walkaround": VerbRule(
        (
            Need(
                FailureKind.NOT_HERE, "{a} is in the {here}, not the {x0}", lambda w, a, x: not x or x[0] == w._room[a]
            ),
            Need(FailureKind.SITTING, "{a} is sitting; stand up first", lambda w, a, x: w._sitting[a] is None),
        ),
        World._walkaround,
    ),
    "turn": VerbRule((), World._turn),
    "sit": VerbRule(
        (
            _can("sit down"),
            _prop(0, Prop.SITTABLE, FailureKind.NOT_SITTABLE, "{x0} is not something to sit on"),
            _IN_ROOM,
            Need(FailureKind.ALREADY, "{a} is already sitting on {seat}", lambda w, a, x: w._sitting[a] is None),
        ),
        World._sit,
    ),
    "sleep": VerbRule(
        (_can("lie down here"), _prop(0, Prop.BED, FailureKind.NOT_SITTABLE, "{x0} is not a bed"), _IN_ROOM),
        World._sit,
    ),
    "standup": VerbRule(
        (
            _can("stand up"),
            Need(FailureKind.ALREADY, "{a} is already standing", lambda w, a, x: w._sitting[a] is not None),
        ),
        World._standup,
    ),
    "open": _within_reach(*_OPENING, _not_yet("open", "_open", True)),
    "close": _within_reach(*_OPENING, _not_yet("closed", "_open", False)),
    "switchon": _within_reach(
        *_SWITCHING,
        Need(
            FailureKind.NO_POWER,
            _NO_POWER,
            lambda w, a, x: w.power or Prop.NEEDS_POWER not in w._props(x[0]),
            "flips the switch of {the0}, but nothing happens",
        ),
        _not_yet("on", "_switch", True),
    ),
    "switchoff": _within_reach(*_SWITCHING, _not_yet("off", "_switch", False)),
    "pick": VerbRule(
        (
            Need(
                FailureKind.NOT_GRASPABLE,
                "{x0} cannot be picked up; move it instead",
                lambda w, a, x: bool(w.items[x[0]].props & {Prop.GRASPABLE}) or Prop.MOVABLE not in w.items[x[0]].props,
            ),
            _prop(0, Prop.GRASPABLE, FailureKind.NOT_GRASPABLE, "{x0} cannot be picked up; pour it into a cup instead"),
            _NOT_HELD_YET,
            _FREE_0,
            _here(0),
            _NOT_SHUT_0,
            _reach(
                0,
                "{x0} is on {base0} at {height0} m, out of {a}'s reach",
                "reaches for {the0} {onbase0} but cannot reach it",
            ),
            Need(FailureKind.HANDS_FULL, "{a}'s hands are full ({hands})", lambda w, a, x: len(w._hands[a]) < HANDS),
        ),
        World._pick,
    ),
    "place": VerbRule(_PUT, World._put),
    "putin": VerbRule(_PUT_IN, World._put),
    "putback": VerbRule(
        (
            _holding(0),
            Need(
                FailureKind.WRONG_ARGUMENT,
                "{x0} was not picked up from a place",
                lambda w, a, x: (
                    (src := w._taken_from.get(x[0])) is not None and w._kind.get(src) is not EntityKind.AGENT
                ),
            ),
        ),
        World._putback,
    ),
    "drop": VerbRule((_holding(0),), World._drop),
    "give": VerbRule(
        (
            _holding(0),
            Need(FailureKind.WRONG_ARGUMENT, "{a} cannot give {x0} to itself", lambda w, a, x: x[1] != a),
            Need(
                FailureKind.NOT_HERE,
                "{x1} is in the {room1}, not with {a}",
                lambda w, a, x: w._room[x[1]] == w._room[a],
            ),
            Need(FailureKind.HANDS_FULL, "{x1}'s hands are full", lambda w, a, x: len(w._hands[x[1]]) < HANDS),
        ),
        World._give,
    ),
    "move": VerbRule(
        (_prop(0, frozenset({Prop.GRASPABLE, Prop.MOVABLE}), FailureKind.NOT_MOVABLE, "{x0} cannot be moved"),),
        World._move,
    ),
    "drink": VerbRule(
        (
            Need(FailureKind.UNABLE, "the robot does not drink", lambda w, a, x: a != ROBOT),
            _holding(0),
            _prop(
                0, frozenset({Prop.CONTAINER, Prop.LIQUID}), FailureKind.WRONG_ARGUMENT, "{x0} is nothing to drink from"
            ),
            Need(
                FailureKind.EMPTY,
                "{x0} is empty",
                lambda w, a, x: Prop.CONTAINER not in w.items[x[0]].props or w._contains.get(x[0]) is not None,
            ),
        ),
        World._drink,
    ),
    "pour": VerbRule(
        (
            _prop(0, Prop.LIQUID, FailureKind.WRONG_ARGUMENT, "{x0} is not a liquid"),
            _prop(1, Prop.CONTAINER, FailureKind.NOT_A_RECEPTACLE, "{x1} cannot hold a liquid"),
            _holding(1, "{a} must hold {x1} to pour into it"),
            Need(
                FailureKind.NOT_HOLDING,
                "{a} must hold {x0} to pour it",
                lambda w, a, x: Prop.GRASPABLE not in w.items[x[0]].props or x[0] in w._hands[a],
            ),
            Need(
                FailureKind.NO_LIQUID,
                "there is no {x0} in the {here}",
                lambda w, a, x: Prop.GRASPABLE in w.items[x[0]].props or w.room_of(x[0]) == w._room[a],
            ),
            Need(FailureKind.ALREADY, "{x1} is already full", lambda w, a, x: w._contains.get(x[1]) is None),
        ),
        World._pour,
    ),
    "lookat": VerbRule(_LOOK, _event("looks at {the0}")),
    "touch": VerbRule(_LOOK, _event("touches {the0}")),
    "listen": VerbRule(_LOOK, _event("listens to {the0}")),
    "read": VerbRule(
        (
            _prop(0, Prop.READABLE, FailureKind.WRONG_ARGUMENT, "{x0} is nothing to read"),
            _holding(0, "{a} must hold {x0} to read it"),
        ),
        _event("reads {the0}"),
    ),
    "write": VerbRule(
        (
            _prop(0, Prop.WRITABLE, FailureKind.WRONG_ARGUMENT, "{x0} is nothing to write in"),
            _here(0),
            _tool(Prop.WRITER, "{a} needs to hold a pen to write"),
        ),
        _event("writes in {the0}"),
    ),
    "watch": VerbRule(
        (
            _prop(0, Prop.WATCHABLE, FailureKind.WRONG_ARGUMENT, "{x0} is nothing to watch"),
            _here(0),
            Need(FailureKind.NO_POWER, _NO_POWER, lambda w, a, x: w.power),
            Need(FailureKind.UNABLE, "{x0} is switched off", lambda w, a, x: w._switch.get(x[0], False)),
        ),
        _event("watches {the0}"),
    ),
    "cut": VerbRule(
        (
            _prop(0, Prop.CUTTABLE, FailureKind.WRONG_ARGUMENT, "{x0} cannot be cut"),
            _here(0),
            Need(
                FailureKind.WRONG_ARGUMENT,
                "put {x0} down on something before cutting it",
                lambda w, a, x: w.holder_of(x[0]) is None,
            ),
            _tool(Prop.CUTTER, "{a} needs to hold a knife to cut {x0}"),
        ),
        World._cut,
    ),
    "cook": VerbRule(
        (
            _here(0),
            Need(
                FailureKind.WRONG_ARGUMENT,
                "{x0} must be on the stove to cook it",
                lambda w, a, x: (base := w.base_place(x[0])) is not None and Prop.COOKER in w.places[base].props,
            ),
            Need(
                FailureKind.UNABLE,
                "{base0} is switched off",
                lambda w, a, x: w._switch.get(w.base_place(x[0]) or "", False),
            ),
        ),
        World._cook,
    ),
    "hold": VerbRule((_holding(0),), World._nothing),
    "wait": VerbRule((), World._nothing),
    "say": VerbRule((), World._say),
    "remind": VerbRule((), World._remind),
}
"""Every verb's row (:class:`VerbRule`): what must hold before it and what it does; its arguments are its
:data:`~mindloop.worlds.household.actions.VERBS` entry's."""


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

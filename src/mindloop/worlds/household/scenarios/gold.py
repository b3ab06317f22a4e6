"""Gold annotations computed from the world and the belief store, never typed by hand.

Given a played :class:`~mindloop.worlds.household.scenarios.episode.Episode` and its :class:`Focus` (what the
story is about: which human and which object, as a MindPower script names them), :func:`derive_gold` works out

* what the robot perceived (its witnessed events, told as the paper's ``<Perception>``);
* what it believes and what it believes the human believes (tracker queries on ``("robot",)`` and
  ``("robot", human)``), and what the human is doing (searching, failing to reach, blocked, ...);
* whether help is needed, which :class:`~mindloop.worlds.household.goals.Goal` that help serves, and the plan
  that achieves it — run on a copy of the world before it is accepted;
* the six layers in the paper's style and the atomic-action form of Table 3.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mindloop.beliefs import Tracker
from mindloop.errors import InvalidArgumentError
from mindloop.worlds.household.actions import format_actions
from mindloop.worlds.household.characters import Character
from mindloop.worlds.household.goals import Goal, GoalKind
from mindloop.worlds.household.narration import perceived, summarize
from mindloop.worlds.household.planner import check_plan, plan_for
from mindloop.worlds.household.results import FailureKind, WorldEvent
from mindloop.worlds.household.scenarios.episode import Episode
from mindloop.worlds.household.scenarios.model import AtomicActions, Gold, GoldBelief
from mindloop.worlds.household.vocab import AT, FEELS, HOUSE, POWER, ROBOT, ROOM, SWITCH, EntityKind, Prop
from mindloop.worlds.household.world import World

__all__ = [
    "COMBOS",
    "FAMILIES",
    "NEEDS",
    "Combo",
    "Focus",
    "Need",
    "combo_for",
    "derive_gold",
    "need_item",
    "perception_atoms",
]

R = (ROBOT,)
FAMILIES = ("find", "reach", "blocked", "faucet", "power", "combo", "dialogue")
"""How the robot must reason in a scenario: which cues it reads and which help can follow."""

SEARCH_VERBS = frozenset({"walkaround", "lookat", "open", "turn"})
"""Verbs that, after coming back or after a setback, show someone looking for something."""


@dataclass(frozen=True, slots=True)
class Focus:
    """What a scenario is about: the reasoning ``family``, the ``human`` concerned and the ``target`` object."""

    family: str
    human: str
    target: str

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise InvalidArgumentError(f"unknown scenario family {self.family!r} (known: {', '.join(FAMILIES)})")


@dataclass(frozen=True, slots=True)
class Combo:
    """A functional combination: items set out for a task that also needs ``tool``."""

    name: str
    present: tuple[str, ...]
    tool: str
    task: str


COMBOS: tuple[Combo, ...] = (
    Combo("cut_carrot", ("cutting_board", "carrot"), "knife", "cut the carrot"),
    Combo("slice_bread", ("cutting_board", "bread"), "knife", "slice the bread"),
    Combo("cereal", ("bowl", "cereal"), "milk", "have a bowl of cereal with milk"),
    Combo("fry_egg", ("frying_pan",), "egg", "fry an egg"),
    Combo("write_note", ("notebook",), "pen", "write in the notebook"),
    Combo("brush_teeth", ("toothbrush",), "toothpaste", "brush the teeth"),
)
"""Known usage pairs and triplets (B.1 (3): knife + cutting board + carrot means cutting carrots)."""


@dataclass(frozen=True, slots=True)
class Need:
    """A bodily state a human can mention, and what meets it."""

    feeling: str
    state: str  # "is thirsty"
    kinds: tuple[str, ...]  # item kinds that meet it, in order of preference
    liquid: str  # fill the item with this first ("water"), or ""
    offer: str  # "a glass of water"
    relief: str  # "relieve {poss} thirst"


NEEDS: dict[str, Need] = {
    n.feeling: n
    for n in (
        Need("thirsty", "is thirsty", ("glass", "cup", "mug"), "water", "a glass of water", "relieve {poss} thirst"),
        Need("cold", "is cold", ("blanket",), "", "a blanket", "get warm"),
        Need(
            "hungry",
            "is hungry",
            ("apple", "banana", "cookies", "cupcake", "orange"),
            "",
            "something to eat",
            "have a snack",
        ),
        Need("headache", "has a headache", ("medicine",), "", "some medicine", "ease {poss} headache"),
        Need("cannot_read", "cannot read the small print", ("glasses",), "", "{poss} reading glasses", "read"),
    )
}
"""Dialogue-driven needs (B.1 (4)) by feeling."""


# ---- small helpers --------------------------------------------------------------------------------------------
def _place_of(world: World, value: str | None) -> str:
    """How a believed location reads: ``on the kitchen table``, ``with David``, ``somewhere unknown``."""
    if value is None:
        return "somewhere unknown"
    return world.where(value)


def _from(world: World, holder: str) -> str:
    where = world.where(holder)
    return "from " + where.split(" ", 1)[1] if where.startswith(("on ", "in ")) else "from " + where


def _out_of(world: World, holder: str) -> str:
    """``out of the fridge`` for a receptacle, else ``from the kitchen table``."""
    if holder in world.places and Prop.RECEPTACLE in world.places[holder].props:
        return f"out of the {world.places[holder].name}"
    return _from(world, holder)


def _is(world: World, item: str) -> str:
    return "are" if world.plural(item) else "is"


def _it(world: World, item: str) -> str:
    return "them" if world.plural(item) else "it"


def _atom(verb: str, *args: str) -> str:
    return f"{verb}({', '.join(args)})"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _last_enter(events: Sequence[WorldEvent], human: str) -> int:
    t = 0
    for e in events:
        if e.actor == human and e.kind == "enter":
            t = e.t
    return t


def _searching(seen: Sequence[WorldEvent], human: str, since: int, target: str) -> bool:
    """Did the robot see ``human`` look about (walk around, look at, open, turn) after ``since`` without taking
    ``target``?"""
    looked = False
    for e in seen:
        if e.actor != human or e.t <= since:
            continue
        if e.verb == "pick" and e.args and e.args[0] == target and e.failure is None:
            return False
        if e.verb in SEARCH_VERBS:
            looked = True
    return looked


def perception_atoms(seen: Sequence[WorldEvent], world: World) -> tuple[str, ...]:
    """Scene atomic actions (C.1 templates ``verb(character, object, from=..., to=...)``) of perceived events."""
    out: list[str] = []
    merged: list[WorldEvent] = []
    for e in seen:
        if merged and e.kind == "enter" and merged[-1].kind == "exit" and merged[-1].actor == e.actor:
            merged[-1] = e
        else:
            merged.append(e)
    for e in merged:
        who = e.actor or "house"
        verb, args = e.verb, e.args
        if e.actor is None:
            out.append(_atom(verb, "house"))
            continue
        if e.is_utterance:
            out.append(_atom("say", who, *args[:1]))
            continue
        if e.failure is not None:
            out.append(_atom(verb, who, *args, "failed"))
            continue
        if e.kind == "exit":
            out.append(_atom("walk", who, f"from={e.room}"))
        elif e.kind == "enter" or verb == "walkaround":
            out.append(_atom("walk", who, e.room or ""))
        elif verb in ("walk", "run"):
            out.append(_atom(verb, who, *args))
        elif verb == "pick":
            src = _taken_from(e, seen, world)
            out.append(_atom("pick", who, args[0], *([f"from={src}"] if src else [])))
        elif verb in ("place", "putin", "putback", "move", "give", "drop"):
            to = e.facts[0].value if e.facts else ""
            name = "place" if verb == "drop" else verb
            out.append(_atom(name, who, args[0], f"to={to}"))
        else:
            out.append(_atom(verb, who, *args))
    return tuple(out)


def _taken_from(event: WorldEvent, seen: Sequence[WorldEvent], world: World) -> str:
    """Where a picked item lay just before (the latest perceived fact about it)."""
    item = event.args[0]
    last = ""
    for e in seen:
        if e.t >= event.t:
            break
        for f in e.facts:
            if f.subject == item and f.relation == AT and f.value:
                last = f.value
    return last


# ---- the derivation -------------------------------------------------------------------------------------------
@dataclass
class _Draft:
    """Layer texts and atoms under construction."""

    belief: str
    desire: str
    intention: str
    decision: str
    belief_atoms: list[str]
    desire_atoms: list[str]
    intention_atoms: list[str]
    decision_atoms: list[str]
    beliefs: list[GoldBelief]
    goal: Goal


_NO_HELP_DECISION = "No help is needed now, so I keep watching and do not intervene."


def derive_gold(episode: Episode, focus: Focus) -> tuple[Gold, Goal]:
    """The gold annotation and the goal it serves, for a played episode (see the module docstring)."""
    world, tracker = episode.world, episode.tracker
    seen = perceived(episode.events, ROBOT)
    names = {a: world.chars[a].name for a in world.chars}
    builder = {
        "find": _find,
        "reach": _reach,
        "blocked": _blocked,
        "faucet": _faucet,
        "power": _power,
        "combo": _combo,
        "dialogue": _dialogue,
    }[focus.family]
    draft = builder(world, tracker, seen, focus)
    goal = draft.goal
    help_needed = goal.kind is not GoalKind.NONE
    plan = plan_for(goal, world)
    if help_needed:
        check_plan(goal, world, plan, tracker)
    plan_atoms = (_atom("plan_action", ROBOT, *(str(a) for a in plan)),)
    atomic = AtomicActions(
        perception=perception_atoms(seen, world),
        belief=tuple(draft.belief_atoms),
        desire=tuple(draft.desire_atoms),
        intention=tuple(draft.intention_atoms),
        decision=tuple(draft.decision_atoms),
        action=plan_atoms,
    )
    gold = Gold(
        perception=summarize(episode.events, names),
        belief=draft.belief,
        desire=draft.desire,
        intention=draft.intention,
        decision=draft.decision,
        action=format_actions(plan),
        actions=tuple(str(a) for a in plan),
        atomic=atomic,
        beliefs=tuple(draft.beliefs),
        help_needed=help_needed,
    )
    return gold, goal


def _gb(tracker: Tracker, chain: tuple[str, ...], subject: str, relation: str) -> GoldBelief:
    return GoldBelief(
        chain, subject, relation, tracker.value(chain, subject, relation), tracker.world(subject, relation)
    )


def _no_help(h: Character, about: str) -> tuple[str, str, list[str], list[str]]:
    desire = f"I want to help {h.name}, but {h.subj} does not need my help {about} right now."
    intention = f"I will not interfere, and keep an eye on {h.name} in case {h.subj} needs me later."
    return (
        desire,
        intention,
        [_atom("attribute_desire", ROBOT, _atom("no_assist", h.id))],
        [_atom("form_intention", ROBOT, "wait")],
    )


def _find(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> _Draft:
    h, o = world.chars[focus.human], focus.target
    oname = world.name(o)
    bel_h = tracker.value((ROBOT, h.id), o, AT)
    bel_r = tracker.value(R, o, AT)
    beliefs = [_gb(tracker, (ROBOT, h.id), o, AT), _gb(tracker, R, o, AT), _gb(tracker, (h.id,), o, AT)]
    searching = _searching(seen, h.id, _last_enter(seen, h.id), o)
    belief_atoms = []
    if searching:
        belief_atoms.append(_atom("attribute_belief", ROBOT, _atom("searching", h.id, o)))
    belief_atoms.append(
        _atom("attribute_belief", ROBOT, _atom("human_believes", h.id, _atom("object_on", o, bel_h or "unknown")))
    )
    robot_knows = bel_r is not None and world.kind_of(bel_r) in (EntityKind.PLACE, EntityKind.ITEM)
    if bel_r == h.id:
        robot_knows = True
    if robot_knows:
        belief_atoms.append(_atom("hold_true_belief", ROBOT, _atom("object_on", o, str(bel_r))))
    else:
        belief_atoms.append(_atom("lack_belief", ROBOT, _atom("object_on", o, "unknown")))

    conflict = bel_h != bel_r
    if not conflict or not searching:
        if not conflict:
            if bel_h == h.id:
                belief = (
                    f"I believe {h.name} has the {oname} now, so {h.subj} knows where {_it(world, o)} {_is(world, o)}."
                )
            else:
                belief = (
                    f"I believe {h.name} knows that the {oname} {_is(world, o)} {_place_of(world, bel_h)}, and "
                    f"{'they really are' if world.plural(o) else 'it really is'} there."
                )
        else:
            belief = (
                f"I believe {h.name} still thinks the {oname} {_is(world, o)} {_place_of(world, bel_h)}, but "
                f"{'they are' if world.plural(o) else 'it is'} actually {_place_of(world, bel_r)}. "
                f"{_cap(h.subj)} is not looking for {_it(world, o)} now."
            )
        desire, intention, d_atoms, i_atoms = _no_help(h, f"with the {oname}")
        if conflict:
            intention = (
                f"I will remember that the {oname} {_is(world, o)} {_place_of(world, bel_r)}, and tell {h.name} "
                f"if {h.subj} starts looking for {_it(world, o)}."
            )
        return _Draft(
            belief,
            desire,
            intention,
            _NO_HELP_DECISION,
            belief_atoms,
            d_atoms,
            i_atoms,
            [_atom("make_decision", ROBOT, "wait")],
            beliefs,
            Goal(GoalKind.NONE, h.id, o),
        )

    lead = f"I think {h.name} is looking for the {oname}."
    desire = (
        f"I want to help {h.name} find the {oname}, and resolve the mismatch between {h.poss} belief and the real "
        "state of the world."
    )
    d_atoms = [_atom("attribute_desire", ROBOT, _atom("assist", h.id, _atom("find", o)))]
    conflict_atom = _atom("resolve_misbelief", ROBOT, _atom("belief_conflict", h.id, o, bel_h or "unknown"))
    if robot_knows:
        assert bel_r is not None
        tidied = _last_mover(seen, o) == ROBOT
        where_r = _place_of(world, bel_r) + (f", where I put {_it(world, o)} while tidying up" if tidied else "")
        belief = (
            f"{lead} I believe {h.subj} thinks the {oname} {_is(world, o)} {_place_of(world, bel_h)}, but I also "
            f"believe the {oname} {_is(world, o)} actually {where_r}."
        )
        base = world.base_place(o)
        src = base or bel_r
        closed = base is not None and Prop.OPENABLE in world.places[base].props and not world.is_open(base)
        intention = f"I want to take the {oname} {_out_of(world, src)} and hand it to {h.name}."
        how = f"opening the {world.name(src)} and giving" if closed else "bringing"
        decision = f"I need to correct {h.poss} false belief by {how} the {oname} to {h.name}."
        fetch = _atom("fetch", o, f"from={src}", f"to={h.id}")
        return _Draft(
            belief,
            desire,
            intention,
            decision,
            belief_atoms,
            d_atoms,
            [_atom("form_intention", ROBOT, fetch)],
            [conflict_atom, _atom("make_decision", ROBOT, fetch)],
            beliefs,
            Goal(GoalKind.DELIVER, h.id, o),
        )

    mover = bel_r if bel_r is not None and world.kind_of(bel_r) is EntityKind.AGENT else None
    exit_room = _last_exit_room(seen, mover) if mover else None
    if mover is not None:
        gone = f"out of the {world.room_names[exit_room]}" if exit_room else "out of my view"
        it = _it(world, o)
        saw = (
            f"I saw {world.the(mover)} take {it} and carry {it} {gone}, so I do not know where the {oname} "
            f"{_is(world, o)} now."
        )
    else:
        saw = f"I do not know where the {oname} {_is(world, o)} now."
    belief = f"{lead} I believe {h.subj} thinks the {oname} {_is(world, o)} still {_place_of(world, bel_h)}, but {saw}"
    intention = (
        f"I want to tell {h.name} that the {oname} {'have' if world.plural(o) else 'has'} been moved, so {h.subj} "
        "stops searching "
        f"{_place_of(world, bel_h)}."
    )
    who = (
        f"{world.the(mover)} took the {oname} away"
        if mover
        else f"the {oname} {'have' if world.plural(o) else 'has'} been moved"
    )
    decision = f"I need to correct {h.poss} false belief by reminding {h.obj} that {who}."
    remind = _atom("remind", h.id, o)
    return _Draft(
        belief,
        desire,
        intention,
        decision,
        belief_atoms,
        d_atoms,
        [_atom("form_intention", ROBOT, remind)],
        [conflict_atom, _atom("make_decision", ROBOT, remind)],
        beliefs,
        Goal(GoalKind.INFORM, h.id, o),
    )


def _last_mover(seen: Sequence[WorldEvent], item: str) -> str | None:
    mover = None
    for e in seen:
        if e.verb in ("place", "putin", "putback", "move", "drop") and e.args and e.args[0] == item:
            mover = e.actor
    return mover


def _last_exit_room(seen: Sequence[WorldEvent], agent: str | None) -> str | None:
    room = None
    for e in seen:
        if e.actor == agent and e.kind == "exit":
            room = e.room
    return room


def _reach(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> _Draft:
    h, o = world.chars[focus.human], focus.target
    oname = world.name(o)
    attempts = [e for e in seen if e.actor == h.id and e.failure is FailureKind.OUT_OF_REACH and e.args[:1] == (o,)]
    bel_r = tracker.value(R, o, AT)
    beliefs = [_gb(tracker, R, o, AT)]
    if not attempts or bel_r == h.id:
        took = [e for e in seen if e.actor == h.id and e.verb == "pick" and e.args[:1] == (o,) and e.failure is None]
        src = _taken_from(took[-1], seen, world) if took else ""
        belief = (
            f"I believe {h.name} wanted the {oname} and took {_it(world, o)} {_from(world, src) if src else ''} "
            f"{'herself' if h.gender == 'f' else 'himself'}; {'they were' if world.plural(o) else 'it was'} within "
            f"{h.poss} reach."
        ).replace("  ", " ")
        desire, intention, d_atoms, i_atoms = _no_help(h, f"with the {oname}")
        return _Draft(
            belief,
            desire,
            intention,
            _NO_HELP_DECISION,
            [_atom("attribute_belief", ROBOT, _atom("has", h.id, o))],
            d_atoms,
            i_atoms,
            [_atom("make_decision", ROBOT, "wait")],
            beliefs,
            Goal(GoalKind.NONE, h.id, o),
        )
    place = world.base_place(o) or str(bel_r)
    height = world.places[place].height if place in world.places else 1.0
    too = "high" if height > h.reach_max else "low"
    chair = f" from {h.poss} wheelchair" if h.trait.value == "wheelchair" else ""
    belief = (
        f"I think {h.name} wants the {oname} {world.where(place)}, but I believe the {world.name(place)} is too "
        f"{too} for {h.obj} to reach{chair}."
    )
    if Prop.FLOOR in world.places[place].props:
        belief = (
            f"I think {h.name} wants the {oname} on the floor, but I believe {_it(world, o).replace('them', 'they')} "
            f"{_is(world, o)} too low for {h.obj} to reach{chair}."
        )
    desire = f"I want to help {h.name} get the {oname} that {h.subj} cannot reach."
    intention = f"I want to pick up the {oname} {_from(world, place)} and hand it to {h.name}."
    decision = f"I need to achieve {h.poss} hidden goal by getting the {oname} and giving {_it(world, o)} to {h.name}."
    fetch = _atom("fetch", o, f"from={place}", f"to={h.id}")
    return _Draft(
        belief,
        desire,
        intention,
        decision,
        [
            _atom("attribute_belief", ROBOT, _atom("wants", h.id, o)),
            _atom("attribute_belief", ROBOT, _atom("cannot_reach", h.id, o)),
            _atom("hold_true_belief", ROBOT, _atom("object_on", o, place)),
        ],
        [_atom("attribute_desire", ROBOT, _atom("assist", h.id, _atom("get", o)))],
        [_atom("form_intention", ROBOT, fetch)],
        [_atom("make_decision", ROBOT, fetch)],
        beliefs,
        Goal(GoalKind.DELIVER, h.id, o),
    )


def _blocked(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> _Draft:
    h, ob = world.chars[focus.human], focus.target
    obname = world.name(ob)
    attempts = [e for e in seen if e.actor == h.id and e.failure is FailureKind.BLOCKED]
    where = tracker.value(R, ob, AT) or ""
    beliefs = [_gb(tracker, R, ob, AT)]
    if not attempts or not where.endswith("_doorway"):
        desire, intention, d_atoms, i_atoms = _no_help(h, "getting around")
        belief = f"I believe nothing blocks {h.name}'s way."
        return _Draft(
            belief,
            desire,
            intention,
            _NO_HELP_DECISION,
            [],
            d_atoms,
            i_atoms,
            [_atom("make_decision", ROBOT, "wait")],
            beliefs,
            Goal(GoalKind.NONE, h.id, ob),
        )
    target = attempts[-1].args[0] if attempts[-1].args else ""
    dest = world.room_of(target) if target else None
    room = world.places[where].room
    goal_text = (
        f"go into the {world.room_names[dest]}" if dest and dest != room else f"get out of the {world.room_names[room]}"
    )
    belief = (
        f"I think {h.name} wants to {goal_text}, but I believe the {obname} in the doorway blocks {h.poss} wheelchair."
    )
    desire = f"I should help {h.name} achieve {h.poss} goal of getting through the doorway."
    intention = f"I want to move the {obname} to the corner, out of {h.poss} way."
    decision = f"I need to achieve {h.poss} hidden goal by moving the {obname} out of the way."
    move = _atom("move", ob, f"to={room}_corner")
    return _Draft(
        belief,
        desire,
        intention,
        decision,
        [
            _atom("attribute_belief", ROBOT, _atom("wants", h.id, _atom("go", dest or room))),
            _atom("hold_true_belief", ROBOT, _atom("object_on", ob, where)),
            _atom("attribute_belief", ROBOT, _atom("blocked", h.id, ob)),
        ],
        [_atom("attribute_desire", ROBOT, _atom("assist", h.id, _atom("move", ob)))],
        [_atom("form_intention", ROBOT, move)],
        [_atom("make_decision", ROBOT, move)],
        beliefs,
        Goal(GoalKind.CLEAR, h.id, ob),
    )


def _faucet(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> _Draft:
    h, f = world.chars[focus.human], focus.target
    fname = world.name(f)
    running = tracker.value(R, f, SWITCH) == "on"
    h_room = tracker.value(R, h.id, ROOM)
    f_room = world.places[f].room
    beliefs = [_gb(tracker, R, f, SWITCH), _gb(tracker, R, h.id, ROOM)]
    turned_on = any(e.actor == h.id and e.verb == "switchon" and e.args[:1] == (f,) for e in seen)
    if not (running and turned_on and h_room != f_room):
        belief = (
            f"I believe {h.name} turned the {fname} off before leaving the {world.room_names[f_room]}; no water is "
            "running."
        )
        if running:
            belief = f"I believe {h.name} is still using the {fname}."
        desire, intention, d_atoms, i_atoms = _no_help(h, f"with the {fname}")
        return _Draft(
            belief,
            desire,
            intention,
            _NO_HELP_DECISION,
            [_atom("hold_true_belief", ROBOT, _atom("switched_off" if not running else "switched_on", f))],
            d_atoms,
            i_atoms,
            [_atom("make_decision", ROBOT, "wait")],
            beliefs,
            Goal(GoalKind.NONE, h.id, f),
        )
    belief = (
        f"I believe {h.name} turned on the {fname} and left the {world.room_names[f_room]} without turning it off; "
        f"the {fname} is still running and wasting water."
    )
    desire = f"I want to help {h.name} by making sure the water is not wasted."
    intention = f"I want to go to the {fname} and turn it off."
    decision = f"I need to turn off the {fname} that {h.name} left running."
    return _Draft(
        belief,
        desire,
        intention,
        decision,
        [
            _atom("hold_true_belief", ROBOT, _atom("switched_on", f)),
            _atom("attribute_belief", ROBOT, _atom("left", h.id, f_room)),
            _atom("attribute_belief", ROBOT, _atom("human_believes", h.id, _atom("switched_off", f))),
        ],
        [_atom("attribute_desire", ROBOT, _atom("assist", h.id, _atom("switchoff", f)))],
        [_atom("form_intention", ROBOT, _atom("switchoff", f))],
        [_atom("make_decision", ROBOT, _atom("switchoff", f))],
        beliefs,
        Goal(GoalKind.SWITCH_OFF, h.id, f),
    )


def _power(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> _Draft:
    h, c = world.chars[focus.human], focus.target
    cname = world.name(c)
    out = tracker.value(R, HOUSE, POWER) == "off"
    cut_at = max((e.t for e in seen if e.actor is None and e.verb == "powercut"), default=0)
    searching = out and _searching(seen, h.id, cut_at, c)
    where = tracker.value(R, c, AT)
    beliefs = [_gb(tracker, R, HOUSE, POWER), _gb(tracker, R, c, AT)]
    lights = [i for i, it in world.items.items() if Prop.LIGHT_SOURCE in it.props]
    if not searching or world.holder_of(c) == h.id or where is None:
        belief = f"I believe {h.name} has what {h.subj} needs."
        desire, intention, d_atoms, i_atoms = _no_help(h, "")
        return _Draft(
            belief,
            desire,
            intention.replace("  ", " "),
            _NO_HELP_DECISION,
            [],
            d_atoms,
            i_atoms,
            [_atom("make_decision", ROBOT, "wait")],
            beliefs,
            Goal(GoalKind.NONE, h.id, c),
        )
    place = world.base_place(c) or where
    belief = (
        f"I believe the power has gone out, and I think {h.name} is looking for something to light the room. There "
        f"is no flashlight, but I know there is a {cname} {world.where(place)}."
    )
    if len(lights) > 1:
        belief = belief.replace("There is no flashlight, but I", "I")
    desire = f"I want to help {h.name} find a light in the dark."
    intention = f"I want to take the {cname} {_out_of(world, place)} and hand it to {h.name}."
    decision = f"I need to achieve {h.poss} hidden goal by bringing {h.obj} the {cname}."
    fetch = _atom("fetch", c, f"from={place}", f"to={h.id}")
    return _Draft(
        belief,
        desire,
        intention,
        decision,
        [
            _atom("hold_true_belief", ROBOT, _atom("power_off", HOUSE)),
            _atom("attribute_belief", ROBOT, _atom("searching", h.id, "light")),
            _atom("know", ROBOT, _atom("object_on", c, place)),
        ],
        [_atom("attribute_desire", ROBOT, _atom("assist", h.id, _atom("find", c)))],
        [_atom("form_intention", ROBOT, fetch)],
        [_atom("make_decision", ROBOT, fetch)],
        beliefs,
        Goal(GoalKind.DELIVER, h.id, c),
    )


def combo_for(handled: Sequence[str]) -> Combo | None:
    """The known combination best matching items someone set out (most items in common; first on ties)."""
    kinds = set(handled)
    best: Combo | None = None
    for combo in COMBOS:
        if set(combo.present) <= kinds and (best is None or len(combo.present) > len(best.present)):
            best = combo
    return best


def _combo(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> _Draft:
    h = world.chars[focus.human]
    handled: list[str] = []
    last_set = 0
    for e in seen:
        if e.actor == h.id and e.failure is None and e.verb in ("pick", "place", "putin") and e.args:
            kind = world.items[e.args[0]].kind
            if kind not in handled:
                handled.append(kind)
            last_set = e.t
    combo = combo_for(handled)
    if combo is None:
        raise InvalidArgumentError(f"no known combination matches what {h.id} handled: {handled}")
    tool = next((i for i, it in world.items.items() if it.kind == combo.tool), focus.target)
    tname = world.name(tool)
    done = any(e.actor == h.id and e.verb in ("cut", "cook", "write") for e in seen)
    searching = _searching(seen, h.id, last_set, tool)
    has_tool = world.holder_of(tool) == h.id or tool in [
        e.args[0] for e in seen if e.actor == h.id and e.verb == "pick"
    ]
    where = tracker.value(R, tool, AT)
    beliefs = [_gb(tracker, R, tool, AT)]
    present = " and the ".join(world.name(i) for i in combo.present if i != combo.tool)
    if done or has_tool or not searching:
        belief = f"I believe {h.name} has everything {h.subj} needs to {combo.task}."
        desire, intention, d_atoms, i_atoms = _no_help(h, f"to {combo.task}")
        return _Draft(
            belief,
            desire,
            intention,
            _NO_HELP_DECISION,
            [_atom("attribute_belief", ROBOT, _atom("wants", h.id, combo.name))],
            d_atoms,
            i_atoms,
            [_atom("make_decision", ROBOT, "wait")],
            beliefs,
            Goal(GoalKind.NONE, h.id, tool),
        )
    place = world.base_place(tool) or str(where)
    belief = (
        f"I think {h.name} wants to {combo.task}: {h.subj} has set out the {present}, and I believe {h.subj} is "
        f"looking for the {tname}, which is {_place_of(world, place)}."
    )
    desire = f"I want to help {h.name} {combo.task} by finding the {tname} for {h.obj}."
    intention = f"I want to take the {tname} {_out_of(world, place)} and hand it to {h.name}."
    decision = f"I need to achieve {h.poss} hidden goal by giving {h.obj} the {tname}."
    fetch = _atom("fetch", tool, f"from={place}", f"to={h.id}")
    return _Draft(
        belief,
        desire,
        intention,
        decision,
        [
            _atom("attribute_belief", ROBOT, _atom("wants", h.id, combo.name)),
            _atom("attribute_belief", ROBOT, _atom("searching", h.id, tool)),
            _atom("hold_true_belief", ROBOT, _atom("object_on", tool, place)),
        ],
        [_atom("attribute_desire", ROBOT, _atom("assist", h.id, _atom("find", tool)))],
        [_atom("form_intention", ROBOT, fetch)],
        [_atom("make_decision", ROBOT, fetch)],
        beliefs,
        Goal(GoalKind.DELIVER, h.id, tool),
    )


def need_item(world: World, need: Need) -> str | None:
    """The item in the home that meets ``need`` (first kind in order of preference that is present)."""
    for kind in need.kinds:
        for iid, item in world.items.items():
            if item.kind == kind:
                return iid
    return None


def _dialogue(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> _Draft:
    h = world.chars[focus.human]
    feeling = tracker.value(R, h.id, FEELS)
    beliefs = [_gb(tracker, R, h.id, FEELS)]
    stated = [
        f.value
        for e in seen
        if e.is_utterance and e.actor == h.id
        for f in e.facts
        if f.subject == h.id and f.relation == FEELS and f.value
    ]
    need = NEEDS.get(feeling or "") or (NEEDS.get(stated[-1]) if stated else None)
    item = need_item(world, need) if need is not None else None
    if need is None or item is None:
        raise InvalidArgumentError(f"{h.id} states no need the robot knows how to meet")
    iname = world.name(item)
    beliefs.append(_gb(tracker, R, item, AT))
    if feeling is None:
        self_ = "herself" if h.gender == "f" else "himself"
        belief = (
            f"I believe {h.name} said {h.subj} {need.state.replace('is ', 'was ')}, but {h.subj} has taken care of "
            f"it {self_}."
        )
        desire, intention, d_atoms, i_atoms = _no_help(h, "")
        return _Draft(
            belief,
            desire.replace("  ", " "),
            intention,
            _NO_HELP_DECISION,
            [_atom("attribute_belief", ROBOT, _atom("satisfied", h.id, need.feeling))],
            d_atoms,
            i_atoms,
            [_atom("make_decision", ROBOT, "wait")],
            beliefs,
            Goal(GoalKind.NONE, h.id, item),
        )
    offer = need.offer.format(poss=h.poss)
    relief = need.relief.format(poss=h.poss)
    belief = f"I believe {h.name} {need.state}, from what {h.subj} said, and I believe {offer} would help {h.obj}."
    desire = f"I want to help {h.name} {relief}."
    place = world.base_place(item) or str(tracker.value(R, item, AT))
    if need.liquid:
        intention = f"I want to get a {iname}, pour {need.liquid} into it, and bring it to {h.name}."
        decision = f"Fetch {offer} and give it to {h.name}."
        fetch = _atom("fetch", item, f"from={place}", f"to={h.id}", f"with={need.liquid}")
    else:
        intention = f"I want to take the {iname} {_out_of(world, place)} and bring {_it(world, item)} to {h.name}."
        decision = f"I need to bring the {iname} to {h.name}."
        fetch = _atom("fetch", item, f"from={place}", f"to={h.id}")
    return _Draft(
        belief,
        desire,
        intention,
        decision,
        [
            _atom("attribute_belief", ROBOT, _atom("feels", h.id, need.feeling)),
            _atom("attribute_belief", ROBOT, _atom("wants", h.id, need.liquid or item)),
            _atom("know", ROBOT, _atom("object_on", item, place)),
        ],
        [_atom("attribute_desire", ROBOT, _atom("assist", h.id, _atom("get", need.liquid or item)))],
        [_atom("form_intention", ROBOT, fetch)],
        [_atom("make_decision", ROBOT, fetch)],
        beliefs,
        Goal(GoalKind.DELIVER, h.id, item, need.liquid),
    )

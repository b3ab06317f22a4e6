"""Gold drafts of the Implicit Goal families (MindPower B.1): out of reach, blocked doorway, running faucet, power
cut, functional combination and dialogue-driven need. Each reads what the robot saw and believes and either finds
no help needed or states the hidden goal and the plan's atoms; :func:`~mindloop.worlds.household.scenarios.gold.
derive_gold` picks the builder by the story's family (:data:`BUILDERS`).
"""

from __future__ import annotations

from collections.abc import Callable

from mindloop.beliefs import Tracker
from mindloop.errors import InvalidArgumentError
from mindloop.worlds.household.goals import Goal, GoalKind
from mindloop.worlds.household.results import FailureKind, WorldEvent
from mindloop.worlds.household.scenarios.drafting import (
    Draft,
    Focus,
    R,
    atom,
    from_phrase,
    gold_belief,
    help_draft,
    is_searching,
    no_help,
    out_of,
    place_of,
    pronoun,
    taken_from,
    verb_be,
)
from mindloop.worlds.household.scenarios.needs import NEEDS, combo_for, need_item
from mindloop.worlds.household.vocab import AT, FEELS, HOUSE, POWER, ROBOT, ROOM, SWITCH, Prop
from mindloop.worlds.household.world import World


def _reach(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> Draft:
    h, o = world.chars[focus.human], focus.target
    oname = world.name(o)
    attempts = [e for e in seen if e.actor == h.id and e.failure is FailureKind.OUT_OF_REACH and e.args[:1] == (o,)]
    bel_r = tracker.value(R, o, AT)
    beliefs = [gold_belief(tracker, R, o, AT)]
    if not attempts or bel_r == h.id:
        took = [e for e in seen if e.actor == h.id and e.verb == "pick" and e.args[:1] == (o,) and e.failure is None]
        src = taken_from(took[-1], seen) if took else ""
        belief = (
            f"I believe {h.name} wanted the {oname} and took {pronoun(world, o)} "
            f"{from_phrase(world, src) if src else ''} "
            f"{'herself' if h.gender == 'f' else 'himself'}; {'they were' if world.plural(o) else 'it was'} within "
            f"{h.poss} reach."
        ).replace("  ", " ")
        return no_help(
            h, f"with the {oname}", belief, [atom("attribute_belief", ROBOT, atom("has", h.id, o))], beliefs, o
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
            f"I think {h.name} wants the {oname} on the floor, but I believe "
            f"{pronoun(world, o).replace('them', 'they')} "
            f"{verb_be(world, o)} too low for {h.obj} to reach{chair}."
        )
    desire = f"I want to help {h.name} get the {oname} that {h.subj} cannot reach."
    intention = f"I want to pick up the {oname} {from_phrase(world, place)} and hand it to {h.name}."
    decision = (
        f"I need to achieve {h.poss} hidden goal by getting the {oname} and giving {pronoun(world, o)} to {h.name}."
    )
    return help_draft(
        (belief, desire, intention, decision),
        [
            atom("attribute_belief", ROBOT, atom("wants", h.id, o)),
            atom("attribute_belief", ROBOT, atom("cannot_reach", h.id, o)),
            atom("hold_true_belief", ROBOT, atom("object_on", o, place)),
        ],
        h,
        atom("get", o),
        atom("fetch", o, f"from={place}", f"to={h.id}"),
        beliefs,
        Goal(GoalKind.DELIVER, h.id, o),
    )


def _blocked(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> Draft:
    h, ob = world.chars[focus.human], focus.target
    obname = world.name(ob)
    attempts = [e for e in seen if e.actor == h.id and e.failure is FailureKind.BLOCKED]
    where = tracker.value(R, ob, AT) or ""
    beliefs = [gold_belief(tracker, R, ob, AT)]
    if not attempts or not where.endswith("_doorway"):
        return no_help(h, "getting around", f"I believe nothing blocks {h.name}'s way.", [], beliefs, ob)
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
    return help_draft(
        (belief, desire, intention, decision),
        [
            atom("attribute_belief", ROBOT, atom("wants", h.id, atom("go", dest or room))),
            atom("hold_true_belief", ROBOT, atom("object_on", ob, where)),
            atom("attribute_belief", ROBOT, atom("blocked", h.id, ob)),
        ],
        h,
        atom("move", ob),
        atom("move", ob, f"to={room}_corner"),
        beliefs,
        Goal(GoalKind.CLEAR, h.id, ob),
    )


def _faucet(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> Draft:
    h, f = world.chars[focus.human], focus.target
    fname = world.name(f)
    running = tracker.value(R, f, SWITCH) == "on"
    h_room = tracker.value(R, h.id, ROOM)
    f_room = world.places[f].room
    beliefs = [gold_belief(tracker, R, f, SWITCH), gold_belief(tracker, R, h.id, ROOM)]
    turned_on = any(e.actor == h.id and e.verb == "switchon" and e.args[:1] == (f,) for e in seen)
    if not (running and turned_on and h_room != f_room):
        belief = (
            f"I believe {h.name} turned the {fname} off before leaving the {world.room_names[f_room]}; no water is "
            "running."
        )
        if running:
            belief = f"I believe {h.name} is still using the {fname}."
        state = atom("hold_true_belief", ROBOT, atom("switched_off" if not running else "switched_on", f))
        return no_help(h, f"with the {fname}", belief, [state], beliefs, f)
    belief = (
        f"I believe {h.name} turned on the {fname} and left the {world.room_names[f_room]} without turning it off; "
        f"the {fname} is still running and wasting water."
    )
    desire = f"I want to help {h.name} by making sure the water is not wasted."
    intention = f"I want to go to the {fname} and turn it off."
    decision = f"I need to turn off the {fname} that {h.name} left running."
    return help_draft(
        (belief, desire, intention, decision),
        [
            atom("hold_true_belief", ROBOT, atom("switched_on", f)),
            atom("attribute_belief", ROBOT, atom("left", h.id, f_room)),
            atom("attribute_belief", ROBOT, atom("human_believes", h.id, atom("switched_off", f))),
        ],
        h,
        atom("switchoff", f),
        atom("switchoff", f),
        beliefs,
        Goal(GoalKind.SWITCH_OFF, h.id, f),
    )


def _power(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> Draft:
    h, c = world.chars[focus.human], focus.target
    cname = world.name(c)
    out = tracker.value(R, HOUSE, POWER) == "off"
    cut_at = max((e.t for e in seen if e.actor is None and e.verb == "powercut"), default=0)
    searching = out and is_searching(seen, h.id, cut_at, c)
    where = tracker.value(R, c, AT)
    beliefs = [gold_belief(tracker, R, HOUSE, POWER), gold_belief(tracker, R, c, AT)]
    lights = [i for i, it in world.items.items() if Prop.LIGHT_SOURCE in it.props]
    if not searching or world.holder_of(c) == h.id or where is None:
        return no_help(h, "", f"I believe {h.name} has what {h.subj} needs.", [], beliefs, c)
    place = world.base_place(c) or where
    belief = (
        f"I believe the power has gone out, and I think {h.name} is looking for something to light the room. There "
        f"is no flashlight, but I know there is a {cname} {world.where(place)}."
    )
    if len(lights) > 1:
        belief = belief.replace("There is no flashlight, but I", "I")
    desire = f"I want to help {h.name} find a light in the dark."
    intention = f"I want to take the {cname} {out_of(world, place)} and hand it to {h.name}."
    decision = f"I need to achieve {h.poss} hidden goal by bringing {h.obj} the {cname}."
    return help_draft(
        (belief, desire, intention, decision),
        [
            atom("hold_true_belief", ROBOT, atom("power_off", HOUSE)),
            atom("attribute_belief", ROBOT, atom("searching", h.id, "light")),
            atom("know", ROBOT, atom("object_on", c, place)),
        ],
        h,
        atom("find", c),
        atom("fetch", c, f"from={place}", f"to={h.id}"),
        beliefs,
        Goal(GoalKind.DELIVER, h.id, c),
    )


def _combo(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> Draft:
    h = world.chars[focus.human]
    sets = [
        e for e in seen if e.actor == h.id and e.failure is None and e.verb in ("pick", "place", "putin") and e.args
    ]
    handled = list(dict.fromkeys(world.items[e.args[0]].kind for e in sets))
    last_set = max((e.t for e in sets), default=0)
    combo = combo_for(handled)
    if combo is None:
        raise InvalidArgumentError(f"no known combination matches what {h.id} handled: {handled}")
    tool = next((i for i, it in world.items.items() if it.kind == combo.tool), focus.target)
    tname = world.name(tool)
    done = any(e.actor == h.id and e.verb in ("cut", "cook", "write") for e in seen)
    searching = is_searching(seen, h.id, last_set, tool)
    has_tool = world.holder_of(tool) == h.id or tool in [
        e.args[0] for e in seen if e.actor == h.id and e.verb == "pick"
    ]
    where = tracker.value(R, tool, AT)
    beliefs = [gold_belief(tracker, R, tool, AT)]
    present = " and the ".join(world.name(i) for i in combo.present if i != combo.tool)
    if done or has_tool or not searching:
        belief = f"I believe {h.name} has everything {h.subj} needs to {combo.task}."
        wants = [atom("attribute_belief", ROBOT, atom("wants", h.id, combo.name))]
        return no_help(h, f"to {combo.task}", belief, wants, beliefs, tool)
    place = world.base_place(tool) or str(where)
    belief = (
        f"I think {h.name} wants to {combo.task}: {h.subj} has set out the {present}, and I believe {h.subj} is "
        f"looking for the {tname}, which is {place_of(world, place)}."
    )
    desire = f"I want to help {h.name} {combo.task} by finding the {tname} for {h.obj}."
    intention = f"I want to take the {tname} {out_of(world, place)} and hand it to {h.name}."
    decision = f"I need to achieve {h.poss} hidden goal by giving {h.obj} the {tname}."
    return help_draft(
        (belief, desire, intention, decision),
        [
            atom("attribute_belief", ROBOT, atom("wants", h.id, combo.name)),
            atom("attribute_belief", ROBOT, atom("searching", h.id, tool)),
            atom("hold_true_belief", ROBOT, atom("object_on", tool, place)),
        ],
        h,
        atom("find", tool),
        atom("fetch", tool, f"from={place}", f"to={h.id}"),
        beliefs,
        Goal(GoalKind.DELIVER, h.id, tool),
    )


def _dialogue(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> Draft:
    h = world.chars[focus.human]
    feeling = tracker.value(R, h.id, FEELS)
    beliefs = [gold_belief(tracker, R, h.id, FEELS)]
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
    beliefs.append(gold_belief(tracker, R, item, AT))
    if feeling is None:
        self_ = "herself" if h.gender == "f" else "himself"
        belief = (
            f"I believe {h.name} said {h.subj} {need.state.replace('is ', 'was ')}, but {h.subj} has taken care of "
            f"it {self_}."
        )
        return no_help(
            h, "", belief, [atom("attribute_belief", ROBOT, atom("satisfied", h.id, need.feeling))], beliefs, item
        )
    offer = need.offer.format(poss=h.poss)
    relief = need.relief.format(poss=h.poss)
    belief = f"I believe {h.name} {need.state}, from what {h.subj} said, and I believe {offer} would help {h.obj}."
    desire = f"I want to help {h.name} {relief}."
    place = world.base_place(item) or str(tracker.value(R, item, AT))
    if need.liquid:
        intention = f"I want to get a {iname}, pour {need.liquid} into it, and bring it to {h.name}."
        decision = f"Fetch {offer} and give it to {h.name}."
        fetch = atom("fetch", item, f"from={place}", f"to={h.id}", f"with={need.liquid}")
    else:
        intention = f"I want to take the {iname} {out_of(world, place)} and bring {pronoun(world, item)} to {h.name}."
        decision = f"I need to bring the {iname} to {h.name}."
        fetch = atom("fetch", item, f"from={place}", f"to={h.id}")
    return help_draft(
        (belief, desire, intention, decision),
        [
            atom("attribute_belief", ROBOT, atom("feels", h.id, need.feeling)),
            atom("attribute_belief", ROBOT, atom("wants", h.id, need.liquid or item)),
            atom("know", ROBOT, atom("object_on", item, place)),
        ],
        h,
        atom("get", need.liquid or item),
        fetch,
        beliefs,
        Goal(GoalKind.DELIVER, h.id, item, need.liquid),
    )


BUILDERS: dict[str, Callable[[World, Tracker, list[WorldEvent], Focus], Draft]] = {
    "reach": _reach,
    "blocked": _blocked,
    "faucet": _faucet,
    "power": _power,
    "combo": _combo,
    "dialogue": _dialogue,
}
"""The gold builder of each Implicit Goal family."""

"""Implicit Goal Inference & Completion stories (MindPower B.1): special populations, object properties,
functional combinations and dialogue-driven needs, plus their controls.

As for false-belief stories, generators only script what people do; the hidden goal, whether help is needed and
the plan come from the gold derivation.
"""

from __future__ import annotations

from collections.abc import Sequence

from mindloop.beliefs import Fact
from mindloop.datafiles import DataModel, load_package_data
from mindloop.worlds.household.catalog import ITEM_KINDS, PLACE_KINDS
from mindloop.worlds.household.scenarios.common import (
    ADULTS,
    CHILDREN,
    WHEELCHAIR,
    Draw,
    GenerationError,
    Story,
    look_about,
    pick,
    take,
)
from mindloop.worlds.household.scenarios.common import act as _a
from mindloop.worlds.household.scenarios.common import go as _go
from mindloop.worlds.household.scenarios.episode import Episode
from mindloop.worlds.household.scenarios.gold import Focus
from mindloop.worlds.household.scenarios.needs import COMBOS, DIALOGUES, NEEDS
from mindloop.worlds.household.vocab import FEELS, Prop

_KID_THINGS = ("cookies", "teddy_bear", "toy_car", "ball", "cupcake", "book")
_WHEELCHAIR_THINGS = ("cup", "mug", "glass", "book", "medicine", "glasses", "remote", "keys", "phone", "wallet")
_OBSTACLES = ("box", "laundry_basket", "vacuum_cleaner")

_NEED_PLACES: dict[str, tuple[str, ...]] = {
    "glass": ("kitchen_cabinet", "kitchen_counter"),
    "blanket": ("wardrobe", "coat_closet", "bed"),
    "medicine": ("bathroom_cabinet", "kitchen_cabinet"),
    "glasses": ("nightstand", "desk", "bookshelf", "dresser"),
}


def _with_bystander(
    d: Draw, humans: list[tuple[str, str]], items: Sequence[tuple[str, str, str]], avoid: set[str]
) -> Episode:
    """The story's episode, sometimes with someone else at home, in a room away from ``avoid`` (always or never when
    the draw says), who walks to a seat there and sits down."""
    who: str | None = None
    if d.bystander is True or (d.bystander is None and d.chance(0.3)):
        rooms = [r for r in d.home.rooms if r not in avoid and d.home.places(rooms=[r], props=[Prop.SITTABLE])]
        if rooms:
            who = d.cast(1, ADULTS)[0]
            humans.append((who, pick(d.rng, rooms)))
    ep = d.episode(humans, items)
    if who is not None:
        seat = pick(d.rng, d.home.places(rooms=[ep.world.agent_room(who)], props=[Prop.SITTABLE]))
        ep.act(who, _a("walk", seat))
        ep.act(who, _a("sit", seat))
    return ep


# ---- special populations -------------------------------------------------------------------------------------
def _reach_story(d: Draw, who: str, kinds: tuple[str, ...], places: list[str], *, fail: bool) -> Story:
    home = d.home
    free = [k for k in kinds if k not in home.taken]
    o = pick(d.rng, free)
    place = pick(d.rng, places)
    room = place.rsplit("_corner", 1)[0] if place.endswith("_corner") else home.room_of[place]
    ep = _with_bystander(d, [(who, room if d.chance(0.5) else d.room_other_than(room))], [(o, o, place)], {room})
    _go(ep, who, room)
    ep.act(who, _a("walk", o))
    if fail:
        ep.act(who, _a("pick", o), expect_fail=True)
        ep.act(who, _a("lookat", o) if d.chance(0.5) else _a("turn", pick(d.rng, ("left", "right"))))
        ep.act(who, _a("pick", o), expect_fail=True)
    else:
        ep.act(who, _a("pick", o))
        _go(ep, who, d.room_other_than(room))
    return Story(ep, Focus("reach", who, o))


def ig_child_reach(d: Draw) -> Story:
    """A 1.2 m child reaches twice, in vain, for something on a high shelf."""
    child = d.person(CHILDREN)
    high = d.home.places(props=[Prop.SURFACE], min_h=child.reach_max + 0.01)
    return _reach_story(d, child.id, _KID_THINGS, high, fail=True)


def ig_control_child_reachable(d: Draw) -> Story:
    """A child takes something within reach and goes off with it."""
    child = d.person(CHILDREN)
    low = d.home.places(props=[Prop.SURFACE], min_h=0.3, max_h=child.reach_max)
    return _reach_story(d, child.id, _KID_THINGS, low, fail=False)


def ig_wheelchair_reach(d: Draw) -> Story:
    """A wheelchair user cannot reach something on a high shelf, or dropped on the floor."""
    user = d.person(WHEELCHAIR)
    if d.chance(0.3):
        spots = [f"{r}_corner" for r in d.home.rooms]
    else:
        spots = d.home.places(props=[Prop.SURFACE], min_h=user.reach_max + 0.01)
    return _reach_story(d, user.id, _WHEELCHAIR_THINGS, spots, fail=True)


def ig_wheelchair_blocked(d: Draw) -> Story:
    """An obstacle in the doorway stops a wheelchair user, who turns, backs up and tries again."""
    user = d.person(WHEELCHAIR)
    room = pick(d.rng, d.home.rooms)
    dest = d.room_other_than(room)
    ob = pick(d.rng, _OBSTACLES)
    ep = _with_bystander(d, [(user.id, room)], [(ob, ob, f"{room}_doorway")], {room})
    ep.act(user.id, _a("walk", dest), expect_fail=True)
    for direction in pick(d.rng, (("left", "back", "right"), ("right", "back", "left"), ("back", "left"))):
        ep.act(user.id, _a("turn", direction))
    ep.act(user.id, _a("walk", dest), expect_fail=True)
    return Story(ep, Focus("blocked", user.id, ob), (("destination", dest),))


# ---- object properties ---------------------------------------------------------------------------------------
def _faucet(d: Draw, *, turn_off: bool) -> Story:
    home = d.home
    faucets = home.places(props=[Prop.WATER_SOURCE])
    faucet = pick(d.rng, faucets)
    room = home.room_of[faucet]
    who = d.person(ADULTS + CHILDREN + WHEELCHAIR)
    humans = [(who.id, d.room_other_than(room))]
    items: list[tuple[str, str, str]] = []
    kitchen = faucet == "faucet"
    tool = "cup" if kitchen else "toothbrush"
    if tool not in home.taken:
        items.append((tool, tool, "kitchen_counter" if kitchen else "bathroom_counter"))
    ep = _with_bystander(d, humans, items, {room})
    _go(ep, who.id, room)
    ep.act(who.id, _a("walk", faucet))
    ep.act(who.id, _a("switchon", faucet))
    if items:
        ep.act(who.id, _a("pick", tool))
        if kitchen:
            ep.act(who.id, _a("pour", "water", tool))
            ep.act(who.id, _a("drink", tool))
        else:
            ep.act(who.id, _a("lookat", faucet))
        ep.act(who.id, _a("putback", tool))
    else:
        ep.act(who.id, _a("touch", faucet))
    if turn_off:
        ep.act(who.id, _a("switchoff", faucet))
    away = d.room_other_than(room)
    _go(ep, who.id, away)
    seats = home.places(rooms=[away], props=[Prop.SITTABLE])
    if seats and who.trait.value != "wheelchair" and d.chance(0.6):
        ep.act(who.id, _a("sit", pick(d.rng, seats)))
    return Story(ep, Focus("faucet", who.id, faucet))


def ig_faucet_running(d: Draw) -> Story:
    """Someone uses the faucet and leaves the room with it still running."""
    return _faucet(d, turn_off=False)


def ig_control_faucet_off(d: Draw) -> Story:
    """Someone uses the faucet and turns it off before leaving."""
    return _faucet(d, turn_off=True)


def ig_power_cut_candle(d: Draw) -> Story:
    """The power goes out while someone reads; they try the lamp, get up and search (for a candle)."""
    home = d.home
    who = d.person(ADULTS + CHILDREN)
    lamps = [
        p
        for p in home.places(props=[Prop.LIGHT_SOURCE, Prop.NEEDS_POWER], max_h=who.reach_max)
        if home.places(rooms=[home.room_of[p]], props=[Prop.SITTABLE])
    ]
    lamp = pick(d.rng, lamps)
    room = home.room_of[lamp]
    seat = pick(d.rng, home.places(rooms=[room], props=[Prop.SITTABLE]))
    drawers = [p for p in home.homes_of("candle")]
    if not drawers:
        raise GenerationError("no drawer for a candle")
    drawer = pick(d.rng, drawers)
    items = [("candle", "candle", drawer)]
    book_free = "book" not in home.taken
    if book_free:
        items.append(("book", "book", who.id))
    ep = d.episode([(who.id, room)], items, switched_on=(lamp,), sitting=((who.id, seat),) if book_free else ())
    if not book_free:
        take(ep, d, who.id, "book")
        _go(ep, who.id, room)
        ep.act(who.id, _a("sit", seat))
    ep.act(who.id, _a("read", "book"))
    ep.environment("powercut")
    ep.act(who.id, _a("switchoff", lamp))
    ep.act(who.id, _a("switchon", lamp), expect_fail=True)
    ep.act(who.id, _a("standup"))
    surfaces = [
        p
        for p in home.places(rooms=[room], props=[Prop.SURFACE], max_h=who.reach_max, min_h=0.3)
        if not PLACE_KINDS[p].props & {Prop.SITTABLE}
    ]
    if surfaces:
        ep.act(who.id, _a("place", "book", pick(d.rng, surfaces)))
    look_about(ep, d, who.id, {drawer})
    if d.chance(0.5):
        elsewhere = d.room_other_than(room, home.room_of[drawer])
        _go(ep, who.id, elsewhere)
        ep.act(who.id, _a("walkaround"))
    return Story(ep, Focus("power", who.id, "candle"))


# ---- functional combinations ---------------------------------------------------------------------------------
_COMBO_TOOL = {combo.name: combo.tool for combo in COMBOS}
"""The missing piece each scripted combination is about (the tool of its row in ``data/needs.yaml``)."""


class _ComboStory(DataModel):
    """One story of ``data/combo_stories.yaml``: where its items start, how they are set out and the task done."""

    items: dict[str, str | tuple[str, ...]]
    set_out: tuple[tuple[str, ...], ...]
    complete: tuple[tuple[str, ...], ...] = ()
    avoid: tuple[str, ...]
    needs: tuple[str, ...] = ()


class _ComboStoriesFile(DataModel):
    stories: dict[str, _ComboStory]


_STORIES = load_package_data(_ComboStoriesFile, "mindloop.worlds.household", "combo_stories.yaml").stories
"""The scripted functional-combination stories, by combination, in the order of the draw."""


def _combo(d: Draw, *, complete: bool) -> Story:
    home = d.home
    names = [n for n, s in _STORIES.items() if all(p in home.room_of for p in s.needs) and (s.complete or not complete)]
    name = pick(d.rng, names)
    story = _STORIES[name]
    who = d.person(ADULTS)
    table = "kitchen_table" if "kitchen_table" in home.room_of else "kitchen_counter"
    humans = [(who.id, d.room_other_than("kitchen"))]
    items = [(kind, kind, _kept(d, places)) for kind, places in story.items.items() if kind not in home.taken]
    kept = next(p for i, _, p in items if i == _COMBO_TOOL[name])
    ep = _with_bystander(d, humans, items, {"kitchen", "study", home.room_of.get(kept, "kitchen")})
    _set_out(ep, d, who.id, story.set_out + (story.complete if complete else ()), table)
    if not complete:
        look_about(ep, d, who.id, {*story.avoid, kept}, turn_p=0.5)
    return Story(ep, Focus("combo", who.id, _COMBO_TOOL[name]), (("combination", name),))


def _kept(d: Draw, places: str | tuple[str, ...]) -> str:
    """Where an item starts: its one place, or one of ``places`` this home has (the first one when none is)."""
    if isinstance(places, str):
        return places
    have = [p for p in places if p in d.home.room_of]
    return pick(d.rng, have) if have else places[0]


def _set_out(ep: Episode, d: Draw, w: str, steps: Sequence[Sequence[str]], table: str) -> None:
    """``w`` plays a story's ``steps`` (see ``data/combo_stories.yaml``): ``take``, ``rest`` or a world verb."""
    for verb, *args in steps:
        if verb == "take":
            take(ep, d, w, args[0])
        elif verb == "rest":
            seats = d.home.places(rooms=args, props=[Prop.SITTABLE])
            if seats:
                ep.act(w, _a("sit", seats[0]))
                ep.act(w, _a("standup"))
        else:
            ep.act(w, _a(verb, *(table if a == "TABLE" else a for a in args)))


def ig_functional_combo(d: Draw) -> Story:
    """Someone sets out part of a task and searches for the missing piece (the knife for board and carrot)."""
    return _combo(d, complete=False)


def ig_control_combo_complete(d: Draw) -> Story:
    """Someone has everything for the task and does it."""
    return _combo(d, complete=True)


# ---- dialogue ------------------------------------------------------------------------------------------------
def _dialogue(d: Draw, *, self_served: bool) -> Story:
    home = d.home
    feeling = pick(d.rng, sorted(DIALOGUES))
    need = NEEDS[feeling]
    talk_rooms = [r for r in home.rooms if home.places(rooms=[r], props=[Prop.SITTABLE])]
    room = pick(d.rng, talk_rooms)
    a, b = d.cast(2, ADULTS)
    items: list[tuple[str, str, str]] = []
    item = next((k for k in need.kinds if k in home.taken), None)
    if item is None:
        kinds = [k for k in need.kinds if k not in home.taken]
        item = pick(d.rng, kinds)  # any of the kinds that meet the need: a glass, a cup or a mug of water
        places = [
            p for p in _NEED_PLACES.get(item, ITEM_KINDS[item].homes) if p in home.room_of and home.room_of[p] != room
        ]
        if feeling == "thirsty":
            places = [p for p in places if home.room_of[p] == "kitchen"]
        if not places:
            places = [p for p in home.holders(max_h=1.5) if home.room_of[p] not in (room, "kitchen")]
        if not places:
            raise GenerationError(f"nowhere to keep the {item}")
        items.append((item, item, pick(d.rng, places)))
    seats = home.places(rooms=[room], props=[Prop.SITTABLE])
    sitting = ((a, seats[0]),) if seats and d.chance(0.5) else ()
    ep = d.episode([(a, room), (b, room)], items, feelings=((a, feeling),), sitting=sitting)
    hint, answer, slip = pick(d.rng, DIALOGUES[feeling])
    ep.say(a, b, hint)
    ep.say(b, a, answer)
    ep.say(a, b, slip, Fact(a, FEELS, feeling))
    if self_served:
        place = ep.world.base_place(item)
        assert place is not None
        ep.say(
            b,
            a,
            f"There is {('a ' + ITEM_KINDS[item].name) if item != 'glasses' else 'a pair of glasses'} "
            f"{ep.world.where(place)}.",
        )
        if sitting:
            ep.act(a, _a("standup"))
        take(ep, d, a, item)
        if need.liquid:
            _go(ep, a, ep.world.room_of("water") or "kitchen")
            ep.act(a, _a("pour", "water", item))
            ep.act(a, _a("drink", item))
    return Story(ep, Focus("dialogue", a, item), (("need", feeling),))


def ig_dialogue_need(d: Draw) -> Story:
    """Two people talk; one lets a need slip (MuMA-ToM / FANToM style): thirst, cold, hunger, ..."""
    return _dialogue(d, self_served=False)


def ig_control_dialogue_self_served(d: Draw) -> Story:
    """Someone mentions a need and meets it themselves."""
    return _dialogue(d, self_served=True)

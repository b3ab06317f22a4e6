"""False-Belief Correction stories (MindPower B.1, Fig. 16): who places, who moves, who comes back and searches.

Each generator writes a script from one seeded draw and plays it through the world; nothing about beliefs is
written here. Whether the returning human holds a false belief, whether help is needed and what help, is left
to the gold derivation, which reads the belief store.
"""

from __future__ import annotations

from typing import Any

from mindloop.worlds.household.catalog import ITEM_KINDS, PLACE_KINDS
from mindloop.worlds.household.characters import CHARACTERS
from mindloop.worlds.household.scenarios.common import (
    ADULTS,
    CHILDREN,
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
from mindloop.worlds.household.vocab import ROBOT, Prop

_PEOPLE = ADULTS + CHILDREN


def _reach(*who: str) -> float:
    return min(CHARACTERS[w].reach_max for w in who)


def _object(d: Draw, reach: float, *, surface_only: bool = False) -> tuple[str, str]:
    """An item kind for the story and where it is first put (one of its usual places, within reach)."""
    home = d.home

    def ok(kind: str) -> bool:
        props = ITEM_KINDS[kind].props
        return Prop.GRASPABLE in props and Prop.LIQUID not in props and bool(home.homes_of(kind))

    for _ in range(20):
        kind = pick(d.rng, home.free_kinds(ok))
        spots = [
            p
            for p in home.homes_of(kind)
            if PLACE_KINDS[p].height <= reach and not (surface_only and home.is_receptacle(p))
        ]
        if spots:
            return kind, pick(d.rng, spots)
    raise GenerationError("no object with a reachable usual place")


def _hide(d: Draw, kind: str, reach: float, avoid: set[str], ok_room: set[str], *, open_rooms: set[str]) -> str:
    """A second place for the object: in a room of ``ok_room``; a closed receptacle if in ``open_rooms``
    (rooms someone will look around in, where anything in the open would be seen)."""
    home = d.home
    cands = [
        p
        for p in home.holders(rooms=ok_room, max_h=reach)
        if p not in avoid and (home.room_of[p] not in open_rooms or home.is_receptacle(p))
    ]
    if not cands:
        raise GenerationError("no hiding place")
    homes = set(ITEM_KINDS[kind].homes)
    home_rooms = {home.room_of[p] for p in homes if p in home.room_of}
    usual = [p for p in cands if p in homes]
    nearby = [p for p in cands if home.room_of[p] in home_rooms and home.is_receptacle(p)]
    r = d.rng.random()
    return pick(d.rng, usual if usual and r < 0.6 else nearby if nearby and r < 0.9 else cands)


def _put(ep: Episode, d: Draw, who: str, item: str, place: str) -> None:
    """Walk into the place's room and put the item there (opening and closing a receptacle)."""
    _go(ep, who, d.home.room_of[place])
    if d.home.is_receptacle(place):
        ep.act(who, _a("open", place))
        ep.act(who, _a("putin", item, place))
        ep.act(who, _a("close", place))
    else:
        if d.chance(0.3):
            ep.act(who, _a("walk", place))
        ep.act(who, _a("place", item, place))


def _search(ep: Episode, d: Draw, who: str, believed: str, forbidden: set[str]) -> None:
    """Stage 3: come back to where the object should be and look for it (never opening ``forbidden``)."""
    _go(ep, who, d.home.room_of[believed])
    if d.home.is_receptacle(believed) and believed not in forbidden:
        ep.act(who, _a("open", believed))
        ep.act(who, _a("close", believed))
    else:
        ep.act(who, _a(pick(d.rng, ("walk", "lookat")), believed))
    look_about(ep, d, who, forbidden | {believed}, open_p=0.6, turn_p=0.4)


def _take(ep: Episode, d: Draw, who: str, item: str, place: str, *, close: bool = True) -> None:
    """``who`` takes ``item`` from ``place``, walking up to it first by chance (:func:`take`)."""
    take(ep, d, who, item, place, close=close, walk_up=0.3)


def _left_and_taken(
    d: Draw, a: str, b: str, o: str, l1: str, wait_a: str, *, close: bool = True, **setup: Any
) -> Episode:
    """The start of the two-person stories: A, holding the object, puts it at L1 and goes to wait in ``wait_a``;
    B, who starts in another room than L1's, comes and takes it (closing its receptacle after, unless not
    ``close``). ``setup`` gives the home's other :class:`WorldSetup` fields."""
    ep = d.episode([(a, wait_a), (b, d.room_other_than(d.home.room_of[l1]))], [(o, o, a)], **setup)
    _put(ep, d, a, o, l1)
    _go(ep, a, wait_a)
    _take(ep, d, b, o, l1, close=close)
    return ep


def _two(d: Draw) -> tuple[str, str, str, str]:
    a, b = d.cast(2, _PEOPLE)
    kind, l1 = _object(d, _reach(a, b))
    return a, b, kind, l1


def _moved_away(d: Draw) -> tuple[str, str, str, str, str, str, str, str, Episode]:
    """The start both two-human stories share: A puts the object at L1 and waits in another room, B moves it to
    L2 out of A's sight. Returns A, B, the object, L1 and its room, L2 and its room, A's room and the episode."""
    a, b, o, l1 = _two(d)
    r1 = d.home.room_of[l1]
    l2 = _hide(d, o, _reach(b), {l1}, set(d.home.rooms), open_rooms={r1})
    r2 = d.home.room_of[l2]
    wait_a = d.room_other_than(r1, r2)
    ep = _left_and_taken(d, a, b, o, l1, wait_a)
    _put(ep, d, b, o, l2)
    return a, b, o, l1, r1, l2, r2, wait_a, ep


def fb_two_humans(d: Draw) -> Story:
    """A puts the object at L1 and leaves; B moves it out of A's sight; A comes back and searches."""
    a, b, o, l1, r1, l2, r2, wait_a, ep = _moved_away(d)
    if r2 == r1 or d.chance(0.5):
        _go(ep, b, d.room_other_than(r1, wait_a))
    _search(ep, d, a, l1, {l2})
    return Story(ep, Focus("find", a, o))


def _three(d: Draw, returner: int) -> Story:
    a, b, c = d.cast(3, _PEOPLE)
    o, l1 = _object(d, _reach(a, b))
    home = d.home
    r1 = home.room_of[l1]
    l2 = _hide(d, o, _reach(b, c), {l1}, set(home.rooms), open_rooms=set())
    r2 = home.room_of[l2]
    search_room = r1 if returner == 0 else r2
    l3 = _hide(d, o, _reach(c), {l1, l2}, set(home.rooms), open_rooms={search_room})
    r3 = home.room_of[l3]
    moves = {r1, r2, r3}
    wait_a = d.room_other_than(*moves)
    wait_b = d.room_other_than(r2, r3) if returner == 1 else d.room_other_than(r2, wait_a)
    ep = d.episode([(a, wait_a), (b, d.room_other_than(r1)), (c, d.room_other_than(r2))], [(o, o, a)])
    _put(ep, d, a, o, l1)
    _go(ep, a, wait_a)
    _take(ep, d, b, o, l1)
    _put(ep, d, b, o, l2)
    _go(ep, b, wait_b)
    _take(ep, d, c, o, l2)
    _put(ep, d, c, o, l3)
    if r3 == search_room or d.chance(0.5):
        _go(ep, c, d.room_other_than(search_room, wait_a, wait_b))
    who, believed = (a, l1) if returner == 0 else (b, l2)
    _search(ep, d, who, believed, {l3})
    return Story(ep, Focus("find", who, o))


def fb_three_humans_first(d: Draw) -> Story:
    """A places, B moves, C moves again; A comes back to the first place and searches."""
    return _three(d, 0)


def fb_three_humans_second(d: Draw) -> Story:
    """A places, B moves, C moves again; B comes back to the second place and searches."""
    return _three(d, 1)


def fb_robot_tidied(d: Draw) -> Story:
    """One human puts the object down and leaves; the robot tidies it away; the human comes back and searches."""
    (a,) = d.cast(1, _PEOPLE)
    o, l1 = _object(d, _reach(a), surface_only=True)
    r1 = d.home.room_of[l1]
    l2 = _hide(d, o, 2.0, {l1}, set(d.home.rooms), open_rooms={r1})
    r2 = d.home.room_of[l2]
    wait_a = d.room_other_than(r1, r2)
    ep = d.episode([(a, wait_a)], [(o, o, a)])
    _put(ep, d, a, o, l1)
    _go(ep, a, wait_a)
    ep.act(ROBOT, _a("walk", o))
    ep.act(ROBOT, _a("pick", o))
    if r2 != r1:
        ep.act(ROBOT, _a("walk", l2))
    _put(ep, d, ROBOT, o, l2)
    dock = d.home.layout.dock
    if dock != wait_a and d.chance(0.5):
        _go(ep, ROBOT, dock)
    _search(ep, d, a, l1, {l2})
    return Story(ep, Focus("find", a, o))


def fb_camera_blind(d: Draw) -> Story:
    """B carries the object out of the camera's view; A comes back and searches where she left it."""
    a, b = d.cast(2, ADULTS)
    o, l1 = _object(d, _reach(a, b))
    home = d.home
    r1 = home.room_of[l1]
    wait_a = d.room_other_than(r1)
    r2 = d.room_other_than(r1, wait_a)
    l2 = _hide(d, o, _reach(b), {l1}, {r2}, open_rooms=set())
    ep = _left_and_taken(d, a, b, o, l1, wait_a, camera=(r1,), robot_room=r1)
    _put(ep, d, b, o, l2)
    _search(ep, d, a, l1, set())
    return Story(ep, Focus("find", a, o), (("camera", r1),))


def fb_control_witnessed(d: Draw) -> Story:
    """A watches B move the object within the room, then takes it from its new place."""
    a, b, o, l1 = _two(d)
    r1 = d.home.room_of[l1]
    l2 = _hide(d, o, _reach(a, b), {l1}, {r1}, open_rooms=set())
    ep = d.episode([(a, d.room_other_than(r1)), (b, d.room_other_than(r1))], [(o, o, a)])
    _put(ep, d, a, o, l1)
    seats = d.home.places(rooms=[r1], props=[Prop.SITTABLE])
    seated = bool(seats) and d.chance(0.5)
    if seated:
        ep.act(a, _a("sit", pick(d.rng, seats)))
    _take(ep, d, b, o, l1)
    _put(ep, d, b, o, l2)
    _go(ep, b, d.room_other_than(r1))
    if seated:
        ep.act(a, _a("standup"))
    ep.act(a, _a("walk", l2))
    _take(ep, d, a, o, l2)
    return Story(ep, Focus("find", a, o))


def fb_control_seen_on_return(d: Draw) -> Story:
    """B moves the object to another spot in the open; A sees it on coming back and takes it."""
    a, b, o, l1 = _two(d)
    home = d.home
    r1 = home.room_of[l1]
    spots = [p for p in home.holders(rooms=[r1], max_h=_reach(a, b)) if p != l1 and not home.is_receptacle(p)]
    if not spots:
        raise GenerationError("no second open spot in the room")
    l2 = pick(d.rng, spots)
    wait_a = d.room_other_than(r1)
    ep = _left_and_taken(d, a, b, o, l1, wait_a)
    ep.act(b, _a("place", o, l2))
    _go(ep, b, d.room_other_than(r1, wait_a))
    take(ep, d, a, o, l2)  # l2 is in the open in r1: a walks back into r1, up to the object, and picks it up
    return Story(ep, Focus("find", a, o))


def fb_control_not_needed(d: Draw) -> Story:
    """B moves the object out of sight, but A comes back and does something else: the false belief is harmless."""
    a, b, o, _, r1, _, r2, wait_a, ep = _moved_away(d)
    home = d.home
    _go(ep, b, d.room_other_than(r1, r2, wait_a) if len(home.rooms) > 3 else r2)
    seats = home.places(rooms=[r for r in home.rooms if r != r2], props=[Prop.SITTABLE])
    seat = pick(d.rng, seats)
    room = home.room_of[seat]
    _go(ep, a, room)
    tvs = home.places(rooms=[room], props=[Prop.WATCHABLE])
    if tvs:
        ep.act(a, _a("walk", tvs[0]))
        ep.act(a, _a("switchon", tvs[0]))
        ep.act(a, _a("sit", seat))
        ep.act(a, _a("watch", tvs[0]))
    elif Prop.BED in PLACE_KINDS[seat].props and d.chance(0.5):
        ep.act(a, _a("sleep", seat))
    else:
        ep.act(a, _a("sit", seat))
    return Story(ep, Focus("find", a, o))


def fb_control_put_back(d: Draw) -> Story:
    """B takes the object, looks at it and puts it back before A returns; A takes it where she left it."""
    a, b, o, l1 = _two(d)
    r1 = d.home.room_of[l1]
    wait_a = d.room_other_than(r1)
    ep = _left_and_taken(d, a, b, o, l1, wait_a, close=False)
    ep.act(b, _a("lookat", o))
    ep.act(b, _a("putback", o))
    if d.home.is_receptacle(l1):
        ep.act(b, _a("close", l1))
    _go(ep, b, d.room_other_than(r1, wait_a))
    _take(ep, d, a, o, l1)
    return Story(ep, Focus("find", a, o))

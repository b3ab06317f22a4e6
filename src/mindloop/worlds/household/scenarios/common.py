"""Helpers the scenario generators share: choosing homes, places, items and casts from one seeded RNG."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from mindloop.errors import MindloopError
from mindloop.worlds.household.actions import Action
from mindloop.worlds.household.catalog import ITEM_KINDS, PLACE_KINDS, PlaceKind
from mindloop.worlds.household.characters import CHARACTERS, Character
from mindloop.worlds.household.layouts import LAYOUTS, Layout
from mindloop.worlds.household.scenarios.episode import Episode
from mindloop.worlds.household.scenarios.gold import Focus
from mindloop.worlds.household.setup import WorldSetup
from mindloop.worlds.household.vocab import Prop, Trait

_T = TypeVar("_T")

ADULTS: tuple[str, ...] = tuple(c for c, ch in CHARACTERS.items() if ch.trait is Trait.ADULT)
CHILDREN: tuple[str, ...] = tuple(c for c, ch in CHARACTERS.items() if ch.trait is Trait.CHILD)
WHEELCHAIR: tuple[str, ...] = tuple(c for c, ch in CHARACTERS.items() if ch.trait is Trait.WHEELCHAIR)


class GenerationError(MindloopError):
    """A generator could not build the scenario it was asked for from this random draw (it retries)."""


@dataclass
class Story:
    """What a generator returns: the played episode and what it is about."""

    episode: Episode
    focus: Focus
    meta: tuple[tuple[str, str], ...] = ()


def act(verb: str, *args: str) -> Action:
    """A scripted action: ``verb`` on ``args``."""
    return Action(verb, args)


def go(ep: Episode, who: str, room: str) -> None:
    """``who`` walks into ``room``, unless already there."""
    if ep.world.agent_room(who) != room:
        ep.act(who, act("walk", room))


def take(
    ep: Episode, d: Draw, who: str, item: str, place: str | None = None, *, close: bool = True, walk_up: float = 1.0
) -> None:
    """``who`` walks into the room of ``place`` (default: where ``item`` lies) and picks ``item`` up: out of a
    receptacle, opening it if it is closed (and closing it after, unless not ``close``), or off anything else,
    walking up to it first (always, or with probability ``walk_up`` when it is below 1)."""
    where = place if place is not None else ep.world.base_place(item)
    assert where is not None
    go(ep, who, d.home.room_of[where])
    if d.home.is_receptacle(where):
        if not ep.world.is_open(where):
            ep.act(who, act("open", where))
        ep.act(who, act("pick", item))
        if close:
            ep.act(who, act("close", where))
    else:
        if walk_up >= 1.0 or d.chance(walk_up):
            ep.act(who, act("walk", item))
        ep.act(who, act("pick", item))


def look_about(
    ep: Episode, d: Draw, who: str, avoid: Iterable[str], *, open_p: float = 1.0, turn_p: float = 0.0
) -> None:
    """``who`` walks around the room they are in and opens and closes one box there within reach, never one of
    ``avoid`` (always, or with probability ``open_p`` when it is below 1), then turns, with probability ``turn_p``."""
    ep.act(who, act("walkaround"))
    reach = ep.world.chars[who].reach_max
    room = ep.world.agent_room(who)
    boxes = [
        p for p in d.home.places(rooms=[room], props=[Prop.RECEPTACLE, Prop.OPENABLE], max_h=reach) if p not in avoid
    ]
    if boxes and (open_p >= 1.0 or d.chance(open_p)):
        box = pick(d.rng, boxes)
        ep.act(who, act("open", box))
        ep.act(who, act("close", box))
    if turn_p > 0 and d.chance(turn_p):
        ep.act(who, act("turn", pick(d.rng, ("left", "right", "around"))))


def pick(rng: random.Random, options: Iterable[_T]) -> _T:
    """A seeded choice from any iterable (in its given order); :class:`GenerationError` if it is empty."""
    seq = list(options)
    if not seq:
        raise GenerationError("nothing to choose from")
    return seq[rng.randrange(len(seq))]


class LayoutIndex:
    """A layout seen as the generators need it: rooms, places by room and property, free item kinds."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.rooms: tuple[str, ...] = layout.room_ids
        self.room_of: dict[str, str] = {p: r.id for r in layout.rooms for p in r.places}
        self.taken: set[str] = {k for k, _ in layout.clutter} | {"water"}

    def spec(self, place: str) -> PlaceKind:
        """The kind of a place of this home."""
        return PLACE_KINDS[place]

    def places(
        self,
        *,
        rooms: Iterable[str] | None = None,
        props: Iterable[Prop] = (),
        max_h: float = 9.0,
        min_h: float = -1.0,
        where: Callable[[str], bool] | None = None,
    ) -> list[str]:
        """Places (in layout order) in ``rooms`` with all ``props``, height within [min_h, max_h]."""
        allowed = set(rooms) if rooms is not None else None
        need = frozenset(props)
        out = []
        for place, room in self.room_of.items():
            spec = PLACE_KINDS[place]
            if allowed is not None and room not in allowed:
                continue
            if not need <= spec.props or not min_h <= spec.height <= max_h:
                continue
            if where is not None and not where(place):
                continue
            out.append(place)
        return out

    def holders(self, *, rooms: Iterable[str] | None = None, max_h: float = 9.0) -> list[str]:
        """Places things can be put on or in."""
        return [
            p for p in self.places(rooms=rooms, max_h=max_h) if PLACE_KINDS[p].props & {Prop.SURFACE, Prop.RECEPTACLE}
        ]

    def is_receptacle(self, place: str) -> bool:
        """Whether things go *in* it (and it can be closed over them)."""
        props = PLACE_KINDS[place].props
        return Prop.RECEPTACLE in props and Prop.OPENABLE in props

    def free_kinds(self, pred: Callable[[str], bool]) -> list[str]:
        """Item kinds (catalogue order) not already in the home that satisfy ``pred``."""
        return [k for k in ITEM_KINDS if k not in self.taken and pred(k)]

    def homes_of(self, kind: str) -> list[str]:
        """Places of this home where items of ``kind`` usually are."""
        return [p for p in ITEM_KINDS[kind].homes if p in self.room_of]


class Draw:
    """One seeded draw: a home, a cast, and helpers that pick from them."""

    def __init__(
        self, rng: random.Random, *, layout: str | None = None, min_rooms: int = 3, bystander: bool | None = None
    ) -> None:
        self.rng = rng
        self.bystander = bystander
        """Whether an Implicit Goal story adds someone else at home (``None``: by chance, as generators decide)."""
        names = [n for n in LAYOUTS if len(LAYOUTS[n].rooms) >= min_rooms]
        self.home = LayoutIndex(LAYOUTS[layout] if layout is not None else LAYOUTS[pick(rng, names)])
        self.used: list[str] = []

    def cast(self, n: int, pool: Sequence[str]) -> list[str]:
        """``n`` distinct characters from ``pool`` not cast yet."""
        free = [c for c in pool if c not in self.used]
        if len(free) < n:
            raise GenerationError(f"not enough characters for {n} roles")
        chosen = self.rng.sample(free, n)
        self.used += chosen
        return chosen

    def episode(
        self, humans: Iterable[tuple[str, str]], items: Iterable[tuple[str, str, str]] = (), **setup: Any
    ) -> Episode:
        """An episode in this draw's home with ``humans`` (``(id, room)``) and ``items`` (``(id, kind, where)``);
        ``setup`` gives the other fields of its :class:`WorldSetup`."""
        return Episode(WorldSetup(self.home.layout.name, tuple(humans), tuple(items), **setup))

    def person(self, pool: Sequence[str]) -> Character:
        """One new character from ``pool``."""
        return CHARACTERS[self.cast(1, pool)[0]]

    def room_other_than(self, *avoid: str | None) -> str:
        """A room not in ``avoid``."""
        return pick(self.rng, [r for r in self.home.rooms if r not in avoid])

    def chance(self, p: float) -> bool:
        """True with probability ``p``."""
        return self.rng.random() < p

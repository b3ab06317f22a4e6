"""What a home is made of: places and items, a frozen snapshot of its state, and the frame of a layout (its rooms,
places and ids) that every world of that layout shares (built once per layout).
"""

from __future__ import annotations

from dataclasses import dataclass

from mindloop.beliefs import Fact
from mindloop.errors import InvalidArgumentError
from mindloop.worlds.household.catalog import PLACE_KINDS, ROOM_TYPES
from mindloop.worlds.household.layouts import Layout
from mindloop.worlds.household.vocab import EntityKind, HasProps, Prop


@dataclass(frozen=True, slots=True)
class Place(HasProps):
    """A piece of furniture, a fixture, a room's floor corner or its doorway, standing in one room."""

    id: str
    name: str
    room: str
    height: float
    props: frozenset[Prop]


@dataclass(frozen=True, slots=True)
class Item:
    """A thing that can be moved about (most can be grasped; obstacles can only be pushed)."""

    id: str
    kind: str
    name: str
    props: frozenset[Prop]


@dataclass(frozen=True, slots=True)
class WorldSnapshot:
    """The state a picture of the home needs, frozen at time ``t`` (see ``render``)."""

    t: int
    layout: str
    agents: tuple[tuple[str, str, str | None, bool, tuple[str, ...]], ...]  # id, room, near, sitting, holding
    items: tuple[tuple[str, str], ...]  # id, location
    opened: frozenset[str]
    switched_on: frozenset[str]
    power: bool
    camera: frozenset[str]


@dataclass(frozen=True, slots=True)
class HomeFrame:
    """The parts of a home that never change, built once per layout and shared by its worlds."""

    kinds: dict[str, EntityKind]
    room_names: dict[str, str]
    places: dict[str, Place]
    room_places: dict[str, tuple[str, ...]]
    facts: dict[tuple[str, str, str | None], Fact]  # interned facts: a Fact costs far more to build than to look up


_FRAMES: dict[tuple[int, tuple[tuple[str, str], ...]], tuple[Layout, HomeFrame]] = {}
_FLOOR = frozenset({Prop.SURFACE, Prop.FLOOR})
_DOOR = frozenset({Prop.SURFACE, Prop.FLOOR, Prop.DOORWAY})


def dressed_name(pid: str, kind: str, name: str) -> str:
    """The display name of ``pid``, an id of a ``kind`` named ``name``: the words ``pid`` adds before the kind
    (``oak_wardrobe`` of ``wardrobe``: "oak wardrobe"), or ``name`` when it adds none."""
    words = pid.removesuffix(kind).strip("_") if pid.endswith(f"_{kind}") else ""
    return f"{words.replace('_', ' ')} {name}" if words else name


def home_frame(layout: Layout, place_ids: tuple[tuple[str, str], ...] = ()) -> HomeFrame:
    """The rooms, places and interned facts of ``layout``, built on first use and shared by its worlds;
    ``place_ids`` gives some of its places other ids (``(kind, id)``, see ``WorldSetup.place_ids``)."""
    ids_of = dict(place_ids)
    unknown = sorted(set(ids_of) - set(layout.place_ids()))
    if unknown:
        raise InvalidArgumentError(f"layout {layout.name!r} has no place {unknown[0]!r} to give another id")
    key = (id(layout), place_ids)
    cached = _FRAMES.get(key)
    if cached is not None and cached[0] is layout:
        return cached[1]
    kinds: dict[str, EntityKind] = {}
    room_names: dict[str, str] = {}
    places: dict[str, Place] = {}
    room_places: dict[str, tuple[str, ...]] = {}
    for plan in layout.rooms:
        if plan.id in kinds:
            raise InvalidArgumentError(f"layout {layout.name!r} has two rooms called {plan.id!r}")
        kinds[plan.id] = EntityKind.ROOM
        room_names[plan.id] = ROOM_TYPES[plan.id]
        ids = []
        for pk in plan.places:
            spec = PLACE_KINDS[pk]
            pid = ids_of.get(pk, pk)
            places[pid] = Place(pid, dressed_name(pid, pk, spec.name), plan.id, spec.height, spec.props)
            ids.append(pid)
        for suffix, props in (("corner", _FLOOR), ("doorway", _DOOR)):
            pid = f"{plan.id}_{suffix}"
            places[pid] = Place(pid, suffix, plan.id, 0.0, props)
            ids.append(pid)
        for pid in ids:
            if pid in kinds:
                raise InvalidArgumentError(f"layout {layout.name!r}: id {pid!r} is used twice")
            kinds[pid] = EntityKind.PLACE
        room_places[plan.id] = tuple(ids)
    built = HomeFrame(kinds, room_names, places, room_places, {})
    _FRAMES[key] = (layout, built)
    return built

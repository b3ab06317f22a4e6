"""The catalogue of room types, furniture/fixture kinds (places) and item kinds a home is built from.

Heights are in metres: the height of the spot where things sit, which is what reach limits are checked
against (a 1.2 m child reaches up to 1.3 m; the top of a wall cabinet is 1.6 m). Every place kind belongs to
one room type, so a home never has two places of one kind and the kind doubles as the place id.

The tables are package data, ``data/catalog.yaml`` beside this module, read and checked once on import
(:func:`load_catalog`): a place must stand in a known room type, an item's usual places must be known places (or a
room's floor corner), and properties must be :class:`~mindloop.worlds.household.vocab.Prop` values. A malformed
file raises :class:`~mindloop.datafiles.DataFileError` naming the file, the entry and the field.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

from pydantic import Field

from mindloop.datafiles import DataModel, load_package_data
from mindloop.worlds.household.vocab import HasProps, Prop

HIGH_PLACE = 1.5
"""Places at or above this height count as "high" (out of reach for children and wheelchair users)."""


@dataclass(frozen=True, slots=True)
class PlaceKind(HasProps):
    """A kind of furniture or fixture: where it stands, how high things sit on/in it, what it affords."""

    kind: str
    name: str
    room_type: str
    height: float
    props: frozenset[Prop]


@dataclass(frozen=True, slots=True)
class ItemKind:
    """A kind of item: its properties and the place kinds it is usually found at (for plausible stories)."""

    kind: str
    name: str
    props: frozenset[Prop]
    homes: tuple[str, ...] = ()

    @property
    def prep(self) -> str:
        """Items that hold other items (a cutting board, a plate) take things ``on`` them."""
        return "on"


@dataclass(frozen=True, slots=True)
class Catalog:
    """The whole catalogue: room types (id -> display name), place kinds, item kinds and the plural item kinds."""

    room_types: dict[str, str]
    place_kinds: dict[str, PlaceKind]
    item_kinds: dict[str, ItemKind]
    plural_kinds: frozenset[str]


class _PlaceSpec(DataModel):
    """One place kind as ``data/catalog.yaml`` writes it."""

    name: str = Field(min_length=1)
    room: str
    height: float = Field(gt=0, le=3)
    props: tuple[Prop, ...] = Field(min_length=1)


class _ItemSpec(DataModel):
    """One item kind as ``data/catalog.yaml`` writes it."""

    name: str = Field(min_length=1)
    props: tuple[Prop, ...] = Field(min_length=1)
    homes: tuple[str, ...] = ()
    plural: bool = False


class _CatalogFile(DataModel):
    """The whole of ``data/catalog.yaml``: room types, place kinds and item kinds, by id, in order."""

    rooms: dict[str, str] = Field(min_length=1)
    places: dict[str, _PlaceSpec] = Field(min_length=1)
    items: dict[str, _ItemSpec] = Field(min_length=1)

    def problems(self) -> Iterator[tuple[str, str]]:
        for kind, place in self.places.items():
            if place.room not in self.rooms:
                yield f"places.{kind}.room", f"unknown room type {place.room!r} (rooms: {', '.join(self.rooms)})"
            if len(set(place.props)) != len(place.props):
                yield f"places.{kind}.props", "a property is listed twice"
        corners = {f"{room}_corner" for room in self.rooms}
        for kind, item in self.items.items():
            if len(set(item.props)) != len(item.props):
                yield f"items.{kind}.props", "a property is listed twice"
            for home in item.homes:
                if home not in self.places and home not in corners:
                    yield f"items.{kind}.homes", f"unknown place {home!r} (a place kind or a <room>_corner)"


def load_catalog(path: str | Path | Traversable | None = None) -> Catalog:
    """Read and check a catalogue file (the one shipped with mindloop when ``path`` is ``None``)."""
    data = load_package_data(_CatalogFile, __name__.rsplit(".", 1)[0], "catalog.yaml", path)
    places = {
        kind: PlaceKind(kind, spec.name, spec.room, spec.height, frozenset(spec.props))
        for kind, spec in data.places.items()
    }
    items = {kind: ItemKind(kind, spec.name, frozenset(spec.props), spec.homes) for kind, spec in data.items.items()}
    plural = frozenset(kind for kind, spec in data.items.items() if spec.plural)
    return Catalog(dict(data.rooms), places, items, plural)


_CATALOG = load_catalog()

ROOM_TYPES: dict[str, str] = _CATALOG.room_types
"""Room type id -> display name."""

PLACE_KINDS: dict[str, PlaceKind] = _CATALOG.place_kinds
"""Every furniture/fixture kind, by id. Corners and doorways are added per room by the world."""

ITEM_KINDS: dict[str, ItemKind] = _CATALOG.item_kinds
"""Every item kind, by id."""

PLURAL_KINDS: frozenset[str] = _CATALOG.plural_kinds
"""Item kinds whose names are plural ("the keys are", "take them")."""


def place_kind(kind: str) -> PlaceKind:
    """The place kind called ``kind`` (raises ``KeyError`` for an unknown kind)."""
    return PLACE_KINDS[kind]


def item_kind(kind: str) -> ItemKind:
    """The item kind called ``kind`` (raises ``KeyError`` for an unknown kind)."""
    return ITEM_KINDS[kind]

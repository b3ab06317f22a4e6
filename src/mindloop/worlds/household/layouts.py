"""Eight home layouts (MindPower used 8 apartment layouts across two simulators).

A layout lists its rooms (room-type ids, which are also the room ids), the furniture and fixtures in each
room, and some everyday clutter. Every room also gets a floor corner (``<room>_corner``) and a doorway
(``<room>_doorway``) when a world is built; an obstacle left in a doorway stops a wheelchair user.

The layouts themselves are package data, ``data/layouts.yaml`` beside this module, read and checked once on
import (:func:`load_layouts`): a malformed file raises :class:`~mindloop.datafiles.DataFileError` naming the
file, the layout and the field.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

from pydantic import Field

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import InvalidArgumentError, UnknownNameError
from mindloop.worlds.household.catalog import ITEM_KINDS, PLACE_KINDS, ROOM_TYPES


@dataclass(frozen=True, slots=True)
class RoomPlan:
    """One room of a layout: its id (a room type) and the place kinds it contains."""

    id: str
    places: tuple[str, ...]

    @property
    def name(self) -> str:
        """Display name (``living room``)."""
        return ROOM_TYPES[self.id]


@dataclass(frozen=True, slots=True)
class Layout:
    """A home: rooms with furniture, everyday clutter ``(item kind, place)``, and where the robot docks."""

    name: str
    title: str
    rooms: tuple[RoomPlan, ...]
    clutter: tuple[tuple[str, str], ...]
    dock: str

    def __post_init__(self) -> None:
        for _, problem in _problems(self.rooms, self.clutter, self.dock):
            raise InvalidArgumentError(f"layout {self.name!r}: {problem}")

    @property
    def room_ids(self) -> tuple[str, ...]:
        """Room ids in layout order."""
        return tuple(r.id for r in self.rooms)

    def room(self, room_id: str) -> RoomPlan:
        """The room plan with id ``room_id``."""
        for r in self.rooms:
            if r.id == room_id:
                return r
        raise UnknownNameError(f"layout {self.name!r} has no room {room_id!r} (rooms: {', '.join(self.room_ids)})")

    def place_ids(self) -> tuple[str, ...]:
        """Every furniture/fixture id of the layout (corners and doorways excluded)."""
        return tuple(p for r in self.rooms for p in r.places)


def _problems(
    rooms: tuple[RoomPlan, ...], clutter: tuple[tuple[str, str], ...], dock: str
) -> Iterator[tuple[str, str]]:
    """What is wrong with a layout, as ``(field, message)`` pairs (the field as its YAML path names it)."""
    seen: set[str] = set()
    for room in rooms:
        if room.id not in ROOM_TYPES:
            yield "rooms", f"unknown room type {room.id!r}"
            continue
        for place in room.places:
            spec = PLACE_KINDS.get(place)
            if spec is None or spec.room_type != room.id:
                yield f"rooms.{room.id}", f"{place!r} cannot stand in the {room.id}"
            elif place in seen:
                yield f"rooms.{room.id}", f"place {place!r} appears twice"
            seen.add(place)
    corners = {f"{r.id}_corner" for r in rooms}
    for kind, where in clutter:
        if kind not in ITEM_KINDS:
            yield "clutter", f"unknown item kind {kind!r}"
        elif where not in seen and where not in corners:
            yield f"clutter.{kind}", f"clutter {kind!r} sits at unknown place {where!r}"
    if dock not in {r.id for r in rooms}:
        yield "dock", f"dock {dock!r} is not one of its rooms"


class _LayoutSpec(DataModel):
    """One layout as ``data/layouts.yaml`` writes it."""

    title: str = Field(min_length=1)
    dock: str
    rooms: dict[str, tuple[str, ...]] = Field(min_length=1)
    clutter: dict[str, str] = Field(default={})

    def parts(self) -> tuple[tuple[RoomPlan, ...], tuple[tuple[str, str], ...], str]:
        """Its rooms, clutter and dock as :class:`Layout` takes them."""
        return (
            tuple(RoomPlan(room_id, places) for room_id, places in self.rooms.items()),
            tuple(self.clutter.items()),
            self.dock,
        )


class _LayoutsFile(DataModel):
    """The whole of ``data/layouts.yaml``: layouts by name, in order."""

    layouts: dict[str, _LayoutSpec] = Field(min_length=1)

    def problems(self) -> Iterator[tuple[str, str]]:
        for name, spec in self.layouts.items():
            for field, problem in _problems(*spec.parts()):
                yield f"layouts.{name}.{field}", problem


def load_layouts(path: str | Path | Traversable | None = None) -> dict[str, Layout]:
    """Read and check a layouts file (the one shipped with mindloop when ``path`` is ``None``)."""
    data = load_package_data(_LayoutsFile, __name__.rsplit(".", 1)[0], "layouts.yaml", path)
    return {name: Layout(name, spec.title, *spec.parts()) for name, spec in data.layouts.items()}


LAYOUTS: dict[str, Layout] = load_layouts()
"""The eight layouts, by name (from ``data/layouts.yaml``)."""


def layout(name: str) -> Layout:
    """The layout called ``name``; an unknown name raises :class:`~mindloop.errors.UnknownNameError`."""
    try:
        return LAYOUTS[name]
    except KeyError:
        raise UnknownNameError(f"unknown layout {name!r} (known: {', '.join(sorted(LAYOUTS))})") from None

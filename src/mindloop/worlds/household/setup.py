"""A serialisable description of a home at time 0: which layout, who is where, what lies where, what is on.

Scenarios carry a :class:`WorldSetup` plus a script of actions; replaying the script on a world built from the
setup reproduces the episode exactly, so a scenario file is enough to rebuild its world.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mindloop.records_codec import Record, not_a, read_record, rows, write_record


@dataclass(frozen=True, slots=True)
class WorldSetup(Record):
    """The initial state of a home.

    ``humans`` are ``(character id, room)``; ``items`` are ``(item id, item kind, location)`` where the location
    is a place, an item (a board, a plate) or an agent holding it; ``camera`` lists the rooms the robot's fixed
    camera sees (``None``: every room); ``sitting`` are ``(human, sittable place)``; ``filled`` are
    ``(cup, liquid kind)``; ``feelings`` are ``(human, feeling)`` such as ``("alex", "thirsty")``.

    A setup may dress the home and its people (how generated scenarios vary what they name): ``avatars`` are
    ``(human id, character id)`` for humans whose id is a name of their own, played by one of the cast's
    characters (its body, reach and pronouns; the display name is the id capitalised); ``place_ids`` are
    ``(place kind, place id)`` for the layout's places known by another id in this home (``oak_wardrobe``, shown
    as "oak wardrobe": the words the id adds before the kind, then the kind's name).
    """

    layout: str
    humans: tuple[tuple[str, str], ...] = field(metadata=rows("id", "room"))
    items: tuple[tuple[str, str, str], ...] = field(default=(), metadata=rows("id", "kind", "location"))
    robot_room: str | None = field(
        default=None, metadata={"codec": (lambda v: v or "", lambda v: str(v or "") or None)}
    )
    camera: tuple[str, ...] | None = field(default=None, metadata={"codec": (lambda v: list(v or ()), lambda v: v)})
    opened: tuple[str, ...] = ()
    switched_on: tuple[str, ...] = ()
    filled: tuple[tuple[str, str], ...] = field(default=(), metadata=rows("id", "liquid"))
    feelings: tuple[tuple[str, str], ...] = field(default=(), metadata=rows("id", "feeling"))
    sitting: tuple[tuple[str, str], ...] = field(default=(), metadata=rows("id", "place"))
    power: bool = True
    clutter: bool = True
    avatars: tuple[tuple[str, str], ...] = field(default=(), metadata=rows("id", "character"))
    place_ids: tuple[tuple[str, str], ...] = field(default=(), metadata=rows("kind", "id"))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with the same keys in every setup (lists of pairs, never dynamic keys): each field, with
        ``camera_all_rooms`` after ``camera`` (``[]`` then)."""
        items = list(write_record(self).items())
        at = [key for key, _ in items].index("camera") + 1
        return dict([*items[:at], ("camera_all_rooms", self.camera is None), *items[at:]])

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WorldSetup:
        """Inverse of :meth:`to_dict`; raises :class:`~mindloop.errors.InvalidArgumentError` on a bad record."""
        with not_a("world setup record"):
            setup: WorldSetup = read_record(cls, data)
            camera = None if data.get("camera_all_rooms", True) else tuple(str(c) for c in data["camera"])
            return replace(setup, camera=camera)

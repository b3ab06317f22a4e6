"""A serialisable description of a home at time 0: which layout, who is where, what lies where, what is on.

Scenarios carry a :class:`WorldSetup` plus a script of actions; replaying the script on a world built from the
setup reproduces the episode exactly, so a scenario file is enough to rebuild its world.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mindloop.errors import InvalidArgumentError

__all__ = ["WorldSetup"]


@dataclass(frozen=True, slots=True)
class WorldSetup:
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
    humans: tuple[tuple[str, str], ...]
    items: tuple[tuple[str, str, str], ...] = ()
    robot_room: str | None = None
    camera: tuple[str, ...] | None = None
    opened: tuple[str, ...] = ()
    switched_on: tuple[str, ...] = ()
    filled: tuple[tuple[str, str], ...] = ()
    feelings: tuple[tuple[str, str], ...] = ()
    sitting: tuple[tuple[str, str], ...] = ()
    power: bool = True
    clutter: bool = True
    avatars: tuple[tuple[str, str], ...] = ()
    place_ids: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with the same keys in every setup (lists of pairs, never dynamic keys)."""
        return {
            "layout": self.layout,
            "humans": [{"id": h, "room": r} for h, r in self.humans],
            "items": [{"id": i, "kind": k, "location": loc} for i, k, loc in self.items],
            "robot_room": self.robot_room or "",
            "camera": list(self.camera) if self.camera is not None else [],
            "camera_all_rooms": self.camera is None,
            "opened": list(self.opened),
            "switched_on": list(self.switched_on),
            "filled": [{"id": i, "liquid": liq} for i, liq in self.filled],
            "feelings": [{"id": h, "feeling": f} for h, f in self.feelings],
            "sitting": [{"id": h, "place": p} for h, p in self.sitting],
            "power": self.power,
            "clutter": self.clutter,
            "avatars": [{"id": h, "character": c} for h, c in self.avatars],
            "place_ids": [{"kind": k, "id": i} for k, i in self.place_ids],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WorldSetup:
        """Inverse of :meth:`to_dict`; raises :class:`~mindloop.errors.InvalidArgumentError` on a bad record."""
        try:
            return cls(
                layout=str(data["layout"]),
                humans=tuple((str(h["id"]), str(h["room"])) for h in data["humans"]),
                items=tuple((str(i["id"]), str(i["kind"]), str(i["location"])) for i in data.get("items", [])),
                robot_room=str(data.get("robot_room") or "") or None,
                camera=None if data.get("camera_all_rooms", True) else tuple(str(c) for c in data["camera"]),
                opened=tuple(str(x) for x in data.get("opened", [])),
                switched_on=tuple(str(x) for x in data.get("switched_on", [])),
                filled=tuple((str(f["id"]), str(f["liquid"])) for f in data.get("filled", [])),
                feelings=tuple((str(f["id"]), str(f["feeling"])) for f in data.get("feelings", [])),
                sitting=tuple((str(s["id"]), str(s["place"])) for s in data.get("sitting", [])),
                power=bool(data.get("power", True)),
                clutter=bool(data.get("clutter", True)),
                avatars=tuple((str(a["id"]), str(a["character"])) for a in data.get("avatars", [])),
                place_ids=tuple((str(p["kind"]), str(p["id"])) for p in data.get("place_ids", [])),
            )
        except (KeyError, TypeError) as exc:
            raise InvalidArgumentError(f"not a world setup record: missing or malformed {exc}") from None

"""Eight home layouts (MindPower used 8 apartment layouts across two simulators).

A layout lists its rooms (room-type ids, which are also the room ids), the furniture and fixtures in each
room, and some everyday clutter. Every room also gets a floor corner (``<room>_corner``) and a doorway
(``<room>_doorway``) when a world is built; an obstacle left in a doorway stops a wheelchair user.
"""

from __future__ import annotations

from dataclasses import dataclass

from mindloop.errors import InvalidArgumentError, UnknownNameError
from mindloop.worlds.household.catalog import ITEM_KINDS, PLACE_KINDS, ROOM_TYPES

__all__ = ["LAYOUTS", "Layout", "RoomPlan", "layout"]


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
        seen: set[str] = set()
        for room in self.rooms:
            if room.id not in ROOM_TYPES:
                raise InvalidArgumentError(f"layout {self.name!r}: unknown room type {room.id!r}")
            for place in room.places:
                spec = PLACE_KINDS.get(place)
                if spec is None or spec.room_type != room.id:
                    raise InvalidArgumentError(f"layout {self.name!r}: {place!r} cannot stand in the {room.id}")
                if place in seen:
                    raise InvalidArgumentError(f"layout {self.name!r}: place {place!r} appears twice")
                seen.add(place)
        for kind, where in self.clutter:
            if kind not in ITEM_KINDS:
                raise InvalidArgumentError(f"layout {self.name!r}: unknown item kind {kind!r}")
            if where not in seen and where not in {f"{r.id}_corner" for r in self.rooms}:
                raise InvalidArgumentError(f"layout {self.name!r}: clutter {kind!r} sits at unknown place {where!r}")
        if self.dock not in {r.id for r in self.rooms}:
            raise InvalidArgumentError(f"layout {self.name!r}: dock {self.dock!r} is not one of its rooms")

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


_KITCHEN_FULL = (
    "fridge",
    "dishwasher",
    "kitchen_cabinet",
    "kitchen_drawer",
    "kitchen_counter",
    "kitchen_table",
    "pantry_shelf",
    "sink",
    "faucet",
    "microwave",
    "stove",
    "kitchen_light",
)
_KITCHEN_SMALL = (
    "fridge",
    "kitchen_cabinet",
    "kitchen_drawer",
    "kitchen_counter",
    "sink",
    "faucet",
    "stove",
    "pantry_shelf",
    "kitchen_light",
)
_BATHROOM = ("bathroom_counter", "bathroom_cabinet", "bathroom_faucet", "towel_rack", "bathtub", "laundry_hamper")


def _room(room_id: str, *places: str) -> RoomPlan:
    return RoomPlan(room_id, places)


LAYOUTS: dict[str, Layout] = {
    lay.name: lay
    for lay in (
        Layout(
            "cozy_apartment",
            "Cozy apartment",
            (
                _room("kitchen", *_KITCHEN_FULL),
                _room(
                    "living_room",
                    "sofa",
                    "coffee_table",
                    "tv",
                    "tv_stand",
                    "bookshelf",
                    "top_shelf",
                    "sideboard_drawer",
                    "floor_lamp",
                ),
                _room(
                    "bedroom",
                    "bed",
                    "nightstand",
                    "nightstand_drawer",
                    "wardrobe",
                    "dresser",
                    "bedroom_shelf",
                    "desk_lamp",
                ),
                _room("bathroom", *_BATHROOM),
            ),
            (("remote", "coffee_table"), ("pillow", "sofa"), ("towel", "towel_rack"), ("book", "bookshelf")),
            "living_room",
        ),
        Layout(
            "family_house",
            "Family house",
            (
                _room("kitchen", *_KITCHEN_FULL),
                _room("dining_room", "dining_table", "dining_chair", "cupboard", "sideboard", "china_shelf"),
                _room(
                    "living_room",
                    "sofa",
                    "armchair",
                    "coffee_table",
                    "tv",
                    "tv_stand",
                    "bookshelf",
                    "sideboard_drawer",
                    "floor_lamp",
                ),
                _room("bedroom", "bed", "nightstand", "nightstand_drawer", "wardrobe", "bedroom_shelf", "desk_lamp"),
                _room("kids_room", "kids_bed", "toy_box", "kids_table", "kids_shelf"),
                _room("bathroom", *_BATHROOM),
            ),
            (("toy_car", "kids_table"), ("vase", "china_shelf"), ("remote", "sofa"), ("book", "nightstand")),
            "living_room",
        ),
        Layout(
            "studio_flat",
            "Studio flat",
            (
                _room("kitchen", *_KITCHEN_SMALL),
                _room(
                    "living_room",
                    "sofa",
                    "coffee_table",
                    "tv",
                    "tv_stand",
                    "bookshelf",
                    "top_shelf",
                    "sideboard_drawer",
                    "floor_lamp",
                ),
                _room("bathroom", "bathroom_counter", "bathroom_cabinet", "bathroom_faucet", "towel_rack"),
            ),
            (("headphones", "sofa"), ("towel", "towel_rack")),
            "living_room",
        ),
        Layout(
            "townhouse",
            "Townhouse",
            (
                _room("kitchen", *_KITCHEN_FULL),
                _room("dining_room", "dining_table", "dining_chair", "cupboard", "sideboard", "china_shelf"),
                _room(
                    "living_room",
                    "sofa",
                    "coffee_table",
                    "tv",
                    "tv_stand",
                    "bookshelf",
                    "floor_lamp",
                    "sideboard_drawer",
                ),
                _room("study", "desk", "desk_drawer", "office_chair", "study_shelf", "reading_lamp"),
                _room("bedroom", "bed", "nightstand", "nightstand_drawer", "wardrobe", "dresser", "desk_lamp"),
                _room("bathroom", *_BATHROOM),
            ),
            (("laptop", "desk"), ("vase", "sideboard"), ("pillow", "bed")),
            "living_room",
        ),
        Layout(
            "garden_cottage",
            "Garden cottage",
            (
                _room("hallway", "shoe_rack", "hall_table", "coat_closet", "hall_shelf"),
                _room("kitchen", *_KITCHEN_SMALL, "kitchen_table", "dishwasher"),
                _room(
                    "living_room",
                    "sofa",
                    "armchair",
                    "coffee_table",
                    "tv",
                    "bookshelf",
                    "top_shelf",
                    "sideboard_drawer",
                    "floor_lamp",
                ),
                _room("bedroom", "bed", "nightstand", "nightstand_drawer", "wardrobe", "bedroom_shelf", "desk_lamp"),
                _room("bathroom", *_BATHROOM),
            ),
            (("umbrella", "hallway_corner"), ("scarf", "hall_table"), ("book", "coffee_table")),
            "hallway",
        ),
        Layout(
            "city_loft",
            "City loft",
            (
                _room(
                    "kitchen",
                    "fridge",
                    "kitchen_cabinet",
                    "kitchen_drawer",
                    "kitchen_counter",
                    "kitchen_table",
                    "sink",
                    "faucet",
                    "microwave",
                    "stove",
                    "pantry_shelf",
                    "kitchen_light",
                ),
                _room(
                    "living_room",
                    "sofa",
                    "coffee_table",
                    "tv",
                    "tv_stand",
                    "top_shelf",
                    "sideboard_drawer",
                    "floor_lamp",
                ),
                _room("study", "desk", "desk_drawer", "office_chair", "study_shelf", "reading_lamp"),
                _room("bathroom", "bathroom_counter", "bathroom_cabinet", "bathroom_faucet", "towel_rack", "bathtub"),
            ),
            (("notebook", "desk"), ("remote", "tv_stand")),
            "living_room",
        ),
        Layout(
            "suburban_home",
            "Suburban home",
            (
                _room("hallway", "hall_table", "coat_closet", "shoe_rack", "hall_shelf"),
                _room("kitchen", *_KITCHEN_FULL),
                _room("dining_room", "dining_table", "dining_chair", "cupboard", "sideboard"),
                _room(
                    "living_room",
                    "sofa",
                    "armchair",
                    "coffee_table",
                    "tv",
                    "tv_stand",
                    "bookshelf",
                    "sideboard_drawer",
                    "floor_lamp",
                ),
                _room(
                    "bedroom",
                    "bed",
                    "nightstand",
                    "nightstand_drawer",
                    "wardrobe",
                    "dresser",
                    "bedroom_shelf",
                    "desk_lamp",
                ),
                _room("kids_room", "kids_bed", "toy_box", "kids_table", "kids_shelf"),
                _room("bathroom", *_BATHROOM),
            ),
            (("ball", "kids_room_corner"), ("teddy_bear", "kids_bed"), ("scarf", "hall_table")),
            "hallway",
        ),
        Layout(
            "accessible_flat",
            "Accessible flat",
            (
                _room(
                    "kitchen",
                    "fridge",
                    "dishwasher",
                    "kitchen_cabinet",
                    "kitchen_drawer",
                    "kitchen_counter",
                    "kitchen_table",
                    "sink",
                    "faucet",
                    "microwave",
                    "stove",
                    "pantry_shelf",
                    "kitchen_light",
                ),
                _room(
                    "living_room",
                    "sofa",
                    "coffee_table",
                    "tv",
                    "tv_stand",
                    "bookshelf",
                    "top_shelf",
                    "sideboard_drawer",
                    "floor_lamp",
                ),
                _room("study", "desk", "desk_drawer", "study_shelf", "reading_lamp"),
                _room("bedroom", "bed", "nightstand", "nightstand_drawer", "wardrobe", "bedroom_shelf", "desk_lamp"),
                _room("bathroom", "bathroom_counter", "bathroom_cabinet", "bathroom_faucet", "towel_rack"),
            ),
            (("glasses", "nightstand"), ("remote", "coffee_table")),
            "living_room",
        ),
    )
}
"""The eight layouts, by name."""


def layout(name: str) -> Layout:
    """The layout called ``name``; an unknown name raises :class:`~mindloop.errors.UnknownNameError`."""
    try:
        return LAYOUTS[name]
    except KeyError:
        raise UnknownNameError(f"unknown layout {name!r} (known: {', '.join(sorted(LAYOUTS))})") from None

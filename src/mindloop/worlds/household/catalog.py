"""The catalogue of room types, furniture/fixture kinds (places) and item kinds a home is built from.

Heights are in metres: the height of the spot where things sit, which is what reach limits are checked
against (a 1.2 m child reaches up to 1.3 m; the top of a wall cabinet is 1.6 m). Every place kind belongs to
one room type, so a home never has two places of one kind and the kind doubles as the place id.
"""

from __future__ import annotations

from dataclasses import dataclass

from mindloop.worlds.household.vocab import Prop

__all__ = [
    "HIGH_PLACE",
    "ITEM_KINDS",
    "PLACE_KINDS",
    "PLURAL_KINDS",
    "ROOM_TYPES",
    "ItemKind",
    "PlaceKind",
    "item_kind",
    "place_kind",
]

HIGH_PLACE = 1.5
"""Places at or above this height count as "high" (out of reach for children and wheelchair users)."""

PLURAL_KINDS = frozenset({"headphones", "keys", "cookies", "glasses"})
"""Item kinds whose names are plural ("the keys are", "take them")."""

ROOM_TYPES: dict[str, str] = {
    "kitchen": "kitchen",
    "living_room": "living room",
    "dining_room": "dining room",
    "bedroom": "bedroom",
    "kids_room": "kids' room",
    "bathroom": "bathroom",
    "study": "study",
    "hallway": "hallway",
}
"""Room type id -> display name."""


@dataclass(frozen=True, slots=True)
class PlaceKind:
    """A kind of furniture or fixture: where it stands, how high things sit on/in it, what it affords."""

    kind: str
    name: str
    room_type: str
    height: float
    props: frozenset[Prop]

    @property
    def prep(self) -> str:
        """``in`` for receptacles (fridge, drawer), ``on`` for surfaces."""
        return "in" if Prop.RECEPTACLE in self.props else "on"


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


def _p(kind: str, name: str, room: str, height: float, *props: Prop) -> PlaceKind:
    return PlaceKind(kind, name, room, height, frozenset(props))


def _i(kind: str, name: str, props: tuple[Prop, ...], *homes: str) -> ItemKind:
    return ItemKind(kind, name, frozenset(props), homes)


_S, _R, _O, _W = Prop.SURFACE, Prop.RECEPTACLE, Prop.OPENABLE, Prop.SWITCHABLE
_G = Prop.GRASPABLE

PLACE_KINDS: dict[str, PlaceKind] = {
    p.kind: p
    for p in (
        # kitchen
        _p("fridge", "fridge", "kitchen", 1.0, _R, _O),
        _p("dishwasher", "dishwasher", "kitchen", 0.5, _R, _O),
        _p("kitchen_cabinet", "wall cabinet", "kitchen", 1.6, _R, _O),
        _p("kitchen_drawer", "kitchen drawer", "kitchen", 0.8, _R, _O),
        _p("kitchen_counter", "kitchen counter", "kitchen", 0.9, _S),
        _p("kitchen_table", "kitchen table", "kitchen", 0.75, _S),
        _p("pantry_shelf", "high pantry shelf", "kitchen", 1.8, _S),
        _p("sink", "sink", "kitchen", 0.85, _S),
        _p("faucet", "faucet", "kitchen", 1.0, _W, Prop.WATER_SOURCE),
        _p("microwave", "microwave", "kitchen", 1.3, _R, _O, _W, Prop.NEEDS_POWER),
        _p("stove", "stove", "kitchen", 0.9, _S, _W, Prop.COOKER),
        _p("kitchen_light", "kitchen light", "kitchen", 1.4, _W, Prop.NEEDS_POWER, Prop.LIGHT_SOURCE),
        # living room
        _p("sofa", "sofa", "living_room", 0.45, _S, Prop.SITTABLE),
        _p("armchair", "armchair", "living_room", 0.45, _S, Prop.SITTABLE),
        _p("coffee_table", "coffee table", "living_room", 0.45, _S),
        _p("tv", "TV", "living_room", 1.0, _W, Prop.NEEDS_POWER, Prop.WATCHABLE),
        _p("tv_stand", "TV stand", "living_room", 0.5, _S),
        _p("bookshelf", "bookshelf", "living_room", 1.2, _S),
        _p("top_shelf", "top shelf", "living_room", 1.9, _S),
        _p("sideboard_drawer", "sideboard drawer", "living_room", 0.7, _R, _O),
        _p("floor_lamp", "floor lamp", "living_room", 1.4, _W, Prop.NEEDS_POWER, Prop.LIGHT_SOURCE),
        # dining room
        _p("dining_table", "dining table", "dining_room", 0.75, _S),
        _p("dining_chair", "dining chair", "dining_room", 0.45, _S, Prop.SITTABLE),
        _p("cupboard", "cupboard", "dining_room", 1.2, _R, _O),
        _p("sideboard", "sideboard", "dining_room", 0.9, _S),
        _p("china_shelf", "china shelf", "dining_room", 1.7, _S),
        # bedroom
        _p("bed", "bed", "bedroom", 0.5, _S, Prop.SITTABLE, Prop.BED),
        _p("nightstand", "nightstand", "bedroom", 0.6, _S),
        _p("nightstand_drawer", "nightstand drawer", "bedroom", 0.5, _R, _O),
        _p("wardrobe", "wardrobe", "bedroom", 1.0, _R, _O),
        _p("dresser", "dresser", "bedroom", 0.9, _S),
        _p("bedroom_shelf", "bedroom shelf", "bedroom", 1.8, _S),
        _p("desk_lamp", "desk lamp", "bedroom", 0.9, _W, Prop.NEEDS_POWER, Prop.LIGHT_SOURCE),
        # kids' room
        _p("kids_bed", "kids' bed", "kids_room", 0.4, _S, Prop.SITTABLE, Prop.BED),
        _p("toy_box", "toy box", "kids_room", 0.4, _R, _O),
        _p("kids_table", "kids' table", "kids_room", 0.5, _S),
        _p("kids_shelf", "high shelf", "kids_room", 1.7, _S),
        # bathroom
        _p("bathroom_counter", "bathroom counter", "bathroom", 0.9, _S),
        _p("bathroom_cabinet", "bathroom cabinet", "bathroom", 1.5, _R, _O),
        _p("bathroom_faucet", "bathroom faucet", "bathroom", 1.0, _W, Prop.WATER_SOURCE),
        _p("towel_rack", "towel rack", "bathroom", 1.2, _S),
        _p("bathtub", "bathtub", "bathroom", 0.5, _S),
        _p("laundry_hamper", "laundry hamper", "bathroom", 0.6, _R, _O),
        # study
        _p("desk", "desk", "study", 0.75, _S),
        _p("desk_drawer", "desk drawer", "study", 0.6, _R, _O),
        _p("office_chair", "office chair", "study", 0.45, _S, Prop.SITTABLE),
        _p("study_shelf", "study shelf", "study", 1.8, _S),
        _p("reading_lamp", "reading lamp", "study", 1.3, _W, Prop.NEEDS_POWER, Prop.LIGHT_SOURCE),
        # hallway
        _p("shoe_rack", "shoe rack", "hallway", 0.4, _S),
        _p("hall_table", "hall table", "hallway", 0.8, _S),
        _p("coat_closet", "coat closet", "hallway", 1.0, _R, _O),
        _p("hall_shelf", "hat shelf", "hallway", 1.8, _S),
    )
}
"""Every furniture/fixture kind, by id. Corners and doorways are added per room by the world."""

ITEM_KINDS: dict[str, ItemKind] = {
    k.kind: k
    for k in (
        # food
        _i(
            "apple",
            "apple",
            (_G, Prop.EDIBLE, Prop.CUTTABLE),
            "kitchen_table",
            "kitchen_counter",
            "fridge",
            "dining_table",
            "coffee_table",
        ),
        _i("banana", "banana", (_G, Prop.EDIBLE), "kitchen_table", "kitchen_counter", "dining_table"),
        _i("orange", "orange", (_G, Prop.EDIBLE, Prop.CUTTABLE), "kitchen_table", "fridge", "dining_table"),
        _i("carrot", "carrot", (_G, Prop.EDIBLE, Prop.CUTTABLE), "fridge", "kitchen_counter"),
        _i("bread", "bread", (_G, Prop.EDIBLE, Prop.CUTTABLE), "kitchen_counter", "kitchen_cabinet"),
        _i("cheese", "cheese", (_G, Prop.EDIBLE, Prop.CUTTABLE), "fridge"),
        _i("cereal", "cereal box", (_G, Prop.EDIBLE), "kitchen_cabinet", "pantry_shelf"),
        _i("cookies", "cookies", (_G, Prop.EDIBLE), "pantry_shelf", "kitchen_cabinet", "kitchen_counter"),
        _i("cupcake", "cupcake", (_G, Prop.EDIBLE), "kitchen_counter", "fridge", "dining_table"),
        _i("egg", "egg", (_G, Prop.EDIBLE), "fridge"),
        _i("milk", "milk", (_G, Prop.LIQUID), "fridge"),
        _i("juice", "juice", (_G, Prop.LIQUID), "fridge"),
        _i("water", "water", (Prop.LIQUID,), "sink"),
        # kitchenware
        _i("mug", "mug", (_G, Prop.CONTAINER), "kitchen_cabinet", "kitchen_counter", "kitchen_table", "dishwasher"),
        _i("cup", "cup", (_G, Prop.CONTAINER), "kitchen_cabinet", "kitchen_counter", "dishwasher", "cupboard"),
        _i("glass", "glass", (_G, Prop.CONTAINER), "kitchen_cabinet", "kitchen_counter", "cupboard"),
        _i("plate", "plate", (_G, _S), "kitchen_cabinet", "dishwasher", "cupboard", "dining_table"),
        _i("bowl", "bowl", (_G, _S), "kitchen_cabinet", "dishwasher", "cupboard"),
        _i("knife", "knife", (_G, Prop.CUTTER), "kitchen_drawer"),
        _i("cutting_board", "cutting board", (_G, _S), "kitchen_counter", "kitchen_cabinet"),
        _i("frying_pan", "frying pan", (_G, _S), "stove", "kitchen_cabinet"),
        _i("spoon", "spoon", (_G,), "kitchen_drawer"),
        # personal things
        _i("phone", "phone", (_G,), "coffee_table", "nightstand", "desk", "sofa", "kitchen_table"),
        _i("keys", "keys", (_G,), "hall_table", "coffee_table", "nightstand_drawer", "kitchen_counter"),
        _i("wallet", "wallet", (_G,), "hall_table", "dresser", "desk", "nightstand"),
        _i("glasses", "reading glasses", (_G,), "nightstand", "coffee_table", "desk", "bookshelf"),
        _i("remote", "remote control", (_G,), "coffee_table", "sofa", "tv_stand"),
        _i("book", "book", (_G, Prop.READABLE), "bookshelf", "nightstand", "coffee_table", "desk"),
        _i("notebook", "notebook", (_G, Prop.WRITABLE), "desk", "desk_drawer", "coffee_table"),
        _i("pen", "pen", (_G, Prop.WRITER), "desk_drawer", "desk", "kitchen_drawer"),
        _i("laptop", "laptop", (_G,), "desk", "coffee_table", "kitchen_table"),
        _i("headphones", "headphones", (_G,), "desk", "nightstand", "sofa"),
        _i("perfume", "perfume", (_G,), "bathroom_counter", "dresser", "bathroom_cabinet"),
        _i("toothbrush", "toothbrush", (_G,), "bathroom_counter"),
        _i("toothpaste", "toothpaste", (_G,), "bathroom_cabinet", "bathroom_counter"),
        _i("towel", "towel", (_G,), "towel_rack", "laundry_hamper", "wardrobe"),
        _i("hairbrush", "hairbrush", (_G,), "bathroom_counter", "dresser"),
        _i("medicine", "medicine", (_G,), "bathroom_cabinet", "kitchen_cabinet"),
        _i("watch", "watch", (_G,), "nightstand", "dresser", "bathroom_counter"),
        # home things
        _i(
            "candle",
            "candle",
            (_G, _W, Prop.LIGHT_SOURCE),
            "kitchen_drawer",
            "sideboard_drawer",
            "cupboard",
            "desk_drawer",
            "nightstand_drawer",
        ),
        _i("blanket", "blanket", (_G,), "wardrobe", "bed", "sofa", "coat_closet"),
        _i("pillow", "pillow", (_G,), "bed", "sofa"),
        _i("teddy_bear", "teddy bear", (_G,), "kids_bed", "toy_box", "kids_shelf", "bed"),
        _i("toy_car", "toy car", (_G,), "toy_box", "kids_table", "kids_shelf"),
        _i("ball", "ball", (_G,), "toy_box", "kids_table", "living_room_corner"),
        _i("vase", "vase", (_G,), "china_shelf", "sideboard", "dining_table", "top_shelf"),
        _i("umbrella", "umbrella", (_G,), "coat_closet", "hallway_corner"),
        _i("scarf", "scarf", (_G,), "coat_closet", "wardrobe", "hall_table"),
        # obstacles: movable, not graspable
        _i("box", "big box", (Prop.MOVABLE, Prop.OBSTACLE)),
        _i("laundry_basket", "laundry basket", (Prop.MOVABLE, Prop.OBSTACLE)),
        _i("vacuum_cleaner", "vacuum cleaner", (Prop.MOVABLE, Prop.OBSTACLE)),
        _i("fire_hydrant", "fire hydrant", (Prop.MOVABLE, Prop.OBSTACLE)),
    )
}
"""Every item kind, by id."""


def place_kind(kind: str) -> PlaceKind:
    """The place kind called ``kind`` (raises ``KeyError`` for an unknown kind)."""
    return PLACE_KINDS[kind]


def item_kind(kind: str) -> ItemKind:
    """The item kind called ``kind`` (raises ``KeyError`` for an unknown kind)."""
    return ITEM_KINDS[kind]

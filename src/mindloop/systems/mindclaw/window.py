"""The one window type every input source is turned into (MindClaw §IV-C), and the scene state it may carry.

A :class:`Window` holds what the robot got in one step of the stream: the events it perceived (with the humans
who were there to see them), narration lines, dialogue, optional frames, the simulator state as the robot knows
it (:class:`SceneView`), user-control metadata, task context, the candidate actor/object/location slots and the
map from source-specific names to canonical ones. The rest of the runtime only ever sees windows, so a live
simulator, a recorded episode, a folder of frames and a person at a terminal all look the same to it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, Self, cast, runtime_checkable

from mindloop.beliefs import Fact
from mindloop.beliefs.vocab import ROBOT
from mindloop.errors import InvalidArgumentError
from mindloop.records_codec import Codec, Record, not_a, read_record, rows


def _read_fact(data: Any) -> Fact:
    subject, relation, value = data
    return Fact(str(subject), str(relation), None if value is None else str(value))


_BLANK = {"codec": (str, lambda v: str(v or ""))}
"""A text field that reads ``null`` as empty."""


@dataclass(frozen=True, slots=True)
class WindowEvent(Record):
    """One perceived event: who did what (``verb(args)``), where, whether it failed, the facts it showed and the
    humans who were present to see it (``witnesses``, the robot left out; for speech: the listeners).

    ``kind`` is the belief-core event kind (``enter``, ``exit``, ``move``, ``put``, ``open``, ``close``,
    ``observe``, ``other``) or ``say``; ``actor`` is ``""`` for events nobody performs (a power cut) and for
    silent observations. ``to_dict`` writes every key, a fact as ``[subject, relation, value]``.
    """

    CODECS: ClassVar[Mapping[str, Codec]] = {"Fact": (lambda f: [f.subject, f.relation, f.value], _read_fact)}
    READ_MISSING: ClassVar[Mapping[str, Any]] = {"kind": "other", "actor": "", "verb": ""}
    KIND: ClassVar[str | None] = "window event"
    """``from_dict``: missing optional keys take their defaults."""

    t: int
    kind: str
    actor: str = field(metadata=_BLANK)
    verb: str
    args: tuple[str, ...] = ()
    room: str = field(default="", metadata=_BLANK)
    text: str = ""
    failure: str = field(default="", metadata=_BLANK)
    facts: tuple[Fact, ...] = ()
    witnesses: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Candidates(Record):
    """The valid slot fillers of a window (``C_t`` of eq. (4)): actors, objects and locations (``to_dict``: sorted
    lists, for JSON).

    Trigger operations may only name these; anything else is an invalid slot and a recorded failure.
    """

    CODECS: ClassVar[Mapping[str, Codec]] = {"frozenset[str]": (sorted, lambda v: frozenset(map(str, v)))}

    actors: frozenset[str] = frozenset()
    objects: frozenset[str] = frozenset()
    locations: frozenset[str] = frozenset()


EMPTY_CANDIDATES = Candidates()


@runtime_checkable
class SceneView(Protocol):
    """The simulator state as the robot knows it: where things are, what is open or on, who is where.

    It is the robot's own knowledge (what it perceived and remembers) plus the static map of its home (which
    places are receptacles, which rooms they are in) — never privileged ground truth.
    """

    def items(self) -> Sequence[str]:
        """Every item the robot knows of, in a stable order."""
        ...

    def humans(self) -> Sequence[str]:
        """Every human the robot knows of."""
        ...

    def places(self) -> Sequence[str]:
        """Every place (furniture, fixture, floor corner, doorway) on the robot's map of its home."""
        ...

    def location(self, item: str) -> str | None:
        """Where the robot believes ``item`` is: a place, another item, or the agent holding it."""
        ...

    def kind(self, item: str) -> str:
        """The item's kind (``knife``, ``glass``): what it is, whatever its id."""
        ...

    def props(self, entity: str) -> frozenset[str]:
        """Static properties of a place or item (``receptacle``, ``openable``, ``water_source``, ...)."""
        ...

    def place_room(self, place: str) -> str | None:
        """The room a place (or room) is in; ``None`` for anything else."""
        ...

    def agent_room(self, agent: str) -> str | None:
        """The room the robot believes ``agent`` is in (``None`` when out of view)."""
        ...

    def is_open(self, entity: str) -> bool:
        """Whether an openable thing is open."""
        ...

    def is_on(self, entity: str) -> bool:
        """Whether a switchable thing is on (a faucet running)."""
        ...

    def power(self) -> bool:
        """Whether the house has mains power."""
        ...

    def feels(self, agent: str) -> str | None:
        """A bodily state the robot believes ``agent`` has (``thirsty``), if any."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the format :class:`DictScene` reads)."""
        ...


def room_of(scene: SceneView, entity: str, *, _depth: int = 0) -> str | None:
    """The room of a place, room, agent or item (an item follows where it is: place, item it sits on, holder)."""
    room = scene.place_room(entity)
    if room is not None:
        return room
    if entity in scene.humans() or entity == ROBOT:
        return scene.agent_room(entity)
    where = scene.location(entity)
    if where is None or _depth > 8:
        return None
    return room_of(scene, where, _depth=_depth + 1)


def base_place(scene: SceneView, item: str) -> str | None:
    """The place an item finally rests on (through items it sits on); ``None`` when someone holds it."""
    where = scene.location(item)
    for _ in range(8):
        if where is None:
            return None
        if scene.place_room(where) is not None:
            return where
        if where in scene.humans() or where == ROBOT:
            return None
        where = scene.location(where)
    return None


class MapScene:
    """The parts of a :class:`SceneView` a home's map fixes (ids, kinds, properties, the room of each place), read
    from the ``_items``, ``_humans``, ``_places``, ``_kind``, ``_props`` and ``_place_room`` its subclass sets."""

    _items: tuple[str, ...]
    _humans: tuple[str, ...]
    _places: tuple[str, ...]
    _kind: dict[str, str]
    _props: dict[str, frozenset[str]]
    _place_room: dict[str, str]

    def items(self) -> Sequence[str]:
        """Items in record order."""
        return self._items

    def humans(self) -> Sequence[str]:
        """Humans in record order (the robot left out)."""
        return self._humans

    def places(self) -> Sequence[str]:
        """Places in record order (rooms left out)."""
        return self._places

    def kind(self, item: str) -> str:
        """Recorded kind (the id itself when none is given)."""
        return self._kind.get(item, item)

    def props(self, entity: str) -> frozenset[str]:
        """Recorded properties (empty for unknown entities)."""
        return self._props.get(entity, frozenset())

    def place_room(self, place: str) -> str | None:
        """Recorded room of a place (a room is in itself)."""
        room = self._place_room.get(place)
        return room or None


class DictScene(MapScene):
    """A :class:`SceneView` read from plain data (a recorded window, a VirtualHome/ThreeDWorld snapshot).

    Format::

        {"places": {"fridge": {"room": "kitchen", "props": ["openable", "receptacle"], "open": false}},
         "items":  {"apple": {"kind": "apple", "at": "fridge", "props": ["graspable"]}},
         "agents": {"alice": {"room": "kitchen", "feels": null}},
         "switched_on": ["faucet"], "power": true, "rooms": ["kitchen"]}
    """

    def __init__(self, data: Mapping[str, Any]) -> None:
        with not_a("scene record", (AttributeError, TypeError, ValueError)):
            places = data.get("places", {})
            items = data.get("items", {})
            agents = data.get("agents", {})
            self._rooms: tuple[str, ...] = tuple(str(r) for r in data.get("rooms", []))
            self._place_room = {str(p): str(v.get("room", "")) for p, v in places.items()}
            self._places = tuple(self._place_room)
            for r in self._rooms:
                self._place_room.setdefault(r, r)
            self._props = {str(p): frozenset(str(x) for x in v.get("props", [])) for p, v in places.items()}
            self._props.update({str(i): frozenset(str(x) for x in v.get("props", [])) for i, v in items.items()})
            self._open = {str(p) for p, v in places.items() if v.get("open")}
            self._on = {str(x) for x in data.get("switched_on", [])}
            self._items = tuple(str(i) for i in items)
            self._kind = {str(i): str(v.get("kind", i)) for i, v in items.items()}
            self._at = {str(i): (None if v.get("at") is None else str(v["at"])) for i, v in items.items()}
            self._humans = tuple(str(a) for a in agents if a != ROBOT)
            self._agent_room = {
                str(a): (None if v.get("room") in (None, "") else str(v["room"])) for a, v in agents.items()
            }
            self._feels = {str(a): (None if not v.get("feels") else str(v["feels"])) for a, v in agents.items()}
            self._power = bool(data.get("power", True))

    def location(self, item: str) -> str | None:
        """Recorded location of an item."""
        return self._at.get(item)

    def agent_room(self, agent: str) -> str | None:
        """Recorded room of an agent."""
        return self._agent_room.get(agent)

    def is_open(self, entity: str) -> bool:
        """Whether the record lists the place as open."""
        return entity in self._open

    def is_on(self, entity: str) -> bool:
        """Whether the record lists the thing as switched on."""
        return entity in self._on

    def power(self) -> bool:
        """Recorded mains power."""
        return self._power

    def feels(self, agent: str) -> str | None:
        """Recorded feeling."""
        return self._feels.get(agent)

    def to_dict(self) -> dict[str, Any]:
        """The record back (sorted where order carries no meaning)."""
        return scene_record(self)


def scene_record(scene: SceneView) -> dict[str, Any]:
    """Any :class:`SceneView` as the plain record :class:`DictScene` reads."""
    items = list(scene.items())
    place_list = [p for p in scene.places() if scene.place_room(p) is not None]
    rooms = sorted({r for p in place_list if (r := scene.place_room(p)) is not None})
    switchable = [p for p in place_list if "switchable" in scene.props(p)] + [
        i for i in items if "switchable" in scene.props(i)
    ]
    return {
        "rooms": rooms,
        "places": {
            p: {"room": scene.place_room(p), "props": sorted(scene.props(p)), "open": scene.is_open(p)}
            for p in place_list
            if p not in rooms
        },
        "items": {i: {"kind": scene.kind(i), "at": scene.location(i), "props": sorted(scene.props(i))} for i in items},
        "agents": {a: {"room": scene.agent_room(a), "feels": scene.feels(a)} for a in [*scene.humans(), ROBOT]},
        "switched_on": sorted(x for x in switchable if scene.is_on(x)),
        "power": scene.power(),
    }


def scene_from_dict(data: Mapping[str, Any] | None) -> SceneView | None:
    """A :class:`DictScene` from a record, or ``None`` for no record."""
    return DictScene(data) if data is not None else None


_TEXTS: Codec = (dict, lambda v: {str(k): str(x) for k, x in dict(v or {}).items()})


@dataclass(frozen=True)
class Window(Record):
    """One input window ``w_t``: perceived events, narration, dialogue, frames, scene state, user-control
    metadata, task context, candidate slots and canonical names (MindClaw §IV-C).

    ``control`` is user-control metadata (who drove whom, the typed line); ``names`` maps source-specific names
    to the canonical ids used in ``events`` and ``candidates``; ``source`` names the input source. ``to_dict`` is
    one line of a replay file.
    """

    CODECS: ClassVar[Mapping[str, Codec]] = {
        "SceneView | None": (lambda s: None if s is None else s.to_dict(), scene_from_dict),
        "Candidates": (Candidates.to_dict, lambda v: Candidates.from_dict(v or {})),
        "Mapping[str, str]": _TEXTS,
    }
    READ_MISSING: ClassVar[Mapping[str, Any]] = {"control": {}, "names": {}}

    t: int
    events: tuple[WindowEvent, ...] = ()
    text: str = ""
    dialogue: tuple[tuple[str, str], ...] = field(default=(), metadata=rows("speaker", "text"))
    frames: tuple[str, ...] = ()
    state: SceneView | None = None
    candidates: Candidates = EMPTY_CANDIDATES
    control: Mapping[str, str] = field(default_factory=dict)
    task: str = ""
    source: str = ""
    names: Mapping[str, str] = field(default_factory=dict)

    @property
    def humans_acted(self) -> bool:
        """Whether any human did anything in this window (speech included; observations and the robot not)."""
        return any(e.actor and e.actor != ROBOT and e.kind != "observe" for e in self.events)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Inverse of :meth:`to_dict`; raises :class:`~mindloop.errors.InvalidArgumentError` on a bad record."""
        if not isinstance(data, Mapping):
            raise InvalidArgumentError(f"a window record must be a JSON object, got {type(data).__name__}")
        try:
            t = int(data["t"])
        except (KeyError, TypeError, ValueError):
            raise InvalidArgumentError("a window record needs an integer 't'") from None
        try:
            return cast(Self, read_record(cls, data))
        except InvalidArgumentError:  # a bad event or scene names itself
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"window {t}: bad dialogue, control or names: {exc}") from None

"""What an ``Observe()`` reports: the visible objects and doors with binned bearings, distances and facings.

Rules (the reference's): a 90° field of view (±45° included), only items sharing a room with the observer (an
observer standing in a doorway is in both rooms; a door belongs to both its rooms), nothing on the observer's
own cell, no occlusion. Each visible item gives one line; pairs of visible items at most 2 apart also give a
*proximity* line in the observer's frame, where the observer's facing is called "north". The text is exactly
the reference's (note the space after the colon)::

    You observe:␣
    • bike: front-right, mid distance, facing left
    • lamp: front, mid distance
    • blue door: front-right, slightly far, on front wall.

The structured form (:class:`Observation`) carries the same content, nothing more.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from mindloop.errors import ParseError
from mindloop.systems.tos.world.geometry import (
    CARDINAL_LABELS,
    DISTANCE_LABELS,
    EGO_LABELS,
    Vec,
    bearing,
    cardinal_bin,
    distance_bin,
    ego_labels,
    relative_facing,
    wall_side,
)
from mindloop.systems.tos.world.scene import Door, Scene

PROXIMITY_THRESHOLD = 2.0
"""Pairs of visible items at most this far apart are also described relative to each other."""
NO_OBJECTS = "No objects in field of view."
_COS_FOV = 0.707 - 1e-3  # the reference's field-of-view test (see geometry.in_fov), for unit headings
PROXIMITY_HEADER = 'Assume your current facing direction is called "north":'


@dataclass(frozen=True, slots=True)
class SeenItem:
    """One visible object or door: egocentric direction and distance bins, and its facing or wall.

    ``facing`` is ``forward``/``backward``/``left``/``right`` for objects with a front, ``None`` otherwise;
    ``wall`` is ``on front wall`` etc. for doors.
    """

    name: str
    direction: str
    distance: str
    facing: str | None = None
    wall: str | None = None

    @property
    def orientation(self) -> str | None:
        """``facing left`` (an object's facing) or ``on front wall`` (a door's wall), as observations write it."""
        return f"facing {self.facing}" if self.facing else self.wall

    def line(self) -> str:
        """The item's observation line without the bullet."""
        tail = f", {self.orientation}" if self.orientation else ""
        return f"{self.name}: {self.direction}, {self.distance}{tail}"


@dataclass(frozen=True, slots=True)
class ProximityPair:
    """``a`` is ``direction``, ``distance`` to ``b`` in the observer's frame (its facing called north)."""

    a: str
    b: str
    direction: str
    distance: str

    def line(self) -> str:
        """The pair's line without the bullet."""
        return f"{self.a} is {self.direction}, {self.distance} to {self.b}"


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything one ``Observe()`` reported, in the order the text lists it."""

    items: tuple[SeenItem, ...]
    pairs: tuple[ProximityPair, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """Names of the visible items."""
        return tuple(i.name for i in self.items)

    def answer(self) -> str:
        """The text after ``You observe: `` (without the final period)."""
        if not self.items:
            return NO_OBJECTS
        text = "\n" + "\n".join(f"• {i.line()}" for i in self.items)
        if self.pairs:
            text += f"\n{PROXIMITY_HEADER}\n" + "\n".join(f"• {p.line()}" for p in self.pairs)
        return text


def visible_names(scene: Scene, pos: Vec, ori: Vec, rooms: frozenset[int]) -> list[str]:
    """Names of the items an observer at ``pos`` facing ``ori`` in ``rooms`` can see, in scene order."""
    px, py = pos
    fx, fy = ori
    out = []
    for name, (x, y), it_rooms in scene.placed:
        dx, dy = x - px, y - py
        if (dx or dy) and rooms & it_rooms and (fx * dx + fy * dy) / math.hypot(dx, dy) >= _COS_FOV:
            out.append(name)
    return out


def seen_item(
    name: str, at: Vec, pos: Vec, ori: Vec, *, facing: Vec | None = None, door: bool = False, normal: Vec | None = None
) -> SeenItem:
    """How the item ``name`` on ``at`` appears to an observer at ``pos`` facing ``ori``: its direction and distance
    bins, and an object's facing or a door's wall (from ``normal``, the door's normal into the observer's room;
    none when that is unknown)."""
    direction, distance = ego_labels(at, pos, ori)
    if door:
        return SeenItem(name, direction, distance, wall=wall_side(normal, ori) if normal else None)
    return SeenItem(name, direction, distance, facing=relative_facing(facing, ori) if facing is not None else None)


def observe(scene: Scene, pos: Vec, ori: Vec, rooms: frozenset[int]) -> Observation:
    """The observation of an observer at ``pos`` facing ``ori`` who stands in ``rooms``."""
    seen = []
    for name in visible_names(scene, pos, ori, rooms):
        it = scene.item(name)
        if isinstance(it, Door):
            shared = sorted(rooms & set(it.rooms))
            normal = it.normal_for(shared[0]) if len(shared) == 1 else it.ori
            seen.append((it.pos, seen_item(name, it.pos, pos, ori, door=True, normal=normal)))
        else:
            seen.append((it.pos, seen_item(name, it.pos, pos, ori, facing=it.facing)))
    return Observation(tuple(s for _, s in seen), proximity_pairs([(p, s.name) for p, s in seen], ori))


def proximity_pairs(seen: Sequence[tuple[Sequence[float], str]], ori: Vec) -> tuple[ProximityPair, ...]:
    """Every pair of visible items (``(cell, name)``, in the order listed) at most :data:`PROXIMITY_THRESHOLD`
    apart: the first's cardinal direction and distance to the second, the observer's facing called north."""
    pairs = []
    for (pa, a), (pb, b) in itertools.combinations(seen, 2):
        d = math.dist(pa, pb)
        if d <= PROXIMITY_THRESHOLD + 1e-6:
            pairs.append(ProximityPair(a, b, cardinal_bin(bearing(pa, pb, ori))[1], distance_bin(d)[1]))
    return tuple(pairs)


def observation_text(obs: Observation) -> str:
    """The full message of an ``Observe()`` action: ``You observe: ...`` ending with a period."""
    return f"You observe: {obs.answer()}."


_ITEM = re.compile(
    r"^(?P<name>.+?): (?P<dir>"
    + "|".join(map(re.escape, sorted(set(EGO_LABELS), key=len, reverse=True)))
    + r"), (?P<dist>"
    + "|".join(map(re.escape, DISTANCE_LABELS))
    + r")(?:, facing (?P<facing>forward|backward|left|right)|, (?P<wall>on (?:front|back|left|right) wall))?$"
)
_PAIR = re.compile(
    r"^(?P<a>.+?) is (?P<dir>"
    + "|".join(map(re.escape, sorted(CARDINAL_LABELS, key=len, reverse=True)))
    + r"), (?P<dist>"
    + "|".join(map(re.escape, DISTANCE_LABELS))
    + r") to (?P<b>.+)$"
)


def parse_observation_text(text: str) -> Observation:
    """Read an observation back from its text (``You observe: ...``, with or without the prefix).

    The inverse of :func:`observation_text`; raises :class:`ParseError` on a line it does not recognise.
    """
    body = text.strip()
    if body.startswith("You observe:"):
        body = body[len("You observe:") :]
    body = body.strip()
    if body.endswith("."):
        body = body[:-1]
    if body.rstrip(".") == NO_OBJECTS.rstrip("."):
        return Observation((), ())
    items: list[SeenItem] = []
    pairs: list[ProximityPair] = []
    in_pairs = False
    for raw in body.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line == PROXIMITY_HEADER:
            in_pairs = True
            continue
        if not line.startswith("• "):
            raise ParseError("observation line does not start with '• '", text=line)
        line = line[2:]
        m = (_PAIR if in_pairs else _ITEM).match(line)
        if m is None:
            raise ParseError("unrecognised observation line", text=line)
        if in_pairs:
            pairs.append(ProximityPair(m["a"], m["b"], m["dir"], m["dist"]))
        else:
            items.append(SeenItem(m["name"], m["dir"], m["dist"], m["facing"], m["wall"]))
    return Observation(tuple(items), tuple(pairs))

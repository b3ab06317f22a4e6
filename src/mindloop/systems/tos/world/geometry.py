"""Grid geometry of the Theory-of-Space world: headings, bearings, distances and their discrete bins.

Everything here follows the reference implementation's conventions (mll-lab-nu/Theory-of-Space) so that
observations, gold answers and scores are comparable:

* coordinates are integer ``(x, y)`` cells, ``x`` east and ``y`` north; a heading is one of four unit vectors;
* a bearing is in degrees, ``0`` straight ahead, positive clockwise (to the right), in ``(-180, 180]``;
* egocentric bins (within the 90° field of view): front-left ``[-45, -22.5)``, front-slight-left ``[-22.5, 0)``,
  front ``0``, front-slight-right ``(0, 22.5]``, front-right ``(22.5, 45]`` (1e-3 slack at the edges);
* allocentric bins: eight 45° sectors centred on north, north east, ... (north is ``[-22.5, 22.5)``);
* distance bins: same distance ``0``, near ``(0, 2]``, mid distance ``(2, 4]``, slightly far ``(4, 8]``,
  far ``(8, 16]``, very far ``(16, 32]``, extremely far ``(32, 64]`` (and beyond, here).

>>> ego_bin(bearing((3, 6), (1, 3), NORTH))
(5, 'front-right')
>>> distance_bin(math.dist((3, 6), (1, 3)))
(2, 'mid distance')
>>> cardinal_bin(bearing((2, 2), (0, 0), NORTH))
(1, 'north east')
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import InvalidArgumentError

Vec = tuple[int, int]
"""An integer 2-D vector: a cell ``(x, y)`` or a unit heading."""

NORTH: Vec = (0, 1)
EAST: Vec = (1, 0)
SOUTH: Vec = (0, -1)
WEST: Vec = (-1, 0)
CARDINALS: tuple[Vec, ...] = (NORTH, EAST, SOUTH, WEST)
"""The four headings in clockwise order, starting north."""

DIRECTION_NAMES: dict[Vec, str] = {NORTH: "north", EAST: "east", SOUTH: "south", WEST: "west"}
_NAME_TO_DIRECTION = {v: k for k, v in DIRECTION_NAMES.items()} | {"n": NORTH, "e": EAST, "s": SOUTH, "w": WEST}

VALID_ROTATIONS: tuple[int, ...] = (0, 90, 180, 270, -90, -180, -270)
"""The degrees ``Rotate(DEG)`` accepts, as the reference lists them."""

# Egocentric bins: open intervals with 1e-3 slack, first and last are outside the field of view.
EGO_BINS: tuple[tuple[float, float], ...] = (
    (-180.0, -45.0 - 1e-3),
    (-45.0 - 1e-3, -22.5 - 1e-3),
    (-22.5 - 1e-3, -1e-3),
    (-1e-3, 1e-3),
    (1e-3, 22.5 + 1e-3),
    (22.5 + 1e-3, 45.0 + 1e-3),
    (45.0 + 1e-3, 180.0 + 1e-3),
)
DISTANCE_BINS: tuple[tuple[float, float], ...] = (
    (-1e-6, 1e-6),
    (1e-6, 2.0 + 1e-6),
    (2.0 + 1e-6, 4.0 + 1e-6),
    (4.0 + 1e-6, 8.0 + 1e-6),
    (8.0 + 1e-6, 16.0 + 1e-6),
    (16.0 + 1e-6, 32.0 + 1e-6),
    (32.0 + 1e-6, math.inf),
)


class _Labels(DataModel):
    """``data/labels.yaml``: the labels of the bins as the environment writes them, each label as the environment
    spells it with the spellings read as it (the scorer's ``scoring``, the reply reader's ``directions`` and
    ``distances``)."""

    ego: tuple[str, ...]
    cardinal: tuple[str, ...]
    distance: tuple[str, ...]
    scoring: dict[str, tuple[str, ...]]
    directions: dict[str, tuple[str, ...]]
    distances: dict[str, tuple[str, ...]]


LABEL_SPELLINGS = load_package_data(_Labels, __package__ or "", "labels.yaml")
"""The bins' labels, the scorer's label aliases (``scoring``) and the reply reader's direction and distance labels."""
EGO_LABELS: tuple[str, ...] = LABEL_SPELLINGS.ego
"""The labels of :data:`EGO_BINS`, in order."""
CARDINAL_LABELS: tuple[str, ...] = LABEL_SPELLINGS.cardinal
"""The labels of the eight 45° allocentric sectors, clockwise from north."""
DISTANCE_LABELS: tuple[str, ...] = LABEL_SPELLINGS.distance
"""The labels of :data:`DISTANCE_BINS`, in order."""


def parse_direction(name: str) -> Vec:
    """The heading called ``name`` (``north``/``east``/``south``/``west`` or ``n``/``e``/``s``/``w``).

    >>> parse_direction("East")
    (1, 0)
    """
    key = str(name).strip().lower()
    if key not in _NAME_TO_DIRECTION:
        raise InvalidArgumentError(f"unknown direction {name!r}; expected north, east, south or west")
    return _NAME_TO_DIRECTION[key]


def direction_name(v: Sequence[int]) -> str:
    """``north``/``east``/``south``/``west`` for a unit heading."""
    key = (int(v[0]), int(v[1]))
    if key not in DIRECTION_NAMES:
        raise InvalidArgumentError(f"{tuple(v)!r} is not a cardinal heading")
    return DIRECTION_NAMES[key]


def closest_heading(v: Sequence[float]) -> Vec:
    """The heading closest to the direction ``v`` (ties: north, east, south, west first)."""
    return max(CARDINALS, key=lambda c: c[0] * v[0] + c[1] * v[1])


def rotate(ori: Vec, degrees: int) -> Vec:
    """Turn heading ``ori`` by ``degrees`` (a multiple of 90; positive is clockwise).

    >>> rotate(NORTH, 90), rotate(NORTH, -90), rotate(EAST, 180)
    ((1, 0), (-1, 0), (-1, 0))
    """
    if degrees % 90:
        raise InvalidArgumentError(f"rotation by {degrees}° is not a multiple of 90°")
    x, y = ori
    for _ in range((degrees // 90) % 4):
        x, y = y, -x  # one clockwise quarter turn
    return (x, y)


def rotation_between(current: Vec, desired: Vec) -> int:
    """The rotation in ``(-180, 180]`` (a multiple of 90) that turns ``current`` into ``desired``."""
    a, b = CARDINALS.index(current), CARDINALS.index(desired)
    delta = ((b - a) % 4) * 90
    return delta - 360 if delta > 180 else delta


def bearing(target: Sequence[float], origin: Sequence[float], facing: Sequence[float] = NORTH) -> float:
    """Bearing of ``target`` seen from ``origin`` facing ``facing``: degrees, 0 ahead, positive clockwise.

    The same point gives 0. ``facing`` may be any non-zero vector (it is normalised).
    """
    dx, dy = float(target[0]) - float(origin[0]), float(target[1]) - float(origin[1])
    if abs(dx) < 1e-6 and abs(dy) < 1e-6:
        return 0.0
    ax, ay = float(facing[0]), float(facing[1])
    norm = math.hypot(ax, ay) or 1.0
    ax, ay = ax / norm, ay / norm
    dot = ax * dx + ay * dy
    cross = ax * dy - ay * dx
    return -math.degrees(math.atan2(cross, dot))


def ego_bin(degree: float) -> tuple[int, str]:
    """The egocentric bin (id, label) of a bearing; ids 0 and 6 are outside the field of view."""
    for i, (lo, hi) in enumerate(EGO_BINS):
        if lo < degree < hi:
            return i, EGO_LABELS[i]
    return len(EGO_LABELS) - 1, EGO_LABELS[-1]


def cardinal_bin(degree: float) -> tuple[int, str]:
    """The allocentric 45° bin (id, label) of a bearing measured from north (or from a chosen 'north')."""
    w = (float(degree) + 360.0) % 360.0
    idx = int(((w + 22.5) // 45.0) % 8)
    return idx, CARDINAL_LABELS[idx]


def distance_bin(d: float) -> tuple[int, str]:
    """The distance bin (id, label); beyond 32 is ``extremely far`` (the reference stops at 64)."""
    for i, (lo, hi) in enumerate(DISTANCE_BINS):
        if lo < d < hi:
            return i, DISTANCE_LABELS[i]
    raise InvalidArgumentError(f"invalid distance {d!r}")


def ego_labels(at: Sequence[float], pos: Sequence[float], ori: Sequence[float]) -> tuple[str, str]:
    """The (ego direction, distance) bin labels of the point ``at`` seen from ``pos`` facing ``ori``."""
    return ego_bin(bearing(at, pos, ori))[1], distance_bin(math.dist(at, pos))[1]


def in_fov(origin: Sequence[float], facing: Sequence[float], target: Sequence[float]) -> bool:
    """Whether ``target`` lies in the 90° field of view (±45° included) of an observer; never its own cell.

    Same test as the reference: the cosine between the heading and the direction is at least 0.707 - 1e-3.
    """
    dx, dy = float(target[0]) - float(origin[0]), float(target[1]) - float(origin[1])
    if abs(dx) < 1e-9 and abs(dy) < 1e-9:
        return False
    ax, ay = float(facing[0]), float(facing[1])
    norm_a = math.hypot(ax, ay) or 1.0
    return (ax * dx + ay * dy) / (norm_a * math.hypot(dx, dy)) >= 0.707 - 1e-3


def ego_frame(ori: Vec) -> tuple[Vec, Vec]:
    """The (forward, right) unit vectors of an observer facing ``ori``."""
    return ori, (ori[1], -ori[0])


def to_local(point: Sequence[float], origin: Sequence[float], ori: Vec) -> tuple[float, float]:
    """``point`` in the frame of an observer at ``origin`` facing ``ori``: ``(right, forward)`` = ``(+x, +y)``.

    >>> to_local((2, 1), (1, 1), EAST)
    (0.0, 1.0)
    """
    dx, dy = float(point[0]) - float(origin[0]), float(point[1]) - float(origin[1])
    fwd, right = ego_frame(ori)
    return (dx * right[0] + dy * right[1], dx * fwd[0] + dy * fwd[1])


def to_world(local: Sequence[float], origin: Sequence[float], ori: Vec) -> tuple[float, float]:
    """Inverse of :func:`to_local`."""
    fwd, right = ego_frame(ori)
    lx, ly = float(local[0]), float(local[1])
    return (float(origin[0]) + lx * right[0] + ly * fwd[0], float(origin[1]) + lx * right[1] + ly * fwd[1])


def relative_facing(obj_ori: Vec, agent_ori: Vec) -> str:
    """How an object facing ``obj_ori`` faces relative to an observer facing ``agent_ori``.

    ``forward`` (same way as the observer), ``backward`` (towards the observer), ``left`` or ``right``.

    >>> relative_facing(WEST, NORTH), relative_facing(NORTH, EAST)
    ('left', 'left')
    """
    fwd, right = ego_frame(agent_ori)
    f = obj_ori[0] * fwd[0] + obj_ori[1] * fwd[1]
    r = obj_ori[0] * right[0] + obj_ori[1] * right[1]
    if f and not r:
        return "forward" if f > 0 else "backward"
    if r and not f:
        return "right" if r > 0 else "left"
    raise InvalidArgumentError(f"{obj_ori!r} is not a cardinal heading")


def wall_side(door_normal: Vec, agent_ori: Vec) -> str:
    """Where a door is for an observer: its normal points into the observer's room, so facing the door shows
    it ``on front wall``; the other values are ``on back wall``, ``on left wall`` and ``on right wall``.

    >>> wall_side(WEST, EAST)
    'on front wall'
    """
    rel = relative_facing(door_normal, agent_ori)  # the way the normal points, seen by the observer
    return {"forward": "on back wall", "backward": "on front wall", "left": "on right wall", "right": "on left wall"}[
        rel
    ]

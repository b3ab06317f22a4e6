"""Headings, bearings and the reference's bins, checked on hand-worked values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mindloop.errors import InvalidArgumentError
from mindloop.systems.tos.world.geometry import (
    CARDINAL_LABELS,
    CARDINALS,
    DISTANCE_BINS,
    DISTANCE_LABELS,
    EAST,
    EGO_BINS,
    EGO_LABELS,
    NORTH,
    SOUTH,
    WEST,
    bearing,
    cardinal_bin,
    direction_name,
    distance_bin,
    ego_bin,
    in_fov,
    parse_direction,
    relative_facing,
    rotate,
    rotation_between,
    to_local,
    to_world,
    wall_side,
)


@pytest.mark.parametrize(
    ("degree", "label"),
    [
        (0.0, "front"),
        (10.0, "front-slight-right"),
        (-10.0, "front-slight-left"),
        (22.5, "front-slight-right"),  # bin edges belong to the inner bin (1e-3 slack)
        (-22.5, "front-slight-left"),
        (30.0, "front-right"),
        (45.0, "front-right"),
        (-45.0, "front-left"),
        (60.0, "beyond-fov"),
        (-170.0, "beyond-fov"),
    ],
)
def test_ego_bins(degree: float, label: str) -> None:
    assert ego_bin(degree)[1] == label


@pytest.mark.parametrize(
    ("d", "label"),
    [
        (0.0, "same distance"),
        (1.0, "near"),
        (2.0, "near"),
        (math.sqrt(5), "mid distance"),
        (4.0, "mid distance"),
        (math.sqrt(17), "slightly far"),
        (8.0, "slightly far"),
        (9.0, "far"),
        (16.0, "far"),
        (20.0, "very far"),
        (40.0, "extremely far"),
    ],
)
def test_distance_bins(d: float, label: str) -> None:
    assert distance_bin(d)[1] == label


def test_negative_distance_is_rejected() -> None:
    with pytest.raises(InvalidArgumentError):
        distance_bin(-1.0)


@pytest.mark.parametrize(
    ("degree", "label"),
    [
        (0.0, "north"),
        (22.4, "north"),
        (-22.5, "north"),
        (22.5, "north east"),
        (45.0, "north east"),
        (90.0, "east"),
        (135.0, "south east"),
        (180.0, "south"),
        (-135.0, "south west"),
        (-90.0, "west"),
        (-45.0, "north west"),
    ],
)
def test_cardinal_bins(degree: float, label: str) -> None:
    assert cardinal_bin(degree)[1] == label


def test_bearing_is_clockwise_from_the_facing() -> None:
    assert bearing((0, 5), (0, 0), NORTH) == 0.0
    assert bearing((3, 0), (0, 0), NORTH) == pytest.approx(90.0)
    assert bearing((0, 5), (0, 0), EAST) == pytest.approx(-90.0)  # north is on the left of someone facing east
    assert bearing((1, -2), (0, 0), SOUTH) == pytest.approx(-math.degrees(math.atan2(1, 2)))
    assert abs(bearing((0, -1), (0, 0), NORTH)) == pytest.approx(180.0)


def test_field_of_view_includes_the_45_degree_edges_and_never_the_own_cell() -> None:
    assert in_fov((0, 0), NORTH, (3, 3)) and in_fov((0, 0), NORTH, (-2, 2))
    assert not in_fov((0, 0), NORTH, (3, 2)) and not in_fov((0, 0), NORTH, (0, -1))
    assert not in_fov((1, 1), EAST, (1, 1))


def test_rotations_and_names() -> None:
    assert [rotate(NORTH, d) for d in (90, 180, 270, -90, 0, 360)] == [EAST, SOUTH, WEST, WEST, NORTH, NORTH]
    assert rotation_between(NORTH, WEST) == -90 and rotation_between(NORTH, SOUTH) == 180
    assert rotation_between(WEST, NORTH) == 90 and rotation_between(EAST, EAST) == 0
    assert parse_direction(" West ") == WEST and parse_direction("s") == SOUTH
    assert direction_name((0, -1)) == "south"
    with pytest.raises(InvalidArgumentError):
        rotate(NORTH, 45)
    with pytest.raises(InvalidArgumentError):
        parse_direction("up")
    with pytest.raises(InvalidArgumentError):
        direction_name((1, 1))


@pytest.mark.parametrize(
    ("obj", "agent", "label"),
    [
        (NORTH, NORTH, "forward"),
        (SOUTH, NORTH, "backward"),
        (EAST, NORTH, "right"),
        (WEST, NORTH, "left"),
        (NORTH, EAST, "left"),
        (SOUTH, EAST, "right"),
        (EAST, SOUTH, "left"),
    ],
)
def test_relative_facing(obj: tuple[int, int], agent: tuple[int, int], label: str) -> None:
    assert relative_facing(obj, agent) == label


def test_wall_sides() -> None:
    # A door's normal points into the observer's room: looking at it means facing against the normal.
    assert wall_side(SOUTH, NORTH) == "on front wall"
    assert wall_side(NORTH, NORTH) == "on back wall"
    assert wall_side(SOUTH, EAST) == "on left wall"
    assert wall_side(NORTH, EAST) == "on right wall"


@given(
    st.tuples(st.integers(-20, 20), st.integers(-20, 20)),
    st.tuples(st.integers(-20, 20), st.integers(-20, 20)),
    st.sampled_from(CARDINALS),
)
def test_local_frame_round_trip_and_bearing(
    point: tuple[int, int], origin: tuple[int, int], ori: tuple[int, int]
) -> None:
    local = to_local(point, origin, ori)
    assert to_world(local, origin, ori) == pytest.approx((float(point[0]), float(point[1])))
    if point != origin:
        # the bearing is the angle of the local point measured from +y (ahead) towards +x (right)
        diff = bearing(point, origin, ori) - math.degrees(math.atan2(local[0], local[1]))
        assert (diff + 180.0) % 360.0 - 180.0 == pytest.approx(0.0, abs=1e-9)  # ±180 straight behind


def test_every_bin_has_its_label_from_the_data_file() -> None:
    assert len(EGO_LABELS) == len(EGO_BINS) and len(DISTANCE_LABELS) == len(DISTANCE_BINS) and len(CARDINAL_LABELS) == 8
    assert EGO_LABELS[3] == "front" and CARDINAL_LABELS[1] == "north east" and DISTANCE_LABELS[-1] == "extremely far"

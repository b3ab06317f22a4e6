"""The constraint solver against an independent brute-force arc consistency, and the information gain."""

from __future__ import annotations

import math
from collections.abc import Iterable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mindloop.systems.tos.world import LayoutConfig, Scene, SpatialSolver, generate_scene, information_gain, observe
from mindloop.systems.tos.world.geometry import CARDINALS, Vec, bearing, cardinal_bin, distance_bin, ego_bin
from mindloop.systems.tos.world.relations import INITIAL, Relation, RelationTriple, observation_triples, query_triple
from mindloop.systems.tos.world.solver import relation_kernel


def _holds(rel: Relation, ori: Vec, off: Vec) -> bool:
    """Whether ``subject - anchor = off`` satisfies ``rel``, straight from the geometry's bins."""
    if rel.kind == "exact":
        return off == (rel.direction, rel.distance)
    d = math.hypot(*off)
    b = bearing(off, (0, 0), ori)
    if rel.kind == "ego":
        return ego_bin(b)[0] == rel.direction and distance_bin(d)[0] == rel.distance
    return cardinal_bin(b)[0] == rel.direction and distance_bin(d)[0] == rel.distance and d <= 2.0


@pytest.mark.parametrize("ori", CARDINALS)
def test_kernels_are_the_geometry_bins(ori: Vec) -> None:
    reach = 9
    for kind, dirs in (("ego", range(1, 6)), ("proximity", range(8))):
        for direction in dirs:
            for dist in range(1, 5):
                rel = Relation(kind, direction, dist)  # type: ignore[arg-type]
                k = relation_kernel(rel, ori, reach)
                for dx in range(-reach, reach + 1):
                    for dy in range(-reach, reach + 1):
                        assert bool(k[dx + reach, dy + reach]) == _holds(rel, ori, (dx, dy)), (rel, ori, dx, dy)


def _brute_force(triples: Iterable[RelationTriple], names: list[str], g: int) -> dict[str, set[Vec] | None]:
    """Arc consistency with Python sets: one conjoined constraint per *unordered* pair of variables, like the
    reference (its ``_constraints_between`` keys on ``frozenset({a, b})``), so ``a``-from-``b`` and
    ``b``-from-``a`` evidence must hold for the same pair of cells. Offsets are ``p[a] - p[b]`` for the sorted
    pair ``(a, b)``; a triple stated the other way round contributes its negated offsets."""
    cells = {(x, y) for x in range(-g, g + 1) for y in range(-g, g + 1)}
    doms: dict[str, set[Vec] | None] = dict.fromkeys(names)
    doms[INITIAL] = {(0, 0)}
    allowed: dict[tuple[str, str], set[Vec]] = {}
    offsets = [(dx, dy) for dx in range(-2 * g, 2 * g + 1) for dy in range(-2 * g, 2 * g + 1)]
    for t in triples:
        ok = {o for o in offsets if _holds(t.relation, t.orientation, o)}
        key = (t.subject, t.anchor)
        if t.anchor < t.subject:
            key, ok = (t.anchor, t.subject), {(-dx, -dy) for dx, dy in ok}
        allowed[key] = allowed[key] & ok if key in allowed else ok
        for n in key:
            if doms[n] is None:
                doms[n] = set(cells)
    changed = True
    while changed:
        changed = False
        for (a, b), ok in allowed.items():
            da, db = doms[a], doms[b]
            assert da is not None and db is not None
            new_a = {p for p in da if any((p[0] - o[0], p[1] - o[1]) in db for o in ok)}
            new_b = {q for q in db if any((q[0] + o[0], q[1] + o[1]) in new_a for o in ok)}
            if new_a != da or new_b != db:
                doms[a], doms[b] = new_a, new_b
                changed = True
    return doms


def _views(scene: Scene, picks: list[tuple[int, int]]) -> list[RelationTriple]:
    poses = [(scene.start, INITIAL)] + [(it.pos, it.name) for it in scene.items]
    triples = []
    for p, o in picks:
        pos, anchor = poses[p % len(poses)]
        ori = CARDINALS[o]
        triples += observation_triples(observe(scene, pos, ori, scene.rooms_at(pos)), anchor, ori)
    return triples


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 5_000), st.lists(st.tuples(st.integers(0, 20), st.integers(0, 3)), min_size=1, max_size=4))
# chair seen from cabinet (ego front-right, mid) and cabinet from chair (ego front-left, mid, facing west): each
# alone lets chair sit at (7, 6), but through different cabinet cells ((5, 3) and (4, 4)); together they do not
@example(seed=281, picks=[(1, 0), (4, 3)])
def test_solver_matches_brute_force_arc_consistency(seed: int, picks: list[tuple[int, int]]) -> None:
    scene = generate_scene(seed, LayoutConfig(rooms=1, room_size=(5, 5), objects_per_room=4))
    names = [it.name for it in scene.items]
    triples = _views(scene, picks)
    g = scene.grid_size
    solver = SpatialSolver([*names, INITIAL], g)
    solver.set_position(INITIAL, (0, 0))
    assert solver.add(triples)
    expected = _brute_force(triples, names, g)
    for n in names:
        want = expected[n]
        assert (solver.domains[n] is None) == (want is None)
        if want is not None:
            assert set(solver.cells(n)) == want
            assert scene.relative(scene.item(n).pos) in want  # true evidence never rules out the truth


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 5_000), st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3)), min_size=1, max_size=8))
def test_solver_never_rules_out_the_truth_in_three_rooms(seed: int, picks: list[tuple[int, int]]) -> None:
    scene = generate_scene(seed)
    solver = SpatialSolver([*(it.name for it in scene.items), INITIAL], scene.grid_size)
    solver.set_position(INITIAL, (0, 0))
    assert solver.add(_views(scene, picks))
    for it in scene.items:
        assert scene.relative(it.pos) in solver.cells(it.name)


def test_queries_resolve_and_contradictions_are_reported() -> None:
    s = SpatialSolver(["a", "b"], grid_size=8)
    s.set_position(INITIAL, (0, 0))
    assert s.count("a") == 64 and s.resolved("a") is None  # never constrained: g² as the reference counts it
    copy = s.copy()
    assert s.add([query_triple("a", (2, 3))]) and s.resolved("a") == (2, 3)
    assert copy.domains["a"] is None  # copies are independent
    # b is 1 north of a, "near"
    assert s.add([RelationTriple("b", "a", Relation("proximity", 0, 1), (0, 1))])
    assert s.resolved("b") is None and set(s.cells("b")) == {(2, 4), (2, 5)}
    assert not s.add([query_triple("b", (7, 7))]) and not s.consistent


def test_information_gain_hand_values() -> None:
    # M = 64: a known cell gives log2(64) = 6 bits of 6, an unknown one 0; half the maximum
    assert information_gain({"a": 1, "b": 64, INITIAL: 1}, 8) == pytest.approx(0.5)
    assert information_gain({"a": 4, "b": 16}, 8) == pytest.approx((4 + 2) / 12)
    assert information_gain({"a": 1}, 1) == 0.0 and information_gain({}, 8) == 0.0

"""Cognitive-map parsing and scores, belief diagnostics, the uncertainty probe, false-belief scores, curves."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mindloop.errors import InvalidArgumentError
from mindloop.systems.tos.metrics import (
    MapEntry,
    belief_diagnostics,
    extract_json,
    false_belief_scores,
    fog_probe_candidates,
    gt_global_map,
    gt_local_map,
    information_gain_curve,
    map_scores,
    mean_curve,
    parse_cognitive_map,
    parse_fog_probe,
    plot_information_gain,
    pos_norm,
    score_fog_probe,
    unexplored_cells,
)
from mindloop.systems.tos.world import Scene
from mindloop.systems.tos.world.geometry import EAST, NORTH, SOUTH, WEST


def test_extract_json_prefers_the_largest_valid_object() -> None:
    text = 'THINK: {"a": 1} is small.\n```json\n{"chair": {"position": [1, 2]}, "b": {"c": 3}}\n```\n{broken'
    assert extract_json(text) == {"chair": {"position": [1, 2]}, "b": {"c": 3}}
    assert extract_json("no json here") is None


def test_lenient_cognitive_map_parsing() -> None:
    reply = (
        'FINAL ANSWER:\n```json\n{"agent": {"position": [0, 0], "facing": "N"},'
        ' "objects": [{"name": "Red_Door", "pos": "(3, 1)"}, {"name": "chair", "position": [1, 2],'
        ' "facing": "-y"}], "piano": {"position": [9, 9]}, "lamp": {"position": "somewhere"}}\n```'
    )
    got = parse_cognitive_map(reply, names=["chair", "lamp", "red door", "agent"])
    assert got == {
        "agent": MapEntry((0.0, 0.0), NORTH),
        "red door": MapEntry((3.0, 1.0), None),
        "chair": MapEntry((1.0, 2.0), SOUTH),
    }  # unknown names and unreadable positions are dropped
    assert parse_cognitive_map("I do not know") is None
    # local maps: +y is ahead, +x right; facings in local axes turn with the agent's heading
    local = parse_cognitive_map({"sofa": {"position": [0, 2], "facing": "+x"}}, local_heading=EAST)
    assert local == {"sofa": MapEntry((0.0, 2.0), SOUTH)}


def test_map_scores_by_hand() -> None:
    gt = {"a": MapEntry((0, 2), NORTH), "b": MapEntry((2, 0), EAST)}
    pred = {"a": MapEntry((0, 2), NORTH), "b": MapEntry((2, 1), SOUTH)}
    s = map_scores(pred, gt, pos_norm_l=2.0)
    # pairs (a, b), (a, origin), (b, origin): b from the origin is north east in pred, east in truth
    assert s.dir == pytest.approx(2 / 3)
    assert s.facing == pytest.approx(0.5)
    assert s.pos == pytest.approx(math.exp(-math.sqrt(0.5) / 2.0))
    assert s.overall == pytest.approx((2 / 3 + 0.5 + math.exp(-math.sqrt(0.5) / 2.0)) / 3)
    missing = map_scores({"a": MapEntry((0, 2), NORTH)}, gt, pos_norm_l=2.0)
    assert missing.dir == pytest.approx(1 / 3) and missing.facing == 0.5 and missing.pos == pytest.approx(0.5)
    assert map_scores(gt, gt).to_dict() == {"dir": 1.0, "facing": 1.0, "pos": 1.0, "overall": 1.0}
    assert map_scores({}, gt).pos == 0.0


def test_gold_maps(two_rooms: Scene) -> None:
    gt = gt_global_map(two_rooms, ((4, 2), EAST))
    assert gt["agent"] == MapEntry((3.0, 1.0), EAST) and gt["sofa"] == MapEntry((5.0, 1.0), WEST)
    assert gt["red door"].facing == EAST and gt["lamp"].facing is None
    assert set(gt_global_map(two_rooms, None, names=["lamp"])) == {"lamp"}
    local = gt_local_map(two_rooms, ((4, 2), EAST))
    assert local == {"sofa": MapEntry((0.0, 2.0), WEST), "plant": MapEntry((-1.0, 3.0), None)}
    # objects only, relative to the start: (1, 2), (2, 0), (5, 1), (6, 2)
    assert pos_norm(two_rooms) == pytest.approx(math.sqrt((5 + 4 + 26 + 40) / 4))


def test_belief_diagnostics_by_hand() -> None:
    gts = [
        {"agent": MapEntry((0, 0), NORTH), "a": MapEntry((0, 2), NORTH)},
        {"agent": MapEntry((0, 0), EAST), "a": MapEntry((0, 2), NORTH), "b": MapEntry((3, 0), None)},
    ]
    maps = [
        {"agent": MapEntry((0, 0), NORTH), "a": MapEntry((0, 2.5), NORTH)},
        {"agent": MapEntry((0, 0), NORTH), "a": MapEntry((0, 5), NORTH), "b": MapEntry((3, 1), None)},
    ]
    d = belief_diagnostics(maps, gts, [{"a"}, {"b"}], pos_norm_l=2.0)
    assert d["per_turn"]["update"] == [1.0, 1.0]  # each newly seen item within 1 cell of the truth
    # of the items placed right on turn 1 (agent, a) only the agent still is: 'a' drifted away
    assert d["per_turn"]["stability"] == [None, 0.5]
    assert d["per_turn"]["facing_update"] == [1.0, None]
    assert d["update"] == 1.0 and d["stability"] == 0.5
    # self-tracking: position right, facing wrong on turn 2 (agent alone: no pairs but the origin)
    assert d["per_turn"]["self_tracking"][0] == 1.0 and d["per_turn"]["self_tracking"][1] < 1.0


def test_unexplored_cells_and_fog_probe(two_rooms: Scene) -> None:
    unexplored, explored = unexplored_cells(two_rooms, [((1, 1), NORTH)])
    # from the corner (1, 1) facing north the 90° cone covers the column ahead and the diagonal
    assert unexplored == {1: {(2, 1), (3, 1), (3, 2)}}
    assert explored == {1: {(1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (3, 3)}}
    cands, correct = fog_probe_candidates(two_rooms, [((1, 1), NORTH)], (1, 1), seed=4)
    assert sorted(correct) == [(1, 0), (2, 0), (2, 1)] and len(cands) == 6 and set(correct) <= set(cands)
    assert cands == fog_probe_candidates(two_rooms, [((1, 1), NORTH)], (1, 1), seed=4)[0]
    assert parse_fog_probe('{"unexplored": ["A", "c", "Z"]}', cands) == [cands[0], cands[2]]
    assert parse_fog_probe("I think B and D", cands) == [cands[1], cands[3]]
    s = score_fog_probe([cands[0], cands[2]], [cands[0], cands[1], cands[3]])
    assert s["precision"] == 0.5 and s["recall"] == pytest.approx(1 / 3) and s["overall"] == pytest.approx(0.4)
    assert score_fog_probe([], correct)["overall"] == 0.0
    with pytest.raises(InvalidArgumentError):
        score_fog_probe(correct, [])


def test_false_belief_scores_by_hand() -> None:
    result = {
        "f1": 0.5,
        "f1_position": 1.0,
        "f1_facing": 0.0,
        "steps": 4,
        "action_cost_after_seen": 3,
        "truth": [
            {
                "name": "vase",
                "type": "position",
                "old_rel": [0, 4],
                "new_rel": [6, 4],
                "old_facing": None,
                "new_facing": None,
            },
            {
                "name": "cap",
                "type": "orientation",
                "old_rel": [2, 2],
                "new_rel": [2, 2],
                "old_facing": "east",
                "new_facing": "north",
            },
        ],
    }
    prior = {"vase": MapEntry((0, 4)), "cap": MapEntry((2, 2), EAST)}
    revised = {"vase": MapEntry((3, 4)), "cap": MapEntry((2, 2), EAST)}
    s = false_belief_scores(result, prior, revised, pos_norm_l=3.0)
    assert s["inertia_pos"] == pytest.approx(0.5)  # half-way from the old cell to the new one
    assert s["belief_pos"] == pytest.approx(math.exp(-1.0)) and s["retention_pos"] == pytest.approx(math.exp(-1.0))
    assert s["belief_ori"] == 0.0 and s["inertia_ori"] == 1.0  # still believed to face east
    assert s["redundancy"] == 3.0 and s["f1"] == 0.5 and s["prior_known"] == 1.0
    moved_on = false_belief_scores(
        result, prior, {"vase": MapEntry((6, 4)), "cap": MapEntry((2, 2), NORTH)}, pos_norm_l=3.0
    )
    assert moved_on["inertia_pos"] == 0.0 and moved_on["belief_pos"] == 1.0 and moved_on["belief_ori"] == 1.0


def test_information_gain_curve_and_plot(two_rooms: Scene, tmp_path: Path) -> None:
    from mindloop.systems.tos.world.relations import query_triple

    names = [it.name for it in two_rooms.items]
    curve = information_gain_curve(
        [[], [query_triple("chair", (1, 2))], [query_triple("lamp", (2, 0))]], names, two_rooms.grid_size
    )
    # M = 81: each resolved item adds log2(81) of 5 * log2(81)
    assert curve == pytest.approx([0.0, 0.2, 0.4])
    assert mean_curve([[0.1, 0.5], [0.3]]) == pytest.approx([0.2, 0.4])  # the short curve carried forward
    out = plot_information_gain({"symbolic": curve}, tmp_path / "ig.png", title="t")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

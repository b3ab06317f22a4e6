"""Gold trigger operations, the help window and the TA / PIA / CS / ACC arithmetic (metrics.intervention)."""

from __future__ import annotations

import pytest

from mindloop.errors import InvalidArgumentError
from mindloop.systems.mindclaw.metrics import (
    GoldEpisode,
    decision_scores,
    episode_scores,
    gold_episode,
    scenario_family,
    summarize_intervention,
)
from mindloop.worlds.household.scenarios import Scenario, generate_scenario

NOOP = ("noop", "none", "none", "none")


def test_gold_of_the_lily_episode_worked_by_hand(lily: Scenario) -> None:
    """From the narration: Lily puts the apple in the fridge (3); Sarah opens the fridge (7) and sees it, picks it
    up (8), puts it in the wall cabinet (11); Lily comes back (14) and opens the fridge (15): she is searching."""
    g = gold_episode(lily)
    assert len(g.windows) == 1 + len(lily.script) + 2
    ops = {w.t: w.ops for w in g.windows}
    assert ops[3] == (
        ("belief_create_visual_fact", "none", "apple", "fridge"),
        ("belief_create_actor_belief", "lily", "apple", "fridge"),
        NOOP,
    )
    assert ops[7] == (("belief_create_actor_belief", "sarah", "apple", "fridge"), NOOP)
    assert ops[8] == (
        ("belief_update_visual_fact", "none", "apple", "sarah"),
        ("belief_update_actor_belief", "sarah", "apple", "sarah"),
        NOOP,
    )
    assert ops[11][0] == ("belief_update_visual_fact", "none", "apple", "kitchen_cabinet")
    assert ops[14] == (NOOP,)  # coming back is not yet searching (the apple is shut in the cabinet: unseen)
    assert g.t_star == 15
    assert ops[15] == (("reasoning_run", "lily", "apple", "none"), ("action_run", "lily", "apple", "none"), NOOP)
    assert (g.actor, g.object, g.context, g.detail) == ("lily", "apple", "false_belief", "fridge")
    assert g.plan[-1] == "give(apple, lily)"
    assert all(w.ops[-1] == NOOP for w in g.windows)
    assert GoldEpisode.from_dict(g.to_dict()) == g
    # 2 + 1 + 2 + 2 writes, reasoning + action at 15, and one noop closing each of the 22 windows
    assert g.n_non_noop == 9 and g.n_decisions == 9 + 22


def test_controls_have_no_help_window() -> None:
    for kind in ("fb_control_not_needed", "fb_control_seen_on_return", "ig_control_dialogue_self_served"):
        g = gold_episode(generate_scenario(kind, 0, 1))
        assert not g.help_needed and g.t_star is None and g.context == "none"
        assert all(op[0] not in ("reasoning_run", "action_run") for w in g.windows for op in w.ops)


def test_a_voiced_need_waits_one_quiet_window() -> None:
    s = generate_scenario("ig_dialogue_need", 0, 2)
    g = gold_episode(s)
    slip = len(s.script)  # the third line of the conversation is the last scripted step
    assert g.windows[slip].due is False and g.windows[slip + 1].quiet
    assert g.t_star == slip + 1 and g.context == "stated_need" and g.detail == s.meta[-1][1]
    with pytest.raises(InvalidArgumentError, match="quiet"):
        gold_episode(s, quiet=0)


def test_families() -> None:
    assert scenario_family("fb_camera_blind") == "find"
    assert scenario_family("ig_wheelchair_blocked") == "blocked"
    assert scenario_family("ig_control_combo_complete") == "combo"
    with pytest.raises(InvalidArgumentError):
        scenario_family("something_else")


def _gold(help_needed: bool) -> GoldEpisode:
    return GoldEpisode(
        "s",
        "fb_two_humans",
        "find",
        help_needed,
        5 if help_needed else None,
        "lily",
        "apple",
        "false_belief" if help_needed else "none",
        "fridge" if help_needed else "",
        {"kind": "deliver"},
        (),
        (),
    )


R_OK = {"t": 5, "actor": "lily", "object": "apple", "context": "false_belief", "detail": "fridge", "warranted": True}


def test_episode_scores_cases() -> None:
    help_ = _gold(True)
    on_time = episode_scores(help_, [{"t": 5, "goal_met": True}], [R_OK])
    assert (on_time["ta"], on_time["pia"], on_time["cs"], on_time["cs_n"]) == (1.0, 1.0, 1.0, 1.0)
    late = episode_scores(help_, [{"t": 7, "goal_met": True}], [{**R_OK, "t": 7}])
    assert late["pia"] == 0.0 and late["late"] == 1.0 and late["ta"] == 1.0
    early = episode_scores(help_, [{"t": 3, "goal_met": False}], [{**R_OK, "t": 3}])
    assert early["pia"] == 0.0 and early["early"] == 1.0 and early["cs"] == 0.0
    twice = episode_scores(help_, [{"t": 5, "goal_met": True}, {"t": 6}], [R_OK])
    assert twice["pia"] == 0.0  # one helpful action, not two
    wrong_belief = episode_scores(help_, [{"t": 5, "goal_met": True}], [{**R_OK, "detail": "sink"}])
    assert wrong_belief["ta"] == 0.0 and wrong_belief["pia"] == 1.0
    missed = episode_scores(help_, [], [])
    assert missed["missed"] == 1.0 and missed["pia"] == 0.0 and "cs_n" not in missed
    control = _gold(False)
    assert episode_scores(control, [], [])["pia"] == 1.0
    alarm = episode_scores(control, [{"t": 2}], [{**R_OK, "t": 2}])
    assert alarm["pia"] == 0.0 and alarm["ta"] == 0.0 and alarm["false_alarm"] == 1.0
    silent_reasoning = episode_scores(control, [], [{**R_OK, "warranted": False}])
    assert silent_reasoning["ta"] == 1.0


def test_decision_scores_and_summary_treat_failures_as_failures() -> None:
    gold = [("belief_create_visual_fact", "none", "apple", "fridge"), NOOP, ("reasoning_run", "lily", "apple", "none")]
    s = decision_scores(gold, [gold[0], NOOP, ("reasoning_run", "sarah", "apple", "none")])
    assert s == {"acc_correct": 2.0, "acc_total": 3.0, "nn_correct": 1.0, "nn_total": 2.0}
    assert decision_scores(gold, [None, None, None])["acc_correct"] == 0.0
    with pytest.raises(InvalidArgumentError):
        decision_scores(gold, [])
    good = {"ta": 1.0, "pia": 1.0, "cs": 1.0, "cs_n": 1.0, **s}
    rows = [
        {"scores": good, "help_needed": True},
        {"scores": good, "help_needed": True, "failed": True},  # same numbers, but the sample failed
        {"scores": {}, "failed": True, "n_decisions": 4, "n_non_noop": 2},  # crashed: no scores at all
    ]
    m = summarize_intervention(rows)
    assert m["ta"] == pytest.approx(1 / 3) and m["pia"] == pytest.approx(1 / 3)
    assert m["cs"] == 0.5 and m["cs_n"] == 2
    assert m["acc"] == pytest.approx(2 / 10, abs=1e-6) and m["acc_no_noop"] == pytest.approx(1 / 6, abs=1e-6)
    assert m["failed"] == 2 and m["n"] == 3

"""Every summary says how many trigger decisions the model made and how many of its replies were malformed, and
scores the model's own decisions apart (``acc_model``) from the whole trigger's ACC (issue 17, "Summaries that
cannot mislead"; issue 23: ACC follows Table IV)."""

from __future__ import annotations

from typing import Any

from mindloop.bench.api import SampleRecord
from mindloop.systems.mindclaw.benchmarks import summarize_claw
from mindloop.systems.mindclaw.metrics import decider_scores
from mindloop.worlds.household.scenarios import Scenario

from .test_model_path import _run, _sample


def _garbage(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    return "Sure! Here is what I think about this household."


def _summary(sample: Any, outcome: Any) -> dict[str, Any]:
    record = SampleRecord(0, sample, "done", outcome.output, outcome.scores, None, [], 0.0)
    return summarize_claw([record])


def test_skills_deciding_everything_is_not_a_model_acc_of_one(lily: Scenario) -> None:
    sample = _sample(lily)
    outcome, server = _run(sample, _garbage)
    s = outcome.scores
    # the shipped strong skills make all 31 teacher-forced decisions; the model is never asked there
    assert s["skill_decisions"] == s["acc_total"] == 31.0 and s["model_decisions"] == 0.0
    summary = _summary(sample, outcome)
    # ACC is the whole trigger's, as in Table IV's "-Skill" rows (issue 23); the summary says who decided: the
    # model made no decision here, so its own ACC is None, never 1
    assert summary["acc"] == summary["acc_all"] == 1.0 and summary["paper_row"] == "model-Skill"
    assert summary["acc_model"] is None and summary["acc_model_no_noop"] is None
    assert summary["acc_over"].startswith("all trigger decisions") and summary["acc_skill"] == 1.0
    assert summary["model_decisions"] == 0 and summary["skill_decisions"] == 31
    # every model call of the run happened in the closed loop, and every one was malformed
    assert server.requests > 0
    # 14 questions, each asked again once with the parser's reason (a format retry) and refused again
    assert summary["loop_model_decisions"] == summary["loop_model_malformed"] == 14
    assert summary["loop_model_retries"] == 14 and server.requests == 28
    group = summary["by_group"]["false_belief/help"]
    assert group["acc"] == 1.0 and group["acc_model"] is None  # the groups split the same way


def test_malformed_model_decisions_count_as_wrong_model_decisions(lily: Scenario) -> None:
    sample = _sample(lily, skills="off")
    outcome, _ = _run(sample, _garbage)
    s = outcome.scores
    assert s["model_decisions"] == s["model_malformed"] == s["acc_total"] == 31.0
    summary = _summary(sample, outcome)
    assert summary["acc"] == 0.0 and summary["model_malformed"] == 31 and summary["acc_skill"] is None


def test_decider_scores_split_by_who_decided() -> None:
    gold = [("noop", "none", "none", "none"), ("reasoning_run", "a", "b", "none"), ("noop", "none", "none", "none")]
    pred = [gold[0], None, gold[2]]
    out = decider_scores(gold, pred, ["skill:s1", "policy:model", "policy:model"], ["", "malformed trigger: x", ""])
    assert (out["skill_decisions"], out["skill_correct"]) == (1.0, 1.0)
    assert (out["model_decisions"], out["model_correct"], out["model_malformed"]) == (2.0, 1.0, 1.0)
    assert (out["model_nn_total"], out["model_nn_correct"]) == (1.0, 0.0)
    assert out["policy_decisions"] == 0.0

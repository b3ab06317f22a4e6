"""Every system's metrics come from its declaration (issue 29, item 2).

Each test builds a handful of sample records by hand, the kind each benchmark records (model answers, failures,
questions the tracker did not cover, help and control episodes, unscored stories), and checks the run's summary
against numbers worked out by hand from the rules the papers and the systems state: which samples count, how a
failure counts, the rounding. Then every number of the summary must be covered by a declaration (a declared
metric, a ``resampled`` key, ``no_intervals`` or a reference value): none is left to guess.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mindloop.bench.api import Benchmark, Sample, SampleRecord
from mindloop.bench.declaration import BenchmarkSpec, Grouping, Metric
from mindloop.bench.registry import get_benchmark
from mindloop.bench.runner import as_scored, metric_intervals
from mindloop.bench.scoring import declared_summary, definitions, run_metrics
from mindloop.bench.uncertainty import ResamplePlan, bootstrap_draws, numeric_leaves
from mindloop.errors import RegistryError


def _rec(
    i: int,
    scores: dict[str, float],
    *,
    group: str = "g",
    status: str = "done",
    output: dict[str, Any] | None = None,
    **inp: Any,
) -> SampleRecord:
    sample = Sample(f"s{i}", inp, group, choices=tuple(inp.get("choices", ())))
    return SampleRecord(i, sample, status, output or {}, scores, None, [], 0.0)  # type: ignore[arg-type]


def _covered(bench: Benchmark, records: list[SampleRecord], metrics: dict[str, Any]) -> None:
    """Every float of the summary has a declaration: the intervals list nothing as undeclared. And the resampled
    keys' draws that the run takes from ``summarize`` alone are the draws of the whole summary on each resample:
    the declaration never gives a leaf under a resampled key that the bootstrap reads from the summary."""
    intervals = metric_intervals(bench, records, metrics)
    assert "undeclared" not in intervals, intervals["undeclared"]
    scored = as_scored(records)
    leaves = numeric_leaves(metrics)
    plan = ResamplePlan(len(scored), 200, 0)
    spec = bench.spec
    whole, _ = bootstrap_draws(scored, lambda rs: run_metrics(bench, rs), leaves, plan, spec.metrics, spec.resampled)
    alone, _ = bootstrap_draws(scored, bench.summarize, leaves, plan, spec.metrics, spec.resampled)
    assert whole.keys() == alone.keys()
    for path, d in whole.items():
        np.testing.assert_array_equal(d.values, alone[path].values, err_msg=".".join(path))


# -- the released ToM sets ------------------------------------------------------------------------------------------


BIGTOM_CHOICES = {"choices": ["a", "b"], "initial_belief": "hidden"}


def test_a_released_set_counts_every_model_answer_and_reads_both_ways() -> None:
    bench = get_benchmark("bigtom")
    g = "forward_belief/true_belief"
    records = [
        _rec(0, {"correct": 1.0, "correct_strict": 1.0, "parsed": 1.0}, group=g, **BIGTOM_CHOICES),
        _rec(1, {"correct": 0.0, "correct_strict": 0.0, "parsed": 0.0}, group=g, status="failed", **BIGTOM_CHOICES),
        _rec(2, {}, group=g, status="failed", **BIGTOM_CHOICES),  # the model call itself failed: wrong
        _rec(3, {"correct": 1.0, "correct_strict": 0.0, "parsed": 1.0}, group="x/y", **BIGTOM_CHOICES),
    ]
    m = run_metrics(bench, records)
    assert m["accuracy"] == 0.5 and m["accuracy_strict"] == 0.25  # 2 of 4 right; 1 of 4 read strictly
    assert (m["unparsed"], m["model_failures"], m["chance"]) == (1, 1, 0.5)
    assert m["by_condition"] == {
        g: {"accuracy": 1 / 3, "n": 3, "chance": 0.5, "accuracy_strict": 1 / 3, "unparsed": 1},
        "x/y": {"accuracy": 1.0, "n": 1, "chance": 0.5, "accuracy_strict": 0.0, "unparsed": 0},
    }
    assert m["by_initial_belief"] == {
        "hidden": {"accuracy": 0.5, "n": 4, "chance": 0.5, "accuracy_strict": 0.25, "unparsed": 1}
    }
    assert "coverage" not in m and "accuracy_release_reading" not in m
    _covered(bench, records, m)


def test_a_released_set_leaves_out_what_the_tracker_did_not_cover() -> None:
    bench = get_benchmark("exploretom")
    records = [
        _rec(0, {"covered": 1.0, "correct": 1.0, "parsed": 1.0}, order="1", interesting=True, choices=["a", "b"]),
        _rec(1, {"covered": 1.0, "correct": 0.0, "parsed": 1.0}, order="2", interesting=False, choices=["a", "b"]),
        _rec(2, {"covered": 0.0}, order="2", interesting=True, choices=["a", "b"]),
    ]
    m = run_metrics(bench, records)
    assert m["accuracy"] == 0.5 and m["coverage"] == pytest.approx(2 / 3)
    assert (m["covered"], m["not_covered"], m["accuracy_covered"]) == (2, 1, 0.5)
    assert "accuracy_strict" not in m and "unparsed" not in m
    # the question the tracker left out is in no row; the release's True/False name the rows
    assert m["by_order"] == {
        "1": {"accuracy": 1.0, "n": 1, "chance": 0.5},
        "2": {"accuracy": 0.0, "n": 1, "chance": 0.5},
    }
    assert list(m["by_interesting"]) == ["True", "False"]
    _covered(bench, records, m)


def test_opentom_rows_by_paper_genre_keep_their_macro_f1_by_rule() -> None:
    bench = get_benchmark("opentom")
    spec = bench.spec
    genre = next(g for m in spec.metrics for g in m.groupings if g.key == "by_genre")
    assert genre.label(Sample("x", {}, "fullness-so")) == "MHop(S)" and genre.label(Sample("x", {}, "odd")) is None
    assert {"by_type", "by_genre"} <= set(spec.resampled)  # macro-F1 per row: the bootstrap of the summary


def test_mmtom_kind_rows_name_belief_and_goal_inference() -> None:
    records = [
        _rec(i, {"correct": float(i % 2)}, group=t, choices=["a", "b"])
        for i, t in enumerate(["1.1", "1.2", "2.1", "2.4"])
    ]
    m = run_metrics(get_benchmark("mmtom-qa"), records)
    assert m["by_kind"] == {
        "belief": {"accuracy": 0.5, "n": 2, "chance": 0.5},
        "goal": {"accuracy": 0.5, "n": 2, "chance": 0.5},
    }


def test_fantom_accuracies_select_their_scenario_and_kind() -> None:
    bench = get_benchmark("fantom")
    records = [
        _rec(0, {"correct": 1.0}, kind="belief:multiple-choice", scenario="inaccessible", set_id="a", gold="x"),
        _rec(1, {"correct": 0.0}, kind="belief:multiple-choice", scenario="inaccessible", set_id="a", gold="x"),
        _rec(2, {"correct": 1.0}, kind="belief:multiple-choice", scenario="accessible", set_id="b", gold="x"),
        _rec(3, {"correct": 0.5}, kind="fact", scenario="inaccessible", set_id="a", gold="x"),
        _rec(4, {"correct": 1.0}, kind="answerability:list", scenario="inaccessible", set_id="a", gold="x"),
    ]
    m = run_metrics(bench, records)
    assert m["inaccessible_belief_multiple_choice"] == 0.5 and m["control_belief_multiple_choice"] == 1.0
    assert m["inaccessible_answerability_list"] == 1.0 and m["fact_word_f1"] == 0.5
    assert m["control_answerability_list"] is None  # no such question in the run: no data
    assert m["inaccessible_all_star"] == 0.0 and m["control_all_star"] == 1.0  # set a has a wrong answer
    intervals = metric_intervals(bench, records, m)
    assert "inaccessible_all_star" in intervals["excluded"]  # set-level: resampling questions breaks the sets
    assert "undeclared" not in intervals


# -- the other systems ------------------------------------------------------------------------------------------------


def test_claw_ta_and_pia_count_help_episodes_and_failures_as_zero() -> None:
    bench = get_benchmark("claw")
    help_, control = {"help_needed": True}, {"help_needed": False}
    records = [
        _rec(0, {"ta": 1.0, "pia": 1.0}, gold=help_),
        _rec(1, {"ta": 1.0, "pia": 1.0}, gold=help_, status="failed"),  # a failed episode scores 0
        _rec(2, {"ta": 1.0, "pia": 0.0}, gold=help_),
        _rec(3, {"ta": 1.0, "pia": 1.0}, gold=control),
    ]
    m = run_metrics(bench, records)
    assert (m["ta"], m["pia"]) == (round(2 / 3, 6), round(1 / 3, 6))
    assert (m["all_episodes"]["ta"], m["all_episodes"]["pia"]) == (0.75, 0.5)
    assert (m["control_episodes"]["ta"], m["control_episodes"]["pia"]) == (1.0, 1.0)
    _covered(bench, records, m)


def test_cwah_steps_count_an_episode_that_never_ran_as_the_cap() -> None:
    bench = get_benchmark("cwah")
    records = [
        _rec(
            0,
            {"finished": 1.0, "steps": 50.0, "comm_tokens": 10.0, "messages": 2.0},
            output={"finished": True, "steps": 50},
        ),
        _rec(1, {}, status="failed"),  # no scores: the model failed before the episode ran
    ]
    m = run_metrics(bench, records)
    assert m["avg_steps"] == (50 + 250) / 2 and m["finished"] == 0.5
    assert (m["comm_tokens"], m["messages"]) == (5.0, 1.0)
    _covered(bench, records, m)


def test_tos_failures_count_zero_for_scores_and_are_left_out_of_counts() -> None:
    bench = get_benchmark("tos-passive")
    records = [
        _rec(0, {"steps": 10.0, "avg": 0.5, "direction": 1.0, "coverage": 1.0}, max_steps=20),
        _rec(1, {"steps": 30.0, "avg": 1.0, "direction": 1.0}, status="failed", max_steps=20),
    ]
    m = run_metrics(bench, records)
    assert m["steps"] == 10.0 and m["avg"] == 0.25 and m["direction"] == 0.5
    assert m["coverage"] == 0.5  # the failed sample counts 0 though it has no coverage score
    assert m["map_dir"] == 0.0  # always shown: the failed sample's 0, no other sample has it
    assert "uncertainty" not in m and "edge_coverage" not in m  # shown only when some sample has it
    _covered(bench, records, m)


def test_omnitom_stage1_leaves_out_unscored_stories_and_counts_failures() -> None:
    bench = get_benchmark("omnitom-stage1")
    cat = "False Belief Task"
    records = [
        _rec(0, {"precision": 1.0, "recall": 0.5, "f1": 0.6}, group=cat),
        _rec(1, {"precision": 0.0, "recall": 0.0, "f1": 0.0}, group=cat, status="failed"),
        _rec(2, {"n_predicted": 2.0, "n_gold": 3.0}, group=cat),  # the aligner could not score it
    ]
    m = run_metrics(bench, records)
    assert (m["precision"], m["recall"], m["f1"]) == (0.5, 0.25, 0.3)
    assert m["by_category"] == {cat: {"f1": 0.3, "n": 2}} and m["unscored"] == 1
    _covered(bench, records, m)


def test_omnitom_stage2_dimensions_sit_in_their_table() -> None:
    bench = get_benchmark("omnitom-stage2")
    records = [_rec(0, {"overall": 0.5, "order": 1.0}, group="x"), _rec(1, {"overall": 1.0, "order": 0.0}, group="x")]
    m = run_metrics(bench, records)
    assert m["overall"] == 0.75 and m["by_dimension"]["order"] == 0.5 and m["by_dimension"]["truth_status"] == 0.0
    assert m["by_category"]["x"]["overall"] == 0.75 and m["by_category"]["x"]["order"] == 0.5
    _covered(bench, records, m)


def test_mindpower_percentages_round_to_four_decimals_and_layers_show_with_similarity() -> None:
    bench = get_benchmark("mindpower")
    base = {"format_ok": 1.0, "ac": 0.5, "rouge1": 0.1, "rouge2": 0.2, "rougeL": 0.3}
    records = [
        _rec(0, {**base, "sr": 1 / 3}, group="false_belief", settings={"setting": "hierarchy"}),
        _rec(1, {**base, "sr": 0.0}, group="implicit_goal", status="failed", settings={"setting": "hierarchy"}),
    ]
    m = run_metrics(bench, records)
    assert m["sr"] == round(100 * (1 / 3) / 2, 4) == 16.6667 and m["ac"] == 50.0
    assert m["rouge"] == {"rouge1": 10.0, "rouge2": 20.0, "rougeL": 30.0}
    assert m["bertscore"] is None and "bpc" not in m  # similarity off, no judge
    assert m["by_task"]["false_belief"]["sr"] == 33.3333
    _covered(bench, records, m)


def test_mindpower_subset_blocks_with_similarity_are_drawn_from_its_summary_alone() -> None:
    """The help, control and dialogue blocks and each task's layer scores are ``resampled`` keys that no declared
    metric gives: the run's intervals draw them from ``summarize`` alone, and they match the whole summary's."""
    bench = get_benchmark("mindpower")
    settings = {"setting": "hierarchy", "similarity": "on"}
    layers = ("perception", "belief", "desire", "intention", "decision", "action")
    records = [
        _rec(
            i,
            {"format_ok": 1.0, "sr": float(i % 2), "ac": 0.5, "rouge1": 0.1, "rouge2": 0.2, "rougeL": 0.3}
            | {f"{m}_{x}": 0.1 * (i + k) for k, x in enumerate(layers) for m in ("bertscore", "st")},
            group=("false_belief", "implicit_goal", "control")[i % 3],
            settings=settings,
            control=i % 3 == 2,
            dialogue=i % 4 == 0,
        )
        for i in range(12)
    ]
    m = run_metrics(bench, records)
    assert m["help"]["n"] == 8 and m["control"]["n"] == 4 and m["dialogue"]["n"] == 3
    control_belief = 100 * sum(0.1 * (i + 1) for i in (2, 5, 8, 11)) / 4  # belief is layer k = 1
    assert m["by_task"]["control"]["bertscore"]["belief"] == round(control_belief, 4)
    _covered(bench, records, m)


# -- the declaration's vocabulary ---------------------------------------------------------------------------------


def test_a_metric_round_trips_through_the_store_with_every_option() -> None:
    m = Metric(
        "acc",
        "correct",
        "mean",
        missing=250.0,
        groupings=(Grouping("by_kind", "group", ("a",), (("x", "a"),)),),
        within=("covered", "scenario=inaccessible"),
        failed="skip",
        optional=True,
        digits=3,
        table="block",
    )
    assert Metric.from_json(m.to_json()) == m
    plain = Metric("accuracy", "correct")
    assert set(plain.to_json()) == {"name", "score", "kind", "scale", "missing", "groupings", "description"}


@pytest.mark.parametrize(
    ("build", "problem"),
    [
        (lambda: Metric("a", "s", missing="some"), "missing must be"),
        (lambda: Metric("a", "s", failed="drop"), "failed must be"),  # type: ignore[arg-type]
        (lambda: Metric("a", "s", digits=20), "digits must be"),
        (lambda: BenchmarkSpec(resampled=("f1", "f1")), "declared twice"),
        (lambda: BenchmarkSpec(resampled=("pairs",), no_intervals=("pairs",)), "both resampled and in no_intervals"),
    ],
)
def test_a_bad_metric_declaration_is_refused(build: Any, problem: str) -> None:
    with pytest.raises(RegistryError, match=problem):
        build()


def test_same_named_metrics_in_different_tables_are_two_metrics() -> None:
    spec = BenchmarkSpec(metrics=(Metric("belief", "b", table="bertscore"), Metric("belief", "s", table="st")))
    assert spec.metric("st.belief") is not None and spec.metric("belief") is None
    records = [_rec(0, {"b": 0.5, "s": 1.0})]
    assert declared_summary(spec.metrics, records) == {"bertscore": {"belief": 0.5}, "st": {"belief": 1.0}}


def test_the_store_keeps_the_resampled_rule_beside_the_metrics() -> None:
    kept = definitions(get_benchmark("claw"))
    assert "cs" in kept["resampled"] and [m["name"] for m in kept["metrics"]][:2] == ["ta", "pia"]

"""Confidence intervals and paired tests (``mindloop.bench.uncertainty``).

Expectations are derived apart from the code under test: exact binomial tails and McNemar p-values worked by hand
(and, with the ``metrics`` extra, checked against scipy), the normal-approximation width of a proportion's
interval, and a brute-force bootstrap (``summarize`` called on every resample, percentiles by numpy) that the
declared metrics' vectorised draws must reproduce to the last digit.
"""

from __future__ import annotations

import html as html_mod
import json
import math
import random
import re
from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mindloop.bench.api import Sample, SampleRecord
from mindloop.bench.declaration import Grouping, Metric
from mindloop.bench.report import render_report
from mindloop.bench.store import RunStore
from mindloop.bench.uncertainty import (
    METHOD,
    MIN_SUMMARY_RESAMPLES,
    SUMMARY_BUDGET,
    UNDECLARED,
    ResamplePlan,
    bootstrap_intervals,
    mcnemar_exact,
    numeric_leaves,
    paired_differences,
    paired_p_value,
    row_n,
    standard_error,
    summary_resamples,
    too_few,
)
from mindloop.cli import main
from mindloop.errors import InvalidArgumentError
from mindloop.paths import runs_path


def _records(
    correct: Sequence[float], groups: Sequence[str] | None = None, **scores: Sequence[float]
) -> list[SampleRecord]:
    out = []
    for i, c in enumerate(correct):
        group = groups[i] if groups else ""
        extra = {k: float(v[i]) for k, v in scores.items()}
        sample = Sample(f"s{i:05d}", {"question": f"q{i}", "label": "odd" if i % 2 else "even"}, group)
        out.append(SampleRecord(i, sample, "done", {"answer": "x"}, {"correct": float(c), **extra}, None, [], 0.0))
    return out


def _accuracy(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """A summary like ToMi's: accuracy overall, per group and per input label, plus a count."""
    by_group: dict[str, list[float]] = defaultdict(list)
    by_label: dict[str, list[float]] = defaultdict(list)
    for r in records:
        by_group[r.sample.group].append(r.scores.get("correct", 0.0))
        by_label[r.sample.input["label"]].append(r.scores.get("correct", 0.0))
    return {
        "accuracy": sum(r.scores.get("correct", 0.0) for r in records) / len(records) if records else None,
        "n": len(records),
        "by_group": {g: {"accuracy": sum(v) / len(v), "n": len(v)} for g, v in sorted(by_group.items())},
        "by_label": {g: {"accuracy": sum(v) / len(v)} for g, v in sorted(by_label.items())},
    }


ACCURACY = (Metric("accuracy", "correct", groupings=(Grouping("by_group"), Grouping("by_label", "label"))),)
"""The declaration of :func:`_accuracy`'s means: the overall accuracy, per group and per input label."""

GRADED = (Metric("accuracy", "correct", kind="mean", groupings=(Grouping("by_group"), Grouping("by_label", "label"))),)
"""The same means of a graded (not 0/1) score."""


def _brute(
    records: Sequence[SampleRecord], summarize: Any, path: tuple[str, ...], rows: int, seed: int = 0
) -> tuple[float, float]:
    """The percentile interval computed the slow, obvious way: summarize each resample, take the 2.5/97.5%."""
    plan = ResamplePlan(len(records), 1000, seed)
    values = []
    for row in plan.rows(0, rows):
        node: Any = summarize([records[i] for i in row])
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, float):
            values.append(node)
    low, high = np.quantile(np.array(values), [0.025, 0.975])
    return float(low), float(high)


# -- exact tests ------------------------------------------------------------------------------------------------------


def test_mcnemar_exact_hand_worked() -> None:
    # b = 2, c = 8: 2 * P(X <= 2), X ~ Bin(10, 1/2) = 2 * (1 + 10 + 45) / 1024 = 112 / 1024
    assert mcnemar_exact(2, 8) == 112 / 1024 == 0.109375
    assert mcnemar_exact(8, 2) == 0.109375  # symmetric in the two discordant counts
    # b = 1, c = 9: 2 * (1 + 10) / 1024
    assert mcnemar_exact(1, 9) == 22 / 1024
    # b = 0, c = 5: 2 / 32; b = 0, c = 1: min(1, 2 * 1/2) = 1
    assert mcnemar_exact(0, 5) == 0.0625 and mcnemar_exact(0, 1) == 1.0
    assert mcnemar_exact(3, 3) == 1.0 and mcnemar_exact(0, 0) == 1.0
    # b = 0, c = 20: 2 / 2**20
    assert mcnemar_exact(0, 20) == 2 / 2**20
    with pytest.raises(InvalidArgumentError, match="b=-1"):
        mcnemar_exact(-1, 3)


def _exact_tail(k: int, m: int) -> Fraction:
    """``P(X <= k)`` for ``X ~ Binomial(m, 1/2)`` as an exact fraction: the binomial coefficients summed in integers,
    each from the one before (``C(m, i + 1) = C(m, i) (m - i) / (i + 1)``, exact; ``math.comb`` afresh for each of
    4,901 terms at m = 10,000 took 6 s)."""
    total, coefficient = 0, 1
    for i in range(k + 1):
        total += coefficient
        coefficient = coefficient * (m - i) // (i + 1)
    return Fraction(total, 2**m)


@given(st.integers(min_value=0, max_value=400), st.data())
def test_mcnemar_is_the_exact_binomial_tail_to_1e_9(m: int, data: st.DataObject) -> None:
    """scipy's binomtest against the tail summed in integers: the same p-value to 1e-9 (issue 38, point 4)."""
    b = data.draw(st.integers(min_value=0, max_value=m))
    exact = min(Fraction(1), 2 * _exact_tail(min(b, m - b), m)) if m else Fraction(1)
    assert mcnemar_exact(b, m - b) == pytest.approx(float(exact), rel=1e-9, abs=1e-300)


def test_mcnemar_on_a_large_table_is_the_normal_tail() -> None:
    # P(X <= 4900) for Bin(10000, 1/2) is close to the normal tail with continuity correction,
    # z = (4900.5 - 5000) / 50 = -1.99, Phi(-1.99) = 0.02330
    assert mcnemar_exact(4900, 5100) == pytest.approx(2 * 0.02330, abs=2e-4)
    assert mcnemar_exact(4900, 5100) == pytest.approx(float(2 * _exact_tail(4900, 10_000)), rel=1e-9)


@pytest.mark.metrics
@pytest.mark.parametrize(("b", "c"), [(2, 8), (13, 30), (40, 60), (120, 95), (0, 7)])
def test_mcnemar_matches_scipys_binomial_test(b: int, c: int) -> None:
    from scipy.stats import binomtest

    assert mcnemar_exact(b, c) == pytest.approx(binomtest(b, b + c, 0.5).pvalue, rel=1e-9)


def test_standard_error_hand_worked() -> None:
    # 0, 1, 1, 0: mean 1/2, sample variance (4 * 1/4) / 3 = 1/3, SE = sqrt(1/3) / 2
    assert standard_error([0.0, 1.0, 1.0, 0.0]) == pytest.approx(math.sqrt(1 / 3) / 2)
    assert standard_error([5.0]) is None and standard_error([]) is None


def test_paired_p_value() -> None:
    assert paired_p_value(np.zeros(999)) == 1.0  # identical runs
    assert paired_p_value(np.ones(999)) == pytest.approx(2 / 1000)  # every resample on one side: the floor
    assert paired_p_value(np.array([-1.0, 1.0, 2.0, 3.0])) == pytest.approx(2 * 2 / 5)


# -- resamples --------------------------------------------------------------------------------------------------------


def test_resample_rows_are_seeded_and_random_access() -> None:
    plan = ResamplePlan(37, 300, seed=4)
    rows = plan.rows(0, 300)
    assert rows.shape == (300, 37) and rows.min() >= 0 and rows.max() < 37
    assert np.array_equal(plan.rows(60, 130), rows[60:130])  # any range drawn again is the same
    assert np.array_equal(ResamplePlan(37, 300, seed=4).rows(0, 300), rows)
    assert not np.array_equal(ResamplePlan(37, 300, seed=5).rows(0, 300), rows)
    counts = plan.counts(10, 20)
    assert np.array_equal(counts[3], np.bincount(rows[13], minlength=37))
    assert counts.sum(axis=1).tolist() == [37.0] * 10


def test_summary_resamples_budget() -> None:
    assert summary_resamples(100) == 1000
    assert summary_resamples(SUMMARY_BUDGET // 1000) == 1000
    assert summary_resamples(2000) == SUMMARY_BUDGET // 2000
    assert summary_resamples(10**7) == MIN_SUMMARY_RESAMPLES


# -- intervals --------------------------------------------------------------------------------------------------------


def _bernoulli(n: int, p: float, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [float(rng.random() < p) for _ in range(n)]


def test_interval_of_a_proportion_contains_it_and_matches_the_normal_width() -> None:
    correct = _bernoulli(400, 0.7, 1)
    out = bootstrap_intervals(_records(correct), _accuracy, declared=ACCURACY)
    acc = sum(correct) / len(correct)
    iv = out["metrics"]["accuracy"]
    assert iv["low"] < acc < iv["high"]
    # the standard error of a mean of 0/1 scores: sqrt(p (1 - p) / (n - 1)) with the sample variance
    assert iv["se"] == pytest.approx(math.sqrt(acc * (1 - acc) / (len(correct) - 1)), rel=1e-9)
    assert iv["mean_of"] == "correct"
    # a proportion gets the exact interval, close to +-1.96 SE for n = 400
    assert iv["method"] == "exact Clopper-Pearson"
    assert iv["high"] - iv["low"] == pytest.approx(2 * 1.96 * iv["se"], rel=0.15)
    # exact: each bound is where the binomial tail beyond the observed count is 2.5% (summed by hand in integers)
    k, n = int(sum(correct)), len(correct)
    assert _upper_tail(k, n, iv["low"]) == pytest.approx(0.025, abs=1e-6)
    assert _lower_tail(k, n, iv["high"]) == pytest.approx(0.025, abs=1e-6)
    assert (out["method"], out["resamples"], out["seed"], out["level"], out["n"]) == (
        METHOD,
        1000,
        0,
        0.95,
        400,
    )
    assert "n" not in out["metrics"]  # counts get no interval


def _lower_tail(k: int, n: int, p: float) -> float:
    """``P(X <= k)`` for ``X ~ Binomial(n, p)``, term by term."""
    return math.fsum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def _upper_tail(k: int, n: int, p: float) -> float:
    """``P(X >= k)`` for ``X ~ Binomial(n, p)``."""
    return 1 - _lower_tail(k - 1, n, p)


@pytest.mark.parametrize("n", [1, 4])
def test_a_proportion_at_tiny_n_keeps_an_honest_interval(n: int) -> None:
    """All right at n = 4 (or n = 1) is no certainty: the percentile bootstrap said [1, 1]; the exact interval
    reaches down to (2.5%)^(1/n) = 0.025 at n = 1, 0.398 at n = 4."""
    iv = bootstrap_intervals(_records([1.0] * n), _accuracy, declared=ACCURACY)["metrics"]["accuracy"]
    assert iv["high"] == 1.0 and iv["low"] == pytest.approx(0.025 ** (1 / n), rel=1e-9)


def test_the_exact_interval_is_the_beta_quantiles_to_1e_9() -> None:
    """scipy.stats' exact binomial interval gives the numbers the Beta quantiles gave (scipy.special's
    inverse regularized incomplete beta, as written before), to 1e-9, and the closed-form ends stay exact."""
    from scipy.special import betaincinv

    from mindloop.bench.inference import clopper_pearson

    for n in (2, 3, 7, 10, 33, 240):
        for k in range(1, n):
            low, high = clopper_pearson(k, n)
            assert low == pytest.approx(betaincinv(k, n - k + 1, 0.025), abs=1e-9)
            assert high == pytest.approx(betaincinv(k + 1, n - k, 0.975), abs=1e-9)
    assert clopper_pearson(0, 4) == pytest.approx((0.0, 1 - 0.025**0.25), abs=1e-15)
    assert clopper_pearson(4, 4) == pytest.approx((0.025**0.25, 1.0), abs=1e-15)


def _graded_metric(records: Sequence[SampleRecord]) -> dict[str, Any]:
    values = [r.scores["correct"] for r in records]
    return {"score": sum(values) / len(values), "n": len(values)}


SCORE = (Metric("score", "correct", kind="mean"),)


@pytest.mark.parametrize("n", [1, 3, 5, 10, 20])
def test_one_rule_per_kind_at_every_n(n: int) -> None:
    """A metric declared a mean keeps the mean's rule when a run happens to give it only 0s and 1s (ToS's avg
    got the exact interval at n = 1 and a bootstrap at n = 10): below n = 10 none, from 10 the bootstrap. A
    declared proportion gets the exact interval at every n. Every leaf says its method and n."""
    correct = [float(i % 3 != 0) for i in range(n)]  # 0/1 values with both kinds present from n = 2
    records = _records(correct)
    mean = bootstrap_intervals(records, _graded_metric, declared=SCORE)
    if n < 10:
        assert mean["metrics"] == {} and mean["none"]["score"].startswith("n too small")
    else:
        leaf = mean["metrics"]["score"]
        assert (leaf["method"], leaf["n"]) == ("percentile bootstrap", n) and leaf["low"] < leaf["high"]
    proportion = bootstrap_intervals(records, _graded_metric, declared=(Metric("score", "correct"),))
    leaf = proportion["metrics"]["score"]
    k = int(sum(correct))
    assert (leaf["method"], leaf["n"]) == ("exact Clopper-Pearson", n)
    assert _upper_tail(k, n, leaf["low"]) == pytest.approx(0.025, abs=1e-6) if k else leaf["low"] == 0.0
    assert "score" not in proportion["none"]


def test_collapsed_resamples_give_no_interval() -> None:
    """Twenty samples that all score 0.7 (a mean, not a proportion): every resample gives 0.7, so the interval
    would be [0.7, 0.7], certainty no sample supports. None, with the reason; the same through ``summarize``."""
    records = _records([0.7] * 20)
    out = bootstrap_intervals(records, _graded_metric, declared=SCORE)
    assert out["metrics"] == {} and "collapse" in out["none"]["score"]
    through = bootstrap_intervals(records, _graded_metric, resampled=("score",))
    assert through["metrics"] == {} and "collapse" in through["none"]["score"]


def test_a_resampled_row_rests_on_its_own_n() -> None:
    """A ``summarize`` row over 5 of 20 samples (MindPower's dialogue subset) is resampled from the whole run,
    but rests on its 5: no bootstrap (it gave [100, 100] from 996 resamples); the whole-run leaf gets one, with
    n 20 and its method."""

    def summary(records: Sequence[SampleRecord]) -> dict[str, Any]:
        sub = [r.scores["score"] for r in records if r.sample.group == "dialogue"]
        every = [r.scores["score"] for r in records]
        out: dict[str, Any] = {"mean": sum(every) / len(every), "n": len(every)}
        out["dialogue"] = {"n": len(sub), "mean": sum(sub) / len(sub)} if sub else {"n": 0}
        return out

    groups = ["dialogue" if i % 4 == 0 else "" for i in range(20)]
    records = _records([0.0] * 20, groups, score=[(i % 7) / 7 for i in range(20)])
    out = bootstrap_intervals(records, summary, resampled=("mean", "dialogue"))
    assert out["none"] == {"dialogue.mean": too_few(5)} and "dialogue" not in out["metrics"]
    assert (out["metrics"]["mean"]["n"], out["metrics"]["mean"]["method"]) == (20, "percentile bootstrap")
    assert row_n(summary(records), ("dialogue", "mean"), 20) == 5


def test_a_mean_that_is_not_a_proportion_says_n_too_small() -> None:
    out = bootstrap_intervals(_records([0.0] * 5, score=[0.1, 0.5, 0.9, 0.3, 0.7]), _mean_score, resampled=("mean",))
    assert "mean" not in out["metrics"] and out["too_small"] == {"min_n": 10, "metrics": ["mean"]}


def _mean_score(records: Sequence[SampleRecord]) -> dict[str, Any]:
    return {"mean": sum(r.scores["score"] for r in records) / len(records)}


def test_interval_shrinks_with_n() -> None:
    widths = {}
    for n in (100, 1600):
        iv = bootstrap_intervals(_records(_bernoulli(n, 0.5, 7)), _accuracy, declared=ACCURACY)["metrics"]["accuracy"]
        widths[n] = iv["high"] - iv["low"]
    assert 3.0 < widths[100] / widths[1600] < 5.3  # width ~ 1 / sqrt(n): 16 times the samples, a quarter the width


def _graded(n: int, seed: int) -> list[float]:
    """Scores in {0, 0.5, 1}: a mean of them is no proportion, so it is bootstrapped."""
    rng = random.Random(seed)
    return [rng.choice((0.0, 0.5, 1.0)) for _ in range(n)]


def test_intervals_are_seeded() -> None:
    records = _records(_graded(200, 3), ["a", "b"] * 100)
    first = bootstrap_intervals(records, _accuracy, seed=11, declared=GRADED)
    assert bootstrap_intervals(records, _accuracy, seed=11, declared=GRADED) == first
    other = bootstrap_intervals(records, _accuracy, seed=12, declared=GRADED)
    assert other["seed"] == 12 and other["metrics"] != first["metrics"]


def test_declared_metrics_are_drawn_from_their_scores_as_summarizing_every_resample_would() -> None:
    """Declared means of a graded score over groups and over input labels are drawn from the per-sample scores
    with one matrix product; the brute force over all 1,000 resamples gives the same interval to the last digit."""
    records = _records(_graded(150, 5), ["a", "b", "c"] * 50)
    out = bootstrap_intervals(records, _accuracy, declared=GRADED)["metrics"]
    for path in [("accuracy",), ("by_group", "b", "accuracy"), ("by_label", "odd", "accuracy")]:
        node: Any = out
        for key in path:
            node = node[key]
        assert (node["low"], node["high"]) == pytest.approx(_brute(records, _accuracy, path, 1000), abs=1e-12)
        assert "se" in node and node["mean_of"] == "correct"  # each is a declared mean of the per-sample score


def test_nothing_is_guessed_for_an_undeclared_mean() -> None:
    """Without a declaration a summary's numbers get no interval, each listed under ``undeclared`` with the
    reason; the declared rule ``resampled`` bootstraps them through ``summarize`` (the interval the declared
    mean gets, to the last digit) with no standard error: the harness does not infer what a number is."""
    records = _records(_graded(60, 8), ["a", "b"] * 30)
    bare = bootstrap_intervals(records, _accuracy)
    assert bare["metrics"] == {} and bare["undeclared"]["reason"] == UNDECLARED
    assert set(bare["undeclared"]["metrics"]) == {
        "accuracy",
        "by_group.a.accuracy",
        "by_group.b.accuracy",
        "by_label.even.accuracy",
        "by_label.odd.accuracy",
    }
    plain = bootstrap_intervals(records, _accuracy, resampled=("accuracy",))
    assert set(plain["metrics"]) == {"accuracy"} and len(plain["undeclared"]["metrics"]) == 4
    declared = bootstrap_intervals(records, _accuracy, declared=GRADED)
    assert "undeclared" not in declared
    p, d = plain["metrics"]["accuracy"], declared["metrics"]["accuracy"]
    assert (p["low"], p["high"]) == pytest.approx((d["low"], d["high"]), abs=1e-12)
    assert "se" not in p and "mean_of" not in p and d["mean_of"] == "correct"


def _f1(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """A micro F1 from per-sample counts: a ratio of sums that is not a mean, so no shortcut applies."""
    tp = sum(r.scores["tp"] for r in records)
    fp = sum(r.scores["fp"] for r in records)
    fn = sum(r.scores["fn"] for r in records)
    p, rc = tp / (tp + fp), tp / (tp + fn)
    return {"f1": 2 * p * rc / (p + rc), "none": None, "count": len(records)}


def test_a_nonlinear_metric_is_bootstrapped_through_summarize() -> None:
    rng = random.Random(9)
    n = 80
    tp = [rng.randint(0, 4) for _ in range(n)]
    records = _records(
        [0] * n, tp=tp, fp=[rng.randint(0, 2) for _ in range(n)], fn=[rng.randint(0, 2) for _ in range(n)]
    )
    out = bootstrap_intervals(records, _f1, resampled=("f1",))
    iv = out["metrics"]["f1"]
    assert (iv["low"], iv["high"]) == pytest.approx(_brute(records, _f1, ("f1",), 1000), abs=1e-12)
    assert "se" not in iv  # not a mean of a per-sample score
    assert set(out["metrics"]) == {"f1"}  # null and integer leaves: no interval


def test_a_large_run_caps_summarize_calls_and_says_so() -> None:
    n = 2000  # SUMMARY_BUDGET / n resamples call summarize: fewer than the 1,000 planned
    rng = random.Random(2)
    records = _records(
        [0] * n, tp=[rng.randint(0, 3) for _ in range(n)], fp=[1] * n, fn=[rng.randint(0, 1) for _ in range(n)]
    )
    iv = bootstrap_intervals(records, _f1, resampled=("f1",))["metrics"]["f1"]
    used = summary_resamples(n)
    assert used < 1000 and iv["resamples"] == used
    assert (iv["low"], iv["high"]) == pytest.approx(_brute(records, _f1, ("f1",), used), abs=1e-12)


def test_null_metrics_stay_null_and_excluded_keys_get_nothing() -> None:
    def summary(records: Sequence[SampleRecord]) -> dict[str, Any]:
        out = _accuracy(records)
        out["pairs"] = {"accuracy": 0.5}
        out["empty"] = None
        return out

    out = bootstrap_intervals(_records(_bernoulli(50, 0.5, 1)), summary, exclude=("pairs",))
    assert "pairs" not in out["metrics"] and "empty" not in out["metrics"] and out["excluded"] == ["pairs"]
    empty = bootstrap_intervals([], _accuracy)
    assert empty["metrics"] == {} and empty["n"] == 0


def test_a_summary_that_fails_on_a_resample_is_reported_not_raised() -> None:
    def fussy(records: Sequence[SampleRecord]) -> dict[str, Any]:
        ids = [r.sample.id for r in records]
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate sample")
        return {"accuracy": 0.5}

    out = bootstrap_intervals(_records([1.0, 0.0] * 6), fussy, resampled=("accuracy",))
    assert out["metrics"] == {} and "duplicate sample" in out["error"]
    # below MIN_N samples nothing is resampled: the summary is not called on a resample, and the leaf is too small
    out = bootstrap_intervals(_records([1.0, 0.0, 1.0, 0.0]), fussy, resampled=("accuracy",))
    assert out["metrics"] == {} and "error" not in out and out["too_small"]["metrics"] == ["accuracy"]


def test_numeric_leaves_are_floats_only() -> None:
    leaves = numeric_leaves({"a": 0.5, "b": 1, "c": True, "d": {"e": 2.0, "f": "x"}, "g": float("nan")})
    assert leaves == {("a",): 0.5, ("d", "e"): 2.0}


# -- paired differences ----------------------------------------------------------------------------------------------


def test_identical_runs_differ_by_nothing() -> None:
    records = _records(_bernoulli(120, 0.5, 4), ["a", "b"] * 60)
    diffs = paired_differences(records, records, _accuracy, declared=ACCURACY)
    d = diffs[("accuracy",)]
    assert (d.diff, d.low, d.high, d.p) == (0.0, 0.0, 0.0, 1.0)


def test_a_real_difference_is_significant_and_its_interval_holds_it() -> None:
    a = _bernoulli(300, 0.5, 1)
    b = [1.0 if x == 1.0 or random.Random(i).random() < 0.5 else 0.0 for i, x in enumerate(a)]  # b >= a everywhere
    diffs = paired_differences(_records(a), _records(b), _accuracy, declared=ACCURACY)
    d = diffs[("accuracy",)]
    assert d.diff == pytest.approx(sum(b) / 300 - sum(a) / 300)
    # b >= a everywhere: every discordant pair favours b, so McNemar's exact p is 2 * (1/2)^discordant
    discordant = int(sum(b) - sum(a))
    assert 0 < d.low < d.diff < d.high and d.test == "McNemar exact"
    assert d.p == pytest.approx(2 * 0.5**discordant, rel=1e-12)
    # pairing: b never loses, so every resampled difference is positive; unpaired the spread would be far wider
    assert d.high - d.low < 2 * 1.96 * math.sqrt(0.25 / 300 * 2)


def test_paired_differences_need_aligned_runs() -> None:
    with pytest.raises(InvalidArgumentError, match="aligned"):
        paired_differences(_records([1.0]), _records([1.0, 0.0]), _accuracy)


# -- where intervals are shown ---------------------------------------------------------------------------------------


def test_intervals_in_json_terminal_and_report(capsys: pytest.CaptureFixture[str]) -> None:
    """A real Hi-ToM run: ``bench run --json`` carries the intervals, the terminal table shows them, and the report
    shows the same bounds in its metric tables (``data-low``/``data-high``)."""
    assert main(["bench", "run", "hitom", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    iv = out["intervals"]
    assert (iv["method"], iv["resamples"], iv["seed"], iv["n"]) == (METHOD, 1000, 0, 240)
    acc = out["metrics"]["accuracy"]
    assert iv["metrics"]["accuracy"]["low"] < acc < iv["metrics"]["accuracy"]["high"]
    # agreed_pairs (declared no_intervals) and chance (the summary key of the declared chance policy) get none
    assert iv["excluded"] == ["agreed_pairs", "chance"] and "agreed_pairs" not in iv["metrics"]
    assert "chance" not in iv["metrics"] and all("chance" not in row for row in iv["metrics"]["by_type"].values())
    assert set(iv["metrics"]["by_type"]) == set(out["metrics"]["by_type"])
    assert main(["bench", "run", "hitom", "--n", "40"]) == 0
    shown = " ".join(capsys.readouterr().out.split())  # the summary is on stdout (wrapped at the console's width)
    assert "95% CI" in shown and f"{METHOD}, 1000 resamples, seed 0" in shown
    # chance is a reference value: no interval, and the line that says how intervals were made says why
    assert iv["none"]["chance"].startswith("a reference value") and "— (no interval) where reference value" in shown
    with RunStore(runs_path(), readonly=True) as store:
        page = render_report(out["run_id"], store)
    order2 = iv["metrics"]["by_type"]["order_2"]["accuracy"]
    cell = re.search(r'data-group="order_2"><th>order_2</th>\s*<td class="num" data-col="accuracy"[^>]*>', page)
    assert cell is not None
    attrs = dict(re.findall(r'data-(low|high)="([^"]+)"', cell.group(0)))
    assert float(html_mod.unescape(attrs["low"])) == order2["low"] and float(attrs["high"]) == order2["high"]
    assert "1000 resamples of the 240 finished samples, seed 0" in page

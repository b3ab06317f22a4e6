"""Shared statistics (``mindloop.metrics.stats``): a mean that says "no data", and P/R/F1 with explicit conventions."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mindloop.bench.scoring import run_metrics
from mindloop.errors import InvalidArgumentError
from mindloop.metrics.stats import PRF, f1_score, macro_prf, mean, prf, prf_from_counts

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
unit = st.one_of(st.just(0.0), st.floats(min_value=1e-6, max_value=1.0))
"""A precision or recall: exactly 0, or far enough from 0 that 2PR does not underflow."""


# ---- mean ---------------------------------------------------------------------------------------------------------
def test_mean_hand_worked() -> None:
    assert mean([2.0, 4.0, 9.0]) == 5.0
    assert mean([0.0, 1.0]) == 0.5
    assert mean(iter([3.0])) == 3.0  # any iterable, consumed once


def test_mean_of_nothing_is_none_not_zero() -> None:
    assert mean([]) is None
    assert mean(x for x in [1.0] if x > 2) is None
    assert mean([0.0, 0.0]) == 0.0  # a real zero stays a zero


@given(finite, st.integers(min_value=1, max_value=50))
def test_mean_of_a_constant_list_is_the_constant(c: float, k: int) -> None:
    m = mean([c] * k)
    assert m is not None and math.isclose(m, c, rel_tol=1e-12, abs_tol=1e-9)


@given(st.lists(finite, min_size=1, max_size=30))
def test_mean_lies_between_min_and_max(values: list[float]) -> None:
    m = mean(values)
    assert m is not None and min(values) - 1e-6 <= m <= max(values) + 1e-6


# ---- P/R/F1 -------------------------------------------------------------------------------------------------------
def test_prf_hand_worked() -> None:
    # predicted {a, b, c}, gold {b, c, d, e}: 2 hits; P = 2/3, R = 2/4, F1 = 2 * (2/3) * (1/2) / (2/3 + 1/2) = 4/7.
    s = prf(["a", "b", "c"], ["b", "c", "d", "e"])
    assert (s.precision, s.recall, s.n) == (pytest.approx(2 / 3), 0.5, 1)
    assert s.f1 == pytest.approx(4 / 7)
    assert prf(["a", "a", "b"], ["a"]) == PRF(0.5, 1.0, pytest.approx(2 / 3))  # duplicates count once
    assert prf({1, 2}, {1, 2}) == PRF(1.0, 1.0, 1.0)
    assert prf({1}, {2}) == PRF(0.0, 0.0, 0.0)


def test_empty_set_conventions() -> None:
    assert prf([], ["x", "y"]) == PRF(0.0, 0.0, 0.0)  # nothing predicted: P = 0 by convention, R = 0/2
    assert prf(["x"], []) == PRF(0.0, 0.0, 0.0)  # empty gold: R = 0 by convention, P = 0/1
    assert prf([], []) == PRF(0.0, 0.0, 0.0)  # both empty: not evidence of skill


def test_counts_with_a_matching_that_is_not_one_to_one() -> None:
    # OmniToM: 3 of 4 predicted rows match something, 1 of 2 gold rows is matched: P = 3/4, R = 1/2, F1 = 3/5.
    s = prf_from_counts(3, 4, 1, 2)
    assert (s.precision, s.recall, s.f1) == (0.75, 0.5, pytest.approx(0.6))
    with pytest.raises(InvalidArgumentError, match="5 matched predicted items out of 4"):
        prf_from_counts(5, 4, 0, 1)
    with pytest.raises(InvalidArgumentError, match="-1 matched gold items out of 2"):
        prf_from_counts(0, 4, -1, 2)


def test_f1_is_zero_when_precision_and_recall_are() -> None:
    assert f1_score(0.0, 0.0) == 0.0
    assert f1_score(1.0, 0.0) == 0.0
    assert f1_score(0.5, 0.5) == 0.5


@given(unit, unit)
def test_f1_is_the_harmonic_mean(p: float, r: float) -> None:
    f = f1_score(p, r)
    if p > 0 and r > 0:
        assert math.isclose(1 / f, (1 / p + 1 / r) / 2, rel_tol=1e-9)
        assert min(p, r) - 1e-12 <= f <= max(p, r) + 1e-12
    else:
        assert f == 0.0


@given(st.sets(st.integers(0, 20), max_size=15), st.sets(st.integers(0, 20), max_size=15))
def test_prf_identities_on_random_sets(pred: set[int], gold: set[int]) -> None:
    s = prf(pred, gold)
    hits = len(pred & gold)
    assert s.precision == (hits / len(pred) if pred else 0.0)
    assert s.recall == (hits / len(gold) if gold else 0.0)
    assert s.f1 == f1_score(s.precision, s.recall)
    if pred and gold:  # F1 = 2|P ∩ G| / (|P| + |G|) when both sides are non-empty
        assert math.isclose(s.f1, 2 * hits / (len(pred) + len(gold)), abs_tol=1e-12)
    swapped = prf(gold, pred)  # swapping the sides swaps P and R and keeps F1
    assert (swapped.precision, swapped.recall) == (s.recall, s.precision)
    assert math.isclose(swapped.f1, s.f1, abs_tol=1e-12)


# ---- macro average ------------------------------------------------------------------------------------------------
def test_macro_average_and_no_data() -> None:
    m = macro_prf([PRF(1.0, 0.5, 2 / 3), PRF(0.0, 0.0, 0.0)])
    assert m is not None and (m.precision, m.recall, m.n) == (0.5, 0.25, 2)
    assert m.f1 == pytest.approx(1 / 3)  # the mean of the F1s, not the F1 of the means
    assert macro_prf([]) is None


def test_json_of_no_data_is_null() -> None:
    assert PRF(0.5, 1.0, 2 / 3).to_json() == {"precision": 0.5, "recall": 1.0, "f1": 2 / 3}
    assert PRF(0.0, 0.0, 0.0, n=0).to_json() == {"precision": None, "recall": None, "f1": None}


# ---- call sites: "no data" is None wherever a system averages -----------------------------------------------------
def test_systems_report_no_data_as_none() -> None:
    """Each summary that used a private mean returning 0.0 on empty input now says None (issue 13)."""
    from mindloop.systems.cobel.metrics import summarize_episodes
    from mindloop.systems.mindclaw.metrics import summarize_intervention
    from mindloop.systems.mindpower.benchmarks import summarize_mindpower
    from mindloop.systems.mindpower.layers import table2
    from mindloop.systems.omnitom.benchmarks import OmniToMStage1Benchmark, OmniToMStage2Benchmark
    from mindloop.systems.omnitom.metrics import summarize_stage1, summarize_stage2
    from mindloop.systems.tos.benchmarks import TosActiveBenchmark, format_table

    cobel = summarize_episodes([])
    assert cobel["n"] == 0
    assert all(cobel[k] is None for k in ("finished", "avg_steps", "comm_tokens", "messages", "belief_accuracy"))

    claw = summarize_intervention([])
    assert all(claw[k] is None for k in ("ta", "pia", "cs", "acc", "acc_no_noop")) and claw["n"] == 0
    # A control episode the robot rightly left alone: TA/PIA 1, no intervention so CS has nothing to count.
    control = summarize_intervention([{"scores": {"ta": 1.0, "pia": 1.0, "acc_total": 4, "acc_correct": 3}}])
    assert (control["ta"], control["pia"], control["cs"], control["cs_n"], control["acc"]) == (1.0, 1.0, None, 0, 0.75)

    power = summarize_mindpower([])
    assert power["sr"] is None and power["ac"] is None and power["dialogue"]["sr"] is None
    assert table2({"empty": power}).splitlines()[-1].endswith("| - | - | - |")  # SR, AC, BPC: no data

    tos = run_metrics(TosActiveBenchmark(), [])
    assert tos["steps"] is None and tos["avg"] is None and tos["n"] == 0
    assert format_table({"empty": tos}).splitlines()[1] == "empty | " + " | ".join(["–"] * 11)

    assert summarize_stage2([])["overall"] is None and set(summarize_stage2([])["by_dimension"].values()) == {None}
    assert [summarize_stage1([])[k] for k in ("precision", "recall", "f1")] == [None, None, None]
    assert run_metrics(OmniToMStage1Benchmark(), [])["f1"] is None
    assert run_metrics(OmniToMStage2Benchmark(), [])["overall"] is None

"""Do mindloop's intervals and stars hold at the n they are printed for? A seeded simulation.

1. **Coverage** of the 95% interval of a proportion (a benchmark's accuracy: a mean of 0/1 per-sample scores), for
   p in {0.02, 0.5, 0.98} x n in {5, 20, 100}, ``--draws`` runs per cell (default 2,000): the share of runs whose
   interval contains the true p. "mindloop" is the interval ``bench run`` prints (through
   :func:`mindloop.bench.uncertainty.bootstrap_intervals`, as a run's summary gets it); beside it the percentile
   bootstrap mindloop printed before, and the Wilson score interval. Goal: >= 0.93 in every cell.
2. **False stars**: pairs of runs of one benchmark under the null (both runs' per-sample outcomes drawn from the
   same distribution, independently), compared as ``mindloop compare`` does (paired differences, the headline
   unadjusted, the breakdown rows Holm-adjusted): the share of comparisons in which any breakdown row is starred,
   for families of 1, 5 and 20 breakdown rows, and the share in which the headline is starred. Beside it, the same
   comparisons with the bootstrap p-values and no adjustment that mindloop used before. Goal: <= 0.05.

Usage: ``.venv/bin/python benchmarks/bench_statistics.py [--draws 2000] [--n-compare 40] [--seed 0]``
"""

from __future__ import annotations

import argparse
import math
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from mindloop.bench.api import Sample, SampleRecord
from mindloop.bench.declaration import Grouping, Metric
from mindloop.bench.uncertainty import (
    ResamplePlan,
    adjust,
    bootstrap_draws,
    bootstrap_intervals,
    interval_of,
    numeric_leaves,
    paired_differences,
    paired_p_value,
)

PS = (0.02, 0.5, 0.98)
NS = (5, 20, 100)
FAMILIES = (1, 5, 20)


def _records(correct: Sequence[float], groups: Sequence[str]) -> list[SampleRecord]:
    return [
        SampleRecord(
            i, Sample(f"s{i:05d}", {"question": f"q{i}"}, g), "done", {"answer": "x"}, {"correct": c}, None, [], 0.0
        )
        for i, (c, g) in enumerate(zip(correct, groups, strict=True))
    ]


def _summary(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """Like ToMi's: accuracy, and accuracy per sample group (the breakdown rows)."""
    by: dict[str, list[float]] = defaultdict(list)
    for r in records:
        by[r.sample.group].append(r.scores["correct"])
    return {
        "accuracy": sum(r.scores["correct"] for r in records) / len(records),
        "by_type": {g: {"accuracy": sum(v) / len(v)} for g, v in sorted(by.items())},
    }


DECLARED = (Metric("accuracy", "correct", groupings=(Grouping("by_type"),)),)
"""How ToMi declares :func:`_summary`'s means (mindloop's intervals and tests come from the declaration)."""


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _percentile(values: np.ndarray, seed: int) -> tuple[float, float]:
    """The percentile bootstrap mindloop printed before (1,000 resamples of the same plan)."""
    plan = ResamplePlan(len(values), 1000, seed)
    means = np.concatenate([(plan.counts(a, b) @ values) / len(values) for a, b in plan.blocks()])
    bounds = interval_of(means)
    assert bounds is not None
    return bounds


def coverage(draws: int, seed: int) -> None:
    print(f"Coverage of the 95% interval of a proportion ({draws:,} seeded draws per cell; goal >= 0.93)")
    print(f"{'p':>5} {'n':>4} | {'mindloop':>9} {'before':>9} {'Wilson':>9}")
    worst = 1.0
    for p in PS:
        for n in NS:
            rng = np.random.default_rng([seed, int(p * 1000), n])
            hits = {"mindloop": 0, "before": 0, "wilson": 0}
            groups = [""] * n
            for d in range(draws):
                x = (rng.random(n) < p).astype(float)
                iv = bootstrap_intervals(_records(x.tolist(), groups), _summary, seed=d, declared=DECLARED)
                iv = iv["metrics"]["accuracy"]
                hits["mindloop"] += iv["low"] <= p <= iv["high"]
                low, high = _percentile(x, d)
                hits["before"] += low <= p <= high
                low, high = _wilson(int(x.sum()), n)
                hits["wilson"] += low <= p <= high
            cov = {k: v / draws for k, v in hits.items()}
            worst = min(worst, cov["mindloop"])
            print(f"{p:>5} {n:>4} | {cov['mindloop']:>9.3f} {cov['before']:>9.3f} {cov['wilson']:>9.3f}")
    print(f"lowest mindloop coverage: {worst:.3f} ({'meets' if worst >= 0.93 else 'MISSES'} the goal of 0.93)")


def false_stars(draws: int, n: int, seed: int) -> None:
    print()
    print(
        f"Null comparisons starred (two runs of {n} samples, outcomes i.i.d. Bernoulli(0.5) in both; {draws:,} "
        "seeded draws per family size; goal <= 0.05)"
    )
    print(f"{'rows':>5} | {'any row, mindloop':>18} {'headline, mindloop':>19} | {'any row, before':>16}")
    worst = 0.0
    for k in FAMILIES:
        rng = np.random.default_rng([seed, k, n])
        groups = [f"g{i % k:02d}" for i in range(n)]
        star_rows = star_head = star_before = 0
        for d in range(draws):
            a = _records((rng.random(n) < 0.5).astype(float).tolist(), groups)
            b = _records((rng.random(n) < 0.5).astype(float).tolist(), groups)
            diffs = adjust(paired_differences(a, b, _summary, seed=d, declared=DECLARED), ("accuracy",))
            rows = [v for path, v in diffs.items() if path != ("accuracy",)]
            star_rows += any(v.p_star < 0.05 and v.diff != 0 for v in rows)
            head = diffs.get(("accuracy",))
            star_head += head is not None and head.p_star < 0.05 and head.diff != 0
            star_before += _before_any_row(a, b, d)
        worst = max(worst, star_rows / draws, star_head / draws)
        print(f"{k:>5} | {star_rows / draws:>18.3f} {star_head / draws:>19.3f} | {star_before / draws:>16.3f}")
    print(f"highest mindloop share: {worst:.3f} ({'meets' if worst <= 0.05 else 'MISSES'} the goal of 0.05)")


def _before_any_row(a: list[SampleRecord], b: list[SampleRecord], seed: int) -> bool:
    """The old rule: each breakdown row starred by its paired bootstrap p-value < 0.05, no adjustment."""
    plan = ResamplePlan(len(a), 1000, seed)
    leaves = {p: v for p, v in numeric_leaves(_summary(a)).items() if p != ("accuracy",)}
    da, _ = bootstrap_draws(a, _summary, leaves, plan, resampled=("by_type",))
    db, _ = bootstrap_draws(b, _summary, leaves, plan, resampled=("by_type",))
    for path in leaves:
        if path in da and path in db:
            diffs = db[path].values - da[path].values
            if paired_p_value(diffs) < 0.05 and np.nanmean(diffs) != 0:
                return True
    return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=2000, help="simulated runs per cell (default 2,000)")
    ap.add_argument("--n-compare", type=int, default=40, help="samples per run in the comparisons (default 40)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    start = time.perf_counter()
    coverage(args.draws, args.seed)
    false_stars(args.draws, args.n_compare, args.seed)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()

"""Intervals and tests that hold their level at the n they are printed for.

* **Proportions** (a mean of a 0/1 per-sample score): the exact Clopper–Pearson interval
  (:func:`clopper_pearson`), whose coverage is at least the nominal level at every ``n`` and ``p`` — the percentile
  bootstrap collapses to ``[1, 1]`` when every sample is right, and plain Wilson undercovers near 0 and 1 at small
  ``n`` (at ``p = 0.02, n = 5`` it covers about 10 % of the time: ``benchmarks/bench_statistics.py``).
* **Other means and metrics**: no interval below :data:`MIN_N` samples ("n too small"); from there the percentile
  bootstrap of :mod:`mindloop.bench.uncertainty`.
* **Paired tests**: McNemar's exact test for 0/1 scores (the binomial tail over the discordant pairs), the paired
  sign-flip permutation test for other per-sample scores (exact enumeration up to :data:`EXACT_FLIPS` non-zero
  differences, else seeded Monte Carlo with the ``+1`` correction, which keeps it valid), and across the breakdown
  rows of one comparison Holm's step-down adjustment (:func:`holm`), which bounds the chance of any false star in
  the family by the level whatever the dependence between rows. The headline row is the one unadjusted test.

>>> [round(x, 4) for x in clopper_pearson(5, 5)]  # all 5 right: still an interval, (0.025)^(1/5) .. 1
[0.4782, 1.0]
>>> holm([0.01, 0.04, 0.03])  # sorted: 0.01*3, 0.03*2, 0.04*1 (then made monotone)
[0.03, 0.06, 0.06]
>>> sign_flip_p([1.0, 1.0, 1.0, 1.0])  # 2 of 16 sign patterns are as extreme
0.125
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from mindloop.errors import InvalidArgumentError

if TYPE_CHECKING:  # imported by the tests that need it: an exact interval needs none
    import numpy as np

MIN_N = 10
"""Below this many samples a metric that is not a proportion gets no interval or test ("n too small"): the
bootstrap's percentile interval and p-value undercover and overreject there."""

EXACT_FLIPS = 16
"""Up to this many non-zero paired differences the sign-flip test enumerates all ``2**k`` sign patterns."""

_MONTE_CARLO = 20_000

PROPORTION_METHOD = "exact Clopper-Pearson"
ADJUSTMENT = "Holm"


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval of a binomial proportion with ``k`` successes in ``n`` trials: the
    ``alpha/2`` and ``1 - alpha/2`` quantiles of ``Beta(k, n-k+1)`` and ``Beta(k+1, n-k)``, with 0 and 1 at the
    ends.

    >>> [round(x, 4) for x in clopper_pearson(0, 20)]
    [0.0, 0.1684]
    """
    if n < 1 or not 0 <= k <= n:
        raise InvalidArgumentError(f"a proportion needs 0 <= k <= n and n >= 1, got k={k}, n={n}")
    if not 0 < level < 1:
        raise InvalidArgumentError(f"a confidence level is between 0 and 1, got {level}")
    alpha = 1 - level
    if k in (0, n):  # the one open end has a closed form: P(no success) = (1 - p)^n = alpha / 2, and its mirror
        edge = (alpha / 2) ** (1 / n)
        return (0.0, 1.0 - edge) if k == 0 else (edge, 1.0)
    # scipy.stats' exact binomial interval (the Beta quantiles), imported here, after a run's first line:
    # scipy.stats costs a command about a second to import
    from scipy.stats import binomtest  # type: ignore[import-untyped]  # scikit-learn's dependency

    ci = binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def is_binary(values: Sequence[float] | np.ndarray) -> bool:
    """Whether every value is 0 or 1 (a correct/incorrect score), and there is at least one."""
    return len(values) > 0 and all(v == 0 or v == 1 for v in values)


def sign_flip_p(diffs: Sequence[float] | np.ndarray, *, seed: int = 0) -> float:
    """The two-sided p-value of the paired sign-flip (permutation) test that the paired differences are
    symmetric about 0: the share of sign patterns whose absolute sum is at least the observed one. Exact up to
    :data:`EXACT_FLIPS` non-zero differences, else ``(1 + hits) / (1 + draws)`` over seeded random patterns.

    >>> sign_flip_p([0.5, -0.5, 0.0])
    1.0
    """
    import numpy as np

    d = np.asarray(diffs, dtype=float)
    d = d[np.isfinite(d) & (d != 0)]
    if not len(d):
        return 1.0
    observed = abs(float(d.sum()))
    tol = 1e-9 * max(1.0, observed)
    if len(d) <= EXACT_FLIPS:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(d))))
        sums = np.abs(signs @ d)
        return float(np.mean(sums >= observed - tol))
    rng = np.random.default_rng([seed, len(d)])
    signs = rng.choice((1.0, -1.0), size=(_MONTE_CARLO, len(d)))
    hits = int(np.sum(np.abs(signs @ d) >= observed - tol))
    return (1 + hits) / (1 + _MONTE_CARLO)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given: the ``i``-th smallest is multiplied by ``m - i``
    (``i`` from 0), made non-decreasing in that order and capped at 1. Rejecting where the adjusted value is below
    the level bounds the family-wise error by the level.

    >>> holm([0.2]), holm([])
    ([0.2], [])
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return [float(x) if not math.isnan(x) else 1.0 for x in out]

"""Confidence intervals for any benchmark's summary, and paired tests between runs of the same samples.

**Intervals come from declarations.** A leaf that a benchmark's declared metric gives
(:class:`~mindloop.bench.declaration.Metric`: the mean of a per-sample score over the samples it counts, overall
or per grouping row, times its scale) is drawn straight from the per-sample scores: each of :data:`RESAMPLES`
resamples of the run's finished records (seeded by :data:`SEED`, so the same records always give the same
interval) is one product of the resample counts. It gets exact Clopper-Pearson for a mean of a 0/1 score, else
the percentile bootstrap, its standard error (the sample standard deviation of the score over the ``m`` samples
it averages, over ``sqrt(m)``, times the scale) and the score it averages (``mean_of``). A number ``summarize``
adds (F1 over pooled counts, macro-F1, a ratio) gets an interval only by the rule its benchmark declares
(:attr:`~mindloop.bench.declaration.BenchmarkSpec.resampled`: the percentile bootstrap of ``summarize`` over
up to :data:`SUMMARY_BUDGET` records in all, at least :data:`MIN_SUMMARY_RESAMPLES` resamples; an interval
built on fewer resamples than asked says how many, ``resamples``). Every other number gets none, listed under
``undeclared`` with the reason: nothing is guessed from the data. Keys the benchmark lists in ``no_intervals``
and the reference values its policies declare (:func:`excluded`) get none either, and a metric that is not a
proportion over fewer than :data:`~mindloop.bench.inference.MIN_N` samples gets none (``too_small``).

**Paired tests.** :func:`paired_differences` compares two runs on their shared samples (aligned by sample id):
both are resampled with the same indices, so each resample's difference is paired; the interval of the
difference is its percentile interval and its p-value the two-sided bootstrap p-value. Correct/incorrect
per-sample scores get McNemar's exact test (:func:`mcnemar_exact`, the binomial tail computed with integers).

>>> round(mcnemar_exact(2, 8), 6)  # 2 * P(X <= 2), X ~ Binomial(10, 1/2) = 2 * 56 / 1024
0.109375
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from mindloop.bench.declaration import Metric
from mindloop.bench.inference import MIN_N, PROPORTION_METHOD, clopper_pearson, holm, is_binary, sign_flip_p
from mindloop.bench.records import SampleRecord
from mindloop.bench.tables import dig
from mindloop.errors import InvalidArgumentError

if TYPE_CHECKING:  # imported where a bootstrap is drawn: a run of fewer than MIN_N samples draws none
    import numpy as np

METHOD = (
    "exact Clopper-Pearson for proportions, else percentile bootstrap over samples (none below n = 10 or where "
    "the resamples collapse)"
)
BOOTSTRAP_METHOD = "percentile bootstrap"
COLLAPSE = 1e-6
"""A bootstrap interval narrower than this share of its metric's scale (1, or 100 for a percentage) has collapsed:
every resample gives the same value, which says nothing about the samples not drawn, so it gets no interval."""
RESAMPLES = 1000
SEED = 0
LEVEL = 0.95
SUMMARY_BUDGET = 500_000
"""Sample records summarised in all, over the resamples that call a benchmark's ``summarize`` (a 10,000-sample
run: 100 resamples, the minimum, for the leaves that are not means or ratios of per-sample scores)."""
MIN_SUMMARY_RESAMPLES = 100
_CHUNK = 50
"""Resamples drawn per seeded generator: resample ``b`` is row ``b % 50`` of generator ``(seed, n, b // 50)``."""

UNDECLARED = (
    "not a declared metric, and its benchmark declares no rule for its interval (BenchmarkSpec.resampled): "
    "no interval is guessed"
)
"""Why a summary number has no interval when no declaration covers it."""

MetricPath = tuple[str, ...]
"""Where a metric sits in a nested summary: ``("by_type", "reality", "accuracy")``."""


def excluded(path: MetricPath, exclude: Sequence[str]) -> bool:
    """Whether a summary leaf gets no interval and no paired test: a key in ``exclude`` is a top-level key (all
    below it is left out: counts over repeated samples) or the last key of a breakdown row's leaf (a reference
    value the benchmark declares, such as ``by_type.<t>.chance``).

    >>> excluded(("agreed_pairs", "accuracy"), ["agreed_pairs"]), excluded(("by_type", "a", "chance"), ["chance"])
    (True, True)
    >>> excluded(("by_type", "a", "accuracy"), ["chance"])
    False
    """
    return path[0] in exclude or path[-1] in exclude


_Summarize = Callable[[Sequence[SampleRecord]], Mapping[str, Any]]


# -- small helpers ------------------------------------------------------------------------------------------------


def _is_float(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def numeric_leaves(metrics: Mapping[str, Any], prefix: MetricPath = ()) -> dict[MetricPath, float]:
    """Every finite ``float`` in a nested summary by its path (integers are counts, booleans and text are not
    metrics, ``None`` is "no data").

    >>> numeric_leaves({"accuracy": 0.5, "n": 4, "by_type": {"a": {"accuracy": 1.0, "n": 1}}, "x": None})
    {('accuracy',): 0.5, ('by_type', 'a', 'accuracy'): 1.0}
    """
    out: dict[MetricPath, float] = {}
    for key, value in metrics.items():
        path = (*prefix, str(key))
        if isinstance(value, Mapping):
            out.update(numeric_leaves(value, path))
        elif _is_float(value):
            out[path] = float(value)
    return out


def set_path(tree: dict[str, Any], path: MetricPath, value: Any) -> None:
    """Set ``value`` at ``path``, creating the nested dicts on the way."""
    node = tree
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value


def standard_error(values: Sequence[float]) -> float | None:
    """The standard error of the mean: the sample standard deviation (``n - 1``) over ``sqrt(n)``; ``None`` for
    fewer than two values.

    >>> standard_error([0.0, 1.0, 1.0, 0.0])  # sd = sqrt(1/3), / 2
    0.28867513459481287
    """
    if len(values) < 2:
        return None
    from scipy.stats import sem  # type: ignore[import-untyped]  # a run's summary, never its first line

    return float(sem(values))


def mcnemar_exact(b: int, c: int) -> float:
    """McNemar's exact two-sided p-value for paired correct/incorrect outcomes: ``b`` pairs where only the first
    is correct, ``c`` where only the second is. Under no difference each discordant pair is a fair coin, so
    ``p = min(1, 2 * P(X <= min(b, c)))`` with ``X ~ Binomial(b + c, 1/2)``: ``scipy.stats.binomtest``'s two-sided
    p-value; ``1`` with no discordant pair.

    >>> mcnemar_exact(0, 5), mcnemar_exact(3, 3), mcnemar_exact(0, 0)
    (0.0625, 1.0, 1.0)
    """
    if b < 0 or c < 0:
        raise InvalidArgumentError(f"McNemar's test counts discordant pairs: got b={b}, c={c}, expected >= 0")
    if b + c == 0:
        return 1.0
    from scipy.stats import binomtest  # a comparison's, never on the start-up path

    return float(binomtest(min(b, c), b + c, 0.5).pvalue)


def paired_p_value(diffs: np.ndarray) -> float:
    """The two-sided bootstrap p-value of paired differences: twice the smaller share of resampled differences
    on either side of zero (zero counted on both sides), with the ``+1`` that keeps it above zero.

    >>> import numpy as np
    >>> paired_p_value(np.array([1.0, 2.0, 3.0])), paired_p_value(np.zeros(9))
    (0.5, 1.0)
    """
    import numpy as np

    d = diffs[np.isfinite(diffs)]
    if not len(d):
        return 1.0
    below, above = int(np.sum(d <= 0)), int(np.sum(d >= 0))
    return float(min(1.0, 2 * (1 + min(below, above)) / (len(d) + 1)))


# -- resamples ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResamplePlan:
    """Which samples each bootstrap resample draws: ``resamples`` rows of ``n`` indices into ``n`` aligned records.

    Resample ``b`` depends only on ``(seed, n, b)`` (row ``b % 50`` of a generator seeded with
    ``(seed, n, b // 50)``), so two runs aligned on the same samples draw the same resamples (a paired
    bootstrap), and any row range can be drawn again without drawing the rows before it.
    """

    n: int
    resamples: int = RESAMPLES
    seed: int = SEED

    def __post_init__(self) -> None:
        if self.resamples < 1:
            raise InvalidArgumentError(f"a bootstrap needs at least 1 resample, got {self.resamples}")

    def rows(self, start: int, stop: int) -> np.ndarray:
        """The indices of resamples ``start`` to ``stop - 1``: an ``(stop - start, n)`` integer array."""
        import numpy as np

        stop = min(stop, self.resamples)
        parts = []
        for chunk in range(start // _CHUNK, (stop - 1) // _CHUNK + 1):
            rng = np.random.default_rng([self.seed, self.n, chunk])
            block = rng.integers(0, self.n, size=(_CHUNK, self.n))
            lo, hi = max(start, chunk * _CHUNK) - chunk * _CHUNK, min(stop, (chunk + 1) * _CHUNK) - chunk * _CHUNK
            parts.append(block[lo:hi])
        return np.concatenate(parts) if parts else np.empty((0, self.n), dtype=np.int64)

    def counts(self, start: int, stop: int) -> np.ndarray:
        """How many times each sample is drawn in resamples ``start`` to ``stop - 1`` (a float array)."""
        import numpy as np

        idx = self.rows(start, stop)
        k = idx.shape[0]
        flat = (idx + (np.arange(k) * self.n)[:, None]).ravel()
        return np.bincount(flat, minlength=k * self.n).reshape(k, self.n).astype(np.float64)

    def blocks(self, stop: int | None = None) -> Iterator[tuple[int, int]]:
        """``(start, stop)`` of consecutive blocks of resamples up to ``stop`` (all by default)."""
        end = self.resamples if stop is None else min(stop, self.resamples)
        for start in range(0, end, _CHUNK):
            yield start, min(end, start + _CHUNK)


# -- mean and ratio forms ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Form:
    """``leaf = scale * (counts @ num) / (counts @ den)``: a mean of a score (``den`` a 0/1 mask) or a ratio of
    two score sums."""

    num: np.ndarray
    den: np.ndarray
    scale: float
    score: str | None  # the averaged score of a mean; None for a ratio
    kind: str = "mean"  # the declared metric's kind: "proportion" (0/1 scores) or "mean"

    def standard_error(self) -> float | None:
        if self.score is None:
            return None
        se = standard_error(self.num[self.den > 0].tolist())
        return None if se is None else self.scale * se


def _declared_values(
    metrics: Sequence[Metric], records: Sequence[SampleRecord]
) -> dict[MetricPath, tuple[Metric, list[float], list[float]]]:
    """Each leaf the declared ``metrics`` give over ``records``, with its metric, each sample's score (0 where it
    has none) and whether it counts (1 or 0): each metric's mean over the samples it counts and over each row of
    its groupings (the paths :func:`mindloop.bench.scoring.declared_summary` writes)."""
    out: dict[MetricPath, tuple[Metric, list[float], list[float]]] = {}
    for metric in metrics:
        if not metric.present(records):
            continue
        values = metric.per_sample(records)
        x0 = [0.0 if v is None else float(v) for v in values]
        den = [0.0 if v is None else 1.0 for v in values]
        out[metric.path] = (metric, x0, den)
        for grouping in metric.groupings:
            labels = [grouping.label(r.sample) for r in records]
            for label in dict.fromkeys(x for x in labels if x is not None):
                mask = [1.0 if x == label else 0.0 for x in labels]
                if any(d * m for d, m in zip(den, mask, strict=True)):
                    rows = (
                        [x * m for x, m in zip(x0, mask, strict=True)],
                        [d * m for d, m in zip(den, mask, strict=True)],
                    )
                    out[(grouping.key, label, metric.name)] = (metric, *rows)
    return out


def declared_forms(metrics: Sequence[Metric], records: Sequence[SampleRecord]) -> dict[MetricPath, _Form]:
    """The form of every leaf of :func:`_declared_values`, for drawing it on resamples."""
    import numpy as np

    return {
        path: _Form(np.array(x0, dtype=np.float64), np.array(den, dtype=np.float64), m.scale, m.score, m.kind)
        for path, (m, x0, den) in _declared_values(metrics, records).items()
    }


def _form_values(forms: Sequence[_Form], counts: np.ndarray) -> np.ndarray:
    """Each form's value on each resample (rows of ``counts``): ``(resamples, forms)``, NaN where undefined."""
    import numpy as np

    num = counts @ np.stack([f.num for f in forms], axis=1)
    den = counts @ np.stack([f.den for f in forms], axis=1)
    scale = np.array([f.scale for f in forms])
    with np.errstate(divide="ignore", invalid="ignore"):
        out: np.ndarray = scale * num / den
    out[den == 0] = np.nan
    return out


_GATHER_FORMS = 4
"""Up to this many forms, a block's values are gathered from the resampled indices; beyond, one matrix product of
the resample counts serves them all."""


def _block_values(forms: Sequence[_Form], plan: ResamplePlan, start: int, stop: int) -> np.ndarray:
    """Each form's value on resamples ``start`` to ``stop - 1`` (as :func:`_form_values`, computed the cheaper way)."""
    import numpy as np

    if len(forms) > _GATHER_FORMS:
        return _form_values(forms, plan.counts(start, stop))
    idx = plan.rows(start, stop)
    out = np.empty((idx.shape[0], len(forms)))
    for j, form in enumerate(forms):
        num, den = form.num[idx].sum(axis=1), form.den[idx].sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[:, j] = np.where(den == 0, np.nan, form.scale * num / den)
    return out


# -- draws ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Draws:
    """A metric's value on each bootstrap resample (NaN where the resample leaves it undefined, e.g. a group no
    sample of which was drawn), and its standard error when it is a mean of a per-sample score (``mean_of``)."""

    values: np.ndarray
    se: float | None = None
    mean_of: str | None = None
    form: _Form | None = None

    def averaged(self) -> np.ndarray | None:
        """The per-sample values this metric averages (unscaled), when it is a mean of a per-sample score."""
        if self.form is None or self.form.score is None:
            return None
        return self.form.num[self.form.den > 0]


@dataclass(frozen=True)
class Interval:
    """A metric's confidence interval: ``low`` and ``high``, the standard error for means of per-sample scores
    and the number of samples they average (fewer than the run's when the metric counts a subset), and how many
    resamples it rests on when fewer than the plan's."""

    low: float
    high: float
    se: float | None = None
    resamples: int | None = None
    mean_of: str | None = None
    method: str | None = None
    n: int | None = None

    def to_json(self) -> dict[str, float | int | str]:
        """``{"low", "high", "method", "n"}`` (``n``: how many samples it rests on), with ``"se"`` and
        ``"mean_of"`` (the per-sample score it averages) for a mean of a per-sample score, and ``"resamples"`` when
        fewer than planned."""
        mean_of = self.mean_of if self.se is not None else None
        given = {"method": self.method, "se": self.se, "mean_of": mean_of, "n": self.n, "resamples": self.resamples}
        return {"low": self.low, "high": self.high} | {k: v for k, v in given.items() if v is not None}


def interval_of(values: np.ndarray, *, level: float = LEVEL, planned: int | None = None) -> tuple[float, float] | None:
    """The percentile interval of bootstrap values (``None`` when fewer than half the resamples define it)."""
    import numpy as np

    finite = values[np.isfinite(values)]
    total = len(values) if planned is None else planned
    if not len(finite) or 2 * len(finite) < total:
        return None
    alpha = (1 - level) / 2
    low, high = np.quantile(finite, [alpha, 1 - alpha])
    return float(low), float(high)


def _summaries(
    records: Sequence[SampleRecord], summarize: _Summarize, plan: ResamplePlan, k: int
) -> tuple[list[Mapping[str, Any]], str | None]:
    """``summarize`` of resamples ``0`` to ``k - 1``, and why they stop short (``None``: they do not)."""
    done: list[Mapping[str, Any]] = []
    for row in plan.rows(0, min(k, plan.resamples)):
        picked = operator.itemgetter(*row.tolist())(records) if plan.n > 1 else (records[0],)
        try:
            done.append(summarize(list(picked)))
        except Exception as exc:  # a summary that cannot take repeated samples: no interval, said why
            return done, f"{type(exc).__name__}: {exc}"
    return done, None


def summary_resamples(n: int, resamples: int = RESAMPLES) -> int:
    """How many resamples call ``summarize`` for ``n`` records: all of them while ``n * resamples`` is within
    :data:`SUMMARY_BUDGET`, else as many as the budget allows, at least :data:`MIN_SUMMARY_RESAMPLES`.

    >>> summary_resamples(100), summary_resamples(10_000), summary_resamples(1_000_000)
    (1000, 100, 100)
    """
    if n * resamples <= SUMMARY_BUDGET:
        return resamples
    return min(resamples, max(MIN_SUMMARY_RESAMPLES, SUMMARY_BUDGET // max(n, 1)))


def uncovered(
    leaves: Iterable[MetricPath], forms: Mapping[MetricPath, Any], resampled: Sequence[str]
) -> list[MetricPath]:
    """The leaves that no declaration covers: neither a declared metric's (``forms``) nor under a top-level key
    the benchmark declares ``resampled``. They get no interval and no test."""
    return [p for p in leaves if p not in forms and p[0] not in resampled]


def bootstrap_draws(
    records: Sequence[SampleRecord],
    summarize: _Summarize,
    leaves: Mapping[MetricPath, float],
    plan: ResamplePlan,
    declared: Sequence[Metric] = (),
    resampled: Sequence[str] = (),
) -> tuple[dict[MetricPath, Draws], str | None]:
    """Each covered leaf's values over the plan's resamples of ``records`` (``plan.n == len(records)``), and why
    some leaves have none (``summarize`` failed on a resample), else ``None``. A leaf a ``declared`` metric gives
    is drawn from its per-sample scores; one under a ``resampled`` top-level key from ``summarize`` applied to
    each resample; any other leaf is not drawn (:func:`uncovered`)."""
    import numpy as np

    if plan.n != len(records):
        raise InvalidArgumentError(f"a resample plan for {plan.n} records cannot resample {len(records)}")
    if not records or not leaves:
        return {}, None
    forms = declared_forms(declared, records)
    chosen = {path: forms[path] for path in leaves if path in forms}
    out: dict[MetricPath, Draws] = {}
    if chosen:
        picked = list(chosen.values())
        values = np.concatenate([_block_values(picked, plan, a, b) for a, b in plan.blocks()])
        for j, (path, form) in enumerate(chosen.items()):
            out[path] = Draws(values[:, j], form.standard_error(), form.score, form)
    rest = [p for p in leaves if p not in chosen and p[0] in resampled]
    error = None
    if rest:
        done, error = _summaries(records, summarize, plan, summary_resamples(plan.n, plan.resamples))
        if error is None:
            for path in rest:
                vals = [float(v) if _is_float(v := dig(s, path)) else math.nan for s in done]
                out[path] = Draws(np.array(vals))
    return out, error


def _proportion(metric_kind: str | None, values: Sequence[float]) -> bool:
    """Whether a leaf is a proportion: a declared metric of kind ``proportion`` whose values are all 0 or 1 (a
    metric declared a ``mean`` is one whatever values a run happens to give it, so its rule does not change
    with n)."""
    return metric_kind == "proportion" and is_binary(values)


def _exact(values: Sequence[float], scale: float, score: str | None, level: float) -> Interval:
    """The exact Clopper-Pearson interval of a mean of a 0/1 score, with its standard error and the score it
    averages."""
    low, high = clopper_pearson(int(sum(values)), len(values), level)
    se = standard_error(values)
    return Interval(
        scale * low, scale * high, None if se is None else scale * se, None, score, PROPORTION_METHOD, len(values)
    )


def row_n(summary: Mapping[str, Any], path: MetricPath, default: int) -> int:
    """The samples a summary leaf rests on, as its summary states them: the ``n`` of the deepest row on its path
    (``by_task.<t>.n``, ``dialogue.n``), else the summary's own ``n``, else ``default`` (the run's finished samples).

    >>> row_n({"n": 20, "dialogue": {"n": 5, "f1": 0.5}, "f1": 0.4}, ("dialogue", "f1"), 20)
    5
    >>> row_n({"f1": 0.4}, ("f1",), 7)
    7
    """
    found = default
    node: Any = summary
    for key in (*path[:-1], None):  # each row on the way, then the leaf's own row
        if not isinstance(node, Mapping):
            break
        n = node.get("n")
        if isinstance(n, int) and not isinstance(n, bool):
            found = n
        node = node.get(key) if key is not None else None
    return found


def too_few(n: int) -> str:
    """Why a metric that is not a proportion gets no interval at ``n`` samples."""
    return f"n too small: {n} samples, fewer than {MIN_N}, and no bootstrap below {MIN_N}"


_COLLAPSED = "the resamples collapse: every resample gives the same value, so no interval is claimed"
_UNDEFINED = "undefined on more than half the resamples"
_REFERENCE = "a reference value or a count over repeated samples (declared with no interval)"


def _interval(d: Draws, n: int, level: float, resamples: int, scale: float) -> Interval | str:
    """A leaf's interval by its kind: exact Clopper-Pearson for a declared proportion at any ``n``; else the
    percentile bootstrap, from :data:`MIN_N` samples up (``n``: the samples the leaf rests on) and only where the
    resamples do not collapse (width under :data:`COLLAPSE` of ``scale``). Without one, the reason."""
    import numpy as np

    values = d.averaged()
    if values is not None and d.form is not None and _proportion(d.form.kind, values.tolist()):
        return _exact(values.tolist(), d.form.scale, d.mean_of, level)
    counted = n if values is None else len(values)
    if counted < MIN_N:
        return too_few(counted)
    bounds = interval_of(d.values, level=level)
    if bounds is None:
        return _UNDEFINED
    if bounds[1] - bounds[0] < COLLAPSE * scale:
        return _COLLAPSED
    used = int(np.isfinite(d.values).sum())
    return Interval(
        bounds[0], bounds[1], d.se, used if used < resamples else None, d.mean_of, BOOTSTRAP_METHOD, counted
    )


def bootstrap_intervals(
    records: Sequence[SampleRecord],
    summarize: _Summarize,
    metrics: Mapping[str, Any] | None = None,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
    exclude: Sequence[str] = (),
    declared: Sequence[Metric] = (),
    resampled: Sequence[str] = (),
    resample: _Summarize | None = None,
) -> dict[str, Any]:
    """The ``intervals`` object of a run's summary: the method, level, resamples, seed and sample count, then
    ``metrics`` mirroring the summary's nesting with ``{"low", "high", "method", "n"[, "se", "mean_of"]
    [, "resamples"]}`` at each float leaf that has an interval, and ``none``: every other float leaf by its
    dotted path, with the reason it has none. One rule per kind, the same at every ``n``: a declared proportion
    gets the exact Clopper-Pearson interval; any other number the percentile bootstrap when it rests on at
    least :data:`MIN_N` samples (a declared mean: the samples it averages; a ``resampled`` leaf: its summary
    row's ``n``, :func:`row_n`) and its resamples do not collapse (:data:`COLLAPSE`). ``metrics`` is
    ``summarize(records)`` when not given; keys in ``exclude`` (see :func:`excluded`) get no interval (a summary
    that depends on repeated samples, which resampling creates). The leaves of the ``declared`` metrics are
    drawn from their per-sample scores, with a standard error; the leaves under a ``resampled`` top-level key by
    applying ``resample`` (default ``summarize``) to each resample. Every other float leaf gets none, and
    ``undeclared`` lists it with the reason (:data:`UNDECLARED`); ``too_small`` lists those below
    :data:`MIN_N`."""
    full = summarize(records) if metrics is None else metrics
    every = numeric_leaves(full)
    leaves = {p: v for p, v in every.items() if not excluded(p, exclude)}
    out: dict[str, Any] = {"method": METHOD, "level": level, "resamples": resamples, "seed": seed, "n": len(records)}
    tree: dict[str, Any] = {}
    none: dict[str, str] = {".".join(p): _REFERENCE for p in every if p not in leaves}
    scale = max((m.scale for m in declared), default=1.0)  # a resampled leaf's scale: its benchmark's
    undeclared: list[MetricPath] = []
    if 0 < len(records) < MIN_N:  # no bootstrap below MIN_N samples (and no NumPy): the exact intervals alone
        values = _declared_values(declared, records)
        undeclared = uncovered(leaves, values, resampled)
        drawn = [p for p in leaves if p in values] + [p for p in leaves if p not in values and p[0] in resampled]
        for path in drawn:  # in the order the bootstrap's draws come in
            metric, x0, den = values.get(path, (None, [], []))
            averaged = [x for x, d in zip(x0, den, strict=True) if d > 0]
            if metric is not None and _proportion(metric.kind, averaged):
                set_path(tree, path, _exact(averaged, metric.scale, metric.score, level).to_json())
            else:
                counted = len(averaged) if metric is not None else row_n(full, path, len(records))
                none[".".join(path)] = too_few(min(counted, len(records)))
    elif records:
        undeclared = uncovered(leaves, declared_forms(declared, records), resampled)
        plan = ResamplePlan(len(records), resamples, seed)
        draws, error = bootstrap_draws(records, resample or summarize, leaves, plan, declared, resampled)
        for path, d in draws.items():
            n = row_n(full, path, len(records))
            interval = _interval(d, min(n, len(records)), level, resamples, d.form.scale if d.form else scale)
            if isinstance(interval, str):
                none[".".join(path)] = interval
                continue
            set_path(tree, path, interval.to_json())
        if error is not None:
            out["error"] = (
                f"the benchmark's summary failed on a resample ({error}): its resampled metrics have no interval"
            )
        for path in leaves:
            if path not in draws and path not in undeclared:
                none[".".join(path)] = out.get("error", _UNDEFINED)
    for path in undeclared:
        none[".".join(path)] = UNDECLARED
    too_small = [p for p, why in none.items() if why.startswith("n too small")]
    if too_small:
        out["too_small"] = {"min_n": MIN_N, "metrics": too_small}
    if undeclared:
        out["undeclared"] = {"reason": UNDECLARED, "metrics": [".".join(p) for p in undeclared]}
    if exclude:
        out["excluded"] = list(exclude)
    out["metrics"] = tree
    out["none"] = {path: none[path] for path in (".".join(p) for p in every) if path in none}
    return out


def without_interval(intervals: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """The metrics a run's ``intervals`` give no interval, grouped by a short reason, in first-seen order
    (``[("n too small (< 10)", ["sr", "dialogue.sr"]), ...]``): from ``none``, or for a run stored before it from
    ``too_small`` and ``undeclared``. Every view shows these as ``—``.

    >>> without_interval({"none": {"a": too_few(3), "b": _COLLAPSED, "c": too_few(5)}})
    [('n too small (< 10)', ['a', 'c']), ('resamples collapse', ['b'])]
    """
    groups: dict[str, list[str]] = {}
    none = intervals.get("none")
    if isinstance(none, Mapping):
        for path, why in none.items():
            groups.setdefault(_short(str(why)), []).append(str(path))
        return list(groups.items())
    small = intervals.get("too_small")
    if isinstance(small, Mapping) and small.get("metrics"):
        groups[f"n too small (< {small.get('min_n', MIN_N)})"] = [str(m) for m in small["metrics"]]
    undeclared = intervals.get("undeclared")
    if isinstance(undeclared, Mapping) and undeclared.get("metrics"):
        groups["not declared"] = [str(m) for m in undeclared["metrics"]]
    return list(groups.items())


def _short(reason: str) -> str:
    if reason.startswith("n too small"):
        return f"n too small (< {MIN_N})"
    return {
        _COLLAPSED: "resamples collapse",
        _UNDEFINED: "undefined on most resamples",
        _REFERENCE: "reference value or repeated-sample count",
        UNDECLARED: "not declared",
    }.get(reason, "summary failed on a resample" if reason.startswith("the benchmark's summary failed") else reason)


# -- paired differences -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairedDifference:
    """A metric of run B minus the same metric of run A on their shared samples: the percentile interval of the
    paired resampled differences, the p-value of the test named by ``test`` (McNemar exact for a proportion,
    the sign-flip permutation test for another mean of a per-sample score, the paired bootstrap otherwise) and
    ``p_adjusted``, the p-value after the adjustment over its family (:func:`adjust`; equal to ``p`` for the
    one unadjusted row)."""

    diff: float
    low: float
    high: float
    p: float
    resamples: int
    test: str = "paired bootstrap"
    p_adjusted: float | None = None

    @property
    def p_star(self) -> float:
        """The p-value a star is given by: the adjusted one when the row belongs to a family."""
        return self.p if self.p_adjusted is None else self.p_adjusted

    def to_json(self) -> dict[str, float | int | str]:
        """``{"diff", "low", "high", "p", "test", "resamples"}`` and ``"p_adjusted"`` for an adjusted row."""
        keys = ("diff", "low", "high", "p", "test", "resamples")
        out: dict[str, float | int | str] = {key: getattr(self, key) for key in keys}
        if self.p_adjusted is not None:
            out["p_adjusted"] = self.p_adjusted
        return out


def _paired_p(da: Draws, db: Draws, diffs: np.ndarray, n: int) -> tuple[float, str] | None:
    """The p-value of one metric's paired difference and the test's name; ``None`` when the metric is not a
    proportion and fewer than :data:`MIN_N` samples are shared (see :mod:`mindloop.bench.inference`)."""
    import numpy as np

    va, vb = da.averaged(), db.averaged()
    same_samples = (
        va is not None
        and vb is not None
        and da.form is not None
        and db.form is not None
        and np.array_equal(da.form.den > 0, db.form.den > 0)
    )
    if same_samples and va is not None and vb is not None:
        if is_binary(va) and is_binary(vb):
            b, c = int(np.sum((va == 1) & (vb == 0))), int(np.sum((va == 0) & (vb == 1)))
            return mcnemar_exact(b, c), "McNemar exact"
        if len(va) < MIN_N:
            return None
        return sign_flip_p(vb - va), "sign-flip permutation"
    if n < MIN_N:
        return None
    return paired_p_value(diffs), "paired bootstrap"


def adjust(
    differences: Mapping[MetricPath, PairedDifference], unadjusted: MetricPath | None
) -> dict[MetricPath, PairedDifference]:
    """The differences with Holm-adjusted p-values over the family of every row but ``unadjusted`` (the
    headline, tested alone at the stated level)."""
    family = [path for path in differences if path != unadjusted]
    adjusted = holm([differences[path].p for path in family])
    out = dict(differences)
    for path, p in zip(family, adjusted, strict=True):
        out[path] = replace(differences[path], p_adjusted=p)
    return out


def paired_differences(
    records_a: Sequence[SampleRecord],
    records_b: Sequence[SampleRecord],
    summarize: _Summarize,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
    exclude: Sequence[str] = (),
    declared: Sequence[Metric] = (),
    resampled: Sequence[str] = (),
    resample: _Summarize | None = None,
) -> dict[MetricPath, PairedDifference]:
    """Every float metric both summaries have, B minus A, over records aligned by sample (``records_a[i]`` and
    ``records_b[i]`` are the same sample): both are drawn with the same resamples, so each difference is paired.
    A metric no declaration covers (:func:`uncovered`), one left undefined by more than half the resamples, or
    one that is not a proportion over fewer than :data:`~mindloop.bench.inference.MIN_N` samples, is left out.
    ``resample`` (default ``summarize``) gives the ``resampled`` keys on each resample. P-values are unadjusted
    (see :func:`adjust`)."""
    import numpy as np

    if len(records_a) != len(records_b):
        raise InvalidArgumentError(f"paired runs need aligned samples: {len(records_a)} vs {len(records_b)}")
    if not records_a:
        return {}
    leaves_a = {p: v for p, v in numeric_leaves(summarize(records_a)).items() if not excluded(p, exclude)}
    leaves_b = {p: v for p, v in numeric_leaves(summarize(records_b)).items() if not excluded(p, exclude)}
    shared = [p for p in leaves_a if p in leaves_b]
    plan = ResamplePlan(len(records_a), resamples, seed)
    each = resample or summarize
    draws_a, _ = bootstrap_draws(records_a, each, {p: leaves_a[p] for p in shared}, plan, declared, resampled)
    draws_b, _ = bootstrap_draws(records_b, each, {p: leaves_b[p] for p in shared}, plan, declared, resampled)
    out: dict[MetricPath, PairedDifference] = {}
    for path in shared:
        if path not in draws_a or path not in draws_b:
            continue
        va, vb = draws_a[path].values, draws_b[path].values
        k = min(len(va), len(vb))
        diffs = vb[:k] - va[:k]
        bounds = interval_of(diffs, level=level)
        tested = _paired_p(draws_a[path], draws_b[path], diffs, len(records_a))
        if bounds is None or tested is None:
            continue
        used = int(np.isfinite(diffs).sum())
        out[path] = PairedDifference(leaves_b[path] - leaves_a[path], bounds[0], bounds[1], tested[0], used, tested[1])
    return out

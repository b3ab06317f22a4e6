"""``mindloop compare``: runs of one benchmark side by side, with intervals and paired tests on shared samples.

Each argument is a run id or a suite id (a suite expands to its runs, :func:`runs_of_suite`). Runs are grouped by
benchmark, in the order given; within a benchmark the first run is the baseline and every other run is compared
with it on the samples every run finished (paired by sample id: a 20-sample run against the 240-sample run it is
a subset of is paired on those 20):

* every numeric metric of each run on the paired samples with its 95% interval (:mod:`mindloop.bench.uncertainty`):
  the run's stored summary when the pairing keeps all its finished samples, else recomputed on the paired ones;
* each run's reference policies (chance, the best trivial policy, the oracle: :mod:`mindloop.bench.headline`) on
  those samples, beside the headline;
* the difference of each metric (run minus baseline) on the shared samples, with the percentile interval of the
  paired bootstrap (both runs drawn with the same resamples) and its two-sided p-value;
* for each per-sample score that is 0/1 in both runs (correct/incorrect), McNemar's exact test on the discordant
  pairs; for every other score, the sign-flip permutation test of the mean difference (none below n = 10);
* p-values that hold at small n (:mod:`mindloop.bench.inference`), Holm-adjusted over the breakdown rows of each
  run-vs-baseline comparison, the headline metric being the one unadjusted test;
* the samples where the runs disagree (a different status, answer, or headline score), with each run's answer;
* in words, which run is better where (:meth:`BenchmarkComparison.verdicts`).

Runs are comparable when they share samples: the same benchmark, at least one sample id in common, and the same
stored input for every shared id. Anything else is refused with one line naming the difference (no shared id, or
the first shared id whose input differs, with the settings that choose samples: ``seed``, an option such as
``data``). Settings that leave the samples alone (agent, model, generation settings, other options) may differ:
that is what a comparison is for, and the result lists them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from mindloop.bench.api import Benchmark, SampleRecord
from mindloop.bench.headline import Headline, headline_of, no_intervals_of, reference_marks, reference_text
from mindloop.bench.inference import ADJUSTMENT, MIN_N, holm, sign_flip_p
from mindloop.bench.key import describe_difference, key_differences
from mindloop.bench.records import answer_of, question_of
from mindloop.bench.registry import get_benchmark, installed_benchmark
from mindloop.bench.runner import (
    RunSummary,
    as_scored,
    benchmark_metrics,
    metric_intervals,
    stored_policies,
    stored_summary,
    summarize_run,
)
from mindloop.bench.scoring import reference_values, run_metrics
from mindloop.bench.store import RunInfo, RunStore
from mindloop.bench.uncertainty import (
    LEVEL,
    METHOD,
    RESAMPLES,
    SEED,
    MetricPath,
    PairedDifference,
    ResamplePlan,
    adjust,
    interval_of,
    mcnemar_exact,
    numeric_leaves,
    paired_differences,
    set_path,
)
from mindloop.errors import InvalidArgumentError

SIGNIFICANT = 0.05
"""A difference whose p-value (the headline's own, another row's adjusted one) is below this is significant."""

_SAMPLE_SETTINGS = ("seed",)
"""Run settings that choose which samples a run holds (with every benchmark option, ``data`` among them), named
when two runs share no sample or differ on one; ``n`` is left out: a shorter run pairs on the samples it has."""


class IncompatibleRunsError(InvalidArgumentError):
    """Runs that cannot be compared (different benchmarks, or different samples); the message names why."""


def runs_of_suite(store: RunStore, suite_id: str) -> list[str]:
    """The run ids of suite ``suite_id`` (:func:`mindloop.bench.suite.runs_of_suite`); an id that is neither a
    run nor a suite is one :class:`InvalidArgumentError` saying so."""
    from mindloop.bench import suite

    if not suite_id.startswith(suite.SUITE_PREFIX):
        raise InvalidArgumentError(f"unknown run or suite id {suite_id!r} in {store.path}{store.recent('runs')}")
    return [str(r) for r in suite.runs_of_suite(store, suite_id)]


def expand_ids(store: RunStore, ids: Sequence[str]) -> list[tuple[str, list[RunInfo]]]:
    """Each argument with its runs: a run id is itself, a suite id its runs in the suite's order."""
    out: list[tuple[str, list[RunInfo]]] = []
    for given in ids:
        try:
            out.append((given, [store.run(given)]))
        except InvalidArgumentError:
            out.append((given, [store.run(r) for r in runs_of_suite(store, given)]))
    return out


# -- what a comparison holds ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunSide:
    """One run in a comparison: its row, its own summary (over every sample it finished), where it came from (the
    argument: a run id or a suite id), its finished records as its summary sees them, and what the comparison shows
    of it: ``metrics``, ``intervals`` and ``references`` over the paired samples (the summary's own when the pairing
    keeps every finished sample, ``whole``), the reference policies' definitions and the run's column ``label``."""

    info: RunInfo
    summary: RunSummary
    source: str
    records: list[SampleRecord] = field(repr=False)
    label: str = ""
    metrics: dict[str, Any] = field(default_factory=dict)
    intervals: dict[str, Any] = field(default_factory=dict)
    references: dict[str, float | None] = field(default_factory=dict)
    policies: list[dict[str, Any]] = field(default_factory=list)
    whole: bool = True

    def reference_text(self, headline: Headline | None, fmt: Callable[[float], str] = "{:.4f}".format) -> str:
        """The run's reference policies in words (:func:`~mindloop.bench.headline.reference_text`)."""
        higher = True if headline is None else headline.higher_is_better
        return reference_text(self.references, self.policies, higher, fmt)

    def decided(self, fmt: Callable[[float], str] = "{:.4f}".format) -> str | None:
        """For a model run of a benchmark that declares who decided (MindClaw): ``model decided k of N windows``
        beside the metrics that count every decision, over the compared samples (``None`` otherwise)."""
        if not self.info.model:
            return None
        bench = installed_benchmark(self.info.benchmark)  # none: its stored numbers alone
        decided = None if bench is None else bench.spec.decided
        return None if decided is None else decided.line(self.metrics, fmt)

    def to_json(self, headline: Headline | None = None) -> dict[str, Any]:
        """The run's entry in ``compare --json``: ``metrics``, ``intervals`` and ``references`` are over the paired
        samples (the comparison's ``shared_samples`` of the run's ``n_finished``); ``run_metrics`` is the run's own
        summary when they are not all of its samples."""
        info = self.info
        higher = True if headline is None else headline.higher_is_better
        marks = reference_marks(self.references, self.policies, higher)
        out: dict[str, Any] = {"run_id": info.run_id, "label": self.label, "source": self.source}
        out |= {key: getattr(info, key) for key in ("agent", "model", "n", "n_completed", "n_failed", "n_bugs")}
        out |= {
            "n_finished": len(self.records),
            "finished": info.finished,
            "metrics": self.metrics,
            "intervals": self.intervals,
            "references": self.references,
            "reference_policies": self.policies,
            "reference_marks": [m._asdict() for m in marks],
            "reference_text": self.reference_text(headline),
        }
        if not self.whole:
            out["run_metrics"] = self.summary.metrics
        if decided := self.decided():
            out["decided"] = decided
        return out


@dataclass(frozen=True)
class ScoreTest:
    """A per-sample score compared on the shared samples: McNemar's exact test for a 0/1 score (``b``: only the
    baseline scored 1, ``c``: only the run did), else the paired bootstrap of the mean difference."""

    score: str
    test: str
    n: int
    mean_baseline: float
    mean_run: float
    p: float
    b: int | None = None
    c: int | None = None
    low: float | None = None
    high: float | None = None
    p_adjusted: float | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"test", "n", "mean_baseline", "mean_run", "diff", "p", "p_adjusted"}`` with
        ``baseline_only``/``run_only`` (McNemar) or ``low``/``high`` (the paired bootstrap interval of the mean
        difference); ``p_adjusted`` is Holm's over the comparison's per-sample scores."""
        out: dict[str, Any] = {key: getattr(self, key) for key in ("test", "n", "mean_baseline", "mean_run")}
        out["diff"] = self.mean_run - self.mean_baseline
        if self.b is not None:
            out |= {"baseline_only": self.b, "run_only": self.c}
        if self.low is not None:
            out |= {"low": self.low, "high": self.high}
        return out | {"p": self.p, "p_adjusted": self.p_adjusted}


@dataclass(frozen=True)
class Difference:
    """One run against the baseline on their shared finished samples."""

    run_id: str
    baseline: str
    shared: int
    metrics: dict[MetricPath, PairedDifference]
    scores: list[ScoreTest]

    @property
    def family(self) -> list[MetricPath]:
        """The breakdown rows whose p-values are adjusted together (every row but the headline), in table order."""
        return [path for path, d in self.metrics.items() if d.p_adjusted is not None]

    def to_json(self) -> dict[str, Any]:
        """``{"run_id", "baseline", "shared_samples", "metrics" (nested like the summary), "family", "scores"}``;
        ``family`` names the adjustment and the rows it is over (dotted paths)."""
        tree: dict[str, Any] = {}
        for path, d in self.metrics.items():
            set_path(tree, path, d.to_json())
        return {
            "run_id": self.run_id,
            "baseline": self.baseline,
            "shared_samples": self.shared,
            "metrics": tree,
            "family": {"adjustment": ADJUSTMENT, "rows": [".".join(p) for p in self.family]},
            "scores": {t.score: t.to_json() for t in self.scores},
        }


@dataclass(frozen=True)
class Verdict:
    """Which run is better where, in words, for one run against the baseline: ``tone`` is ``good`` or ``bad``
    when the headline differs significantly (by its direction), else empty; ``significant`` lists the breakdown
    rows whose adjusted p-value is below :data:`SIGNIFICANT`."""

    run_id: str
    tone: str
    text: str
    significant: list[str]

    def to_json(self) -> dict[str, Any]:
        """``{"run_id", "tone", "text", "significant"}``."""
        return {"run_id": self.run_id, "tone": self.tone, "text": self.text, "significant": self.significant}


@dataclass(frozen=True)
class Disagreement:
    """A sample the runs disagree on: each run's status, answer and key score (``None`` where absent)."""

    index: int
    sample_id: str
    group: str
    question: str | None
    gold: Any
    statuses: list[str]
    answers: list[Any]
    scores: list[float | None]
    errors: list[str | None]

    def to_json(self) -> dict[str, Any]:
        """The sample's entry in ``compare --json``."""
        sample = {"id": self.sample_id, "group": self.group, "question": self.question, "gold": self.gold}
        return sample | {"status": self.statuses, "answers": self.answers, "scores": self.scores, "errors": self.errors}


@dataclass(frozen=True)
class _KeyDifference:
    """How a run's comparability key (:mod:`mindloop.bench.key`) differs from the baseline's: the fields, in the
    order of :data:`~mindloop.bench.key.KEY_FIELDS` (``key`` when either key is unknown), and one line saying how."""

    run_id: str
    baseline: str
    fields: list[str]
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "baseline": self.baseline, "fields": self.fields, "text": self.text}


def _key_differences(store: RunStore, infos: Sequence[RunInfo]) -> list[_KeyDifference]:
    """Each run whose key is not the baseline's (or is unknown), with how: what ``compare`` names first."""
    keys = store.run_keys()
    first = infos[0].run_id
    base = keys.get(first)
    out = []
    for info in infos[1:]:
        key = keys.get(info.run_id)
        unknown = [
            (i, k.unknown if k else "no key") for i, k in ((first, base), (info.run_id, key)) if not k or k.unknown
        ]
        if unknown:
            text = "; ".join(f"the key of {i} is unknown ({why})" for i, why in unknown)
            out.append(_KeyDifference(info.run_id, first, ["key"], f"{info.run_id}: {text}"))
            continue
        assert key is not None and base is not None
        fields = key_differences(key, base)
        if fields:
            said = "; ".join(describe_difference(f, key, base) for f in fields)
            out.append(_KeyDifference(info.run_id, first, fields, f"{info.run_id} differs from {first} in {said}"))
    return out


@dataclass(frozen=True)
class BenchmarkComparison:
    """The runs of one benchmark compared: the first is the baseline. ``key_differences``: how each run's
    comparability key differs from the baseline's (empty: every run has the baseline's key), named first in every
    view."""

    benchmark: str
    headline: Headline | None
    runs: list[RunSide]
    differs: dict[str, list[Any]]
    differences: list[Difference]
    key_score: str | None
    disagreements: list[Disagreement]
    shared: int
    key_differences: list[_KeyDifference] = field(default_factory=list)

    def key_text(self) -> str:
        """The comparability keys in one line: the same for every run, or how each differs."""
        if not self.key_differences:
            return "comparability key: every run has the baseline's (same samples, options, protocol, declaration)"
        return "comparability key differs: " + "; ".join(d.text for d in self.key_differences)

    def metric_paths(self, *, by_name: bool = False) -> list[MetricPath]:
        """Every numeric metric any run shows, as every view lists them: the top-level ones (the headline first),
        then the breakdowns' rows; in the order the runs give them, or ``by_name`` after the headline."""
        paths = dict.fromkeys(path for side in self.runs for path in numeric_leaves(side.metrics))
        head = self.headline.metric if self.headline else None
        return sorted(paths, key=lambda p: (len(p) > 1, p[0] != head, p[0] if by_name else ""))

    @property
    def paired_on(self) -> str:
        """``paired on 20 shared samples of 20 and 240``: how many samples every run finished, of each run's."""
        counts = [f"{len(side.records):,}" for side in self.runs]
        of = ", ".join(counts[:-1]) + f" and {counts[-1]}"
        what = "sample" if self.shared == 1 else "samples"
        return f"paired on {self.shared:,} shared {what} of {of}"

    def verdicts(
        self,
        num: Callable[[float], str] = "{:+.4f}".format,
        pval: Callable[[float], str] = "p {:.3f}".format,
    ) -> list[Verdict]:
        """For each run against the baseline, a sentence saying which is better on the headline (by its direction,
        significant when its unadjusted p-value is below :data:`SIGNIFICANT`) and on each breakdown row whose
        Holm-adjusted p-value is (``better``/``worse`` for a row of the headline's metric, else ``higher``/
        ``lower``). ``num`` formats a signed difference, ``pval`` a p-value."""
        base = self.runs[0].label
        return [
            self._verdict(base, side.label, diff, num, pval)
            for side, diff in zip(self.runs[1:], self.differences, strict=True)
        ]

    def _verdict(
        self, base: str, run: str, diff: Difference, num: Callable[[float], str], pval: Callable[[float], str]
    ) -> Verdict:
        head = self.headline
        d = None if head is None else diff.metrics.get((head.metric,))
        tone = ""
        if head is None or d is None:
            name = "no headline metric" if head is None else f"no paired difference on {head.metric}"
            first = f"{run} against {base}: {name}"
        elif d.p < SIGNIFICANT and d.diff != 0:
            better = (d.diff > 0) == head.higher_is_better
            tone = "good" if better else "bad"
            word = "better" if better else "worse"
            first = f"{run} is {word} than {base} on {head.metric} ({num(d.diff)}, {pval(d.p)})"
        else:
            first = f"{run} and {base} do not differ significantly on {head.metric} ({num(d.diff)}, {pval(d.p)})"
        rows = [path for path in diff.family if _significant(diff.metrics[path])]
        parts = []
        for path in rows:
            rd = diff.metrics[path]
            if head is not None and path[-1] == head.metric:
                word = "better" if (rd.diff > 0) == head.higher_is_better else "worse"
            else:
                word = "higher" if rd.diff > 0 else "lower"
            parts.append(f"{word} on {'.'.join(path)} ({num(rd.diff)}, {ADJUSTMENT} {pval(rd.p_star)})")
        m = len(diff.family)
        if not m:
            tail = ""
        elif rows:
            tail = f"; among the other {m} rows ({ADJUSTMENT}-adjusted as one family) {run} is " + "; ".join(parts)
            tail += "; no other row differs significantly" if len(rows) < m else ""
        elif m == 1:
            tail = f"; its one other row ({'.'.join(diff.family[0])}) does not differ significantly"
        else:
            tail = f"; none of the other {m} rows differs significantly ({ADJUSTMENT}-adjusted as one family)"
        return Verdict(diff.run_id, tone, first + tail + ".", [".".join(p) for p in rows])

    def to_json(self) -> dict[str, Any]:
        """This benchmark's entry in ``compare --json``."""
        return {
            "benchmark": self.benchmark,
            "key_differences": [d.to_json() for d in self.key_differences],
            "headline": None if self.headline is None else self.headline.to_json(),
            "runs": [r.to_json(self.headline) for r in self.runs],
            "settings_that_differ": self.differs,
            "shared_samples": self.shared,
            "paired_on": self.paired_on,
            "verdicts": [v.to_json() for v in self.verdicts()],
            "differences": [d.to_json() for d in self.differences],
            "disagreements": {
                "key_score": self.key_score,
                "n": len(self.disagreements),
                "samples": [d.to_json() for d in self.disagreements],
            },
        }


@dataclass(frozen=True)
class Comparison:
    """A whole ``mindloop compare``: one :class:`BenchmarkComparison` per benchmark with two runs or more, and
    the benchmarks only one argument has (suites compared with suites)."""

    ids: list[str]
    benchmarks: list[BenchmarkComparison]
    unmatched: dict[str, list[str]]
    resamples: int = RESAMPLES
    seed: int = SEED
    level: float = LEVEL

    def method(self) -> dict[str, Any]:
        """How the numbers were computed."""
        return {
            "intervals": METHOD,
            "differences": "paired bootstrap over the shared samples (the same resamples for every run), "
            "percentile interval; p-value: McNemar exact for proportions, sign-flip permutation for other means of "
            "a per-sample score, else the paired bootstrap; none below n = 10 except for proportions",
            "binary_scores": "McNemar exact test (binomial tail over the discordant pairs)",
            "adjustment": f"{ADJUSTMENT}, over the breakdown rows of each run-vs-baseline comparison (every metric "
            "but the headline) and over its per-sample scores; the headline is the one unadjusted test",
            "level": self.level,
            "resamples": self.resamples,
            "seed": self.seed,
        }

    def to_json(self) -> dict[str, Any]:
        """The ``mindloop compare --json`` object."""
        return {
            "ids": self.ids,
            "method": self.method(),
            "comparisons": [b.to_json() for b in self.benchmarks],
            "unmatched": self.unmatched,
        }


def _significant(d: PairedDifference) -> bool:
    """Whether a difference is marked: its p-value (the adjusted one in a family) below :data:`SIGNIFICANT`."""
    return d.p_star < SIGNIFICANT and d.diff != 0


# -- building one ---------------------------------------------------------------------------------------------------


def _flat_config(info: RunInfo) -> dict[str, Any]:
    """The settings of a run that shape its results, as dotted keys (``options.data``, ``generation.temperature``)."""
    cfg = info.config
    out: dict[str, Any] = {"agent": info.agent, "model": info.model}
    for key in ("n", "seed", "format_retries"):
        out[key] = cfg.get(key)
    for group in ("options", "generation"):
        for k, v in sorted((cfg.get(group) or {}).items()):
            out[f"{group}.{k}"] = v
    return out


def _check_samples(first: RunInfo, other: RunInfo, store: RunStore) -> None:
    """Refuse (one line) two runs of one benchmark that share no sample id, or whose shared ids hold different
    stored inputs (or groups): they did not run the same samples. Samples only one run holds are fine."""
    a = {r.sample.id: (r.sample.group, r.sample.input) for r in store.records(first.run_id, include_pending=True)}
    b = {r.sample.id: (r.sample.group, r.sample.input) for r in store.records(other.run_id, include_pending=True)}
    shared = [k for k in a if k in b]
    differ = [k for k in shared if a[k] != b[k]]
    if shared and not differ:
        return
    if differ:
        what = "input" if a[differ[0]][1] != b[differ[0]][1] else "group"
        why = f"sample {differ[0]} has a different {what} in each ({len(differ)} of their {len(shared)} shared ids do)"
    else:
        why = f"they share no sample id ({len(b):,} and {len(a):,} samples)"
    ca, cb = _flat_config(first), _flat_config(other)
    keys = [*_SAMPLE_SETTINGS, *sorted({k for k in (*ca, *cb) if k.startswith("options.")})]
    named = [f"{k} differs ({_show(ca.get(k))} vs {_show(cb.get(k))})" for k in keys if ca.get(k) != cb.get(k)]
    hint = f"; {'; '.join(named)}" if named else ""
    raise IncompatibleRunsError(
        f"cannot compare {other.run_id} with {first.run_id} ({first.benchmark}): {why}, so they did not run the same "
        f"samples{hint}"
    )


def _show(value: Any) -> str:
    return "unset" if value is None else json.dumps(value) if not isinstance(value, str) else value


def _differs(infos: Sequence[RunInfo]) -> dict[str, list[Any]]:
    """The settings that are not the same in every run, each with every run's value."""
    flats = [_flat_config(i) for i in infos]
    keys = list(dict.fromkeys(k for f in flats for k in f))
    return {k: [f.get(k) for f in flats] for k in keys if len({json.dumps(f.get(k)) for f in flats}) > 1}


def _score_value(r: SampleRecord, name: str) -> float | None:
    """A sample's score as its summary counts it: a failed sample without the score counts 0."""
    v = r.scores.get(name)
    if isinstance(v, int | float) and not isinstance(v, bool):
        return float(v)
    return 0.0 if r.status == "failed" else None


def _score_tests(
    base: Sequence[SampleRecord],
    run: Sequence[SampleRecord],
    plan_seed: int,
    resamples: int,
    level: float,
    kinds: Mapping[str, str],
) -> list[ScoreTest]:
    """A paired test per score: McNemar's exact test for a score declared a proportion (or, undeclared, 0/1 in
    both runs), a sign-flip permutation test of the mean difference otherwise; p-values Holm-adjusted."""
    names = list(dict.fromkeys(k for r in (*base, *run) for k in r.scores))
    out = []
    for name in names:
        both = ((_score_value(ra, name), _score_value(rb, name)) for ra, rb in zip(base, run, strict=True))
        pairs = [(a, b) for a, b in both if a is not None and b is not None]
        if not pairs:
            continue
        xa = np.array([p[0] for p in pairs])
        xb = np.array([p[1] for p in pairs])
        ma, mb = float(xa.mean()), float(xb.mean())
        binary = set(np.unique(np.concatenate([xa, xb]))) <= {0.0, 1.0}
        if kinds.get(name, "proportion" if binary else "mean") == "proportion" and binary:
            b, c = int(np.sum((xa == 1) & (xb == 0))), int(np.sum((xa == 0) & (xb == 1)))
            out.append(ScoreTest(name, "McNemar exact", len(pairs), ma, mb, mcnemar_exact(b, c), b=b, c=c))
            continue
        if len(pairs) < MIN_N:
            continue
        plan = ResamplePlan(len(pairs), resamples, plan_seed)
        d = xb - xa
        diffs = np.concatenate([(plan.counts(s, e) @ d) / len(pairs) for s, e in plan.blocks()])
        bounds = interval_of(diffs, level=level) or (float("nan"), float("nan"))
        p = sign_flip_p(d, seed=plan_seed)
        out.append(ScoreTest(name, "sign-flip permutation", len(pairs), ma, mb, p, low=bounds[0], high=bounds[1]))
    adjusted = holm([t.p for t in out])
    return [replace(t, p_adjusted=p) for t, p in zip(out, adjusted, strict=True)]


def _key_score(bench: Benchmark, headline: Headline | None) -> str | None:
    """The per-sample score the headline metric averages, when the benchmark declares it as a metric."""
    declared = bench.spec.metric(headline.metric) if headline is not None else None
    return None if declared is None else declared.score


def _disagreements(aligned: Sequence[Sequence[SampleRecord]], key: str | None) -> list[Disagreement]:
    """The samples (aligned across runs) on which the runs differ in status, answer or key score (every score
    when there is no key score)."""
    out = []
    for column in zip(*aligned, strict=True):
        first = column[0]
        answers = [answer_of(r.output) for r in column]
        if key is not None:
            scores: list[Any] = [_score_value(r, key) for r in column]
        else:
            scores = [json.dumps(r.scores, sort_keys=True) for r in column]
        statuses = [r.status for r in column]
        differ = (
            len({json.dumps(a, sort_keys=True, default=str) for a in answers}) > 1
            or len({json.dumps(s) for s in scores}) > 1
            or len(set(statuses)) > 1
        )
        if not differ:
            continue
        question = question_of(first.sample.input)
        out.append(
            Disagreement(
                index=first.index,
                sample_id=first.sample.id,
                group=first.sample.group,
                question=question,
                gold=first.sample.target,
                statuses=statuses,
                answers=answers,
                scores=[_score_value(r, key) for r in column] if key is not None else [None] * len(column),
                errors=[r.error for r in column],
            )
        )
    return out


def _labels(infos: Sequence[RunInfo]) -> list[str]:
    """Each run's column label, ``model openai/qwen (run 3f2a)``: the agent, its model and the end of the run id
    (the whole run id where two would read the same: a run against itself)."""
    who = [i.agent + (f" {i.model}" if i.model else "") for i in infos]
    short = [f"{w} (run {i.run_id.rsplit('-', 1)[-1]})" for w, i in zip(who, infos, strict=True)]
    return [s if short.count(s) == 1 else f"{w} (run {i.run_id})" for s, w, i in zip(short, who, infos, strict=True)]


def _paired_side(store: RunStore, bench: Benchmark, side: RunSide, paired: list[SampleRecord], label: str) -> RunSide:
    """``side`` with what the comparison shows of it over the ``paired`` records: its stored summary and reference
    policies when they are all its finished samples, else its metrics, intervals and reference values recomputed
    on them with today's definitions."""
    whole = len(paired) == len(side.records)
    policies = stored_policies(stored_summary(store, side.info) if whole else None, bench)
    if whole:
        metrics, intervals, references = side.summary.metrics, side.summary.intervals, side.summary.references
    else:
        metrics = benchmark_metrics(bench, paired)
        intervals, references = metric_intervals(bench, paired, metrics), reference_values(bench, paired)
    return replace(
        side, label=label, metrics=metrics, intervals=intervals, references=references, policies=policies, whole=whole
    )


def _compare_benchmark(
    store: RunStore, sides: Sequence[tuple[str, RunInfo]], resamples: int, seed: int, level: float
) -> BenchmarkComparison:
    first = sides[0][1]
    for _, info in sides[1:]:
        _check_samples(first, info, store)
    bench = get_benchmark(first.benchmark)
    runs = []
    for source, info in sides:
        records = as_scored(store.records(info.run_id))
        if not records:
            raise InvalidArgumentError(f"run {info.run_id} has no finished samples to compare yet")
        runs.append(RunSide(info, summarize_run(info.run_id, store, bench=bench), source, records))
    by_id = [{r.sample.id: r for r in side.records} for side in runs]
    shared_ids = [r.sample.id for r in runs[0].records if all(r.sample.id in ids for ids in by_id[1:])]
    if not shared_ids:
        raise InvalidArgumentError(
            f"runs {', '.join(i.run_id for _, i in sides)} have no finished sample in common "
            f"({' and '.join(str(len(s.records)) for s in runs)} finished)"
        )
    aligned = [[ids[s] for s in shared_ids] for ids in by_id]
    labels = _labels([s.info for s in runs])
    runs = [_paired_side(store, bench, side, aligned[k], labels[k]) for k, side in enumerate(runs)]
    headline = headline_of(bench, runs[0].metrics)
    drawn: dict[str, Any] = {"resamples": resamples, "seed": seed, "level": level, "exclude": no_intervals_of(bench)}
    drawn |= {"declared": bench.spec.metrics, "resampled": bench.spec.resampled, "resample": bench.summarize}
    unadjusted = None if headline is None else (headline.metric,)
    kinds = {m.score: m.kind for m in bench.spec.metrics}  # proportion: a 0/1 score; mean: any number
    differences = []
    for k, side in enumerate(runs[1:], 1):
        paired = paired_differences(aligned[0], aligned[k], lambda rs: run_metrics(bench, rs), **drawn)
        scores = _score_tests(aligned[0], aligned[k], seed, resamples, level, kinds)
        differences.append(
            Difference(side.info.run_id, first.run_id, len(shared_ids), adjust(paired, unadjusted), scores)
        )
    key = _key_score(bench, headline)
    return BenchmarkComparison(
        benchmark=first.benchmark,
        headline=headline,
        runs=runs,
        differs=_differs([s.info for s in runs]),
        differences=differences,
        key_score=key,
        disagreements=_disagreements(aligned, key),
        shared=len(shared_ids),
        key_differences=_key_differences(store, [s.info for s in runs]),
    )


def compare_runs(
    store: RunStore, ids: Sequence[str], *, resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL
) -> Comparison:
    """Compare the runs (and suites) named by ``ids``, benchmark by benchmark; see the module.

    Plain runs must all be of one benchmark; suites are compared benchmark by benchmark, and a benchmark that only
    one argument has is listed in ``unmatched``. Raises :class:`IncompatibleRunsError` (one line) for runs of
    different benchmarks or different samples, :class:`InvalidArgumentError` for an unknown id or fewer than two
    runs to compare.
    """
    if len(ids) < 2:
        raise InvalidArgumentError(f"compare needs at least two runs or suites, got {len(ids)}: {' '.join(ids)}")
    expanded = expand_ids(store, ids)
    plain = [runs[0] for given, runs in expanded if len(runs) == 1 and runs[0].run_id == given]
    if len(plain) == len(expanded):
        names = {info.benchmark for info in plain}
        if len(names) > 1:
            other = next(i for i in plain if i.benchmark != plain[0].benchmark)
            raise IncompatibleRunsError(
                f"cannot compare {other.run_id} ({other.benchmark}) with {plain[0].run_id} ({plain[0].benchmark}): "
                "runs of different benchmarks"
            )
    by_bench: dict[str, list[tuple[str, RunInfo]]] = {}
    for given, runs in expanded:
        for info in runs:
            by_bench.setdefault(info.benchmark, []).append((given, info))
    compared = [
        _compare_benchmark(store, sides, resamples, seed, level) for sides in by_bench.values() if len(sides) > 1
    ]
    unmatched = {name: [i.run_id for _, i in sides] for name, sides in by_bench.items() if len(sides) == 1}
    if not compared:
        raise InvalidArgumentError(
            f"nothing to compare: no benchmark has runs in two of {', '.join(ids)} (benchmarks: {', '.join(by_bench)})"
        )
    return Comparison(list(ids), compared, unmatched, resamples, seed, level)

"""A run's summary from the benchmark's declared metrics, plus what its ``summarize`` adds.

A declared :class:`~mindloop.bench.declaration.Metric` is the mean of a per-sample score (times its scale), over
all finished samples and over each row of its groupings (``{"by_type": {"reality": {"accuracy": 0.9, "n": 20}}}``).
:func:`run_metrics` is what a run reports: the declared metrics, then every key of ``summarize`` that the
declaration does not give (F1 over pooled counts, ratios, counts, notes); where both give a value, the declaration
wins. :func:`definitions` is what the run store keeps beside the summary, so a report made later says what the
numbers meant when they were computed.

>>> from mindloop.bench.records import Sample, SampleRecord
>>> rec = lambda i, g, c: SampleRecord(i, Sample(f"s{i}", {}, g), "done", {}, {"correct": c}, None, [], 0.0)
>>> from mindloop.bench.declaration import Grouping, Metric
>>> m = Metric("accuracy", "correct", groupings=(Grouping("by_type", labels=("b", "a")),))
>>> declared_summary([m], [rec(0, "a", 1.0), rec(1, "b", 0.0), rec(2, "a", 0.0)])
{'accuracy': 0.3333333333333333, 'by_type': {'b': {'accuracy': 0.0, 'n': 1}, 'a': {'accuracy': 0.5, 'n': 2}}}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mindloop.bench.api import Benchmark
from mindloop.bench.declaration import Grouping, Metric
from mindloop.bench.records import SampleRecord


def group_rows(grouping: Grouping, records: Sequence[SampleRecord]) -> dict[str, list[SampleRecord]]:
    """The records of each row of ``grouping``, rows in its declared order, then the others sorted."""
    rows: dict[str, list[SampleRecord]] = {}
    for r in records:
        label = grouping.label(r.sample)
        if label is not None:
            rows.setdefault(label, []).append(r)
    order = [t for t in grouping.labels if t in rows] + sorted(set(rows) - set(grouping.labels))
    return {t: rows[t] for t in order}


def declared_summary(metrics: Sequence[Metric], records: Sequence[SampleRecord]) -> dict[str, Any]:
    """The declared metrics over ``records``: each one's value (at :attr:`Metric.path`), and per grouping row its
    value and ``n`` (a row no sample counts in is left out; a metric with no value is ``None``, "no data"; an
    ``optional`` metric no sample scored is left out)."""
    out: dict[str, Any] = {}
    shown = [m for m in metrics if m.present(records)]
    for metric in shown:  # the run-wide values first, then the breakdowns
        node = out if metric.table is None else out.setdefault(metric.table, {})
        node[metric.name] = metric.value(metric.values(records))
    for metric in shown:
        for grouping in metric.groupings:
            for label, members in group_rows(grouping, records).items():
                values = metric.values(members)
                if not values:
                    continue
                row = out.setdefault(grouping.key, {}).setdefault(label, {})
                row[metric.name] = metric.value(values)
                row.setdefault("n", len(values))
    return out


def merge_summaries(declared: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``declared`` with every key of ``extra`` it lacks, nested tables merged the same way (declared wins)."""
    out = dict(declared)
    for key, value in extra.items():
        if key not in out:
            out[key] = value
        elif isinstance(out[key], Mapping) and isinstance(value, Mapping):
            out[key] = merge_summaries(out[key], value)
    return out


def run_metrics(bench: Benchmark, records: Sequence[SampleRecord]) -> dict[str, Any]:
    """What a run of ``bench`` reports over ``records``: its declared metrics, then what ``summarize`` adds."""
    return merge_summaries(declared_summary(bench.spec.metrics, records), bench.summarize(records))


def definitions(bench: Benchmark) -> dict[str, Any]:
    """The definitions behind a summary, as the run store keeps them: the headline, every declared metric and what
    each reference policy is (its name, kind, description and whether its value is optimistic)."""
    head = bench.spec.headline
    return {
        "headline": None if head is None else head.to_json(),
        "metrics": [m.to_json() for m in bench.spec.metrics],
        "no_intervals": list(bench.spec.no_intervals),
        "resampled": list(bench.spec.resampled),
        "references": [policy.to_json() for policy in bench.spec.references],
    } | ({"decided": bench.spec.decided.to_json()} if bench.spec.decided is not None else {})


def reference_values(bench: Benchmark, records: Sequence[SampleRecord]) -> dict[str, float | None]:
    """Each declared reference policy's headline value on the samples of ``records`` that the run scored, by name:
    a sample its agent declined (a ``covered`` score of 0, a tracker's "not covered") counts in no headline, so
    the policies are scored on the same questions as the agent."""
    samples = [r.sample for r in records if r.scores.get("covered", 1.0) != 0.0]
    return {policy.name: policy.value(samples) for policy in bench.spec.references}

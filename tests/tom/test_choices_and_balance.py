"""Issue 22: every generated ToMi question offers two or more choices, the summary prints chance per type, and the
quick presets' balanced subsets spread evenly over each dimension a dataset reports."""

from __future__ import annotations

from collections import Counter

import pytest

from mindloop.bench.api import SampleRecord
from mindloop.bench.options import validate_options
from mindloop.bench.scoring import run_metrics
from mindloop.bench.suite import preset_entry
from mindloop.systems.tom.balance import HITOM_DIMENSIONS, balanced_ids
from mindloop.systems.tom.benchmarks import HiToMBenchmark, ToMiBenchmark, tom_samples


def test_every_generated_question_offers_two_choices() -> None:
    samples = tom_samples("tomi", None, 0, None)
    assert len(samples) == 1000  # before: 88 of them offered one
    assert min(len(s.input["choices"]) for s in samples) >= 2
    assert all(s.input["answer"] in s.input["choices"] for s in samples)


def test_the_summary_prints_chance_per_type() -> None:
    bench = ToMiBenchmark()
    samples = bench.samples(40, 0, validate_options(bench, {}))
    records = [SampleRecord(i, s, "done", {}, {"correct": 1.0}, None, [], 0.0) for i, s in enumerate(samples)]
    m = run_metrics(bench, records)
    for t, block in m["by_type"].items():
        expected = [1 / len(s.input["choices"]) for s in samples if s.group == t]
        assert block["chance"] == pytest.approx(sum(expected) / len(expected))
        assert 0 < block["chance"] <= 0.5  # two choices at least
    assert m["chance"] == pytest.approx(sum(1 / len(s.input["choices"]) for s in samples) / 40)


def test_balanced_ids_even_out_each_dimension() -> None:
    items = [(f"q{i}", {"a": str(i % 3), "b": "x" if i < 50 else "y"}) for i in range(60)]
    ids = balanced_ids(items, 12, ("a", "b"))
    labels = dict(items)
    assert len(ids) == 12
    assert Counter(labels[i]["a"] for i in ids) == {"0": 4, "1": 4, "2": 4}
    assert Counter(labels[i]["b"] for i in ids) == {"x": 6, "y": 6}  # not the first 12, which are all x
    assert balanced_ids(items, 12, ("a", "b")) == ids  # deterministic


def test_the_quick_hitom_preset_is_balanced_one_dimension_at_a_time() -> None:
    bench = HiToMBenchmark()
    entry = preset_entry("quick", "hitom")
    samples = bench.samples(entry.n, 0, validate_options(bench, dict(entry.options)))
    assert len(samples) == 20
    counts = {d: Counter(str(s.input[d]) for s in samples) for d in HITOM_DIMENSIONS}
    assert sorted(counts["question_order"].values()) == [4] * 5
    assert counts["deception"] == {"False": 10, "True": 10}
    assert counts["prompting_type"] == {"CoTP": 10, "VP": 10}
    everywhere = Counter(str(s.input["length"]) for s in tom_samples("hitom", None, 0, None))
    assert (
        set(counts["length"]) == set(everywhere)
        and max(counts["length"].values()) - min(counts["length"].values()) <= 1
    )
    first = bench.samples(20, 0, validate_options(bench, {}))  # what the preset used to run: the easiest slice
    assert {str(s.input["deception"]) for s in first} == {"False"} and {s.input["length"] for s in first} == {1}

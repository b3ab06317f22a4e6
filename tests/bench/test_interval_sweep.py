"""Every registered benchmark's intervals at n = 1, 3, 5, 10 and 20: one rule per metric kind, the same at every n.

Each benchmark runs once, in this process, as its declaration's small run (``tests/support/small_runs.py``) with
``--n 20`` (a released excerpt with fewer samples runs whole); its intervals are then recomputed, as a run of that
many samples would compute them, over its first 1, 3, 5, 10 and 20 finished records. At every n, every leaf of
``intervals.metrics`` has ``low``, ``high``, ``n`` and ``method``; a proportion's interval is the exact one at
any n, and a bootstrap rests on at least 10 samples and does not collapse; ``n`` is what the declaration counts
(a declared metric: the samples it averages, counted here from the per-sample scores) or, for a number
``summarize`` adds, its summary row's ``n``; and every float of the summary either has an interval or is listed
in ``intervals.none`` with a reason, never both.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from cli_run import Cli
from small_runs import small_argv

from mindloop.bench.inference import MIN_N
from mindloop.bench.registry import BENCHMARKS, get_benchmark
from mindloop.bench.runner import as_scored, benchmark_metrics, metric_intervals
from mindloop.bench.store import RunStore
from mindloop.paths import runs_path

SIZES = (1, 3, 5, 10, 20)
METHODS = {"exact Clopper-Pearson", "percentile bootstrap"}


def _argv(name: str, folder: Path) -> list[str]:
    argv = small_argv(name, folder)
    if "--n" in argv:
        argv[argv.index("--n") + 1] = str(max(SIZES))
    else:
        argv += ["--n", str(max(SIZES))]
    return [*argv, "--json"]


def _leaves(tree: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], Mapping[str, Any]]:
    """The interval leaves (dicts with ``low``) of ``intervals.metrics`` by path."""
    out: dict[tuple[str, ...], Mapping[str, Any]] = {}
    for key, value in tree.items():
        if isinstance(value, Mapping) and "low" in value:
            out[(*prefix, key)] = value
        elif isinstance(value, Mapping):
            out.update(_leaves(value, (*prefix, key)))
    return out


def _floats(tree: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    out: set[tuple[str, ...]] = set()
    for key, value in tree.items():
        if isinstance(value, Mapping):
            out |= _floats(value, (*prefix, str(key)))
        elif isinstance(value, float) and math.isfinite(value):
            out.add((*prefix, str(key)))
    return out


def _counted(bench: Any, records: list[Any]) -> dict[tuple[str, ...], int]:
    """How many samples each declared leaf averages, counted from the per-sample values the metric keeps."""
    out: dict[tuple[str, ...], int] = {}
    for metric in bench.spec.metrics:
        values = metric.per_sample(records)
        out[metric.path] = sum(v is not None for v in values)
        for grouping in metric.groupings:
            labels = [grouping.label(r.sample) for r in records]
            for label in {x for x in labels if x is not None}:
                n = sum(v is not None and x == label for v, x in zip(values, labels, strict=True))
                out[(grouping.key, label, metric.name)] = n
    return out


def _row_n(metrics: Mapping[str, Any], path: tuple[str, ...], whole: int) -> int:
    """The ``n`` a summary states for the row holding ``path`` (the deepest on the path), else ``whole``."""
    found, node = whole, metrics
    for key in path[:-1]:
        if isinstance(node.get("n"), int):
            found = node["n"]
        node = node.get(key) or {}
    return node["n"] if isinstance(node.get("n"), int) else found


def _check(name: str, n: int, metrics: Mapping[str, Any], intervals: Mapping[str, Any], counted: Any) -> None:
    where = f"{name} at n={n}"
    leaves = _leaves(intervals["metrics"])
    none = intervals.get("none", {})
    for path, leaf in leaves.items():
        at = f"{where}: {'.'.join(path)} {leaf}"
        assert {"low", "high", "n", "method"} <= set(leaf), at
        assert leaf["method"] in METHODS, at
        assert 1 <= leaf["n"] <= n and leaf["low"] <= leaf["high"], at
        if path in counted:  # a declared metric: the samples it averages
            assert leaf["n"] == counted[path], at
        else:  # a number summarize adds: its row's n
            assert leaf["n"] == min(_row_n(metrics, path, n), n), at
        if leaf["method"] == "percentile bootstrap":
            assert leaf["n"] >= MIN_N, at  # no bootstrap below the stated minimum
            assert leaf["high"] - leaf["low"] >= 1e-6, at  # no collapsed interval
        else:
            value = metrics
            for key in path:
                value = value[key]
            assert leaf["low"] <= value <= leaf["high"], at  # an exact interval holds its estimate
        assert ".".join(path) not in none, at
    shown = {".".join(p) for p in leaves}
    for path in _floats(metrics):
        dotted = ".".join(path)
        assert (dotted in shown) != (dotted in none), f"{where}: {dotted} is in neither or both"
    assert all(isinstance(why, str) and why for why in none.values()), where


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_leaf_of_every_benchmark_at_every_n(name: str, cli: Cli, tmp_path: Path) -> None:
    run = cli(*_argv(name, tmp_path), home=tmp_path / "home")
    assert run.code == 0, run.stderr
    out = json.loads(run.out)
    bench = get_benchmark(name)
    with RunStore(runs_path(), readonly=True) as store:
        records = [r for r in store.records(out["run_id"]) if r.status != "pending"]
    _check(name, len(records), out["metrics"], out["intervals"], _counted(bench, as_scored(records)))
    for n in SIZES:
        if n > len(records):
            continue
        part = records[:n]
        metrics = benchmark_metrics(bench, part)
        _check(name, n, metrics, metric_intervals(bench, part, metrics), _counted(bench, as_scored(part)))

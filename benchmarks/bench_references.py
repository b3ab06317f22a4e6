"""Each benchmark's reference policies on its default split: chance, the best trivial policy and the oracle (issue 22).

For every registered benchmark it draws the default samples (``--seed``, the default options, the whole default
split unless ``--n`` caps it), scores each declared reference policy on them with no model, and prints one
Markdown table row: the headline and its direction, ``n``, chance, the best trivial policy (the best of the
constant and trivial policies, by the headline's direction, with its name; "optimistic" when fitted on the
evaluated items) and the oracle, then the time it took. The released ToM sets ship no default split: they are
scored on the excerpts under ``tests/tom/data`` (marked "excerpt"), or on a file given as ``--data NAME=PATH``.

    .venv/bin/python benchmarks/bench_references.py [--n N] [--seed 0] [--only tomi claw] [--data fantom=PATH]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from mindloop.bench.headline import reference_marks
from mindloop.bench.options import validate_options
from mindloop.bench.registry import BENCHMARKS, get_benchmark

EXCERPTS = Path(__file__).resolve().parents[1] / "tests"


def excerpt(name: str) -> Path | None:
    """The test excerpt a released set's declaration names (``spec.small.data``), found under ``tests/*/data/``."""
    data = get_benchmark(name).spec.small.data
    found = sorted(EXCERPTS.glob(f"*/data/{data}")) if data else []
    return found[0] if found else None


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{value:.4g}"


def row(name: str, n: int | None, seed: int, data: str | None) -> tuple[list[str], float]:
    """The table row of one benchmark and the seconds its policies took."""
    bench = get_benchmark(name)
    options: dict[str, Any] = {}
    split = "default"
    if bench.spec.small.data is not None:  # a released set: mindloop ships no split of it
        options["data"] = data or str(excerpt(name))
        split = "given file" if data else "excerpt"
    samples = bench.samples(n, seed, validate_options(bench, options))
    head = bench.spec.headline
    start = time.perf_counter()
    values = {p.name: p.value(samples) for p in bench.spec.references}
    seconds = time.perf_counter() - start
    policies = [p.to_json() for p in bench.spec.references]
    higher = head.higher_is_better if head else True
    marks = {m.label: m for m in reference_marks(values, policies, higher)}
    extra = [m for label, m in marks.items() if label not in ("chance", "best trivial", "oracle")]
    best = marks.get("best trivial")
    best_cell = "–"
    if best is not None:
        tags = [best.name] + (["optimistic"] if best.optimistic else [])
        best_cell = f"{_cell(best.value)} [{', '.join(tags)}]"
    oracle = marks.get("oracle")
    oracle_cell = _cell(oracle.value) if oracle else "–"
    if extra:  # a kind with several policies is shown under each policy's own name
        oracle_cell += "".join(f"; {m.name} {_cell(m.value)}" for m in extra)
    chance = marks.get("chance")
    metric = "–" if head is None else f"{head.metric} ({'↑' if higher else '↓'})"
    cells = [name, metric, f"{len(samples)} ({split})", _cell(chance.value) if chance else "–", best_cell, oracle_cell]
    return cells, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=None, help="cap every benchmark at N samples (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="*", default=None, help="these benchmarks only")
    parser.add_argument("--data", action="append", default=[], help="NAME=PATH: a released set's file")
    args = parser.parse_args()
    data = dict(item.split("=", 1) for item in args.data)
    names = args.only or BENCHMARKS.names()
    print("| benchmark | headline | n | chance | best trivial [policy] | oracle | seconds |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        if not get_benchmark(name).spec.references:
            print(f"| {name} | (no reference policies declared) | | | | | |")
            continue
        cells, seconds = row(name, args.n, args.seed, data.get(name))
        print("| " + " | ".join([*cells, f"{seconds:.1f}"]) + " |", flush=True)


if __name__ == "__main__":
    main()

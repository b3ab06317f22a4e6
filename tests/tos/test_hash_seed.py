"""The same command gives the same numbers whatever the process's string-hash seed.

Sets of names iterate in an order that follows ``PYTHONHASHSEED``, so an explorer that walks one to pick its next
step (or a solver that pops one) can act differently from one process to the next. The hash seed is fixed per
process, hence real subprocesses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.store import RunStore


def _cli(args: list[str], home: Path, hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "MINDLOOP_HOME": str(home)}
    proc = subprocess.run(
        [sys.executable, "-m", "mindloop.cli", *args], env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _sample_outputs(bench: str, home: Path, hash_seed: str) -> list[tuple[Any, Any]]:
    """Each sample's output and scores of the symbolic small run of ``bench`` under ``hash_seed``."""
    summary = _cli(["bench", "run", bench, "--agent", "symbolic", "--n", "3", "--seed", "0", "--json"], home, hash_seed)
    with RunStore(home / "runs.sqlite", readonly=True) as store:  # reading the store needs no hash seed of its own
        records = store.records(json.loads(summary)["run_id"])
    assert len(records) == 3
    return [(r.output, r.scores) for r in records]


@pytest.mark.boundary  # string-hash seeds are per process
@pytest.mark.parametrize("bench", ["tos-active", "tos-passive"])
def test_symbolic_tos_run_is_stable_across_hash_seeds(bench: str, tmp_path: Path) -> None:
    one = _sample_outputs(bench, tmp_path / "one", "1")
    two = _sample_outputs(bench, tmp_path / "two", "2")
    for i, (a, b) in enumerate(zip(one, two, strict=True)):
        assert a == b, f"sample {i} differs between PYTHONHASHSEED=1 and 2"

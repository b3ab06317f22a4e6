"""OpenToM's numbers and descriptions are the same whatever the process's string-hash seed.

Sets of labels and of (split, story) pairs iterate in an order that follows ``PYTHONHASHSEED``: a sum over one can
differ in its last bit, and a count built from one lists its keys in another order, from one process to the next.
The hash seed is fixed per process, hence real subprocesses.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mindloop.systems.tom.opentom import label_f1

OPENTOM = Path(__file__).parent / "data" / "opentom"


def _describe(hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    args = [sys.executable, "-m", "mindloop.cli", "data", "describe", "opentom", str(OPENTOM), "--json"]
    proc = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.boundary  # string-hash seeds are per process
def test_describe_opentom_is_the_same_under_every_hash_seed() -> None:
    # seeds 0 and 3 listed the excerpt's stories as {"normal": 3, "long": 1} and {"long": 1, "normal": 3}
    assert _describe("0") == _describe("3")


def test_label_f1_lists_labels_in_the_order_the_entries_give_them() -> None:
    # a correct "z", then "x" read as "y": z comes first (a hit), then y (predicted), then x (gold)
    f1 = label_f1([("z", "z", 1.0), ("x", "y", 1.0)])
    assert list(f1) == ["z", "y", "x"]
    assert f1 == {"z": (1.0, 1.0), "y": (0.0, 0.0), "x": (0.0, 1.0)}

"""What depends on what is installed, run on both installs (``scripts/test.sh`` runs the tests marked ``install``
again on the core + dev install): every module imports, every registered benchmark runs its declared small run,
and the demo plays, so an import of an optional extra that is not guarded is caught where the extra is missing."""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path

import pytest
from cli_run import Cli
from small_runs import small_argv

import mindloop
from mindloop.bench.registry import BENCHMARKS

pytestmark = pytest.mark.install


def test_every_module_imports() -> None:
    modules = pkgutil.walk_packages(mindloop.__path__, "mindloop.")
    names = [m.name for m in modules if not m.name.endswith(".__main__")]  # those run the command line
    assert "mindloop.bench.executors" in names and len(names) > 100
    failed = {}
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            failed[name] = str(exc)
    assert not failed, failed


@pytest.mark.parametrize("name", BENCHMARKS.names())
def test_every_benchmark_runs_its_small_run(name: str, tmp_path: Path, cli: Cli) -> None:
    run = cli(*small_argv(name, tmp_path), "--json")
    assert run.code == 0, run.err
    summary = json.loads(run.out)
    assert summary["n_completed"] == summary["n"] > 0 and summary["n_bugs"] == 0


def test_the_demo_plays(cli: Cli) -> None:
    run = cli("demo")
    assert run.code == 0, run.err
    assert run.out.strip()

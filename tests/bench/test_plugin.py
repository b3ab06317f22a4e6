"""A benchmark from a separate, installed package appears in ``mindloop bench list``, runs, joins suites, reports
and compares, with no edit to mindloop: the package is exactly the multiple-choice example of
docs/architecture.md, declared under the ``mindloop.benchmarks`` entry-point group. Installed again with its
metric changed, the runs made before still report what they reported (the run store keeps each run's summary
with the definitions that produced it)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
PACKAGE = re.search(r"```python\n(# mybench/__init__\.py.*?)```", DOC, re.DOTALL).group(1)  # type: ignore[union-attr]
ENTRY = re.search(r"```toml\n# pyproject.toml of your package\n(.*?)```", DOC, re.DOTALL).group(1)  # type: ignore[union-attr]

PYPROJECT = """
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "mybench"
version = "{version}"

{entry}
[tool.setuptools]
packages = ["mybench"]
"""

CHANGED = ('Metric("accuracy", "correct",', 'Metric("accuracy", "correct", scale=100,')
"""The second install's change: accuracy in percent."""


def test_the_example_is_one_module_of_at_most_60_lines() -> None:
    assert len(PACKAGE.splitlines()) <= 60
    assert ENTRY.strip() == '[project.entry-points."mindloop.benchmarks"]\nquiz = "mybench:QuizBenchmark"'
    assert CHANGED[0] in PACKAGE


def _install(root: Path, source: str, version: str) -> Path:
    """The package built and installed with pip into its own directory (offline: no index, no build isolation)."""
    src = root / f"src-{version}"
    (src / "mybench").mkdir(parents=True)
    (src / "mybench" / "__init__.py").write_text(source)
    (src / "pyproject.toml").write_text(PYPROJECT.format(version=version, entry=ENTRY))
    target = root / f"site-{version}"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            "--target",
            str(target),
            str(src),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert any(p.name.startswith(f"mybench-{version}") for p in target.glob("*.dist-info"))
    return target


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("setuptools", reason="building the plug-in needs setuptools in the test environment")
    return _install(tmp_path_factory.mktemp("plugin"), PACKAGE, "0.0.1")


@pytest.fixture(scope="module")
def changed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same package, a later version whose accuracy is a percentage."""
    pytest.importorskip("setuptools", reason="building the plug-in needs setuptools in the test environment")
    return _install(tmp_path_factory.mktemp("plugin2"), PACKAGE.replace(*CHANGED), "0.0.2")


def _mindloop(site: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "MINDLOOP_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "mindloop.cli", *args], capture_output=True, text=True, env=env, check=False
    )


def _json(proc: subprocess.CompletedProcess[str]) -> dict:  # type: ignore[type-arg]
    assert proc.returncode == 0, proc.stderr
    out: dict = json.loads(proc.stdout)  # type: ignore[type-arg]
    return out


def test_an_installed_plugin_is_listed_with_its_options_and_agents(site: Path, tmp_path: Path) -> None:
    listed = {b["name"]: b for b in _json(_mindloop(site, tmp_path, "bench", "list", "--json"))["benchmarks"]}
    assert "quiz" in listed and "hitom" in listed  # beside mindloop's own
    quiz = listed["quiz"]
    assert quiz["agents"] == ["oracle", "model"] and quiz["options"]["properties"]["size"]["default"] == 6
    assert quiz["headline"] == {"metric": "accuracy", "higher_is_better": True}
    assert [(m["name"], m["score"], m["kind"]) for m in quiz["metrics"]] == [("accuracy", "correct", "proportion")]
    assert quiz["references"] == ["chance", "oracle"]
    proc = _mindloop(site, tmp_path, "bench", "run", "quiz", "--help-options")
    assert proc.returncode == 0 and "size" in proc.stdout + proc.stderr


def test_an_installed_plugin_runs_with_its_declared_metrics_and_validates_options(site: Path, tmp_path: Path) -> None:
    out = _json(_mindloop(site, tmp_path, "bench", "run", "quiz", "--json"))
    assert (out["benchmark"], out["n"], out["n_failed"], out["metrics"]["accuracy"]) == ("quiz", 6, 0, 1.0)
    kinds = out["metrics"]["by_kind"]
    assert set(kinds) <= {"carry", "no carry"} and sum(row["n"] for row in kinds.values()) == 6
    iv = out["intervals"]["metrics"]["accuracy"]
    assert iv["mean_of"] == "correct" and iv["se"] == 0.0  # declared: drawn from the per-sample score
    assert out["summary_source"]["computed_by"] == "run"
    # each sum offers 3 or 4 distinct choices: chance is the mean of 1/3s and 1/4s; the oracle answers every one
    assert 0.25 <= out["references"]["chance"] <= 1 / 3 and out["references"]["oracle"] == 1.0
    proc = _mindloop(site, tmp_path, "bench", "run", "quiz", "--opt", "size=0")
    assert proc.returncode == 1 and "size" in proc.stderr and proc.stderr.count("\n") == 1


def test_it_joins_suites_and_compares_and_old_runs_keep_their_numbers(
    site: Path, changed: Path, tmp_path: Path
) -> None:
    oracle = _json(_mindloop(site, tmp_path, "bench", "run", "quiz", "--n", "4", "--json"))
    # scripted/echo replies with the prompt itself, which starts with no choice letter: every answer is wrong
    echo = _json(_mindloop(site, tmp_path, "bench", "run", "quiz", "--n", "4", "--model", "scripted/echo", "--json"))
    assert (oracle["metrics"]["accuracy"], echo["metrics"]["accuracy"]) == (1.0, 0.0)
    suite = _json(_mindloop(site, tmp_path, "suite", "run", "--only", "quiz", "--json"))
    assert suite["complete"] and [r["n"] for r in suite["runs"]] == [4]  # its declared quick preset
    report = _json(_mindloop(site, tmp_path, "suite", "report", suite["suite_id"], "--json"))
    assert report["runs"][0]["headline"]["metric"] == "accuracy" and report["runs"][0]["headline"]["value"] == 1.0
    compared = _json(_mindloop(site, tmp_path, "compare", oracle["run_id"], echo["run_id"], "--json"))
    test = compared["comparisons"][0]["differences"][0]["scores"]["correct"]
    # McNemar exact: 4 discordant pairs all one way, p = 2 * P(X <= 0), X ~ Binomial(4, 1/2) = 2/16
    assert (test["test"], test["baseline_only"], test["run_only"], test["p"]) == ("McNemar exact", 4, 0, 0.125)

    # the metric changes (accuracy in percent): new runs use it, the old ones report what they reported
    later = _json(_mindloop(changed, tmp_path, "bench", "run", "quiz", "--n", "4", "--json"))
    assert later["metrics"]["accuracy"] == 100.0
    runs = {r["run_id"]: r for r in _json(_mindloop(changed, tmp_path, "runs", "--json"))["runs"]}
    assert runs[oracle["run_id"]]["headline"]["value"] == 1.0 and runs[echo["run_id"]]["headline"]["value"] == 0.0
    assert runs[later["run_id"]]["headline"]["value"] == 100.0
    compared = _json(_mindloop(changed, tmp_path, "compare", oracle["run_id"], echo["run_id"], "--json"))
    assert [r["metrics"]["accuracy"] for r in compared["comparisons"][0]["runs"]] == [1.0, 0.0]
    page = tmp_path / "old.html"
    proc = _mindloop(changed, tmp_path, "report", oracle["run_id"], "--out", str(page))
    assert proc.returncode == 0, proc.stderr
    text = page.read_text(encoding="utf-8")
    assert "Metrics as the run reported them, by mindloop" in text
    assert 'data-col="accuracy" data-value="1.0"' in text and 'data-value="100.0"' not in text


def test_without_the_plugin_the_name_is_unknown(tmp_path: Path) -> None:
    proc = _mindloop(tmp_path, tmp_path, "bench", "run", "quiz")
    assert proc.returncode == 1 and "unknown benchmark 'quiz'" in proc.stderr

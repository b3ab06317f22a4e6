"""A benchmark from a separate, installed package appears in ``mindloop bench list``, runs, joins suites, reports
and compares, with no edit to mindloop: the package is exactly the multiple-choice example of
docs/architecture.md, declared under the ``mindloop.benchmarks`` entry-point group. Installed again with its
metric changed, the runs made before still report what they reported (the run store keeps each run's summary
with the definitions that produced it)."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cli_run import Cli, CliRun

pytestmark = pytest.mark.xdist_group("plugin")  # one worker installs the package, once a version

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


@pytest.fixture
def mindloop(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., CliRun]]:
    """``mindloop(site, *args)``: ``mindloop *args`` in this process as it runs with ``site`` on ``PYTHONPATH``.

    The package is installed by pip in a process of its own (``site``, ``changed``); the commands run here, each
    time as a fresh process would find things when ``site`` differs from the last one: the entry points read again
    from ``sys.path``, no benchmark loaded or checked yet, no ``mybench`` imported."""
    from mindloop.bench import registry

    path = list(sys.path)
    current: list[Path] = []

    def forget_the_plugin() -> None:
        for name in [m for m in sys.modules if m == "mybench" or m.startswith("mybench.")]:
            del sys.modules[name]

    def run(site: Path, *args: str) -> CliRun:
        if current != [site]:
            forget_the_plugin()
            monkeypatch.setattr(sys, "path", [str(site), *path])
            importlib.invalidate_caches()
            monkeypatch.setattr(registry.BENCHMARKS, "_entries", {})
            monkeypatch.setattr(registry.BENCHMARKS, "_loaded", {})
            monkeypatch.setattr(registry.BENCHMARKS, "_scanned", False)
            monkeypatch.setattr(registry, "_CHECKED", set())
            current[:] = [site]
        return cli(*args)

    yield run
    forget_the_plugin()


def _json(proc: CliRun) -> dict:  # type: ignore[type-arg]
    assert proc.code == 0, proc.stderr
    out: dict = json.loads(proc.out)  # type: ignore[type-arg]
    return out


@pytest.mark.boundary  # the package installed by pip
def test_an_installed_plugin_is_listed_with_its_options_and_agents(site: Path, mindloop: Callable[..., CliRun]) -> None:
    listed = {b["name"]: b for b in _json(mindloop(site, "bench", "list", "--json"))["benchmarks"]}
    assert "quiz" in listed and "hitom" in listed  # beside mindloop's own
    quiz = listed["quiz"]
    assert quiz["agents"] == ["oracle", "model"] and quiz["options"]["properties"]["size"]["default"] == 6
    assert quiz["headline"] == {"metric": "accuracy", "higher_is_better": True}
    assert [(m["name"], m["score"], m["kind"]) for m in quiz["metrics"]] == [("accuracy", "correct", "proportion")]
    assert quiz["references"] == ["chance", "oracle"]
    proc = mindloop(site, "bench", "run", "quiz", "--help-options")
    assert proc.code == 0 and "size" in proc.out + proc.stderr


@pytest.mark.boundary  # the package installed by pip
def test_an_installed_plugin_runs_with_its_declared_metrics_and_validates_options(
    site: Path, mindloop: Callable[..., CliRun]
) -> None:
    out = _json(mindloop(site, "bench", "run", "quiz", "--json"))
    assert (out["benchmark"], out["n"], out["n_failed"], out["metrics"]["accuracy"]) == ("quiz", 6, 0, 1.0)
    kinds = out["metrics"]["by_kind"]
    assert set(kinds) <= {"carry", "no carry"} and sum(row["n"] for row in kinds.values()) == 6
    iv = out["intervals"]["metrics"]["accuracy"]
    assert iv["mean_of"] == "correct" and iv["se"] == 0.0  # declared: drawn from the per-sample score
    assert out["summary_source"]["computed_by"] == "run"
    # each sum offers 3 or 4 distinct choices: chance is the mean of 1/3s and 1/4s; the oracle answers every one
    assert 0.25 <= out["references"]["chance"] <= 1 / 3 and out["references"]["oracle"] == 1.0
    proc = mindloop(site, "bench", "run", "quiz", "--opt", "size=0")
    assert proc.code == 1 and "size" in proc.stderr and len(proc.err) == 1


@pytest.mark.boundary  # the package installed by pip
def test_it_joins_suites_and_compares_and_old_runs_keep_their_numbers(
    site: Path, changed: Path, mindloop: Callable[..., CliRun], tmp_path: Path
) -> None:
    oracle = _json(mindloop(site, "bench", "run", "quiz", "--n", "4", "--json"))
    # scripted/echo replies with the prompt itself, which starts with no choice letter: every answer is wrong
    echo = _json(mindloop(site, "bench", "run", "quiz", "--n", "4", "--model", "scripted/echo", "--json"))
    assert (oracle["metrics"]["accuracy"], echo["metrics"]["accuracy"]) == (1.0, 0.0)
    suite = _json(mindloop(site, "suite", "run", "--only", "quiz", "--json"))
    assert suite["complete"] and [r["n"] for r in suite["runs"]] == [4]  # its declared quick preset
    report = _json(mindloop(site, "suite", "report", suite["suite_id"], "--json"))
    assert report["runs"][0]["headline"]["metric"] == "accuracy" and report["runs"][0]["headline"]["value"] == 1.0
    compared = _json(mindloop(site, "compare", oracle["run_id"], echo["run_id"], "--json"))
    test = compared["comparisons"][0]["differences"][0]["scores"]["correct"]
    # McNemar exact: 4 discordant pairs all one way, p = 2 * P(X <= 0), X ~ Binomial(4, 1/2) = 2/16
    assert (test["test"], test["baseline_only"], test["run_only"], test["p"]) == ("McNemar exact", 4, 0, 0.125)

    # the metric changes (accuracy in percent): new runs use it, the old ones report what they reported
    later = _json(mindloop(changed, "bench", "run", "quiz", "--n", "4", "--json"))
    assert later["metrics"]["accuracy"] == 100.0
    runs = {r["run_id"]: r for r in _json(mindloop(changed, "runs", "--json"))["runs"]}
    assert runs[oracle["run_id"]]["headline"]["value"] == 1.0 and runs[echo["run_id"]]["headline"]["value"] == 0.0
    assert runs[later["run_id"]]["headline"]["value"] == 100.0
    compared = _json(mindloop(changed, "compare", oracle["run_id"], echo["run_id"], "--json"))
    assert [r["metrics"]["accuracy"] for r in compared["comparisons"][0]["runs"]] == [1.0, 0.0]
    page = tmp_path / "old.html"
    proc = mindloop(changed, "report", oracle["run_id"], "--out", str(page))
    assert proc.code == 0, proc.stderr
    text = page.read_text(encoding="utf-8")
    assert "Metrics as the run reported them, by mindloop" in text
    assert 'data-col="accuracy" data-value="1.0"' in text and 'data-value="100.0"' not in text


def test_without_the_plugin_the_name_is_unknown(cli: Cli) -> None:
    proc = cli("bench", "run", "quiz")
    assert proc.code == 1 and "unknown benchmark 'quiz'" in proc.stderr


OLD_CONTRACT = """
from mindloop.bench import AgentSpec, BenchmarkSpec, Headline, Metric, Options, Outcome, Sample
from mindloop.bench.agents import dispatch


async def oracle(sample, ctx):  # an agent answers and scores one sample (the contract before the scorer)
    return Outcome({"answer": sample.input["answer"]}, {"correct": 1.0})


async def guess(sample, ctx):
    picked = sample.input["choices"][0]
    return Outcome({"answer": picked}, {"correct": float(picked == sample.input["answer"])})


class OldQuizBenchmark:
    name = "oldquiz"
    description = "multiple-choice sums, written to the contract before the target/scorer split"
    options_model = Options
    agents = {"oracle": AgentSpec("knows the sum", oracle), "guess": AgentSpec("picks the first choice", guess)}
    spec = BenchmarkSpec(headline=Headline("accuracy"), metrics=(Metric("accuracy", "correct"),))

    def samples(self, n, seed, options):
        return [Sample(f"q{i}", {"choices": [str(i), str(i + 1)], "answer": str(i + i % 2)}) for i in range(n or 4)]

    async def run(self, sample, ctx):
        return await dispatch(self, sample, ctx)

    def summarize(self, records):
        return {}
"""
"""A plug-in benchmark as the docs showed it before samples carried their target: its own ``run``, no scorer."""


def test_a_plugin_written_to_the_old_contract_runs_and_says_once_it_is_deprecated(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    import types

    from mindloop.bench import registry

    module = types.ModuleType("oldquiz")
    exec(compile(OLD_CONTRACT, "oldquiz.py", "exec"), module.__dict__)
    registry.BENCHMARKS.names()  # read the entry points before the registry's tables are swapped for copies
    monkeypatch.setattr(registry.BENCHMARKS, "_entries", dict(registry.BENCHMARKS._entries))
    monkeypatch.setattr(registry.BENCHMARKS, "_loaded", dict(registry.BENCHMARKS._loaded))
    monkeypatch.setattr(registry, "_CHECKED", set(registry._CHECKED))
    registry.BENCHMARKS.register("oldquiz", module.OldQuizBenchmark, description="registered by a test")
    first = cli("bench", "run", "oldquiz", "--json")
    # the oracle's own scores are kept: it answers every sum
    assert _json(first)["metrics"]["accuracy"] == 1.0
    assert sum("'oldquiz' defines its own run(sample, ctx)" in line and "deprecated" in line for line in first.err) == 1
    # the guess answers the first choice, right on the even sums (answer i) and wrong on the odd ones (answer i + 1)
    second = cli("bench", "run", "oldquiz", "--agent", "guess", "--json")
    assert _json(second)["metrics"]["accuracy"] == 0.5
    assert not any("deprecated" in line for line in second.err)  # once per process

"""A benchmark from a separate, installed package appears in ``mindloop bench list`` and runs, with no edit to
mindloop: the package declares it under the ``mindloop.benchmarks`` entry-point group (docs/architecture.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PACKAGE = '''
"""A third party's benchmark: say the word back."""
from pydantic import Field

from mindloop.bench.agents import dispatch
from mindloop.bench.api import AgentSpec, Options, Outcome, Sample


class EchoOptions(Options):
    word: str = Field("hello", min_length=1, description="the word every sample asks for")
    repeat: int = Field(3, ge=1, le=100, description="samples when --n is not given")


async def _parrot(sample, ctx):
    return Outcome({"answer": sample.input["word"]}, {"correct": 1.0})


async def _mute(sample, ctx):
    return Outcome({"answer": ""}, {"correct": 0.0})


class EchoBenchmark:
    name = "echo"
    description = "say the word back (a plug-in)"
    options_model = EchoOptions
    agents = {"parrot": AgentSpec("repeats the word", _parrot), "mute": AgentSpec("says nothing", _mute)}

    def samples(self, n, seed, options):
        return [Sample(f"s{i}", {"word": options.word}) for i in range(options.repeat if n is None else n)]

    async def run(self, sample, ctx):
        return await dispatch(self, sample, ctx)

    def summarize(self, records):
        return {"accuracy": sum(r.scores.get("correct", 0.0) for r in records) / len(records), "n": len(records)}
'''

PYPROJECT = """
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "mindloop-echo"
version = "0.0.1"

[project.entry-points."mindloop.benchmarks"]
echo = "mindloop_echo:EchoBenchmark"

[tool.setuptools]
packages = ["mindloop_echo"]
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plug-in built and installed with pip into its own directory (offline: no index, no build isolation)."""
    pytest.importorskip("setuptools", reason="building the plug-in needs setuptools in the test environment")
    root = tmp_path_factory.mktemp("plugin")
    src = root / "src"
    (src / "mindloop_echo").mkdir(parents=True)
    (src / "mindloop_echo" / "__init__.py").write_text(textwrap.dedent(PACKAGE))
    (src / "pyproject.toml").write_text(PYPROJECT)
    target = root / "site"
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
    assert any(p.name.startswith("mindloop_echo-0.0.1") for p in target.glob("*.dist-info"))
    return target


def _mindloop(site: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "MINDLOOP_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "mindloop.cli", *args], capture_output=True, text=True, env=env, check=False
    )


def test_an_installed_plugin_is_listed_with_its_options_and_agents(site: Path, tmp_path: Path) -> None:
    proc = _mindloop(site, tmp_path, "bench", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    listed = {b["name"]: b for b in json.loads(proc.stdout)["benchmarks"]}
    assert "echo" in listed and "hitom" in listed  # beside mindloop's own
    echo = listed["echo"]
    assert echo["agents"] == ["parrot", "mute"]
    assert json.dumps(echo).count('"hello"') >= 1  # the option schema with its default
    proc = _mindloop(site, tmp_path, "bench", "run", "echo", "--help-options")
    assert proc.returncode == 0 and "word" in proc.stdout + proc.stderr and "repeat" in proc.stdout + proc.stderr


def test_an_installed_plugin_runs_resumes_and_validates_options(site: Path, tmp_path: Path) -> None:
    proc = _mindloop(site, tmp_path, "bench", "run", "echo", "--agent", "parrot", "--opt", "word=hi", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["benchmark"], out["n"], out["n_failed"], out["metrics"]["accuracy"]) == ("echo", 3, 0, 1.0)
    proc = _mindloop(site, tmp_path, "bench", "run", "echo", "--agent", "mute", "--n", "2", "--json")
    assert json.loads(proc.stdout)["metrics"]["accuracy"] == 0.0
    proc = _mindloop(site, tmp_path, "bench", "run", "echo", "--opt", "repeat=0")
    assert proc.returncode == 1 and "repeat" in proc.stderr and proc.stderr.count("\n") == 1
    proc = _mindloop(site, tmp_path, "runs", "--json")
    assert [r["benchmark"] for r in json.loads(proc.stdout)["runs"]] == ["echo", "echo"]


def test_without_the_plugin_the_name_is_unknown(tmp_path: Path) -> None:
    proc = _mindloop(tmp_path, tmp_path, "bench", "run", "echo")
    assert proc.returncode == 1 and "unknown benchmark 'echo'" in proc.stderr

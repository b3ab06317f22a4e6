"""Every benchmark is one declaration: the core holds no table keyed by a benchmark's name, every registered
benchmark passes ``check_benchmark``, and a bad declaration or a broken benchmark is refused with its reason."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import Field
from small_runs import small_options

import mindloop
from mindloop.bench import BENCHMARKS, get_benchmark
from mindloop.bench.agents import dispatch
from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.bench.declaration import (
    BenchmarkSpec,
    Column,
    Generation,
    Grouping,
    Headline,
    Metric,
    PaperTable,
    PresetEntry,
    Row,
    Suite,
    chance_policy,
    oracle_policy,
)
from mindloop.errors import RegistryError

SRC = Path(__file__).resolve().parents[2] / "src" / "mindloop"


def _names() -> set[str]:
    names = set(BENCHMARKS.names())
    for name in list(names):
        names |= set(get_benchmark(name).spec.aliases)
    return names


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (a module's, a class's, a function's, an attribute's)."""
    out = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for stmt in body:
                if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                    out.add(id(stmt.value))
    return out


def test_no_core_module_names_a_benchmark() -> None:
    """No string in the core's code (docstrings aside) is a registered benchmark's name or alias, so no table in
    ``bench/`` or ``cli/`` can be keyed by one; the smoke benchmark's own module names only itself."""
    names = _names()
    assert {"tomi", "cwah", "mindclaw", "smoke"} <= names
    found = []
    for folder in ("bench", "cli"):
        for path in sorted((SRC / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            docs = _docstrings(tree)
            for node in ast.walk(tree):
                named = isinstance(node, ast.Constant) and node.value in names and id(node) not in docs
                if named and not (path.name == "smoke.py" and node.value == "smoke"):
                    found.append(f"{path.relative_to(SRC)}:{node.lineno}: {node.value!r}")
    assert not found, found


@pytest.mark.parametrize("name", BENCHMARKS.names())
def test_every_registered_benchmark_passes_the_checker(name: str) -> None:
    bench = get_benchmark(name)
    mindloop.check_benchmark(bench, n=2, seed=3, options=small_options(name))
    assert isinstance(bench.spec, BenchmarkSpec) and bench.spec.headline is not None


# -- the checker refuses what breaks the contract -------------------------------------------------------------------


class _Opts(Options):
    size: int = Field(2, ge=1, le=4, description="how many")


async def _right(sample: Sample, ctx: AgentContext) -> Outcome:
    return Outcome({"answer": sample.input["gold"]}, {"correct": 1.0})


class _Good:
    name = "good"
    description = "a well-formed benchmark"
    options_model = _Opts
    agents: ClassVar[dict[str, AgentSpec]] = {"oracle": AgentSpec("answers right", _right)}
    spec = BenchmarkSpec(headline=Headline("accuracy"), metrics=(Metric("accuracy", "correct"),))

    def samples(self, n: int | None, seed: int, options: _Opts) -> list[Sample]:
        return [Sample(f"s{i}", {"gold": i + seed, "choices": [0, 1, 2]}) for i in range(n or options.size)]

    async def run(self, sample: Sample, ctx: AgentContext) -> Outcome:
        return await dispatch(self, sample, ctx)

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        return {"n": len(records)}


def test_a_well_formed_benchmark_passes() -> None:
    mindloop.check_benchmark(_Good())


class _Shuffled(_Good):
    calls = 0

    def samples(self, n: int | None, seed: int, options: _Opts) -> list[Sample]:
        self.calls += 1
        return super().samples(n, seed + self.calls, options)


class _NoScore(_Good):
    spec = BenchmarkSpec(metrics=(Metric("accuracy", "right"),))


class _BadTeam(_Good):
    spec = BenchmarkSpec(team_option="size")


class _LostTable(_Good):
    spec = BenchmarkSpec(paper_tables=(PaperTable("t", "P", "title", "other", (Column("A", ("a",)),), (Row("r"),)),))


@pytest.mark.parametrize(
    ("bench", "problem"),
    [
        (_Shuffled(), "differ between two calls"),
        (_NoScore(), "averages score 'right', which a sample lacks"),
        (_BadTeam(), "none of its agents plays in a team"),
        (_LostTable(), "paper table 't' reads none of its own numbers"),
        (object(), "not a Benchmark"),
    ],
)
def test_the_checker_names_the_first_problem(bench: Any, problem: str) -> None:
    with pytest.raises(RegistryError, match=problem):
        mindloop.check_benchmark(bench)


def test_a_team_option_must_name_an_option() -> None:
    class Team(_Good):
        spec = BenchmarkSpec(team_option="level")

    with pytest.raises(RegistryError, match="team_option 'level' is not one of its options"):
        mindloop.check_benchmark(Team())


# -- declarations are validated when built and when first loaded ----------------------------------------------------


@pytest.mark.parametrize(
    ("build", "problem"),
    [
        (lambda: Metric("acc", "correct", scale=3), "scale must be 1 or 100"),
        (lambda: Metric("acc", "correct", kind="median"), "kind must be"),  # type: ignore[arg-type]
        (lambda: Suite(presets={"fast": PresetEntry(3, "")}), "unknown preset 'fast'"),
        (lambda: PresetEntry(0, "none"), "n must be at least 1"),
        (lambda: Generation(temperature=3.0), "temperature must be from 0 to 2"),
        (lambda: BenchmarkSpec(metrics=(Metric("a", "x"), Metric("a", "y"))), "metric 'a' is declared twice"),
        (lambda: BenchmarkSpec(aliases=("x", "x")), "alias 'x' is declared twice"),
        (lambda: BenchmarkSpec(calls_per_sample=0), "calls_per_sample must be positive"),
        (lambda: BenchmarkSpec(checked_against="a blog post"), "checked_against is .released file."),
        (lambda: Metric("a", "x", groupings=(Grouping("by"), Grouping("by"))), "two groupings share a key"),
    ],
)
def test_a_bad_declaration_is_refused_when_built(build: Any, problem: str) -> None:
    with pytest.raises(RegistryError, match=problem):
        build()


def test_the_registry_checks_a_declaration_when_it_first_loads_it() -> None:
    BENCHMARKS.register("bad-team-decl", _BadTeam, description="registered by a test, in its process only")
    try:
        with pytest.raises(RegistryError, match="benchmark 'good': it declares a team_option"):
            get_benchmark("bad-team-decl")
    finally:
        BENCHMARKS._entries.pop("bad-team-decl")


def test_reference_policies_compute_on_the_samples() -> None:
    samples = _Good().samples(3, 0, _Opts())
    chance = chance_policy(lambda s: len(s.input["choices"]))
    assert chance.value(samples) == pytest.approx(1 / 3)
    assert oracle_policy(100).value(samples) == 100 and oracle_policy().value([]) is None
    tomi = get_benchmark("tomi")
    refs = {r.name: r.value(tomi.samples(8, 0, tomi.options_model())) for r in tomi.spec.references}
    # a ToMi question offers every container its story names: chance is the mean of 1/containers, below 1/2
    assert set(refs) == {"chance", "best constant", "oracle"} and refs["oracle"] == 1.0
    assert refs["chance"] is not None and 0 < refs["chance"] <= 0.5

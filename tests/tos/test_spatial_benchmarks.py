"""The tos-active / tos-passive benchmarks: samples, scripted and model runs, summaries, the table."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext, Benchmark, Outcome, Sample, SampleRecord
from mindloop.bench.options import validate_options
from mindloop.bench.scoring import run_metrics
from mindloop.errors import InvalidArgumentError, ModelError
from mindloop.models.base import Completion, GenerationConfig, Message
from mindloop.systems.tos.benchmarks import TosActiveBenchmark, TosPassiveBenchmark, format_table
from mindloop.systems.tos.world import TASKS

DATA = Path(__file__).parent / "data"
REQUIRED = {"steps", "coverage", "map_dir", "map_facing", "map_pos", "map_overall", *TASKS}


def _run(bench: Benchmark, sample: Sample, ctx: AgentContext) -> Outcome:
    return asyncio.run(run_sample(bench, sample, ctx))


def _samples(bench: Benchmark, n: int | None, seed: int, options: dict[str, str]) -> list[Sample]:
    """Samples for ``--opt`` strings, validated as the runner validates them."""
    return list(bench.samples(n, seed, validate_options(bench, options)))


def test_benchmarks_follow_the_protocol() -> None:
    for bench in (TosActiveBenchmark(), TosPassiveBenchmark()):
        assert list(bench.agents) == ["symbolic", "scout", "strategist", "model"]
        assert [name for name, spec in bench.agents.items() if spec.needs_model] == ["model"]
    assert TosActiveBenchmark.name == "tos-active" and TosPassiveBenchmark.name == "tos-passive"


def test_samples_are_seeded() -> None:
    bench = TosActiveBenchmark()
    a = _samples(bench, 3, 5, {})
    assert a == _samples(bench, 3, 5, {}) and a != _samples(bench, 3, 6, {})
    assert [s.group for s in a] == ["3-room"] * 3 and len(a[0].input["questions"]) == 27
    small = _samples(bench, 2, 0, {"rooms": "2", "objects": "3", "per_task": "1", "tasks": "direction,ment.rot"})
    assert small[0].group == "2-room" and [q["task"] for q in small[0].input["questions"]] == ["direction", "ment.rot"]
    files = _samples(bench, None, 0, {"scenes": str(DATA)})
    assert [s.input["scene"]["name"] for s in files] == ["run00_falsebelief_exp", "run00_meta_data", "run01_meta_data"]
    data = _samples(bench, None, 0, {"data": str(DATA / "run00_meta_data.json")})  # what --data FILE passes
    assert [s.input["scene"]["name"] for s in data] == ["run00_meta_data"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"colour": "red"}, "has no option 'colour'"),
        ({"per_task": "0"}, "per_task"),
        ({"per_task": "many"}, "integer"),
        ({"mode": "audio"}, "mode"),
        ({"tasks": "dir"}, "tasks='dir' is invalid: expected comma-separated task names"),
        ({"false_belief": "maybe"}, "false_belief='maybe' is invalid: expected true or false"),
        ({"scenes": "/nonexistent/scenes"}, "no such file"),
        ({"scenes": str(DATA), "data": str(DATA / "run00_meta_data.json")}, "not both"),
    ],
)
def test_bad_options(options: dict[str, str], message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        _samples(TosActiveBenchmark(), 1, 0, options)


def test_symbolic_agent_on_the_reference_scene() -> None:
    bench = TosActiveBenchmark()
    sample = _samples(bench, 1, 0, {"scenes": str(DATA / "run00_meta_data.json")})[0]
    out = _run(bench, sample, AgentContext(agent="symbolic"))
    assert out.error is None and set(out.scores) >= REQUIRED
    assert out.scores["coverage"] == 1.0 and out.scores["map_overall"] == 1.0 and out.scores["steps"] <= 20
    assert out.scores["fb_f1"] == 1.0
    for key, value in out.scores.items():
        if key not in ("steps", "action_cost", "fb_steps", "fb_redundancy"):
            assert 0.0 <= value <= 1.0, key
    assert out.output["false_belief"]["actions"][-1].startswith("Actions: [Term(changes=")


def test_scout_and_passive_strategist() -> None:
    active, passive = TosActiveBenchmark(), TosPassiveBenchmark()
    sample = _samples(active, 1, 1, {"per_task": "1"})[0]
    scout = _run(active, sample, AgentContext(agent="scout"))
    assert scout.scores["coverage"] == 1.0 and scout.scores["steps"] < 15
    psample = _samples(passive, 1, 1, {"per_task": "1"})[0]
    assert psample.input["false_belief"] is False
    strat = _run(passive, psample, AgentContext(agent="strategist"))
    assert strat.scores["map_pos"] == 1.0 and "fb_f1" not in strat.scores
    with pytest.raises(InvalidArgumentError, match="no agent"):
        _run(active, sample, AgentContext(agent="oracle"))
    with pytest.raises(InvalidArgumentError, match="--model"):
        _run(active, sample, AgentContext(agent="model"))


class _TermModel:
    """Terminates at once and answers everything with one text (or fails every call)."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    @property
    def name(self) -> str:
        return "fake/term"

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        if self.fail:
            raise ModelError("backend down")
        return Completion(
            text='FINAL ANSWER: Actions: [Term(changes="nothing")]'
            if "changed" in str(messages[-1])
            else "FINAL ANSWER: Actions: [Term()]"
        )

    async def aclose(self) -> None:
        return None


def test_model_agent_runs_and_model_failures_are_recorded() -> None:
    bench = TosActiveBenchmark()
    sample = _samples(bench, 1, 2, {"per_task": "1", "probes": "global"})[0]
    out = _run(bench, sample, AgentContext(agent="model", model=_TermModel()))
    assert out.error is None and set(out.scores) >= REQUIRED
    assert out.scores["steps"] == 0.0 and out.scores["map_overall"] < 1.0
    # "Actions: [Term()]" reads as a (wrong) view2act answer; as a direction, name or coordinate it is unreadable
    assert out.scores["unparsed_answers"] == 8.0
    failed = _run(bench, sample, AgentContext(agent="model", model=_TermModel(fail=True)))
    assert failed.error == "backend down" and failed.scores["avg"] == 0.0


def test_summary_counts_failures_as_zero() -> None:
    bench = TosActiveBenchmark()
    samples = _samples(bench, 3, 0, {"per_task": "1"})
    scores = {**dict.fromkeys(REQUIRED, 1.0), "steps": 10.0, "avg": 1.0}
    records = [
        SampleRecord(0, samples[0], "done", {}, dict(scores), None, [], 0.1),
        SampleRecord(1, samples[1], "done", {}, dict(scores, steps=14.0, direction=0.5), None, [], 0.1),
        SampleRecord(2, samples[2], "failed", None, {}, "boom", [], 0.1),
    ]
    summary = run_metrics(bench, records)
    assert summary["n"] == 3 and summary["failed"] == 1
    assert summary["steps"] == 12.0  # counts: averaged over the samples that have them
    assert summary["direction"] == pytest.approx(0.5) and summary["map_overall"] == pytest.approx(2 / 3)
    assert summary["by_rooms"]["3-room"]["n"] == 3 and summary["by_rooms"]["3-room"]["avg"] == pytest.approx(2 / 3)
    table = format_table({"symbolic": summary})
    assert table.splitlines()[0] == (
        "Methods | Avg.step | direction | persp.take | perc.dec | act2view | view2act "
        "| alloc.map | ment.rot | loc2view | view2loc | Avg."
    )
    assert table.splitlines()[1].startswith("symbolic | 12.0 | 50.0 | 66.7")

"""``--opt budget``: the official release's protocol (scripted explorers run to completion) and ``env`` (every agent
held to ``max_steps``), on tos-active and tos-passive.

The release's runner gives a model ``max_exp_steps`` (20) steps and then forces ``Term``; its proxy agents run
``proxy.run()`` with no step limit. ``data/example_data/3-room/run01`` is a scene whose STRATEGIST needs more than 20
steps to pin every position, SCOUT's 9 steps fit any budget above 9.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext, Benchmark, Outcome, Sample, SampleRecord
from mindloop.bench.options import validate_options
from mindloop.bench.scoring import run_metrics
from mindloop.models.base import Completion, GenerationConfig, Message
from mindloop.systems.tos.benchmarks import TosActiveBenchmark, TosOptions, TosPassiveBenchmark
from mindloop.systems.tos.explorers import StrategistExplorer, new_belief
from mindloop.systems.tos.explorers.base import run_exploration
from mindloop.systems.tos.world import SpatialEnv, SpatialEnvConfig, load_scene

RUN01 = Path(__file__).parent / "data" / "example_data" / "3-room" / "run01"


def _sample(bench: Benchmark, **options: str) -> Sample:
    opts = validate_options(bench, {"scenes": str(RUN01), "per_task": "1", **options})
    (sample,) = bench.samples(None, 0, opts)
    return sample


def _run(bench: Benchmark, sample: Sample, agent: str, model: object = None) -> Outcome:
    return asyncio.run(run_sample(bench, sample, AgentContext(agent=agent, model=model)))  # type: ignore[arg-type]


def _to_completion_steps() -> int:
    """STRATEGIST on run01 in an environment that never stops it (scene seed 0, as the first sample of seed 0):
    the steps it takes by itself, Term not counted."""
    env = SpatialEnv(load_scene(RUN01), config=SpatialEnvConfig(max_steps=1000))
    env.reset(seed=0)
    belief = new_belief(env)
    ex = run_exploration(env, StrategistExplorer(seed=0), belief)
    assert ex.terminated and not ex.truncated  # it ended with its own Term()
    return ex.steps


def test_the_default_is_the_release_protocol() -> None:
    assert TosOptions().budget == "reference" and TosOptions().max_steps == 20
    assert _sample(TosActiveBenchmark()).input["budget"] == "reference"


def test_reference_budget_lets_a_proxy_finish_past_the_environment_budget() -> None:
    full = _to_completion_steps()
    assert full > 20  # why this scene is here
    for bench in (TosActiveBenchmark(), TosPassiveBenchmark()):
        out = _run(bench, _sample(bench), "strategist")
        assert out.scores["steps"] == full and out.scores["over_budget"] == 1.0
        assert out.output["actions"][-1] == "Actions: [Term()]" and len(out.output["actions"]) == full + 1
        assert out.output["budget"] == {"mode": "reference", "max_steps": 20, "step_limit": None, "steps": full}


def test_env_budget_holds_every_agent_to_max_steps() -> None:
    for bench in (TosActiveBenchmark(), TosPassiveBenchmark()):
        out = _run(bench, _sample(bench, budget="env"), "strategist")
        assert out.scores["steps"] == 20 and out.scores["over_budget"] == 0.0
        assert "Term" not in out.output["actions"][-1]  # cut off, not finished
        assert out.output["budget"] == {"mode": "env", "max_steps": 20, "step_limit": 20, "steps": 20}
        short = _run(bench, _sample(bench, budget="env", max_steps="5"), "scout")
        assert short.scores["steps"] == 5
        free = _run(bench, _sample(bench, max_steps="5"), "scout")  # reference: max_steps binds models only
        assert free.scores["steps"] == 9 and free.scores["over_budget"] == 1.0 and free.scores["coverage"] == 1.0


class _ObserveModel:
    """Observes forever (never terminates) and answers every question with the same text."""

    @property
    def name(self) -> str:
        return "fake/observe"

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        return Completion(text="FINAL ANSWER: Actions: [Observe()]")

    async def aclose(self) -> None:
        return None


def test_a_model_gets_max_steps_under_both_budgets() -> None:
    bench = TosActiveBenchmark()
    for budget in ("reference", "env"):
        sample = _sample(bench, budget=budget, max_steps="6", false_belief="0", probes="global")
        out = _run(bench, sample, "model", _ObserveModel())
        assert out.error is None and out.scores["steps"] == 6 and out.scores["over_budget"] == 0.0
        assert out.output["budget"]["step_limit"] == 6


def test_the_summary_names_the_budget() -> None:
    for bench in (TosActiveBenchmark(), TosPassiveBenchmark()):
        records = []
        for i, budget in enumerate(("reference", "env")):
            sample = _sample(bench, budget=budget)
            out = _run(bench, sample, "strategist")
            records.append([SampleRecord(i, sample, "done", out.output, out.scores, None, [], 0.1)])
        ref, env = (run_metrics(bench, r) for r in records)
        assert ref["budget"] == "reference" and ref["over_budget"] == 1.0
        assert ref["budget_note"].startswith("reference (the official release's protocol)")
        assert "1 of 1 explorations took more than 20 steps" in ref["budget_note"]
        assert env["budget"] == "env" and env["over_budget"] == 0.0
        assert "a deviation from the official release" in env["budget_note"]
    assert "budget" not in run_metrics(TosActiveBenchmark(), [])

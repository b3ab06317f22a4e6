"""The hierarchy agents and the ``mindpower`` benchmark: the symbolic reference reaches the gold, model answers
are parsed strictly, failures are recorded and counted, judges and breakdowns are reported."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext, Sample, SampleRecord
from mindloop.bench.options import validate_options
from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.errors import DependencyError, InvalidArgumentError, ModelError
from mindloop.models.base import ModelOptions
from mindloop.systems.mindpower import (
    ModelHierarchyAgent,
    SymbolicHierarchyAgent,
    belief_mismatches,
    gold_answer_text,
)
from mindloop.systems.mindpower.benchmarks import MindPowerBenchmark
from mindloop.systems.mindpower.metrics import BPC_PROMPT
from mindloop.worlds.household.scenarios import FALSE_BELIEF, IMPLICIT_GOAL, Scenario, mindpower_sim

from .conftest import by_subtype


def _run(bench: MindPowerBenchmark, samples: Sequence[Sample], ctx: AgentContext) -> list[SampleRecord]:
    out = []
    for i, s in enumerate(samples):
        o = asyncio.run(run_sample(bench, s, ctx))
        out.append(SampleRecord(i, s, "failed" if o.error else "done", o.output, o.scores, o.error, [], 0.0))
    return out


def test_symbolic_agent_reaches_the_gold_on_the_whole_test_split(test_split: list[Scenario]) -> None:
    agent = SymbolicHierarchyAgent()
    for s in test_split:
        ans = asyncio.run(agent.answer(s))
        assert ans.ok, ans.error
        assert ans.hierarchy is not None
        assert ans.hierarchy.action_line() == ", ".join(s.gold.actions)
        assert dict(ans.hierarchy.layers) == {k: v for k, v in s.gold.layers().items()}
    for setting in ("decision", "think"):
        assert all(asyncio.run(SymbolicHierarchyAgent(setting).answer(s)).ok for s in test_split[:20])


def test_symbolic_agent_checks_the_belief_store(test_split: list[Scenario]) -> None:
    s = by_subtype(test_split, "fb_two_humans")
    false = next(b for b in s.gold.beliefs if b.is_false)
    tampered_belief = dataclasses.replace(false, value=false.actual)  # claim the human knows the truth
    beliefs = tuple(tampered_belief if b is false else b for b in s.gold.beliefs)
    tampered = dataclasses.replace(s, gold=dataclasses.replace(s.gold, beliefs=beliefs))
    assert belief_mismatches(s) == []
    wrong = belief_mismatches(tampered)
    assert len(wrong) == 1 and "/".join(false.chain) in wrong[0]
    ans = asyncio.run(SymbolicHierarchyAgent().answer(tampered))
    assert not ans.ok and ans.error is not None and "belief store disagrees" in ans.error


def test_model_agent_parses_and_records_failures(test_split: list[Scenario], fake_chat: type) -> None:
    s = test_split[0]
    good = asyncio.run(ModelHierarchyAgent(fake_chat(lambda p, m: gold_answer_text(s))).answer(s))
    assert good.ok and good.hierarchy is not None and good.hierarchy.action_line() == ", ".join(s.gold.actions)
    bad = asyncio.run(ModelHierarchyAgent(fake_chat(lambda p, m: "I would help.")).answer(s))
    assert not bad.ok and bad.text == "I would help." and bad.error is not None and "missing <Perception>" in bad.error
    down = asyncio.run(ModelHierarchyAgent(fake_chat(lambda p, m: ModelError("timeout"))).answer(s))
    assert down.text is None and down.error is not None and "model call failed" in down.error


def test_model_agent_prompt_carries_the_narration(test_split: list[Scenario], fake_chat: type) -> None:
    s = by_subtype(test_split, "fb_two_humans")
    model = fake_chat(lambda p, m: gold_answer_text(s, "decision"))
    asyncio.run(ModelHierarchyAgent(model, "decision").answer(s))
    prompt = model.prompts[0][0]["content"]
    assert prompt.endswith(f"Input video:\n{s.observation}\n\nOutput:") and "<Robot Belief>" not in prompt
    frames = ModelHierarchyAgent(model, input_mode="frames", n_frames=2, frame_size=(64, 48)).messages(s)
    parts = frames[0]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "image_url", "text"]
    assert s.observation not in str(parts)


def test_benchmark_conforms_and_samples_are_deterministic() -> None:
    bench = MindPowerBenchmark()
    a = bench.samples(5, 0, validate_options(bench, {"similarity": "off"}))
    assert [s.id for s in a] == [s.id for s in bench.samples(5, 0, validate_options(bench, {"similarity": "off"}))]
    assert len(bench.samples(None, 0, validate_options(bench, {"similarity": "off"}))) == 118
    assert {s.group for s in bench.samples(None, 0, validate_options(bench, {"similarity": "off"}))} == {
        FALSE_BELIEF,
        IMPLICIT_GOAL,
    }
    assert {s.input["scenario"]["split"] for s in a} == {"test"}
    with pytest.raises(InvalidArgumentError, match="has no option 'colour'"):
        bench.samples(1, 0, validate_options(bench, {"colour": "red"}))
    with pytest.raises(InvalidArgumentError, match="setting"):
        bench.samples(1, 0, validate_options(bench, {"setting": "cot"}))


def test_symbolic_run_scores_perfectly_without_similarity() -> None:
    bench = MindPowerBenchmark()
    samples = bench.samples(12, 0, validate_options(bench, {"similarity": "off"}))
    m = bench.summarize(_run(bench, samples, AgentContext("symbolic")))
    assert (m["n"], m["failed"], m["sr"], m["ac"], m["format_ok"]) == (12, 0, 100.0, 100.0, 100.0)
    assert m["bertscore"] is None and m["st"] is None and m["encoder"].startswith("off")
    assert sum(b["n"] for b in m["by_task"].values()) == 12
    assert m["dialogue"]["n"] == sum(1 for s in samples if s.input["dialogue"])


@pytest.mark.metrics
def test_symbolic_run_with_similarity_reports_every_layer() -> None:
    bench = MindPowerBenchmark()
    m = bench.summarize(_run(bench, bench.samples(3, 0, validate_options(bench, {})), AgentContext("symbolic")))
    for key in ("bertscore", "st"):
        assert set(m[key]) == {"perception", "belief", "desire", "intention", "decision", "action"}
        assert all(v == pytest.approx(100.0, abs=1e-3) for v in m[key].values())
    assert "all-MiniLM-L6-v2" in m["encoder"]


@pytest.mark.metrics
def test_each_samples_scores_do_not_depend_on_the_samples_in_flight_or_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twelve samples scored one at a time on an empty embedding cache, eight at once (the runner's default
    concurrency) on the cache that run filled, eight at once in passes of at most three samples, and eight at once
    with ``--cache off``: every B and S the same to the last digit, and every one a real score (a sample whose
    layers waited behind others' could come back with none, stored as zeros). The cache holds the gold texts alone,
    and ``--cache off`` neither reads nor writes it. No pass scores more samples than the bound."""
    import mindloop.systems.mindpower.benchmarks as module

    passes: list[int] = []
    score_pass = module.MindPowerBenchmark._score_pass
    monkeypatch.setattr(
        module.MindPowerBenchmark,
        "_score_pass",
        lambda self, waiting: (passes.append(len(waiting)), score_pass(self, waiting)),
    )
    scores = []
    cache = Path(os.environ["MINDLOOP_HOME"]) / "embeddings.sqlite"
    with RunStore(tmp_path / "runs.sqlite") as store:
        for concurrency, switch, bound in ((1, "auto", 64), (8, "auto", 64), (8, "auto", 3), (8, "off", 64)):
            monkeypatch.setattr(module, "_PASS_SAMPLES", bound)
            passes.clear()
            request = RunRequest("mindpower", n=12, concurrency=concurrency, model_options=ModelOptions(cache=switch))
            if switch == "off":
                cache.rename(tmp_path / "kept.sqlite")
            run = run_benchmark(request, store=store, progress=False)
            scores.append({r.sample.id: r.scores for r in store.records(run.run_id)})
            assert sum(passes) == 12 and max(passes) <= bound
            if switch == "auto":
                helped = [s for s in mindpower_sim("test") if not s.control][:12]  # the run's samples: no controls
                golds = {t.strip() for s in helped for t in s.gold.layers().values() if t.strip()}
                assert _count(cache) == len(golds)
    assert not cache.exists()
    assert scores[0] == scores[1] == scores[2] == scores[3]
    similarity = [v for s in scores[1].values() for k, v in s.items() if k.startswith(("bertscore_", "st_"))]
    assert len(similarity) == 12 * 12 and min(similarity) > 0.9  # the symbolic agent answers with the gold


def _count(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0])


def test_similarity_option_follows_the_installed_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import mindloop.systems.mindpower.benchmarks as module

    monkeypatch.setattr(module, "encoder_available", lambda: False)
    bench = MindPowerBenchmark()
    assert bench.samples(1, 0, validate_options(bench, {}))[0].input["settings"]["similarity"] == "off"
    with pytest.raises(DependencyError, match="mindloop\\[metrics\\]"):
        bench.samples(1, 0, validate_options(bench, {"similarity": "on"}))


def _half_right(prompt: str, messages: Any) -> str:
    """Answers every prompt with the Fig. 1 Example 1 plan: right for some scenarios, wrong for most."""
    if "Example 1" not in prompt:
        return "not a hierarchy prompt"
    return (
        "<Perception> Someone moved something.\n<Belief> I think they are searching.\n<Desire> I want to help.\n"
        "<Intention> Fetch it.\n<Decision> Give it back.\n<Action> walk(fridge), open(fridge), pick(apple)"
    )


def test_failed_samples_count_and_score_zero(fake_chat: type) -> None:
    bench = MindPowerBenchmark()
    samples = bench.samples(6, 0, validate_options(bench, {"similarity": "off"}))
    replies = iter(["garbage", *[None] * 5])

    def reply(prompt: str, messages: Any) -> str:
        first = next(replies)
        return first if first is not None else _half_right(prompt, messages)

    records = _run(bench, samples, AgentContext("model", model=fake_chat(reply), format_retries=0))
    assert records[0].status == "failed" and records[0].scores["sr"] == 0.0
    assert records[0].output["reply"] == "garbage"
    m = bench.summarize(records)
    assert m["failed"] == 1 and m["format_ok"] == pytest.approx(100 * 5 / 6)
    expected_sr = 100 * sum(r.scores["sr"] for r in records[1:]) / 6  # the failure counts as 0 in the mean
    assert m["sr"] == pytest.approx(expected_sr, abs=1e-3)
    assert m["sr"] < 100.0


def test_judge_option_scores_bpc_and_robot_centric(monkeypatch: pytest.MonkeyPatch, fake_chat: type) -> None:
    bench = MindPowerBenchmark()
    samples = bench.samples(3, 0, validate_options(bench, {"similarity": "off", "judge": "fake/judge"}))
    bpc_replies = iter(['{"total_score": 9, "reasoning": "ok"}', "nine", '{"total_score": 6, "reasoning": "meh"}'])

    def judge_reply(prompt: str, messages: Any) -> str:
        if prompt.startswith(BPC_PROMPT):
            return next(bpc_replies)
        return (
            '{"score": {"Perception Level": 1, "BDI Reasoning": 1, "Robot-Centric Evaluation": 1, '
            '"Effectiveness of Actions": 0}, "total_score": 3}'
        )

    judge = fake_chat(judge_reply, name="fake/judge")
    monkeypatch.setattr(bench._judges, "get", lambda settings, ctx: judge)
    m = bench.summarize(_run(bench, samples, AgentContext("symbolic", format_retries=0)))
    assert m["bpc"] == pytest.approx(7.5) and m["bpc_unscored"] == 1  # the unparseable verdict is not a score
    assert m["robot_centric"] == pytest.approx(3.0) and m["robot_centric_unscored"] == 0
    assert m["judge"] == "fake/judge"


def test_end_to_end_through_an_openai_compatible_server() -> None:
    from mindloop.models import FakeChatServer, ModelOptions, load_model

    bench = MindPowerBenchmark()
    samples = bench.samples(4, 0, validate_options(bench, {"similarity": "off"}))
    gold = {s.input["scenario"]["observation"]: s.input["scenario"]["gold_text"] for s in samples}

    def reply(messages: list, body: dict) -> str:
        text = messages[-1]["content"]
        return gold[next(o for o in gold if f":\n{o}\n\n" in text)]

    with FakeChatServer(reply=reply) as server:
        model = load_model("openai/any", ModelOptions(base_url=server.base_url, cache="off", timeout_s=5))

        async def go() -> list[SampleRecord]:
            out = []
            for i, s in enumerate(samples):
                o = await run_sample(bench, s, AgentContext("model", model=model))
                out.append(SampleRecord(i, s, "failed" if o.error else "done", o.output, o.scores, o.error, [], 0.0))
            await model.aclose()
            return out

        m = bench.summarize(asyncio.run(go()))
        assert server.requests == 4
    assert (m["failed"], m["sr"], m["ac"]) == (0, 100.0, 100.0)

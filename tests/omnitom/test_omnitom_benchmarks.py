"""The omnitom-stage1 / omnitom-stage2 benchmarks, driven directly (samples, run, summarize)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext, Benchmark, Outcome, Sample, SampleRecord
from mindloop.bench.options import validate_options
from mindloop.bench.scoring import run_metrics
from mindloop.errors import InvalidArgumentError
from mindloop.models.base import Completion, GenerationConfig, Message, message_text
from mindloop.systems.omnitom.benchmarks import OmniToMStage1Benchmark, OmniToMStage2Benchmark
from mindloop.systems.omnitom.examples import appendix_e_records
from mindloop.systems.omnitom.prompts import labelled_table, stage1_table
from mindloop.systems.omnitom.records import DIMENSIONS, StoryRecord, write_records


class ReplyModel:
    """A ChatModel whose reply is a function of the user message."""

    def __init__(self, reply: Callable[[str], str]) -> None:
        self.reply = reply

    @property
    def name(self) -> str:
        return "scripted/test"

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        return Completion(text=self.reply(message_text(messages[-1])))

    async def aclose(self) -> None:
        return None


def run_all(bench: Benchmark, samples: Sequence[Sample], ctx: AgentContext) -> list[SampleRecord]:
    async def go() -> list[Outcome]:
        return [await run_sample(bench, s, ctx) for s in samples]

    return [
        SampleRecord(i, s, "failed" if o.error else "done", o.output, o.scores, o.error, [], 0.0)
        for i, (s, o) in enumerate(zip(samples, asyncio.run(go()), strict=True))
    ]


def samples_of(bench: Benchmark, n: int | None, seed: int, options: dict[str, str]) -> list[Sample]:
    """Samples for ``--opt`` strings, validated as the runner validates them."""
    return list(bench.samples(n, seed, validate_options(bench, options)))


def gold_of(samples: Sequence[Sample]) -> dict[str, StoryRecord]:
    records = [StoryRecord.model_validate(s.input["record"]) for s in samples]
    return {r.story: r for r in records}


def test_samples_are_deterministic_and_options_checked() -> None:
    bench = OmniToMStage1Benchmark()
    a = samples_of(bench, 5, 7, {"aligner": "exact"})
    assert a == samples_of(bench, 5, 7, {"aligner": "exact"}) and a != samples_of(bench, 5, 8, {"aligner": "exact"})
    assert len(samples_of(bench, None, 0, {"aligner": "exact"})) == 100
    with pytest.raises(InvalidArgumentError, match="has no option 'colour'"):
        samples_of(bench, 1, 0, {"colour": "red"})
    with pytest.raises(InvalidArgumentError, match="level='5' is invalid: expected one of: 3, 4"):
        samples_of(OmniToMStage2Benchmark(), 1, 0, {"level": "5"})
    with pytest.raises(
        InvalidArgumentError, match="aligner='fuzzy' is invalid: expected one of: auto, embedded, exact"
    ):
        samples_of(bench, 1, 0, {"aligner": "fuzzy"})
    with pytest.raises(InvalidArgumentError, match="has no option 'aligner'"):  # Stage 2 aligns nothing
        samples_of(OmniToMStage2Benchmark(), 1, 0, {"aligner": "exact"})
    assert samples_of(bench, 1, 0, {"level": "4"})[0].input["settings"]["level"] == 4


def test_symbolic_agent_is_the_oracle_on_generated_stories() -> None:
    s1 = OmniToMStage1Benchmark()
    samples = samples_of(s1, 12, 1, {"aligner": "exact"})
    records = run_all(s1, samples, AgentContext("symbolic"))
    summary = run_metrics(s1, records)
    assert summary["f1"] == 1.0 and summary["failed"] == 0 and summary["aligner"] == "exact"
    assert set(summary["by_order"]) == {"0", "1", "2+"}
    s2 = OmniToMStage2Benchmark()
    records2 = run_all(s2, samples_of(s2, 12, 1, {}), AgentContext("symbolic"))
    assert run_metrics(s2, records2)["overall"] == 1.0


def test_model_agent_stage1_parses_its_table_and_fails_without_one() -> None:
    bench = OmniToMStage1Benchmark()
    samples = samples_of(bench, 4, 2, {"aligner": "exact", "level": "4", "protocol": "mindloop"})
    golds = gold_of(samples)

    def reply(user: str) -> str:
        story = user.removeprefix("Story: ")
        return "Here is my table:\n" + stage1_table(golds[story].beliefs) + "\nThanks."

    records = run_all(bench, samples, AgentContext("model", model=ReplyModel(reply)))
    assert [r.scores["f1"] for r in records] == [1.0] * 4
    bad = run_all(bench, samples[:2], AgentContext("model", model=ReplyModel(lambda _: "No table, sorry.")))
    assert all(r.status == "failed" and r.scores["f1"] == 0.0 for r in bad)
    summary = run_metrics(bench, [*records, *bad])
    assert summary["f1"] == pytest.approx(4 / 6) and summary["failed"] == 2 and summary["n"] == 6
    # a failed record read back with no scores still counts as a failure scored 0
    empty = SampleRecord(9, samples[0], "failed", None, {}, "boom", [], 0.0)
    assert run_metrics(bench, [records[0], empty])["f1"] == 0.5


def test_model_agent_stage2_scores_each_dimension(tmp_path: Path) -> None:
    data = tmp_path / "gold.jsonl"
    write_records(data, appendix_e_records())
    bench = OmniToMStage2Benchmark()
    samples = samples_of(bench, None, 0, {"data": str(data), "protocol": "mindloop"})
    golds = gold_of(samples)
    assert [s.group for s in samples][:2] == ["Ambiguous Story Task", "False Belief Task"]

    def reply(user: str) -> str:
        story = user.split("\n\nBelief table:")[0].removeprefix("Story: ")
        table = labelled_table(golds[story].beliefs)
        return table.replace("| Perception | Temporal", "| Memory | Temporal", 1) if "Alice" in story else table

    records = run_all(bench, samples, AgentContext("model", model=ReplyModel(reply)))
    fbt = next(r for r in records if r.sample.group == "False Belief Task")
    assert fbt.scores["mental_source"] == pytest.approx(20 / 21)  # Table 14 has 21 beliefs; one label changed
    assert fbt.scores["overall"] == pytest.approx(1 - 1 / (7 * 21))
    summary = run_metrics(bench, records)
    assert summary["by_dimension"]["mental_source"] == pytest.approx(1 - 1 / (21 * 7))
    assert all(summary["by_dimension"][d] == 1.0 for d in DIMENSIONS if d != "mental_source")
    # the symbolic annotator parses only templated false-belief stories: the others are failures, not guesses
    symbolic = run_all(bench, samples, AgentContext("symbolic"))
    assert [r.status for r in symbolic].count("done") == 1
    assert next(r for r in symbolic if r.status == "done").scores["overall"] == 1.0

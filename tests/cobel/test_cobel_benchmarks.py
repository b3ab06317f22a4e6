"""The cwah and tdw-mat benchmarks: samples, runs, summaries (failures counted as failures), table layouts."""

from __future__ import annotations

import asyncio

import pytest

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext, Outcome, Sample, SampleRecord
from mindloop.bench.options import validate_options
from mindloop.errors import InvalidArgumentError
from mindloop.models.tokens import TOKENIZER_NAME
from mindloop.systems.cobel.benchmarks import CwahBenchmark, TdwMatBenchmark, TransportOptions
from mindloop.systems.cobel.metrics import accuracy_curve, summarize_episodes, table_cwah, table_tdw


def _record(i: int, sample: Sample, outcome: Outcome, status: str = "done") -> SampleRecord:
    return SampleRecord(i, sample, status, outcome.output, outcome.scores, outcome.error, [], 0.0)


def test_they_are_benchmarks() -> None:
    for bench in (CwahBenchmark(), TdwMatBenchmark()):
        assert next(iter(bench.agents)) == "cobel"
        assert {name for name, spec in bench.agents.items() if spec.needs_model} == {
            "cobel-llm",
            "cobel-llm-no-sbr",
            "cobel-llm-no-bbc",
            "coela-llm",
            "capo-llm",
        }
        assert all(spec.team for spec in bench.agents.values())


def test_samples_are_the_fixed_test_sets() -> None:
    cwah, tdw = CwahBenchmark(), TdwMatBenchmark()
    default = TransportOptions()
    assert len(cwah.samples(None, 0, default)) == 10 and len(tdw.samples(None, 0, default)) == 24
    assert cwah.samples(3, 0, default) == cwah.samples(None, 0, default)[:3]
    assert cwah.samples(None, 1, default) != cwah.samples(None, 0, default)
    assert cwah.samples(2, 0, validate_options(cwah, {"n_agents": "3"}))[0].input["n_agents"] == 3
    with pytest.raises(InvalidArgumentError, match="n_agents='5' is invalid: expected an integer from 2 to 4"):
        validate_options(cwah, {"n_agents": "5"})
    with pytest.raises(InvalidArgumentError, match="has no option 'data'"):
        validate_options(tdw, {"data": "x"})


def test_run_and_summarize_cwah_with_a_failed_record() -> None:
    bench = CwahBenchmark()
    samples = bench.samples(2, 0, TransportOptions())
    outcomes = [asyncio.run(run_sample(bench, s, AgentContext("cobel,cobel"))) for s in samples]
    assert all(o.error is None and o.scores["steps"] < 250 for o in outcomes)
    records = [_record(i, s, o) for i, (s, o) in enumerate(zip(samples, outcomes, strict=True))]
    good = bench.summarize(records)
    assert good["avg_steps"] == pytest.approx(sum(o.scores["steps"] for o in outcomes) / 2)
    assert good["comm_tokens"] == pytest.approx(sum(o.scores["comm_tokens"] for o in outcomes) / 2)
    assert good["messages"] == pytest.approx(sum(o.scores["messages"] for o in outcomes) / 2)
    # a crashed sample (no output, no scores) counts as the 250-step limit, never as a success
    failed = SampleRecord(2, bench.samples(3, 0, TransportOptions())[2], "failed", None, {}, "boom", [], 0.0)
    summary = bench.summarize([*records, failed])
    assert summary["failed"] == 1 and summary["n"] == 3
    assert summary["avg_steps"] == pytest.approx((2 * good["avg_steps"] + 250) / 3)
    assert summary["finished"] == pytest.approx(2 / 3)


def test_run_tdw_reports_transport_rate() -> None:
    bench = TdwMatBenchmark()
    sample = bench.samples(1, 0, TransportOptions())[0]
    outcome = asyncio.run(run_sample(bench, sample, AgentContext("heuristic")))
    assert 0.0 <= outcome.scores["transport_rate"] <= 1.0 and outcome.scores["comm_tokens"] == 0.0
    summary = bench.summarize([_record(0, sample, outcome)])
    assert summary["transport_rate"] == outcome.scores["transport_rate"]
    failed = SampleRecord(1, sample, "failed", None, {}, "model error", [], 0.0)
    assert bench.summarize([_record(0, sample, outcome), failed])["transport_rate"] == pytest.approx(
        outcome.scores["transport_rate"] / 2
    )


def test_summaries_and_tables_by_hand() -> None:
    recs = [
        {
            "world": "cwah",
            "task": "wash_dishes",
            "steps": 30,
            "finished": True,
            "comm_tokens": 100,
            "n_messages": 2,
            "belief_accuracy": [[0, 1.0], [10, 0.5]],
        },
        {
            "world": "cwah",
            "task": "put_groceries",
            "steps": 120,
            "finished": False,
            "comm_tokens": 0,
            "n_messages": 0,
            "belief_accuracy": [],
        },
        {
            "world": "cwah",
            "task": "put_groceries",
            "steps": 40,
            "finished": True,
            "comm_tokens": 50,
            "n_messages": 1,
            "error": "ParseError: bad",
        },
    ]
    s = summarize_episodes(recs)
    assert s["avg_steps"] == pytest.approx((30 + 250 + 250) / 3)  # unfinished and failed count the limit
    assert s["comm_tokens"] == pytest.approx(50.0) and s["messages"] == pytest.approx(1.0)
    assert s["belief_accuracy"] == pytest.approx(0.75) and s["failed"] == 1 and s["tokenizer"] == TOKENIZER_NAME
    assert s["by_task"]["put_groceries"]["avg_steps"] == 250
    assert accuracy_curve(recs, bins=2, horizon=20) == [(5.0, 1.0), (15.0, 0.5)]  # t=0 and t=10 fall in halves
    table = table_cwah({"CoBel": recs, "None": recs[1:2]})
    assert "Wash dishes" in table and "Put groceries" in table and "Average" in table
    assert table.splitlines()[1].split() == ["Task", "CoBel", "None"]
    tdw = [{"world": "tdw-mat", "task": "food-low-capacity", "transport_rate": 0.7, "n_messages": 0}]
    t = table_tdw({"RHP": tdw})
    assert "Food-low-capacity" in t and "70.00" in t and "Total Average" in t


def test_model_driven_run_that_fails_is_an_error_outcome_and_a_failure() -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from fakes import FakeModel, sensible_replies

    replies = sensible_replies()
    replies["fig12"] = lambda p: "reasons: hmm\nanswer: maybe"
    bench = CwahBenchmark()
    sample = bench.samples(1, 0, TransportOptions())[0]
    outcome = asyncio.run(run_sample(bench, sample, AgentContext("cobel-llm,cobel", model=FakeModel(replies))))
    assert outcome.error is not None and "Yes or No" in outcome.error
    assert outcome.scores["finished"] == 0.0 and outcome.scores["steps"] == 250.0
    summary = bench.summarize([_record(0, sample, outcome, status="failed")])
    assert summary["failed"] == 1 and summary["finished"] == 0.0 and summary["avg_steps"] == 250.0


def test_max_steps_cuts_an_episode_and_names_the_deviation() -> None:
    bench = TdwMatBenchmark()
    default = bench.samples(1, 0, TransportOptions())[0]
    assert "max_steps" not in default.input  # the paper's limit: inputs as before
    short = bench.samples(1, 0, validate_options(bench, {"max_steps": "4"}))[0]
    assert short.id == default.id and short.input["max_steps"] == 4
    outcome = asyncio.run(run_sample(bench, short, AgentContext("heuristic")))
    full = asyncio.run(run_sample(bench, default, AgentContext("heuristic")))
    assert outcome.output["cut_at"] == 4 and outcome.scores["steps"] == 4.0 and not outcome.output["finished"]
    assert full.output["cut_at"] is None and full.scores["steps"] > 4 and "deviation" not in full.output
    assert outcome.output["frames"] < full.output["frames"]  # the frames it played, not the 3,000-frame budget
    assert "3,000 frames" in outcome.output["deviation"]
    summary = bench.summarize([_record(0, short, outcome)])
    assert summary["max_steps"] == 4 and summary["deviation"] == outcome.output["deviation"]
    assert "max_steps" not in bench.summarize([_record(0, default, full)])
    with pytest.raises(InvalidArgumentError, match="expected an integer"):
        validate_options(bench, {"max_steps": "0"})

"""The ``claw`` benchmark on the harness: the issue's targets, the classifier beside the rules, the contract."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext, Sample, SampleRecord
from mindloop.bench.options import validate_options
from mindloop.errors import InvalidArgumentError
from mindloop.systems.mindclaw.benchmarks import ClawBenchmark
from mindloop.worlds.household.scenarios import mindpower_sim


def _records(bench: ClawBenchmark, samples: list[Sample], agent: str) -> list[SampleRecord]:
    async def go() -> list[SampleRecord]:
        out = []
        for i, s in enumerate(samples):
            o = await run_sample(bench, s, AgentContext(agent))
            out.append(SampleRecord(i, s, "failed" if o.error else "done", o.output, o.scores, o.error, [], 0.0))
        return out

    return asyncio.run(go())


def _contract(m: dict[str, Any]) -> None:
    for key in ("ta", "pia", "cs", "acc", "acc_no_noop"):
        assert isinstance(m[key], float) and 0.0 <= m[key] <= 1.0, key


def test_it_is_a_harness_benchmark() -> None:
    bench = ClawBenchmark()
    assert bench.name == "claw"
    assert list(bench.agents) == ["symbolic", "classifier", "model", "never", "first", "direct"]
    assert [name for name, spec in bench.agents.items() if spec.needs_model] == ["model", "direct"]


def test_symbolic_runtime_meets_the_targets_on_the_test_set() -> None:
    bench = ClawBenchmark()
    samples = bench.samples(None, 0, validate_options(bench, {}))
    assert len(samples) == 141 and {s.group for s in samples} == {
        "false_belief/help",
        "false_belief/control",
        "implicit_goal/help",
        "implicit_goal/control",
    }
    m = bench.summarize(_records(bench, samples, "symbolic"))
    _contract(m)
    assert m["pia"] >= 0.98 and m["cs"] == 1.0 and m["acc"] >= 0.98  # the targets
    assert m["cs_n"] >= 0.98 * m["help_needed"] and m["false_alarms"] == 0
    assert m["n"] == 141 and m["controls"] == 23 and m["help_needed"] == 118
    assert m["decisions"] == sum(s.input["n_decisions"] for s in samples)
    assert set(m["by_group"]) == {s.group for s in samples}


@pytest.mark.xdist_group("claw-train")  # one worker makes the train split's decisions, once
def test_the_classifier_is_trained_on_train_and_reported_beside_it() -> None:
    from mindloop.systems.mindclaw.agents import training_decisions

    train_ids = {d.scenario_id for d in training_decisions()}
    test_ids = {s.id for s in mindpower_sim("test")}
    assert len(train_ids) == 472 + 95 and not train_ids & test_ids  # the train split's help episodes and controls
    bench = ClawBenchmark()
    m = bench.summarize(_records(bench, bench.samples(30, 0, validate_options(bench, {})), "classifier"))
    _contract(m)
    assert m["pia"] >= 0.9 and m["acc"] >= 0.9


def test_ablation_without_the_belief_table_misses_false_beliefs() -> None:
    bench = ClawBenchmark()
    samples = [
        s
        for s in bench.samples(40, 0, validate_options(bench, {"belief_table": "off"}))
        if s.group == "false_belief/help"
    ][:5]
    m = bench.summarize(_records(bench, samples, "symbolic"))
    assert m["pia"] == 0.0 and m["missed"] == 5  # nothing tells the robot what anyone believes


def test_failed_samples_count_as_failures() -> None:
    bench = ClawBenchmark()
    samples = bench.samples(2, 0, validate_options(bench, {}))
    good = _records(bench, samples, "symbolic")
    crashed = SampleRecord(1, samples[1], "failed", None, {}, "ModelError: gone", [], 0.0)
    m = bench.summarize([good[0], crashed])
    assert m["failed"] == 1 and m["pia"] == 0.5 * good[0].scores["pia"]
    assert m["decisions"] == samples[0].input["n_decisions"] + samples[1].input["n_decisions"]


def test_options_are_checked() -> None:
    bench = ClawBenchmark()
    for options, message in (
        ({"colour": "red"}, "has no option 'colour'"),
        ({"split": "dev"}, "split='dev' is invalid: expected one of: test, train, all"),
        ({"belief_table": "maybe"}, "belief_table='maybe' is invalid: expected one of: on, off"),
        ({"quiet": "0"}, "quiet='0' is invalid: expected an integer >= 1"),
        ({"observation": "x"}, "observation='x' is invalid"),
        ({"classifier_features": "x"}, "classifier_features"),
        ({"scenario": "mps-9-99999"}, "no scenario 'mps-9-99999'"),
    ):
        with pytest.raises(InvalidArgumentError, match=message):
            bench.samples(1, 0, validate_options(bench, options))
    first, second = (s.id for s in bench.samples(2, 0, validate_options(bench, {})))
    picked = bench.samples(None, 0, validate_options(bench, {"scenario": f"{second}, {first}"}))
    assert [s.id for s in picked] == [second, first]
    s = bench.samples(1, 0, validate_options(bench, {"skills": "no-such-file.yaml"}))[0]
    with pytest.raises(InvalidArgumentError, match="skills must be"):
        asyncio.run(run_sample(bench, s, AgentContext("symbolic")))


def test_a_recorded_run_through_the_harness(monkeypatch: pytest.MonkeyPatch) -> None:
    import mindloop.bench.runner as runner
    from mindloop.bench.runner import RunRequest, run_benchmark

    real = runner.get_benchmark
    monkeypatch.setattr(runner, "get_benchmark", lambda name: ClawBenchmark() if name == "claw" else real(name))
    summary = run_benchmark(RunRequest("claw", agent="symbolic", n=3), progress=False).to_json()
    assert summary["n"] == 3 and summary["n_failed"] == 0
    _contract(summary["metrics"])


def test_never_and_first_are_the_trivial_floor() -> None:
    """Issue 22: over the episodes that need help an agent that never intervenes scores TA = PIA = 0 (as the paper's
    never-intervening models), one that acts at the first window too; the controls are reported apart."""
    bench = ClawBenchmark()
    samples = bench.samples(None, 0, validate_options(bench, {}))
    help_ = [s for s in samples if s.group.endswith("/help")][:6]
    controls = [s for s in samples if s.group.endswith("/control")][:2]
    chosen = help_ + controls
    never = bench.summarize(_records(bench, chosen, "never"))
    assert (never["ta"], never["pia"], never["missed"]) == (0.0, 0.0, 6)
    assert never["control_episodes"] == {"ta": 1.0, "pia": 1.0, "n": 2, "false_alarms": 0}
    assert never["all_episodes"]["pia"] == 0.25 and "need help" in never["headline_over"]
    first = bench.summarize(_records(bench, chosen, "first"))
    assert first["ta"] == 0.0 and first["pia"] == 0.0 and first["early"] == 6
    assert first["control_episodes"]["false_alarms"] == 2 and first["control_episodes"]["pia"] == 0.0


def test_the_timeline_shows_a_verdict_and_an_action_taken_regardless_of_it() -> None:
    """The ``first`` policy acts at its first window whatever its reasoner concluded: the timeline names the
    reasoner's conclusion as a verdict and says the action was taken regardless, where the trace shows no
    warranted reasoning at that window; the symbolic runtime acts on a warranted verdict, shown as a plain act."""
    bench = ClawBenchmark()
    samples = bench.samples(None, 0, validate_options(bench, {}))
    chosen = [s for s in samples if s.group.endswith("/help")][:4]
    seen = {"regardless": 0, "act": 0}
    for agent in ("first", "symbolic"):
        for record in _records(bench, chosen, agent):
            timeline = bench.timeline(record)
            assert timeline is not None
            for step, row in zip(record.output["trace"], timeline.steps, strict=True):
                reasons = step["r"]
                for r in reasons:
                    said = "help warranted" if r["warranted"] else "no help warranted"
                    assert f"→ verdict: {said}" in row.agent
                acts = [line for line in row.agent.splitlines() if line.startswith("act")]
                if not step["a"]["steps"]:
                    assert not acts
                    continue
                against = bool(reasons) and not any(r["warranted"] for r in reasons)
                assert len(acts) == 1 and acts[0].startswith("act regardless of the verdict: ") is against
                seen["regardless" if against else "act"] += 1
    assert seen["regardless"] and seen["act"]  # both kinds of window occurred

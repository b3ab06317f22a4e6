"""The mindpower model agent and its judges end to end through a local OpenAI-compatible server: the agent's reply
and both judges' replies are read through ``ask`` (a refused reply goes back with the reason), the judges' calls are
in each sample's ledger with role ``judge`` and in ``tokens.by_role``, and the summary's ``replies`` block counts
the agent's replies only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import mindloop.models.base as base_module
from mindloop.bench.api import AgentContext
from mindloop.bench.options import validate_options
from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer
from mindloop.systems.mindpower.benchmarks import MindPowerBenchmark
from mindloop.systems.mindpower.metrics import BPC_PROMPT, ROBOT_CENTRIC_PROMPT

RC_OK = (
    '{"score": {"Perception Level": 1, "BDI Reasoning": 1, "Robot-Centric Evaluation": 1, '
    '"Effectiveness of Actions": 0}, "total_score": 3}'
)


def test_agent_and_judges_read_through_ask_with_judge_calls_in_the_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = MindPowerBenchmark()
    samples = bench.samples(2, 0, validate_options(bench, {"similarity": "off"}))
    gold = {s.input["scenario"]["observation"]: s.input["scenario"]["gold_text"] for s in samples}
    retry_reasons: list[str] = []

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        first = str(messages[0]["content"])
        retried = len(messages) > 1  # every prompt is one user message; a retry adds the reply and the reason
        if retried:
            retry_reasons.append(str(messages[-1]["content"]))
        if first.startswith(BPC_PROMPT):  # a score in prose, no JSON object: refused, then a clean verdict
            return '{"total_score": 8, "reasoning": "close"}' if retried else "Score: 8 or maybe 9."
        if first.startswith(ROBOT_CENTRIC_PROMPT):
            return RC_OK
        observation = next(o for o in gold if o in first)
        if observation == samples[0].input["scenario"]["observation"] and not retried:
            return "<Description> Someone moves something.\n<Decision> Help."  # layers missing: refused
        return str(gold[observation])

    built: list[tuple[str, ModelOptions]] = []
    real_load = base_module.load_model

    def load(name: str, options: ModelOptions | None = None) -> Any:
        built.append((name, options or ModelOptions()))
        return real_load(name, options)

    monkeypatch.setattr(base_module, "load_model", load)
    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(reply) as server:
        opts = ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01, timeout_s=30)
        options = {"similarity": "off", "judge": "openai/judge", "judge_base_url": server.base_url}
        request = RunRequest(
            "mindpower", agent="model", model="openai/agent", model_options=opts, options=options, n=2, concurrency=1
        )
        summary = run_benchmark(request, store=store, progress=False)
        records = store.records(summary.run_id)
    m = summary.metrics
    assert summary.replies == {"parsed": 2, "rejected": 1, "no_reply": 0, "unread": 0, "retries": 1}
    assert (m["failed"], m["sr"], m["ac"], m["format_ok"]) == (0, 100.0, 100.0, 100.0)
    assert (m["bpc"], m["bpc_unscored"], m["robot_centric"], m["robot_centric_unscored"]) == (8.0, 0, 3.0, 0)
    judge_calls = [c for r in records for c in r.calls if c["role"] == "judge"]
    assert len(judge_calls) == 6  # per sample: BPC refused once then read, Robot-Centric read at once
    assert sorted((c["parsed"], c["attempt"]) for c in judge_calls) == sorted([(False, 0), (True, 1), (True, 0)] * 2)
    by_role = summary.tokens["by_role"]
    assert (by_role["agent"]["calls"], by_role["judge"]["calls"]) == (3, 6)
    assert by_role["judge"]["prompt_tokens"] > by_role["agent"]["prompt_tokens"] > 0
    assert any(r.startswith("Your reply could not be read: malformed hierarchy output: missing") for r in retry_reasons)
    assert "Your reply could not be read: the reply is not one JSON object (no {...} in it)." in retry_reasons[1]
    judges = [o for name, o in built if name == "openai/judge"]  # built with the run's options (cache, timeout)
    assert judges and all((o.cache, o.backoff_s, o.timeout_s) == ("off", 0.01, 30) for o in judges)


def _judge_options(bench: MindPowerBenchmark, settings: dict[str, Any], ctx: AgentContext) -> ModelOptions:
    judge: Any = bench._judges.get(settings, ctx)
    assert judge is not None
    return getattr(judge, "inner", judge).options  # type: ignore[no-any-return]


def test_the_judge_client_takes_the_run_s_options_and_judge_timeout() -> None:
    bench = MindPowerBenchmark()
    raw = {"similarity": "off", "judge": "openai/judge", "judge_base_url": "http://127.0.0.1:9/v1"}
    timed = bench.samples(1, 0, validate_options(bench, {**raw, "judge_timeout": "600"}))[0].input["settings"]
    plain = bench.samples(1, 0, validate_options(bench, raw))[0].input["settings"]
    run = ModelOptions(base_url="http://127.0.0.1:8/v1", timeout_s=300, max_retries=2, extra={"server_slots": 1})
    ctx = AgentContext(agent="model", model_options=run)
    judged = _judge_options(bench, plain, ctx)  # the run's --timeout and --retries, the judge's own endpoint
    assert (judged.timeout_s, judged.max_retries, judged.base_url, dict(judged.extra)) == (
        300.0,
        2,
        "http://127.0.0.1:9/v1",
        {},
    )
    assert _judge_options(bench, timed, ctx).timeout_s == 600.0  # judge_timeout wins
    assert _judge_options(bench, plain, AgentContext(agent="model")).timeout_s == 120.0  # outside a run: defaults

"""Every model call a run makes is in its ledger with its role: a MindPower judge's BPC and Robot-Centric calls
are in the sample's ``calls``, in ``tokens`` and split by role (they used to be missing). Real HTTP throughout."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.api import AgentContext
from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.models import FakeChatServer
from mindloop.models.base import GenerationConfig, ModelOptions, RecordingModel, message
from mindloop.systems.mindpower.metrics import BPC_PROMPT, ROBOT_CENTRIC_PROMPT

RC = (
    '{"score": {"Perception Level": 1, "BDI Reasoning": 1, "Robot-Centric Evaluation": 1, '
    '"Effectiveness of Actions": 0}, "total_score": 3}'
)


def _reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    text = str(messages[-1]["content"])
    if text.startswith(BPC_PROMPT):
        return '{"total_score": 8, "reasoning": "close"}'
    if text.startswith(ROBOT_CENTRIC_PROMPT):
        return RC
    return "<Perception> something\n<Action> walk(kitchen)"  # the agent's (poor) answer


def _tokens(calls: list[dict[str, Any]]) -> dict[str, int]:
    return {
        "calls": len(calls),
        "prompt_tokens": sum(int(c["prompt_tokens"]) for c in calls),
        "completion_tokens": sum(int(c["completion_tokens"]) for c in calls),
    }


@pytest.mark.parametrize("agent", ["symbolic", "model"])
def test_judge_calls_are_in_the_ledger_by_role(tmp_path: Path, agent: str) -> None:
    with FakeChatServer(reply=_reply) as server:
        options = {"similarity": "off", "judge": "openai/judge", "judge_base_url": server.base_url}
        request = RunRequest(
            "mindpower",
            agent=agent,
            model="openai/agent" if agent == "model" else None,
            n=2,
            options=options,
            concurrency=1,
            model_options=ModelOptions(base_url=server.base_url, cache="off", timeout_s=5),
        )
        with RunStore(tmp_path / "runs.sqlite") as store:
            summary = run_benchmark(request, store=store, progress=False)
            records = store.records(summary.run_id)
        served = server.requests
    calls = [c for r in records for c in r.calls]
    judge = [c for c in calls if c["role"] == "judge"]
    agent_calls = [c for c in calls if c["role"] == "agent"]
    assert len(judge) == 4  # BPC and Robot-Centric for each of the two samples
    # the agent's reply lacks four of the six layers: it goes back once with the reason (--format-retries 1)
    assert len(agent_calls) == (4 if agent == "model" else 0)
    assert [c["attempt"] for c in agent_calls] == ([0, 1, 0, 1] if agent == "model" else [])
    assert served >= len(calls)  # (a model run's preflight is one more request, outside any sample)
    assert all(c["model"] == "openai/judge" for c in judge)
    assert summary.tokens["calls"] == len(calls)
    by_role = summary.tokens["by_role"]
    assert set(by_role) == ({"agent", "judge"} if agent == "model" else {"judge"})
    for role, role_calls in (("judge", judge), ("agent", agent_calls)):
        if role_calls:
            got = by_role[role]
            assert {k: got[k] for k in ("calls", "prompt_tokens", "completion_tokens")} == _tokens(role_calls)
            assert got["total_tokens"] == got["prompt_tokens"] + got["completion_tokens"] > 0
    assert summary.metrics["bpc"] == pytest.approx(8.0)


def test_agent_context_recorded_shares_the_ledger() -> None:
    with FakeChatServer(reply=lambda m, b: "ok") as server:
        from mindloop.models import load_model

        inner = load_model("openai/x", ModelOptions(base_url=server.base_url, cache="off", timeout_s=5))
        ledger: list[Any] = []
        ctx = AgentContext("model", model=RecordingModel(inner, calls=ledger), ledger=ledger)
        judge = ctx.recorded(inner)

        async def go() -> None:
            try:
                assert ctx.model is not None
                await ctx.model.generate([message("user", "a")], GenerationConfig())
                await judge.generate([message("user", "b")], GenerationConfig())
            finally:
                await inner.aclose()

        asyncio.run(go())
    assert [c.role for c in ledger] == ["agent", "judge"]
    assert AgentContext("symbolic").recorded(inner) is inner  # outside a run: nothing to record into

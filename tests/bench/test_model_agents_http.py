"""Every registered model-driven agent reaches a real local HTTP server, and survives a useless reply.

The reply is a polite refusal no parser can use: each benchmark must still finish its sample, record the call
(prompt and reply) in the run store, and either count the sample as failed with a reason or score it as the
agent's own rules for invalid output say (explorers treat it as an invalid action and carry on).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from small_runs import small_options

from mindloop.bench import BENCHMARKS, RunRequest, RunStore, get_benchmark, run_benchmark
from mindloop.bench.agents import model_agents
from mindloop.models import ModelOptions
from mindloop.models.fake_server import FakeChatServer

REFUSAL = "I cannot help with that."
MODEL_BENCHMARKS = [name for name in BENCHMARKS.names() if model_agents(get_benchmark(name))]


@pytest.mark.parametrize("name", MODEL_BENCHMARKS)
def test_model_agent_over_http_with_a_useless_reply(name: str, tmp_path: Path) -> None:
    bench = get_benchmark(name)
    agent = sorted(model_agents(bench))[0]
    if bench.agents[agent].team:
        agent = f"{agent},{agent}"  # team benchmarks take one agent per teammate (two by default)
    with FakeChatServer(lambda messages, body: REFUSAL) as server, RunStore(tmp_path / "runs.sqlite") as store:
        options = ModelOptions(base_url=server.base_url, cache="off", max_retries=0)
        request = RunRequest(
            name, agent=agent, model="openai/fake", n=1, options=small_options(name), model_options=options
        )
        summary = run_benchmark(request, store=store, progress=False)
        [record] = store.records(summary.run_id)
        requests = server.requests
    assert summary.n_completed == 1 and requests >= 1
    assert summary.tokens["calls"] == len(record.calls) == requests
    assert all(call["text"] == REFUSAL and call["messages"] for call in record.calls)
    if record.status == "failed":
        assert record.error and summary.n_failed == 1

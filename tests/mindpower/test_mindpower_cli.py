"""``mindpower table``: Table 2 from runs in the store."""

from __future__ import annotations

import asyncio
import json

from typer.testing import CliRunner

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext
from mindloop.bench.options import validate_options
from mindloop.bench.store import RunStore, SampleResult
from mindloop.errors import InvalidArgumentError
from mindloop.paths import runs_path
from mindloop.systems.mindpower.benchmarks import MindPowerBenchmark
from mindloop.systems.mindpower.cli import mindpower_app


def _store_run(agent: str, model: str | None, replies: list[str] | None, fake_chat: type) -> str:
    bench = MindPowerBenchmark()
    samples = bench.samples(3, 0, validate_options(bench, {"similarity": "off"}))
    results = []
    for i, s in enumerate(samples):
        chat = None if replies is None else fake_chat(lambda p, m, r=replies[i]: r)
        o = asyncio.run(run_sample(bench, s, AgentContext(agent, model=chat)))
        results.append(SampleResult(i, "failed" if o.error else "done", o.output, o.scores, o.error, [], 0.0))
    with RunStore(runs_path()) as store:
        run_id = store.create_run(
            benchmark="mindpower", agent=agent, model=model, config={}, samples=samples, version="t"
        )
        store.finish(run_id, results)
    return run_id


def test_table_of_two_runs(fake_chat: type) -> None:
    ref = _store_run("symbolic", None, None, fake_chat)
    bad = _store_run("model", "openai/bad", ["nope", "nope", "nope"], fake_chat)
    result = CliRunner().invoke(mindpower_app, ["table", ref, bad, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rows"]["symbolic"]["sr"] == 100.0 and data["rows"]["symbolic"]["run_id"] == ref
    assert data["rows"]["openai/bad"]["sr"] == 0.0 and data["rows"]["openai/bad"]["failed"] == 3
    lines = data["table"].splitlines()
    assert lines[2].startswith("| symbolic |") and "| 100.00 | 100.00 | - |" in lines[2]
    assert lines[3].startswith("| openai/bad |") and lines[3].endswith("| 0.00 | 0.00 | - |")
    plain = CliRunner().invoke(mindpower_app, ["table", ref])
    assert plain.exit_code == 0 and plain.stdout == data["table"].split("\n| openai")[0] + "\n"


def test_not_a_mindpower_run(fake_chat: type) -> None:
    from mindloop.bench.api import Sample

    with RunStore(runs_path()) as store:
        other = store.create_run(benchmark="hitom", agent="symbolic", model=None, config={},
                                 samples=[Sample("a", {})], version="t")  # fmt: skip
    result = CliRunner().invoke(mindpower_app, ["table", other])
    assert isinstance(result.exception, InvalidArgumentError) and "not a mindpower run" in str(result.exception)

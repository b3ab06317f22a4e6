"""The runner: every executor gives the same results, interrupted runs resume without redoing a sample."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.api import AgentContext, Outcome, Sample
from mindloop.bench.runner import RunRequest, run_benchmark, sample_seed, summarize_run
from mindloop.bench.store import RunStore
from mindloop.errors import InvalidArgumentError
from mindloop.models import FakeChatServer, ModelOptions
from mindloop.systems.tom.benchmarks import ToMiBenchmark
from mindloop.worlds.stories.generate import generate_tomi


def _outputs(store: RunStore, run_id: str) -> list[tuple[str, str, Any]]:
    return [(r.sample.id, r.status, r.output) for r in store.records(run_id, include_pending=True)]


def test_generated_tomi_is_answered_perfectly_and_matches_its_independent_gold(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        summary = run_benchmark(RunRequest("tomi", n=120, seed=3), store=store, progress=False)
        assert (summary.n, summary.n_completed, summary.n_failed) == (120, 120, 0)
        assert summary.metrics["accuracy"] == 1.0
        gold = [g.answer for g in generate_tomi(120, seed=3)]
        answers = [r.output["answer"] for r in store.records(summary.run_id) if r.output]
        assert answers == gold
        assert {t: v["n"] for t, v in summary.metrics["by_type"].items()} == {
            "reality": 30,
            "memory": 30,
            "first_order": 30,
            "second_order": 30,
        }


def test_bundled_hitom_matches_tom_eval(tmp_path: Path) -> None:
    from mindloop.systems.tom.benchmarks import bundled_hitom_path
    from mindloop.systems.tom.evaluate import evaluate_file

    report = evaluate_file(bundled_hitom_path(), "hitom")
    with RunStore(tmp_path / "runs.sqlite") as store:
        summary = run_benchmark(RunRequest("hitom"), store=store, progress=False)
    assert summary.n == report.n == 240
    assert summary.metrics["accuracy"] == pytest.approx(report.accuracy)
    assert {t: v["accuracy"] for t, v in summary.metrics["by_type"].items()} == pytest.approx(
        {t: s.accuracy for t, s in report.by_type.items()}
    )


def test_process_executor_gives_the_local_results(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        local = run_benchmark(RunRequest("hitom", n=60), store=store, progress=False)
        proc = run_benchmark(RunRequest("hitom", n=60, executor="process", concurrency=2), store=store, progress=False)
        assert proc.metrics == local.metrics
        assert _outputs(store, proc.run_id) == _outputs(store, local.run_id)


@pytest.mark.boundary  # a local Ray: its workers are processes
@pytest.mark.slow
@pytest.mark.scale
def test_ray_executor_gives_the_local_results(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        local = run_benchmark(RunRequest("tomi", n=40, seed=5), store=store, progress=False)
        ray_run = run_benchmark(
            RunRequest("tomi", n=40, seed=5, executor="ray", concurrency=4), store=store, progress=False
        )
        assert ray_run.metrics == local.metrics
        assert (ray_run.n_completed, ray_run.n_failed) == (40, 0)
        assert _outputs(store, ray_run.run_id) == _outputs(store, local.run_id)


@pytest.mark.boundary  # a local Ray: its workers are processes
@pytest.mark.slow
@pytest.mark.scale
def test_ray_executor_keeps_no_more_samples_in_flight_than_the_concurrency(tmp_path: Path) -> None:
    # Samples slower than the executor's 0.2 s wait for a finished task: each wait that found none used to submit
    # one more task, so --concurrency 1 put 3 requests at once on a server that answers in a second.
    with FakeChatServer(latency_s=1.0) as server, RunStore(tmp_path / "runs.sqlite") as store:
        request = RunRequest(
            "tomi",
            agent="model",
            model="openai/fake",
            n=4,
            concurrency=1,
            executor="ray",
            format_retries=0,
            model_options=ModelOptions(base_url=server.base_url, cache="off"),
        )
        summary = run_benchmark(request, store=store, progress=False)
        assert (summary.n_completed, server.requests) == (4, 4)
        assert server.max_in_flight == 1


def test_ctrl_c_keeps_finished_samples_and_resume_runs_only_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    original = ToMiBenchmark._symbolic

    async def interrupting(self: ToMiBenchmark, sample: Sample, ctx: AgentContext) -> Outcome:
        calls.append(sample.id)
        if len(calls) == 25:
            raise KeyboardInterrupt
        return await original(self, sample, ctx)

    with RunStore(tmp_path / "runs.sqlite") as store:
        whole = run_benchmark(RunRequest("tomi", n=80, seed=9), store=store, progress=False)
        monkeypatch.setattr(ToMiBenchmark, "_symbolic", interrupting)
        cut = run_benchmark(RunRequest("tomi", n=80, seed=9, concurrency=1), store=store, progress=False)
        assert cut.interrupted and cut.n_completed == 24
        done_before = {r.sample.id for r in store.records(cut.run_id)}
        calls.clear()
        monkeypatch.setattr(ToMiBenchmark, "_symbolic", _counting(original, calls))
        resumed = run_benchmark(RunRequest("tomi"), store=store, resume=cut.run_id, progress=False)
        assert not resumed.interrupted
        assert set(calls).isdisjoint(done_before) and len(calls) == 80 - 24
        assert resumed.to_json() | {"seconds": 0, "run_id": ""} == whole.to_json() | {"seconds": 0, "run_id": ""}
        assert summarize_run(cut.run_id, store).metrics == whole.metrics


def _counting(original: Any, calls: list[str]) -> Any:
    async def counting(self: ToMiBenchmark, sample: Sample, ctx: AgentContext) -> Outcome:
        calls.append(sample.id)
        return await original(self, sample, ctx)

    return counting


def test_resume_refuses_a_run_of_another_benchmark(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        run = run_benchmark(RunRequest("tomi", n=3), store=store, progress=False)
        with pytest.raises(InvalidArgumentError, match="is a 'tomi' run"):
            run_benchmark(RunRequest("hitom"), store=store, resume=run.run_id, progress=False)


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (RunRequest("tomi", agent="oracle"), "no agent 'oracle'"),
        (RunRequest("tomi", agent="model"), "needs a model"),
        (RunRequest("tomi", agent="symbolic", model="scripted/echo"), "does not use a model"),
        (RunRequest("tomi", options={"colour": "red"}), "has no option 'colour'"),
        (RunRequest("tomi", options={"data": "/no/such/file"}), "no such file"),
    ],
)
def test_bad_requests_are_clear_errors(tmp_path: Path, request_: RunRequest, message: str) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store, pytest.raises(InvalidArgumentError, match=message):
        run_benchmark(request_, store=store, progress=False)


def test_a_request_with_a_bad_field_is_refused_when_built() -> None:
    with pytest.raises(InvalidArgumentError, match="RunRequest concurrency must be at least 1, got 0"):
        RunRequest("tomi", concurrency=0)


def test_sample_seeds_depend_on_run_seed_and_sample_only() -> None:
    assert sample_seed(1, "q1") == sample_seed(1, "q1")
    assert len({sample_seed(s, q) for s in range(3) for q in ("q1", "q2", "q3")}) == 9

"""A model run in the background leaves a trail: an estimate before it starts, plain progress lines in its log;
and ``--model-opt`` reaches the backend and the run's stored config."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from mindloop.bench import RunRequest, RunStore, run_benchmark
from mindloop.bench.progress import ProgressLog, duration, run_estimate
from mindloop.bench.smoke import SmokeBenchmark
from mindloop.cli import main
from mindloop.models import FakeChatServer, ModelOptions


class Clock:
    """A hand-driven clock."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_line_counts_rate_eta_and_failures_of_this_session() -> None:
    clock = Clock()
    log = ProgressLog("hitom · model", total=30, done=10, every=0, stream=io.StringIO(), clock=clock)
    assert log.line() == (
        "progress hitom · model: 10/30 samples (33%), 0.00 samples/s, ETA unknown, 0 failed; 0s elapsed"
    )
    clock.now += 40.0
    log.advance(8, failed=1, bugs=0)  # 8 in 40 s: 0.2 a second; 12 left: 60 s
    assert log.line() == "progress hitom · model: 18/30 samples (60%), 0.20 samples/s, ETA 1m00s, 1 failed; 40s elapsed"
    clock.now += 60.0
    log.advance(12, failed=2, bugs=1)
    assert log.line().endswith("30/30 samples (100%), 0.20 samples/s, ETA 0s, 2 failed, 1 bug; 1m40s elapsed")


def test_a_log_with_no_interval_prints_nothing() -> None:
    out = io.StringIO()
    with ProgressLog("x", total=3, every=0, stream=out) as log:
        log.advance(3)
    assert out.getvalue() == "" and log.lines == 0


def test_durations() -> None:
    assert [duration(s) for s in (0, 59.4, 60, 3599, 3600, 7322)] == ["0s", "59s", "1m00s", "59m59s", "1h00m", "2h02m"]


def test_rough_estimate_counts_the_samples_text_and_caps_completions() -> None:
    bench = SmokeBenchmark()
    samples = bench.samples(3, seed=1, options=None)  # type: ignore[arg-type]
    words = sum(-(-len(s.input["word"]) // 4) for s in samples)  # 4 characters a token, rounded up
    line = run_estimate(bench, samples, [], max_tokens=16)
    assert line == (
        f"estimate (rough, before any call): 3 samples, at least 3 model calls (1 a sample); the samples' own text "
        f"is ~{words} tokens (prompts add instructions, and multi-turn agents resend it), at most 16 completion "
        "tokens a call"
    )


def test_a_run_off_a_terminal_prints_an_estimate_then_progress_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 4 samples one at a time, 0.1 s each: the run outlasts the 0.02 s interval, so lines are printed, the last
    # when it ends (pytest's captured stderr is not a terminal)
    with FakeChatServer(latency_s=0.1) as server, RunStore(tmp_path / "runs.sqlite") as store:
        options = ModelOptions(base_url=server.base_url, cache="off", concurrency=1)
        request = RunRequest("smoke", model="openai/q", n=4, concurrency=1, model_options=options, progress_every=0.02)
        summary = run_benchmark(request, store=store, progress=True)
    err = capsys.readouterr().err.splitlines()
    assert summary.n_completed == 4
    assert err[0] == "smoke: preparing up to 4 samples (seed 0)"  # the first line, before the samples are made
    assert err[1] == f"{summary.run_id}: running 4 of 4 samples with model on openai/q (local, 1 at a time)"
    assert err[2].startswith("estimate (rough, before any call): 4 samples, at least 4 model calls")
    progress = [line for line in err if line.startswith("progress smoke · model: ")]
    assert len(progress) >= 2
    assert re.search(r": 4/4 samples \(100%\), [0-9.]+ samples/s, ETA 0s, 0 failed; ", progress[-1])


def test_a_resumed_run_estimates_from_its_finished_samples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeChatServer() as server, RunStore(tmp_path / "runs.sqlite") as store:
        options = ModelOptions(base_url=server.base_url, cache="off")
        first = run_benchmark(RunRequest("smoke", model="openai/q", n=6, model_options=options), store=store)
        records = store.records(first.run_id)
        pending = SmokeBenchmark().samples(4, seed=9, options=None)  # type: ignore[arg-type]
        line = run_estimate(SmokeBenchmark(), pending, records, max_tokens=None)
    calls = [c for r in records for c in r.calls]
    tokens = sum(c["prompt_tokens"] + c["completion_tokens"] for c in calls) / 6
    assert len(calls) == 6
    assert line == (
        f"estimate from the 6 finished samples: ~1.0 model calls and ~{tokens:,.0f} tokens a sample, so ~4 calls "
        f"and ~{tokens * 4:,.0f} tokens for the 4 pending"
    )
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "smoke: preparing up to 6 samples (seed 0)"
    assert ": running 6 of 6 samples with model on openai/q" in err[1] and err[2].startswith("estimate (rough")


def test_model_opts_reach_the_backend_and_the_stored_config(tmp_path: Path) -> None:
    with FakeChatServer(latency_s=0.02) as server, RunStore(tmp_path / "runs.sqlite") as store:
        options = ModelOptions(base_url=server.base_url, cache="off", extra={"server_slots": 1})
        summary = run_benchmark(
            RunRequest("smoke", model="openai/q", n=6, model_options=options), store=store, progress=False
        )
        config = store.run(summary.run_id).config
        assert server.max_in_flight == 1  # one slot, as the option said, though 8 samples run at once
    assert config["model_options"]["extra"] == {"server_slots": 1}


def test_cli_refuses_an_unknown_model_opt_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "run", "smoke", "--model", "llamacpp/m.gguf", "--model-opt", "n_cxt=8192"]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "mindloop: error: unknown --model-opt 'n_cxt' for the llamacpp backend; did you mean 'n_ctx'? "
        "(keys: chat_format, n_ctx, n_gpu_layers, n_threads, seed)"
    ]


def test_cli_passes_model_opts_and_progress_every(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeChatServer(latency_s=0.01) as server:
        argv = ["bench", "run", "smoke", "--model", "openai/q", "--base-url", server.base_url, "--n", "5"]
        argv += ["--model-opt", "server_slots=1", "--progress-every", "0", "--cache", "off"]
        assert main(argv) == 0
        assert server.max_in_flight == 1 and server.requests == 5
    err = capsys.readouterr().err
    assert "estimate (rough" in err and "progress smoke" not in err  # --progress-every 0: no lines

"""``mindloop demo``: the closed-loop timeline, and the episode recorded as a claw run with its HTML report."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from mindloop.systems.mindclaw.benchmarks import ClawBenchmark
from mindloop.systems.mindclaw.demo import run_demo


def test_demo_records_the_episode_and_writes_the_report(monkeypatch: pytest.MonkeyPatch) -> None:
    import mindloop.bench.runner as runner

    real = runner.get_benchmark
    monkeypatch.setattr(runner, "get_benchmark", lambda name: ClawBenchmark() if name == "claw" else real(name))
    buf = io.StringIO()
    out = run_demo(Console(file=buf, width=120))
    text = " ".join(buf.getvalue().split())
    assert out["helped_at"] == 15 and out["goal_met"] is True
    assert out["run_id"] and out["report"] and Path(out["report"]).is_file()
    assert f"Recorded as run {out['run_id']}: TA 1.00, PIA 1.00, CS 1.00" in text
    html = Path(out["report"]).read_text(encoding="utf-8")
    assert "claw" in html and out["run_id"] in html


def test_demo_fits_100_columns() -> None:
    buf = io.StringIO()
    run_demo(Console(file=buf, width=100), record=False)
    assert max(len(line) for line in buf.getvalue().splitlines()) <= 100

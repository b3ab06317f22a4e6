"""Generation settings follow the papers: a benchmark's declared ``generation_defaults`` apply unless
``--temperature`` / ``--max-tokens`` are given, and the run records where each field came from."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.generation import resolve_generation
from mindloop.bench.registry import get_benchmark
from mindloop.cli import main
from mindloop.models import FakeChatServer


def test_cobel_benchmarks_default_to_the_papers_settings() -> None:
    for name in ("cwah", "tdw-mat"):
        config, source = resolve_generation(get_benchmark(name))
        # CoBel-World section 4.1: temperature 0.7, top-p 1, at most 512 tokens
        assert (config.temperature, config.max_tokens, config.top_p) == (0.7, 512, 1.0)
        assert source == {"temperature": "paper", "max_tokens": "paper", "top_p": "paper"}
        config, source = resolve_generation(get_benchmark(name), temperature=0.0)
        assert (config.temperature, config.max_tokens) == (0.0, 512)
        assert source == {"temperature": "cli", "max_tokens": "paper", "top_p": "paper"}


def test_a_benchmark_without_paper_settings_keeps_mindloops_defaults() -> None:
    config, source = resolve_generation(get_benchmark("tomi"), max_tokens=64)
    assert (config.temperature, config.max_tokens, config.top_p) == (0.0, 64, None)
    assert source == {"temperature": "default", "max_tokens": "cli", "top_p": "default"}


@pytest.mark.parametrize(
    ("args", "sent", "recorded"),
    [
        ([], (0.0, 1024), {"temperature": "default", "max_tokens": "default", "top_p": "default"}),
        (["--temperature", "0.3", "--max-tokens", "77"], (0.3, 77), {"temperature": "cli", "max_tokens": "cli"}),
    ],
)
def test_the_run_sends_and_records_the_resolved_settings(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    sent: tuple[float, int],
    recorded: dict[str, str],
) -> None:
    bodies: list[dict[str, Any]] = []

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        bodies.append(body)
        return "A"

    monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path))
    with FakeChatServer(reply=reply) as server:
        argv = ["bench", "run", "tomi", "--n", "2", "--model", "openai/m", "--base-url", server.base_url, "--json"]
        assert main([*argv, "--cache", "off", *args]) == 0
    capsys.readouterr()
    asked = [b for b in bodies if b.get("max_tokens") != 1]  # (a pre-flight chat call asks for one token)
    assert asked and {(b["temperature"], b["max_tokens"]) for b in asked[-2:]} == {sent}
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    (config,) = db.execute("SELECT config FROM runs").fetchone()
    source = json.loads(config)["generation_source"]
    assert {k: source[k] for k in recorded} == recorded

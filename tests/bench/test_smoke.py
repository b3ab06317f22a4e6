"""``smoke``: the endpoint check reads the word case-blind and sends the run's generation settings."""

from __future__ import annotations

import re
from pathlib import Path

from mindloop.bench import RunRequest, RunStore, run_benchmark
from mindloop.models import FakeChatServer, GenerationConfig, ModelOptions


def _shout(messages: list[dict], body: dict) -> str:
    word = re.search(r"nothing else: (\S+)", messages[-1]["content"]).group(1)  # type: ignore[union-attr]
    return f"{word.upper()}!"


def test_a_reply_in_another_case_counts_and_the_settings_reach_the_server(tmp_path: Path) -> None:
    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(_shout) as server:
        request = RunRequest(
            "smoke",
            n=5,
            agent="model",
            model="openai/fake",
            model_options=ModelOptions(base_url=server.base_url, cache="off"),
            generation=GenerationConfig(temperature=0.3, max_tokens=17),
        )
        summary = run_benchmark(request, store=store, progress=False)
        bodies = list(server.bodies)
    assert summary.metrics["accuracy"] == 1.0  # "GARDEN-6890!" answers "garden-6890"
    assert {(b["temperature"], b["max_tokens"]) for b in bodies} == {(0.3, 17)}


def test_no_samples_is_no_accuracy_not_zero() -> None:
    from mindloop.bench.scoring import run_metrics
    from mindloop.bench.smoke import SmokeBenchmark

    assert run_metrics(SmokeBenchmark(), []) == {"accuracy": None}  # its declared accuracy, with no data

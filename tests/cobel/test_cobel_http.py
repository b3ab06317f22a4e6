"""cobel-llm over HTTP (a local OpenAI-compatible server with scripted replies): one formatting slip is sent back
with the reader's reason and the episode goes on, the retry counted in the run summary; a model that slips again
fails the episode, counted too. Short episodes with ``--opt max_steps`` name their deviation."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.runner import RunRequest, RunSummary, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer

sys.path.insert(0, str(Path(__file__).parent))
from fakes import prompt_kind, sensible_replies


class Scripted:
    """Answers each CoBel prompt by its kind (the first user message's), slipping on the ``slip_at``-th Fig. 14
    reply ``slips`` times in a row before answering well; keeps every request's messages."""

    def __init__(self, slips: int = 1, slip_at: int = 3) -> None:
        self.replies = sensible_replies()
        self.slips = slips
        self.slip_at = slip_at
        self.fig14 = 0
        self.requests: list[list[dict[str, Any]]] = []

    def __call__(self, messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        self.requests.append(messages)
        prompt = str(messages[0]["content"])
        kind = prompt_kind(prompt)
        if kind == "fig14":
            self.fig14 += 1
            if self.slip_at <= self.fig14 < self.slip_at + self.slips:
                return "I think the best is to keep going with my plan."
        return self.replies[kind](prompt)


def _run(tmp_path: Path, reply: Scripted, *, retries: int = 1, options: dict[str, str] | None = None) -> RunSummary:
    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(reply) as server:
        request = RunRequest(
            "cwah",
            agent="cobel-llm,cobel",
            model="openai/fake",
            model_options=ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01),
            n=1,
            options=options or {},
            concurrency=1,
            format_retries=retries,
        )
        return run_benchmark(request, store=store, progress=False)


def test_a_slip_then_a_good_reply_completes_the_episode_and_the_retry_is_counted(tmp_path: Path) -> None:
    reply = Scripted(slips=1)
    summary = _run(tmp_path, reply)
    assert summary.n_failed == 0 and summary.metrics["finished"] == 1.0 and summary.metrics["avg_steps"] < 250
    calls = len(reply.requests)
    assert summary.replies == {"parsed": calls - 1, "rejected": 1, "no_reply": 0, "unread": 0, "retries": 1}
    # the retry carried the refused reply and the reader's one-line reason after the original prompt
    retry = next(m for m in reply.requests if len(m) > 1)
    assert retry[1] == {"role": "assistant", "content": "I think the best is to keep going with my plan."}
    assert "Fig. 14 answer is not an action from the list" in retry[2]["content"]
    assert "deviation" not in summary.metrics  # the paper's 250-step limit


def test_a_model_that_slips_again_fails_the_episode_and_both_replies_are_counted(tmp_path: Path) -> None:
    summary = _run(tmp_path, Scripted(slips=2))
    assert summary.n_failed == 1 and summary.metrics["finished"] == 0.0 and summary.metrics["avg_steps"] == 250
    assert summary.replies["rejected"] == 2 and summary.replies["retries"] == 1 and summary.replies["unread"] == 0


def test_no_format_retry_when_the_run_asks_for_none(tmp_path: Path) -> None:
    reply = Scripted(slips=1)
    summary = _run(tmp_path, reply, retries=0)
    assert summary.n_failed == 1 and summary.replies["rejected"] == 1 and summary.replies["retries"] == 0
    assert all(len(m) == 1 for m in reply.requests)


def test_a_short_episode_names_its_deviation(tmp_path: Path) -> None:
    summary = _run(tmp_path, Scripted(slips=0), options={"max_steps": "3"})
    assert summary.n_failed == 0 and summary.metrics["finished"] == 0.0
    assert summary.metrics["max_steps"] == 3 and summary.metrics["avg_steps"] == 250  # unfinished counts the limit
    assert "max_steps=3" in summary.metrics["deviation"] and "250 steps" in summary.metrics["deviation"]


@pytest.mark.parametrize("bad", ["0", "251"])
def test_max_steps_outside_the_episode_is_refused(tmp_path: Path, bad: str) -> None:
    from mindloop.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="max_steps"):
        _run(tmp_path, Scripted(), options={"max_steps": bad})

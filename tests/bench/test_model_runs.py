"""Model-driven runs end to end against a real local OpenAI-compatible server: answers, failures, kills."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.cli import main
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer
from mindloop.systems.tom.agents import letters
from mindloop.worlds.stories.tomi import answer_question, parse_question, track_story


def oracle(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """Answer the prompt correctly with the tracker, phrased in one of the ways real models phrase answers."""
    text = messages[-1]["content"]
    story = text.split("Story:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    question = text.split("Question: ", 1)[1].split("\n", 1)[0]
    choices = text.split("Choices: ", 1)[1].strip().split(", ")
    names = [c.split(". ", 1)[1] for c in choices]
    fmt = "hitom" if "Note: You should assume" in text else "tomi"
    parsed = parse_question(question, "?", fmt)
    assert parsed is not None
    answer = answer_question(track_story(list(enumerate(story, 1)), fmt), parsed)
    assert answer is not None
    letter = letters(len(names))[names.index(answer)]
    style = zlib.crc32(question.encode()) % 3
    return [
        f"{letter}. {answer}\n\nExplanation: tracked.",
        f"I think it is in the {answer.replace('_', ' ')}.",
        f"Reasoning first.\nAnswer: {letter}",
    ][style]


def _request(server: FakeChatServer, **kw: Any) -> RunRequest:
    opts = ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01, **kw.pop("model_options", {}))
    return RunRequest("tomi", n=kw.pop("n", 24), seed=2, agent="model", model="openai/fake", model_options=opts, **kw)


def test_a_model_that_answers_like_the_tracker_scores_like_the_tracker(tmp_path: Path) -> None:
    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(oracle) as server:
        symbolic = run_benchmark(RunRequest("tomi", n=24, seed=2), store=store, progress=False)
        model = run_benchmark(_request(server, concurrency=4), store=store, progress=False)
        assert server.requests == 24
        records = store.records(model.run_id)
    headline = {k: v for k, v in model.metrics.items() if k not in ("accuracy_strict", "extraction")}
    assert headline == symbolic.metrics and model.metrics["accuracy"] == 1.0
    assert "flexible" in model.metrics["extraction"] and 0.0 <= model.metrics["accuracy_strict"] <= 1.0
    assert model.tokens["calls"] == 24 and model.tokens["prompt_tokens"] > 24 * 20
    assert {r.output["parsed_by"] for r in records if r.output} >= {"first line", "after an answer cue"}
    call = records[0].calls[0]
    assert call["messages"][0]["content"].startswith("Read the following story") and call["text"]


def test_failed_calls_are_kept_counted_and_scored_wrong(tmp_path: Path) -> None:
    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(oracle, faults=["500"] * 3) as server:
        summary = run_benchmark(
            _request(server, n=8, concurrency=1, model_options={"max_retries": 0}), store=store, progress=False
        )
        records = store.records(summary.run_id)
    assert (summary.n_completed, summary.n_failed) == (8, 3)
    assert summary.metrics["accuracy"] == pytest.approx(5 / 8)
    assert (summary.metrics["model_failures"], summary.metrics["unparsed"]) == (3, 0)  # calls failed, none misread
    failed = [r for r in records if r.status == "failed"]
    assert all("HTTP 500" in (r.error or "") and r.calls[0]["error"] for r in failed)
    assert summary.tokens["failed_calls"] == 3


def test_a_hung_server_becomes_a_timeout_failure_not_a_hang(tmp_path: Path) -> None:
    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(oracle, faults=["hang"], hang_s=60) as server:
        summary = run_benchmark(
            _request(server, n=2, concurrency=1, model_options={"max_retries": 0, "timeout_s": 0.3}),
            store=store,
            progress=False,
        )
        # the run finished while the server still holds the hung request; the answered one leaves the count only
        # after its reply is sent, so give that handler thread a moment (a deadline against hanging, not a timing)
        deadline = time.monotonic() + 10
        while server.in_flight > 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.in_flight == 1
        [first, second] = store.records(summary.run_id)
    assert first.status == "failed" and "ModelTimeoutError" in (first.error or "")
    assert second.status == "done"


def test_an_unparseable_reply_is_a_failure_with_the_reply_kept(tmp_path: Path) -> None:
    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(lambda m, b: "No idea, sorry.") as server:
        summary = run_benchmark(_request(server, n=3), store=store, progress=False)
        records = store.records(summary.run_id)
    assert (summary.n_failed, summary.metrics["accuracy"], summary.metrics["unparsed"]) == (3, 0.0, 3)
    assert records[0].output == {
        "answer": None,
        "strict_answer": None,
        "parsed_by": "names none of the choices",
        "reply": "No idea, sorry.",
        "attempts": 2,  # the reply went back once with the reason (--format-retries 1), and came back the same
    }
    assert summary.metrics["accuracy_strict"] == 0.0 and summary.metrics["model_failures"] == 0
    assert summary.replies == {"parsed": 0, "rejected": 6, "no_reply": 0, "unread": 0, "retries": 3}


def _done(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        return sqlite3.connect(db).execute("SELECT COUNT(*) FROM samples WHERE status = 'done'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


@pytest.mark.boundary  # a signal to a real run
@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_a_killed_run_loses_nothing_and_resumes_to_the_same_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, sig: signal.Signals
) -> None:
    n = 40
    with FakeChatServer(oracle, latency_s=0.05) as server:
        argv = [
            "bench",
            "run",
            "tomi",
            "--n",
            str(n),
            "--seed",
            "2",
            "--agent",
            "model",
            "--model",
            "openai/fake",
            "--base-url",
            server.base_url,
            "--concurrency",
            "2",
            "--cache",
            "off",
            "--json",
        ]
        env = {**os.environ, "MINDLOOP_HOME": str(tmp_path)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "mindloop.cli", *argv],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while _done(tmp_path / "runs.sqlite") < 8 and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode != 0
        if sig == signal.SIGINT:
            assert "interrupted" in err and "--resume" in err
        db = sqlite3.connect(tmp_path / "runs.sqlite")
        (run_id,) = db.execute("SELECT run_id FROM runs").fetchone()
        kept = {r[0] for r in db.execute("SELECT sample_id FROM samples WHERE status = 'done'")}
        assert 8 <= len(kept) < n
        requests_before = server.requests

        monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path))
        assert main(["bench", "run", "tomi", "--resume", run_id, "--base-url", server.base_url, "--json"]) == 0
        resumed = json.loads(capsys.readouterr().out)
        # only the missing samples were asked again (plus none of the kept ones)
        assert server.requests - requests_before == n - len(kept)
        calls = db.execute("SELECT sample_id, calls FROM samples WHERE status = 'done'").fetchall()
        assert len(calls) == n and all(len(json.loads(c)) == 1 for _, c in calls)

        assert main(argv) == 0
        whole = json.loads(capsys.readouterr().out)
    same = ("n", "n_completed", "n_failed", "metrics", "benchmark", "agent", "model")
    assert {k: resumed[k] for k in same} == {k: whole[k] for k in same}
    assert resumed["tokens"]["calls"] == whole["tokens"]["calls"] == n

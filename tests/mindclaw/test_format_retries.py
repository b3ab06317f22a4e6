"""Format retries end to end, over real HTTP to a local OpenAI-compatible server (FakeChatServer): a model that
first copies the prompt's format (as the real 0.5B model did) and answers properly once its reply is sent back
with the parser's reason. Every call is read through ``ask`` (no ``unread`` reply), a decision fixed by its retry
is a model decision scored on the retry's answer, and the retries are counted in the summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.cli import main
from mindloop.models import FakeChatServer, ModelOptions
from mindloop.worlds.household.scenarios import Scenario

from .test_model_path import _kind, _write, careful

OLD_REASON_ECHO = (
    "<Context> one of: false_belief, unreachable, blocked, left_running, power_cut, missing_tool, stated_need, none\n"
    "<Believed> kitchen\n<Blocks> no\n<Intervene> yes\n<Reason> one sentence"
)
OLD_ACTION_ECHO = "<Action> verb(arg, ...), verb(arg, ...), ...\nor\n<Action> none"


def _is_retry(messages: list[dict[str, Any]]) -> bool:
    last = messages[-1]["content"]
    return isinstance(last, str) and last.startswith("Your reply could not be read:")


def _run(tmp_path: Path, lily: Scenario, reply: Any, retries: int, **options: str) -> Any:
    with RunStore(tmp_path / "runs.sqlite") as store, FakeChatServer(reply) as server:
        request = RunRequest(
            "claw",
            agent="model",
            model="openai/fake",
            model_options=ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01),
            options={"data": _write(lily), **options},
            concurrency=1,
            format_retries=retries,
        )
        summary = run_benchmark(request, store=store, progress=False)
        calls = store.records(summary.run_id)[0].calls
    return summary, calls, server.requests


def test_echoed_reasoning_and_action_are_fixed_by_one_retry(tmp_path: Path, lily: Scenario) -> None:
    sent_back: list[str] = []

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        kind = _kind(messages)
        if _is_retry(messages):
            sent_back.append(messages[-1]["content"])
            return careful(messages[:2], body)
        return {"reason": OLD_REASON_ECHO, "act": OLD_ACTION_ECHO}.get(kind) or careful(messages, body)

    summary, calls, requests = _run(tmp_path, lily, reply, 1)
    m = summary.metrics
    # the model reasoned and acted once, at window 15, each after one refused echo: the episode is solved
    assert (m["ta"], m["pia"], m["cs"]) == (1.0, 1.0, 1.0)
    assert m["loop_model_decisions"] == 2 and m["loop_model_retries"] == 2 and m["loop_model_malformed"] == 0
    assert m["malformed"] == 0 and requests == 4
    assert summary.replies == {"parsed": 2, "rejected": 2, "no_reply": 0, "unread": 0, "retries": 2}
    assert [(c["parsed"], c["attempt"]) for c in calls] == [(False, 0), (True, 1), (False, 0), (True, 1)]
    assert "copies the list of allowed contexts" in calls[0]["reject_reason"]
    assert "copies the format lines" in calls[2]["reject_reason"]
    assert "copies the list of allowed contexts" in sent_back[0]


def test_a_refused_echo_without_retries_is_a_malformed_decision(tmp_path: Path, lily: Scenario) -> None:
    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        return OLD_REASON_ECHO if _kind(messages) == "reason" else careful(messages, body)

    summary, calls, _ = _run(tmp_path, lily, reply, 0)
    m = summary.metrics
    # the copied format is never read as an answer: no reasoning record, no help, nothing retried
    assert m["pia"] == 0.0 and m["loop_model_retries"] == 0
    # the cue stays unanswered, so reasoning is asked (and refused) in each of windows 15..21; after each refusal
    # no strong skill fires and the trigger model is asked, and says noop
    assert m["loop_model_malformed"] == 7 and m["loop_model_decisions"] == 14
    assert summary.replies == {"parsed": 7, "rejected": 7, "no_reply": 0, "unread": 0, "retries": 0}
    assert len(calls) == 14


def test_teacher_forced_model_decisions_fixed_by_a_retry_are_scored_and_counted(tmp_path: Path, lily: Scenario) -> None:
    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        assert _kind(messages) == "trigger"
        return "noop(none, none, none)" if _is_retry(messages) else "reasoning_run(ACTOR, OBJECT, none)"

    summary, _, requests = _run(tmp_path, lily, reply, 1, skills="off")
    m = summary.metrics
    # 31 teacher-forced decisions, each a model decision read on its retry; the 22 windows each close with noop,
    # so exactly the 22 noop decisions are right
    assert m["model_decisions"] == 31 and m["model_retries"] == 31 and m["model_malformed"] == 0
    assert m["acc"] == round(22 / 31, 6)
    assert m["loop_model_decisions"] == 22 and m["loop_model_retries"] == 22
    assert requests == 2 * (22 + 31)
    assert summary.replies == {"parsed": 53, "rejected": 53, "no_reply": 0, "unread": 0, "retries": 53}


SKILL_ECHO = "SKILL strong|preferred|negative | when: FIELD=VALUE, FIELD!=VALUE, FIELD>NUMBER | text: one sentence"


def _mine(tmp_path: Path, capsys: pytest.CaptureFixture[str], retries: int) -> tuple[int, str, str, int]:
    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        if not _is_retry(messages):
            return SKILL_ECHO
        op = messages[1]["content"].split("\n", 1)[0].removeprefix("Operation: ")
        return f"1. **SKILL** negative | when: cue_new=True | text: Never {op} while a cue is new."

    out = tmp_path / "skills.yaml"
    with FakeChatServer(reply=reply) as server:
        args = ["claw", "skills", "mine", "--dataset-n", "20", "--model", "openai/fake", "--json"]
        code = main([*args, "--base-url", server.base_url, "--out", str(out), "--format-retries", str(retries)])
        asked = server.requests
    got = capsys.readouterr()
    return code, got.out, got.err, asked


def test_skills_mine_sends_a_copied_template_back_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _, asked = _mine(tmp_path, capsys, 1)
    assert code == 0
    result = json.loads(out)
    ops = asked // 2  # one question per operation present in the decisions, each asked twice
    assert result["replies"] == {"parsed": ops, "rejected": ops, "no_reply": 0, "unread": 0, "retries": ops}
    # every copied template line is an unusable line, with the reason
    assert len(result["failures"]) == ops and all("copies the template's kinds" in f for f in result["failures"])
    assert result["skills"] >= 1 and (tmp_path / "skills.yaml").exists()


def test_skills_mine_without_retries_refuses_the_copied_template(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err, asked = _mine(tmp_path, capsys, 0)
    assert code == 1 and asked > 0 and not (tmp_path / "skills.yaml").exists()
    assert f"{asked} unusable reply lines" in err and "copies the template's" in err

"""Issue 23 item 2: MindClaw's baselines with one model — the direct-model agent (Table II), the trigger without and
with skill guidance (Table IV's "MODEL" and "MODEL-Skill") and without the belief table (Table III) — over HTTP
against the fake OpenAI-compatible server, with replies in the prompts' formats and malformed ones."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from typer.testing import CliRunner

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext, Outcome, SampleRecord
from mindloop.bench.store import RunStore, SampleResult
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.models import FakeChatServer, ModelOptions, load_model
from mindloop.paths import runs_path
from mindloop.systems.mindclaw.benchmarks import ClawBenchmark, summarize_claw
from mindloop.systems.mindclaw.cli import mindclaw_app
from mindloop.systems.mindclaw.direct import parse_direct_reply
from mindloop.systems.mindclaw.metrics import gold_episode
from mindloop.systems.mindclaw.tables import paper_rows, render_tables, trigger_label
from mindloop.worlds.household.scenarios import Scenario

from .test_model_path import _sample, _user


def _run_agent(sample: Any, reply: Any, agent: str) -> tuple[Outcome, FakeChatServer]:
    with FakeChatServer(reply=reply) as server:
        model = load_model("openai/fake", ModelOptions(base_url=server.base_url, cache="off", timeout_s=5))

        async def go() -> Outcome:
            try:
                return await run_sample(ClawBenchmark(), sample, AgentContext(agent, model=model))
            finally:
                await model.aclose()

        return asyncio.run(go()), server


def _summary(sample: Any, outcome: Outcome) -> dict[str, Any]:
    return summarize_claw([SampleRecord(0, sample, "done", outcome.output, outcome.scores, None, [], 0.0)])


def _window(messages: list[dict[str, Any]]) -> int:
    return int(re.search(r"<Observation> window (\d+)", _user(messages)).group(1))  # type: ignore[union-attr]


# ---- the direct-model baseline (Table II) ---------------------------------------------------------------------
def test_direct_prompt_shows_the_window_alone(lily: Scenario) -> None:
    seen: list[str] = []

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        seen.append(_user(messages))
        return "<Intervene> no"

    _, server = _run_agent(_sample(lily), reply, "direct")
    gold = gold_episode(lily)
    assert server.requests == len(gold.windows) == len(seen)  # one question per window, nothing else
    for text in seen:
        assert "<Candidates>" in text and "<Intervene>" in text
        assert "<BeliefTable>" not in text and "<History>" not in text and "<Skills>" not in text


def test_direct_model_that_helps_at_the_right_window(lily: Scenario) -> None:
    gold = gold_episode(lily)
    assert gold.help_needed and gold.t_star is not None and gold.context == "false_belief"

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        if _window(messages) != gold.t_star:
            return "**Intervene:** no"
        return (
            f"<Intervene> yes\n<Person> {gold.actor}\n<Object> {gold.object}\n<Context> false_belief\n"
            f"<Believed> {gold.detail}\n<Action> {', '.join(gold.plan)}"
        )

    sample = _sample(lily)
    outcome, _ = _run_agent(sample, reply, "direct")
    s = outcome.scores
    assert s["ta"] == s["pia"] == s["cs"] == 1.0 and s["n_interventions"] == 1.0
    assert outcome.output["interventions"][0]["t"] == gold.t_star
    assert s["acc_total"] == 0.0  # no trigger: no teacher-forced decisions
    summary = _summary(sample, outcome)
    assert summary["ta"] == summary["pia"] == summary["cs"] == 1.0
    assert summary["acc"] is None and summary["acc_no_noop"] is None
    assert summary["loop_model_decisions"] == len(gold.windows) and summary["loop_model_malformed"] == 0
    assert summary["agent"] == "direct" and summary["paper_row"].startswith("model (direct")


def test_direct_model_that_helps_too_early_and_wrongly(lily: Scenario) -> None:
    gold = gold_episode(lily)
    assert gold.t_star is not None and gold.t_star > 1

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        if _window(messages) != 1:
            return "<Intervene> no"
        return f"<Intervene> yes\n<Person> {gold.actor}\n<Object> {gold.object}\n<Context> unreachable\n" + (
            f"<Action> walk({gold.actor})"
        )

    outcome, _ = _run_agent(_sample(lily), reply, "direct")
    s = outcome.scores
    assert s["pia"] == 0.0 and s["early"] == 1.0 and s["ta"] == 0.0


def test_direct_malformed_replies_are_counted_failures(lily: Scenario) -> None:
    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        return "I think everything is fine in this house."

    sample = _sample(lily)
    outcome, server = _run_agent(sample, reply, "direct")
    n = len(gold_episode(lily).windows)
    s = outcome.scores
    assert s["ta"] == 0.0 and s["pia"] == 0.0 and s["malformed"] == n
    summary = _summary(sample, outcome)
    # each window's question was sent back once with the reason (a format retry) and refused again
    assert summary["loop_model_decisions"] == summary["loop_model_malformed"] == n
    assert summary["loop_model_retries"] == n and server.requests == 2 * n
    assert all("malformed direct reply" in f for f in outcome.output["failures"])


def test_parse_direct_reply_forms_and_refusals() -> None:
    names = {"actors": frozenset({"lily"}), "objects": frozenset({"apple"}), "locations": frozenset({"fridge"})}
    assert not parse_direct_reply("Intervene: No", **names).intervene
    got = parse_direct_reply(
        "**Intervene:** yes\n**Person:** Lily\n**Object:** `apple`\n**Context:** false_belief\n**Believed:** fridge\n"
        "**Action:** walk(fridge), open(fridge)",
        **names,
    )
    assert (got.person, got.object, got.context, got.believed) == ("lily", "apple", "false_belief", "fridge")
    assert got.steps == ("walk(fridge)", "open(fridge)")
    for bad, reason in (
        ("nothing to say", "no <Intervene>"),
        ("<Intervene> maybe", "yes or no"),
        ("<Intervene> yes\n<Person> bob\n<Object> apple\n<Action> walk(fridge)", "not a name"),
        ("<Intervene> yes\n<Person> lily\n<Object> apple\n<Action> none", "answer no"),
        ("<Intervene> yes\n<Person> lily\n<Object> apple\n<Action> fly(apple)", "invalid action"),
    ):
        with pytest.raises(ParseError, match=reason):
            parse_direct_reply(bad, **names)


# ---- the trigger without / with skills (Table IV) and without the belief table (Table III) ---------------------
def _noop_model(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    return "noop(none, none, none)"


def test_trigger_without_skills_is_the_model_alone(lily: Scenario) -> None:
    sample = _sample(lily, skills="off")
    outcome, _ = _run_agent(sample, _noop_model, "model")
    gold = gold_episode(lily)
    summary = _summary(sample, outcome)
    # the model makes every decision; always answering noop is right exactly at the gold noops
    assert summary["model_decisions"] == summary["decisions"] == gold.n_decisions and summary["skill_decisions"] == 0
    noops = gold.n_decisions - gold.n_non_noop
    assert summary["acc"] == summary["acc_model"] == round(noops / gold.n_decisions, 6)
    assert summary["acc_no_noop"] == 0.0
    assert summary["paper_row"] == "model"


def test_trigger_with_skills_reports_the_whole_trigger(lily: Scenario) -> None:
    sample = _sample(lily)
    outcome, _ = _run_agent(sample, _noop_model, "model")
    summary = _summary(sample, outcome)
    s = outcome.scores
    # Table IV's "-Skill" row: strong skills and the model together; who decided is reported apart
    assert summary["acc"] == round(s["acc_correct"] / s["acc_total"], 6) and summary["acc"] == summary["acc_all"]
    assert summary["decisions"] == summary["skill_decisions"] + summary["model_decisions"]
    assert summary["paper_row"] == "model-Skill"


def test_belief_table_off_runs_with_the_model(lily: Scenario) -> None:
    sample = _sample(lily, skills="off", belief_table="off")
    outcome, _ = _run_agent(sample, _noop_model, "model")
    summary = _summary(sample, outcome)
    assert summary["settings"]["belief_table"] == "off" and summary["model_decisions"] > 0


def test_trigger_labels() -> None:
    assert trigger_label("model", "auto", "openai/q") == "openai/q-Skill"
    assert trigger_label("model", "off", "openai/q") == "openai/q"
    assert trigger_label("classifier", "auto", None) == "SFT" and trigger_label("classifier", "default", None) == (
        "SFT-Skill"
    )
    assert trigger_label("symbolic", "auto", None) == "Skill"


def test_paper_rows_and_tables() -> None:
    def run(agent: str, skills: str, table: str, **m: Any) -> dict[str, Any]:
        return {"agent": agent, "model": "q", "summary": {"settings": {"skills": skills, "belief_table": table}, **m}}

    rows = paper_rows(
        {
            "a": run("direct", "auto", "on", ta=0.0, pia=0.25, cs=None),
            "b": run("model", "off", "on", ta=0.1, pia=0.2, cs=1.0, acc=0.5, acc_no_noop=0.0951),
            "c": run("model", "off", "off", ta=0.0, pia=0.1, cs=1.0, acc=0.4, acc_no_noop=0.0164),
            "d": run("model", "auto", "on", ta=0.3, pia=0.4, cs=1.0, acc=0.7771, acc_no_noop=0.4161),
        }
    )
    assert list(rows["table2"]) == ["q", "MindClaw (q)", "MindClaw (q) w/o belief table", "MindClaw (q-Skill)"]
    assert rows["table3"]["q"]["with"] == 0.0951 and rows["table3"]["q"]["without"] == 0.0164
    assert list(rows["table4"]) == ["q", "q-Skill"]
    text = render_tables(rows)
    assert "| q | 0.00 | 25.00 | – |" in text
    assert "| q | 9.51 | 1.64 |" in text and "| q-Skill | 77.71 | 41.61 |" in text


def _store(agent: str, model: str | None, sample: Any, outcome: Outcome) -> str:
    with RunStore(runs_path()) as store:
        run_id = store.create_run(benchmark="claw", agent=agent, model=model, config={}, samples=[sample], version="t")
        store.finish(run_id, [SampleResult(0, "done", outcome.output, outcome.scores, None, [], 0.0)])
    return run_id


def test_claw_table_command(lily: Scenario) -> None:
    sample = _sample(lily, skills="off")
    direct, _ = _run_agent(sample, lambda m, b: "<Intervene> no", "direct")
    trig, _ = _run_agent(sample, _noop_model, "model")
    a = _store("direct", "openai/fake", sample, direct)
    b = _store("model", "openai/fake", sample, trig)
    result = CliRunner().invoke(mindclaw_app, ["table", a, b, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rows"]["table2"]["openai/fake"]["pia"] == 0.0
    assert set(data["rows"]["table4"]) == {"openai/fake"} and "TABLE IV" in data["table"]
    with RunStore(runs_path()) as store:
        other = store.create_run(benchmark="hitom", agent="symbolic", model=None, config={}, samples=[sample],
                                 version="t")  # fmt: skip
    bad = CliRunner().invoke(mindclaw_app, ["table", other])
    assert isinstance(bad.exception, InvalidArgumentError) and "not a claw run" in str(bad.exception)

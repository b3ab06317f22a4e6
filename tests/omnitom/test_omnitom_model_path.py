"""The model agents of omnitom-stage1 and omnitom-stage2 end to end through a local OpenAI-compatible server: every
reply is read through ``ask`` (format retries counted in the summary's ``replies``), the judge's calls are in the
sample's ledger with role ``judge`` and in ``tokens.by_role``, an unreadable judge reply leaves a story unscored
(``null`` with the reason, never 0.0), and a Stage 2 reply with no readable label is a failed sample."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, cast

import pytest

from mindloop.bench.options import validate_options
from mindloop.bench.runner import RunRequest, RunSummary, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.cli import main
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer
from mindloop.systems.omnitom import release
from mindloop.systems.omnitom.benchmarks import OmniToMStage1Benchmark, OmniToMStage2Benchmark
from mindloop.systems.omnitom.records import DIMENSIONS, StoryRecord

Messages = list[dict[str, Any]]


def _golds(bench: OmniToMStage1Benchmark | OmniToMStage2Benchmark, n: int) -> dict[str, StoryRecord]:
    samples = bench.samples(n, 0, validate_options(bench, {"aligner": "exact"} if bench.stage == 1 else {}))
    records = [StoryRecord.model_validate(s.input["record"]) for s in samples]
    return {r.story: r for r in records}


def _story(messages: Messages) -> str:
    return str(messages[-1]["content"]).split("Story Narrative:\n", 1)[1].split("\n\n", 1)[0]


def _csv_rows(text: str, title: str) -> list[tuple[str, str]]:
    block = text.split(f"{title}:\n", 1)[1].split("\n\n", 1)[0]
    return [(row[0], row[1]) for row in list(csv.reader(io.StringIO(block)))[1:]]


def _judge_tables(messages: Messages) -> str:
    """A judge that matches every row (each count 1), as the release's CSV tables."""
    user = str(messages[1]["content"])
    out = []
    for title in ("Prediction Table", "Ground Truth Table"):
        rows = "\n".join(f'"{a}","{b}",1' for a, b in _csv_rows(user, title))
        out.append(f"{title}:\nActor,Belief,MatchCount\n{rows}")
    return "\n\n".join(out)


def _run(tmp_path: Path, name: str, reply: Any, n: int, options: dict[str, Any], **kw: Any) -> tuple[RunSummary, Any]:
    with RunStore(tmp_path / f"{name}.sqlite") as store, FakeChatServer(reply) as server:
        opts = ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01)
        options = {k: (server.base_url if v == "SERVER" else v) for k, v in options.items()}
        request = RunRequest(name, agent="model", model="openai/agent", model_options=opts, options=options, n=n, **kw)
        summary = run_benchmark(request, store=store, progress=False)
        records = store.records(summary.run_id)
    return summary, records


def test_stage1_judge_calls_are_in_the_ledger_and_an_unreadable_judge_leaves_the_story_unscored(
    tmp_path: Path,
) -> None:
    golds = _golds(OmniToMStage1Benchmark(), 3)
    stories = list(golds)
    seen: dict[str, int] = {"agent": 0, "judge": 0}

    def reply(messages: Messages, body: dict[str, Any]) -> str:
        system = str(messages[0]["content"])
        story = _story(messages[:2])
        if system.startswith(release.JUDGE_SYSTEM):
            seen["judge"] += 1
            if story == stories[1]:  # never readable: the story is unscored
                return "They all match."
            if story == stories[0] and len(messages) == 2:  # readable on the retry
                return "All rows match one to one."
            return _judge_tables(messages)
        seen["agent"] += 1
        gold = golds[story]
        rows = [f"{b.actor} | {b.belief}. | {b.labels.order}" for b in gold.beliefs]
        if story == stories[2] and len(messages) == 2:  # no table: refused, then answered
            return "I think Bob believes the ball is in the box."
        return "\n".join(["**Actor** | **Belief** | **Order**", "---|---|---", *rows])  # no outer pipes, bold header

    options = {"judge": "openai/judge", "judge_base_url": "SERVER"}
    summary, records = _run(tmp_path, "omnitom-stage1", reply, 3, options, concurrency=1)
    m = summary.metrics
    # agent: 3 stories, one refused once; judge: story 0 twice, story 1 twice (never readable), story 2 once
    assert seen == {"agent": 4, "judge": 5}
    assert summary.replies == {"parsed": 3, "rejected": 1, "no_reply": 0, "unread": 0, "retries": 1}
    roles = [[c["role"] for c in r.calls] for r in records]
    assert roles == [["agent", "judge", "judge"], ["agent", "judge", "judge"], ["agent", "agent", "judge"]]
    judge_calls = [c for r in records for c in r.calls if c["role"] == "judge"]
    assert [c["parsed"] for c in judge_calls] == [False, True, False, False, True]
    by_role = summary.tokens["by_role"]
    assert (by_role["agent"]["calls"], by_role["judge"]["calls"]) == (4, 5)
    assert by_role["judge"]["prompt_tokens"] > 0 and summary.tokens["calls"] == 9
    # the bold header is a header, the trailing '.' cut: every row matches, F1 1 on the two scored stories
    assert records[0].scores["f1"] == 1.0 and records[2].scores["f1"] == 1.0
    assert "f1" not in records[1].scores and records[1].status == "done"
    assert records[1].output["unscored"].startswith("unreadable judge reply (2 attempts): no Prediction")
    assert (m["f1"], m["unscored"], m["failed"]) == (1.0, 1, 0)
    assert m["unscored_reasons"] == {records[1].sample.id: records[1].output["unscored"]}
    assert m["f1_release_rule"] == pytest.approx(2 / 3)  # the release scores the unreadable story's rows unmatched
    assert any("format retries: 1 agent, 2 judge" in d for d in m["deviations"])
    assert any("1 stor(ies) unscored" in d for d in m["deviations"])
    assert records[0].output["reading_notes"] == ["markdown emphasis removed from cells",
        "header rows recognised wherever they are (the release drops only a first row starting 'Actor')"]  # fmt: skip


def test_stage1_all_unscored_prints_null_in_json_and_a_dash_in_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golds = _golds(OmniToMStage1Benchmark(), 1)

    def reply(messages: Messages, body: dict[str, Any]) -> str:
        if str(messages[0]["content"]).startswith(release.JUDGE_SYSTEM):
            return "Sorry, I cannot compare these tables."
        return "\n".join(f"| {b.actor} | {b.belief} | {b.labels.order} |" for b in golds[_story(messages)].beliefs)

    with FakeChatServer(reply) as server:
        argv = ["bench", "run", "omnitom-stage1", "--agent", "model", "--model", "openai/agent", "--base-url",
                server.base_url, "--n", "1", "--cache", "off", "--opt", "judge=openai/judge", "--opt",
                f"judge_base_url={server.base_url}"]  # fmt: skip
        assert main([*argv, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert main([*argv, "--verbose"]) == 0
        table = capsys.readouterr().out
    m = out["metrics"]
    assert (m["precision"], m["recall"], m["f1"], m["unscored"]) == (None, None, None, 1)
    assert "unreadable judge reply" in m["unscored_reasons"]["story00000"]
    assert m["f1_release_rule"] == 0.0
    assert out["tokens"]["by_role"]["judge"]["calls"] == 2
    assert table.splitlines()[1].startswith("f1 – (not scored")  # the headline: null, said in words
    f1_row = next(line for line in table.splitlines() if line.strip("│ ").startswith("f1 "))
    assert "–" in f1_row and "0.0" not in f1_row  # null prints as a dash, never as a zero
    reason_row = next(line for line in table.splitlines() if "unscored_reasons.story00000" in line)
    assert "unreadable judge reply (2 attempts)" in reason_row  # the reason is printed beside it


def _labelled(gold: StoryRecord) -> str:
    head = "| Actor | Belief | Order | Truth-Status | Knowledge-Access | Representation | Content Type | " \
           "Mental-Source | Context |"  # fmt: skip
    rows = [f"| {b.actor} | {b.belief} | " + " | ".join(str(b.labels.get(d)) for d in DIMENSIONS) + " |"
            for b in gold.beliefs]  # fmt: skip
    return "\n".join([head, "|---|---|---|---|---|---|---|---|---|", *rows])


def test_stage2_an_echoed_input_table_is_refused_and_never_labelled_is_a_failed_sample(tmp_path: Path) -> None:
    golds = _golds(OmniToMStage2Benchmark(), 2)
    stories = list(golds)
    reasons: list[str] = []

    def reply(messages: Messages, body: dict[str, Any]) -> str:
        gold = golds[_story(messages[:2])]
        if len(messages) > 2:
            reasons.append(str(messages[-1]["content"]))
        echo = "\n".join(["| Actor | Belief |", "|---|---|", *(f"| {b.actor} | {b.belief} |" for b in gold.beliefs)])
        if gold.story == stories[1] or len(messages) == 2:
            return echo  # the input table again, no labels
        return _labelled(gold)

    summary, records = _run(tmp_path, "omnitom-stage2", reply, 2, {}, concurrency=1)
    assert summary.replies == {"parsed": 1, "rejected": 3, "no_reply": 0, "unread": 0, "retries": 2}
    assert (summary.n_failed, summary.metrics["failed"]) == (1, 1)
    assert records[0].status == "done" and records[0].scores["overall"] == 1.0
    assert records[1].status == "failed" and records[1].error is not None
    assert records[1].error.startswith("no readable labels: the table has no label columns")
    assert records[1].scores["overall"] == 0.0 and summary.metrics["overall"] == 0.5
    assert reasons[0].startswith("Your reply could not be read: the table has no label columns")


def test_the_judge_client_takes_the_run_s_options_and_judge_timeout() -> None:
    from mindloop.bench.api import AgentContext
    from mindloop.bench.options import validate_options as opts
    from mindloop.models.base import ModelOptions

    bench = OmniToMStage1Benchmark()
    run = AgentContext(agent="model", model_options=ModelOptions(timeout_s=300, max_retries=2, cache="off"))
    raw = {"judge": "openai/judge", "judge_base_url": "http://127.0.0.1:9/v1", "judge_timeout": "600"}
    sample = bench.samples(1, 0, opts(bench, raw))[0]

    def judge_of(settings: Any, ctx: AgentContext | None) -> Any:  # the judge Stage 1 aligns with, as it asks for it
        return cast(Any, bench._aligner(settings, ctx)).model

    judge: Any = judge_of(sample.input["settings"], run)
    assert getattr(judge, "inner", judge).options.timeout_s == 600.0  # judge_timeout wins over the run's
    del raw["judge_timeout"]
    settings = bench.samples(1, 0, opts(bench, raw))[0].input["settings"]
    inherited = getattr(judge_of(settings, run), "options", None)
    assert inherited is not None and (inherited.timeout_s, inherited.max_retries, inherited.cache) == (300.0, 2, "off")
    assert inherited.base_url == "http://127.0.0.1:9/v1"
    default: Any = judge_of(settings, None)  # outside a run: the defaults
    assert getattr(default, "inner", default).options.timeout_s == 120.0

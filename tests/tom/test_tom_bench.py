"""``bench run tomi|hitom --data FILE`` on the released formats: the same breakdowns as ``tom eval``, and the model
agent offered Hi-ToM's own lettered choices."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.cli import main
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer
from mindloop.systems.tom import evaluate_file

DATA = Path(__file__).parent / "data"


def _bench(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(argv) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def _as_json(scores: dict[str, Any]) -> dict[str, Any]:
    return {k: {"accuracy": v.accuracy, "n": v.n} for k, v in scores.items()}


def test_bench_run_tomi_reads_the_trace(capsys: pytest.CaptureFixture[str]) -> None:
    excerpt = DATA / "tomi_excerpt.txt"
    metrics = _bench(capsys, ["bench", "run", "tomi", "--data", str(excerpt), "--json"])["metrics"]
    report = evaluate_file(excerpt)
    assert metrics["accuracy"] == report.accuracy == 22 / 24
    assert metrics["by_story_type"] == _as_json(report.breakdowns["by_story_type"])
    assert metrics["by_question_type"] == _as_json(report.breakdowns["by_question_type"])
    assert metrics["by_story_type"]["false_belief"] == {"accuracy": 10 / 12, "n": 12}
    assert "agreed_pairs" not in metrics and "by_prompting_type" not in metrics


def test_bench_run_hitom_reads_the_released_json(capsys: pytest.CaptureFixture[str]) -> None:
    release = DATA / "hitom_excerpt.json"
    metrics = _bench(capsys, ["bench", "run", "hitom", "--data", str(release), "--json"])["metrics"]
    report = evaluate_file(release)
    assert metrics["accuracy"] == report.accuracy == 0.9
    for key in ("by_order", "by_deception", "by_length", "by_prompting_type"):
        assert metrics[key] == _as_json(report.breakdowns[key])
    assert metrics["by_prompting_type"] == {"CoTP": {"accuracy": 1.0, "n": 5}, "VP": {"accuracy": 0.8, "n": 5}}
    assert metrics["agreed_pairs"] == {"accuracy": 1.0, "n": 4, "pairs": 5, "disagreeing": 1, "unpaired": 0}


def test_bench_run_hitom_on_the_bundled_split_matches_tom_eval(capsys: pytest.CaptureFixture[str]) -> None:
    metrics = _bench(capsys, ["bench", "run", "hitom", "--json"])["metrics"]
    assert metrics["accuracy"] == 202 / 240
    assert metrics["by_prompting_type"]["CoTP"] == {"accuracy": 117 / 120, "n": 120}
    assert metrics["agreed_pairs"]["n"] == 86 and metrics["agreed_pairs"]["disagreeing"] == 34


def test_a_released_json_is_not_read_as_tomi(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "run", "tomi", "--data", str(DATA / "hitom_excerpt.json")]) == 1
    assert "not as ToMi" in capsys.readouterr().err


def test_the_model_is_offered_the_releases_lettered_choices(tmp_path: Path) -> None:
    """The prompt lists the item's 15 choices lettered as released; a reply by letter is read back through them."""
    release = json.loads((DATA / "hitom_excerpt.json").read_text(encoding="utf-8"))["data"]
    prompts: list[str] = []

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        text = messages[-1]["content"]
        prompts.append(text)
        # the first item with this story and question (its CoTP copy), answered by its letter alone
        item = next(i for i in release if i["question"] in text and i["story"].split("\n")[-3][2:] in text)
        letter = re.search(rf"([A-O])\. {item['answer']}\b", item["choices"])
        assert letter is not None
        return f"Answer: {letter[1]}"

    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(reply) as server:
        opts = ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01)
        request = RunRequest(
            "hitom",
            agent="model",
            model="openai/fake",
            model_options=opts,
            options={"data": str(DATA / "hitom_excerpt.json")},
            concurrency=1,
        )
        summary = run_benchmark(request, store=store, progress=False)
    # The letters mean the release's containers: every answer lands, except the VP copy whose gold disagrees.
    assert summary.metrics["accuracy"] == 0.9 and summary.metrics["unparsed"] == 0 and len(prompts) == 10
    assert summary.metrics["agreed_pairs"]["accuracy"] == 1.0
    first = release[0]
    assert f"Choices: {first['choices']}" in prompts[0]
    assert all(p.count(", ") >= 14 for p in prompts)


def test_an_unreadable_reply_gets_one_format_retry_with_the_reason(tmp_path: Path) -> None:
    """A reply naming no choice goes back once with the parser's reason; the retry's answer is scored, the strict
    extraction still reads the first reply alone, and the summary counts the rejected reply and the retry."""
    release = json.loads((DATA / "hitom_excerpt.json").read_text(encoding="utf-8"))["data"]
    seen: list[list[dict[str, Any]]] = []

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        seen.append(messages)
        if len(messages) == 1:
            return "I am not sure where it is."
        item = next(i for i in release if i["question"] in messages[0]["content"])
        letter = re.search(rf"([A-O])\. {item['answer']}\b", item["choices"])
        assert letter is not None
        return f"The answer is {letter[1]}."

    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(reply) as server:
        opts = ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01)
        request = RunRequest(
            "hitom",
            agent="model",
            model="openai/fake",
            model_options=opts,
            options={"data": str(DATA / "hitom_excerpt.json")},
            n=2,
            concurrency=1,
        )
        summary = run_benchmark(request, store=store, progress=False)
        records = store.records(summary.run_id)
    assert len(seen) == 4  # two questions, each asked twice
    retry = seen[1]
    assert retry[1] == {"role": "assistant", "content": "I am not sure where it is."}
    assert "names none of the choices" in retry[2]["content"]
    assert summary.metrics["accuracy"] == 1.0 and summary.metrics["unparsed"] == 0
    assert summary.metrics["accuracy_strict"] == 0.0  # the first replies named nothing
    assert summary.replies == {"parsed": 2, "rejected": 2, "no_reply": 0, "unread": 0, "retries": 2}
    assert [r.output["attempts"] for r in records] == [2, 2]

    with RunStore(tmp_path / "r0.sqlite") as store, FakeChatServer(reply) as server:
        opts = ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01)
        request = RunRequest(
            "hitom",
            agent="model",
            model="openai/fake",
            model_options=opts,
            options={"data": str(DATA / "hitom_excerpt.json")},
            n=2,
            concurrency=1,
            format_retries=0,
        )
        summary = run_benchmark(request, store=store, progress=False)
    assert summary.metrics["unparsed"] == 2 and summary.replies["retries"] == 0 and summary.n_failed == 2


def test_bundled_hitom_samples_do_not_depend_on_where_mindloop_is_installed() -> None:
    """Two installs (a checkout and a wheel) give the same samples, so their runs can be compared."""
    from mindloop.systems.tom.benchmarks import tom_samples

    samples = tom_samples("hitom", 3, 0, None)
    assert [s.input["source"] for s in samples] == [
        "mindloop:systems/tom/data/hitom/hitom_dev.txt:1",
        "mindloop:systems/tom/data/hitom/hitom_dev.txt:18",  # each story's question line
        "mindloop:systems/tom/data/hitom/hitom_dev.txt:34",
    ]

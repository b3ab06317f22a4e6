"""The HTML run report: content, escaping, self-containment, scale, and what a real browser shows.

The browser tests run Chromium headless on the written file (``--dump-dom`` after the page's script ran, and a
screenshot). Without a Chromium binary they are skipped, except under ``CI``, where Chromium is installed and
its absence is a failure. The layout test appends a small script to a copy of the page that measures every
table's header cells (synchronously, after the page's own script: no waiting on timers) and writes the result
into the DOM that ``--dump-dom`` prints.
"""

from __future__ import annotations

import base64
import html
import json
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from mindloop.bench import RunRequest, RunStore, Sample, report, run_benchmark, summarize_run
from mindloop.bench.headline import reference_marks
from mindloop.bench.registry import get_benchmark
from mindloop.bench.report import error_kind, render_report, write_report
from mindloop.bench.report.plots import fmt_number
from mindloop.bench.store import SampleResult
from mindloop.errors import InvalidArgumentError

from .browser import Browser

PNG_PIXEL = (
    "data:image/png;base64,"
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
EVIL_STORY = [
    "Anne entered the kitchen.",
    "<script>document.title='pwned'</script>",
    "</script><!-- <img src=x onerror=\"document.body.dataset.pwned='1'\">",
    "\x00not a reference & <b>bold</b>",
]


# -- fixtures -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunStore, str, str]]:
    """One store with two real runs: Hi-ToM by the symbolic tracker (some answers wrong) and ToMi answered by the
    scripted model that answers only the reality questions (the rest unreadable: failed samples with transcripts)."""
    home = tmp_path_factory.mktemp("report-home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MINDLOOP_HOME", str(home))
        store = RunStore(home / "runs.sqlite")
        hitom = run_benchmark(RunRequest("hitom"), store=store, progress=False).run_id
        # answers "A" to reality questions (read, right or wrong), nothing readable to the rest (failed): a run with
        # both; echoing the prompt no longer answers anything since every generated question offers two choices
        replies = home / "replies.json"
        replies.write_text(
            json.dumps({"rules": [{"match": "really\\?", "reply": "A"}], "default": "I cannot tell."}), encoding="utf-8"
        )
        tomi = run_benchmark(
            RunRequest("tomi", n=50, model=f"scripted/{replies}", agent="model"), store=store, progress=False
        ).run_id
        yield store, hitom, tomi
        store.close()


@pytest.fixture(scope="module")
def pages(runs: tuple[RunStore, str, str]) -> dict[str, str]:
    """The rendered report of each real run, rendered once."""
    store, hitom, tomi = runs
    return {run_id: render_report(run_id, store) for run_id in (hitom, tomi)}


HITOM_REPLIES = {
    "rules": [
        {"match": "could not be read", "reply": "I cannot tell."},  # the format retry gets the same non-answer
        {"match": "Question: Where .*lettuce", "reply": "Answer: A"},
        {"match": "Question: Where .*orange", "reply": "Answer: D"},
        {"match": "Question: Where .*apple", "reply": "I cannot tell."},
    ]
}
"""Replies for Hi-ToM's prompts: a letter, a reply naming no choice (failed, scored 0) and, for the carrot
questions that no rule matches, a model error (failed with no score at all)."""


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunStore, str, str]]:
    """A claw run (a per-group table of eight columns, gold a dict) and a Hi-ToM run by a scripted model that
    fails some samples with no score."""
    home = tmp_path_factory.mktemp("truth-home")
    replies = home / "replies.json"
    replies.write_text(json.dumps(HITOM_REPLIES), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MINDLOOP_HOME", str(home))
        store = RunStore(home / "runs.sqlite")
        claw = run_benchmark(RunRequest("claw", agent="symbolic", n=20), store=store, progress=False).run_id
        hitom = run_benchmark(
            RunRequest("hitom", n=20, agent="model", model=f"scripted/{replies}", concurrency=1),
            store=store,
            progress=False,
        ).run_id
        yield store, claw, hitom
        store.close()


@pytest.fixture(scope="module")
def truth_pages(truth: tuple[RunStore, str, str]) -> dict[str, str]:
    """The rendered report of each truth run, rendered once."""
    store, claw, hitom = truth
    return {run_id: render_report(run_id, store) for run_id in (claw, hitom)}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    with RunStore(tmp_path / "runs.sqlite") as s:
        yield s


def _call(content: Any, text: str | None, **extra: Any) -> dict[str, Any]:
    return {
        "model": "scripted/test",
        "messages": [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": content}],
        "params": {"temperature": 0.0},
        "text": text,
        "error": None,
        "prompt_tokens": 40,
        "completion_tokens": 3,
        "latency_s": 0.25,
        "cached": False,
        **extra,
    }


def _evil_run(store: RunStore, benchmark: str = "tomi") -> str:
    """A run whose dataset and model text try to break out of the page, with an image in a prompt."""
    samples = [
        Sample(
            "evil-1", {"story": EVIL_STORY, "question": "<b>Where</b> is it?", "answer": "box"}, "<i>grp</i>", "box"
        ),
        Sample("evil-2", {"story": EVIL_STORY, "question": "Where is it?", "answer": "basket"}, "plain", "basket"),
        Sample("pending-1", {"story": ["x"], "question": "?", "answer": "a"}, "plain", "a"),
    ]
    run_id = store.create_run(
        benchmark=benchmark, agent="model", model="scripted/test", config={}, samples=samples, version="0.1.0"
    )
    image_prompt = [
        {"type": "text", "text": "What is in the picture?"},
        {"type": "image_url", "image_url": {"url": PNG_PIXEL}},
    ]
    store.finish(
        run_id,
        [
            SampleResult(0, "done", {"answer": "box"}, {"correct": 1.0}, None, [_call(image_prompt, "box")], 0.3),
            SampleResult(
                1,
                "failed",
                {"answer": None, "reply": "</script><script>alert(1)</script>"},
                {"correct": 0.0},
                "unparseable answer: '<script>alert(2)</script>'",
                [_call("Where is it? </script>", "</script><script>alert(1)</script>", cached=True)],
                0.01,
            ),
        ],
    )
    return run_id


def _blob(page: str) -> dict[str, Any]:
    """The page's embedded sample data, with string-table references resolved as the page's script does."""
    m = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S)
    assert m is not None
    data: dict[str, Any] = json.loads(m.group(1))
    table = data["strings"]

    def resolve(v: Any) -> Any:
        if isinstance(v, str):
            return table[int(v[1:])] if v.startswith("\x00") else v
        if isinstance(v, list):
            return [resolve(x) for x in v]
        if isinstance(v, dict):
            return {resolve(k): resolve(x) for k, x in v.items()}
        return v

    data["details"] = resolve(data["details"])
    return data


@dataclass
class _Numbers:
    """The numbers a page shows: every metric table's cells by table, row and column (``None`` for –), and
    every figure's ``data-plot`` (with its title)."""

    tables: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    plots: list[dict[str, Any]] = field(default_factory=list)


class _NumberReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.out = _Numbers()
        self._table: dict[str, dict[str, Any]] | None = None
        self._row: dict[str, Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and a.get("data-table"):
            self._table = self.out.tables.setdefault(str(a["data-table"]), {})
        elif tag == "tr" and self._table is not None and a.get("data-group") is not None:
            self._row = self._table.setdefault(str(a["data-group"]), {})
        elif tag == "td" and self._row is not None and a.get("data-col"):
            raw = a.get("data-value")
            self._row[str(a["data-col"])] = None if raw is None else json.loads(raw)
        elif tag == "figure" and a.get("data-plot"):
            self.out.plots.append(json.loads(str(a["data-plot"])))
        elif tag == "img" and self.out.plots and "title" not in self.out.plots[-1]:
            self.out.plots[-1]["title"] = a.get("alt")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = self._row = None


def _numbers(page: str) -> _Numbers:
    reader = _NumberReader()
    reader.feed(page)
    return reader.out


def _assert_plots_match_tables(nums: _Numbers) -> int:
    """Every number a figure drew from a table is that table's cell (``None`` where the table shows –); returns
    how many numbers were compared."""
    compared = 0
    for plot in nums.plots:
        if plot.get("table") is None:
            continue
        table = nums.tables[plot["table"]]
        for column, rows in plot["series"].items():
            for row, value in rows.items():
                assert table[row].get(column) == value, (plot["title"], row, column)
                compared += 1
    return compared


def _plot(nums: _Numbers, title: str) -> dict[str, Any]:
    hits = [p for p in nums.plots if p.get("title") == title]
    assert len(hits) == 1, [p.get("title") for p in nums.plots]
    return hits[0]


# -- the HTML -------------------------------------------------------------------------------------------------------


def test_unknown_run_id_is_the_stores_error(store: RunStore) -> None:
    with pytest.raises(InvalidArgumentError, match="no run 'nope'"):
        render_report("nope", store)


@pytest.mark.xdist_group("report-runs")  # the Hi-ToM and ToMi runs are made once, in one worker
def test_report_shows_metadata_and_every_metric(runs: tuple[RunStore, str, str], pages: dict[str, str]) -> None:
    store, hitom, _ = runs
    page = pages[hitom]
    summary = summarize_run(hitom, store).to_json()
    info = store.run(hitom)
    for text in (hitom, "hitom", "symbolic", info.version, "seed", "max_tokens", "Token ledger", "cache hits"):
        assert text in page
    assert f"{summary['metrics']['accuracy']:.3f}" in page
    for group, row in summary["metrics"]["by_type"].items():
        cells = re.search(rf'data-group="{group}"><th>{group}</th>(.*?)</tr>', page)
        assert cells is not None, group
        assert f"{row['accuracy']:.3f}" in cells.group(1) and f">{row['n']}</td>" in cells.group(1)
    data = _blob(page)
    assert len(data["rows"]) == info.n and data["scores"] == ["correct", "parsed"]
    wrong = [r for r in data["rows"] if r["ok"] is False]
    assert len(wrong) == round(info.n * (1 - summary["metrics"]["accuracy"]))
    assert all(r["gold"] != r["ans"] for r in wrong)
    assert data["details"][0]["input"]["story"] == store.records(hitom)[0].sample.input["story"]


@pytest.mark.xdist_group("report-runs")  # the Hi-ToM and ToMi runs are made once, in one worker
def test_plots_are_embedded_images(runs: tuple[RunStore, str, str], pages: dict[str, str]) -> None:
    _, hitom, tomi = runs
    for run_id, least in ((hitom, 3), (tomi, 4)):  # breakdowns, seconds (+ status, model calls)
        page = pages[run_id]
        urls = re.findall(r'<img alt="[^"]*" src="(data:image/svg\+xml;base64,[A-Za-z0-9+/=]+)"', page)
        assert len(urls) >= least
        for url in urls:
            svg = base64.b64decode(url.split(",", 1)[1]).decode()
            assert "<svg" in svg and "<text" not in svg  # text drawn as paths: no fonts needed
        assert _assert_plots_match_tables(_numbers(page)) > 0


@pytest.mark.xdist_group("report-truth")  # the claw and Hi-ToM runs are made once, in one worker
def test_per_group_figures_draw_the_tables_numbers_failed_samples_included(
    truth: tuple[RunStore, str, str], truth_pages: dict[str, str]
) -> None:
    """Hi-ToM's accuracy per question order counts every finished sample, a model failure (no score at all) as
    wrong; the figure draws those numbers, not a mean over the samples that happen to have a score."""
    store, _, hitom = truth
    records = store.records(hitom)
    assert any(r.status == "failed" and not r.scores for r in records)  # model failures: no score
    assert any(r.status == "failed" and r.scores.get("correct") == 0.0 for r in records)  # unparsed replies
    groups = sorted({r.sample.group for r in records})
    expected = {
        g: sum(r.scores.get("correct") == 1.0 for r in records if r.sample.group == g)
        / sum(r.sample.group == g for r in records)
        for g in groups
    }
    scored = {
        g: [r.scores["correct"] for r in records if r.sample.group == g and "correct" in r.scores] for g in groups
    }
    assert any(sum(v) / len(v) != expected[g] for g, v in scored.items())  # what the old figure drew differs
    nums = _numbers(truth_pages[hitom])
    table = nums.tables["by_type"]
    assert {g: table[g]["accuracy"] for g in groups} == pytest.approx(expected)
    assert {g: table[g]["n"] for g in groups} == {g: sum(r.sample.group == g for r in records) for g in groups}
    figure = _plot(nums, "Accuracy by type")
    assert figure["table"] == "by_type" and figure["series"]["accuracy"] == pytest.approx(expected)
    assert "Mean score per group" not in [p["title"] for p in nums.plots]  # nothing beside the table's numbers
    assert _assert_plots_match_tables(nums) >= 2 * len(groups)  # by type and by order, at least
    info = store.run(hitom)
    status = _plot(nums, "Sample status per group")["series"]
    assert sum(status["done"].values()) == info.n_done and sum(status["failed"].values()) == info.n_failed


@pytest.mark.xdist_group("report-truth")  # the claw and Hi-ToM runs are made once, in one worker
def test_claw_metrics_per_group_figure_is_its_table(
    truth: tuple[RunStore, str, str], truth_pages: dict[str, str]
) -> None:
    store, claw, _ = truth
    summary = summarize_run(claw, store).to_json()["metrics"]["by_group"]
    nums = _numbers(truth_pages[claw])
    assert nums.tables["by_group"] == summary  # every column of every row, – as None
    figure = _plot(nums, "Metrics per group")
    assert figure["table"] == "by_group"
    assert list(figure["series"]) == ["ta", "pia", "cs", "acc", "acc_no_noop"]  # the table's order, counts aside
    for column, rows in figure["series"].items():
        assert rows == {g: summary[g][column] for g in summary}
    assert any(v is None for v in figure["series"]["cs"].values())  # controls have no CS: none drawn, not 0
    assert _assert_plots_match_tables(nums) >= 6 * len(summary)


def _entity_ids(scenario: dict[str, Any]) -> set[str]:
    """Every id with an underscore in a household scenario's setup (``kitchen_table``): what a timeline must show by
    its name instead."""
    found: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                walk(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str) and re.fullmatch(r"[a-z]+(_[a-z0-9]+)+", v):
            found.add(v)

    walk(scenario["setup"])
    return found


@pytest.mark.xdist_group("report-truth")  # the claw and Hi-ToM runs are made once, in one worker
def test_claw_timeline_names_every_window_and_judges_controls_by_their_own_rule(
    truth: tuple[RunStore, str, str],
    truth_pages: dict[str, str],
) -> None:
    store, claw, _ = truth
    records = {r.sample.id: r for r in store.records(claw)}
    data = _blob(truth_pages[claw])
    bench = get_benchmark("claw")
    proportions = {m.score for m in bench.spec.metrics if m.kind == "proportion"} | {"pia"}
    assert set(data["judged"]) == proportions & set(data["scores"])  # right/wrong scores only: the headline's and
    assert "pia" in data["judged"] and "intervened" not in data["judged"]  # declared proportions', never a count
    controls = helps = 0
    for row, detail in zip(data["rows"], data["details"], strict=True):
        record = records[row["id"]]
        gold, trace = record.sample.input["gold"], record.output["trace"]
        tl = detail["timeline"]
        assert [s["t"] for s in tl["steps"]] == [str(step["t"]) for step in trace]  # one row per window
        acted = [step["t"] for step in trace if step["a"]["steps"]]
        # the verdict is PIA's rule, derived here from the trace: one intervention at t*, or none on a control
        expected = acted == [gold["t_star"]] if gold["help_needed"] else not acted
        assert tl["verdict"] is expected and row["v"] is expected and row["ok"] is expected
        shown = "\n".join(s["happened"] + s["gold"] + s["agent"] for s in tl["steps"])
        assert not _entity_ids(record.sample.input["scenario"]) & set(re.findall(r"[a-z]+(?:_[a-z0-9]+)+", shown))
        for step in tl["steps"]:
            due = gold["help_needed"] and int(step["t"]) == gold["t_star"]
            assert step["gold"].startswith("intervene") is due
            assert step["correct"] is ((int(step["t"]) in acted) == due)
        if gold["help_needed"]:
            helps += 1
        else:
            controls += 1
            assert "silence is right" in tl["rule"] and record.scores["intervened"] == 0.0 and tl["verdict"]
            assert all(s["gold"] == "stay silent" or s["gold"].startswith("stay silent\n") for s in tl["steps"])
    assert controls and helps


@pytest.mark.xdist_group("report-truth")  # the claw and Hi-ToM runs are made once, in one worker
def test_claw_report_defines_its_metrics_and_marks_declared_references_generically(
    truth: tuple[RunStore, str, str], truth_pages: dict[str, str], tmp_path: Path
) -> None:
    """Metric definitions come from the declaration; reference values stored with a run (whatever their names and
    kinds: nothing here is specific to a benchmark) are drawn beside the headline and on every plot of it."""
    store, claw, _ = truth
    page = truth_pages[claw]
    spec = get_benchmark("claw").spec
    for key in ("ta", "pia", "cs"):  # a declared metric's own description, else the declaration's glossary
        declared = next((m for m in spec.metrics if m.name == key and not m.table and m.description), None)
        line = declared.description if declared is not None else spec.glossary[key]
        assert str(escape(line)) in page, key
    assert "Metric definitions" in page
    with RunStore(tmp_path / "copy.sqlite") as copy:  # the same run with reference values stored beside it
        run_id = copy.create_run(
            benchmark="claw", agent="symbolic", model=None, config={}, version="t",
            samples=[r.sample for r in store.records(claw)],
        )  # fmt: skip
        copy.finish(
            run_id,
            [
                SampleResult(i, r.status, r.output, r.scores, r.error, r.calls, r.seconds)
                for i, r in enumerate(store.records(claw))
            ],
        )
        summary = summarize_run(run_id, copy)
        stored = copy.stored_summary(run_id)
        assert stored is not None
        refs = {"stay out": 0.0, "act at once": 0.05, "ceiling": 1.0}
        kinds = [
            {"name": "stay out", "kind": "trivial"},
            {"name": "act at once", "kind": "trivial", "optimistic": True},
            {"name": "ceiling", "kind": "oracle"},
        ]
        stored["references"] = refs
        stored["definitions"] = {**stored["definitions"], "references": kinds}
        copy.save_summary(run_id, stored)
        page = render_report(run_id, copy)
    marks = reference_marks(refs, kinds)
    assert [(m.label, m.name) for m in marks] == [("best trivial", "act at once"), ("oracle", "ceiling")]
    text = f"best trivial {fmt_number(0.05)} [act at once, optimistic] · oracle {fmt_number(1.0)}"
    assert page.count(text) >= 2  # the headline card and the headline's row in the summary table
    assert re.search(r'<tr class="headline" data-headline="pia"><th>pia</th>', page)
    nums = _numbers(page)
    drawn = [p for p in nums.plots if "references" in p]
    titles = {p["title"] for p in drawn}
    assert {"Headline and reference policies", "Metrics per group", "Pia by group"} <= titles, titles
    for plot in drawn:
        assert plot["references"] == {"best trivial": 0.05, "oracle": 1.0}
    headline = _plot(nums, "Headline and reference policies")
    assert headline["series"]["pia"]["run"] == pytest.approx(summary.metrics["pia"])
    assert "Reference policies" in page and "stay out" in page  # every policy listed, not only the best


def _mixed_scores_run(store: RunStore, benchmark: str) -> str:
    """Groups a and b: a done sample lacking a score (it does not apply), a failed one and a bug with none."""
    samples = [Sample(f"s{i}", {"word": f"w{i}"}, g) for i, g in enumerate("aaabb")]
    run_id = store.create_run(
        benchmark=benchmark, agent="model", model="scripted/x", config={}, samples=samples, version="t"
    )
    store.finish(
        run_id,
        [
            SampleResult(0, "done", {"reply": "w0"}, {"correct": 1.0}, None, [], 0.1),
            SampleResult(1, "failed", {}, {}, "ModelResponseError: HTTP 503", [], 0.1),
            SampleResult(2, "done", {"reply": "w2"}, {"other": 0.5}, None, [], 0.1),
            SampleResult(3, "done", {"reply": "x"}, {"correct": 0.0, "other": 1.0}, None, [], 0.1),
            SampleResult(4, "bug", {}, {}, "KeyError: 'x'", [], 0.1),
        ],
    )
    return run_id


# worked by hand: a: correct (1 + 0 failed) / 2, other (0 failed + 0.5) / 2 (s0 has no "other": left out);
# b: correct (0 + 0 bug) / 2, other (1 + 0 bug) / 2
HAND_MEANS = {"a": {"correct": 0.5, "other": 0.25, "n": 3}, "b": {"correct": 0.0, "other": 0.5, "n": 2}}


@pytest.mark.parametrize(("bench_name", "table"), [("smoke", "score_per_group"), ("gone-bench", "by_group")])
def test_score_means_count_a_failed_sample_without_a_score_as_0(store: RunStore, bench_name: str, table: str) -> None:
    """Without a per-group table in the benchmark's summary (smoke) the report adds its own, and draws it; an
    unregistered benchmark's generic summary follows the same rule."""
    page = render_report(_mixed_scores_run(store, bench_name), store)
    nums = _numbers(page)
    assert nums.tables[table] == HAND_MEANS
    figure = _plot(nums, "Mean score per group" if bench_name == "smoke" else "Metrics per group")
    assert figure["table"] == table
    assert figure["series"] == {k: {g: HAND_MEANS[g][k] for g in "ab"} for k in ("correct", "other")}
    assert "a failed sample without that score counting as 0" in page or bench_name != "smoke"
    if bench_name == "gone-bench":
        # overall, by hand: correct (1 + 0 failed + 0 + 0 bug) / 4, other (0 failed + 0.5 + 1 + 0 bug) / 4
        # each with — under it: an unregistered benchmark declares nothing, so no number gets an interval
        dash = '<span class="ci">—</span>'
        assert f"<tr><th>correct</th><td>0.250{dash}</td></tr>" in page
        assert f"<tr><th>other</th><td>0.375{dash}</td></tr>" in page


@pytest.mark.xdist_group("report-truth")  # the claw and Hi-ToM runs are made once, in one worker
def test_structured_gold_is_shown_as_key_value_lines(
    truth: tuple[RunStore, str, str], truth_pages: dict[str, str]
) -> None:
    store, claw, hitom = truth
    rows = _blob(truth_pages[claw])["rows"]
    records = store.records(claw)
    for row, record in zip(rows, records, strict=True):
        gold = record.sample.input["gold"]
        assert isinstance(gold, dict) and isinstance(row["gold"], dict)
        assert row["gold"]["kv"][:2] == [["scenario_id", gold["scenario_id"]], ["subtype", gold["subtype"]]]
        assert row["gold"]["more"] == len(gold) - len(row["gold"]["kv"]) > 0
        assert all(isinstance(v, str) and not v.startswith("{") for _, v in row["gold"]["kv"])
        assert ["help_needed", "true" if gold["help_needed"] else "false"] in row["gold"]["kv"]
    plain = _blob(truth_pages[hitom])["rows"]
    assert [r["gold"] for r in plain] == [r.sample.input["answer"] for r in store.records(hitom)]


@pytest.mark.xdist_group("report-runs")  # the Hi-ToM and ToMi runs are made once, in one worker
def test_report_is_self_contained(pages: dict[str, str]) -> None:
    for page in pages.values():
        assert not re.search(r"""(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?//""", page, re.I)
        assert not re.search(r"url\(\s*['\"]?(?:https?:)?//|@import|<link\b|<iframe\b", page, re.I)
        assert "http://" not in page and "https://" not in page
        assert page.count("<script") == 2  # the data blob and the page's own script


def test_dataset_and_model_text_is_escaped(store: RunStore) -> None:
    run_id = _evil_run(store)
    page = render_report(run_id, store)
    assert page.count("<script") == 2 and page.count("</script>") == 2
    for raw in ("<!--", "<img src=x", "<b>bold", "<b>Where", "<script>alert", "<script>document", "<i>grp"):
        assert raw not in page, raw
    blob = re.search(r'id="report-data">(.*?)</script>', page, re.S)
    assert blob is not None and not re.search(r"[<>&]", blob.group(1))
    assert "&lt;i&gt;grp&lt;/i&gt;" in page  # the group name in the metrics table
    data = _blob(page)  # escaping is lossless: the blob reads back exactly
    assert data["details"][0]["input"]["story"] == EVIL_STORY
    assert data["details"][1]["output"]["reply"] == "</script><script>alert(1)</script>"
    assert data["details"][0]["calls"][0]["messages"][1]["content"][1]["image_url"]["url"] == PNG_PIXEL
    assert [r["s"] for r in data["rows"]] == ["done", "failed", "pending"]
    assert data["rows"][1]["err"] == "unparseable answer: '<script>alert(2)</script>'"


def test_unregistered_benchmark_gets_a_generic_summary(store: RunStore) -> None:
    run_id = _evil_run(store, benchmark="gone-bench")
    page = render_report(run_id, store)
    assert "by group" in page and "0.500" in page  # mean of correct over the two finished samples
    assert "gone-bench" in page and len(_blob(page)["rows"]) == 3


def test_write_report_paths(store: RunStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_id = _evil_run(store)
    monkeypatch.chdir(tmp_path)
    assert write_report(run_id, store, None) == Path(f"{run_id}.html")
    assert (tmp_path / f"{run_id}.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    monkeypatch.setattr(report, "render_report", lambda run_id, store: "<!DOCTYPE html>stub")
    (tmp_path / "out").mkdir()
    assert write_report(run_id, store, tmp_path / "out") == tmp_path / "out" / f"{run_id}.html"
    nested = write_report(run_id, store, tmp_path / "a" / "b" / "r.html")
    assert nested.is_file()


def test_error_kinds_blank_the_specifics() -> None:
    a = error_kind("unparseable answer: names several choices (box, basket) without saying which")
    b = error_kind("unparseable answer: names several choices (red_box, crate, tub) without saying which")
    assert a == b == "unparseable answer: names several choices … without saying which"
    assert error_kind("timeout after 30.5 s calling 'gpt'") == "timeout after … s calling …"


def test_ten_thousand_samples_render_compact(store: RunStore) -> None:
    n = 10_000
    story = [f"Person {k} moved the apple to the box number {k % 7}." for k in range(12)]
    samples = [
        Sample(
            f"q{i:05d}",
            {"story": story[i % 5 :], "question": f"Where is apple {i}?", "answer": "box"},
            f"t{i % 4}",
            "box",
        )
        for i in range(n)
    ]
    run_id = store.create_run(
        benchmark="tomi", agent="model", model="scripted/x", config={"n": n}, samples=samples, version="0.1.0"
    )
    store.finish(
        run_id,
        [
            SampleResult(
                i,
                "failed" if i % 10 == 0 else "done",
                {"answer": None if i % 10 == 0 else ("box" if i % 3 else "crate"), "reply": f"It is in the box {i}."},
                {"correct": float(i % 3 != 0 and i % 10 != 0), "parsed": float(i % 10 != 0)},
                "unparseable answer" if i % 10 == 0 else None,
                [_call(f"Story...\nWhere is apple {i}?", f"It is in the box {i}.", latency_s=0.1 + (i % 97) / 50)],
                0.001 * (1 + i % 13),
            )
            for i in range(n)
        ],
    )
    page = render_report(run_id, store)  # its speed is a figure of benchmarks/bench_harness.py, not asserted here
    size = len(page.encode())
    assert size < 12_000_000, f"10k-sample report is {size / 1e6:.1f} MB"
    assert page.count("<tr") < 100  # samples are drawn by the script from the blob, not as 10k DOM rows
    data = _blob(page)
    assert len(data["rows"]) == n and len(data["details"]) == n
    assert data["details"][7]["input"]["story"] == story[2:]


# -- a real browser ---------------------------------------------------------------------------------------------


def _rows(dom: str) -> list[str]:
    return re.findall(r'<tr class="row st-(\w+)', dom)


@pytest.mark.xdist_group("report-runs")  # the Hi-ToM and ToMi runs are made once, in one worker
@pytest.mark.boundary  # a real Chromium
def test_browser_shows_table_plots_filters_and_transcripts(
    browser: Browser, runs: tuple[RunStore, str, str], tmp_path: Path
) -> None:
    store, _, tomi = runs
    info = store.run(tomi)
    assert 0 < info.n_failed < info.n
    path = write_report(tomi, store, tmp_path / "report.html")
    url = path.resolve().as_uri()

    dom = browser.browse(url, "--dump-dom")
    assert 'data-ready="1"' in dom  # the script ran to the end
    assert len(_rows(dom)) == info.n and set(_rows(dom)) == {"done", "failed"}
    assert len(re.findall(r'<img alt="[^"]+" src="data:image/svg\+xml;base64,', dom)) >= 4
    assert "by type" in dom and 'data-group="first_order"' in dom
    assert f"showing 1–{info.n} of {info.n} matching" in dom

    dom = browser.browse(url + "#status=failed", "--dump-dom")
    assert _rows(dom) == ["failed"] * info.n_failed
    assert f"of {info.n_failed} matching (of {info.n})" in dom
    assert re.search(rf'<option value="failed"[^>]*>failed \({info.n_failed}\)</option>', dom)

    dom = browser.browse(url + "#filter=second_order", "--dump-dom")
    assert 0 < len(_rows(dom)) < info.n
    assert all(g == "second_order" for g in re.findall(r'<td class="g">([^<]*)</td>', dom))

    first_failed = next(r for r in store.records(tomi) if r.status == "failed")
    dom = browser.browse(url + f"#sample={first_failed.sample.id}", "--dump-dom")
    assert len(first_failed.calls) == 2  # the unreadable reply and its format retry, both in the transcript
    assert 'class="detail"' in dom and "Model transcript · 2 calls" in dom
    assert first_failed.sample.input["story"][0] in dom and "unparseable answer" in dom
    assert '<div class="role">user</div>' in dom and '<div class="role">reply</div>' in dom

    shot = tmp_path / "report.png"
    browser.browse(url, f"--screenshot={shot}", "--window-size=1400,2000")
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1400, 2000)
    assert len(png) > 50_000  # a blank or error page compresses to a few kB


PROBE = """
(function () {
  var out = { ready: document.body.dataset.ready === "1", innerWidth: window.innerWidth,
              pageScrollWidth: document.documentElement.scrollWidth, tables: [], gold: [] };
  function scroller(node) {
    for (var p = node.parentElement; p; p = p.parentElement) {
      var ox = getComputedStyle(p).overflowX;
      if (ox === "auto" || ox === "scroll") return p;
    }
    return null;
  }
  Array.prototype.forEach.call(document.querySelectorAll("table"), function (t) {
    if (t.parentElement.closest("table")) return;
    var row = t.tHead && t.tHead.rows.length ? t.tHead.rows[0] : (t.tBodies[0] && t.tBodies[0].rows[0]);
    if (!row) return;
    var box = scroller(t);
    var info = { name: t.id || t.dataset.table || t.className, metric: !!t.dataset.table, cells: [],
                 fits: box ? box.scrollWidth <= box.clientWidth + 1 : t.scrollWidth <= window.innerWidth };
    Array.prototype.forEach.call(row.cells, function (c) {
      c.scrollIntoView({ block: "center", inline: "center" });
      var r = c.getBoundingClientRect(), v = box ? box.getBoundingClientRect() : { left: 0, right: window.innerWidth };
      var hit = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height / 2, 8));
      var left = Math.max(0, v.left), right = Math.min(window.innerWidth, v.right);
      info.cells.push({ text: c.textContent, onTop: !!hit && (hit === c || c.contains(hit)),
        reachable: r.width > 0 && r.left >= left - 0.5 && r.right <= right + 0.5 });
      if (box) box.scrollLeft = 0;
    });
    window.scrollTo(0, 0);
    out.tables.push(info);
  });
  Array.prototype.forEach.call(document.querySelectorAll("#sample-table td.gold"), function (td) {
    var keys = Array.prototype.map.call(td.querySelectorAll("dl.kvs > dt"), function (d) { return d.textContent; });
    out.gold.push({ keys: keys, text: td.textContent, clipped: td.scrollWidth > td.clientWidth + 1 });
  });
  var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
"""
"""Measures, at the browser's window size, every outer table's header cells: scrolled into view (the page and
the table's own scroll box), is each inside the visible box and on top at its centre (not under another panel)?
Also whether each table fits its box without scrolling, and each gold cell's key/value lines."""


@pytest.mark.xdist_group("report-truth")  # the claw and Hi-ToM runs are made once, in one worker
@pytest.mark.boundary  # a real Chromium
@pytest.mark.parametrize("which", ["claw", "hitom"])
def test_browser_every_table_column_is_reachable_at_1280px(
    browser: Browser, truth: tuple[RunStore, str, str], tmp_path: Path, which: str
) -> None:
    store, claw, hitom = truth
    run_id = claw if which == "claw" else hitom
    page = write_report(run_id, store, tmp_path / "report.html").read_text(encoding="utf-8")
    head, _, tail = page.rpartition("</body>")
    probed = tmp_path / "probed.html"
    probed.write_text(f"{head}<script>{PROBE}</script></body>{tail}", encoding="utf-8")
    dom = browser.browse(probed.resolve().as_uri(), "--window-size=1280,1000", "--dump-dom")
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found is not None, dom[-2000:]
    probe = json.loads(html.unescape(found.group(1)))
    assert probe["ready"] and probe["innerWidth"] == 1280
    assert probe["pageScrollWidth"] <= probe["innerWidth"]  # nothing pushes the page sideways
    tables = {t["name"]: t for t in probe["tables"]}
    wanted = {"sample-table", "by_group"} if which == "claw" else {"sample-table", "by_type", "by_order", "by_length"}
    assert wanted <= set(tables)
    if which == "claw":
        assert [c["text"] for c in tables["by_group"]["cells"]] == [
            "group", "ta", "pia", "cs", "cs_n", "acc", "acc_no_noop", "acc_model", "acc_model_no_noop", "n"
        ]  # fmt: skip
    for name, table in tables.items():
        for cell in table["cells"]:
            assert cell["reachable"] and cell["onTop"], (name, cell["text"])
        if table["metric"]:
            assert table["fits"], name  # a breakdown shows every column without scrolling at 1280 px
    gold = probe["gold"]
    assert len(gold) == store.run(run_id).n and not any(g["clipped"] for g in gold)
    if which == "claw":
        assert all(g["keys"][:2] == ["scenario_id", "subtype"] and "{" not in g["text"] for g in gold)
        sample = store.records(claw)[0].sample
        dom = browser.browse(
            (tmp_path / "report.html").resolve().as_uri() + f"#sample={sample.id}",
            "--dump-dom",
        )
        assert f"<th>scenario_id</th><td><span>{sample.input['gold']['scenario_id']}</span></td>" in dom
        assert '<th>plan</th><td><ol class="lines"><li><span>' in dom  # the plan as numbered steps
    else:
        assert all(not g["keys"] and g["text"] for g in gold)


@pytest.mark.boundary  # a real Chromium
def test_browser_runs_no_injected_script_and_shows_images(browser: Browser, store: RunStore, tmp_path: Path) -> None:
    run_id = _evil_run(store)
    url = write_report(run_id, store, tmp_path / "evil.html").resolve().as_uri()
    dom = browser.browse(url + "#sample=evil-1", "--dump-dom")
    assert 'data-ready="1"' in dom and "pwned" not in dom.split("<body", 1)[0] and "data-pwned" not in dom
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in dom  # shown as text in the story
    assert f'<img alt="image in the prompt" src="{PNG_PIXEL}">' in dom
    assert _rows(dom) == ["done", "failed", "pending"]


@pytest.mark.boundary  # a real Chromium
def test_browser_filters_bug_samples_apart_from_failures(browser: Browser, store: RunStore, tmp_path: Path) -> None:
    samples = [Sample(f"s{i}", {"question": f"Where is {i}?", "answer": "box"}, "g") for i in range(3)]
    run_id = store.create_run(benchmark="tomi", agent="symbolic", model=None, config={}, samples=samples, version="t")
    store.finish(
        run_id,
        [
            SampleResult(0, "done", {"answer": "box"}, {"correct": 1.0}, None, [], 0.1),
            SampleResult(
                1, "bug", {}, {}, "internal error: KeyError: 'answer'\n  File \"b.py\", line 3, in run", [], 0.1
            ),
            SampleResult(2, "failed", {"answer": None}, {"correct": 0.0}, "unparseable answer: 'x'", [], 0.1),
        ],
    )
    url = write_report(run_id, store, tmp_path / "bugs.html").resolve().as_uri()
    dom = browser.browse(url + "#status=bug", "--dump-dom")
    assert 'data-ready="1"' in dom and _rows(dom) == ["bug"]
    assert '<span class="pill bug">bug</span>' in dom
    assert re.search(r'<option value="bug"[^>]*>bug \(1\)</option>', dom)
    dom = browser.browse(url + "#sample=s1", "--dump-dom")
    assert 'class="errbox">internal error: KeyError: \'answer\'\n  File "b.py", line 3, in run</div>' in dom


def test_a_samples_ray_node_is_in_its_drill_down(store: RunStore) -> None:
    samples = [Sample(f"s{i}", {"question": "?", "answer": "a"}, "g", "a") for i in range(3)]
    run_id = store.create_run(benchmark="tomi", agent="symbolic", model=None, config={}, samples=samples, version="t")
    node = "f3" * 28  # a Ray node id: 56 hex digits
    store.finish(
        run_id,
        [
            SampleResult(0, "done", {"answer": "a"}, {"correct": 1.0}, None, [], 0.1, node=node),
            SampleResult(1, "done", {"answer": "a"}, {"correct": 1.0}, None, [], 0.1, node=node),
            SampleResult(2, "done", {"answer": "a"}, {"correct": 1.0}, None, [], 0.1),  # not run on Ray
        ],
    )
    page = render_report(run_id, store)
    details = _blob(page)["details"]
    assert [d.get("node") for d in details] == [node, node, None]
    assert 'field(right, "Ray node", d.node)' in page  # the drill-down shows the field where a node is known


TIMELINE_PROBE = """
(function () {
  var box = document.querySelector(".timeline"), table = box && box.querySelector("table");
  var out = { ready: document.body.dataset.ready === "1", pageScrollWidth: document.documentElement.scrollWidth,
              innerWidth: window.innerWidth, found: !!table,
              fits: !!table && table.scrollWidth <= box.clientWidth + 1,
              marks: table ? Array.prototype.map.call(table.querySelectorAll("td.mark"),
                                                      function (td) { return td.textContent; }) : [],
              verdict: box ? box.querySelector(".tl-head .pill").textContent : null,
              raw: Array.prototype.map.call(document.querySelectorAll("details.raw > summary"),
                                            function (s) { return s.textContent; }) };
  var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
"""
"""Measures the opened episode's timeline: is it drawn, does its table fit its box at the window's width, and
what does each step's right/wrong mark read."""


def _probe(browser: Browser, tmp_path: Path, page: str, script: str, anchor: str, *args: str) -> dict[str, Any]:
    head, _, tail = page.rpartition("</body>")
    probed = tmp_path / "probed.html"
    probed.write_text(f"{head}<script>{script}</script></body>{tail}", encoding="utf-8")
    dom = browser.browse(probed.resolve().as_uri() + anchor, *args, "--dump-dom")
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found is not None, dom[-2000:]
    probe: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return probe


@pytest.mark.xdist_group("report-truth")  # the claw and Hi-ToM runs are made once, in one worker
@pytest.mark.boundary  # a real Chromium
def test_browser_claw_timeline_fits_at_1280px_and_marks_each_window(
    browser: Browser, truth: tuple[RunStore, str, str], tmp_path: Path
) -> None:
    store, claw, _ = truth
    record = next(r for r in store.records(claw) if r.sample.input["gold"]["help_needed"])
    path = write_report(claw, store, tmp_path / "claw.html")
    page = path.read_text(encoding="utf-8")
    probe = _probe(browser, tmp_path, page, TIMELINE_PROBE, f"#sample={record.sample.id}", "--window-size=1280,1000")
    assert probe["ready"] and probe["found"] and probe["fits"]
    assert probe["pageScrollWidth"] <= probe["innerWidth"] == 1280
    acted = [step["t"] for step in record.output["trace"] if step["a"]["steps"]]
    t_star = record.sample.input["gold"]["t_star"]
    expected = [
        "✓ right" if (step["t"] in acted) == (step["t"] == t_star) else "✗ wrong" for step in record.output["trace"]
    ]
    assert probe["marks"] == expected
    assert probe["verdict"] == ("episode right" if acted == [t_star] else "episode wrong")
    assert probe["raw"] == ["output.trace (raw JSON; the timeline above reads it)"]  # o, z, by, r, a: folded away
    shot = tmp_path / "timeline.png"
    browser.browse(path.resolve().as_uri() + f"#sample={record.sample.id}",
            f"--screenshot={shot}", "--window-size=1280,1600")  # fmt: skip
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (1280, 1600)
    assert len(png) > 50_000


FOLD_PROBE = """
(function () {
  var content = document.querySelector(".msg.user .content.long"), mid = content && content.querySelector(".fold-mid");
  var tail = content && content.querySelector(".fold-tail"), button = content && content.querySelector("button.fold");
  var out = { long: !!content, midHidden: !!mid && mid.hidden, tail: tail ? tail.textContent : null,
              tailShown: !!tail && tail.getBoundingClientRect().height > 0,
              button: button ? button.textContent : null };
  if (button) button.click();
  out.afterClick = !!mid && !mid.hidden && mid.getBoundingClientRect().height > 0;
  out.whole = content ? content.textContent.indexOf("line 50 of the story") >= 0 : false;
  var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
"""


@pytest.mark.boundary  # a real Chromium
def test_browser_long_prompt_shows_its_question_and_expands_whole(
    browser: Browser, store: RunStore, tmp_path: Path
) -> None:
    """A 100-line prompt: its first and last lines (the question and the choices) show at once, the middle behind
    a button that shows the whole message."""
    lines = [f"line {k} of the story." for k in range(1, 99)] + ["Question: where is the ball?", "Choices: box, basket"]
    prompt = "\n".join(lines)
    samples = [Sample("long-1", {"question": "where is the ball?", "answer": "box"}, "g", "box")]
    run_id = store.create_run(
        benchmark="tomi", agent="model", model="scripted/t", config={}, samples=samples, version="t"
    )
    store.finish(
        run_id, [SampleResult(0, "done", {"answer": "box"}, {"correct": 1.0}, None, [_call(prompt, "box")], 0.1)]
    )
    page = write_report(run_id, store, tmp_path / "long.html").read_text(encoding="utf-8")
    probe = _probe(browser, tmp_path, page, FOLD_PROBE, "#sample=long-1", "--window-size=1280,1000")
    assert probe["long"] and probe["midHidden"] and probe["tailShown"]
    assert probe["tail"].endswith("Question: where is the ball?\nChoices: box, basket")
    assert probe["button"] == "show the 76 lines in between (whole message: 100 lines)"
    assert probe["afterClick"] and probe["whole"]


def test_cobel_and_tos_timelines_follow_their_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CoBel-World: a row per step with a message or a belief sample, none judged (no per-step gold), the episode
    right when it finished. Theory of Space: a row per exploration step (not judged), then per question with its
    gold and the agent's answer, right when its score is 1; the episode right when its task average is >= 0.5."""
    monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path))
    with RunStore(tmp_path / "runs.sqlite") as store:
        cwah = run_benchmark(RunRequest("cwah", n=1), store=store, progress=False).run_id
        tos = run_benchmark(RunRequest("tos-passive", n=1), store=store, progress=False).run_id
        cwah_data, tos_data = _blob(render_report(cwah, store)), _blob(render_report(tos, store))
        cwah_record, tos_record = store.records(cwah)[0], store.records(tos)[0]
    out = cwah_record.output
    tl = cwah_data["details"][0]["timeline"]
    steps = sorted({m["t"] for m in out["messages"]} | {t for t, _ in out["belief_accuracy"]})
    assert [s["t"] for s in tl["steps"]] == [str(t) for t in steps] and tl["judged"] == 0
    said = "\n".join(s["happened"] for s in tl["steps"])
    assert all(m["text"] in said for m in out["messages"])
    assert tl["verdict"] is bool(out["finished"]) and cwah_data["rows"][0]["v"] is bool(out["finished"])
    out = tos_record.output
    tl = tos_data["details"][0]["timeline"]
    assert len(tl["steps"]) == len(out["actions"]) + len(out["answers"])
    explore, questions = tl["steps"][: len(out["actions"])], tl["steps"][len(out["actions"]) :]
    assert [s["agent"] for s in explore] == out["actions"] and all(s["correct"] is None for s in explore)
    gold = {q["question"]: q["answer"] for q in tos_record.sample.input["questions"]}
    for row, answer in zip(questions, out["answers"], strict=True):
        assert row["agent"] == answer["answer"] and answer["question"] in row["happened"]
        assert row["correct"] is ({1.0: True, 0.0: False}.get(answer["score"]))
        want = gold[answer["question"]]
        if isinstance(want, str):
            assert row["gold"] == want
        elif isinstance(want, dict) and "answer" in want:
            assert row["gold"] == want["answer"]
    assert tl["verdict"] is (tos_record.scores["avg"] >= 0.5)

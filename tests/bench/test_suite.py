"""Suites: the plan and its presets, runs equal to `bench run`, resuming a stopped suite, a model suite against a
local server, the report's paper tables (values, nulls, intervals), the command line, old stores, a real browser.

A suite run is an ordinary run per benchmark, so most expectations here are the results of the same `bench run`
(`run_benchmark` with the preset's n and options) computed on the side, or values recomputed from the stored
samples; the papers' column layouts are transcribed from the papers (/work/shared/papers) independently of the
code's table.
"""

from __future__ import annotations

import html
import json
import re
import socket
import sqlite3
import struct
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import mindloop.bench.report.suite as suite_report_module
import mindloop.bench.store as store_module
from mindloop.bench.headline import headline_of, reference_marks
from mindloop.bench.registry import BENCHMARKS, get_benchmark
from mindloop.bench.report.plots import fmt_number
from mindloop.bench.report.suite import paper_tables, render_suite_report, suite_report, write_suite_report
from mindloop.bench.runner import RunRequest, RunSummary, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.bench.suite import (
    SuiteRequest,
    preset_entry,
    run_suite,
    runs_of_suite,
    suite_plan,
)
from mindloop.bench.tables import interval_at
from mindloop.cli import main
from mindloop.errors import InvalidArgumentError, MindloopError, UnknownNameError
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer
from mindloop.systems.tom.benchmarks import HiToMBenchmark

from .browser import Browser

REPO = Path(__file__).resolve().parents[2]
SMALL = ("tomi", "hitom", "cwah")


def _suite_order() -> tuple[str, ...]:
    """Every registered benchmark a suite runs (a model-driven agent, not excluded), by declared suite order."""
    names = []
    for name in BENCHMARKS.names():
        bench = get_benchmark(name)
        if bench.spec.suite.excluded is None and any(a.needs_model for a in bench.agents.values()):
            names.append(name)
    return tuple(sorted(names, key=lambda n: (get_benchmark(n).spec.suite.order, n)))


SUITE_ORDER = _suite_order()
"""The benchmarks a suite runs, in the order their declarations give (derived here from the registry, so a new
benchmark is tested by registering it)."""


def _records(store: RunStore, run_id: str) -> list[tuple[str, str, Any, Any]]:
    return [(r.sample.id, r.status, r.output, r.scores) for r in store.records(run_id, include_pending=True)]


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunStore, str]]:
    """The whole quick suite with the symbolic agents, once for the module."""
    home = tmp_path_factory.mktemp("suite-home")
    with RunStore(home / "runs.sqlite") as store:
        result = run_suite(SuiteRequest(), store=store, progress=False)
        yield store, result.suite_id


@pytest.fixture(scope="module")
def quick_page(quick: tuple[RunStore, str], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """The quick suite's page with each run's report beside it (``write_suite_report``), written once for the
    module: the page test and the browser tests read the same files."""
    store, suite_id = quick
    return write_suite_report(store, suite_id, tmp_path_factory.mktemp("suite-page"))


# -- the plan and the presets -------------------------------------------------------------------------------------


def test_the_plan_is_every_benchmark_with_a_model_agent_less_the_excluded() -> None:
    expected = set()
    for name in BENCHMARKS.names():
        bench = get_benchmark(name)
        specs = list(bench.agents.values())
        if any(s.needs_model for s in specs) and bench.spec.suite.excluded is None:
            expected.add(name)
    assert set(suite_plan(model=True)) == expected
    assert suite_plan(model=True) == list(SUITE_ORDER)
    assert suite_plan(model=True)[:2] == ["tomi", "hitom"]  # cheap question answering first
    assert "smoke" not in suite_plan(model=True) and "smoke" not in suite_plan(model=False)
    # without a model, every planned benchmark has an agent that needs none (the one that plays)
    for name in suite_plan(model=False):
        assert not next(iter(get_benchmark(name).agents.values())).needs_model


def test_only_takes_aliases_and_refuses_what_cannot_run() -> None:
    assert suite_plan(model=True, only=["mindclaw", "tomi", "cobel-cwah"]) == ["claw", "tomi", "cwah"]
    assert suite_plan(model=True, only=["smoke"]) == ["smoke"]  # excluded by default, runs when named
    with pytest.raises(InvalidArgumentError, match="every agent of benchmark 'smoke' needs a model"):
        suite_plan(model=False, only=["smoke"])
    with pytest.raises(UnknownNameError, match="tomj"):
        suite_plan(model=True, only=["tomj"])


def test_quick_is_small_paper_is_whole_and_docs_list_every_quick_n() -> None:
    doc = (REPO / "docs" / "suite.md").read_text(encoding="utf-8")
    for name in SUITE_ORDER:
        entry = preset_entry("quick", name)
        assert entry.n is not None and 1 <= entry.n <= 20 and entry.why
        assert preset_entry("paper", name).n is None
        # docs/suite.md's preset table gives the same n for every benchmark
        row = re.search(rf"^\| `{re.escape(name)}` \| (\d+) \|", doc, re.MULTILINE)
        assert row is not None and int(row.group(1)) == entry.n, name
    assert {n for n in BENCHMARKS.names() if "quick" in get_benchmark(n).spec.suite.presets} == set(SUITE_ORDER)
    with pytest.raises(InvalidArgumentError, match="unknown preset 'fast'"):
        preset_entry("fast", "tomi")


def test_model_only_options_apply_with_a_model_and_validate() -> None:
    from mindloop.bench.options import validate_options
    from mindloop.bench.suite import _run_request

    for name in ("cwah", "tdw-mat"):
        with_model = _run_request(SuiteRequest(model="scripted/echo"), name, {})
        symbolic = _run_request(SuiteRequest(), name, {})
        assert dict(with_model.options) == {"max_steps": "30"} and dict(symbolic.options) == {}
        assert validate_options(get_benchmark(name), with_model.options).max_steps == 30  # type: ignore[attr-defined]
        # the paper's generation settings (CoBel-World section 4.1), and where they came from
        assert (with_model.generation.temperature, with_model.generation.max_tokens) == (0.7, 512)
        assert with_model.generation_source["temperature"] == "paper"
    override = _run_request(SuiteRequest(model="scripted/echo", temperature=0.2), "cwah", {})
    assert override.generation.temperature == 0.2 and override.generation_source["temperature"] == "cli"


def test_max_n_caps_each_benchmark_below_its_preset_n() -> None:
    from mindloop.bench.suite import _run_request

    capped = {name: _run_request(SuiteRequest(max_n=3), name, {}).n for name in ("tomi", "tos-active", "cwah")}
    assert capped == {"tomi": 3, "tos-active": 1, "cwah": 2}  # quick n is 20, 1 and 2: only tomi's is above 3
    assert _run_request(SuiteRequest(preset="paper", max_n=4), "hitom", {}).n == 4  # the whole set, capped


# -- running ------------------------------------------------------------------------------------------------------


@pytest.mark.xdist_group("suite-quick")  # the quick suite is made once, in one worker
def test_quick_suite_runs_equal_bench_runs_sample_for_sample(quick: tuple[RunStore, str], tmp_path: Path) -> None:
    store, suite_id = quick
    runs = runs_of_suite(store, suite_id)
    assert [store.run(r).benchmark for r in runs] == list(SUITE_ORDER)
    with RunStore(tmp_path / "alone.sqlite") as alone:
        for run_id in runs:
            info = store.run(run_id)
            assert info.n_completed == info.n == preset_entry("quick", info.benchmark).n and info.n_bugs == 0
            options = dict(preset_entry("quick", info.benchmark).options)  # e.g. select=balanced
            solo = run_benchmark(
                RunRequest(info.benchmark, n=info.n, seed=0, options=options), store=alone, progress=False
            )  # `mindloop bench run NAME --n N --opt KEY=VALUE`
            assert _records(alone, solo.run_id) == _records(store, run_id), info.benchmark
    suite = store.suite(suite_id)
    assert suite.finished is not None and suite.preset == "quick" and suite.model is None


def test_an_interrupted_suite_resumes_where_it_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    original = HiToMBenchmark._symbolic

    async def interrupting(self: HiToMBenchmark, sample: Any, ctx: Any) -> Any:
        calls.append(sample.id)
        if len(calls) == 7:
            raise KeyboardInterrupt
        return await original(self, sample, ctx)

    request = SuiteRequest(only=SMALL, concurrency=1)
    with RunStore(tmp_path / "runs.sqlite") as store:
        whole = run_suite(request, store=store, progress=False)
        monkeypatch.setattr(HiToMBenchmark, "_symbolic", interrupting)
        cut = run_suite(request, store=store, progress=False)
        assert cut.interrupted and not cut.complete
        assert [s.benchmark for s in cut.summaries] == ["tomi", "hitom"]
        assert cut.summaries[1].n_completed == 6
        data = suite_report(store, cut.suite_id)
        assert [r["status"] for r in data["runs"]] == ["finished", "partial", "not started"]
        assert data["complete"] is False and data["finished"] is None
        assert store.suite(cut.suite_id).finished is None

        calls.clear()

        async def counting(self: HiToMBenchmark, sample: Any, ctx: Any) -> Any:
            calls.append(sample.id)
            return await original(self, sample, ctx)

        monkeypatch.setattr(HiToMBenchmark, "_symbolic", counting)
        resumed = run_suite(SuiteRequest(), store=store, resume=cut.suite_id, progress=False)
        assert resumed.complete and len(calls) == 20 - 6  # only hitom's pending samples ran again
        assert runs_of_suite(store, cut.suite_id)[:2] == [s.run_id for s in cut.summaries]
        for mine, theirs in zip(runs_of_suite(store, cut.suite_id), runs_of_suite(store, whole.suite_id), strict=True):
            assert _records(store, mine) == _records(store, theirs)
        assert store.suite(cut.suite_id).finished is not None
        # resuming a finished suite runs nothing and gives the same summaries
        again = run_suite(SuiteRequest(), store=store, resume=cut.suite_id, progress=False)
        assert [s.to_json() for s in again.summaries] == [s.to_json() for s in resumed.summaries]


def test_bad_requests_are_refused_before_anything_is_recorded(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        cases = [
            (SuiteRequest(preset="fast"), "unknown preset 'fast'"),
            (SuiteRequest(only=("tomi",), opts=("tomi-data=x",)), "expected BENCHMARK.KEY=VALUE"),
            (SuiteRequest(only=("tomi",), opts=("hitom.data=x",)), "'hitom' is not in this suite"),
            (SuiteRequest(only=("tos-active",), opts=("tos-active.rooms=99",)), "rooms"),
            (SuiteRequest(max_n=0), "--max-n must be at least 1"),
        ]
        for request, message in cases:
            with pytest.raises(MindloopError, match=message):
                run_suite(request, store=store, progress=False)
        with socket.socket() as sock:  # a port nothing listens on: the pre-flight check fails in seconds
            sock.bind(("127.0.0.1", 0))
            dead = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
        request = SuiteRequest(
            model="openai/m", only=("tomi",), model_options=ModelOptions(base_url=dead, max_retries=0, timeout_s=5)
        )
        with pytest.raises(MindloopError):
            run_suite(request, store=store, progress=False)
        assert store.suites() == [] and store.runs() == []
        with pytest.raises(InvalidArgumentError, match="no suite 'suite-x'"):
            run_suite(SuiteRequest(), store=store, resume="suite-x", progress=False)


def test_a_model_suite_runs_each_model_agent_and_adds_up_its_ledger(tmp_path: Path) -> None:
    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        return "A"

    with RunStore(tmp_path / "runs.sqlite") as store, FakeChatServer(reply) as server:
        options = ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01)
        result = run_suite(
            SuiteRequest(model="openai/fake", only=("tomi", "hitom"), model_options=options, concurrency=4),
            store=store,
            progress=False,
        )
        assert server.requests == 40  # 20 questions each
        assert server.gets.count("/v1/models") == 3  # the suite's pre-flight check, then each run's
        assert [(s.benchmark, s.agent, s.model, s.n) for s in result.summaries] == [
            ("tomi", "model", "openai/fake", 20),
            ("hitom", "model", "openai/fake", 20),
        ]
        data = suite_report(store, result.suite_id)
        records = {s.benchmark: store.records(s.run_id) for s in result.summaries}
    assert data["ledger"]["calls"] == 40 == sum(len(r.calls) for rs in records.values() for r in rs)
    assert data["ledger"]["total_tokens"] == sum(s.tokens["total_tokens"] for s in result.summaries) > 0
    assert result.to_json()["tokens"]["calls"] == 40
    # every answer "A": the table's accuracy per type is the share of questions whose gold is the first choice,
    # recomputed here from the stored samples
    tomi = next(t for t in data["tables"] if t["key"] == "tomi")
    for row in tomi["rows"][:4]:
        group = row["label"].replace(" ", "_")
        mine = [r.scores["correct"] for r in records["tomi"] if r.sample.group == group]
        assert row["cells"][0]["value"] == pytest.approx(sum(mine) / len(mine))
        assert row["cells"][0]["text"] == f"{100 * sum(mine) / len(mine):.1f}"
        assert row["cells"][1]["value"] == len(mine)
    assert tomi["rows"][4]["label"] == "all (openai/fake)"


# -- the report ---------------------------------------------------------------------------------------------------

PAPER_COLUMNS = {
    # MindPower Table 2: Perception ... Decision (B, S), Action (SR, AC), BPC
    "mindpower": [
        f"{layer} {kind}"
        for layer in ("Perception", "Belief", "Desire", "Intention", "Decision")
        for kind in ("B", "S")
    ]
    + ["Action SR", "Action AC", " BPC", " n"],
    # MindClaw Table II and Table IV
    "claw": ["Table II TA", "Table II PIA", "Table II CS", "Table IV ACC", "Table IV ACC w/o noop", " n"],
    # OmniToM Table 3
    "omnitom": [
        f"Stage 1: Belief Extraction F1 {c}" for c in ("AST", "FBT", "FPT", "HT", "PST", "SIT", "SST", "Overall")
    ]
    + [
        f"Stage 2: Belief-Labeling Accuracy {c}"
        for c in ("Order", "Status", "Access", "Repr", "CType", "Source", "Context", "Overall")
    ],
    # Theory of Space Table 1
    "tos": [" Avg.step"]
    + [f"Route {t}" for t in ("direction", "persp.take", "perc.dec", "act2view", "view2act")]
    + [f"Survey {t}" for t in ("alloc.map", "ment.rot", "loc2view", "view2loc")]
    + [" Avg.", " n"],
}


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    return next(t for t in data["tables"] if t["key"] == key)


@pytest.mark.xdist_group("suite-quick")  # the quick suite is made once, in one worker
def test_report_tables_follow_the_papers_and_show_no_value_as_a_dash(quick: tuple[RunStore, str]) -> None:
    store, suite_id = quick
    data = suite_report(store, suite_id)
    assert {t["key"] for t in data["tables"]} == {t.key for t in paper_tables()}
    for key, columns in PAPER_COLUMNS.items():
        assert [f"{c['group']} {c['label']}" for c in _table(data, key)["columns"]] == columns, key
    mindpower = _table(data, "mindpower")
    bpc = [row["cells"][12] for row in mindpower["rows"]]  # no judge: BPC was not scored
    assert all(c["value"] is None and c["text"] == "–" for c in bpc)
    claw = _table(data, "claw")  # balanced: 2 episodes that need help and 1 control of each task
    for row in claw["rows"]:  # every row has episodes; a control's CS alone is undefined (nothing to complete)
        for cell in row["cells"]:
            if cell["value"] is None:
                assert row["label"].endswith("control") and cell["metric"].endswith(".cs"), (row["label"], cell)
                assert cell["filled_by"] == "none on a control"
    # the quick suite fills every cell, or the cell says what fills it (or why it has no value)
    for table in data["tables"]:
        for row in table["rows"]:
            for cell in row["cells"]:
                assert cell["value"] is not None or cell["filled_by"], (table["key"], row["label"], cell["metric"])
                if cell["value"] is not None:
                    assert cell["filled_by"] is None
    cwah_rows = [r for r in _table(data, "cwah")["rows"] if not r["label"].startswith("Symbolic Average")]
    filled = {c["filled_by"] for r in cwah_rows for c in r["cells"] if c["value"] is None}
    assert filled <= {"--preset paper fills it"}
    # every number in every table is the run's own metric at the cell's path, times the column's scale
    runs = dict(zip(data["config"]["benchmarks"], runs_of_suite(store, suite_id), strict=True))
    metrics = {name: store_summary(store, run_id).metrics for name, run_id in runs.items()}
    seen = 0
    for table in data["tables"]:
        for row in table["rows"]:
            for cell in row["cells"]:
                node: Any = metrics[cell["benchmark"]]
                for part in _split(cell["metric"], node):
                    node = node.get(part) if isinstance(node, dict) else None
                if cell["metric"] == "n" and node is None:
                    continue  # the run-wide n of a summary without one: the run's finished samples
                assert cell["value"] == node, (table["key"], row["label"], cell["metric"])
                seen += cell["value"] is not None
    assert seen > 100
    tdw = _table(data, "tdw-mat")["rows"][-1]["cells"][0]
    assert tdw["text"] == f"{100 * metrics['tdw-mat']['transport_rate']:.2f}"


def store_summary(store: RunStore, run_id: str) -> RunSummary:
    from mindloop.bench.runner import summarize_run

    return summarize_run(run_id, store)


def _split(dotted: str, metrics: dict[str, Any]) -> list[str]:
    """A cell's dotted metric path back into keys, where keys may hold dots themselves (ToS's ``persp.take``)."""
    parts: list[str] = []
    rest = dotted
    node: Any = metrics
    while rest:
        keys = sorted(node, key=len, reverse=True) if isinstance(node, dict) else []
        key = next((k for k in keys if rest == k or rest.startswith(k + ".")), None)
        if key is None:  # not in the summary: the cell must read no value
            return [*parts, rest]
        parts.append(key)
        rest = rest[len(key) + 1 :]
        node = node[key]
    return parts


@pytest.mark.xdist_group("suite-quick")  # the quick suite is made once, in one worker
def test_intervals_in_a_summary_show_under_their_value(
    quick: tuple[RunStore, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, suite_id = quick
    real = suite_report_module.summarize_run
    tomi_intervals = {  # the shape of mindloop.bench.uncertainty.bootstrap_intervals: nested like the metrics
        "method": "percentile bootstrap over samples",
        "level": 0.95,
        "resamples": 1000,
        "seed": 0,
        "n": 20,
        "metrics": {
            "accuracy": {"low": 0.8, "high": 1.0, "se": 0.05},
            "by_type": {"memory": {"accuracy": {"low": 0.5, "high": 1.0}}},
        },
    }

    def summarize(run_id: str, store: RunStore, **kw: Any) -> RunSummary:
        summary = real(run_id, store, **kw)
        return replace(summary, intervals=tomi_intervals if summary.benchmark == "tomi" else {})

    monkeypatch.setattr(suite_report_module, "summarize_run", summarize)
    data = suite_report(store, suite_id)
    tomi = _table(data, "tomi")
    memory = next(r for r in tomi["rows"] if r["label"] == "memory")["cells"][0]
    assert (memory["low"], memory["high"], memory["interval"]) == (50.0, 100.0, "[50.0, 100.0]")
    overall = tomi["rows"][-1]["cells"][0]
    assert overall["interval"] == "[80.0, 100.0]"
    # a metric its run's intervals leave without one reads — (the run's intervals.none says why)
    reality = next(r for r in tomi["rows"] if r["label"] == "reality")["cells"][0]
    assert (reality["interval"], reality["low"], reality["high"]) == ("—", None, None)
    assert all(
        c["interval"] is None for t in data["tables"] if t["key"] != "tomi" for r in t["rows"] for c in r["cells"]
    )
    head = data["runs"][0]["headline"]
    assert {k: head[k] for k in ("metric", "higher_is_better", "value", "low", "high")} == {
        "metric": "accuracy",
        "higher_is_better": True,
        "value": 1.0,
        "low": 0.8,
        "high": 1.0,
    }
    assert head["plot"]["low"] is not None  # the ledger's small plot draws the interval too
    assert data["intervals"] == "95% confidence interval (percentile bootstrap over samples, 1000 resamples, seed 0)"
    page = render_suite_report(data)
    assert '<span class="ci" title="95% confidence interval">[80.0, 100.0]</span>' in page
    assert "Under each value: its 95% confidence interval (percentile bootstrap" in page
    # a flat form, by dotted metric name, reads the same
    flat = interval_at({"by_type.memory.accuracy": [0.5, 1.0]}, ("by_type", "memory", "accuracy"))
    assert flat == (0.5, 1.0)


@pytest.mark.xdist_group("suite-quick")  # the quick suite is made once, in one worker
def test_page_is_self_contained_links_each_run_report_and_escapes(
    quick: tuple[RunStore, str], quick_page: tuple[Path, list[Path]]
) -> None:
    store, suite_id = quick
    page, written = quick_page
    folder = page.parent
    assert page == folder / f"{suite_id}.html"
    text = page.read_text(encoding="utf-8")
    runs = runs_of_suite(store, suite_id)
    assert sorted(p.name for p in written) == sorted(f"{r}.html" for r in runs)
    for run_id in runs:
        assert f'href="{run_id}.html"' in text and (folder / f"{run_id}.html").exists()
    assert not re.search(r'(src|href)="(https?:)?//', text)  # nothing fetched from anywhere
    blob = re.search(r'<script type="application/json" id="suite-data">(.*?)</script>', text, re.S)
    assert blob is not None and json.loads(blob.group(1)) == suite_report(store, suite_id)
    evil = suite_report(store, suite_id) | {"model": "</script><script>alert(1)</script>"}
    rendered = render_suite_report(evil)
    assert "<script>alert(1)" not in rendered and rendered.count("</script>") == 1


# -- the command line ---------------------------------------------------------------------------------------------


def test_cli_run_list_report_and_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["suite", "run", "--only", "tomi,hitom", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["benchmark"] for r in out["runs"]] == ["tomi", "hitom"] and out["complete"] is True
    assert [r["n"] for r in out["runs"]] == [20, 20] and out["tokens"]["calls"] == 0
    suite_id = out["suite_id"]
    assert suite_id.startswith("suite-")

    assert main(["suite", "list", "--json"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)["suites"]
    assert listed["suite_id"] == suite_id and listed["runs"] == [r["run_id"] for r in out["runs"]]

    assert main(["suite", "report", suite_id, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [t["key"] for t in report["tables"]] == ["tomi", "hitom"]
    assert report["ledger"]["completed"] == 40

    assert main(["suite", "report", suite_id, "-o", str(tmp_path)]) == 0
    assert (tmp_path / f"{suite_id}.html").exists() and len(list(tmp_path.glob("*.html"))) == 3
    assert main(["suite", "report", suite_id, "-o", str(tmp_path / "sub" / "new"), "--no-run-reports"]) == 0
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["new"]  # a new name is a file, as for every -o
    assert (tmp_path / "sub" / "new").read_text(encoding="utf-8").lower().startswith("<!doctype html>")
    assert main(["suite", "report", suite_id, "-o", str(tmp_path / "page.htm")]) == 0
    assert (tmp_path / "page.htm").is_file()

    assert main(["suite", "report", "suite-nope"]) == 1
    assert "no suite 'suite-nope'" in capsys.readouterr().err
    assert main(["suite", "run", "--only", "tomi", "--opt", "tomi"]) == 1
    assert "expected BENCHMARK.KEY=VALUE" in capsys.readouterr().err


def test_progress_every_and_model_opts_reach_every_run_of_the_suite(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import mindloop.bench.suite as suite_module

    seen: list[RunRequest] = []
    real = suite_module.run_benchmark

    def spy(request: RunRequest, **kwargs: Any) -> RunSummary:
        seen.append(request)
        return real(request, **kwargs)

    monkeypatch.setattr(suite_module, "run_benchmark", spy)
    with FakeChatServer(lambda messages, body: "A") as server:
        args = ["suite", "run", "--model", "openai/fake", "--base-url", server.base_url, "--only", "tomi,hitom"]
        assert main([*args, "--max-n", "2", "--progress-every", "7", "--model-opt", "server_slots=2", "--json"]) == 0
        assert [(r.benchmark, r.progress_every, r.model_options.extra) for r in seen] == [
            ("tomi", 7.0, {"server_slots": 2}),
            ("hitom", 7.0, {"server_slots": 2}),
        ]
        capsys.readouterr()
        assert main([*args, "--model-opt", "n_ctx=512"]) == 1  # a llamacpp key for the openai backend
        err = capsys.readouterr().err
        assert "n_ctx" in err and len(err.strip().splitlines()) == 1 and len(seen) == 2


# -- the store ----------------------------------------------------------------------------------------------------


def test_a_layout_2_store_reads_as_it_is_and_gains_the_suite_tables_when_written(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    db = sqlite3.connect(path)  # a store written by the mindloop before suites: layout 1's tables, then step 1 -> 2
    db.executescript(store_module._SCHEMA_V1)
    store_module.MIGRATIONS[1](db)
    run_id = "tomi-20250101-000000-abcd"
    db.execute(
        "INSERT INTO runs (run_id, benchmark, agent, model, config, n, started, version)"
        " VALUES (?, 'tomi', 'tracker', NULL, '{}', 1, '2025-01-01T00:00:00+00:00', '0')",
        (run_id,),
    )
    db.execute("INSERT INTO samples (run_id, idx, sample_id, grp, input) VALUES (?, 0, 's0', 'g', '{}')", (run_id,))
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    with RunStore(path, readonly=True) as store:
        assert store.suites() == [] and store.suite_members("suite-x") == []
        with pytest.raises(InvalidArgumentError, match="no suites recorded yet"):
            store.suite("suite-x")
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    db.close()
    with RunStore(path) as store:
        assert [r.run_id for r in store.runs()] == [run_id]
        result = run_suite(SuiteRequest(only=("tomi",)), store=store, progress=False)
        assert runs_of_suite(store, result.suite_id) == [result.summaries[0].run_id]
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == store_module.SCHEMA_VERSION
    db.close()


# -- a real browser -----------------------------------------------------------------------------------------------


@pytest.mark.xdist_group("suite-quick")  # the quick suite is made once, in one worker
@pytest.mark.boundary  # a real Chromium
def test_browser_shows_every_paper_table_and_the_ledger(
    browser: Browser, quick_page: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    page, _ = quick_page
    dom = browser.browse(page.resolve().as_uri(), "--dump-dom")
    for spec in paper_tables():
        assert f'data-table="{spec.key}"' in dom
    bpc = r'data-metric="(by_task\.\w+\.)?bpc" data-bench="mindpower">–<span class="ci">a judge fills it</span></td>'
    assert len(re.findall(bpc, dom)) == 3  # no judge: no BPC, and the cell says what fills it
    assert len(re.findall(r'<tr data-bench="[^"]+">', dom)) == len(SUITE_ORDER)
    shot = tmp_path / "suite.png"
    browser.browse(page.resolve().as_uri(), f"--screenshot={shot}", "--window-size=1280,2400")
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (1280, 2400)
    assert len(png) > 50_000  # a blank or error page compresses to a few kB


@pytest.mark.xdist_group("suite-quick")  # the quick suite is made once, in one worker
def test_report_marks_each_runs_reference_policies_beside_its_headline(quick: tuple[RunStore, str]) -> None:
    """Whatever references a run stored (tomi and hitom declare chance and the oracle), the ledger shows them beside
    the headline with a small plot marking each, and the paper table's headline cell shows them in its own scale."""
    store, suite_id = quick
    data = suite_report(store, suite_id)
    page = render_suite_report(data)
    marked = 0
    for entry in data["runs"]:
        if entry["run_id"] is None:
            continue
        stored = store.stored_summary(entry["run_id"]) or {}
        values = stored.get("references") or {}
        head = headline_of(entry["benchmark"])
        policies = (stored.get("definitions") or {}).get("references") or []
        expected = reference_marks(values, policies, head.higher_is_better if head else True)
        assert entry["headline"]["references"] == [m._asdict() for m in expected], entry["benchmark"]
        row = re.search(rf'<tr data-bench="{entry["benchmark"]}">(.*?)</tr>', page, re.S)
        assert row is not None
        for mark in expected:
            assert mark.value is not None
            assert f"{mark.label} {fmt_number(mark.value)}" in row.group(1)
            assert f'data-mark="{mark.label}"' in row.group(1)
        marked += bool(expected)
    assert marked >= 2  # tomi and hitom at least
    tomi = next(e for e in data["runs"] if e["benchmark"] == "tomi")
    refs = {m["label"]: m["value"] for m in tomi["headline"]["references"]}
    overall = _table(data, "tomi")["rows"][-1]["cells"][0]
    assert overall["metric"] == "accuracy"
    for label, value in refs.items():  # each mark in the table's percent, one decimal as the column prints
        assert f"{label} {100 * value:.1f}" in overall["references"], label
    assert [c["references"] for c in _table(data, "tomi")["rows"][0]["cells"]] == [None, None]  # per type: none


TABLE_PROBE = """
(function () {
  var out = { ready: true, innerWidth: window.innerWidth, pageScrollWidth: document.documentElement.scrollWidth,
              tables: [] };
  Array.prototype.forEach.call(document.querySelectorAll("table.grid"), function (t) {
    var box = t.parentElement, rows = t.tHead.rows, labels = rows[rows.length - 1].cells;
    var vis = box.getBoundingClientRect();
    out.tables.push({ key: t.dataset.table,
      fits: t.scrollWidth <= box.clientWidth + 1 && vis.right <= window.innerWidth,
      labels: Array.prototype.slice.call(labels, 1).map(function (c) { return c.textContent; }),
      shown: Array.prototype.every.call(labels, function (c) { var r = c.getBoundingClientRect();
        return r.width > 0 && r.left >= vis.left - 0.5 && r.right <= vis.right + 0.5; }) });
  });
  var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
"""
"""Every table of the suite page at the window's width: does it fit its box without scrolling, is every header
cell inside the visible box, and what do its column labels read."""


@pytest.mark.xdist_group("suite-quick")  # the quick suite is made once, in one worker
@pytest.mark.boundary  # a real Chromium
def test_browser_every_paper_table_keeps_every_column_at_1280px(
    browser: Browser, quick_page: tuple[Path, list[Path]]
) -> None:
    """The widest tables (MindPower Table 2, OmniToM Stage 2, ToS Table 1) are split into parts that each fit:
    across its parts, a table shows every column of the paper's, in order, none scrolled out of view."""
    page, _ = quick_page
    text = page.read_text(encoding="utf-8")
    head, _, tail = text.rpartition("</body>")
    probed = page.parent / "probed.html"  # beside the page, so its links resolve as the page's do
    probed.write_text(f"{head}<script>{TABLE_PROBE}</script></body>{tail}", encoding="utf-8")
    dom = browser.browse(probed.resolve().as_uri(), "--window-size=1280,1000", "--dump-dom")
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found is not None, dom[-2000:]
    probe = json.loads(html.unescape(found.group(1)))
    assert probe["innerWidth"] == 1280 and probe["pageScrollWidth"] <= 1280
    for table in probe["tables"]:
        assert table["fits"] and table["shown"], table["key"]
    for spec in paper_tables():
        shown = [label for t in probe["tables"] if t["key"] == spec.key for label in t["labels"]]
        assert shown == [c.label for c in spec.columns], spec.key
    for key in ("mindpower", "omnitom", "tos"):  # the widest: OmniToM's 16 columns, MindPower's 14, ToS's 12
        assert sum(t["key"] == key for t in probe["tables"]) >= 2, key

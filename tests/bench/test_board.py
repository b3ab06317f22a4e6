"""``mindloop board``: one page over every run and suite, from the stored summaries only.

The store holds scripted ToMi runs whose accuracy is known by construction (k of 24 right, four choices a question:
chance 0.25, oracle 1), one real Hi-ToM run of the symbolic agent, a run with no stored summary, one whose summary
went stale, an unfinished one, and a one-benchmark suite. The page is checked as data, as HTML, in Chromium at
1280 px (every table fits; the filter and sort controls, clicked, change the rows as they should; a screenshot),
and served by a real ``mindloop board --serve`` process stopped with a signal.
"""

from __future__ import annotations

import html
import json
import os
import re
import signal
import sqlite3
import struct
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mindloop.bench.registry as registry_module
import mindloop.bench.runner as runner_module
from mindloop.bench.api import Sample
from mindloop.bench.report import write_report
from mindloop.bench.report.board import PAGE_SIZE, board_data, render_board, write_board
from mindloop.bench.runner import RunRequest, run_benchmark, summarize_run
from mindloop.bench.store import RunStore, SampleResult
from mindloop.bench.suite import SuiteRequest, run_suite
from mindloop.cli import main

from .browser import Browser

N = 24
CHOICES = ["box", "basket", "drawer", "chest"]
HOSTILE = "evil/<script>document.body.dataset.pwned='1'</script>"
RIGHT = {"model-a": 18, "model-b": 12, "model-c": 21, HOSTILE: 6}
"""Samples answered right (of N) by each scripted model's ToMi run."""


def _samples(n: int = N) -> list[Sample]:
    types = ("reality", "memory", "first_order", "second_order")
    return [
        Sample(
            f"q{i:03d}",
            {
                "story": ["Anne put the apple in the box."],
                "question": "Where is the apple?",
                "answer": "box",
                "choices": CHOICES,
            },
            types[i % 4],
            target="box",
            choices=tuple(CHOICES),
        )
        for i in range(n)
    ]


def _scripted(store: RunStore, model: str, right: int, *, finish: int = N, summarize: bool = True) -> str:
    run_id = store.create_run(
        benchmark="tomi",
        agent="model",
        model=model,
        config={"n": None, "seed": 0, "options": {}},
        samples=_samples(),
        version="0.1.0",
    )
    results = [
        SampleResult(i, "done", {"answer": "box" if i < right else "chest"}, {"correct": float(i < right)}, None, [], 0)
        for i in range(N)
    ]
    store.finish(run_id, results[:finish])
    if summarize:
        summarize_run(run_id, store, computed_by="run")
    return run_id


class Store:
    """The fixture's store and the ids of its runs by role."""

    def __init__(self, store: RunStore, ids: dict[str, str], suite: str) -> None:
        self.store, self.ids, self.suite = store, ids, suite


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    home = tmp_path_factory.mktemp("board-home")
    with RunStore(home / "runs.sqlite") as store:
        ids = {model: _scripted(store, model, right) for model, right in RIGHT.items()}
        ids["later-a"] = _scripted(store, "model-a", 3, finish=N)  # model-a's second run: as many samples, later
        ids["partial"] = _scripted(store, "model-d", 10, finish=12)  # stopped half way
        ids["bare"] = _scripted(store, "model-e", 20, summarize=False)  # no stored summary
        stale = _scripted(store, "model-f", 9, finish=16)
        store.finish(
            stale, [SampleResult(i, "done", {"answer": "chest"}, {"correct": 0.0}, None, [], 0.5) for i in range(16, N)]
        )
        ids["stale"] = stale
        hitom = run_benchmark(RunRequest(benchmark="hitom", n=12), store=store, progress=False)
        ids["hitom"] = hitom.run_id
        suite = run_suite(SuiteRequest(only=("tomi",)), store=store, progress=False)
        ids["suite-tomi"] = suite.summaries[0].run_id
        yield Store(store, ids, suite.suite_id)


def _runs(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {run["id"]: run for run in data["runs"]}


# -- the numbers ------------------------------------------------------------------------------------------------


def test_every_run_is_listed_with_its_stored_headline_interval_and_references(board: Store) -> None:
    data = board_data(board.store)
    runs = _runs(data)
    assert len(runs) == len(board.store.runs()) == len(board.ids)
    for model, right in RIGHT.items():
        run = runs[board.ids[model]]
        stored = board.store.stored_summary(run["id"])
        assert stored is not None
        assert run["model"] == model and run["status"] == "finished" and run["summary"] == "current"
        assert run["metric"] == "accuracy" and run["hib"] is True
        assert run["value"] == pytest.approx(right / N)  # k of N right, by construction
        ci = stored["intervals"]["metrics"]["accuracy"]
        assert (run["low"], run["high"]) == (ci["low"], ci["high"]) and run["low"] <= right / N <= run["high"]
        marks = {m["label"]: m["value"] for m in run["refs"]}
        # four choices a question; gold always; ToMi's best constant (fitted on its train split) as stored
        best = stored["references"]["best constant"]
        assert marks == {"chance": pytest.approx(0.25), "best trivial": best, "oracle": 1.0}
        assert [m["label"] for m in run["refs"]] == ["chance", "best trivial", "oracle"]
    assert runs[board.ids["partial"]]["status"] == "stopped"
    assert runs[board.ids["partial"]]["done"] == 12 and runs[board.ids["partial"]]["value"] == pytest.approx(10 / 12)
    bare = runs[board.ids["bare"]]
    assert bare["summary"] == "none" and bare["value"] is None and bare["refs"] == []
    stale = runs[board.ids["stale"]]  # stored at 16 samples (9 right), 24 finished since
    assert stale["summary"] == "stale" and stale["value"] == pytest.approx(9 / 16) and stale["done"] == N
    hitom = runs[board.ids["hitom"]]
    assert hitom["benchmark"] == "hitom" and hitom["agent"] == "symbolic" and hitom["model"] is None
    assert hitom["value"] == board.store.stored_summary(hitom["id"])["metrics"]["accuracy"]
    assert runs[board.ids["suite-tomi"]]["suite"] == board.suite
    assert {r["suite"] for r in runs.values()} == {None, board.suite}
    assert data["suites"] == [
        {
            "id": board.suite,
            "model": None,
            "models": [None],
            "preset": "quick",
            "started": board.store.suite(board.suite).started,
            "finished": board.store.suite(board.suite).finished,
            "runs": 1,
            "planned": 1,
            "report": None,
        }
    ]
    assert [(b["name"], b["metric"], b["runs"]) for b in data["benchmarks"]] == [
        ("hitom", "accuracy", 1),
        ("tomi", "accuracy", len(board.ids) - 1),
    ]


def test_the_board_reads_stored_summaries_and_never_computes(board: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the board must not load a benchmark or compute a metric")

    monkeypatch.setattr(registry_module, "get_benchmark", refuse)
    monkeypatch.setattr(runner_module, "benchmark_metrics", refuse)
    monkeypatch.setattr(runner_module, "summarize_run", refuse)
    runs = _runs(board_data(board.store))
    assert runs[board.ids["model-c"]]["value"] == pytest.approx(21 / N)
    assert runs[board.ids["bare"]]["value"] is None  # it has none stored, so it shows none
    assert board.store.stored_summary(board.ids["bare"]) is None


def test_headlines_cut_inside_sqlite_match_the_whole_summaries(board: Store) -> None:
    whole = board.store.stored_summaries()
    cut = board.store.stored_headlines()
    assert set(cut) == set(whole) and board.ids["bare"] not in cut
    for run_id, summary in whole.items():
        metric = summary["definitions"]["headline"]["metric"]
        assert cut[run_id]["metrics"] == {metric: summary["metrics"][metric]}
        assert cut[run_id]["intervals"]["metrics"][metric] == summary["intervals"]["metrics"][metric]
        assert cut[run_id]["references"] == summary["references"]
        assert cut[run_id]["definitions"]["references"] == summary["definitions"]["references"]
        assert cut[run_id]["counts"] == summary["counts"]


def test_a_summary_without_headline_or_unreadable(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        plain = _scripted(store, "plain", 12, summarize=False)
        store.save_summary(plain, {"metrics": {"note": "x", "score": 0.5}, "definitions": {"headline": None}})
        broken = _scripted(store, "broken", 12, summarize=False)
        store.save_summary(broken, {"metrics": {}})
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    with db:
        db.execute("UPDATE run_summaries SET summary = '{not json' WHERE run_id = ?", (broken,))
    db.close()
    with RunStore(tmp_path / "runs.sqlite", readonly=True) as store:
        runs = _runs(board_data(store))
    assert runs[plain]["metric"] == "score" and runs[plain]["value"] == 0.5  # its first number, as headline_of does
    assert runs[plain]["summary"] == "stale"  # stored without the counts it covers
    assert runs[broken]["summary"] == "none" and runs[broken]["value"] is None


def test_a_report_beside_the_board_is_linked_and_others_are_not(board: Store, tmp_path: Path) -> None:
    write_report(board.ids["model-a"], board.store, tmp_path)
    (tmp_path / f"{board.suite}.html").write_text("suite page", encoding="utf-8")
    path, data = write_board(board.store, tmp_path)
    assert path == tmp_path / "board.html"
    runs = _runs(data)
    assert runs[board.ids["model-a"]]["report"] == f"{board.ids['model-a']}.html"
    assert [r["id"] for r in data["runs"] if r["report"]] == [board.ids["model-a"]]
    assert data["suites"][0]["report"] == f"{board.suite}.html"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["board.html", f"{board.ids['model-a']}.html", f"{board.suite}.html"]
    )  # written whole: no temporary file is left beside it


def test_page_is_self_contained_and_escapes_everything(board: Store) -> None:
    page = render_board(board_data(board.store))
    assert "<script>document.body" not in page  # the hostile model name is never markup
    blob = re.search(r'<script type="application/json" id="board-data">(.*?)</script>', page, re.S)
    assert blob is not None and "<" not in blob.group(1)
    assert json.loads(blob.group(1))["runs"][3]["model"] == HOSTILE
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing is fetched from anywhere
    assert page.count("<tr") == 0  # every row is drawn by the script from the blob


# -- the command ------------------------------------------------------------------------------------------------


def test_cli_writes_by_the_o_rule_and_prints_json(
    board: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MINDLOOP_HOME", str(board.store.path.parent))
    monkeypatch.chdir(tmp_path)
    assert main(["board"]) == 0
    assert (tmp_path / "board.html").is_file()
    out = tmp_path / "pages"
    out.mkdir()
    assert main(["board", "-o", str(out)]) == 0 and (out / "board.html").is_file()
    assert main(["board", "-o", str(tmp_path / "new" / "all.html")]) == 0 and (tmp_path / "new" / "all.html").is_file()
    captured = capsys.readouterr()
    assert captured.out == "" and f"wrote {out / 'board.html'}: {len(board.ids)} run(s) of 2 benchmark(s)" in " ".join(
        captured.err.split()
    )
    assert main(["board", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["runs"]) == len(board.ids) and data["page_size"] == PAGE_SIZE


def test_cli_errors_are_one_line(
    board: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MINDLOOP_HOME", str(board.store.path.parent))
    (tmp_path / "file").write_text("x", encoding="utf-8")
    assert main(["board", "-o", str(tmp_path / "file" / "board.html")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mindloop: error: cannot write the board to") and err.count("\n") == 1
    assert main(["board", "--serve", "--json"]) == 1
    assert capsys.readouterr().err == "mindloop: error: --serve writes no file: leave out -o and --json\n"
    monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path / "empty"))
    assert main(["board"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mindloop: error: no run store at") and err.count("\n") == 1
    assert not (tmp_path / "empty").exists()  # a read-only command creates nothing


def test_a_damaged_store_gives_what_can_be_read_then_the_damage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "home" / "runs.sqlite"
    path.parent.mkdir()
    with RunStore(path) as store:
        first = run_benchmark(RunRequest("tomi", n=200), store=store, progress=False).run_id
        second = run_benchmark(RunRequest("hitom", n=60), store=store, progress=False).run_id
    db = sqlite3.connect(path)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    leaves = [p for (p,) in db.execute("SELECT pageno FROM dbstat WHERE name = 'samples' AND pagetype = 'leaf'")]
    db.close()
    with path.open("r+b") as f:  # two pages of samples near the middle of the file overwritten
        f.seek((min(p for p in leaves if p >= pages // 3) - 1) * page_size)
        f.write(bytes(range(256)) * (2 * page_size // 256))
    monkeypatch.setenv("MINDLOOP_HOME", str(path.parent))
    assert main(["board", "-o", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"wrote {tmp_path / 'board.html'}: 2 run(s)" in " ".join(err.split())
    assert err.splitlines()[-1].startswith(f"mindloop: error: run store {path} is damaged (")
    page = (tmp_path / "board.html").read_text(encoding="utf-8")
    assert "The store is damaged: only the runs that could be read are listed." in page
    assert main(["board", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    runs = _runs(data)
    assert set(runs) == {first, second} and data["damage"].startswith(f"run store {path} is damaged (")
    assert sorted(r["status"] for r in runs.values())[-1] == "unknown"  # one run's samples cannot be counted
    assert all(r["value"] is not None for r in runs.values())  # their stored summaries still read


# -- a real browser ---------------------------------------------------------------------------------------------


PROBE = """
(function () {
  function texts(nodes) { return Array.prototype.map.call(nodes, function (c) { return c.textContent; }); }
  function rows(sel) {
    return Array.prototype.map.call(document.querySelectorAll(sel), function (tr) { return tr.dataset.run; });
  }
  function fit() {
    return Array.prototype.map.call(document.querySelectorAll("table.grid"), function (t) {
      var box = t.parentElement, right = t.getBoundingClientRect().right;
      return { name: t.id || t.dataset.benchmark,
               fits: box.scrollWidth <= box.clientWidth + 1 && right <= window.innerWidth };
    });
  }
  function boards() {
    return Array.prototype.map.call(document.querySelectorAll("#boards table"), function (t) {
      var name = t.dataset.benchmark;
      return { bench: name, key: t.dataset.key, rows: Array.prototype.map.call(t.querySelectorAll("tr[data-run]"),
                 function (tr) { return tr.dataset.run; }),
               ranks: texts(t.querySelectorAll("td.rank")), counts: texts(t.querySelectorAll("td button.link")),
               head: texts(t.tHead.rows[0].cells) };
    });
  }
  var out = { ready: document.body.dataset.ready === "1", innerWidth: window.innerWidth,
              pageScrollWidth: document.documentElement.scrollWidth, tables: fit(), boards: boards(),
              all: rows("#run-table tbody tr"), showing: document.getElementById("showing").textContent };
  // a click on the run table's "headline" header sorts by it (descending first), a second click ascending
  document.querySelector('#run-table th[data-key="value"]').click();
  out.byValue = rows("#run-table tbody tr");
  document.querySelector('#run-table th[data-key="value"]').click();
  out.byValueAsc = rows("#run-table tbody tr");
  // choosing a benchmark and a status in the selects filters the leaderboards and the runs
  var bench = document.getElementById("f-benchmark");
  bench.value = "tomi"; bench.dispatchEvent(new Event("change"));
  var st = document.getElementById("f-status");
  st.value = "finished"; st.dispatchEvent(new Event("change"));
  out.filtered = rows("#run-table tbody tr");
  out.filteredBoards = boards().map(function (b) { return b.bench; });
  out.hash = location.hash;
  // sorting a leaderboard by model
  document.querySelector('#boards table[data-benchmark="tomi"] th[data-key="model"]').click();
  out.byModel = Array.prototype.map.call(
    document.querySelector('#boards table[data-benchmark="tomi"]').querySelectorAll("tbody tr"),
    function (tr) { return tr.dataset.run; });
  // ticking two runs gives the compare command
  document.querySelectorAll("#run-table tbody input[type=checkbox]")[0].click();
  document.querySelectorAll("#run-table tbody input[type=checkbox]")[1].click();
  out.compare = document.getElementById("compare-command").textContent;
  out.tables2 = fit();
  var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
"""
"""Measures every table at the window's size, then clicks the controls as a person would and records the rows."""


def _probe(browser: Browser, page: Path, tmp_path: Path, fragment: str = "") -> dict[str, Any]:
    head, _, tail = page.read_text(encoding="utf-8").rpartition("</body>")
    probed = tmp_path / "probed.html"
    probed.write_text(f"{head}<script>{PROBE}</script></body>{tail}", encoding="utf-8")
    url = probed.resolve().as_uri() + fragment
    dom = browser.browse(url, "--window-size=1280,1000", "--dump-dom")
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found is not None, dom[-3000:]
    assert "data-pwned" not in dom
    result: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return result


@pytest.mark.boundary  # a real Chromium
def test_browser_leaderboards_fit_at_1280px_and_filters_and_sort_work(
    browser: Browser, board: Store, tmp_path: Path
) -> None:
    page, data = write_board(board.store, tmp_path)
    probe = _probe(browser, page, tmp_path)
    assert probe["ready"] and probe["innerWidth"] == 1280
    assert probe["pageScrollWidth"] <= probe["innerWidth"]
    names = {t["name"] for t in probe["tables"]}
    assert {"hitom", "tomi", "suite-table", "run-table"} <= names
    for table in probe["tables"] + probe["tables2"]:
        assert table["fits"], table  # every table shows every column without scrolling at 1280 px
    ids = board.ids
    boards = {b["key"]: b for b in probe["boards"]}
    # one leaderboard per key: the scripted runs (their 24 samples, one protocol) apart from the suite's run (the
    # quick preset's samples, no model); one row per team and model; model-a's two runs share the key, so its later
    # one (3 of 24) shows and its row counts 2 runs; ranked by accuracy, high to low; the stopped run is not ranked;
    # model-e, with no stored summary, last and unranked
    runs = _runs(data)
    tomi = boards[runs[ids["model-a"]]["key"]]
    assert boards[runs[ids["suite-tomi"]]["key"]]["rows"] == [ids["suite-tomi"]]
    values = {r["id"]: r["value"] for r in data["runs"]}
    expected = [ids[m] for m in ("model-c", "later-a", "model-b", HOSTILE, "stale")]
    expected.sort(key=lambda i: -values[i])
    assert tomi["rows"] == [*expected, ids["bare"]]
    assert tomi["ranks"] == [*(str(k) for k in range(1, len(expected) + 1)), "–"]
    assert tomi["counts"] == ["2" if i == ids["later-a"] else "1" for i in tomi["rows"]]
    # ToMi declares chance, a best constant (fitted on its train split: a trivial policy) and the oracle
    assert tomi["head"][:7] == ["#", "model", "team", "accuracy ↑", "chance", "best trivial", "oracle"]
    assert boards[runs[ids["hitom"]]["key"]]["rows"] == [ids["hitom"]]
    # the run table: newest first; clicked, the headline sorts high to low, then low to high, no value last
    order = sorted(data["runs"], key=lambda r: r["started"], reverse=True)
    assert len(probe["all"]) == len(ids) and probe["showing"].startswith(f"showing 1–{len(ids)} of {len(ids)}")
    scored = [r for r in data["runs"] if r["value"] is not None]
    assert probe["byValue"][: len(scored)] == [r["id"] for r in sorted(scored, key=lambda r: -r["value"])]
    assert probe["byValueAsc"][: len(scored)] == [r["id"] for r in sorted(scored, key=lambda r: r["value"])]
    assert probe["byValue"][len(scored) :] == probe["byValueAsc"][len(scored) :] == [ids["bare"]]
    assert {r["id"] for r in order} == set(probe["all"])
    # filtered to finished ToMi runs: the stopped one and the Hi-ToM run are gone, from the table and the boards
    want = {r["id"] for r in data["runs"] if r["benchmark"] == "tomi" and r["status"] == "finished"}
    assert set(probe["filtered"]) == want and ids["partial"] not in want
    assert probe["filteredBoards"] == ["tomi", "tomi"]  # the scripted runs' key and the suite's
    assert "benchmark=tomi" in probe["hash"] and "status=finished" in probe["hash"]
    models = {r["id"]: r["model"] or "(none)" for r in data["runs"]}
    assert [models[i] for i in probe["byModel"]] == sorted(models[i] for i in probe["byModel"])
    first, second = probe["filtered"][:2]
    assert probe["compare"] == f"mindloop compare {first} {second} -o compare.html"


@pytest.mark.boundary  # a real Chromium
def test_browser_view_from_the_fragment_and_screenshot(browser: Browser, board: Store, tmp_path: Path) -> None:
    page, _ = write_board(board.store, tmp_path)
    url = page.resolve().as_uri()
    dom = browser.browse(url + f"#suite={board.suite}", "--dump-dom")
    assert 'data-ready="1"' in dom
    assert re.findall(r'<tr class="row[^"]*" data-run="([^"]+)"', dom) == [board.ids["suite-tomi"]]
    dom = browser.browse(url + f"#run={board.ids['bare']}", "--dump-dom")
    assert f"<code>mindloop report {board.ids['bare']}</code>" in dom  # no report beside it: the command
    shot = tmp_path / "board.png"
    browser.browse(url, f"--screenshot={shot}", "--window-size=1280,1400")
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (1280, 1400)
    assert len(png) > 50_000  # a blank or error page compresses to a few kB


@pytest.mark.boundary  # a real Chromium
def test_browser_a_long_leaderboard_shows_its_first_rows_until_asked(browser: Browser, tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        for k in range(30):
            run_id = store.create_run(
                benchmark="tomi", agent="model", model=f"m{k:02d}", config={}, samples=_samples(2), version="t"
            )
            store.finish(run_id, [SampleResult(i, "done", {}, {"correct": 1.0}, None, [], 0) for i in range(2)])
            headline = {"metric": "accuracy", "higher_is_better": True}
            store.save_summary(
                run_id, {"metrics": {"accuracy": k / 30}, "definitions": {"headline": headline}, "counts": [2, 0, 0]}
            )
        page, data = write_board(store, tmp_path)
    (leaderboard,) = data["leaderboards"]
    url = page.resolve().as_uri()
    board_rows = r'<tr data-run="[^"]+"( class="[^"]*")?><td class="rank">(\d+)</td>'
    dom = browser.browse(url, "--dump-dom")
    assert [int(m[1]) for m in re.findall(board_rows, dom)] == list(range(1, 26))  # the best 25, ranked
    assert ">show all 30</button>" in dom
    dom = browser.browse(url + f"#lall={leaderboard['key']['id']}", "--dump-dom")
    assert [int(m[1]) for m in re.findall(board_rows, dom)] == list(range(1, 31))
    assert ">show the first 25</button>" in dom


# -- serving ----------------------------------------------------------------------------------------------------


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:  # 127.0.0.1 only
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


@pytest.mark.boundary  # a server process stopped by a signal
def test_serve_answers_on_localhost_and_stops_on_a_signal(board: Store) -> None:
    env = dict(os.environ, MINDLOOP_HOME=str(board.store.path.parent))
    proc = subprocess.Popen(
        [sys.executable, "-m", "mindloop.cli", "board", "--serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # the process says where it listens once the socket is bound
        found = re.search(r"on (http://127\.0\.0\.1:(\d+)/) \(Ctrl-C to stop\)", line)
        assert found is not None, line + (proc.stderr.read() if proc.poll() is not None else "")
        base = found.group(1)
        status, page = _get(base)
        assert status == 200 and 'data-serve="1"' in page and board.ids["model-c"] in page
        status, stamp = _get(base + "stamp")
        assert status == 200 and stamp and _get(base + "stamp") == (200, stamp)
        kept = board.store.stored_summary(board.ids["model-a"])
        assert kept is not None
        board.store.save_summary(board.ids["model-a"], kept)  # a write to the store, the numbers unchanged
        assert _get(base + "stamp")[1] != stamp  # what the open page polls: it reloads when this changes
        a, b = board.ids["model-a"], board.ids["model-b"]
        status, report = _get(base + f"{a}.html")
        assert status == 200 and f"{a} · mindloop report" in report
        status, compared = _get(base + f"compare.html?ids={a},{b}")
        assert status == 200 and a in compared and b in compared
        status, suite = _get(base + f"{board.suite}.html")
        assert status == 200 and board.suite in suite
        status, missing = _get(base + "tomi-nope.html")
        assert status == 404 and "no run 'tomi-nope'" in missing
        status, data = _get(base + "board.json")
        assert status == 200 and len(json.loads(data)["runs"]) == len(board.ids)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

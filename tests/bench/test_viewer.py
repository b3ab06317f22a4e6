"""The one viewer (:mod:`mindloop.bench.report.view`): the run report, compare, suite report and board share one
Jinja environment and one stylesheet, and in Chromium at 1280 px none of them scrolls sideways, no table box needs
a scroll bar, and no word or number in a table, card or reference line is broken over two lines."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.compare import compare_runs
from mindloop.bench.report import plots, render_report, view
from mindloop.bench.report.board import board_data, render_board
from mindloop.bench.report.compare import render_compare
from mindloop.bench.report.suite import render_suite_report, suite_report
from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.bench.suite import SuiteRequest, run_suite

from .browser import Browser

PAGES = ("report", "compare", "suite", "board")

pytestmark = pytest.mark.xdist_group("viewer")  # the store behind the four pages is made once, in one worker


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The four pages over one store: a claw run by a scripted model (its reference line beside the headline, a
    token ledger in six figures), two Hi-ToM runs compared, a small suite, and the board over all of them."""
    home = tmp_path_factory.mktemp("viewer-home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MINDLOOP_HOME", str(home))
        with RunStore(home / "runs.sqlite") as store:
            claw = run_benchmark(
                RunRequest("claw", n=3, model="scripted/echo", agent="model"), store=store, progress=False
            )
            hitom = [
                run_benchmark(RunRequest("hitom", n=20, **kw), store=store, progress=False).run_id
                for kw in ({}, {"model": "scripted/echo", "agent": "model"})
            ]
            suite = run_suite(SuiteRequest(only=("tomi", "hitom", "claw")), store=store, progress=False)
            yield {
                "report": render_report(claw.run_id, store),
                "compare": render_compare(compare_runs(store, hitom)),
                "suite": render_suite_report(suite_report(store, suite.suite_id)),
                "board": render_board(board_data(store)),
            }


def test_one_environment_and_one_stylesheet_serve_every_page(pages: dict[str, str]) -> None:
    env = view._environment()
    assert env.autoescape is True
    sheet = (Path(view.__file__).parent / "style.css").read_text(encoding="utf-8")
    shared = view.stylesheet("board").split(".panel{")[0]  # the rules before the first page block's
    for name, page in pages.items():
        assert page.count("<style>") == 1 and view.stylesheet(name) in page
        assert page.count(".card{") == 1 and shared.split("}")[0] in page  # the same header rules, once
        assert '<header class="top">' in page and '<div class="cards">' in page
    assert len(re.findall(r"^/\* == [a-z ]+ == \*/$", sheet, re.M)) >= 4
    for name in PAGES:  # a page inlines no other page's own rules
        others = [p for p in PAGES if p != name]
        own = {"report": "figure.plot", "compare": ".verdict", "suite": ".hplot", "board": "#dock"}
        assert own[name] in view.stylesheet(name)
        assert not any(own[o] in view.stylesheet(name) for o in others)


def test_sample_counts_on_bars_are_whole_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    notes: list[list[str]] = []
    original = plots._bars

    def spy(ax: Any, labels: Any, values: Any, row_notes: Any, *args: Any, **kwargs: Any) -> None:
        notes.append(list(row_notes))
        original(ax, labels, values, row_notes, *args, **kwargs)

    monkeypatch.setattr(plots, "_bars", spy)
    table = {"a": {"accuracy": 0.5, "n": 1.0}, "b": {"accuracy": 0.25, "n": 1200}}
    assert plots.breakdown_plot("by_type", table, {"accuracy": 0.4}) is not None
    assert notes == [["  (n=1)", "  (n=1,200)"]]


def test_metrics_per_group_legend_sits_below_every_tick_label(monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from mindloop.bench.headline import ReferenceMark

    figures: list[Any] = []
    monkeypatch.setattr(plots, "_encode", lambda fig: figures.append(fig) or "data:image/svg+xml;base64,")
    table = {g: {"ta": 0.5, "pia": 0.25, "acc": 1.0, "n": 4} for g in ("false_belief/help", "implicit_goal/help")}
    marks = [
        ReferenceMark("best trivial", "never", "trivial", 0.0, False),
        ReferenceMark("oracle", "oracle", "oracle", 1.0, False),
    ]
    assert plots.score_plot("by_group", table, derived=False, headline="pia", marks=marks) is not None
    (fig,) = figures
    canvas = FigureCanvasAgg(fig)
    with plots._style():  # laid out as the page's SVG is: the constrained layout makes room for the legend
        canvas.draw()
    renderer = canvas.get_renderer()
    (legend,) = fig.legends
    box = legend.get_window_extent(renderer)
    for ax in fig.axes:
        for label in ax.get_xticklabels():
            tick = label.get_window_extent(renderer)
            assert box.y1 <= tick.y0 + 0.5, (box, tick)  # display y grows upwards: the legend is under the ticks


PROBE = """window.addEventListener("load", function () {  // laid out whole: fonts, figures and the page's script
  var out = { page: document.documentElement.scrollWidth, inner: window.innerWidth, scrolls: [], broken: [] };
  document.querySelectorAll(".tscroll, .tablewrap").forEach(function (box) {
    if (box.scrollWidth > box.clientWidth + 1) {
      var t = box.querySelector("table");
      out.scrolls.push((t && (t.dataset.table || t.id)) + " " + box.scrollWidth + ">" + box.clientWidth);
    }
  });
  var cells = "table.grid td, table.grid th, table.kv td, table.kv th, .card, .refs";
  document.querySelectorAll(cells).forEach(function (cell) {
    if (cell.closest("table.samples, table.tl, #dock")) return;
    var walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT), node;
    while ((node = walker.nextNode())) {
      var re = /[^\\s\\-\\/·]+/g, m;  // a word: breaking after a hyphen, a slash or a space is breaking between words
      while ((m = re.exec(node.data))) {
        var r = document.createRange(); r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
        var tops = Array.prototype.map.call(r.getClientRects(), function (b) { return Math.round(b.top); });
        if (new Set(tops).size > 1) out.broken.push(m[0]);
      }
    }
  });
  var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});"""


def _probe(browser: Browser, tmp_path: Path, name: str, page: str, height: int = 900) -> dict[str, Any]:
    """The probe's findings on ``page`` in a 1280 px wide window ``height`` high (a window taller than the page has
    no vertical scroll bar, so the page lays out 15 px wider, as with overlay scroll bars: 'b|est' showed there)."""
    head, _, tail = page.rpartition("</body>")
    probed = tmp_path / f"{name}.html"
    probed.write_text(f"{head}<script>{PROBE}</script></body>{tail}", encoding="utf-8")
    dom = browser.browse(probed.resolve().as_uri(), f"--window-size=1280,{height}", "--dump-dom")
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found is not None, dom[-2000:]
    probe: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return probe


@pytest.mark.boundary  # a real Chromium
@pytest.mark.parametrize("name", PAGES)
def test_browser_page_fits_1280px_and_breaks_no_word(
    browser: Browser, pages: dict[str, str], tmp_path: Path, name: str
) -> None:
    for height in (900, 20_000):  # with a vertical scroll bar and without one
        probe = _probe(browser, tmp_path, name, pages[name], height)
        assert probe["page"] <= probe["inner"], probe  # the page never scrolls sideways
        assert probe["scrolls"] == [], probe  # every table fits its box: no sideways scroll bar (the board's runs too)
        assert probe["broken"] == [], probe  # no "b|est trivial", no "113,17|0"


@pytest.mark.boundary
def test_browser_claw_report_keeps_best_trivial_and_the_ledger_whole(
    browser: Browser, pages: dict[str, str], tmp_path: Path
) -> None:
    page = pages["report"]
    assert "best trivial" in page and 'data-headline="pia"' in page  # the case of the issue is on the page
    ledger = re.search(r"<h3>Token ledger</h3>(.*?)</table>", page, re.S)
    assert ledger is not None and re.search(r"<td>\d{2,3},\d{3}</td>", ledger.group(1)), "a six-figure count"
    probe = _probe(browser, tmp_path, "report", page, 20_000)
    assert probe["broken"] == [], probe

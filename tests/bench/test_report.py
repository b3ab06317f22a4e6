"""The HTML run report: content, escaping, self-containment, scale, and what a real browser shows.

The browser tests run Chromium headless on the written file (``--dump-dom`` after the page's script ran, and a
screenshot). Without a Chromium binary they are skipped, except under ``CI``, where Chromium is installed and
its absence is a failure.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench import RunRequest, RunStore, Sample, report, run_benchmark, summarize_run
from mindloop.bench.report import error_kind, render_report, write_report
from mindloop.bench.store import SampleResult
from mindloop.errors import InvalidArgumentError

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
    scripted echo model (unparseable replies: failed samples with transcripts)."""
    home = tmp_path_factory.mktemp("report-home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MINDLOOP_HOME", str(home))
        store = RunStore(home / "runs.sqlite")
        hitom = run_benchmark(RunRequest("hitom"), store=store, progress=False).run_id
        tomi = run_benchmark(
            RunRequest("tomi", n=50, model="scripted/echo", agent="model"), store=store, progress=False
        ).run_id
        yield store, hitom, tomi
        store.close()


@pytest.fixture(scope="module")
def pages(runs: tuple[RunStore, str, str]) -> dict[str, str]:
    """The rendered report of each real run, rendered once."""
    store, hitom, tomi = runs
    return {run_id: render_report(run_id, store) for run_id in (hitom, tomi)}


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
        Sample("evil-1", {"story": EVIL_STORY, "question": "<b>Where</b> is it?", "answer": "box"}, "<i>grp</i>"),
        Sample("evil-2", {"story": EVIL_STORY, "question": "Where is it?", "answer": "basket"}, "plain"),
        Sample("pending-1", {"story": ["x"], "question": "?", "answer": "a"}, "plain"),
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


# -- the HTML -------------------------------------------------------------------------------------------------------


def test_unknown_run_id_is_the_stores_error(store: RunStore) -> None:
    with pytest.raises(InvalidArgumentError, match="no run 'nope'"):
        render_report("nope", store)


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


def test_plots_are_embedded_images(runs: tuple[RunStore, str, str], pages: dict[str, str]) -> None:
    _, hitom, tomi = runs
    for run_id, least in ((hitom, 3), (tomi, 5)):  # breakdown, scores, seconds (+ status, model calls)
        page = pages[run_id]
        urls = re.findall(r'<img alt="[^"]*" src="(data:image/svg\+xml;base64,[A-Za-z0-9+/=]+)"', page)
        assert len(urls) >= least
        for url in urls:
            svg = base64.b64decode(url.split(",", 1)[1]).decode()
            assert "<svg" in svg and "<text" not in svg  # text drawn as paths: no fonts needed


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
        Sample(f"q{i:05d}", {"story": story[i % 5 :], "question": f"Where is apple {i}?", "answer": "box"}, f"t{i % 4}")
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


def _chromium() -> str:
    """The Chromium binary; skipped without one, unless under CI (which installs it), where that is a failure."""
    for name in (
        os.environ.get("MINDLOOP_CHROMIUM"),
        "/usr/bin/chromium",
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ):
        path = shutil.which(name) if name else None
        if path:
            return path
    reason = "no Chromium binary found (/usr/bin/chromium, chromium, chromium-browser, google-chrome)"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must install chromium for the report browser test")
    pytest.skip(f"{reason}; install chromium to run the report browser test")


def _browse(chromium: str, profile: Path, url: str, *args: str) -> str:
    proc = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            *args,
            url,
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _rows(dom: str) -> list[str]:
    return re.findall(r'<tr class="row st-(\w+)', dom)


def test_browser_shows_table_plots_filters_and_transcripts(runs: tuple[RunStore, str, str], tmp_path: Path) -> None:
    chromium = _chromium()
    store, _, tomi = runs
    info = store.run(tomi)
    assert 0 < info.n_failed < info.n
    path = write_report(tomi, store, tmp_path / "report.html")
    url = path.resolve().as_uri()
    profile = tmp_path / "profile"

    dom = _browse(chromium, profile, url, "--dump-dom")
    assert 'data-ready="1"' in dom  # the script ran to the end
    assert len(_rows(dom)) == info.n and set(_rows(dom)) == {"done", "failed"}
    assert len(re.findall(r'<img alt="[^"]+" src="data:image/svg\+xml;base64,', dom)) >= 5
    assert "by type" in dom and 'data-group="first_order"' in dom
    assert f"showing 1–{info.n} of {info.n} matching" in dom

    dom = _browse(chromium, profile, url + "#status=failed", "--dump-dom")
    assert _rows(dom) == ["failed"] * info.n_failed
    assert f"of {info.n_failed} matching (of {info.n})" in dom
    assert re.search(rf'<option value="failed"[^>]*>failed \({info.n_failed}\)</option>', dom)

    dom = _browse(chromium, profile, url + "#filter=second_order", "--dump-dom")
    assert 0 < len(_rows(dom)) < info.n
    assert all(g == "second_order" for g in re.findall(r'<td class="g">([^<]*)</td>', dom))

    first_failed = next(r for r in store.records(tomi) if r.status == "failed")
    dom = _browse(chromium, profile, url + f"#sample={first_failed.sample.id}", "--dump-dom")
    assert 'class="detail"' in dom and "Model transcript · 1 call" in dom
    assert first_failed.sample.input["story"][0] in dom and "unparseable answer" in dom
    assert '<div class="role">user</div>' in dom and '<div class="role">reply</div>' in dom

    shot = tmp_path / "report.png"
    _browse(chromium, profile, url, f"--screenshot={shot}", "--window-size=1400,2000")
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1400, 2000)
    assert len(png) > 50_000  # a blank or error page compresses to a few kB


def test_browser_runs_no_injected_script_and_shows_images(store: RunStore, tmp_path: Path) -> None:
    chromium = _chromium()
    run_id = _evil_run(store)
    url = write_report(run_id, store, tmp_path / "evil.html").resolve().as_uri()
    dom = _browse(chromium, tmp_path / "profile", url + "#sample=evil-1", "--dump-dom")
    assert 'data-ready="1"' in dom and "pwned" not in dom.split("<body", 1)[0] and "data-pwned" not in dom
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in dom  # shown as text in the story
    assert f'<img alt="image in the prompt" src="{PNG_PIXEL}">' in dom
    assert _rows(dom) == ["done", "failed", "pending"]


def test_browser_filters_bug_samples_apart_from_failures(store: RunStore, tmp_path: Path) -> None:
    chromium = _chromium()
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
    dom = _browse(chromium, tmp_path / "profile", url + "#status=bug", "--dump-dom")
    assert 'data-ready="1"' in dom and _rows(dom) == ["bug"]
    assert '<span class="pill bug">bug</span>' in dom
    assert re.search(r'<option value="bug"[^>]*>bug \(1\)</option>', dom)
    dom = _browse(chromium, tmp_path / "profile", url + "#sample=s1", "--dump-dom")
    assert 'class="errbox">internal error: KeyError: \'answer\'\n  File "b.py", line 3, in run</div>' in dom

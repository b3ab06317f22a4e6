"""``mindloop compare`` and ``mindloop runs``: paired comparisons with hand-worked numbers, refusals, the page.

The two ToMi runs below are built by hand over the same 30 samples so that every number can be counted on paper:
both runs right on 12 samples, only the baseline on 2, only the other run on 8, both wrong on 8 (with different
wrong answers). So accuracy is 14/30 against 20/30, the difference +0.2, McNemar's exact p = 2 * P(X <= 2) for
X ~ Binomial(10, 1/2) = 112/1024, and the runs disagree on 2 + 8 + 8 = 18 samples.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench import compare as compare_mod
from mindloop.bench.api import Sample
from mindloop.bench.compare import IncompatibleRunsError, compare_runs
from mindloop.bench.listing import list_runs
from mindloop.bench.report.compare import render_compare, write_compare
from mindloop.bench.store import RunStore, SampleResult
from mindloop.cli import main
from mindloop.errors import InvalidArgumentError

BOTH, ONLY_A, ONLY_B, NEITHER = 12, 2, 8, 8
N = BOTH + ONLY_A + ONLY_B + NEITHER
HOSTILE = "Where is the <script>document.body.dataset.pwned='1'</script> apple?"


def _samples(n: int = N, *, question: str = "Where is the apple?") -> list[Sample]:
    types = ("reality", "memory", "first_order")
    return [
        Sample(
            f"q{i:03d}",
            {"story": ["Anne put the apple in the box."], "question": question if i else HOSTILE, "answer": "box"},
            types[i % 3],
        )
        for i in range(n)
    ]


def _pattern() -> list[tuple[bool, bool]]:
    """(baseline right, other right) per sample, in sample order."""
    return [(True, True)] * BOTH + [(True, False)] * ONLY_A + [(False, True)] * ONLY_B + [(False, False)] * NEITHER


def _run(
    store: RunStore,
    rights: list[bool],
    wrong: str,
    *,
    benchmark: str = "tomi",
    samples: list[Sample] | None = None,
    config: dict[str, Any] | None = None,
    agent: str = "model",
    finish: int | None = None,
) -> str:
    samples = samples if samples is not None else _samples()
    run_id = store.create_run(
        benchmark=benchmark,
        agent=agent,
        model="scripted/test",
        config=config if config is not None else {"n": None, "seed": 0, "options": {}},
        samples=samples,
        version="0.1.0",
    )
    results = [
        SampleResult(
            i, "done", {"answer": "box" if ok else wrong}, {"correct": float(ok), "parsed": 1.0}, None, [], 0.0
        )
        for i, ok in enumerate(rights)
    ]
    store.finish(run_id, results[:finish])
    return run_id


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[RunStore]:
    monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path))
    with RunStore(tmp_path / "runs.sqlite") as s:
        yield s


@pytest.fixture
def pair(store: RunStore) -> tuple[str, str]:
    a = _run(store, [p[0] for p in _pattern()], "basket", agent="symbolic")
    b = _run(store, [p[1] for p in _pattern()], "drawer")
    return a, b


# -- the numbers --------------------------------------------------------------------------------------------------


def test_paired_comparison_hand_worked(store: RunStore, pair: tuple[str, str]) -> None:
    a, b = pair
    out = compare_runs(store, [a, b]).to_json()
    (bc,) = out["comparisons"]
    assert bc["benchmark"] == "tomi" and bc["shared_samples"] == N
    assert bc["headline"] == {"metric": "accuracy", "higher_is_better": True}
    runs = bc["runs"]
    assert runs[0]["metrics"]["accuracy"] == pytest.approx(14 / 30) and runs[1]["metrics"]["accuracy"] == pytest.approx(
        20 / 30
    )
    iv = runs[0]["intervals"]["metrics"]["accuracy"]
    assert iv["low"] < 14 / 30 < iv["high"] and iv["mean_of"] == "correct"
    (diff,) = bc["differences"]
    acc = diff["metrics"]["accuracy"]
    assert acc["diff"] == pytest.approx(0.2) and acc["low"] <= 0.2 <= acc["high"]
    correct = diff["scores"]["correct"]
    assert correct["test"] == "McNemar exact"
    assert (correct["baseline_only"], correct["run_only"], correct["n"]) == (ONLY_A, ONLY_B, N)
    assert correct["p"] == 112 / 1024
    assert diff["scores"]["parsed"]["p"] == 1.0  # no discordant pair
    assert bc["settings_that_differ"] == {"agent": ["symbolic", "model"]}


def test_disagreements_are_the_samples_that_differ_with_both_answers(store: RunStore, pair: tuple[str, str]) -> None:
    a, b = pair
    dis = compare_runs(store, [a, b]).to_json()["comparisons"][0]["disagreements"]
    assert dis["key_score"] == "correct" and dis["n"] == ONLY_A + ONLY_B + NEITHER
    expected = [f"q{i:03d}" for i in range(BOTH, N)]
    assert [s["id"] for s in dis["samples"]] == expected
    first = dis["samples"][0]  # only the baseline right
    assert first["answers"] == ["box", "drawer"] and first["scores"] == [1.0, 0.0] and first["gold"] == "box"
    last = dis["samples"][-1]  # both wrong, with different wrong answers
    assert last["answers"] == ["basket", "drawer"] and last["scores"] == [0.0, 0.0]


def test_a_run_against_itself_differs_by_nothing(store: RunStore, pair: tuple[str, str]) -> None:
    a, _ = pair
    (bc,) = compare_runs(store, [a, a]).to_json()["comparisons"]
    d = bc["differences"][0]
    assert d["metrics"]["accuracy"] == {
        "diff": 0.0,
        "low": 0.0,
        "high": 0.0,
        "p": 1.0,
        "test": "McNemar exact",
        "resamples": 1000,
    }
    assert d["scores"]["correct"]["p"] == 1.0 and bc["disagreements"]["n"] == 0


def test_unfinished_runs_compare_on_the_samples_both_finished(store: RunStore) -> None:
    rights = [p[0] for p in _pattern()]
    a = _run(store, rights, "basket")
    b = _run(store, [p[1] for p in _pattern()], "drawer", finish=20)  # 12 both, 2 only A, 6 only B finished
    (bc,) = compare_runs(store, [a, b]).to_json()["comparisons"]
    assert bc["shared_samples"] == 20
    correct = bc["differences"][0]["scores"]["correct"]
    assert (correct["baseline_only"], correct["run_only"]) == (2, 6)


# -- refusals -------------------------------------------------------------------------------------------------------


def test_runs_of_different_benchmarks_are_refused(store: RunStore, pair: tuple[str, str]) -> None:
    a, _ = pair
    h = _run(store, [True] * N, "x", benchmark="hitom")
    with pytest.raises(
        IncompatibleRunsError, match=rf"cannot compare {h} \(hitom\) with {a} \(tomi\): runs of different"
    ):
        compare_runs(store, [a, h])


def test_runs_of_different_samples_are_refused_naming_the_setting(store: RunStore, pair: tuple[str, str]) -> None:
    a, _ = pair
    fewer = _run(store, [True] * 20, "x", samples=_samples(20), config={"n": 20, "seed": 0, "options": {}})
    with pytest.raises(IncompatibleRunsError, match=r"n differs \(unset vs 20\), so they ran different samples"):
        compare_runs(store, [a, fewer])
    other_data = _run(
        store,
        [True] * N,
        "x",
        samples=_samples(question="Where?"),
        config={"n": None, "seed": 0, "options": {"data": "b.txt"}},
    )
    with pytest.raises(IncompatibleRunsError, match=r"options\.data differs \(unset vs b\.txt\)"):
        compare_runs(store, [a, other_data])
    same_config = _run(store, [True] * N, "x", samples=_samples(question="Where?"))
    with pytest.raises(IncompatibleRunsError, match=rf"{N - 1} of their {N} samples differ in id or input"):
        compare_runs(store, [a, same_config])


def test_settings_that_leave_the_samples_alone_may_differ(store: RunStore, pair: tuple[str, str]) -> None:
    a, _ = pair
    tuned = _run(store, [True] * N, "x", config={"n": None, "seed": 0, "options": {"skills": "none"}})
    (bc,) = compare_runs(store, [a, tuned]).to_json()["comparisons"]
    assert bc["settings_that_differ"]["options.skills"] == [None, "none"]


def test_unknown_ids_and_a_single_run(store: RunStore, pair: tuple[str, str]) -> None:
    a, _ = pair
    with pytest.raises(InvalidArgumentError, match="unknown run or suite id 'nope'"):
        compare_runs(store, [a, "nope"])
    with pytest.raises(InvalidArgumentError, match="at least two runs"):
        compare_runs(store, [a])


def test_suites_are_compared_benchmark_by_benchmark(store: RunStore, monkeypatch: pytest.MonkeyPatch) -> None:
    t1 = _run(store, [p[0] for p in _pattern()], "basket")
    h1 = _run(store, [True] * N, "x", benchmark="hitom")
    t2 = _run(store, [p[1] for p in _pattern()], "drawer")
    cw = _run(store, [True] * 5, "x", benchmark="smoke", samples=_samples(5))
    suites = {"suite-1": [t1, h1], "suite-2": [t2, cw]}

    def fake(store: RunStore, suite_id: str) -> list[str]:
        if suite_id not in suites:
            raise InvalidArgumentError(f"no suite {suite_id!r}")
        return suites[suite_id]

    monkeypatch.setattr(compare_mod, "runs_of_suite", fake)
    out = compare_runs(store, ["suite-1", "suite-2"]).to_json()
    (bc,) = out["comparisons"]
    assert bc["benchmark"] == "tomi" and [r["source"] for r in bc["runs"]] == ["suite-1", "suite-2"]
    assert bc["differences"][0]["scores"]["correct"]["p"] == 112 / 1024
    assert out["unmatched"] == {"hitom": [h1], "smoke": [cw]}


# -- the command line ------------------------------------------------------------------------------------------------


def test_cli_json_and_refusal(store: RunStore, pair: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = pair
    assert main(["compare", a, b, "--json", "--resamples", "200"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"]["resamples"] == 200 and out["comparisons"][0]["differences"][0]["run_id"] == b
    assert main(["compare", a, b]) == 0
    err = capsys.readouterr().err
    assert "McNemar exact p 0.109" in err and "18 samples where the runs disagree" in err
    h = _run(store, [True] * N, "x", benchmark="hitom")
    assert main(["compare", a, h]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "runs of different benchmarks" in err


def test_cli_writes_the_page(store: RunStore, pair: tuple[str, str], tmp_path: Path) -> None:
    a, b = pair
    assert main(["compare", a, b, "-o", str(tmp_path / "cmp.html")]) == 0
    page = (tmp_path / "cmp.html").read_text(encoding="utf-8")
    assert a in page and b in page


# -- the page ---------------------------------------------------------------------------------------------------------


def _blob(page: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" class="cmp-data" data-for="b0">(.*?)</script>', page, re.S)
    assert m is not None
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def test_page_is_self_contained_escaped_and_holds_the_numbers(store: RunStore, pair: tuple[str, str]) -> None:
    a, b = pair
    page = render_compare(compare_runs(store, [a, b]))
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched
    assert "<script>document" not in page  # the hostile question only travels escaped
    data = _blob(page)
    assert len(data["rows"]) == 18 and data["rows"][0]["id"] == "q012"
    assert data["runs"] == [a, b] and data["key"] == "correct"
    cell = re.search(r'<tr data-path="accuracy" class="headline">.*?data-diff="([^"]+)"', page, re.S)
    assert cell is not None and float(cell.group(1)) == pytest.approx(0.2)
    assert "p = 0.109" in page  # McNemar in the score table


def _chromium() -> str:
    for name in (
        os.environ.get("MINDLOOP_CHROMIUM"),
        "/usr/bin/chromium",
        "chromium",
        "chromium-browser",
        "google-chrome",
    ):
        path = shutil.which(name) if name else None
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("no Chromium binary found; CI must install chromium for the browser tests")
    pytest.skip("no Chromium binary found (/usr/bin/chromium, chromium, chromium-browser, google-chrome)")


def _browse(chromium: str, profile: Path, url: str, *args: str) -> str:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
    flags += ["--disable-component-update", "--disable-sync", f"--user-data-dir={profile}"]
    proc = subprocess.run([chromium, *flags, *args, url], capture_output=True, text=True, timeout=90, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_browser_shows_and_filters_the_disagreements(store: RunStore, pair: tuple[str, str], tmp_path: Path) -> None:
    chromium = _chromium()
    a, b = pair
    path = write_compare(compare_runs(store, [a, b]), tmp_path / "compare.html")
    url = path.resolve().as_uri()
    dom = _browse(chromium, tmp_path / "profile", url, "--dump-dom")
    assert 'data-ready="1"' in dom and "pwned" not in re.sub(r"<script.*?</script>", "", dom, flags=re.S)
    assert len(re.findall(r'<tr class="row"', dom)) == 18
    only_b = urllib.parse.quote("✗ ✓")
    dom = _browse(chromium, tmp_path / "profile", f"{url}#bench=tomi&pattern={only_b}", "--dump-dom")
    assert len(re.findall(r'<tr class="row"', dom)) == ONLY_B
    dom = _browse(chromium, tmp_path / "profile", f"{url}#bench=tomi&q=basket", "--dump-dom")
    assert len(re.findall(r'<tr class="row"', dom)) == ONLY_B + NEITHER  # every sample the baseline got wrong
    shot = tmp_path / "compare.png"
    _browse(chromium, tmp_path / "profile", url, f"--screenshot={shot}", "--window-size=1400,2000")
    assert shot.stat().st_size > 10_000


# -- mindloop runs ----------------------------------------------------------------------------------------------------


def test_runs_lists_status_live_counts_and_the_headline(store: RunStore, tmp_path: Path) -> None:
    done = _run(store, [p[0] for p in _pattern()], "basket")
    stopped = _run(store, [True] * N, "x", finish=10)
    running = _run(store, [True] * N, "x", finish=25)
    with store.locked(running), RunStore(tmp_path / "runs.sqlite", readonly=True) as reader:
        lines = {line.info.run_id: line for line in list_runs(reader)[0]}
    assert lines[done].state == "finished" and lines[done].value == pytest.approx(14 / 30)
    assert (lines[stopped].state, lines[stopped].pending, lines[stopped].value) == ("stopped", N - 10, 1.0)
    assert (lines[running].state, lines[running].pending) == ("running", N - 25)
    assert lines[done].headline is not None and lines[done].headline.metric == "accuracy"


def test_runs_cli_json_keeps_old_keys_and_adds_status(store: RunStore, capsys: pytest.CaptureFixture[str]) -> None:
    run_id = _run(store, [p[1] for p in _pattern()], "drawer", finish=25)
    assert main(["runs", "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["runs"]
    assert entry["run_id"] == run_id and entry["n_completed"] == 25 and entry["n_failed"] == 0
    assert entry["status"] == "stopped" and entry["pending"] == 5
    # the first 25 samples of the second pattern: 12 right, 2 wrong, 8 right, 3 wrong
    assert entry["headline"] == {"metric": "accuracy", "higher_is_better": True, "value": pytest.approx(20 / 25)}
    assert main(["runs"]) == 0
    out = capsys.readouterr().out  # the listing is a result: on stdout
    assert "stopped: 5 pending" in out and "accuracy 0.8000" in out and run_id in out


def test_four_discordant_pairs_get_no_star(store: RunStore, capsys: pytest.CaptureFixture[str]) -> None:
    """Four samples right only in the second run, the other 26 the same: the exact sign test gives
    2 * (1/2)^4 = 0.125 for the headline, so no star (the bootstrap p-value starred it at 0.024). Every breakdown
    row is Holm-adjusted over the three question types."""
    rights_a = [False] * 4 + [True] * 13 + [False] * 13
    rights_b = [True] * 4 + [True] * 13 + [False] * 13
    a = _run(store, rights_a, "basket", agent="symbolic")
    b = _run(store, rights_b, "basket")
    (bc,) = compare_runs(store, [a, b]).to_json()["comparisons"]
    (diff,) = bc["differences"]
    acc = diff["metrics"]["accuracy"]
    assert (acc["test"], acc["p"]) == ("McNemar exact", 0.125) and "p_adjusted" not in acc
    rows = diff["metrics"]["by_type"]
    # the 4 discordant samples are q000..q003: types reality, memory, first_order, reality -> 2, 1, 1 discordant
    raw = {t: rows[t]["accuracy"]["p"] for t in rows}
    assert raw == {"reality": 0.5, "memory": 1.0, "first_order": 1.0}
    # Holm over the family: 0.5*3 capped at 1, then 1.0s: every adjusted p is 1
    assert {t: rows[t]["accuracy"]["p_adjusted"] for t in rows} == {"reality": 1.0, "memory": 1.0, "first_order": 1.0}
    assert main(["compare", a, b]) == 0
    err = capsys.readouterr().err
    assert "0.125" in err and not re.search(r"\d\*", err)  # a starred p-value reads "p 0.024*"
    assert "no significant difference" in err

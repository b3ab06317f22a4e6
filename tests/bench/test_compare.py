"""``mindloop compare`` and ``mindloop runs``: paired comparisons with hand-worked numbers, refusals, the page.

The two ToMi runs below are built by hand over the same 30 samples so that every number can be counted on paper:
both runs right on 12 samples, only the baseline on 2, only the other run on 8, both wrong on 8 (with different
wrong answers). So accuracy is 14/30 against 20/30, the difference +0.2, McNemar's exact p = 2 * P(X <= 2) for
X ~ Binomial(10, 1/2) = 112/1024, and the runs disagree on 2 + 8 + 8 = 18 samples.
"""

from __future__ import annotations

import html
import json
import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench import compare as compare_mod
from mindloop.bench.api import Sample
from mindloop.bench.compare import IncompatibleRunsError, compare_runs
from mindloop.bench.headline import Headline
from mindloop.bench.listing import list_runs
from mindloop.bench.report.compare import render_compare, write_compare
from mindloop.bench.store import RunStore, SampleResult
from mindloop.cli import main
from mindloop.errors import InvalidArgumentError

from .browser import Browser

BOTH, ONLY_A, ONLY_B, NEITHER = 12, 2, 8, 8
N = BOTH + ONLY_A + ONLY_B + NEITHER
HOSTILE = "Where is the <script>document.body.dataset.pwned='1'</script> apple?"


def _samples(n: int = N, *, question: str = "Where is the apple?", choices: int = 0) -> list[Sample]:
    """``n`` ToMi questions whose gold is ``box``; with ``choices``, sample ``i`` offers ``2 + i % choices`` of them."""
    types = ("reality", "memory", "first_order")
    offered = ["box", "basket", "drawer", "crate", "bag"]
    return [
        Sample(
            f"q{i:03d}",
            {"story": ["Anne put the apple in the box."], "question": question if i else HOSTILE, "answer": "box"}
            | ({"choices": offered[: 2 + i % choices]} if choices else {}),
            types[i % 3],
            target="box",
            choices=tuple(offered[: 2 + i % choices]) if choices else (),
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


def test_runs_whose_shared_samples_differ_are_refused_naming_the_sample(store: RunStore, pair: tuple[str, str]) -> None:
    a, _ = pair
    other_data = _run(
        store,
        [True] * N,
        "x",
        samples=_samples(question="Where?"),
        config={"n": None, "seed": 0, "options": {"data": "b.txt"}},
    )
    # q000 holds the same (hostile) question in both; q001 is the first shared id whose input differs
    with pytest.raises(
        IncompatibleRunsError,
        match=rf"sample q001 has a different input in each \({N - 1} of their {N} shared ids do\), so they did not "
        r"run the same samples; options\.data differs \(unset vs b\.txt\)",
    ):
        compare_runs(store, [a, other_data])
    disjoint = [replace(s, id=f"z{i:03d}") for i, s in enumerate(_samples())]
    other_ids = _run(store, [True] * N, "x", samples=disjoint, config={"n": None, "seed": 1, "options": {}})
    with pytest.raises(IncompatibleRunsError, match=rf"they share no sample id \({N} and {N} samples\).*seed differs"):
        compare_runs(store, [a, other_ids])
    regrouped = [replace(s, group="other") if s.id == "q007" else s for s in _samples()]
    other_group = _run(store, [True] * N, "x", samples=regrouped)
    with pytest.raises(IncompatibleRunsError, match=r"sample q007 has a different group in each \(1 of their 30"):
        compare_runs(store, [a, other_group])


def test_a_shorter_run_pairs_on_the_samples_it_shares(store: RunStore, pair: tuple[str, str]) -> None:
    """20 of the 30 samples: paired on those, each run's numbers recomputed over them (so the columns and Δ agree)."""
    a, _ = pair
    rights = [p[1] for p in _pattern()][:20]  # 12 right, then 2 wrong, then 6 right: 18 of 20
    fewer = _run(store, rights, "drawer", samples=_samples(20), config={"n": 20, "seed": 0, "options": {}})
    (bc,) = compare_runs(store, [a, fewer]).to_json()["comparisons"]
    assert bc["paired_on"] == "paired on 20 shared samples of 30 and 20" and bc["shared_samples"] == 20
    base, short = bc["runs"]
    assert base["metrics"]["accuracy"] == pytest.approx(14 / 20)  # the baseline's 14 right are all in the first 20
    assert base["run_metrics"]["accuracy"] == pytest.approx(14 / 30) and (base["n_finished"], short["n_finished"]) == (
        30,
        20,
    )
    assert short["metrics"]["accuracy"] == pytest.approx(18 / 20) and "run_metrics" not in short
    assert bc["differences"][0]["metrics"]["accuracy"]["diff"] == pytest.approx(4 / 20)
    correct = bc["differences"][0]["scores"]["correct"]
    assert (correct["baseline_only"], correct["run_only"]) == (ONLY_A, 20 - BOTH - ONLY_A)


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
    out, err = capsys.readouterr()
    assert "McNemar exact p 0.109" in out and "18 samples where the runs disagree" in out and not err
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


@pytest.mark.boundary  # a real Chromium
def test_browser_shows_and_filters_the_disagreements(
    browser: Browser, store: RunStore, pair: tuple[str, str], tmp_path: Path
) -> None:
    a, b = pair
    path = write_compare(compare_runs(store, [a, b]), tmp_path / "compare.html")
    url = path.resolve().as_uri()
    dom = browser.browse(url, "--dump-dom")
    assert 'data-ready="1"' in dom and "pwned" not in re.sub(r"<script.*?</script>", "", dom, flags=re.S)
    assert len(re.findall(r'<tr class="row"', dom)) == 18
    only_b = urllib.parse.quote("✗ ✓")
    dom = browser.browse(f"{url}#bench=tomi&pattern={only_b}", "--dump-dom")
    assert len(re.findall(r'<tr class="row"', dom)) == ONLY_B
    dom = browser.browse(f"{url}#bench=tomi&q=basket", "--dump-dom")
    assert len(re.findall(r'<tr class="row"', dom)) == ONLY_B + NEITHER  # every sample the baseline got wrong
    shot = tmp_path / "compare.png"
    browser.browse(url, f"--screenshot={shot}", "--window-size=1400,2000")
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
    out = capsys.readouterr().out
    assert "0.125" in out and not re.search(r"\d\*", out)  # a starred p-value reads "p 0.024*"
    flat = " ".join(out.split())
    assert "do not differ significantly on accuracy (+0.1333, p 0.125); none of the" in flat
    assert "Holm" in out and "one family (every metric but the headline)" in flat
    page = render_compare(compare_runs(store, [a, b]))
    assert not re.search(r'class="num diff (good|bad|sig)"', page)  # no difference marked on the page
    family = re.search(r'<p class="muted sec-note family">(.*?)</p>', page, re.S)
    rows = len(compare_runs(store, [a, b]).benchmarks[0].differences[0].family)
    assert family is not None and f"its other {rows} rows" in family.group(1) and "Holm-adjusted" in family.group(1)
    assert "the headline (accuracy) is the one unadjusted test" in family.group(1)


# -- labels, verdicts, reference policies, width -----------------------------------------------------------------


def _short(run_id: str) -> str:
    return run_id.rsplit("-", 1)[-1]


def test_columns_are_labelled_by_agent_model_and_run(store: RunStore, pair: tuple[str, str]) -> None:
    a, b = pair
    (bc,) = compare_runs(store, [a, b]).to_json()["comparisons"]
    labels = [r["label"] for r in bc["runs"]]
    assert labels == [f"symbolic scripted/test (run {_short(a)})", f"model scripted/test (run {_short(b)})"]
    (same,) = compare_runs(store, [a, a]).to_json()["comparisons"]
    assert [r["label"] for r in same["runs"]] == [f"symbolic scripted/test (run {a})"] * 2  # the whole id when alike
    page = render_compare(compare_runs(store, [a, b]))
    assert f'<th class="num label">model scripted/test (run {_short(b)})</th>' in page
    assert f'<th class="num label">Δ model scripted/test (run {_short(b)})</th>' in page


def test_verdicts_say_which_run_is_better_where_by_direction(store: RunStore) -> None:
    """Every sample wrong in the baseline and right in the other run: 30 discordant pairs (p = 2^-29), and 10 per
    question type (p = 2 * 2^-10 each, still below 0.05 after Holm), so the headline and all three rows of the
    headline's metric are significant."""
    a = _run(store, [False] * N, "basket", agent="symbolic")
    b = _run(store, [True] * N, "basket")
    comparison = compare_runs(store, [a, b])
    (bc,) = comparison.benchmarks
    (verdict,) = bc.verdicts()
    la, lb = (s.label for s in bc.runs)
    assert verdict.tone == "good" and verdict.text.startswith(
        f"{lb} is better than {la} on accuracy (+1.0000, p 0.000)"
    )
    rows = ["by_type.first_order.accuracy", "by_type.memory.accuracy", "by_type.reality.accuracy"]
    assert sorted(verdict.significant) == rows
    # the family: every declared row but the headline (ToMi's chance rows are reference values computed from the
    # questions, the same in both runs: no hypothesis, so not in the family); Holm multiplies the smallest p-value
    # by the family's size, and the three equal ones stay tied: 3 * 2/1024 = 0.0059
    family = comparison.to_json()["comparisons"][0]["differences"][0]["family"]
    assert family["adjustment"] == "Holm" and sorted(family["rows"]) == rows
    assert all(f"better on {r} (+1.0000, Holm p 0.006)" in verdict.text for r in rows)
    flipped = replace(bc, headline=Headline("accuracy", higher_is_better=False))
    (worse,) = flipped.verdicts()
    assert worse.tone == "bad" and worse.text.startswith(f"{lb} is worse than {la} on accuracy")
    assert "worse on by_type.memory.accuracy" in worse.text
    out = comparison.to_json()["comparisons"][0]["verdicts"]
    assert out == [verdict.to_json()] and out[0]["run_id"] == b
    page = render_compare(comparison)
    assert f'<p class="verdict good">{lb} is better than {la} on accuracy' in page


def _chance(samples: list[Sample]) -> float:
    """Chance as ToMi and Hi-ToM define it, counted here: a uniform guess among each question's distinct choices
    (0 where the gold is not among them, or there are none), averaged over the samples."""
    values = []
    for s in samples:
        choices = list(dict.fromkeys(str(c) for c in s.input.get("choices", [])))
        values.append(1 / len(choices) if choices and str(s.input["answer"]) in choices else 0.0)
    return sum(values) / len(values)


def test_reference_policies_stand_beside_the_headline(store: RunStore, capsys: pytest.CaptureFixture[str]) -> None:
    """Questions offering 2, 3 or 4 choices in turn: chance is (1/2 + 1/3 + 1/4) / 3 on the 30, and 1/2 + 1/3 +
    1/4 + 1/2 + 1/3 over 5 on the first 5 (the shorter run's pairing recomputes it there)."""
    samples = _samples(choices=3)
    a = _run(store, [p[0] for p in _pattern()], "basket", agent="symbolic", samples=samples)
    b = _run(store, [p[1] for p in _pattern()], "drawer", samples=samples)
    comparison = compare_runs(store, [a, b])
    (bc,) = comparison.to_json()["comparisons"]
    assert _chance(samples) == pytest.approx((1 / 2 + 1 / 3 + 1 / 4) / 3)
    for run in bc["runs"]:
        assert run["references"]["chance"] == pytest.approx(_chance(samples))
        assert run["reference_marks"][0]["label"] == "chance"
        assert run["reference_text"].startswith("chance ")
        assert {p["name"] for p in run["reference_policies"]} == set(run["references"])
    text = bc["runs"][0]["reference_text"]
    assert main(["compare", a, b]) == 0
    out = capsys.readouterr().out
    assert f"reference policies on these samples: {text}" in " ".join(out.split())
    page = render_compare(comparison)
    refs = re.findall(r'<td class="refs">(.*?)</td>', page)
    assert len(refs) == 2 and all(r.startswith("chance 0.361") for r in refs)
    assert page.count('<span class="p refs">chance 0.361') == 2  # beside each run's headline value
    short = _run(store, [True] * 5, "x", samples=samples[:5], config={"n": 5, "seed": 0, "options": {}})
    (bc,) = compare_runs(store, [a, short]).to_json()["comparisons"]
    expected = (1 / 2 + 1 / 3 + 1 / 4 + 1 / 2 + 1 / 3) / 5
    assert [r["references"]["chance"] for r in bc["runs"]] == [pytest.approx(expected)] * 2


def test_text_tables_fit_the_width_without_breaking_words(
    store: RunStore, pair: tuple[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = pair
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["compare", a, b]) == 0
    wide = capsys.readouterr().out
    assert re.search(r"0\.4667 \[0\.\d{4}, 0\.\d{4}\]", wide)  # value and interval on one line
    for columns in (100, 80):
        monkeypatch.setenv("COLUMNS", str(columns))
        assert main(["compare", a, b]) == 0
        out = capsys.readouterr().out
        assert max(len(line) for line in out.splitlines()) <= columns
        assert re.search(r"accuracy +0\.4667 +0\.6667 +\+0\.2000\b", out)  # the headline row, intervals below
        assert "[0.2834, 0.6567]" in out and "p 0.625, Holm 1.000" in out  # each interval and test on one line
        words = {w for line in out.splitlines() for w in re.findall(r"[\w.]+", line)}
        assert {"accuracy", "first_order.accuracy", "by_type", "scripted/test"} <= words | {
            w for line in out.splitlines() for w in line.split()
        }
        assert "+0.2000" in out and "McNemar exact p 0.109" in " ".join(out.split())


FIT_PROBE = """
(function () {
  var out = { ready: document.body.dataset.ready === "1", innerWidth: window.innerWidth,
              pageScrollWidth: document.documentElement.scrollWidth, tables: [] };
  Array.prototype.forEach.call(document.querySelectorAll("table"), function (t) {
    var box = t.closest(".tscroll, .tablewrap");
    out.tables.push({ name: t.dataset.table || t.id, rows: t.rows.length,
                      fits: box ? box.scrollWidth <= box.clientWidth + 1 : t.scrollWidth <= window.innerWidth });
  });
  var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
"""
"""Whether the page and each table fit at the window's width (a table within its own scroll box)."""


@pytest.mark.boundary  # a real Chromium
@pytest.mark.parametrize("runs", [2, 3])
def test_browser_page_fits_at_1280px(browser: Browser, store: RunStore, tmp_path: Path, runs: int) -> None:
    ids = [
        _run(store, [p[0] for p in _pattern()], "basket", agent="symbolic"),
        _run(store, [p[1] for p in _pattern()], "drawer"),
        _run(store, [True] * N, "x"),
    ][:runs]
    page = render_compare(compare_runs(store, ids))
    head, _, tail = page.rpartition("</body>")
    probed = tmp_path / "probed.html"
    probed.write_text(f"{head}<script>{FIT_PROBE}</script></body>{tail}", encoding="utf-8")
    dom = browser.browse(probed.resolve().as_uri(), "--window-size=1280,1000", "--dump-dom")
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found is not None, dom[-2000:]
    probe = json.loads(html.unescape(found.group(1)))
    assert probe["ready"] and probe["innerWidth"] == 1280
    assert probe["pageScrollWidth"] <= probe["innerWidth"]
    tables = {t["name"]: t for t in probe["tables"]}
    assert {"runs", "Summary", "by type", "score-tests", "b0-table"} <= set(tables)
    for name, table in tables.items():
        assert table["fits"], name


# -- real runs: a 20-sample run against the 240-sample run it is a subset of -------------------------------------


def test_a_20_sample_run_pairs_with_the_240_sample_run_it_is_a_subset_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two real Hi-ToM runs: the symbolic tracker over the bundled 240 questions, and a scripted model that always
    answers "A" over the first 20. They are paired on those 20; every number is checked against the records."""
    monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "120")
    reply = tmp_path / "a.txt"
    reply.write_text("A\n", encoding="utf-8")
    assert main(["bench", "run", "hitom", "--json"]) == 0
    full = json.loads(capsys.readouterr().out)["run_id"]
    assert main(["bench", "run", "hitom", "--n", "20", "--model", f"scripted/{reply}", "--json"]) == 0
    short = json.loads(capsys.readouterr().out)["run_id"]
    assert main(["compare", short, full]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "hitom · paired on 20 shared samples of 20 and 240" and not err
    assert f"model scripted/{reply}" in " ".join(out.split()) and f"(run {_short(full)})" in out
    assert main(["compare", short, full, "--json"]) == 0
    (bc,) = json.loads(capsys.readouterr().out)["comparisons"]
    assert bc["shared_samples"] == 20 and bc["paired_on"] == "paired on 20 shared samples of 20 and 240"
    with RunStore(tmp_path / "runs.sqlite", readonly=True) as store:
        first = store.records(short)
        by_id = {r.sample.id: r for r in store.records(full)}
    assert len(first) == 20 and len(by_id) == 240
    answered_a = sum(r.sample.input["choices"][0] == r.sample.input["answer"] for r in first) / 20
    tracker = sum(by_id[r.sample.id].scores["correct"] for r in first) / 20
    assert all(r.sample.input == by_id[r.sample.id].sample.input for r in first)
    model_side, symbolic_side = bc["runs"]
    assert model_side["metrics"]["accuracy"] == pytest.approx(answered_a) and "run_metrics" not in model_side
    assert symbolic_side["metrics"]["accuracy"] == pytest.approx(tracker)
    assert symbolic_side["run_metrics"]["accuracy"] == pytest.approx(202 / 240)  # its own summary: all 240
    assert bc["differences"][0]["metrics"]["accuracy"]["diff"] == pytest.approx(tracker - answered_a)
    chance = _chance([r.sample for r in first])
    assert model_side["references"]["chance"] == pytest.approx(chance)
    assert symbolic_side["references"]["chance"] == pytest.approx(chance)  # recomputed on the 20, not the 240
    assert model_side["label"] == f"model scripted/{reply} (run {_short(short)})"
    assert symbolic_side["label"] == f"symbolic (run {_short(full)})"

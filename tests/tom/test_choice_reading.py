"""The released multiple-choice sets read replies with the one choice reader, and keep their release's own reading
beside as a deviation: on MMToM-QA a model that always answers b, however it writes it, scores the share of golds
b (the release's first-character reading reads 'Answer: b' as a); on BigToM a reply naming both keys is
unreadable, while the release counts it right."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench import get_benchmark
from mindloop.cli import main

DATA = Path(__file__).parent / "data"
MMTOM = DATA / "mmtom_excerpt.json"

B_FORMS = ("b", "B", "(b)", "b)", "Answer: b", "Answer:b", "The answer is (b).")


def _run(capsys: pytest.CaptureFixture[str], tmp_path: Path, bench: str, data: Path, reply: str) -> dict[str, Any]:
    replies = tmp_path / "reply.txt"
    replies.write_text(reply, encoding="utf-8")
    capsys.readouterr()
    assert main(["bench", "run", bench, "--data", str(data), "--model", f"scripted/{replies}", "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def _mmtom_golds() -> list[str]:
    return [json.loads(line)["answer"].strip().lower() for line in MMTOM.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("reply", B_FORMS)
def test_mmtom_always_b_scores_the_share_of_golds_b(
    reply: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    golds = _mmtom_golds()
    out = _run(capsys, tmp_path, "mmtom-qa", MMTOM, reply)
    m = out["metrics"]
    assert m["accuracy"] == golds.count("b") / len(golds)
    assert m["unparsed"] == 0
    # the release reads the first character: 'b'/'B'/'b)' as b, '(' as nothing, 'A' of "Answer" as a
    first = reply.strip().lower()[:1]
    release = golds.count(first) / len(golds) if first in "ab" else 0.0
    assert m["accuracy_release_reading"] == release


def test_the_release_reading_is_declared_as_a_deviation() -> None:
    bench = get_benchmark("mmtom-qa")
    metric = bench.spec.metric("accuracy_release_reading")
    assert metric is not None and "first character" in metric.description and "deviation" in metric.description


def test_bigtom_a_reply_naming_both_keys_is_unread_but_the_release_counts_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = _run(capsys, tmp_path, "bigtom", DATA / "bigtom_excerpt.csv", "a) or b)")
    m = out["metrics"]
    # items whose two options are the same text read as that one option; every other reply names two options
    same = sum(1 for s in get_benchmark("bigtom").samples(None, 0, _options()) if len(set(s.choices)) == 1)
    n = out["n"]
    assert m["unparsed"] == n - same and m["accuracy"] == same / n
    assert m["accuracy_release_reading"] == 1.0


def _options() -> Any:
    from mindloop.bench.options import validate_options

    return validate_options(get_benchmark("bigtom"), {"data": str(DATA / "bigtom_excerpt.csv")})

"""A released multiple-choice set is a declaration of at most 40 lines: the one in docs/bench.md is declared,
registered, run end to end with ``bench run --data`` and reported, and its numbers are the ones worked out by
hand from its file."""

from __future__ import annotations

import json
import re
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench import BENCHMARKS, check_benchmark
from mindloop.cli import main

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "bench.md").read_text(encoding="utf-8")
DECLARATION = re.search(r"```python\n(# toyset\.py.*?)```", DOC, re.DOTALL).group(1)  # type: ignore[union-attr]

KINDS = ("first-order", "second-order")
GOLDS = "BADBCBAB"
"""The gold labels of the fixture's eight items, in order: three B, two A, one C, one D, ... as written."""


def _items() -> list[dict[str, Any]]:
    return [
        {
            "qid": f"toy-{i}",
            "kind": KINDS[i % 2],
            "story": f"Ann puts the key in box {i}. Ann leaves. Bob moves it to the bag.",
            "question": "Where will Ann look for the key?",
            "options": [f"box {i}", "the bag", "the drawer", "the shelf"],
            "gold": gold,
        }
        for i, gold in enumerate(GOLDS)
    ]


@pytest.fixture
def toyset(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[types.ModuleType]:
    """The docs' declaration as a module, registered in this process only."""
    module = types.ModuleType("toyset")
    exec(compile(DECLARATION, "toyset.py", "exec"), module.__dict__)
    BENCHMARKS.names()  # read the entry points before the registry's tables are swapped for copies
    monkeypatch.setattr(BENCHMARKS, "_entries", dict(BENCHMARKS._entries))
    monkeypatch.setattr(BENCHMARKS, "_loaded", dict(BENCHMARKS._loaded))
    BENCHMARKS.register("toyset", module.ToySetBenchmark, description="the docs' example, in this process only")
    yield module


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(argv) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_the_declaration_is_at_most_40_lines() -> None:
    assert len(DECLARATION.splitlines()) <= 40


def test_a_new_set_runs_end_to_end_and_reports(
    toyset: types.ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "toyset.jsonl").write_text("".join(json.dumps(item) + "\n" for item in _items()), encoding="utf-8")
    check_benchmark(toyset.ToySetBenchmark(), options={"data": str(folder)})
    replies = tmp_path / "answer_b.txt"
    replies.write_text("Answer: B", encoding="utf-8")
    out = _json(capsys, ["bench", "run", "toyset", "--data", str(folder), "--model", f"scripted/{replies}", "--json"])
    m = out["metrics"]
    # a model that always answers B scores the share of golds B; the release's first letter reads 'Answer' as A
    assert m["accuracy"] == GOLDS.count("B") / len(GOLDS)
    assert m["accuracy_release_reading"] == GOLDS.count("A") / len(GOLDS)
    assert m["accuracy_strict"] == m["accuracy"]  # "Answer: B" is the strict form too
    for kind in KINDS:
        golds = GOLDS[KINDS.index(kind) :: 2]
        row = m["by_kind"][kind]
        assert {k: row[k] for k in ("accuracy", "n", "chance", "unparsed")} == {
            "accuracy": golds.count("B") / len(golds),
            "n": len(golds),
            "chance": 0.25,
            "unparsed": 0,
        }
        # the release's reading beside the headline in every row
        assert row["accuracy_release_reading"] == golds.count("A") / len(golds)
    assert out["references"]["chance"] == 0.25 and out["references"]["oracle"] == 1.0
    report = tmp_path / "report.html"
    assert main(["report", out["run_id"], "--out", str(report)]) == 0
    html = report.read_text(encoding="utf-8")
    assert "toyset" in html and "accuracy_release_reading" in html and "deviation" in html

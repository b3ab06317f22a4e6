"""Replies Qwen2.5-Coder 0.5B and 1.5B (llama.cpp, temperature 0) wrote to BigToM's and MMToM-QA's own prompts on
the full releases, each labelled by a person (``data/real_replies.jsonl``, ``benchmark`` ``bigtom`` or
``mmtom-qa``): "readable: X" when the reply names option X as its answer — by its key (``a)``, ``Answer:b``,
``(b)``) or by its text — and "unusable" when it names none or both. The one choice reader must give exactly that
label."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.reader import read_choice

CORPUS = Path(__file__).parent / "data" / "real_replies.jsonl"


def _rows(benchmark: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in CORPUS.open(encoding="utf-8")]
    return [row for row in rows if row["benchmark"] == benchmark]


@pytest.mark.parametrize("release", ["bigtom", "mmtom-qa"])
def test_every_real_reply_is_read_as_its_hand_label(release: str) -> None:
    corpus = _rows(release)
    assert len(corpus) >= 10
    models = {row["model"].split()[0] for row in corpus}
    assert models == {"Qwen2.5-Coder-0.5B-Instruct", "Qwen2.5-Coder-1.5B-Instruct"}
    for row in corpus:
        expected = None if row["label"] == "unusable" else row["label"].removeprefix("readable: ")
        assert expected is None or expected in row["choices"], row
        assert read_choice(row["reply"], row["choices"], row["labels"]).choice == expected, row["reply"]

"""Real replies of small local models (Qwen2.5-Coder-0.5B- and 1.5B-Instruct, Q4_K_M, llama.cpp) to the OmniToM
prompts, each labelled by hand (``data/real_replies.jsonl``): every readable reply must be read as a careful person
reads it, under both protocols, and every unusable one refused with a one-line reason. (No judge reply is in it: the
0.5B judge did not finish one within the runs' time; the judge's reader is tested on scripted replies.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mindloop.errors import ParseError
from mindloop.systems.omnitom.records import DIMENSIONS, BeliefRecord
from mindloop.systems.omnitom.tables import read_stage1, read_stage2

CORPUS = Path(__file__).parent / "data" / "real_replies.jsonl"
ENTRIES: list[dict[str, Any]] = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
KINDS = ("omnitom-stage1", "omnitom-stage2")


def _cases(kind: str) -> list[Any]:
    return [pytest.param(e, id=f"{kind}-{i}-{e['label']}") for i, e in enumerate(ENTRIES) if e["kind"] == kind]


def test_the_corpus_is_well_formed() -> None:
    assert ENTRIES and {e["kind"] for e in ENTRIES} <= set(KINDS)
    for e in ENTRIES:
        assert set(e) >= {"kind", "reply", "label", "expected", "model"} and e["label"] in ("readable", "unusable")
        assert (e["expected"] is None) == (e["label"] == "unusable")
        assert e["model"] in ("qwen2.5-coder-0.5b-q4_k_m", "qwen2.5-coder-1.5b-q4_k_m")


@pytest.mark.parametrize("entry", _cases("omnitom-stage1"))
@pytest.mark.parametrize("protocol", ["release", "mindloop"])
def test_stage1_replies(entry: dict[str, Any], protocol: str) -> None:
    if entry["label"] == "unusable":
        with pytest.raises(ParseError):
            read_stage1(entry["reply"], protocol)
        return
    reading = read_stage1(entry["reply"], protocol)
    rows = [[b.actor, b.belief.rstrip("."), b.labels.order] for b in reading.beliefs]
    assert rows == entry["expected"]


def _gold(entry: dict[str, Any]) -> list[BeliefRecord]:
    return [BeliefRecord(actor=a, belief=b) for a, b in entry["input"]]


@pytest.mark.parametrize("entry", _cases("omnitom-stage2"))
def test_stage2_replies(entry: dict[str, Any]) -> None:
    if entry["label"] == "unusable":
        for protocol in ("release", "mindloop"):
            with pytest.raises(ParseError):
                read_stage2(entry["reply"], _gold(entry), protocol)
        return
    labels = read_stage2(entry["reply"], _gold(entry), "release").labels
    assert [None if x is None else {d: x.get(d) for d in DIMENSIONS} for x in labels] == entry["expected"]
    read_stage2(entry["reply"], _gold(entry), "mindloop")  # readable under mindloop's protocol too


def test_rows_that_label_actors_not_beliefs_are_refused_with_that_reason() -> None:
    """The 1.5B model's one-label-set-per-actor tables (with or without a header, or one line per dimension) are
    sent back with a reason that says what is wrong, not a generic one."""
    cases = [e for e in ENTRIES if e["kind"] == "omnitom-stage2" and e["model"] == "qwen2.5-coder-1.5b-q4_k_m"]
    assert len(cases) == 4
    for entry in cases:
        with pytest.raises(ParseError, match="the rows label actors, not beliefs"):
            read_stage2(entry["reply"], _gold(entry), "mindloop")

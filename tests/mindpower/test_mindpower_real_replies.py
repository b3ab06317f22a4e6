"""Real replies of small local models (Qwen2.5-Coder-0.5B- and 1.5B-Instruct, Q4_K_M, llama.cpp) to the MindPower
prompts and judges, each labelled by hand (``data/real_replies.jsonl``): every readable reply must be read as a
careful person reads it, and every unusable one refused with a one-line reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mindloop.errors import ParseError
from mindloop.systems.mindpower.hierarchy import parse_hierarchy
from mindloop.systems.mindpower.metrics import parse_bpc, parse_robot_centric

CORPUS = Path(__file__).parent / "data" / "real_replies.jsonl"
ENTRIES: list[dict[str, Any]] = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
KINDS = ("mindpower-hierarchy", "mindpower-bpc", "mindpower-robot-centric")


def _cases(kind: str) -> list[Any]:
    return [pytest.param(e, id=f"{kind}-{i}-{e['label']}") for i, e in enumerate(ENTRIES) if e["kind"] == kind]


def test_the_corpus_is_well_formed() -> None:
    assert ENTRIES and {e["kind"] for e in ENTRIES} <= set(KINDS)
    for e in ENTRIES:
        assert set(e) >= {"kind", "reply", "label", "expected", "model"} and e["label"] in ("readable", "unusable")
        assert (e["expected"] is None) == (e["label"] == "unusable")
        assert e["model"] in ("qwen2.5-coder-0.5b-q4_k_m", "qwen2.5-coder-1.5b-q4_k_m")


@pytest.mark.parametrize("entry", _cases("mindpower-hierarchy"))
def test_hierarchy_replies(entry: dict[str, Any]) -> None:
    if entry["label"] == "unusable":
        with pytest.raises(ParseError):
            parse_hierarchy(entry["reply"], "hierarchy")
        return
    h = parse_hierarchy(entry["reply"], "hierarchy")
    assert {"layers": dict(h.layers), "actions": [str(a) for a in h.actions]} == entry["expected"]


@pytest.mark.parametrize("entry", _cases("mindpower-bpc"))
def test_bpc_replies(entry: dict[str, Any]) -> None:
    if entry["label"] == "unusable":
        with pytest.raises(ParseError):
            parse_bpc(entry["reply"])
        return
    score, reasoning = parse_bpc(entry["reply"])
    assert {"total_score": score, "reasoning": reasoning} == entry["expected"]


@pytest.mark.parametrize("entry", _cases("mindpower-robot-centric"))
def test_robot_centric_replies(entry: dict[str, Any]) -> None:
    if entry["label"] == "unusable":
        with pytest.raises(ParseError):
            parse_robot_centric(entry["reply"])
        return
    total, answers = parse_robot_centric(entry["reply"])
    assert {"total_score": total, "score": answers} == entry["expected"]


def test_a_broken_bpc_reply_with_two_scores_is_refused() -> None:
    """The fallback for broken JSON reads a score only when the reply states exactly one."""
    with pytest.raises(ParseError):
        parse_bpc('{"total_score": 8, "reasoning": "x"\n - then\n "total_score": 6}')
    assert parse_bpc('{"total_score": 8, "reasoning": "ok"\n - more\n}') == (8, "ok")
    assert parse_bpc('{"total_score": 7, "reasoning": "a \\x b"\n - more\n}') == (7, "a \\x b")  # not JSON's escape

"""Real replies of a small model to cobel-llm's prompts (``data/real_replies.jsonl``), labelled by hand: every
readable reply is read as a careful person reads it, every unusable one is refused with a reason.

Each line: ``kind`` (which reader), ``reply`` (verbatim), ``label`` (``readable`` | ``unusable``), ``expected``
(what a careful reader takes from it; ``null`` when unusable), ``model``, ``world`` and ``context`` (what the
reader needs from the prompt: the listed actions, the partner's name, TDW-MAT's bed).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mindloop.errors import ParseError
from mindloop.systems.cobel.replies import (
    read_action,
    read_belief_update,
    read_collaboration,
    read_message,
    read_plan,
    read_predictions,
)

CORPUS = Path(__file__).parent / "data" / "real_replies.jsonl"
MODELS = ("qwen2.5-coder-0.5b-q4_k_m", "qwen2.5-coder-1.5b-q4_k_m")
ENTRIES = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def read(entry: dict[str, Any]) -> Any:
    """What the agent's reader makes of the entry's reply, in the corpus's ``expected`` shape."""
    kind, reply, ctx = entry["kind"], entry["reply"], entry.get("context") or {}
    bed = ctx.get("bed")
    if kind == "plans":
        return [[s.text for s in plan] for plan in read_predictions(reply, bed=bed)]
    if kind == "plan":
        return [s.text for s in read_plan(reply, "Fig. 11", bed=bed)[0]]
    if kind == "collaboration":
        return {"talk": read_collaboration(reply).talk}
    if kind == "message":
        return read_message(reply)
    if kind == "action":
        options = ctx["options"]
        choice = read_action(reply, options)
        return "SUBPLAN DONE" if choice.done else options[choice.index]
    if kind in ("zero_update", "first_update"):
        got = read_belief_update(reply, kind.split("_")[0], ctx.get("partner"), bed=bed)
        return {"beliefs": [str(s) for s in got.statements], "plan": [s.text for s in got.plan]}
    raise AssertionError(f"unknown kind {kind!r}")


def test_the_corpus_is_real_labelled_and_covers_every_reply_kind() -> None:
    assert all(e["model"] in MODELS and e["label"] in ("readable", "unusable") for e in ENTRIES)
    assert all((e["expected"] is None) == (e["label"] == "unusable") for e in ENTRIES)
    kinds = Counter(e["kind"] for e in ENTRIES)
    assert set(kinds) == {"plans", "plan", "collaboration", "message", "action", "zero_update", "first_update"}


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e["label"] == "readable"], ids=lambda e: e["kind"])
def test_every_readable_reply_is_read_as_labelled(entry: dict[str, Any]) -> None:
    assert read(entry) == entry["expected"]


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e["label"] == "unusable"], ids=lambda e: e["kind"])
def test_every_unusable_reply_is_refused_with_a_reason(entry: dict[str, Any]) -> None:
    with pytest.raises(ParseError) as info:
        read(entry)
    assert info.value.reason and "\n" not in info.value.reason

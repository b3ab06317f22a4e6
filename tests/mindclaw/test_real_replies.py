"""Replies a real small model wrote to MindClaw's prompts (``data/real_replies.jsonl``), labelled by hand: every
reply a person can read unambiguously parses to exactly what the person read, and every unusable one (a copy of
the prompt's format or example, two answers, no answer) is refused with a one-line ParseError.

Each line: ``kind`` (which prompt and parser: ``trigger``, ``reason``, ``act``, ``observe``, ``skills``,
``direct``: the direct baseline's one answer a window), the
verbatim ``reply``, ``label`` (``readable`` or ``unusable``), ``expected`` (what a careful person reads; ``null``
when unusable), ``model``, ``prompt`` (``old`` or ``new``: which version of the prompt it answered) and ``names``
(the window's candidates the parser checks names against; for ``skills`` the operation).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from mindloop.errors import ParseError
from mindloop.systems.mindclaw.actions import parse_action_reply
from mindloop.systems.mindclaw.direct import parse_direct_reply
from mindloop.systems.mindclaw.mining import read_summary
from mindloop.systems.mindclaw.observation import parse_observation_reply
from mindloop.systems.mindclaw.operations import SlotError, check_operation, parse_operation, read_operation
from mindloop.systems.mindclaw.reasoning import parse_reasoning_reply
from mindloop.systems.mindclaw.window import Candidates

DATA = Path(__file__).parent / "data" / "real_replies.jsonl"
KINDS = ("trigger", "reason", "act", "observe", "skills", "direct")


def _corpus() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def _names(entry: dict[str, Any], key: str) -> frozenset[str]:
    return frozenset(entry["names"].get(key, ()))


def _candidates(entry: dict[str, Any]) -> Candidates:
    return Candidates(_names(entry, "actors"), _names(entry, "objects"), _names(entry, "locations"))


def read(entry: dict[str, Any]) -> Any:
    """What the parser of ``entry``'s kind reads from its reply, in the corpus's JSON form. A trigger reply is read
    as text (:func:`parse_operation`): a readable operation whose slot is not a candidate is read, then refused by
    :func:`read_operation`, which the runtime uses (tested apart below)."""
    kind, reply = entry["kind"], entry["reply"]
    if kind == "trigger":
        if entry["label"] == "readable":
            return str(parse_operation(reply))
        return str(read_operation(reply, _candidates(entry)))
    if kind == "reason":
        got = parse_reasoning_reply(reply, locations=_names(entry, "locations"))
        return {k: got[k] for k in ("context", "believed", "blocks", "intervene")}
    if kind == "act":
        return list(parse_action_reply(reply))
    if kind == "observe":
        events = parse_observation_reply(
            reply,
            actors=_names(entry, "actors"),
            objects=_names(entry, "objects"),
            locations=_names(entry, "locations"),
            t=0,
        )
        out = []
        for e in events:
            if e.kind == "observe":
                f = e.facts[0]
                out.append(f"{f.subject} -> {f.value} | {', '.join(e.witnesses) or 'nobody'}")
            else:
                out.append(f"{e.actor}: {e.verb}({', '.join(e.args)}){' failed' if e.failure else ''}")
        return out
    if kind == "skills":
        skills = read_summary(reply, entry["names"]["op"])
        return [[s.kind, [c.describe() for c in s.when], s.text] for s in skills]
    if kind == "direct":
        c = _candidates(entry)
        answer = parse_direct_reply(reply, actors=c.actors, objects=c.objects, locations=c.locations)
        return {**asdict(answer), "steps": list(answer.steps)}
    raise AssertionError(f"unknown kind {kind!r}")


CORPUS = _corpus()


def test_the_corpus_is_well_formed() -> None:
    assert len(CORPUS) >= 20
    for entry in CORPUS:
        assert entry["kind"] in KINDS and entry["label"] in ("readable", "unusable"), entry
        assert (entry["expected"] is None) == (entry["label"] == "unusable"), entry
        assert entry["model"] in ("qwen2.5-coder-0.5b-q4_k_m", "qwen2.5-coder-1.5b-q4_k_m") and entry["prompt"] in (
            "old",
            "new",
        )
    kinds = {e["kind"] for e in CORPUS}
    assert {"trigger", "reason"} <= kinds


@pytest.mark.parametrize("entry", [e for e in CORPUS if e["label"] == "readable"], ids=lambda e: e["kind"])
def test_every_readable_reply_parses_to_what_a_person_reads(entry: dict[str, Any]) -> None:
    assert read(entry) == entry["expected"]


@pytest.mark.parametrize("entry", [e for e in CORPUS if e["label"] == "unusable"], ids=lambda e: e["kind"])
def test_every_unusable_reply_is_refused_with_a_one_line_reason(entry: dict[str, Any]) -> None:
    with pytest.raises(ParseError) as exc:
        read(entry)
    assert exc.value.reason.strip() and "\n" not in exc.value.reason


@pytest.mark.parametrize(
    "entry", [e for e in CORPUS if e["kind"] == "trigger" and e["label"] == "readable"], ids=lambda e: e["reply"][:40]
)
def test_a_readable_operation_is_refused_by_the_runtime_only_for_a_slot_outside_the_candidates(
    entry: dict[str, Any],
) -> None:
    op = parse_operation(entry["reply"])
    try:
        check_operation(op, _candidates(entry))
    except SlotError as slot:
        with pytest.raises(ParseError) as exc:
            read_operation(entry["reply"], _candidates(entry))
        assert exc.value.reason == str(slot)  # sent back to the model naming the slot
    else:
        assert read_operation(entry["reply"], _candidates(entry)) == op

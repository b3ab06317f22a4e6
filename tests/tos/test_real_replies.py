"""Replies of a real small model (Qwen2.5-Coder-0.5B-Instruct, Q4_K_M, llama.cpp server, temperature 0), collected
from ``tos-active`` and ``tos-passive`` runs and labelled by hand: every reply a person can read unambiguously
must be read as exactly what the person reads (``expected``), and every other one refused with a ParseError.

One JSON object per line of ``data/real_replies.jsonl``: ``kind`` (which reader: ``action``, ``action_fb`` in
the false-belief phase, ``global_map``, ``local_map``, ``fog``, ``answer:<task>``), ``reply`` (verbatim),
``label`` (``readable`` or ``unusable``), ``expected`` (``null`` when unusable), ``model``, and, where a reader
needs them, ``names`` (the scene's objects and doors) and ``candidates`` (how many labels an uncertainty probe
offered). Maps are read without a name filter, so ``expected`` lists every item of the JSON as
``{name: [x, y, facing]}`` (facing a compass word or null); local maps are read as if the agent faced north
(``+y`` is north, ``+x`` east).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mindloop.errors import ParseError
from mindloop.systems.tos.replies import read_actions, read_answer, read_fog, read_map
from mindloop.systems.tos.world.geometry import DIRECTION_NAMES, NORTH

CORPUS = Path(__file__).parent / "data" / "real_replies.jsonl"
RECORDS = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def _read(record: dict[str, Any]) -> Any:
    kind, reply = record["kind"], record["reply"]
    if kind in ("action", "action_fb"):
        return read_actions(reply)
    if kind in ("global_map", "local_map"):
        cmap = read_map(reply, local_heading=NORTH if kind == "local_map" else None)
        return {
            name: [e.pos[0], e.pos[1], None if e.facing is None else DIRECTION_NAMES[e.facing]]
            for name, e in sorted(cmap.items())
        }
    if kind == "fog":
        return read_fog(reply, int(record["candidates"]))
    if kind.startswith("answer:"):
        return read_answer(kind.split(":", 1)[1], reply, names=record.get("names", []))
    raise AssertionError(f"unknown kind {kind!r}")


def test_the_corpus_is_well_formed() -> None:
    assert len(RECORDS) >= 40
    for r in RECORDS:
        assert set(r) >= {"kind", "reply", "label", "expected", "model"}
        assert r["label"] in ("readable", "unusable")
        assert (r["expected"] is None) == (r["label"] == "unusable")
    kinds = {r["kind"] for r in RECORDS}
    assert {"action", "global_map", "local_map", "fog"} <= kinds
    assert sum(k.startswith("answer:") for k in kinds) >= 5


@pytest.mark.parametrize("record", RECORDS, ids=[f"{i}-{r['kind']}-{r['label']}" for i, r in enumerate(RECORDS)])
def test_every_real_reply_is_read_as_a_person_reads_it(record: dict[str, Any]) -> None:
    if record["label"] == "readable":
        assert _read(record) == record["expected"]
    else:
        with pytest.raises(ParseError) as info:
            _read(record)
        assert info.value.reason and "\n" not in info.value.reason  # one line, sent back to the model

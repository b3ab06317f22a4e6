"""Skill collection: the deterministic rule miner recovers known rules; the shipped file is what mining gives."""

from __future__ import annotations

import random
from typing import Any

import pytest

from mindloop.systems.mindclaw import default_skills, load_skills
from mindloop.systems.mindclaw.agents import mine_default
from mindloop.systems.mindclaw.context import FEATURES
from mindloop.systems.mindclaw.evaluation import DecisionRecord
from mindloop.systems.mindclaw.mining import mine_skills, parse_summary
from mindloop.systems.mindclaw.skills import default_skills_path


def _defaults() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in FEATURES:
        out[f.name] = f.values[0] if f.kind == "cat" else (False if f.kind == "bool" else 0)
    return out


def _decisions(n: int = 400) -> list[DecisionRecord]:
    """Synthetic decisions with a known policy: reasoning_run exactly when a cue is new and quiet holds, noop else;
    the base policy wrongly reasons whenever someone speaks."""
    rng = random.Random(7)
    out = []
    for i in range(n):
        f = {
            **_defaults(),
            "cue_new": rng.random() < 0.3,
            "quiet": rng.random() < 0.5,
            "speech": rng.random() < 0.4,
            "n_events": rng.randrange(4),
        }
        gold = "reasoning_run" if f["cue_new"] and f["quiet"] else "noop"
        pred = "reasoning_run" if f["speech"] else gold
        out.append(DecisionRecord("s", i, 0, f, (gold, "none", "none", "none"), (pred, "none", "none", "none")))
    return out


def test_the_miner_recovers_a_known_rule_and_its_negatives() -> None:
    skills = mine_skills(_decisions())
    strong = {s.op: {(c.field, c.op, c.value) for c in s.when} for s in skills.skills if s.kind == "strong"}
    assert strong["reasoning_run"] == {("cue_new", "eq", True), ("quiet", "eq", True)}
    negatives = [s for s in skills.skills if s.kind == "negative" and s.op == "reasoning_run"]
    assert negatives  # the base policy's mistakes (reasoning on speech) were covered by a veto
    for s in negatives:  # ... that never rules out a correct reasoning_run
        assert all(not s.matches_features(d.features) for d in _decisions() if d.gold == "reasoning_run")
    assert all(s.precision is not None and s.precision >= 0.999 for s in skills.skills if s.kind != "preferred")
    assert mine_skills(_decisions()).to_yaml() == skills.to_yaml()  # deterministic


@pytest.mark.xdist_group("claw-train")  # one worker makes the train split's decisions, once
def test_the_shipped_skills_are_what_mining_the_train_split_gives() -> None:
    mined = mine_default()
    assert mined.to_yaml() == default_skills_path().read_text(encoding="utf-8")  # byte for byte
    shipped = load_skills(default_skills_path())
    assert [(s.id, s.op, s.kind, s.when, s.support, s.precision) for s in mined.skills] == [
        (s.id, s.op, s.kind, s.when, s.support, s.precision) for s in shipped.skills
    ]
    assert len(default_skills()) == len(shipped)


def test_summary_lines_are_parsed_strictly() -> None:
    reply = """Here are the patterns.
SKILL strong | when: next_write=none, cue_new=true, reasoned=false | text: Reason when a new cue appears.
SKILL negative | when: next_write!=none | text: Do not reason while writes are pending.
SKILL strong | when: mood=happy | text: made-up field
SKILL preferred | when: pending_writes>0 | text: counts compare
SKILL sometimes | when: quiet=true | text: unknown kind
"""
    skills, failures = parse_summary(reply, "reasoning_run")
    assert [(s.kind, [c.describe() for c in s.when]) for s in skills] == [
        ("strong", ["next_write=none", "cue_new=true", "reasoned=false"]),
        ("negative", ["next_write!=none"]),
        ("preferred", ["pending_writes>0"]),
    ]
    assert len(failures) == 2 and "unknown field 'mood'" in failures[0] and "not a SKILL line" in failures[1]


def test_a_model_summarises_skills_over_http_and_they_are_validated() -> None:
    import asyncio

    from mindloop.models import FakeChatServer, ModelOptions, load_model
    from mindloop.systems.mindclaw import summarise_skills

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        prompt = messages[-1]["content"]
        assert "correct" in prompt and "WRONG (predicted reasoning_run)" in prompt  # paired rollouts are shown
        if prompt.startswith("Operation: reasoning_run"):
            return (
                "SKILL strong | when: cue_new=true, quiet=true | text: Reason about a new cue once things are quiet.\n"
                "SKILL strong | when: speech=true | text: Reason whenever someone speaks.\n"
                "SKILL strong | when: cue_new=maybe | text: garbage\n"
            )
        return "SKILL negative | when: cue_new=true, quiet=true | text: Never stay silent then."

    decisions = _decisions()
    with FakeChatServer(reply=reply) as server:
        model = load_model("openai/fake", ModelOptions(base_url=server.base_url, cache="off", timeout_s=5))

        async def go() -> Any:
            try:
                return await summarise_skills(model, decisions)
            finally:
                await model.aclose()

        skills, failures = asyncio.run(go())
        assert server.requests == 2  # one call per operation that occurs in the decisions
    got = {(s.op, s.kind, s.text) for s in skills.skills}
    assert ("reasoning_run", "strong", "Reason about a new cue once things are quiet.") in got
    assert ("noop", "negative", "Never stay silent then.") in got
    assert not any("whenever someone speaks" in s.text for s in skills.skills)  # measured precision too low
    assert len(failures) == 1 and "cue_new takes true or false" in failures[0]

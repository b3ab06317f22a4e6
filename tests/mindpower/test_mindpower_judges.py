"""BPC (Fig. 21) and Robot-Centric (Fig. 19) judging: strict JSON, recorded failures, the report table."""

from __future__ import annotations

import asyncio

import pytest

from mindloop.errors import ModelError, ParseError
from mindloop.systems.mindpower.metrics import (
    BPC_PROMPT,
    ROBOT_CENTRIC_PROMPT,
    judge_bpc,
    judge_robot_centric,
    parse_bpc,
    parse_robot_centric,
    table2,
)

RC_OK = (
    '{"score": {"Perception Level": 1, "BDI Reasoning": 0, "Robot-Centric Evaluation": 1, '
    '"Effectiveness of Actions": 1}, "total_score": 3}'
)


def test_parse_bpc_accepts_the_object_alone_fenced_or_in_prose() -> None:
    assert parse_bpc('{"total_score": 9, "reasoning": "aligned"}') == (9, "aligned")
    assert parse_bpc('```json\n{"total_score": 0, "reasoning": ""}\n```') == (0, "")
    assert parse_bpc('Here you go: {"total_score": 9, "reasoning": "x"}') == (9, "x")
    assert parse_bpc('Verdict:\n```json\n{"total_score": 4, "reasoning": "a {brace}"}\n```\nDone.') == (4, "a {brace}")


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("I'd give it a 9/10.", "not one JSON object"),
        ('{"total_score": 9, "reasoning": "x"} or {"total_score": 8, "reasoning": "y"}', "2 different JSON objects"),
        ('{"total_score": 11, "reasoning": "x"}', "from 0 to 10"),
        ('{"total_score": 8.5, "reasoning": "x"}', "integer"),
        ('{"total_score": true, "reasoning": "x"}', "integer"),
        ('{"reasoning": "x"}', "no total_score"),
        ('{"total_score": 7}', "reasoning must be a string"),
        ("[7]", "not an object"),
    ],
)
def test_parse_bpc_rejects(reply: str, why: str) -> None:
    with pytest.raises(ParseError, match=why):
        parse_bpc(reply)


def test_parse_robot_centric() -> None:
    total, answers = parse_robot_centric(RC_OK)
    assert total == 3 and answers["BDI Reasoning"] == 0
    with pytest.raises(ParseError, match="not the sum"):
        parse_robot_centric(RC_OK.replace('"total_score": 3', '"total_score": 4'))
    with pytest.raises(ParseError, match="does not answer BDI Reasoning"):
        parse_robot_centric(RC_OK.replace('"BDI Reasoning": 0, ', ""))
    with pytest.raises(ParseError, match="from 0 to 1"):
        parse_robot_centric(RC_OK.replace('"BDI Reasoning": 0', '"BDI Reasoning": 2'))


def test_judges_through_a_model(fake_chat: type) -> None:
    def reply(prompt: str, messages: object) -> str:
        if prompt.startswith(BPC_PROMPT):
            assert "# Standard answer\n<Perception> gold" in prompt and "# Model answer\n<Perception> mine" in prompt
            return '{"total_score": 8, "reasoning": "minor deviations"}'
        assert prompt.startswith(ROBOT_CENTRIC_PROMPT) and "# Video clip (narrated)\nAlice walks in." in prompt
        return RC_OK

    judge = fake_chat(reply)
    bpc = asyncio.run(
        judge_bpc(judge, description="Alice walks in.", prediction="<Perception> mine", gold="<Perception> gold")
    )
    assert (bpc.score, bpc.maximum, bpc.error) == (8.0, 10.0, None)
    rc = asyncio.run(judge_robot_centric(judge, prediction="<Perception> mine", observation="Alice walks in."))
    assert (rc.score, rc.maximum, rc.details["answers"]["Perception Level"]) == (3.0, 4.0, 1)


def test_judge_failures_are_recorded_not_scored(fake_chat: type) -> None:
    chatty = fake_chat(lambda p, m: "I'd give it a 9/10.")
    bpc = asyncio.run(judge_bpc(chatty, description="d", prediction="p", gold="g"))
    assert bpc.score is None and bpc.error is not None and "unparseable BPC reply" in bpc.error
    assert bpc.reply == "I'd give it a 9/10."
    broken = fake_chat(lambda p, m: ModelError("server said 500", attempts=3))
    rc = asyncio.run(judge_robot_centric(broken, prediction="p", observation="o"))
    assert rc.score is None and rc.error is not None and "judge call failed" in rc.error


def test_robot_centric_with_frames(fake_chat: type) -> None:
    judge = fake_chat(lambda p, m: RC_OK)
    asyncio.run(judge_robot_centric(judge, prediction="p", frames=[b"png1", b"png2"]))
    parts = judge.prompts[0][0]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "image_url", "text"]


def test_table2_layout() -> None:
    rows = {
        "symbolic": {"bertscore": dict.fromkeys(("perception", "belief", "desire", "intention", "decision"), 100.0),
                     "st": dict.fromkeys(("perception", "belief", "desire", "intention", "decision"), 100.0),
                     "sr": 100.0, "ac": 100.0, "bpc": 10.0},
        "model": {"bertscore": None, "st": None, "sr": 11.75, "ac": 15.4},
    }  # fmt: skip
    lines = table2(rows).splitlines()
    assert lines[0].split(" | ")[1:3] == ["Perception B", "Perception S"]
    assert lines[0].endswith("Action SR | Action AC | BPC |")
    assert len(lines) == 4 and lines[2].count("100.00") == 12 and lines[2].endswith("10.00 |")
    assert lines[3] == "| model | " + " | ".join(["-"] * 10) + " | 11.75 | 15.40 | - |"

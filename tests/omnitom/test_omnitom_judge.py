"""The model judge (C.4): reply parsing, consistency checks, and Table 2 end to end with a scripted model."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from mindloop.errors import ModelError
from mindloop.models.base import Completion, GenerationConfig, Message, message_text
from mindloop.systems.omnitom.examples import TABLE2
from mindloop.systems.omnitom.judge import JudgeAligner, JudgeReplyError, check_judge_tables, parse_judge_reply
from mindloop.systems.omnitom.metrics import AlignmentTask, stage1_story_score
from mindloop.systems.omnitom.records import BeliefRecord


def _csv(rows: Sequence[tuple[str, str, int]]) -> str:
    return "\n".join(["Actor,Belief,MatchCount", *(f"{a},{b},{c}" for a, b, c in rows)])


TABLE2_REPLY = f"Prediction Table\n{_csv(TABLE2.predicted)}\n\nGround Truth Table\n{_csv(TABLE2.gold)}\n"


def task() -> AlignmentTask:
    def rows(t: Sequence[tuple[str, str, int]]) -> tuple[BeliefRecord, ...]:
        return tuple(BeliefRecord(actor=a, belief=b) for a, b, _ in t)

    return AlignmentTask(TABLE2.story, rows(TABLE2.predicted), rows(TABLE2.gold))


class ScriptedJudge:
    """A ChatModel that answers every call with one reply (or raises), recording the prompts."""

    def __init__(self, reply: str | Exception) -> None:
        self.reply = reply
        self.prompts: list[Sequence[Message]] = []

    @property
    def name(self) -> str:
        return "scripted/judge"

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        self.prompts.append(messages)
        if isinstance(self.reply, Exception):
            raise self.reply
        return Completion(text=self.reply, model=self.name)

    async def aclose(self) -> None:
        return None


def test_judge_reproduces_table2_end_to_end() -> None:
    model = ScriptedJudge("```\n" + TABLE2_REPLY + "```")
    (alignment,) = asyncio.run(JudgeAligner(model, protocol="mindloop").align([task()]))
    assert alignment.error is None and alignment.warnings == ()
    assert alignment.pred_counts == (1, 1, 1, 1, 1, 1) and alignment.gold_counts == (1, 1, 0, 2, 1, 1)
    score = stage1_story_score(task().predicted, task().gold, alignment)
    assert score.prf.f1 == pytest.approx(10 / 11)
    system, user = (message_text(m) for m in model.prompts[0])
    assert "Alignment example 1:" in system and "Xiao Hong needs the bigger office that Xiao Li occupies,2" in system
    assert user.startswith(f"Story Narrative: {TABLE2.story}") and "Ground Truth:\nActor,Belief\nworld," in user


def test_labels_decide_which_table_is_which() -> None:
    swapped = f"**Ground Truth Table:**\n{_csv(TABLE2.gold)}\n\n### Prediction\n{_csv(TABLE2.predicted)}"
    tables = parse_judge_reply(swapped)
    assert [c for *_, c in tables.gold] == [1, 1, 0, 2, 1, 1]


def test_commas_inside_unquoted_beliefs_are_kept() -> None:
    reply = "Prediction\nActor,Belief,MatchCount\nDad,Dad says, loudly, hi,1\n\n"
    reply += 'Ground Truth\nActor, Belief, MatchCount\nDad, "x, quoted", 0'
    assert parse_judge_reply(reply).gold == (("Dad", "x, quoted", 0),)
    assert parse_judge_reply(reply).predicted == (("Dad", "Dad says, loudly, hi", 1),)


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("I think they match.", "found 0"),
        (f"Prediction Table\n{_csv(TABLE2.predicted)}", "found 1"),
        (TABLE2_REPLY.replace("office,1\n", "office,one\n", 1), "is not an integer"),
        (TABLE2_REPLY.replace(_csv(TABLE2.gold), _csv(TABLE2.gold[:4])), "Ground Truth table has 4 rows for 6"),
    ],
)
def test_unusable_replies_fail_the_story(reply: str, reason: str) -> None:
    (alignment,) = asyncio.run(JudgeAligner(ScriptedJudge(reply), protocol="mindloop").align([task()]))
    assert alignment.error is not None and reason in alignment.error


def test_inconsistencies_are_repaired_with_warnings() -> None:
    t = task()
    pred = list(TABLE2.predicted)
    pred[2] = ("Xiao Hong", pred[2][1], 3)  # only 3 gold rows of Xiao Hong: fine; sums now differ
    gold = list(TABLE2.gold)
    bogus = AlignmentTask(t.story, (*t.predicted, BeliefRecord(actor="Xiao Li", belief="x")), t.gold)
    tables = parse_judge_reply(f"Prediction\n{_csv([*pred, ('Xiao Li', 'x', 1)])}\n\nGround Truth\n{_csv(gold)}")
    alignment = check_judge_tables(tables, bogus)
    assert alignment.pred_counts[-1] == 0  # Xiao Li has no gold group: a nonzero count cannot be right
    assert any("only 0 row(s)" in w for w in alignment.warnings)
    assert any("'Xiao Hong': predicted MatchCounts sum to 6, gold MatchCounts to 4" in w for w in alignment.warnings)
    with pytest.raises(JudgeReplyError, match="rewrote"):
        reworded = [(a, b.upper() + " indeed", c) for a, b, c in TABLE2.gold]
        check_judge_tables(parse_judge_reply(f"Prediction\n{_csv(pred)}\n\nGround Truth\n{_csv(reworded)}"), t)


def test_model_errors_and_empty_tables() -> None:
    (failed,) = asyncio.run(
        JudgeAligner(ScriptedJudge(ModelError("boom", model="m")), protocol="mindloop").align([task()])
    )
    assert failed.error is not None and "judge call failed: m: boom" in failed.error
    model = ScriptedJudge(TABLE2_REPLY)
    empty = AlignmentTask("s", (), task().gold)
    (al,) = asyncio.run(JudgeAligner(model, protocol="mindloop").align([empty]))
    assert al.gold_counts == (0,) * 6 and model.prompts == []  # nothing to match: no call

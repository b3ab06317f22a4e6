"""ask(): the bounded format retry, and the outcome it leaves on each call record."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from mindloop.errors import InvalidArgumentError, ModelTimeoutError, ParseError
from mindloop.models.base import Completion, GenerationConfig, Message, RecordingModel
from mindloop.models.replies import ask, reply_outcomes


class Replies:
    """Says its texts in turn (an exception instance is raised instead) and keeps every prompt it got."""

    name = "test/replies"

    def __init__(self, *texts: str | Exception) -> None:
        self.texts = list(texts)
        self.prompts: list[list[Message]] = []

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        self.prompts.append(list(messages))
        item = self.texts.pop(0)
        if isinstance(item, Exception):
            raise item
        return Completion(item)

    async def aclose(self) -> None:
        return None


def colour(text: str) -> str:
    word = text.strip().lower()
    if word not in {"red", "blue"}:
        raise ParseError(f"{word!r} is not red or blue", text=text)
    return word


PROMPT = [{"role": "user", "content": "Red or blue?"}]


def test_a_refused_reply_goes_back_with_the_reason_and_the_retry_is_recorded() -> None:
    inner = Replies("green", "Blue")
    model = RecordingModel(inner)
    value, completion, replies = asyncio.run(ask(model, PROMPT, colour))
    assert (value, completion.text, replies) == ("blue", "Blue", ("green", "Blue"))
    retry_prompt = inner.prompts[1]
    assert retry_prompt[:1] == PROMPT and retry_prompt[1] == {"role": "assistant", "content": "green"}
    assert retry_prompt[2]["role"] == "user" and "'green' is not red or blue" in retry_prompt[2]["content"]
    assert [(c.parsed, c.attempt) for c in model.calls] == [(False, 0), (True, 1)]
    assert model.calls[0].reject_reason == "'green' is not red or blue"
    assert reply_outcomes(model.calls) == {"parsed": 1, "rejected": 1, "no_reply": 0, "unread": 0, "retries": 1}


def test_retries_are_bounded_and_zero_means_one_call() -> None:
    model = RecordingModel(Replies("green", "yellow", "red"))
    with pytest.raises(ParseError, match="yellow") as refused:
        asyncio.run(ask(model, PROMPT, colour, retries=1))
    assert len(model.calls) == 2  # the third reply was never asked for
    assert refused.value.replies == ("green", "yellow")  # every refused reply comes back with the error

    model = RecordingModel(Replies("green", "red"))
    with pytest.raises(ParseError):
        asyncio.run(ask(model, PROMPT, colour, retries=0))
    assert reply_outcomes(model.calls)["rejected"] == 1 and len(model.calls) == 1

    with pytest.raises(InvalidArgumentError, match="format retries"):
        asyncio.run(ask(model, PROMPT, colour, retries=-1))


def test_a_model_error_is_not_a_format_retry() -> None:
    model = RecordingModel(Replies(ModelTimeoutError("slow"), "red"))
    with pytest.raises(ModelTimeoutError) as failed:
        asyncio.run(ask(model, PROMPT, colour, retries=3))
    assert reply_outcomes(model.calls) == {"parsed": 0, "rejected": 0, "no_reply": 1, "unread": 0, "retries": 0}
    assert failed.value.replies == ()

    model = RecordingModel(Replies("green", ModelTimeoutError("slow")))  # the retry's call fails
    with pytest.raises(ModelTimeoutError) as failed:
        asyncio.run(ask(model, PROMPT, colour, retries=3))
    assert failed.value.replies == ("green",)  # the reply before the failure comes back with it


def test_reply_outcomes_counts_by_role_and_reads_stored_dicts() -> None:
    calls = [
        {"role": "agent", "text": "a", "parsed": True},
        {"role": "judge", "text": "b", "parsed": False},
        {"role": "agent", "text": "c"},  # read by no parser
    ]
    assert reply_outcomes(calls)["unread"] == 1 and reply_outcomes(calls)["rejected"] == 0
    assert reply_outcomes(calls, role="judge")["rejected"] == 1
    assert reply_outcomes(calls, role=None)["parsed"] == 1

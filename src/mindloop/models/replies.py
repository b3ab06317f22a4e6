"""Ask a model and read its reply, with a bounded format retry, leaving the outcome on the call's record.

Every model-driven agent reads replies the same way: it calls :func:`ask` with the messages and a parser (a
function from the reply's text to a value that raises :class:`~mindloop.errors.ParseError` with a one-line reason
when it cannot read the reply). When the parser refuses a reply, the reply goes back to the model with the reason,
up to ``retries`` times (default 1): one formatting slip does not end a 250-step episode, and a model that cannot
follow the format still fails. Each call's :class:`~mindloop.models.base.CallRecord` says how its reply fared
(``parsed``: ``True`` or ``False``, ``reject_reason``, ``attempt``: 0 for the first call of a question, 1 for the
first retry), so summaries count parsed, rejected and retried replies from the ledger alone
(:func:`reply_outcomes`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.models.base import CallRecord, ChatModel, Completion, GenerationConfig, Message, RecordingModel

__all__ = ["DEFAULT_FORMAT_RETRIES", "ask", "reply_outcomes", "retry_message"]

T = TypeVar("T")

DEFAULT_FORMAT_RETRIES = 1
"""Format retries per question unless a run says otherwise (``--format-retries``)."""


def retry_message(reason: str) -> Message:
    """The user turn that sends a refused reply back: the parser's one-line reason and a request to answer again.

    >>> retry_message("no FINAL ANSWER line")["content"]
    'Your reply could not be read: no FINAL ANSWER line. Answer again, in the format asked for above.'
    """
    reason = reason.strip().rstrip(".")
    return {
        "role": "user",
        "content": f"Your reply could not be read: {reason}. Answer again, in the format asked for above.",
    }


def _reason(exc: ParseError) -> str:
    """The first line of a parse error's reason, without the reply text its message quotes."""
    return (exc.reason or str(exc)).strip().splitlines()[0]


async def _call(
    model: ChatModel, messages: Sequence[Message], config: GenerationConfig
) -> tuple[Completion, CallRecord | None]:
    if isinstance(model, RecordingModel):
        return await model.generate_recorded(messages, config)
    return await model.generate(messages, config), None


async def ask(
    model: ChatModel,
    messages: Sequence[Message],
    parse: Callable[[str], T],
    config: GenerationConfig | None = None,
    *,
    retries: int = DEFAULT_FORMAT_RETRIES,
) -> tuple[T, Completion]:
    """Call ``model`` and read its reply with ``parse``; on a :class:`~mindloop.errors.ParseError`, send the reply
    back with the reason and try again, at most ``retries`` times, then raise the last ``ParseError``.

    Returns the parsed value and the completion it came from. Model errors (timeouts, an unreachable endpoint)
    are raised as they are: a retry here is about the reply's format, never about the transport.

    >>> import asyncio
    >>> class Replies:  # a model that says these texts in turn
    ...     name = "scripted/list"
    ...     def __init__(self, *texts): self.texts = list(texts)
    ...     async def generate(self, messages, config=None): return Completion(self.texts.pop(0))
    ...     async def aclose(self): pass
    >>> def number(text):
    ...     if not text.strip().isdigit():
    ...         raise ParseError("not a number")
    ...     return int(text)
    >>> model = RecordingModel(Replies("seven", "7"))
    >>> asyncio.run(ask(model, [{"role": "user", "content": "A number?"}], number))[0]
    7
    >>> [(c.parsed, c.attempt, c.reject_reason) for c in model.calls]
    [(False, 0, 'not a number'), (True, 1, None)]
    """
    if retries < 0:
        raise InvalidArgumentError(f"format retries must be 0 or more, got {retries}")
    config = config or GenerationConfig()
    history = list(messages)
    for attempt in range(retries + 1):
        completion, record = await _call(model, history, config)
        if record is not None:
            record.attempt = attempt
        try:
            value = parse(completion.text)
        except ParseError as exc:
            if record is not None:
                record.parsed, record.reject_reason = False, _reason(exc)
            if attempt == retries:
                raise
            history += [{"role": "assistant", "content": completion.text}, retry_message(_reason(exc))]
            continue
        if record is not None:
            record.parsed = True
        return value, completion
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover


def reply_outcomes(calls: Iterable[CallRecord | Mapping[str, Any]], role: str | None = "agent") -> dict[str, int]:
    """How the replies of ``calls`` fared (only calls in ``role``; every call when ``None``): ``parsed``,
    ``rejected`` (the parser refused it), ``no_reply`` (the call failed), ``unread`` (no parser looked at it:
    a reply read without :func:`ask`), ``retries`` (calls that were format retries), and ``cut_at_limit`` (replies the
    server cut at the token limit, ``finish_reason`` ``length``, whatever became of them) when there were any.

    >>> reply_outcomes([{"text": "7", "parsed": True}, {"text": "x", "parsed": False, "finish_reason": "length"},
    ...                 {"error": "timeout"}])
    {'parsed': 1, 'rejected': 1, 'no_reply': 1, 'unread': 0, 'retries': 0, 'cut_at_limit': 1}
    """
    out = dict.fromkeys(("parsed", "rejected", "no_reply", "unread", "retries"), 0)
    cut = 0
    for call in calls:
        c = call.to_dict() if isinstance(call, CallRecord) else call
        if role is not None and (c.get("role") or "agent") != role:
            continue
        if c.get("error") is not None or c.get("text") is None:
            out["no_reply"] += 1
        elif c.get("parsed") is True:
            out["parsed"] += 1
        elif c.get("parsed") is False:
            out["rejected"] += 1
        else:
            out["unread"] += 1
        out["retries"] += int(c.get("attempt") or 0) > 0
        cut += c.get("error") is None and c.get("finish_reason") == "length"
    if cut:
        out["cut_at_limit"] = cut
    return out

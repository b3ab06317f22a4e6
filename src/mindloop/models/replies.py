"""Ask a model and read its reply, with a bounded format retry, leaving the outcome on the call's record.

Every model-driven agent reads replies the same way: it calls :func:`ask` with the messages and a parser (a
function from the reply's text to a value that raises :class:`~mindloop.errors.ParseError` with a one-line reason
when it cannot read the reply). When the parser refuses a reply, the reply goes back to the model with the reason,
up to ``retries`` times (default 1): one formatting slip does not end a 250-step episode, and a model that cannot
follow the format still fails. Each call's :class:`~mindloop.models.base.CallRecord` says how its reply fared
(``parsed``: ``True`` or ``False``, ``reject_reason``, ``attempt``: 0 for the first call of a question, 1 for the
first retry), so summaries count parsed, rejected and retried replies from the ledger alone
(:func:`reply_outcomes`).

The readers themselves belong to each system (a reply format is a paper's), but the pieces every reader needs are
here, once: taking markdown off a line (:func:`strip_markup`, :func:`strip_markdown`, :func:`strip_edges`), the
answer slot after a ``FINAL ANSWER`` cue (:func:`answer_slots`, :func:`answer_slot`), a choice's letters
(:func:`letters`) and the key two spellings of one label share (:func:`compact_key`).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

from mindloop.errors import InvalidArgumentError, MindloopError, ParseError
from mindloop.models.base import CallRecord, ChatModel, Completion, GenerationConfig, Message, RecordingModel

_T = TypeVar("_T")

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
) -> tuple[Completion, CallRecord]:
    """One call and its record: a recording model's own, else a record no ledger keeps (so :func:`ask` notes how
    every reply fared one way)."""
    if isinstance(model, RecordingModel):
        return await model.generate_recorded(messages, config)
    return await model.generate(messages, config), CallRecord("", [], {})


class Asked(NamedTuple, Generic[_T]):
    """What :func:`ask` hands back: the parsed value, the completion it came from, and the text of every reply
    the question got, in order (format retries' replies included; the last one is ``completion.text``)."""

    value: _T
    completion: Completion
    replies: tuple[str, ...]


async def ask(
    model: ChatModel,
    messages: Sequence[Message],
    parse: Callable[[str], _T],
    config: GenerationConfig | None = None,
    *,
    retries: int = DEFAULT_FORMAT_RETRIES,
) -> Asked[_T]:
    """Call ``model`` and read its reply with ``parse``; on a :class:`~mindloop.errors.ParseError`, send the reply
    back with the reason and try again, at most ``retries`` times, then raise the last ``ParseError``.

    Returns the parsed value, the completion it came from and every reply's text (:class:`Asked`). An error
    carries the replies received before it in its ``replies`` (the last ``ParseError``: every refused reply; a
    model error on a retry: the replies before it). Model errors (timeouts, an unreachable endpoint) are raised
    as they are: a retry here is about the reply's format, never about the transport.

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
    >>> asked = asyncio.run(ask(model, [{"role": "user", "content": "A number?"}], number))
    >>> asked.value, asked.replies
    (7, ('seven', '7'))
    >>> [(c.parsed, c.attempt, c.reject_reason) for c in model.calls]
    [(False, 0, 'not a number'), (True, 1, None)]
    >>> try:
    ...     asyncio.run(ask(RecordingModel(Replies("seven", "eight")), [], number))
    ... except ParseError as exc:
    ...     print(exc.replies)
    ('seven', 'eight')
    """
    if retries < 0:
        raise InvalidArgumentError(f"format retries must be 0 or more, got {retries}")
    config = config or GenerationConfig()
    history = list(messages)
    texts: list[str] = []
    try:
        for attempt in range(retries + 1):
            completion, record = await _call(model, history, config)
            texts.append(completion.text)
            record.attempt = attempt
            try:
                value = parse(completion.text)
            except ParseError as exc:
                record.parsed, record.reject_reason = False, _reason(exc)
                if attempt == retries:
                    raise
                history += [{"role": "assistant", "content": completion.text}, retry_message(_reason(exc))]
                continue
            record.parsed = True
            return Asked(value, completion, tuple(texts))
    except MindloopError as exc:
        exc.replies = tuple(texts)
        raise
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


# ---- reading replies: the pieces every system's readers share ------------------------------------------------
_LEAD = re.compile(r"^(?:#{1,6}\s*|>\s*|[-*+\u2022]\s+|\(?\d{1,2}[.)]\s+)+")
_MARKDOWN = re.compile(r"\*\*|__|`|^\s*#+\s*|^\s*>\s*", re.MULTILINE)
_EDGE = "*_`#>~ \t"


def strip_markup(line: str) -> str:
    """``line`` without markdown residue: leading headers, quotes, bullets and numbering; ``**``, ``*``, ``__``
    and backticks anywhere.

    >>> strip_markup("### 1. **Action:** `walk(fridge)`")
    'Action: walk(fridge)'
    """
    s = line.strip()
    s = s.replace("**", "").replace("__", "").replace("`", "").replace("*", "")
    s = _LEAD.sub("", s.strip())
    return s.strip()


def strip_markdown(text: str) -> str:
    """``text`` (any number of lines) without bold (``**``, ``__``), code quotes, and the header and quote marks
    that start a line; single ``*`` and list markers stay (they may be the answer's own text).

    >>> strip_markdown("## Answer\\n> The answer is **B**.")
    'Answer\\nThe answer is B.'
    """
    return _MARKDOWN.sub("", text)


def strip_edges(line: str) -> str:
    """One line without markdown residue, quotes or a final period around it (repeated until nothing changes).

    >>> strip_edges('** "front, near." **')
    'front, near'
    """
    prev = None
    while prev != line:
        prev = line
        line = line.strip().strip(_EDGE).strip("\"'")
        if line.endswith(".") and not line.endswith("..."):
            line = line[:-1]
    return line


def slot_text(raw: str) -> str:
    """The text of an answer slot with markdown residue around it removed: a code fence around the whole slot,
    and on each line what :func:`strip_edges` takes off; empty lines dropped (``** front, near.`` -> ``front,
    near``)."""
    text = re.sub(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n?```\s*$", r"\1", raw.strip(), flags=re.DOTALL)
    lines = [strip_edges(ln) for ln in text.splitlines()]
    return "\n".join(ln for ln in lines if ln)


_CUE = re.compile(r"final[ \t_-]*answer", re.IGNORECASE)
THINK_LINE = re.compile(r"(?im)^[\s*_#>`]*think[\s*_`]*(?::|\*\*|$)")
"""A line that opens a ``THINK`` part (``THINK:``, ``**Think**``, ``### THINK``): it ends an answer slot."""
_AFTER_CUE = re.compile(r"[*_` \t]*(?:[:：]|-(?=\s)|–|—|\bis\b)?[*_` \t]*:?[*_` \t]*", re.IGNORECASE)


def _cue_spans(reply: str) -> list[tuple[int, int]]:
    """Where each ``FINAL ANSWER`` cue starts and where its answer starts.

    A cue counts when a colon, dash or ``is`` follows it, or when it stands at the start of a line (after
    markdown such as ``###`` or ``**``); ``... before the final answer, ...`` in prose is not a cue.
    """
    spans = []
    for m in _CUE.finditer(reply):
        after = _AFTER_CUE.match(reply, m.end())
        end = after.end() if after else m.end()
        tail = reply[m.end() : end]
        line_start = reply.rfind("\n", 0, m.start()) + 1
        at_line_start = reply[line_start : m.start()].strip(_EDGE) == ""
        marked = bool(re.search(r"[:：\-–—]|\bis\b", tail, flags=re.IGNORECASE))
        if marked or at_line_start:
            spans.append((m.start(), end))
    return spans


def answer_slots(reply: str) -> list[str] | None:
    """The text after each ``FINAL ANSWER`` cue (up to the next cue or a ``THINK`` line), cleaned of markdown
    (:func:`slot_text`); ``None`` when the reply has no cue at all.

    >>> answer_slots("FINAL ANSWER: A\\nTHINK: no, wait\\n**Final answer:** B.")
    ['A', 'B']
    """
    spans = _cue_spans(reply)
    if not spans:
        return None
    out = []
    for i, (_, start) in enumerate(spans):
        stop = spans[i + 1][0] if i + 1 < len(spans) else len(reply)
        chunk = reply[start:stop]
        think = THINK_LINE.search(chunk)
        if think is not None and think.start() > 0:
            chunk = chunk[: think.start()]
        out.append(slot_text(chunk))
    return out


def answer_slot(reply: str) -> str | None:
    """The last non-empty answer slot of a reply (``None``: no cue, or only empty slots).

    >>> answer_slot("THINK: easy\\n### FINAL ANSWER\\n** front, near")
    'front, near'
    >>> answer_slot("I think so.") is None
    True
    """
    slots = [s for s in answer_slots(reply) or [] if s]
    return slots[-1] if slots else None


def letters(n: int) -> str:
    """The letters of ``n`` choices, ``A`` onwards (at most 26).

    >>> letters(4)
    'ABCD'
    """
    if n > len(string.ascii_uppercase):
        raise InvalidArgumentError(f"at most 26 choices are supported, got {n}")
    return string.ascii_uppercase[:n]


def compact_key(text: str) -> str:
    """Lower-case letters and digits only: the form two spellings of one label share.

    >>> compact_key("False-Belief"), compact_key("false_belief")
    ('falsebelief', 'falsebelief')
    """
    return re.sub(r"[^0-9a-z]", "", text.lower())

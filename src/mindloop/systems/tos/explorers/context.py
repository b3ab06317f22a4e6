"""How much exploration history a model is sent, and the check that a prompt fits the model's context.

The paper's agent sees its whole exploration history on every call, so ``tos-active`` prompts grow with every
step (about 6,000 tokens at 20 steps with the 3 probes). :class:`HistoryPolicy` is the benchmark's documented
policy for models whose context is shorter:

* ``turns`` (``--opt history_turns=K``): send only the last ``K`` exploration turns (one turn is the model's
  action reply and the environment's answer), always with the system prompt and the opening message, which
  then ends with a line saying how many earlier turns are not shown. ``None`` (the default) sends them all: the
  paper's protocol. Passive comprehension keeps the last ``K`` entries of the proxy's exploration log the same
  way. Any cut is recorded in the sample's output (``history``) and named in the run summary.
* ``context_tokens`` (``--opt context_tokens=N``): the model's context length, when known. A prompt estimated
  longer than it stops the sample *before* the call with :class:`PromptTooLongError`, which names the estimate,
  the limit and the option that helps. Nothing in :mod:`mindloop.models` reports a served model's context length
  today, so the number comes from the user (a llama.cpp server's ``--n_ctx``, a vLLM ``--max-model-len``), and
  prompts are counted with :func:`mindloop.models.tokens.count_tokens` (:data:`~mindloop.models.tokens.TOKENIZER_NAME`,
  not the served model's tokenizer: an estimate), plus 4 tokens a message for the chat template; images are not
  counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from mindloop.errors import InvalidArgumentError, MindloopError
from mindloop.models.base import Message, message, message_text
from mindloop.models.tokens import TOKENIZER_NAME, count_tokens

MESSAGE_OVERHEAD = 4
"""Tokens added per message for the chat template's role markers (ChatML spends about 4)."""


TOKENIZER_SLACK = 1.05
"""How much longer than :func:`estimate_tokens` a prompt may be in the served model's tokens. Measured on 86 real
Theory of Space prompts (Qwen2.5-Coder-0.5B through llama.cpp, 2,000 to 5,900 tokens): the server counted 0.977 to
1.027 times the estimate."""


class PromptTooLongError(MindloopError):
    """A prompt is estimated longer than the model's context (``--opt context_tokens``); raised before the call."""


def estimate_tokens(messages: Sequence[Message]) -> int:
    """The estimated prompt length of ``messages``: their text under the packaged counter, plus
    :data:`MESSAGE_OVERHEAD` per message (image parts are not counted)."""
    return sum(count_tokens(message_text(m)) + MESSAGE_OVERHEAD for m in messages)


@dataclass
class HistoryRecord:
    """What a policy did over one sample: calls sent with earlier turns left out, the most turns left out of one
    call, and the longest prompt sent (estimated tokens)."""

    cut_calls: int = 0
    most_dropped: int = 0
    longest_prompt: int = 0

    def to_dict(self, policy: HistoryPolicy) -> dict[str, int | str | None]:
        """The sample's ``history`` output."""
        return {
            "turns": "all" if policy.turns is None else policy.turns,
            "cut_calls": self.cut_calls,
            "most_dropped_turns": self.most_dropped,
            "longest_prompt_tokens": self.longest_prompt,
            "context_tokens": policy.context_tokens,
            "tokenizer": TOKENIZER_NAME,
        }


@dataclass
class HistoryPolicy:
    """Keep the last ``turns`` exploration turns (``None``: all, the paper's protocol) and refuse prompts longer
    than ``context_tokens`` (``None``: unknown, no check); ``record`` collects what was done."""

    turns: int | None = None
    context_tokens: int | None = None
    record: HistoryRecord = field(default_factory=HistoryRecord)

    def __post_init__(self) -> None:
        if self.turns is not None and self.turns < 0:
            raise InvalidArgumentError(f"history_turns must be 0 or more, got {self.turns}")
        if self.context_tokens is not None and self.context_tokens < 1:
            raise InvalidArgumentError(f"context_tokens must be at least 1, got {self.context_tokens}")

    def cut(self, history: Sequence[Message], *, head: int = 2) -> list[Message]:
        """``history`` (``head`` opening messages, then assistant/user pairs) with only the last ``turns`` pairs;
        the last opening message then says how many earlier turns are left out.

        >>> h = [message("system", "s"), message("user", "go")] + [message(r, str(i)) for i in range(3)
        ...      for r in ("assistant", "user")]
        >>> [message_text(m) for m in HistoryPolicy(turns=1).cut(h)]
        ['s', 'go\\n\\n[The first 2 exploration turns are not shown.]', '2', '2']
        """
        body = list(history[head:])
        dropped = self._drop(len(body) // 2)
        if not dropped:
            return list(history)
        opening = [*history[:head]]
        last = opening[-1]
        note = (
            "\n\n[The first exploration turn is not shown.]"
            if dropped == 1
            else f"\n\n[The first {dropped} exploration turns are not shown.]"
        )
        content = last["content"]
        if isinstance(content, str):
            opening[-1] = message(str(last["role"]), content + note)
        else:
            opening[-1] = {**last, "content": [*content, {"type": "text", "text": note.strip()}]}
        kept = body[len(body) - 2 * self.turns :] if self.turns else []
        return opening + kept

    def cut_log(self, lines: Sequence[str]) -> tuple[list[tuple[int, str]], int]:
        """The last ``turns`` entries of an exploration log with their 1-based numbers, and how many were left
        out (passive comprehension)."""
        dropped = self._drop(len(lines))
        return list(enumerate(lines, 1))[dropped:], dropped

    def _drop(self, n_turns: int) -> int:
        """How many of ``n_turns`` turns (or log entries) a call leaves out, counted in :attr:`record`."""
        if self.turns is None or n_turns <= self.turns:
            return 0
        dropped = n_turns - self.turns
        self.record.cut_calls += 1
        self.record.most_dropped = max(self.record.most_dropped, dropped)
        return dropped

    def check(self, messages: Sequence[Message], what: str, completion_tokens: int | None = None) -> None:
        """Raise :class:`PromptTooLongError` when ``messages`` may not fit ``context_tokens`` with the
        ``completion_tokens`` the call asks for: the estimate, raised by :data:`TOKENIZER_SLACK` for the served
        model's own tokenizer, plus the completion must fit."""
        n = estimate_tokens(messages)
        self.record.longest_prompt = max(self.record.longest_prompt, n)
        if self.context_tokens is None:
            return
        room = self.context_tokens - (completion_tokens or 0)
        if math.ceil(n * TOKENIZER_SLACK) > room:
            answer = f" and the {completion_tokens} completion tokens asked for" if completion_tokens else ""
            raise PromptTooLongError(
                f"the prompt of {what} is about {n} tokens ({TOKENIZER_NAME}); with {TOKENIZER_SLACK - 1:.0%} more "
                f"for the served model's tokenizer{answer} it may not fit the model's context "
                f"(--opt context_tokens={self.context_tokens}); send fewer exploration turns with "
                "--opt history_turns=K"
            )

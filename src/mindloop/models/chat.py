"""The chat protocol's plain types: a message, the sampling parameters of a call, a reply, and the protocol every
backend speaks. They sit below :mod:`~mindloop.models.base` (which re-exports them) so the response cache and
the backends use them without importing the module that loads the backends and wraps them in the cache.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from mindloop.errors import InvalidArgumentError

Message = dict[str, Any]
"""One chat message in the OpenAI format: ``{"role": "user", "content": "..." | [content parts]}``."""

CacheMode = Literal["auto", "on", "off"]


@dataclass(frozen=True)
class GenerationConfig:
    """Sampling parameters of one call; all of them are part of the cache key."""

    temperature: float = 0.0
    max_tokens: int | None = 1024
    top_p: float | None = None
    stop: tuple[str, ...] = ()
    seed: int | None = None

    def __post_init__(self) -> None:
        check_number("temperature", self.temperature, low=0.0)
        if self.max_tokens is not None:
            check_whole("max_tokens", self.max_tokens, low=1)
        if self.top_p is not None:
            check_number("top_p", self.top_p, low=0.0, high=1.0)
        if isinstance(self.stop, str) or not isinstance(self.stop, tuple | list):
            raise InvalidArgumentError(f"stop must be a tuple of strings, got {self.stop!r:.60}")
        if not all(isinstance(x, str) for x in self.stop):
            raise InvalidArgumentError(f"stop must hold only strings, got {self.stop!r:.60}")
        object.__setattr__(self, "stop", tuple(self.stop))
        if self.seed is not None:
            check_whole("seed", self.seed)

    def params(self) -> dict[str, Any]:
        """The parameters as a JSON-ready dict, leaving out unset ones (the request body and the cache key)."""
        given = asdict(self) | {"stop": list(self.stop) or None}
        return {key: value for key, value in given.items() if value is not None}

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> GenerationConfig:
        """The inverse of :meth:`params` (how a resumed run gets back its stored sampling settings).

        >>> config = GenerationConfig(0.7, max_tokens=None, stop=("\\n",), seed=3)
        >>> GenerationConfig.from_params(config.params()) == config
        True
        """
        return cls(
            temperature=params.get("temperature", 0.0),
            max_tokens=params.get("max_tokens"),
            top_p=params.get("top_p"),
            stop=tuple(params.get("stop", ())),
            seed=params.get("seed"),
        )


def check_number(name: str, value: Any, *, low: float | None = None, high: float | None = None) -> float:
    """``value`` when it is a finite real number within ``[low, high]``; else an :class:`InvalidArgumentError`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgumentError(f"{name} must be a number, got {type(value).__name__} {value!r:.40}")
    if not math.isfinite(value):
        raise InvalidArgumentError(f"{name} must be a finite number, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        span = f"between {low:g} and {high:g}" if low is not None and high is not None else f"at least {low:g}"
        raise InvalidArgumentError(f"{name} must be {span}, got {value!r}")
    return float(value)


def check_whole(name: str, value: Any, *, low: int | None = None) -> int:
    """``value`` when it is an ``int`` (not a bool) of at least ``low``; else an :class:`InvalidArgumentError`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(f"{name} must be a whole number, got {type(value).__name__} {value!r:.40}")
    if low is not None and value < low:
        raise InvalidArgumentError(f"{name} must be at least {low}, got {value}")
    return value


_SURROGATES = re.compile("[\ud800-\udfff]")


def storable_text(text: str) -> tuple[str, int]:
    """``text`` made storable as UTF-8 (each lone surrogate, which no UTF-8 file or SQLite text can hold, replaced by
    U+FFFD) and how many code points were replaced.

    >>> storable_text("x \\ud800 y")
    ('x \\ufffd y', 1)
    """
    try:
        text.encode("utf-8")  # the common case, and far cheaper than the scan: only a lone surrogate fails here
    except UnicodeEncodeError:
        return _SURROGATES.subn("\ufffd", text)
    return text, 0


@dataclass(frozen=True)
class Completion:
    """A model's reply: its text, token usage, wall-clock latency and whether it came from the cache.

    ``replaced`` counts the code points of the server's text that could not be stored (lone surrogates) and were
    replaced by U+FFFD at the backend's boundary; ``finish_reason`` is the server's (``stop``, ``length``: cut at
    ``max_tokens``), ``None`` when it sent none."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    model: str = ""
    cached: bool = False
    finish_reason: str | None = None
    replaced: int = 0


@runtime_checkable
class ChatModel(Protocol):
    """Anything that answers chat messages asynchronously.

    ``name`` is the full model string (``openai/gpt-4o-mini``). ``generate`` raises
    :class:`~mindloop.errors.ModelError` (or a subclass) when the call fails for good.
    """

    @property
    def name(self) -> str: ...

    async def generate(self, messages: Sequence[Message], config: GenerationConfig = ...) -> Completion: ...

    async def aclose(self) -> None: ...

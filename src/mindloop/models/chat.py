"""The chat protocol's plain types: a message, the sampling parameters of a call, a reply, and the protocol every
backend speaks. They sit below :mod:`~mindloop.models.base` (which re-exports them) so the response cache and
the backends use them without importing the module that loads the backends and wraps them in the cache.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = ["CacheMode", "ChatModel", "Completion", "GenerationConfig", "Message"]

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

    def params(self) -> dict[str, Any]:
        """The parameters as a JSON-ready dict, leaving out unset ones (the request body and the cache key)."""
        out: dict[str, Any] = {"temperature": self.temperature}
        if self.max_tokens is not None:
            out["max_tokens"] = self.max_tokens
        if self.top_p is not None:
            out["top_p"] = self.top_p
        if self.stop:
            out["stop"] = list(self.stop)
        if self.seed is not None:
            out["seed"] = self.seed
        return out

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


@dataclass(frozen=True)
class Completion:
    """A model's reply: its text, token usage, wall-clock latency and whether it came from the cache."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    model: str = ""
    cached: bool = False
    finish_reason: str | None = None


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

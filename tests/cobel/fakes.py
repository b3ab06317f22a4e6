"""A tiny scripted chat model for the model-driven agent tests: it answers each CoBel prompt by its kind."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mindloop.models.base import Completion, GenerationConfig, Message, message_text


def prompt_kind(text: str) -> str:
    """Which of the paper's prompts ``text`` is (by a phrase only that prompt has)."""
    marks = {
        "write a short message to": "coela-com",
        "help me choose the best available action": "coela-plan",
        "You are the meta-plan designer": "capo-draft",
        "Evaluate the meta-plan from my point of view": "capo-feedback",
        "Refine the meta-plan with their feedback": "capo-refine",
        "Following the meta-plan and adapting it": "capo-plan",
        "keeping private and shared knowledge apart": "words-first",
        "plain natural-language sentences what": "words-zero",
        "top three candidate plans": "fig10",
        "generate the best plan I should execute": "fig15",
        "generate the best plan I am most likely": "fig11",
        "potential miscoordination": "fig12",
        "generate a concise and clear message": "fig13",
        "select the best available next action": "fig14",
        "what $AGENT_NAME$ believes about": "fig8",
        "believes about what": "fig8",
        "zero-order belief about collaborator": "fig9",
        "You are bob": "fig6",
        "refine the belief rules": "fig5-refine",
        "constructing beliefs rules": "fig5-init",
    }
    for mark, kind in marks.items():
        if mark in text:
            return kind
    return "unknown"


@dataclass
class FakeModel:
    """Answers by prompt kind with ``replies[kind](prompt)``; records every prompt it saw.

    The kind is the first message's (a format retry appends the refused reply and the reason after it);
    ``retries`` counts the calls that were format retries."""

    replies: dict[str, Callable[[str], str]]
    name: str = "fake/cobel"
    seen: list[tuple[str, str]] = field(default_factory=list)
    retries: int = 0

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        text = message_text(messages[0])
        kind = prompt_kind(text)
        self.seen.append((kind, text))
        self.retries += len(messages) > 1
        return Completion(self.replies[kind](text), model=self.name)

    async def aclose(self) -> None:
        return None


def sensible_replies(talk: bool = False) -> dict[str, Callable[[str], str]]:
    """Well-formed replies that let a C-WAH episode run: take the first listed action, never talk (unless asked)."""
    return {
        "fig10": lambda p: (
            "reasoning: unexplored rooms\nplans:\nplan1: explore <kitchen>(2000)\nplan2: explore "
            "<bedroom>(3000)\nplan3: explore <bathroom>(4000)"
        ),
        "fig11": lambda p: "reasoning: the living room is near\nplan: explore <livingroom>(1000)",
        "fig15": lambda p: "reasoning: avoid Bob\nplan: explore <bathroom>(4000)",
        "fig12": (
            lambda p: (
                "reasons: Bob may explore my room\nanswer: Yes\nmisaligned information: I know "
                "<livingroom>(1000) is explored all"
            )
        )
        if talk
        else (lambda p: "reasons: none\nanswer: No\nmisaligned information: None"),
        "fig13": lambda p: (
            "Message: Hi Bob, I've explored all of <livingroom>(1000). My plan: explore <kitchen>(2000)."
        ),
        "fig14": lambda p: "reasons: cheapest\nanswer: A",
        "fig9": lambda p: (
            "Extracted Information: a room\nZero order beliefs:\nAlice BELIEVE <livingroom>(1000) "
            "EXPLORED all\nthis line is not SBL"
        ),
        "fig8": lambda p: (
            "Extracted Information: x\nFirst order beliefs:\nAlice BELIEVE Bob BELIEVE "
            "<livingroom>(1000) EXPLORED all\nBob's plan: explore <kitchen>(2000)"
        ),
    }

"""Collaborative belief-rule construction (section 3.1, Fig. 5/6): Alice proposes, Bob reviews, Alice revises.

Without a model the symbolic default is returned: the paper's Fig. 7 rules for TDW-MAT, our rules in its style
for C-WAH. With a ``proposer`` model, Alice's prompts (Fig. 5) produce the rules; Bob is the ``reviewer`` model
with Fig. 6's prompt, or, without one, :func:`review_rules` — a symbolic Bob that checks what the paper asks Bob
to check: malformed lines, missing zero- or first-order rules, missing key beliefs (the agent's position), and
zero-order rules without a first-order counterpart. Rounds continue until Bob is satisfied or ``max_rounds``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from mindloop.beliefs.views.sbl import CWAH_RULES, FIG7_RULES, SBL_DEFINITION, RuleSet, SblIssue, parse_rules
from mindloop.errors import InvalidArgumentError
from mindloop.models.base import ChatModel, GenerationConfig, message
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES, ask
from mindloop.systems.cobel import prompts as tpl
from mindloop.systems.cobel.replies import read_review, read_rules

TASK_DESCRIPTIONS = tpl.TASK_DESCRIPTIONS
"""Task descriptions (``$TASK_DESCRIPTION$``) for the two worlds (package data, ``data/prompts.yaml``)."""


@dataclass(frozen=True)
class Review:
    """Bob's verdict on a proposal: satisfied or not, and suggestions for Alice."""

    satisfied: bool
    suggestions: tuple[str, ...]


@dataclass
class RuleConstruction:
    """The consensus rules, how many rounds it took, whether Bob was satisfied, and the transcript."""

    rules: RuleSet
    rounds: int
    satisfied: bool
    issues: tuple[SblIssue, ...] = ()
    transcript: list[tuple[str, str]] = field(default_factory=list)


def review_rules(
    rules: RuleSet, issues: Iterable[SblIssue] = (), required: Iterable[str] = ("AT", "HOLD", "IN")
) -> Review:
    """The symbolic Bob: formatting errors, missing orders, missing key relations, zero-order rules with no
    first-order counterpart."""
    out: list[str] = [f"Fix the format of line {i.line}: {i.reason} ({i.text!r})" for i in issues]
    if not rules.zero_order():
        out.append("Add zero-order belief rules ('?agent BELIEVE ...').")
    if not rules.first_order():
        out.append("Add first-order belief rules ('?agentA BELIEVE ?agentB BELIEVE ...').")
    have = rules.relations()
    for rel in required:
        if rel not in have:
            out.append(f"Missing key beliefs: add rules with the relation {rel} (e.g. the agent's position for AT).")
    first = {(r.statement.subject, r.relation, r.statement.value) for r in rules.first_order()}
    for r in rules.zero_order():
        if (r.statement.subject, r.relation, r.statement.value) not in first:
            out.append(f"Add the first-order counterpart of '{r}'.")
    return Review(not out, tuple(out))


def _default_rules(world: str) -> RuleSet:
    """The symbolic default rules of ``world`` (``tdw-mat``: Fig. 7; ``cwah``: ours in its style)."""
    rules = {"tdw-mat": FIG7_RULES, "cwah": CWAH_RULES}.get(world)
    if rules is None:
        raise InvalidArgumentError(f"unknown transport world {world!r} (known: cwah, tdw-mat)")
    return rules


def _rules_of(reply: str) -> tuple[str, RuleSet, tuple[SblIssue, ...]]:
    """Alice's reply, the rules it proposes and its malformed lines (a reply without both rule sections is
    refused with :class:`~mindloop.errors.ParseError`)."""
    got = read_rules(reply)
    text = f"zero-order belief rules:\n{got.zero}\nfirst-order belief rules:\n{got.first}\n"
    rules, issues = parse_rules(text, strict=False)
    return reply, rules, issues


async def construct_rules(
    world: str,
    *,
    proposer: ChatModel | None = None,
    reviewer: ChatModel | None = None,
    max_rounds: int = 3,
    config: GenerationConfig | None = None,
    task_description: str | None = None,
    format_retries: int = DEFAULT_FORMAT_RETRIES,
) -> RuleConstruction:
    """Propose-and-revise the belief rules of ``world``; the symbolic default when no ``proposer`` is given.

    Each reply is read through :func:`mindloop.models.replies.ask`: one the reader refuses goes back to its model
    with the reason, up to ``format_retries`` times, before the :class:`~mindloop.errors.ParseError` is raised.
    """
    if max_rounds < 1:
        raise InvalidArgumentError(f"max_rounds must be at least 1, got {max_rounds}")
    if proposer is None:
        return RuleConstruction(_default_rules(world), 0, True)
    task = task_description or TASK_DESCRIPTIONS.get(world)
    if task is None:
        raise InvalidArgumentError(f"unknown transport world {world!r} (known: cwah, tdw-mat)")
    config = config or GenerationConfig(temperature=0.7, top_p=1.0, max_tokens=512)
    values = {"BELIEF_LANGUAGE": SBL_DEFINITION, "TASK_DESCRIPTION": task}
    transcript: list[tuple[str, str]] = []
    prompt = tpl.fill(tpl.RULES_INIT, values)
    rules = RuleSet(())
    issues: tuple[SblIssue, ...] = ()
    review = Review(False, ())
    for rnd in range(1, max_rounds + 1):
        (reply, rules, issues), _, _ = await ask(
            proposer, [message("user", prompt)], _rules_of, config, retries=format_retries
        )
        transcript.append(("Alice", reply))
        if reviewer is None:
            review = review_rules(rules, issues)
            transcript.append(("Bob (symbolic)", "\n".join(review.suggestions) or "Satisfied: yes"))
        else:
            bob = tpl.fill(tpl.RULES_DISCUSS, {**values, "ALICE_CONTENT": reply})
            (satisfied, suggestions), answer, _ = await ask(
                reviewer, [message("user", bob)], read_review, config, retries=format_retries
            )
            transcript.append(("Bob", answer.text))
            review = Review(satisfied, (suggestions,) if suggestions else ())
        if review.satisfied:
            return RuleConstruction(rules, rnd, True, issues, transcript)
        prompt = tpl.fill(
            tpl.RULES_REFINE, {**values, "PREVIOUS_CONTENT": reply, "SUGGESTIONS": "\n".join(review.suggestions)}
        )
    return RuleConstruction(rules, max_rounds, False, issues, transcript)

"""The model-driven CoBel agent: the paper's prompts (Fig. 8–15) around the same belief world and executor.

Perception updates beliefs symbolically, as in the symbolic agent. What a model decides:

* after new messages, the zero- and first-order belief update (Fig. 9, Fig. 8): SBL lines read with
  :func:`~mindloop.beliefs.views.sbl.parse_lenient` and written to the store as testimony, plus the partner's plan;
* at each new subplan: each partner's top three plans (Fig. 10), my plan (Fig. 11), whether the miscoordination
  matters (Fig. 12) and, if so, one message (Fig. 13);
* each next action from the list of available actions, or ``SUBPLAN DONE`` (Fig. 14), and a new plan that avoids
  the partner's (Fig. 15).

Every call goes through :func:`mindloop.models.replies.ask` with a reader of :mod:`~mindloop.systems.cobel.replies`
(markdown, case, ``Plan 1 -``, ``**No**``, an action named with extra words): a reply it refuses (a missing
section, an action not in the list, a plan with no usable step, an ambiguous answer) goes back to the model with
the one-line reason, up to ``format_retries`` times, and each call record says how its reply fared. A reply still
refused after the retries raises :class:`~mindloop.errors.ParseError`, which ends the episode as a recorded
failure. Malformed SBL lines inside an otherwise well-formed reply are skipped and kept in
:attr:`LlmCobelAgent.issues`.

The paper's ablations (Table 3) are options of the same agent: ``sbr=False`` (``cobel-llm-no-sbr``) keeps beliefs
in free natural language instead of the Symbolic Belief Representation — the prompts show what I know as
sentences and the belief updates after messages ask for sentences, kept as notes, instead of SBL lines written to
the store; ``bbc=False`` (``cobel-llm-no-bbc``) removes Bayesian Belief Collaboration's inference of the
collaborators' intents — no first-order prediction of partners' plans (Fig. 10) and no judgement of whether the
miscoordination matters (Fig. 12): with nothing to tell it when talking helps, it tells its beliefs and plan
(Fig. 13) at every new plan, a fixed protocol like the baselines'. Both keep the zero-order update and planning.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from mindloop.beliefs import Fact, Source
from mindloop.beliefs.views.sbl import SblIssue
from mindloop.models.base import ChatModel, Completion, GenerationConfig, message
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES, ask, letters
from mindloop.models.tokens import count_tokens
from mindloop.systems.cobel import prompts as tpl
from mindloop.systems.cobel import replies as rp
from mindloop.systems.cobel.messages import read, render
from mindloop.systems.cobel.mind import INTENT, RULES_BY_WORLD, Intent
from mindloop.systems.cobel.team import Domain, IntentFailed, TeamAgent, _fit
from mindloop.systems.cobel.worlds.common import Action

T = TypeVar("T")

__all__ = ["PAPER_CONFIG", "LlmCobelAgent", "message_tokens"]

PAPER_CONFIG = GenerationConfig(temperature=0.7, top_p=1.0, max_tokens=512)
"""Sampling settings of section 4.1 (temperature 0.7, top-p 1, at most 512 tokens)."""


def message_tokens(text: str, completion: Completion) -> int | None:
    """``text``'s token count under the model's own tokenizer, from the usage the server reported for the reply
    ``text`` came from: the reply's ``completion_tokens``, apportioned by the share of the reply that is the
    message under the offline tokenizer (all of it when the reply is the message, the usual case). ``None`` when
    the server reported no usage (the episode then counts with the offline stand-in).

    >>> message_tokens("Hi Bob", Completion("Message: Hi Bob", completion_tokens=7))
    4
    >>> message_tokens("Hi Bob", Completion("Message: Hi Bob")) is None
    True
    """
    whole = count_tokens(completion.text)
    if completion.completion_tokens <= 0 or whole <= 0:
        return None
    share = min(1.0, count_tokens(text) / whole)
    return max(1, round(completion.completion_tokens * share))


def listing(texts: list[str]) -> str:
    """Options as the planning prompts list them: ``A. explore <kitchen>(2000)``, one a line."""
    return "\n".join(f"{letter}. {t}" for letter, t in zip(letters(len(texts)), texts, strict=True))


class ModelAgent(TeamAgent):
    """What every model-driven agent shares (``cobel-llm`` and the baselines ``coela-llm``, ``capo-llm``): the
    team and model, the belief world, the loop that perceives, chooses with the model and executes the chosen
    step, the model calls, and the messages queued and sent."""

    @property
    def _bed(self) -> str | None:
        """TDW-MAT's bed (where ``transport`` goes); ``None`` in C-WAH, whose domain has none."""
        return getattr(self.domain, "bed", None) or None

    def __init__(
        self,
        name: str,
        team: tuple[str, ...],
        domain: Domain,
        model: ChatModel,
        config: GenerationConfig | None = None,
        *,
        format_retries: int = DEFAULT_FORMAT_RETRIES,
    ) -> None:
        super().__init__(name, team, domain)
        self.model = model
        self.config = config or PAPER_CONFIG
        self.format_retries = format_retries
        self.previous: list[str] = []
        self.dialogue: list[str] = []
        self.outbox: list[tuple[str, str]] = []
        self.token_counts: dict[str, int] = {}
        """Each sent message's token count under the model's own tokenizer (server usage), by text."""
        self._last: Completion | None = None
        self.calls = 0

    hears_plans = True
    """Whether a partner's message is heard with the plan it announces, as its intent (the baselines do)."""

    async def act(self, obs: Any) -> Action:
        """Perceive and hear the partners' new messages and react to them, then (when ready) take the next step."""
        dom = self.domain
        new = self.start_step(obs)
        for m in new:
            self.dialogue.append(f"{m.sender}: {m.text}")
            self.hear(m, plan=self.hears_plans)
        if new:
            await self._heard(new)
        if not dom.ready(obs):
            return dom.idle
        await self._progress(obs)
        return await self._execute(obs)

    async def _heard(self, new: list[Any]) -> None:
        """React to the partners' new messages."""

    async def _progress(self, obs: Any) -> None:
        """Notice progress events (CaPo)."""

    async def _execute(self, obs: Any) -> Action:
        """Send what is queued, else take the next step of the chosen action (choosing one when there is none)."""
        dom = self.domain
        for _ in range(4):
            if self.outbox:
                return self._send()
            if self.intent is None:
                self.intent = await self._choose(obs)
                if self.intent is None:
                    continue
            try:
                action = dom.next_action(self.intent, obs, self.mind.view())
            except IntentFailed as exc:
                self.previous.append(f"{self.intent.text} (failed: {exc})")
                self.intent = None
                self._failed()
                continue
            if action is None:
                self.previous.append(self.intent.text)
                self._finished(self.intent)
                self.intent = None
                continue
            return action
        return self._send() if self.outbox else dom.idle

    async def _choose(self, obs: Any) -> Intent | None:
        raise NotImplementedError

    def _failed(self) -> None:
        """The chosen action failed."""

    def _finished(self, intent: Intent) -> None:
        """An action of mine finished."""

    def _common(self) -> dict[str, str]:
        raise NotImplementedError

    def _goal(self) -> str:
        """The goal in words: C-WAH's predicates, or TDW-MAT's target counts and where they go."""
        dom = self.domain
        if dom.world == "cwah":
            return ", ".join(str(p) for p in getattr(dom, "goal", ()))
        counts = getattr(dom, "goal", {})
        return ", ".join(f"{n} {k}" for k, n in counts.items()) + f" to {getattr(dom, 'bed', 'the bed')}"

    def _told_intent(self) -> Intent | None:
        """The intent a sent message tells as mine."""
        return self.intent

    async def _call(self, template: str, what: str, read: Callable[[str], T], **values: str) -> tuple[T, Completion]:
        """Fill ``template``, ask the model, and read the reply with ``read`` (a format retry on a refusal)."""
        text = tpl.fill(template, {**self._common(), **values})
        self.calls += 1
        asked = await ask(self.model, [message("user", text)], read, self.config, retries=self.format_retries)
        self._last = asked.completion
        self.trace.append(f"t={self._now} {what}: {asked.completion.text[:200]!r}")
        return asked.value, asked.completion

    def _options(self, obs: Any, steps: list[Intent]) -> list[Intent]:
        """The first eight plan options, and those of ``steps`` still valid that are not among them."""
        dom = self.domain
        view = self.mind.view()
        options = dom.options(view, self.name, dom.room(obs), dom.holding(obs))[:8]
        for step in steps:
            if not any(o.same(step) for o in options) and dom.still_valid(step, view, self.name, dom.holding(obs)):
                options.append(step)
        return options

    def _queue(self, text: str, reason: str, completion: Completion | None, body: str | None = None) -> None:
        """Queue ``text`` to send; its token count is the model's (from ``completion``) for ``body`` (the part the
        model wrote; all of it by default)."""
        text = _fit(text)
        counted = message_tokens(body if body is not None else text, completion) if completion is not None else None
        if counted is not None:
            self.token_counts[text] = counted
        self.outbox.append((text, reason))

    def _send(self) -> Action:
        text, reason = self.outbox.pop(0)
        reading = read(text, self.name, inside=self.domain.inside)
        facts = list(reading.facts)
        intent = self._told_intent()
        if intent is not None:
            facts.append(_intent_fact(self.name, intent))
        return self._deliver(text, facts, reason)


class LlmCobelAgent(ModelAgent):
    """CoBel-World with a chat model making the decisions (``cobel-llm``); ``sbr=False`` and ``bbc=False`` are
    the ablations (see the module docstring). The other arguments are :class:`ModelAgent`'s."""

    hears_plans = False

    def __init__(self, *args: Any, sbr: bool = True, bbc: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rules = RULES_BY_WORLD[self.domain.world]
        self.sbr = sbr
        self.bbc = bbc
        self.plan: list[Intent] = []
        self.plan_text = ""
        self.issues: list[SblIssue] = []
        self.notes: dict[str, str] = {}
        """No-SBR: the natural-language beliefs the model wrote after messages (``""``: mine; a partner's name: what
        I believe that partner knows)."""

    # ---- the loop -------------------------------------------------------------------------------------------
    async def _heard(self, new: list[Any]) -> None:
        """Update beliefs from the dialogue with the model, then replan with what we learnt."""
        await self._update_from_dialogue()
        self.plan = []

    async def _choose(self, obs: Any) -> Intent | None:
        if not self.plan:
            await self._decide(obs)
            if self.outbox:
                return None  # the message goes first
        return await self._choose_action(obs)

    def _failed(self) -> None:
        self.plan = []

    def _finished(self, intent: Intent) -> None:
        if self.plan and self.plan[0].same(intent):
            self.plan.pop(0)

    def _told_intent(self) -> Intent | None:
        return self.plan[0] if self.plan else None

    # ---- model calls ----------------------------------------------------------------------------------------
    async def _ask(self, template: str, what: str, read: Callable[[str], T], **values: str) -> T:
        return (await self._call(template, what, read, **values))[0]

    def _beliefs(self, partner: str | None = None) -> str:
        """My zero-order beliefs (or first-order ones about ``partner``) as the prompts show them: SBL lines, or
        sentences without the Symbolic Belief Representation."""
        if self.sbr:
            return "\n".join(self.mind.sbl(partner)) or "(none)"
        beliefs = self.mind.store.beliefs(self.mind.chain(partner))
        facts = [b.fact for b in beliefs if b.fact.relation not in (INTENT, "LIKELY_INTENT")]
        said = render(facts, self.name if partner is None else partner)
        if partner is not None and said:
            said = f"{partner} knows (in {partner}'s words): {said}"
        note = self.notes.get(partner or "", "")
        return " ".join(x for x in (said, note) if x) or "(none)"

    def _common(self) -> dict[str, str]:
        cwah = self.domain.world == "cwah"
        return {
            "TASK": tpl.CWAH_TASK if cwah else tpl.TDW_TASK,
            "ABILITIES": tpl.CWAH_ABILITIES if cwah else tpl.TDW_ABILITIES,
            "ATOMIC": tpl.CWAH_ATOMIC if cwah else tpl.TDW_ATOMIC,
            "AGENT_NAME": self.name,
            "OPPO_NAME": " and ".join(self.partners),
            "GOAL": self._goal() if cwah else f"Transport {self._goal()}.",
            "RULES": self.rules.text(),
            "RULE": self.rules.text(),
        }

    async def _update_from_dialogue(self) -> None:
        """After new messages: my zero-order update (Fig. 9), then the first-order one about each partner (Fig. 8),
        whose stated plan I hear as its intent."""
        history = "\n".join(self.dialogue[-20:])
        for p in (None, *self.partners):
            plan = await self._update(history, p)
            if p is not None and plan:
                self.mind.hear(p, [_intent_fact(p, plan[0])], self._now)

    async def _update(self, history: str, partner: str | None) -> Sequence[Intent]:
        """One belief update (zero-order for ``partner=None``), and the plan it read: SBL statements written to the
        store; without SBR, sentences kept as notes (no SBL, no store writes)."""
        bed = self._bed
        order = "zero" if partner is None else "first"
        oppo = {} if partner is None else {"OPPO_NAME": partner}
        read: Callable[[str], rp.BeliefUpdate | tuple[str, list[Intent]]]
        if self.sbr:
            template = tpl.ZERO_ORDER_UPDATE if partner is None else tpl.FIRST_ORDER_UPDATE
            read = functools.partial(rp.read_belief_update, order=order, partner=partner, bed=bed)
        else:
            template = tpl.NL_ZERO_ORDER_UPDATE if partner is None else tpl.NL_FIRST_ORDER_UPDATE
            read = functools.partial(rp.read_words, partner=partner, bed=bed)
        what = f"{order}-order update" + ("" if self.sbr else " (words)")
        got: rp.BeliefUpdate | tuple[str, list[Intent]] = await self._ask(
            template, what, read, MESSAGES=history, **oppo
        )
        if isinstance(got, rp.BeliefUpdate):
            self._write(got, self.mind.chain(partner))
            return got.plan
        self.notes[partner or ""] = got[0]
        return got[1]

    def _write(self, update: rp.BeliefUpdate, chain: tuple[str, ...]) -> None:
        """Write the SBL statements of a reply as testimony beliefs of ``chain``; other lines become issues."""
        self.issues.extend(update.issues)
        for s in update.statements:
            if s.chain in ((), chain) or (len(chain) == 2 and s.chain == chain[1:]):
                self.mind.store.assert_belief(chain, s.to_fact(), t=self.mind.t, source=Source.TESTIMONY)
            else:
                self.issues.append(SblIssue(0, str(s), f"not a belief of {' > '.join(chain)}"))

    async def _decide(self, obs: Any) -> None:
        """Predict partners' plans, choose my plan, and talk if the miscoordination matters (without BBC: no
        prediction, my plan from my own beliefs, then my beliefs and plan told every time)."""
        bed = self._bed
        opp_plans: list[str] = []
        for p in self.partners if self.bbc else ():
            plans = await self._ask(
                tpl.FIRST_ORDER_PREDICTION,
                "first-order prediction",
                lambda r: rp.read_predictions(r, bed=bed),
                OPPO_NAME=p,
                FIRST_ORDER_BELIEF=self._beliefs(p),
            )
            ranked: list[tuple[Intent, float]] = []
            for k, (steps, prob) in enumerate(zip(plans, (0.5, 0.3, 0.2), strict=True), 1):
                if steps:
                    ranked.append((steps[0], prob))
                    opp_plans.append(f"{p} plan{k}: {' then '.join(s.text for s in steps)}")
            self.mind.predict(p, ranked, self._now)
        zero = self._beliefs()
        await self._new_plan(tpl.ZERO_ORDER_PREDICTION, "Fig. 11", "zero-order prediction", ZERO_ORDER_BELIEFS=zero)
        if not self.bbc and self.partners:  # No-BBC: my beliefs and plan told (Fig. 13) every time
            await self._tell(" and ".join(self.partners), zero)
        for p in self.partners if self.bbc else ():
            verdict = await self._ask(
                tpl.ADAPTIVE_COLLABORATION,
                "adaptive collaboration",
                rp.read_collaboration,
                OPPO_NAME=p,
                ZERO_ORDER_BELIEF=zero,
                MY_FIRST_ORDER_BELIEF=self._beliefs(p),
                MY_PLAN=self.plan_text,
                OPPO_PLANS="\n".join(x for x in opp_plans if x.startswith(p)) or "None",
            )
            if verdict.talk:
                await self._tell(p, verdict.misaligned or "None")
                break  # one message per decision

    async def _tell(self, opp: str, misaligned: str) -> None:
        """Write a message (Fig. 13) and queue it, with its token count under the model's tokenizer if reported."""
        text = await self._ask(
            tpl.COMMUNICATION,
            "communication",
            rp.read_message,
            OPPO_NAME=opp,
            MISALIGNED_INFORMATION=misaligned,
            MY_PLAN=self.plan_text,
        )
        why = "model: heavy miscoordination" if self.bbc else "no-bbc: beliefs and plan at every new plan"
        self._queue(text, why, self._last)

    async def _new_plan(self, template: str, fig: str, what: str, **values: str) -> None:
        """Ask for my plan (``fig``: Fig. 11 or Fig. 15) and keep its first three steps and its text."""
        bed = self._bed
        steps, text = await self._ask(template, what, lambda r: rp.read_plan(r, fig, bed=bed), **values)
        self.plan = steps[:3]
        self.plan_text = text.strip()

    async def _choose_action(self, obs: Any) -> Intent | None:
        options = self._options(obs, self.plan)
        if not options:
            self.plan = []
            return None
        texts = [o.text for o in options]
        choice = await self._ask(
            tpl.PLANNING,
            "planning",
            lambda r: rp.read_action(r, texts),
            MY_PLANS=self.plan_text or "None",
            PREVIOUS_ACTIONS=", ".join(self.previous[-5:]) or "None",
            ZERO_ORDER_BELIEF=self._beliefs(),
            ACTION_LIST=listing(texts),
        )
        if choice.done:
            opp = (self.mind.value(self.partners[0], INTENT) if self.partners else None) or "None"
            await self._new_plan(
                tpl.REPLANNING,
                "Fig. 15",
                "replanning",
                OPPO_NAME=self.partners[0] if self.partners else "",
                OPPO_PLAN=opp,
                ZERO_ORDER_BELIEFS=self._beliefs(),
            )
            return None
        assert choice.index is not None
        return options[choice.index]


def _intent_fact(agent: str, intent: Intent) -> Fact:
    return Fact(agent, INTENT, intent.text)

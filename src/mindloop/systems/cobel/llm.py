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
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from mindloop.beliefs import Fact, Source
from mindloop.beliefs.views.sbl import CWAH_RULES, TDW_RULES, SblIssue
from mindloop.models.base import ChatModel, GenerationConfig, message
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES, ask
from mindloop.systems.cobel import prompts as tpl
from mindloop.systems.cobel import replies as rp
from mindloop.systems.cobel.cwah_domain import IntentFailed
from mindloop.systems.cobel.messages import read
from mindloop.systems.cobel.mind import INTENT, Intent, Mind
from mindloop.systems.cobel.replies import parse_plan
from mindloop.systems.cobel.team import Domain, SentMessage, _fit
from mindloop.systems.cobel.worlds.common import Action

T = TypeVar("T")

__all__ = ["PAPER_CONFIG", "LlmCobelAgent", "parse_plan"]

PAPER_CONFIG = GenerationConfig(temperature=0.7, top_p=1.0, max_tokens=512)
"""Sampling settings of section 4.1 (temperature 0.7, top-p 1, at most 512 tokens)."""


class LlmCobelAgent:
    """CoBel-World with a chat model making the decisions (``cobel-llm``)."""

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
        self.name = name
        self.team = team
        self.partners = tuple(p for p in team if p != name)
        self.domain = domain
        self.model = model
        self.config = config or PAPER_CONFIG
        self.format_retries = format_retries
        self.mind = Mind(name, team)
        self.rules = CWAH_RULES if domain.world == "cwah" else TDW_RULES
        self.intent: Intent | None = None
        self.plan: list[Intent] = []
        self.plan_text = ""
        self.previous: list[str] = []
        self.dialogue: list[str] = []
        self.outbox: list[str] = []
        self.sent: list[SentMessage] = []
        self.trace: list[str] = []
        self.issues: list[SblIssue] = []
        self.calls = 0
        self._setup = False
        self._now = 0

    # ---- the loop -------------------------------------------------------------------------------------------
    async def act(self, obs: Any) -> Action:
        """Perceive, update beliefs from messages with the model, then decide and act."""
        dom = self.domain
        if not self._setup:
            dom.setup(obs)
            self._setup = True
        self._now = dom.t(obs)
        dom.perceive(self.mind, obs)
        new = [m for m in getattr(obs, "messages", ()) if m.sender != self.name]
        if new:
            self.dialogue += [f"{m.sender}: {m.text}" for m in new]
            for m in new:
                reading = read(m.text, m.sender, inside=dom.inside)
                if reading.facts:
                    self.mind.hear(m.sender, reading.facts, self._now, m.text)
            await self._update_from_dialogue()
            self.plan = []  # replan with what we learnt
        if not dom.ready(obs):
            return dom.idle_action()
        for _ in range(4):
            if self.outbox:
                return self._send()
            if self.intent is None:
                if not self.plan:
                    await self._decide(obs)
                    if self.outbox:
                        return self._send()
                self.intent = await self._choose_action(obs)
                if self.intent is None:
                    continue
            try:
                action = dom.next_action(self.intent, obs, self.mind.view())
            except IntentFailed as exc:
                self.previous.append(f"{self.intent.text} (failed: {exc})")
                self.intent = None
                self.plan = []
                continue
            if action is None:
                self.previous.append(self.intent.text)
                if self.plan and self.plan[0].same(self.intent):
                    self.plan.pop(0)
                self.intent = None
                continue
            return action
        return dom.idle_action()

    # ---- model calls ----------------------------------------------------------------------------------------
    async def _ask(self, template: str, what: str, read: Callable[[str], T], **values: str) -> T:
        """Fill ``template``, ask the model, and read the reply with ``read`` (a format retry on a refusal)."""
        text = tpl.fill(template, {**self._common(), **values})
        self.calls += 1
        value, reply, _ = await ask(self.model, [message("user", text)], read, self.config, retries=self.format_retries)
        self.trace.append(f"t={self._now} {what}: {reply.text[:200]!r}")
        return value

    def _common(self) -> dict[str, str]:
        dom = self.domain
        opp = " and ".join(self.partners)
        if dom.world == "cwah":
            goal = ", ".join(str(p) for p in getattr(dom, "goal", ()))
            task = f"I am $AGENT_NAME$. My teammate $OPPO_NAME$ and I want to complete {goal} within 250 steps."
            abilities, atomic = tpl.CWAH_ABILITIES, tpl.CWAH_ATOMIC
        else:
            goal_counts = getattr(dom, "goal", {})
            bed = getattr(dom, "bed", "the bed")
            goal = "Transport " + ", ".join(f"{n} {k}" for k, n in goal_counts.items()) + f" to {bed}."
            task, abilities, atomic = tpl.TDW_TASK, tpl.TDW_ABILITIES, tpl.TDW_ATOMIC
        return {
            "TASK": task,
            "ABILITIES": abilities,
            "ATOMIC": atomic,
            "AGENT_NAME": self.name,
            "OPPO_NAME": opp,
            "GOAL": goal,
            "RULES": self.rules.text(),
            "RULE": self.rules.text(),
        }

    @property
    def _bed(self) -> str | None:
        """TDW-MAT's bed (where ``transport`` goes); ``None`` in C-WAH."""
        if self.domain.world != "tdw-mat":
            return None
        return getattr(self.domain, "bed", None) or None

    async def _update_from_dialogue(self) -> None:
        history = "\n".join(self.dialogue[-20:])
        bed = self._bed
        zero = await self._ask(
            tpl.ZERO_ORDER_UPDATE,
            "zero-order update",
            lambda r: rp.read_belief_update(r, "zero", bed=bed),
            MESSAGES=history,
        )
        self._write(zero, (self.name,))
        for p in self.partners:
            first = await self._ask(
                tpl.FIRST_ORDER_UPDATE,
                "first-order update",
                functools.partial(rp.read_belief_update, order="first", partner=p, bed=bed),
                MESSAGES=history,
                OPPO_NAME=p,
            )
            self._write(first, (self.name, p))
            if first.plan:
                self.mind.hear(p, [_intent_fact(p, first.plan[0])], self._now)

    def _write(self, update: rp.BeliefUpdate, chain: tuple[str, ...]) -> None:
        """Write the SBL statements of a reply as testimony beliefs of ``chain``; other lines become issues."""
        self.issues.extend(update.issues)
        for s in update.statements:
            if s.chain in ((), chain) or (len(chain) == 2 and s.chain == chain[1:]):
                self.mind.store.assert_belief(chain, s.to_fact(), t=self.mind.t, source=Source.TESTIMONY)
            else:
                self.issues.append(SblIssue(0, str(s), f"not a belief of {' > '.join(chain)}"))

    async def _decide(self, obs: Any) -> None:
        """Predict partners' plans, choose my plan, and talk if the miscoordination matters."""
        bed = self._bed
        opp_plans: list[str] = []
        for p in self.partners:
            plans = await self._ask(
                tpl.FIRST_ORDER_PREDICTION,
                "first-order prediction",
                lambda r: rp.read_predictions(r, bed=bed),
                OPPO_NAME=p,
                FIRST_ORDER_BELIEF="\n".join(self.mind.sbl(p)) or "(none)",
            )
            ranked: list[tuple[Intent, float]] = []
            for k, (steps, prob) in enumerate(zip(plans, (0.5, 0.3, 0.2), strict=True), 1):
                if steps:
                    ranked.append((steps[0], prob))
                    opp_plans.append(f"{p} plan{k}: {' then '.join(s.text for s in steps)}")
            self.mind.predict(p, ranked, self._now)
        zero = "\n".join(self.mind.sbl()) or "(none)"
        steps, text = await self._ask(
            tpl.ZERO_ORDER_PREDICTION,
            "zero-order prediction",
            lambda r: rp.read_plan(r, "Fig. 11", bed=bed),
            ZERO_ORDER_BELIEFS=zero,
        )
        self._set_plan(steps, text)
        for p in self.partners:
            verdict = await self._ask(
                tpl.ADAPTIVE_COLLABORATION,
                "adaptive collaboration",
                rp.read_collaboration,
                OPPO_NAME=p,
                ZERO_ORDER_BELIEF=zero,
                MY_FIRST_ORDER_BELIEF="\n".join(self.mind.sbl(p)) or "(none)",
                MY_PLAN=self.plan_text,
                OPPO_PLANS="\n".join(x for x in opp_plans if x.startswith(p)) or "None",
            )
            if not verdict.talk:
                continue
            text = await self._ask(
                tpl.COMMUNICATION,
                "communication",
                rp.read_message,
                OPPO_NAME=p,
                MISALIGNED_INFORMATION=verdict.misaligned or "None",
                MY_PLAN=self.plan_text,
            )
            self.outbox.append(_fit(text))
            break  # one message per decision

    def _set_plan(self, steps: list[Intent], text: str) -> None:
        self.plan = steps[:3]
        self.plan_text = text.strip()

    async def _choose_action(self, obs: Any) -> Intent | None:
        dom = self.domain
        view = self.mind.view()
        options = dom.options(view, self.name, dom.room(obs), dom.holding(obs))[:8]
        for step in self.plan:
            if not any(o.same(step) for o in options) and dom.still_valid(step, view, self.name, dom.holding(obs)):
                options.append(step)
        if not options:
            self.plan = []
            return None
        letters = "ABCDEFGHIJKL"
        listing = "\n".join(f"{letters[k]}. {o.text}" for k, o in enumerate(options))
        texts = [o.text for o in options]
        choice = await self._ask(
            tpl.PLANNING,
            "planning",
            lambda r: rp.read_action(r, texts),
            MY_PLANS=self.plan_text or "None",
            PREVIOUS_ACTIONS=", ".join(self.previous[-5:]) or "None",
            ZERO_ORDER_BELIEF="\n".join(self.mind.sbl()) or "(none)",
            ACTION_LIST=listing,
        )
        if choice.done:
            opp = (self.mind.value(self.partners[0], INTENT) if self.partners else None) or "None"
            bed = self._bed
            steps, text = await self._ask(
                tpl.REPLANNING,
                "replanning",
                lambda r: rp.read_plan(r, "Fig. 15", bed=bed),
                OPPO_NAME=self.partners[0] if self.partners else "",
                OPPO_PLAN=opp,
                ZERO_ORDER_BELIEFS="\n".join(self.mind.sbl()) or "(none)",
            )
            self._set_plan(steps, text)
            return None
        assert choice.index is not None
        return options[choice.index]

    def _send(self) -> Action:
        text = self.outbox.pop(0)
        reading = read(text, self.name, inside=self.domain.inside)
        facts = list(reading.facts)
        if self.plan:
            facts.append(_intent_fact(self.name, self.plan[0]))
        self.mind.tell(facts, self._now, text)
        self.sent.append(SentMessage(self._now, self.name, text, "model: heavy miscoordination"))
        return Action("send_message", text=text)


def _intent_fact(agent: str, intent: Intent) -> Fact:
    return Fact(agent, INTENT, intent.text)

"""The model-driven CoBel agent: the paper's prompts (Fig. 8–15) around the same belief world and executor.

Perception updates beliefs symbolically, as in the symbolic agent. What a model decides:

* after new messages, the zero- and first-order belief update (Fig. 9, Fig. 8): SBL lines read with
  :func:`~mindloop.beliefs.views.sbl.parse_lenient` and written to the store as testimony, plus the partner's plan;
* at each new subplan: each partner's top three plans (Fig. 10), my plan (Fig. 11), whether the miscoordination
  matters (Fig. 12) and, if so, one message (Fig. 13);
* each next action from the list of available actions, or ``SUBPLAN DONE`` (Fig. 14), and a new plan that avoids
  the partner's (Fig. 15).

Replies are parsed strictly: a missing section, an unknown action or a plan with no usable step raises
:class:`~mindloop.errors.ParseError` naming the prompt and the reply, which ends the episode as a recorded failure.
Malformed SBL lines inside an otherwise well-formed reply are skipped and kept in :attr:`LlmCobelAgent.issues`.
"""

from __future__ import annotations

import re
from typing import Any

from mindloop.beliefs import Fact, Source
from mindloop.beliefs.views.sbl import CWAH_RULES, TDW_RULES, SblIssue, parse_lenient
from mindloop.errors import ParseError
from mindloop.models.base import ChatModel, GenerationConfig, message
from mindloop.systems.cobel import prompts as tpl
from mindloop.systems.cobel.cwah_domain import IntentFailed
from mindloop.systems.cobel.messages import read
from mindloop.systems.cobel.mind import INTENT, Intent, Mind
from mindloop.systems.cobel.team import Domain, SentMessage, _fit
from mindloop.systems.cobel.worlds.common import Action

__all__ = ["PAPER_CONFIG", "LlmCobelAgent", "parse_plan"]

PAPER_CONFIG = GenerationConfig(temperature=0.7, top_p=1.0, max_tokens=512)
"""Sampling settings of section 4.1 (temperature 0.7, top-p 1, at most 512 tokens)."""

_STEP = re.compile(
    r"\b(explore|grab|grasp|go grasp|transport|deliver|put|go to)\b[^<\n]*?(<[^<>()]+>\s*\(\s*[A-Za-z0-9_.\-]+\s*\))",
    re.IGNORECASE,
)
_VERBS = {"grasp": "grab", "go grasp": "grab", "go to": "explore", "put": "deliver"}


def parse_plan(text: str) -> list[Intent]:
    """The atomic steps of a plan (``explore <r>(1)``, ``grab <o>(2)``…) in order; wordings of Fig. 10 included."""
    out = []
    for m in _STEP.finditer(text):
        verb = m.group(1).lower()
        out.append(Intent(_VERBS.get(verb, verb), re.sub(r"\s+", "", m.group(2))))
    return out


class LlmCobelAgent:
    """CoBel-World with a chat model making the decisions (``cobel-llm``)."""

    def __init__(
        self, name: str, team: tuple[str, ...], domain: Domain, model: ChatModel, config: GenerationConfig | None = None
    ) -> None:
        self.name = name
        self.team = team
        self.partners = tuple(p for p in team if p != name)
        self.domain = domain
        self.model = model
        self.config = config or PAPER_CONFIG
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
    async def _ask(self, template: str, what: str, **values: str) -> str:
        text = tpl.fill(template, {**self._common(), **values})
        self.calls += 1
        reply = await self.model.generate([message("user", text)], self.config)
        self.trace.append(f"t={self._now} {what}: {reply.text[:200]!r}")
        return reply.text

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

    def _require(self, reply: str, label: str, labels: tuple[str, ...], prompt: str) -> str:
        got = tpl.section(reply, label, labels)
        if got is None:
            raise ParseError(f"cobel-llm: the reply to the {prompt} prompt has no '{label}:' section", text=reply[:300])
        return got

    async def _update_from_dialogue(self) -> None:
        history = "\n".join(self.dialogue[-20:])
        reply = await self._ask(tpl.ZERO_ORDER_UPDATE, "zero-order update", MESSAGES=history)
        zero = self._require(reply, "Zero order beliefs", ("Extracted Information", "Zero order beliefs"), "Fig. 9")
        self._write(zero, (self.name,))
        for p in self.partners:
            labels = ("Extracted Information", "First order beliefs", f"{p}'s plan")
            reply = await self._ask(tpl.FIRST_ORDER_UPDATE, "first-order update", MESSAGES=history, OPPO_NAME=p)
            first = self._require(reply, "First order beliefs", labels, "Fig. 8")
            self._write(first, (self.name, p))
            plan = tpl.section(reply, f"{p}'s plan", labels)
            steps = parse_plan(plan or "")
            if steps:
                self.mind.hear(p, [_intent_fact(p, steps[0])], self._now)

    def _write(self, text: str, chain: tuple[str, ...]) -> None:
        """Write the SBL lines of a reply as testimony beliefs of ``chain``; other lines become issues."""
        result = parse_lenient(text.replace(";", "\n"), extend=True)
        self.issues.extend(result.issues)
        for s in result.statements:
            if s.chain in ((), chain) or (len(chain) == 2 and s.chain == chain[1:]):
                self.mind.store.assert_belief(chain, s.to_fact(), t=self.mind.t, source=Source.TESTIMONY)
            else:
                self.issues.append(SblIssue(0, str(s), f"not a belief of {' > '.join(chain)}"))

    async def _decide(self, obs: Any) -> None:
        """Predict partners' plans, choose my plan, and talk if the miscoordination matters."""
        opp_plans: list[str] = []
        for p in self.partners:
            reply = await self._ask(
                tpl.FIRST_ORDER_PREDICTION,
                "first-order prediction",
                OPPO_NAME=p,
                FIRST_ORDER_BELIEF="\n".join(self.mind.sbl(p)) or "(none)",
            )
            plan_labels = ("reasoning", "plans", "plan1", "plan2", "plan3")
            ranked: list[tuple[Intent, float]] = []
            for k, prob in (("plan1", 0.5), ("plan2", 0.3), ("plan3", 0.2)):
                steps = parse_plan(tpl.section(reply, k, plan_labels) or "")
                if steps:
                    ranked.append((steps[0], prob))
                    opp_plans.append(f"{p} {k}: {' then '.join(s.text for s in steps)}")
            if tpl.section(reply, "plan1", plan_labels) is None:
                raise ParseError("cobel-llm: the reply to the Fig. 10 prompt has no 'plan1:' section", text=reply[:300])
            self.mind.predict(p, ranked, self._now)
        zero = "\n".join(self.mind.sbl()) or "(none)"
        reply = await self._ask(tpl.ZERO_ORDER_PREDICTION, "zero-order prediction", ZERO_ORDER_BELIEFS=zero)
        plan = self._require(reply, "plan", ("reasoning", "plan"), "Fig. 11")
        self._set_plan(plan, "Fig. 11", reply)
        for p in self.partners:
            reply = await self._ask(
                tpl.ADAPTIVE_COLLABORATION,
                "adaptive collaboration",
                OPPO_NAME=p,
                ZERO_ORDER_BELIEF=zero,
                MY_FIRST_ORDER_BELIEF="\n".join(self.mind.sbl(p)) or "(none)",
                MY_PLAN=self.plan_text,
                OPPO_PLANS="\n".join(x for x in opp_plans if x.startswith(p)) or "None",
            )
            labels = ("reasons", "answer", "misaligned information")
            answer = self._require(reply, "answer", labels, "Fig. 12").strip().lower()
            if not answer.startswith(("yes", "no")):
                raise ParseError("cobel-llm: the Fig. 12 answer must be Yes or No", text=answer[:100])
            if answer.startswith("no"):
                continue
            misaligned = tpl.section(reply, "misaligned information", labels) or ""
            reply = await self._ask(
                tpl.COMMUNICATION,
                "communication",
                OPPO_NAME=p,
                MISALIGNED_INFORMATION=misaligned,
                MY_PLAN=self.plan_text,
            )
            text = self._require(reply, "Message", ("Message",), "Fig. 13")
            if not text:
                raise ParseError("cobel-llm: the Fig. 13 reply has an empty message", text=reply[:300])
            self.outbox.append(_fit(text))
            break  # one message per decision

    def _set_plan(self, plan: str, prompt: str, reply: str) -> None:
        steps = parse_plan(plan)
        if not steps:
            raise ParseError(f"cobel-llm: the {prompt} plan names no usable action", text=reply[:300])
        self.plan = steps[:3]
        self.plan_text = plan.strip()

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
        reply = await self._ask(
            tpl.PLANNING,
            "planning",
            MY_PLANS=self.plan_text or "None",
            PREVIOUS_ACTIONS=", ".join(self.previous[-5:]) or "None",
            ZERO_ORDER_BELIEF="\n".join(self.mind.sbl()) or "(none)",
            ACTION_LIST=listing,
        )
        answer = self._require(reply, "answer", ("reasons", "answer"), "Fig. 14")
        if "SUBPLAN DONE" in answer.upper():
            opp = (self.mind.value(self.partners[0], INTENT) if self.partners else None) or "None"
            reply = await self._ask(
                tpl.REPLANNING,
                "replanning",
                OPPO_NAME=self.partners[0] if self.partners else "",
                OPPO_PLAN=opp,
                ZERO_ORDER_BELIEFS="\n".join(self.mind.sbl()) or "(none)",
            )
            self._set_plan(self._require(reply, "plan", ("reasoning", "plan"), "Fig. 15"), "Fig. 15", reply)
            return None
        m = re.match(r"\s*\(?([A-L])[.)\s]", answer + " ")
        if m and letters.index(m.group(1)) < len(options):
            return options[letters.index(m.group(1))]
        for step in parse_plan(answer):
            for o in options:
                if o.same(step):
                    return o
        raise ParseError("cobel-llm: the Fig. 14 answer is not an action from the list", text=answer[:200])

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

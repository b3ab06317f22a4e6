"""The paper's LLM baselines, driven by the same chat model as ``cobel-llm``: CoELA (``coela-llm``) and CaPo
(``capo-llm``).

Both perceive through the same :class:`~mindloop.systems.cobel.team.Domain` and execute through the same executor
as CoBel-World; what differs is how the model is asked to talk and plan, following each paper's published scheme
(the prompts, package data in ``data/baselines.yaml``, are this project's own wording of those schemes):

* **CoELA** (Zhang et al., 2023): at every planning step the *communication module* drafts a message from the
  goal, what I know (my progress) and the dialogue so far, and the *planning module* then chooses among the
  available actions, one of which is sending that message (never twice in a row). Talking is a fixed step of
  every decision, not a judgement of whether it is needed.
* **CaPo** (Liu et al., 2024): *meta-plan generation* — on an event (the start, a goal object found, a delivery
  done) the agent that saw it drafts a meta-plan splitting the subtasks between the agents, the partners evaluate
  it and reply with feedback, and the drafter sends a refined final meta-plan when a partner disagreed — then
  *progress-adaptive execution*: each step is chosen with the meta-plan's subtasks for me and my progress in the
  prompt, and the next event reopens the discussion.

Every call goes through :func:`mindloop.models.replies.ask` with a reader here or in
:mod:`~mindloop.systems.cobel.replies`; a reply still refused after the format retries raises
:class:`~mindloop.errors.ParseError`, which ends the episode as a recorded failure. Each sent message's token
count is the model's own (:func:`~mindloop.systems.cobel.llm.message_tokens`) when the server reported usage.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import ParseError
from mindloop.models.base import Completion
from mindloop.systems.cobel import prompts as tpl
from mindloop.systems.cobel import replies as rp
from mindloop.systems.cobel.llm import ModelAgent, listing
from mindloop.systems.cobel.messages import render
from mindloop.systems.cobel.mind import Intent


class _BaselinesFile(DataModel):
    """``data/baselines.yaml``: the shared parts, each world's subtasks and the six prompts."""

    head: str
    history: str
    letter: str
    meta_format: str
    subtasks: dict[str, str]
    coela_communication: str
    coela_planning: str
    capo_meta_plan: str
    capo_feedback: str
    capo_refine: str
    capo_planning: str


_T = load_package_data(_BaselinesFile, "mindloop.systems.cobel", "baselines.yaml")
_SHARED = {"HEAD": _T.head, "HISTORY": _T.history, "LETTER": _T.letter, "META_FORMAT": _T.meta_format}

COELA_COMMUNICATION = tpl.written_out(_T.coela_communication, **_SHARED)
"""CoELA's communication module: a message drafted at every planning step (sent only if the plan chooses it)."""

COELA_PLANNING = tpl.written_out(_T.coela_planning, **_SHARED)
"""CoELA's planning module: one action chosen from the list (sending the drafted message is one of them)."""

CAPO_META_PLAN = tpl.written_out(_T.capo_meta_plan, **_SHARED)
"""CaPo's meta-plan generation: the designer drafts a plan that assigns subtasks to every agent."""

CAPO_FEEDBACK = tpl.written_out(_T.capo_feedback, **_SHARED)
"""CaPo's meta-plan evaluation: a partner's feedback on the draft, with whether it agrees."""

CAPO_REFINE = tpl.written_out(_T.capo_refine, **_SHARED)
"""CaPo's meta-plan optimisation: the designer's final plan after the partners' feedback."""

CAPO_PLANNING = tpl.written_out(_T.capo_planning, **_SHARED)
"""CaPo's progress-adaptive planning: the next action under the agreed meta-plan."""


# ---- readers --------------------------------------------------------------------------------------------------
def read_choice(reply: str, options: Sequence[str], who: str) -> int:
    """The index of the option a planning reply chooses (:func:`~mindloop.systems.cobel.replies.read_action`);
    ``SUBPLAN DONE`` is not an answer here."""
    choice = rp.read_action(reply, options)
    if choice.done or choice.index is None:
        raise rp.refused("the answer must be one of the listed actions (a letter)", reply, who=who)
    return choice.index


_META_LABEL = {"meta": r"(?:final[\s_-]+|refined[\s_-]+)?meta[\s_-]*plan"}


def read_meta_plan(reply: str, team: Sequence[str], *, bed: str | None = None) -> tuple[dict[str, list[Intent]], str]:
    """The ``Meta-plan:`` of a CaPo reply: for each agent of ``team`` with a line ``Name: steps``, its steps.

    A reply with no such line naming a usable step is refused. Returns the plan and its text (one agent a line).
    """
    body = rp.section(reply, "meta", (), _META_LABEL)
    if body is None:
        body = reply
    plan: dict[str, list[Intent]] = {}
    lines: list[str] = []
    names = "|".join(re.escape(n) for n in team)
    pattern = re.compile(rf"(?im)^[\W_]*(?:agent\s+)?({names})[\W_]*\s*[:\-–—]\s*(.+)$")
    for m in pattern.finditer(body):
        who = next(n for n in team if n.lower() == m.group(1).lower())
        steps = rp.parse_plan(m.group(2), bed=bed)
        if steps and who not in plan:
            plan[who] = steps
            lines.append(f"{who}: {'; '.join(s.text for s in steps)}")
    if not plan:
        wanted = f"a step like 'explore <room>(id)' for any of {', '.join(team)}"
        raise rp.refused(f"the meta-plan has no line 'Name: step; step' with {wanted}", reply, who="capo-llm")
    return plan, "\n".join(lines)


def read_feedback(reply: str) -> tuple[bool, str]:
    """The ``agree:`` (Yes/No) and ``feedback:`` of a CaPo evaluation reply."""
    extra = {"feedback": r"feedback", "agree": r"agree(?:ment)?"}
    agree = rp.section(reply, "agree", (), extra)
    if not agree:
        raise rp.refused("the evaluation has no 'agree:' line (Yes or No)", reply, who="capo-llm")
    ok = rp.read_yes_no(agree, "agree")
    feedback = rp.section(reply, "feedback", (), extra) or ""
    return ok, re.sub(r"\s*\n\s*", " ", feedback).strip()


# ---- the agents -----------------------------------------------------------------------------------------------
class _LlmBaseline(ModelAgent):
    """What both baselines share: the prompts' values, with what I know in sentences."""

    kind = ""

    def _common(self) -> dict[str, str]:
        cwah = self.domain.world == "cwah"
        return {
            "AGENT_NAME": self.name,
            "OPPO_NAME": " and ".join(self.partners),
            "TEAM": ", ".join(self.team),
            "GOAL": self._goal() if cwah else f"transport {self._goal()}",
            "ABILITIES": tpl.CWAH_ABILITIES if cwah else tpl.TDW_ABILITIES,
            "SUBTASKS": _T.subtasks[self.domain.world],
            "PROGRESS": self._progress_text(),
            "DIALOGUE_HISTORY": "\n".join(self.dialogue[-12:]) or "None",
            "PREVIOUS_ACTIONS": ", ".join(self.previous[-5:]) or "None",
        }

    async def _pick(self, template: str, what: str, texts: list[str], **values: str) -> int:
        """Which of ``texts`` (the prompt's available actions) the model's reply to ``template`` chooses."""
        read = functools.partial(read_choice, options=texts, who=self.kind)
        return (await self._call(template, what, read, AVAILABLE_ACTIONS=listing(texts), **values))[0]

    def _progress_text(self) -> str:
        """What I know, in sentences (CoELA's and CaPo's prompts carry states as text, not symbols)."""
        view = self.mind.view()
        where = view.get(self.name, "AT")
        said = render(self.domain.relevant_facts(view, self.name), self.name)
        return " ".join(x for x in (f"I'm in {where}." if where else "", said) if x) or "Nothing yet."


class LlmCoelaAgent(_LlmBaseline):
    """CoELA driven by a chat model (``coela-llm``): a message drafted at every planning step, then a plan that
    may send it."""

    kind = "coela-llm"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._just_sent = False

    async def _choose(self, obs: Any) -> Intent | None:
        options = self._options(obs, [])
        draft: tuple[str, Any] | None = None
        if self.partners and not self._just_sent:
            draft = await self._call(COELA_COMMUNICATION, "communication", rp.read_message)
        texts = ([f"send a message: {draft[0]}"] if draft else []) + [o.text for o in options]
        if not texts:
            return None
        choice = await self._pick(COELA_PLANNING, "planning", texts)
        if draft is not None and choice == 0:
            text, completion = draft
            self._queue(text, "coela: the plan chose to send the drafted message", completion)
            self._just_sent = True
            return None
        self._just_sent = False
        return options[choice - (1 if draft else 0)]


class LlmCapoAgent(_LlmBaseline):
    """CaPo driven by a chat model (``capo-llm``): meta-plan discussion on progress events, then progress-adaptive
    planning under the agreed meta-plan."""

    kind = "capo-llm"
    min_gap = 6
    """Steps between two discussions an agent opens (an event inside the gap waits for the next one)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.meta: dict[str, list[Intent]] = {}
        self.meta_text = ""
        self.discussions = 0
        self._known: set[str] = set()
        self._last_discussion = -(10**9)
        self._event: str | None = None
        self._waiting: dict[str, tuple[bool, str]] | None = None

    async def _meta_plan(self, template: str, what: str, **values: str) -> tuple[str, Completion]:
        """Ask the model for a meta-plan of this team (``template``: drafted or refined) and adopt it; returns its
        text (one agent a line) and the reply."""
        read = functools.partial(read_meta_plan, team=self.team, bed=self._bed)
        lines = "\n".join(f"{a}: [subtask]; [subtask]" for a in self.team)
        (plan, text), completion = await self._call(template, what, read, FORMAT=lines, **values)
        self._adopt(plan, text)
        return text, completion

    async def _progress(self, obs: Any) -> None:
        new = self.newly_found(self.mind.view(), self._known)
        if self._now <= 1 and self.name == min(self.team) and self.discussions == 0:
            self._event = self._event or "We are starting the task."
        elif new and self._now > 1:
            self._event = self._event or f"I just found {len(new)} goal object(s)."
        if self._waiting is not None and self._now - self._last_discussion >= self.min_gap:
            self._waiting = None  # a partner that never answered does not hold up the next discussion
        if self._event is None or self._waiting is not None or self.outbox:
            return
        if self._now - self._last_discussion < self.min_gap:
            return
        event, self._event = self._event, None
        await self._draft(event)

    def _finished(self, intent: Intent) -> None:
        if intent.verb in ("deliver", "transport", "put"):
            self._event = self._event or f"I just finished {intent.text}."
        for steps in self.meta.values():
            if steps and steps[0].same(intent):
                steps.pop(0)

    async def _draft(self, event: str) -> None:
        text, completion = await self._meta_plan(CAPO_META_PLAN, "meta-plan", EVENT=event)
        self._last_discussion = self._now
        self.discussions += 1
        self._waiting = {}
        self._queue(f"Meta-plan: {text}", f"capo: meta-plan ({event})", completion, body=text)

    def _adopt(self, plan: Mapping[str, list[Intent]], text: str) -> None:
        self.meta = {a: list(s) for a, s in plan.items()}
        self.meta_text = text
        self.intent = None

    async def _heard(self, new: list[Any]) -> None:
        for m in new:
            await self._discuss(m.sender, m.text)

    async def _discuss(self, sender: str, text: str) -> None:
        """Take part in a meta-plan discussion: a partner's draft gets my feedback, the feedback on mine a refined
        final plan when someone disagreed."""
        body = text.strip()
        low = body.lower()
        if low.startswith(("meta-plan:", "final meta-plan:")):
            final = low.startswith("final")
            plan_text = body.split(":", 1)[1].strip()
            try:
                plan, norm = read_meta_plan("Meta-plan:\n" + _lines(plan_text, self.team), self.team, bed=self._bed)
            except ParseError:
                return  # a plan we cannot read changes nothing; our own planning goes on
            self._adopt(plan, norm)
            self._last_discussion = self._now
            self._waiting = None
            if final:
                return
            (agree, feedback), completion = await self._call(
                CAPO_FEEDBACK, "meta-plan feedback", read_feedback, OPPO_NAME=sender, META_PLAN=norm
            )
            said = f"Feedback: {feedback or 'OK.'} {'I agree.' if agree else 'I disagree.'}"
            self._queue(said, "capo: meta-plan feedback", completion, body=feedback or said)
        elif low.startswith("feedback:") and self._waiting is not None:
            self._waiting[sender] = ("i agree." in low, body.split(":", 1)[1].strip())
            if set(self._waiting) < set(self.partners):
                return
            answers, self._waiting = self._waiting, None
            if all(ok for ok, _ in answers.values()):
                return
            fb = "\n".join(f"{p}: {t}" for p, (_, t) in answers.items())
            norm, completion = await self._meta_plan(
                CAPO_REFINE, "meta-plan refinement", META_PLAN=self.meta_text, FEEDBACK=fb
            )
            self._queue(f"Final meta-plan: {norm}", "capo: final meta-plan", completion, body=norm)

    async def _choose(self, obs: Any) -> Intent | None:
        options = self._options(obs, self.meta.get(self.name, [])[:2])
        if not options:
            return None
        texts = [o.text for o in options]
        mine = self.meta.get(self.name, [])
        choice = await self._pick(
            CAPO_PLANNING,
            "progress-adaptive planning",
            texts,
            META_PLAN=self.meta_text or "None yet",
            MY_SUBTASKS="; ".join(s.text for s in mine) or "None",
        )
        return options[choice]


def _lines(plan_text: str, team: Sequence[str]) -> str:
    """A meta-plan sent on one line (``Alice: …; Bob: …``) back to one agent a line."""
    names = "|".join(re.escape(n) for n in team)
    return re.sub(rf"\s+(?=(?:{names})\s*:)", "\n", plan_text)

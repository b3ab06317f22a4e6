"""Symbolic collaborating agents: CoBel and the three baselines, over one belief substrate.

Every agent keeps a :class:`~mindloop.systems.cobel.mind.Mind` (zero- and first-order beliefs), plans with the
world's :class:`Domain` and differs only in how it coordinates:

* ``heuristic`` — plans from its own beliefs and never talks (MHP/RHP-like);
* ``coela`` — after every planning step sends a templated message with everything goal-relevant it knows and
  its plan, and avoids the plans partners announced (CoELA-style);
* ``capo`` — on progress events (start, a goal object found, a delivery) holds a three-round discussion: a
  proposed joint plan with what it knows, every partner's reply with what they know, a final plan (CaPo-style);
* ``cobel`` — CoBel-World's Bayesian belief collaboration: predicts each partner's top-three intents from its
  first-order beliefs (what it believes the partner knows), yields targets a partner is expected to take,
  detects conflicting plans and belief misalignment, and sends one concise message — the misaligned facts that
  change the partner's expected plan, and its own plan — only when that matters.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from mindloop.beliefs import Fact
from mindloop.beliefs.views.sbl import entity_parts
from mindloop.errors import InvalidArgumentError
from mindloop.systems.cobel.messages import Reading, read, render
from mindloop.systems.cobel.mind import CLAIM, INTENT, Intent, Mind, WorldView
from mindloop.systems.cobel.worlds.common import MAX_MESSAGE_CHARS, Action, Layout

STYLES = ("cobel", "coela", "capo", "heuristic")
"""The symbolic team styles."""

_EXCLUSIVE = frozenset({"grab", "explore", "check"})
"""Plan verbs whose target one agent takes up (two agents grabbing one object or exploring one room waste work);
delivering to the same place is not a conflict."""


class IntentFailed(Exception):  # noqa: N818 - control flow inside an agent, not an error for callers
    """The current plan step cannot be carried out any more (the object is gone, the target unknown…)."""


def entity_name(ref: str) -> str:
    """The class name of an SBL entity (``<apple>(12)`` -> ``apple``); ``ref`` itself when it is not one."""
    parts = entity_parts(ref)
    return parts[0] if parts else ref


def entity_id(ref: str) -> int:
    """The id of an SBL entity; :class:`IntentFailed` when ``ref`` is not one."""
    parts = entity_parts(ref)
    if parts is None:
        raise IntentFailed(f"{ref!r} is not an entity")
    return int(parts[1])


class Domain(Protocol):
    """What a world tells its agents: perception, plan options with costs, execution and relevance. A world's
    domain may derive from it for what both worlds' domains share: the map every agent knows from the start (rooms
    and doors, learnt in :meth:`setup`), the agent's room, and distances in doors times :attr:`hop`."""

    world: str
    inside: str
    idle: Action  # what an agent with nothing to do sends
    claim_ttl: int  # how long (the world's time unit) an announced plan keeps its claim
    hop: float  # what walking through one door costs (the world's unit)
    rooms: dict[str, str]  # room ref -> room name
    layout: Layout | None

    def setup(self, obs: Any) -> None:
        """Learn the static facts every agent knows: the rooms and doors."""
        self.rooms = {r.ref: r.name for r in obs.rooms}
        self.layout = Layout(tuple(r.id for r in obs.rooms), obs.doors)

    def t(self, obs: Any) -> int: ...
    def ready(self, obs: Any) -> bool: ...
    def room(self, obs: Any) -> str:
        """The agent's room, as an SBL entity."""
        return str(obs.room.ref)

    def _dist(self, a: str | None, b: str | None) -> float:
        """Expected cost from room ``a`` to room ``b``: doors times :attr:`hop` (two doors' worth when either is
        unknown)."""
        if a is None or b is None or self.layout is None:
            return 2.0 * self.hop
        return self.layout.hops(entity_id(a), entity_id(b)) * self.hop

    def holding(self, obs: Any) -> list[str]: ...
    def perceive(self, mind: Mind, obs: Any) -> None: ...
    def options(
        self, view: WorldView, who: str, room: str | None, holding: list[str], avoid: Mapping[str, float] | None = None
    ) -> list[Intent]: ...
    def next_action(self, intent: Intent, obs: Any, view: WorldView) -> Action | None: ...
    def still_valid(self, intent: Intent, view: WorldView, me: str, holding: list[str]) -> bool: ...
    def relevant_facts(self, view: WorldView, me: str) -> list[Fact]: ...


@dataclass(frozen=True)
class SentMessage:
    """A message an agent sent: when, by whom, the text, and why (the decision behind it)."""

    t: int
    sender: str
    text: str
    reason: str


class TeamAgent:
    """What every agent of a team keeps, symbolic or model-driven: its name, the team and its partners, the world's
    domain, its belief world (:class:`~mindloop.systems.cobel.mind.Mind`), the plan step it is on, the messages it
    sent and its trace; and how it takes in an observation and a partner's message."""

    def __init__(self, name: str, team: tuple[str, ...], domain: Domain) -> None:
        self.name = name
        self.team = team
        self.partners = tuple(p for p in team if p != name)
        self.domain = domain
        self.mind = Mind(name, team)
        self.intent: Intent | None = None
        self.sent: list[SentMessage] = []
        self.trace: list[str] = []
        self._setup = False
        self._now = 0

    def start_step(self, obs: Any) -> list[Any]:
        """What every agent does first with an observation: set its domain up on the first one, take the time
        (``_now``) and perceive into its mind. Returns the partners' messages it brings."""
        dom = self.domain
        if not self._setup:
            dom.setup(obs)
            self._setup = True
        self._now = dom.t(obs)
        dom.perceive(self.mind, obs)
        return [m for m in getattr(obs, "messages", ()) if m.sender != self.name]

    def hear(self, msg: Any, *, plan: bool = True) -> Reading:
        """Read a partner's message into my mind as testimony: the facts it states and (with ``plan``) the plan it
        announces, as the sender's intent. Returns the reading."""
        reading = read(msg.text, msg.sender, inside=self.domain.inside)
        facts = list(reading.facts)
        if plan and reading.plan is not None:
            facts.append(Fact(msg.sender, INTENT, f"{reading.plan[0]} {reading.plan[1]}"))
        if facts:
            self.mind.hear(msg.sender, facts, self._now, msg.text)
        return reading

    def _deliver(self, text: str, facts: list[Fact], reason: str) -> Action:
        """Send ``text`` now, for ``reason``: my mind takes in that the partners were told ``facts``, and the message
        is one I sent."""
        self.mind.tell(facts, self._now, text)
        self.sent.append(SentMessage(self._now, self.name, text, reason))
        return Action("send_message", text=text)

    def newly_found(self, view: WorldView, known: set[str]) -> set[str]:
        """The goal objects I now know of that are not in ``known`` (which takes them in): CaPo's progress event."""
        found = {f.subject for f in self.domain.relevant_facts(view, self.name) if f.relation != "EXPLORED"}
        new = found - known
        known |= found
        return new


_ASSIGN = re.compile(r"\b([A-Z][a-z]+):\s*([a-z]+)\s+(<[^<>()]+>\(\s*[A-Za-z0-9_.\-]+\s*\))")


class CollabAgent(TeamAgent):
    """One symbolic agent of a team (``style``: one of :data:`STYLES`); ``act(obs)`` returns its action for the
    step."""

    def __init__(self, name: str, team: tuple[str, ...], domain: Domain, style: str = "cobel") -> None:
        if style not in STYLES:
            raise InvalidArgumentError(f"unknown agent style {style!r} (known: {', '.join(STYLES)})")
        super().__init__(name, team, domain)
        self.style = style
        self.outbox: list[tuple[str, list[Fact], str]] = []
        self._assigned: dict[str, Intent] = {}
        self._known_goal_objects: set[str] = set()
        self._last_discussion = -(10**9)
        self._failed: dict[str, int] = {}

    # ---- the loop -------------------------------------------------------------------------------------------
    def act(self, obs: Any) -> Action:
        """Update beliefs from the observation, then plan, talk or act."""
        dom = self.domain
        self._hear(self.start_step(obs))
        if not dom.ready(obs):
            return dom.idle
        holding = dom.holding(obs)
        view = self.mind.view()
        if self.style == "capo":
            self._capo_events(view, obs)
        if self.intent is not None and not dom.still_valid(self.intent, view, self.name, holding):
            self.trace.append(f"t={self._now} drop {self.intent.text}")
            self.intent = None
        for _ in range(4):
            if self.intent is None:
                self._plan(view, obs, holding)
            if self.outbox:
                return self._send()
            if self.intent is None:
                return dom.idle
            try:
                action = dom.next_action(self.intent, obs, view)
            except IntentFailed as exc:
                self.trace.append(f"t={self._now} failed {self.intent.text}: {exc}")
                self._failed[self.intent.target] = self._now + self.domain.claim_ttl // 4
                self.intent = None
                continue
            if action is None:
                self.trace.append(f"t={self._now} done {self.intent.text}")
                self._on_done(self.intent)
                self.intent = None
                holding = dom.holding(obs)
                continue
            return action
        return dom.idle

    # ---- hearing and talking --------------------------------------------------------------------------------
    def _hear(self, new: list[Any]) -> None:
        for msg in new:
            reading = self.hear(msg)
            if self.style == "capo":
                self._capo_hear(msg.sender, msg.text)
            elif (
                self.style in ("coela", "cobel")
                and reading.plan is not None
                and self.intent is not None
                and self.intent.verb in _EXCLUSIVE
                and self.intent.target == reading.plan[1]
                and msg.sender < self.name
            ):
                # a partner announced a plan that takes up our target: replan
                self.trace.append(f"t={self._now} yield {self.intent.text} to {msg.sender}")
                self.intent = None

    def _queue(self, text: str, facts: list[Fact], reason: str) -> None:
        self.outbox.append((_fit(text), facts, reason))

    def _send(self) -> Action:
        return self._deliver(*self.outbox.pop(0))

    # ---- planning -------------------------------------------------------------------------------------------
    def _announced(self, view: WorldView) -> dict[str, Intent]:
        """Fresh plans partners announced (testimony) that are still worth doing as far as I believe, as intents."""
        out: dict[str, Intent] = {}
        ttl = self.domain.claim_ttl
        for p in self.partners:
            b = self.mind.tracker.store.believes((self.name,), p, INTENT)
            if b is None or b.value is None or self._now - b.since > ttl:
                continue
            verb, _, target = b.value.partition(" ")
            intent = Intent(verb, target)
            if self.domain.still_valid(intent, view, p, view.subjects_with("HELD_BY", p)):
                out[p] = intent
        return out

    def _plan(self, view: WorldView, obs: Any, holding: list[str]) -> None:
        dom = self.domain
        room = dom.room(obs)
        avoid: dict[str, float] = {t: CLAIM for t, until in self._failed.items() if until > self._now}
        if self.style in ("coela", "cobel", "capo"):
            for intent in self._announced(view).values():
                if intent.verb in _EXCLUSIVE:
                    avoid[intent.target] = CLAIM
        if self.style == "capo":
            for p, intent in self._assigned.items():
                if p != self.name:
                    avoid[intent.target] = CLAIM
            mine = self._assigned.pop(self.name, None)
            if mine is not None and dom.still_valid(mine, view, self.name, holding):
                self.intent = mine
                self.trace.append(f"t={self._now} follow agreed {mine.text}")
                return
        predictions: dict[str, list[tuple[Intent, float]]] = {}
        hard = dict(avoid)  # what others said they do, and what just failed
        if self.style == "cobel":
            predictions = {p: self._predict(p, view) for p in self.partners}
            mine_options = {i.target: i.cost for i in dom.options(view, self.name, room, holding, avoid)}
            for p, ranked in predictions.items():
                for k, (pi, prob) in enumerate(ranked):
                    if pi.verb not in _EXCLUSIVE:
                        continue
                    my_cost = mine_options.get(pi.target)
                    if k == 0 and my_cost is not None and (pi.cost, p) < (my_cost, self.name):
                        avoid[pi.target] = max(avoid.get(pi.target, 0.0), CLAIM)
                    else:
                        avoid[pi.target] = max(avoid.get(pi.target, 0.0), 2.0 * prob)
        options = dom.options(view, self.name, room, holding, avoid)
        forced = False
        if self.style == "cobel" and (not options or options[0].cost >= CLAIM):
            # Everything left is what I only *expect* others to do. Expectations can be mutual and wrong (each
            # yielding to the other), so take the best step anyway and say so.
            fallback = dom.options(view, self.name, room, holding, hard)
            if fallback and fallback[0].cost < CLAIM:
                options, forced = fallback, True
        self.intent = options[0] if options else None
        if self.intent is None:
            return
        self.trace.append(f"t={self._now} plan {self.intent.text} (cost {self.intent.cost:.1f})")
        if self.style == "coela":
            facts = dom.relevant_facts(view, self.name)
            others = ", ".join(self.partners)
            text = render(facts, self.name, plan=self.intent.text, greeting=f"Hi {others},")
            self._queue(text, [*facts, Fact(self.name, INTENT, self.intent.text)], "every planning step")
        elif self.style == "cobel":
            self._adaptive_collaboration(view, predictions, forced)

    def _predict(self, partner: str, view: WorldView) -> list[tuple[Intent, float]]:
        """Top-three intents of ``partner`` from what I believe it knows (first-order), with probabilities."""
        dom = self.domain
        pview = self.mind.view(partner)
        announced = self._announced(view).get(partner)
        room = pview.get(partner, "AT") or view.get(partner, "AT")
        holding = pview.subjects_with("HELD_BY", partner)
        avoid: dict[str, float] = {}
        mine = pview.get(self.name, INTENT)
        if mine is not None and mine.partition(" ")[0] in _EXCLUSIVE:
            avoid[mine.partition(" ")[2]] = CLAIM
        if announced is not None and not dom.still_valid(announced, pview, partner, holding):
            announced = None
        opts = dom.options(pview, partner, room, holding, avoid)[:3]
        ranked = [(i, math.exp(-i.cost / 4.0)) for i in opts]
        if announced is not None:
            others = [r for r in ranked if not r[0].same(announced)][:2]
            ranked = [(announced, 4.0 * sum(p for _, p in ranked) or 1.0), *others]
        total = sum(p for _, p in ranked) or 1.0
        ranked = [(i, p / total) for i, p in ranked]
        self.mind.predict(partner, ranked, self._now)
        return ranked

    def _adaptive_collaboration(
        self, view: WorldView, predictions: dict[str, list[tuple[Intent, float]]], forced: bool = False
    ) -> None:
        """Send one concise message when a conflict or a misalignment would make a partner waste effort.

        For each partner: its expected next step (top intent) is compared with my plan (a *conflict*: we would
        both take the same target and it cannot tell I am better placed) and with what I know (a *misalignment*:
        its step is pointless given my beliefs, or telling it what I know would send it somewhere it is better
        placed to go than I am). Only then do I say the facts behind it, and my plan.
        """
        assert self.intent is not None
        dom = self.domain
        mine = self.intent
        reasons: list[str] = []
        if forced and not all(self.mind.view(p).get(self.name, INTENT) == mine.text for p in self.partners):
            reasons.append(f"taking {mine.text}, which I expected a partner to take")
        to_tell: dict[tuple[str, str], Fact] = {}
        my_facts = dom.relevant_facts(view, self.name)
        my_room = view.get(self.name, "AT")
        my_costs = {
            i.target: i.cost for i in dom.options(view, self.name, my_room, view.subjects_with("HELD_BY", self.name))
        }
        for p, ranked in predictions.items():
            if not ranked:
                continue
            top = ranked[0][0]
            pview = self.mind.view(p)
            knows_plan = pview.get(self.name, INTENT) == mine.text
            knows_where = pview.get(self.name, "AT") == my_room
            if mine.verb in _EXCLUSIVE and top.same(mine) and not knows_plan and not knows_where:
                reasons.append(f"conflict with {p}: both {mine.text}")
            unknown = [f for f in my_facts if pview.get(f.subject, f.relation) != f.value]
            p_room = pview.get(p, "AT") or view.get(p, "AT")
            p_holding = pview.subjects_with("HELD_BY", p)
            obsolete = top.verb in _EXCLUSIVE and not dom.still_valid(top, view, p, p_holding)
            hypo = _Augmented(pview, unknown)
            avoid = {mine.target: CLAIM} if mine.verb in _EXCLUSIVE else {}
            after = dom.options(hypo, p, p_room, p_holding, avoid)
            new = after[0] if after else None
            better_placed = (
                new is not None
                and not new.same(top)
                and new.verb in _EXCLUSIVE
                and new.cost < my_costs.get(new.target, float("inf"))
            )
            if not (obsolete or better_placed):
                continue
            why = "pointless" if obsolete else f"better placed for {new.text if new else '-'}"
            reasons.append(f"misaligned with {p}: it would {top.text} ({why})")
            about = {top.target} | ({new.target} if new is not None else set())
            for f in unknown:
                if f.subject in about or f.value in about:
                    to_tell[f.key] = f
        if not reasons:
            return
        facts = list(to_tell.values())
        text = render(facts, self.name, plan=mine.text)
        self._queue(text, [*facts, Fact(self.name, INTENT, mine.text)], "; ".join(reasons))

    def _on_done(self, intent: Intent) -> None:
        if self.style == "capo" and intent.verb in ("deliver", "transport"):
            self._maybe_discuss("delivery done")

    # ---- CaPo-style discussion ------------------------------------------------------------------------------
    def _capo_events(self, view: WorldView, obs: Any) -> None:
        new = self.newly_found(view, self._known_goal_objects)
        if self._now <= 1 and self.name == min(self.team):
            self._maybe_discuss("start")
        elif new and self._now > 1:
            self._maybe_discuss(f"found {len(new)} goal object(s)")

    def _maybe_discuss(self, why: str) -> None:
        if self._now - self._last_discussion < 6 or self.outbox:
            return
        self._last_discussion = self._now
        view = self.mind.view()
        plan = self._joint_plan(view)
        facts = self.domain.relevant_facts(view, self.name)
        body = render(facts, self.name)
        text = (
            f"Hi {', '.join(self.partners)}, let's discuss our plan ({why}). {body} Proposed plan: {_plan_text(plan)}."
        )
        self._queue(text + " What do you think?", facts, f"capo proposal: {why}")
        self._pending_final = True
        self._adopt(plan)

    def _adopt(self, plan: Mapping[str, Intent]) -> None:
        """Take ``plan`` (a step per agent) as the agreed one and drop my current step to pick mine from it."""
        self._assigned = dict(plan)
        self.intent = None

    def _joint_plan(self, view: WorldView) -> dict[str, Intent]:
        dom = self.domain
        taken: dict[str, float] = {}
        plan: dict[str, Intent] = {}
        for agent in sorted(self.team):
            room = view.get(agent, "AT")
            holding = view.subjects_with("HELD_BY", agent)
            opts = dom.options(view, agent, room, holding, taken)
            if opts:
                plan[agent] = opts[0]
                taken[opts[0].target] = CLAIM
        return plan

    def _capo_hear(self, sender: str, text: str) -> None:
        assigned = {m.group(1): Intent(m.group(2), m.group(3).replace(" ", "")) for m in _ASSIGN.finditer(text)}
        if "Proposed plan" in text:
            self._adopt(assigned)
            view = self.mind.view()
            facts = self.domain.relevant_facts(view, self.name)
            mine = assigned.get(self.name)
            reply = f"Hi {sender}, {render(facts, self.name)} I agree."
            if mine is not None:
                reply += f" {self.name}: {mine.text}."
            self._queue(reply, facts, "capo reply")
            self._last_discussion = self._now
        elif "Final plan" in text:
            self._adopt(assigned)
        elif getattr(self, "_pending_final", False) and "I agree" in text:
            self._pending_final = False
            plan = self._joint_plan(self.mind.view())
            self._adopt(plan)
            self._queue(f"Final plan: {_plan_text(plan)}.", [], "capo final plan")


def _plan_text(plan: Mapping[str, Intent]) -> str:
    return "; ".join(f"{a}: {i.text}" for a, i in sorted(plan.items()))


def _fit(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Cut a message to ``limit`` characters at a sentence boundary, keeping its last sentence (the plan)."""
    if len(text) <= limit:
        return text
    sentences = re.split(r"(?<=[.?!])\s+", text)
    last = sentences[-1]
    kept: list[str] = []
    for s in sentences[:-1]:
        if len(" ".join([*kept, s, last])) > limit:
            break
        kept.append(s)
    out = " ".join([*kept, last])
    return out[:limit]


class _Augmented(WorldView):
    """A view with some facts overridden: what a partner would believe after being told them."""

    def __init__(self, base: WorldView, facts: Sequence[Fact]) -> None:
        self.facts = {k: dict(v) for k, v in base.facts.items()}
        self.distribution = dict(base.distribution)
        for f in facts:
            if f.value is None:
                self.facts.get(f.subject, {}).pop(f.relation, None)
            else:
                self.facts.setdefault(f.subject, {})[f.relation] = f.value

"""One agent's collaborative belief world: zero- and first-order beliefs on the belief core, read as views.

Each agent keeps its own :class:`~mindloop.beliefs.Tracker` (depth 2). What it perceives is an ``observe``
event whose witnesses are itself and the partners in the same room (co-presence is mutual observation, so the
agent also comes to believe that those partners believe it: a first-order belief). What it hears is an
utterance from the partner (it believes it, and believes the partner believes it); what it says is an utterance
to the partners (it believes they now believe it). Plans travel the same way, as the fact
``(agent, INTENT, plan)``. Predicted partner intents (top three, with probabilities) are written as
``(partner, LIKELY_INTENT, plan)`` beliefs with a distribution: belief prediction lives in the store too.

:class:`WorldView` reads one chain into plain dicts once per decision, so planners do not query slot by slot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from mindloop.beliefs import (
    Belief,
    BeliefStore,
    Chain,
    ChainScope,
    Event,
    EventKind,
    Fact,
    Source,
    Tracker,
    TrustEveryone,
    Utterance,
)
from mindloop.beliefs.views.sbl import CWAH_RULES, DEFAULT_VOCABULARY, TDW_RULES, RuleSet, format_belief

CLAIM = 10_000.0
"""Cost penalty on a target someone else has taken up: it rules the target out while anything else is left."""

INTENT = "INTENT"
"""Relation of an announced plan: ``(agent, INTENT, "grab <apple>(12)")``."""

LIKELY_INTENT = "LIKELY_INTENT"
"""Relation of a predicted plan, with the top-three distribution on the belief."""

_PLAN_RELATIONS = frozenset({INTENT, LIKELY_INTENT})


@dataclass(frozen=True, slots=True)
class Intent:
    """A high-level plan step: a verb (``explore``, ``check``, ``grab``, ``deliver``…) and a target entity."""

    verb: str
    target: str
    cost: float = 0.0

    @property
    def text(self) -> str:
        """The plan as words with SBL entity names, e.g. ``grab <apple>(12)``."""
        return f"{self.verb} {self.target}"

    def same(self, other: Intent | None) -> bool:
        """Same verb and target (costs aside)."""
        return other is not None and other.verb == self.verb and other.target == self.target


class WorldView:
    """One chain's beliefs as ``subject -> {relation: value}``, plus reverse lookups for planners."""

    def __init__(self, beliefs: Iterable[Belief]) -> None:
        self.facts: dict[str, dict[str, str]] = {}
        self.distribution: dict[tuple[str, str], tuple[tuple[str, float], ...]] = {}
        for b in beliefs:
            if b.fact.value is None:
                continue
            self.facts.setdefault(b.fact.subject, {})[b.fact.relation] = b.fact.value
            if b.distribution is not None:
                self.distribution[b.fact.key] = b.distribution

    def get(self, subject: str, relation: str) -> str | None:
        """The believed value of a slot, or ``None``."""
        rels = self.facts.get(subject)
        return rels.get(relation) if rels is not None else None

    def subjects_with(self, relation: str, value: str | None = None) -> list[str]:
        """Subjects holding ``relation`` (optionally with exactly ``value``), in first-seen order."""
        return [s for s, rels in self.facts.items() if relation in rels and (value is None or rels[relation] == value)]


class Mind:
    """An agent's collaborative belief world (zero- and first-order) on its own tracker."""

    def __init__(self, name: str, partners: Iterable[str], rules: RuleSet | None = None) -> None:
        self.name = name
        self.partners = tuple(p for p in partners if p != name)
        self.tracker = Tracker(max_depth=2, trust=TrustEveryone())
        self.rules = rules
        self.t = 0

    @property
    def store(self) -> BeliefStore:
        """The underlying belief store."""
        return self.tracker.store

    # ---- update ---------------------------------------------------------------------------------------------
    def perceive(self, facts: Iterable[Fact], copresent: Iterable[str], t: int) -> int:
        """Believe what was seen; co-present partners saw it too. Writes only what changed; returns how many."""
        self.t = max(self.t, t)
        witnesses = frozenset({self.name, *copresent})
        chains: list[Chain] = [(self.name,), *((self.name, p) for p in witnesses if p != self.name)]
        store = self.tracker.store
        changed = []
        for f in facts:
            for chain in chains:
                if store.value(chain, f.subject, f.relation) != f.value:
                    changed.append(f)
                    break
        if changed:
            self.tracker.apply(Event(self.t, EventKind.OBSERVE, self.name, tuple(changed), witnesses))
        return len(changed)

    def hear(self, speaker: str, facts: Iterable[Fact], t: int, text: str = "") -> None:
        """Adopt what ``speaker`` said (testimony), and believe the speaker believes it."""
        self.t = max(self.t, t)
        self.tracker.apply(Utterance(self.t, speaker, frozenset({self.name}), tuple(facts), True, text))

    def tell(self, facts: Iterable[Fact], t: int, text: str = "") -> None:
        """Record what this agent said: every partner now believes it (first-order), as far as it knows."""
        self.t = max(self.t, t)
        self.tracker.apply(Utterance(self.t, self.name, frozenset(self.partners), tuple(facts), True, text))

    def predict(self, partner: str, ranked: list[tuple[Intent, float]], t: int) -> None:
        """Store the top-three predicted intents of ``partner`` as one belief with a distribution."""
        self.t = max(self.t, t)
        if not ranked:
            return
        top = ranked[:3]
        total = sum(p for _, p in top) or 1.0
        dist = tuple((i.text, round(p / total, 4)) for i, p in top)
        self.tracker.store.write(
            Fact(partner, LIKELY_INTENT, top[0][0].text),
            scope=ChainScope(frozenset({(self.name,)})),
            t=self.t,
            source=Source.INFERENCE,
            confidence=dist[0][1],
            distribution=dist,
        )

    # ---- read -----------------------------------------------------------------------------------------------
    def chain(self, partner: str | None = None) -> Chain:
        """The zero-order chain (``partner=None``) or the first-order one about ``partner``."""
        return (self.name,) if partner is None else (self.name, partner)

    def view(self, partner: str | None = None) -> WorldView:
        """Zero-order view (``partner=None``) or the first-order view of what ``partner`` believes."""
        return WorldView(self.tracker.store.beliefs(self.chain(partner)))

    def value(self, subject: str, relation: str, partner: str | None = None) -> str | None:
        """One slot of the zero-order (or first-order about ``partner``) belief."""
        return self.tracker.store.value(self.chain(partner), subject, relation)

    def sbl(self, partner: str | None = None) -> list[str]:
        """The zero-order (or first-order about ``partner``) beliefs as SBL lines, plans left out."""
        beliefs = self.tracker.store.beliefs(self.chain(partner))
        return [format_belief(b, DEFAULT_VOCABULARY) for b in beliefs if b.fact.relation not in _PLAN_RELATIONS]

    def predicted(self, partner: str) -> tuple[tuple[str, float], ...]:
        """The stored top-three intent distribution for ``partner`` (empty if none)."""
        b = self.tracker.store.believes((self.name,), partner, LIKELY_INTENT)
        if b is None or b.distribution is None:
            return ()
        return b.distribution


RULES_BY_WORLD: Mapping[str, RuleSet] = {"cwah": CWAH_RULES, "tdw-mat": TDW_RULES}

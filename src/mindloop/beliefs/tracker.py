"""The tracker: applies world events and utterances to a belief store by perspective-taking.

Environments and story parsers emit :class:`Event` (what happened, which facts it made true, who witnessed it)
and :class:`Utterance` (who said what to whom). They never write beliefs directly. An event updates chain
``(a1, …, ak)`` exactly when every agent in the chain witnessed it, up to ``max_depth``; a ``believe`` event
instead names the chains that come to hold its facts (an inference the world need not share, such as what a
label says is inside a box). An utterance never changes the world; a :class:`TrustPolicy` decides which chains
adopt its content as Testimony, and the tracker guarantees that a speaker's own words never change the speaker's
own belief.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from mindloop.beliefs.facts import WORLD, Belief, Chain, Fact, Source, validate_chain
from mindloop.beliefs.store import BeliefStore, ChainScope, Mismatch, Scope, StoreView, WitnessScope, WorldScope
from mindloop.errors import BeliefError

DEFAULT_MAX_DEPTH = 6


class EventKind(StrEnum):
    """What kind of thing happened. ``observe`` events report facts that were seen, not made true; ``believe``
    events write their facts to the chains they name, and to nothing else (not the world, not the witnesses)."""

    ENTER = "enter"
    EXIT = "exit"
    PUT = "put"
    MOVE = "move"
    OPEN = "open"
    CLOSE = "close"
    OBSERVE = "observe"
    NOISE = "noise"
    OTHER = "other"
    BELIEVE = "believe"


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened at time ``t``: the facts it made true, and who witnessed it.

    For ``kind == "observe"`` the facts are perceived (already true in the world) rather than made true.

    For ``kind == "believe"`` the facts are written to exactly the holder ``chains`` given (each non-empty, at
    most ``max_depth`` deep is followed), with the event's ``source`` (typically ``Source.INFERENCE``), and the
    world and the witnesses' chains are left alone: the event says who comes to believe what, true or not (a
    label read as the box's contents, a rumour assumed). Only ``believe`` events carry ``chains``.

    >>> e = Event(3, EventKind.BELIEVE, "bob", (Fact("box", "contains", "a hat"),), frozenset(),
    ...           Source.INFERENCE, chains=frozenset({("bob",), ("alice", "bob")}))
    >>> sorted(e.chains)
    [('alice', 'bob'), ('bob',)]
    """

    t: int
    kind: EventKind
    actor: str | None
    facts: tuple[Fact, ...]
    witnesses: frozenset[str]
    source: Source = Source.PERCEPTION
    text: str = ""
    chains: frozenset[Chain] = frozenset()

    def __post_init__(self) -> None:
        # Fast paths first: environments build many events per step with the right types already.
        if type(self.t) is not int:
            _check_time(self.t, "an event")
        if type(self.kind) is not EventKind:
            try:
                object.__setattr__(self, "kind", EventKind(self.kind))
            except ValueError:
                known = ", ".join(k.value for k in EventKind)
                raise BeliefError(f"unknown event kind {self.kind!r} (known: {known})") from None
        if self.actor is not None and (type(self.actor) is not str or not self.actor):
            raise BeliefError(f"an event's actor must be a non-empty string or None, got {self.actor!r}")
        if type(self.facts) is not tuple or not all(type(f) is Fact for f in self.facts):
            object.__setattr__(self, "facts", _facts(self.facts, "an event"))
        if type(self.witnesses) is not frozenset or not all(type(n) is str and n for n in self.witnesses):
            object.__setattr__(self, "witnesses", _names(self.witnesses, "witnesses"))
        if type(self.source) is not Source:
            object.__setattr__(self, "source", _source(self.source))
        if self.chains or self.kind is EventKind.BELIEVE:
            object.__setattr__(self, "chains", _believers(self.kind, self.chains))


def _believers(kind: EventKind, chains: object) -> frozenset[Chain]:
    """The holder chains of a ``believe`` event: a non-empty collection of non-empty chains; none elsewhere."""
    if kind is not EventKind.BELIEVE:
        raise BeliefError(f"only a 'believe' event names the chains it writes to, not a {kind.value!r} event")
    single = isinstance(chains, tuple) and any(isinstance(c, str) for c in chains)  # one chain, not a set of them
    if single or isinstance(chains, str) or not isinstance(chains, Iterable):
        raise BeliefError(
            f"a believe event's chains must be a collection of holder chains (e.g. {{('bob',)}}), got {chains!r}"
        )
    out = frozenset(validate_chain(c) for c in chains)
    if not out or WORLD in out:
        raise BeliefError(
            "a believe event needs at least one holder chain and never the world () (world facts are made true by "
            f"the other kinds), got {sorted(out)!r}"
        )
    return out


@dataclass(frozen=True, slots=True)
class Utterance:
    """``speaker`` states ``facts`` to ``listeners`` at time ``t``; public when everyone around can hear."""

    t: int
    speaker: str
    listeners: frozenset[str]
    facts: tuple[Fact, ...]
    public: bool
    text: str = ""

    def __post_init__(self) -> None:
        _check_time(self.t, "an utterance")
        if not isinstance(self.speaker, str) or not self.speaker:
            raise BeliefError(f"an utterance's speaker must be a non-empty string, got {self.speaker!r}")
        object.__setattr__(self, "facts", _facts(self.facts, "an utterance"))
        object.__setattr__(self, "listeners", _names(self.listeners, "listeners"))


def _check_time(t: object, what: str) -> None:
    """Times are finite numbers: a NaN would compare false with everything and let out-of-order writes in."""
    if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
        raise BeliefError(f"the time of {what} must be a finite number, got {t!r}")


def _facts(facts: object, what: str) -> tuple[Fact, ...]:
    if isinstance(facts, Fact) or not isinstance(facts, Iterable) or isinstance(facts, str):
        raise BeliefError(f"the facts of {what} must be a sequence of Fact, got {facts!r}")
    out: list[Fact] = []
    for f in facts:
        if not isinstance(f, Fact):
            raise BeliefError(f"the facts of {what} must be Fact objects, got {f!r}")
        out.append(f)
    return tuple(out)


def _names(names: object, what: str) -> frozenset[str]:
    """A set of agent names; a bare string is refused (it would silently become a set of its letters)."""
    if isinstance(names, str):
        raise BeliefError(f"{what} must be a collection of agent names, got the string {names!r}: use {{{names!r}}}")
    if not isinstance(names, Iterable):
        raise BeliefError(f"{what} must be a collection of agent names, got {names!r}")
    out: set[str] = set()
    for n in names:
        if not isinstance(n, str) or not n:
            raise BeliefError(f"{what} must be non-empty agent names, got {n!r}")
        out.add(n)
    return names if isinstance(names, frozenset) else frozenset(out)


def _source(source: object) -> Source:
    try:
        return Source(str(source))
    except ValueError:
        known = ", ".join(s.value for s in Source)
        raise BeliefError(f"unknown belief source {source!r} (known: {known})") from None


@dataclass(frozen=True)
class TrustContext:
    """What a trust policy may consult: depth limit and the time of each agent's latest exit."""

    max_depth: int
    last_exit: Mapping[str, int]

    def exit_time(self, agent: str) -> float:
        """When ``agent`` last left a place (``inf`` if it never did: it stayed and saw the most)."""
        return self.last_exit.get(agent, math.inf)


class TrustPolicy(Protocol):
    """Decides which chains adopt what an utterance says, as scopes of the belief store."""

    @property
    def name(self) -> str:
        """Short name, used in reports and errors."""
        ...

    def scopes(self, utterance: Utterance, context: TrustContext) -> list[Scope]:
        """Scopes of chains that come to hold the utterance's content as Testimony."""
        ...


@dataclass(frozen=True)
class TrustEveryone:
    """Everyone who hears believes, and that is common knowledge among speaker and hearers.

    Every chain made of the speaker and the listeners adopts the content, except the speaker's own belief.
    """

    name: str = "everyone"

    def scopes(self, utterance: Utterance, context: TrustContext) -> list[Scope]:
        """One witness scope over speaker and listeners, excluding the speaker's own belief."""
        hearers = utterance.listeners | {utterance.speaker}
        return [WitnessScope(hearers, context.max_depth, exclude=frozenset({(utterance.speaker,)}))]


@dataclass(frozen=True)
class TrustNoOne:
    """Nobody adopts anything said: utterances leave every belief as it was."""

    name: str = "none"

    def scopes(self, utterance: Utterance, context: TrustContext) -> list[Scope]:
        """No scope: nothing changes."""
        return []


@dataclass(frozen=True)
class HiToMTrust:
    """Hi-ToM's rule (Wu et al., 2023): a listener trusts a speaker who left the room later than itself.

    The exit order is known to all. As in the dataset's generator, testimony reaches first- and second-order
    chains only:

    * every listener ``b`` who trusts the speaker ``s`` (a *believer*) adopts it, and believes ``s`` believes it;
    * the speaker believes every listener believes it;
    * for a public claim every listener ``m`` also believes every other believer ``b`` believes it.

    Deeper chains keep what they perceived.
    """

    name: str = "hitom"

    def scopes(self, utterance: Utterance, context: TrustContext) -> list[Scope]:
        """Explicit first- and second-order chains, per the rule above."""
        s = utterance.speaker
        listeners = utterance.listeners - {s}
        believers = {b for b in listeners if context.exit_time(s) > context.exit_time(b)}
        chains: set[Chain] = set()
        for b in believers:
            chains.add((b,))
            chains.add((b, s))
        for listener in listeners:
            chains.add((s, listener))
        if utterance.public:
            chains.update((m, b) for m in listeners for b in believers if m != b)
        chains = {c for c in chains if len(c) <= context.max_depth}
        return [ChainScope(frozenset(chains))] if chains else []


TRUST_POLICIES: dict[str, type[TrustEveryone] | type[TrustNoOne] | type[HiToMTrust]] = {
    "everyone": TrustEveryone,
    "none": TrustNoOne,
    "hitom": HiToMTrust,
}


def trust_policy(name: str) -> TrustPolicy:
    """The built-in trust policy called ``name`` (``everyone``, ``none`` or ``hitom``)."""
    try:
        return TRUST_POLICIES[name]()
    except KeyError:
        known = ", ".join(sorted(TRUST_POLICIES))
        raise BeliefError(f"unknown trust policy {name!r} (known: {known})") from None


@dataclass
class Tracker:
    """Follows events and utterances and keeps every chain's beliefs, up to ``max_depth`` deep.

    >>> from mindloop.beliefs import Fact, Event, EventKind, Tracker
    >>> tr = Tracker()
    >>> tr.apply(Event(1, EventKind.PUT, "sally", (Fact("ball", "in", "basket"),), frozenset({"sally", "anne"})))
    >>> tr.apply(Event(2, EventKind.MOVE, "anne", (Fact("ball", "in", "box"),), frozenset({"anne"})))
    >>> tr.value(("sally",), "ball", "in"), tr.value(("anne", "sally"), "ball", "in"), tr.value((), "ball", "in")
    ('basket', 'basket', 'box')
    """

    max_depth: int = DEFAULT_MAX_DEPTH
    trust: TrustPolicy = field(default_factory=TrustEveryone)
    store: BeliefStore = field(default_factory=BeliefStore)

    def __post_init__(self) -> None:
        if isinstance(self.max_depth, bool) or not isinstance(self.max_depth, int) or self.max_depth < 1:
            raise BeliefError(f"max_depth must be a whole number of at least 1, got {self.max_depth!r}")
        if isinstance(self.trust, str):  # the names docs use: Tracker(trust="hitom")
            self.trust = trust_policy(self.trust)
        elif not callable(getattr(self.trust, "scopes", None)):
            raise BeliefError(f"trust must be a trust policy or one of {sorted(TRUST_POLICIES)}, got {self.trust!r}")
        self._last_exit: dict[str, int] = {}
        self._scopes: dict[frozenset[str], WitnessScope] = {}
        self.log: list[Event | Utterance] = []

    # ---- applying ------------------------------------------------------------------------------------------
    def apply(self, item: Event | Utterance) -> None:
        """Apply one event or utterance (time must not go backwards)."""
        if isinstance(item, Event):
            self._apply_event(item)
        elif isinstance(item, Utterance):
            self._apply_utterance(item)
        else:
            raise BeliefError(f"the tracker applies Event or Utterance, got {type(item).__name__}")
        self.log.append(item)

    def apply_all(self, items: Iterable[Event | Utterance]) -> None:
        """Apply events and utterances in order."""
        for item in items:
            self.apply(item)

    def _apply_event(self, event: Event) -> None:
        if event.kind is EventKind.BELIEVE:
            held = frozenset(c for c in event.chains if len(c) <= self.max_depth)
            if event.facts and held:
                self.store.write_many(event.facts, scope=ChainScope(held), t=event.t, source=event.source)
            return
        if event.facts:
            store = self.store
            if event.kind is not EventKind.OBSERVE:
                store.write_many(event.facts, scope=_WORLD_SCOPE, t=event.t, source=Source.NARRATION)
            witnesses = event.witnesses
            if witnesses:
                # One scope object per witness set: co-present groups recur, so writes share them.
                scope = self._scopes.get(witnesses)
                if scope is None:
                    scope = self._scopes[witnesses] = WitnessScope(witnesses, self.max_depth)
                store.write_many(event.facts, scope=scope, t=event.t, source=event.source)
        if event.kind is EventKind.EXIT and event.actor is not None:
            self._last_exit[event.actor] = event.t

    def _apply_utterance(self, utterance: Utterance) -> None:
        context = TrustContext(self.max_depth, dict(self._last_exit))
        scopes = self.trust.scopes(utterance, context)
        own = (utterance.speaker,)
        for scope in scopes:
            if scope.covers(own):
                raise BeliefError(
                    f"trust policy {self.trust.name!r} would change the speaker {utterance.speaker!r}'s own belief"
                )
            self.store.write_many(utterance.facts, scope=scope, t=utterance.t, source=Source.TESTIMONY)

    # ---- querying ------------------------------------------------------------------------------------------
    @property
    def agents(self) -> list[str]:
        """Every agent named by an applied event or utterance, sorted."""
        names: set[str] = set()
        for item in self.log:
            if isinstance(item, Event):
                names.update(item.witnesses)
                if item.actor is not None:
                    names.add(item.actor)
            else:
                names.add(item.speaker)
                names.update(item.listeners)
        return sorted(names)

    def believes(self, chain: Chain, subject: str, relation: str, *, at: int | None = None) -> Belief | None:
        """What ``chain`` believes about the slot (see :meth:`BeliefStore.believes`)."""
        self._check_depth(chain)
        return self.store.believes(chain, subject, relation, at=at)

    def value(self, chain: Chain, subject: str, relation: str, *, at: int | None = None) -> str | None:
        """The value ``chain`` believes the slot holds, or ``None``."""
        self._check_depth(chain)
        return self.store.value(chain, subject, relation, at=at)

    def mismatches(self, chain: Chain, *, at: int | None = None) -> list[Mismatch]:
        """Beliefs of ``chain`` that disagree with the world."""
        self._check_depth(chain)
        return self.store.mismatches(chain, at=at)

    def history(self, chain: Chain, subject: str, relation: str, *, at: int | None = None) -> list[Belief]:
        """How ``chain``'s belief about the slot changed over time."""
        self._check_depth(chain)
        return self.store.history(chain, subject, relation, at=at)

    def snapshot(self, t: int) -> StoreView:
        """The store as it stood after time ``t``."""
        return self.store.snapshot(t)

    def world(self, subject: str, relation: str, *, at: int | None = None) -> str | None:
        """The true value of the slot."""
        return self.store.value(WORLD, subject, relation, at=at)

    def _check_depth(self, chain: Chain) -> None:
        if len(chain) > self.max_depth:
            raise BeliefError(
                f"chain {chain!r} has depth {len(chain)} but this tracker follows beliefs only to depth "
                f"{self.max_depth}; create Tracker(max_depth={len(chain)}) or more"
            )


_WORLD_SCOPE: Scope = WorldScope()

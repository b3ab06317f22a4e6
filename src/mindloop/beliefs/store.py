"""The belief store: who believes what, since when, from what source — for chains of any depth.

The store does not keep a copy of the world per chain. It keeps, per fact slot ``(subject, relation)``, the
time-ordered log of *writes*; each write carries a :class:`Scope` saying which chains it reaches (the world
only; every chain made of a set of witnesses; or an explicit set of chains). A chain's belief about a slot is
the newest write whose scope covers it. Memory therefore grows with the number of writes (facts that changed),
not with agents × depth, and any chain — however deep — can be asked without having been materialised.
See ``docs/beliefs.md`` for the scaling argument.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from mindloop.beliefs.facts import WORLD, Belief, Chain, Fact, Key, Source, validate_chain
from mindloop.errors import BeliefError


@dataclass(frozen=True, slots=True)
class WorldScope:
    """Reaches the world chain ``()`` only: ground truth."""

    def covers(self, chain: Chain) -> bool:
        """True only for the world chain."""
        return not chain


@dataclass(frozen=True, slots=True)
class WitnessScope:
    """Reaches every chain of depth 1..``max_depth`` made only of ``witnesses`` (minus ``exclude``).

    This is perspective-taking: if Alice and Bob both saw an event, Alice believes its outcome, believes Bob
    believes it, believes Bob believes she believes it, and so on (co-presence is mutual observation).
    """

    witnesses: frozenset[str]
    max_depth: int
    exclude: frozenset[Chain] = frozenset()

    def covers(self, chain: Chain) -> bool:
        """True when the chain is non-empty, not too deep, every member witnessed, and it is not excluded."""
        return (
            0 < len(chain) <= self.max_depth and all(a in self.witnesses for a in chain) and chain not in self.exclude
        )


@dataclass(frozen=True, slots=True)
class ChainScope:
    """Reaches exactly the listed chains (used for testimony and direct writes)."""

    chains: frozenset[Chain]

    def covers(self, chain: Chain) -> bool:
        """True for the listed chains only."""
        return chain in self.chains


Scope = WorldScope | WitnessScope | ChainScope


class _Write(NamedTuple):
    t: int
    value: str | None
    source: Source
    scope: Scope
    confidence: float | None
    distribution: tuple[tuple[str, float], ...] | None


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A belief of ``held.chain`` whose value differs from the world's (a false or stale belief)."""

    held: Belief
    actual: str | None

    @property
    def key(self) -> Key:
        """The fact slot on which belief and world disagree."""
        return self.held.fact.key


class BeliefStore:
    """Time-indexed beliefs of every holder chain, stored as scoped writes per fact slot.

    Writes must arrive in non-decreasing time. Every query takes an optional ``at`` (time step): the answer
    is what held after all writes with ``t <= at``; ``None`` means now.
    """

    def __init__(self) -> None:
        self._log: dict[Key, list[_Write]] = {}
        self._now = -1
        self._n_writes = 0

    # ---- writing -------------------------------------------------------------------------------------------
    def write(
        self,
        fact: Fact,
        *,
        scope: Scope,
        t: int,
        source: Source = Source.UNKNOWN,
        confidence: float | None = None,
        distribution: tuple[tuple[str, float], ...] | None = None,
    ) -> None:
        """Record that the chains in ``scope`` hold ``fact`` from time ``t`` on."""
        if confidence is not None and not 0.0 <= confidence <= 1.0:
            raise BeliefError(f"confidence must lie in [0, 1], got {confidence}")
        self._advance(t, 1)
        entry = _Write(t, fact.value, source, scope, confidence, distribution)
        self._log.setdefault((fact.subject, fact.relation), []).append(entry)

    def write_many(self, facts: Sequence[Fact], *, scope: Scope, t: int, source: Source = Source.UNKNOWN) -> None:
        """Record several categorical facts for one scope at one time (the tracker's fast path)."""
        self._advance(t, len(facts))
        log = self._log
        for fact in facts:  # no setdefault (a new list per call): this loop is the hot path of every story
            key = (fact.subject, fact.relation)
            entry = _Write(t, fact.value, source, scope, None, None)
            writes = log.get(key)
            if writes is None:
                log[key] = [entry]
            else:
                writes.append(entry)

    def _advance(self, t: int, n: int) -> None:
        if t < self._now:
            raise BeliefError(f"write at t={t} arrives after t={self._now}: writes must be in time order")
        self._now = t
        self._n_writes += n

    def set_world(self, fact: Fact, *, t: int, source: Source = Source.NARRATION) -> None:
        """Make ``fact`` true in the world from ``t`` on."""
        self.write(fact, scope=WorldScope(), t=t, source=source)

    def assert_belief(
        self,
        chain: Chain,
        fact: Fact,
        *,
        t: int,
        source: Source,
        confidence: float | None = None,
    ) -> None:
        """Write one belief for one chain directly (for agents keeping their own belief tables)."""
        validate_chain(chain)
        scope: Scope = WorldScope() if not chain else ChainScope(frozenset({chain}))
        self.write(fact, scope=scope, t=t, source=source, confidence=confidence)

    # ---- reading -------------------------------------------------------------------------------------------
    @property
    def now(self) -> int:
        """Time of the latest write (-1 when empty)."""
        return self._now

    @property
    def n_writes(self) -> int:
        """Number of writes recorded: the store's size."""
        return self._n_writes

    def keys(self) -> list[Key]:
        """Every fact slot anyone has ever held a value for, in first-written order."""
        return list(self._log)

    def believes(self, chain: Chain, subject: str, relation: str, *, at: int | None = None) -> Belief | None:
        """What ``chain`` believes about ``(subject, relation)`` at time ``at``; ``None`` if it holds nothing.

        A slot that was emptied (value ``None``) also answers ``None``.
        """
        validate_chain(chain)
        write = self._latest(chain, (subject, relation), at)
        if write is None or write.value is None:
            return None
        return self._belief(chain, (subject, relation), write)

    def value(self, chain: Chain, subject: str, relation: str, *, at: int | None = None) -> str | None:
        """Shorthand for the believed value, or ``None`` (read from the log: no :class:`Belief` is built)."""
        validate_chain(chain)
        write = self._latest(chain, (subject, relation), at)
        return None if write is None else write.value

    def beliefs(self, chain: Chain, *, at: int | None = None) -> list[Belief]:
        """Every belief ``chain`` holds at ``at``, in slot order."""
        out = []
        for key in self._log:
            write = self._latest(chain, key, at)
            if write is not None and write.value is not None:
                out.append(self._belief(chain, key, write))
        return out

    def mismatches(self, chain: Chain, *, at: int | None = None) -> list[Mismatch]:
        """Beliefs of ``chain`` whose value differs from the world's at ``at`` (false or stale beliefs).

        Slots the chain holds no value for are not mismatches (ignorance is not a false belief).
        """
        if not validate_chain(chain):
            return []
        out = []
        for belief in self.beliefs(chain, at=at):
            actual = self.value(WORLD, *belief.fact.key, at=at)
            if actual != belief.value:
                out.append(Mismatch(belief, actual))
        return out

    def history(self, chain: Chain, subject: str, relation: str, *, at: int | None = None) -> list[Belief]:
        """Each change of what ``chain`` believed about the slot, oldest first (up to ``at``).

        Consecutive writes of the same value are merged, keeping the earliest ``since``.
        """
        validate_chain(chain)
        key = (subject, relation)
        out: list[Belief] = []
        last: str | None = None
        for write in self._log.get(key, ()):
            if at is not None and write.t > at:
                break
            if not write.scope.covers(chain):
                continue
            if out and write.value == last:
                continue
            last = write.value
            if write.value is not None:
                out.append(self._belief(chain, key, write))
        return out

    def snapshot(self, t: int) -> StoreView:
        """A read-only view of the store as it stood after time ``t``."""
        return StoreView(self, t)

    @staticmethod
    def holders(agents: Iterable[str], max_depth: int) -> Iterator[Chain]:
        """All chains over ``agents`` up to ``max_depth`` (no agent directly nested in itself), world first."""
        names = sorted(set(agents))
        yield WORLD
        frontier: list[Chain] = [WORLD]
        for _ in range(max_depth):
            frontier = [(*c, a) for c in frontier for a in names if not c or c[-1] != a]
            yield from frontier

    # ---- internals -----------------------------------------------------------------------------------------
    def _latest(self, chain: Chain, key: Key, at: int | None) -> _Write | None:
        writes = self._log.get(key)
        if not writes:
            return None
        for write in reversed(writes):
            if at is not None and write.t > at:
                continue
            if write.scope.covers(chain):
                return write
        return None

    @staticmethod
    def _belief(chain: Chain, key: Key, write: _Write) -> Belief:
        return Belief(
            chain=chain,
            fact=Fact(key[0], key[1], write.value),
            source=write.source,
            since=write.t,
            confidence=write.confidence,
            distribution=write.distribution,
        )


class StoreView:
    """The store frozen at a time step: the same questions, answered as of ``t``."""

    def __init__(self, store: BeliefStore, t: int) -> None:
        self._store = store
        self.t = t

    def believes(self, chain: Chain, subject: str, relation: str) -> Belief | None:
        """What ``chain`` believed about the slot at this view's time."""
        return self._store.believes(chain, subject, relation, at=self.t)

    def value(self, chain: Chain, subject: str, relation: str) -> str | None:
        """The believed value at this view's time, or ``None``."""
        return self._store.value(chain, subject, relation, at=self.t)

    def beliefs(self, chain: Chain) -> list[Belief]:
        """Every belief the chain held at this view's time."""
        return self._store.beliefs(chain, at=self.t)

    def mismatches(self, chain: Chain) -> list[Mismatch]:
        """False beliefs of the chain at this view's time."""
        return self._store.mismatches(chain, at=self.t)

    def history(self, chain: Chain, subject: str, relation: str) -> list[Belief]:
        """History of the slot for the chain up to this view's time."""
        return self._store.history(chain, subject, relation, at=self.t)

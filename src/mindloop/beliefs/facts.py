"""Facts, holder chains and beliefs with provenance: the vocabulary of the belief core.

A *holder chain* is a tuple of agent names. ``()`` is the world (ground truth); ``("alice",)`` is what Alice
believes; ``("robot", "alice")`` is what the robot believes Alice believes. Its depth is its length, which is
OmniToM's *Order*, CoBel-World's zero-/first-order (depth 1/2) and MindPower's second-order belief (depth 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mindloop.errors import BeliefError

Chain = tuple[str, ...]
"""Who holds a belief: ``()`` for the world, ``(a,)`` for agent a, ``(a, b)`` for what a believes b believes."""

Key = tuple[str, str]
"""``(subject, relation)``: the slot a single-valued fact fills."""

WORLD: Chain = ()


class Source(StrEnum):
    """Where a belief came from (OmniToM's Mental Source dimension)."""

    NARRATION = "Narration"
    PERCEPTION = "Perception"
    MEMORY = "Memory"
    TESTIMONY = "Testimony"
    INFERENCE = "Inference"
    IMAGINATION = "Imagination"
    UNKNOWN = "Unknown"


@dataclass(frozen=True, slots=True)
class Fact:
    """An immutable ``(subject, relation, value)`` triple; ``value=None`` means the slot is empty.

    Relations are single-valued: an object is in one place, a door is open or closed. So a fact is identified
    by its :attr:`key` and a newer fact with the same key replaces an older one.
    """

    subject: str
    relation: str
    value: str | None

    def __post_init__(self) -> None:
        ok_value = self.value is None or type(self.value) is str
        if ok_value and type(self.subject) is str and type(self.relation) is str and self.subject and self.relation:
            return
        if not isinstance(self.subject, str) or not self.subject:
            raise BeliefError(f"a fact's subject must be a non-empty string, got {self.subject!r}")
        if not isinstance(self.relation, str) or not self.relation:
            raise BeliefError(f"a fact's relation must be a non-empty string, got {self.relation!r}")
        if self.value is not None and not isinstance(self.value, str):
            raise BeliefError(f"a fact's value must be a string or None, got {self.value!r}")

    @property
    def key(self) -> Key:
        """The ``(subject, relation)`` slot this fact fills."""
        return (self.subject, self.relation)

    def __str__(self) -> str:
        return f"{self.subject} {self.relation} {self.value if self.value is not None else '∅'}"


@dataclass(frozen=True, slots=True)
class Belief:
    """A fact held by a chain, with provenance.

    ``since`` is the time step at which the chain came to hold it. ``confidence`` is optional (``None`` means
    categorical); ``distribution`` optionally spreads belief over alternative values, for prediction.
    """

    chain: Chain
    fact: Fact
    source: Source
    since: int
    confidence: float | None = None
    distribution: tuple[tuple[str, float], ...] | None = None

    @property
    def value(self) -> str | None:
        """The believed value of the fact's slot."""
        return self.fact.value

    @property
    def depth(self) -> int:
        """Nesting depth of the holder (0 = world)."""
        return len(self.chain)


def validate_chain(chain: Chain) -> Chain:
    """Check that a chain is a tuple of non-empty names with no agent directly nested in itself.

    ``("a", "a")`` ("a believes that a believes") collapses to ``("a",)`` for an introspective agent, so it is
    rejected rather than stored twice.
    """
    if not isinstance(chain, tuple):
        raise BeliefError(f"a holder chain must be a tuple of agent names, got {chain!r}")
    for i, name in enumerate(chain):
        if not isinstance(name, str) or not name:
            raise BeliefError(f"holder chain {chain!r} has an invalid agent name at position {i}")
        if i and chain[i - 1] == name:
            raise BeliefError(f"holder chain {chain!r} nests {name!r} directly inside itself")
    return chain


def chain_str(chain: Chain) -> str:
    """Human form of a chain: ``world``, ``alice``, ``robot > alice``."""
    return " > ".join(chain) if chain else "world"

"""The Symbolic Belief Language of CoBel-World (appendix C.1) as a view of the belief core.

A line says who believes what: ``Alice BELIEVE Bob BELIEVE <apple>(12) IN <kitchen>(2000)`` is the fact
``<apple>(12) IN <kitchen>(2000)`` held by the chain ``("Alice", "Bob")``. Atomic beliefs are
``?entity PREDICATE ?entity`` or ``?entity ATTRIBUTE ?state``; concrete non-agent entities are written
``<name>(id)``, agents as bare names, states as bare words (``none``, ``part``, ``all``, ``opened``).

The parser and the printer go between lines and :class:`~mindloop.beliefs.Fact` / :class:`~mindloop.beliefs.Belief`,
so an agent's store *is* its SBL belief world. Relations whose object side is the functional one (an object is
held by one agent, but an agent holds two objects) are stored under an inverse slot: ``Bob HOLD <apple>(1)``
is the fact ``<apple>(1) HELD_BY Bob``. Belief rules (Fig. 7) are data: :class:`RuleSet` parses the paper's
rule text and says which rule, if any, admits a statement.

>>> s = parse_line("Alice BELIEVE Bob BELIEVE <apple>(12) IN <kitchen>(2000)")
>>> s.chain, s.to_fact()
(('Alice', 'Bob'), Fact(subject='<apple>(12)', relation='IN', value='<kitchen>(2000)'))
>>> str(parse_line("Alice BELIEVE Bob HOLD <banana> (7)."))
'Alice BELIEVE Bob HOLD <banana>(7)'
>>> parse_line("Alice BELIEVE Bob HOLD <banana>(7)").to_fact()
Fact(subject='<banana>(7)', relation='HELD_BY', value='Bob')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from mindloop.beliefs.facts import Belief, Chain, Fact, Source, validate_chain
from mindloop.beliefs.store import BeliefStore, StoreView
from mindloop.beliefs.vocab import AT, ROOM, surface_map
from mindloop.errors import BeliefError, ParseError

__all__ = [
    "CANONICAL_RELATIONS",
    "CWAH_RULES",
    "CWAH_RULES_TEXT",
    "DEFAULT_VOCABULARY",
    "FIG7_RULES",
    "FIG7_RULES_TEXT",
    "SBL_DEFINITION",
    "TDW_RULES",
    "BeliefRule",
    "Relation",
    "RuleSet",
    "SblIssue",
    "SblParse",
    "SblStatement",
    "Vocabulary",
    "entity",
    "entity_parts",
    "format_belief",
    "format_fact",
    "parse",
    "parse_lenient",
    "parse_line",
    "parse_rules",
    "store_lines",
    "term_typer",
    "write_statements",
]

BELIEVE = "BELIEVE"

SBL_DEFINITION = """\
Atomic belief: ?belief ::= ?entity PREDICATE ?entity | ?entity ATTRIBUTE ?state
PREDICATE: a relational verb or spatial/state descriptor (e.g., IN, HOLD, AT, INSIDE, NEAR, CONTAIN, ON).
ATTRIBUTE: a unary property of an entity (e.g., EXPLORED, EXPLORATION_STATE, CONTENTS, STATE).
?entity: any agent, object, or location (e.g., Alice, <apple>(123), <kitchen>(2000)). All concrete non-agent \
entities must be denoted as <name>(id); agent names appear as bare identifiers (e.g., Alice).
?state: a discrete condition or status (e.g., none, part, all, opened, closed).
Zero-order belief: ?agent BELIEVE ?belief
First-order belief: ?agentA BELIEVE ?agentB BELIEVE ?belief"""
"""The language definition of appendix C.1, as the ``$BELIEF_LANGUAGE$`` of the rule-construction prompts."""


# ---- vocabulary -------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Relation:
    """A relation word: a binary ``predicate`` between entities or a unary ``attribute`` with a state value.

    ``inverse`` names the slot used when the *object* is the functional side (``HOLD`` → ``HELD_BY``): the
    belief core keys facts by ``(subject, relation)``, and one agent holds several objects.
    """

    name: str
    kind: Literal["predicate", "attribute"]
    inverse: str | None = None


@dataclass(frozen=True)
class Vocabulary:
    """The relation words a parser accepts, by name; :meth:`extend` adds more (open-world rules)."""

    relations: Mapping[str, Relation]
    _by_inverse: Mapping[str, Relation] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "_by_inverse", {r.inverse: r for r in self.relations.values() if r.inverse is not None}
        )

    @classmethod
    def of(cls, *relations: Relation) -> Vocabulary:
        """A vocabulary of these relations."""
        return cls({r.name: r for r in relations})

    def get(self, name: str) -> Relation | None:
        """The relation called ``name``, or ``None``."""
        return self.relations.get(name)

    def by_slot(self, slot: str) -> Relation | None:
        """The relation stored under the inverse slot ``slot`` (``HELD_BY`` → ``HOLD``), or ``None``."""
        return self._by_inverse.get(slot)

    def extend(self, *relations: Relation) -> Vocabulary:
        """A new vocabulary with ``relations`` added (an existing name is replaced)."""
        merged = dict(self.relations)
        merged.update({r.name: r for r in relations})
        return Vocabulary(merged)

    def names(self) -> list[str]:
        """Known relation words, sorted."""
        return sorted(self.relations)


DEFAULT_VOCABULARY = Vocabulary.of(
    Relation("IN", "predicate"),
    Relation("ON", "predicate"),
    Relation("INSIDE", "predicate"),
    Relation("AT", "predicate"),
    Relation("NEAR", "predicate"),
    Relation("HOLD", "predicate", inverse="HELD_BY"),
    Relation("CONTAIN", "predicate", inverse="CONTAINED_BY"),
    Relation("EXPLORED", "attribute"),
    Relation("EXPLORATION_STATE", "attribute"),
    Relation("CONTENTS", "attribute"),
    Relation("STATE", "attribute"),
)
"""The predicates and attributes named in appendix C.1 and Fig. 7, plus ``ON`` and ``STATE`` for C-WAH."""

CANONICAL_RELATIONS: Mapping[str, str] = surface_map(
    {"IN": AT, "ON": AT, "INSIDE": AT, "CONTAINED_BY": AT, "HELD_BY": AT, "AT": ROOM}
)
"""SBL's adapter onto :mod:`mindloop.beliefs.vocab`, by stored slot: every word for where an object is (in a room,
on the bed, inside a container, held by an agent) is the canonical ``at``; ``AT`` (an agent's room) is ``room``.
Lines, prompts and stores keep the SBL words; ``NEAR``, ``EXPLORED``, ``STATE`` (``opened``/``closed``) and the
other attributes have no canonical counterpart."""


# ---- terms ------------------------------------------------------------------------------------------------------
_ENTITY = re.compile(r"<\s*([^<>()]+?)\s*>\s*\(\s*([A-Za-z0-9_.\-]+)\s*\)")
_TOKEN = re.compile(
    r"\s*(?:(?P<entity><\s*[^<>()]+?\s*>\s*\(\s*[A-Za-z0-9_.\-]+\s*\))|(?P<var>\?[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<word>[A-Za-z_][A-Za-z0-9_\-]*))"
)
_RELATION_WORD = re.compile(r"[A-Z][A-Z0-9_]*\Z")
_BULLET = re.compile(r"^\s*(?:[-*•]\s+|\d+[.)]\s+)")


def entity(name: str, ident: int | str) -> str:
    """The canonical text of a non-agent entity: ``entity("apple", 12) == "<apple>(12)"``."""
    name = name.strip()
    if not name or any(c in name for c in "<>()"):
        raise BeliefError(f"invalid entity name {name!r}: it must be non-empty without <, >, ( or )")
    return f"<{name}>({ident})"


def entity_parts(term: str) -> tuple[str, str] | None:
    """``(name, id)`` of an entity term such as ``<apple>(12)``; ``None`` for agents, states and variables."""
    m = _ENTITY.fullmatch(term.strip())
    return (m.group(1), m.group(2)) if m else None


def _canonical_entity(text: str) -> str:
    m = _ENTITY.fullmatch(text.strip())
    assert m is not None
    return f"<{m.group(1)}>({m.group(2)})"


# ---- statements -------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SblStatement:
    """One parsed SBL line: the holder chain and the atomic belief ``subject RELATION value`` as written."""

    chain: Chain
    subject: str
    relation: str
    value: str
    kind: Literal["predicate", "attribute"] = "predicate"
    inverse: str | None = None

    @property
    def order(self) -> int:
        """Belief order in the paper's sense: 0 for ``A BELIEVE x``, 1 for ``A BELIEVE B BELIEVE x``; -1 bare."""
        return len(self.chain) - 1

    def to_fact(self) -> Fact:
        """The belief-core fact: inverse relations become the object's slot (``HOLD`` → ``HELD_BY``)."""
        if self.inverse is not None:
            return Fact(self.value, self.inverse, self.subject)
        return Fact(self.subject, self.relation, self.value)

    def __str__(self) -> str:
        prefix = "".join(f"{h} {BELIEVE} " for h in self.chain)
        return f"{prefix}{self.subject} {self.relation} {self.value}"


@dataclass(frozen=True, slots=True)
class SblIssue:
    """A line that could not be read: its 1-based number, its text and why."""

    line: int
    text: str
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason} (got {self.text!r})"


@dataclass(frozen=True, slots=True)
class SblParse:
    """What a lenient parse found: the statements it read and every line it could not."""

    statements: tuple[SblStatement, ...]
    issues: tuple[SblIssue, ...]


class _LineError(Exception):
    pass


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            bad = text[pos:].strip()
            raise _LineError(f"unexpected text {bad[:40]!r}")
        kind = m.lastgroup
        assert kind is not None
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def _clean(text: str) -> str:
    line = _BULLET.sub("", text.strip())
    return line.rstrip(" .;,")


def _parse(text: str, vocabulary: Vocabulary, *, variables: bool, extend: bool) -> SblStatement:
    line = _clean(text)
    if not line:
        raise _LineError("empty line")
    toks = _tokens(line)
    chain: list[str] = []
    i = 0
    while i + 1 < len(toks) and toks[i + 1] == ("word", BELIEVE):
        kind, tok = toks[i]
        if kind == "entity":
            raise _LineError(f"a believer must be an agent name, not the entity {tok}")
        if kind == "var" and not variables:
            raise _LineError(f"variable {tok} in a concrete belief (variables belong in rules)")
        if kind == "word" and _RELATION_WORD.match(tok) and vocabulary.get(tok) is not None:
            raise _LineError(f"relation {tok} where a believer was expected")
        chain.append(tok)
        i += 2
    rest = toks[i:]
    if len(rest) != 3:
        raise _LineError(
            "expected '?entity PREDICATE ?entity' or '?entity ATTRIBUTE ?state' after the BELIEVE prefix, "
            f"found {len(rest)} term(s)"
        )
    (sk, subject), (rk, rel), (vk, value) = rest
    if rk != "word" or not _RELATION_WORD.match(rel) or rel == BELIEVE:
        raise _LineError(f"expected an upper-case relation word, got {rel!r}")
    for kind, tok in ((sk, subject), (vk, value)):
        if kind == "var" and not variables:
            raise _LineError(f"variable {tok} in a concrete belief (variables belong in rules)")
        if kind == "word" and tok == BELIEVE:
            raise _LineError("BELIEVE must follow an agent name")
    relation = vocabulary.get(rel)
    if relation is None:
        if not extend:
            raise _LineError(f"unknown relation {rel!r} (known: {', '.join(vocabulary.names())})")
        relation = Relation(rel, "attribute" if vk == "word" else "predicate")
    if sk == "entity":
        subject = _canonical_entity(subject)
    if vk == "entity":
        value = _canonical_entity(value)
    if relation.kind == "attribute" and vk == "entity":
        raise _LineError(f"attribute {rel} takes a state word, not the entity {value}")
    for k in range(len(chain) - 1):
        if chain[k] == chain[k + 1] and not chain[k].startswith("?"):
            raise _LineError(f"{chain[k]} BELIEVE {chain[k]} nests an agent directly inside itself")
    return SblStatement(tuple(chain), subject, rel, value, relation.kind, relation.inverse)


def parse_line(
    text: str, vocabulary: Vocabulary = DEFAULT_VOCABULARY, *, variables: bool = False, extend: bool = False
) -> SblStatement:
    """Parse one SBL line; raise :class:`~mindloop.errors.ParseError` naming the offending text.

    Leading list bullets (``-``, ``*``, ``1.``) and a trailing full stop are ignored. ``variables`` allows
    ``?entity`` placeholders (for rules); ``extend`` accepts relation words outside ``vocabulary``.
    """
    try:
        return _parse(text, vocabulary, variables=variables, extend=extend)
    except _LineError as exc:
        raise ParseError(f"malformed SBL line: {exc}", text=text.strip()) from None


def parse_lenient(
    text: str | Iterable[str],
    vocabulary: Vocabulary = DEFAULT_VOCABULARY,
    *,
    variables: bool = False,
    extend: bool = False,
) -> SblParse:
    """Parse every non-blank line; malformed lines are returned as :class:`SblIssue` with their text.

    This is how model output is read: the good lines are kept and each bad one is reported, never guessed at.
    """
    lines = text.splitlines() if isinstance(text, str) else list(text)
    return _read(lines, lambda raw: _parse(raw, vocabulary, variables=variables, extend=extend))


def _read(lines: Iterable[str], parse_one: Callable[[str], SblStatement | None]) -> SblParse:
    """Every non-blank line through ``parse_one`` (``None``: a line with nothing to keep); a line it refuses is an
    issue with its number and text."""
    stmts: list[SblStatement] = []
    issues: list[SblIssue] = []
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            s = parse_one(raw)
        except _LineError as exc:
            issues.append(SblIssue(n, raw.strip(), str(exc)))
            continue
        if s is not None:
            stmts.append(s)
    return SblParse(tuple(stmts), tuple(issues))


def _raise_first(result: SblParse, what: str, source: str) -> None:
    """Raise the first issue of ``result`` as a :class:`~mindloop.errors.ParseError` (the strict readers)."""
    if result.issues:
        first = result.issues[0]
        raise ParseError(f"malformed {what}: {first.reason}", source=source, line=first.line, text=first.text)


def parse(
    text: str | Iterable[str],
    vocabulary: Vocabulary = DEFAULT_VOCABULARY,
    *,
    source: str | None = None,
    variables: bool = False,
    extend: bool = False,
) -> list[SblStatement]:
    """Parse every non-blank line strictly: the first malformed line raises ``ParseError`` with its number."""
    result = parse_lenient(text, vocabulary, variables=variables, extend=extend)
    _raise_first(result, "SBL line", source or "<sbl>")
    return list(result.statements)


# ---- printing and the store view --------------------------------------------------------------------------------
def format_fact(chain: Chain, fact: Fact, vocabulary: Vocabulary = DEFAULT_VOCABULARY) -> str:
    """The SBL line for ``fact`` held by ``chain`` (inverse slots print as their relation, ``HELD_BY`` → ``HOLD``).

    >>> format_fact(("Alice",), Fact("<apple>(1)", "HELD_BY", "Bob"))
    'Alice BELIEVE Bob HOLD <apple>(1)'
    """
    if fact.value is None:
        raise BeliefError(f"an empty slot ({fact.subject}, {fact.relation}) has no SBL line")
    prefix = "".join(f"{h} {BELIEVE} " for h in chain)
    inv = vocabulary.by_slot(fact.relation)
    if inv is not None:
        return f"{prefix}{fact.value} {inv.name} {fact.subject}"
    return f"{prefix}{fact.subject} {fact.relation} {fact.value}"


def format_belief(belief: Belief, vocabulary: Vocabulary = DEFAULT_VOCABULARY) -> str:
    """The SBL line of a stored belief."""
    return format_fact(belief.chain, belief.fact, vocabulary)


def store_lines(
    store: BeliefStore | StoreView,
    chain: Chain,
    vocabulary: Vocabulary = DEFAULT_VOCABULARY,
    *,
    relations: Iterable[str] | None = None,
) -> list[str]:
    """Every belief ``chain`` holds in ``store``, as SBL lines in slot order (optionally only some relations).

    ``relations`` filters by relation word as printed (``HOLD``, not ``HELD_BY``).
    """
    wanted = set(relations) if relations is not None else None
    out = []
    for belief in store.beliefs(chain):
        line = format_belief(belief, vocabulary)
        if wanted is not None:
            inv = vocabulary.by_slot(belief.fact.relation)
            name = inv.name if inv is not None else belief.fact.relation
            if name not in wanted:
                continue
        out.append(line)
    return out


def write_statements(
    store: BeliefStore,
    statements: Iterable[SblStatement],
    *,
    t: int,
    source: Source,
    prefix: Chain = (),
) -> int:
    """Write each statement into ``store`` as a belief of ``prefix + statement.chain``; returns how many.

    ``prefix`` lets a bare line (``<apple>(1) IN <kitchen>(2)``) be read as the owner's belief. A statement whose
    chain is still empty, or nests an agent inside itself, raises :class:`~mindloop.errors.BeliefError`.
    """
    n = 0
    for s in statements:
        chain = validate_chain(prefix + s.chain)
        if not chain:
            raise BeliefError(f"statement {s} names no believer: prefix it with 'AGENT BELIEVE'")
        store.assert_belief(chain, s.to_fact(), t=t, source=source)
        n += 1
    return n


# ---- rules (Fig. 7) ---------------------------------------------------------------------------------------------
_VAR_SUFFIX = re.compile(r"[A-Z]$")


def _var_type(var: str) -> str:
    """``?agentA`` → ``agent``; ``?exploration_state`` → ``exploration_state``."""
    name = var.lstrip("?")
    return _VAR_SUFFIX.sub("", name) if len(name) > 1 else name


@dataclass(frozen=True, slots=True)
class BeliefRule:
    """A typed belief template such as ``?agentA BELIEVE ?agentB BELIEVE ?object IN ?room``.

    Variables are typed slots (their name minus a trailing capital is the type), not co-referent: Fig. 7's
    ``?agent BELIEVE ?agent HOLD ?object`` admits any agent holding any object, as the paper uses it.
    """

    statement: SblStatement

    @property
    def order(self) -> int:
        """0 for zero-order rules, 1 for first-order rules."""
        return self.statement.order

    @property
    def relation(self) -> str:
        """The rule's relation word."""
        return self.statement.relation

    def admits(self, s: SblStatement, type_of: Callable[[str], str | None]) -> bool:
        """True when ``s`` has this rule's order and relation and each term has the slot's type."""
        r = self.statement
        if s.relation != r.relation or len(s.chain) != len(r.chain):
            return False
        pairs = [*zip(r.chain, s.chain, strict=True), (r.subject, s.subject), (r.value, s.value)]
        for pattern, term in pairs:
            if pattern.startswith("?"):
                if type_of(term) != _var_type(pattern):
                    return False
            elif pattern != term:
                return False
        return True

    def __str__(self) -> str:
        return str(self.statement)


@dataclass(frozen=True)
class RuleSet:
    """Belief rules as data: which statements an agent's belief world may contain."""

    rules: tuple[BeliefRule, ...]

    def zero_order(self) -> tuple[BeliefRule, ...]:
        """Rules of order 0."""
        return tuple(r for r in self.rules if r.order == 0)

    def first_order(self) -> tuple[BeliefRule, ...]:
        """Rules of order 1."""
        return tuple(r for r in self.rules if r.order == 1)

    def relations(self) -> set[str]:
        """Relation words the rules use."""
        return {r.relation for r in self.rules}

    def matching(self, s: SblStatement, type_of: Callable[[str], str | None]) -> BeliefRule | None:
        """The first rule admitting ``s``, or ``None``."""
        for rule in self.rules:
            if rule.admits(s, type_of):
                return rule
        return None

    def text(self) -> str:
        """The rules in Fig. 7's layout (parses back to an equal rule set)."""
        zero = "\n".join(str(r) for r in self.zero_order())
        first = "\n".join(str(r) for r in self.first_order())
        return f"zero-order belief rules:\n{zero}\n\nfirst-order belief rules:\n{first}\n"

    def __len__(self) -> int:
        return len(self.rules)


_RULE_HEADER = re.compile(r"^\s*(zero|zeroth|first)[\s_-]*order\s+belief\s+rules?\s*:?\s*(.*)$", re.IGNORECASE)


def parse_rules(
    text: str, vocabulary: Vocabulary = DEFAULT_VOCABULARY, *, extend: bool = True, strict: bool = True
) -> tuple[RuleSet, tuple[SblIssue, ...]]:
    """Parse belief rules (``?``-variables allowed) under optional ``zero-/first-order belief rules:`` headers.

    A rule's order must agree with its section. With ``strict`` the first malformed line raises
    ``ParseError``; otherwise malformed lines come back as issues next to the rules that did parse.
    """
    section: int | None = None

    def rule(raw: str) -> SblStatement | None:
        nonlocal section
        line = raw.strip()
        header = _RULE_HEADER.match(line)
        if header:
            section = 1 if header.group(1).lower() == "first" else 0
            line = header.group(2).strip()
            if not line:
                return None
        s = _parse(line, vocabulary, variables=True, extend=extend)
        if not s.chain:
            raise _LineError("a rule must start with '?agent BELIEVE'")
        if s.order not in (0, 1):
            raise _LineError(f"only zero- and first-order rules are allowed, got order {s.order}")
        if section is not None and s.order != section:
            raise _LineError(f"an order-{s.order} rule under the {'first' if section else 'zero'}-order header")
        return s

    result = _read(text.splitlines(), rule)
    if strict:
        _raise_first(result, "belief rule", "<rules>")
    unique = {str(s): s for s in result.statements}  # a repeated rule keeps its first place (repeats are equal)
    return RuleSet(tuple(BeliefRule(s) for s in unique.values())), result.issues


def term_typer(
    kinds: Mapping[str, str],
    agents: Iterable[str],
    states: Mapping[str, Iterable[str]] | None = None,
) -> Callable[[str], str | None]:
    """A ``type_of`` for rule matching: entity class name → type, agent names → ``agent``, state words → type.

    ``kinds`` maps an entity's *name* (``apple``) to its type (``object``); ``states`` maps a state type to its
    words (default: ``exploration_state`` → none/part/all and ``open_state`` → opened/closed).
    """
    agent_set = frozenset(agents)
    state_of: dict[str, str] = {}
    for typ, words in (states or _DEFAULT_STATES).items():
        for w in words:
            state_of[w] = typ

    def type_of(term: str) -> str | None:
        parts = entity_parts(term)
        if parts is not None:
            return kinds.get(parts[0])
        if term in agent_set:
            return "agent"
        return state_of.get(term)

    return type_of


_DEFAULT_STATES: Mapping[str, Sequence[str]] = {
    "exploration_state": ("none", "part", "all"),
    "open_state": ("opened", "closed"),
}


def _fig7_style(*facts: str) -> str:
    """Rules in Fig. 7's layout: each fact believed by ``?agent`` (zero-order), then by ``?agentB`` as ``?agentA``
    believes (first-order), in the same order."""
    zero = "".join(f"?agent BELIEVE {f}\n" for f in facts)
    first = "".join(f"?agentA BELIEVE ?agentB BELIEVE {f}\n" for f in facts)
    return f"zero-order belief rules:\n{zero}\nfirst-order belief rules:\n{first}"


_FIG7_FACTS = (
    "?object IN ?room",
    "?bed IN ?room",
    "?container IN ?room",
    "?agent HOLD ?object",
    "?agent HOLD ?container",
    "?container CONTAIN ?object",
    "?room EXPLORED ?exploration_state",
    "?agent AT ?room",
)

FIG7_RULES_TEXT = _fig7_style(*_FIG7_FACTS)
"""The belief rules of CoBel-World's Fig. 7 (TDW-MAT), verbatim."""

FIG7_RULES, _ = parse_rules(FIG7_RULES_TEXT)

TDW_RULES, _ = parse_rules(_fig7_style(*_FIG7_FACTS, "?object ON ?bed"))
"""Fig. 7 plus ``?object ON ?bed`` (an object already transported), which our TDW-MAT-style world reports."""

CWAH_RULES_TEXT = _fig7_style(
    "?object IN ?room",
    "?object INSIDE ?container",
    "?object ON ?surface",
    "?container IN ?room",
    "?surface IN ?room",
    "?container STATE ?open_state",
    "?container EXPLORED ?exploration_state",
    "?room EXPLORED ?exploration_state",
    "?agent HOLD ?object",
    "?agent AT ?room",
)
"""Belief rules for the C-WAH-style world, written in Fig. 7's style (ours: the paper lists only TDW-MAT's)."""

CWAH_RULES, _ = parse_rules(CWAH_RULES_TEXT)

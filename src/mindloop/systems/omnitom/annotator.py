"""The symbolic gold annotator: a story's OmniToM belief structure, with all seven labels, read from the belief
store.

The story's events run through a :class:`~mindloop.beliefs.Tracker`; every belief any holder chain ever held
becomes a proposition, labelled from the store alone:

* **Order** — the chain's depth (``world`` = 0; chains deeper than 3 are not emitted).
* **Truth Status** — whether the proposition held in the world (for nested beliefs: in the inner chain's mind)
  while it was believed: now for beliefs still held, at the time it was formed for superseded ones.
* **Knowledge Access** — how many agents held the same proposition (the inner chain's other observers for nested
  beliefs): one → Private, everyone → Public, some → Shared. An agent's knowledge of its own location or
  actions does not make a proposition about it shared (self-knowledge is not counted). World facts: by who
  witnessed the event that made them true.
* **Representation** — Explicit for narrated facts and for what an actor was told; Implicit otherwise.
* **Content Type** — Location for ``in`` facts, Contents/Physical State for other states, Action/Event for
  events, Epistemic for beliefs about beliefs.
* **Mental Source** — Narration for world facts, the store's provenance (Perception, Testimony, Inference: a label
  taken at its word) for first-order beliefs, Inference for beliefs about other minds.
* **Context** — Deceptive when the belief came from a lie, Temporal when it was superseded later or has gone
  stale (the world changed unseen), Neutral otherwise.

What becomes a proposition: narrated state facts and actions (world), each agent's beliefs about other things
and the actions of others it witnessed (order 1), and nested beliefs about where *objects* are and what containers
hold (orders 2-3; the store also holds nested beliefs about where people and furniture are, which add rows nobody
disputes). A container's presence is not repeated as a world fact when a narrated fact already puts an object in
it; the world's opening and closing are told by their action rows (``Xiao Bei opens the cabinet``), not
repeated as states.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mindloop.beliefs import WORLD, Belief, Chain, Event, EventKind, Fact, Source, Tracker, TrustPolicy, Utterance
from mindloop.beliefs import trust_policy as make_trust_policy
from mindloop.beliefs.vocab import AT, CONTAINS, FEELS, ROOM
from mindloop.datafiles import read_text_file
from mindloop.errors import InvalidArgumentError, MindloopError, ParseError
from mindloop.systems.omnitom.records import WORLD_ACTOR, BeliefLabels, BeliefRecord, StoryRecord
from mindloop.systems.omnitom.templated import IN, LABEL, TemplatedStory, parse_templated_story

_MAX_ORDER = 3
"""OmniToM's deepest order (App. A.2)."""

_ACTIONS = frozenset({EventKind.ENTER, EventKind.EXIT, EventKind.MOVE, EventKind.PUT, EventKind.OPEN, EventKind.CLOSE})
_VERBS: dict[EventKind, tuple[str, str]] = {
    EventKind.ENTER: ("enters", "entered"),
    EventKind.EXIT: ("leaves", "left"),
    EventKind.MOVE: ("moves", "moved"),
    EventKind.PUT: ("puts", "put"),
    EventKind.OPEN: ("opens", "opened"),
    EventKind.CLOSE: ("closes", "closed"),
}


@dataclass
class _Row:
    time: int
    seq: int
    record: BeliefRecord


def _labels(
    order: int, truth: bool, access: str, explicit: bool, ctype: str, source: str, context: str
) -> BeliefLabels:
    return BeliefLabels(
        order=str(order),
        truth_status="True" if truth else "False",
        knowledge_access=access,
        representation="Explicit" if explicit else "Implicit",
        content_type=ctype,
        mental_source=source,
        context=context,
    )


def _access(holders: int, everyone: int) -> str:
    if holders <= 1:
        return "Private"
    return "Public" if holders >= everyone else "Shared"


class _Annotator:
    """One story's annotation; holds the tracker and the story's vocabulary while rows are made."""

    def __init__(
        self, events: Sequence[Event | Utterance], kinds: Mapping[str, str], max_order: int, trust: TrustPolicy
    ) -> None:
        if not 1 <= max_order <= _MAX_ORDER:
            raise InvalidArgumentError(f"max_order must be 1..{_MAX_ORDER} (OmniToM's orders), got {max_order}")
        self.events = list(events)
        self.tracker = Tracker(max_depth=max_order, trust=trust)
        self.tracker.apply_all(self.events)
        self.max_order = max_order
        self.store = self.tracker.store
        self.times = sorted({e.t for e in self.events})
        self.agents = self._agents()
        self.kinds = self._kinds(kinds)
        self.seq = 0

    # ---- vocabulary --------------------------------------------------------------------------------------------
    def _agents(self) -> list[str]:
        names: list[str] = []
        for e in self.events:
            if isinstance(e, Event):
                people = [e.actor] if e.actor else []
                people += [f.subject for f in e.facts if e.kind in (EventKind.ENTER, EventKind.EXIT)]
                people += sorted(e.witnesses)
            else:
                people = [e.speaker, *sorted(e.listeners)]
            names.extend(p for p in people if p and p not in names)
        return names

    def _kinds(self, given: Mapping[str, str]) -> dict[str, str]:
        """Agents; objects (things put or moved, things in something other than a room, things with a state);
        containers (what objects are in, and things that stand in rooms); ``given`` overrides."""
        kinds = dict.fromkeys(self.agents, "agent")
        facts = [(e.kind, f) for e in self.events if isinstance(e, Event) for f in e.facts]
        rooms = {f.value for _, f in facts if f.subject in kinds and f.relation in _LOCATIONS}
        for kind, f in facts:
            if f.subject in kinds or f.value is None:
                continue
            if f.relation not in _LOCATIONS:
                kinds.setdefault(f.subject, "object")
            elif kind in (EventKind.MOVE, EventKind.PUT) or f.value not in rooms:
                kinds.setdefault(f.subject, "object")
                kinds.setdefault(f.value, "container")
        for _, f in facts:
            kinds.setdefault(f.subject, "container")
        kinds.update(given)
        return kinds

    # ---- text ----------------------------------------------------------------------------------------------------
    def state_text(self, fact: Fact) -> str:
        """A fact as a sentence: ``Bob is in the room``, ``There is a box in the room``, ``The ball is in the box``.

        Other relations read ``The fridge is open`` / ``Alice feels cold`` / ``The cup contains water``.
        """
        subject, value = fact.subject.replace("_", " "), (fact.value or "").replace("_", " ")
        kind = self.kinds.get(fact.subject, "object")
        name = fact.subject if kind == "agent" else f"The {subject}"
        if fact.relation in _LOCATIONS:
            preposition = "in" if fact.relation == ROOM else fact.relation
            if kind == "agent":
                return f"{fact.subject} is {preposition} the {value}"
            if kind == "container" and fact.relation == IN:
                return f"There is {_a(subject)} in the {value}"
            verb = "are" if _plural(subject) else "is"
            return f"{name} {verb} {preposition} the {value}"
        if fact.relation == LABEL:
            return f"The label on the {subject} is {value}"
        if fact.relation in (FEELS, CONTAINS):
            return f"{name} {fact.relation} {value}"
        return f"{name} is {value}"

    def action_texts(self, event: Event, past: bool) -> list[tuple[str, str | None]]:
        """``(sentence, the agent doing it)`` for an action event, in the world's present or an actor's past."""
        verbs = _VERBS.get(event.kind)
        if verbs is None:
            return [(event.text, event.actor)] if event.text and event.actor else []
        verb = verbs[1] if past else verbs[0]
        out: list[tuple[str, str | None]] = []
        for f in event.facts:
            if event.kind in (EventKind.ENTER, EventKind.EXIT):
                room = (
                    f.value if f.value is not None else self.store.value(WORLD, f.subject, f.relation, at=event.t - 1)
                )
                out.append((f"{f.subject} {verb} the {(room or 'room').replace('_', ' ')}", f.subject))
            elif event.actor is not None:
                thing = f.subject.replace("_", " ")
                target = (f.value or "").replace("_", " ")
                where = f" to the {target}" if event.kind in (EventKind.MOVE, EventKind.PUT) else ""
                out.append((f"{event.actor} {verb} the {thing}{where}", event.actor))
        return out

    # ---- time ----------------------------------------------------------------------------------------------------
    def end_of(self, chain: Chain, belief: Belief) -> int | None:
        """The first time after ``since`` at which ``chain`` no longer held the belief (``None``: still holds)."""
        key = belief.fact.key
        for t in self.times:
            if t > belief.since and self.store.value(chain, key[0], key[1], at=t) != belief.value:
                return t
        return None

    # ---- rows ----------------------------------------------------------------------------------------------------
    def _row(self, time: int, actor: str, text: str, labels: BeliefLabels) -> _Row:
        self.seq += 1
        return _Row(time, self.seq, BeliefRecord(actor=actor, belief=text, labels=labels))

    def world_rows(self) -> list[_Row]:
        """Narrated facts and events, in story order."""
        rows: list[_Row] = []
        everyone = len(self.agents)
        # containers a narrated state ("There is an object in a box") already introduces
        filled = {
            f.value
            for e in self.events
            if isinstance(e, Event) and e.actor is None and e.kind is not EventKind.OBSERVE
            for f in e.facts
            if self.kinds.get(f.subject) == "object"
        }
        for e in self.events:
            if isinstance(e, Utterance):
                text = e.text.rstrip(".") or f"{e.speaker} tells {', '.join(sorted(e.listeners))} something"
                access = "Public" if e.public else _access(len(e.listeners | {e.speaker}), everyone)
                labels = _labels(0, True, access, True, "Action/Event", "Narration", "Neutral")
                rows.append(self._row(e.t, WORLD_ACTOR, text, labels))
                continue
            if e.kind in (EventKind.OBSERVE, EventKind.NOISE, EventKind.BELIEVE):
                continue
            access = _access(len(e.witnesses), everyone)
            if e.kind in _ACTIONS and (e.actor is not None):
                for text, _ in self.action_texts(e, past=False):
                    labels = _labels(0, True, access, True, "Action/Event", "Narration", "Neutral")
                    rows.append(self._row(e.t, WORLD_ACTOR, text, labels))
            for f in e.facts:
                if f.value is None or (self.kinds.get(f.subject) == "container" and f.subject in filled):
                    continue
                if e.kind in _TOLD_BY_ACTION and e.actor is not None:
                    continue  # the action row says it
                narrated = e.text and len(e.facts) == 1 and e.actor is None
                text = e.text.rstrip(".").replace("_", " ") if narrated else self.state_text(f)
                later = self.store.value(WORLD, f.subject, f.relation) != f.value or self._changed_after(WORLD, f, e.t)
                context = "Temporal" if later else "Neutral"
                ctype = _content_type(f)
                rows.append(
                    self._row(e.t, WORLD_ACTOR, text, _labels(0, True, access, True, ctype, "Narration", context))
                )
        return rows

    def _changed_after(self, chain: Chain, fact: Fact, t: int) -> bool:
        return any(
            self.store.value(chain, fact.subject, fact.relation, at=u) != fact.value for u in self.times if u > t
        )

    def actor_rows(self, agent: str) -> list[_Row]:
        """What ``agent`` believed (order 1, in story order), then its nested beliefs about objects (orders 2-3)."""
        first: list[_Row] = []
        slots = self.store.keys()
        for key in slots:
            if key[0] == agent:
                continue  # self-knowledge: not a belief about the world
            for belief in self.tracker.history((agent,), *key):
                first.append(self._belief_row((agent,), belief))
        for e in self.events:
            if isinstance(e, Event) and e.kind in _ACTIONS and agent in e.witnesses:
                for text, doer in self.action_texts(e, past=True):
                    if doer == agent or doer is None:
                        continue
                    holders = len(e.witnesses - {doer})
                    access = _access(holders, len(self.agents) - 1)
                    labels = _labels(1, True, access, False, "Action/Event", "Perception", "Neutral")
                    first.append(self._row(e.t, agent, text, labels))
        first.sort(key=lambda r: (r.time, r.seq))
        nested: list[_Row] = []
        objects = [k for k in slots if self.kinds.get(k[0]) == "object" or k[1] == CONTAINS]
        for depth in range(2, self.max_order + 1):
            for chain in self._chains(agent, depth):
                for key in objects:
                    for belief in self.tracker.history(chain, *key):
                        nested.append(self._belief_row(chain, belief))
        return first + nested

    def _chains(self, agent: str, depth: int) -> list[Chain]:
        chains: list[Chain] = [(agent,)]
        for _ in range(depth - 1):
            chains = [(*c, a) for c in chains for a in self.agents if a != c[-1]]
        return chains

    def _belief_row(self, chain: Chain, belief: Belief) -> _Row:
        fact = belief.fact
        inner = chain[1:]
        end = self.end_of(chain, belief)
        at = belief.since if end is not None else None
        actual = self.store.value(inner, fact.subject, fact.relation, at=at)
        truth = actual == fact.value
        deceptive = self._from_lie(belief)
        if deceptive:
            context = "Deceptive"
        elif end is not None:
            context = "Temporal"
        else:
            was_true = self.store.value(inner, fact.subject, fact.relation, at=belief.since) == fact.value
            context = "Temporal" if not truth and was_true else "Neutral"
        when = end - 1 if end is not None else None
        # who else holds it: a first-order belief among the others than its subject, a nested one (``inner``'s)
        # among the observers of ``inner[0]``
        others = [a for a in self.agents if a != (inner[0] if inner else fact.subject)]
        held = [self.store.value((a, *inner), fact.subject, fact.relation, at=when) for a in others]
        access = _access(sum(1 for v in held if v == fact.value), len(others))
        testimony = belief.source is Source.TESTIMONY
        if len(chain) == 1:
            text = self.state_text(fact)
            ctype = _content_type(fact)
            source = "Testimony" if testimony else "Inference" if belief.source is Source.INFERENCE else "Perception"
        else:
            content = self.state_text(fact)
            content = content[0].lower() + content[1:] if not content.startswith(tuple(self.agents)) else content
            text = " ".join(f"{a} thinks" for a in inner) + " " + content
            ctype, source = "Epistemic", "Inference"
        labels = _labels(len(chain), truth, access, testimony and len(chain) == 1, ctype, source, context)
        return self._row(belief.since, chain[0], text, labels)

    def _from_lie(self, belief: Belief) -> bool:
        if belief.source is not Source.TESTIMONY:
            return False
        for e in self.events:
            if isinstance(e, Utterance) and e.t == belief.since and any(f.key == belief.fact.key for f in e.facts):
                own = self.store.value((e.speaker,), belief.fact.subject, belief.fact.relation, at=e.t)
                return own is not None and own != belief.value
        return False


_TOLD_BY_ACTION = frozenset({EventKind.ENTER, EventKind.EXIT, EventKind.OPEN, EventKind.CLOSE})
"""Events whose own action row (``Bob leaves the room``, ``Bob opens the box``) says what their facts would."""

_LOCATIONS = frozenset({IN, AT, "on", ROOM})
"""Relations that say where something is, in any system's words (ToMi and templated ``in``, canonical ``at``)."""


def _content_type(fact: Fact) -> str:
    """Location for where things are, Emotion for how someone feels, Contents/Physical State otherwise."""
    if fact.relation in _LOCATIONS:
        return "Location"
    return "Emotion" if fact.relation == FEELS else "Contents/Physical State"


def _a(noun: str) -> str:
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _plural(noun: str) -> bool:
    last = noun.split()[-1] if noun.split() else noun
    return last.endswith("s") and not last.endswith(("ss", "us"))


def annotate_events(
    events: Sequence[Event | Utterance],
    *,
    story: str,
    story_id: int = 0,
    category: str = "False Belief Task",
    kinds: Mapping[str, str] | None = None,
    max_order: int = _MAX_ORDER,
    trust: TrustPolicy | str = "everyone",
) -> StoryRecord:
    """The gold record of a story given as events: world rows, then each agent's rows (first appearance order).

    ``kinds`` names what each thing is (``agent``, ``object``, ``container``; inferred when absent): only
    objects get nested rows, and the kind picks the sentence form.
    """
    policy = make_trust_policy(trust) if isinstance(trust, str) else trust
    ann = _Annotator(events, kinds or {}, max_order, policy)
    rows = [r.record for r in ann.world_rows()]
    for agent in ann.agents:
        rows.extend(r.record for r in ann.actor_rows(agent))
    return StoryRecord(story_id=story_id, story_category=category, story=story, beliefs=tuple(rows))


def annotate_templated(story: TemplatedStory, *, story_id: int = 0, max_order: int = _MAX_ORDER) -> StoryRecord:
    """The gold record of a parsed templated false-belief story."""
    return annotate_events(story.events, story=story.text, story_id=story_id, kinds=story.kinds, max_order=max_order)


def annotate_text(text: str, *, story_id: int = 0, max_order: int = _MAX_ORDER, source: str = "<story>") -> StoryRecord:
    """Parse a templated false-belief story and annotate it (raises :class:`ParseError` if it does not parse).

    >>> r = annotate_text("Alice and Bob are in a room. There is an object in a box. Bob leaves. "
    ...                   "Alice moves the object to the safe.")
    >>> [(b.belief, b.labels.truth_status, b.labels.context) for b in r.beliefs if b.actor == "Bob"][-3:-1]
    [('The object is in the box', 'False', 'Temporal'), ('Alice thinks the object is in the box', 'False', 'Temporal')]
    """
    return annotate_templated(parse_templated_story(text, source=source), story_id=story_id, max_order=max_order)


@dataclass(frozen=True)
class AnnotatedFile:
    """The records annotated from a story file, and the stories skipped (``(where, why)``)."""

    records: tuple[StoryRecord, ...]
    skipped: tuple[tuple[str, str], ...]
    format: str


def annotate_story_file(path: str | Path, *, max_order: int = _MAX_ORDER) -> AnnotatedFile:
    """Annotate every story of a file the project can parse.

    * a ToMi/Hi-ToM numbered-line file: each distinct story (its question lines dropped);
    * a ToMBench category ``.jsonl``: each distinct ``STORY`` that is a templated false-belief story;
    * any other text: one templated false-belief story per paragraph (blank-line separated) or per line.

    Stories that do not parse are skipped and listed with the reason; a file with none parseable raises.
    """
    p = Path(path)
    if not p.is_file():
        raise ParseError("no such file", source=str(p))
    text = read_text_file(p)
    records: list[StoryRecord] = []
    skipped: list[tuple[str, str]] = []
    lines = [ln for ln in text.splitlines() if ln.strip()]
    head = lines[:20]
    if head and sum(1 for ln in head if re.match(r"^\d+ ", ln.strip())) * 2 >= len(head):
        from mindloop.worlds.stories.tomi import narrate, read_story_file, story_policy

        story_format, examples = read_story_file(p)
        fmt: str = story_format
        seen: set[tuple[str, ...]] = set()
        for ex in examples:
            sentences = tuple(s for _, s in ex.sentences)
            if sentences in seen:
                continue
            seen.add(sentences)
            events = narrate(ex.sentences, str(p), policy=story_policy(story_format))
            record = annotate_events(
                events,
                story=" ".join(sentences),
                story_id=len(records),
                max_order=max_order,
                trust="hitom" if story_format == "hitom" else "everyone",
            )
            records.append(record)
    else:
        if p.suffix.lower() == ".jsonl":
            from mindloop.systems.omnitom.tombench import read_tombench_file

            fmt = "tombench"
            candidates = [(f"{p}:{s.line}", s.story) for s in read_tombench_file(p)]
        else:
            fmt = "text"
            blocks = [b for b in text.split("\n\n") if b.strip()]
            if len(blocks) == 1:
                blocks = lines
            candidates = [(f"{p}: story {i}", " ".join(b.split())) for i, b in enumerate(blocks, 1)]
        for where, story in candidates:
            try:
                records.append(annotate_text(story, story_id=len(records), max_order=max_order, source=where))
            except ParseError as exc:
                skipped.append((where, exc.reason + (f" (got {exc.text!r})" if exc.text else "")))
            except MindloopError as exc:
                skipped.append((where, str(exc)))
    if not records:
        why = f"; first problem: {skipped[0][0]}: {skipped[0][1]}" if skipped else ""
        raise ParseError(f"no story in this file could be parsed into events{why}", source=str(p))
    return AnnotatedFile(tuple(records), tuple(skipped), fmt)

"""Properties of the tracker over random event streams, checked against a naive reference.

The reference keeps an explicit dictionary per holder chain and updates every chain made of witnesses: the
obvious, slow bookkeeping the store's scoped writes are meant to be equivalent to.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from mindloop.beliefs import WORLD, Chain, Event, EventKind, Fact, Tracker, Utterance

AGENTS = ("a", "b", "c", "d")
SUBJECTS = ("apple", "ball")
PLACES = ("box", "crate", "drawer")
DEPTH = 3


def _chains(agents: tuple[str, ...] = AGENTS, depth: int = DEPTH) -> list[Chain]:
    out: list[Chain] = []
    for k in range(1, depth + 1):
        out += [c for c in itertools.product(agents, repeat=k) if all(x != y for x, y in itertools.pairwise(c))]
    return out


ALL_CHAINS = _chains()

witness_sets = st.frozensets(st.sampled_from(AGENTS))
facts = st.builds(Fact, st.sampled_from(SUBJECTS), st.just("in"), st.sampled_from(PLACES))


@st.composite
def streams(draw: st.DrawFn, omniscient: str | None = None) -> list[Event | Utterance]:
    n = draw(st.integers(0, 14))
    out: list[Event | Utterance] = []
    t = 0
    for _ in range(n):
        t += draw(st.integers(0, 2))
        if draw(st.integers(0, 4)) == 0:
            speaker = draw(st.sampled_from(AGENTS))
            listeners = draw(witness_sets) - {speaker}
            out.append(Utterance(t, speaker, listeners, (draw(facts),), public=draw(st.booleans())))
        else:
            witnesses = draw(witness_sets)
            if omniscient:
                witnesses |= {omniscient}
            out.append(Event(t, EventKind.MOVE, None, tuple(draw(st.lists(facts, min_size=1, max_size=2))), witnesses))
    return out


def _reference(items: list[Event | Utterance], depth: int = DEPTH) -> dict[Chain, dict[str, str]]:
    held: dict[Chain, dict[str, str]] = {c: {} for c in [WORLD, *ALL_CHAINS]}
    for item in items:
        if isinstance(item, Event):
            for f in item.facts:
                held[WORLD][f.subject] = str(f.value)
                for c in ALL_CHAINS:
                    if len(c) <= depth and set(c) <= item.witnesses:
                        held[c][f.subject] = str(f.value)
        else:
            hearers = item.listeners | {item.speaker}
            for f in item.facts:
                for c in ALL_CHAINS:
                    if len(c) <= depth and set(c) <= hearers and c != (item.speaker,):
                        held[c][f.subject] = str(f.value)
    return held


def _track(items: list[Event | Utterance], depth: int = DEPTH) -> Tracker:
    tr = Tracker(max_depth=depth)
    tr.apply_all(items)
    return tr


@settings(max_examples=150, deadline=None)
@given(streams())
def test_tracker_agrees_with_naive_reference(items: list[Event | Utterance]) -> None:
    tr = _track(items)
    ref = _reference(items)
    for chain in [WORLD, *ALL_CHAINS]:
        for s in SUBJECTS:
            assert tr.value(chain, s, "in") == ref[chain].get(s), (chain, s)


@settings(max_examples=100, deadline=None)
@given(streams(omniscient="a").filter(lambda xs: all(isinstance(x, Event) for x in xs)))
def test_agent_who_witnessed_everything_believes_exactly_the_world(items: list[Event | Utterance]) -> None:
    tr = _track(items)
    for s in SUBJECTS:
        assert tr.value(("a",), s, "in") == tr.world(s, "in")
    assert tr.mismatches(("a",)) == []


@settings(max_examples=100, deadline=None)
@given(streams())
def test_no_chain_holds_a_belief_from_an_event_a_member_missed(items: list[Event | Utterance]) -> None:
    tr = _track(items)
    for chain in ALL_CHAINS:
        for belief in tr.store.beliefs(chain):
            sources = [
                i
                for i in items
                if i.t == belief.since and any(f.key == belief.fact.key and f.value == belief.value for f in i.facts)
            ]
            assert sources, (chain, belief)
            assert any(
                set(chain) <= (i.witnesses if isinstance(i, Event) else i.listeners | {i.speaker}) for i in sources
            ), (chain, belief)


@settings(max_examples=100, deadline=None)
@given(streams())
def test_same_events_give_the_same_store(items: list[Event | Utterance]) -> None:
    one, two = _track(items), _track(list(items))
    for chain in [WORLD, *ALL_CHAINS]:
        assert one.store.beliefs(chain) == two.store.beliefs(chain)


@settings(max_examples=100, deadline=None)
@given(streams(), st.integers(0, 30))
def test_snapshot_agrees_with_replaying_a_prefix(items: list[Event | Utterance], t: int) -> None:
    full = _track(items)
    prefix = _track([i for i in items if i.t <= t])
    view = full.snapshot(t)
    for chain in [WORLD, *ALL_CHAINS]:
        assert view.beliefs(chain) == prefix.store.beliefs(chain)
        assert view.mismatches(chain) == prefix.mismatches(chain)


@settings(max_examples=100, deadline=None)
@given(streams(), st.sampled_from(AGENTS), st.sampled_from(SUBJECTS), st.sampled_from(PLACES))
def test_an_utterance_never_changes_the_speaker_or_the_world(
    items: list[Event | Utterance], speaker: str, subject: str, place: str
) -> None:
    tr = _track(items)
    before = (tr.value((speaker,), subject, "in"), tr.world(subject, "in"))
    t = max((i.t for i in items), default=0) + 1
    tr.apply(Utterance(t, speaker, frozenset(AGENTS) - {speaker}, (Fact(subject, "in", place),), public=True))
    assert (tr.value((speaker,), subject, "in"), tr.world(subject, "in")) == before

from __future__ import annotations

import pytest

from mindloop.beliefs import (
    WORLD,
    Event,
    EventKind,
    Fact,
    HiToMTrust,
    Source,
    Tracker,
    TrustNoOne,
    Utterance,
    trust_policy,
)
from mindloop.errors import BeliefError

BALL = ("ball", "in")


def _sally_anne(tracker: Tracker) -> Tracker:
    both = frozenset({"sally", "anne"})
    tracker.apply(Event(1, EventKind.PUT, "sally", (Fact("ball", "in", "basket"),), both))
    tracker.apply(Event(2, EventKind.EXIT, "sally", (Fact("sally", "in", None),), both))
    tracker.apply(Event(3, EventKind.MOVE, "anne", (Fact("ball", "in", "box"),), frozenset({"anne"})))
    return tracker


def test_sally_anne_first_and_second_order() -> None:
    tr = _sally_anne(Tracker())
    assert tr.world(*BALL) == "box"
    assert tr.value(("sally",), *BALL) == "basket"
    assert tr.value(("anne",), *BALL) == "box"
    assert tr.value(("anne", "sally"), *BALL) == "basket"  # Anne knows Sally did not see the move
    assert tr.value(("sally", "anne"), *BALL) == "basket"
    assert [m.held.chain for m in tr.mismatches(("sally",))] == [("sally",)]


def test_observe_events_do_not_change_the_world() -> None:
    tr = Tracker()
    tr.apply(Event(1, EventKind.PUT, None, (Fact("ball", "in", "box"),), frozenset()))
    tr.apply(Event(2, EventKind.OBSERVE, "bob", (Fact("ball", "in", "box"),), frozenset({"bob"})))
    assert tr.value(("bob",), *BALL) == "box"
    assert [b.value for b in tr.history(WORLD, *BALL)] == ["box"]


def test_private_tell_under_trust_everyone() -> None:
    tr = _sally_anne(Tracker())
    tr.apply(Utterance(4, "anne", frozenset({"sally"}), (Fact("ball", "in", "box"),), public=False))
    sally = tr.believes(("sally",), *BALL)
    assert sally is not None and sally.value == "box" and sally.source is Source.TESTIMONY
    assert tr.value(("sally", "anne"), *BALL) == "box"
    assert tr.value(("anne", "sally"), *BALL) == "box"


def test_speaker_words_never_change_speaker_belief() -> None:
    tr = _sally_anne(Tracker())
    tr.apply(Utterance(4, "anne", frozenset({"sally"}), (Fact("ball", "in", "drawer"),), public=True))
    assert tr.value(("anne",), *BALL) == "box"
    assert tr.value(("sally",), *BALL) == "drawer"
    assert tr.world(*BALL) == "box"


def test_trust_no_one_changes_nothing() -> None:
    tr = _sally_anne(Tracker(trust=TrustNoOne()))
    before = {c: tr.value(c, *BALL) for c in tr.store.holders(["sally", "anne"], 3)}
    tr.apply(Utterance(4, "anne", frozenset({"sally"}), (Fact("ball", "in", "drawer"),), public=True))
    assert {c: tr.value(c, *BALL) for c in tr.store.holders(["sally", "anne"], 3)} == before


def test_hitom_trust_follows_exit_order() -> None:
    # a left first, then b, then c; everyone saw the apple in the box before leaving.
    everyone = frozenset("abc")
    tr = Tracker(trust=HiToMTrust())
    tr.apply(Event(1, EventKind.PUT, None, (Fact("apple", "in", "box"),), everyone))
    for t, agent in enumerate("abc", 2):
        tr.apply(Event(t, EventKind.EXIT, agent, (), everyone))
    # b (left in the middle) publicly claims the apple is in the crate.
    tr.apply(Utterance(10, "b", frozenset("ac"), (Fact("apple", "in", "crate"),), public=True))
    assert tr.value(("a",), *("apple", "in")) == "crate"  # a left before b: trusts b
    assert tr.value(("c",), *("apple", "in")) == "box"  # c left after b: does not
    assert tr.value(("b",), *("apple", "in")) == "box"  # the speaker's own belief is untouched
    assert tr.value(("a", "b"), *("apple", "in")) == "crate"  # a believes b believes it
    assert tr.value(("b", "c"), *("apple", "in")) == "crate"  # the speaker thinks every listener believes
    assert tr.value(("c", "a"), *("apple", "in")) == "crate"  # c knows a trusts b (public, exit order known)
    assert tr.value(("a", "c"), *("apple", "in")) == "box"  # c is no believer
    assert tr.value(("c", "a", "b"), *("apple", "in")) == "box"  # testimony stops at second order


def test_private_hitom_tell_reaches_only_the_pair() -> None:
    everyone = frozenset("abc")
    tr = Tracker(trust=trust_policy("hitom"))
    tr.apply(Event(1, EventKind.PUT, None, (Fact("apple", "in", "box"),), everyone))
    for t, agent in enumerate("abc", 2):
        tr.apply(Event(t, EventKind.EXIT, agent, (), everyone))
    tr.apply(Utterance(10, "c", frozenset("a"), (Fact("apple", "in", "crate"),), public=False))
    assert tr.value(("a",), "apple", "in") == "crate"
    assert tr.value(("a", "c"), "apple", "in") == "crate"
    assert tr.value(("c", "a"), "apple", "in") == "crate"
    assert tr.value(("b", "a"), "apple", "in") == "box"  # b did not hear a private tell


def test_depth_limit_and_errors() -> None:
    tr = Tracker(max_depth=4)
    with pytest.raises(BeliefError, match="depth 5"):
        tr.value(("a", "b", "a", "b", "a"), *BALL)
    with pytest.raises(BeliefError, match="at least 1"):
        Tracker(max_depth=0)
    with pytest.raises(BeliefError, match="unknown trust policy 'trusting'"):
        trust_policy("trusting")
    with pytest.raises(BeliefError, match="Event or Utterance"):
        tr.apply("a sentence")  # type: ignore[arg-type]


def test_a_policy_that_would_change_the_speaker_is_refused() -> None:
    class Gullible:
        name = "gullible"

        def scopes(self, utterance, context):  # type: ignore[no-untyped-def]
            from mindloop.beliefs import WitnessScope

            return [WitnessScope(utterance.listeners | {utterance.speaker}, context.max_depth)]

    tr = Tracker(trust=Gullible())
    with pytest.raises(BeliefError, match="speaker 'a'"):
        tr.apply(Utterance(1, "a", frozenset("b"), (Fact("x", "in", "y"),), public=False))

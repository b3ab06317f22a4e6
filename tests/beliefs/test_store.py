from __future__ import annotations

import pytest

from mindloop.beliefs import WORLD, BeliefStore, ChainScope, Fact, Source, WitnessScope
from mindloop.errors import BeliefError


def _store() -> BeliefStore:
    s = BeliefStore()
    s.set_world(Fact("ball", "in", "basket"), t=1)
    s.write(
        Fact("ball", "in", "basket"), scope=WitnessScope(frozenset({"sally", "anne"}), 4), t=1, source=Source.PERCEPTION
    )
    s.set_world(Fact("ball", "in", "box"), t=3)
    s.write(Fact("ball", "in", "box"), scope=WitnessScope(frozenset({"anne"}), 4), t=3, source=Source.PERCEPTION)
    return s


def test_believes_by_chain_and_world() -> None:
    s = _store()
    assert s.value(WORLD, "ball", "in") == "box"
    assert s.value(("anne",), "ball", "in") == "box"
    assert s.value(("sally",), "ball", "in") == "basket"
    assert s.value(("anne", "sally"), "ball", "in") == "basket"
    assert s.value(("sally", "anne", "sally", "anne"), "ball", "in") == "basket"
    assert s.value(("bob",), "ball", "in") is None
    belief = s.believes(("sally",), "ball", "in")
    assert belief is not None and belief.since == 1 and belief.source is Source.PERCEPTION and belief.depth == 1


def test_witness_scope_respects_depth_limit() -> None:
    s = _store()
    assert s.value(("sally", "anne", "sally", "anne", "sally"), "ball", "in") is None


def test_mismatches_are_false_beliefs_only() -> None:
    s = _store()
    [m] = s.mismatches(("sally",))
    assert m.key == ("ball", "in") and m.held.value == "basket" and m.actual == "box"
    assert s.mismatches(("anne",)) == []
    assert s.mismatches(("bob",)) == []  # ignorance is not a false belief
    assert s.mismatches(WORLD) == []


def test_time_travel_and_history() -> None:
    s = _store()
    assert s.value(("anne",), "ball", "in", at=2) == "basket"
    assert s.value(WORLD, "ball", "in", at=0) is None
    assert s.snapshot(2).mismatches(("sally",)) == []
    assert [b.value for b in s.history(WORLD, "ball", "in")] == ["basket", "box"]
    assert [b.since for b in s.history(("anne",), "ball", "in")] == [1, 3]
    assert [b.value for b in s.history(("sally",), "ball", "in")] == ["basket"]


def test_writes_out_of_order_are_rejected() -> None:
    s = _store()
    with pytest.raises(BeliefError, match="time order"):
        s.set_world(Fact("ball", "in", "bag"), t=2)


def test_invalid_chain_and_confidence_are_rejected() -> None:
    s = _store()
    with pytest.raises(BeliefError, match="nests 'a' directly"):
        s.believes(("a", "a"), "ball", "in")
    with pytest.raises(BeliefError, match="tuple"):
        s.believes(["a"], "ball", "in")  # type: ignore[arg-type]
    with pytest.raises(BeliefError, match="confidence"):
        s.write(Fact("x", "y", "z"), scope=ChainScope(frozenset({("a",)})), t=5, confidence=1.5)


def test_direct_assertion_and_emptied_slot() -> None:
    s = BeliefStore()
    s.assert_belief(("robot",), Fact("cup", "in", "sink"), t=0, source=Source.INFERENCE, confidence=0.7)
    b = s.believes(("robot",), "cup", "in")
    assert b is not None and b.confidence == 0.7 and b.source is Source.INFERENCE
    s.assert_belief(("robot",), Fact("cup", "in", None), t=1, source=Source.PERCEPTION)
    assert s.believes(("robot",), "cup", "in") is None
    assert s.value(("robot",), "cup", "in", at=0) == "sink"


def test_holders_enumerates_chains_without_self_nesting() -> None:
    chains = list(BeliefStore().holders(["a", "b"], 3))
    assert chains == [(), ("a",), ("b",), ("a", "b"), ("b", "a"), ("a", "b", "a"), ("b", "a", "b")]

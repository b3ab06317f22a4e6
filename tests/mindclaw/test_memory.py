"""Memory: the belief table of eq. (3) as a view of the belief core, and the operation history."""

from __future__ import annotations

import pytest

from mindloop.beliefs import Source
from mindloop.errors import InvalidArgumentError
from mindloop.systems.mindclaw.memory import BeliefTable, HistoryEntry, Memory, OperationHistory


def test_visual_facts_are_the_world_chain_and_actor_beliefs_robot_actor_chains() -> None:
    table = BeliefTable()
    table.write_visual("apple", "fridge", t=3)
    table.write_actor("lily", "apple", "fridge", t=3)
    table.write_visual("apple", "sarah", t=8)
    store = table.store
    # the same answers straight from the belief store (DESIGN §4: visual facts = depth 0, beliefs = (robot, actor))
    assert store.value((), "apple", "at") == "sarah"
    assert store.value(("robot", "lily"), "apple", "at") == "fridge"
    assert store.believes(("robot", "lily"), "apple", "at").source is Source.INFERENCE
    assert store.believes((), "apple", "at").source is Source.PERCEPTION
    # a stale belief is a store mismatch of ("robot", lily) against the world chain
    [stale] = table.stale()
    assert (stale.actor, stale.object, stale.believed, stale.seen, stale.since) == (
        "lily",
        "apple",
        "fridge",
        "sarah",
        3,
    )
    assert [m.held.value for m in store.mismatches(("robot", "lily"))] == ["fridge"]


def test_time_travel_and_dict_views() -> None:
    table = BeliefTable()
    table.write_visual("apple", "fridge", t=3)
    table.write_visual("apple", "kitchen_cabinet", t=11)
    table.write_actor("sarah", "apple", "kitchen_cabinet", t=11)
    assert table.visual("apple", at=10) == "fridge"
    assert table.visual("apple") == "kitchen_cabinet"
    assert table.actor("sarah", "apple", at=10) is None
    assert table.to_dict() == {
        "visual_facts": {"apple": "kitchen_cabinet"},
        "actor_beliefs": {"sarah": {"apple": "kitchen_cabinet"}},
    }
    assert table.stale() == []
    assert len(table) == 2


def test_the_robot_is_not_an_actor_and_writes_must_keep_time_order() -> None:
    table = BeliefTable()
    with pytest.raises(InvalidArgumentError):
        table.write_actor("robot", "apple", "fridge", t=1)
    table.write_visual("apple", "fridge", t=5)
    with pytest.raises(Exception, match="time order"):
        table.write_visual("apple", "sink", t=4)


def test_history_remembers_who_was_helped() -> None:
    h = OperationHistory(maxlen=2)
    h.add(HistoryEntry(1, "op", "noop(none, none, none)"))
    h.add(HistoryEntry(15, "action", "action_run(lily, apple, none)", "lily", "apple", (("plan", "none"),)))
    assert not h.helped("lily", "apple")  # a plan of none helps nobody
    h.add(HistoryEntry(15, "action", "action_run(lily, apple, none)", "lily", "apple", (("plan", "walk(lily)"),)))
    h.add(HistoryEntry(16, "op", "noop(none, none, none)"))
    assert len(h) == 2 and h.recent(1)[0].t == 16  # bounded ...
    assert h.helped("lily", "apple") and h.helped_any() == [("lily", "apple")]  # ... but help is never forgotten
    with pytest.raises(InvalidArgumentError):
        OperationHistory(0)


def test_memory_without_a_belief_table() -> None:
    assert Memory.fresh(belief_table=False).table is None
    assert Memory.fresh().table is not None

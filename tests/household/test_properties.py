"""Properties of the world under arbitrary action sequences (hypothesis): refused actions never change anything,
the world stays consistent, and a tracker following the events agrees with the world on every fact."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mindloop.beliefs import Tracker
from mindloop.worlds.household import AT, ROOM, VERBS, Action, World, WorldSetup

SETUP = WorldSetup(
    "family_house",
    (("alice", "kitchen"), ("sam", "kids_room"), ("tom", "living_room")),
    (
        ("apple", "apple", "alice"),
        ("cookies", "cookies", "pantry_shelf"),
        ("mug", "mug", "fridge"),
        ("box", "box", "living_room_doorway"),
        ("glass", "glass", "kitchen_counter"),
    ),
    feelings=(("alice", "thirsty"),),
)
NAMES = [*sorted(World(SETUP).entity_ids()), "nothing_here", "left"]
VERB_NAMES = sorted(VERBS)

steps = st.lists(
    st.tuples(
        st.sampled_from(["alice", "sam", "tom", "robot"]),
        st.sampled_from(VERB_NAMES),
        st.lists(st.sampled_from(NAMES), max_size=3),
    ),
    min_size=1,
    max_size=40,
)


def _state(world: World) -> dict[str, object]:
    state = world.state_dict()
    state.pop("t")
    return state


@settings(max_examples=80, deadline=None)
@given(steps)
def test_random_play_keeps_the_world_and_tracker_consistent(plan: list[tuple[str, str, list[str]]]) -> None:
    world = World(SETUP)
    tracker = Tracker()
    tracker.apply_all(e.core for e in world.initial_events())
    agents = set(world.chars)
    last_t = 0
    for actor, verb, args in plan:
        before = _state(world)
        result = world.step(actor, Action(verb, tuple(args)))
        if not result.ok:
            assert result.failure is not None and result.failure.message
            assert _state(world) == before  # a refused action changes nothing
            assert len(result.events) <= 1 and all(not e.facts for e in result.events)
        for event in result.events:
            assert event.t >= last_t
            last_t = event.t
            assert event.witnesses <= agents
            if event.actor is not None:
                assert event.actor in event.witnesses
            tracker.apply(event.core)
        for item in world.items:
            holder = world.location(item)
            assert item in world.on(holder)
            assert tracker.world(item, AT) == holder
        for agent in agents:
            assert len(world.holding(agent)) <= 2
            assert tracker.world(agent, ROOM) == world.agent_room(agent)

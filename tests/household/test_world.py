"""The world: preconditions (worked out by hand from the catalogue's heights and states), effects, witnesses."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mindloop.beliefs import EventKind, Fact, Tracker, Utterance
from mindloop.errors import InvalidArgumentError, MindloopError, UnknownNameError
from mindloop.worlds.household import (
    AT,
    CHARACTERS,
    LAYOUTS,
    ROBOT,
    Action,
    FailureKind,
    World,
    WorldSetup,
)


def fail(world: World, actor: str, action: str, kind: FailureKind) -> None:
    """The action fails with ``kind`` and leaves the world exactly as it was."""
    before = world.state_dict()
    result = world.step(actor, action)
    assert not result.ok, f"{action} should fail"
    assert result.failure is not None and result.failure.kind is kind, result.failure
    after = world.state_dict()
    after.pop("t"), before.pop("t")
    assert after == before


def test_catalogue_sizes_match_the_paper() -> None:
    assert len(LAYOUTS) >= 8
    traits = [c.trait.value for c in CHARACTERS.values()]
    assert len(CHARACTERS) == 16
    assert traits.count("child") == 2 and traits.count("wheelchair") == 1 and traits.count("adult") == 13


def test_closed_container_cannot_be_put_into(home: World) -> None:
    fail(home, "alice", "putin(apple, fridge)", FailureKind.CONTAINER_CLOSED)
    assert home.step("alice", "open(fridge)").ok
    assert home.step("alice", "putin(apple, fridge)").ok
    assert home.location("apple") == "fridge"


def test_nothing_in_a_closed_container_can_be_taken(home: World) -> None:
    fail(home, "alice", "pick(mug)", FailureKind.CONTAINER_CLOSED)


def test_child_cannot_reach_a_high_shelf_and_is_seen_trying(home: World) -> None:
    # pantry shelf 1.8 m > Lily's reach 1.3 m
    assert home.step("lily", "walk(kitchen)").ok
    before = home.state_dict()
    result = home.step("lily", "pick(cookies)")
    assert not result.ok and result.failure is not None and result.failure.kind is FailureKind.OUT_OF_REACH
    (event,) = result.events  # a visible attempt: one event, no facts, witnessed by the room and the camera
    assert event.facts == () and event.failure is FailureKind.OUT_OF_REACH
    assert event.witnesses == {"alice", "lily", ROBOT}
    assert "cannot reach" in event.text
    after = home.state_dict()
    assert {k: v for k, v in after.items() if k != "t"} == {k: v for k, v in before.items() if k != "t"}
    assert home.step("alice", "pick(cookies)").ok  # an adult reaches 2.0 m


def test_nothing_is_grabbed_from_another_room(home: World) -> None:
    fail(home, "lily", "pick(apple)", FailureKind.HELD_BY_OTHER)
    assert home.step("alice", "place(apple, kitchen_table)").ok
    fail(home, "lily", "pick(apple)", FailureKind.NOT_HERE)
    fail(home, "tom", "open(fridge)", FailureKind.NOT_HERE)


def test_wheelchair_limits(home: World) -> None:
    fail(home, "tom", "run(kitchen)", FailureKind.UNABLE)
    fail(home, "tom", "sit(sofa)", FailureKind.UNABLE)
    assert home.step("alice", "drop(apple)").ok  # on the kitchen floor, 0.0 m: below Tom's 0.3 m
    assert home.step("tom", "walk(kitchen)").ok
    fail(home, "tom", "pick(apple)", FailureKind.OUT_OF_REACH)
    fail(home, "tom", "pick(cookies)", FailureKind.OUT_OF_REACH)  # 1.8 m > 1.2 m


def test_obstacle_in_doorway_blocks_wheelchair_but_not_walkers() -> None:
    w = World(
        WorldSetup(
            "cozy_apartment",
            (("tom", "living_room"), ("david", "living_room")),
            (("box", "box", "living_room_doorway"),),
        )
    )
    result = w.step("tom", "walk(kitchen)")
    assert not result.ok and result.failure is not None and result.failure.kind is FailureKind.BLOCKED
    assert len(result.events) == 1 and "blocks the way" in result.events[0].text
    fail(w, "tom", "pick(box)", FailureKind.NOT_GRASPABLE)
    fail(w, "tom", "move(box, living_room_corner)", FailureKind.UNABLE)
    assert w.step("david", "walk(kitchen)").ok
    assert w.step("robot", "move(box, living_room_corner)").ok
    assert w.blocking("living_room") is None
    assert w.step("tom", "walk(kitchen)").ok


def test_input_errors_are_typed_and_produce_no_event(home: World) -> None:
    for actor, action, kind in [
        ("alice", "fly(moon)", FailureKind.UNKNOWN_VERB),
        ("alice", "pick(unicorn)", FailureKind.UNKNOWN_ENTITY),
        ("alice", "give(apple)", FailureKind.WRONG_ARITY),
        ("alice", "open(lily)", FailureKind.WRONG_ARGUMENT),
        ("zoe", "walk(kitchen)", FailureKind.UNKNOWN_ACTOR),
    ]:
        t = home.t
        result = home.step(actor, action)
        assert result.failure is not None and result.failure.kind is kind and result.failure.is_input_error
        assert result.events == () and home.t == t
    result = home.step("alice", Action("teleport", ("mars",)))
    assert result.failure is not None and result.failure.kind is FailureKind.UNKNOWN_VERB


def test_unknown_names_get_suggestions(home: World) -> None:
    result = home.step("alice", "open(fridgee)")
    assert result.failure is not None and "fridge" in result.failure.message


def test_display_names_resolve(home: World) -> None:
    assert home.step("alice", "place(apple, the kitchen table)").ok
    assert home.location("apple") == "kitchen_table"
    assert home.step("alice", "walk(Lily)").ok and home.agent_room("alice") == "living_room"


def test_walking_between_rooms_emits_exit_enter_and_observation(home: World) -> None:
    assert home.step("alice", "place(apple, kitchen_table)").ok
    result = home.step("lily", "walk(kitchen)")
    kinds = [e.kind for e in result.events]
    assert kinds == ["exit", "enter", "observe"]
    exit_, enter, seen = result.events
    assert exit_.witnesses == {"lily", "tom", ROBOT}  # the living room, and the camera
    assert enter.witnesses == {"lily", "alice", ROBOT}
    assert Fact("apple", AT, "kitchen_table") in seen.facts  # what is in the open is seen on entering
    assert Fact("mug", AT, "fridge") not in seen.facts  # what is shut away is not
    assert {e.t for e in result.events} == {home.t}
    assert exit_.text == "Lily leaves the living room." and enter.text == "Lily walks into the kitchen."
    again = home.step("lily", "walk(living_room)")
    assert again.events[1].text == "Lily comes back to the living room."


def test_opening_shows_what_is_inside(home: World) -> None:
    result = home.step("alice", "open(fridge)")
    (event,) = result.events
    assert event.kind == EventKind.OPEN.value
    assert set(event.facts) == {Fact("fridge", "open", "open"), Fact("mug", AT, "fridge")}


def test_camera_decides_what_the_robot_witnesses() -> None:
    w = World(
        WorldSetup(
            "cozy_apartment",
            (("alice", "kitchen"),),
            (("apple", "apple", "alice"),),
            camera=("kitchen",),
            robot_room="kitchen",
        )
    )
    leave = w.step("alice", "walk(bedroom)")
    exit_, enter, _ = leave.events
    assert ROBOT in exit_.witnesses and ROBOT not in enter.witnesses
    put = w.step("alice", "place(apple, nightstand)")
    assert put.events[0].witnesses == {"alice"}
    assert w.sees(ROBOT, "kitchen") and not w.sees(ROBOT, "bedroom")


def test_power_cut_lamps_and_candles() -> None:
    w = World(
        WorldSetup(
            "cozy_apartment",
            (("nora", "living_room"),),
            (("candle", "candle", "sideboard_drawer"),),
            switched_on=("floor_lamp",),
        )
    )
    cut = w.environment("powercut")
    assert cut.ok and cut.events[0].witnesses == {"nora", ROBOT} and not w.power
    assert w.step("nora", "switchoff(floor_lamp)").ok
    result = w.step("nora", "switchon(floor_lamp)")
    assert result.failure is not None and result.failure.kind is FailureKind.NO_POWER
    assert "nothing happens" in result.events[0].text
    assert w.step("nora", "open(sideboard_drawer)").ok and w.step("nora", "pick(candle)").ok
    assert w.step("nora", "switchon(candle)").ok and w.is_on("candle")  # a candle needs no power
    assert not w.environment("powercut").ok


def test_faucet_water_cups_and_thirst() -> None:
    w = World(
        WorldSetup(
            "cozy_apartment",
            (("alex", "kitchen"),),
            (("glass", "glass", "kitchen_counter"),),
            feelings=(("alex", "thirsty"),),
        )
    )
    fail(w, "alex", "pour(water, glass)", FailureKind.NOT_HOLDING)
    fail(w, "alex", "pick(water)", FailureKind.NOT_GRASPABLE)
    assert w.step("alex", "pick(glass)").ok
    fail(w, "alex", "drink(glass)", FailureKind.EMPTY)
    assert w.step("alex", "pour(water, glass)").ok and w.contents("glass") == "water"
    result = w.step("alex", "drink(glass)")
    assert Fact("alex", "feels", None) in result.events[0].facts and w.feeling("alex") is None
    assert w.step("alex", "switchon(faucet)").ok and w.is_on("faucet")
    fail(w, "alex", "switchon(faucet)", FailureKind.ALREADY)


def test_give_needs_the_receiver_in_the_room_with_a_free_hand(home: World) -> None:
    fail(home, "alice", "give(apple, lily)", FailureKind.NOT_HERE)
    assert home.step("alice", "walk(living_room)").ok
    assert home.step("alice", "give(apple, lily)").ok
    assert home.holder_of("apple") == "lily" and home.holding("alice") == ()
    fail(home, "alice", "give(apple, lily)", FailureKind.NOT_HOLDING)


def test_hands_hold_two_things() -> None:
    w = World(
        WorldSetup(
            "cozy_apartment",
            (("mark", "kitchen"),),
            (
                ("apple", "apple", "kitchen_table"),
                ("banana", "banana", "kitchen_table"),
                ("orange", "orange", "kitchen_table"),
            ),
        )
    )
    assert w.step("mark", "pick(apple)").ok and w.step("mark", "pick(banana)").ok
    fail(w, "mark", "pick(orange)", FailureKind.HANDS_FULL)


def test_items_on_items_travel_together() -> None:
    w = World(
        WorldSetup(
            "cozy_apartment",
            (("emma", "kitchen"),),
            (
                ("cutting_board", "cutting_board", "kitchen_counter"),
                ("carrot", "carrot", "emma"),
                ("knife", "knife", "kitchen_drawer"),
            ),
        )
    )
    assert w.step("emma", "place(carrot, cutting_board)").ok
    fail(w, "emma", "cut(carrot)", FailureKind.MISSING_TOOL)
    assert w.step("emma", "open(kitchen_drawer)").ok and w.step("emma", "pick(knife)").ok
    assert w.step("emma", "cut(carrot)").ok and w.item_state("carrot") == "cut"
    assert w.step("emma", "place(knife, kitchen_counter)").ok
    assert w.step("emma", "pick(cutting_board)").ok and w.step("emma", "walk(living_room)").ok
    assert w.room_of("carrot") == "living_room" and w.location("carrot") == "cutting_board"


def test_speech_is_an_utterance_heard_by_the_room() -> None:
    w = World(WorldSetup("cozy_apartment", (("alex", "living_room"), ("jamie", "living_room"), ("mia", "kitchen"))))
    result = w.step("alex", Action("say", ("jamie",), "I'm thirsty.", (Fact("alex", "feels", "thirsty"),)))
    (event,) = result.events
    assert isinstance(event.core, Utterance)
    assert event.core.listeners == {"jamie", ROBOT} and event.text == 'Alex: "I\'m thirsty."'
    fail(w, "alex", 'say(mia, "hello")', FailureKind.NOT_HERE)
    said = w.step("jamie", "say(alex, remote, coffee_table)")
    assert said.events[0].facts == (Fact("remote", AT, "coffee_table"),)


def test_sitting_and_standing() -> None:
    w = World(WorldSetup("cozy_apartment", (("grace", "living_room"),)))
    assert w.step("grace", "sit(sofa)").ok
    fail(w, "grace", "walk(kitchen)", FailureKind.SITTING)
    fail(w, "grace", "sit(sofa)", FailureKind.ALREADY)
    assert w.step("grace", "standup").ok and w.step("grace", "walk(kitchen)").ok
    fail(w, "grace", "standup", FailureKind.ALREADY)


def test_bad_setups_are_clear_errors() -> None:
    with pytest.raises(UnknownNameError):
        World(WorldSetup("castle", ()))
    with pytest.raises(UnknownNameError):
        World(WorldSetup("cozy_apartment", (("zoe", "kitchen"),)))
    with pytest.raises(InvalidArgumentError):
        World(WorldSetup("cozy_apartment", (("alice", "garage"),)))
    with pytest.raises(InvalidArgumentError):
        World(WorldSetup("cozy_apartment", (), (("apple", "apple", "moon"),)))
    with pytest.raises(MindloopError):
        World(WorldSetup("cozy_apartment", (), camera=("garage",)))


def test_world_and_tracker_agree_on_every_fact(tracked: Callable[[World], Tracker]) -> None:
    w = World(
        WorldSetup(
            "family_house",
            (("alice", "kitchen"), ("sam", "kids_room")),
            (("apple", "apple", "alice"), ("ball", "ball", "toy_box")),
        )
    )
    tr = tracked(w)
    for actor, action in [
        ("alice", "place(apple, kitchen_table)"),
        ("sam", "open(toy_box)"),
        ("sam", "pick(ball)"),
        ("sam", "walk(kitchen)"),
        ("sam", "pick(apple)"),
        ("sam", "walk(bedroom)"),
        ("sam", "place(apple, bed)"),
        ("alice", "walk(dining_room)"),
        ("alice", "open(cupboard)"),
        ("robot", "walk(bedroom)"),
        ("robot", "pick(apple)"),
    ]:
        result = w.step(actor, action)
        assert result.ok, result.failure
        tr.apply_all(result.core_events)
    for item in w.items:
        assert tr.world(item, AT) == w.location(item)
    assert tr.world("toy_box", "open") == "open" and tr.world("cupboard", "open") == "open"
    assert tr.world("alice", "room") == "dining_room"


def test_every_verb_has_one_row_of_preconditions_and_effect() -> None:
    """The parser's verbs and the world's rows are the same set: no verb is parsed that the world cannot check."""
    from mindloop.worlds.household.actions import VERBS
    from mindloop.worlds.household.world import VERB_RULES

    assert set(VERB_RULES) == set(VERBS)

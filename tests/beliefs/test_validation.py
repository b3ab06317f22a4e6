"""Public constructors of the belief core refuse bad values with a BeliefError naming them (issue 14)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mindloop.beliefs import Event, EventKind, Fact, HiToMTrust, Tracker, Utterance
from mindloop.errors import BeliefError, MindloopError

APPLE = (Fact("apple", "in", "box"),)


def test_a_string_of_witnesses_is_refused_not_split_into_letters() -> None:
    with pytest.raises(BeliefError, match="got the string 'sally'"):
        Event(1, EventKind.PUT, "sally", APPLE, "sally")  # type: ignore[arg-type]
    # any collection of names is fine, and becomes a frozenset
    assert Event(1, EventKind.PUT, "sally", APPLE, ["sally", "anne"]).witnesses == {"sally", "anne"}  # type: ignore[arg-type]


def test_an_unknown_event_kind_is_refused_and_a_known_string_is_read() -> None:
    with pytest.raises(BeliefError, match="unknown event kind 'teleport'"):
        Event(1, "teleport", "sally", APPLE, frozenset())  # type: ignore[arg-type]
    assert Event(1, "move", "sally", APPLE, frozenset()).kind is EventKind.MOVE  # type: ignore[arg-type]


@pytest.mark.parametrize("t", [math.nan, math.inf, "3", None, True])
def test_times_are_finite_numbers(t: object) -> None:
    with pytest.raises(BeliefError, match="must be a finite number"):
        Event(t, EventKind.MOVE, "anne", APPLE, frozenset({"anne"}))  # type: ignore[arg-type]


def test_a_nan_time_can_no_longer_let_an_out_of_order_write_in() -> None:
    tr = Tracker()
    tr.apply(Event(5, EventKind.MOVE, "anne", APPLE, frozenset({"anne"})))
    with pytest.raises(BeliefError):
        tr.apply(Event(math.nan, EventKind.MOVE, "anne", (Fact("apple", "in", "bag"),), frozenset()))  # type: ignore[arg-type]
    assert tr.value((), "apple", "in") == "box"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ((None, "in", "box"), "subject"),
        (("apple", None, "box"), "relation"),
        (("apple", "in", 3), "value"),
        (("", "in", "box"), "subject"),
    ],
)
def test_facts_need_a_subject_a_relation_and_a_string_value(args: tuple[object, ...], needle: str) -> None:
    with pytest.raises(BeliefError, match=needle):
        Fact(*args)  # type: ignore[arg-type]
    assert Fact("apple", "in", None).value is None  # an empty slot is allowed


def test_trust_by_the_name_the_docs_use() -> None:
    assert isinstance(Tracker(trust="hitom").trust, HiToMTrust)  # type: ignore[arg-type]
    with pytest.raises(BeliefError, match="unknown trust policy 'hitmo'"):
        Tracker(trust="hitmo")  # type: ignore[arg-type]
    with pytest.raises(BeliefError, match="trust must be a trust policy"):
        Tracker(trust=3)  # type: ignore[arg-type]
    with pytest.raises(BeliefError, match="max_depth"):
        Tracker(max_depth=0)


def test_utterances_check_their_listeners_too() -> None:
    with pytest.raises(BeliefError, match="listeners must be a collection"):
        Utterance(1, "anne", "sally", APPLE, public=False)  # type: ignore[arg-type]


_ANY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.lists(st.text(max_size=4), max_size=3),
    st.frozensets(st.one_of(st.text(max_size=4), st.integers()), max_size=3),
)


@given(t=_ANY, kind=st.one_of(_ANY, st.sampled_from(list(EventKind))), actor=_ANY, facts=_ANY, witnesses=_ANY)
def test_an_event_is_valid_or_a_mindloop_error(
    t: object, kind: object, actor: object, facts: object, witnesses: object
) -> None:
    try:
        event = Event(t, kind, actor, facts, witnesses)  # type: ignore[arg-type]
    except MindloopError:
        return
    assert isinstance(event.kind, EventKind) and isinstance(event.facts, tuple)
    assert isinstance(event.t, int | float) and math.isfinite(event.t)
    assert not isinstance(witnesses, str)
    assert all(isinstance(w, str) and w for w in event.witnesses)
    Tracker().apply(event)  # a valid event applies without any other exception


@given(subject=_ANY, relation=_ANY, value=_ANY)
def test_a_fact_is_valid_or_a_mindloop_error(subject: object, relation: object, value: object) -> None:
    try:
        fact = Fact(subject, relation, value)  # type: ignore[arg-type]
    except MindloopError:
        return
    assert isinstance(fact.subject, str) and fact.subject and isinstance(fact.relation, str) and fact.relation
    assert fact.value is None or isinstance(fact.value, str)

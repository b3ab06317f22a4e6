"""The Symbolic Belief Language: the paper's examples, round trips through the belief store, rules as data."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mindloop.beliefs import BeliefStore, Fact, Source
from mindloop.beliefs.views.sbl import (
    CWAH_RULES,
    FIG7_RULES,
    FIG7_RULES_TEXT,
    TDW_RULES,
    entity,
    format_fact,
    parse,
    parse_lenient,
    parse_line,
    parse_rules,
    store_lines,
    term_typer,
    write_statements,
)
from mindloop.errors import ParseError


def test_zero_and_first_order_examples_of_section_3_1() -> None:
    # "Alice believes Bob holds a banana" is zero-order; "Alice believes that Bob believes there is an apple in
    # the kitchen" is first-order (Fig. 2).
    zero = parse_line("Alice BELIEVE Bob HOLD <banana>(3)")
    first = parse_line("Alice BELIEVE Bob BELIEVE <apple>(12) IN <kitchen>(2000)")
    assert (zero.chain, zero.order) == (("Alice",), 0)
    assert (first.chain, first.order) == (("Alice", "Bob"), 1)
    assert first.to_fact() == Fact("<apple>(12)", "IN", "<kitchen>(2000)")
    # HOLD is stored on the object's slot, so one agent can hold two things
    assert zero.to_fact() == Fact("<banana>(3)", "HELD_BY", "Bob")


def test_attribute_takes_a_state() -> None:
    s = parse_line("Alice BELIEVE <kitchen>(2000) EXPLORED part")
    assert (s.kind, s.value) == ("attribute", "part")
    with pytest.raises(ParseError, match="attribute EXPLORED takes a state word"):
        parse_line("Alice BELIEVE <kitchen>(2000) EXPLORED <bed>(1)")


def test_entity_spacing_bullets_and_full_stop_are_normalised() -> None:
    assert str(parse_line("- Alice BELIEVE <table> (712) IN <kitchen>( 2000 ).")) == (
        "Alice BELIEVE <table>(712) IN <kitchen>(2000)"
    )


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("Alice BELIEVE <apple>(1) IN", "found 2 term"),
        ("Alice BELIEVE <apple>(1) FLIES <kitchen>(2)", "unknown relation 'FLIES'"),
        ("Alice BELIEVE Alice BELIEVE <apple>(1) IN <kitchen>(2)", "nests an agent directly inside itself"),
        ("<apple>(1) BELIEVE <apple>(2) IN <kitchen>(3)", "a believer must be an agent name"),
        ("Alice BELIEVE ?object IN ?room", "variables belong in rules"),
        ("Alice thinks the apple is in the kitchen", "expected"),
    ],
)
def test_malformed_lines_name_the_problem_and_the_text(line: str, reason: str) -> None:
    with pytest.raises(ParseError) as exc:
        parse_line(line)
    assert reason in str(exc.value)
    assert line.strip() in str(exc.value)


def test_lenient_parse_keeps_good_lines_and_reports_bad_ones_with_their_text() -> None:
    text = "Alice BELIEVE <apple>(1) IN <kitchen>(2000)\n\nI think so\nAlice BELIEVE Bob AT <office>(3000)\n"
    result = parse_lenient(text)
    assert [str(s) for s in result.statements] == [
        "Alice BELIEVE <apple>(1) IN <kitchen>(2000)",
        "Alice BELIEVE Bob AT <office>(3000)",
    ]
    assert [(i.line, i.text) for i in result.issues] == [(3, "I think so")]
    with pytest.raises(ParseError, match=r"<sbl>:3: .*I think so"):
        parse(text)


def test_store_view_round_trip() -> None:
    lines = [
        "Alice BELIEVE <apple>(1) IN <kitchen>(2000)",
        "Alice BELIEVE Bob HOLD <banana>(2)",
        "Alice BELIEVE Bob HOLD <pen>(3)",
        "Alice BELIEVE <kitchen>(2000) EXPLORED all",
        "Alice BELIEVE Bob BELIEVE <apple>(1) IN <office>(3000)",
    ]
    store = BeliefStore()
    assert write_statements(store, parse("\n".join(lines)), t=1, source=Source.TESTIMONY) == 5
    assert sorted(store_lines(store, ("Alice",))) == sorted(lines[:4])
    assert store_lines(store, ("Alice", "Bob")) == [lines[4]]
    # a first-order belief that differs from the zero-order one is a misalignment the store can show
    assert store.value(("Alice", "Bob"), "<apple>(1)", "IN") != store.value(("Alice",), "<apple>(1)", "IN")


def test_bare_lines_are_read_as_the_owners_beliefs() -> None:
    store = BeliefStore()
    write_statements(store, parse("<apple>(1) IN <kitchen>(2000)"), t=0, source=Source.PERCEPTION, prefix=("Bob",))
    assert store_lines(store, ("Bob",)) == ["Bob BELIEVE <apple>(1) IN <kitchen>(2000)"]


names = st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True)
ids = st.integers(min_value=0, max_value=99999)
agents = st.sampled_from(["Alice", "Bob", "Charlie"])


@given(
    chain=st.lists(agents, min_size=1, max_size=3).filter(lambda c: all(a != b for a, b in pairwise(c))),
    subj=st.tuples(names, ids),
    obj=st.tuples(names, ids),
    rel=st.sampled_from(["IN", "ON", "INSIDE", "HOLD", "CONTAIN", "AT"]),
)
def test_printing_then_parsing_gives_the_same_fact(
    chain: list[str], subj: tuple[str, int], obj: tuple[str, int], rel: str
) -> None:
    s = parse_line(" BELIEVE ".join([*chain, f"{entity(*subj)} {rel} {entity(*obj)}"]))
    assert format_fact(s.chain, s.to_fact()) == str(s)
    assert parse_line(str(s)) == s


def test_fig7_rules_are_data() -> None:
    assert len(FIG7_RULES) == 16
    assert len(FIG7_RULES.zero_order()) == 8 and len(FIG7_RULES.first_order()) == 8
    assert FIG7_RULES.relations() == {"IN", "HOLD", "CONTAIN", "EXPLORED", "AT"}
    again, issues = parse_rules(FIG7_RULES.text())
    assert again == FIG7_RULES and not issues
    assert "?agentA BELIEVE ?agentB BELIEVE ?room EXPLORED ?exploration_state" in FIG7_RULES_TEXT


def test_rules_admit_typed_statements_only() -> None:
    type_of = term_typer({"apple": "object", "kitchen": "room", "bowl": "container", "bed": "bed"}, ["Alice", "Bob"])
    ok = parse_line("Alice BELIEVE Bob BELIEVE <apple>(1) IN <kitchen>(2000)")
    rule = FIG7_RULES.matching(ok, type_of)
    assert rule is not None and rule.order == 1
    assert FIG7_RULES.matching(parse_line("Alice BELIEVE <kitchen>(2000) EXPLORED part"), type_of) is not None
    # a state outside none/part/all, an object where a room belongs, a relation no rule has
    assert FIG7_RULES.matching(parse_line("Alice BELIEVE <kitchen>(2000) EXPLORED half"), type_of) is None
    assert FIG7_RULES.matching(parse_line("Alice BELIEVE <apple>(1) IN <bowl>(5)"), type_of) is None
    assert FIG7_RULES.matching(parse_line("Alice BELIEVE <apple>(1) ON <bed>(9)"), type_of) is None
    assert TDW_RULES.matching(parse_line("Alice BELIEVE <apple>(1) ON <bed>(9)"), type_of) is not None


def test_rule_sections_must_agree_with_rule_order() -> None:
    text = "zero-order belief rules:\n?agentA BELIEVE ?agentB BELIEVE ?object IN ?room\n"
    with pytest.raises(ParseError, match="order-1 rule under the zero-order header"):
        parse_rules(text)
    rules, issues = parse_rules(text + "?agent BELIEVE ?agent AT ?room\nnot a rule\n", strict=False)
    assert len(rules) == 1 and [i.text for i in issues] == [
        "?agentA BELIEVE ?agentB BELIEVE ?object IN ?room",
        "not a rule",
    ]


def test_cwah_rules_have_a_first_order_counterpart_for_each_zero_order_rule() -> None:
    zero = {(r.statement.subject, r.relation, r.statement.value) for r in CWAH_RULES.zero_order()}
    first = {(r.statement.subject, r.relation, r.statement.value) for r in CWAH_RULES.first_order()}
    assert zero == first

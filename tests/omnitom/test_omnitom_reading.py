"""``read_stage1`` / ``read_stage2``: what the benchmarks read model replies with, under both protocols. Tables as
models write them (outer pipes or not, bold or renamed headers, index and note columns, repeated headers) are read
as a person reads them; replies with nothing usable are refused with a one-line reason the model can act on; under
the release's protocol ``notes`` say where its literal reader would have read the reply differently."""

from __future__ import annotations

import pytest

from mindloop.errors import ParseError
from mindloop.systems.omnitom import release
from mindloop.systems.omnitom.records import BeliefLabels, BeliefRecord
from mindloop.systems.omnitom.tables import read_stage1, read_stage2

ROWS = [("world", "Bob leaves the room", "0"), ("Alice", "The ball is in the box", "1")]


def _rows(text: str, protocol: str) -> list[tuple[str, str, str | None]]:
    return [(b.actor, b.belief, b.labels.order) for b in read_stage1(text, protocol).beliefs]


@pytest.mark.parametrize("protocol", ["release", "mindloop"])
@pytest.mark.parametrize(
    "reply",
    [
        "| Actor | Belief | Order |\n|---|---|---|\n| world | Bob leaves the room | 0 |\n"
        "| Alice | The ball is in the box | 1 |",
        "Actor | Belief | Order\n---|---|---\nworld | Bob leaves the room | 0\nAlice | The ball is in the box | 1",
        "| **Actor** | **Belief** | **Order** |\n|:--|:--|--:|\n| world | Bob leaves the room | 0 |\n"
        "| Alice | The ball is in the box | 1 |",
        "Here is the table:\n```\n| Actor Name | Belief Statement | Belief Order |\n"
        "| world | Bob leaves the room | 0 |\n| Alice | The ball is in the box | 1 |\n```\nLet me know.",
        "| # | Actor | Belief | Order |\n|---|---|---|---|\n| 1 | world | Bob leaves the room | 0 |\n"
        "| 2 | Alice | The ball is in the box | 1 |",
        "| Actor | Belief | Order | Notes |\n| world | Bob leaves the room | 0 | narrated |\n"
        "| Alice | The ball is in the box | 1 | she saw it |",
        "| Actor | Belief | Order |\n| world | Bob leaves the room | 0 |\n| Actor | Belief | Order |\n"
        "| Alice | The ball is in the box | 1 |",
    ],
    ids=["plain", "no-outer-pipes", "bold-header", "renamed-header", "index-column", "notes-column", "repeated-header"],
)
def test_stage1_tables_as_models_write_them(reply: str, protocol: str) -> None:
    assert _rows(reply, protocol) == ROWS


def test_stage1_refusals_say_what_to_write() -> None:
    with pytest.raises(ParseError, match="no pipe-separated table in the reply"):
        read_stage1("Bob believes the ball is in the box.", "release")
    with pytest.raises(ParseError, match="no table row has an actor, a belief and an order"):
        read_stage1("| Actor | Belief | Order |\n|---|---|---|", "mindloop")


def test_release_notes_where_its_literal_reader_differs() -> None:
    bold = "| **Actor** | **Belief** | **Order** |\n| world | Bob leaves the room | 0 |"
    literal, _ = release.parse_extraction(bold)
    assert [b.actor for b in literal] == ["**Actor**", "world"]  # the release keeps a bold header as a belief row
    reading = read_stage1(bold, "release")
    assert [b.actor for b in reading.beliefs] == ["world"]
    assert reading.notes == (
        "markdown emphasis removed from cells",
        "header rows recognised wherever they are (the release drops only a first row starting 'Actor')",
    )
    assert read_stage1("| Actor | Belief | Order |\n| world | Bob leaves | 0 |", "release").notes == ()


LABELS = BeliefLabels(
    order="1",
    truth_status="False",
    knowledge_access="Private",
    representation="Implicit",
    content_type="Location",
    mental_source="Memory",
    context="Temporal",
)
GOLD = [BeliefRecord(actor="Alice", belief="The ball is in the box"), BeliefRecord(actor="Bob", belief="Bob left")]
CELLS = "1 | False | Private | Implicit | Location | Memory | Temporal"
HEAD = (
    "Actor | Belief | Order | Truth-Status | Knowledge-Access | Representation | Content Type | Mental-Source | Context"
)


@pytest.mark.parametrize("protocol", ["release", "mindloop"])
def test_stage2_reads_label_columns_by_header_with_extra_columns(protocol: str) -> None:
    reply = f"| # | {HEAD} | Notes |\n|---|\n| 1 | Alice | The ball is in the box. | {CELLS} | none |"
    labels = read_stage2(reply, GOLD, protocol).labels
    assert labels[0] == LABELS
    assert labels[1] is None  # no row for Bob's belief: missing, scored wrong


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("Alice believes the ball is in the box.", "no pipe-separated table"),
        (
            "| Actor | Belief |\n| Alice | The ball is in the box |\n| Bob | Bob left |",
            "the table has no label columns",
        ),
        (f"| {HEAD} |\n| Carol | Something else | {CELLS} |", "no row repeats an Actor and a Belief of the input"),
        (
            f"| {HEAD} |\n| Alice | The ball is in the box | a | b | c | d | e | f | g |",
            "no label is one of the closed",
        ),
        (
            f"| {HEAD} |\n| Alice | The ball is in the box | 0/1/2/3 | True/False/Unknown | Private/Shared/Public |",
            r"label cells list a whole closed set \('0/1/2/3'\): give one value in each cell",
        ),
    ],
)
def test_stage2_refusals(reply: str, why: str) -> None:
    with pytest.raises(ParseError, match=why):
        read_stage2(reply, GOLD, "release")

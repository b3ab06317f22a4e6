"""The one choice reader reads what a person reads, for every multiple-choice set: a label in any form people
write, or the option's own text; a reply naming two options, or none, is no answer; there is no first-character
fallback."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mindloop.bench.reader import read_choice, strict_choice

STATEMENTS = [
    "Mark thinks that the salmon is inside the microwave.",
    "Mark thinks that the salmon is not inside the microwave.",
]

FORMS = ("{l}", "{L}", "({l})", "{l})", "Answer: {l}", "Answer:{l}", "The answer is ({l}).", "{text}")
"""The forms a person reads as option ``l``: its label (either case, bare, in parentheses, before a parenthesis),
after an answer cue (with or without a space), in a sentence, and the option's own text."""


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("b", 1),
        ("B", 1),
        ("(b)", 1),
        ("b)", 1),
        ("b.", 1),
        ("Answer: b", 1),
        ("Answer:b", 1),
        ("answer: (B)", 1),
        ("The answer is (b).", 1),
        ("The correct option would be a.", 0),
        ("**B**", 1),
        ("Answer:b)Mark thinks that the salmon is not inside the microwave.", 1),
        ("(a) Mark thinks that the salmon is inside the microwave.", 0),
        (STATEMENTS[1], 1),
        (STATEMENTS[1].rstrip("."), 1),  # the option's text without its full stop
        ("I believe Mark thinks that the salmon is inside the microwave, since he saw it.", 0),
        ("a", 0),
        ("A:", 0),
        ("Let me think it through.\nAnswer: b", 1),
        # BigToM asks for 'Answer:<option>)<answer>'; the 1.5B model copied the brackets (bigtom.csv line 2)
        ("Answer:<a>)", 0),
        ("Answer:<b>)Mark thinks that the salmon is not inside the microwave.", 1),
    ],
)
def test_reads_each_form_a_person_reads(reply: str, expected: int) -> None:
    assert read_choice(reply, STATEMENTS, "ab").choice == STATEMENTS[expected]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("", "empty reply"),
        ("a) or b)", "names several"),
        ("(a) or (b)", "names several"),
        ("Answer: a) because b) is wrong", "names several"),
        (f"{STATEMENTS[0]} Or maybe {STATEMENTS[1]}", "names several"),
        ("I am not sure.", "names none"),
        ("a cat sat on the mat", "names none"),  # a leading article is not option (a)
        ("Answer", "names none"),  # no first-character fallback: the A of "Answer" is not option (a)
        ("Actually, neither.", "names none"),
    ],
)
def test_two_options_or_none_is_no_answer(reply: str, why: str) -> None:
    reading = read_choice(reply, STATEMENTS, "ab")
    assert reading.choice is None and why in reading.how


def test_labels_are_read_only_when_the_question_showed_them() -> None:
    assert read_choice("B", ["Yes", "No"], "AB").choice == "No"
    assert read_choice("B", ["Yes", "No"]).choice is None  # no labels shown: a bare letter names nothing
    assert read_choice("no", ["Yes", "No"]).choice == "No"


def test_the_strict_reading_is_the_first_line_alone() -> None:
    assert strict_choice("b", STATEMENTS, "ab") == STATEMENTS[1]
    assert strict_choice("(B)\nbecause he saw it", STATEMENTS, "ab") == STATEMENTS[1]
    # "Answer: b" is the form MMToM-QA's prompt (ending "Answer: ") and BigToM's ('Answer:<option>)<answer>') ask for
    assert strict_choice("Answer: b", STATEMENTS, "ab") == STATEMENTS[1]
    assert strict_choice("Answer:b)" + STATEMENTS[1], STATEMENTS, "ab") == STATEMENTS[1]
    assert strict_choice("Answer:b)" + STATEMENTS[0], STATEMENTS, "ab") is None  # the key and its text disagree
    assert strict_choice("The answer is b.", STATEMENTS, "ab") is None  # prose: flexible reading only
    assert strict_choice(STATEMENTS[0], STATEMENTS, "ab") == STATEMENTS[0]


WORDS = st.text(alphabet="defghijkmnopqrstuvwxyz", min_size=3, max_size=8)
OPTIONS = st.lists(st.lists(WORDS, min_size=1, max_size=4).map(" ".join), min_size=2, max_size=6, unique=True)


QUICK = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
"""No clock in a test: a loaded machine draws slowly, which says nothing about the reader."""


@QUICK
@given(options=OPTIONS, data=st.data())
def test_any_form_of_any_option_is_read_as_that_option(options: list[str], data: st.DataObject) -> None:
    """Options of one to four words (no two alike, none a label), shown as a, b, c, ...: every form in
    :data:`FORMS` of any option reads as that option, flexibly."""
    labels = "abcdef"[: len(options)]
    k = data.draw(st.integers(0, len(options) - 1))
    form = data.draw(st.sampled_from(FORMS))
    reply = form.format(l=labels[k], L=labels[k].upper(), text=options[k])
    named_inside = [o for o in options if o != options[k] and f" {o} " in f" {options[k]} "]
    if form == "{text}" and named_inside:
        return  # the reply's text names a shorter option too; covered by the masking test below
    assert read_choice(reply, options, labels).choice == options[k]


@QUICK
@given(options=OPTIONS)
def test_an_option_inside_a_longer_one_is_not_a_mention(options: list[str]) -> None:
    longer = f"{options[0]} {options[1]}"
    choices = [options[0], longer]
    assert read_choice(longer, choices, "ab").choice == longer
    assert read_choice(options[0], choices, "ab").choice == options[0]

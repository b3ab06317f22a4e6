"""Messages: what agents write is read back as the same facts and plan; the paper's example message too."""

from __future__ import annotations

from mindloop.beliefs import Fact
from mindloop.systems.cobel.messages import read, render


def test_paper_example_message_of_fig13() -> None:
    text = (
        "Hi Bob, I' ve explored all of the <kitchen>(2000) and found <apple>(12123) there. I'm holding "
        "<banana>(12234). My subplan is to grasp <apple>(12123) and transport holding things to the bed."
    )
    r = read(text, "Alice", inside="CONTAINED_BY")
    assert set(r.facts) == {
        Fact("<kitchen>(2000)", "EXPLORED", "all"),
        Fact("<apple>(12123)", "IN", "<kitchen>(2000)"),
        Fact("<banana>(12234)", "HELD_BY", "Alice"),
    }
    assert r.plan == ("grasp", "<apple>(12123)")


def test_render_then_read_round_trip() -> None:
    facts = [
        Fact("<apple>(1)", "INSIDE", "<fridge>(105)"),
        Fact("<fridge>(105)", "IN", "<kitchen>(2000)"),
        Fact("<cupcake>(2)", "ON", "<desk>(112)"),
        Fact("<fork>(3)", "ON", "<desk>(112)"),
        Fact("<plate>(4)", "HELD_BY", "Alice"),
        Fact("<pen>(5)", "HELD_BY", "Bob"),
        Fact("<bedroom>(3000)", "EXPLORED", "part"),
        Fact("<nothing>(6)", "ON", None),
    ]
    text = render(facts, "Alice", plan="grab <cupcake>(2)")
    assert "<fridge>(105) in <kitchen>(2000)" in text  # the holder's room rides along
    r = read(text, "Alice", inside="INSIDE")
    assert set(r.facts) == set(facts[:-1])
    assert r.plan == ("grab", "<cupcake>(2)")


def test_unreadable_sentences_with_entities_are_reported() -> None:
    r = read("The <apple>(1) looks tasty. Hello!", "Bob")
    assert r.facts == () and r.unread == ("The <apple>(1) looks tasty.",)

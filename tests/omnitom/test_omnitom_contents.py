"""Unexpected-contents stories: the tracker's ``believe`` event, the templated parser and the annotator, checked
against ToMBench's own questions about each of its 50 such stories."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mindloop.beliefs import Event, EventKind, Fact, Source, Tracker
from mindloop.errors import BeliefError
from mindloop.systems.omnitom.annotator import annotate_text
from mindloop.systems.omnitom.templated import parse_templated_story
from mindloop.systems.omnitom.tombench import read_tombench_file

CABINET = (
    "Xiao Bei finds a cabinet in the office, the label on the cabinet is pineapple, Xiao Bei cannot see what is "
    "inside the cabinet, Xiao Bei opens the cabinet and finds a calculator, there is no pineapple in the cabinet, "
    "Xiao Bei closes the cabinet and puts it back in its place, Han Mei Mei enters the office and sees the cabinet."
)


# ---- the believe event ------------------------------------------------------------------------------------------
def test_a_believe_event_writes_only_the_chains_it_names() -> None:
    tr = Tracker(max_depth=2)
    tr.apply(Event(1, EventKind.PUT, None, (Fact("box", "contains", "a cup"),), frozenset({"ann"})))
    chains = frozenset({("bob",), ("ann", "bob"), ("bob", "ann", "bob")})  # the depth-3 chain is beyond max_depth
    tr.apply(Event(2, EventKind.BELIEVE, None, (Fact("box", "contains", "a hat"),), frozenset({"ann", "bob"}),
                   Source.INFERENCE, chains=chains))  # fmt: skip
    assert tr.world("box", "contains") == "a cup"  # the world is untouched
    assert tr.value(("ann",), "box", "contains") == "a cup"  # a witness not named keeps what she saw
    assert tr.value(("bob",), "box", "contains") == "a hat" and tr.value(("ann", "bob"), "box", "contains") == "a hat"
    assert tr.value(("bob", "ann"), "box", "contains") is None  # not named, never witnessed: nothing
    belief = tr.believes(("bob",), "box", "contains")
    assert belief is not None and belief.source is Source.INFERENCE and belief.since == 2


@pytest.mark.parametrize(
    ("kind", "chains", "message"),
    [
        (EventKind.OTHER, frozenset({("bob",)}), "only a 'believe' event names the chains"),
        (EventKind.BELIEVE, frozenset(), "needs at least one holder chain"),
        (EventKind.BELIEVE, frozenset({()}), "never the world"),
        (EventKind.BELIEVE, ("bob",), "a collection of holder chains"),
        (EventKind.BELIEVE, frozenset({("bob", "bob")}), "nests 'bob' directly inside itself"),
    ],
)
def test_believe_events_are_checked(kind: EventKind, chains: object, message: str) -> None:
    with pytest.raises(BeliefError, match=message):
        Event(1, kind, None, (Fact("box", "contains", "a hat"),), frozenset(), chains=chains)  # type: ignore[arg-type]


# ---- the parser and the annotator --------------------------------------------------------------------------------
def test_the_label_is_believed_until_the_box_is_opened() -> None:
    story = parse_templated_story(CABINET)
    assert story.agents == ("Xiao Bei", "Han Mei Mei") and story.containers == ("cabinet",)
    tr = Tracker(max_depth=3)
    tr.apply_all(story.events)
    xb, hm = "Xiao Bei", "Han Mei Mei"
    assert tr.world("cabinet", "contains") == "a calculator" and tr.world("cabinet", "label") == "pineapple"
    history = [(b.value, b.source) for b in tr.history((xb,), "cabinet", "contains")]
    assert history == [("pineapple", Source.INFERENCE), ("a calculator", Source.PERCEPTION)]
    # Han Mei Mei saw the label but not the opening; Xiao Bei saw her come in and look at the closed cabinet
    expected = {(hm,): "pineapple", (xb, hm): "pineapple", (hm, xb): "pineapple", (xb, hm, xb): "pineapple"}
    assert {chain: tr.value(chain, "cabinet", "contains") for chain in expected} == expected


def test_annotated_rows_of_the_cabinet_story() -> None:
    rows = {(b.actor, b.belief): b.labels for b in annotate_text(CABINET).beliefs}
    label = rows[("world", "The label on the cabinet is pineapple")]
    assert (label.order, label.content_type, label.mental_source) == ("0", "Contents/Physical State", "Narration")
    assert ("world", "Xiao Bei opens the cabinet") in rows and ("world", "The cabinet is open") not in rows
    guess = rows[("Xiao Bei", "The cabinet contains pineapple")]  # read off the label, then corrected by looking
    assert (guess.truth_status, guess.mental_source, guess.context) == ("False", "Inference", "Temporal")
    seen = rows[("Xiao Bei", "The cabinet contains a calculator")]
    assert (seen.truth_status, seen.mental_source, seen.context) == ("True", "Perception", "Neutral")
    assert rows[("Xiao Bei", "Han Mei Mei thinks the cabinet contains pineapple")].truth_status == "True"
    wrong = rows[("Han Mei Mei", "Xiao Bei thinks the cabinet contains pineapple")]
    assert (wrong.order, wrong.truth_status, wrong.content_type) == ("2", "False", "Epistemic")
    assert rows[("Han Mei Mei", "The cabinet contains pineapple")].truth_status == "False"


def _words(text: str | None) -> str:
    """An answer option and a store value compared as ToMBench words them: no articles, singular nouns."""
    out = []
    for w in re.findall(r"[a-z]+", (text or "").lower()):
        if w in ("a", "an", "some", "and", "the"):
            continue
        w = w[:-2] if w.endswith("oes") else w[:-1] if w.endswith("s") and not w.endswith("ss") else w
        out.append(w)
    return " ".join(out)


# ToMBench words the label of one story two ways: "the label on the storage locker is coat", but two of its
# questions' gold answers say "Jacket" (file line 494 "What should be inside...", line 496 "...what does Xiao Ming
# expect to find..."). Recorded in docs/datasets.md.
SYNONYM_LINES = {494: ("jacket", "coat"), 496: ("jacket", "coat")}


def test_tombench_contents_questions_are_answered_by_the_tracker(tombench_dir: Path) -> None:
    """Each contents story asks: what is inside; what should be inside (the label); then, after the newcomer opens
    it, what the first agent expects, what the newcomer expects, and what each thinks the other expects."""
    stories = [
        s for s in read_tombench_file(tombench_dir / "False Belief Task.jsonl") if re.search(r"(label|tag) on", s.story)
    ]
    assert len(stories) == 50
    checked = 0
    for s in stories:
        story = parse_templated_story(s.story)
        tr = Tracker(max_depth=3)
        tr.apply_all(story.events)
        first, newcomer = story.agents
        (box,) = story.containers
        ours = [
            tr.world(box, "contains"),
            tr.world(box, "label"),
            tr.value((first,), box, "contains"),
            tr.value((newcomer,), box, "contains"),
            tr.value((first, newcomer), box, "contains"),
            tr.value((newcomer, first), box, "contains"),
        ]
        assert len(s.questions) == 6
        for q, value in zip(s.questions, ours, strict=True):
            gold = _words(q.options["ABCD".index(q.answer)])
            assert (gold, _words(value)) == SYNONYM_LINES.get(q.line, (_words(value), _words(value))), (
                s.line,
                q.question,
            )
            checked += 1
    assert checked == 300

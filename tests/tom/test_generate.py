"""Tests for the seeded ToMi-style story generator and its independent gold answers."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindloop.worlds.stories import generate as gen
from mindloop.worlds.stories.generate import QTYPES, GeneratedExample, generate_tomi, to_numbered_text

_SENTENCE_FORMS = [
    re.compile(r"^[A-Z][a-z]+ entered the \w+\.$"),
    re.compile(r"^[A-Z][a-z]+ (?:exited|left|went out of) the \w+\.$"),
    re.compile(r"^The \w+ is in the \w+\.$"),
    re.compile(r"^[A-Z][a-z]+ moved the \w+ to the \w+\.$"),
    re.compile(r"^[A-Z][a-z]+ (?:likes|dislikes|loves|hates) the \w+\.?$"),
    re.compile(r"^[A-Z][a-z]+ saw a (?:monkey|cat|dog|mouse)\.$"),
]
_QUESTION_FORMS = {
    "reality": re.compile(r"^Where is the (?P<obj>\w+) really\?$"),
    "memory": re.compile(r"^Where was the (?P<obj>\w+) at the beginning\?$"),
    "first_order": re.compile(r"^Where will (?P<a>[A-Z][a-z]+) look for the (?P<obj>\w+)\?$"),
    "second_order": re.compile(
        r"^Where does (?P<a>[A-Z][a-z]+) think (?:that (?P<b>[A-Z][a-z]+) searches for the (?P<obj>\w+)"
        r"|(?P<b2>[A-Z][a-z]+) thinks the (?P<obj2>\w+) is)\?$"
    ),
    "order_3": re.compile(r"^Where does [A-Z][a-z]+ think (?:[A-Z][a-z]+ thinks ){2}the (?P<obj>\w+) is\?$"),
    "order_4": re.compile(r"^Where does [A-Z][a-z]+ think (?:[A-Z][a-z]+ thinks ){3}the (?P<obj>\w+) is\?$"),
}
_HITOM_SECOND = re.compile(r"^Where does [A-Z][a-z]+ think [A-Z][a-z]+ thinks the \w+ is\?$")
_PLACED = re.compile(r"^(?:The (?P<obj>\w+) is in|[A-Z][a-z]+ moved the (?P<obj2>\w+) to) the (?P<con>\w+)\.$")


def _object_of(example: GeneratedExample) -> str:
    match = _QUESTION_FORMS[example.qtype].match(example.question)
    assert match is not None, example.question
    obj = match.groupdict().get("obj") or match.groupdict().get("obj2")
    assert obj is not None
    return obj


def _containers_named_for(example: GeneratedExample, obj: str) -> list[str]:
    """Containers the story names for ``obj``, in story order."""
    named: list[str] = []
    for sentence in example.sentences:
        match = _PLACED.match(sentence)
        if match and (match["obj"] or match["obj2"]) == obj:
            named.append(match["con"])
    return named


def _chain_of(question: str) -> list[str]:
    """Agent names in a belief question, outermost first."""
    return re.findall(r"\b(?!Where\b)[A-Z][a-z]+\b", question)


def _parse_numbered(text: str) -> list[tuple[list[str], str, str]]:
    """Parse numbered-line text back into (sentences, question, answer), checking numbering."""
    parsed: list[tuple[list[str], str, str]] = []
    story: list[str] = []
    for line in text.split("\n")[:-1]:
        number, _, rest = line.partition(" ")
        assert number.isdigit(), line
        assert int(number) == len(story) + 1, line
        if "\t" in rest:
            question, answer, support = rest.split("\t")
            assert support == "1"
            parsed.append((story, question, answer))
            story = []
        else:
            story.append(rest)
    assert story == [], "text ends in the middle of a story"
    return parsed


# -- generated batches ----------------------------------------------------------------------------------------


def test_same_seed_gives_identical_text() -> None:
    first = to_numbered_text(generate_tomi(60, seed=7))
    second = to_numbered_text(generate_tomi(60, seed=7))
    assert first == second
    once = to_numbered_text(generate_tomi(30, seed=7, max_order=4, hitom_questions=True))
    assert once == to_numbered_text(generate_tomi(30, seed=7, max_order=4, hitom_questions=True))


def test_different_seeds_differ() -> None:
    texts = {to_numbered_text(generate_tomi(20, seed=seed)) for seed in range(5)}
    assert len(texts) == 5


def test_generation_does_not_touch_global_random_state() -> None:
    import random

    random.seed(123)
    expected = random.random()
    random.seed(123)
    generate_tomi(10, seed=1)
    assert random.random() == expected


@pytest.mark.boundary  # string-hash seeds are per process
def test_output_is_stable_across_hash_seeds() -> None:
    src = Path(gen.__file__).resolve().parents[2]
    code = "from mindloop.worlds.stories.generate import *; print(to_numbered_text(generate_tomi(40, seed=11)), end='')"
    outputs = set()
    for hash_seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(src)}
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        outputs.add(result.stdout)
    assert len(outputs) == 1
    assert outputs == {to_numbered_text(generate_tomi(40, seed=11))}


def test_numbering_is_well_formed() -> None:
    examples = generate_tomi(50, seed=3, noise=0.3)
    text = to_numbered_text(examples)
    assert text.endswith("\n")
    assert not text.endswith("\n\n")
    parsed = _parse_numbered(text)
    assert len(parsed) == len(examples)
    for (story, question, answer), example in zip(parsed, examples, strict=True):
        assert tuple(story) == example.sentences
        assert question == example.question
        assert answer == example.answer
    assert to_numbered_text([]) == ""


def test_default_batch_has_the_four_tomi_types_balanced() -> None:
    examples = generate_tomi(200, seed=0)
    counts = Counter(example.qtype for example in examples)
    assert set(counts) == {"reality", "memory", "first_order", "second_order"}
    assert all(count == 50 for count in counts.values())
    assert not any(_HITOM_SECOND.match(example.question) for example in examples)


def test_hitom_batch_has_every_qtype() -> None:
    examples = generate_tomi(200, seed=1, max_order=4, hitom_questions=True)
    counts = Counter(example.qtype for example in examples)
    assert set(counts) == set(QTYPES)
    assert max(counts.values()) - min(counts.values()) <= 1
    second = [example.question for example in examples if example.qtype == "second_order"]
    assert any(_HITOM_SECOND.match(q) for q in second)
    assert any(" searches for the " in q for q in second)


def test_max_order_limits_question_types() -> None:
    assert {e.qtype for e in generate_tomi(40, seed=2, max_order=1)} == {"reality", "memory", "first_order"}
    assert {e.qtype for e in generate_tomi(40, seed=2, max_order=4)} == {
        "reality",
        "memory",
        "first_order",
        "second_order",
    }
    assert "order_4" not in {e.qtype for e in generate_tomi(40, seed=2, max_order=3, hitom_questions=True)}


@pytest.mark.parametrize("kwargs", [{}, {"max_order": 4, "hitom_questions": True}])
def test_sentences_questions_and_answers_are_well_formed(kwargs: dict[str, object]) -> None:
    examples = generate_tomi(200, seed=5, noise=0.2, **kwargs)  # type: ignore[arg-type]
    for example in examples:
        assert 4 <= len(example.sentences) <= 20
        for sentence in example.sentences:
            assert any(form.match(sentence) for form in _SENTENCE_FORMS), sentence
        obj = _object_of(example)
        named = _containers_named_for(example, obj)
        assert example.answer in named, (example, named)
        if example.qtype == "reality":
            assert example.answer == named[-1]
        if example.qtype == "memory":
            assert example.answer == named[0]
        chain = _chain_of(example.question)
        assert all(a != b for a, b in itertools.pairwise(chain)), example.question
        entered = {s.split()[0] for s in example.sentences if " entered the " in s}
        assert set(chain) <= entered
        assert 2 <= len(entered) <= 4


def test_statements_are_readable_from_the_text() -> None:
    """Each statement is made in the room of the latest entering, with every agent in a room there."""
    enter = re.compile(r"^(\w+) entered the (\w+)\.$")
    leave = re.compile(r"^(\w+) (?:exited|left|went out of) the (\w+)\.$")
    move = re.compile(r"^(\w+) moved the \w+ to the \w+\.$")
    for example in generate_tomi(300, seed=8, max_order=4, hitom_questions=True):
        room_of: dict[str, str] = {}
        scene: str | None = None
        for sentence in example.sentences:
            if m := enter.match(sentence):
                assert m[1] not in room_of, example
                room_of[m[1]] = scene = m[2]
            elif m := leave.match(sentence):
                assert room_of.pop(m[1]) == m[2], example
            elif m := move.match(sentence):
                assert m[1] in room_of, example
            elif sentence.startswith("The "):
                assert room_of, example
                assert set(room_of.values()) == {scene}, example


def test_noise_without_full_stop_occurs() -> None:
    sentences = [s for e in generate_tomi(100, seed=4, noise=0.3) for s in e.sentences]
    feelings = re.compile(r"^[A-Z][a-z]+ (?:likes|dislikes|loves|hates) the \w+")
    assert any(feelings.match(s) and not s.endswith(".") for s in sentences)
    assert any(feelings.match(s) and s.endswith(".") for s in sentences)
    assert any(" saw a " in s for s in sentences)
    quiet = [s for e in generate_tomi(50, seed=4, noise=0.0) for s in e.sentences]
    assert not any(feelings.match(s) or " saw a " in s for s in quiet)


def test_both_true_and_false_belief_cases_occur() -> None:
    examples = generate_tomi(400, seed=9, max_order=3, hitom_questions=True)
    for qtype in ("first_order", "second_order", "order_3", "memory"):
        outcomes = set()
        for example in (e for e in examples if e.qtype == qtype):
            outcomes.add(example.answer != _containers_named_for(example, _object_of(example))[-1])
        assert outcomes == {True, False}, qtype
    moved = {len(set(_containers_named_for(e, _object_of(e)))) > 1 for e in examples if e.qtype == "reality"}
    assert moved == {True, False}


@pytest.mark.parametrize(
    "kwargs",
    [{"n": -1}, {"max_order": 0}, {"max_order": 5}, {"noise": -0.1}, {"noise": 0.9}],
)
def test_bad_arguments_raise(kwargs: dict[str, float]) -> None:
    args: dict[str, float] = {"n": 3, **kwargs}
    with pytest.raises(ValueError):
        generate_tomi(int(args.pop("n")), seed=0, **args)  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**63),
    max_order=st.integers(min_value=1, max_value=4),
    hitom=st.booleans(),
    noise=st.floats(min_value=0.0, max_value=0.5),
)
def test_any_seed_gives_well_formed_examples(seed: int, max_order: int, hitom: bool, noise: float) -> None:
    examples = generate_tomi(6, seed=seed, max_order=max_order, hitom_questions=hitom, noise=noise)
    assert len(examples) == 6
    assert [(s, q, a) for s, q, a in _parse_numbered(to_numbered_text(examples))] == [
        (list(e.sentences), e.question, e.answer) for e in examples
    ]
    for example in examples:
        assert example.answer in _containers_named_for(example, _object_of(example))


# -- hand-worked scripted stories ------------------------------------------------------------------------------


def _scripted_example(
    layout: Mapping[str, Sequence[str]],
    script: Sequence[Sequence[str]],
    qtype: str,
    obj: str,
    chain: Sequence[str] = (),
    *,
    hitom: bool = False,
    reveal_on_entry: bool = True,
) -> GeneratedExample:
    """The example for a hand-written script of actions, played through the generator's own world."""
    world = gen._World(layout, max_order=4, reveal_on_entry=reveal_on_entry)
    for action in script:
        gen._apply(world, action)
    return gen._ask(world, qtype, obj, chain, hitom=hitom)


def _ask(
    layout: Mapping[str, Sequence[str]],
    script: Sequence[tuple[str, ...]],
    qtype: str,
    obj: str,
    *chain: str,
    hitom: bool = False,
) -> str:
    return _scripted_example(layout, script, qtype, obj, chain, hitom=hitom).answer


_ROOM: dict[str, tuple[str, ...]] = {"room": ("basket", "box")}
_SALLY_ANNE: list[tuple[str, ...]] = [
    ("enter", "Sally", "room"),
    ("enter", "Anne", "room"),
    ("place", "marble", "basket"),
    ("exit", "Sally"),
    ("move", "Anne", "marble", "box"),
]


def test_sally_anne_first_order_false_belief() -> None:
    example = _scripted_example(_ROOM, _SALLY_ANNE, "first_order", "marble", ("Sally",))
    assert example == GeneratedExample(
        sentences=(
            "Sally entered the room.",
            "Anne entered the room.",
            "The marble is in the basket.",
            "Sally exited the room.",
            "Anne moved the marble to the box.",
        ),
        question="Where will Sally look for the marble?",
        answer="basket",
        qtype="first_order",
    )
    assert _ask(_ROOM, _SALLY_ANNE, "first_order", "marble", "Anne") == "box"
    assert _ask(_ROOM, _SALLY_ANNE, "reality", "marble") == "box"
    assert _ask(_ROOM, _SALLY_ANNE, "memory", "marble") == "basket"
    # Anne saw Sally leave before the move, and Sally saw nothing after leaving.
    assert _ask(_ROOM, _SALLY_ANNE, "second_order", "marble", "Anne", "Sally") == "basket"
    assert _ask(_ROOM, _SALLY_ANNE, "second_order", "marble", "Sally", "Anne") == "basket"


def test_second_order_when_x_left_before_y_saw_a_move() -> None:
    layout = {"kitchen": ("box", "crate", "red_drawer")}
    script: list[tuple[str, ...]] = [
        ("enter", "Jack", "kitchen"),
        ("enter", "Chloe", "kitchen"),
        ("enter", "Mia", "kitchen"),
        ("place", "apple", "box"),
        ("exit", "Jack", "left"),
        ("move", "Mia", "apple", "crate"),
    ]
    assert _ask(layout, script, "first_order", "apple", "Jack") == "box"
    assert _ask(layout, script, "first_order", "apple", "Chloe") == "crate"
    assert _ask(layout, script, "second_order", "apple", "Chloe", "Mia") == "crate"
    assert _ask(layout, script, "second_order", "apple", "Jack", "Chloe") == "box"
    assert _ask(layout, script, "second_order", "apple", "Chloe", "Jack") == "box"
    assert _ask(layout, script, "order_3", "apple", "Chloe", "Mia", "Jack", hitom=True) == "box"
    assert _ask(layout, script, "order_3", "apple", "Chloe", "Mia", "Chloe", hitom=True) == "crate"
    assert _ask(layout, script, "order_4", "apple", "Jack", "Chloe", "Mia", "Chloe", hitom=True) == "box"
    # Jack comes back: everyone present sees the apple in the crate together.
    back = [*script, ("enter", "Jack", "kitchen")]
    assert _ask(layout, back, "first_order", "apple", "Jack") == "crate"
    assert _ask(layout, back, "second_order", "apple", "Chloe", "Jack") == "crate"
    assert _ask(layout, back, "order_4", "apple", "Jack", "Chloe", "Mia", "Jack", hitom=True) == "crate"


def test_reentering_refreshes_belief_but_only_for_those_present() -> None:
    script = [*_SALLY_ANNE, ("exit", "Anne", "went out of"), ("enter", "Sally", "room")]
    assert _ask(_ROOM, script, "first_order", "marble", "Sally") == "box"
    # Anne was gone when Sally came back, so their last shared event is still the basket.
    assert _ask(_ROOM, script, "second_order", "marble", "Anne", "Sally") == "basket"
    assert _ask(_ROOM, script, "second_order", "marble", "Sally", "Anne") == "basket"
    together = [*script, ("enter", "Anne", "room")]
    assert _ask(_ROOM, together, "second_order", "marble", "Anne", "Sally") == "box"
    assert _ask(_ROOM, together, "second_order", "marble", "Sally", "Anne") == "box"


def test_other_rooms_and_noise_are_not_seen() -> None:
    layout = {"kitchen": ("box", "crate"), "garden": ("bucket", "green_bottle")}
    script: list[tuple[str, ...]] = [
        ("enter", "Jack", "kitchen"),
        ("enter", "Chloe", "kitchen"),
        ("place", "apple", "box"),
        ("exit", "Jack"),
        ("enter", "Jack", "garden"),
        ("noise", "Jack hates the onion"),
        ("move", "Chloe", "apple", "crate"),
        ("noise", "Chloe saw a dog."),
    ]
    assert _ask(layout, script, "first_order", "apple", "Jack") == "box"
    assert _ask(layout, script, "first_order", "apple", "Chloe") == "crate"
    assert _ask(layout, script, "second_order", "apple", "Chloe", "Jack") == "box"
    example = _scripted_example(layout, script, "second_order", "apple", ("Chloe", "Jack"), hitom=True)
    assert example.question == "Where does Chloe think Jack thinks the apple is?"


def test_unwitnessed_statement_is_learned_on_entering() -> None:
    layout = {"hallway": ("crate", "blue_pantry")}
    script: list[tuple[str, ...]] = [("place", "pumpkin", "blue_pantry"), ("enter", "Owen", "hallway")]
    with pytest.raises(ValueError):
        _scripted_example(layout, script[:1], "first_order", "pumpkin", ("Owen",))
    assert _ask(layout, script, "first_order", "pumpkin", "Owen") == "blue_pantry"
    assert _ask(layout, script, "memory", "pumpkin") == "blue_pantry"


def test_under_hitom_policy_reentering_reveals_nothing() -> None:
    """Sally comes back after the move: under ToMi's policy she sees the box, under Hi-ToM's she does not."""
    back = [*_SALLY_ANNE, ("exit", "Anne"), ("enter", "Sally", "room")]

    def sally(reveal: bool) -> str:
        return _scripted_example(_ROOM, back, "first_order", "marble", ("Sally",), reveal_on_entry=reveal).answer

    assert (sally(True), sally(False)) == ("box", "basket")
    layout = {"hallway": ("crate", "blue_pantry")}
    unseen: list[tuple[str, ...]] = [("place", "pumpkin", "blue_pantry"), ("enter", "Owen", "hallway")]
    with pytest.raises(ValueError):  # Owen never learns where it is: the question is undefined
        _scripted_example(layout, unseen, "first_order", "pumpkin", ("Owen",), reveal_on_entry=False)


def test_undefined_or_impossible_scripts_raise() -> None:
    layout = {"kitchen": ("box", "crate"), "garden": ("bucket",)}
    base: list[tuple[str, ...]] = [("enter", "Jack", "kitchen"), ("place", "apple", "box")]
    bad_scripts: list[list[tuple[str, ...]]] = [
        [*base, ("enter", "Jack", "garden")],  # already in a room
        [*base, ("move", "Jack", "apple", "bucket")],  # container in another room
        [*base, ("move", "Jack", "apple", "box")],  # already there
        [*base, ("place", "apple", "crate")],  # contradicts where it is
        [*base, ("exit", "Chloe")],  # not in a room
        [*base, ("dance", "Jack")],  # unknown action
    ]
    for script in bad_scripts:
        with pytest.raises(ValueError):
            _scripted_example(layout, script, "reality", "apple")
    two = [*base, ("exit", "Jack"), ("enter", "Chloe", "kitchen")]
    with pytest.raises(ValueError):  # Jack and Chloe never witnessed anything together
        _scripted_example(layout, two, "second_order", "apple", ("Jack", "Chloe"))
    with pytest.raises(ValueError):  # the same agent twice in a row
        _scripted_example(layout, base, "second_order", "apple", ("Jack", "Jack"))

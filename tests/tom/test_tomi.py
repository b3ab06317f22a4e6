from __future__ import annotations

import json
from pathlib import Path

import pytest

from mindloop.errors import ParseError
from mindloop.systems.tom import evaluate_file
from mindloop.worlds.stories import read_examples, read_story_file
from mindloop.worlds.stories.tomi import answer_question, narrate, parse_question, track_story

TOMI_STORY = """\
1 Jack entered the hallway.
2 Chloe entered the hallway.
3 Chloe hates the onion
4 The tangerine is in the box.
5 Chloe exited the hallway.
6 Jack moved the tangerine to the crate.
7 Jack left the hallway.
8 Chloe entered the hallway.
9 Where will Chloe look for the tangerine?\tcrate\t1
1 Jack entered the hallway.
2 Chloe entered the hallway.
3 The tangerine is in the box.
4 Chloe went out of the hallway.
5 Jack moved the tangerine to the crate.
6 Jack exited the hallway.
7 Where does Jack think that Chloe searches for the tangerine?\tbox\t1
1 Jack entered the hallway.
2 Chloe entered the hallway.
3 The tangerine is in the box.
4 Chloe exited the hallway.
5 Jack moved the tangerine to the crate.
6 Where was the tangerine at the beginning?\tbox\t1
1 Jack entered the hallway.
2 The tangerine is in the box.
3 Jack moved the tangerine to the crate.
4 Jack saw a monkey.
5 Where is the tangerine really?\tcrate\t1
"""


def _write(tmp_path: Path, text: str, name: str = "stories.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_tomi_question_types_and_answers(tmp_path: Path) -> None:
    report = evaluate_file(_write(tmp_path, TOMI_STORY))
    assert report.format == "tomi"
    assert report.n == 4 and report.accuracy == 1.0
    assert list(report.by_type) == ["reality", "memory", "first_order", "second_order"]


def test_reentering_refreshes_belief_by_perception(tmp_path: Path) -> None:
    [ex, *_] = read_examples(_write(tmp_path, TOMI_STORY))
    tracker = track_story(ex.sentences, "tomi")
    held = tracker.believes(("Chloe",), "tangerine", "in")
    assert held is not None and held.value == "crate" and held.since == 8  # seen on re-entering at line 8
    assert tracker.value(("Jack", "Chloe"), "tangerine", "in") == "box"  # Jack had left by then


@pytest.mark.parametrize(
    ("question", "chain", "qtype"),
    [
        ("Where does Ann really think the pear is?", ("Ann",), "order_1"),
        ("Where does Ann think Bo thinks the pear is?", ("Ann", "Bo"), "order_2"),
        ("Where does Ann think Bo thinks Cy thinks Di thinks the pear is?", ("Ann", "Bo", "Cy", "Di"), "order_4"),
        ("Where is the pear really?", (), "order_0"),
    ],
)
def test_hitom_question_forms(question: str, chain: tuple[str, ...], qtype: str) -> None:
    q = parse_question(question, "box", "hitom")
    assert q is not None and q.chain == chain and q.qtype == qtype and q.obj == "pear"


def test_multi_agent_enter_and_tells() -> None:
    story = [
        "Ann, Bo and Cy entered the den.",
        "The pear is in the box.",
        "Ann exited the den.",
        "Bo moved the pear to the crate.",
        "Bo exited the den.",
        "Cy exited the den.",
        "Ann, Bo and Cy entered the waiting_room.",
        "Bo publicly claimed that pear is in the bag.",
        "Cy privately told Ann that the pear is in the crate.",
    ]
    sentences = list(enumerate(story, 1))
    tr = track_story(sentences, "hitom")
    q = parse_question("Where does Ann really think the pear is?", "crate", "hitom")
    assert q is not None
    # Ann left before Bo, so she first believes Bo's public claim (bag), then Cy (who left last) privately.
    assert answer_question(tr, q) == "crate"
    assert tr.value(("Cy",), "pear", "in") == "crate"  # Cy left after Bo: no trust; Cy saw the move
    assert tr.value(("Cy", "Ann"), "pear", "in") == "crate"  # the speaker thinks the listener believes her
    assert tr.value(("Bo", "Ann"), "pear", "in") == "bag"  # Bo did not hear the private tell
    assert tr.value(("Bo",), "pear", "in") == "crate"  # a speaker's own claim never changes his belief
    assert len(narrate(sentences)) == 9  # one per sentence: no entered room had a visible object


def test_unknown_sentence_names_file_line_and_text(tmp_path: Path) -> None:
    bad = TOMI_STORY.replace("4 Jack saw a monkey.", "4 Jack juggled the tangerine.")
    path = _write(tmp_path, bad)
    with pytest.raises(ParseError) as info:
        evaluate_file(path)
    message = str(info.value)
    assert str(path) in message and ":26:" in message and "Jack juggled the tangerine." in message


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("1 Jack entered the hallway.\n2 Where is Jack?\tkitchen\t1\n", "unknown question form"),
        ("1 Jack entered the hallway.\n", "no question"),
        ("Jack entered the hallway.\n", "expected a numbered line"),
        ("", "no examples"),
        ("1 Jack entered the hallway.\n2 Where is the box really?\t\t1\n", "without an answer"),
        ("1 Jack entered the hallway.\n1 Jack entered the den.\n2 Where is the box really?\tx\t1\n", "new story"),
    ],
)
def test_malformed_files_raise_clear_errors(tmp_path: Path, text: str, needle: str) -> None:
    with pytest.raises(ParseError, match=needle):
        read_examples(_write(tmp_path, text))


def test_missing_file_is_a_parse_error(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="no such file"):
        read_examples(tmp_path / "absent.txt")


# -- the real Hi-ToM development split ------------------------------------------------------------------------
def _copy(path: Path) -> list[bool]:
    """True for examples preceded by the 'Read the following story' instruction (the dataset's second copy)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [lines[ex.line - 2].startswith("Read the following") for ex in read_examples(path)]


def test_hitom_dev_reads_every_question(hitom_dev: Path) -> None:
    fmt, examples = read_story_file(hitom_dev)
    meta = json.loads((hitom_dev.parent / "hitom_dev.meta.json").read_text())
    assert fmt == "hitom" and len(examples) == 240 == len(meta)
    assert [ex.question.qtype for ex in examples] == [f"order_{m['order']}" for m in meta]


def test_hitom_dev_accuracy_on_its_self_consistent_half(hitom_dev: Path) -> None:
    report = evaluate_file(hitom_dev)
    second = _copy(hitom_dev)
    first_half = [a for a, s in zip(report.answers, second, strict=True) if not s]
    assert len(first_half) == 120
    # The three misses are the label errors documented in docs/datasets.md.
    assert sum(a.correct for a in first_half) == 117
    assert report.by_type["order_0"].accuracy == 1.0 and report.by_type["order_1"].accuracy == 1.0


def test_hitom_dev_contains_contradictory_labels(hitom_dev: Path) -> None:
    """Identical story and question with different gold answers: no reader can get both right."""
    answers: dict[tuple[object, ...], set[str]] = {}
    for ex in read_examples(hitom_dev):
        key = (tuple(s for _, s in ex.sentences), ex.question.text)
        answers.setdefault(key, set()).add(ex.question.answer)
    assert sum(len(v) > 1 for v in answers.values()) == 34


def test_a_tell_about_an_unplaced_object_says_so() -> None:
    with pytest.raises(ParseError, match=r"s\.txt:7: Ann tells where the pear is before it was placed"):
        narrate([(6, "Ann entered the den."), (7, "Ann told Bo where the pear is.")], source="s.txt")


def test_hitom_export_noise_lines_are_accepted(tmp_path: Path) -> None:
    text = (
        "Read the following story and answer the multiple-choice question. "
        "Please provide answer without explanations.\n"
        "Story:\n1 Ann entered the den.\n2 The pear is in the box.\n***\n"
        "Note: You should assume the following.\n4 Where does Ann really think the pear is?\tbox\t1\n"
    )
    [ex] = read_examples(_write(tmp_path, text))
    assert ex.question.qtype == "order_1" and [s for _, s in ex.sentences][1] == "The pear is in the box."

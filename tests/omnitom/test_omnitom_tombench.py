"""ToMBench loader: question rows grouped into stories, counts against the paper's Table 4."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mindloop.errors import ParseError
from mindloop.systems.omnitom.records import CATEGORIES
from mindloop.systems.omnitom.tombench import category_counts, load_tombench, read_tombench_file, to_story_records

# Table 4 (benchmark split) plus the 21 calibration stories, three per category (Sec. 4 / App. B.2).
TABLE4_BENCHMARK = {
    "Ambiguous Story Task": 98,
    "False Belief Task": 97,
    "Faux-pas Recognition Test": 142,
    "Hinting Task Test": 100,
    "Persuasion Story Task": 97,
    "Scalar Implicature Test": 154,
    "Strange Story Task": 207,
}


def test_story_counts_match_the_paper(tombench_dir: Path) -> None:
    stories = load_tombench(tombench_dir)
    counts = category_counts(stories)
    assert list(counts) == list(CATEGORIES)
    assert {c: v["stories"] for c, v in counts.items()} == {c: n + 3 for c, n in TABLE4_BENCHMARK.items()}
    assert len(stories) == 916  # "These categories account for 916 source stories"


def test_every_question_row_lands_in_the_story_with_its_text(tombench_dir: Path) -> None:
    path = tombench_dir / "False Belief Task.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    stories = read_tombench_file(path)
    by_text = {s.story: s for s in stories}
    assert len(by_text) == len(stories)  # one story per distinct text
    assert sum(len(s.questions) for s in stories) == len(rows)
    for lineno, row in enumerate(rows, 1):
        story = by_text[row["STORY"].strip()]
        assert any(q.line == lineno and q.question == row["QUESTION"].strip() for q in story.questions)


def test_english_fields_options_and_answers(tombench_dir: Path) -> None:
    strange = read_tombench_file(tombench_dir / "Strange Story Task.jsonl")
    q = strange[0].questions[0]
    assert q.question == "Is what Zhang Yang says true?"
    assert q.options == ("Yes", "No", None, None)  # the file has NaN for absent options
    assert q.answer == "B" and q.ability.startswith("Non-Literal Communication")
    assert strange[0].category == "Strange Story Task" and strange[0].abbreviation == "SST"


def test_story_ids_are_stable_and_records_empty(tombench_dir: Path) -> None:
    a, b = load_tombench(tombench_dir), load_tombench(tombench_dir)
    assert [s.story_id for s in a] == list(range(916)) and [s.story for s in a] == [s.story for s in b]
    records = to_story_records(a[:3])
    assert all(r.beliefs == () and r.story_category == "Ambiguous Story Task" for r in records)


def test_bad_files(tmp_path: Path) -> None:
    bad = tmp_path / "False Belief Task.jsonl"
    bad.write_text('{"STORY": "A story.", "QUESTION": "Q?"}\n{"QUESTION": "no story"}\n', encoding="utf-8")
    with pytest.raises(ParseError, match=r"False Belief Task.jsonl:2: question row without an English STORY"):
        read_tombench_file(bad)
    with pytest.raises(ParseError, match="missing ToMBench category file"):
        load_tombench(tmp_path)
    with pytest.raises(ParseError, match="no such file or directory"):
        load_tombench(tmp_path / "nowhere")


def test_the_stories_ship_with_their_license_and_are_read_by_default() -> None:
    from mindloop.systems.omnitom.tombench import bundled_tombench_path

    folder = bundled_tombench_path()
    assert sorted(p.name for p in folder.glob("*.jsonl")) == sorted(f"{c}.jsonl" for c in CATEGORIES)
    assert (folder / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert "zhchen18/ToMBench" in (folder / "README.md").read_text(encoding="utf-8")
    assert sum(p.stat().st_size for p in folder.iterdir()) < 4_000_000  # a few MB: only the seven files mindloop reads
    stories = load_tombench()
    assert len(stories) == 916 and stories == load_tombench(folder)

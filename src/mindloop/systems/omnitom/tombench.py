"""ToMBench (Chen et al., ACL 2024) story files, read as OmniToM reads them.

Each ToMBench category file is JSONL with one multiple-choice *question* per line and bilingual fields; the
English ones are ``STORY``, ``QUESTION``, ``OPTION-A`` … ``OPTION-D``, the ability under the key ending in
``ABILITY`` and the answer letter under the key that starts with ``答案``. OmniToM works on *stories*: the
question rows of one file that share an identical ``STORY`` text form one story, and the category is the file's
name. The seven categories OmniToM keeps hold 916 stories (App. B.1: 895 benchmark + 21 calibration).

The seven category files ship with mindloop (MIT, ``data/tombench/`` with its license and a README naming the
source); :func:`load_tombench` reads that copy when no path is given.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from mindloop.datafiles import iter_json_lines, read_text_file
from mindloop.errors import ParseError
from mindloop.systems.omnitom.records import CATEGORIES, CATEGORY_ABBREVIATIONS, StoryRecord

_OPTION_KEYS = ("OPTION-A", "OPTION-B", "OPTION-C", "OPTION-D")


def bundled_tombench_path() -> Path:
    """The folder of the seven ToMBench category files shipped with mindloop (MIT; see its README)."""
    return Path(str(resources.files("mindloop.systems.omnitom").joinpath("data", "tombench")))


@dataclass(frozen=True, slots=True)
class TomBenchQuestion:
    """One ToMBench question row: its English question, options (``None`` where the file has NaN) and answer."""

    index: int | None
    ability: str
    question: str
    options: tuple[str | None, ...]
    answer: str
    line: int


@dataclass(frozen=True, slots=True)
class TomBenchStory:
    """One story: the English text, its category (from the file name) and the questions asked about it.

    ``story_id`` is the story's position over everything loaded together (categories in file order, stories
    in order of first appearance), so the same files always give the same ids.
    """

    story_id: int
    category: str
    story: str
    questions: tuple[TomBenchQuestion, ...]
    source: str
    line: int

    @property
    def abbreviation(self) -> str:
        """The category's Table 3 abbreviation (``FBT``), or the category itself when not one of the seven."""
        return CATEGORY_ABBREVIATIONS.get(self.category, self.category)

    def to_record(self) -> StoryRecord:
        """An OmniToM record with this story and no beliefs yet (to be extracted or annotated)."""
        return StoryRecord(story_id=self.story_id, story_category=self.category, story=self.story, beliefs=())


def _text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return str(value).strip()


def _field(row: dict[str, Any], suffix: str) -> Any:
    for key, value in row.items():
        if key.endswith(suffix):
            return value
    return None


def read_tombench_file(path: str | Path, *, category: str | None = None, first_id: int = 0) -> list[TomBenchStory]:
    """Read one ToMBench category file, grouping question rows into stories by identical ``STORY`` text.

    ``category`` defaults to the file name without ``.jsonl``. Raises :class:`ParseError` naming the file and
    line for a line that is not JSON or lacks ``STORY``/``QUESTION``.
    """
    p = Path(path)
    category = category or p.stem
    grouped: dict[str, tuple[int, list[TomBenchQuestion]]] = {}
    for lineno, row in iter_json_lines(p, text=read_text_file(p)):
        story = _text(row.get("STORY"))
        question = _text(row.get("QUESTION"))
        if not story:
            raise ParseError("question row without an English STORY", source=str(p), line=lineno)
        if question is None:
            raise ParseError("question row without an English QUESTION", source=str(p), line=lineno)
        index = row.get(next((k for k in row if k.endswith("INDEX")), ""), None)
        q = TomBenchQuestion(
            index=int(index) if isinstance(index, int | float) and not isinstance(index, bool) else None,
            ability=_text(_field(row, "ABILITY")) or "",
            question=question,
            options=tuple(_text(row.get(k)) for k in _OPTION_KEYS),
            answer=_text(next((v for k, v in row.items() if k.startswith("答案")), None)) or "",
            line=lineno,
        )
        grouped.setdefault(story, (lineno, []))[1].append(q)
    if not grouped:
        raise ParseError("no question rows found", source=str(p))
    return [
        TomBenchStory(first_id + i, category, story, tuple(qs), str(p), first_line)
        for i, (story, (first_line, qs)) in enumerate(grouped.items())
    ]


def load_tombench(path: str | Path | None = None, categories: Sequence[str] | None = CATEGORIES) -> list[TomBenchStory]:
    """Load ToMBench stories from a category file or a directory of them (the bundled copy when ``path`` is
    ``None``).

    For a directory, ``categories`` names the files to read (``<category>.jsonl``; by default OmniToM's seven,
    in the paper's order) and a missing one is an error; ``None`` reads every ``*.jsonl`` in name order.
    """
    p = bundled_tombench_path() if path is None else Path(path)
    if p.is_file():
        return read_tombench_file(p)
    if not p.is_dir():
        raise ParseError(
            "no such file or directory (expected a ToMBench category .jsonl or a folder of them)", source=str(p)
        )
    if categories is None:
        files = sorted(p.glob("*.jsonl"))
        if not files:
            raise ParseError("no .jsonl files in this folder", source=str(p))
    else:
        files = [p / f"{c}.jsonl" for c in categories]
        missing = [f.name for f in files if not f.is_file()]
        if missing:
            raise ParseError(f"missing ToMBench category file(s): {', '.join(missing)}", source=str(p))
    stories: list[TomBenchStory] = []
    for f in files:
        stories.extend(read_tombench_file(f, first_id=len(stories)))
    return stories


def category_counts(stories: Iterable[TomBenchStory]) -> dict[str, dict[str, int]]:
    """Stories and question rows per category, in order of first appearance."""
    counts: dict[str, dict[str, int]] = {}
    for s in stories:
        c = counts.setdefault(s.category, {"stories": 0, "questions": 0})
        c["stories"] += 1
        c["questions"] += len(s.questions)
    return counts


def to_story_records(stories: Iterable[TomBenchStory]) -> list[StoryRecord]:
    """OmniToM records (no beliefs) for the stories of OmniToM's seven categories; others are left out."""
    return [s.to_record() for s in stories if s.category in CATEGORY_ABBREVIATIONS]

"""The paper's worked examples, as data: App. E's seven gold tables and Table 2's alignment example.

App. E (Tables 13-19) gives one gold belief structure per category in the Level 4 demonstration format; they are
the built-in few-shot examples of the Level 4 prompts and the reference the symbolic annotator is checked against
(Table 14). Labels are written as the paper prints them, with App. E's compact display labels (``Identity`` for
``Identity/Relation`` ...), and canonicalised when turned into records. Table 2 is the Stage 1 alignment example
with its MatchCounts, used as the semantic judge's few-shot example and as a test of both aligners.

The examples themselves are package data, ``data/examples.yaml`` beside this module, read and checked once on import
(:func:`load_examples`).
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, Field, NonNegativeInt, field_validator

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import InvalidArgumentError
from mindloop.systems.omnitom.records import DIMENSIONS, BeliefLabels, BeliefRecord, StoryRecord, canonical_category


def _labels(labels: str) -> BeliefLabels:
    """A row's seven labels, written as the paper prints them (one word each, in :data:`DIMENSIONS` order)."""
    return BeliefLabels.model_validate(dict(zip(DIMENSIONS, labels.split(), strict=True)))


def _seven_labels(labels: str) -> str:
    """``labels`` as a row writes them, checked: seven legal labels (a wrong one is an error at its dimension)."""
    count = len(labels.split())
    if count != len(DIMENSIONS):
        raise ValueError(f"has {count} labels, expected {len(DIMENSIONS)}")
    _labels(labels)  # pydantic reports its ValidationError at its place: rows[i][2].truth_status
    return labels


class WorkedExample(DataModel):
    """One App. E table, as ``data/examples.yaml`` writes it: its number, category, caption, story and rows
    ``(actor, belief, "7 labels")``."""

    table: int = Field(ge=1)
    category: str
    title: str = Field(min_length=1)
    story: str = Field(min_length=1)
    rows: tuple[tuple[str, str, Annotated[str, AfterValidator(_seven_labels)]], ...] = Field(min_length=1)

    def record(self) -> StoryRecord:
        """The example as a gold record (``story_id`` = the table number, labels canonicalised)."""
        beliefs = tuple(BeliefRecord(actor=a, belief=b, labels=_labels(labels)) for a, b, labels in self.rows)
        return StoryRecord(story_id=self.table, story_category=self.category, story=self.story, beliefs=beliefs)

    @field_validator("category")
    @classmethod
    def _known_category(cls, value: str) -> str:
        if canonical_category(value) != value:
            raise ValueError(f"write the category's full name, {canonical_category(value)!r}")
        return value


class AlignmentExample(DataModel):
    """Table 2, as ``data/examples.yaml`` writes it: a story, predicted and gold tables as ``(actor, belief,
    MatchCount)`` rows."""

    story: str = Field(min_length=1)
    predicted: tuple[tuple[str, str, NonNegativeInt], ...] = Field(min_length=1)
    gold: tuple[tuple[str, str, NonNegativeInt], ...] = Field(min_length=1)


class _ExamplesFile(DataModel):
    """The whole of ``data/examples.yaml``."""

    appendix_e: tuple[WorkedExample, ...] = Field(min_length=1)
    table2: AlignmentExample

    def problems(self) -> Iterator[tuple[str, str]]:
        tables = [e.table for e in self.appendix_e]
        for table in sorted({t for t in tables if tables.count(t) > 1}):
            yield "appendix_e", f"table {table} appears twice"


def load_examples(path: str | Path | Traversable | None = None) -> tuple[tuple[WorkedExample, ...], AlignmentExample]:
    """Read and check a worked-examples file (the one shipped with mindloop when ``path`` is ``None``): the App. E
    tables and the Table 2 alignment example. A malformed file raises :class:`~mindloop.datafiles.DataFileError`
    naming the file, the table and the row."""
    data = load_package_data(_ExamplesFile, __name__.rsplit(".", 1)[0], "examples.yaml", path)
    return data.appendix_e, data.table2


_LOADED = load_examples()
APPENDIX_E: tuple[WorkedExample, ...] = _LOADED[0]
"""Tables 13-19, in category order."""
TABLE2: AlignmentExample = _LOADED[1]
"""Table 2: every predicted belief matches one gold belief; the first gold Xiao Hong belief is covered by two."""


def appendix_e_records() -> list[StoryRecord]:
    """The seven App. E examples as gold records."""
    return [example.record() for example in APPENDIX_E]


def appendix_e_record(category: str) -> StoryRecord:
    """The App. E example of ``category`` (full name or abbreviation, e.g. ``FBT``)."""
    name = canonical_category(category)
    for example in APPENDIX_E:
        if example.category == name:
            return example.record()
    raise InvalidArgumentError(f"no App. E example for {category!r}")  # pragma: no cover - all seven exist

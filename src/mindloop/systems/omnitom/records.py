"""OmniToM benchmark records (Table 7 of the paper) and its seven closed label sets (App. A).

One record per story: ``story_id``, ``story_category`` (one of the seven retained ToMBench categories),
``story`` and ``beliefs``, each belief an ``actor`` (``world`` for narrated facts), a minimal ``belief``
proposition and seven ``labels`` (order, truth_status, knowledge_access, representation, content_type,
mental_source, context). Labels are canonicalised on the way in: legal variants (case, whitespace, a
``Truth Status:`` prefix, the compact display labels of App. E such as ``Identity``) become the canonical label;
anything else is an error in gold records and counts as no label (so, incorrect) in predictions. Knowledge Access
also accepts ``Unknown`` (:data:`RELEASE_EXTRA_LABELS`): the paper's set has no such label, but the official
release's scorer accepts it. Gold may carry only the ``order`` label (a Stage 1 gold: :attr:`BeliefLabels.order_only`);
it is scored in Stage 1 and has nothing to score in Stage 2. The release's optional ``split`` field is kept.

Files are JSON (one object or an array of objects) or JSONL (one object per line). Validation errors are
:class:`~mindloop.errors.ParseError` naming the file, line, story, belief and field.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator, model_validator

from mindloop.datafiles import DataModel, iter_json_lines, load_package_data, read_text_file, validate_data
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.models.replies import compact_key

WORLD_ACTOR = "world"
"""The special actor of narrated facts (Order 0)."""


class _Dimension(DataModel):
    """One dimension of ``data/schema.yaml``: its display name, Table 3 column, Stage 2 table column, labels."""

    name: str
    short: str
    column: str
    labels: tuple[str, ...]
    release_extra: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()


class _Schema(DataModel):
    """``data/schema.yaml``: the seven dimensions, App. E's compact labels, the categories, the release's aliases."""

    dimensions: dict[str, _Dimension]
    compact_labels: dict[str, str]
    categories: dict[str, str]
    release_content_types: dict[str, str]


_SCHEMA = load_package_data(_Schema, __package__ or "", "schema.yaml")

DIMENSIONS: tuple[str, ...] = tuple(_SCHEMA.dimensions)
"""The seven schema dimensions, in the paper's order (Table 7 field names)."""

LABEL_SETS: dict[str, tuple[str, ...]] = {d: dim.labels for d, dim in _SCHEMA.dimensions.items()}
"""The closed label set of each dimension (App. A.2), canonical spelling."""

RELEASE_EXTRA_LABELS: dict[str, tuple[str, ...]] = {
    d: dim.release_extra for d, dim in _SCHEMA.dimensions.items() if dim.release_extra
}
"""Labels outside the paper's sets that the official release's scorer accepts (its Knowledge Access aliases map
``unknown`` to ``Unknown``), so its gold and predictions may hold them."""


def _accepted(dimension: str) -> tuple[str, ...]:
    return LABEL_SETS[dimension] + RELEASE_EXTRA_LABELS.get(dimension, ())


DIMENSION_NAMES: dict[str, str] = {d: dim.name for d, dim in _SCHEMA.dimensions.items()}
"""Display name of each dimension."""

DIMENSION_SHORT_NAMES: dict[str, str] = {d: dim.short for d, dim in _SCHEMA.dimensions.items()}
"""Column names of Table 3."""

COMPACT_LABELS: dict[str, str] = _SCHEMA.compact_labels
"""App. E's compact display labels and the Content Type label each abbreviates."""

CATEGORIES: tuple[str, ...] = tuple(_SCHEMA.categories)
"""The seven ToMBench categories OmniToM retains, in the paper's column order."""

CATEGORY_ABBREVIATIONS: dict[str, str] = _SCHEMA.categories
"""Table 3 / Table 10 column abbreviations."""


def _aliases() -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = {}
    for dim, labels in LABEL_SETS.items():
        entry = {compact_key(label): label for label in _accepted(dim)}
        if dim == "content_type":
            for label in labels:  # each half of a slash label names it too: "Contents", "Physical State", ...
                for part in label.split("/"):
                    entry.setdefault(compact_key(part), label)
            entry.update({compact_key(short): full for short, full in COMPACT_LABELS.items()})
        if dim == "order":
            words = ("zero", "first", "second", "third")
            for n in range(4):
                entry[f"order{n}"] = str(n)
                entry[f"{words[n]}order"] = str(n)
            entry["zerothorder"] = "0"
        table[dim] = entry
    return table


_ALIASES = _aliases()

_PREFIXES: dict[str, frozenset[str]] = {
    d: frozenset({compact_key(d), compact_key(dim.name), compact_key(dim.short), *dim.prefixes})
    for d, dim in _SCHEMA.dimensions.items()
}
"""The words a ``Dimension: value`` cell may start with, per dimension (compact keys)."""

_WRAP = " \t\r\n*`'\"“”‘’[](){}.,;"
_PREFIXED = re.compile(r"^(?P<prefix>[A-Za-z][A-Za-z _/-]*?)\s*[:=]\s*(?P<value>.+)$")


def normalize_label(dimension: str, value: object) -> str | None:
    """The canonical label ``value`` stands for in ``dimension``, or ``None`` if it is not a legal variant.

    Legal variants: any case and spacing, wrapping quotes or ``**``, a ``Dimension:`` prefix, slash labels
    written with spaces or by one half, App. E's compact labels, ``Order 2`` / ``second order``.

    >>> normalize_label("content_type", "Identity")
    'Identity/Relation'
    >>> normalize_label("truth_status", " **Truth-Status: false** ")
    'False'
    >>> normalize_label("order", 2), normalize_label("context", "Temporal + False")
    ('2', None)
    """
    if dimension not in LABEL_SETS:
        raise InvalidArgumentError(f"unknown OmniToM dimension {dimension!r} (known: {', '.join(DIMENSIONS)})")
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        text = str(value)
    elif isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            return None
        text = str(int(value))
    elif isinstance(value, str):
        text = value
    else:
        return None
    text = text.strip(_WRAP)
    m = _PREFIXED.match(text)
    if m and compact_key(m["prefix"]) in _PREFIXES[dimension]:
        text = m["value"].strip(_WRAP)
    return _ALIASES[dimension].get(compact_key(text))


def canonical_label(dimension: str, value: object) -> str:
    """Like :func:`normalize_label` but raises :class:`InvalidArgumentError` naming the legal labels."""
    label = normalize_label(dimension, value)
    if label is None:
        legal = ", ".join(_accepted(dimension))
        raise InvalidArgumentError(f"{value!r} is not a legal {DIMENSION_NAMES[dimension]} label (expected {legal})")
    return label


def canonical_category(value: str) -> str:
    """The category ``value`` names: a full name in any case/spacing or its abbreviation (``FBT``)."""
    key = compact_key(value)
    for name, abbr in CATEGORY_ABBREVIATIONS.items():
        if key in (compact_key(name), compact_key(abbr)):
            return name
    raise InvalidArgumentError(f"unknown OmniToM story category {value!r} (expected one of {', '.join(CATEGORIES)})")


def is_world(actor: str) -> bool:
    """Whether ``actor`` is the special actor ``world`` (any case and spacing)."""
    return compact_key(actor) == WORLD_ACTOR


def order_bucket(order: int) -> str:
    """The order bucket of Fig. 5 / Table 4: ``"0"``, ``"1"`` or ``"2+"``."""
    return "0" if order <= 0 else "1" if order == 1 else "2+"


class BeliefLabels(DataModel):
    """The seven labels of one belief, canonical strings; ``None`` marks a missing label.

    An illegal label is an error, except in predictions read with ``partial`` (it is then ``None``, and
    counts as incorrect). Gold files need all seven labels; predictions may lack some.
    """

    order: str | None = None
    truth_status: str | None = None
    knowledge_access: str | None = None
    representation: str | None = None
    content_type: str | None = None
    mental_source: str | None = None
    context: str | None = None

    @field_validator(*DIMENSIONS, mode="before")
    @classmethod
    def _canonical(cls, value: object, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        assert info.field_name is not None
        label = normalize_label(info.field_name, value)
        if label is None and not _flag(info, "partial"):
            legal = ", ".join(_accepted(info.field_name))
            raise ValueError(f"{value!r} is not a legal {DIMENSION_NAMES[info.field_name]} label (expected {legal})")
        return label

    @model_validator(mode="after")
    def _complete(self, info: ValidationInfo) -> BeliefLabels:
        if _flag(info, "gold"):
            missing = [d for d in DIMENSIONS if getattr(self, d) is None]
            if missing and not self.order_only:
                raise ValueError(
                    f"missing label(s) {', '.join(missing)} (gold records need all seven, or only the order for a "
                    "Stage 1 gold)"
                )
        return self

    @property
    def order_only(self) -> bool:
        """Whether only the order is labelled (a Stage 1 gold: nothing to score in Stage 2)."""
        return self.order is not None and all(getattr(self, d) is None for d in DIMENSIONS[1:])

    @classmethod
    def partial(cls, **labels: object) -> BeliefLabels:
        """Labels as a prediction holds them: legal variants canonicalised, anything else ``None``.

        >>> BeliefLabels.partial(order=1, context="maybe").order, BeliefLabels.partial(context="maybe").context
        ('1', None)
        """
        return cls.model_validate(labels, context={"partial": True})

    def get(self, dimension: str) -> str | None:
        """The label of ``dimension`` (a field name of :data:`DIMENSIONS`)."""
        if dimension not in LABEL_SETS:
            raise InvalidArgumentError(f"unknown OmniToM dimension {dimension!r}")
        value: str | None = getattr(self, dimension)
        return value

    @property
    def complete(self) -> bool:
        """Whether all seven labels are present."""
        return all(getattr(self, d) is not None for d in DIMENSIONS)

    def as_tuple(self) -> tuple[str | None, ...]:
        """The seven labels in :data:`DIMENSIONS` order."""
        return tuple(getattr(self, d) for d in DIMENSIONS)


def _flag(info: ValidationInfo, name: str) -> bool:
    """Whether the validation context sets ``name`` (``partial``: a prediction; ``gold``: a gold record)."""
    return bool(isinstance(info.context, Mapping) and info.context.get(name))


class BeliefRecord(BaseModel):
    """One belief proposition: who holds it (``world`` for narrated facts), what, and its labels."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    actor: str
    belief: str
    labels: BeliefLabels = BeliefLabels.model_construct()

    @field_validator("actor", "belief")
    @classmethod
    def _nonempty(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("must be a non-empty string")
        return value

    @field_validator("labels", mode="before")
    @classmethod
    def _labels_present(cls, value: object, info: ValidationInfo) -> object:
        if value is None:
            if _flag(info, "gold"):
                raise ValueError("gold records need a labels object")
            return {}
        return value

    @property
    def order(self) -> int | None:
        """The Order label as an integer (``None`` when missing)."""
        return int(self.labels.order) if self.labels.order is not None else None


class StoryRecord(BaseModel):
    """One story of the benchmark with its belief structure (Table 7)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    story_id: int
    story_category: str
    story: str
    beliefs: tuple[BeliefRecord, ...] = ()
    split: str | None = None
    """The official release's optional split name, kept as given."""

    @field_validator("story_category")
    @classmethod
    def _category(cls, value: str) -> str:
        try:
            return canonical_category(value)
        except InvalidArgumentError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("story")
    @classmethod
    def _story(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must be a non-empty string")
        return value

    @property
    def actors(self) -> list[str]:
        """Actors in order of first appearance (``world`` included when present)."""
        return list(dict.fromkeys(b.actor for b in self.beliefs))

    @property
    def stage2_ready(self) -> bool:
        """Whether every belief has all seven labels (a Stage 1 gold carries only the order)."""
        return all(b.labels.complete for b in self.beliefs)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict in the Table 7 layout (``split`` only when the record has one)."""
        data = self.model_dump(mode="json")
        if data.get("split") is None:
            data.pop("split", None)
        return data


def parse_records(
    objects: Iterable[tuple[int | None, object]], *, partial: bool = False, source: str = "<records>"
) -> list[StoryRecord]:
    """Validate ``(line, object)`` pairs into records; ``partial`` accepts missing or illegal labels.

    Raises :class:`ParseError` for the first invalid object, naming source, line, story and field
    (``[story_id=12].beliefs[1].labels.order``), and for repeated ``story_id``.
    """
    out: list[StoryRecord] = []
    seen: dict[int, int | None] = {}
    context = {"partial": partial, "gold": not partial}
    for line, obj in objects:
        at = f"[story_id={obj['story_id']}]" if isinstance(obj, Mapping) and "story_id" in obj else ""
        record = validate_data(StoryRecord, obj, source=source, error=ParseError, at=at, line=line, context=context)
        if record.story_id in seen:
            raise ParseError(f"story_id {record.story_id} appears twice", source=source, line=line)
        seen[record.story_id] = line
        out.append(record)
    return out


def _json_objects(text: str, source: str, jsonl: bool) -> Sequence[tuple[int | None, object]]:
    stripped = text.strip()
    if not stripped:
        raise ParseError("empty file (expected JSON or JSONL OmniToM records)", source=source)
    if not jsonl:
        try:
            whole = json.loads(stripped)
        except json.JSONDecodeError as exc:
            if stripped.startswith("["):
                raise ParseError(f"invalid JSON: {exc.msg}", source=source, line=exc.lineno) from None
        else:
            if isinstance(whole, list):
                if not whole:
                    raise ParseError("no records (an empty array; expected OmniToM records)", source=source)
                return [(None, o) for o in whole]
            if isinstance(whole, dict):
                return [(1, whole)]
            raise ParseError("expected a JSON object or an array of objects", source=source)
    return list(iter_json_lines(source, text=text))


def read_records(path: str | Path, *, partial: bool = False) -> list[StoryRecord]:
    """Read OmniToM records from a JSON or JSONL file (``partial=True`` for model predictions).

    UTF-8 with or without a byte-order mark; a file that cannot be read, is not UTF-8 text or holds no records is
    a :class:`ParseError` naming the file.
    """
    p = Path(path)
    text = read_text_file(p)
    jsonl = p.suffix.lower() == ".jsonl"
    return parse_records(_json_objects(text, str(p), jsonl), partial=partial, source=str(p))


def dump_records(records: Sequence[StoryRecord], *, jsonl: bool = True) -> str:
    """Records as JSONL text (one object per line) or as one indented JSON array."""
    if jsonl:
        return "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in records)
    return json.dumps([r.to_json() for r in records], ensure_ascii=False, indent=2) + "\n"


def write_records(path: str | Path, records: Sequence[StoryRecord]) -> None:
    """Write records as JSONL (``.jsonl``) or a JSON array (any other suffix)."""
    p = Path(path)
    try:
        p.write_text(dump_records(records, jsonl=p.suffix.lower() == ".jsonl"), encoding="utf-8")
    except OSError as exc:
        raise ParseError(f"cannot write file: {exc.strerror or exc}", source=str(p)) from None

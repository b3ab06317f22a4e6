"""What people need and use together (MindPower B.1 (3) and (4)): functional combinations and dialogue-driven needs.

The tables are package data, ``data/needs.yaml`` in the household package, read and checked once on import
(:func:`load_needs`): item kinds must exist in the catalog, the sentence templates may only use ``{poss}``, and
every need comes with at least one three-line dialogue. A malformed file raises
:class:`~mindloop.datafiles.DataFileError` naming the file, the entry and the field.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, Field

from mindloop.datafiles import DataModel, load_package_data
from mindloop.worlds.household.catalog import ITEM_KINDS
from mindloop.worlds.household.world import World

__all__ = ["COMBOS", "DIALOGUES", "NEEDS", "Combo", "Need", "combo_for", "load_needs", "need_item"]


@dataclass(frozen=True, slots=True)
class Combo:
    """A functional combination: items set out for a task that also needs ``tool``."""

    name: str
    present: tuple[str, ...]
    tool: str
    task: str


@dataclass(frozen=True, slots=True)
class Need:
    """A bodily state a human can mention, and what meets it."""

    feeling: str
    state: str  # "is thirsty"
    kinds: tuple[str, ...]  # item kinds that meet it, in order of preference
    liquid: str  # fill the item with this first ("water"), or ""
    offer: str  # "a glass of water"
    relief: str  # "relieve {poss} thirst"


Dialogue = tuple[str, str, str]
"""A three-line exchange: A hints, B answers, A lets the need slip (the line that states it)."""


def _known_kinds(kinds: tuple[str, ...]) -> tuple[str, ...]:
    unknown = [k for k in kinds if k not in ITEM_KINDS]
    if unknown:
        raise ValueError(f"unknown item kind {unknown[0]!r}")
    return kinds


def _template(value: str) -> str:
    fields = {name for _, name, _, _ in string.Formatter().parse(value) if name is not None}
    if fields - {"poss"}:
        raise ValueError(f"unknown placeholder {{{sorted(fields - {'poss'})[0]}}}: only {{poss}} is filled in")
    return value


_Kinds = Annotated[tuple[str, ...], Field(min_length=1), AfterValidator(_known_kinds)]
_Kind = Annotated[str, AfterValidator(lambda kind: _known_kinds((kind,))[0])]
_Liquid = Annotated[str, AfterValidator(lambda kind: _known_kinds((kind,))[0] if kind else kind)]
_Template = Annotated[str, Field(min_length=1), AfterValidator(_template)]
"""Item kinds of the catalog (for a liquid: one, or none when empty) and a sentence template that fills in only
``{poss}``."""


class _ComboSpec(DataModel):
    present: _Kinds
    tool: _Kind
    task: str = Field(min_length=1)


class _NeedSpec(DataModel):
    state: str = Field(min_length=1)
    kinds: _Kinds
    liquid: _Liquid = ""
    offer: _Template
    relief: _Template
    dialogues: tuple[Dialogue, ...] = Field(min_length=1)


class _NeedsFile(DataModel):
    combos: dict[str, _ComboSpec] = Field(min_length=1)
    needs: dict[str, _NeedSpec] = Field(min_length=1)


def load_needs(
    path: str | Path | Traversable | None = None,
) -> tuple[tuple[Combo, ...], dict[str, Need], dict[str, tuple[Dialogue, ...]]]:
    """Read and check a needs file (the one shipped with mindloop when ``path`` is ``None``): the combinations,
    the needs by feeling and their dialogues by feeling."""
    data = load_package_data(_NeedsFile, "mindloop.worlds.household", "needs.yaml", path)
    combos = tuple(Combo(name, c.present, c.tool, c.task) for name, c in data.combos.items())
    needs = {f: Need(f, n.state, n.kinds, n.liquid, n.offer, n.relief) for f, n in data.needs.items()}
    dialogues = {f: n.dialogues for f, n in data.needs.items()}
    return combos, needs, dialogues


_LOADED = load_needs()
COMBOS: tuple[Combo, ...] = _LOADED[0]
"""Known usage pairs and triplets (B.1 (3): knife + cutting board + carrot means cutting carrots)."""
NEEDS: dict[str, Need] = _LOADED[1]
"""Dialogue-driven needs (B.1 (4)) by feeling."""
DIALOGUES: dict[str, tuple[Dialogue, ...]] = _LOADED[2]
"""Three-line exchanges per need: A hints, B answers, A lets the need slip (the line that states it)."""


def combo_for(handled: Sequence[str]) -> Combo | None:
    """The known combination best matching items someone set out (most items in common; first on ties)."""
    kinds = set(handled)
    return max((c for c in COMBOS if set(c.present) <= kinds), key=lambda c: len(c.present), default=None)


def need_item(world: World, need: Need) -> str | None:
    """The item in the home that meets ``need`` (first kind in order of preference that is present)."""
    return next((iid for kind in need.kinds for iid, item in world.items.items() if item.kind == kind), None)

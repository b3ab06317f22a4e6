"""The scenario taxonomy: MindPower's two tasks, their kinds, and controls where no help is needed.

Weights set the default mix of ``mindpower-sim``. They follow the paper's proportions where it gives them
(B.1: 390 False-Belief Correction and 200 Implicit Goal Inference & Completion examples; 113/373/104 with
one/two/three humans; 17 special-needs, 96 object-property/functional, 87 dialogue examples) and add controls
(about 18% of samples), which the paper does not have and MindClaw's precision intervention needs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Literal

from pydantic import Field

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import UnknownNameError

FALSE_BELIEF = "false_belief_correction"
IMPLICIT_GOAL = "implicit_goal_inference"
TASK_TYPES = (FALSE_BELIEF, IMPLICIT_GOAL)

CATEGORIES = (
    "false_belief",
    "special_population",
    "object_property",
    "functional_combination",
    "dialogue",
)
"""False-belief stories, then the four kinds of implicit goals of B.1."""


@dataclass(frozen=True, slots=True)
class Subtype:
    """One kind of scenario: its task, category, whether it is a control, its share of the default mix."""

    name: str
    task_type: str
    category: str
    control: bool
    weight: float
    special_needs: str
    description: str


class _SubtypeSpec(DataModel):
    """One subtype as ``data/subtypes.yaml`` writes it."""

    task: Literal["false_belief_correction", "implicit_goal_inference"]
    category: str
    weight: float = Field(gt=0, le=1)
    control: bool = False
    special_needs: Literal["none", "child", "wheelchair"] = "none"
    description: str = Field(min_length=1)


class _TaxonomyFile(DataModel):
    """The whole of ``data/subtypes.yaml``: every subtype, by name, in order."""

    subtypes: dict[str, _SubtypeSpec] = Field(min_length=1)

    def problems(self) -> Iterator[tuple[str, str]]:
        for name, s in self.subtypes.items():
            if s.category not in CATEGORIES:
                yield f"subtypes.{name}.category", f"unknown category {s.category!r} ({', '.join(CATEGORIES)})"


def load_subtypes(path: str | Path | Traversable | None = None) -> dict[str, Subtype]:
    """Read and check a taxonomy file (the one shipped with mindloop when ``path`` is ``None``)."""
    data = load_package_data(_TaxonomyFile, "mindloop.worlds.household", "subtypes.yaml", path)
    return {
        name: Subtype(name, s.task, s.category, s.control, s.weight, s.special_needs, s.description)
        for name, s in data.subtypes.items()
    }


SUBTYPES: dict[str, Subtype] = load_subtypes()
"""Every subtype, by name, in a fixed order."""


def subtype(name: str) -> Subtype:
    """The subtype called ``name``; an unknown name raises :class:`~mindloop.errors.UnknownNameError`."""
    try:
        return SUBTYPES[name]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(name, list(SUBTYPES), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownNameError(f"unknown scenario subtype {name!r}{hint}") from None

"""What the ``mindpower-sim`` dataset is called, its splits and its statistics: the pieces the dataset's export
(:mod:`~mindloop.worlds.household.scenarios.dataset`) and its card (:mod:`~mindloop.worlds.household.scenarios.card`)
both use, kept below them both so neither imports the other's importer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["DATASET_NAME", "SPLITS", "DatasetStats"]

DATASET_NAME = "mindpower-sim"
SPLITS = ("train", "test")


@dataclass(frozen=True)
class DatasetStats:
    """Counts like MindPower's B.1 statistics: task types, subtypes, humans per scenario, special needs,
    dialogue share, controls; overall and per split."""

    dataset: str
    seed: int
    n: int
    splits: dict[str, int]
    task_type: dict[str, int]
    subtype: dict[str, int]
    category: dict[str, int]
    humans: dict[str, int]
    special_needs: dict[str, int]
    dialogue: int
    controls: int
    help_needed: int
    layouts: int
    characters: int
    by_split: dict[str, dict[str, Any]] = field(default_factory=dict)
    paper: list[dict[str, Any]] = field(default_factory=list)
    """MindPower's figure beside ours for each row of its composition (``dataset.paper_comparison``)."""

    @property
    def dialogue_share(self) -> float:
        """Fraction of scenarios whose window contains speech."""
        return self.dialogue / self.n if self.n else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the ``describe --json`` object)."""
        return {
            "dataset": self.dataset,
            "seed": self.seed,
            "n": self.n,
            "splits": self.splits,
            "task_type": self.task_type,
            "subtype": self.subtype,
            "category": self.category,
            "humans": self.humans,
            "special_needs": self.special_needs,
            "dialogue": self.dialogue,
            "dialogue_share": round(self.dialogue_share, 4),
            "controls": self.controls,
            "help_needed": self.help_needed,
            "layouts": self.layouts,
            "characters": self.characters,
            "by_split": self.by_split,
            "paper_vs_ours": self.paper,
        }

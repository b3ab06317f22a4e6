"""What the ``mindpower-sim`` dataset is called, its splits and its statistics: the pieces the dataset's export
(:mod:`~mindloop.worlds.household.scenarios.dataset`) and its card (:mod:`~mindloop.worlds.household.scenarios.card`)
both use, kept below them both so neither imports the other's importer."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

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
        """JSON-ready form (the ``describe --json`` object): every field (``paper`` as ``paper_vs_ours``) and the
        dialogue share."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["paper_vs_ours"] = data.pop("paper")
        return data | {"dialogue_share": round(self.dialogue_share, 4)}

"""MindPower-style scenarios with exact gold annotations, and the ``mindpower-sim`` dataset.

* :func:`generate_scenario` / :func:`generate_scenarios` — seeded scenarios of the paper's taxonomy
  (:data:`SUBTYPES`): False-Belief Correction with 1-3 humans (camera-blind variant included), Implicit Goal
  Inference & Completion (child, wheelchair, faucet, power cut, functional combinations, dialogue), and controls.
* :class:`Scenario` — JSON-serialisable record with setup, script, perceived window, events, goal and
  :class:`Gold` (six layers, action list, atomic actions).
* :func:`mindpower_sim`, :func:`export_dataset`, :func:`describe_dataset`, :func:`load_scenarios` — the dataset.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mindloop.lazy import lazy_attributes

if TYPE_CHECKING:
    from mindloop.worlds.household.scenarios.dataset import (
        DATASET_NAME,
        DEFAULT_N,
        DEFAULT_SEED,
        DatasetStats,
        ExportResult,
        describe_dataset,
        export_dataset,
        load_scenarios,
        mindpower_sim,
        split_scenarios,
    )
    from mindloop.worlds.household.scenarios.episode import Episode, ScriptError
    from mindloop.worlds.household.scenarios.generate import GENERATORS, generate_scenario, generate_scenarios
    from mindloop.worlds.household.scenarios.gold import COMBOS, NEEDS, Focus, derive_gold
    from mindloop.worlds.household.scenarios.model import LAYERS, AtomicActions, Gold, GoldBelief, Scenario, ScriptStep
    from mindloop.worlds.household.scenarios.taxonomy import FALSE_BELIEF, IMPLICIT_GOAL, SUBTYPES, TASK_TYPES, Subtype

__getattr__ = lazy_attributes(
    __name__,
    {
        "dataset": (
            "DATASET_NAME",
            "DEFAULT_N",
            "DEFAULT_SEED",
            "DatasetStats",
            "ExportResult",
            "describe_dataset",
            "export_dataset",
            "load_scenarios",
            "mindpower_sim",
            "split_scenarios",
        ),
        "episode": ("Episode", "ScriptError"),
        "generate": ("GENERATORS", "generate_scenario", "generate_scenarios"),
        "gold": ("COMBOS", "NEEDS", "Focus", "derive_gold"),
        "model": ("LAYERS", "AtomicActions", "Gold", "GoldBelief", "Scenario", "ScriptStep"),
        "taxonomy": ("FALSE_BELIEF", "IMPLICIT_GOAL", "SUBTYPES", "TASK_TYPES", "Subtype"),
    },
)

__all__ = [
    "COMBOS",
    "DATASET_NAME",
    "DEFAULT_N",
    "DEFAULT_SEED",
    "FALSE_BELIEF",
    "GENERATORS",
    "IMPLICIT_GOAL",
    "LAYERS",
    "NEEDS",
    "SUBTYPES",
    "TASK_TYPES",
    "AtomicActions",
    "DatasetStats",
    "Episode",
    "ExportResult",
    "Focus",
    "Gold",
    "GoldBelief",
    "Scenario",
    "ScriptError",
    "ScriptStep",
    "Subtype",
    "derive_gold",
    "describe_dataset",
    "export_dataset",
    "generate_scenario",
    "generate_scenarios",
    "load_scenarios",
    "mindpower_sim",
    "split_scenarios",
]

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

from mindloop.lazy import lazy_exports

if TYPE_CHECKING:
    from mindloop.worlds.household.scenarios.dataset import DEFAULT_N as DEFAULT_N
    from mindloop.worlds.household.scenarios.dataset import DEFAULT_SEED as DEFAULT_SEED
    from mindloop.worlds.household.scenarios.dataset import ExportResult as ExportResult
    from mindloop.worlds.household.scenarios.dataset import describe_dataset as describe_dataset
    from mindloop.worlds.household.scenarios.dataset import export_dataset as export_dataset
    from mindloop.worlds.household.scenarios.dataset import load_scenarios as load_scenarios
    from mindloop.worlds.household.scenarios.dataset import mindpower_sim as mindpower_sim
    from mindloop.worlds.household.scenarios.dataset import split_scenarios as split_scenarios
    from mindloop.worlds.household.scenarios.episode import Episode as Episode
    from mindloop.worlds.household.scenarios.episode import ScriptError as ScriptError
    from mindloop.worlds.household.scenarios.generate import GENERATORS as GENERATORS
    from mindloop.worlds.household.scenarios.generate import generate_scenario as generate_scenario
    from mindloop.worlds.household.scenarios.generate import generate_scenarios as generate_scenarios
    from mindloop.worlds.household.scenarios.gold import NEEDS as NEEDS
    from mindloop.worlds.household.scenarios.gold import Focus as Focus
    from mindloop.worlds.household.scenarios.gold import derive_gold as derive_gold
    from mindloop.worlds.household.scenarios.model import LAYERS as LAYERS
    from mindloop.worlds.household.scenarios.model import AtomicActions as AtomicActions
    from mindloop.worlds.household.scenarios.model import Gold as Gold
    from mindloop.worlds.household.scenarios.model import GoldBelief as GoldBelief
    from mindloop.worlds.household.scenarios.model import Scenario as Scenario
    from mindloop.worlds.household.scenarios.model import ScriptStep as ScriptStep
    from mindloop.worlds.household.scenarios.needs import COMBOS as COMBOS
    from mindloop.worlds.household.scenarios.stats import DATASET_NAME as DATASET_NAME
    from mindloop.worlds.household.scenarios.stats import DatasetStats as DatasetStats
    from mindloop.worlds.household.scenarios.taxonomy import FALSE_BELIEF as FALSE_BELIEF
    from mindloop.worlds.household.scenarios.taxonomy import IMPLICIT_GOAL as IMPLICIT_GOAL
    from mindloop.worlds.household.scenarios.taxonomy import SUBTYPES as SUBTYPES
    from mindloop.worlds.household.scenarios.taxonomy import TASK_TYPES as TASK_TYPES
    from mindloop.worlds.household.scenarios.taxonomy import Subtype as Subtype

__getattr__ = lazy_exports(__name__)

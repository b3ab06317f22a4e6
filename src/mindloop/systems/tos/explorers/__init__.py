"""Explorers for the Theory-of-Space world: the paper's scripted proxies (SCOUT, STRATEGIST), a symbolic explorer
that keeps an exact cognitive map, a change detector for the false-belief phase, and a model-driven explorer
with belief probing. ``tos-active``/``tos-passive`` benchmarks live in :mod:`.benchmarks`."""

from collections.abc import Callable
from typing import Any

from mindloop.systems.tos.explorers.base import Exploration, Explorer, new_belief, run_exploration
from mindloop.systems.tos.explorers.belief import SpatialBelief
from mindloop.systems.tos.explorers.revision import ChangeDetector
from mindloop.systems.tos.explorers.scout import ScoutExplorer
from mindloop.systems.tos.explorers.strategist import StrategistExplorer
from mindloop.systems.tos.explorers.symbolic import SymbolicExplorer

__all__ = [
    "SCRIPTED_EXPLORERS",
    "ChangeDetector",
    "Exploration",
    "Explorer",
    "ScoutExplorer",
    "SpatialBelief",
    "StrategistExplorer",
    "SymbolicExplorer",
    "new_belief",
    "run_exploration",
]

SCRIPTED_EXPLORERS: dict[str, Callable[[SpatialBelief, int], Any]] = {
    "symbolic": lambda belief, seed: SymbolicExplorer(belief),
    "scout": lambda belief, seed: ScoutExplorer(),
    "strategist": lambda belief, seed: StrategistExplorer(seed=seed),
}
"""The scripted explorers by name (``belief`` is the map it writes, ``seed`` the scene's seed)."""

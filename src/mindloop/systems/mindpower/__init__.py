"""The MindPower Reasoning Hierarchy: prompts for its three settings, a strict parser, and the agents.

``<Perception> → <Belief> → <Desire> → <Intention> → <Decision> → <Action>`` (Zhang et al., MindPower, Sec. 3.1).
The ``mindpower`` benchmark is :class:`mindloop.systems.mindpower.benchmarks.MindPowerBenchmark`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mindloop.lazy import lazy_exports

if TYPE_CHECKING:
    from mindloop.systems.mindpower.agents import HierarchyAnswer as HierarchyAnswer
    from mindloop.systems.mindpower.agents import ModelHierarchyAgent as ModelHierarchyAgent
    from mindloop.systems.mindpower.agents import SymbolicHierarchyAgent as SymbolicHierarchyAgent
    from mindloop.systems.mindpower.agents import belief_mismatches as belief_mismatches
    from mindloop.systems.mindpower.agents import gold_answer_text as gold_answer_text
    from mindloop.systems.mindpower.agents import render_frames_png as render_frames_png
    from mindloop.systems.mindpower.agents import scenario_input as scenario_input
    from mindloop.systems.mindpower.hierarchy import LAYERS as LAYERS
    from mindloop.systems.mindpower.hierarchy import SETTING_LAYERS as SETTING_LAYERS
    from mindloop.systems.mindpower.hierarchy import SETTINGS as SETTINGS
    from mindloop.systems.mindpower.hierarchy import TAGS as TAGS
    from mindloop.systems.mindpower.hierarchy import ActionStep as ActionStep
    from mindloop.systems.mindpower.hierarchy import Hierarchy as Hierarchy
    from mindloop.systems.mindpower.hierarchy import HierarchyParseError as HierarchyParseError
    from mindloop.systems.mindpower.hierarchy import layers_in_order as layers_in_order
    from mindloop.systems.mindpower.hierarchy import parse_hierarchy as parse_hierarchy
    from mindloop.systems.mindpower.prompts import PROMPTS as PROMPTS
    from mindloop.systems.mindpower.prompts import HierarchyInput as HierarchyInput
    from mindloop.systems.mindpower.prompts import build_messages as build_messages

__getattr__ = lazy_exports(__name__)

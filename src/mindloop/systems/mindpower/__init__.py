"""The MindPower Reasoning Hierarchy: prompts for its three settings, a strict parser, and the agents.

``<Perception> → <Belief> → <Desire> → <Intention> → <Decision> → <Action>`` (Zhang et al., MindPower, Sec. 3.1).
The ``mindpower`` benchmark is :class:`mindloop.systems.mindpower.benchmarks.MindPowerBenchmark`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mindloop.lazy import lazy_attributes

if TYPE_CHECKING:
    from mindloop.systems.mindpower.agents import (
        HierarchyAnswer,
        ModelHierarchyAgent,
        SymbolicHierarchyAgent,
        belief_mismatches,
        gold_answer_text,
        render_frames_png,
        scenario_input,
    )
    from mindloop.systems.mindpower.hierarchy import (
        LAYERS,
        SETTING_LAYERS,
        SETTINGS,
        TAGS,
        ActionStep,
        Hierarchy,
        HierarchyParseError,
        layers_in_order,
        parse_hierarchy,
    )
    from mindloop.systems.mindpower.prompts import PROMPTS, HierarchyInput, build_messages

__getattr__ = lazy_attributes(
    __name__,
    {
        "agents": (
            "HierarchyAnswer",
            "ModelHierarchyAgent",
            "SymbolicHierarchyAgent",
            "belief_mismatches",
            "gold_answer_text",
            "render_frames_png",
            "scenario_input",
        ),
        "hierarchy": (
            "LAYERS",
            "SETTING_LAYERS",
            "SETTINGS",
            "TAGS",
            "ActionStep",
            "Hierarchy",
            "HierarchyParseError",
            "layers_in_order",
            "parse_hierarchy",
        ),
        "prompts": ("PROMPTS", "HierarchyInput", "build_messages"),
    },
)

__all__ = [
    "LAYERS",
    "PROMPTS",
    "SETTINGS",
    "SETTING_LAYERS",
    "TAGS",
    "ActionStep",
    "Hierarchy",
    "HierarchyAnswer",
    "HierarchyInput",
    "HierarchyParseError",
    "ModelHierarchyAgent",
    "SymbolicHierarchyAgent",
    "belief_mismatches",
    "build_messages",
    "gold_answer_text",
    "layers_in_order",
    "parse_hierarchy",
    "render_frames_png",
    "scenario_input",
]

"""MindClaw: the closed-loop runtime for precision intervention (paper ``001``, §IV).

Multi-source input -> Adapter (:mod:`~mindloop.systems.mindclaw.sources`) -> one :class:`Window` type -> the
:class:`Engine`: Observation first, then the Trigger loop over the operation space of eq. (8) — belief-table
writes, ``reasoning_run``, ``action_run``, ``noop`` — with two-stage inference (strict skills, then a policy),
Mental Reasoning and Action Generation; every step traced as ``tau_t = (o_t, z_t^(1..K), r_t, a_t, e_t)``.
Memory is the belief table (a view of the belief core) and the recent-operation history.

>>> from mindloop.systems.mindclaw import HouseholdSource, build_engine, default_skills
>>> from mindloop.worlds.household.scenarios import generate_scenario
>>> engine = build_engine("symbolic", skills=default_skills())
>>> trace = engine.run_now(HouseholdSource(generate_scenario("fb_two_humans", 0, 0)))
>>> [str(s.action) for s in trace if not s.action.is_none][0].startswith("walk(")
True

See ``docs/mindclaw.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mindloop.systems.mindclaw.actions import ModelActionGenerator, SymbolicActionGenerator, plan_help
    from mindloop.systems.mindclaw.agents import AGENTS, build_engine, default_skills, mine_default, trained_classifier
    from mindloop.systems.mindclaw.context import FEATURES, TriggerContext
    from mindloop.systems.mindclaw.cues import CONTEXTS, Cue, find_cues
    from mindloop.systems.mindclaw.direct import DirectModel, parse_direct_reply
    from mindloop.systems.mindclaw.engine import Engine, StepTrace, load_trace, save_trace
    from mindloop.systems.mindclaw.memory import BeliefTable, Memory, OperationHistory, StaleBelief
    from mindloop.systems.mindclaw.mining import collect_decisions, mine_skills, summarise_skills
    from mindloop.systems.mindclaw.observation import ModelObserver, Observation, SymbolicObserver
    from mindloop.systems.mindclaw.operations import (
        OPERATION_VERBS,
        Operation,
        SlotError,
        check_operation,
        parse_operation,
    )
    from mindloop.systems.mindclaw.reasoning import ModelReasoner, SymbolicReasoner
    from mindloop.systems.mindclaw.records import ActionPlan, ExecutionResult, ReasoningRecord
    from mindloop.systems.mindclaw.skills import Skill, SkillSet, load_skills, parse_skills, validate_skills
    from mindloop.systems.mindclaw.sources import (
        FramesFolderSource,
        HouseholdSource,
        JsonlReplaySource,
        TerminalSource,
        ThreeDWorldAdapter,
        VirtualHomeAdapter,
        WindowSource,
        record_frames_folder,
        record_windows,
    )
    from mindloop.systems.mindclaw.trigger import (
        ClassifierPolicy,
        Decision,
        ModelPolicy,
        NaivePolicy,
        NoopPolicy,
        Trigger,
        train_classifier,
    )
    from mindloop.systems.mindclaw.window import Candidates, DictScene, SceneView, Window, WindowEvent

_SUBMODULE: dict[str, str] = {
    "ModelActionGenerator": "actions",
    "SymbolicActionGenerator": "actions",
    "plan_help": "actions",
    "AGENTS": "agents",
    "build_engine": "agents",
    "default_skills": "agents",
    "mine_default": "agents",
    "trained_classifier": "agents",
    "FEATURES": "context",
    "TriggerContext": "context",
    "CONTEXTS": "cues",
    "Cue": "cues",
    "find_cues": "cues",
    "DirectModel": "direct",
    "parse_direct_reply": "direct",
    "Engine": "engine",
    "StepTrace": "engine",
    "load_trace": "engine",
    "save_trace": "engine",
    "BeliefTable": "memory",
    "Memory": "memory",
    "OperationHistory": "memory",
    "StaleBelief": "memory",
    "collect_decisions": "mining",
    "mine_skills": "mining",
    "summarise_skills": "mining",
    "ModelObserver": "observation",
    "Observation": "observation",
    "SymbolicObserver": "observation",
    "OPERATION_VERBS": "operations",
    "Operation": "operations",
    "SlotError": "operations",
    "check_operation": "operations",
    "parse_operation": "operations",
    "ModelReasoner": "reasoning",
    "SymbolicReasoner": "reasoning",
    "ActionPlan": "records",
    "ExecutionResult": "records",
    "ReasoningRecord": "records",
    "Skill": "skills",
    "SkillSet": "skills",
    "load_skills": "skills",
    "parse_skills": "skills",
    "validate_skills": "skills",
    "FramesFolderSource": "sources",
    "HouseholdSource": "sources",
    "JsonlReplaySource": "sources",
    "TerminalSource": "sources",
    "ThreeDWorldAdapter": "sources",
    "VirtualHomeAdapter": "sources",
    "WindowSource": "sources",
    "record_frames_folder": "sources",
    "record_windows": "sources",
    "ClassifierPolicy": "trigger",
    "Decision": "trigger",
    "ModelPolicy": "trigger",
    "NaivePolicy": "trigger",
    "NoopPolicy": "trigger",
    "Trigger": "trigger",
    "train_classifier": "trigger",
    "Candidates": "window",
    "DictScene": "window",
    "SceneView": "window",
    "Window": "window",
    "WindowEvent": "window",
}
"""The submodule behind each public name: a name is imported on first use, so that loading one piece (the
``claw`` benchmark's declaration, a ``bench run`` before its first line) does not import the whole runtime."""
_ALIASES = {"ClawEngine": "Engine", "build_claw_engine": "build_engine"}
"""Top-level re-export names of :class:`Engine` and :func:`build_engine`."""


def __getattr__(name: str) -> Any:
    """Import the submodule that defines ``name`` on first use (PEP 562), and keep the value."""
    target = _ALIASES.get(name, name)
    module = _SUBMODULE.get(target)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), target)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    ClawEngine = Engine
    build_claw_engine = build_engine

__all__ = [
    "AGENTS",
    "CONTEXTS",
    "FEATURES",
    "OPERATION_VERBS",
    "ActionPlan",
    "BeliefTable",
    "Candidates",
    "ClassifierPolicy",
    "ClawEngine",
    "Cue",
    "Decision",
    "DictScene",
    "DirectModel",
    "Engine",
    "ExecutionResult",
    "FramesFolderSource",
    "HouseholdSource",
    "JsonlReplaySource",
    "Memory",
    "ModelActionGenerator",
    "ModelObserver",
    "ModelPolicy",
    "ModelReasoner",
    "NaivePolicy",
    "NoopPolicy",
    "Observation",
    "Operation",
    "OperationHistory",
    "ReasoningRecord",
    "SceneView",
    "Skill",
    "SkillSet",
    "SlotError",
    "StaleBelief",
    "StepTrace",
    "SymbolicActionGenerator",
    "SymbolicObserver",
    "SymbolicReasoner",
    "TerminalSource",
    "ThreeDWorldAdapter",
    "Trigger",
    "TriggerContext",
    "VirtualHomeAdapter",
    "Window",
    "WindowEvent",
    "WindowSource",
    "build_claw_engine",
    "build_engine",
    "check_operation",
    "collect_decisions",
    "default_skills",
    "find_cues",
    "load_skills",
    "load_trace",
    "mine_default",
    "mine_skills",
    "parse_direct_reply",
    "parse_operation",
    "parse_skills",
    "plan_help",
    "record_frames_folder",
    "record_windows",
    "save_trace",
    "summarise_skills",
    "train_classifier",
    "trained_classifier",
    "validate_skills",
]

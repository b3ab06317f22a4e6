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

from typing import TYPE_CHECKING

from mindloop.lazy import lazy_attributes

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

__getattr__ = lazy_attributes(
    __name__,
    {
        "actions": ("ModelActionGenerator", "SymbolicActionGenerator", "plan_help"),
        "agents": ("AGENTS", "build_engine", "default_skills", "mine_default", "trained_classifier"),
        "context": ("FEATURES", "TriggerContext"),
        "cues": ("CONTEXTS", "Cue", "find_cues"),
        "direct": ("DirectModel", "parse_direct_reply"),
        "engine": ("Engine", "StepTrace", "load_trace", "save_trace"),
        "memory": ("BeliefTable", "Memory", "OperationHistory", "StaleBelief"),
        "mining": ("collect_decisions", "mine_skills", "summarise_skills"),
        "observation": ("ModelObserver", "Observation", "SymbolicObserver"),
        "operations": ("OPERATION_VERBS", "Operation", "SlotError", "check_operation", "parse_operation"),
        "reasoning": ("ModelReasoner", "SymbolicReasoner"),
        "records": ("ActionPlan", "ExecutionResult", "ReasoningRecord"),
        "skills": ("Skill", "SkillSet", "load_skills", "parse_skills", "validate_skills"),
        "sources": (
            "FramesFolderSource",
            "HouseholdSource",
            "JsonlReplaySource",
            "TerminalSource",
            "ThreeDWorldAdapter",
            "VirtualHomeAdapter",
            "WindowSource",
            "record_frames_folder",
            "record_windows",
        ),
        "trigger": (
            "ClassifierPolicy",
            "Decision",
            "ModelPolicy",
            "NaivePolicy",
            "NoopPolicy",
            "Trigger",
            "train_classifier",
        ),
        "window": ("Candidates", "DictScene", "SceneView", "Window", "WindowEvent"),
    },
    aliases={"ClawEngine": "Engine", "build_claw_engine": "build_engine"},  # the names the top level re-exports
)

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

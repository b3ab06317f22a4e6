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

from mindloop.lazy import lazy_exports

if TYPE_CHECKING:
    from mindloop.systems.mindclaw.actions import ModelActionGenerator as ModelActionGenerator
    from mindloop.systems.mindclaw.actions import SymbolicActionGenerator as SymbolicActionGenerator
    from mindloop.systems.mindclaw.actions import plan_help as plan_help
    from mindloop.systems.mindclaw.agents import AGENTS as AGENTS
    from mindloop.systems.mindclaw.agents import build_engine as build_engine
    from mindloop.systems.mindclaw.agents import default_skills as default_skills
    from mindloop.systems.mindclaw.agents import mine_default as mine_default
    from mindloop.systems.mindclaw.agents import trained_classifier as trained_classifier
    from mindloop.systems.mindclaw.context import FEATURES as FEATURES
    from mindloop.systems.mindclaw.context import TriggerContext as TriggerContext
    from mindloop.systems.mindclaw.cues import CONTEXTS as CONTEXTS
    from mindloop.systems.mindclaw.cues import Cue as Cue
    from mindloop.systems.mindclaw.cues import find_cues as find_cues
    from mindloop.systems.mindclaw.direct import DirectModel as DirectModel
    from mindloop.systems.mindclaw.direct import parse_direct_reply as parse_direct_reply
    from mindloop.systems.mindclaw.engine import Engine as Engine
    from mindloop.systems.mindclaw.engine import StepTrace as StepTrace
    from mindloop.systems.mindclaw.engine import load_trace as load_trace
    from mindloop.systems.mindclaw.engine import save_trace as save_trace
    from mindloop.systems.mindclaw.memory import BeliefTable as BeliefTable
    from mindloop.systems.mindclaw.memory import Memory as Memory
    from mindloop.systems.mindclaw.memory import OperationHistory as OperationHistory
    from mindloop.systems.mindclaw.memory import StaleBelief as StaleBelief
    from mindloop.systems.mindclaw.mining import collect_decisions as collect_decisions
    from mindloop.systems.mindclaw.mining import mine_skills as mine_skills
    from mindloop.systems.mindclaw.mining import summarise_skills as summarise_skills
    from mindloop.systems.mindclaw.observation import ModelObserver as ModelObserver
    from mindloop.systems.mindclaw.observation import Observation as Observation
    from mindloop.systems.mindclaw.observation import SymbolicObserver as SymbolicObserver
    from mindloop.systems.mindclaw.operations import OPERATION_VERBS as OPERATION_VERBS
    from mindloop.systems.mindclaw.operations import Operation as Operation
    from mindloop.systems.mindclaw.operations import SlotError as SlotError
    from mindloop.systems.mindclaw.operations import check_operation as check_operation
    from mindloop.systems.mindclaw.operations import parse_operation as parse_operation
    from mindloop.systems.mindclaw.reasoning import ModelReasoner as ModelReasoner
    from mindloop.systems.mindclaw.reasoning import SymbolicReasoner as SymbolicReasoner
    from mindloop.systems.mindclaw.records import ActionPlan as ActionPlan
    from mindloop.systems.mindclaw.records import ExecutionResult as ExecutionResult
    from mindloop.systems.mindclaw.records import ReasoningRecord as ReasoningRecord
    from mindloop.systems.mindclaw.skills import Skill as Skill
    from mindloop.systems.mindclaw.skills import SkillSet as SkillSet
    from mindloop.systems.mindclaw.skills import load_skills as load_skills
    from mindloop.systems.mindclaw.skills import parse_skills as parse_skills
    from mindloop.systems.mindclaw.skills import validate_skills as validate_skills
    from mindloop.systems.mindclaw.sources import FramesFolderSource as FramesFolderSource
    from mindloop.systems.mindclaw.sources import HouseholdSource as HouseholdSource
    from mindloop.systems.mindclaw.sources import JsonlReplaySource as JsonlReplaySource
    from mindloop.systems.mindclaw.sources import TerminalSource as TerminalSource
    from mindloop.systems.mindclaw.sources import ThreeDWorldAdapter as ThreeDWorldAdapter
    from mindloop.systems.mindclaw.sources import VirtualHomeAdapter as VirtualHomeAdapter
    from mindloop.systems.mindclaw.sources import WindowSource as WindowSource
    from mindloop.systems.mindclaw.sources import record_frames_folder as record_frames_folder
    from mindloop.systems.mindclaw.sources import record_windows as record_windows
    from mindloop.systems.mindclaw.trigger import ClassifierPolicy as ClassifierPolicy
    from mindloop.systems.mindclaw.trigger import Decision as Decision
    from mindloop.systems.mindclaw.trigger import ModelPolicy as ModelPolicy
    from mindloop.systems.mindclaw.trigger import NaivePolicy as NaivePolicy
    from mindloop.systems.mindclaw.trigger import NoopPolicy as NoopPolicy
    from mindloop.systems.mindclaw.trigger import Trigger as Trigger
    from mindloop.systems.mindclaw.trigger import train_classifier as train_classifier
    from mindloop.systems.mindclaw.window import Candidates as Candidates
    from mindloop.systems.mindclaw.window import DictScene as DictScene
    from mindloop.systems.mindclaw.window import SceneView as SceneView
    from mindloop.systems.mindclaw.window import Window as Window
    from mindloop.systems.mindclaw.window import WindowEvent as WindowEvent


if TYPE_CHECKING:
    ClawEngine = Engine
    build_claw_engine = build_engine

__getattr__ = lazy_exports(__name__, aliases={"ClawEngine": "Engine", "build_claw_engine": "build_engine"})

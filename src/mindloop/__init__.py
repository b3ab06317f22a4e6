"""mindloop: embodied agents that reason about minds through an explicit belief model.

The public API is re-exported here; see ``docs/`` for the guide. The errors and the registry load with the
package; the version (read from the installed metadata), the belief core, the stories, harness, models, worlds,
agents and metrics load on first use of one of their names (they pull in pydantic, numpy, gymnasium,
pettingzoo, httpx, rich progress bars), so ``import mindloop`` stays cheap: every ``mindloop`` command pays for
it before doing anything.
"""

import importlib
from typing import TYPE_CHECKING, Any

from mindloop.errors import (
    BeliefError,
    DependencyError,
    InvalidArgumentError,
    MindloopError,
    ModelError,
    ModelResponseError,
    ModelTimeoutError,
    ParseError,
    RegistryError,
    UnknownNameError,
)
from mindloop.registry import Registry

_LAZY: dict[str, tuple[str, ...]] = {
    "mindloop._version": ("__version__",),
    "mindloop.beliefs": (
        "WORLD",
        "Belief",
        "BeliefStore",
        "Chain",
        "Event",
        "EventKind",
        "Fact",
        "HiToMTrust",
        "Mismatch",
        "Source",
        "Tracker",
        "TrustEveryone",
        "TrustNoOne",
        "TrustPolicy",
        "Utterance",
        "trust_policy",
    ),
    "mindloop.systems.tom.evaluate": ("EvalReport", "evaluate_file"),
    "mindloop.worlds.stories": (
        "Example",
        "Question",
        "answer_question",
        "generate_tomi",
        "narrate",
        "read_examples",
        "to_numbered_text",
        "track_story",
    ),
    "mindloop.bench": (
        "BENCHMARKS",
        "AgentContext",
        "AgentSpec",
        "Benchmark",
        "BenchmarkSpec",
        "Headline",
        "Metric",
        "Options",
        "Outcome",
        "RunRequest",
        "RunStore",
        "RunSummary",
        "Sample",
        "SampleRecord",
        "check_benchmark",
        "get_benchmark",
        "run_benchmark",
        "summarize_run",
    ),
    "mindloop.environments": ("ENVS", "make_env"),
    "mindloop.models": (
        "ChatModel",
        "Completion",
        "FakeChatServer",
        "GenerationConfig",
        "ModelOptions",
        "image_part",
        "load_model",
        "message",
    ),
    "mindloop.worlds.household": ("HouseholdEnv", "WorldSetup", "parse_action", "parse_actions"),
    "mindloop.worlds.household.scenarios": (
        "Scenario",
        "describe_dataset",
        "export_dataset",
        "generate_scenario",
        "generate_scenarios",
        "load_scenarios",
        "mindpower_sim",
    ),
    "mindloop.systems.cobel.worlds": ("CwahEnv", "TdwEnv"),
    "mindloop.systems.cobel.worlds.testsets": ("cwah_test_set", "tdw_test_set"),
    "mindloop.systems.cobel.episode": ("EpisodeResult", "run_episode"),
    "mindloop.systems.omnitom.records": ("BeliefRecord", "StoryRecord", "read_records", "write_records"),
    "mindloop.systems.omnitom.tombench": ("load_tombench",),
    "mindloop.systems.omnitom.metrics": ("score_records_sync",),
    "mindloop.systems.omnitom": ("annotate_story_file",),
    "mindloop.systems.tos.world": ("SpatialEnv", "generate_scene", "load_scene"),
    "mindloop.systems.tos.explorers": ("ScoutExplorer", "StrategistExplorer", "SymbolicExplorer", "run_exploration"),
    "mindloop.systems.tos.metrics": ("map_scores", "parse_cognitive_map"),
    "mindloop.systems.mindpower.metrics": ("action_correctness", "success_rate"),
    "mindloop.systems.mindpower.rewards": ("MindPowerReward", "format_reward", "mind_reward"),
    "mindloop.systems.mindpower": ("build_messages", "parse_hierarchy"),
    "mindloop.systems.mindclaw": ("ClawEngine", "build_claw_engine", "load_skills", "mine_skills"),
    "mindloop.systems.mindclaw.metrics": ("gold_episode", "summarize_intervention"),
}
_LAZY_MODULE = {name: module for module, names in _LAZY.items() for name in names}

if TYPE_CHECKING:
    from mindloop._version import __version__
    from mindloop.beliefs import (
        WORLD,
        Belief,
        BeliefStore,
        Chain,
        Event,
        EventKind,
        Fact,
        HiToMTrust,
        Mismatch,
        Source,
        Tracker,
        TrustEveryone,
        TrustNoOne,
        TrustPolicy,
        Utterance,
        trust_policy,
    )
    from mindloop.bench import (
        BENCHMARKS,
        AgentContext,
        AgentSpec,
        Benchmark,
        BenchmarkSpec,
        Headline,
        Metric,
        Options,
        Outcome,
        RunRequest,
        RunStore,
        RunSummary,
        Sample,
        SampleRecord,
        check_benchmark,
        get_benchmark,
        run_benchmark,
        summarize_run,
    )
    from mindloop.environments import ENVS, make_env
    from mindloop.models import (
        ChatModel,
        Completion,
        FakeChatServer,
        GenerationConfig,
        ModelOptions,
        image_part,
        load_model,
        message,
    )
    from mindloop.systems.cobel.episode import EpisodeResult, run_episode
    from mindloop.systems.cobel.worlds import CwahEnv, TdwEnv
    from mindloop.systems.cobel.worlds.testsets import cwah_test_set, tdw_test_set
    from mindloop.systems.mindclaw import ClawEngine, build_claw_engine, load_skills, mine_skills
    from mindloop.systems.mindclaw.metrics import gold_episode, summarize_intervention
    from mindloop.systems.mindpower import build_messages, parse_hierarchy
    from mindloop.systems.mindpower.metrics import action_correctness, success_rate
    from mindloop.systems.mindpower.rewards import MindPowerReward, format_reward, mind_reward
    from mindloop.systems.omnitom import annotate_story_file
    from mindloop.systems.omnitom.metrics import score_records_sync
    from mindloop.systems.omnitom.records import BeliefRecord, StoryRecord, read_records, write_records
    from mindloop.systems.omnitom.tombench import load_tombench
    from mindloop.systems.tom.evaluate import EvalReport, evaluate_file
    from mindloop.systems.tos.explorers import ScoutExplorer, StrategistExplorer, SymbolicExplorer, run_exploration
    from mindloop.systems.tos.metrics import map_scores, parse_cognitive_map
    from mindloop.systems.tos.world import SpatialEnv, generate_scene, load_scene
    from mindloop.worlds.household import HouseholdEnv, WorldSetup, parse_action, parse_actions
    from mindloop.worlds.household.scenarios import (
        Scenario,
        describe_dataset,
        export_dataset,
        generate_scenario,
        generate_scenarios,
        load_scenarios,
        mindpower_sim,
    )
    from mindloop.worlds.stories import (
        Example,
        Question,
        answer_question,
        generate_tomi,
        narrate,
        read_examples,
        to_numbered_text,
        track_story,
    )


def __getattr__(name: str) -> Any:
    """Import a lazily re-exported name on first use."""
    module = _LAZY_MODULE.get(name)
    if module is None:
        raise AttributeError(f"module 'mindloop' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "BENCHMARKS",
    "ENVS",
    "WORLD",
    "AgentContext",
    "AgentSpec",
    "Belief",
    "BeliefError",
    "BeliefRecord",
    "BeliefStore",
    "Benchmark",
    "BenchmarkSpec",
    "Chain",
    "ChatModel",
    "ClawEngine",
    "Completion",
    "CwahEnv",
    "DependencyError",
    "EpisodeResult",
    "EvalReport",
    "Event",
    "EventKind",
    "Example",
    "Fact",
    "FakeChatServer",
    "GenerationConfig",
    "Headline",
    "HiToMTrust",
    "HouseholdEnv",
    "InvalidArgumentError",
    "Metric",
    "MindPowerReward",
    "MindloopError",
    "Mismatch",
    "ModelError",
    "ModelOptions",
    "ModelResponseError",
    "ModelTimeoutError",
    "Options",
    "Outcome",
    "ParseError",
    "Question",
    "Registry",
    "RegistryError",
    "RunRequest",
    "RunStore",
    "RunSummary",
    "Sample",
    "SampleRecord",
    "Scenario",
    "ScoutExplorer",
    "Source",
    "SpatialEnv",
    "StoryRecord",
    "StrategistExplorer",
    "SymbolicExplorer",
    "TdwEnv",
    "Tracker",
    "TrustEveryone",
    "TrustNoOne",
    "TrustPolicy",
    "UnknownNameError",
    "Utterance",
    "WorldSetup",
    "__version__",
    "action_correctness",
    "annotate_story_file",
    "answer_question",
    "build_claw_engine",
    "build_messages",
    "check_benchmark",
    "cwah_test_set",
    "describe_dataset",
    "evaluate_file",
    "export_dataset",
    "format_reward",
    "generate_scenario",
    "generate_scenarios",
    "generate_scene",
    "generate_tomi",
    "get_benchmark",
    "gold_episode",
    "image_part",
    "load_model",
    "load_scenarios",
    "load_scene",
    "load_skills",
    "load_tombench",
    "make_env",
    "map_scores",
    "message",
    "mind_reward",
    "mindpower_sim",
    "mine_skills",
    "narrate",
    "parse_action",
    "parse_actions",
    "parse_cognitive_map",
    "parse_hierarchy",
    "read_examples",
    "read_records",
    "run_benchmark",
    "run_episode",
    "run_exploration",
    "score_records_sync",
    "success_rate",
    "summarize_intervention",
    "summarize_run",
    "tdw_test_set",
    "to_numbered_text",
    "track_story",
    "trust_policy",
    "write_records",
]

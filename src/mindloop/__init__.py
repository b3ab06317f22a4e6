"""mindloop: embodied agents that reason about minds through an explicit belief model.

The public API is re-exported here; see ``docs/`` for the guide. The errors and the registry load with the
package; the version (read from the installed metadata), the belief core, the stories, harness, models, worlds,
agents and metrics load on first use of one of their names (they pull in pydantic, numpy, gymnasium,
pettingzoo, httpx, rich progress bars), so ``import mindloop`` stays cheap: every ``mindloop`` command pays for
it before doing anything.
"""

from typing import TYPE_CHECKING

from mindloop.errors import BeliefError as BeliefError
from mindloop.errors import DependencyError as DependencyError
from mindloop.errors import InvalidArgumentError as InvalidArgumentError
from mindloop.errors import MindloopError as MindloopError
from mindloop.errors import ModelError as ModelError
from mindloop.errors import ModelResponseError as ModelResponseError
from mindloop.errors import ModelTimeoutError as ModelTimeoutError
from mindloop.errors import ParseError as ParseError
from mindloop.errors import RegistryError as RegistryError
from mindloop.errors import UnknownNameError as UnknownNameError
from mindloop.lazy import lazy_exports
from mindloop.registry import Registry as Registry

if TYPE_CHECKING:
    from mindloop._version import __version__ as __version__
    from mindloop.beliefs import WORLD as WORLD
    from mindloop.beliefs import Belief as Belief
    from mindloop.beliefs import BeliefStore as BeliefStore
    from mindloop.beliefs import Chain as Chain
    from mindloop.beliefs import Event as Event
    from mindloop.beliefs import EventKind as EventKind
    from mindloop.beliefs import Fact as Fact
    from mindloop.beliefs import HiToMTrust as HiToMTrust
    from mindloop.beliefs import Mismatch as Mismatch
    from mindloop.beliefs import Source as Source
    from mindloop.beliefs import Tracker as Tracker
    from mindloop.beliefs import TrustEveryone as TrustEveryone
    from mindloop.beliefs import TrustNoOne as TrustNoOne
    from mindloop.beliefs import TrustPolicy as TrustPolicy
    from mindloop.beliefs import Utterance as Utterance
    from mindloop.beliefs import trust_policy as trust_policy
    from mindloop.bench import BENCHMARKS as BENCHMARKS
    from mindloop.bench import AgentContext as AgentContext
    from mindloop.bench import AgentSpec as AgentSpec
    from mindloop.bench import Benchmark as Benchmark
    from mindloop.bench import BenchmarkSpec as BenchmarkSpec
    from mindloop.bench import ChoiceBenchmark as ChoiceBenchmark
    from mindloop.bench import ChoiceSet as ChoiceSet
    from mindloop.bench import Headline as Headline
    from mindloop.bench import Metric as Metric
    from mindloop.bench import Options as Options
    from mindloop.bench import Outcome as Outcome
    from mindloop.bench import RunKey as RunKey
    from mindloop.bench import RunRequest as RunRequest
    from mindloop.bench import RunStore as RunStore
    from mindloop.bench import RunSummary as RunSummary
    from mindloop.bench import Sample as Sample
    from mindloop.bench import SampleRecord as SampleRecord
    from mindloop.bench import check_benchmark as check_benchmark
    from mindloop.bench import get_benchmark as get_benchmark
    from mindloop.bench import run_benchmark as run_benchmark
    from mindloop.bench import summarize_run as summarize_run
    from mindloop.bench.results import runs_frame as runs_frame
    from mindloop.bench.results import samples_frame as samples_frame
    from mindloop.environments import ENVS as ENVS
    from mindloop.environments import make_env as make_env
    from mindloop.models import ChatModel as ChatModel
    from mindloop.models import Completion as Completion
    from mindloop.models import FakeChatServer as FakeChatServer
    from mindloop.models import GenerationConfig as GenerationConfig
    from mindloop.models import ModelOptions as ModelOptions
    from mindloop.models import image_part as image_part
    from mindloop.models import load_model as load_model
    from mindloop.models import message as message
    from mindloop.systems.cobel.episode import EpisodeResult as EpisodeResult
    from mindloop.systems.cobel.episode import run_episode as run_episode
    from mindloop.systems.cobel.worlds import CwahEnv as CwahEnv
    from mindloop.systems.cobel.worlds import TdwEnv as TdwEnv
    from mindloop.systems.cobel.worlds.testsets import cwah_test_set as cwah_test_set
    from mindloop.systems.cobel.worlds.testsets import tdw_test_set as tdw_test_set
    from mindloop.systems.mindclaw import ClawEngine as ClawEngine
    from mindloop.systems.mindclaw import build_claw_engine as build_claw_engine
    from mindloop.systems.mindclaw import load_skills as load_skills
    from mindloop.systems.mindclaw import mine_skills as mine_skills
    from mindloop.systems.mindclaw.metrics import gold_episode as gold_episode
    from mindloop.systems.mindclaw.metrics import summarize_intervention as summarize_intervention
    from mindloop.systems.mindpower import build_messages as build_messages
    from mindloop.systems.mindpower import parse_hierarchy as parse_hierarchy
    from mindloop.systems.mindpower.metrics import action_correctness as action_correctness
    from mindloop.systems.mindpower.metrics import success_rate as success_rate
    from mindloop.systems.mindpower.rewards import MindPowerReward as MindPowerReward
    from mindloop.systems.mindpower.rewards import format_reward as format_reward
    from mindloop.systems.mindpower.rewards import mind_reward as mind_reward
    from mindloop.systems.omnitom import annotate_story_file as annotate_story_file
    from mindloop.systems.omnitom.metrics import score_records_sync as score_records_sync
    from mindloop.systems.omnitom.records import BeliefRecord as BeliefRecord
    from mindloop.systems.omnitom.records import StoryRecord as StoryRecord
    from mindloop.systems.omnitom.records import read_records as read_records
    from mindloop.systems.omnitom.records import write_records as write_records
    from mindloop.systems.omnitom.tombench import load_tombench as load_tombench
    from mindloop.systems.tom.evaluate import EvalReport as EvalReport
    from mindloop.systems.tom.evaluate import evaluate_file as evaluate_file
    from mindloop.systems.tos.explorers import ScoutExplorer as ScoutExplorer
    from mindloop.systems.tos.explorers import StrategistExplorer as StrategistExplorer
    from mindloop.systems.tos.explorers import SymbolicExplorer as SymbolicExplorer
    from mindloop.systems.tos.explorers import run_exploration as run_exploration
    from mindloop.systems.tos.metrics import map_scores as map_scores
    from mindloop.systems.tos.metrics import parse_cognitive_map as parse_cognitive_map
    from mindloop.systems.tos.world import SpatialEnv as SpatialEnv
    from mindloop.systems.tos.world import generate_scene as generate_scene
    from mindloop.systems.tos.world import load_scene as load_scene
    from mindloop.worlds.household import HouseholdEnv as HouseholdEnv
    from mindloop.worlds.household import WorldSetup as WorldSetup
    from mindloop.worlds.household import parse_action as parse_action
    from mindloop.worlds.household import parse_actions as parse_actions
    from mindloop.worlds.household.scenarios import Scenario as Scenario
    from mindloop.worlds.household.scenarios import describe_dataset as describe_dataset
    from mindloop.worlds.household.scenarios import export_dataset as export_dataset
    from mindloop.worlds.household.scenarios import generate_scenario as generate_scenario
    from mindloop.worlds.household.scenarios import generate_scenarios as generate_scenarios
    from mindloop.worlds.household.scenarios import load_scenarios as load_scenarios
    from mindloop.worlds.household.scenarios import mindpower_sim as mindpower_sim
    from mindloop.worlds.stories import Example as Example
    from mindloop.worlds.stories import Question as Question
    from mindloop.worlds.stories import answer_question as answer_question
    from mindloop.worlds.stories import generate_tomi as generate_tomi
    from mindloop.worlds.stories import narrate as narrate
    from mindloop.worlds.stories import read_examples as read_examples
    from mindloop.worlds.stories import to_numbered_text as to_numbered_text
    from mindloop.worlds.stories import track_story as track_story

__getattr__ = lazy_exports(__name__)

"""What a benchmark is: typed options, a sample source, the agents it can run, a per-sample scorer and a summary.

A benchmark never touches the run store or the executor: the runner validates the run's options into the
benchmark's :class:`Options` model, asks it for its samples, hands it one :class:`Sample` at a time with an
:class:`AgentContext` (the agent name, the model if any, a seed) and stores the :class:`Outcome` it returns.
Samples and outcomes are plain JSON data, so they travel to worker processes and Ray tasks and back unchanged.
Agents are declared per benchmark as :class:`AgentSpec` entries: the runner checks a request against them
(unknown agent, a model missing or superfluous, a team where one agent plays, a team of the wrong size) before a
run is recorded.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from mindloop.bench.declaration import BenchmarkSpec
from mindloop.bench.records import Outcome, Sample, SampleRecord, SampleStatus
from mindloop.models.base import CallRecord, ChatModel, GenerationConfig, ModelOptions, RecordingModel
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES

__all__ = [
    "AgentContext",
    "AgentRunner",
    "AgentSpec",
    "Benchmark",
    "BenchmarkSpec",
    "Judges",
    "Options",
    "Outcome",
    "Sample",
    "SampleRecord",
    "SampleStatus",
]


class Options(BaseModel):
    """Base of every benchmark's options: a frozen pydantic model that refuses unknown keys.

    A benchmark subclasses it with one field per option (types, ``ge``/``le`` ranges, ``Literal`` choices, a
    ``description`` each); ``--opt KEY=VALUE`` strings are validated into it by :mod:`mindloop.bench.options`,
    and its JSON schema (with defaults) is what ``mindloop bench list --json`` prints. A benchmark with no
    options uses this class as it is; a team benchmark names the field that sets the team's size in its
    declaration (:attr:`~mindloop.bench.declaration.BenchmarkSpec.team_option`).

    >>> Options().model_dump()
    {}
    """

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class AgentContext:
    """Who answers a sample: the agent's name, the (recording) model for model-driven agents, and a seed.

    ``ledger`` is the sample's list of model calls (the runner's; ``None`` outside a run): every other model a
    benchmark calls for the sample (a judge) goes through :meth:`recorded`, so its calls are in ``tokens``, the
    sample's ``calls`` and the report, attributed to their role. ``format_retries`` is how many times a reply the
    agent's parser refuses goes back to the model with the reason (:func:`mindloop.models.replies.ask`).
    ``model_options`` are the run's options for ``--model`` (timeout, retries, cache); a judge a benchmark builds
    starts from them (:meth:`judge_options`)."""

    agent: str
    model: ChatModel | None = None
    config: GenerationConfig = field(default_factory=GenerationConfig)
    seed: int = 0
    ledger: list[CallRecord] | None = field(default=None, compare=False, repr=False)
    format_retries: int = DEFAULT_FORMAT_RETRIES
    model_options: ModelOptions | None = field(default=None, compare=False, repr=False)

    def judge_options(self, base_url: str | None, api_key_env: str, timeout_s: float | None = None) -> ModelOptions:
        """Options for a judge model at ``base_url``: the run's timeout, retries, backoff and cache (``--timeout``
        and friends apply to every model call a run makes), its own endpoint and key, none of the agent backend's
        ``--model-opt`` values, and ``timeout_s`` instead of the run's timeout when given."""
        base = self.model_options or ModelOptions()
        options = replace(base, base_url=base_url, api_key_env=api_key_env, extra={})
        return options if timeout_s is None else replace(options, timeout_s=float(timeout_s))

    def recorded(self, model: ChatModel, role: str = "judge") -> ChatModel:
        """``model`` with its calls recorded in this sample's ledger under ``role`` (unchanged without one)."""
        if self.ledger is None:
            return model
        return RecordingModel(model, calls=self.ledger, role=role)


class Judges:
    """The judge models a benchmark has loaded, one per model and options, kept for its life: the options
    ``judge`` (the model), ``judge_base_url``, ``judge_api_key_env`` and ``judge_timeout`` of a sample's settings
    name one."""

    def __init__(self) -> None:
        self._models: dict[tuple[str, ModelOptions], ChatModel] = {}

    def get(self, settings: Mapping[str, Any], ctx: AgentContext | None, api_key_env: str | None = None) -> ChatModel:
        """The judge model, with the run's timeout, retries and cache (``judge_timeout`` instead of the timeout;
        :meth:`AgentContext.judge_options`), the defaults without a context; ``api_key_env`` instead of the
        settings' ``judge_api_key_env``."""
        options = (ctx or AgentContext(agent="judge")).judge_options(
            settings.get("judge_base_url"),
            api_key_env or str(settings["judge_api_key_env"]),
            settings.get("judge_timeout"),
        )
        key = (str(settings["judge"]), options)
        if key not in self._models:
            from mindloop.models.base import load_model  # looked up at each load: a replaced one (a test's) is called

            self._models[key] = load_model(*key)
        return self._models[key]


AgentRunner = Callable[[Sample, AgentContext], Awaitable[Outcome]]
"""The coroutine that answers one sample with one agent (or, for a team agent, the whole team): raise only for
bugs, return an ``Outcome`` with ``error`` for failures; its scores are final unless the declaration has a scorer."""


@dataclass(frozen=True)
class AgentSpec:
    """One agent a benchmark runs: what it is, whether it needs ``--model``, and the coroutine that runs a sample.

    ``team`` agents play as members of a team (``--agents a,b``; one name fills the team) whose size is the run's
    :func:`~mindloop.bench.agents.team_size`; the team's first member's ``run`` plays the whole team (``ctx.agent``
    holds it). Other agents play alone, and a team of them is refused before the run starts.
    """

    description: str
    run: AgentRunner
    needs_model: bool = False
    team: bool = False


@runtime_checkable
class Benchmark(Protocol):
    """A registered benchmark.

    ``options_model`` is its :class:`Options` subclass (``Options`` itself when it takes none). ``agents`` maps
    each agent name it accepts to its :class:`AgentSpec`, in order: the first is the default (with ``--model``
    alone, the first that needs a model). ``samples`` receives an instance of ``options_model``, validated by the
    runner, and must be deterministic in ``(n, seed, options)``. The harness hands each sample to the agent the run
    names (:func:`mindloop.bench.agents.run_sample`) and scores its answer with the declaration's ``scorer``.
    """

    name: str
    description: str
    spec: BenchmarkSpec
    """Its declaration: headline, metrics, reference policies, suite presets, paper tables, generation settings,
    aliases, team option (:mod:`mindloop.bench.declaration`), checked when the registry first loads it."""

    @property
    def options_model(self) -> type[Options]:
        """The benchmark's :class:`Options` subclass (a class attribute in practice)."""
        ...

    @property
    def agents(self) -> Mapping[str, AgentSpec]:
        """The agents by name, the default first."""
        ...

    def samples(self, n: int | None, seed: int, options: Any) -> Sequence[Sample]:
        """The samples of a run: the first ``n`` (all when ``None``) for this seed and these validated options
        (an instance of ``options_model``; each benchmark annotates its own subclass)."""
        ...

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """Metrics over finished samples (done and failed), JSON-ready; nested dicts for breakdowns."""
        ...

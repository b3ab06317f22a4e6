"""Ready-made MindClaw runtimes: ``symbolic`` (rules), ``classifier`` (the embedded "SFT" trigger) and ``model``.

=============  ==================================  ==========================  ======================================
agent          trigger                             reasoning / action          default skills
=============  ==================================  ==========================  ======================================
``symbolic``   strong skills, else ``noop``        symbolic                    the shipped set (rules only)
``classifier`` decision tree on context features   symbolic                    none ("SFT"); ``skills=default`` adds
                                                                               them ("SFT-Skill")
``model``      strong skills, else the model       the model                   the shipped set (skill-augmented)
               prompted with preferred/negative
``never``      ``noop`` always (reference)         symbolic                    none
``first``      reason and act at the first window  symbolic; acts (goes to     none
               with a person and an object         the person) even when not
               (reference)                         warranted
``direct``     none: the model answers once per    the same answer (Table II's none; no belief table shown
               window whether to intervene and     direct-model baseline)
               how, from that window alone
=============  ==================================  ==========================  ======================================

Observation is symbolic unless ``observation="model"``. The classifier is trained on teacher-forced decisions
of the ``mindpower-sim`` train split, deterministically, once per process and configuration.
"""

from __future__ import annotations

import functools
from pathlib import Path

from mindloop.errors import InvalidArgumentError
from mindloop.models.base import ChatModel, GenerationConfig
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES
from mindloop.systems.mindclaw.actions import (
    ActionGenerator,
    EagerActionGenerator,
    ModelActionGenerator,
    SymbolicActionGenerator,
)
from mindloop.systems.mindclaw.context import FEATURE_NAMES, RAW_FEATURE_NAMES
from mindloop.systems.mindclaw.direct import DirectModel
from mindloop.systems.mindclaw.engine import Engine
from mindloop.systems.mindclaw.evaluation import DecisionRecord
from mindloop.systems.mindclaw.mining import collect_decisions, mine_skills
from mindloop.systems.mindclaw.observation import ModelObserver, Observer, SymbolicObserver
from mindloop.systems.mindclaw.reasoning import ModelReasoner, Reasoner, SymbolicReasoner
from mindloop.systems.mindclaw.skills import SkillSet, default_skills_path, load_skills
from mindloop.systems.mindclaw.trigger import (
    ClassifierPolicy,
    FirstWindowPolicy,
    ModelPolicy,
    NaivePolicy,
    NoopPolicy,
    Trigger,
    train_classifier,
)
from mindloop.worlds.household.scenarios import mindpower_sim

AGENTS = ("symbolic", "classifier", "model", "never", "first", "direct")
"""The runtimes :func:`build_engine` makes; ``never`` and ``first`` are the trivial reference policies, ``direct``
the model without the runtime (:mod:`~mindloop.systems.mindclaw.direct`)."""

MODEL_AGENTS = ("model", "direct")
"""The agents that need a model."""


@functools.lru_cache(maxsize=4)
def _load(path: str) -> SkillSet:
    return load_skills(path)


def default_skills() -> SkillSet:
    """The shipped skill set (``default_skills.yaml``, mined from the train split)."""
    return _load(str(default_skills_path()))


def resolve_skills(spec: str, agent: str) -> SkillSet | None:
    """``auto`` (the agent's default), ``default``, ``off`` or a path to a skills YAML file."""
    if spec == "auto":
        spec = "off" if agent in ("classifier", "never", "first", "direct") else "default"
    if spec == "off":
        return None
    if spec == "default":
        return default_skills()
    if not Path(spec).is_file():
        raise InvalidArgumentError(f"skills must be auto, default, off or a skills YAML file; {spec!r} is not a file")
    return _load(str(Path(spec).resolve()))


def training_decisions(
    seed: int = 0, dataset_n: int = 590, belief_table: bool = True, quiet: int = 2
) -> tuple[DecisionRecord, ...]:
    """Teacher-forced decisions of the ``mindpower-sim`` train split, with features and the naive base policy's
    predictions: the classifier's training data and the rule miner's rollouts (made once per process for each
    set of arguments, however they are passed)."""
    return _training_decisions(seed, dataset_n, belief_table, quiet)


@functools.lru_cache(maxsize=8)  # keyed on all four arguments in order: lru_cache tells f() and f(0) apart
def _training_decisions(seed: int, dataset_n: int, belief_table: bool, quiet: int) -> tuple[DecisionRecord, ...]:
    scenarios = mindpower_sim("train", seed=seed, n=dataset_n)
    return tuple(collect_decisions(scenarios, base=NaivePolicy(), belief_table=belief_table, quiet=quiet))


def mine_default(seed: int = 0, dataset_n: int = 590, quiet: int = 2) -> SkillSet:
    """Mine skills from the train split exactly as the shipped ``default_skills.yaml`` was made."""
    data = training_decisions(seed, dataset_n, True, quiet)
    meta = {
        "miner": "rules",
        "dataset": "mindpower-sim",
        "split": "train",
        "seed": seed,
        "dataset_n": dataset_n,
        "quiet": quiet,
        "decisions": len(data),
        "base_policy": "naive",
    }
    return mine_skills(data, meta=meta)


@functools.lru_cache(maxsize=8)
def trained_classifier(
    seed: int = 0, dataset_n: int = 590, belief_table: bool = True, quiet: int = 2, features: str = "full"
) -> ClassifierPolicy:
    """The embedded classifier trained on :func:`training_decisions` (cached per process). ``features``:
    ``full`` (every context feature) or ``raw`` (without the cue detectors' features)."""
    if features not in ("full", "raw"):
        raise InvalidArgumentError(f"classifier features must be full or raw, got {features!r}")
    data = training_decisions(seed, dataset_n, belief_table, quiet)
    names = FEATURE_NAMES if features == "full" else RAW_FEATURE_NAMES
    return train_classifier([d.features for d in data], [d.gold for d in data], seed=0, names=names)


def build_engine(
    agent: str,
    *,
    model: ChatModel | None = None,
    config: GenerationConfig | None = None,
    skills: SkillSet | None = None,
    classifier: ClassifierPolicy | None = None,
    belief_table: bool = True,
    observation: str = "symbolic",
    max_ops: int = 16,
    format_retries: int = DEFAULT_FORMAT_RETRIES,
) -> Engine:
    """An :class:`~mindloop.systems.mindclaw.engine.Engine` for one of :data:`AGENTS` (see the module docstring).

    ``format_retries``: how many times each model component sends a reply its parser refused back to the model
    with the reason (:func:`mindloop.models.replies.ask`; the run's ``--format-retries``)."""
    if agent not in AGENTS:
        raise InvalidArgumentError(f"unknown MindClaw agent {agent!r} (agents: {', '.join(AGENTS)})")
    if observation not in ("symbolic", "model"):
        raise InvalidArgumentError(f"observation must be symbolic or model, got {observation!r}")
    needs_model = agent in MODEL_AGENTS or observation == "model"
    if needs_model and model is None:
        raise InvalidArgumentError(f"agent {agent!r} with observation={observation} needs a model")
    cfg = config or GenerationConfig()
    observer: Observer
    if observation == "model":
        assert model is not None
        observer = ModelObserver(model, cfg, retries=format_retries)
    else:
        observer = SymbolicObserver()
    if agent == "direct":
        assert model is not None
        direct = DirectModel(model, cfg, retries=format_retries)
        return Engine(observer, Trigger(None, direct), direct, direct, belief_table=False, max_ops=max_ops)
    reasoner: Reasoner = SymbolicReasoner()
    actor: ActionGenerator = EagerActionGenerator() if agent == "first" else SymbolicActionGenerator()
    if agent == "model":
        assert model is not None
        trigger = Trigger(skills, ModelPolicy(model, cfg, retries=format_retries))
        reasoner = ModelReasoner(model, cfg, retries=format_retries)
        actor = ModelActionGenerator(model, cfg, retries=format_retries)
    elif agent == "never":
        trigger = Trigger(None, NoopPolicy())
    elif agent == "first":
        trigger = Trigger(None, FirstWindowPolicy())
    elif agent == "classifier":
        policy = classifier if classifier is not None else trained_classifier(belief_table=belief_table)
        trigger = Trigger(skills, policy)
    else:
        trigger = Trigger(skills, NoopPolicy())
    return Engine(observer, trigger, reasoner, actor, belief_table=belief_table, max_ops=max_ops)

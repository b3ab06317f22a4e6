"""Checking a benchmark against the harness's contract, the way Gymnasium's ``check_env`` checks an environment.

:func:`check_declaration` checks what a benchmark declares against the benchmark itself (its team option names
an integer option, its paper tables read it, its aliases are not its name, its small run names its options and
agents); the registry runs it when it first
loads a benchmark, so a bad declaration is refused before any run. :func:`check_benchmark` (exported as
``mindloop.check_benchmark``) checks the whole contract: the protocol, the declaration, option validation (the
defaults validate, an unknown option and out-of-range or off-choice values are refused), determinism of the
samples on a seed (unique ids, JSON-ready input, at most ``n``), and, when an agent needs no model, one sample
run and summarised. The tests run it over every registered benchmark; a plug-in's author can run it too.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext, AgentSpec, Benchmark, Options, Outcome, Sample, SampleRecord
from mindloop.bench.declaration import BenchmarkSpec
from mindloop.bench.options import invalid_values, validate_options
from mindloop.errors import InvalidArgumentError, RegistryError
from mindloop.models.base import run_sync


def _fail(bench: Any, problem: str) -> RegistryError:
    name = getattr(bench, "name", None) or type(bench).__name__
    return RegistryError(f"benchmark {name!r}: {problem}")


def check_declaration(bench: Benchmark) -> None:
    """Check ``bench.spec`` against ``bench``; a problem is a :class:`~mindloop.errors.RegistryError` naming it."""
    spec = bench.spec
    if not isinstance(spec, BenchmarkSpec):
        raise _fail(bench, f"its spec must be a BenchmarkSpec, got {type(spec).__name__}")
    if bench.name in spec.aliases:
        raise _fail(bench, "an alias repeats its own name")
    if spec.team_option is not None:
        fields = bench.options_model.model_fields
        if spec.team_option not in fields:
            raise _fail(bench, f"team_option {spec.team_option!r} is not one of its options ({', '.join(fields)})")
        if not isinstance(fields[spec.team_option].get_default(), int):
            raise _fail(bench, f"team_option {spec.team_option!r} must be an integer option")
        if not any(a.team for a in bench.agents.values()):
            raise _fail(bench, "it declares a team_option but none of its agents plays in a team")
    for table in spec.paper_tables:
        if bench.name not in table.benchmarks():
            raise _fail(bench, f"paper table {table.key!r} reads none of its own numbers")
    small = spec.small
    unknown = sorted({k for k, _ in small.options} - set(bench.options_model.model_fields))
    if unknown:
        raise _fail(bench, f"its small run sets {unknown[0]!r}, which is not one of its options")
    if small.agent is not None and small.agent not in bench.agents:
        raise _fail(bench, f"its small run's agent {small.agent!r} is not one of its agents")


def _check_protocol(bench: Any) -> None:
    if not isinstance(bench, Benchmark):
        missing = [a for a in ("name", "description", "spec", "options_model", "agents") if not hasattr(bench, a)]
        missing += [m for m in ("samples", "summarize") if not callable(getattr(bench, m, None))]
        raise _fail(bench, f"not a Benchmark: it lacks {', '.join(missing) or 'part of the protocol'}")
    if not isinstance(bench.name, str) or not bench.name or bench.name != bench.name.strip():
        raise _fail(bench, f"its name must be a non-empty name, got {bench.name!r}")
    if not isinstance(bench.description, str) or not bench.description:
        raise _fail(bench, "it needs a one-line description")
    if not (isinstance(bench.options_model, type) and issubclass(bench.options_model, Options)):
        raise _fail(bench, "options_model must be an Options subclass (Options itself when it has none)")
    if not isinstance(bench.agents, Mapping) or not bench.agents:
        raise _fail(bench, "it declares no agents")
    for name, agent in bench.agents.items():
        if not isinstance(agent, AgentSpec):
            raise _fail(bench, f"agent {name!r} must be an AgentSpec, got {type(agent).__name__}")


def _check_options(bench: Benchmark, options: Mapping[str, str]) -> Options:
    validated = validate_options(bench, options)
    for key, value in [("not-an-option", "1"), *invalid_values(bench.options_model)]:
        try:
            validate_options(bench, {**options, key: value})
        except InvalidArgumentError:
            continue
        raise _fail(bench, f"option {key}={value!r} was accepted; it must be refused")
    return validated


def _check_samples(bench: Benchmark, n: int, seed: int, options: Options) -> list[Sample]:
    first = list(bench.samples(n, seed, options))
    if first != list(bench.samples(n, seed, options)):
        raise _fail(bench, f"samples(n={n}, seed={seed}) differ between two calls: they must be deterministic")
    if len(first) > n:
        raise _fail(bench, f"samples(n={n}) gave {len(first)} samples")
    ids = [s.id for s in first]
    if not all(isinstance(s, Sample) for s in first) or len(set(ids)) != len(ids):
        raise _fail(bench, "samples must be Sample objects with ids unique within a run")
    try:
        json.dumps([[s.input, s.target, list(s.choices)] for s in first], allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise _fail(bench, f"a sample's input, target or choices are not JSON-ready ({exc})") from None
    return first


def _check_run(bench: Benchmark, sample: Sample, seed: int) -> None:
    agent = next((name for name, a in bench.agents.items() if not a.needs_model), None)
    if agent is None:
        return  # every agent needs a model: nothing to run offline
    outcome = run_sync(run_sample(bench, sample, AgentContext(agent, seed=seed)))
    if not isinstance(outcome, Outcome):
        raise _fail(bench, f"an agent must return an Outcome, got {type(outcome).__name__}")
    bad = [k for k, v in outcome.scores.items() if not isinstance(v, int | float) or isinstance(v, bool)]
    if bad or not all(math.isfinite(v) for v in outcome.scores.values() if not bad):
        raise _fail(bench, f"scores must be finite numbers by name, got {outcome.scores!r}")
    record = SampleRecord(
        0, sample, "failed" if outcome.error else "done", outcome.output, outcome.scores, outcome.error, [], 0.0
    )
    try:
        summary = bench.summarize([record])
        json.dumps([outcome.output, summary])
    except (TypeError, ValueError) as exc:
        raise _fail(bench, f"an output or summary is not JSON-ready ({exc})") from None
    for metric in bench.spec.metrics:
        counted = metric.per_sample([record])[0] is not None and not metric.optional
        if counted and metric.missing != "skip" and outcome.error is None and metric.score not in outcome.scores:
            raise _fail(bench, f"metric {metric.name!r} averages score {metric.score!r}, which a sample lacks")


def check_benchmark(
    bench: Any, *, n: int = 3, seed: int = 0, options: Mapping[str, str] | None = None, run: bool = True
) -> None:
    """Check ``bench`` against the harness's contract; raise a :class:`~mindloop.errors.RegistryError` naming the
    first problem. ``options`` (``--opt`` strings) are the options the samples are made with; ``run`` runs the
    first sample with the first agent that needs no model (skipped when every agent needs one)."""
    _check_protocol(bench)
    check_declaration(bench)
    validated = _check_options(bench, options or {})
    samples = _check_samples(bench, n, seed, validated)
    if run and samples:
        _check_run(bench, samples[0], seed)

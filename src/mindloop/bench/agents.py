"""Agents as a benchmark declares them: resolve ``--agent``/``--agents`` against its specs, and dispatch a sample.

A benchmark maps each agent name to an :class:`~mindloop.bench.api.AgentSpec`. :func:`team_members` checks a
requested agent or team against those specs (unknown names with a suggestion, a team where one agent plays, a
team of the wrong size) and is what the runner calls before a run is recorded; :func:`dispatch` is what a
harness calls to hand a sample to the right agent, and :func:`run_sample` answers a sample with it and scores the
answer with the declaration's scorer, once.
"""

from __future__ import annotations

from mindloop.bench.api import AgentContext, AgentSpec, Benchmark, Options, Outcome, Sample
from mindloop.errors import InvalidArgumentError, did_you_mean


def team_size(bench: Benchmark, options: Options) -> int | None:
    """How many agents play one run of ``bench`` with ``options`` (its declared ``team_option``), or ``None``
    when one agent plays."""
    field = bench.spec.team_option
    return None if field is None else int(options.model_dump()[field])


def agent_spec(bench: Benchmark, name: str) -> AgentSpec:
    """The spec of agent ``name`` of ``bench``; an unknown name is an error that suggests the closest names."""
    spec = bench.agents.get(name)
    if spec is None:
        raise InvalidArgumentError(
            f"benchmark {bench.name!r} has no agent {name!r}{did_you_mean(name, bench.agents)} "
            f"(agents: {', '.join(bench.agents)})"
        )
    return spec


def model_agents(bench: Benchmark) -> list[str]:
    """The names of ``bench``'s agents that need ``--model``, in declaration order."""
    return [name for name, spec in bench.agents.items() if spec.needs_model]


def team_members(bench: Benchmark, agent: str, options: Options | None = None) -> list[str]:
    """The agent names in ``agent`` (one name, or a comma-separated team), checked against ``bench``'s specs.

    A team (two or more names) is refused unless every member is a team agent; with ``options``, a team must have
    exactly :func:`team_size` members (one name fills the team, so it is always accepted).
    """
    members = [part.strip() for part in agent.split(",")]
    if not all(members):
        raise InvalidArgumentError(f"--agents {agent!r}: expected agent names separated by commas, e.g. 'a,b'")
    specs = [agent_spec(bench, m) for m in members]
    if len(members) > 1:
        solo = [m for m, s in zip(members, specs, strict=True) if not s.team]
        if solo:
            raise InvalidArgumentError(
                f"benchmark {bench.name!r} runs one agent at a time, not a team of {len(members)} ({agent}); "
                f"agent {solo[0]!r} plays alone: pass a single --agent"
            )
        size = team_size(bench, options) if options is not None else None
        if size is not None and len(members) != size:
            setting = f" (--opt {bench.spec.team_option}={size})"
            raise InvalidArgumentError(
                f"benchmark {bench.name!r} plays teams of {size} agents{setting}, but --agents {agent!r} names "
                f"{len(members)}: name {size} agents, or one to fill the team, or change the team size"
            )
    return members


def canonical_team(bench: Benchmark, agent: str, options: Options) -> str:
    """``agent`` in canonical form: its members joined by commas, one team agent named alone filling the team as
    :func:`team_members` accepts it (``cobel`` on a two-agent run is ``cobel,cobel``), so two spellings of one team
    are one team in a run's key (:mod:`mindloop.bench.key`)."""
    members = team_members(bench, agent, options)
    size = team_size(bench, options)
    if size is not None and len(members) == 1 and bench.agents[members[0]].team:
        members = members * size
    return ",".join(members)


async def dispatch(bench: Benchmark, sample: Sample, ctx: AgentContext) -> Outcome:
    """Run ``sample`` with the agent (or team) named in ``ctx.agent`` through ``bench.agents``.

    A team is played by its first member's runner; an agent that needs a model and has none is an error.
    """
    members = team_members(bench, ctx.agent)
    specs = [bench.agents[m] for m in members]
    needy = next((m for m, s in zip(members, specs, strict=True) if s.needs_model), None)
    if needy is not None and ctx.model is None:
        raise InvalidArgumentError(f"agent {needy!r} of benchmark {bench.name!r} needs a model (--model)")
    return await specs[0].run(sample, ctx)


async def run_sample(bench: Benchmark, sample: Sample, ctx: AgentContext) -> Outcome:
    """Answer ``sample`` with the agent in ``ctx.agent`` (:func:`dispatch`, or the benchmark's own ``run`` where it
    defines one) and score the answer with its declaration's scorer, when it declares one."""
    custom = getattr(bench, "run", None)
    outcome = await (custom(sample, ctx) if custom is not None else dispatch(bench, sample, ctx))
    scorer = bench.spec.scorer
    if scorer is None or not outcome.output:
        return outcome
    return Outcome(outcome.output, scorer(sample, outcome), outcome.error)

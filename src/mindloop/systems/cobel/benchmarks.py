"""The ``cwah`` and ``tdw-mat`` benchmarks on the harness: one sample per episode, one team per run.

The team comes from ``ctx.agent`` as a comma-separated list (``"cobel,cobel"``; a single name means every agent
uses it); every agent kind is a team agent, and the runner refuses a team whose size is not ``n_agents`` before
the run starts. Samples are the fixed test sets (10 C-WAH, 24 TDW-MAT episodes) for seed 0; another seed shifts
every episode seed for a fresh set of the same shape. Options (:class:`TransportOptions`): ``n_agents`` (2–4,
default 2) and ``max_steps`` (stop every episode after that many environment steps, for a short run with a slow
model; the summary's ``deviation`` names it). Model-driven agents sample with the run's generation config (the
paper used temperature 0.7, top-p 1, 512 tokens: ``llm.PAPER_CONFIG``) and send a reply their reader refused back
to the model ``ctx.format_retries`` times (``--format-retries``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import Field

from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.bench.declaration import (
    BenchmarkSpec,
    Column,
    Generation,
    Headline,
    Metric,
    PaperTable,
    PresetEntry,
    ReferencePolicy,
    Row,
    SmallRun,
    Suite,
)
from mindloop.bench.references import agent_policy
from mindloop.bench.timeline import EpisodeTimeline, TimelineStep, joined
from mindloop.errors import InvalidArgumentError
from mindloop.systems.cobel.episode import AGENT_KINDS, MODEL_KINDS, arun_episode, episode_from_dict, parse_team
from mindloop.systems.cobel.llm import PAPER_CONFIG
from mindloop.systems.cobel.metrics import (
    _TABLES,
    CWAH_MAX_STEPS,
    CWAH_TASK_LABELS,
    TDW_TASK_LABELS,
    _rate,
    _steps,
    episode_records,
    summarize_episodes,
)
from mindloop.systems.cobel.worlds.cwah_spec import MAX_STEPS
from mindloop.systems.cobel.worlds.tdw_spec import FRAME_BUDGET
from mindloop.systems.cobel.worlds.testsets import cwah_test_set, tdw_test_set

COBEL_GLOSSARY = _TABLES.glossary
"""What the CoBel-World summary's keys mean (package data, ``data/tables.yaml``)."""


def transport_timeline(record: SampleRecord) -> EpisodeTimeline | None:
    """A CoBel-World episode step by step, at every step where something can be read: the messages the agents
    sent (who, the text, its tokens) and the sampled belief accuracy (how much of each agent's belief matched the
    world). The benchmark has no gold per step (the paper scores whole episodes), so steps are not judged; the
    episode is judged by its own rule: the team met the goal within the step limit (C-WAH; on TDW-MAT, every
    target transported). ``None`` for an episode with no output."""
    out = record.output or {}
    if "steps" not in out:
        return None
    by_step: defaultdict[int, dict[str, list[str]]] = defaultdict(lambda: {"said": [], "belief": []})
    for m in out.get("messages") or []:
        by_step[int(m["t"])]["said"].append(f"{m['sender']} says ({m.get('tokens', '?')} tokens): {m['text']}")
    for t, acc in out.get("belief_accuracy") or []:
        by_step[int(t)]["belief"].append(f"{100 * float(acc):.0f}%")
    steps = [
        TimelineStep(
            str(t),
            joined(parts["said"], "(no message)"),
            "—",
            joined([f"belief matches the world: {', '.join(parts['belief'])}" if parts["belief"] else ""], "—"),
        )
        for t, parts in sorted(by_step.items())
    ]
    tdw = (out.get("world") or record.sample.input.get("world")) == "tdw-mat"
    finished = bool(out.get("finished")) and not out.get("error") and record.status == "done"
    rate = out.get("transport_rate")
    verdict = finished or (tdw and isinstance(rate, int | float) and rate >= 1.0)
    rule = "No gold per step (the paper scores whole episodes); the episode is right when the team " + (
        "transported every target object within the frame budget (transport rate 1)."
        if tdw
        else "met the goal within the step limit (fewer steps is better)."
    )
    facts = [
        ("team", ", ".join(map(str, out.get("team") or ())) or "—"),
        ("task", str(out.get("task") or record.sample.group)),
        ("steps", f"{out.get('steps')}" + (f" (stopped at max_steps={out['cut_at']})" if out.get("cut_at") else "")),
        ("finished", "yes" if finished else "no"),
        ("messages", f"{out.get('n_messages', 0)} ({out.get('comm_tokens', 0)} tokens)"),
    ]
    if rate is not None:
        facts.append(("transport rate", f"{100 * float(rate):.0f}%"))
    if out.get("error"):
        facts.append(("error", str(out["error"])))
    return EpisodeTimeline(
        tuple(steps),
        verdict=verdict,
        rule=rule,
        title="Episode timeline (steps with a message or a belief sample)",
        columns=("step", "what the agents said", "gold decision", "belief accuracy"),
        facts=tuple(facts),
        reads=("messages", "belief_accuracy"),
    )


class TransportOptions(Options):
    """Options of ``cwah`` and ``tdw-mat`` (``n_agents`` is their declared team option)."""

    n_agents: int = Field(2, ge=2, le=4, description="agents per team (every episode is played by this many)")
    max_steps: int | None = Field(
        None,
        ge=1,
        description=(
            "stop each episode after this many environment steps, for a short run with a slow model (default: the "
            "paper's limit, 250 C-WAH steps or 3,000 TDW-MAT frames); a shorter run names the deviation in its "
            "summary"
        ),
    )


class _TransportBenchmark:
    name = ""
    description = ""
    options_model = TransportOptions
    spec: BenchmarkSpec

    def __init__(self) -> None:
        self.agents = {
            kind: AgentSpec(_TABLES.agent_kinds.get(kind, kind), self._play, needs_model=kind in MODEL_KINDS, team=True)
            for kind in AGENT_KINDS
        }

    paper_limit = ""
    """The paper's episode limit, in words (for the deviation note of a run with ``max_steps``)."""

    test_set: Callable[[int, int], list[Any]]
    """The world's test set for a team size and a base seed."""

    def _check_max_steps(self, max_steps: int) -> None:
        """Refuse a ``max_steps`` that could never shorten an episode (C-WAH stops at 250 steps anyway)."""

    def samples(self, n: int | None, seed: int, options: TransportOptions) -> list[Sample]:
        """The test set's episodes (the first ``n``), shifted by ``seed``; ``max_steps`` travels in each input."""
        if options.max_steps is not None:
            self._check_max_steps(options.max_steps)
        cut = {} if options.max_steps is None else {"max_steps": options.max_steps}
        return [
            Sample(f"{ep.task}-s{ep.seed}", {**ep.to_dict(), **cut}, group=ep.task)
            for ep in self.test_set(options.n_agents, seed)[:n]
        ]

    def deviation(self, max_steps: int | None) -> str | None:
        """The one-line note a run with ``max_steps`` carries (``None`` for the paper's limit)."""
        if max_steps is None:
            return None
        return (
            f"max_steps={max_steps}: every episode stopped after at most {max_steps} environment steps, below the "
            f"paper's limit of {self.paper_limit}; an episode stopped there counts as unfinished, so steps, "
            "finished and transport rate are not comparable with the paper's"
        )

    async def _play(self, sample: Sample, ctx: AgentContext) -> Outcome:
        episode = episode_from_dict(sample.input)
        team = parse_team(ctx.agent, episode.n_agents)
        max_steps = sample.input.get("max_steps")
        result = await arun_episode(
            episode,
            team,
            model=ctx.model,
            config=ctx.config if ctx.model else None,
            max_steps=max_steps,
            format_retries=ctx.format_retries,
        )
        record = result.to_dict()
        note = self.deviation(max_steps)
        if note is not None:
            record["deviation"] = note
        acc = [a for _, a in result.belief_accuracy]
        scores: dict[str, float] = {
            "finished": float(result.finished and result.error is None),
            "comm_tokens": float(result.comm_tokens),
            "messages": float(result.n_messages),
        }
        if acc:
            scores["belief_accuracy"] = sum(acc) / len(acc)
        scores["steps"] = _steps(record)  # the tables' rule: a failed or unfinished C-WAH episode counts 250 steps
        if result.world == "tdw-mat":
            scores["transport_rate"] = _rate(record)  # a failed episode transported nothing
        return Outcome(record, scores, error=result.error)

    timeline = staticmethod(transport_timeline)
    """See :func:`transport_timeline`."""

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """Average steps, tokens and messages per episode (and transport rate), per task too; failures count."""
        summary = summarize_episodes(episode_records(records, counts=True))
        cuts = {int(r.sample.input["max_steps"]) for r in records if r.sample.input.get("max_steps") is not None}
        if cuts:
            summary["max_steps"] = max(cuts)
            summary["deviation"] = self.deviation(max(cuts))
        return summary


_GENERATION = Generation(
    temperature=PAPER_CONFIG.temperature,
    max_tokens=PAPER_CONFIG.max_tokens,
    top_p=PAPER_CONFIG.top_p,
    source='CoBel-World section 4.1: "temperature 0.7, top-p 1, at most 512 tokens" (llm.PAPER_CONFIG)',
)
"""The paper's sampling settings; a run uses them unless --temperature / --max-tokens are given."""


def _no_communication(bench: Callable[[], _TransportBenchmark]) -> ReferencePolicy:
    """CoBel's trivial policy: a team that never talks (``--agent heuristic``), on ``bench``'s headline."""
    return agent_policy(
        "no communication",
        "a team of heuristic agents: each plans from its own beliefs and never sends a message (the same team as "
        "--agent heuristic)",
        bench,
        "heuristic",
    )


def _episode_metrics(steps_missing: Literal["zero"] | float, *extra: Metric) -> tuple[Metric, ...]:
    """The per-episode means both worlds report (failures count: an episode that never ran has ``steps_missing``
    steps, no tokens, no messages), then ``extra``."""
    return (
        Metric("finished", "finished", failed="zero", description="share of episodes that met the goal"),
        Metric(
            "avg_steps",
            "steps",
            "mean",
            missing=steps_missing,
            description="steps an episode took (C-WAH: the 250-step cap when it did not finish)",
        ),
        Metric("comm_tokens", "comm_tokens", "mean", description="communication tokens per episode"),
        Metric("messages", "messages", "mean", description="messages per episode"),
        *extra,
    )


_RESAMPLED = ("belief_accuracy", "by_task")
"""Belief accuracy pools every (step, accuracy) pair over episodes, and ``by_task`` (only with several tasks) holds
every mean per task: the bootstrap of the summary."""

_BOUNDED = {"max_steps": "30"}
"""A model team's quick run plays at most 30 steps an episode."""


def _spec(
    world: str,
    headline: Headline,
    metrics: tuple[Metric, ...],
    bench: Callable[[], _TransportBenchmark],
    order: int,
    quick: str,
    table: PaperTable,
) -> BenchmarkSpec:
    """What both worlds declare alike around their ``headline``, ``metrics``, suite ``order``, ``quick`` preset's
    note and paper ``table``: the resampled keys, the alias, the team option, the no-communication reference,
    the paper's sampling settings, the glossary and the small run."""
    return BenchmarkSpec(
        headline=headline,
        metrics=metrics,
        resampled=_RESAMPLED,
        aliases=(f"cobel-{world}",),
        team_option="n_agents",
        references=(_no_communication(bench),),
        generation=_GENERATION,
        suite=Suite(order=order, presets={"quick": PresetEntry(2, quick, with_model=_BOUNDED)}),
        paper_tables=(table,),
        glossary=COBEL_GLOSSARY,
        small=SmallRun(n=1, options=(("max_steps", "20"),)),
    )


class CwahBenchmark(_TransportBenchmark):
    """C-WAH-style household tasks (Table 6): average steps to finish, communication tokens, messages."""

    name = "cwah"
    description = "C-WAH-style household collaboration (10 episodes): avg steps, comm tokens, messages"
    spec = _spec(
        "cwah",
        Headline("avg_steps", higher_is_better=False),  # average steps to finish (fewer is better)
        _episode_metrics(float(CWAH_MAX_STEPS)),
        lambda: CwahBenchmark(),
        70,
        "2 episodes; a model team plays at most 30 steps each (a full episode is up to 250 steps, a model call or "
        "more per agent per step)",
        PaperTable(
            "cwah",
            "CoBel-World",
            "Table 2 (C-WAH, symbolic observation): average steps (↓) and communication tokens (↓) per episode",
            "cwah",
            (
                Column("Average Step (↓)", ("avg_steps",), digits=1),
                Column("Communication Cost (↓)", ("comm_tokens",), digits=0),
                Column("Finished (%)", ("finished",), scale=100, digits=0),
                Column("n", ("n",), digits=0),
            ),
            (
                *(Row(label, ("by_task", key), filled_by="paper") for key, label in CWAH_TASK_LABELS.items()),
                Row("Symbolic Average ({method})"),
            ),
            "An unfinished episode counts 250 steps. Per-task rows appear once a run has episodes of two tasks "
            "(the quick preset's 2 episodes may share one: --preset paper plays every task).",
            nav="C-WAH",
        ),
    )
    paper_limit = f"{MAX_STEPS} steps"

    def _check_max_steps(self, max_steps: int) -> None:
        if max_steps > MAX_STEPS:
            raise InvalidArgumentError(
                f"max_steps={max_steps} is above C-WAH's limit of {MAX_STEPS} steps: give {MAX_STEPS} or fewer"
            )

    test_set = staticmethod(cwah_test_set)


class TdwMatBenchmark(_TransportBenchmark):
    """TDW-MAT-style transport (Table 5): transport rate within 3,000 frames, communication tokens, messages."""

    name = "tdw-mat"
    description = "TDW-MAT-style multi-agent transport (24 episodes): transport rate, comm tokens, messages"
    spec = _spec(
        "tdw-mat",
        Headline("transport_rate"),  # share of target objects transported
        _episode_metrics(
            "zero",
            Metric(
                "transport_rate", "transport_rate", "mean", failed="zero", description="share of targets transported"
            ),
        ),
        lambda: TdwMatBenchmark(),
        80,
        "2 episodes; a model team plays at most 30 steps each (a full episode runs to 3,000 frames)",
        PaperTable(
            "tdw-mat",
            "CoBel-World",
            "Table 1 (TDW-MAT): transport rate (↑, %) and communication tokens (↓) per episode",
            "tdw-mat",
            (
                Column("Transport Rate (↑)", ("transport_rate",), scale=100, digits=2),
                Column("Communication Cost (↓)", ("comm_tokens",), digits=0),
                Column("Average Step", ("avg_steps",), digits=1),
                Column("n", ("n",), digits=0),
            ),
            (
                *(Row(t.capitalize(), ("by_task", t), filled_by="paper") for t in TDW_TASK_LABELS),
                Row("Total Average ({method})"),
            ),
            "Per-category rows appear once a run has episodes of two categories (the quick preset's 2 episodes may "
            "share one: --preset paper plays every category).",
            nav="TDW-MAT",
        ),
    )
    paper_limit = f"{FRAME_BUDGET:,} frames (no step limit of its own)"
    test_set = staticmethod(tdw_test_set)

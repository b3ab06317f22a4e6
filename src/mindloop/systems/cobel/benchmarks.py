"""The ``cwah`` and ``tdw-mat`` benchmarks on the harness: one sample per episode, one team per run.

The team comes from ``ctx.agent`` as a comma-separated list (``"cobel,cobel"``; a single name means every agent
uses it); every agent kind is a team agent, and the runner refuses a team whose size is not ``n_agents`` before
the run starts. Samples are the fixed test sets (10 C-WAH, 24 TDW-MAT episodes) for seed 0; another seed shifts
every episode seed for a fresh set of the same shape. Options (:class:`TransportOptions`): ``n_agents`` (2–4,
default 2). Model-driven agents sample with the run's generation config (the paper used temperature 0.7, top-p 1,
512 tokens: ``llm.PAPER_CONFIG``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import Field

from mindloop.bench.agents import dispatch
from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.systems.cobel.episode import AGENT_KINDS, MODEL_KINDS, arun_episode, episode_from_dict, parse_team
from mindloop.systems.cobel.llm import PAPER_CONFIG
from mindloop.systems.cobel.metrics import summarize_episodes
from mindloop.systems.cobel.worlds.cwah import MAX_STEPS
from mindloop.systems.cobel.worlds.testsets import cwah_test_set, tdw_test_set

__all__ = ["CwahBenchmark", "TdwMatBenchmark", "TransportOptions"]

_KIND_DESCRIPTIONS = {
    "cobel": "CoBel-World: predicts partners' intents from its beliefs, talks only on miscoordination",
    "coela": "CoELA-style: after every planning step sends what it knows and its plan",
    "capo": "CaPo-style: a three-round plan discussion on progress events",
    "heuristic": "plans from its own beliefs and never talks (MHP/RHP-like)",
    "cobel-llm": "CoBel-World with a chat model writing beliefs, plans and messages",
}


class TransportOptions(Options):
    """Options of ``cwah`` and ``tdw-mat``."""

    team_option: ClassVar[str | None] = "n_agents"

    n_agents: int = Field(2, ge=2, le=4, description="agents per team (every episode is played by this many)")


class _TransportBenchmark:
    name = ""
    description = ""
    options_model = TransportOptions
    # CoBel-World section 4.1: "temperature 0.7, top-p 1, at most 512 tokens" (llm.PAPER_CONFIG); a run uses
    # these unless --temperature / --max-tokens are given (mindloop.bench.generation)
    generation_defaults: ClassVar[dict[str, Any]] = {
        "temperature": PAPER_CONFIG.temperature,
        "max_tokens": PAPER_CONFIG.max_tokens,
        "top_p": PAPER_CONFIG.top_p,
    }

    def __init__(self) -> None:
        self.agents = {
            kind: AgentSpec(_KIND_DESCRIPTIONS.get(kind, kind), self._play, needs_model=kind in MODEL_KINDS, team=True)
            for kind in AGENT_KINDS
        }

    def _episodes(self, n_agents: int, seed: int) -> list[Any]:
        raise NotImplementedError

    def samples(self, n: int | None, seed: int, options: TransportOptions) -> list[Sample]:
        """The test set's episodes (the first ``n``), shifted by ``seed``."""
        eps = self._episodes(options.n_agents, seed)
        if n is not None:
            eps = eps[:n]
        out = []
        for ep in eps:
            data = ep.to_dict()
            out.append(Sample(f"{ep.task}-s{ep.seed}", data, group=ep.task))
        return out

    async def run(self, sample: Sample, ctx: AgentContext) -> Outcome:
        """Play the episode with the team in ``ctx.agent``; a model failure is a recorded, failed outcome."""
        return await dispatch(self, sample, ctx)

    async def _play(self, sample: Sample, ctx: AgentContext) -> Outcome:
        episode = episode_from_dict(sample.input)
        team = parse_team(ctx.agent, episode.n_agents)
        result = await arun_episode(episode, team, model=ctx.model, config=ctx.config if ctx.model else None)
        record = result.to_dict()
        acc = [a for _, a in result.belief_accuracy]
        scores: dict[str, float] = {
            "finished": float(result.finished and result.error is None),
            "comm_tokens": float(result.comm_tokens),
            "messages": float(result.n_messages),
        }
        if acc:
            scores["belief_accuracy"] = sum(acc) / len(acc)
        if result.world == "cwah":
            scores["steps"] = float(result.steps if result.finished and result.error is None else MAX_STEPS)
        else:
            scores["steps"] = float(result.steps)
            scores["transport_rate"] = 0.0 if result.error else float(result.transport_rate or 0.0)
        return Outcome(record, scores, error=result.error)

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """Average steps, tokens and messages per episode (and transport rate), per task too; failures count."""
        episodes = []
        for r in records:
            out = dict(r.output or {})
            out.setdefault("world", r.sample.input.get("world"))
            out.setdefault("task", r.sample.group)
            if r.status == "failed" or r.error:
                out["error"] = r.error or "failed"
                out.setdefault("comm_tokens", r.scores.get("comm_tokens", 0.0))
                out.setdefault("n_messages", r.scores.get("messages", 0.0))
            episodes.append(out)
        return summarize_episodes(episodes)


class CwahBenchmark(_TransportBenchmark):
    """C-WAH-style household tasks (Table 6): average steps to finish, communication tokens, messages."""

    name = "cwah"
    aliases = ("cobel-cwah",)
    description = "C-WAH-style household collaboration (10 episodes): avg steps, comm tokens, messages"

    def _episodes(self, n_agents: int, seed: int) -> list[Any]:
        return list(cwah_test_set(n_agents, seed))


class TdwMatBenchmark(_TransportBenchmark):
    """TDW-MAT-style transport (Table 5): transport rate within 3,000 frames, communication tokens, messages."""

    name = "tdw-mat"
    aliases = ("cobel-tdw-mat",)
    description = "TDW-MAT-style multi-agent transport (24 episodes): transport rate, comm tokens, messages"

    def _episodes(self, n_agents: int, seed: int) -> list[Any]:
        return list(tdw_test_set(n_agents, seed))

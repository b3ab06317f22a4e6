"""Run one transport episode with a team and record what the metrics need.

A team is a sequence of agent kinds, one per agent (``("cobel", "cobel")``); :func:`parse_team` reads the
``"cobel,cobel"`` strings the command line passes, and a single name means the whole team uses it. The result
records steps (C-WAH) or frames and the transport rate (TDW-MAT), every message with its token count — under the
model's own tokenizer when a model wrote it and the server reported usage
(:func:`~mindloop.systems.cobel.llm.message_tokens`), else under the offline stand-in — and, every few steps,
how many of each agent's first-order beliefs about each partner match what that partner actually believes
(``belief_accuracy``).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from mindloop.beliefs import Utterance
from mindloop.errors import SETUP_ERRORS, InvalidArgumentError, MindloopError
from mindloop.models.base import ChatModel, GenerationConfig, run_sync
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES
from mindloop.models.tokens import TOKENIZER_NAME, count_tokens
from mindloop.systems.cobel.cwah_domain import CwahDomain
from mindloop.systems.cobel.mind import Mind
from mindloop.systems.cobel.tdw_domain import TdwDomain
from mindloop.systems.cobel.team import STYLES, CollabAgent
from mindloop.systems.cobel.worlds.cwah import CwahEnv
from mindloop.systems.cobel.worlds.cwah_spec import MAX_STEPS, CwahEpisode
from mindloop.systems.cobel.worlds.tdw import TdwEnv
from mindloop.systems.cobel.worlds.tdw_spec import FRAME_BUDGET, TdwEpisode

MODEL_KINDS = ("cobel-llm", "cobel-llm-no-sbr", "cobel-llm-no-bbc", "coela-llm", "capo-llm")
"""Agent kinds that need a model: CoBel-World, its two ablations (paper Table 3) and the two LLM baselines."""

MODEL_TOKENIZER = "model"
""":attr:`MessageRecord.tokenizer` of a message counted with the model's own tokenizer (the server's usage)."""

AGENT_KINDS = (*STYLES, *MODEL_KINDS)
"""Every agent kind a team may use."""


def parse_team(spec: str | Sequence[str], n_agents: int = 2) -> tuple[str, ...]:
    """``"cobel,cobel"`` → ``("cobel", "cobel")``; one name fills the team; unknown names are an error."""
    names = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else [str(s).strip() for s in spec]
    names = [n for n in names if n]
    if not names:
        raise InvalidArgumentError("a team needs at least one agent kind, e.g. 'cobel,cobel'")
    for n in names:
        if n not in AGENT_KINDS:
            raise InvalidArgumentError(f"unknown agent kind {n!r} (known: {', '.join(AGENT_KINDS)})")
    if len(names) == 1:
        names = names * n_agents
    if len(names) != n_agents:
        raise InvalidArgumentError(f"team {','.join(names)!r} has {len(names)} agents but the episode has {n_agents}")
    return tuple(names)


def episode_from_dict(data: Mapping[str, Any]) -> CwahEpisode | TdwEpisode:
    """A C-WAH or TDW-MAT episode from its ``to_dict`` form (``world`` says which)."""
    world = data.get("world")
    for cls in (CwahEpisode, TdwEpisode):
        if world == cls.WORLD:
            return cls.from_dict(data)
    raise InvalidArgumentError(f"unknown transport world {world!r} (known: cwah, tdw-mat)")


@dataclass(frozen=True)
class MessageRecord:
    """A message as the env delivered it, with its token count."""

    t: int
    sender: str
    text: str
    tokens: int
    tokenizer: str = TOKENIZER_NAME
    """What counted ``tokens``: :data:`MODEL_TOKENIZER` (the server's usage for the reply that wrote it) or the
    offline stand-in's name."""


@dataclass(frozen=True)
class EpisodeResult:
    """What one episode produced; ``error`` is set when a model-driven agent failed (the episode stops)."""

    world: str
    task: str
    team: tuple[str, ...]
    steps: int
    finished: bool
    transport_rate: float | None
    frames: int | None
    messages: tuple[MessageRecord, ...]
    belief_accuracy: tuple[tuple[int, float], ...]
    error: str | None = None
    cut_at: int | None = None
    """The ``max_steps`` that stopped the episode before the paper's limit (``None``: it ran to the end)."""

    @property
    def comm_tokens(self) -> int:
        """Tokens in all messages of the episode."""
        return sum(m.tokens for m in self.messages)

    @property
    def n_messages(self) -> int:
        """Number of messages sent."""
        return len(self.messages)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (messages included)."""
        out = asdict(self)
        out["comm_tokens"] = self.comm_tokens
        out["n_messages"] = self.n_messages
        return out


_DOMAINS = {"cwah": CwahDomain, "tdw-mat": TdwDomain}
"""Each world's domain class (what its agents know of it)."""


def make_agent(
    kind: str,
    name: str,
    team: tuple[str, ...],
    world: str,
    model: ChatModel | None = None,
    config: GenerationConfig | None = None,
    *,
    format_retries: int = DEFAULT_FORMAT_RETRIES,
) -> Any:
    """An agent of ``kind`` called ``name`` for ``world`` (``cwah`` or ``tdw-mat``)."""
    if world not in _DOMAINS:
        raise InvalidArgumentError(f"unknown transport world {world!r}")
    domain: Any = _DOMAINS[world]()
    if kind in STYLES:
        return CollabAgent(name, team, domain, kind)
    if kind in MODEL_KINDS:
        if model is None:
            raise InvalidArgumentError(f"agent kind {kind!r} needs a model (--model)")
        if kind.startswith("cobel-llm"):
            from mindloop.systems.cobel.llm import LlmCobelAgent

            return LlmCobelAgent(
                name,
                team,
                domain,
                model,
                config,
                format_retries=format_retries,
                sbr=kind != "cobel-llm-no-sbr",
                bbc=kind != "cobel-llm-no-bbc",
            )
        from mindloop.systems.cobel.baselines import LlmCapoAgent, LlmCoelaAgent

        cls = LlmCoelaAgent if kind == "coela-llm" else LlmCapoAgent
        return cls(name, team, domain, model, config, format_retries=format_retries)
    raise InvalidArgumentError(f"unknown agent kind {kind!r} (known: {', '.join(AGENT_KINDS)})")


def first_order_accuracy(minds: Mapping[str, Mind]) -> float | None:
    """Share of first-order beliefs ``(i, j)`` that equal ``j``'s own belief, over all ordered pairs.

    Plans are left out (they are intents, not states). ``None`` when no agent holds a first-order belief.
    """
    right = total = 0
    for i, mi in minds.items():
        for j, mj in minds.items():
            if i == j:
                continue
            for b in mi.tracker.store.beliefs((i, j)):
                if b.fact.relation in ("INTENT", "LIKELY_INTENT"):
                    continue
                total += 1
                right += mj.tracker.store.value((j,), b.fact.subject, b.fact.relation) == b.fact.value
    return right / total if total else None


async def arun_episode(
    episode: CwahEpisode | TdwEpisode,
    team: str | Sequence[str],
    *,
    model: ChatModel | None = None,
    config: GenerationConfig | None = None,
    sample_every: int | None = None,
    max_steps: int | None = None,
    format_retries: int = DEFAULT_FORMAT_RETRIES,
    agents_out: dict[str, Any] | None = None,
) -> EpisodeResult:
    """Play ``episode`` with ``team`` to the end (goal met or budget spent) and record the result.

    A :class:`~mindloop.errors.MindloopError` from a model-driven agent (malformed output, a failed call) ends
    the episode and is recorded in ``error`` with the steps so far; it is never scored as a success.
    ``max_steps`` stops the episode after that many environment steps (a short run with a slow model; ``None``:
    the paper's limit, 250 C-WAH steps or 3,000 TDW-MAT frames); a stopped episode is unfinished, and
    ``cut_at`` says where it stopped. ``format_retries`` is how many times a model-driven agent sends a reply its
    parser refused back to the model (:func:`mindloop.models.replies.ask`). ``agents_out``, when given, receives
    the agents by name (their minds hold the beliefs at the end).
    """
    if max_steps is not None and max_steps < 1:
        raise InvalidArgumentError(f"max_steps must be at least 1, got {max_steps}")
    kinds = parse_team(team, episode.n_agents)
    cwah = isinstance(episode, CwahEpisode)
    world = "cwah" if cwah else "tdw-mat"
    env: Any = CwahEnv(episode) if cwah else TdwEnv(episode)
    every = sample_every or (5 if cwah else 100)
    names = tuple(env.possible_agents)
    agents = {
        n: make_agent(k, n, names, world, model, config, format_retries=format_retries)
        for n, k in zip(names, kinds, strict=True)
    }
    if agents_out is not None:
        agents_out.update(agents)
    obs, _ = env.reset()
    messages: list[MessageRecord] = []
    accuracy: list[tuple[int, float]] = []
    error: str | None = None
    next_sample = 0
    clock = 0
    steps = 0
    finished = False
    cut_at: int | None = None
    while env.agents:
        if max_steps is not None and steps >= max_steps:
            cut_at = max_steps
            break
        actions = {}
        try:
            for n in env.agents:
                agent = agents[n]
                result = agent.act(obs[n])
                if inspect.isawaitable(result):
                    result = await result
                actions[n] = result
        except SETUP_ERRORS:
            raise
        except MindloopError as exc:
            error = f"{type(exc).__name__}: {exc}"
            break
        obs, _, terms, _, _ = env.step(actions)
        steps += 1
        clock = env.t if cwah else env.frame
        for ev in env.last_events:
            if isinstance(ev, Utterance):
                counted = getattr(agents.get(ev.speaker), "token_counts", {}).get(ev.text)
                by = (count_tokens(ev.text), TOKENIZER_NAME) if counted is None else (int(counted), MODEL_TOKENIZER)
                messages.append(MessageRecord(ev.t, ev.speaker, ev.text, *by))
        if clock >= next_sample:
            acc = first_order_accuracy({n: a.mind for n, a in agents.items()})
            if acc is not None:
                accuracy.append((clock, round(acc, 4)))
            next_sample = clock + every
        finished = any(terms.values())
    if cwah:
        n_steps, rate, frames = (env.t if finished else MAX_STEPS), None, None
    else:
        n_steps, rate = steps, env.transport_rate()
        frames = env.frame if finished or cut_at is not None else FRAME_BUDGET
    return EpisodeResult(
        world, episode.task, kinds, n_steps, finished, rate, frames, tuple(messages), tuple(accuracy), error, cut_at
    )


def run_episode(
    episode: CwahEpisode | TdwEpisode, team: str | Sequence[str], *, sample_every: int | None = None
) -> EpisodeResult:
    """Synchronous :func:`arun_episode` for symbolic teams (no model)."""
    return run_episode_with_agents(episode, team, sample_every=sample_every)[0]


def run_episode_with_agents(
    episode: CwahEpisode | TdwEpisode, team: str | Sequence[str], *, sample_every: int | None = None
) -> tuple[EpisodeResult, dict[str, Any]]:
    """:func:`run_episode`, also returning the agents by name (their minds hold the beliefs at the end)."""
    agents: dict[str, Any] = {}
    return run_sync(arun_episode(episode, team, sample_every=sample_every, agents_out=agents)), agents

"""Building blocks for the reference policies a benchmark declares (DESIGN.md section 8).

A reference policy needs no model and is scored on the run's own samples, on the headline metric's scale and
direction (:class:`~mindloop.bench.declaration.ReferencePolicy`). Besides :func:`chance_policy` and
:func:`oracle_policy` (:mod:`mindloop.bench.declaration`), a benchmark builds them here from

* :func:`best_constant_policy`: one answer per question type for every item, the most frequent gold answer of a
  train split (or, with none, of the evaluated items themselves: then it is *optimistic*);
* :func:`outcome_policy`: a function that answers and scores one sample the way the benchmark does (an episode
  policy replays the simulator), its outcomes summarised by the benchmark's own summary;
* :func:`agent_policy`: one of the benchmark's own agents that needs no model (never intervene, a team that never
  talks), run on every sample.

>>> from mindloop.bench.records import Sample
>>> samples = [Sample(f"q{i}", {}, "t", target=a, choices=("x", "y")) for i, a in enumerate("xxy")]
>>> round(best_constant_policy().value(samples), 4)
0.6667
>>> best_constant_policy().optimistic
True
"""

from __future__ import annotations

import functools
import math
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Hashable, Sequence

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext, Benchmark, Outcome
from mindloop.bench.declaration import ReferenceKind, ReferencePolicy, chance_policy, headline_value, oracle_policy
from mindloop.bench.executors import sample_seed
from mindloop.bench.records import Sample, SampleRecord
from mindloop.bench.scoring import run_metrics
from mindloop.errors import MindloopError
from mindloop.models.base import run_sync

__all__ = [
    "agent_policy",
    "best_constant_policy",
    "chance_policy",
    "choice_chance",
    "oracle_policy",
    "outcome_policy",
    "policy_headline",
    "policy_records",
]


def choice_chance() -> Callable[[Sample], int]:
    """For :func:`chance_policy`: the number of distinct choices a sample offers, 0 (left out) when it offers none
    or its target is not among them (no guess among them could be right)."""

    def count(sample: Sample) -> int:
        distinct = list(dict.fromkeys(str(c) for c in sample.choices))
        return len(distinct) if distinct and str(sample.target) in distinct else 0

    return count


# -- best constant answer -----------------------------------------------------------------------------------------


def _candidates(sample: Sample) -> list[Hashable]:
    """What a constant answer could be that this sample's target matches: its text, and its choice's position."""
    gold = sample.target
    if gold is None:
        return []
    out: list[Hashable] = [("text", str(gold).strip().lower())]
    choices = [str(c) for c in sample.choices]
    if str(gold) in choices:
        out.append(("position", choices.index(str(gold))))
    return out


def best_constant_policy(
    train: Callable[[], Sequence[Sample]] | None = None,
    *,
    group: Callable[[Sample], str] = lambda s: s.group,
    scale: float = 1.0,
    name: str = "best constant",
    split: str = "the train split",
) -> ReferencePolicy:
    """Answering every question of a type with the answer that is most often right on ``train`` (the benchmark's
    train split, a function so it is read only when a run needs it): a gold text, or a choice's position ("always
    the first choice"), whichever is right more often. Without ``train`` it is fitted on the evaluated items
    themselves and marked optimistic. The value is the share of evaluated items it answers right (times ``scale``);
    a type the train split lacks takes the answer best over the whole train split."""

    def fit(items: Sequence[Sample]) -> tuple[dict[str, Hashable], Hashable | None]:
        per_type: dict[str, Counter[Hashable]] = defaultdict(Counter)
        overall: Counter[Hashable] = Counter()
        for s in items:
            for c in _candidates(s):
                per_type[group(s)][c] += 1
                overall[c] += 1
        # most_common(1): the most frequent candidate, ties to the one first counted (deterministic for a fixed
        # sample order)
        best = {t: counts.most_common(1)[0][0] for t, counts in per_type.items()}
        return best, overall.most_common(1)[0][0] if overall else None

    def value(samples: Sequence[Sample]) -> float | None:
        scored = [s for s in samples if s.target is not None]
        if not scored:
            return None
        best, fallback = fit(train() if train is not None else scored)
        hits = [best.get(group(s), fallback) in _candidates(s) for s in scored]
        return scale * sum(hits) / len(hits)

    where = f"fitted on {split}" if train is not None else "fitted on the evaluated items themselves (optimistic)"
    return ReferencePolicy(
        name,
        f"answers every question of a type with its most frequent gold answer (a text, or a choice's position), "
        f"{where}",
        value,
        kind="constant",
        optimistic=train is None,
        none_reason="no evaluated item has a gold answer",
    )


# -- policies scored by the benchmark's own summary --------------------------------------------------------------


Answer = Callable[[Sample], "Outcome | Awaitable[Outcome]"]
"""Answers and scores one sample (a coroutine for a policy that runs the benchmark's own async code)."""


def policy_records(samples: Sequence[Sample], answer: Answer) -> list[SampleRecord]:
    """The records a policy leaves on ``samples``, as a run would store them (an outcome with an error is failed)."""
    out = []
    for i, sample in enumerate(samples):
        result = answer(sample)
        outcome = run_sync(result) if not isinstance(result, Outcome) else result
        status = "failed" if outcome.error else "done"
        out.append(SampleRecord(i, sample, status, outcome.output, outcome.scores, outcome.error, [], 0.0))
    return out


def policy_headline(bench: Benchmark, records: Sequence[SampleRecord]) -> float | None:
    """The headline the benchmark's summary gives a policy's ``records`` (``None``: none, or not finite)."""
    value = headline_value(bench.spec.headline, run_metrics(bench, records)) if records else None
    return value if value is None or math.isfinite(value) else None


def outcome_policy(
    name: str,
    description: str,
    bench: Callable[[], Benchmark],
    answer: Callable[[Benchmark, Sample], Outcome | Awaitable[Outcome]],
    *,
    kind: ReferenceKind = "trivial",
    optimistic: bool = False,
    none_reason: str = "",
) -> ReferencePolicy:
    """A policy that answers each sample with ``answer(benchmark, sample)`` (an :class:`Outcome` with the
    benchmark's per-sample scores), its headline read from the benchmark's own summary of those outcomes.
    ``bench`` makes the benchmark (it is called once, when a run first needs the value: a benchmark declares its
    policies in its class body, before the class exists)."""
    make = functools.cache(bench)

    def value(samples: Sequence[Sample]) -> float | None:
        b = make()
        return policy_headline(b, policy_records(samples, lambda s: answer(b, s)))

    return ReferencePolicy(name, description, value, kind=kind, optimistic=optimistic, none_reason=none_reason)


def agent_policy(
    name: str,
    description: str,
    bench: Callable[[], Benchmark],
    agent: str,
    *,
    kind: ReferenceKind = "trivial",
    none_reason: str = "",
) -> ReferencePolicy:
    """The benchmark's own agent ``agent`` (one that needs no model) run on every sample with the seed a run of
    seed 0 gives it: the value is the headline ``mindloop bench run BENCH --agent AGENT`` prints on the same samples
    (a sample it fails on counts as the run counts a failed sample)."""

    async def answer(b: Benchmark, sample: Sample) -> Outcome:
        try:
            return await run_sample(b, sample, AgentContext(agent, seed=sample_seed(0, sample.id)))
        except MindloopError as exc:
            return Outcome(output={}, error=f"{type(exc).__name__}: {exc}")

    return outcome_policy(name, description, bench, answer, kind=kind, none_reason=none_reason)

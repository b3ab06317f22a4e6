"""The ``smoke`` benchmark: one tiny model call per sample, to check an endpoint end to end and time the harness.

Each sample asks the model to repeat a word; the reply is correct when it contains that word. With
``--model scripted/echo`` every reply is correct and nearly free, so the run measures the harness itself.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.bench.declaration import BenchmarkSpec, Headline, Metric, ReferencePolicy, SmallRun, Suite, oracle_policy
from mindloop.models.base import message
from mindloop.models.replies import ask

_WORDS = ("apple", "basket", "candle", "drawer", "envelope", "faucet", "garden", "hammer", "kettle", "ladder")
_DEFAULT_N = 100


def _prompt(word: str) -> str:
    return f"Reply with exactly this word and nothing else: {word}"


def _echo_value(samples: Sequence[Sample]) -> float | None:
    """The accuracy of replying with the prompt itself (scored as a model's reply is)."""
    hits = [float(s.input["word"].casefold() in _prompt(s.input["word"]).casefold()) for s in samples]
    return sum(hits) / len(hits) if hits else None


class SmokeBenchmark:
    """Repeat-a-word prompts: accuracy 1.0 means the endpoint, the client and the store all work."""

    name = "smoke"
    description = "repeat-a-word prompts, one call each: checks a model endpoint and times the harness"
    options_model = Options  # no options
    spec = BenchmarkSpec(
        headline=Headline("accuracy"),
        metrics=(Metric("accuracy", "correct", description="share of replies that contain their word"),),
        references=(
            ReferencePolicy(
                "empty reply",
                "replies with nothing",
                lambda samples: 0.0 if samples else None,
                none_reason="no samples",
            ),
            ReferencePolicy(
                "echo the prompt",
                "replies with the prompt itself, which holds the word: smoke checks an endpoint, not a skill, so a "
                "policy that needs no model reaches the ceiling",
                lambda samples: _echo_value(samples),
                none_reason="no samples",
            ),
            oracle_policy(),
        ),
        suite=Suite(
            excluded="an endpoint and harness check, not a paper's benchmark (name it with --only to include it)"
        ),
        small=SmallRun(n=3, model="scripted/echo"),
    )

    def __init__(self) -> None:
        self.agents = {"model": AgentSpec("the model repeats the word", self._model, needs_model=True)}

    def samples(self, n: int | None, seed: int, options: Options) -> list[Sample]:
        """``n`` (default 100) seeded words to repeat."""
        rng = random.Random(seed)
        words = [f"{rng.choice(_WORDS)}-{rng.randrange(10_000):04d}" for _ in range(_DEFAULT_N if n is None else n)]
        return [Sample(f"s{i:05d}", {"word": w}, group=w.split("-")[0]) for i, w in enumerate(words)]

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        assert ctx.model is not None  # dispatch refuses a model agent without a model
        word = sample.input["word"]
        prompt = [message("user", _prompt(word))]
        # the run's --temperature and --max-tokens; any reply is read (whether it holds the word is the score),
        # so a smoke call never needs a format retry
        reply = (await ask(ctx.model, prompt, str, ctx.config, retries=0)).completion
        # models change case freely ("Garden-6890" for "garden-6890"); the word is what is checked
        return Outcome({"reply": reply.text}, {"correct": float(word.casefold() in reply.text.casefold())})

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """Nothing beyond the declared accuracy (the share of replies containing their word; failures count as
        wrong)."""
        return {}

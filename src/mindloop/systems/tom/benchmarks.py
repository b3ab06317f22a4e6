"""The ``tomi`` and ``hitom`` benchmarks: false-belief questions answered by the tracker or by a model.

Each sample is one question with its story. The ``symbolic`` agent tracks the story with the belief tracker
(trust-everyone for ToMi, Hi-ToM's exit-order trust for Hi-ToM) and reads the answer from the store; the
``model`` agent asks a model with :mod:`mindloop.systems.tom.agents`'s prompt and parses its reply. A reply that
names no choice unambiguously is a failed sample (scored incorrect) that keeps the reply and the reason.

Options (:class:`ToMOptions`): ``data`` — a numbered-line file to read instead of the default set (``--data``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import Field

from mindloop.bench.agents import dispatch
from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.errors import InvalidArgumentError
from mindloop.systems.tom.agents import build_prompt, parse_answer
from mindloop.worlds.stories.generate import generate_tomi
from mindloop.worlds.stories.tomi import (
    HITOM_TYPES,
    TOMI_TYPES,
    Example,
    StoryFormat,
    answer_question,
    parse_question,
    read_story_file,
    story_containers,
    track_story,
)

__all__ = ["HiToMBenchmark", "ToMOptions", "ToMiBenchmark", "bundled_hitom_path", "tom_samples"]

DEFAULT_GENERATED = 1000
"""Questions in the generated ToMi set when ``--n`` is not given."""


class ToMOptions(Options):
    """Options of ``tomi`` and ``hitom``."""

    data: str | None = Field(
        None,
        description="a story file in the numbered-line format to read instead of the default set (--data PATH)",
    )


def bundled_hitom_path() -> Path:
    """The Hi-ToM development split shipped with mindloop (240 questions, Apache-2.0)."""
    return Path(str(resources.files("mindloop.systems.tom.data") / "hitom" / "hitom_dev.txt"))


def _sample(
    index: int, fmt: StoryFormat, story: Sequence[str], question: str, answer: str, qtype: str, extra: Mapping[str, Any]
) -> Sample:
    numbered = [(i, s) for i, s in enumerate(story, 1)]
    return Sample(
        id=f"q{index:05d}",
        input={
            "format": fmt,
            "story": list(story),
            "question": question,
            "answer": answer,
            "type": qtype,
            "choices": list(story_containers(numbered)),
            **extra,
        },
        group=qtype,
    )


def _from_examples(
    fmt: StoryFormat, examples: Sequence[Example], meta: Sequence[Mapping[str, Any]] | None
) -> list[Sample]:
    out = []
    for i, ex in enumerate(examples):
        extra: dict[str, Any] = {"source": f"{ex.source}:{ex.line}"}
        if meta is not None:
            extra.update({k: meta[i][k] for k in ("deception", "length") if k in meta[i]})
        story = [s for _, s in ex.sentences]
        out.append(_sample(i, fmt, story, ex.question.text, ex.question.answer, ex.question.qtype, extra))
    return out


def tom_samples(fmt: StoryFormat, n: int | None, seed: int, data: str | None) -> list[Sample]:
    """Samples from a numbered-line file (first ``n``), the bundled Hi-ToM split, or a generated ToMi set."""
    meta = None
    if data is None and fmt == "hitom":
        path = bundled_hitom_path()
        meta = json.loads(path.with_suffix(".meta.json").read_text(encoding="utf-8"))
        data = str(path)
    if data is not None:
        if not Path(data).is_file():
            raise InvalidArgumentError(f"--data {data!r}: no such file")
        _, examples = read_story_file(data, fmt)
        return _from_examples(fmt, examples[:n] if n is not None else examples, meta)
    generated = generate_tomi(DEFAULT_GENERATED if n is None else n, seed=seed)
    return [_sample(i, fmt, g.sentences, g.question, g.answer, g.qtype, {}) for i, g in enumerate(generated)]


class _ToMBenchmark:
    """Shared by ToMi and Hi-ToM: they differ only in format, data and question types."""

    name: str
    description: str
    fmt: StoryFormat
    types: tuple[str, ...]
    options_model = ToMOptions

    def __init__(self) -> None:
        self.agents = {
            "symbolic": AgentSpec(
                "the belief tracker follows the story and reads the answer from its store", self._symbolic
            ),
            "model": AgentSpec("a chat model answers the multiple-choice prompt", self._model, needs_model=True),
        }

    def samples(self, n: int | None, seed: int, options: ToMOptions) -> list[Sample]:
        """The first ``n`` questions of ``data`` or of the default set (generated ToMi, bundled Hi-ToM)."""
        return tom_samples(self.fmt, n, seed, options.data)

    async def run(self, sample: Sample, ctx: AgentContext) -> Outcome:
        """Answer one question with the agent in ``ctx.agent`` and score it."""
        return await dispatch(self, sample, ctx)

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        assert ctx.model is not None  # dispatch refuses a model agent without a model
        inp = sample.input
        gold = inp["answer"]
        reply = await ctx.model.generate(
            build_prompt(inp["story"], inp["question"], inp["choices"], hitom=self.fmt == "hitom"), ctx.config
        )
        parsed = parse_answer(reply.text, inp["choices"])
        output = {"answer": parsed.choice, "parsed_by": parsed.how, "reply": reply.text}
        if parsed.choice is None:
            return Outcome(output, {"correct": 0.0, "parsed": 0.0}, error=f"unparseable answer: {parsed.how}")
        return Outcome(output, {"correct": float(parsed.choice == gold), "parsed": 1.0})

    async def _symbolic(self, sample: Sample, ctx: AgentContext) -> Outcome:
        inp = sample.input
        gold = inp["answer"]
        question = parse_question(inp["question"], gold, self.fmt)
        if question is None:
            raise InvalidArgumentError(f"not a {self.fmt} question: {inp['question']!r}")
        tracker = track_story(list(enumerate(inp["story"], 1)), self.fmt)
        answer = answer_question(tracker, question)
        return Outcome({"answer": answer}, {"correct": float(answer == gold), "parsed": 1.0})

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """Accuracy over finished samples (failed ones count as wrong), per question type, and unparsed replies."""
        by_type: dict[str, list[float]] = defaultdict(list)
        for r in records:
            by_type[r.sample.group].append(r.scores.get("correct", 0.0))
        ordered = [t for t in self.types if t in by_type] + sorted(set(by_type) - set(self.types))
        total = sum(sum(v) for v in by_type.values())
        return {
            "accuracy": total / len(records) if records else 0.0,
            "by_type": {t: {"accuracy": sum(by_type[t]) / len(by_type[t]), "n": len(by_type[t])} for t in ordered},
            "unparsed": sum(1 for r in records if r.status == "failed" and r.scores.get("parsed") == 0.0),
        }


class ToMiBenchmark(_ToMBenchmark):
    """ToMi first- and second-order false-belief questions."""

    name = "tomi"
    description = "ToMi false-belief questions (generated seeded set, or --data FILE)"
    fmt: StoryFormat = "tomi"
    types = TOMI_TYPES


class HiToMBenchmark(_ToMBenchmark):
    """Hi-ToM questions of orders 0-4 with deception, under the dataset's trust assumptions."""

    name = "hitom"
    description = "Hi-ToM higher-order questions (bundled dev split, or --data FILE)"
    fmt: StoryFormat = "hitom"
    types = HITOM_TYPES

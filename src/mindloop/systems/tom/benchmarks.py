"""The ``tomi`` and ``hitom`` benchmarks: false-belief questions answered by the tracker or by a model.

Each sample is one question with its story. The ``symbolic`` agent tracks the story with the belief tracker
(trust-everyone for ToMi, Hi-ToM's exit-order trust for Hi-ToM) and reads the answer from the store; the
``model`` agent asks a model with :mod:`mindloop.systems.tom.agents`'s prompt and parses its reply. A reply that
names no choice unambiguously is a failed sample (scored incorrect) that keeps the reply and the reason.

Options (:class:`ToMOptions`): ``data`` — a released file to read instead of the default set (``--data``): a
numbered-line file (with ToMi's ``.trace`` or a Hi-ToM ``.meta.json`` beside it, if any) or Hi-ToM's
``Hi-ToM_data.json``, read by :func:`mindloop.worlds.stories.releases.read_dataset`. For Hi-ToM's JSON the model
is offered the release's own fifteen lettered choices. The summary adds the breakdowns the data's labels allow:
ToMi's story and question types; Hi-ToM's order, deception, length, prompting type and the pairs whose two
released copies agree.
"""

from __future__ import annotations

import functools
import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.bench.choice import ask_choice, choice_metrics, score_choice
from mindloop.bench.declaration import (
    BenchmarkSpec,
    Column,
    Grouping,
    Headline,
    Metric,
    PaperTable,
    PresetEntry,
    Row,
    SmallRun,
    Suite,
    chance_policy,
    oracle_policy,
)
from mindloop.bench.references import best_constant_policy, choice_chance
from mindloop.datafiles import special_file_kind
from mindloop.errors import InvalidArgumentError
from mindloop.models.replies import letters
from mindloop.systems.tom.agents import build_prompt
from mindloop.systems.tom.balance import HITOM_DIMENSIONS, TOMI_DIMENSIONS, balanced_samples
from mindloop.worlds.stories.generate import GeneratedExample, generate_tomi
from mindloop.worlds.stories.releases import PROMPTING_TYPES, TOMI_QUESTION_TYPES, TOMI_STORY_TYPES, read_dataset
from mindloop.worlds.stories.tomi import (
    HITOM_TYPES,
    TOMI_TYPES,
    Example,
    StoryFormat,
    answer_question,
    parse_question,
    story_containers,
    track_story,
)

_DEFAULT_GENERATED = 1000
"""Questions in the generated ToMi set when ``--n`` is not given."""


class ToMOptions(Options):
    """Options of ``tomi`` and ``hitom``."""

    data: str | None = Field(
        None,
        description="a released file to read instead of the default set (--data PATH): numbered lines "
        "(ToMi's .trace beside it is read too) or Hi-ToM's Hi-ToM_data.json",
    )
    select: Literal["first", "balanced"] = Field(
        "first",
        description="which n questions: the first n, or n balanced over each dimension the data reports "
        "(Hi-ToM: order, deception, length, prompting type; ToMi: question type, story type)",
    )


def bundled_hitom_path() -> Path:
    """The Hi-ToM development split shipped with mindloop (240 questions, Apache-2.0)."""
    return Path(str(resources.files("mindloop.systems.tom.data") / "hitom" / "hitom_dev.txt"))


def _sample(
    index: int,
    fmt: StoryFormat,
    story: Sequence[str],
    question: str,
    answer: str,
    qtype: str,
    extra: Mapping[str, Any],
    choices: Sequence[str] = (),
) -> Sample:
    """One question; ``choices`` are the dataset's own (Hi-ToM's JSON), else the containers the story names."""
    numbered = [(i, s) for i, s in enumerate(story, 1)]
    options = list(choices) if choices else list(story_containers(numbered))
    return Sample(
        id=f"q{index:05d}",
        input={
            "format": fmt,
            "story": list(story),
            "question": question,
            "answer": answer,
            "type": qtype,
            "choices": options,
            **extra,
        },
        group=qtype,
        target=answer,
        choices=tuple(options),
    )


def example_sample(index: int, fmt: StoryFormat, ex: Example, source: str | None = None) -> Sample:
    """The sample of one released example, its labels (ToMi's trace, Hi-ToM's fields) in its input; ``source``
    names its file in place of its path (the bundled split's path depends on where mindloop is installed, and a
    sample's input must not, or runs of two installs differ)."""
    extra: dict[str, Any] = {"source": f"{source or ex.source}:{ex.line}"}
    choices: tuple[str, ...] = ()
    if ex.trace is not None:
        extra.update(story_type=ex.trace.story_type, question_type=ex.trace.question_type)
    if ex.hitom is not None:
        info = ex.hitom
        extra.update(deception=info.deception, length=info.story_length, question_order=info.question_order)
        extra["sample_id"] = info.sample_id
        if info.prompting_type:
            extra["prompting_type"] = info.prompting_type
        choices = info.choices
    story = [s for _, s in ex.sentences]
    return _sample(index, fmt, story, ex.question.text, ex.question.answer, ex.question.qtype, extra, choices)


def tom_samples(fmt: StoryFormat, n: int | None, seed: int, data: str | None) -> list[Sample]:
    """Samples from a released file (first ``n``), the bundled Hi-ToM split, or a generated ToMi set."""
    source = None
    if data is None and fmt == "hitom":
        data, source = str(bundled_hitom_path()), "mindloop:systems/tom/data/hitom/hitom_dev.txt"
    if data is not None:
        kind = special_file_kind(data)
        if kind is not None:
            raise InvalidArgumentError(f"--data {data!r}: it is {kind}, not a regular file")
        if Path(data).is_dir():
            raise InvalidArgumentError(f"--data {data!r}: it is a folder, not a file")
        if not Path(data).is_file():
            raise InvalidArgumentError(f"--data {data!r}: no such file")
        _, examples = read_dataset(data, fmt)
        return [example_sample(i, fmt, ex, source) for i, ex in enumerate(examples[:n])]
    generated = _generated(_DEFAULT_GENERATED if n is None else n, seed)
    return [_sample(i, fmt, g.sentences, g.question, g.answer, g.qtype, {}) for i, g in enumerate(generated)]


@functools.lru_cache(maxsize=16)
def _generated(n: int, seed: int) -> tuple[GeneratedExample, ...]:
    """The generated ToMi set of ``n`` examples from ``seed``, made once a process (the examples are frozen): a
    process that prepares the default 1,000 again (another run, a suite, a check) reads them instead of spending
    ~0.6 s remaking them."""
    return tuple(generate_tomi(n, seed=seed))


def _chance(sample: Sample) -> float:
    """Exact accuracy of a uniform guess among the sample's choices (0 when the target is not among them)."""
    return 1.0 / count if (count := choice_chance()(sample)) else 0.0


class AgreedPairs:
    """Story-question pairs held more than once (Hi-ToM releases each twice, CoTP and VP copies), counted as samples
    stream by and keyed by a digest, so no story text is kept: accuracy on the pairs whose gold answers agree, each
    pair once, as the mean of its copies' scores (the same for the tracker; a model may answer the two identical
    prompts differently). ``records``: a run's records, counted at once."""

    def __init__(self, records: Iterable[SampleRecord] = ()) -> None:
        self.groups: dict[bytes, list[Any]] = {}  # digest -> [copies, gold (None once two differ), sum of scores]
        for r in records:
            self.add(r.sample, r.scores.get("correct", 0.0))

    def add(self, sample: Sample, correct: float) -> None:
        """Count one answered sample."""
        digest = hashlib.blake2b(digest_size=16)
        for sentence in sample.input["story"]:
            digest.update(sentence.encode("utf-8") + b"\x1f")
        digest.update(b"\x1e" + sample.input["question"].encode("utf-8"))
        group = self.groups.setdefault(digest.digest(), [0, sample.target, 0.0])
        group[0] += 1
        group[2] += correct
        if group[1] != sample.target:
            group[1] = None

    def score(self) -> dict[str, Any] | None:
        """The ``agreed_pairs`` object (accuracy, n, pairs, disagreeing, unpaired); ``None`` when no pair occurs
        twice."""
        twins = [g for g in self.groups.values() if g[0] > 1]
        if not twins:
            return None
        scores = [total / copies for copies, gold, total in twins if gold is not None]
        return {
            "accuracy": sum(scores) / len(scores) if scores else None,
            "n": len(scores),
            "pairs": len(twins),
            "disagreeing": len(twins) - len(scores),
            "unpaired": len(self.groups) - len(twins),
        }


class _ToMBenchmark:
    """Shared by ToMi and Hi-ToM: they differ only in format, data and question types."""

    name: str
    description: str
    spec: BenchmarkSpec
    fmt: StoryFormat
    options_model = ToMOptions

    def __init__(self) -> None:
        self.agents = {
            "symbolic": AgentSpec(
                "the belief tracker follows the story and reads the answer from its store", self._symbolic
            ),
            "model": AgentSpec("a chat model answers the multiple-choice prompt", self._model, needs_model=True),
        }

    def samples(self, n: int | None, seed: int, options: ToMOptions) -> list[Sample]:
        """The first ``n`` questions of ``data`` or of the default set (generated ToMi, bundled Hi-ToM), or with
        ``select=balanced`` the ``n`` of them :func:`~mindloop.systems.tom.balance.balanced_samples` picks."""
        if options.select == "balanced" and n is not None:
            everything = tom_samples(self.fmt, None, seed, options.data)
            return balanced_samples(everything, n, HITOM_DIMENSIONS if self.fmt == "hitom" else TOMI_DIMENSIONS)
        return tom_samples(self.fmt, n, seed, options.data)

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        inp = sample.input
        prompt = build_prompt(
            inp["story"],
            inp["question"],
            sample.choices,
            hitom=self.fmt == "hitom",
            prompting_type=inp.get("prompting_type"),
        )
        return await ask_choice(ctx, prompt, sample, letters(len(sample.choices)), None)

    async def _symbolic(self, sample: Sample, ctx: AgentContext) -> Outcome:
        inp = sample.input
        question = parse_question(inp["question"], inp["answer"], self.fmt)
        if question is None:
            raise InvalidArgumentError(f"not a {self.fmt} question: {inp['question']!r}")
        tracker = track_story(list(enumerate(inp["story"], 1)), self.fmt)
        return Outcome({"answer": answer_question(tracker, question)}, {"parsed": 1.0})

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """What the declared accuracies (:func:`_metrics`) cannot say: chance, unparsed replies and model
        failures, which extraction each accuracy is, and Hi-ToM's ``agreed_pairs``."""
        by_type: dict[str, list[float]] = defaultdict(list)
        for r in records:
            by_type[r.sample.group].append(_chance(r.sample))
        out: dict[str, Any] = {
            # the expected accuracy of a uniform guess among each question's choices, overall and per type
            "chance": sum(sum(v) for v in by_type.values()) / len(records) if records else None,
            "by_type": {t: {"chance": sum(v) / len(v)} for t, v in by_type.items()},
            "unparsed": sum(1 for r in records if r.status == "failed" and r.scores.get("parsed") == 0.0),
            # a failed sample without a parse score never got a reply to read (the call itself failed)
            "model_failures": sum(1 for r in records if r.status == "failed" and "parsed" not in r.scores),
        }
        if any("correct_strict" in r.scores for r in records):  # a model answered: both extractions, declared
            out["extraction"] = (
                "accuracy: flexible extraction (answer cues, markdown, a name anywhere); "
                "accuracy_strict: the reply's first line is a letter or a choice name"
            )
        if self.fmt == "hitom" and (pairs := AgreedPairs(records).score()) is not None:
            out["agreed_pairs"] = pairs
        return out


def _metrics(types: Sequence[str]) -> tuple[Metric, ...]:
    """Accuracy over finished samples (failed ones count as wrong), per question type, and per each label the
    samples carry (absent when no sample carries it): ToMi's story and question types (``.trace``), Hi-ToM's
    order, deception, length and prompting type; with a model, the strict reading's accuracy."""
    return choice_metrics(
        (
            Grouping("by_type", "group", tuple(types)),
            Grouping("by_story_type", "story_type", TOMI_STORY_TYPES),
            Grouping("by_question_type", "question_type", TOMI_QUESTION_TYPES),
            Grouping("by_order", "question_order", tuple(str(k) for k in range(5))),
            Grouping("by_deception", "deception", ("false", "true")),
            Grouping("by_length", "length", tuple(str(k) for k in range(1, 5))),
            Grouping("by_prompting_type", "prompting_type", tuple(PROMPTING_TYPES)),
        )
    )


TRAIN_SEED = 2_147_483_647
_TRAIN_SIZE = 400
"""The seed of generated ToMi's train split (:func:`_tomi_train`): the best constant answer is fitted on it."""


@functools.cache
def _tomi_train() -> tuple[Sample, ...]:
    """Generated ToMi's train split: :data:`_TRAIN_SIZE` questions made with :data:`TRAIN_SEED` (a run of the
    default seeds never draws these stories)."""
    return tuple(tom_samples("tomi", _TRAIN_SIZE, TRAIN_SEED, None))


_CHANCE = chance_policy(choice_chance(), summary_key="chance")
"""A uniform guess among the question's choices (a sample listing none, or whose gold is not among them, is left
out); the summary's ``chance`` rows are the same value per breakdown row."""

_TOMI_REFERENCES = (_CHANCE, best_constant_policy(_tomi_train, split="generated ToMi's train split"), oracle_policy())
"""Chance, the best constant answer per question type of generated ToMi's train split (a container's position in
the story, e.g. "the first container named"), and the oracle (the gold answer: the tracker agrees with it)."""

_HITOM_REFERENCES = (_CHANCE, best_constant_policy(), oracle_policy())
"""Chance, the best constant per question type (Hi-ToM ships no train split: fitted on the evaluated items,
optimistic), and the oracle."""


def _spec(
    types: tuple[str, ...],
    references: Any,
    order: int,
    quick: str,
    table: tuple[str, str, str, tuple[Row, ...]],
    **more: Any,
) -> BenchmarkSpec:
    """A ToMi-format set's declaration: accuracy per question type, a balanced ``quick`` preset of 20 questions,
    the paper's table (``key``, paper, title, rows) with its pooled row."""
    key, paper, title, rows = table
    columns = (Column("Accuracy (%)", ("accuracy",), scale=100, digits=1), Column("n", ("n",), digits=0))
    return BenchmarkSpec(
        headline=Headline("accuracy"),
        scorer=score_choice,
        metrics=_metrics(types),
        references=references,
        suite=Suite(order=order, presets={"quick": PresetEntry(20, quick, {"select": "balanced"})}),
        paper_tables=(PaperTable(key, paper, title, key, columns, (*rows, Row("all ({method})"))),),
        small=SmallRun(n=8),
        **more,
    )


class ToMiBenchmark(_ToMBenchmark):
    """ToMi first- and second-order false-belief questions."""

    name = "tomi"
    description = "ToMi false-belief questions (generated seeded set, or --data FILE)"
    fmt: StoryFormat = "tomi"
    spec = _spec(
        TOMI_TYPES,
        _TOMI_REFERENCES,
        10,
        "5 questions of each of the 4 types (balanced over question type); one call each",
        (
            "tomi",
            "ToMi",
            "Accuracy by question type (%)",
            tuple(Row(t.replace("_", " "), ("by_type", t)) for t in TOMI_TYPES),
        ),
    )


class HiToMBenchmark(_ToMBenchmark):
    """Hi-ToM questions of orders 0-4 with deception, under the dataset's trust assumptions."""

    name = "hitom"
    description = "Hi-ToM higher-order questions (bundled dev split, or --data FILE such as Hi-ToM_data.json)"
    fmt: StoryFormat = "hitom"
    spec = _spec(
        HITOM_TYPES,
        _HITOM_REFERENCES,
        20,
        "20 questions balanced over each dimension Hi-ToM reports, one at a time: 4 of each order 0-4, "
        "10 with deception and 10 without, lengths as even as the split allows, 10 per prompting type; "
        "one call each",
        ("hitom", "Hi-ToM", "Accuracy by order (%)", tuple(Row(f"order {k}", ("by_order", str(k))) for k in range(5))),
        no_intervals=("agreed_pairs",),  # story-question pairs held twice: a resample's duplicates would count
    )

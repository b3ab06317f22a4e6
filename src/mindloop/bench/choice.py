"""Multiple-choice sets as data: a released set is a :class:`ChoiceSet` declaration, run by :class:`ChoiceBenchmark`.

A declaration says where an item's parts are (:class:`Fields`: the target, the choices, the id and group
templates), how the question is put (:class:`Prompt`: a template over the item's fields, the option labels
shown), how its release reads a reply where that differs from mindloop's reader (:class:`Release`, kept beside
as its own number, named as a deviation), and its groupings, headline and suite place; the file reading and a
release's quirks (a condition builder, options inside the question text) are the only Python a set may add
(``load``, ``prepare``). Every set's model agent asks the question and reads the reply with the one choice
reader (:mod:`mindloop.bench.reader`); the declaration's scorer (:func:`score_choice`) scores it, once.

A further agent a set declares (a belief tracker) answers what it can decide; a question it cannot is *not
covered* (:func:`not_covered`): no ``correct`` score, so it counts neither for nor against it.
"""

from __future__ import annotations

import csv
import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field

from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.bench.declaration import (
    BenchmarkSpec,
    Grouping,
    Headline,
    Metric,
    ReferencePolicy,
    SmallRun,
    Suite,
    oracle_policy,
)
from mindloop.bench.reader import Reading, read_choice
from mindloop.bench.references import best_constant_policy
from mindloop.bench.scoring import group_rows
from mindloop.datafiles import csv_fields_unlimited, iter_json_lines, read_json_file
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.models.base import Message, message
from mindloop.models.replies import ask

RELEASE_SUITE = Suite(excluded="it reads a released data set it does not ship (--data): name it with --only and --opt")
"""How a released set sits in suites: left out, since mindloop cannot run it without its files."""

COVERED_RESAMPLED = ("accuracy_covered",)
"""What :func:`choice_summary` adds that gets an interval by resampling: the tracker's accuracy on the questions
it covered (a subset the run picks, so no fixed per-sample mean)."""


# -- the declaration ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fields:
    """Where a prepared item (the sample's input) holds what the harness needs. ``id`` and ``group`` are templates
    over its fields and the release item's (``"l{line:04d}"``, ``"{variable}/{condition}"``); ``target`` names the
    gold, read as ``target_is`` says (an option's text, its label, or its 0-based index); ``choices`` the list of
    options' texts (absent: an open answer); ``labels`` a field listing the labels the item shows (else the
    prompt's)."""

    id: str = "l{line:04d}"
    group: str = ""
    target: str = "answer"
    choices: str = "choices"
    labels: str | None = None
    target_is: Literal["text", "label", "index"] = "text"


@dataclass(frozen=True)
class Prompt:
    """The chat turn a model answers: ``user`` (and ``system``) are templates over the item's fields and
    ``{options}`` (each option as ``option`` writes it, one a line), ``{letters}`` (``(A), (B)``) and ``{or_list}``
    (``"yes" or "no"``), or a function of the sample where the release builds its prompt in code (OpenToM's);
    ``open`` is the user template for an item without choices. ``labels`` are the option labels shown, in order
    (``"ab"``; empty: none shown, so none is read)."""

    user: str | Callable[[Sample], str]
    system: str | None = None
    option: str = "({label}) {text}"
    labels: str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    open: str | None = None

    def messages(self, sample: Sample, labels: Sequence[str]) -> list[Message]:
        """The messages for ``sample`` whose options show ``labels``."""
        texts = sample.choices
        quoted = [f'"{c}"' for c in texts]
        view = {
            **sample.input,
            "options": "\n".join(self.option.format(label=lab, text=t) for lab, t in zip(labels, texts, strict=False)),
            "letters": ", ".join(f"({lab})" for lab in labels[: len(texts)]),
            "or_list": " or ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted),
        }
        user = self.user if texts or self.open is None else self.open
        turn = [message("user", user(sample) if callable(user) else user.format_map(view))]
        return [message("system", self.system.format_map(view)), *turn] if self.system else turn


_ReleaseReader = Callable[[str, Sample], "str | None"]
"""A release's own reading of a reply: one of the sample's choices, or ``None`` when it reads none."""


@dataclass(frozen=True)
class Release:
    """How the set's release reads a reply, where that differs from mindloop's reader: ``read`` gives its answer,
    kept per sample (``release_answer``) and scored beside as ``accuracy_release_reading``; ``deviation`` says what
    the difference is, shown with that number. ``decides``: the release's reading settles a reply mindloop's reader
    leaves unread (its own vocabulary: ``emptier`` for ``less full``), and the output says it did."""

    name: str
    read: _ReleaseReader
    deviation: str
    decides: bool = False


def occurring(reply: str, keys: Sequence[str], sample: Sample) -> str | None:
    """A release's reading by occurrence: the gold when its key (``keys``: one per choice, lower case) occurs in
    ``reply`` (ignoring case), checked first, else the first choice whose key does, else ``None``."""
    found = [choice for key, choice in zip(keys, sample.choices, strict=True) if key in reply.lower()]
    return sample.target if sample.target in found else found[0] if found else None


class DataOptions(Options):
    """Options of a released set that takes only its file."""

    data: str | None = Field(None, description="the released file, or the folder holding it (--data PATH)")


@dataclass(frozen=True)
class ChoiceSet:
    """A released multiple-choice set as data: its name, what ``--data`` names (``data``, for messages; ``files``: the
    names tried inside a folder, in order), the :class:`Fields` and :class:`Prompt`, its :class:`Release` reading, the
    groupings its paper reports, its headline, further metrics and suite place, the agents besides the model (a tracker,
    the default when given; ``model``: what the model agent does; ``format_retry``: whether it sends an unread reply
    back once, which a prompt showing no labels to ask for may not want), whether each item's options are shuffled
    (seeded per item) and its small run for tests and checkers (``small``); ``references``: floors of its own beside
    chance, the best constant and the oracle (a role the gold plays, such as BigToM's "not aware" answer), each reported
    per row of every grouping when it has a ``summary_key``; ``checked_against``: as :class:`BenchmarkSpec` has it.
    ``load`` (the items of ``--data PATH`` for the run's options) and ``prepare`` (an item, and the options, to the
    sample's input, checking what the release promises) are the Python a release's layout needs (default: JSON, JSON
    Lines or CSV rows, each with its ``line``, as they are)."""

    name: str
    description: str
    data: str
    prompt: Prompt
    fields: Fields = Fields()
    files: tuple[str, ...] = ()
    load: Callable[[str, Any], Sequence[Any]] | None = None
    prepare: Callable[[Any, Any], dict[str, Any]] | None = None
    options: type[Options] = DataOptions
    groupings: tuple[Grouping, ...] = ()
    release: Release | None = None
    headline: Headline = field(default_factory=lambda: Headline("accuracy"))
    metrics: tuple[Metric, ...] = ()
    suite: Suite = RELEASE_SUITE
    agents: Mapping[str, AgentSpec] = field(default_factory=dict)
    model: str = "a chat model answers the release's prompt"
    format_retry: bool = True
    references: tuple[ReferencePolicy, ...] = ()
    shuffle: bool = False
    glossary: Mapping[str, str] = field(default_factory=dict)
    small: SmallRun = field(default_factory=SmallRun)
    checked_against: Literal["released file", "authors' code"] | None = None


# -- reading the release ----------------------------------------------------------------------------------------


def release_text(path: str | Path, files: Sequence[str] = (), what: str = "the released file") -> tuple[Path, str]:
    """The file ``path`` (or the first of ``files`` inside it) and its text, read as UTF-8 (a byte-order mark
    dropped); a missing file is a one-line error naming ``what``."""
    p = Path(path)
    if p.is_dir():
        p = next((p / f for f in files if (p / f).is_file()), p / (files[0] if files else ""))
    try:
        return p, p.read_text(encoding="utf-8-sig")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise InvalidArgumentError(f"--data {str(path)!r}: no such file ({what})") from None
    except UnicodeDecodeError as exc:
        raise ParseError(f"not UTF-8 text ({exc.reason})", source=str(p)) from None


def release_rows(
    path: str | Path,
    files: Sequence[str] = (),
    what: str = "the released file",
    needs: Sequence[str | tuple[str, ...]] = (),
    *,
    csv_: bool | None = None,
) -> tuple[Path, list[dict[str, Any]]]:
    """The file :func:`release_text` resolves and its rows: a JSON list, JSON Lines or CSV by its suffix (``csv_``:
    CSV, or JSON, whatever the suffix), each a dict with its 1-based ``line``. A row without each field it ``needs``
    (a tuple: one of them; a CSV: its header, line 1) is a one-line error naming the file, the line and each field
    it lacks."""
    p, text = release_text(path, files, what)
    if (p.suffix.lower() == ".csv") if csv_ is None else csv_:
        with csv_fields_unlimited():  # a field of any size (csv's own limit is 128 KiB)
            reader = csv.DictReader(text.splitlines(keepends=True))
            keyed = [(1, dict.fromkeys(reader.fieldnames or ()))]
            rows = [{**row, "line": reader.line_num} for row in reader]
    else:
        keyed = json_objects(p, text)
        rows = [{**row, "line": i} for i, row in keyed]
    groups = [(k,) if isinstance(k, str) else k for k in needs]
    for line, keys in keyed:
        if missing := [" or ".join(map(repr, g)) for g in groups if not set(g) & keys.keys()]:
            raise ParseError("; ".join(f"no {m} field" for m in missing), source=str(p), line=line)
    return p, rows


def json_objects(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    """The objects of a JSON list or of JSON Lines (``text``, read from ``path``), each with its 1-based item or
    line number (a list's items are numbered as lines, as the releases' JSON Lines are); text that is not JSON, or
    an item that is not an object, is a one-line error naming where."""
    if not text.lstrip().startswith("["):
        return list(iter_json_lines(path, text=text))
    rows = list(enumerate(read_json_file(path, text=text), 1))
    for i, row in rows:
        if not isinstance(row, dict):
            raise ParseError("expected a JSON object per line", source=str(path), line=i)
    return rows


# -- the model agent, the scorer, the tracker's outcomes ----------------------------------------------------------


def _read(text: str, sample: Sample, labels: Sequence[str], release: Release | None) -> Reading:
    reading = read_choice(text, sample.choices, labels)
    if reading.choice is None and release is not None and release.decides:
        settled = release.read(text, sample)
        if settled is not None:
            return Reading(settled, f"{reading.how}; decided by the release's reading ({release.name})", reading.strict)
    return reading


async def ask_choice(
    ctx: AgentContext, messages: Sequence[Message], sample: Sample, labels: Sequence[str], release: Release | None
) -> Outcome:
    """Ask the model in ``ctx`` and read its reply among ``sample.choices`` (shown with ``labels``): the answer
    (an unread reply goes back once with the reason, then is a failed sample keeping the reply and the reason),
    the strict reading of the first reply and, with a ``release``, the release's reading of it."""
    assert ctx.model is not None  # dispatch refuses a model agent without a model
    ask_for = "the letter of one choice" if labels else "one of the choices"

    def read(text: str) -> Reading:
        reading = _read(text, sample, labels, release)
        if reading.choice is None:
            raise ParseError(f"unparseable answer: {reading.how}; reply with {ask_for}")
        return reading

    error: str | None = None
    try:
        reading, _, replies = await ask(ctx.model, messages, read, ctx.config, retries=ctx.format_retries)
    except ParseError as exc:  # every reply, the format retries' included, comes back with the error
        replies = exc.replies
        reading = _read(replies[-1], sample, labels, release)
        error = exc.reason
    output: dict[str, Any] = {
        "answer": reading.choice,
        "strict_answer": read_choice(replies[0], sample.choices, labels).strict,
        "parsed_by": reading.how,
        "reply": replies[-1],
        "attempts": len(replies),
    }
    if release is not None:
        output["release_answer"] = release.read(replies[0], sample)
    return Outcome(output, {"parsed": float(reading.choice is not None)}, error=error)


def not_covered(reason: str) -> Outcome:
    """The tracker's outcome for a question its reading of the story does not determine (never scored wrong)."""
    return Outcome({"answer": None, "not_covered": reason}, {"covered": 0.0})


def covered(answer: Any, **extra: Any) -> Outcome:
    """The tracker's outcome for a question it answered (the scorer compares ``answer`` with the target)."""
    return Outcome({"answer": answer, **extra}, {"covered": 1.0, "parsed": 1.0})


def score_choice(sample: Sample, outcome: Outcome) -> dict[str, float]:
    """The scores of an answered sample: ``correct`` (its answer is the target), ``correct_strict`` and
    ``correct_release`` where the strict and the release's readings were made; a free-text reply to a question
    without choices is right when the target occurs in it (ignoring case), by every reading. A question the
    tracker did not cover gets no ``correct``."""
    out, scores = outcome.output, dict(outcome.scores)
    if scores.get("covered") == 0.0 or sample.target is None:
        return scores
    if not sample.choices and isinstance(out.get("reply"), str):
        hit = float(str(sample.target).lower() in out["reply"].lower())
        return {"correct": hit, "correct_strict": hit, "correct_release": hit, **scores}
    judged = {"correct": float(out.get("answer") == sample.target)}
    if "strict_answer" in out:
        judged["correct_strict"] = float(out["strict_answer"] == sample.target)
    if "release_answer" in out:
        judged["correct_release"] = float(out["release_answer"] == sample.target)
    return {**judged, **scores}


# -- metrics, references and the summary --------------------------------------------------------------------------


def choice_metrics(
    groupings: Sequence[Grouping] = (), release: Release | None = None, per_row: bool = False
) -> tuple[Metric, ...]:
    """What every multiple-choice set reports: ``accuracy`` (the questions that count: every model answer, an
    unread one as wrong; a tracker's only where it covered the question), per row of ``groupings``; with a model,
    ``accuracy_strict`` and, where the release reads replies its own way, ``accuracy_release_reading`` (``per_row``:
    both per row of ``groupings`` too, beside the headline); with a tracker, ``coverage``."""
    deviation = "" if release is None else f" ({release.name}); a deviation: {release.deviation}"
    optional = {
        "accuracy_strict": (
            "correct_strict",
            "the same with the strict reading (the reply's first line names a choice)",
        ),
        "accuracy_release_reading": ("correct_release", f"the same with the release's own answer reading{deviation}"),
        "coverage": ("covered", "share of questions the tracker answered"),
    }
    what = "share of the questions that count answered with the gold choice"
    accuracy = Metric("accuracy", "correct", within=("covered",), groupings=tuple(groupings), description=what)
    beside = tuple(groupings) if per_row else ()
    return accuracy, *(
        Metric(k, score, optional=True, description=d, groupings=beside if k != "coverage" else ())
        for k, (score, d) in optional.items()
    )


def _chance(samples: Sequence[Sample]) -> float | None:
    """The expected accuracy of a uniform guess among each question's choices, computed exactly; ``None`` when
    some question offers no choices (an open answer)."""
    values = [1.0 / len(s.choices) if s.choices else None for s in samples]
    if not values or any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None) / len(values)


def choice_references(extra: Sequence[ReferencePolicy] = ()) -> tuple[ReferencePolicy, ...]:
    """Chance (exact; ``None`` when some question has an open answer, as the summary's ``chance``), the best constant
    answer per question type (fitted on the evaluated items: optimistic; per row as ``best_constant``), the
    oracle, and a set's ``extra`` floors, on ``accuracy``."""
    chance_ref = ReferencePolicy(
        "chance",
        "a uniform guess among each question's choices (exact expectation)",
        _chance,
        kind="chance",
        none_reason="some question has an open answer, which a guess among choices cannot give",
        summary_key="chance",
    )
    best = dataclasses.replace(best_constant_policy(), summary_key="best_constant")
    return chance_ref, best, oracle_policy(), *extra


def counted(records: Sequence[SampleRecord]) -> list[SampleRecord]:
    """The records that count: every model answer (failed ones as wrong), a tracker's only when covered."""
    return [r for r in records if r.scores.get("covered", 1.0) == 1.0]


def counted_rows(records: Sequence[SampleRecord], grouping: Grouping) -> dict[str, list[SampleRecord]]:
    """The records that count (:func:`choice_metrics`) in each row of ``grouping``, in its order."""
    return {label: rs for label, rs in group_rows(grouping, counted(records)).items() if rs}


def coverage(records: Sequence[SampleRecord]) -> dict[str, Any] | None:
    """For a tracker's run: the share of questions answered and the accuracy on those; ``None`` for a model run."""
    flags = [r.scores["covered"] for r in records if "covered" in r.scores]
    if not flags:
        return None
    answered = [r.scores["correct"] for r in records if r.scores.get("covered") == 1.0]
    return {
        "coverage": sum(flags) / len(records),
        "covered": len(answered),
        "not_covered": len(records) - len(answered),
        "accuracy_covered": sum(answered) / len(answered) if answered else None,
    }


def choice_summary(
    records: Sequence[SampleRecord],
    groupings: Sequence[Grouping] = (),
    references: Sequence[ReferencePolicy] = (),
) -> dict[str, Any]:
    """What the declared metrics cannot say: the ``chance`` of the questions that count, overall and per row of
    each grouping (with each of ``references`` that has a ``summary_key``, on the same questions); the unread
    replies and model failures (model runs, per row too); the tracker's counts and its accuracy on what it
    covered."""
    out: dict[str, Any] = {}
    if (c := _chance([r.sample for r in counted(records)])) is not None:
        out["chance"] = c
    if any("correct_strict" in r.scores or "correct_release" in r.scores for r in records):
        out["unparsed"] = sum(1 for r in records if r.status == "failed" and r.scores.get("parsed") == 0.0)
        out["model_failures"] = sum(1 for r in records if r.status == "failed" and "parsed" not in r.scores)
    if (cov := coverage(records)) is not None:
        out.update({k: v for k, v in cov.items() if k != "coverage"})
    floors = [p for p in references if p.summary_key and p.summary_key != "chance"]
    model_run = "unparsed" in out
    for grouping in groupings:
        table: dict[str, dict[str, Any]] = {}
        for t, rs in counted_rows(records, grouping).items():
            row: dict[str, Any] = {}
            samples = [r.sample for r in rs]
            if (c := _chance(samples)) is not None:
                row["chance"] = c
            for policy in floors:
                if (v := policy.value(samples)) is not None:
                    row[str(policy.summary_key)] = v
            if model_run:
                row["unparsed"] = sum(1 for r in rs if r.status == "failed" and r.scores.get("parsed") == 0.0)
            if row:
                table[t] = row
        out[grouping.key] = table
    return out


# -- the benchmark ---------------------------------------------------------------------------------------------------


class ChoiceBenchmark:
    """The benchmark a :class:`ChoiceSet` declares: ``class MySet(ChoiceBenchmark): choice_set = MY_SET``. Its
    agents are the set's own, then ``model``. A set whose headline is not the declared accuracy (OpenToM's
    macro-F1 per column) keeps the ``spec`` its class body declares, and overrides what it scores its own way."""

    choice_set: ClassVar[ChoiceSet]
    name: str
    description: str
    options_model: type[Options]
    spec: BenchmarkSpec

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "choice_set" in cls.__dict__:
            cls.name, cls.description, cls.options_model, spec = _declared(cls.choice_set)
            cls.spec = cls.__dict__.get("spec", spec)

    def __init__(self) -> None:
        self.agents = {
            **self.choice_set.agents,
            "model": AgentSpec(self.choice_set.model, self._model, needs_model=True),
        }

    def _labels(self, inp: Mapping[str, Any]) -> list[str]:
        labels = inp.get(self.choice_set.fields.labels or "")
        return [str(x) for x in labels] if isinstance(labels, list) else list(self.choice_set.prompt.labels)

    def samples(self, n: int | None, seed: int, options: Any) -> list[Sample]:
        """The first ``n`` items of the release (all when ``None``), in its order."""
        s = self.choice_set
        if options.data is None:
            raise InvalidArgumentError(f"{s.name} needs --data PATH: {s.data} (see docs/datasets.md)")
        items = s.load(options.data, options) if s.load else release_rows(options.data, s.files, s.data)[1]
        out = []
        for item in items[:n] if n is not None else items:
            inp = s.prepare(item, options) if s.prepare else dict(item)
            out.append(self._sample(item, inp, seed))
        return out

    def _sample(self, item: Any, inp: dict[str, Any], seed: int) -> Sample:
        f = self.choice_set.fields
        view = {**_fields_of(item), **inp}
        try:
            sid, group = f.id.format_map(view), f.group.format_map(view)
        except KeyError as exc:
            raise ParseError(f"no {exc.args[0]!r} field", source=self.choice_set.data, line=inp.get("line")) from None
        raw = inp.get(f.choices)
        choices = [str(c) for c in raw] if isinstance(raw, list) else []
        if self.choice_set.shuffle:
            random.Random(f"{seed}:{sid}").shuffle(choices)
            inp[f.choices] = choices
        return Sample(sid, inp, group, self._target(inp, choices), tuple(choices))

    def _target(self, inp: dict[str, Any], choices: list[str]) -> Any:
        """The gold as one of ``choices`` (a label or an index named; a text matched ignoring case), else as is."""
        f, gold = self.choice_set.fields, inp.get(self.choice_set.fields.target)
        if gold is None or not choices:
            return gold
        if f.target_is == "index":
            return choices[int(gold)]
        keys = (
            [x.lower() for x in self._labels(inp)] if f.target_is == "label" else [c.strip().lower() for c in choices]
        )
        if str(gold).strip().lower() in keys[: len(choices)]:
            return choices[keys.index(str(gold).strip().lower())]
        if f.target_is == "label":
            raise ParseError(
                f"the gold label {gold!r} names no choice", source=self.choice_set.data, line=inp.get("line")
            )
        return gold

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        s = self.choice_set
        labels = self._labels(sample.input)[: len(sample.choices)]
        messages = s.prompt.messages(sample, labels)
        if not sample.choices:  # an open answer: one reply, read by the scorer
            assert ctx.model is not None
            reply = (await ask(ctx.model, messages, lambda t: t, ctx.config, retries=0)).value
            return Outcome({"reply": reply, "answer": reply.strip()})
        ctx = ctx if s.format_retry else dataclasses.replace(ctx, format_retries=0)
        return await ask_choice(ctx, messages, sample, labels, s.release)

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """What the declared metrics cannot say (:func:`choice_summary`)."""
        return choice_summary(records, self.choice_set.groupings, self.spec.references)


def _fields_of(item: Any) -> dict[str, Any]:
    """A release item's fields by name (a mapping's keys, a dataclass's fields), for the id and group templates."""
    if isinstance(item, Mapping):
        return dict(item)
    return {f.name: getattr(item, f.name) for f in dataclasses.fields(item)} if dataclasses.is_dataclass(item) else {}


def _declared(s: ChoiceSet) -> tuple[str, str, type[Options], BenchmarkSpec]:
    spec = BenchmarkSpec(
        headline=s.headline,
        metrics=(*choice_metrics(s.groupings, s.release, per_row=True), *s.metrics),
        references=choice_references(s.references),
        resampled=COVERED_RESAMPLED,
        suite=s.suite,
        glossary=s.glossary,
        scorer=score_choice,
        small=s.small,
        checked_against=s.checked_against,
    )
    return s.name, s.description, s.options, spec

"""What a benchmark declares about itself, so the core needs no table keyed by a benchmark's name.

A benchmark carries one :class:`BenchmarkSpec` as its ``spec``: its headline metric and direction, its declared
metrics (:class:`Metric`: a per-sample score, how it aggregates, its scale and groupings), its reference policies
(:class:`ReferencePolicy`: chance, the oracle, trivial policies, computed on a run's samples), its place in a
suite and its presets (:class:`Suite`, :class:`PresetEntry`), its paper's tables (:class:`PaperTable`), its
paper's generation settings (:class:`Generation`), the model calls a sample usually takes, its other names and
the option that sets a team's size. Every part is a frozen dataclass checked when it is built; the checks that
need the benchmark itself (the team option names an option, the headline is a metric it reports) run when the
registry first loads it (:func:`mindloop.bench.check.check_declaration`).

>>> spec = BenchmarkSpec(headline=Headline("accuracy"), metrics=(Metric("accuracy", "correct"),))
>>> spec.metric("accuracy").kind, spec.suite.order, spec.generation.values()
('proportion', 1000, {})
>>> Metric("accuracy", "correct", scale=3)
Traceback (most recent call last):
...
mindloop.errors.RegistryError: metric 'accuracy': scale must be 1 or 100, got 3
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from mindloop.bench.records import Outcome, Sample, SampleRecord
from mindloop.errors import RegistryError

PRESET_NAMES = ("quick", "paper")
"""The suite presets: ``quick`` (a small ``n`` per benchmark, for a first look) and ``paper`` (every set whole)."""

GENERATION_FIELDS = ("temperature", "max_tokens", "top_p")
"""The generation settings a benchmark may declare."""


def _refuse(what: str, problem: str) -> RegistryError:
    return RegistryError(f"{what}: {problem}")


# -- headline -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Headline:
    """A benchmark's main metric (a top-level key of its summary) and its direction."""

    metric: str
    higher_is_better: bool = True

    def __post_init__(self) -> None:
        if not self.metric:
            raise _refuse("headline", "it names no metric")

    def to_json(self) -> dict[str, Any]:
        """``{"metric", "higher_is_better"}``."""
        return {"metric": self.metric, "higher_is_better": self.higher_is_better}


def headline_value(headline: Headline | None, metrics: Mapping[str, Any]) -> float | None:
    """The headline's value in a summary: ``None`` when it is missing or not a number ("no data")."""
    if headline is None:
        return None
    value = metrics.get(headline.metric)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


# -- metrics --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grouping:
    """A breakdown of a declared metric: summary key ``key`` (``by_type``) holds, per label, the metric and ``n``.

    ``by`` says what labels a sample: ``"group"`` (its :attr:`Sample.group`) or the name of a key of its input
    (a sample without it is in no row). ``labels`` orders the rows (unlisted labels follow, sorted). ``rename``
    maps labels to rows (``(("1.1", "belief"), ...)``: several labels may share one); when given, a label it
    does not name is in no row."""

    key: str
    by: str = "group"
    labels: tuple[str, ...] = ()
    rename: tuple[tuple[str, str], ...] = ()

    def label(self, sample: Sample) -> str | None:
        """The row ``sample`` falls in (``None``: none)."""
        if self.by == "group":
            label: str | None = sample.group
        else:
            value = sample.input.get(self.by)
            if value is None or isinstance(value, dict | list):
                return None
            label = str(value).lower() if isinstance(value, bool) else str(value)
        if self.rename:
            return dict(self.rename).get(str(label))
        return label

    def to_json(self) -> dict[str, Any]:
        """The grouping as the run store keeps it."""
        out: dict[str, Any] = {"key": self.key, "by": self.by, "labels": list(self.labels)}
        if self.rename:
            out["rename"] = [list(pair) for pair in self.rename]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Grouping:
        """A stored grouping read back."""
        rename = tuple((str(a), str(b)) for a, b in data.get("rename", ()))
        return cls(data["key"], data.get("by", "group"), tuple(data.get("labels", ())), rename)


_MetricKind = Literal["proportion", "mean"]


def _holds(record: SampleRecord, condition: str) -> bool:
    """Whether ``record`` meets one condition of a metric's ``within``: ``name=value`` (its input at the dotted
    path ``name`` is ``value``, compared as text) or a flag ``name`` (its score ``name`` when it has one, else its
    input at that path, is true; a record with neither meets it)."""
    name, eq, want = condition.partition("=")
    if not eq and name in record.scores:
        return bool(record.scores[name])
    node: Any = record.sample.input
    for part in name.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return not eq
        node = node[part]
    return str(node) == want if eq else bool(node)


@dataclass(frozen=True)
class Metric:
    """A declared metric: the mean of the per-sample score ``score`` over the run's finished samples, times
    ``scale`` (1, or 100 for a percentage), and the same per row of each of its ``groupings``.

    ``kind`` says what the score is: ``proportion`` (every value 0 or 1: exact binomial intervals and McNemar's
    exact test) or ``mean`` (any number: bootstrap intervals and a paired bootstrap). Which samples count:

    * ``within``: conditions a sample must meet to count: a flag (a 0/1 score of that name, else the sample's
      input at that dotted path; a sample without it counts) such as ``covered`` (a question the symbolic tracker
      did not answer is left out) or ``gold.help_needed`` (a control episode is), or ``name=value`` (the input
      at that path is ``value``: ``scenario=inaccessible``);
    * ``failed``: a failed sample counts by its own scores (``"score"``), as 0 whatever it stored (``"zero"``),
      or not at all (``"skip"``, for a count such as steps that a failure leaves undefined);
    * ``missing``: a sample without the score counts as 0 (``"zero"``: a failed sample scores nothing), is left
      out (``"skip"``), or counts as the number given (C-WAH's 250-step cap for an episode that never ran).

    How it is written: ``optional`` leaves the metric out of the summary when no sample it would count has the
    score (a score only a model reply gives); ``digits`` rounds the value (a paper's precision); ``table`` puts
    the run-wide value inside that summary key (``by_dimension``) instead of at the top level. Each grouping row
    holds the metric and ``n``, the samples the first metric declaring the grouping counts there (a row none
    counts in is left out)."""

    name: str
    score: str
    kind: _MetricKind = "proportion"
    scale: float = 1.0
    missing: Literal["zero", "skip"] | float = "zero"
    groupings: tuple[Grouping, ...] = ()
    description: str = ""
    within: tuple[str, ...] = ()
    failed: Literal["score", "zero", "skip"] = "score"
    optional: bool = False
    digits: int | None = None
    table: str | None = None

    def __post_init__(self) -> None:
        what = f"metric {self.name!r}"
        if not self.name or not self.score:
            raise _refuse(what, "a metric needs a name and the per-sample score it averages")
        if self.kind not in ("proportion", "mean"):
            raise _refuse(what, f"kind must be 'proportion' or 'mean', got {self.kind!r}")
        if self.scale not in (1.0, 100.0):
            raise _refuse(what, f"scale must be 1 or 100, got {self.scale:g}")
        number = isinstance(self.missing, int | float) and not isinstance(self.missing, bool)
        if not (number and math.isfinite(float(self.missing))) and self.missing not in ("zero", "skip"):
            raise _refuse(what, f"missing must be 'zero', 'skip' or a number, got {self.missing!r}")
        if self.failed not in ("score", "zero", "skip"):
            raise _refuse(what, f"failed must be 'score', 'zero' or 'skip', got {self.failed!r}")
        if self.digits is not None and not 0 <= self.digits <= 12:
            raise _refuse(what, f"digits must be from 0 to 12, got {self.digits}")
        keys = [g.key for g in self.groupings]
        if len(set(keys)) != len(keys):
            raise _refuse(what, f"two groupings share a key ({', '.join(keys)})")

    @property
    def path(self) -> tuple[str, ...]:
        """Where the run-wide value sits in a summary: ``(name,)``, or ``(table, name)``."""
        return (self.name,) if self.table is None else (self.table, self.name)

    def per_sample(self, records: Sequence[SampleRecord]) -> list[float | None]:
        """Each record's value as the metric counts it (``None``: the record is left out)."""
        out: list[float | None] = []
        for r in records:
            if not all(_holds(r, c) for c in self.within):
                out.append(None)
                continue
            if r.status == "failed" and self.failed != "score":
                out.append(0.0 if self.failed == "zero" else None)
                continue
            v = r.scores.get(self.score)
            if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
                out.append(float(v))
            elif self.missing == "skip":
                out.append(None)
            else:
                out.append(0.0 if self.missing == "zero" else float(self.missing))
        return out

    def values(self, records: Sequence[SampleRecord]) -> list[float]:
        """The per-sample values the metric averages (the records it leaves out are not there)."""
        return [v for v in self.per_sample(records) if v is not None]

    def present(self, records: Sequence[SampleRecord]) -> bool:
        """Whether the summary shows the metric: always, unless it is ``optional`` and no record has its score."""
        return not self.optional or any(
            self.score in r.scores and all(_holds(r, c) for c in self.within) for r in records
        )

    def value(self, values: Sequence[float]) -> float | None:
        """The metric over ``values`` (:meth:`values`): their mean (``sum / len``, bit for bit the systems' own
        :func:`mindloop.metrics.stats.mean`) times the scale, rounded to ``digits``; ``None`` without values."""
        if not values:
            return None
        mean = self.scale * (sum(values) / len(values))
        return mean if self.digits is None else round(mean, self.digits)

    def to_json(self) -> dict[str, Any]:
        """The definition as the run store keeps it beside the summary it produced."""
        out = {key: getattr(self, key) for key in ("name", "score", "kind", "scale", "missing")}
        out |= {"groupings": [g.to_json() for g in self.groupings], "description": self.description}
        extra = {
            "within": list(self.within) or None,
            "failed": None if self.failed == "score" else self.failed,
            "optional": self.optional or None,
            "digits": self.digits,
            "table": self.table,
        }
        return out | {k: v for k, v in extra.items() if v is not None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Metric:
        """A stored definition read back."""
        given = {k: data[k] for k in ("kind", "missing", "description", "failed", "digits", "table") if k in data}
        groupings = tuple(Grouping.from_json(g) for g in data["groupings"])
        within, optional = tuple(data.get("within", ())), bool(data.get("optional", False))
        scale = float(data.get("scale", 1.0))
        return cls(
            data["name"], data["score"], **given, scale=scale, groupings=groupings, within=within, optional=optional
        )


# -- reference policies -------------------------------------------------------------------------------------------


ReferenceKind = Literal["chance", "constant", "trivial", "oracle"]
"""What a reference policy is: ``chance`` (a uniform guess, computed exactly), ``constant`` (one answer for every
item, e.g. the train split's most frequent gold per question type), ``trivial`` (another policy that needs no
thought: never intervene, answer without exploring) or ``oracle`` (the gold answer, or the symbolic engine)."""

REFERENCE_KINDS: tuple[ReferenceKind, ...] = ("chance", "constant", "trivial", "oracle")


@dataclass(frozen=True)
class ReferencePolicy:
    """A policy that needs no model, scored on a run's own samples beside the model (DESIGN.md section 8):
    chance, the best constant answer, a trivial policy (never intervene), the oracle. ``value`` gives the
    headline metric the policy reaches on these samples (``None`` when it cannot say). ``kind`` places it among
    :data:`REFERENCE_KINDS`; ``optimistic`` marks a value fitted on the evaluated items themselves (a best constant
    answer where the benchmark has no train split), which no honest policy could know in advance. ``none_reason``
    says when and why ``value`` gives ``None`` (e.g. "no question offers choices"). ``summary_key``: the key under
    which the benchmark's own summary also reports this policy per breakdown row (``by_type.<t>.chance``); such a
    leaf is a reference value, not a measurement, and gets no interval and no paired test."""

    name: str
    description: str
    value: Callable[[Sequence[Sample]], float | None]
    kind: ReferenceKind = "trivial"
    optimistic: bool = False
    none_reason: str = ""
    summary_key: str | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise _refuse("reference policy", "it needs a name")
        if self.kind not in REFERENCE_KINDS:
            raise _refuse(f"reference policy {self.name!r}", f"kind must be one of {', '.join(REFERENCE_KINDS)}")

    def to_json(self) -> dict[str, Any]:
        """The policy as the run store keeps it beside the values (its function is not kept)."""
        return {key: getattr(self, key) for key in ("name", "kind", "description", "optimistic", "none_reason")}


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def chance_policy(
    choices: Callable[[Sample], int], scale: float = 1.0, *, summary_key: str | None = None
) -> ReferencePolicy:
    """Guessing uniformly among a sample's choices: the exact expected accuracy, the mean of ``1 / choices`` over
    the samples that offer any (``choices`` gives 0 for one that lists none: it is left out).

    >>> round(chance_policy(lambda s: len(s.input["choices"])).value([Sample("a", {"choices": [1, 2]})]), 3)
    0.5
    """

    def value(samples: Sequence[Sample]) -> float | None:
        counts = [choices(s) for s in samples]
        mean = _mean([1.0 / c for c in counts if c > 0])
        return None if mean is None else scale * mean

    return ReferencePolicy(
        "chance",
        "a uniform guess among each question's choices (exact expectation)",
        value,
        kind="chance",
        none_reason="no evaluated question offers choices (open answers)",
        summary_key=summary_key,
    )


def oracle_policy(scale: float = 1.0) -> ReferencePolicy:
    """Answering every sample with its gold answer: the ceiling of a per-sample accuracy."""
    return ReferencePolicy(
        "oracle",
        "answers every sample with its gold answer",
        lambda s: scale if s else None,
        kind="oracle",
        none_reason="no samples",
    )


# -- suites ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PresetEntry:
    """How one benchmark runs in one preset: ``n`` samples (``None``: the whole set), ``options`` (``--opt``
    strings) for every run, ``with_model`` options added only when a model drives the agents (they bound a model's
    cost; symbolic agents need no bound), and ``why`` this size."""

    n: int | None
    why: str
    options: Mapping[str, str] = field(default_factory=dict)
    with_model: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.n is not None and self.n < 1:
            raise _refuse("preset entry", f"n must be at least 1 (or None for the whole set), got {self.n}")


@dataclass(frozen=True)
class Suite:
    """A benchmark's place in suites: its ``order`` among them (lower first, then by name), ``excluded`` (why a
    suite leaves it out unless ``--only`` names it; ``None``: every suite with a model agent runs it) and its
    ``presets`` (:data:`PRESET_NAMES`; a preset it does not name takes the core's default)."""

    order: int = 1000
    excluded: str | None = None
    presets: Mapping[str, PresetEntry] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.presets) - set(PRESET_NAMES))
        if unknown:
            raise _refuse("suite", f"unknown preset {unknown[0]!r}; presets: {', '.join(PRESET_NAMES)}")


# -- paper tables ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """One column of a paper's table: the metric at ``path`` (inside the row's prefix) of benchmark ``bench``
    (default: the row's, else the table's), times ``scale``, printed with ``digits`` decimals, under ``group``.
    ``filled_by``: what fills the column's cells when a run's samples do not reach them: a preset name (``paper``:
    "--preset paper fills it"), or words said as they are (``data=FILE (the OmniToM release) fills it``, or why the
    cell has no value by definition); the suite report says so in each empty cell."""

    label: str
    path: tuple[str, ...]
    group: str = ""
    scale: float = 1.0
    digits: int = 2
    bench: str | None = None
    filled_by: str = ""


@dataclass(frozen=True)
class Row:
    """One row: its label (``{method}`` is the model, or the agent without one) and where its metrics are: the
    ``prefix`` inside the summary (``("by_task", "wash_dishes")``; empty for the run-wide values) of ``bench``;
    ``filled_by`` as :class:`Column`'s, for the row's cells."""

    label: str
    prefix: tuple[str, ...] = ()
    bench: str | None = None
    filled_by: str = ""


@dataclass(frozen=True)
class PaperTable:
    """A paper's headline table as the suite report lays it out: the paper's columns, in its order and scale."""

    key: str
    paper: str
    title: str
    bench: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    note: str = ""
    nav: str = ""
    """The page's table of contents names the table by its paper, and this when one paper has several tables."""

    def __post_init__(self) -> None:
        if not self.key or not self.columns or not self.rows:
            raise _refuse(f"paper table {self.key!r}", "a table needs a key, columns and rows")

    def benchmarks(self) -> set[str]:
        """Every benchmark a cell of this table reads."""
        return {self.bench} | {c.bench for c in self.columns if c.bench} | {r.bench for r in self.rows if r.bench}


# -- generation -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Generation:
    """The sampling settings the benchmark's paper states (``None``: mindloop's default), and where it says so.
    A run uses them unless ``--temperature`` / ``--max-tokens`` are given (:mod:`mindloop.bench.generation`)."""

    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    source: str = ""

    def __post_init__(self) -> None:
        if self.temperature is not None and not 0.0 <= self.temperature <= 2.0:
            raise _refuse("generation", f"temperature must be from 0 to 2, got {self.temperature}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise _refuse("generation", f"max_tokens must be at least 1, got {self.max_tokens}")
        if self.top_p is not None and not 0.0 < self.top_p <= 1.0:
            raise _refuse("generation", f"top_p must be in (0, 1], got {self.top_p}")

    def values(self) -> dict[str, Any]:
        """The fields it sets, by name."""
        return {name: v for name in GENERATION_FIELDS if (v := getattr(self, name)) is not None}


# -- the declaration ------------------------------------------------------------------------------------------------


Scorer = Callable[[Sample, Outcome], dict[str, float]]
"""Scores one answered sample: from the sample (its ``target``, ``choices``) and what the agent returned (its
output and its own scores: ``covered``, ``parsed``), the sample's scores by name, the agent's included. The runner
calls it once per sample the agent answered (an agent that raised has nothing to score)."""


@dataclass(frozen=True)
class SmallRun:
    """A small run of the benchmark, for tests and checkers that run every registered benchmark: ``n`` samples
    (``None``: all) with these ``options`` and ``agent`` (``None``: the default). A benchmark whose only agents need
    a model names a scripted ``model`` (``scripted/echo``) or a ``reply`` every call gets. A benchmark that reads a
    released file names the test excerpt it runs on as ``data``: a file or folder name the test suite resolves
    (under ``tests/*/data/``), never a path, since the package does not ship its tests."""

    n: int | None = 2
    options: tuple[tuple[str, str], ...] = ()
    agent: str | None = None
    model: str | None = None
    reply: str | None = None
    data: str | None = None

    def __post_init__(self) -> None:
        if self.n is not None and self.n < 1:
            raise _refuse("small run", f"n must be at least 1, got {self.n}")
        if self.model is not None and self.reply is not None:
            raise _refuse("small run", "give a scripted model or a reply, not both")
        if self.data is not None and ("/" in self.data or not self.data.strip()):
            raise _refuse("small run", f"data names a test excerpt, not a path: got {self.data!r}")


@dataclass(frozen=True)
class Decided:
    """Who decided a model run's numbers, for a benchmark where something other than the model (MindClaw's strong
    skills) makes some of the decisions a metric counts. ``model`` and ``total``: the summary's integer keys of the
    ``unit``s the model decided (with a reply that could be read) and of every unit; ``beside``: the metrics that
    count every unit, whoever decided (the paper's whole-trigger ACC), which every view shows with "model decided
    k of N"; ``own``: the metric over the model's decisions alone. A model run whose model decided none is ranked
    on no number (:meth:`influenced`)."""

    model: str
    total: str
    unit: str = "decisions"
    beside: tuple[str, ...] = ()
    own: str | None = None

    def counts(self, metrics: Mapping[str, Any]) -> tuple[int, int] | None:
        """``(k, N)`` from a summary (``None``: it holds neither, or no unit was decided at all)."""
        k, total = metrics.get(self.model), metrics.get(self.total)
        if not isinstance(k, int) or not isinstance(total, int) or isinstance(k, bool) or total <= 0:
            return None
        return k, total

    def text(self, metrics: Mapping[str, Any]) -> str | None:
        """``model decided 0 of 256 windows`` (``None``: the summary does not say)."""
        got = self.counts(metrics)
        return None if got is None else f"model decided {got[0]} of {got[1]} {self.unit}"

    def line(self, metrics: Mapping[str, Any], fmt: Callable[[float], str] = "{:.4f}".format) -> str | None:
        """What every view shows beside the metrics that count every unit: ``model decided 0 of 256 windows · acc
        1.0000, acc_no_noop 1.0000 over every decision, whoever decided · acc_model –`` (``None``: the summary
        does not say)."""
        text = self.text(metrics)
        if text is None:
            return None

        def shown(key: str) -> str:
            value = metrics.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
                return f"{key} {fmt(float(value))}"
            return f"{key} –"

        parts = [text]
        if self.beside:
            parts.append(f"{', '.join(shown(k) for k in self.beside)} over every decision, whoever decided")
        if self.own:
            parts.append(f"{shown(self.own)} over the model's own")
        return " · ".join(parts)

    def influenced(self, metrics: Mapping[str, Any]) -> bool:
        """Whether the model decided anything the summary counts (``True`` when the summary does not say)."""
        got = self.counts(metrics)
        return got is None or got[0] > 0

    def to_json(self) -> dict[str, Any]:
        """As the run store keeps it beside the summary."""
        return {"model": self.model, "total": self.total, "unit": self.unit, "beside": list(self.beside)} | (
            {"own": self.own} if self.own else {}
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Decided | None:
        """A stored declaration read back (``None`` for none)."""
        if not isinstance(data, Mapping) or "model" not in data or "total" not in data:
            return None
        own = None if data.get("own") is None else str(data["own"])
        unit, beside = str(data.get("unit", "decisions")), tuple(data.get("beside", ()))
        return cls(str(data["model"]), str(data["total"]), unit, beside, own)


@dataclass(frozen=True)
class BenchmarkSpec:
    """Everything the core knows about a benchmark beyond its samples, agents and options.

    ``headline``: the number ``runs`` lists and ``compare`` leads with (``None``: the first top-level number of
    the summary, higher being better). ``metrics``: the declared metrics (summaries, intervals and paired tests
    come from them; ``summarize`` adds what a declaration cannot say). ``references``: the reference policies.
    ``suite``, ``paper_tables``, ``generation``: as their classes say. ``calls_per_sample``: the model calls one
    sample usually takes (a run's first estimate). ``aliases``: other names it answers to. ``team_option``: the
    option that sets how many agents play a run, for team benchmarks. ``no_intervals``: top-level summary keys
    that count repeated samples, which resampling would create, so they get no interval. ``resampled``: the
    declared rule for top-level keys that ``summarize`` computes and no :class:`Metric` can say (F1 over pooled
    counts, macro-F1, ratios of sums): their numbers get the percentile bootstrap of ``summarize`` over resampled
    samples. A summary number that is neither a declared metric's nor under a ``resampled`` key gets no
    interval, and the intervals say so (:func:`mindloop.bench.uncertainty.bootstrap_intervals`). ``glossary``:
    what the summary's other keys mean, one line each (the run report shows it beside the declared metrics'
    descriptions). ``decided``: who decided a model run's numbers (:class:`Decided`). ``small``: a small run of
    it (:class:`SmallRun`). ``checked_against``: for a benchmark that reads a released file, what its loader was
    checked against: the ``released file`` itself, or only the ``authors' code`` that reads it (the file was out
    of reach); ``bench list`` says which. ``scorer``: how an answered sample is scored
    (:data:`Scorer`), so agents answer and the declaration scores; ``None``: the agents' outcomes carry their
    scores (an episode scored by its simulator). ``version``: the declaration's version, raised whenever a change
    to it (a scorer, a metric, how targets are read) changes what a run's numbers mean; it is part of every run's
    comparability key (:mod:`mindloop.bench.key`), so runs scored under different versions are never ranked
    together. Declarations start at 1; runs stored before versions were recorded are keyed as version 1."""

    headline: Headline | None = None
    metrics: tuple[Metric, ...] = ()
    references: tuple[ReferencePolicy, ...] = ()
    suite: Suite = field(default_factory=Suite)
    paper_tables: tuple[PaperTable, ...] = ()
    generation: Generation = field(default_factory=Generation)
    calls_per_sample: float | None = None
    aliases: tuple[str, ...] = ()
    team_option: str | None = None
    no_intervals: tuple[str, ...] = ()
    resampled: tuple[str, ...] = ()
    glossary: Mapping[str, str] = field(default_factory=dict)
    small: SmallRun = field(default_factory=SmallRun)
    scorer: Scorer | None = None
    version: int = 1
    decided: Decided | None = None
    checked_against: Literal["released file", "authors' code"] | None = None

    def __post_init__(self) -> None:
        what = "benchmark declaration"
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 1:
            raise _refuse(what, f"version must be a whole number of at least 1, got {self.version!r}")
        for kind, names in (
            ("metric", [".".join(m.path) for m in self.metrics]),
            ("reference policy", [r.name for r in self.references]),
            ("paper table", [t.key for t in self.paper_tables]),
            ("alias", list(self.aliases)),
            ("resampled key", list(self.resampled)),
        ):
            dup = next((n for i, n in enumerate(names) if n in names[:i]), None)
            if dup is not None:
                raise _refuse(what, f"{kind} {dup!r} is declared twice")
        if any(not a or a != a.strip() for a in self.aliases):
            raise _refuse(what, f"an alias must be a non-empty name, got {self.aliases!r}")
        both = sorted(set(self.resampled) & set(self.no_intervals))
        if both:
            raise _refuse(what, f"{both[0]!r} is both resampled and in no_intervals")
        if "" in self.resampled:
            raise _refuse(what, "a resampled key must be named")
        if self.checked_against not in (None, "released file", "authors' code"):
            raise _refuse(
                what, f"checked_against is 'released file' or \"authors' code\", got {self.checked_against!r}"
            )
        if self.calls_per_sample is not None and not self.calls_per_sample > 0:
            raise _refuse(what, f"calls_per_sample must be positive, got {self.calls_per_sample}")

    def metric(self, name: str) -> Metric | None:
        """The declared metric at the top level named ``name``, or at ``table.name`` (``None``: not declared)."""
        return next((m for m in self.metrics if ".".join(m.path) == name), None)

"""``mindloop report RUN_ID``: one self-contained HTML file per benchmark run.

The page needs no server and no network: styles, script and figures are inline, and it works from ``file://``.
The run's metadata, metric tables, failure and bug kinds and figures are static HTML rendered by Jinja2 from
``report.html``; this module only prepares the values (numbers formatted, tables laid out) as plain data. The
samples travel as one embedded JSON blob that the page's script filters, sorts and pages through (200 rows at a
time), so a run of 10,000 samples still opens quickly. Long strings that repeat across samples (story lines
shared by several questions, a prompt echoed back as the reply) are stored once in a string table.

The page tells one story in its tables and its figures: every metric table cell carries its raw value
(``data-table``/``data-group``/``data-col``/``data-value``), every figure the numbers it drew (``data-plot``), and
the per-group figure draws the very table shown above it (the benchmark's per-group table, or the report's own
table of score means when the summary has none; see :mod:`mindloop.bench.report.plots`). A structured gold
answer (a dict) is shown as ``key: value`` lines, never as a truncated JSON blob.

Everything from datasets and models is escaped: the template autoescapes every value it prints, the JSON blob
has ``<``, ``>`` and ``&`` written as ``\\u`` escapes so nothing in it can close its ``<script>`` element (it is
the one value marked safe), and the script builds the sample views with ``textContent`` (never ``innerHTML``)
and shows only ``data:image/`` URLs as images.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeGuard

from mindloop._version import __version__
from mindloop.bench.api import Benchmark, SampleRecord
from mindloop.bench.headline import Headline, ReferenceMark, headline_of, mark_text, reference_marks
from mindloop.bench.records import answer_of, question_of
from mindloop.bench.registry import installed_benchmark
from mindloop.bench.report.plots import (
    SCORE_TABLE,
    _is_table,
    _keys,
    _short,
    _title,
    fmt_number,
    headline_plot,
    main_metric,
    mean_scores,
    per_group_tables,
    report_plots,
    score_table,
)
from mindloop.bench.report.view import footer, render, script_json
from mindloop.bench.runner import benchmark_metrics, current_summary, metric_intervals, stored_policies, token_totals
from mindloop.bench.scoring import reference_values
from mindloop.bench.store import RunInfo, RunStore
from mindloop.bench.tables import dig, interval_at, json_safe
from mindloop.bench.timeline import EpisodeTimeline, episode_timeline
from mindloop.bench.uncertainty import without_interval
from mindloop.models.replies import reply_outcomes
from mindloop.paths import output_file, write_atomic

_MAX_SCORE_COLUMNS = 4
_CELL_CHARS = 160
"""Characters of a table cell; the drill-down shows the full text."""

_CELL_FIELDS = 6
"""Fields of a structured gold (or answer) listed as ``key: value`` lines in its table cell; the drill-down shows
them all."""

_FIELD_CHARS = 80
"""Characters of one ``key: value`` line's value in a table cell."""

_WIDE_COLUMNS = 4
"""A breakdown table with at least this many value columns spans the full width of the metrics section."""

_MAX_ERROR_KINDS = 12
"""Error kinds listed in the failures and bugs tables (the most frequent ones)."""

_INTERN_MIN_CHARS = 24
"""JSON string literals at least this long (quotes included) that occur more than once are stored once, in the
blob's string table."""


def render_report(run_id: str, store: RunStore) -> str:
    """The HTML report of ``run_id`` (an unknown id raises the store's :class:`InvalidArgumentError`)."""
    info = store.run(run_id)
    records = store.records(run_id, include_pending=True)
    finished = [r for r in records if r.status != "pending"]
    bench = installed_benchmark(info.benchmark)
    kept = store.stored_summary(run_id) or {}  # whatever its counts: its reference policies and definitions
    metrics, tokens, intervals, source = _summary(current_summary(kept, info), finished, bench)
    bounds = intervals.get("metrics", {})
    groups = {r.sample.group for r in records}
    head = headline_of(info.benchmark, metrics)
    values, policies = _references(kept, bench, finished)
    marks = reference_marks(values, policies, head.higher_is_better if head else True)
    panels = _metric_panels(metrics, groups, bounds, head, marks)
    chosen = per_group_tables(metrics, records)
    if chosen is not None and chosen[2]:  # the report's own table, shown because the per-group figure draws it
        overall = [k for k, v in metrics.items() if _is_number(v)]
        note = (
            "Computed by the report (the benchmark's summary has no per-group table): the mean of each per-sample "
            "score over the group's finished samples; a failed sample without that score counts as 0, a done "
            "sample without it is left out."
        )
        panels.append(_breakdown(chosen[0], chosen[1], overall, groups, title="mean score per group", note=note))
    timelines = [episode_timeline(bench, r) for r in records] if bench is not None else []
    first, judged = _score_order(bench, head)
    at = 1 if panels and panels[0].title == "Summary" else 0  # the glossary, then the reference policies
    extra = (_glossary(bench, kept, metrics), _reference_panel(values, policies, head))
    panels[at:at] = [p for p in extra if p is not None]
    return render(
        "report",
        title=f"{info.run_id} · mindloop report",
        header=_header(info, metrics, tokens, bounds, head, marks),
        run_panels=_run_panels(info, tokens),
        metric_panels=panels,
        interval_note=" ".join(t for t in (source, interval_note(intervals)) if t),
        decided=_decided(bench, info, metrics, finished),
        plots=report_plots(
            metrics,
            records,
            headline=head.metric if head else None,
            marks=marks,
            first=_headline_plot(head, metrics, intervals, marks),
        ),
        bugs=_error_table(records, "bug"),
        failures=_error_table(records, "failed"),
        data=script_json(None, text=_blob(records, first=first, judged=judged, timelines=timelines)),
        episodes=bool(any(timelines)),
        footer=footer(store.path.name),
    )


def write_report(run_id: str, store: RunStore, out: Path | None = None) -> Path:
    """Write the report of ``run_id`` to ``out`` (default ``RUN_ID.html`` in the current directory; a directory
    gets ``RUN_ID.html`` inside it) and return the path written. The file is written whole or not at all
    (:func:`~mindloop.paths.write_atomic`): a full disk leaves no truncated page."""
    text = render_report(run_id, store)
    return write_atomic(output_file(None if out is None else Path(out), f"{run_id}.html"), text)


# -- numbers --------------------------------------------------------------------------------------------------


def _summary(
    stored: dict[str, Any] | None, finished: Sequence[SampleRecord], bench: Benchmark | None
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], str]:
    """The run's metrics, token ledger, metric intervals and a line saying where the numbers come from: the
    summary stored with the run (``stored``, given when it covers every finished sample: the numbers the run
    reported), else
    computed as :func:`~mindloop.bench.runner.summarize_run` does from the records already read; a generic
    summary (mean of every score, overall and per group, by :func:`~mindloop.bench.report.plots.mean_scores`: a
    failed sample without a score counts as 0) with no intervals when the benchmark (``bench``) is no longer
    registered."""
    tokens = token_totals(finished)
    tokens["cut_at_limit"] = reply_outcomes((c for r in finished for c in r.calls), None).get("cut_at_limit", 0)
    if stored is not None:
        how = "as the run reported them" if stored.get("computed_by") == "run" else "computed after the run"
        return stored["metrics"], tokens, stored["intervals"], f"Metrics {how}, by mindloop {stored.get('version')}."
    if bench is not None:
        metrics = benchmark_metrics(bench, finished)
        return metrics, tokens, metric_intervals(bench, finished, metrics), ""
    generic: dict[str, Any] = mean_scores(finished)
    by_group = score_table(finished, limit=None)
    if len(by_group) > 1:
        generic["by_group"] = by_group
    return generic, tokens, {}, ""


def _references(
    stored: Mapping[str, Any], bench: Benchmark | None, finished: Sequence[SampleRecord]
) -> tuple[dict[str, float | None], list[Mapping[str, Any]]]:
    """Every reference policy's value (by name) and stored definition (name, kind, description, optimistic): as the
    run's ``stored`` summary keeps them, else computed for ``bench`` from the ``finished`` samples."""
    if stored.get("references"):
        return dict(stored["references"]), stored_policies(stored)
    if bench is None or not bench.spec.references:
        return {}, []
    return reference_values(bench, finished), stored_policies(None, bench)


def _reference_panel(
    values: Mapping[str, float | None], policies: Sequence[Mapping[str, Any]], head: Headline | None
) -> _Panel | None:
    """Every reference policy of the run with its headline value, its kind and what it does."""
    if not values:
        return None
    described = {str(p.get("name")): p for p in policies}
    rows = []
    for name, value in values.items():
        policy = described.get(name, {})
        what = ", ".join(
            t for t in (str(policy.get("kind") or ""), "optimistic" if policy.get("optimistic") else "") if t
        )
        note = " · ".join(t for t in (what, str(policy.get("description") or "")) if t)
        rows.append((name, fmt_value(value), note, ""))
    metric = head.metric if head is not None else "the headline"
    return _Panel(
        "Reference policies",
        "kv",
        rows,
        "kv metric reflist",
        note=f"{metric} reached on this run's samples by policies that need no model (marked on the headline's "
        "plots and beside it above).",
    )


def marks_text(marks: Sequence[ReferenceMark], fmt: Any = None, scale: float = 1.0) -> str:
    """``chance 0.250 · best trivial 0.400 [never] · oracle 1.000``: the marks in words (each value times
    ``scale``, by ``fmt``, default :func:`~mindloop.bench.report.plots.fmt_number`; ``–`` for none)."""
    show = fmt or fmt_number
    return " · ".join(mark_text(mark, lambda value: show(float(value) * scale)) for mark in marks)


def _score_order(bench: Benchmark | None, head: Headline | None) -> tuple[list[str], list[str]]:
    """The per-sample scores shown first in the sample table (the headline's, then the declared metrics'), and
    those that say right (1) or wrong (0) of a sample: the declared proportions' scores and the headline's when it
    is a per-sample score too (claw's ``pia``: 1 on a control when the robot stayed out)."""
    declared = list(bench.spec.metrics) if bench is not None else []
    first = ([head.metric] if head is not None else []) + [m.score for m in declared]
    judged = [m.score for m in declared if m.kind == "proportion"] + ([head.metric] if head is not None else [])
    return first, judged


def _glossary(bench: Benchmark | None, stored: Mapping[str, Any], metrics: Mapping[str, Any]) -> _Panel | None:
    """What each metric of the run means, one line each: the descriptions of the declared metrics (kept with its
    ``stored`` summary, else the benchmark's) and the benchmark's glossary, for the keys its summary has."""
    lines: dict[str, str] = {}
    for m in (stored.get("definitions") or {}).get("metrics") or []:
        if m.get("description") and not m.get("table"):  # a metric inside another key is not the top-level one
            lines.setdefault(str(m["name"]), str(m["description"]))
    if bench is not None:
        for metric in bench.spec.metrics:
            if metric.description and not metric.table:
                lines.setdefault(metric.name, metric.description)
        for key, text in bench.spec.glossary.items():
            lines.setdefault(key, text)
    present = set(metrics) | {str(k) for v in metrics.values() if _is_table(v) for row in v.values() for k in row}
    rows = [(k, text, "", "") for k, text in lines.items() if k in present]
    if not rows:
        return None
    return _Panel("Metric definitions", "kv", rows, "kv defs", note="What each number on this page measures.")


def _headline_plot(
    head: Headline | None, metrics: Mapping[str, Any], intervals: Mapping[str, Any], marks: Sequence[ReferenceMark]
) -> Any:
    """The headline figure (its value, the interval ``intervals`` holds for it, and reference marks), or ``None``
    without a numeric headline."""
    if head is None or not _is_number(metrics.get(head.metric)):
        return None
    interval = interval_at(intervals, (head.metric,))
    return headline_plot(head.metric, float(metrics[head.metric]), interval, marks, head.higher_is_better)


def ci_text(bound: Any) -> str:
    """An interval ``{"low", "high"}`` as ``[0.790, 0.834]`` (empty when there is none)."""
    if not isinstance(bound, Mapping) or not _is_number(bound.get("low")) or not _is_number(bound.get("high")):
        return ""
    return f"[{fmt_number(float(bound['low']))}, {fmt_number(float(bound['high']))}]"


_NO_INTERVAL = "—"
"""Shown where a metric (a float) has no interval: the intervals' ``none`` says why."""


def ci_or_dash(bound: Any, value: Any) -> str:
    """:func:`ci_text`, or ``—`` for a metric (a float, not a count) without an interval."""
    text = ci_text(bound)
    return text or (_NO_INTERVAL if isinstance(value, float) and math.isfinite(value) else "")


def se_text(bound: Any) -> str:
    """A standard error as ``SE 0.0040`` (empty when there is none)."""
    se = bound.get("se") if isinstance(bound, Mapping) else None
    return f"SE {se:.2g}" if _is_number(se) and se < 0.01 else f"SE {fmt_number(float(se))}" if _is_number(se) else ""


def _decided(
    bench: Benchmark | None, info: RunInfo, metrics: Mapping[str, Any], finished: Sequence[SampleRecord]
) -> str:
    """For a model run: how many of the model's replies (of the ``finished`` samples) could not be read, and, where
    the benchmark declares who decided, ``model decided k of N windows`` beside the metrics that count every
    decision (empty otherwise)."""
    if not info.model:
        return ""
    from mindloop.bench.runner import reply_totals

    parts = []
    replies = reply_totals(finished)
    if replies:
        parts.append(f"{replies.get('rejected', 0)} of the model's replies could not be read")
    decided = None if bench is None or bench.spec.decided is None else bench.spec.decided.line(metrics, fmt_value)
    if decided:
        parts.append(decided)
    return " · ".join(parts)


def interval_note(intervals: Mapping[str, Any]) -> str:
    """One line saying how the intervals were computed (empty when the run has none)."""
    if not intervals or "method" not in intervals:
        return ""
    level = round(100 * float(intervals.get("level", 0.95)))
    note = (
        f"Brackets: {level}% confidence intervals, {intervals['method']} ({intervals.get('resamples', '?')} "
        f"resamples of the {intervals.get('n', '?'):,} finished samples, seed {intervals.get('seed', '?')}); SE: "
        "standard error, for metrics that are means of per-sample scores. A count has no interval."
    )
    gone = "; ".join(f"{why}: {', '.join(paths)}" for why, paths in without_interval(intervals))
    if gone:
        note += f" {_NO_INTERVAL} (no interval) where {gone}."
    if intervals.get("error"):
        note += f" {intervals['error']}."
    return note


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def fmt_value(value: Any) -> str:
    """A metric value for a table cell: integers with separators, fractions to three places."""
    if value is None:
        return "–"  # not scored: no data, never a zero
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):  # the bars of the figures are labelled the same way; no number is not scored
        return fmt_number(value) if math.isfinite(value) else "–"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.2f} s"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {secs:02d} s"


# -- what the template shows: plain data, formatted, never HTML ---------------------------------------------------


@dataclass(frozen=True)
class Card:
    """A header card, of a run report or a comparison."""

    value: str
    label: str
    tone: str = ""  # "bad" (red) or "warn" (amber); a comparison's "good", "bad" or "sig"
    ci: str = ""  # the 95% interval, for metrics; a comparison's paired difference
    refs: str = ""  # the headline's reference policies in words


@dataclass(frozen=True)
class _Header:
    run_id: str
    sub: list[str]
    cards: list[Card]


@dataclass(frozen=True)
class Cell:
    """A metric table's cell, of a run report or a comparison."""

    text: str
    bar: float | None = None  # percent width of the inline bar, for the table's main metric in [0, 1]
    col: str = ""  # the column's name (data-col)
    raw: str = ""  # the value as JSON (data-value), "" when the row has no such column
    ci: str = ""  # the value's 95% interval, "[low, high]"
    low: str = ""  # its bounds as JSON (data-low, data-high)
    high: str = ""
    tone: str = ""  # a comparison's difference: "good", "bad" or "sig" (significant, direction unknown)
    note: str = ""  # a line under the value (reference policies, a difference's p-value)


@dataclass(frozen=True)
class _Row:
    key: str
    cells: list[Cell]
    link: bool = False  # a sample group: clicking the row filters the sample table


@dataclass(frozen=True)
class _Panel:
    """A titled panel: a two-column table (``kind="kv"``) or a breakdown grid (``kind="grid"``)."""

    title: str
    kind: str
    rows: list[tuple[str, str, str, str]] = field(default_factory=list)  # key, value, interval, references
    cls: str = "kv"
    head: str = ""
    columns: list[str] = field(default_factory=list)
    grid: list[_Row] = field(default_factory=list)
    name: str = ""  # the metrics key of a breakdown (data-table)
    wide: bool = False  # spans the full width of its section
    note: str = ""  # a line under the title


@dataclass(frozen=True)
class _ErrorKind:
    count: str
    share: str
    kind: str
    query: str  # the text filter that finds these samples


@dataclass(frozen=True)
class _ErrorTable:
    """The failures (or bugs) of a run by kind, most frequent first."""

    total: str
    kinds: list[_ErrorKind]
    more: int


def _flatten(prefix: str, value: Any) -> list[tuple[str, Any]]:
    """Nested config as dotted keys (``generation.temperature``); empty dicts shown as ``{}``."""
    if isinstance(value, Mapping) and value:
        out: list[tuple[str, Any]] = []
        for k, v in value.items():
            out.extend(_flatten(f"{prefix}.{k}" if prefix else str(k), v))
        return out
    return [(prefix, "{}" if isinstance(value, Mapping) else ("—" if value is None else value))]


def _when(stamp: str) -> str:
    """An ISO timestamp as ``2026-01-02 03:04:05 UTC`` (left alone when it does not parse)."""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.utcoffset() is not None and not moment.utcoffset():
        return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    return moment.isoformat(sep=" ")


def _kv(
    rows: Sequence[tuple[str, Any]],
    *,
    raw: bool = False,
    bounds: Mapping[str, Any] | None = None,
    refs: Mapping[str, str] | None = None,
) -> list[tuple[str, str, str, str]]:
    """Rows of a two-column table; ``raw`` shows values as given (configuration) instead of formatted as metrics;
    ``bounds`` holds the metrics' intervals by key (each row's third field: ``[low, high] · SE x`` or empty);
    ``refs`` the reference policies to show beside a key (the headline's), in words."""
    out = []
    for k, v in rows:
        bound = (bounds or {}).get(k)
        extra = " · ".join(t for t in (ci_text(bound) if raw else ci_or_dash(bound, v), se_text(bound)) if t)
        shown = json.dumps(v, ensure_ascii=False, default=str) if raw and not isinstance(v, str) else fmt_value(v)
        out.append((k, shown, extra, (refs or {}).get(k, "")))
    return out


def _header(
    info: RunInfo,
    metrics: Mapping[str, Any],
    tokens: Mapping[str, Any],
    bounds: Mapping[str, Any],
    head: Headline | None = None,
    marks: Sequence[ReferenceMark] = (),
) -> _Header:
    """The page's header: the headline first (labelled so, with its interval and reference policies), then the
    next top-level metrics, then the counts."""
    pending = info.n - info.n_completed
    numbers = [(k, v) for k, v in metrics.items() if _is_number(v)]
    if head is not None and _is_number(metrics.get(head.metric)):
        numbers.sort(key=lambda kv: kv[0] != head.metric)
    cards = [
        Card(
            fmt_value(v),
            f"{k} · headline" if head is not None and k == head.metric else k,
            ci=ci_or_dash(bounds.get(k), v),
            refs=marks_text(marks) if head is not None and k == head.metric else "",
        )
        for k, v in numbers[:4]
    ]
    cards += [Card(f"{info.n:,}", "samples"), Card(f"{info.n_done:,}", "done")]
    cards.append(Card(f"{info.n_failed:,}", "failed", "bad" if info.n_failed else ""))
    if info.n_bugs:
        cards.append(Card(f"{info.n_bugs:,}", "bugs", "bad"))
    if pending:
        cards.append(Card(f"{pending:,}", "pending", "warn"))
    cards.append(Card(_duration(info.seconds), "wall clock"))
    if tokens.get("calls"):
        cards.append(Card(f"{tokens.get('total_tokens', 0):,}", "tokens"))
    state = "complete" if pending == 0 else f"{pending:,} pending"
    model = f"model {info.model}" if info.model else "no model"
    return _Header(info.run_id, [info.benchmark, f"agent {info.agent}", model, state], cards)


def _run_panels(info: RunInfo, tokens: Mapping[str, Any]) -> list[_Panel]:
    bugs = f", {info.n_bugs:,} bugs" if info.n_bugs else ""
    meta = [
        ("run id", info.run_id),
        ("benchmark", info.benchmark),
        ("agent", info.agent),
        ("model", info.model or "— (no model)"),
        ("started", _when(info.started)),
        ("finished", _when(info.finished) if info.finished else "— (not finished)"),
        ("seconds", round(info.seconds, 3)),
        (
            "samples",
            f"{info.n:,} ({info.n_done:,} done, {info.n_failed:,} failed{bugs}, {info.n - info.n_completed:,} pending)",
        ),
        ("mindloop version (run)", info.version),
        ("mindloop version (report)", __version__),
    ]
    cfg = info.config
    ordered: dict[str, Any] = {k: cfg[k] for k in ("seed", "n", "options", "generation") if k in cfg}
    ordered.update({k: v for k, v in cfg.items() if k not in ordered})
    config = _flatten("", ordered) if ordered else [("(none recorded)", "—")]
    ledger = [
        ("model calls", tokens.get("calls", 0)),
        ("failed calls", tokens.get("failed_calls", 0)),
        ("cache hits", tokens.get("cache_hits", 0)),
        ("prompt tokens", tokens.get("prompt_tokens", 0)),
        ("completion tokens", tokens.get("completion_tokens", 0)),
        ("total tokens", tokens.get("total_tokens", 0)),
        ("replies cut at the token limit", tokens.get("cut_at_limit", 0)),
    ]
    return [
        _Panel("Run", "kv", _kv(meta)),
        _Panel("Configuration", "kv", _kv(config, raw=True)),
        _Panel("Token ledger", "kv", _kv(ledger)),
    ]


def _metric_panels(
    metrics: Mapping[str, Any],
    groups: set[str],
    bounds: Mapping[str, Any] | None = None,
    head: Headline | None = None,
    marks: Sequence[ReferenceMark] = (),
) -> list[_Panel]:
    """The top-level metrics as one table (the headline's row with its reference policies), then each breakdown
    (``{row: {metric: value}}``) as its own; each value with its interval from ``bounds`` (the summary's
    ``intervals["metrics"]``) when it has one."""
    bounds = bounds or {}
    scalars = [(k, v) for k, v in metrics.items() if not isinstance(v, Mapping)]
    overall = [k for k, v in metrics.items() if _is_number(v)]
    refs = {head.metric: marks_text(marks)} if head is not None and marks else {}
    out = []
    if scalars:
        out.append(_Panel("Summary", "kv", _kv(scalars, bounds=bounds, refs=refs), "kv metric"))
    for name, value in metrics.items():
        sub = bounds.get(name)
        sub = sub if isinstance(sub, Mapping) else {}
        if _is_table(value):
            out.append(_breakdown(name, value, [*([head.metric] if head else []), *overall], groups, bounds=sub))
        elif isinstance(value, Mapping):
            rows = [(str(k), v) for k, v in value.items()] or [("(empty)", "—")]
            out.append(_Panel(_title(name), "kv", _kv(rows, bounds=sub), "kv metric"))
    return out


def _breakdown(
    name: str,
    table: Mapping[str, Mapping[str, Any]],
    overall: list[str],
    groups: set[str],
    *,
    title: str = "",
    note: str = "",
    bounds: Mapping[str, Any] | None = None,
) -> _Panel:
    """A breakdown table: a row per key, a column per metric (``n`` last), each cell with its raw value and, from
    ``bounds`` (``{row: {metric: interval}}``), its interval."""
    columns = _keys(table.values())
    columns.sort(key=lambda c: c == "n")  # n last
    main = main_metric(table, overall)
    rows = []
    for key, row in table.items():
        cells = []
        for col in columns:
            value = row.get(col)
            bar = None
            if col == main and _is_number(value) and 0 <= value <= 1:
                bar = 100 * float(value)
            raw = page_json(value) if col in row else ""
            bound = dig(bounds, (key, col))
            low, high = (page_json(bound["low"]), page_json(bound["high"])) if ci_text(bound) else ("", "")
            cells.append(
                Cell(fmt_value(value) if col in row else "—", bar, col, raw, ci_or_dash(bound, value), low, high)
            )
        rows.append(_Row(str(key), cells, link=str(key) in groups or (key == "(none)" and "" in groups)))
    head = "group" if name == SCORE_TABLE else name.removeprefix("by_")
    return _Panel(
        title or _title(name),
        "grid",
        head=head,
        columns=columns,
        grid=rows,
        name=name,
        wide=len(columns) >= _WIDE_COLUMNS,
        note=note,
    )


_VOLATILE = re.compile(r"'[^']*'|\"[^\"]*\"|\([^)]*\)|\[[^\]]*\]|\d+(?:\.\d+)?")


def error_kind(error: str) -> str:
    """An error message with its specifics (quoted text, bracketed lists, numbers) blanked, so failures of the
    same kind count together."""
    kind = _VOLATILE.sub("…", error.strip().splitlines()[0] if error.strip() else "")
    return kind[:140]


def _error_table(records: Sequence[SampleRecord], status: str) -> _ErrorTable | None:
    """The samples of ``status`` (``failed`` or ``bug``) counted by error kind; ``None`` when there are none."""
    hit = [r for r in records if r.status == status]
    if not hit:
        return None
    kinds = Counter(error_kind(r.error or "(no message)") for r in hit)
    rows = [
        _ErrorKind(f"{count:,}", f"{100 * count / len(hit):.1f}", kind, kind.split("…")[0].strip())
        for kind, count in kinds.most_common(_MAX_ERROR_KINDS)
    ]
    return _ErrorTable(f"{len(hit):,}", rows, max(0, len(kinds) - _MAX_ERROR_KINDS))


# -- the per-sample blob ------------------------------------------------------------------------------------------


def short_cell(text: str | None, limit: int = _CELL_CHARS) -> str | None:
    return None if text is None else _short(text, limit)


def _brief(value: Any, limit: int = _FIELD_CHARS) -> str:
    """A value as one readable line of at most ``limit`` characters: text as it is, numbers and ``true``/
    ``false``/``null`` as JSON writes them, a list of plain values comma-separated, a list of records as their
    count, a dict as ``key: value`` pairs separated by ``;``."""
    if isinstance(value, str):
        text = value
    elif value is None or isinstance(value, bool | int | float):
        text = page_json(value)
    elif isinstance(value, Mapping):
        text = _joined((f"{k}: {_brief(v, limit)}" for k, v in value.items()), "; ", limit)
    elif isinstance(value, list | tuple):
        if all(x is None or isinstance(x, str | int | float | bool) for x in value):
            text = _joined((_brief(x, limit) for x in value), ", ", limit)
        else:
            text = f"{len(value)} item" + ("" if len(value) == 1 else "s")
    else:
        text = str(value)
    return _short(text, limit)


def _joined(parts: Iterator[str], sep: str, limit: int) -> str:
    """``parts`` joined by ``sep`` (two characters), taken one by one up to the first that brings the text past
    ``limit`` (the rest would be cut anyway, so it is never made)."""
    shown: list[str] = []
    for part in parts:
        shown.append(part)
        if sum(len(p) + 2 for p in shown) > limit:
            break
    return sep.join(shown)


def _shown(value: Any) -> str | dict[str, Any] | None:
    """A gold or answer value for its table cell: text (cut to :data:`_CELL_CHARS`), or for a dict its first
    :data:`_CELL_FIELDS` fields as ``{"kv": [[key, value line], ...], "more": fields left out}``."""
    if value is None:
        return None
    if isinstance(value, Mapping) and value:
        items = list(value.items())
        pairs = [[str(k), _brief(v)] for k, v in items[:_CELL_FIELDS]]
        return {"kv": pairs, "more": len(items) - len(pairs)}
    return _brief(value, _CELL_CHARS)


def _row(r: SampleRecord, score_names: Sequence[str], timeline: EpisodeTimeline | None = None) -> dict[str, Any]:
    gold, answer = r.sample.target, answer_of(r.output)
    row: dict[str, Any] = {
        "i": r.index,
        "id": r.sample.id,
        "g": r.sample.group,
        "s": r.status,
        "t": round(r.seconds, 6) if r.status != "pending" else None,
        "sc": [json_safe(r.scores.get(k)) for k in score_names],
        "q": short_cell(question_of(r.sample.input)),
        "gold": _shown(gold),
        "ans": _shown(answer),
        "err": short_cell(r.error),
        "nc": len(r.calls),
        "tok": sum(int(c.get("prompt_tokens") or 0) + int(c.get("completion_tokens") or 0) for c in r.calls),
    }
    if gold is not None and answer is not None:
        row["ok"] = answer == gold
    if timeline is not None and timeline.verdict is not None:  # an episode is right or wrong by its own rule
        row["ok"] = row["v"] = timeline.verdict
    return row


_LITERAL = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
"""A JSON string literal (outside string literals, JSON text has no ``"``, so a left-to-right scan finds them all)."""


def _intern(text: str, table: list[str]) -> str:
    """Replace every JSON string literal in ``text`` that is long and occurs more than once by a reference
    ``"\\u0000<k>"`` into ``table`` (the literal's JSON, kept once); literals that already start with
    ``\\u0000`` always go to the table, so a reference is never ambiguous. Done on the serialised text (C-speed
    regex scanning) rather than by walking the objects."""
    counts = Counter(m for m in _LITERAL.findall(text) if len(m) >= _INTERN_MIN_CHARS or m.startswith('"\\u0000'))
    index: dict[str, int] = {}
    for literal, n in counts.items():
        if n > 1 or literal.startswith('"\\u0000'):
            index[literal] = len(table)
            table.append(literal)

    def ref(m: re.Match[str]) -> str:
        k = index.get(m.group(0))
        return m.group(0) if k is None else f'"\\u0000{k}"'

    return _LITERAL.sub(ref, text) if index else text


def _blob(
    records: Sequence[SampleRecord],
    *,
    first: Sequence[str] = (),
    judged: Sequence[str] = (),
    timelines: Sequence[EpisodeTimeline | None] = (),
) -> str:
    """The per-sample JSON (rows for the table, details for the drill-down, the string table); the page embeds it
    with :func:`~mindloop.bench.report.view.script_json`, whose ``\\u`` escapes of ``<``, ``>`` and ``&`` (only ever
    inside JSON strings, where they mean the same) leave no ``</script>`` or ``<!--`` in it.

    The score columns are the scores named in ``first`` (the headline's, the declared metrics'), then the others
    in the order samples report them; only the ``judged`` ones (per-sample right/wrong scores) are coloured as
    right (1) or wrong (0). ``timelines`` (one per record, or none) are the episodes' timelines: drawn in the
    drill-down, and their verdict is the sample's right/wrong mark."""
    score_names = _keys((r.scores for r in records), _is_number)
    score_names.sort(key=lambda k: first.index(k) if k in first else len(first))
    score_names = score_names[:_MAX_SCORE_COLUMNS]
    lines = list(timelines) or [None] * len(records)
    details = [
        {
            "input": r.sample.input,
            "output": r.output,
            "scores": r.scores,
            "error": r.error,
            "calls": r.calls,
            **({"node": r.node} if r.node is not None else {}),  # the Ray node that ran it
            **({"timeline": tl.to_json()} if tl is not None else {}),
        }
        for r, tl in zip(records, lines, strict=True)
    ]
    rows = [_row(r, score_names, tl) for r, tl in zip(records, lines, strict=True)]
    head = {
        "scores": score_names,
        "judged": [k for k in score_names if k in judged],
        "groups": list(dict.fromkeys(r.sample.group for r in records)),
        "rows": rows,
    }
    table: list[str] = []
    body = _intern(page_json(details), table)
    return f'{page_json(head)[:-1]},"details":{body},"strings":[{",".join(table)}]}}'


def page_json(value: Any) -> str:
    """Compact JSON; a non-finite float (which ``JSON.parse`` would reject) becomes ``null``."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        return json.dumps(json_safe(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)

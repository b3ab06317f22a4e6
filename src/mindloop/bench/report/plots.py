"""The report's figures: matplotlib charts rendered to SVG and embedded as ``data:`` URLs.

Every figure is derived generically, so any benchmark gets meaningful plots: the benchmark's own breakdown
tables (a bar per group with its ``n``), the metrics per sample group, the status of the samples per group, the
distribution of per-sample seconds, and for model runs the distributions of call latency and prompt/completion
tokens. Figures are drawn on bare :class:`~matplotlib.figure.Figure` objects (no pyplot, no global state, no
display) and saved as SVG with text as paths, so they need no fonts and stay sharp when zoomed.

A figure that shows a table's numbers draws exactly that table's numbers: the per-group figure plots the
benchmark's per-group table when its summary has one (:func:`group_table`), and otherwise the report's own
table of per-sample score means (:func:`score_table`, shown in the page beside the benchmark's tables). Each
:class:`Plot` carries the numbers it drew (:attr:`Plot.data`), which the page exposes for checking.
"""

from __future__ import annotations

import base64
import io
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, TypeGuard, cast

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

from mindloop.bench.api import SampleRecord
from mindloop.bench.headline import ReferenceMark
from mindloop.bench.tables import number

_BLUE = "#3566c9"
_GREEN = "#2f9e62"
_RED = "#d2463f"
_GREY = "#a3acb8"
_ORANGE = "#d9822b"
_PURPLE = "#8e5bc4"
_PALETTE = (_BLUE, _ORANGE, _GREEN, _PURPLE, _RED, "#2a9bb3", "#b5894d", "#5f6b7a")
_INK = "#1f2933"
_MUTED = "#616e7c"

_MAX_GROUPS = 30
"""Groups shown in a per-group chart; the largest ones are kept when there are more."""

_MAX_SCORES = 4
"""Score names in the report's own per-group table (the first ones in the order samples report them)."""

_MAX_PANELS = 6
"""Columns of a per-group table charted side by side (the first ones, in the table's order)."""

SCORE_TABLE = "score_per_group"
"""The name of the report's own per-group table of score means (when the summary has no per-group table)."""

_FAILED_STATUSES = frozenset({"failed", "bug"})
"""Finished samples that did not complete: a score they lack counts as 0, as the benchmarks' summaries do."""

_RC: dict[str, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.edgecolor": "#c5ccd6",
    "axes.labelcolor": _INK,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
    "axes.titlecolor": _INK,
    "xtick.color": _MUTED,
    "ytick.color": _MUTED,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": False,
    "grid.color": "#e4e8ee",
    "legend.frameon": False,
    "svg.fonttype": "path",
    "svg.hashsalt": "mindloop-report",
}


@dataclass(frozen=True)
class Plot:
    """One embedded figure: a title, a one-line caption, the image as a ``data:image/svg+xml`` URL, whether it
    spans the page's full width (figures with several panels), and the numbers it drew as JSON text:
    ``{"table": NAME or null, "series": {series: {row: value}}}`` (``table`` names the metrics table holding
    the same numbers, ``null`` when none does; a value the figure shows as missing is ``null``), and
    ``"references": {label: value}`` when it draws the run's reference policies."""

    title: str
    caption: str
    data_url: str
    wide: bool = False
    data: str = "{}"


def _data(
    table: str | None, series: Mapping[str, Mapping[str, Any]], references: Mapping[str, float] | None = None
) -> str:
    """:attr:`Plot.data` for ``series`` (every number as a float, anything else, non-finite numbers too, as
    ``null``: :func:`~mindloop.bench.tables.number`), with the reference marks drawn (``{"references": {label:
    value}}``) when there are any."""
    body: dict[str, Any] = {
        "table": table,
        "series": {k: {str(r): number(v) for r, v in rows.items()} for k, rows in series.items()},
    }
    if references:
        body["references"] = {k: number(v) for k, v in references.items()}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _style() -> AbstractContextManager[None]:
    """The report's plot style, applied while a figure is built and while it is saved."""
    return matplotlib.rc_context(cast(Any, _RC))


@contextmanager
def _canvas(width: float, height: float, ncols: int = 0, **subplots: Any) -> Iterator[tuple[Figure, Any]]:
    """A bare figure built under the report's plot style, with one axes (``ncols`` 0) or a row of ``ncols``
    panels (``subplots`` passed to :meth:`Figure.subplots`), as ``(figure, axes)``."""
    with _style():
        fig = Figure(figsize=(width, height), layout="constrained")
        yield fig, fig.subplots(1, ncols, **subplots) if ncols else fig.add_subplot()


def _encode(fig: Figure) -> str:
    """The figure as a base64 SVG data URL (deterministic: fixed hash salt, no date)."""
    buf = io.BytesIO()
    with _style():
        fig.savefig(buf, format="svg", metadata={"Date": None}, facecolor="white")
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _short(label: str, limit: int = 22) -> str:
    """``label`` cut to at most ``limit`` characters, ending in ``…`` where it was cut (tick labels, table cells)."""
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _fmt(value: float) -> str:
    """A tick or statistic label (three significant digits)."""
    if value == int(value) and abs(value) >= 10:
        return f"{int(value)}"
    return f"{value:.3g}" if abs(value) >= 1 else f"{value:.2f}"


def _count(value: float) -> str:
    """A sample count as a whole number (``1``, never ``1.000``)."""
    return f"{int(value):,}" if float(value).is_integer() else fmt_number(float(value))


def fmt_number(value: float) -> str:
    """A metric value as the report's tables print it (and the bars' labels, so a bar reads as its table cell):
    whole numbers from 10 with separators, values up to 1 to three places, others to four significant digits."""
    if not math.isfinite(value):
        return str(value)
    if value.is_integer() and abs(value) >= 10:
        return f"{int(value):,}"
    if abs(value) <= 1:
        return f"{value:.3f}"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def _bars(
    ax: Axes, labels: Sequence[str], values: Sequence[float], notes: Sequence[str], color: str, *, invert: bool = True
) -> None:
    """Horizontal bars (readable for long group names), top to bottom in the given order, value-labelled as the
    tables print values: inside the bar's end when it is long enough, else just after it. A missing value
    (NaN: the table's –) gets no bar and the label –, never a bar at 0."""
    y = np.arange(len(labels))
    ax.barh(y, [v if math.isfinite(v) else 0.0 for v in values], color=color, height=0.66, zorder=2)
    _rows(ax, labels, invert=invert)
    finite = [v for v in values if math.isfinite(v)]
    top = max(finite, default=0.0)
    unit = all(0.0 <= v <= 1.0 for v in finite)
    span = 1.0 if unit else (top * 1.08 if top > 0 else 1.0)
    ax.set_xlim(0, span)
    for yi, value, note in zip(range(len(labels)), values, notes, strict=True):
        if not math.isfinite(value):
            ax.text(0.012 * span, yi, f"–{note}", va="center", ha="left", fontsize=8, color=_MUTED, zorder=4)
            continue
        text = fmt_number(value)
        inside = value > 0.3 * span
        ax.text(
            value - 0.012 * span if inside else value + 0.012 * span,
            yi,
            f"{text}{note}",
            va="center",
            ha="right" if inside else "left",
            fontsize=8,
            color="white" if inside else _INK,
            fontweight="bold" if inside else "normal",
            zorder=4,
        )


def _rows(ax: Axes, labels: Sequence[str], *, invert: bool = True) -> None:
    """The axes of a horizontal bar chart: a row per label (cut to fit), top to bottom unless not ``invert``, with
    vertical grid lines and no tick marks beside the labels."""
    ax.set_yticks(np.arange(len(labels)), [_short(str(label)) for label in labels])
    if invert:
        ax.invert_yaxis()
    ax.grid(axis="x", zorder=0)
    ax.tick_params(axis="y", length=0)


def _height(n_bars: int) -> float:
    return min(7.5, 0.9 + 0.3 * n_bars)


# -- the benchmark's breakdowns ----------------------------------------------------------------------------------


def main_metric(table: Mapping[str, Mapping[str, Any]], preferred: Sequence[str] = ()) -> str | None:
    """The metric a breakdown chart shows: one named at the top level too (``accuracy``), else the first numeric
    column other than ``n``."""
    columns = [key for key in _keys(table.values(), _number) if key != "n"]
    for name in preferred:
        if name in columns:
            return name
    return columns[0] if columns else None


def breakdown_plot(
    name: str,
    table: Mapping[str, Mapping[str, Any]],
    overall: Mapping[str, Any],
    *,
    headline: str | None = None,
    marks: Sequence[ReferenceMark] = (),
) -> Plot | None:
    """A bar per row of one breakdown table (``by_type``: ``{group: {metric: value, "n": n}}``) with its ``n``;
    a dashed line marks the run-wide value of the same metric when the summary has one. A row whose value is
    missing keeps its place, labelled –. When the chart draws the ``headline`` metric, the run's reference
    policies (``marks``) are drawn on it too, as labelled vertical lines."""
    metric = main_metric(table, [*([headline] if headline else []), *(k for k, v in overall.items() if _number(v))])
    if metric is None:
        return None
    picked = [(str(k), row) for k, row in table.items()][:_MAX_GROUPS]  # keys as the page shows them
    rows = [(k, float(row[metric]) if _number(row.get(metric)) else math.nan) for k, row in picked]
    if all(math.isnan(v) for _, v in rows):
        return None
    notes = [f"  (n={_count(row['n'])})" if _number(row.get("n")) else "" for _, row in picked]
    with _canvas(6.4, _height(len(rows))) as (fig, ax):
        _bars(ax, [k for k, _ in rows], [v for _, v in rows], notes, _BLUE)
        ref = overall.get(metric)
        if _number(ref):
            label = f"all: {fmt_number(float(ref))}"
            ax.axvline(float(ref), color=_INK, linestyle="--", linewidth=1, zorder=3, label=label)
        drawn = _reference_lines(ax, marks) if metric == headline else {}
        if _number(ref) or drawn:
            ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=8, ncols=min(4, 1 + len(drawn)))
        ax.set_xlabel(metric)
    title = f"{metric} {name.replace('_', ' ')}" if name.startswith("by_") else f"{name}: {metric}"
    title = title[:1].upper() + title[1:]
    caption = f"From the benchmark's summary table “{name}”; n is the samples in each row."
    if drawn:
        caption += " Coloured lines: the run's reference policies on the whole run (no model needed)."
    data = _data(name, {metric: {k: row.get(metric) for k, row in picked}}, drawn)
    return Plot(title, caption, _encode(fig), data=data)


_MARK_COLORS = {"chance": _GREY, "best trivial": _ORANGE, "oracle": _GREEN}
"""The colour of each reference mark on a figure (a mark with its own name takes purple)."""


def valued_marks(marks: Sequence[ReferenceMark]) -> list[tuple[ReferenceMark, float]]:
    """The reference marks with a finite value, each with it: the ones a figure can draw."""
    return [(m, float(m.value)) for m in marks if m.value is not None and math.isfinite(m.value)]


def _reference_lines(ax: Axes, marks: Sequence[ReferenceMark]) -> dict[str, float]:
    """Draw each reference mark with a value as a labelled vertical line (widening the axis to show it); returns
    the values drawn, by label."""
    drawn: dict[str, float] = {}
    for mark, value in valued_marks(marks):
        color = _MARK_COLORS.get(mark.label, _PURPLE)
        label = mark.label + (f" [{mark.name}]" if mark.label == "best trivial" else "") + f": {fmt_number(value)}"
        ax.axvline(value, color=color, linewidth=1.6, linestyle="-.", zorder=3.5, label=label)
        low, high = ax.get_xlim()
        if value > high:
            ax.set_xlim(low, value * 1.05)
        drawn[mark.label] = value
    return drawn


def headline_plot(
    metric: str,
    value: float | None,
    interval: tuple[float, float] | None,
    marks: Sequence[ReferenceMark],
    higher_is_better: bool = True,
) -> Plot | None:
    """The run's headline as one bar, its 95% interval as a whisker, and every reference policy (chance, best
    trivial, oracle) as a labelled line across it: where the score sits between what no model needs and the
    ceiling. ``None`` when there is neither a value nor a reference to draw."""
    refs = valued_marks(marks)
    if value is None and not refs:
        return None
    with _canvas(6.4, 1.2 + 0.05 * len(refs)) as (fig, ax):
        shown = value if value is not None and math.isfinite(value) else math.nan
        _bars(ax, [metric], [shown], [""], _BLUE)
        if interval is not None and value is not None:
            xerr = [[max(0.0, value - interval[0])], [max(0.0, interval[1] - value)]]
            ax.errorbar([value], [0], xerr=xerr, fmt="none", ecolor=_INK, elinewidth=1, capsize=4, zorder=5)
        top = max([v for v in (value, *(interval or ())) if v is not None and math.isfinite(v)] + [v for _, v in refs])
        low, high = ax.get_xlim()
        if top > high:
            ax.set_xlim(low, top * 1.05)
        drawn = _reference_lines(ax, [m for m, _ in refs])
        if drawn:
            ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), fontsize=8, ncols=min(3, len(drawn)))
        direction = "higher is better" if higher_is_better else "lower is better"
        ax.set_xlabel(f"{metric} ({direction})")
    caption = (
        "The run's headline with its 95% interval; the lines are its reference policies on the same samples "
        "(chance, the best trivial policy, the oracle), which need no model."
        if drawn
        else "The run's headline with its 95% interval; the benchmark declares no reference policy."
    )
    series = {metric: {"run": value}}
    return Plot("Headline and reference policies", caption, _encode(fig), data=_data(None, series, drawn))


# -- generic, from the samples -----------------------------------------------------------------------------------


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _natural(text: str) -> list[Any]:
    """Sort key putting ``order_2`` before ``order_10``."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def _groups(records: Sequence[SampleRecord], order: Sequence[str] = ()) -> list[str]:
    """Group names in ``order`` (the benchmark's breakdown order) then naturally sorted; only the largest
    :data:`_MAX_GROUPS` when there are more."""
    counts = Counter(r.sample.group for r in records)
    names = [g for g in order if g in counts] + sorted(set(counts) - set(order), key=_natural)
    if len(names) > _MAX_GROUPS:
        keep = {g for g, _ in counts.most_common(_MAX_GROUPS)}
        names = [g for g in names if g in keep]
    return names


def group_label(group: str) -> str:
    """A sample group as a row of a per-group table: the empty group is ``(none)``."""
    return group or "(none)"


def _finished(records: Sequence[SampleRecord]) -> list[SampleRecord]:
    return [r for r in records if r.status != "pending"]


def mean_scores(records: Sequence[SampleRecord], names: Sequence[str] | None = None) -> dict[str, float | None]:
    """The mean of each numeric per-sample score over the finished ``records``, by the benchmarks' rule: a
    failed (or bug) sample without the score counts as 0; a done sample without it has none to give (the score
    does not apply to it) and is left out. ``names`` defaults to every numeric score, in the order the samples
    report them; a score no sample contributes to is ``None`` (no data, never 0)."""
    finished = _finished(records)
    if names is None:
        names = _score_names(finished)
    values: dict[str, list[float]] = {name: [] for name in names}
    for r in finished:
        for name in names:
            value = r.scores.get(name)
            if _number(value):
                values[name].append(float(value))
            elif r.status in _FAILED_STATUSES:
                values[name].append(0.0)
    return {name: (sum(v) / len(v) if v else None) for name, v in values.items()}


def _score_names(records: Sequence[SampleRecord]) -> list[str]:
    return _keys((r.scores for r in records), _number)


def _keys(rows: Iterable[Mapping[str, Any]], keep: Callable[[Any], bool] = lambda value: True) -> list[str]:
    """The keys of ``rows`` (table rows, samples' scores) in the order they first appear, of the values ``keep``
    accepts (every value by default)."""
    keys: list[str] = []
    for row in rows:
        keys.extend(k for k, v in row.items() if k not in keys and keep(v))
    return keys


def score_table(records: Sequence[SampleRecord], limit: int | None = _MAX_SCORES) -> dict[str, dict[str, Any]]:
    """The report's own per-group table: ``{group: {score: mean, ..., "n": finished samples}}`` for the first
    ``limit`` numeric scores (all with ``None``), means by :func:`mean_scores`; groups in natural order, the
    empty group as ``(none)``. Empty when no finished sample has a numeric score."""
    finished = _finished(records)
    names = _score_names(finished)[:limit] if limit is not None else _score_names(finished)
    if not names:
        return {}
    members: dict[str, list[SampleRecord]] = {}
    for r in finished:
        members.setdefault(r.sample.group, []).append(r)
    return {
        group_label(g): {**mean_scores(members[g], names), "n": len(members[g])} for g in sorted(members, key=_natural)
    }


def group_table(
    metrics: Mapping[str, Any], records: Sequence[SampleRecord]
) -> tuple[str, Mapping[str, Mapping[str, Any]]] | None:
    """The benchmark's per-group table: the first breakdown in its summary whose rows name every finished
    sample's group (``by_type`` of ToMi and Hi-ToM, ``by_group`` of claw); ``None`` when there is none."""
    groups = {group_label(r.sample.group) for r in _finished(records)}
    if not groups:
        return None
    for name, value in metrics.items():
        if _is_table(value) and groups <= {str(k) for k in value}:
            return name, value
    return None


def per_group_tables(
    metrics: Mapping[str, Any], records: Sequence[SampleRecord]
) -> tuple[str, Mapping[str, Mapping[str, Any]], bool] | None:
    """The table the per-group figure draws: ``(name, table, derived)``, the benchmark's own per-group table
    (``derived`` false) or else the report's :func:`score_table` under :data:`SCORE_TABLE` (``derived`` true,
    so the page must show it as a table too); ``None`` when neither has a number to show."""
    found = group_table(metrics, records)
    if found is not None:
        return found[0], found[1], False
    table = score_table(records)
    return (SCORE_TABLE, table, True) if table else None


def table_metrics(table: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The columns of a per-group table that the per-group figure draws: every column with a number in some
    row, in the table's order, except the sample counts (``n`` and ``*_n``); the first :data:`_MAX_PANELS`."""
    columns = _keys(table.values())
    numeric = {k for row in table.values() for k, v in row.items() if _number(v)}
    return [c for c in columns if c in numeric and c != "n" and not c.endswith("_n")][:_MAX_PANELS]


def score_plot(
    name: str,
    table: Mapping[str, Mapping[str, Any]],
    *,
    derived: bool,
    headline: str | None = None,
    marks: Sequence[ReferenceMark] = (),
) -> Plot | None:
    """The per-group figure: one panel per column of ``table`` (:func:`table_metrics`), each drawing exactly
    the table's numbers (a missing value as –), so scores on different scales never share an axis.

    ``derived`` says the table is the report's own :func:`score_table` (titled "Mean score per group");
    otherwise it is the benchmark's summary table (titled "Metrics per group"), and a table with a single such
    column gets no figure here because its breakdown figure already draws that column. The panel of the
    ``headline`` metric draws the run's reference policies (``marks``) too."""
    names = table_metrics(table)
    if not names or (not derived and len(names) < 2):
        return None
    picked = [(str(k), row) for k, row in table.items()][:_MAX_GROUPS]  # keys as the page shows them
    rows = [k for k, _ in picked]
    series = {m: {k: row.get(m) for k, row in picked} for m in names}
    width = 6.4 if len(names) <= 2 else min(12.8, 2.4 * len(names) + 1.0)
    with _canvas(width, _height(len(rows)) + 0.2, len(names), sharey=True, squeeze=False) as (fig, axes):
        drawn: dict[str, float] = {}
        for i, (ax, metric) in enumerate(zip(axes[0], names, strict=True)):
            values = [float(v) if _number(v) else math.nan for v in series[metric].values()]
            _bars(ax, rows, values, [""] * len(rows), _PALETTE[i % len(_PALETTE)], invert=i == 0)
            if metric == headline:
                drawn = _reference_lines(ax, marks)
                if drawn:  # under the figure, below every panel's tick labels (constrained layout makes room)
                    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower left", fontsize=7, ncols=3)
            ax.set_title(metric, loc="left")
            if i:
                ax.tick_params(axis="y", labelleft=False)
    if derived:
        title = "Mean score per group"
        caption = (
            "The table “mean score per group” above: the mean of each numeric per-sample score over each group's "
            "finished samples, a failed sample without that score counting as 0 (a done sample without it is "
            "left out); – where no sample has the score."
        )
    else:
        title = "Metrics per group"
        caption = (
            f"The benchmark's per-group table “{_title(name)}” above, one panel per metric (sample counts aside): "
            "the same numbers as the table; – where the table has none."
        )
    if drawn:
        caption += f" Coloured lines on “{headline}”: the run's reference policies on the whole run."
    return Plot(title, caption, _encode(fig), wide=len(names) > 2, data=_data(name, series, drawn))


def _title(name: str) -> str:
    return name.replace("_", " ")


def status_plot(records: Sequence[SampleRecord], order: Sequence[str] = ()) -> Plot | None:
    """Done, failed, bug and pending samples per group, stacked (shown only when not every sample is done)."""
    if all(r.status == "done" for r in records):
        return None
    groups = _groups(records, order)
    counts = Counter((r.sample.group, r.status) for r in records)
    y = np.arange(len(groups))
    left = np.zeros(len(groups))
    with _canvas(6.4, _height(len(groups))) as (fig, ax):
        for status, color in (("done", _GREEN), ("failed", _RED), ("bug", _PURPLE), ("pending", _GREY)):
            widths = np.array([counts[(g, status)] for g in groups], dtype=float)
            if widths.any():
                ax.barh(y, widths, left=left, color=color, height=0.62, label=status, zorder=2)
            left += widths
        _rows(ax, [group_label(g) for g in groups])
        ax.set_xlabel("samples")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(loc="lower right", fontsize=8, ncols=4, bbox_to_anchor=(1.0, 1.0))
    caption = (
        "Samples done, failed, stopped by a bug and still pending in each group."
        if any(status == "bug" for _, status in counts)
        else "Samples done, failed and still pending in each group."
    )
    series = {s: {group_label(g): counts[(g, s)] for g in groups} for s in ("done", "failed", "bug", "pending")}
    return Plot("Sample status per group", caption, _encode(fig), data=_data(None, series))


def _hist(ax: Axes, values: Sequence[float], color: str, unit: str) -> str:
    """A histogram (log-spaced bins when the values span more than a factor of 20) with the median (solid) and
    95th percentile (dotted) marked; returns the ``median · p95 · max`` line for the axis label."""
    data = np.asarray(values, dtype=float)
    positive = data[data > 0]
    lo, hi = (float(positive.min()), float(positive.max())) if positive.size else (0.0, 0.0)
    if positive.size == data.size and lo > 0 and hi / lo > 20:
        ax.hist(data, bins=np.geomspace(lo, hi * 1.0001, 31).tolist(), color=color, zorder=2)
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: _fmt(v)))
        ax.xaxis.set_minor_formatter(NullFormatter())
    else:
        ax.hist(data, bins=30 if np.ptp(data) > 0 else 1, color=color, zorder=2)
    ax.grid(axis="y", zorder=0)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("count")
    if not data.size:
        return ""
    med, p95 = np.percentile(data, [50, 95])
    ax.axvline(med, color=_INK, linewidth=1, zorder=3)
    ax.axvline(p95, color=_INK, linewidth=1, linestyle=":", zorder=3)
    return f"median {_fmt(float(med))} · p95 {_fmt(float(p95))} · max {_fmt(float(data.max()))} {unit}"


def seconds_plot(records: Sequence[SampleRecord]) -> Plot | None:
    """The distribution of wall-clock time per finished sample (milliseconds when every sample took under 1 s)."""
    secs = [r.seconds for r in records if r.status != "pending"]
    if not secs:
        return None
    shown, unit = _in_unit(secs)
    with _canvas(6.4, 2.9) as (fig, ax):
        stats = _hist(ax, shown, _BLUE, unit)
        ax.set_xlabel(f"{unit} per sample   ({stats})")
    what = f"Wall-clock time of each of the {len(secs)} finished samples; solid line the median, dotted the 95th"
    return Plot("Time per sample", f"{what} percentile.", _encode(fig))


def _in_unit(seconds: Sequence[float]) -> tuple[list[float], str]:
    """``seconds`` in milliseconds when every one is under 1 s, else as they are, and the unit."""
    ms = max(seconds) < 1.0
    return [s * 1000 if ms else s for s in seconds], "ms" if ms else "s"


def model_call_plot(records: Sequence[SampleRecord]) -> Plot | None:
    """Latency per model call and prompt/completion tokens per call (model runs only)."""
    calls = [c for r in records for c in r.calls]
    if not calls:
        return None
    latency, unit = _in_unit([float(c.get("latency_s") or 0.0) for c in calls])
    prompt = [float(c.get("prompt_tokens") or 0) for c in calls]
    completion = [float(c.get("completion_tokens") or 0) for c in calls]
    cached = sum(bool(c.get("cached")) for c in calls)
    with _canvas(12.8, 2.9, 3) as (fig, axes):
        for ax, values, color, title, label, what in (
            (axes[0], latency, _BLUE, "latency per call", unit, unit),
            (axes[1], prompt, _ORANGE, "prompt tokens per call", "tokens", "tok"),
            (axes[2], completion, _GREEN, "completion tokens per call", "tokens", "tok"),
        ):
            stats = _hist(ax, values, color, what)
            ax.set_title(title, loc="left")
            ax.set_xlabel(f"{label}\n{stats}")
    caption = f"{len(calls)} calls ({cached} answered from the cache); latency as the client measured it."
    return Plot("Model calls", caption, _encode(fig), wide=True)


def report_plots(
    metrics: Mapping[str, Any],
    records: Sequence[SampleRecord],
    *,
    headline: str | None = None,
    marks: Sequence[ReferenceMark] = (),
    first: Plot | None = None,
) -> list[Plot]:
    """Every figure of a report, most telling first: ``first`` (the headline with its reference policies), the
    benchmark's breakdowns, the per-group metrics (of the table :func:`per_group_tables` picks), then the generic
    ones. Every figure that draws the ``headline`` metric draws its reference ``marks`` too."""
    plots: list[Plot | None] = [first]
    overall = {k: v for k, v in metrics.items() if _number(v)}
    groups = {r.sample.group for r in records}
    order: list[str] = []
    for name, value in metrics.items():
        if _is_table(value):
            plots.append(breakdown_plot(name, value, overall, headline=headline, marks=marks))
            if not order and groups & set(value):
                order = [str(k) for k in value]
    chosen = per_group_tables(metrics, records)
    if chosen is not None:
        plots.append(score_plot(chosen[0], chosen[1], derived=chosen[2], headline=headline, marks=marks))
    plots += [status_plot(records, order), seconds_plot(records), model_call_plot(records)]
    return [p for p in plots if p is not None]


def _is_table(value: Any) -> bool:
    """A breakdown: a non-empty dict whose values are all dicts (rows of named numbers)."""
    return isinstance(value, Mapping) and bool(value) and all(isinstance(v, Mapping) for v in value.values())

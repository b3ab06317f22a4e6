"""``mindloop compare ... -o compare.html``: one self-contained HTML page comparing runs benchmark by benchmark.

Like the run report it needs no server and no network: the viewer's stylesheet (:mod:`mindloop.bench.report.view`),
the page's script and the data are inline. Static parts (run tables, metric tables with intervals and paired
differences, score tests) are rendered by Jinja2 from ``compare.html`` with autoescape on, from values this module
formats; the samples where the runs disagree travel as one JSON blob (``<``, ``>`` and ``&`` as ``\\u`` escapes)
that the page's script filters (text, group, status, which runs scored) and pages through, building rows with
``textContent`` only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markupsafe import Markup

from mindloop.bench.compare import SIGNIFICANT, BenchmarkComparison, Comparison, Difference
from mindloop.bench.report import Card, Cell, ci_or_dash, fmt_value, page_json, se_text, short_cell
from mindloop.bench.report.plots import fmt_number
from mindloop.bench.report.view import footer, render, script_json
from mindloop.bench.tables import dig, json_safe
from mindloop.paths import output_file, write_atomic

__all__ = ["SIGNIFICANT", "render_compare", "write_compare"]

CELL_CHARS = 200
"""Characters of an answer, gold or question shown in the disagreement table."""


def _signed(value: float) -> str:
    text = fmt_number(value) if value else "0"
    return text if text.startswith("-") or value == 0 else f"+{text}"


def _p(p: float, adjusted: float | None = None) -> str:
    """A p-value as shown, followed by its Holm-adjusted value when it has one."""
    text = "p < 0.001" if p < 0.001 else f"p = {p:.3f}"
    return text if adjusted is None else f"{text} · Holm {_p(adjusted)}"


def _text(value: Any) -> str | None:
    """A gold or answer value as one line of text for the table."""
    return None if value is None else short_cell(value if isinstance(value, str) else page_json(value), CELL_CHARS)


def _tone(p: float, adjusted: float | None, diff: float, higher_is_better: bool | None = None) -> str:
    """How a difference is marked: not at all unless it is not 0 and its p-value (the adjusted one where it has
    one) is below :data:`SIGNIFICANT`; then ``good`` or ``bad`` by the metric's direction, ``sig`` without one."""
    if (p if adjusted is None else adjusted) >= SIGNIFICANT or diff == 0:
        return ""
    if higher_is_better is None:
        return "sig"
    return "good" if (diff > 0) == higher_is_better else "bad"


def _metric_tables(bc: BenchmarkComparison) -> list[dict[str, Any]]:
    """Rows of every float metric any run has, top-level ones first, then one table per breakdown (``title``,
    ``rows``); a row: its ``name``, dotted ``path`` (data-path), ``cells`` (each run's value), ``diffs`` (each
    paired difference) and whether it is the ``headline``."""
    head = bc.headline.metric if bc.headline else None
    tables: dict[str, list[dict[str, Any]]] = {}
    for path in bc.metric_paths():
        cells = []
        for side in bc.runs:
            v = dig(side.metrics, path)
            bound = dig(side.intervals.get("metrics"), path)
            extra = " · ".join(t for t in (ci_or_dash(bound, v), se_text(bound)) if t)
            refs = side.reference_text(bc.headline, fmt_number) if path == (head,) else ""
            cells.append(Cell(fmt_value(v), ci=extra, raw=page_json(v), note=refs))
        deltas = []
        for diff in bc.differences:
            d = diff.metrics.get(path)
            if d is None:
                deltas.append(Cell("–"))
                continue
            higher = bc.headline.higher_is_better if bc.headline and path == (head,) else None
            ci = f"[{_signed(d.low)}, {_signed(d.high)}]"
            tone = _tone(d.p, d.p_adjusted, d.diff, higher)
            deltas.append(Cell(_signed(d.diff), ci=ci, raw=page_json(d.diff), tone=tone, note=_p(d.p, d.p_adjusted)))
        title = "Summary" if len(path) == 1 else path[0].replace("_", " ")
        name = path[0] if len(path) == 1 else " · ".join(path[1:])
        row = {"name": name, "path": ".".join(path), "cells": cells, "diffs": deltas, "headline": path == (head,)}
        tables.setdefault(title, []).append(row)
    return [{"title": title, "rows": rows} for title, rows in tables.items()]


def _family(bc: BenchmarkComparison) -> str:
    """The family of each run-vs-baseline comparison, named: its rows, its adjustment, the one unadjusted test."""
    sizes = sorted({len(d.family) for d in bc.differences})
    if not sizes or sizes == [0]:
        return ""
    rows = " or ".join(f"{m:,}" for m in sizes)
    head = f" the headline ({bc.headline.metric}) is the one unadjusted test;" if bc.headline else ""
    return (
        f"Family: in each comparison with {bc.runs[0].label},{head} its other {rows} rows (every breakdown and "
        f"top-level metric below but the headline) are one family whose p-values are Holm-adjusted (shown as "
        f"“Holm p”); a row is marked when its adjusted p is below {SIGNIFICANT}."
    )


def _cards(bc: BenchmarkComparison) -> list[Card]:
    """A header card per run against the baseline: the headline's two values, their paired difference (in the
    card's interval line) and the reference policies on the paired samples."""
    if bc.headline is None:
        return []
    metric, out = bc.headline.metric, []
    base = bc.runs[0].metrics.get(metric)
    for side, diff in zip(bc.runs[1:], bc.differences, strict=True):
        d = diff.metrics.get((metric,))
        value = f"{fmt_value(base)} → {fmt_value(side.metrics.get(metric))}"
        label = f"{bc.benchmark} · {metric} · {side.label}"
        tone = "" if d is None else _tone(d.p, d.p_adjusted, d.diff, bc.headline.higher_is_better)
        line = (
            "no paired difference"
            if d is None
            else f"Δ {_signed(d.diff)} [{_signed(d.low)}, {_signed(d.high)}] · {_p(d.p)}"
        )
        out.append(Card(value, label, tone, line, side.reference_text(bc.headline, fmt_number)))
    return out


def _tests(diffs: Sequence[Difference]) -> list[dict[str, str]]:
    rows = []
    for diff in diffs:
        for t in diff.scores:
            ci = "" if t.low is None or t.high is None else f"[{_signed(t.low)}, {_signed(t.high)}]"
            if not math.isfinite(t.low if t.low is not None else 0.0):
                ci = ""
            counts = "" if t.b is None else f"{t.b:,} / {t.c:,}"
            rows.append(
                {
                    "run": diff.run_id,
                    "score": t.score,
                    "test": t.test,
                    "n": f"{t.n:,}",
                    "base": fmt_number(t.mean_baseline),
                    "run_mean": fmt_number(t.mean_run),
                    "diff": _signed(t.mean_run - t.mean_baseline),
                    "ci": ci,
                    "counts": counts,
                    "p": _p(t.p, t.p_adjusted),
                    "tone": _tone(t.p, t.p_adjusted, t.mean_run - t.mean_baseline),
                }
            )
    return rows


def _blob(bc: BenchmarkComparison) -> Markup:
    """The disagreements as JSON safe inside ``<script type="application/json">``."""
    rows = [
        {
            "id": d.sample_id,
            "g": d.group,
            "q": _text(d.question),
            "gold": _text(d.gold),
            "st": d.statuses,
            "ans": [_text(a) for a in d.answers],
            "sc": [json_safe(s) for s in d.scores],
            "err": [_text(e) for e in d.errors],
        }
        for d in bc.disagreements
    ]
    body = {
        "runs": [s.info.run_id for s in bc.runs],
        "key": bc.key_score,
        "groups": sorted({d.group for d in bc.disagreements}),
        "rows": rows,
    }
    return script_json(None, text=page_json(body))


def _section(bc: BenchmarkComparison, k: int) -> dict[str, Any]:
    """One benchmark's comparison as the template shows it: plain values, formatted, like its runs, cards and
    tests."""
    head = bc.headline.metric if bc.headline else None
    runs = []
    for side in bc.runs:
        info = side.info
        value = side.metrics.get(head) if head else None
        bound = dig(side.intervals.get("metrics"), (head,)) if head else None
        pending = info.n - info.n_completed
        runs.append(
            {
                "label": side.label,
                "run_id": info.run_id,
                "source": "" if side.source == info.run_id else side.source,
                "samples": f"{info.n_completed:,}/{info.n:,}"
                + (f" ({info.n_failed:,} failed)" if info.n_failed else "")
                + (f", {pending:,} pending" if pending else ""),
                "headline": fmt_value(value),
                "ci": ci_or_dash(bound, value),
                "refs": side.reference_text(bc.headline, fmt_number),
            }
        )
    notes = []
    partial = [s.label for s in bc.runs if not s.whole]
    if partial:
        notes.append(
            f"Every number on this page is over the {bc.shared:,} samples every run finished; for "
            f"{', '.join(partial)} that is not every sample it finished (the runs table counts them; its own report "
            "has its whole-run numbers)."
        )
    notes += [f"{side.label}: {d}" for side in bc.runs if (d := side.decided())]
    excluded = bc.runs[0].intervals.get("excluded")
    if excluded:
        notes.append(f"No intervals or differences for {', '.join(excluded)}: it counts repeated samples.")
    return {
        "anchor": f"b{k}",
        "benchmark": bc.benchmark,
        "runs": runs,
        "columns": [s.label for s in bc.runs],  # a run column's heading (its label)
        "diff_columns": [f"Δ {s.label}" for s in bc.runs[1:]],
        "differs": [
            (k2, [fmt_value(v) if not isinstance(v, str) else v for v in vals]) for k2, vals in bc.differs.items()
        ],
        "key_text": bc.key_text(),  # the comparability keys: the same for every run, or how each differs (shown first)
        "key_differs": bool(bc.key_differences),
        "verdicts": [(v.tone, v.text) for v in bc.verdicts(_signed, _p)],  # (tone, sentence): which run is better where
        "paired_on": bc.paired_on,
        "family": _family(bc),  # which rows are Holm-adjusted together, in words
        "cards": _cards(bc),  # the header's headline cards: label, value, line, tone
        "wide": len(bc.runs) > 2,  # metric tables span the page (more than two runs)
        "tables": _metric_tables(bc),
        "tests": _tests(bc.differences),
        "disagreements": len(bc.disagreements),
        "key_score": bc.key_score or "",
        "data": _blob(bc),
        "notes": notes,
    }


def render_compare(comparison: Comparison) -> str:
    """The comparison page as one HTML string."""
    sections = [_section(bc, k) for k, bc in enumerate(comparison.benchmarks)]
    method = comparison.method()
    level = round(100 * comparison.level)
    note = (
        f"Brackets: {level}% intervals, {method['intervals']} for each run's metrics, paired bootstrap over the "
        f"shared samples for differences (Δ: run minus the first run), {comparison.resamples} resamples, seed "
        f"{comparison.seed}; p-values: McNemar exact for proportions, sign-flip permutation for other means, else "
        f"the paired bootstrap (none below n = 10 except for proportions). A difference with p < {SIGNIFICANT} is "
        "marked (green or red for the headline metric, by whether it is better): the headline row unadjusted, "
        f"every other row by its {method['adjustment'].split(',')[0]}-adjusted p-value over the family of the "
        "comparison's breakdown rows. 0/1 per-sample scores: McNemar's exact test on the discordant pairs."
    )
    return render(
        "compare",
        title=f"mindloop comparison · {' vs '.join(comparison.ids)}",
        ids=comparison.ids,
        sections=sections,
        unmatched=[(k, ", ".join(v)) for k, v in comparison.unmatched.items()],
        note=note,
        footer=footer(),
    )


def write_compare(comparison: Comparison, path: Path) -> Path:
    """Write the comparison page to ``path`` (a folder gets ``compare.html`` inside it), whole or not at all
    (:func:`~mindloop.paths.write_atomic`); returns the path."""
    return write_atomic(output_file(path, "compare.html"), render_compare(comparison))

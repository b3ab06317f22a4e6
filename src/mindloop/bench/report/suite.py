"""The suite report: each paper's headline table in the paper's layout, every run linked, the suite's ledger.

:func:`suite_report` gathers a suite's numbers (each run's stored summary, like ``mindloop report``) into one
JSON-ready dictionary: the suite, each planned benchmark's run with its counts, headline metric, seconds and tokens,
each paper's table as the benchmarks declare them (:func:`paper_tables`: MindPower Table 2, MindClaw Tables II and
IV, OmniToM Table 3, CoBel-World Tables 1 and 2, Theory of Space Table 1 and its map probes, ToMi and Hi-ToM by
type) and the token and time ledger of the whole suite. ``mindloop suite report --json`` prints it;
:func:`render_suite_report` lays the same dictionary out as one self-contained HTML page (``suite.html``), where a
metric with no value reads ``–``, never 0, and a 95% interval is shown under a value when the run's summary carries
one (``intervals``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import partial
from itertools import groupby
from pathlib import Path
from typing import Any

from mindloop.bench.declaration import PRESET_NAMES, Column, PaperTable
from mindloop.bench.headline import ReferenceMark, headline_of, headline_value, reference_marks
from mindloop.bench.registry import BENCHMARKS, get_benchmark, installed_benchmark
from mindloop.bench.report import ci_or_dash, marks_text, write_report
from mindloop.bench.report.plots import valued_marks
from mindloop.bench.report.view import footer, number, render, script_json
from mindloop.bench.runner import RunSummary, stored_policies, summarize_run
from mindloop.bench.store import RunStore
from mindloop.bench.suite import token_sum
from mindloop.bench.tables import cell_text, dig, interval_at
from mindloop.paths import output_file, write_atomic


def paper_tables() -> list[PaperTable]:
    """Every registered benchmark's declared paper tables, in suite order (a table once, by its key)."""
    benches = [get_benchmark(name) for name in BENCHMARKS.names()]
    out: dict[str, PaperTable] = {}
    for bench in sorted(benches, key=lambda b: (b.spec.suite.order, b.name)):
        for table in bench.spec.paper_tables:
            out.setdefault(table.key, table)
    return list(out.values())


_NOTE_KEYS = ("scorer", "encoder", "acc_over", "budget_note", "deviation", "extraction", "judge")
"""Text a benchmark's summary carries about how its numbers were made, shown under its table."""


def _interval_text(
    interval: tuple[float, float] | None, col: Column, summary: RunSummary | None, path: Sequence[str]
) -> str | None:
    """A cell's interval in the column's units; ``—`` for a metric (a float) its run gives no interval (the run's
    ``intervals.none`` says why); ``None`` for a count, an empty cell or a run stored before intervals."""
    if interval is not None:
        return f"[{cell_text(interval[0], col.scale, col.digits)}, {cell_text(interval[1], col.scale, col.digits)}]"
    if summary is None or not (summary.intervals or {}).get("method"):  # a run stored before intervals: nothing
        return None
    return ci_or_dash(None, dig(summary.metrics, path)) or None


def _interval_note(summaries: Sequence[RunSummary]) -> str | None:
    """How the intervals shown were made (the first summary's ``intervals`` that says), for the page."""
    for summary in summaries:
        intervals = summary.intervals
        if isinstance(intervals, Mapping) and intervals.get("method"):
            level = number(intervals.get("level"))
            share = f"{100 * level:g}%" if level is not None else "95%"
            return (
                f"{share} confidence interval ({intervals['method']}, {intervals.get('resamples', '?')} resamples, "
                f"seed {intervals.get('seed', '?')})"
            )
    return None


def _method(summary: RunSummary | None) -> str:
    if summary is None:
        return "–"
    return summary.model or f"{summary.agent} agent"


def run_marks(store: RunStore, summary: RunSummary) -> list[ReferenceMark]:
    """A run's reference marks (chance, best trivial, oracle; :func:`~mindloop.bench.headline.reference_marks`)
    from the values its summary keeps and the policies' definitions stored with it (else the registered
    benchmark's declaration); none when the run has no reference values."""
    if not summary.references:
        return []
    policies = stored_policies(store.stored_summary(summary.run_id), installed_benchmark(summary.benchmark))
    head = headline_of(summary.benchmark, summary.metrics)
    return reference_marks(summary.references, policies, head.higher_is_better if head else True)


def _filled_by(hint: str, preset: str | None) -> str | None:
    """What an empty cell says fills it (``None``: nothing to say, or the suite already ran that preset)."""
    if not hint or hint == preset:
        return None
    return f"--preset {hint} fills it" if hint in PRESET_NAMES else hint


def _table(
    spec: PaperTable,
    by_bench: Mapping[str, RunSummary],
    marks: Mapping[str, Sequence[ReferenceMark]] | None = None,
    preset: str | None = None,
) -> dict[str, Any]:
    """One paper table's numbers: every cell's raw value, its text, its interval and the run it comes from; a
    cell showing a run's headline metric carries the run's reference marks too (``references``, in the column's
    scale and digits), shown beside it; an empty cell of a run whose samples did not reach it says what fills it
    (``filled_by``, from the row's or column's declaration, unless the suite ran that ``preset``)."""
    marks = marks or {}
    rows = []
    for row in spec.rows:
        cells = []
        for col in spec.columns:
            bench = col.bench or row.bench or spec.bench
            summary = by_bench.get(bench)
            path = (*row.prefix, *col.path)
            value = number(dig(summary.metrics, path)) if summary else None
            if summary and path == ("n",) and value is None:  # a summary without a run-wide n: samples finished
                value = float(summary.n_completed)
            interval = interval_at(summary.intervals if summary else None, path)
            head = headline_of(bench, summary.metrics) if summary else None
            refs = marks.get(bench, ()) if head is not None and path == (head.metric,) else ()
            fmt = partial(cell_text, scale=1.0, digits=col.digits)  # marks_text scales the values itself
            cells.append(
                {
                    "value": value,
                    "text": cell_text(value, col.scale, col.digits),
                    "low": None if interval is None else interval[0] * col.scale,
                    "high": None if interval is None else interval[1] * col.scale,
                    "interval": _interval_text(interval, col, summary, path),
                    "benchmark": bench,
                    "filled_by": _filled_by(row.filled_by or col.filled_by, preset)
                    if summary and value is None
                    else None,
                    "run_id": summary.run_id if summary else None,
                    "metric": ".".join(path),
                    "references": marks_text(refs, fmt, col.scale) if refs else None,
                    "marks": [{**m._asdict(), "value": None if m.value is None else m.value * col.scale} for m in refs],
                }
            )
        main = by_bench.get(row.bench or spec.bench)
        rows.append({"label": row.label.format(method=_method(main)), "cells": cells})
    notes = [spec.note] if spec.note else []
    for bench in sorted(spec.benchmarks()):
        summary = by_bench.get(bench)
        for key in _NOTE_KEYS:
            text = summary.metrics.get(key) if summary else None
            if isinstance(text, str) and text:
                notes.append(f"{bench} {key}: {text}")
        if summary and summary.protocol:
            p = summary.protocol
            notes.append(f"{bench} protocol: {p['name']} (format retries {p['format_retries']})")
    protocols = {b: dict(by_bench[b].protocol) for b in sorted(spec.benchmarks()) if b in by_bench}
    return {
        "key": spec.key,
        "paper": spec.paper,
        "nav": f"{spec.paper} ({spec.nav})" if spec.nav else spec.paper,
        "title": spec.title,
        "columns": [{"group": c.group, "label": c.label} for c in spec.columns],
        "rows": rows,
        "notes": notes,
        "runs": [by_bench[b].run_id for b in sorted(spec.benchmarks()) if b in by_bench],
        "protocol": protocols,
    }


def suite_report(store: RunStore, suite_id: str) -> dict[str, Any]:
    """The suite's numbers, as ``mindloop suite report --json`` prints them and the HTML page shows them: the
    suite, each planned benchmark's run (or ``null`` when not started) with its counts, headline metric,
    seconds, tokens, protocol (format retries) and the ids of the samples it ran, each paper's table
    (:func:`paper_tables`) and the ledger of the whole suite."""
    info = store.suite(suite_id)
    members = store.suite_members(suite_id)
    planned = list(info.config.get("benchmarks", []))
    plan = planned + list(dict.fromkeys(b for b, _, _ in members if b not in planned))
    models = _models(info.model, info.config, members)
    by_model: dict[str | None, dict[str, RunSummary]] = {model: {} for model in models}
    for name, model, run_id in members:
        by_model.setdefault(model, {})[name] = summarize_run(run_id, store)
    marks = {(m, name): run_marks(store, s) for m, runs in by_model.items() for name, s in runs.items()}
    summaries = [s for runs in by_model.values() for s in runs.values()]
    entries = []
    for model, name in ((model, name) for model in models for name in plan):
        s = by_model[model].get(name)
        head = headline_of(name, s.metrics if s else None)
        value = headline_value(head, s.metrics) if s else None
        interval = interval_at(s.intervals if s else None, (head.metric,)) if head else None
        refs = marks.get((model, name), [])
        entries.append(
            {
                "benchmark": name,
                "run_id": s.run_id if s else None,
                "agent": s.agent if s else None,
                "model": s.model if s else model,
                "status": "not started" if s is None else "finished" if s.n_completed == s.n else "partial",
                "n": s.n if s else None,
                **{k: getattr(s, k) if s else 0 for k in ("n_completed", "n_failed", "n_bugs", "n_model_failures")},
                "headline": {
                    "metric": head.metric if head else None,
                    "higher_is_better": head.higher_is_better if head else None,
                    "value": value,
                    "low": interval[0] if interval else None,
                    "high": interval[1] if interval else None,
                    "references": [m._asdict() for m in refs],
                    "references_text": marks_text(refs),
                    "plot": _mini_plot(value, interval, refs),
                },
                "seconds": round(s.seconds, 3) if s else 0.0,
                "tokens": token_sum([s.tokens]) if s else token_sum([]),
                "replies": dict(s.replies) if s else {},
                "protocol": dict(s.protocol) if s else None,
                "sample_ids": [r.sample.id for r in store.records(s.run_id)] if s else [],
                "report": f"{s.run_id}.html" if s else None,
            }
        )
    tables = [
        _side_by_side(spec, by_model, marks, info.preset)
        for spec in paper_tables()
        if any(spec.benchmarks() & set(runs) for runs in by_model.values())
    ]
    done = [e for e in entries if e["run_id"]]
    ledger = {
        "runs": len(done),
        "benchmarks": len(plan) * len(models),
        "samples": sum(e["n"] or 0 for e in done),
        "completed": sum(e["n_completed"] for e in done),
        "failed": sum(e["n_failed"] for e in done),
        "bugs": sum(e["n_bugs"] for e in done),
        "run_seconds": round(sum(e["seconds"] for e in done), 3),
        "wall_seconds": round(info.seconds, 3),
        **token_sum([e["tokens"] for e in done]),
    }
    return {
        "suite_id": info.suite_id,
        "model": info.model,
        "models": models,
        "preset": info.preset,
        "started": info.started,
        "finished": info.finished,
        "complete": all(e["status"] == "finished" for e in entries),
        "version": info.version,
        "config": info.config,
        "runs": entries,
        "tables": tables,
        "ledger": ledger,
        "intervals": _interval_note(summaries),
    }


def _models(model: str | None, config: Mapping[str, Any], members: Sequence[tuple[str, str | None, str]]) -> list[Any]:
    """A suite's models in order: the configured ones (a suite of several), else its one model, then any other
    model one of its runs has."""
    configured = config.get("models")
    first: list[str | None] = list(configured) if isinstance(configured, list) and configured else [model]
    return list(dict.fromkeys([*first, *(m for _, m, _ in members)]))


def _side_by_side(
    spec: PaperTable,
    by_model: Mapping[str | None, Mapping[str, RunSummary]],
    marks: Mapping[tuple[str | None, str], Sequence[ReferenceMark]],
    preset: str | None = None,
) -> dict[str, Any]:
    """A paper table over every model of the suite (``preset``: the suite's, for what fills an empty cell): one model's
    table as :func:`_table` makes it, or, for several, the paper's rows once per model (methods are rows in the
    papers), a row that does not name its method (``{method}``) prefixed with the model's; runs, notes and protocols
    of every model."""
    tables = []
    for model, runs in by_model.items():
        if not spec.benchmarks() & set(runs):
            continue
        table = _table(spec, runs, {name: marks.get((model, name), ()) for name in runs}, preset)
        if len(by_model) > 1:
            for row, declared in zip(table["rows"], spec.rows, strict=True):
                if "{method}" not in declared.label:
                    row["label"] = f"{model or 'symbolic agents'} · {row['label']}"
            table["protocol"] = {f"{b} · {model}": p for b, p in table["protocol"].items()}
        tables.append(table)
    merged = dict(tables[0])
    merged["rows"] = [row for t in tables for row in t["rows"]]
    merged["notes"] = list(dict.fromkeys(note for t in tables for note in t["notes"]))
    merged["runs"] = [run for t in tables for run in t["runs"]]
    merged["protocol"] = {k: v for t in tables for k, v in t["protocol"].items()}
    return merged


def _mini_plot(
    value: float | None, interval: tuple[float, float] | None, marks: Sequence[ReferenceMark]
) -> dict[str, Any] | None:
    """Where the headline and its reference marks sit on one axis from 0 to the largest of them, in percent of
    its width, for the ledger's small headline plot: ``{"bar", "low", "high", "marks": [{label, name, at}]}``;
    ``None`` without a value or a mark."""
    drawn = valued_marks(marks)
    points = [v for v in (value, *(interval or ())) if v is not None and math.isfinite(v)] + [v for _, v in drawn]
    if value is None or not marks or not points:
        return None
    top = float(max(points))
    low = float(min(0.0, *points))
    span = (top - low) or 1.0

    def at(v: float) -> float:
        return round(100 * (v - low) / span, 2)

    return {
        "bar": at(value),
        "low": at(interval[0]) if interval else None,
        "high": at(interval[1]) if interval else None,
        "marks": [{"label": m.label, "name": m.name, "at": at(v)} for m, v in drawn],
    }


def _groups(columns: Sequence[Mapping[str, Any]]) -> list[tuple[str, int]]:
    """The header's column groups: consecutive columns with the same group, as ``(group, span)``."""
    return [(group, len(list(same))) for group, same in groupby(columns, key=lambda col: col["group"])]


_MAX_COLUMNS = 8
"""Value columns of one paper table shown side by side (eight, each with its interval under it, fit at 1280 px with a
scroll bar): a wider table is split into parts (whole column groups
where they fit, the row labels repeated), so no column is cut off at 1280 px."""


def _parts(columns: Sequence[Mapping[str, Any]], limit: int = _MAX_COLUMNS) -> list[dict[str, Any]]:
    """A paper table's columns in parts of at most ``limit``: runs of the same group stay together unless one
    group alone is wider than ``limit``. Each part: ``{"columns": [index, ...], "groups": [(group, span), ...]}``.

    >>> cols = [{"group": g} for g in "aaabbbbcc"] + [{"group": ""}]
    >>> [p["columns"] for p in _parts(cols, 5)]
    [[0, 1, 2], [3, 4, 5, 6], [7, 8, 9]]
    """
    runs = [[j for j, _ in same] for _, same in groupby(enumerate(columns), key=lambda jc: jc[1]["group"])]
    chunks: list[list[int]] = []
    for run in runs:  # a group wider than the limit is cut into pieces of the limit
        chunks.extend(run[k : k + limit] for k in range(0, len(run), limit))
    parts: list[list[int]] = []
    for chunk in chunks:
        if parts and len(parts[-1]) + len(chunk) <= limit:
            parts[-1].extend(chunk)
        else:
            parts.append(list(chunk))
    return [{"columns": part, "groups": _groups([columns[j] for j in part])} for part in parts]


def render_suite_report(data: Mapping[str, Any], *, links: bool = True) -> str:
    """The self-contained HTML page of a :func:`suite_report` dictionary; ``links`` makes each run's id a link to
    its report (``RUN_ID.html`` beside the page)."""
    return render(
        "suite",
        title=f"{data['suite_id']} · mindloop suite report",
        data=data,
        tables=[
            {**t, "parts": _parts(t["columns"]), "grouped": any(c["group"] for c in t["columns"])}
            for t in data["tables"]
        ],
        links=links,
        text=lambda value, digits=3: cell_text(number(value), 1.0, digits),
        footer=footer(),
        data_json=script_json(data),
    )


def write_suite_report(
    store: RunStore, suite_id: str, out: Path | None = None, *, run_reports: bool = True
) -> tuple[Path, list[Path]]:
    """Write the suite's page to ``out`` (default ``SUITE_ID.html`` here; a folder gets it inside) and, with
    ``run_reports``, each run's own report beside it as ``RUN_ID.html`` (what the page links to). Returns the
    page's path and the run reports written."""
    data = suite_report(store, suite_id)
    path = output_file(None if out is None else Path(out), f"{suite_id}.html")
    written = [
        write_report(entry["run_id"], store, path.parent / f"{entry['run_id']}.html")
        for entry in data["runs"]
        if run_reports and entry["run_id"]
    ]
    write_atomic(path, render_suite_report(data, links=run_reports))
    return path, written

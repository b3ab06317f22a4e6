"""``mindloop mindpower table RUN_ID ...``: the paper's Table 2 from ``mindpower`` runs in the run store.

One row per run (labelled by its model, or its agent when it used none, plus the setting when it is not the full
hierarchy); columns Perception B/S … Decision B/S, Action SR/AC, BPC. The Markdown table goes to stdout (or
``--out``); ``--json`` prints one object ``{"rows": {label: {run_id, bertscore, st, sr, ac, bpc, n, failed}},
"table": "..."}`` instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from mindloop.console import emit_table, json_opt, out_opt
from mindloop.systems import system_group

__all__ = ["mindpower_app", "mindpower_rows"]

mindpower_app = system_group("mindpower")


@mindpower_app.callback()
def _group() -> None:
    """MindPower reports."""


def mindpower_rows(run_ids: list[str]) -> dict[str, dict[str, Any]]:
    """``{label: metrics}`` of ``mindpower`` runs, recomputed from the run store (failed samples count as 0)."""
    from mindloop.bench.results import benchmark_runs
    from mindloop.systems.mindpower.benchmarks import summarize_mindpower

    rows: dict[str, dict[str, Any]] = {}
    refusal = "run {run_id} is a {benchmark!r} run, not a mindpower run"
    for info, records in benchmark_runs(run_ids, ("mindpower",), refusal):
        m = summarize_mindpower(records)
        label = info.model or info.agent
        if m.get("setting", "hierarchy") != "hierarchy":
            label += f" [{m['setting']}]"
        if label in rows:
            label += f" ({info.run_id})"
        columns = ("n", "failed", "bertscore", "st", "sr", "ac", "bpc", "encoder")
        rows[label] = {"run_id": info.run_id, **{k: m.get(k) for k in columns}}
        rows[label].update({"rescaling": m["rescaling"]} if "rescaling" in m else {})
    return rows


@mindpower_app.command("table")
def table(
    run_ids: Annotated[list[str], typer.Argument(help="mindpower runs, one row each, in this order.")],
    as_json: Annotated[bool, json_opt("Print one JSON object with the rows and the table.")] = False,
    out: Annotated[Path | None, out_opt("Write the table here instead of stdout.", dir_okay=False)] = None,
) -> None:
    """Table 2 (B = BERTScore F1, S = Sentence-Transformer cosine, SR, AC on 0-100; BPC on 0-10) of runs."""
    from mindloop.systems.mindpower.metrics import table2

    rows = mindpower_rows(run_ids)
    encoders = dict.fromkeys(f"B, S: {r.get('encoder')}" for r in rows.values())  # what made B and S, beside it
    emit_table(table2(rows), rows, as_json, out, f"the table of {len(rows)} run(s)", encoders)

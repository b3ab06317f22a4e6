"""MindClaw's comparison tables laid out like the paper's: Table II (TA, PIA, CS of direct models against the
runtime), Table III (trigger ACC w/o ``noop`` with and without the belief table) and Table IV (trigger ACC and
ACC w/o ``noop`` without and with skill guidance).

Rows are named as the paper names them, with the run's model in place of the paper's Qwen3-4B / GPT-5.5:

* ``direct`` with ``--model M``: Table II row ``M`` (no trigger, so no Table III / IV row);
* ``model`` with ``skills=off``: Table II ``MindClaw (M)``, Tables III / IV ``M``;
* ``model`` with skills (the default): Table II ``MindClaw (M-Skill)``, Tables III / IV ``M-Skill``;
* ``classifier`` with ``skills=off`` / on: ``SFT`` / ``SFT-Skill`` (Table II: ``MindClaw (SFT)``, ...);
* ``symbolic`` (strong skills only): ``Skill``; ``never`` / ``first`` (references): ``never`` / ``first``.

Table III pairs the runs of one row label with ``belief_table=on`` and ``off``; its figure is trigger ACC w/o
``noop``, the metric whose GPT-5.5 value (20.32) the paper's Tables III and IV share. Values are percentages with
two decimals, as in the paper; a metric with nothing to count is ``–``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mindloop.bench import Column
from mindloop.bench.tables import grid, markdown
from mindloop.systems.mindclaw.benchmarks import ClawBenchmark, trigger_label

__all__ = ["paper_rows", "render_tables", "trigger_label"]


def paper_rows(runs: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The three tables' rows from ``{run_id: {"agent", "model", "summary"}}`` (``summary``:
    :func:`~mindloop.systems.mindclaw.benchmarks.summarize_claw`): ``{"table2": {label: {ta, pia, cs, run_id}},
    "table3": {label: {with, without, run_ids}}, "table4": {label: {acc, acc_no_noop, run_id}}}``, fractions.
    A later run of the same label and setting replaces an earlier one."""
    t2: dict[str, dict[str, Any]] = {}
    t3: dict[str, dict[str, Any]] = {}
    t4: dict[str, dict[str, Any]] = {}
    for run_id, run in runs.items():
        agent, model, s = str(run["agent"]), run.get("model"), run["summary"]
        settings = s.get("settings", {})
        table_on = settings.get("belief_table", "on") == "on"
        if agent == "direct":
            label2 = model or "direct"
        elif agent in ("never", "first"):
            label2 = agent
        else:
            label2 = f"MindClaw ({trigger_label(agent, str(settings.get('skills', 'auto')), model)})"
            if not table_on:
                label2 += " w/o belief table"
        t2[label2] = {"ta": s.get("ta"), "pia": s.get("pia"), "cs": s.get("cs"), "run_id": run_id}
        if agent == "direct":
            continue
        label = trigger_label(agent, str(settings.get("skills", "auto")), model)
        row3 = t3.setdefault(label, {"with": None, "without": None, "run_ids": {}})
        row3["with" if table_on else "without"] = s.get("acc_no_noop")
        row3["run_ids"]["with" if table_on else "without"] = run_id
        if table_on:
            t4[label] = {"acc": s.get("acc"), "acc_no_noop": s.get("acc_no_noop"), "run_id": run_id}
    return {"table2": t2, "table3": t3, "table4": t4}


_TABLE_III = (
    Column("w/ Belief Table", ("with",), scale=100),
    Column("w/o Belief Table", ("without",), scale=100),
)
"""Table III's columns: trigger ACC w/o noop of a row's runs with and without the belief table."""


def render_tables(rows: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """The tables of :func:`paper_rows` as Markdown (tables with no rows are left out): Tables II and IV as the
    benchmark declares them (:class:`~mindloop.systems.mindclaw.benchmarks.ClawBenchmark`'s paper table, a column
    group each), Table III with the columns :data:`_TABLE_III`."""
    (spec,) = ClawBenchmark.spec.paper_tables
    tables = (
        ("table2", "TABLE II: direct models and MindClaw. Values are percentages.", "Table II"),
        ("table3", "TABLE III: belief-table ablation (trigger ACC w/o noop, %).", _TABLE_III),
        ("table4", "TABLE IV: trigger ablation. Values are percentages.", "Table IV"),
    )
    return "\n\n".join(
        f"{title}\n\n"
        + markdown(
            grid(
                spec,
                rows[key],
                columns=[c for c in spec.columns if c.group == cols] if isinstance(cols, str) else cols,
                rows=spec.rows[:1],
                first="Model",
            )
        )
        for key, title, cols in tables
        if rows[key]
    )

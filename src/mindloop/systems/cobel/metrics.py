"""Collaboration metrics of CoBel-World (section 4.1) and the layouts of its Tables 1 and 2.

Inputs are plain episode records (the ``to_dict`` form of an episode result, or any mapping with the same keys):
``world`` (``cwah``/``tdw-mat``), ``task``, ``steps``, ``finished``, ``transport_rate``, ``comm_tokens``,
``n_messages``, ``belief_accuracy`` (a list of ``[t, accuracy]``) and ``error``. A record with an ``error`` is a
failure: it counts as the step limit (C-WAH) and a transport rate of 0 (TDW-MAT), never as a success.

* **average steps** to finish a C-WAH task (an unfinished episode counts the 250-step limit);
* **transport rate**: the fraction of the 10 targets on the bed within 3,000 frames (TDW-MAT);
* **communication cost**: tokens in all messages of an episode, averaged over episodes, counted with the offline
  tokenizer named by :data:`TOKENIZER_NAME` (the paper counts with its models' tokenizers, so absolute numbers
  differ; ratios between teams are comparable);
* **messages** per episode;
* beyond the paper, **first-order belief accuracy**: how often an agent's beliefs about what a partner believes
  match what the partner does believe, over time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mindloop.bench import Column, PaperTable, Row
from mindloop.bench.api import SampleRecord
from mindloop.bench.tables import aligned, grid
from mindloop.datafiles import DataModel, load_package_data
from mindloop.metrics.stats import mean
from mindloop.models.tokens import TOKENIZER_NAME

CWAH_MAX_STEPS = 250


class _TablesFile(DataModel):
    """``data/tables.yaml``: the summary's glossary, the agent kinds' descriptions and the tables' row labels."""

    glossary: dict[str, str]
    agent_kinds: dict[str, str]
    cwah_task_labels: dict[str, str]
    tdw_task_labels: dict[str, str]
    ablation_rows: dict[str, str]


_TABLES = load_package_data(_TablesFile, "mindloop.systems.cobel", "tables.yaml")

CWAH_TASK_LABELS = _TABLES.cwah_task_labels
"""Table 2's row labels for the C-WAH tasks."""

TDW_TASK_LABELS = _TABLES.tdw_task_labels
"""Table 1's row labels for the TDW-MAT tasks, in the table's order."""


def episode_records(records: Sequence[SampleRecord], *, counts: bool = False) -> list[dict[str, Any]]:
    """The episode records of a run's samples, a failed one marked as an error (it counts as the step limit); with
    ``counts``, a failed one's tokens and messages taken from its scores when its output has none."""
    out = []
    for r in records:
        ep = dict(r.output or {})
        ep.setdefault("world", r.sample.input.get("world"))
        ep.setdefault("task", r.sample.group)
        if r.status == "failed" or r.error:
            ep["error"] = r.error or "failed"
            if counts:
                ep.setdefault("comm_tokens", r.scores.get("comm_tokens", 0.0))
                ep.setdefault("n_messages", r.scores.get("messages", 0.0))
        out.append(ep)
    return out


def _failed(r: Mapping[str, Any]) -> bool:
    return bool(r.get("error"))


def _steps(r: Mapping[str, Any]) -> float:
    if _failed(r) or not r.get("finished"):
        return float(CWAH_MAX_STEPS) if r.get("world", "cwah") == "cwah" else float(r.get("steps", 0))
    return float(r.get("steps", CWAH_MAX_STEPS))


def _rate(r: Mapping[str, Any]) -> float:
    if _failed(r):
        return 0.0
    rate = r.get("transport_rate")
    return float(rate) if rate is not None else 0.0


def accuracy_curve(
    records: Sequence[Mapping[str, Any]], bins: int = 10, horizon: float | None = None
) -> list[tuple[float, float]]:
    """Mean first-order belief accuracy over time, in ``bins`` equal slices of ``[0, horizon]``.

    ``horizon`` defaults to the latest sample time. Slices no episode sampled are left out.
    """
    points = [(float(t), float(a)) for r in records for t, a in (r.get("belief_accuracy") or [])]
    if not points:
        return []
    end = horizon or max(t for t, _ in points) or 1.0
    sums = [0.0] * bins
    counts = [0] * bins
    for t, a in points:
        k = min(bins - 1, int(bins * t / end)) if end else 0
        sums[k] += a
        counts[k] += 1
    return [(round(end * (k + 0.5) / bins, 1), round(sums[k] / counts[k], 4)) for k in range(bins) if counts[k]]


def summarize_episodes(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Averages over episodes: steps, transport rate (TDW-MAT), tokens, messages, belief accuracy, failures.

    Keys: ``n``, ``failed``, ``finished`` (share of episodes that met the goal), ``avg_steps``, ``comm_tokens``
    (average per episode), ``messages`` (average per episode), ``belief_accuracy`` (mean over all samples),
    ``tokenizer``; with any TDW-MAT record also ``transport_rate``; and ``by_task``. Every average is ``None``
    when there is nothing to average (no episodes; no belief samples), never 0.
    """
    out: dict[str, Any] = {
        "n": len(records),
        "failed": sum(1 for r in records if _failed(r)),
        "finished": mean(float(bool(r.get("finished")) and not _failed(r)) for r in records),
        "avg_steps": mean(_steps(r) for r in records),
        "comm_tokens": mean(float(r.get("comm_tokens", 0)) for r in records),
        "messages": mean(float(r.get("n_messages", 0)) for r in records),
        "belief_accuracy": mean(float(a) for r in records for _, a in (r.get("belief_accuracy") or [])),
        "tokenizer": TOKENIZER_NAME,
    }
    if any(r.get("world") == "tdw-mat" for r in records):
        out["transport_rate"] = mean(_rate(r) for r in records)
    by_task: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        by_task.setdefault(str(r.get("task", "")), []).append(r)
    out["by_task"] = (
        {
            task: {k: v for k, v in summarize_episodes(rs).items() if k not in ("by_task", "tokenizer")}
            for task, rs in by_task.items()
        }
        if len(by_task) > 1
        else {}
    )
    return out


ABLATION_ROWS = _TABLES.ablation_rows
"""Table 3's rows: the agent kind of each and its label in the paper."""

_TOKENS = Column("Communication Cost in tokens (lower is better; {tokenizer})", ("comm_tokens",), digits=0)

_TABLE_2 = PaperTable(
    "cwah-teams",
    "CoBel-World",
    "Table 2 (C-WAH, symbolic observation), a column per team",
    "cwah",
    (Column("Average Step (lower is better)", ("avg_steps",), digits=0), _TOKENS),
    (*(Row(label, ("by_task", task)) for task, label in CWAH_TASK_LABELS.items()), Row("Average")),
)
"""Table 2 as :func:`table_cwah` prints it: a block per column, a row per task, a column per team."""

_TABLE_1 = PaperTable(
    "tdw-mat-teams",
    "CoBel-World",
    "Table 1 (TDW-MAT), a column per team",
    "tdw-mat",
    (Column("Transport Rate % (higher is better)", ("transport_rate",), scale=100, digits=2), _TOKENS),
    (
        *(_tdw := tuple(Row(label, ("by_task", task)) for task, label in TDW_TASK_LABELS.items()))[:2],
        Row("Low-capacity Average", ("by_capacity", "low")),
        *_tdw[2:],
        Row("High-capacity Average", ("by_capacity", "high")),
        Row("Total Average"),
    ),
)
"""Table 1 as :func:`table_tdw` prints it: each category, each capacity's average and the total."""

_TABLE_3 = PaperTable(
    "cwah-ablation",
    "CoBel-World",
    "Table 3 (C-WAH ablations)",
    "cwah",
    (Column("Avg steps (lower is better)", ("avg_steps",), digits=0),),
    (Row("{method}"),),
)
"""Table 3 as :func:`table_ablation` prints it: a row per ablation (:data:`ABLATION_ROWS`)."""


def _cell(records: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    """What the tables show of ``records``: average steps, transport rate and tokens (none when no message was
    sent: the team did not talk)."""
    talked = any(float(r.get("n_messages", 0)) != 0 for r in records)
    return {
        "avg_steps": mean(_steps(r) for r in records),
        "transport_rate": mean(_rate(r) for r in records),
        "comm_tokens": mean(float(r.get("comm_tokens", 0)) for r in records) if talked else None,
    }


def _team(records: Sequence[Mapping[str, Any]], tasks: Sequence[str]) -> dict[str, Any]:
    """A team's metrics as the tables read them: overall, ``by_task`` and ``by_capacity``."""
    by_task = {t: _cell([r for r in records if r.get("task") == t]) for t in tasks}
    by_capacity = {c: _cell([r for r in records if r.get("task") in tasks and c in r["task"]]) for c in ("low", "high")}
    return {**_cell(records), "by_task": by_task, "by_capacity": by_capacity}


def _by_team(
    table: PaperTable, results: Mapping[str, Sequence[Mapping[str, Any]]], tasks: Sequence[str], first: int, **fmt: str
) -> str:
    """``table`` with a column per team of ``results``: a block per declared column, titled by its label."""
    teams = {team: _team(rs, tasks) for team, rs in results.items()}
    rows = [row for row in table.rows if row.prefix[:1] != ("by_task",) or row.prefix[1] in tasks]
    width = max(12, *(len(t) + 2 for t in teams))
    return "\n\n".join(
        f"{c.label.format(**fmt)}\n"
        + aligned(grid(table, teams, columns=(c,), rows=rows, first="Task", missing="—", transpose=True), first, width)
        for c in table.columns
    )


def table_cwah(results: Mapping[str, Sequence[Mapping[str, Any]]], tokenizer: str = TOKENIZER_NAME) -> str:
    """:data:`_TABLE_2` for teams ``{label: records}``: average steps, then tokens (``tokenizer`` names what
    counted them in the header); a row per task some team played."""
    tasks = [t for t in CWAH_TASK_LABELS if any(r.get("task") == t for rs in results.values() for r in rs)]
    return _by_team(_TABLE_2, results, tasks, 14, tokenizer=tokenizer)


def table_tdw(results: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """:data:`_TABLE_1` for teams ``{label: records}``: transport rate (%) per task and capacity, then tokens."""
    return _by_team(_TABLE_1, results, list(TDW_TASK_LABELS), 22, tokenizer=TOKENIZER_NAME)


def table_ablation(results: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """:data:`_TABLE_3`: average C-WAH steps of CoBel-World and its No-SBR and No-BBC ablations (the teams of
    ``results`` named by those kinds; rows with no runs are left out)."""
    methods = {label: _cell(results[kind]) for kind, label in ABLATION_ROWS.items() if kind in results}
    return aligned(grid(_TABLE_3, methods, missing="—"), 25, 8)


def token_counters(results: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, int]:
    """How many messages of ``results`` were counted by each tokenizer (``model``: the server's usage)."""
    out: dict[str, int] = {}
    for rs in results.values():
        for r in rs:
            for m in r.get("messages") or ():
                name = str(m.get("tokenizer") or TOKENIZER_NAME) if isinstance(m, Mapping) else TOKENIZER_NAME
                out[name] = out.get(name, 0) + 1
    return out

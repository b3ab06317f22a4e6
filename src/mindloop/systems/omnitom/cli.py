"""``mindloop omnitom score`` / ``annotate`` / ``import``, and ``describe_tombench`` for ``mindloop data describe
tombench``.

``score --pred P --gold G [--judge MODEL] [--protocol release|mindloop] --json`` prints one JSON object::

    {"stage1": {"precision", "recall", "f1"},
     "stage2": {"overall", "by_dimension": {"order", "truth_status", "knowledge_access", "representation",
                                            "content_type", "mental_source", "context"}},
     "n_stories", "protocol", "aligner"}

with macro averages in [0, 1] (``null`` where nothing was scored); stories a judge could not score are listed in
``stage1_unscored: [{"story_id", "reason"}]`` when there are any (and, under the release's protocol,
``stage1_release_rule`` gives Stage 1 as the release scores them: their rows unmatched); ``aligner`` names what
gave the Stage 1 MatchCounts (``judge:MODEL``, or the embedded / exact aligner standing in for the judge offline).
Human output (tables laid out like the paper's Table 3 and Table 10) goes to stderr. ``import DIR`` turns the CSV
outputs of the release's own replication script into ``omnitom-stage1`` / ``omnitom-stage2`` runs of the run
store."""

from __future__ import annotations

import asyncio
import os
from contextlib import aclosing, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from mindloop.console import JsonFlag, emit, emit_json, err_console, json_opt, out_console, out_opt, plain_table
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems import system_group
from mindloop.systems.omnitom.release import Protocol

if TYPE_CHECKING:
    from mindloop.systems.omnitom.metrics import OmniToMScore

__all__ = ["describe_tombench", "omnitom_app"]

omnitom_app = system_group("omnitom")


_AlignerChoice = Literal["auto", "embedded", "exact"]


@omnitom_app.command("score")
def score(
    pred: Annotated[Path, typer.Option("--pred", help="Predicted records (JSON or JSONL, Table 7 format).")],
    gold: Annotated[Path, typer.Option("--gold", help="Gold records (JSON or JSONL, all seven labels).")],
    judge: Annotated[
        str | None, typer.Option("--judge", help="Align Stage 1 with this model judge (BACKEND/NAME), as the paper.")
    ] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="Endpoint of the judge model.")] = None,
    aligner: Annotated[
        _AlignerChoice,
        typer.Option("--aligner", help="Without --judge: embedded (needs the metrics extra), exact, or auto."),
    ] = "auto",
    threshold: Annotated[
        float, typer.Option("--threshold", help="Cosine threshold of the embedded aligner.", min=-1.0, max=1.0)
    ] = 0.80,
    protocol: Annotated[
        Protocol,
        typer.Option(
            "--protocol",
            help="release: the official release's judge messages and few-shot examples, unreadable judge replies "
            "scored as unmatched, Stage 2 rows matched by exact (actor, belief, occurrence); mindloop: its own.",
        ),
    ] = "release",
    as_json: JsonFlag = False,
) -> None:
    """Score Stage 1 (MatchCount F1) and Stage 2 (labelling accuracy) of PRED against GOLD, story by story.

    Without --judge, Stage 1 MatchCounts come from the embedded (or exact) aligner, mindloop's offline stand-in for
    the paper's judge; every output names the one used."""
    from mindloop.systems.omnitom.alignment import offline_aligner
    from mindloop.systems.omnitom.metrics import Aligner, score_records
    from mindloop.systems.omnitom.records import read_records

    gold_records = read_records(gold)
    if not any(r.beliefs for r in gold_records):  # nothing to score against is not a score of 0 or N/A
        raise ParseError("no gold beliefs to score against (every story's belief list is empty)", source=str(gold))
    pred_records = read_records(pred, partial=True)
    chosen: Aligner
    model = None
    if judge is not None:
        from mindloop.models.base import ModelOptions, load_model
        from mindloop.systems.omnitom.judge import JudgeAligner

        model = load_model(judge, ModelOptions(base_url=base_url))
        chosen = JudgeAligner(model, protocol=protocol)
    else:
        chosen = offline_aligner(aligner, threshold)

    async def run() -> OmniToMScore:
        async with aclosing(model) if model is not None else nullcontext():
            return await score_records(pred_records, gold_records, chosen, protocol=protocol)

    result = asyncio.run(run())
    if as_json:
        emit_json(result.to_json())
    else:
        _show_score(result, pred.name)
    _warn(result)


def _warn(result: OmniToMScore) -> None:
    console = err_console()
    if result.stage1_unscored:
        console.print(f"warning: {len(result.stage1_unscored)} stor(ies) left out of Stage 1 (unscored, N/A):")
        for story_id, why in result.stage1_unscored:
            console.print(f"  story {story_id}: {why}", markup=False, highlight=False)
        if result.protocol == "release":
            rule = result.to_json()["stage1_release_rule"]["f1"]
            console.print(f"  the release scores their rows as unmatched: Stage 1 F1 {rule:.4f} by its rule")
    if result.unmatched_predictions:
        console.print(f"warning: {len(result.unmatched_predictions)} predicted stor(ies) have no gold story (ignored)")
    if result.skipped_gold:
        console.print(f"warning: {len(result.skipped_gold)} gold stor(ies) have no beliefs (skipped)")
    if result.stage1_only:
        console.print(f"note: {len(result.stage1_only)} gold stor(ies) label only the order: Stage 1 only")


def _show_score(result: OmniToMScore, model_name: str) -> None:
    from mindloop.systems.omnitom.metrics import table3, table10
    from mindloop.systems.omnitom.records import DIMENSION_NAMES

    def num(value: float | None, fmt: str = ".4f") -> str:  # no data (None) prints as N/A, never as 0
        return "N/A" if value is None else format(value, fmt)

    console = out_console()
    s1, s2 = result.stage1, result.stage2
    scorer = s1["aligner"] if s1["aligner"].startswith("judge:") else f"{s1['aligner']}, offline stand-in for the judge"
    console.print(
        f"{result.n_stories} stories · {result.protocol} protocol · Stage 1 ({scorer}): P {num(s1['precision'])} "
        f"R {num(s1['recall'])} F1 {num(s1['f1'])} · Stage 2 overall {num(s2['overall'])}"
    )
    layouts = (
        ("Table 3 layout (%)", table3({model_name: result})),
        ("Table 10 layout (%)", table10({model_name: result})),
    )
    for title, (header, rows) in layouts:
        console.print(plain_table(header, rows, title))
    buckets: list[tuple[str, ...]] = []
    for b in ("0", "1", "2+"):
        f1, acc = s1["by_order"].get(b), s2["by_order"].get(b)
        stage1 = (f"{100 * f1['f1']:.2f}", str(f1["n"])) if f1 else ("N/A", "0")
        buckets.append((b, *stage1, num(100 * acc["overall"] if acc else None, ".2f")))
    console.print(plain_table(("order", "Stage 1 F1", "stories", "Stage 2 overall"), buckets, "By order bucket (%)"))
    dims = ", ".join(f"{DIMENSION_NAMES[d]} {num(v)}" for d, v in s2["by_dimension"].items())
    console.print(f"Stage 2 by dimension: {dims}")


@omnitom_app.command("annotate")
def annotate(
    story_file: Annotated[
        Path,
        typer.Argument(
            help="Templated false-belief stories (one per line or paragraph), a ToMi/Hi-ToM numbered-line file, "
            "or a ToMBench category .jsonl."
        ),
    ],
    out: Annotated[Path | None, out_opt("Write records here (.jsonl or .json) instead of stdout.")] = None,
    max_order: Annotated[int, typer.Option("--max-order", min=1, max=3, help="Deepest belief order to emit.")] = 3,
    as_json: Annotated[bool, json_opt("Print one JSON summary object on stdout (needs --out).")] = False,
) -> None:
    """Write gold OmniToM records (beliefs with all seven labels) read from the belief store for every story the
    project can parse; stories that do not parse are skipped and listed."""
    from mindloop.systems.omnitom.annotator import annotate_story_file
    from mindloop.systems.omnitom.records import dump_records, write_records

    if as_json and out is None:
        raise InvalidArgumentError("--json prints a summary; give --out FILE for the records")
    result = annotate_story_file(story_file, max_order=max_order)
    if out is None:
        emit(dump_records(result.records), None)
    else:
        write_records(out, result.records)
    n_beliefs = sum(len(r.beliefs) for r in result.records)
    if as_json:
        emit_json(
            {
                "format": result.format,
                "n_stories": len(result.records),
                "n_beliefs": n_beliefs,
                "skipped": [{"where": w, "reason": why} for w, why in result.skipped],
                "out": str(out),
            }
        )
        return
    console = err_console()
    where = f" to {out}" if out is not None else ""
    console.print(f"annotated {len(result.records)} stories ({n_beliefs} beliefs, {result.format}){where}")
    if result.skipped:
        console.print(f"skipped {len(result.skipped)} stories the parser does not read; the first:")
        for w, why in result.skipped[:3]:
            console.print(f"  {w}: {why}", markup=False, highlight=False)


def describe_tombench(
    path: Annotated[
        Path | None,
        typer.Argument(
            help="ToMBench data folder (or one category .jsonl); default: $MINDLOOP_TOMBENCH, else the copy "
            "shipped with mindloop."
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Stories (questions grouped by identical STORY) and question rows in each of OmniToM's seven categories."""
    from mindloop.systems.omnitom.tombench import bundled_tombench_path, category_counts, load_tombench

    if path is None:
        env = os.environ.get("MINDLOOP_TOMBENCH")
        path = Path(env) if env else bundled_tombench_path()
    counts = category_counts(load_tombench(path))
    total = {key: sum(c[key] for c in counts.values()) for key in ("stories", "questions")}
    if as_json:
        emit_json({"path": str(path), "categories": counts, "total": total})
        return
    rows = [(name, str(c["stories"]), str(c["questions"])) for name, c in [*counts.items(), ("total", total)]]
    out_console().print(plain_table(("category", "stories", "questions"), rows, f"ToMBench at {path}"))


@omnitom_app.command("import")
def import_run(
    folder: Annotated[
        Path,
        typer.Argument(help="The output folder of the release's replication script (extraction/, labeling/, judge/)."),
    ],
    gold: Annotated[
        Path | None,
        typer.Option(
            "--gold", help="The release's benchmark_story_belief_labels.jsonl (default: the manifest's dataset_path)."
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Import a run of the release's own replication script (its extraction, labeling and judge CSVs) into the run
    store as omnitom-stage1 / omnitom-stage2 runs, scored as the release scores them."""
    from mindloop.bench.runner import summarize_run
    from mindloop.bench.store import RunStore
    from mindloop.paths import runs_path
    from mindloop.systems.omnitom.replication import import_replication

    with RunStore(runs_path()) as store:
        runs = import_replication(folder, store, gold=gold)
        summaries = {r.run_id: summarize_run(r.run_id, store).metrics for r in runs}
    if as_json:
        items = [
            {
                "benchmark": r.benchmark,
                "run_id": r.run_id,
                "n": r.n,
                "failed": r.n_failed,
                "metrics": summaries[r.run_id],
            }
            for r in runs
        ]
        emit_json({"runs": items})
        return
    console = out_console()
    for r in runs:
        m = summaries[r.run_id]
        key = "f1" if r.benchmark == "omnitom-stage1" else "overall"
        figure = f"{key} {m[key]:.4f}" if m.get(key) is not None else f"{key} N/A"
        console.print(f"{r.benchmark}: {r.run_id} ({r.n} stories, {r.n_failed} failed) · {figure}")
        console.print(f"  report: mindloop report {r.run_id}")

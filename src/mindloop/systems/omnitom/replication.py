"""Import a run of the OmniToM release's own replication script into the run store.

The release's script writes, per story ``N`` (``story_NNN``), ``extraction/csv/story_NNN_extract.csv`` (``actor,
belief,order``), ``labeling/csv/story_NNN_label.csv`` (``actor,belief,order,truth-status,knowledge-access,
representation,content_type,mental-source,context``), ``judge/csv/story_NNN_predictions.csv`` and
``_groundtruth.csv`` (``Actor,Belief,MatchCount``, one row per predicted / gold row in input order), and a
``manifest.json`` (models, judge, stories, the dataset path relative to the folder). :func:`import_replication`
turns the folder into an ``omnitom-stage1`` run (when ``judge/csv`` is there) and an ``omnitom-stage2`` run (when
``labeling/csv`` is), one sample per story, scored as the release's metrics step scores them (Stage 1 P/R/F1 from
the judge's MatchCounts; Stage 2 per-dimension accuracy over the release's ``(actor, belief, occurrence)`` keys), so
``mindloop report`` and ``mindloop runs`` show them beside runs made by mindloop. Gold labels and categories come
from the release's ``benchmark_story_belief_labels.jsonl`` (``--gold``, else the manifest's ``dataset_path``).

A story of the manifest whose CSV is missing, or whose extraction has no row, is a failed sample scored 0 (the
release scores an empty extraction 0 too).
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mindloop._version import __version__
from mindloop.bench.api import Outcome
from mindloop.bench.store import RunStore, SampleResult
from mindloop.datafiles import read_json_file, read_text_file
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems.omnitom.alignment import Alignment
from mindloop.systems.omnitom.benchmarks import failed_outcome, record_sample, stage2_outcome
from mindloop.systems.omnitom.metrics import stage1_story_score
from mindloop.systems.omnitom.records import (
    DIMENSIONS,
    BeliefLabels,
    BeliefRecord,
    StoryRecord,
    read_records,
)
from mindloop.systems.omnitom.release import match_count, release_labels, stage2_labels_by_key

_LABEL_COLUMNS: dict[str, str] = {d: d if d == "content_type" else d.replace("_", "-") for d in DIMENSIONS}
"""Each dimension's column in the release's labeling CSV (hyphenated, but ``content_type``)."""


@dataclass(frozen=True)
class ImportedRun:
    """One run created from a replication folder: which benchmark, its id, and its sample counts."""

    benchmark: str
    run_id: str
    n: int
    n_failed: int


def read_replication_csv(path: Path) -> list[dict[str, str]]:
    """The rows of one of the release's CSV files, cells with whitespace collapsed (as the release reads them)."""
    text = read_text_file(path)
    try:
        rows = list(csv.DictReader(text.splitlines()))
    except csv.Error as exc:
        raise ParseError(f"not a CSV file: {exc}", source=str(path)) from None
    return [{k: " ".join((v or "").split()) for k, v in row.items() if k is not None} for row in rows]


def _need(rows: Sequence[Mapping[str, str]], columns: Sequence[str], path: Path) -> None:
    if rows and not set(columns) <= set(rows[0]):
        missing = ", ".join(c for c in columns if c not in rows[0])
        raise ParseError(f"missing column(s) {missing} (expected {','.join(columns)})", source=str(path))


def _manifest(folder: Path) -> dict[str, Any]:
    path = folder / "manifest.json"
    if not path.is_file():
        return {}
    data = read_json_file(path)
    if not isinstance(data, dict):
        raise ParseError("expected a JSON object", source=str(path))
    return data


def _gold_path(folder: Path, gold: Path | None, manifest: Mapping[str, Any]) -> Path:
    if gold is not None:
        return gold
    named = manifest.get("dataset_path")
    if isinstance(named, str) and (folder / named).is_file():
        return folder / named
    where = f" (the manifest's dataset_path {named!r} is not there)" if named else ""
    raise InvalidArgumentError(
        f"{folder}: give --gold benchmark_story_belief_labels.jsonl, the release's records the run was scored "
        f"against{where}"
    )


def _stem(story_id: int) -> str:
    return f"story_{story_id:03d}"


def _stage1(folder: Path, record: StoryRecord, index: int) -> SampleResult:
    stem = _stem(record.story_id)
    pred_path = folder / "judge" / "csv" / f"{stem}_predictions.csv"
    gold_path = folder / "judge" / "csv" / f"{stem}_groundtruth.csv"
    missing = [p.name for p in (pred_path, gold_path) if not p.is_file()]
    if missing:
        return _result(index, failed_outcome("beliefs", f"missing {', '.join(missing)}"))
    pred_rows, gold_rows = read_replication_csv(pred_path), read_replication_csv(gold_path)
    for rows, path in ((pred_rows, pred_path), (gold_rows, gold_path)):
        _need(rows, ("Actor", "Belief", "MatchCount"), path)
    extract_path = folder / "extraction" / "csv" / f"{stem}_extract.csv"
    orders = [r.get("order", "") for r in read_replication_csv(extract_path)] if extract_path.is_file() else []
    if len(orders) != len(pred_rows):
        orders = [""] * len(pred_rows)
    predicted = [
        BeliefRecord(actor=r["Actor"] or "?", belief=r["Belief"] or "?", labels=BeliefLabels.partial(order=o or None))
        for r, o in zip(pred_rows, orders, strict=True)
    ]
    gold = list(record.beliefs)
    if len(gold) != len(gold_rows):  # the judge's gold table is the record's beliefs in order; else read it as is
        gold = [BeliefRecord(actor=r["Actor"] or "?", belief=r["Belief"] or "?") for r in gold_rows]
    alignment = Alignment(
        tuple(max(0, match_count(r["MatchCount"])) for r in pred_rows),
        tuple(max(0, match_count(r["MatchCount"])) for r in gold_rows),
    )
    score = stage1_story_score(predicted, gold, alignment, story_id=record.story_id, category=record.story_category)
    output = {
        "beliefs": [b.model_dump(mode="json") for b in predicted],
        "match_counts": {"predicted": list(alignment.pred_counts), "gold": list(alignment.gold_counts)},
    }
    return _result(
        index, Outcome(output, score.scores()), None if predicted else "no rows in the extraction (scored 0)"
    )


def _stage2(folder: Path, record: StoryRecord, index: int) -> SampleResult:
    path = folder / "labeling" / "csv" / f"{_stem(record.story_id)}_label.csv"
    if not path.is_file():
        return _result(index, failed_outcome("labels", f"missing {path.name}"))
    rows = read_replication_csv(path)
    _need(rows, ("actor", "belief", *_LABEL_COLUMNS.values()), path)
    predicted = [
        (r["actor"], r["belief"], release_labels({d: r[column] for d, column in _LABEL_COLUMNS.items()})) for r in rows
    ]
    outcome = stage2_outcome(record, stage2_labels_by_key(predicted, record.beliefs), {})
    return _result(index, outcome, None if rows else "no rows in the labelling (scored 0)")


def _result(index: int, outcome: Outcome, error: str | None = None) -> SampleResult:
    """The stored result of a story scored to ``outcome``: failed with ``error`` (or the outcome's), else done."""
    error = error or outcome.error
    return SampleResult(index, "failed" if error else "done", outcome.output, outcome.scores, error, [], 0.0)


def import_replication(folder: str | Path, store: RunStore, *, gold: str | Path | None = None) -> list[ImportedRun]:
    """Create a run in ``store`` for each stage the replication ``folder`` holds; returns them (Stage 1 first).

    Raises :class:`~mindloop.errors.InvalidArgumentError` for a folder with neither ``judge/csv`` nor
    ``labeling/csv``, or without gold records to read, and :class:`~mindloop.errors.ParseError` for a malformed
    file (named).
    """
    root = Path(folder)
    if not root.is_dir():
        raise InvalidArgumentError(f"{root}: not a folder (expected the output folder of the release's replication)")
    stages = [
        (name, sub)
        for name, sub in (("omnitom-stage1", "judge"), ("omnitom-stage2", "labeling"))
        if (root / sub / "csv").is_dir()
    ]
    if not stages:
        raise InvalidArgumentError(f"{root}: no judge/csv or labeling/csv folder (not a replication output folder)")
    manifest = _manifest(root)
    gold_file = _gold_path(root, Path(gold) if gold is not None else None, manifest)
    records = {r.story_id: r for r in read_records(gold_file)}
    ids = manifest.get("stories")
    if not (isinstance(ids, list) and all(isinstance(i, int) for i in ids)):
        found = {
            int(p.name.split("_")[1])
            for _, sub in stages
            for p in (root / sub / "csv").glob("story_*.csv")
            if p.name.split("_")[1].isdigit()
        }
        ids = sorted(found)
    unknown = [i for i in ids if i not in records]
    if unknown:
        raise InvalidArgumentError(f"{root}: story {unknown[0]} is not in {gold_file} ({len(unknown)} unknown)")
    runs = []
    for benchmark, _ in stages:
        chosen = [records[i] for i in ids]
        if benchmark == "omnitom-stage2":
            chosen = [r for r in chosen if r.stage2_ready]
        judge = manifest.get("judge_model") or manifest.get("model") or manifest.get("backend") or "unknown"
        model_key = "extract_model" if benchmark == "omnitom-stage1" else "label_model"
        model = manifest.get(model_key) or manifest.get("model") or manifest.get("backend")
        settings: dict[str, Any] = {"protocol": "release", "imported": True, "source": str(root)}
        if benchmark == "omnitom-stage1":
            settings.update(aligner="judge", judge=str(judge), scorer=f"judge:{judge} (the release's own run)")
        samples = [record_sample(r, settings) for r in chosen]
        config = {"imported_from": str(root), "gold": str(gold_file), "protocol": "release", "manifest": manifest}
        run_id = store.create_run(
            benchmark=benchmark,
            agent="model",
            model=str(model) if model else None,
            config=config,
            samples=samples,
            version=__version__,
        )
        score = _stage1 if benchmark == "omnitom-stage1" else _stage2
        results = [score(root, r, i) for i, r in enumerate(chosen)]
        store.finish(run_id, results)
        store.add_seconds(run_id, 0.0, finished=True)
        runs.append(ImportedRun(benchmark, run_id, len(results), sum(1 for r in results if r.status == "failed")))
    return runs

"""Results out, the way researchers keep them: a folder of files they own, and pandas frames over the run store.

``--output-dir DIR`` on ``bench run`` and ``suite run`` writes :data:`RESULTS_FILE` (what the run reported: counts,
metrics, intervals, references, protocol, configuration; for a suite, one such object per run) and
:data:`SAMPLES_FILE` (one JSON line per sample), as lm-evaluation-harness's ``--output_path --log_samples`` does.
:func:`runs_frame` and :func:`samples_frame` give one row per run and one per sample over the store, with
inspect_ai's ``evals_df``/``samples_df`` column names where they mean the same thing (``score_headline_name``,
``score_headline_value``, ``score_<metric>``, ``total_samples``, ``completed_samples``, ``id``, ``input``,
``target``, ``error``, ``total_tokens``); pandas is the optional ``frames`` extra.

Everything is read through the store's API (:meth:`~mindloop.bench.store.RunStore.records`,
:func:`~mindloop.bench.runner.summarize_run`), so the files, the frames and ``mindloop runs export`` agree.
"""

from __future__ import annotations

import json
from collections.abc import Container, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mindloop.bench.headline import headline_of, headline_value
from mindloop.bench.listing import list_runs
from mindloop.bench.runner import RunSummary, summarize_run
from mindloop.bench.store import RunInfo, RunStore
from mindloop.errors import DependencyError, InvalidArgumentError, MindloopError
from mindloop.paths import runs_path, write_atomic

if TYPE_CHECKING:
    import pandas as pd

    from mindloop.bench.api import SampleRecord

RESULTS_FILE = "results.json"
SAMPLES_FILE = "samples.jsonl"

_INSTALL_FRAMES = "pip install 'mindloop[frames]' (or pip install pandas)"


def output_dir(path: str | Path) -> Path:
    """``path`` made ready to hold the results (created with its parents), checked before a run starts so a folder
    that cannot be written fails in one line before anything runs; an existing file is refused."""
    folder = Path(path).expanduser()
    if folder.exists() and not folder.is_dir():
        raise InvalidArgumentError(f"--output-dir {str(path)!r} is a file; name a folder (it is created if missing)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".mindloop-write-check-{id(folder)}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise InvalidArgumentError(
            f"--output-dir {str(path)!r} cannot be written ({exc.strerror or exc}); name a writable folder"
        ) from None
    return folder


def sample_rows(store: RunStore, run_id: str) -> list[dict[str, Any]]:
    """One JSON-ready row per sample of ``run_id``, in order, pending ones included (``status`` ``pending``): the
    run and sample ids, group, status, error, seconds, Ray node, scores, input, target, choices, output and every
    model call (prompt, reply, tokens). ``mindloop runs export`` and :data:`SAMPLES_FILE` write these rows."""
    info = store.run(run_id)
    return [
        {
            "run_id": run_id,
            "benchmark": info.benchmark,
            "model": info.model,
            "index": r.index,
            "sample_id": r.sample.id,
            "group": r.sample.group,
            "status": r.status,
            "error": r.error,
            "seconds": r.seconds,
            "node": r.node,
            "scores": r.scores,
            "input": r.sample.input,
            "target": r.sample.target,
            "choices": list(r.sample.choices),
            "output": r.output,
            "calls": r.calls,
        }
        for r in store.records(run_id, include_pending=True)
    ]


def benchmark_runs(
    run_ids: Iterable[str], benchmarks: Container[str], refusal: str
) -> Iterator[tuple[RunInfo, list[SampleRecord]]]:
    """Each of ``run_ids`` with its finished samples, in order, from the run store under ``MINDLOOP_HOME`` (opened
    read-only): what a system's ``table`` command lays out. A run of a benchmark not in ``benchmarks`` is refused
    with ``refusal``, a format string of ``run_id`` and ``benchmark``."""
    with _open(None) as store:
        for run_id in run_ids:
            info = store.run(run_id)
            if info.benchmark not in benchmarks:
                raise InvalidArgumentError(refusal.format(run_id=run_id, benchmark=info.benchmark))
            yield info, store.records(run_id)


def run_results(store: RunStore, run_id: str) -> dict[str, Any]:
    """What :data:`RESULTS_FILE` holds for one run: the ``bench run --json`` summary (counts, metrics, intervals,
    tokens, protocol, references and what each reference policy is), then the run's stored configuration (seed,
    options, generation settings), its start and end, and the mindloop version that recorded it."""
    info = store.run(run_id)
    summary = summarize_run(run_id, store).to_json()
    return summary | {key: getattr(info, key) for key in ("config", "started", "finished", "version")}


def write_results(
    folder: Path, store: RunStore, run_ids: Sequence[str], *, suite: dict[str, Any] | None = None
) -> tuple[Path, Path]:
    """Write :data:`RESULTS_FILE` and :data:`SAMPLES_FILE` for ``run_ids`` into ``folder`` (each file whole or not
    at all, replacing an earlier one); returns their paths. A run alone is its results object; a suite
    (``suite``: its own fields) holds its runs under ``runs``."""
    runs = [run_results(store, run_id) for run_id in run_ids]
    results: dict[str, Any] = (suite | {"runs": runs}) if suite is not None else runs[0]
    lines = (json.dumps(row, ensure_ascii=False) + "\n" for run_id in run_ids for row in sample_rows(store, run_id))
    results_path = write_atomic(folder / RESULTS_FILE, json.dumps(results, ensure_ascii=False, indent=2) + "\n")
    samples_path = write_atomic(folder / SAMPLES_FILE, "".join(lines))
    return results_path, samples_path


# -- frames -------------------------------------------------------------------------------------------------------


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as exc:
        raise DependencyError(f"runs_frame and samples_frame need pandas: {_INSTALL_FRAMES} ({exc})") from None
    return pandas


def _open(store: RunStore | str | Path | None) -> AbstractContextManager[RunStore]:
    """``store`` itself when it is open (left open), else the store it names opened read-only (closed after)."""
    if isinstance(store, RunStore):
        return nullcontext(store)
    return RunStore(runs_path(create=False) if store is None else Path(store), readonly=True)


def _scalars(metrics: dict[str, Any]) -> dict[str, float]:
    """The top-level numbers of a summary as ``score_<name>`` columns (breakdowns stay in :data:`RESULTS_FILE`)."""
    return {
        f"score_{key}": float(value)
        for key, value in metrics.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }


def runs_frame(store: RunStore | str | Path | None = None) -> pd.DataFrame:
    """One row per run of the store (the default one, a path, or an open :class:`RunStore`), oldest first: ids
    (``run_id``, ``suite_id``), what ran (``benchmark``, ``agent``, ``model``, ``seed``, ``format_retries``),
    ``status`` (finished, running, stale, stopped), ``started``/``finished``, ``total_samples``,
    ``completed_samples``, ``failed_samples``, ``bug_samples``, the headline (``score_headline_name``,
    ``score_headline_value``, ``score_headline_low``/``high``: its 95% interval where it has one), every top-level
    metric as ``score_<metric>``, ``total_tokens``, ``seconds`` and the recording ``version``."""
    pd = _pandas()
    with _open(store) as opened:
        lines, _ = list_runs(opened, metrics=False)
        suites = opened.suite_of_runs()
        rows = []
        for line in lines:
            info = line.info
            try:
                summary: RunSummary | None = summarize_run(info.run_id, opened)
            except MindloopError:  # a benchmark no longer installed, a damaged run: listed without its numbers
                summary = None
            metrics = summary.metrics if summary is not None else {}
            head = headline_of(info.benchmark, metrics)
            interval = summary.intervals.get("metrics", {}).get(head.metric) if summary and head else None
            rows.append(
                {
                    "run_id": info.run_id,
                    "suite_id": suites.get(info.run_id),
                    "benchmark": info.benchmark,
                    "agent": info.agent,
                    "model": info.model,
                    "seed": info.config.get("seed"),
                    "format_retries": info.config.get("format_retries", 0),
                    "status": line.state,
                    "started": info.started,
                    "finished": info.finished,
                    "total_samples": info.n,
                    "completed_samples": info.n_completed,
                    "failed_samples": info.n_failed,
                    "bug_samples": info.n_bugs,
                    "score_headline_name": head.metric if head else None,
                    "score_headline_value": headline_value(head, metrics),
                    "score_headline_low": interval.get("low") if isinstance(interval, dict) else None,
                    "score_headline_high": interval.get("high") if isinstance(interval, dict) else None,
                }
                | _scalars(metrics)
                | {
                    "total_tokens": summary.tokens.get("total_tokens", 0) if summary is not None else None,
                    "seconds": round(info.seconds, 3),
                    "version": info.version,
                }
            )
    return pd.DataFrame(rows, columns=None if rows else _RUN_COLUMNS)


_RUN_COLUMNS = [
    *("run_id", "suite_id", "benchmark", "agent", "model", "seed", "format_retries", "status", "started", "finished"),
    *("total_samples", "completed_samples", "failed_samples", "bug_samples", "score_headline_name"),
    *("score_headline_value", "score_headline_low", "score_headline_high", "total_tokens", "seconds", "version"),
]
"""The columns of :func:`runs_frame` every run has (an empty store's frame has these)."""

_SAMPLE_COLUMNS = [
    *("run_id", "benchmark", "model", "id", "group", "status", "error", "input", "target", "choices", "output"),
    *("total_tokens", "model_calls", "seconds"),
]
"""The columns of :func:`samples_frame` every sample has."""


def _run_ids(store: RunStore, runs: str | Iterable[str] | None) -> list[str]:
    """The runs ``runs`` names (run ids, suite ids: ``mindloop compare``'s :func:`~mindloop.bench.compare.expand_ids`),
    each once, in order; every run of the store when ``None``."""
    from mindloop.bench.compare import expand_ids

    if runs is None:
        return [info.run_id for info in store.runs()]
    names = [runs] if isinstance(runs, str) else list(runs)
    return list(dict.fromkeys(info.run_id for _, infos in expand_ids(store, names) for info in infos))


def samples_frame(runs: str | Iterable[str] | None = None, store: RunStore | str | Path | None = None) -> pd.DataFrame:
    """One row per sample of ``runs`` (run ids or suite ids; every run of the store when ``None``), pending ones
    included: ``run_id``, ``benchmark``, ``model``, ``id`` (the sample's id), ``group``, ``status``, ``error``,
    ``input``, ``target``, ``choices``, ``output``, ``total_tokens`` and ``model_calls`` (the number of calls),
    ``seconds``, and one ``score_<name>`` column per per-sample score. The calls themselves are in
    :data:`SAMPLES_FILE` and ``mindloop runs export``."""
    pd = _pandas()
    with _open(store) as opened:
        rows = []
        for run_id in _run_ids(opened, runs):
            for row in sample_rows(opened, run_id):
                calls = row["calls"] or []
                tokens = sum(int(c.get("prompt_tokens") or 0) + int(c.get("completion_tokens") or 0) for c in calls)
                fields = {column: row["sample_id" if column == "id" else column] for column in _SAMPLE_COLUMNS[:11]}
                rows.append(
                    fields
                    | {"total_tokens": tokens, "model_calls": len(calls), "seconds": row["seconds"]}
                    | {f"score_{k}": v for k, v in (row["scores"] or {}).items()}
                )
    return pd.DataFrame(rows, columns=None if rows else _SAMPLE_COLUMNS)

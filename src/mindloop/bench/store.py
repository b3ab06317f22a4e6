"""The SQLite run store: every run's configuration and every sample's input, output, calls and scores.

A run's samples are written as ``pending`` rows when the run is created, and each is finished by one
``UPDATE ... WHERE status = 'pending'`` committed the moment the sample ends, so a killed process loses only
the samples that were in flight and a resumed run can never finish a sample twice. The database runs in WAL
mode with ``synchronous=NORMAL``: a commit survives the process being killed (only an operating-system crash
can drop the last few), and commits stay cheap enough for thousands of samples a second.

A finished sample is ``done``, ``failed`` (the model or its answer failed: a transport error after the last retry,
an unparseable reply; it is scored as a failure) or ``bug`` (the benchmark raised an exception that is not a
:class:`~mindloop.errors.MindloopError`: a defect in code, counted apart so it never passes for a model's
failure). Stores written before ``bug`` existed kept such samples as ``failed`` with an error starting
``internal error:``; they are read back as ``bug``, so old stores need no migration.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mindloop.bench.api import Sample, SampleRecord
from mindloop.errors import InvalidArgumentError, MindloopError

__all__ = ["FINISHED_STATUSES", "STATUSES", "RunInfo", "RunStore", "SampleResult"]

FINISHED_STATUSES = ("done", "failed", "bug")
"""What a finished sample can be: answered, failed (model or answer), or stopped by a bug."""

STATUSES = ("pending", *FINISHED_STATUSES)
"""Every sample status, in the order summaries and reports list them."""

_STATUS = "CASE WHEN s.status = 'failed' AND s.error LIKE 'internal error:%' THEN 'bug' ELSE s.status END"
"""A sample's status as read back: a bug recorded by a store from before the ``bug`` status counts as one."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    benchmark TEXT NOT NULL,
    agent TEXT NOT NULL,
    model TEXT,
    config TEXT NOT NULL,
    n INTEGER NOT NULL,
    started TEXT NOT NULL,
    finished TEXT,
    seconds REAL NOT NULL DEFAULT 0,
    version TEXT NOT NULL,
    lock_owner TEXT
);
CREATE TABLE IF NOT EXISTS samples (
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    idx INTEGER NOT NULL,
    sample_id TEXT NOT NULL,
    grp TEXT NOT NULL,
    input TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    output TEXT,
    scores TEXT,
    error TEXT,
    calls TEXT,
    seconds REAL,
    finished TEXT,
    PRIMARY KEY (run_id, idx),
    UNIQUE (run_id, sample_id)
);
"""

_RUN_ROWS = (
    "SELECT r.run_id, r.benchmark, r.agent, r.model, r.config, r.n, r.started, r.finished, r.seconds, r.version,"
    + ",".join(f" COUNT(CASE WHEN {_STATUS} = '{status}' THEN 1 END)" for status in FINISHED_STATUSES)
    + " FROM runs r LEFT JOIN samples s ON s.run_id = r.run_id"
)
"""A run's row with its done, failed and bug counts (one query for one run or for all of them)."""


@dataclass(frozen=True)
class RunInfo:
    """A run's row: what ran, with what configuration, and how far it got."""

    run_id: str
    benchmark: str
    agent: str
    model: str | None
    config: dict[str, Any]
    n: int
    started: str
    finished: str | None
    seconds: float
    version: str
    n_done: int = 0
    n_failed: int = 0
    n_bugs: int = 0

    @property
    def n_completed(self) -> int:
        """Samples finished: done, failed and stopped by a bug."""
        return self.n_done + self.n_failed + self.n_bugs

    def to_dict(self) -> dict[str, Any]:
        """The ``mindloop runs --json`` entry."""
        return {
            "run_id": self.run_id,
            "benchmark": self.benchmark,
            "agent": self.agent,
            "model": self.model,
            "started": self.started,
            "finished": self.finished,
            "n": self.n,
            "n_completed": self.n_completed,
            "n_failed": self.n_failed,
            "n_bugs": self.n_bugs,
            "seconds": round(self.seconds, 3),
            "config": self.config,
        }


@dataclass(frozen=True)
class SampleResult:
    """A finished sample on its way into the store (status ``done``, ``failed`` or ``bug``)."""

    index: int
    status: str
    output: dict[str, Any]
    scores: dict[str, float]
    error: str | None
    calls: list[dict[str, Any]]
    seconds: float


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class RunStore:
    """One SQLite file holding every run; safe to share between processes (runs are locked while running)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise MindloopError(f"{self.path}: not a usable mindloop run store ({exc})") from None

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # -- runs ---------------------------------------------------------------------------------------------

    def create_run(
        self,
        *,
        benchmark: str,
        agent: str,
        model: str | None,
        config: dict[str, Any],
        samples: Sequence[Sample],
        version: str,
    ) -> str:
        """Record a new run with all its samples pending; returns its id (``BENCHMARK-YYYYMMDD-HHMMSS-xxxx``)."""
        ids = [s.id for s in samples]
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise InvalidArgumentError(f"benchmark {benchmark!r} produced the sample id {dup!r} twice")
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        run_id = f"{benchmark}-{stamp}-{secrets.token_hex(2)}"
        with self._transaction() as db:
            db.execute(
                "INSERT INTO runs (run_id, benchmark, agent, model, config, n, started, version)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, benchmark, agent, model, _dumps(config), len(samples), _now(), version),
            )
            db.executemany(
                "INSERT INTO samples (run_id, idx, sample_id, grp, input) VALUES (?, ?, ?, ?, ?)",
                ((run_id, i, s.id, s.group, _dumps(s.input)) for i, s in enumerate(samples)),
            )
        return run_id

    def run(self, run_id: str) -> RunInfo:
        """The run called ``run_id``; an unknown id is an error that lists the most recent runs."""
        row = self._db.execute(f"{_RUN_ROWS} WHERE r.run_id = ? GROUP BY r.run_id", (run_id,)).fetchone()
        if row is None:
            recent = [r.run_id for r in self.runs()[-3:]]
            hint = f"; recent runs: {', '.join(recent)}" if recent else "; no runs recorded yet"
            raise InvalidArgumentError(f"no run {run_id!r} in {self.path}{hint}")
        return self._info(row)

    def runs(self) -> list[RunInfo]:
        """Every run, oldest first."""
        rows = self._db.execute(f"{_RUN_ROWS} GROUP BY r.run_id ORDER BY r.started, r.rowid").fetchall()
        return [self._info(r) for r in rows]

    @staticmethod
    def _info(row: tuple[Any, ...]) -> RunInfo:
        return RunInfo(
            run_id=row[0],
            benchmark=row[1],
            agent=row[2],
            model=row[3],
            config=json.loads(row[4]),
            n=row[5],
            started=row[6],
            finished=row[7],
            seconds=row[8],
            version=row[9],
            n_done=row[10],
            n_failed=row[11],
            n_bugs=row[12],
        )

    @contextmanager
    def locked(self, run_id: str) -> Iterator[None]:
        """Hold the run for this process while it executes, refusing a second live process on the same run."""
        me = f"{socket.gethostname()}:{os.getpid()}"
        with self._transaction() as db:
            (owner,) = db.execute("SELECT lock_owner FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if owner and owner != me and _alive(owner):
                raise InvalidArgumentError(f"run {run_id} is being executed by process {owner}; wait for it to end")
            db.execute("UPDATE runs SET lock_owner = ? WHERE run_id = ?", (me, run_id))
        try:
            yield
        finally:
            self._db.execute("UPDATE runs SET lock_owner = NULL WHERE run_id = ? AND lock_owner = ?", (run_id, me))

    def add_seconds(self, run_id: str, seconds: float, *, finished: bool) -> None:
        """Add one session's wall-clock time to the run, and stamp it finished when no sample is pending."""
        self._db.execute(
            "UPDATE runs SET seconds = seconds + ?, finished = CASE WHEN ? THEN ? ELSE finished END WHERE run_id = ?",
            (seconds, finished, _now(), run_id),
        )

    # -- samples ------------------------------------------------------------------------------------------

    def pending(self, run_id: str) -> list[tuple[int, Sample]]:
        """The samples of a run not yet finished, in order."""
        rows = self._db.execute(
            "SELECT idx, sample_id, grp, input FROM samples WHERE run_id = ? AND status = 'pending' ORDER BY idx",
            (run_id,),
        ).fetchall()
        return [(idx, Sample(sid, json.loads(inp), grp)) for idx, sid, grp, inp in rows]

    def finish(self, run_id: str, results: Iterable[SampleResult]) -> int:
        """Store finished samples in one commit; returns how many were stored (a finished one is never redone)."""
        results = list(results)
        bad = next((r.status for r in results if r.status not in FINISHED_STATUSES), None)
        if bad is not None:
            raise InvalidArgumentError(f"a finished sample's status must be one of {FINISHED_STATUSES}, got {bad!r}")
        stamp = _now()
        with self._transaction() as db:
            cur = db.executemany(
                "UPDATE samples SET status = ?, output = ?, scores = ?, error = ?, calls = ?, seconds = ?,"
                " finished = ? WHERE run_id = ? AND idx = ? AND status = 'pending'",
                (
                    (
                        r.status,
                        _dumps(r.output),
                        _dumps(r.scores),
                        r.error,
                        _dumps(r.calls),
                        r.seconds,
                        stamp,
                        run_id,
                        r.index,
                    )
                    for r in results
                ),
            )
            return cur.rowcount

    def records(self, run_id: str, *, include_pending: bool = False) -> list[SampleRecord]:
        """The samples of a run read back in order (finished ones only unless ``include_pending``)."""
        where = "" if include_pending else " AND s.status != 'pending'"
        rows = self._db.execute(
            f"SELECT s.idx, s.sample_id, s.grp, s.input, {_STATUS}, s.output, s.scores, s.error, s.calls, s.seconds"
            f" FROM samples s WHERE s.run_id = ?{where} ORDER BY s.idx",
            (run_id,),
        ).fetchall()
        return [
            SampleRecord(
                index=idx,
                sample=Sample(sid, json.loads(inp), grp),
                status=status,
                output=json.loads(out) if out is not None else None,
                scores=json.loads(scores) if scores is not None else {},
                error=error,
                calls=json.loads(calls) if calls is not None else [],
                seconds=seconds or 0.0,
            )
            for idx, sid, grp, inp, status, out, scores, error, calls, seconds in rows
        ]


def _alive(owner: str) -> bool:
    """Whether the process named ``host:pid`` is still running (a process on another host counts as alive)."""
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname():
        return True
    try:
        os.kill(int(pid), 0)
    except (ProcessLookupError, ValueError):
        return False
    except PermissionError:
        return True
    return True

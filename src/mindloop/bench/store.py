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

Opening for writing (the runner) first runs ``PRAGMA quick_check``: a damaged file is refused with a
:class:`StoreDamagedError` before anything is written to it, and mindloop never deletes or rewrites it. Opening
read-only (``mindloop runs``, ``runs export``, ``report``) uses a ``mode=ro`` URI, so it works on a read-only
``MINDLOOP_HOME`` and can never change the file; :meth:`RunStore.readable_runs` lists what a damaged store still
holds. Any ``sqlite3.DatabaseError`` met later runs the same check, so damage is reported as damage (one line
naming the file and what to do), not as a crash. The store's layout version is kept in ``PRAGMA user_version``
(see :data:`SCHEMA_VERSION` and :data:`MIGRATIONS`).

A run (or suite) being executed is locked (:meth:`RunStore.locked`): the lock names its holder (``host:pid``, the
process's start time, a random token), carries a heartbeat the holder stamps from a thread, and a generation raised
by every acquisition. A lock whose holder is gone (its process no longer exists on this host or its PID was reused,
or its heartbeat is older than :func:`lock_stale_after`, which also covers a holder on another host: a container
that was replaced) is taken over with a message; ``--force-resume`` takes over one that still looks live. Every
write of a holder is fenced: inside the write's transaction the lock must still hold its token, so a holder that
was taken over (suspended, then woken) has its writes refused (:class:`LockLostError`) and no sample is stored
twice; each finished sample records the generation that wrote it. Text SQLite cannot hold (a lone surrogate in a
reply) is stored with U+FFFD in its place, and a write that fails (a full disk) is one line, never a crash.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import socket
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mindloop.bench.api import Sample, SampleRecord
from mindloop.bench.key import RunKey, derive_key, sample_digest
from mindloop.errors import InvalidArgumentError, MindloopError
from mindloop.models.chat import storable_text

__all__ = [
    "FINISHED_STATUSES",
    "LOCK_STALE_ENV",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "STATUSES",
    "LockLostError",
    "RunInfo",
    "RunStore",
    "SampleResult",
    "StoreDamagedError",
    "StoreError",
    "SuiteInfo",
    "check_tags",
    "legacy_target",
    "lock_stale_after",
]

FINISHED_STATUSES = ("done", "failed", "bug")
"""What a finished sample can be: answered, failed (model or answer), or stopped by a bug."""

STATUSES = ("pending", *FINISHED_STATUSES)
"""Every sample status, in the order summaries and reports list them."""

_STATUS = "CASE WHEN s.status = 'failed' AND s.error LIKE 'internal error:%' THEN 'bug' ELSE s.status END"
"""A sample's status as read back: a bug recorded by a store from before the ``bug`` status counts as one."""

SCHEMA_VERSION = 10
"""The layout of the store this mindloop writes, kept in the file as ``PRAGMA user_version``. Stores written
before the version was recorded read 0; they hold layout 1 and are brought to this layout the next time they are
opened for writing (never by a read-only open). Layout 2 adds ``samples.history``: the earlier attempts of a
sample re-run by ``--retry-failed``. Layout 3 adds the ``suites`` and ``suite_runs`` tables: a suite
(:mod:`mindloop.bench.suite`) and which run is its run of each benchmark; runs themselves are unchanged. Layout 4
adds the lock's heartbeat, token, process identity and generation to ``runs`` and ``suites``
(:meth:`RunStore.locked`): locks that heal and writes fenced by generation. Layout 5
adds ``run_summaries``: each run's summary as it was computed, with the metric definitions and the mindloop
version that computed it, so a report reads the numbers the run reported (a run from before layout 5 gets one the
first time it is summarised through a store opened for writing, labelled as computed then). Layout 6
adds ``samples.node``: the Ray node that executed a sample (``NULL`` for the local and process executors, and for
every sample stored before). Layout 7 changes no table: the step to it redacts credentials that older versions
stored (:func:`_redact_credentials`). Layout 8 adds ``samples.target`` and
``samples.choices`` (JSON): what a sample is scored against (``NULL`` for a sample stored before: :func:`legacy_target`
reads it from the input as reports did). Layout 9 keys ``suite_runs`` by ``(suite_id, benchmark, model)``, with the
run's model in a new ``model`` column: a suite may run several models. Layout 10 adds ``runs.key`` (JSON: the run's
comparability key, :mod:`mindloop.bench.key`), derived for every run stored before where it can be and marked unknown
with the reason where not (:func:`_add_keys`), and the ``run_tags`` table (a run's tags: ``--tag``, ``mindloop runs
tag``)."""


def _add_history(db: sqlite3.Connection) -> None:
    """Layout 1 -> 2: ``samples.history``, a JSON list of a sample's earlier attempts (``NULL``: none)."""
    db.execute("ALTER TABLE samples ADD COLUMN history TEXT")


def _add_suites(db: sqlite3.Connection) -> None:
    """Layout 2 -> 3: the ``suites`` table (one row per suite) and ``suite_runs`` (its run of each benchmark)."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS suites (suite_id TEXT PRIMARY KEY, model TEXT, preset TEXT NOT NULL,"
        " config TEXT NOT NULL, started TEXT NOT NULL, finished TEXT, seconds REAL NOT NULL DEFAULT 0,"
        " version TEXT NOT NULL, lock_owner TEXT)"
    )
    db.execute(
        "CREATE TABLE IF NOT EXISTS suite_runs (suite_id TEXT NOT NULL REFERENCES suites(suite_id),"
        " benchmark TEXT NOT NULL, run_id TEXT NOT NULL UNIQUE REFERENCES runs(run_id),"
        " PRIMARY KEY (suite_id, benchmark))"
    )


def _add_lock_fencing(db: sqlite3.Connection) -> None:
    """Layout 3 -> 4: each run's and suite's lock gains ``lock_token`` (the holder's random token),
    ``lock_process`` (its process's start time, to tell a reused PID), ``lock_heartbeat`` (Unix seconds of its last
    heartbeat) and ``lock_generation`` (raised by every acquisition; a holder's writes are fenced by it); each sample
    gains ``generation``, the lock generation of the holder that finished it (``NULL``: written without a lock)."""
    db.execute("ALTER TABLE samples ADD COLUMN generation INTEGER")
    for table in ("runs", "suites"):
        for column in ("token TEXT", "process TEXT", "heartbeat REAL", "generation INTEGER NOT NULL DEFAULT 0"):
            db.execute(f"ALTER TABLE {table} ADD COLUMN lock_{column}")


def _add_summaries(db: sqlite3.Connection) -> None:
    """Layout 4 -> 5: ``run_summaries``, one stored summary per run (JSON: metrics, intervals, definitions,
    version, how it was computed)."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS run_summaries (run_id TEXT PRIMARY KEY REFERENCES runs(run_id),"
        " summary TEXT NOT NULL, saved TEXT NOT NULL)"
    )


def _add_node(db: sqlite3.Connection) -> None:
    """Layout 5 -> 6: ``samples.node``, the id of the Ray node a sample ran on (``NULL``: not run on Ray)."""
    db.execute("ALTER TABLE samples ADD COLUMN node TEXT")


_BEARER = re.compile(r"(?i)\b(bearer\s+)[\w.~+/=-]+")
_URL = re.compile(r"https?://[^\s\"'<>\\]+")


def _redact_credentials(db: sqlite3.Connection) -> None:
    """Layout 6 -> 7: credentials that older versions stored are replaced by ``***`` in every run's and suite's
    configuration and every sample's output, error, model calls and history: those in URLs (``user:password@``, a
    key in the query: a base URL was once stored as given), any ``Bearer`` token, and the API key itself with its
    encoded forms (a server that echoed it) when the variable the run named (``--api-key-env``) holds it now."""
    if db.execute("SELECT 1 FROM runs LIMIT 1").fetchone() is None:
        return  # a new store: nothing stored yet
    from mindloop.models.base import redact_secret, redact_url

    db.execute("PRAGMA secure_delete = ON")  # the old text is overwritten in the file, not left in its free space

    def clean(text: str | None, key: str | None) -> str | None:
        if text is None:
            return None
        return redact_secret(_BEARER.sub(r"\1***", _URL.sub(lambda m: redact_url(m.group()), text)), key)

    db.create_function("mindloop_redact", 2, clean, deterministic=True)
    for table, column in (("runs", "run_id"), ("suites", "suite_id")):
        for row_id, config in db.execute(f"SELECT {column}, config FROM {table}").fetchall():
            try:
                env = json.loads(config)["model_options"]["api_key_env"]
                key = os.environ.get(env, "").strip() or None
            except (ValueError, TypeError, KeyError):
                key = None
            db.execute(f"UPDATE {table} SET config = ? WHERE {column} = ?", (clean(config, key), row_id))
            if table == "runs":
                for text in ("output", "error", "calls", "history"):
                    db.execute(
                        f"UPDATE samples SET {text} = mindloop_redact({text}, ?1) WHERE run_id = ?2"
                        f" AND mindloop_redact({text}, ?1) IS NOT {text}",
                        (key, row_id),
                    )


def _add_targets(db: sqlite3.Connection) -> None:
    """Layout 7 -> 8: ``samples.target`` and ``samples.choices`` (JSON; ``NULL``: stored before layout 8)."""
    db.execute("ALTER TABLE samples ADD COLUMN target TEXT")
    db.execute("ALTER TABLE samples ADD COLUMN choices TEXT")


def _key_suite_runs_by_model(db: sqlite3.Connection) -> None:
    """Layout 8 -> 9: ``suite_runs`` gains ``model`` (the run's model, ``''`` for none) and is keyed by
    ``(suite_id, benchmark, model)``, so one suite can hold a run of each benchmark for each of several models
    (``suite run --model A --model B``). SQLite cannot change a key in place: the table is rebuilt."""
    db.execute(
        "CREATE TABLE suite_runs_by_model (suite_id TEXT NOT NULL REFERENCES suites(suite_id),"
        " benchmark TEXT NOT NULL, model TEXT NOT NULL DEFAULT '', run_id TEXT NOT NULL UNIQUE REFERENCES runs(run_id),"
        " PRIMARY KEY (suite_id, benchmark, model))"
    )
    db.execute(
        "INSERT INTO suite_runs_by_model (suite_id, benchmark, model, run_id) SELECT sr.suite_id, sr.benchmark,"
        " COALESCE(r.model, ''), sr.run_id FROM suite_runs sr LEFT JOIN runs r ON r.run_id = sr.run_id"
        " ORDER BY sr.rowid"
    )
    db.execute("DROP TABLE suite_runs")
    db.execute("ALTER TABLE suite_runs_by_model RENAME TO suite_runs")


def _add_keys(db: sqlite3.Connection) -> None:
    """Layout 9 -> 10: ``runs.key`` (the comparability key as JSON) and ``run_tags`` (run id, tag). Every run stored
    before gets the key :func:`~mindloop.bench.key.derive_key` derives from its stored configuration and samples (an
    unknown one, with the reason, where it cannot: a ``--data`` run, a benchmark not installed now)."""
    db.execute("ALTER TABLE runs ADD COLUMN key TEXT")
    db.execute(
        "CREATE TABLE IF NOT EXISTS run_tags (run_id TEXT NOT NULL REFERENCES runs(run_id), tag TEXT NOT NULL,"
        " PRIMARY KEY (run_id, tag))"
    )
    rows = db.execute("SELECT run_id, benchmark, agent, model, config FROM runs").fetchall()
    for run_id, benchmark, agent, model, config in rows:
        key = _derived_key(db, run_id, benchmark, agent, model, config)
        db.execute("UPDATE runs SET key = ? WHERE run_id = ?", (_dumps(key.to_json()), run_id))


def _derived_key(
    db: sqlite3.Connection, run_id: str, benchmark: str, agent: str, model: str | None, config: str
) -> RunKey:
    """The key of a run stored without one (:func:`~mindloop.bench.key.derive_key`) over its stored samples."""
    try:
        cfg = json.loads(config)
    except (TypeError, ValueError):
        return RunKey(benchmark, unknown="its stored configuration cannot be read")
    try:
        samples = _stored_digest(db, run_id)
    except (TypeError, ValueError):
        return RunKey(benchmark, unknown="its stored samples cannot be read")
    return derive_key(benchmark, agent, model, cfg if isinstance(cfg, dict) else {}, samples)


def _stored_digest(db: sqlite3.Connection, run_id: str) -> dict[str, Any]:
    """The sample set of a stored run (:func:`~mindloop.bench.key.sample_digest`), each sample as the store reads it
    back (one stored before layout 8 with the target :func:`legacy_target` reads)."""
    targets = _or_null(db, "samples", "target", "target, choices")
    rows = db.execute(f"SELECT sample_id, grp, input, {targets} FROM samples WHERE run_id = ?", (run_id,)).fetchall()
    samples = (_stored_sample("", lambda text, _: json.loads(text), *row) for row in rows)
    return sample_digest((s.id, s.group, s.input, s.target, s.choices) for s in samples)


def _stored_sample(
    where: str, loads: Callable[[Any, str], Any], sid: str, grp: str, inp: str, target: str | None, choices: str | None
) -> Sample:
    """A stored sample read back (``loads`` reads a JSON column, saying what it is: ``the input of`` ``where``); one
    stored before layout 8 gets the target :func:`legacy_target` reads."""
    data = loads(inp, f"the input of {where}")
    if target is None:
        gold, options = legacy_target(data)
    else:
        gold = loads(target, f"the target of {where}")
        options = tuple(loads(choices or "[]", f"the choices of {where}"))
    return Sample(sid, data, grp, gold, options)


LEGACY_GOLD_KEYS = ("answer", "gold", "target", "label")
"""Where a sample stored before layout 8 (no target column) held its gold: the input keys the run report read."""


def legacy_target(inp: dict[str, Any]) -> tuple[Any, tuple[str, ...]]:
    """The target and choices of a sample stored before layout 8, read from its input as the reports of that time
    did: the first of :data:`LEGACY_GOLD_KEYS` present, and a list under ``choices``."""
    target = next((inp[k] for k in LEGACY_GOLD_KEYS if k in inp), None)
    choices = inp.get("choices")
    return target, tuple(str(c) for c in choices) if isinstance(choices, list) else ()


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _add_history,
    2: _add_suites,
    3: _add_lock_fencing,
    4: _add_summaries,
    5: _add_node,
    6: _redact_credentials,
    7: _add_targets,
    8: _key_suite_runs_by_model,
    9: _add_keys,
}
"""``MIGRATIONS[v]`` upgrades a store from layout ``v`` to ``v + 1``. A change to the layout raises
:data:`SCHEMA_VERSION` by one and adds its step here; opening an older store for writing runs the missing steps
in order inside the transaction that stamps the new version, so a failed step leaves the file as it was.
Read-only opens never migrate, so the read queries must keep working on every older layout."""

_SCHEMA_V1 = """
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
"""Layout 1 (the layout of every store written before the version was recorded)."""

_DAMAGED_HINT = (
    "move it aside (with any {name}-wal and {name}-shm beside it) and mindloop starts a new one there, or point "
    "MINDLOOP_HOME at another folder; mindloop never deletes or rewrites it"
)

_RUN_ROWS = (
    "SELECT r.run_id, r.benchmark, r.agent, r.model, r.config, r.n, r.started, r.finished, r.seconds, r.version,"
    + ",".join(f" COUNT(CASE WHEN {_STATUS} = '{status}' THEN 1 END)" for status in FINISHED_STATUSES)
    + " FROM runs r LEFT JOIN samples s ON s.run_id = r.run_id"
)
"""A run's row with its done, failed and bug counts (one query for one run or for all of them)."""
_SUITE_ROWS = "SELECT suite_id, model, preset, config, started, finished, seconds, version FROM suites"


class StoreError(MindloopError):
    """The run store cannot be used as asked (read-only, busy, written by a newer mindloop); the message names the
    file and what to do."""


class StoreDamagedError(StoreError):
    """The run store's file is damaged or is not a run store; the message names it and what to do (mindloop
    never deletes or rewrites it)."""


class LockLostError(StoreError):
    """This process's lock on a run or suite was taken over (it was stalled, suspended or cut off long enough to
    look gone, or a person passed ``--force-resume``): its writes are refused so no sample is stored twice."""


@dataclass(frozen=True)
class RunInfo:
    """A run's row: what ran, with what configuration, and how far it got.

    ``samples_readable`` is false only for a run listed from a damaged store whose samples could not be counted
    (:meth:`RunStore.readable_runs`); its counts are then unknown (``None`` in :meth:`to_dict`), not zero."""

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
    samples_readable: bool = True

    @property
    def n_completed(self) -> int:
        """Samples finished: done, failed and stopped by a bug."""
        return self.n_done + self.n_failed + self.n_bugs

    def to_dict(self) -> dict[str, Any]:
        """The ``mindloop runs --json`` entry."""
        known = self.samples_readable
        out = {key: getattr(self, key) for key in ("run_id", "benchmark", "agent", "model", "started", "finished", "n")}
        counts = {key: getattr(self, key) if known else None for key in ("n_completed", "n_failed", "n_bugs")}
        return out | counts | {"seconds": round(self.seconds, 3), "config": self.config}


@dataclass(frozen=True)
class SuiteInfo:
    """A suite's row (:mod:`mindloop.bench.suite`): the model, the preset, the configuration its runs share, and
    the wall-clock seconds of every session that worked on it; its runs are in :meth:`RunStore.suite_members`."""

    suite_id: str
    model: str | None
    preset: str
    config: dict[str, Any]
    started: str
    finished: str | None
    seconds: float
    version: str


@dataclass(frozen=True)
class SampleResult:
    """A finished sample on its way into the store (status ``done``, ``failed`` or ``bug``).

    ``outage`` (not stored) marks a sample that failed because the model endpoint could not be reached or kept
    failing (:class:`~mindloop.errors.ModelUnavailableError`, a timeout): the runner's circuit breaker counts it.
    ``node`` is the id of the Ray node that executed it (``None`` off Ray)."""

    index: int
    status: str
    output: dict[str, Any]
    scores: dict[str, float]
    error: str | None
    calls: list[dict[str, Any]]
    seconds: float
    outage: bool = False
    node: str | None = None


TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+-]{0,63}")
"""A tag: a letter or digit, then up to 63 letters, digits or ``. _ : @ + -`` (no spaces or commas)."""


def check_tags(tags: Sequence[str]) -> list[str]:
    """``tags`` once each, in order; one that is not a :data:`TAG` is refused in one line."""
    bad = next((t for t in tags if not isinstance(t, str) or TAG.fullmatch(t) is None), None)
    if bad is not None:
        raise InvalidArgumentError(
            f"tag {bad!r} is not a tag: use a letter or digit, then up to 63 letters, digits or . _ : @ + -"
        )
    return list(dict.fromkeys(tags))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _dumps(value: Any) -> str:
    """``value`` as compact JSON that SQLite can store (UTF-8): each lone surrogate (``"\\ud800"`` from a hostile or
    broken reply) becomes U+FFFD (:func:`~mindloop.models.chat.storable_text`), so no text can make a write raise."""
    return storable_text(json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False))[0]


def _storable_result(r: SampleResult) -> tuple[str, str, str, str | None, str, float]:
    """A finished sample's columns (status, output, scores, error, calls, seconds) as the store can hold them. A
    result that is not JSON (a NaN score, an object JSON cannot write) is stored as a ``bug`` sample saying so,
    its model calls kept when they can be: a store write never raises on what a sample returned."""
    error = None if r.error is None else storable_text(r.error)[0]
    try:
        return r.status, _dumps(r.output), _dumps(r.scores), error, _dumps(r.calls), r.seconds
    except (TypeError, ValueError) as exc:
        try:
            calls = _dumps(r.calls)
        except (TypeError, ValueError):
            calls = "[]"
        why = storable_text(f"internal error: the sample's result cannot be stored as JSON ({exc})")[0]
        return "bug", "null", "{}", why if error is None else f"{why}; {error}", calls, r.seconds


class RunStore:
    """One SQLite file holding every run; safe to share between processes (runs are locked while running).

    Opened for writing (the default) the file is checked with ``PRAGMA quick_check`` before anything is written,
    created when missing, and upgraded to :data:`SCHEMA_VERSION`. ``readonly=True`` opens it with a ``mode=ro``
    URI: nothing is created, migrated or written, it works on a read-only folder, and a missing file reads as an
    empty store. A damaged file raises :class:`StoreDamagedError` (at opening for writing, or when a read meets
    the damage); other reasons it cannot be used raise :class:`StoreError`.
    """

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._joining: str | None = None  # the suite a new run joins (:meth:`joining`)
        self._holds: dict[tuple[str, str], tuple[str, int]] = {}  # (table, key) -> (token, generation) held
        self.upgraded_from: int | None = None
        """The layout this open upgraded the file from (``None``: it was current, new, or opened read-only); the
        runner computes, once, the summary of each run it holds without one (:func:`~mindloop.bench.runner.
        backfill_summaries`)."""
        if self.path.is_dir():
            raise StoreError(
                f"run store {self.path} is a folder, not a file: move it aside or point MINDLOOP_HOME at another folder"
            )
        if readonly:
            self._open_readonly()
        else:
            self._open_for_writing()

    def _open_readonly(self) -> None:
        """Open with ``mode=ro`` (``immutable=1`` when the folder cannot be written and SQLite cannot open the
        WAL index there: nothing can change the file then)."""
        if not self.path.exists():
            self._db = _empty_store()
            return
        uri = f"{self.path.resolve().as_uri()}?mode=ro"
        self._db = self._connect(uri)
        try:
            try:
                found = self._layout(self._db)
            except sqlite3.OperationalError as exc:  # no WAL index can be made in a folder we cannot write
                if not _named(exc, "SQLITE_CANTOPEN", "SQLITE_READONLY") or _unwritable(self.path) is None:
                    raise
                self._db.close()
                self._db = self._connect(f"{uri}&immutable=1")
                found = self._layout(self._db)
            if found == 0 and not _tables(self._db):  # an empty file: nothing recorded yet
                self._db.close()
                self._db = _empty_store()
        except sqlite3.DatabaseError as exc:
            error = self._diagnose(exc)
            self._db.close()
            raise error from None
        except BaseException:
            self._db.close()
            raise

    def _open_for_writing(self) -> None:
        """Check the file, then switch it to WAL and bring its layout to :data:`SCHEMA_VERSION` in one transaction."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the folder of run store {self.path} ({exc.strerror or exc}): point MINDLOOP_HOME at "
                "a writable folder"
            ) from None
        reason = _unwritable(self.path)
        if reason is not None:
            raise StoreError(
                f"run store {self.path} cannot be written ({reason}): point MINDLOOP_HOME at a writable folder to "
                "record runs (mindloop runs, runs export and report can still read it)"
            )
        if self.path.exists():  # checked through a read-only connection: a refused file is never written to
            self._open_readonly()  # a newer layout or a file that is not a run store
            try:
                damage = self._damage()
                if damage is not None:
                    raise damage
            finally:
                self._db.close()
        self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
        try:
            with self._guard():
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                with self._transaction() as db:
                    found = self._layout(db)
                    if found != SCHEMA_VERSION:
                        held = {"runs", "samples"} <= _tables(db)
                        _install(db, found)
                        self.upgraded_from = found if held else None
        except BaseException:
            self._db.close()
            raise

    def _connect(self, uri: str) -> sqlite3.Connection:
        """A connection to ``uri``; a file that cannot be opened (no permission to read it) is one line."""
        try:
            return sqlite3.connect(uri, uri=True, timeout=30.0, isolation_level=None, check_same_thread=False)
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"run store {self.path} cannot be opened ({exc}): check the permissions of {self.path} and "
                f"{self.path.parent}, or point MINDLOOP_HOME at another folder"
            ) from None

    def _layout(self, db: sqlite3.Connection) -> int:
        """The store's layout version, refusing a newer one and a file holding tables that are not a run store."""
        found = int(db.execute("PRAGMA user_version").fetchone()[0])
        if found > SCHEMA_VERSION:
            raise StoreError(
                f"run store {self.path} has layout {found}, written by a newer mindloop (this one knows layouts up to "
                f"{SCHEMA_VERSION}): upgrade mindloop, or point MINDLOOP_HOME at another folder"
            )
        if found < 0:
            raise self._damaged(f"layout version {found}")
        tables = _tables(db)
        if tables and not {"runs", "samples"} <= tables:
            raise self._damaged(f"its tables are {', '.join(sorted(tables))}, not runs and samples", not_a_store=True)
        return found

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any error. SQLite rolls a transaction back by itself
        on some errors (a full disk, an I/O error): the rollback then has nothing to do, and the first error is the
        one raised (never ``cannot rollback - no transaction is active``). ``BEGIN`` is inside the ``try``: an
        interrupt raised by a signal handler the moment it returns rolls the transaction back too, and the next
        write does not meet ``cannot start a transaction within a transaction``."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            yield self._db
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                with suppress(sqlite3.Error):  # the error that stopped the transaction is the one that matters
                    self._db.execute("ROLLBACK")
            raise

    # -- damage -------------------------------------------------------------------------------------------

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Turn a ``sqlite3.DatabaseError`` into a one-line :class:`StoreError` when the file is damaged, busy or
        cannot be read or written; anything else (a wrong query: a bug) is raised as it was."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise self._diagnose(exc) from None

    def _diagnose(self, exc: sqlite3.DatabaseError) -> Exception:
        """What a database error means for the user: the integrity check decides whether the file is damaged."""
        if _named(exc, "SQLITE_BUSY", "SQLITE_LOCKED"):
            return StoreError(
                f"run store {self.path} is busy ({exc}): another process is writing it; try again when it is done"
            )
        if _named(exc, "SQLITE_NOTADB"):
            return self._damaged(exc)
        damage = self._damage()
        if damage is not None:
            return damage
        if _named(exc, "SQLITE_CORRUPT"):
            return self._damaged(exc)
        if _named(exc, "SQLITE_READONLY", "SQLITE_IOERR", "SQLITE_FULL", "SQLITE_CANTOPEN", "SQLITE_PERM"):
            return StoreError(
                f"run store {self.path} cannot be used ({exc}): check the disk and the permissions of "
                f"{self.path.parent}, or point MINDLOOP_HOME at another folder"
            )
        return exc

    def _damage(self) -> StoreDamagedError | None:
        """``PRAGMA quick_check``: the damage it finds (the first problem and how many more), or ``None``."""
        try:
            rows = self._db.execute("PRAGMA quick_check(10)").fetchall()
        except sqlite3.DatabaseError as exc:  # the check itself meets the damage; any other failure is no verdict
            return self._damaged(exc) if _named(exc, "SQLITE_CORRUPT", "SQLITE_NOTADB") else None
        problems = [str(row[0]).replace("*** in database main ***", "") for row in rows if row[0] != "ok"]
        if not problems:
            return None
        more = f"; {len(problems) - 1} more problem(s) found" if len(problems) > 1 else ""
        return self._damaged(f"{problems[0]}{more}")

    def _damaged(self, detail: object, *, not_a_store: bool = False) -> StoreDamagedError:
        """The one-line error for a damaged file (or, ``not_a_store``, a file that is no run store at all)."""
        text = " ".join(str(detail).split())  # one line, whatever SQLite's message holds
        not_a_store = not_a_store or (isinstance(detail, sqlite3.DatabaseError) and _named(detail, "SQLITE_NOTADB"))
        what = "is not a usable mindloop run store" if not_a_store else "is damaged"
        return StoreDamagedError(f"run store {self.path} {what} ({text}): {_DAMAGED_HINT.format(name=self.path.name)}")

    def _loads(self, text: Any, what: str) -> Any:
        """A JSON column read back; text that does not parse is damage, never a crash."""
        try:
            return json.loads(text)
        except (TypeError, ValueError):
            raise self._damaged(f"{what} is not valid JSON") from None

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
        key: RunKey | None = None,
        tags: Sequence[str] = (),
    ) -> str:
        """Record a new run with all its samples pending; returns its id (``BENCHMARK-YYYYMMDD-HHMMSS-xxxx``).

        ``key`` is stored with its sample set replaced by the digest of the samples as stored
        (:func:`~mindloop.bench.key.sample_digest`); without one (the Python API), the key
        :func:`~mindloop.bench.key.derive_key` derives is stored. ``tags`` are the run's first tags (:meth:`tag`)."""
        ids = [s.id for s in samples]
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise InvalidArgumentError(f"benchmark {benchmark!r} produced the sample id {dup!r} twice")
        tags = check_tags(tags)
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        run_id = f"{benchmark}-{stamp}-{secrets.token_hex(2)}"
        rows = [(s.id, s.group, _dumps(s.input), _dumps(s.target), _dumps(list(s.choices))) for s in samples]
        stored = ((sid, grp, *map(json.loads, texts)) for sid, grp, *texts in rows)  # each sample as read back
        digest = sample_digest(stored, (config.get("options") or {}).get("data"))
        if key is None:
            key = derive_key(benchmark, agent, model, config, digest)
        stored_key = _dumps(replace(key, samples=digest).to_json())
        with self._guard(), self._transaction() as db:
            db.execute(
                "INSERT INTO runs (run_id, benchmark, agent, model, config, n, started, version, key)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, benchmark, agent, model, _dumps(config), len(samples), _now(), version, stored_key),
            )
            db.executemany(
                "INSERT INTO samples (run_id, idx, sample_id, grp, input, target, choices)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                ((run_id, i, *row) for i, row in enumerate(rows)),
            )
            db.executemany("INSERT INTO run_tags (run_id, tag) VALUES (?, ?)", ((run_id, t) for t in tags))
            if self._joining is not None:  # in the run's own transaction: a run is never left out of its suite
                db.execute(
                    "INSERT INTO suite_runs (suite_id, benchmark, model, run_id) VALUES (?, ?, ?, ?)",
                    (self._joining, benchmark, model or "", run_id),
                )
        return run_id

    def run(self, run_id: str) -> RunInfo:
        """The run called ``run_id``; an unknown id is an error that lists the most recent runs."""
        return self._info(self._one("run", f"{_RUN_ROWS} WHERE r.run_id = ? GROUP BY r.run_id", run_id))

    def _one(self, kind: str, sql: str, key: str) -> tuple[Any, ...]:
        """The row ``sql`` selects for ``key`` (a ``run`` or ``suite`` id); an unknown id is an error that lists the
        most recent of its kind (a store of a layout before 3 has no suites)."""
        rows = self._select(sql, (key,), needs=None if kind == "run" else "suites")  # every layout has runs
        if not rows:
            raise InvalidArgumentError(f"no {kind} {key!r} in {self.path}{self.recent(kind + 's')}")
        return tuple(rows[0])

    def _select(self, sql: str, args: Sequence[Any] = (), *, needs: str | None = None) -> list[Any]:
        """The rows ``sql`` selects (a damaged or busy store is one line: :meth:`_guard`); none when the store has no
        table ``needs`` (a read-only open of an older layout)."""
        with self._guard():
            if needs is not None and needs not in _tables(self._db):
                return []
            return self._db.execute(sql, args).fetchall()

    def recent(self, kind: str) -> str:
        """What an unknown id's error adds: ``; recent runs: A, B, C`` (the last three ``runs`` or ``suites``), or
        ``; no runs recorded yet``."""
        ids = [r.run_id for r in self.runs()[-3:]] if kind == "runs" else [s.suite_id for s in self.suites()[-3:]]
        return f"; recent {kind}: {', '.join(ids)}" if ids else f"; no {kind} recorded yet"

    def run_keys(self, *, derive: bool = True, run_id: str | None = None) -> dict[str, RunKey]:
        """Every run's comparability key by run id (:mod:`mindloop.bench.key`): as stored, or (a read-only open of a
        store before layout 9) derived now from its configuration and samples; ``derive=False`` (the board, which
        never loads a benchmark) reads such a key as unknown instead. ``run_id``: that run's only."""
        with self._guard():
            stored = _or_null(self._db, "runs", "key", "key")
            where, args = ("", ()) if run_id is None else (" WHERE run_id = ?", (run_id,))
            rows = self._db.execute(
                f"SELECT run_id, benchmark, agent, model, config, {stored} FROM runs{where}", args
            ).fetchall()
            out = {}
            for run_id, benchmark, agent, model, config, key in rows:
                data = None
                with suppress(TypeError, ValueError):  # no key stored (NULL) or one that does not read back
                    data = json.loads(key)
                if isinstance(data, dict):
                    out[str(run_id)] = RunKey.from_json(data)
                elif derive:
                    out[str(run_id)] = _derived_key(self._db, run_id, benchmark, agent, model, config)
                else:
                    why = "no key stored: the store is older than layout 9 (any bench run upgrades it)"
                    out[str(run_id)] = RunKey(str(benchmark), unknown=why)
        return out

    def run_tags(self) -> dict[str, list[str]]:
        """Every tagged run's tags, sorted, by run id (empty on a store before layout 9)."""
        out: dict[str, list[str]] = {}
        for run_id, tag in self._select("SELECT run_id, tag FROM run_tags ORDER BY run_id, tag", needs="run_tags"):
            out.setdefault(str(run_id), []).append(str(tag))
        return out

    def tag(self, run_id: str, tags: Sequence[str]) -> list[str]:
        """Add ``tags`` to a run (a tag it has already is kept once); returns the run's tags after."""
        return self._retag(run_id, check_tags(tags), "INSERT OR IGNORE INTO run_tags (run_id, tag) VALUES (?, ?)")

    def untag(self, run_id: str, tags: Sequence[str]) -> list[str]:
        """Remove ``tags`` from a run; returns the run's tags after."""
        return self._retag(run_id, tags, "DELETE FROM run_tags WHERE run_id = ? AND tag = ?")

    def _retag(self, run_id: str, tags: Sequence[str], sql: str) -> list[str]:
        """Run ``sql`` for each of ``tags`` of a run in one commit; returns the run's tags after."""
        self.run(run_id)  # an unknown run is named, with the recent ones
        with self._guard(), self._transaction() as db:
            db.executemany(sql, ((run_id, t) for t in tags))
        return self.run_tags().get(run_id, [])

    def deletion(self, run_ids: Sequence[str]) -> list[str]:
        """What :meth:`delete_runs` would remove, one line a run (unknown ids and runs a live process holds are
        refused here, before anything is asked or removed)."""
        lines = []
        live = self.live_runs()
        tags = self.run_tags()
        member = self.suite_of_runs()
        summaries = set(self.stored_summaries())
        for run_id in dict.fromkeys(run_ids):
            info = self.run(run_id)
            if run_id in live:
                raise InvalidArgumentError(
                    f"run {run_id} is being executed by a live process: wait for it to end (or stop it) before "
                    "deleting it"
                )
            parts = [f"{info.n:,} sample(s) ({info.n_completed:,} finished)"]
            if run_id in summaries:
                parts.append("its stored summary")
            if tags.get(run_id):
                parts.append(f"tag(s) {', '.join(tags[run_id])}")
            if run_id in member:
                parts.append(f"its place in suite {member[run_id]}")
            lines.append(f"{run_id} ({info.benchmark}, {info.agent}, {info.model or 'no model'}): " + ", ".join(parts))
        return lines

    def delete_runs(self, run_ids: Sequence[str]) -> int:
        """Remove runs with everything the store holds of them (samples, stored summary, tags, suite membership)
        in one commit; a run a live process holds is refused (:meth:`deletion`), and a stale lock goes with its
        run (a holder that wakes finds its run gone and stores nothing: its writes are fenced). The response cache
        is another file and is left as it is. Returns how many runs were removed."""
        ids = list(dict.fromkeys(run_ids))
        self.deletion(ids)
        with self._guard(), self._transaction() as db:
            live = self.live_runs()
            held = sorted(set(ids) & live)
            if held:  # a process took one between the check and this transaction
                raise InvalidArgumentError(f"run {held[0]} is being executed by a live process: nothing was deleted")
            return _delete_runs(db, ids)

    def runs(self) -> list[RunInfo]:
        """Every run, oldest first."""
        return [self._info(r) for r in self._select(f"{_RUN_ROWS} GROUP BY r.run_id ORDER BY r.started, r.rowid")]

    def live_runs(self) -> set[str]:
        """The runs a live process is working on now (:meth:`lock_states` ``running``)."""
        return {run_id for run_id, state in self.lock_states().items() if state == "running"}

    def lock_states(self) -> dict[str, str]:
        """Each locked run's lock: ``running`` (its holder is live, or cannot be told dead: another host with no
        heartbeat) or ``stale`` (its holder is gone: :meth:`locked` would take it over). Empty when the runs table
        cannot be read (a damaged store)."""
        try:
            extra = _or_null(self._db, "runs", "lock_heartbeat", "lock_process, lock_heartbeat")
            rows = self._db.execute(
                f"SELECT run_id, lock_owner, {extra} FROM runs WHERE lock_owner IS NOT NULL"
            ).fetchall()
        except sqlite3.DatabaseError:
            return {}
        stale_after = lock_stale_after()
        return {
            str(run_id): "stale" if _stale(str(owner), process, beat, stale_after) else "running"
            for run_id, owner, process, beat in rows
        }

    def readable_runs(self) -> tuple[list[RunInfo], StoreDamagedError | None]:
        """Every run that can still be read, oldest first, and the damage when the store is damaged (else ``None``).

        On a damaged store the runs table is read row by row from both ends (a damaged page stops a scan, so the
        rows after it are reached from the other end); a run whose samples cannot be counted is listed with
        ``samples_readable=False``; a run whose row cannot be read is left out."""
        try:
            return self.runs(), None
        except StoreDamagedError as exc:
            damage = exc
        columns = "rowid, run_id, benchmark, agent, model, config, n, started, finished, seconds, version"
        rows = {row[0]: row[1:] for row in _scan(self._db, f"SELECT {columns} FROM runs ORDER BY rowid")}
        rows.update({row[0]: row[1:] for row in _scan(self._db, f"SELECT {columns} FROM runs ORDER BY rowid DESC")})
        infos: list[tuple[str, int, RunInfo]] = []
        for rowid, row in rows.items():
            try:
                counts: dict[str, int] | None = dict(
                    self._db.execute(
                        f"SELECT {_STATUS}, COUNT(*) FROM samples s WHERE s.run_id = ? GROUP BY 1", (row[0],)
                    ).fetchall()
                )
            except sqlite3.DatabaseError:
                counts = None
            try:
                info = self._info((*row, *((counts or {}).get(status, 0) for status in FINISHED_STATUSES)))
            except StoreDamagedError:
                continue  # its configuration does not read back: the row itself is damaged
            infos.append((str(info.started), rowid, replace(info, samples_readable=counts is not None)))
        return [info for _, _, info in sorted(infos, key=lambda t: (t[0], t[1]))], damage

    def _info(self, row: tuple[Any, ...]) -> RunInfo:
        columns = [*row[:4], self._loads(row[4], f"the configuration of run {row[0]}"), *row[5:13]]
        return RunInfo(*columns)

    @contextmanager
    def locked(
        self, run_id: str, *, force: bool = False, notify: Callable[[str], None] | None = None
    ) -> Iterator[None]:
        """Hold the run for this process while it executes, refusing a second live process on the same run.

        A lock whose holder is gone (its process no longer exists on this host, its PID now belongs to another
        process, or its heartbeat is older than :func:`lock_stale_after`) is taken over, with a message to
        ``notify`` (default: stderr); ``force`` takes over a lock that still looks live (``--force-resume``).
        While held, a thread beats the heartbeat, and every write of the run's samples checks that this holder's
        token still holds the lock: a holder that was taken over (a suspended process that wakes up) has its
        writes refused with :class:`LockLostError`, so no sample is stored twice."""
        with self._holding("runs", run_id, force=force, notify=notify):
            yield

    @contextmanager
    def _holding(self, table: str, key: str, *, force: bool, notify: Callable[[str], None] | None) -> Iterator[None]:
        """Take the lock of row ``key`` of ``table`` (:meth:`locked`, :meth:`locked_suite`), beat its heartbeat while
        inside, and release it (only if still ours) on the way out."""
        key_column, what, busy = _LOCKABLE[table]
        stale_after = lock_stale_after()
        me = f"{socket.gethostname()}:{os.getpid()}"
        token = secrets.token_hex(16)
        with self._guard(), self._transaction() as db:
            row = db.execute(
                f"SELECT lock_owner, lock_process, lock_heartbeat, lock_generation, lock_token FROM {table}"
                f" WHERE {key_column} = ?",
                (key,),
            ).fetchone()
            owner, process, heartbeat, generation, held_by = row
            if owner == me and held_by not in _HELD_HERE:
                owner = None  # this process's own lock, left behind by a release that failed: nobody holds it
            if owner:
                why = _stale(str(owner), process, heartbeat, stale_after) if owner != me else None
                if why is None and not force:
                    age = None if heartbeat is None else max(0.0, time.time() - heartbeat)
                    beat = "" if age is None else f", last heartbeat {age:.0f} s ago"
                    raise InvalidArgumentError(
                        f"{what} {key} {busy} process {owner}{beat}; wait for it to end, or, if you know it is gone, "
                        f"pass --force-resume (a lock is stale after {stale_after:g} s without a heartbeat)"
                    )
                else:
                    reason = why if why is not None else "--force-resume"
                    (notify or _warn)(
                        f"taking over {what} {key} from process {owner} ({reason}); its writes are refused from now "
                        f"on (lock generation {int(generation) + 1})"
                    )
            generation = int(generation) + 1
            db.execute(
                f"UPDATE {table} SET lock_owner = ?, lock_token = ?, lock_process = ?, lock_heartbeat = ?,"
                f" lock_generation = ? WHERE {key_column} = ?",
                (me, token, _process_identity(os.getpid()), time.time(), generation, key),
            )
        self._holds[(table, key)] = (token, generation)
        _HELD_HERE.add(token)
        heart = _Heartbeat(self.path, table, key, token, every=stale_after / 4)
        heart.start()
        try:
            yield
        finally:
            heart.stop()
            self._holds.pop((table, key), None)
            _HELD_HERE.discard(token)
            try:
                with self._guard():
                    self._db.execute(
                        f"UPDATE {table} SET lock_owner = NULL, lock_token = NULL, lock_process = NULL,"
                        f" lock_heartbeat = NULL WHERE {key_column} = ? AND lock_token = ?",
                        (key, token),
                    )
            except StoreError:
                pass  # a full disk: the lock stays behind, and heals (no process, no heartbeat) like a killed one

    def _fence(self, db: sqlite3.Connection, table: str, key: str) -> None:
        """Inside a write transaction: refuse the write when this store holds ``key``'s lock no more (taken over)."""
        held = self._holds.get((table, key))
        if held is None:
            return  # not a holder's write (the Python API without a lock): nothing to fence
        token, generation = held
        key_column, what, _ = _LOCKABLE[table]
        row = db.execute(
            f"SELECT lock_owner, lock_token, lock_generation FROM {table} WHERE {key_column} = ?", (key,)
        ).fetchone()
        if row is None or row[1] != token:
            by = f"process {row[0]} (lock generation {row[2]})" if row is not None and row[0] else "another process"
            raise LockLostError(
                f"{what} {key} was taken over by {by} while this process (lock generation {generation}) was "
                "stalled or cut off: this process stops without storing anything more; the samples it had in "
                "flight stay pending for the new holder"
            )

    def add_seconds(self, run_id: str, seconds: float, *, finished: bool) -> None:
        """Add a session's wall-clock time (since its last write) to the run, and stamp it finished when no sample
        is pending."""
        self._add_seconds("runs", run_id, seconds, finished, otherwise="finished")

    def _add_seconds(self, table: str, key: str, seconds: float, finished: bool, otherwise: str) -> None:
        """Add ``seconds`` to row ``key`` of ``table`` in a fenced write (:meth:`_fence`), stamping it finished now
        when ``finished``, else setting ``finished`` to the SQL ``otherwise`` (a run keeps its stamp, a suite has
        none while a run of it is unfinished)."""
        with self._guard(), self._transaction() as db:
            self._fence(db, table, key)
            db.execute(
                f"UPDATE {table} SET seconds = seconds + ?, finished = CASE WHEN ? THEN ? ELSE {otherwise} END"
                f" WHERE {_LOCKABLE[table][0]} = ?",
                (seconds, finished, _now(), key),
            )

    def discard_unstarted(self, run_id: str) -> bool:
        """Remove a run none of whose samples has finished (a new run that a set-up error stopped at once), with
        its samples, tags and place in a suite; returns whether it was removed (``False``: a sample has finished
        since, so it stays for ``--resume``). Fenced by the run's lock like every write of its holder."""
        with self._guard(), self._transaction() as db:
            self._fence(db, "runs", run_id)
            started = db.execute(
                "SELECT 1 FROM samples WHERE run_id = ? AND status != 'pending' LIMIT 1", (run_id,)
            ).fetchone()
            if started is not None:
                return False
            _delete_runs(db, [run_id])
            return True

    def save_summary(self, run_id: str, summary: dict[str, Any]) -> None:
        """Keep ``summary`` as the run's stored summary (replacing an earlier one); nothing on a layout without
        the ``run_summaries`` table."""
        with self._guard():
            if "run_summaries" not in _tables(self._db):
                return
            with self._transaction() as db:
                db.execute(
                    "INSERT OR REPLACE INTO run_summaries (run_id, summary, saved) VALUES (?, ?, ?)",
                    (run_id, _dumps(summary), _now()),
                )

    def runs_without_summary(self) -> list[str]:
        """The runs that have finished samples and no stored summary (a run recorded before layout 5), oldest
        first."""
        rows = self._select(
            "SELECT r.run_id FROM runs r WHERE r.run_id NOT IN (SELECT run_id FROM run_summaries)"
            " AND EXISTS (SELECT 1 FROM samples s WHERE s.run_id = r.run_id AND s.status != 'pending')"
            " ORDER BY r.started, r.run_id",
            needs="run_summaries",
        )
        return [str(row[0]) for row in rows]

    def stored_summary(self, run_id: str) -> dict[str, Any] | None:
        """The run's stored summary (``None``: none stored, or a store of a layout before 5 read read-only)."""
        rows = self._select("SELECT summary FROM run_summaries WHERE run_id = ?", (run_id,), needs="run_summaries")
        if not rows:
            return None
        data = self._loads(rows[0][0], f"the stored summary of run {run_id}")
        return data if isinstance(data, dict) else None

    def stored_summaries(self) -> dict[str, dict[str, Any]]:
        """Every run's stored summary by run id, in one query (empty on a layout before 5 read read-only); a summary
        that does not read back as a JSON object is left out."""
        out = {}
        for run_id, text in self._select("SELECT run_id, summary FROM run_summaries", needs="run_summaries"):
            with suppress(ValueError, TypeError):
                data = json.loads(text)
                if isinstance(data, dict):
                    out[str(run_id)] = data
        return out

    def stored_headlines(self) -> dict[str, dict[str, Any]]:
        """Every run's stored summary cut down, inside SQLite, to what a page over many runs shows: ``counts``,
        ``computed_by``, ``version``, ``references``, ``definitions`` (``headline`` and ``references`` only),
        ``metrics`` and ``intervals["metrics"]`` (the headline metric only); a summary that declares no headline
        comes whole (its headline is its first number). No whole summary is decoded in Python, which makes this
        several times quicker than :meth:`stored_summaries` on thousands of runs. Falls back to
        :meth:`stored_summaries` (its results cut the same way) on an SQLite without JSON functions or a summary
        that is not valid JSON."""
        metric = "json_quote(summary ->> '$.definitions.headline.metric')"
        parts = {key: f"'$.{key}'" for key in ("counts", "computed_by", "version", "references")} | {
            "headline": "'$.definitions.headline'",
            "policies": "'$.definitions.references'",
            "value": f"'$.metrics.' || {metric}",
            "interval": f"'$.intervals.metrics.' || {metric}",
            # who decided a model run (MindClaw): the declaration and its two counts, for the board's ranking
            "decided": "'$.definitions.decided'",
            "decided_k": "'$.metrics.' || json_quote(summary ->> '$.definitions.decided.model')",
            "decided_n": "'$.metrics.' || json_quote(summary ->> '$.definitions.decided.total')",
        }
        # `->` gives each part as JSON text with its numbers as stored (json_extract would give a number as an SQL
        # REAL, rendered back with 15 digits); the parts are joined into one JSON object a row
        pairs = " || ',' || ".join(
            f"'\"{name}\":' || coalesce(summary -> ({path}), 'null')" for name, path in parts.items()
        )
        try:
            rows = self._select(f"SELECT run_id, '{{' || {pairs} || '}}' FROM run_summaries", needs="run_summaries")
        except sqlite3.OperationalError:  # no JSON functions, or a summary that is not JSON
            return {run_id: _cut(summary) for run_id, summary in self.stored_summaries().items()}
        out: dict[str, dict[str, Any]] = {}
        whole = []
        for run_id, text in rows:
            got = json.loads(text)
            head = got["headline"]
            if not isinstance(head, dict) or not isinstance(head.get("metric"), str):
                whole.append(str(run_id))
                continue
            decided = got["decided"]
            names = [head["metric"], *(decided.get(k) for k in ("model", "total") if isinstance(decided, dict))]
            if any('"' in str(name) for name in names):  # a name SQLite's JSON path cannot quote: cut in Python
                if (summary := self.stored_summary(str(run_id))) is not None:
                    out[str(run_id)] = _cut(summary)
                continue
            out[str(run_id)] = {key: got[key] for key in ("counts", "computed_by", "version")} | {
                "references": got["references"] or {},
                "definitions": {"headline": head, "references": got["policies"] or []},
                "metrics": {head["metric"]: got["value"]},
                "intervals": {"metrics": {head["metric"]: got["interval"]}},
            }
            if isinstance(decided, dict) and "model" in decided and "total" in decided:
                out[str(run_id)]["definitions"]["decided"] = decided
                out[str(run_id)]["metrics"] |= {decided["model"]: got["decided_k"], decided["total"]: got["decided_n"]}
        for run_id in whole:
            summary = self.stored_summary(run_id)
            if summary is not None:
                out[run_id] = summary
        return out

    # -- suites -------------------------------------------------------------------------------------------

    def create_suite(self, *, model: str | None, preset: str, config: dict[str, Any], version: str) -> str:
        """Record a new suite with no runs yet; returns its id (``suite-YYYYMMDD-HHMMSS-xxxx``)."""
        suite_id = f"suite-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"
        with self._guard():
            self._db.execute(
                "INSERT INTO suites (suite_id, model, preset, config, started, version) VALUES (?, ?, ?, ?, ?, ?)",
                (suite_id, model, preset, _dumps(config), _now(), version),
            )
        return suite_id

    def suites(self) -> list[SuiteInfo]:
        """Every suite, oldest first (none on a store of a layout before 3)."""
        return [self._suite_info(row) for row in self._select(f"{_SUITE_ROWS} ORDER BY started, rowid", needs="suites")]

    def suite(self, suite_id: str) -> SuiteInfo:
        """The suite called ``suite_id``; an unknown id is an error that lists the most recent suites."""
        return self._suite_info(self._one("suite", f"{_SUITE_ROWS} WHERE suite_id = ?", suite_id))

    def _suite_info(self, row: tuple[Any, ...]) -> SuiteInfo:
        columns = [*row[:3], self._loads(row[3], f"the configuration of suite {row[0]}"), *row[4:8]]
        return SuiteInfo(*columns)

    def suite_members(self, suite_id: str) -> list[tuple[str, str | None, str]]:
        """The runs of a suite so far as ``(benchmark, model, run_id)``, in the order they were created: a suite of
        several models has a run of a benchmark for each (the model is the run's own, read on every layout)."""
        rows = self._select(
            "SELECT sr.benchmark, r.model, sr.run_id FROM suite_runs sr JOIN runs r ON r.run_id = sr.run_id"
            " WHERE sr.suite_id = ? ORDER BY sr.rowid",
            (suite_id,),
            needs="suites",
        )
        return [(str(b), None if m is None else str(m), str(run_id)) for b, m, run_id in rows]

    def suite_of_runs(self) -> dict[str, str]:
        """The suite of every run that is in one: run id -> suite id (every model's runs: :meth:`suite_members`)."""
        rows = self._select(  # in suite order, as suites() lists them: a later suite's claim wins
            "SELECT sr.run_id, sr.suite_id FROM suite_runs sr JOIN runs r ON r.run_id = sr.run_id"
            " JOIN suites s ON s.suite_id = sr.suite_id ORDER BY s.started, s.rowid, sr.rowid",
            needs="suites",
        )
        return {str(run_id): str(suite_id) for run_id, suite_id in rows}

    @contextmanager
    def joining(self, suite_id: str) -> Iterator[None]:
        """Inside, every run :meth:`create_run` records joins ``suite_id`` as its run of that benchmark, in the
        run's own transaction (a suite already holding a run of that benchmark with that model refuses a second one)."""
        previous, self._joining = self._joining, suite_id
        try:
            yield
        finally:
            self._joining = previous

    @contextmanager
    def locked_suite(
        self, suite_id: str, *, force: bool = False, notify: Callable[[str], None] | None = None
    ) -> Iterator[None]:
        """Hold the suite for this process while it runs, refusing a second live process on the same suite; a stale
        lock is taken over as :meth:`locked` says."""
        with self._holding("suites", suite_id, force=force, notify=notify):
            yield

    def add_suite_seconds(self, suite_id: str, seconds: float, *, finished: bool) -> None:
        """Add one session's wall-clock time to the suite, and stamp it finished when every run of it is."""
        self._add_seconds("suites", suite_id, seconds, finished, otherwise="NULL")

    # -- samples ------------------------------------------------------------------------------------------

    def pending(self, run_id: str) -> list[tuple[int, Sample]]:
        """The samples of a run not yet finished, in order."""
        with self._guard():  # the sample columns only: a pending row's outcome is not read (it is run again)
            targets = _or_null(self._db, "samples", "target", "target, choices")  # none before layout 8
            rows = self._db.execute(
                f"SELECT idx, sample_id, grp, input, {targets} FROM samples"
                " WHERE run_id = ? AND status = 'pending' ORDER BY idx",
                (run_id,),
            ).fetchall()
        return [(idx, _stored_sample(f"sample {row[0]!r} of run {run_id}", self._loads, *row)) for idx, *row in rows]

    def finish(self, run_id: str, results: Iterable[SampleResult], *, seconds: float = 0.0) -> int:
        """Store finished samples in one commit, adding ``seconds`` (the session's wall-clock time since its last
        write) to the run's; returns how many were stored (a finished one is never redone)."""
        results = list(results)
        bad = next((r.status for r in results if r.status not in FINISHED_STATUSES), None)
        if bad is not None:
            raise InvalidArgumentError(f"a finished sample's status must be one of {FINISHED_STATUSES}, got {bad!r}")
        stamp = _now()
        held = self._holds.get(("runs", run_id))
        generation = None if held is None else held[1]
        rows = [(*_storable_result(r), stamp, generation, r.node, run_id, r.index) for r in results]
        with self._guard(), self._transaction() as db:
            self._fence(db, "runs", run_id)
            cur = db.executemany(
                "UPDATE samples SET status = ?, output = ?, scores = ?, error = ?, calls = ?, seconds = ?,"
                " finished = ?, generation = ?, node = ? WHERE run_id = ? AND idx = ? AND status = 'pending'",
                rows,
            )
            stored = cur.rowcount
            if seconds:
                db.execute("UPDATE runs SET seconds = seconds + ? WHERE run_id = ?", (seconds, run_id))
            return stored

    def retry_failed(self, run_id: str) -> int:
        """Put every ``failed`` and ``bug`` sample of a run back to ``pending`` for ``--retry-failed``, in one commit,
        appending the attempt it held (status, output, scores, error, calls, seconds, finished) to its history;
        returns how many samples were reopened."""
        with self._guard(), self._transaction() as db:
            self._fence(db, "runs", run_id)
            rows = db.execute(
                f"SELECT s.idx, {_STATUS}, s.output, s.scores, s.error, s.calls, s.seconds, s.finished, s.history,"
                f" s.node FROM samples s WHERE s.run_id = ? AND s.status IN ('failed', 'bug') ORDER BY s.idx",
                (run_id,),
            ).fetchall()
            for idx, status, out, scores, error, calls, seconds, finished, history, node in rows:
                where = f"sample {idx} of run {run_id}"
                output, scores, calls = self._outcome(where, out, scores, calls)
                attempt = {"status": status, "output": output, "scores": scores, "error": error, "calls": calls}
                attempt |= {"seconds": seconds, "finished": finished, **({"node": node} if node is not None else {})}
                earlier = self._loads(history, f"the history of {where}") if history is not None else []
                db.execute(
                    "UPDATE samples SET status = 'pending', output = NULL, scores = NULL, error = NULL, calls = NULL,"
                    " seconds = NULL, finished = NULL, generation = NULL, node = NULL, history = ?"
                    " WHERE run_id = ? AND idx = ?",
                    (_dumps([*earlier, attempt]), run_id, idx),
                )
            if rows:
                db.execute("UPDATE runs SET finished = NULL WHERE run_id = ?", (run_id,))
        return len(rows)

    def history(self, run_id: str) -> dict[int, list[dict[str, Any]]]:
        """The earlier attempts of each re-run sample of a run, by sample index (empty on a layout-1 store)."""
        with self._guard():
            if "history" not in _columns(self._db, "samples"):  # a read-only open of an older layout: none re-run
                return {}
            rows = self._db.execute(
                "SELECT idx, history FROM samples WHERE run_id = ? AND history IS NOT NULL ORDER BY idx", (run_id,)
            ).fetchall()
        return {idx: self._loads(text, f"the history of sample {idx} of run {run_id}") for idx, text in rows}

    def records(self, run_id: str, *, include_pending: bool = False) -> list[SampleRecord]:
        """The samples of a run read back in order (finished ones only unless ``include_pending``)."""
        where = "" if include_pending else " AND s.status != 'pending'"
        with self._guard():
            node = _or_null(self._db, "samples", "node", "s.node")  # a read-only open of a layout before 4 has none
            targets = _or_null(self._db, "samples", "target", "target, choices")  # none before layout 8
            rows = self._db.execute(
                f"SELECT s.idx, s.sample_id, s.grp, s.input, {_STATUS}, s.output, s.scores, s.error, s.calls,"
                f" s.seconds, {node}, {targets} FROM samples s WHERE s.run_id = ?{where} ORDER BY s.idx",
                (run_id,),
            ).fetchall()
        return [self._record(run_id, row) for row in rows]

    def _record(self, run_id: str, row: tuple[Any, ...]) -> SampleRecord:
        idx, sid, grp, inp, status, out, scores, error, calls, seconds, node, target, choices = row
        where = f"sample {sid!r} of run {run_id}"
        output, scores, calls = self._outcome(where, out, scores, calls)
        sample = _stored_sample(where, self._loads, sid, grp, inp, target, choices)
        return SampleRecord(idx, sample, status, output, scores, error, calls, seconds or 0.0, node=node)

    def _outcome(self, where: str, out: Any, scores: Any, calls: Any) -> tuple[Any, Any, Any]:
        """A finished sample's stored output, scores and model calls read back (``None``, ``{}``, ``[]`` when
        absent)."""
        return (
            self._loads(out, f"the output of {where}") if out is not None else None,
            self._loads(scores, f"the scores of {where}") if scores is not None else {},
            self._loads(calls, f"the model calls of {where}") if calls is not None else [],
        )


def _cut(summary: dict[str, Any]) -> dict[str, Any]:
    """A stored summary cut as :meth:`RunStore.stored_headlines` cuts it (whole when it declares no headline)."""
    definitions = summary.get("definitions") or {}
    head = definitions.get("headline") if isinstance(definitions, dict) else None
    if not isinstance(head, dict) or not isinstance(head.get("metric"), str):
        return summary
    metric = head["metric"]
    intervals = summary.get("intervals") or {}
    tree = intervals.get("metrics") if isinstance(intervals, dict) else None
    metrics = summary.get("metrics")
    metrics = metrics if isinstance(metrics, dict) else {}  # a hand-edited list reads as SQLite's cut reads it
    out: dict[str, Any] = {
        "counts": summary.get("counts"),
        "computed_by": summary.get("computed_by"),
        "version": summary.get("version"),
        "references": summary.get("references") or {},
        "definitions": {"headline": head, "references": definitions.get("references") or []},
        "metrics": {metric: metrics.get(metric)},
        "intervals": {"metrics": {metric: tree.get(metric) if isinstance(tree, dict) else None}},
    }
    decided = definitions.get("decided")
    if isinstance(decided, dict) and "model" in decided and "total" in decided:
        out["definitions"]["decided"] = decided
        out["metrics"] |= {k: metrics.get(k) for k in (decided["model"], decided["total"])}
    return out


def _install(db: sqlite3.Connection, found: int) -> None:
    """Bring a store of layout ``found`` to :data:`SCHEMA_VERSION` inside the caller's transaction: layout 1's
    tables when ``found`` is 0 (a new file, or a store from before the version was recorded, whose tables exist
    already), then each missing step of :data:`MIGRATIONS`, then the new version stamped."""
    if found == 0:
        for statement in _SCHEMA_V1.split(";"):
            if statement.strip():
                db.execute(statement)
        found = 1
    for version in range(found, SCHEMA_VERSION):
        MIGRATIONS[version](db)
    db.execute(f"PRAGMA user_version = {int(SCHEMA_VERSION)}")


def _delete_runs(db: sqlite3.Connection, ids: Sequence[str]) -> int:
    """Inside the caller's transaction: remove the runs ``ids`` with everything the store holds of them (samples,
    stored summary, tags, suite membership: the tables its layout has); returns how many runs were removed."""
    tables = _tables(db)
    for table in ("samples", "run_summaries", "run_tags", "suite_runs"):
        if table in tables:
            db.executemany(f"DELETE FROM {table} WHERE run_id = ?", ((i,) for i in ids))
    return int(db.executemany("DELETE FROM runs WHERE run_id = ?", ((i,) for i in ids)).rowcount)


def _empty_store() -> sqlite3.Connection:
    """An empty in-memory store of the current layout: what a read-only open of a file not yet created reads."""
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    db.execute("BEGIN")
    _install(db, 0)
    db.execute("COMMIT")
    return db


def _named(exc: sqlite3.DatabaseError, *names: str) -> bool:
    """Whether SQLite's error code is one of ``names`` (extended codes such as ``SQLITE_IOERR_READ`` included)."""
    code = getattr(exc, "sqlite_errorname", None) or ""
    return any(code == name or code.startswith(f"{name}_") for name in names)


def _tables(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _or_null(db: sqlite3.Connection, table: str, column: str, select: str) -> str:
    """``select`` where ``table`` has ``column``, else as many ``NULL``: what a read-only open of an older layout
    selects instead."""
    return select if column in _columns(db, table) else ", ".join(["NULL"] * len(select.split(",")))


def _scan(db: sqlite3.Connection, sql: str) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` up to the first one that cannot be read."""
    rows: list[tuple[Any, ...]] = []
    try:
        for row in db.execute(sql):
            rows.append(row)
    except sqlite3.DatabaseError:
        pass
    return rows


def _unwritable(path: Path) -> str | None:
    """Why SQLite could not write ``path`` (it also needs its folder, for the -wal and -shm files), or ``None``."""
    targets = [path.parent, *([path] if path.exists() else [])]
    if all(os.access(target, os.W_OK) for target in targets):
        return None
    read_only = getattr(os, "ST_RDONLY", 0)
    try:
        if read_only and os.statvfs(path.parent).f_flag & read_only:
            return "read-only file system"
    except (AttributeError, OSError):
        pass
    return "permission denied"


_LOCKABLE = {"runs": ("run_id", "run", "is being executed by"), "suites": ("suite_id", "suite", "is being run by")}
"""What can be locked (:meth:`RunStore.locked`, :meth:`RunStore.locked_suite`), by table: its key column, what a
message calls it, and how it says that a holder works on it."""

_HELD_HERE: set[str] = set()
"""The tokens of the locks this process holds now (in any :class:`RunStore`): its own live locks."""

LOCK_STALE_ENV = "MINDLOOP_LOCK_STALE_S"
"""The environment variable that sets :func:`lock_stale_after` (seconds; default 60)."""


def lock_stale_after() -> float:
    """Seconds without a heartbeat after which a run's or suite's lock is stale and is taken over (a holder beats
    every quarter of it): ``MINDLOOP_LOCK_STALE_S``, default 60."""
    raw = os.environ.get(LOCK_STALE_ENV, "").strip()
    if not raw:
        return 60.0
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise InvalidArgumentError(f"{LOCK_STALE_ENV} must be a positive number of seconds, got {raw!r}")
    return value


def _stale(owner: str, process: Any, heartbeat: Any, stale_after: float) -> str | None:
    """Why the lock held by ``owner`` (``host:pid``) is stale, or ``None`` while its holder may be live.

    Stale: its heartbeat is older than ``stale_after`` (whatever the host: a new container, a suspended process),
    or, on this host, its process no longer exists or its PID now names another process (a different start time).
    A lock from another host written before heartbeats existed cannot be told dead: it counts as live."""
    if heartbeat is not None:
        age = time.time() - float(heartbeat)
        if age > stale_after:
            return f"its last heartbeat was {age:.0f} s ago; a lock is stale after {stale_after:g} s"
    host, _, pid_text = owner.rpartition(":")
    if host != socket.gethostname():
        return None
    try:
        pid = int(pid_text)
        os.kill(pid, 0)
    except (ProcessLookupError, ValueError, OverflowError):
        return f"process {owner} no longer exists"
    except PermissionError:
        pass  # another user's process: it exists
    if process is not None:
        now = _process_identity(pid)
        if now is not None and now != process:
            return f"process id {pid_text} now belongs to another process"
    return None


def _process_identity(pid: int) -> str | None:
    """What tells process ``pid`` from a later one given the same PID: its start time in clock ticks since boot,
    with the boot's id (Linux's ``/proc``); ``None`` where it cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        boot = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()  # after the command name, which may hold spaces and parentheses
    return f"{boot}:{fields[19]}" if len(fields) > 19 else None


def _warn(message: str) -> None:
    print(f"mindloop: {message}", file=sys.stderr, flush=True)


class _Heartbeat:
    """A daemon thread that stamps the lock's heartbeat every ``every`` seconds while its token holds the lock,
    through a connection of its own; it stops when the lock is no longer its (taken over) or at :meth:`stop`.
    A beat that fails (a busy or full disk) is tried again at the next one."""

    def __init__(self, path: Path, table: str, key: str, token: str, *, every: float) -> None:
        self._sql = f"UPDATE {table} SET lock_heartbeat = ? WHERE {_LOCKABLE[table][0]} = ? AND lock_token = ?"
        self._args = (key, token)
        self._path = path
        self._every = every
        self._stop = threading.Event()
        self.lost = threading.Event()
        self._db: sqlite3.Connection | None = None
        self._thread = threading.Thread(target=self._run, name=f"mindloop-heartbeat-{key}", daemon=True)

    def start(self) -> None:
        """Open the heartbeat's connection here, in the caller's thread (so no worker process forked later can
        inherit SQLite's locks mid-open), then start beating."""
        try:
            self._db = sqlite3.connect(
                self._path, timeout=max(1.0, self._every), isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error:
            self._db = None  # no heartbeat: the lock still holds, and heals by its process once this one ends
            return
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5.0)
        if self._db is not None and not self._thread.is_alive():
            self._db.close()

    def _run(self) -> None:
        db = self._db
        assert db is not None
        while not self._stop.wait(self._every):
            try:
                cur = db.execute(self._sql, (time.time(), *self._args))
            except sqlite3.Error:
                continue
            if cur.rowcount == 0:
                self.lost.set()
                return

"""The run store under damage, read-only homes and old layouts, through the real command line (issue 14).

Every command runs the command line in the test's process (the ``cli`` fixture) on real SQLite files; the
read-only home alone runs its commands in a subprocess (one for all of them), inside the mount namespace that makes
the home read-only:

* garbage written over pages in the middle of the file: ``bench run`` refuses the store with one line and leaves
  the file byte for byte as it was; ``runs`` lists what can still be read (exit 1, the damage as the last line);
  ``runs export`` and ``report`` give the intact run and refuse the damaged one with one line;
* a read-only ``MINDLOOP_HOME`` (a read-only bind mount in a private mount namespace, or a folder without write
  permission when not root): ``runs``, ``runs export`` and ``report`` work, ``bench run`` and ``demo`` say in one
  line that the folder cannot be written, and nothing in it changes;
* ``MINDLOOP_HOME`` pointing at a file is one line;
* the layout version in ``PRAGMA user_version``: a store made with the statements of the first run store (before
  the version was recorded) is read as it is and stamped 1 only when opened for writing; migrations run in order
  in one transaction; a store from a newer mindloop is refused.

What is readable in a damaged file is decided in the tests with plain ``sqlite3`` queries, not with mindloop.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_run import Cli, CliRun

from mindloop._version import __version__
from mindloop.bench import store as store_module
from mindloop.bench.runner import RunRequest, run_benchmark, summarize_run
from mindloop.bench.store import RunStore, StoreError

OLD_SCHEMA = """
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
"""The run store's statements as first committed (``git show 6dfb17b:src/mindloop/bench/store.py``), which set
no ``user_version``."""


_SEVERAL = """
import contextlib, io, json, sys
from mindloop.cli import main
done = []
for args in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    done.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(done))
"""
"""Runs each command line of ``argv[1]`` (a JSON list of argument lists) in turn, printing what each did."""


def _cli_process(home: Path, *commands: list[str], prefix: tuple[str, ...]) -> list[CliRun]:
    """The commands in one subprocess started through ``prefix`` (a read-only mount namespace), one after the other
    (one interpreter start, not one a command)."""
    env = {**os.environ, "MINDLOOP_HOME": str(home), "COLUMNS": "200"}
    env.pop("MINDLOOP_DEBUG", None)
    proc = subprocess.run(
        [*prefix, sys.executable, "-c", _SEVERAL, json.dumps(commands)],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [
        CliRun(code, out, [line for line in err.splitlines() if line.strip()])
        for code, out, err in json.loads(proc.stdout)
    ]


def _one_line(result: CliRun, start: str) -> str:
    """The single stderr line of a refused command (exit 1, nothing on stdout), checked to begin with ``start``."""
    assert result.code == 1, result
    assert result.out == "", result
    assert len(result.err) == 1, result.err
    assert result.err[0].startswith(start), result.err[0]
    return result.err[0]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its content hash."""
    return {str(p.relative_to(folder)): _sha(p) for p in sorted(folder.rglob("*")) if p.is_file()}


def _raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _readable(path: Path, run_id: str) -> bool:
    """Whether plain SQLite reads every sample of ``run_id`` back from ``path``."""
    db = _raw(path)
    try:
        db.execute(
            "SELECT idx, sample_id, grp, input, status, output, scores, error, calls FROM samples WHERE run_id = ?"
            " ORDER BY idx",
            (run_id,),
        ).fetchall()
    except sqlite3.DatabaseError:
        return False
    finally:
        db.close()
    return True


@dataclass(frozen=True)
class Recorded:
    """A store with two finished runs: ``first`` (tomi, 200 samples) then ``second`` (hitom, 60)."""

    path: Path
    first: str
    second: str


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    path = tmp_path_factory.mktemp("recorded") / "runs.sqlite"
    with RunStore(path) as store:
        first = run_benchmark(RunRequest("tomi", n=200), store=store, progress=False).run_id
        second = run_benchmark(RunRequest("hitom", n=60), store=store, progress=False).run_id
    return Recorded(path, first, second)


def _home_with(store: Path, home: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(store, home / "runs.sqlite")
    return home / "runs.sqlite"


def _damage_middle(path: Path) -> None:
    """Overwrite two whole pages of the samples table near the middle of the file with random bytes."""
    db = _raw(path)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    leaves = [p for (p,) in db.execute("SELECT pageno FROM dbstat WHERE name = 'samples' AND pagetype = 'leaf'")]
    db.close()
    start = min(p for p in leaves if p >= pages // 3)
    garbage = random.Random(14).randbytes(2 * page_size)
    with path.open("r+b") as f:
        f.seek((start - 1) * page_size)
        f.write(garbage)


# -- a damaged store ----------------------------------------------------------------------------------------


@pytest.fixture()
def damaged(recorded: Recorded, tmp_path: Path) -> Path:
    path = _home_with(recorded.path, tmp_path / "home")
    _damage_middle(path)
    db = _raw(path)
    try:  # plain SQLite agrees the file is damaged: its check reports problems, or fails outright
        assert db.execute("PRAGMA quick_check").fetchall() != [("ok",)]
    except sqlite3.DatabaseError as exc:
        assert "malformed" in str(exc)
    finally:
        db.close()
    return path


def test_a_damaged_store_is_refused_for_writing_and_left_untouched(cli: Cli, damaged: Path) -> None:
    before = _snapshot(damaged.parent)
    line = _one_line(cli("bench", "run", "tomi", "--n", "3", home=damaged.parent), "mindloop: error: run store ")
    assert line.startswith(f"mindloop: error: run store {damaged} is damaged (")
    assert "move it aside" in line and "mindloop never deletes or rewrites it" in line
    assert _snapshot(damaged.parent) == before  # no run written into it, no -wal left beside it


def test_runs_lists_what_a_damaged_store_still_holds(cli: Cli, recorded: Recorded, damaged: Path) -> None:
    readable = {run: _readable(damaged, run) for run in (recorded.first, recorded.second)}
    assert sorted(readable.values()) == [False, True]  # the damage hits one run's samples, not the other's
    pristine = cli("runs", "--json", home=recorded.path.parent)
    assert pristine.code == 0
    expected = {r["run_id"]: r for r in json.loads(pristine.out)["runs"]}

    result = cli("runs", "--json", home=damaged.parent)
    assert result.code == 1
    payload = json.loads(result.out)
    assert result.err == [f"mindloop: error: {payload['damaged']}"]
    assert payload["damaged"].startswith(f"run store {damaged} is damaged (")
    assert [r["run_id"] for r in payload["runs"]] == [recorded.first, recorded.second]
    for row in payload["runs"]:
        want = dict(expected[row["run_id"]])
        if not readable[row["run_id"]]:  # counts unknown, never a made-up zero
            want |= {"n_completed": None, "n_failed": None, "n_bugs": None}
            want |= {"status": "unknown", "pending": None, "headline": want["headline"] | {"value": None}}
        assert row == want

    human = cli("runs", home=damaged.parent)
    assert human.code == 1 and human.err == [f"mindloop: error: {payload['damaged']}"]  # the damage, on stderr
    table = human.out  # what can still be read, on stdout
    assert recorded.first in table and recorded.second in table
    unreadable = next(run for run, ok in readable.items() if not ok)
    row = next(line for line in table.splitlines() if unreadable in line)
    assert "?/" in row


def test_a_damaged_runs_table_lists_nothing_and_says_so(cli: Cli, recorded: Recorded, tmp_path: Path) -> None:
    path = _home_with(recorded.path, tmp_path / "home")
    db = _raw(path)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    (page,) = [p for (p,) in db.execute("SELECT pageno FROM dbstat WHERE name = 'runs'")]  # one page: two runs
    db.close()
    with path.open("r+b") as f:
        f.seek((page - 1) * page_size)
        f.write(random.Random(2).randbytes(page_size))
    human = cli("runs", home=path.parent)
    assert human.code == 1 and human.out == ""
    assert human.err[0] == f"no run can be read from {path}"
    assert human.err[1].startswith(f"mindloop: error: run store {path} is damaged (") and len(human.err) == 2
    listed = cli("runs", "--json", home=path.parent)
    assert listed.code == 1 and json.loads(listed.out)["runs"] == []


def test_export_and_report_give_the_intact_run_and_refuse_the_damaged_one(
    cli: Cli, recorded: Recorded, damaged: Path, tmp_path: Path
) -> None:
    (tmp_path / "reports").mkdir()
    for run in (recorded.first, recorded.second):
        exported = cli("runs", "export", run, home=damaged.parent)
        report = cli("report", run, "-o", str(tmp_path / "reports"), home=damaged.parent)
        if _readable(damaged, run):
            assert exported.code == 0 and exported.out == cli("runs", "export", run, home=recorded.path.parent).out
            assert report.code == 0 and (tmp_path / "reports" / f"{run}.html").is_file()
        else:
            for result in (exported, report):
                line = _one_line(result, f"mindloop: error: run store {damaged} is damaged (")
                assert "move it aside" in line
            assert not (tmp_path / "reports" / f"{run}.html").exists()


def test_unreadable_json_in_a_sample_is_damage_not_a_crash(cli: Cli, recorded: Recorded, tmp_path: Path) -> None:
    path = _home_with(recorded.path, tmp_path / "home")
    db = sqlite3.connect(path)
    db.execute("UPDATE samples SET output = '{\"answer\": ' WHERE run_id = ? AND idx = 3", (recorded.second,))
    db.commit()
    db.close()
    line = _one_line(cli("runs", "export", recorded.second, home=path.parent), f"mindloop: error: run store {path} is ")
    assert "is not valid JSON" in line and "output" in line


@pytest.mark.parametrize("garbage", ["header", "tables"])
def test_a_file_that_is_not_a_run_store_is_one_line(cli: Cli, garbage: str, tmp_path: Path) -> None:
    path = tmp_path / "home" / "runs.sqlite"
    path.parent.mkdir()
    if garbage == "header":
        path.write_bytes(b"not a database at all\n" * 400)
    else:
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE notes (text TEXT)")
        db.commit()
        db.close()
    before = _sha(path)
    for args in (("runs",), ("bench", "run", "tomi", "--n", "2")):
        line = _one_line(
            cli(*args, home=path.parent), f"mindloop: error: run store {path} is not a usable mindloop run"
        )
        assert "move it aside" in line
    assert _sha(path) == before


# -- a read-only home ---------------------------------------------------------------------------------------


def _read_only_prefix(folder: Path) -> tuple[str, ...]:
    """A command prefix that runs the command with ``folder`` read-only, or skips when there is none here.

    ``unshare -rm`` gives the command a private mount namespace in which ``folder`` is bind-mounted read-only
    (root cannot write there either). Without it, a non-root user gets a folder without write permission."""
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    prefix = ("unshare", "-rm", "sh", "-c", script, str(folder))
    if shutil.which("unshare"):
        probe = subprocess.run(
            [*prefix, "sh", "-c", f'touch "{folder}/probe" 2>/dev/null; echo $?'], capture_output=True, text=True
        )
        if probe.returncode == 0 and probe.stdout.strip() not in ("", "0"):
            return prefix
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return ()
    pytest.skip("no read-only folder can be made here (unshare -rm is not permitted and we run as root)")


@pytest.mark.boundary
def test_a_read_only_home_still_lists_exports_and_reports(recorded: Recorded, tmp_path: Path) -> None:
    path = _home_with(recorded.path, tmp_path / "home")
    home = path.parent
    out = tmp_path / "reports"
    out.mkdir()
    prefix = _read_only_prefix(home)
    try:
        before = _snapshot(home)
        commands = [
            ["runs", "--json"],
            ["runs", "export", recorded.second],
            ["report", recorded.second, "-o", str(out)],
            ["bench", "run", "tomi", "--n", "2"],
            ["demo"],
        ]
        if prefix:  # a report into a read-only folder
            commands.append(["report", recorded.second, "-o", str(home / "r.html")])
        listed, exported, report, run, demo, *into_home = _cli_process(home, *commands, prefix=prefix)
        assert listed.code == 0, listed
        assert [r["run_id"] for r in json.loads(listed.out)["runs"]] == [recorded.first, recorded.second]

        assert exported.code == 0, exported
        assert [json.loads(line)["index"] for line in exported.out.splitlines()] == list(range(60))

        assert report.code == 0, report
        assert (out / f"{recorded.second}.html").is_file()

        line = _one_line(run, "mindloop: error: run store")
        assert line.startswith(f"mindloop: error: run store {path} cannot be written (")
        assert "point MINDLOOP_HOME at a writable folder" in line

        assert demo.code == 1
        assert "One intervention, at window 15" in " ".join(demo.out.split())  # shown; only its record needs the home
        assert demo.err[-1].startswith(f"mindloop: error: cannot record the demo run in {home / 'demo'} (")
        assert demo.err[-1].endswith("point MINDLOOP_HOME at a writable folder")

        for report in into_home:  # one line
            _one_line(report, f"mindloop: error: cannot write the report to {home / 'r.html'} (Read-only file system)")
        assert len(into_home) == bool(prefix)
        assert _snapshot(home) == before
    finally:
        home.chmod(0o755)


def test_a_home_that_does_not_exist_is_not_created_by_reading(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "nothing-yet"
    listed = cli("runs", home=home)
    assert listed.code == 0 and listed.err == [f"no runs yet in {home / 'runs.sqlite'}"]
    _one_line(cli("report", "tomi-x", home=home), "mindloop: error: no run 'tomi-x' in ")
    assert not home.exists()


def test_a_home_that_is_a_file_is_one_line(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home.txt"
    home.write_text("not a folder\n", encoding="utf-8")
    message = (
        f"mindloop: error: MINDLOOP_HOME {home} is a file, not a folder: point MINDLOOP_HOME at a folder "
        "(it is created if missing)"
    )
    for args in (("runs",), ("runs", "export", "x"), ("report", "x"), ("bench", "run", "tomi", "--n", "2")):
        assert _one_line(cli(*args, home=home), "mindloop: error: ") == message
    demo = cli("demo", home=home)
    assert demo.code == 1 and demo.err[-1] == message
    assert home.read_text(encoding="utf-8") == "not a folder\n"


# -- report -o ----------------------------------------------------------------------------------------------


def test_report_into_a_folder_and_to_an_unwritable_path(cli: Cli, recorded: Recorded, tmp_path: Path) -> None:
    home = _home_with(recorded.path, tmp_path / "home").parent
    folder = tmp_path / "out"
    folder.mkdir()
    result = cli("report", recorded.second, "-o", str(folder), home=home)
    assert result.code == 0 and result.err == [f"wrote {folder / (recorded.second + '.html')}"]
    assert [p.name for p in folder.iterdir()] == [f"{recorded.second}.html"]

    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    target = blocker / "r.html"
    line = _one_line(cli("report", recorded.second, "-o", str(target), home=home), "mindloop: error: ")
    assert line == (
        f"mindloop: error: cannot write the report to {target} ({blocker} is a file, not a folder): "
        "choose a writable file or folder with -o"
    )


# -- the layout version -------------------------------------------------------------------------------------


def _old_store(path: Path) -> None:
    """A store as the first run store wrote it: its statements, no version, one run with a bug kept as
    ``failed`` with an ``internal error:`` message (how bugs were stored then)."""
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    db.execute(
        "INSERT INTO runs (run_id, benchmark, agent, model, config, n, started, finished, seconds, version)"
        " VALUES ('tomi-20250101-000000-abcd', 'tomi', 'symbolic', NULL, '{\"seed\":0}', 3,"
        " '2025-01-01T00:00:00+00:00', '2025-01-01T00:00:01+00:00', 1.5, '0.1.0')"
    )
    rows = [
        (0, "done", '{"answer":"box"}', '{"correct":1.0}', None),
        (1, "failed", '{"answer":null}', '{"correct":0.0}', "internal error: KeyError: 'x'"),
        (2, "pending", None, None, None),
    ]
    db.executemany(
        "INSERT INTO samples (run_id, idx, sample_id, grp, input, status, output, scores, error, calls, seconds)"
        " VALUES ('tomi-20250101-000000-abcd', ?, ?, 'g', '{}', ?, ?, ?, ?, '[]', 0.5)",
        [(i, f"s{i}", status, out, scores, error) for i, status, out, scores, error in rows],
    )
    db.commit()
    db.close()


def _user_version(path: Path) -> int:
    db = _raw(path)
    try:
        return int(db.execute("PRAGMA user_version").fetchone()[0])
    finally:
        db.close()


def test_a_new_store_records_its_layout_version(cli: Cli, tmp_path: Path) -> None:
    assert cli("bench", "run", "tomi", "--n", "2", home=tmp_path / "home").code == 0
    assert _user_version(tmp_path / "home" / "runs.sqlite") == store_module.SCHEMA_VERSION == 10


def test_an_old_store_is_read_as_it_is_and_upgraded_only_for_writing(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    path = home / "runs.sqlite"
    _old_store(path)
    before = _sha(path)
    listed = cli("runs", "--json", home=home)
    assert listed.code == 0, listed
    (old,) = json.loads(listed.out)["runs"]
    assert (old["run_id"], old["n"], old["n_completed"], old["n_failed"], old["n_bugs"]) == (
        "tomi-20250101-000000-abcd",
        3,
        2,
        0,
        1,
    )
    assert _sha(path) == before and _user_version(path) == 0  # reading never migrates

    assert cli("bench", "run", "tomi", "--n", "2", home=home).code == 0
    # layout 1's tables, then 1 -> 2 (history), 2 -> 3 (suites), 3 -> 4 (locks), 4 -> 5 (summaries), 5 -> 6 (node),
    # 6 -> 7 (credentials redacted), 7 -> 8 (targets), 8 -> 9 (suite runs keyed by model),
    # 9 -> 10 (keys and tags)
    assert _user_version(path) == 10
    after = json.loads(cli("runs", "--json", home=home).out)["runs"]
    assert after[0] == old and len(after) == 2

    # the old run stored no summary: the upgrade computed one, labelled so, once
    with RunStore(path) as store:
        stored = store.stored_summary(old["run_id"])
        assert stored is not None and stored["computed_by"] == "backfill" and stored["version"] == __version__
        first = summarize_run(old["run_id"], store)
        assert stored["metrics"] == first.metrics and stored["definitions"]["headline"]["metric"] == "accuracy"
        assert first.summary_source == {"computed_by": "backfill", "version": __version__}
        assert store.runs_without_summary() == []


FIXTURE = Path(__file__).parent / "fixtures" / "layout3-store.sqlite3"
"""A run store written by mindloop 0.1.0 itself at layout 3 (the tree of commit 1c13354^, before summaries were
stored): ``bench run tomi --n 8 --seed 3`` (symbolic), ``bench run smoke --n 4 --model scripted/echo`` and
``bench run tomi --n 6 --model scripted/echo`` (every reply names several choices: 6 failed samples)."""


def test_a_real_old_store_gets_each_runs_summary_computed_once_at_its_upgrade(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    path = home / "runs.sqlite"
    shutil.copy(FIXTURE, path)
    raw = _raw(path)
    rows = raw.execute("SELECT run_id, status, scores FROM samples ORDER BY run_id, idx").fetchall()
    raw.close()
    expected: dict[str, list[float]] = {}
    failed: dict[str, int] = {}
    for run_id, status, scores in rows:  # the accuracy the run's samples give: the mean of `correct`
        expected.setdefault(run_id, []).append(json.loads(scores)["correct"])
        failed[run_id] = failed.get(run_id, 0) + (status == "failed")
    assert len(expected) == 3 and sorted(failed.values()) == [0, 0, 6]

    before = _sha(path)
    listed = cli("runs", "--json", home=home)
    assert listed.code == 0 and len(json.loads(listed.out)["runs"]) == 3
    assert _sha(path) == before and _user_version(path) == 3  # reading never migrates

    upgraded = cli("bench", "run", "tomi", "--n", "1", home=home)
    assert upgraded.code == 0, upgraded
    assert "computing the summaries of 3 runs stored without one (once)" in upgraded.err
    assert _user_version(path) == store_module.SCHEMA_VERSION
    with RunStore(path) as store:
        for run_id, correct in expected.items():
            stored = store.stored_summary(run_id)
            assert stored is not None and (stored["computed_by"], stored["version"]) == ("backfill", __version__)
            assert stored["metrics"]["accuracy"] == sum(correct) / len(correct)
            assert stored["definitions"]["metrics"][0]["score"] == "correct"
            if failed[run_id]:  # every reply unparsed: counted, and read both ways
                assert stored["metrics"]["unparsed"] == 6 and stored["metrics"]["accuracy_strict"] == 0.0
        saved = dict(_raw(path).execute("SELECT run_id, saved FROM run_summaries").fetchall())

    again = cli("bench", "run", "tomi", "--n", "1", home=home)  # once: the next writable open computes nothing
    assert again.code == 0 and not any("computing the summaries" in line for line in again.err)
    now = dict(_raw(path).execute("SELECT run_id, saved FROM run_summaries").fetchall())
    assert {k: now[k] for k in expected} == {k: saved[k] for k in expected}
    shown = {r["run_id"]: r for r in json.loads(cli("runs", "--json", home=home).out)["runs"]}
    assert all(shown[run_id]["n_completed"] == len(c) for run_id, c in expected.items())


def test_migrations_run_in_order_in_one_transaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "runs.sqlite"
    _old_store(path)

    def add_note(db: sqlite3.Connection) -> None:
        db.execute("ALTER TABLE runs ADD COLUMN note TEXT")

    def fill_note(db: sqlite3.Connection) -> None:
        db.execute("UPDATE runs SET note = 'layout ' || (SELECT COUNT(*) FROM samples)")

    def broken(db: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("no such function: nothing")

    monkeypatch.setattr(store_module, "SCHEMA_VERSION", 4)
    monkeypatch.setattr(store_module, "MIGRATIONS", {1: add_note, 2: fill_note, 3: broken})
    with pytest.raises(sqlite3.OperationalError):
        RunStore(path)
    db = _raw(path)
    columns = [row[1] for row in db.execute("PRAGMA table_info(runs)")]
    db.close()
    assert "note" not in columns and _user_version(path) == 0  # the failed step undid the earlier ones

    monkeypatch.setattr(store_module, "SCHEMA_VERSION", 3)
    monkeypatch.setattr(store_module, "MIGRATIONS", {1: add_note, 2: fill_note})
    with RunStore(path) as store:
        assert [r.run_id for r in store.runs()] == ["tomi-20250101-000000-abcd"]
    db = _raw(path)
    assert db.execute("SELECT note FROM runs").fetchall() == [("layout 3",)]
    db.close()
    assert _user_version(path) == 3


def test_a_store_from_a_newer_mindloop_is_refused(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    path = home / "runs.sqlite"
    _old_store(path)
    db = sqlite3.connect(path)
    newer = store_module.SCHEMA_VERSION + 1
    db.execute(f"PRAGMA user_version = {newer}")
    db.commit()
    db.close()
    before = _sha(path)
    for args in (("runs",), ("bench", "run", "tomi", "--n", "2")):
        said = f"mindloop: error: run store {path} has layout {newer}, written by a newer"
        line = _one_line(cli(*args, home=home), said)
        assert "upgrade mindloop" in line
    assert _sha(path) == before
    with pytest.raises(StoreError, match=f"has layout {newer}"):
        RunStore(path, readonly=True)

"""Full disks and unwritable text (issue 24, cases 2 and 5, the store and file side).

A full disk is simulated without privileges: ``RLIMIT_FSIZE`` (Python ignores SIGXFSZ, so a write past the limit
fails with ``EFBIG``, as SQLite and every writer see a full disk), and ``/dev/full``. A run whose store fills up
is a subprocess with the limit set from its start; the writers' ``-o`` runs in the test's process (the ``cli``
fixture) with the limit lowered around the command alone (:mod:`tests.reliability.limits`). The run killed
mid-run with a lone surrogate in its replies is a subprocess; its ``--resume`` runs in the test's process.
A store write that fails stops the run with one line and the ``--resume`` line, and nothing stored is lost; every
file a command writes is written whole or not at all (no truncated report, an existing file kept); ``-o`` follows
one rule everywhere; a reply holding a lone surrogate is stored (U+FFFD in its place) and ``--resume`` works.
"""

from __future__ import annotations

import io
import json
import math
import os
import resource
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cli_run import Cli, CliRun

from mindloop.bench.api import Sample
from mindloop.bench.store import RunStore, SampleResult, StoreError
from mindloop.cli import main
from mindloop.models.fake_server import FakeChatServer

from .limits import file_size_limit

_PLAIN = "import sys\nfrom mindloop.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def _limit(size: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return apply


def _cli_process(home: Path, *args: str, fsize: int) -> CliRun:
    """The command line in a subprocess whose files may not grow past ``fsize`` bytes from its start."""
    env = dict(os.environ, MINDLOOP_HOME=str(home), COLUMNS="200")
    done = subprocess.run(
        [sys.executable, "-c", _PLAIN, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=_limit(fsize),  # the limit is set in the child alone
    )
    return CliRun(done.returncode, done.stdout, [line for line in done.stderr.splitlines() if line.strip()])


def _error_line(result: CliRun) -> str:
    """The one ``mindloop: error:`` line of a command that failed, with no traceback and exit 1."""
    assert result.code == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    lines = [ln for ln in result.err if ln.startswith("mindloop: error:")]
    assert len(lines) == 1, result.stderr[-3000:]
    return lines[0]


def _rows(home: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(f"{(home / 'runs.sqlite').as_uri()}?mode=ro", uri=True, timeout=30) as db:
        return db.execute(sql).fetchall()


def _finished_rows(home: Path) -> set[tuple[object, ...]]:
    return set(_rows(home, "SELECT idx, status, output, finished FROM samples WHERE status != 'pending'"))


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.mark.boundary  # RLIMIT_FSIZE on a whole run, from its process's start
def test_a_store_write_on_a_full_disk_stops_the_run_with_one_line_and_resume_finishes_it(
    cli: Cli, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    n = 30
    with FakeChatServer() as server:
        model = ["--agent", "model", "--model", "openai/x", "--base-url", server.base_url, "--cache", "off"]
        # 250 kB: the run and its 30 pending samples are recorded, then the write-ahead log fills within the run
        full = _cli_process(home, "bench", "run", "hitom", "--n", str(n), "--concurrency", "2", *model, fsize=250_000)
        ((run_id,),) = _rows(home, "SELECT run_id FROM runs")
        line = _error_line(full)
        assert line.startswith(f"mindloop: error: run store {home / 'runs.sqlite'} cannot be used (")
        assert line.endswith(f"once fixed, finish it with: mindloop bench run hitom --resume {run_id}")
        assert "cannot rollback" not in full.stderr
        kept = _finished_rows(home)
        assert len(kept) < n  # it stopped at the full disk, with what it had stored kept

        resumed = cli("bench", "run", "hitom", "--resume", str(run_id), *model[4:], "--json", home=home)
    assert resumed.code == 0, resumed.stderr[-3000:]
    summary = json.loads(resumed.out)
    assert (summary["n"], summary["n_completed"], summary["n_bugs"]) == (n, n, 0)
    assert kept <= _finished_rows(home)  # every sample stored before the full disk is there, unchanged
    assert _rows(home, "SELECT COUNT(*) FROM samples WHERE status = 'pending'") == [(0,)]
    assert _rows(home, "PRAGMA quick_check") == [("ok",)]


def _main_json(home: Path, *args: str) -> dict[str, object]:
    """``mindloop *args --json`` in this process with ``home`` as MINDLOOP_HOME: its JSON output (for a
    module-scoped fixture, which cannot use the ``cli`` fixture)."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as env, redirect_stdout(out), redirect_stderr(err):
        env.setenv("MINDLOOP_HOME", str(home))
        code = main([*args, "--json"])
    assert code == 0, err.getvalue()[-3000:]
    return dict(json.loads(out.getvalue()))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, str]:
    """A home with two runs of the same 200 samples and a one-benchmark suite: (home, run, other run, suite)."""
    home = tmp_path_factory.mktemp("full") / "home"
    runs = [str(_main_json(home, "bench", "run", "tomi", "--n", "200")["run_id"]) for _ in range(2)]
    suite = _main_json(home, "suite", "run", "--only", "tomi", "--max-n", "40")
    return home, runs[0], runs[1], str(suite["suite_id"])


_WRITERS: dict[str, Callable[[str, str, str], list[str]]] = {
    "report": lambda run, other, suite: ["report", run],
    "runs export": lambda run, other, suite: ["runs", "export", run],
    "suite report": lambda run, other, suite: ["suite", "report", suite, "--no-run-reports"],
    "compare": lambda run, other, suite: ["compare", run, other],
}


@pytest.mark.parametrize("writer", list(_WRITERS))
def test_a_writer_on_a_full_disk_leaves_no_truncated_file_and_keeps_the_old_one(
    cli: Cli, recorded: tuple[Path, str, str, str], tmp_path: Path, writer: str
) -> None:
    home, run, other, suite = recorded
    args = _WRITERS[writer](run, other, suite)
    whole = cli(*args, "-o", str(tmp_path / "whole.out"), home=home)
    assert whole.code == 0, whole.stderr[-3000:]
    limit = 10_000  # below what each of these writes
    assert (tmp_path / "whole.out").stat().st_size > limit
    # a reader kept open keeps the store's 32 kB index file made, so the limited command can open the store
    reader = sqlite3.connect(home / "runs.sqlite")
    try:
        reader.execute("SELECT COUNT(*) FROM runs").fetchall()
        target = tmp_path / "new.out"
        with file_size_limit(limit):
            refused = cli(*args, "-o", str(target), home=home)
        line = _error_line(refused)
        assert str(target) in line and "File too large" in line
        assert not target.exists() and _leftovers(tmp_path) == []  # no truncated file, no temporary file left

        old = tmp_path / "old.out"
        old.write_text("the previous version\n", encoding="utf-8")
        with file_size_limit(limit):
            refused = cli(*args, "-o", str(old), home=home)
        _error_line(refused)
        assert old.read_text(encoding="utf-8") == "the previous version\n" and _leftovers(tmp_path) == []
    finally:
        reader.close()


@pytest.mark.parametrize("writer", ["report", "runs export", "compare"])
def test_dev_full_is_one_line(cli: Cli, recorded: tuple[Path, str, str, str], writer: str) -> None:
    home, run, other, suite = recorded
    line = _error_line(cli(*_WRITERS[writer](run, other, suite), "-o", "/dev/full", home=home))
    assert "/dev/full" in line and "No space left on device" in line


def test_one_rule_for_o_a_new_name_is_a_file_and_an_existing_folder_gets_the_default_name(
    cli: Cli, recorded: tuple[Path, str, str, str], tmp_path: Path
) -> None:
    home, run, other, suite = recorded
    defaults = {
        "report": f"{run}.html",
        "runs export": f"{run}.jsonl",
        "suite report": f"{suite}.html",
        "compare": "compare.html",
    }
    for writer, default in defaults.items():
        args = _WRITERS[writer](run, other, suite)
        new = tmp_path / writer.replace(" ", "-") / "NEWNAME"  # no extension, in a folder not yet made
        assert cli(*args, "-o", str(new), home=home).code == 0
        assert new.is_file() and new.stat().st_size > 0, writer
        folder = tmp_path / f"{writer.replace(' ', '-')}-folder"
        folder.mkdir()
        assert cli(*args, "-o", str(folder), home=home).code == 0
        assert [p.name for p in folder.iterdir()] == [default], writer
    csv_folder = tmp_path / "csv"
    csv_folder.mkdir()
    assert cli("runs", "export", run, "--format", "csv", "-o", str(csv_folder), home=home).code == 0
    assert [p.name for p in csv_folder.iterdir()] == [f"{run}.csv"]


@pytest.mark.boundary  # a run's process killed with SIGKILL mid-run
def test_a_reply_with_a_lone_surrogate_is_stored_and_the_run_resumes(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    n = 8
    with _surrogate_server() as base_url:
        model = ["--base-url", base_url, "--cache", "off"]
        args = ["bench", "run", "hitom", "--agent", "model", "--model", "openai/x", "--n", str(n), "--concurrency", "2"]
        env = dict(os.environ, MINDLOOP_HOME=str(home))
        proc = subprocess.Popen(
            [sys.executable, "-c", _PLAIN, *args, *model], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 300  # only against hanging
        while proc.poll() is None and time.monotonic() < deadline:
            if (home / "runs.sqlite").exists() and _count_finished(home) >= 2:
                break
            time.sleep(0.05)
        if proc.poll() is None:
            proc.kill()  # killed mid-run: --resume finishes it
        _, err = proc.communicate()
        assert b"UnicodeEncodeError" not in err and b"internal error" not in err, err[-3000:]
        ((run_id,),) = _rows(home, "SELECT run_id FROM runs")
        resumed = cli("bench", "run", "hitom", "--resume", str(run_id), *model, "--json", home=home)
    assert resumed.code == 0, resumed.stderr[-3000:]
    summary = json.loads(resumed.out)
    assert (summary["n_completed"], summary["n_bugs"]) == (n, 0)
    outputs = [json.loads(str(text)) for (text,) in _rows(home, "SELECT output FROM samples")]
    assert all(out["reply"] == "x \ufffd" for out in outputs), outputs[:2]
    exported = cli("runs", "export", str(run_id), home=home)
    assert exported.code == 0 and "x \ufffd" in exported.out


_SURROGATE_REPLY = (
    b'{"id": "c", "object": "chat.completion", "model": "x", "choices": [{"index": 0, "message": {"role": '
    b'"assistant", "content": "x \\ud800"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, '
    b'"completion_tokens": 2, "total_tokens": 5}}'
)
"""A valid JSON reply whose text holds a lone surrogate (escaped, as JSON allows), with its usage reported."""


class _SurrogateHandler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send(b'{"object": "list", "data": [{"id": "x", "object": "model"}]}')

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        time.sleep(0.1)  # a sample takes a moment, so the run can be killed mid-way
        self._send(_SURROGATE_REPLY)


@contextmanager
def _surrogate_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SurrogateHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _count_finished(home: Path) -> int:
    try:
        return int(_rows(home, "SELECT COUNT(*) FROM samples WHERE status != 'pending'")[0][0])  # type: ignore[call-overload]
    except sqlite3.OperationalError:  # the tables are not there yet
        return 0


def test_the_store_never_raises_on_what_a_sample_returned(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        run_id = store.create_run(
            benchmark="b",
            agent="a",
            model=None,
            config={"note": "config \udc80"},
            samples=[Sample("s0", {"text": "in \ud800"}), Sample("s1", {}), Sample("s2", {})],
            version="0",
        )
        results = [
            SampleResult(0, "done", {"reply": "x \ud800"}, {"correct": 1.0}, None, [{"reply": "\udfff"}], 0.1),
            SampleResult(1, "failed", {}, {}, "ModelError: bad \ud83d text", [], 0.1),
            SampleResult(2, "done", {"answer": 1}, {"score": math.nan}, None, [{"reply": "kept"}], 0.1),
        ]
        assert store.finish(run_id, results) == 3
        first, second, third = store.records(run_id)
        assert store.run(run_id).config == {"note": "config \ufffd"}
    assert first.sample.input == {"text": "in \ufffd"} and first.output == {"reply": "x \ufffd"}
    assert first.calls == [{"reply": "\ufffd"}] and first.status == "done"
    assert second.error == "ModelError: bad \ufffd text"
    assert third.status == "bug" and third.calls == [{"reply": "kept"}] and third.output is None
    assert third.error is not None and third.error.startswith("internal error: the sample's result cannot be stored")


def test_a_size_limited_store_file_fails_the_write_as_a_full_disk_not_a_rollback_error(tmp_path: Path) -> None:
    """SQLite rolls a transaction back by itself on SQLITE_FULL; the store used to roll back again and raise
    ``cannot rollback - no transaction is active`` instead of the full disk."""
    with RunStore(tmp_path / "runs.sqlite") as store:
        run_id = store.create_run(
            benchmark="b", agent="a", model=None, config={}, samples=[Sample("s0", {})], version="0"
        )
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {int(pages)}")  # the file may not grow: a full disk for SQLite
        big = SampleResult(0, "done", {"reply": "x" * 200_000}, {}, None, [], 0.1)
        with pytest.raises(StoreError, match=r"cannot be used \(database or disk is full\)"):
            store.finish(run_id, [big])
        assert not store._db.in_transaction
        store._db.execute(f"PRAGMA max_page_count = {2**30}")  # space again: the same write goes through
        assert store.finish(run_id, [big]) == 1
        assert store.records(run_id)[0].output == {"reply": "x" * 200_000}

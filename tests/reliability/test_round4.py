"""Issue 40, reliability round 4 (all but the Ray cases, which are in ``test_ray_faults.py``).

2. a key a server echoes in its 401 (plain, URL-encoded, base64 in ``Basic`` credentials) is redacted before it is
   stored, printed or rendered; 3. ``board --serve`` answers only a loopback ``Host`` and takes a free port by
   default; 4. a killed session's time stays in the run's ``seconds``; 5. an absurd ``--n`` is refused before any
   sample is made; 6. a ``--json`` command that fails prints ``{"error": ...}``; 7. Ctrl-C while the command line
   loads is one line; 8. control characters in a model name are escaped on the terminal; 9. pre-flight's whole
   check ends within the deadline it prints; 11. ``--temperature nan`` is refused as not finite, and a store
   migration redacts credentials that older versions stored.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from mindloop.bench.records import Sample
from mindloop.bench.store import RunStore, SampleResult
from mindloop.cli import main
from mindloop.errors import ModelUnavailableError
from mindloop.models import openai_compat
from mindloop.models.base import ModelOptions, preflight
from mindloop.models.fake_server import FakeChatServer

KEY = "sk-PLANTED/echo+7f3a9c=="
"""An API key whose URL-encoded form differs from it (``/``, ``+`` and ``=`` are encoded)."""
FORMS = (KEY, quote(KEY, safe=""), base64.b64encode(f":{KEY}".encode()).decode())
"""The key as a server may echo it: plain, URL-encoded, and inside base64 ``Basic`` credentials."""
MARK = "\x1b[31m"


def _home() -> Path:
    return Path(os.environ["MINDLOOP_HOME"])


def _stored_bytes(home: Path) -> bytes:
    """Everything under the home folder (the store, its write-ahead log, the cache) as bytes."""
    return b"".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file())


def _run_id(capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["runs", "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    return str(run["run_id"])


# -- 2. a key the server echoes ---------------------------------------------------------------------------------------


def test_a_key_the_server_echoes_is_never_stored_printed_or_rendered(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    echo = f"Incorrect API key provided: Bearer {FORMS[0]} (sent as {FORMS[1]}; Basic {FORMS[2]})"
    with FakeChatServer(faults=["401"] * 3, fault_message=echo) as server:
        args = ["bench", "run", "smoke", "--model", "openai/fake", "--base-url", server.base_url, "--n", "3"]
        assert main([*args, "--cache", "off", "--format-retries", "0", "--json"]) == 0
        assert server.requests_by_status == {401: 3}  # every request was refused with the key in the message
        assert {h["Authorization"] for h in server.headers} == {f"Bearer {KEY}"}
    said = capsys.readouterr()
    summary = json.loads(said.out)
    assert summary["n_failed"] == 3
    run_id = summary["run_id"]
    assert main(["report", run_id, "-o", str(tmp_path / "report.html")]) == 0
    assert main(["runs", "export", run_id, "-o", str(tmp_path / "samples.jsonl")]) == 0
    assert main(["runs"]) == 0
    shown = said.out + said.err + capsys.readouterr().out
    with RunStore(_home() / "runs.sqlite", readonly=True) as store:
        errors = [r.error or "" for r in store.records(run_id)]
    assert all("HTTP 401" in e and "Incorrect API key provided: Bearer ***" in e for e in errors), errors
    written = _stored_bytes(_home()) + _stored_bytes(tmp_path)
    for form in FORMS:
        assert form not in shown and form.encode() not in written, form


def test_credentials_older_versions_stored_are_redacted_when_the_store_is_upgraded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = _home() / "runs.sqlite"
    url = "http://me:pw-PLANTED-51e2@127.0.0.1:9/v1?api_key=sk-INQUERY-0c1d"
    config = {"n": 1, "model_options": {"base_url": url, "api_key_env": "MY_KEY", "cache": "auto"}}
    echoed = f"HTTP 401 from {url}/chat/completions: Incorrect API key provided: Bearer sk-BEARER-99f0; {KEY}"
    with RunStore(path) as store:  # a run as a version before layout 7 stored it (no credentials step yet)
        run_id = store.create_run(
            benchmark="smoke", agent="model", model="openai/x", config=config, samples=[Sample("s0", {})], version="0"
        )
        result = SampleResult(0, "failed", {}, {}, f"ModelError: {echoed}", [{"error": echoed}], 0.1)
        store.finish(run_id, [result])
    with contextlib.closing(sqlite3.connect(path)) as db:  # back to layout 6's tables
        db.execute("ALTER TABLE samples DROP COLUMN target")
        db.execute("ALTER TABLE samples DROP COLUMN choices")
        db.execute("ALTER TABLE runs DROP COLUMN key")
        db.execute("DROP TABLE run_tags")
        db.execute("PRAGMA user_version = 6")
    monkeypatch.setenv("MY_KEY", KEY)  # the variable the run named still holds the key
    with RunStore(path) as store:  # opened for writing: upgraded
        (record,) = store.records(run_id)
        stored = store.run(run_id).config["model_options"]["base_url"]
    assert stored == "http://***@127.0.0.1:9/v1?api_key=***"
    error = record.error or ""
    assert error.startswith("ModelError: HTTP 401 from http://***@127.0.0.1:9/v1?api_key=***")
    assert error.endswith("Incorrect API key provided: Bearer ***; ***")
    assert record.calls == [{"error": error.removeprefix("ModelError: ")}]
    written = _stored_bytes(_home())
    for secret in ("pw-PLANTED-51e2", "sk-INQUERY-0c1d", "sk-BEARER-99f0", KEY):
        assert secret.encode() not in written, secret


# -- 3. the board's server ---------------------------------------------------------------------------------------------


@pytest.mark.boundary
def test_the_served_board_takes_a_free_port_and_answers_only_a_loopback_host(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "run", "smoke", "--model", "scripted/echo", "--n", "1"]) == 0
    capsys.readouterr()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mindloop.cli", "board", "--serve"],  # no --port
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # said once the socket listens
        found = re.search(r"on http://127\.0\.0\.1:(\d+)/ \(Ctrl-C to stop\)", line)
        assert found is not None, line + (proc.stderr.read() if proc.poll() is not None else "")
        port = int(found.group(1))
        assert port != 8765  # the old fixed default: a page the user visits could guess it
        answers = {}
        for host in ("127.0.0.1", "localhost", "[::1]", "LocalHost", "evil.example.com", "127.0.0.1.nip.io", ""):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.putrequest("GET", "/", skip_host=True)
            if host:
                conn.putheader("Host", f"{host}:{port}")
            conn.endheaders()
            response = conn.getresponse()
            answers[host] = (response.status, response.read().decode())
            conn.close()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/", headers={"Host": "127.0.0.1"})  # no port: not the board's own address
        answers["no port"] = (conn.getresponse().status, "")
        conn.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for host in ("127.0.0.1", "localhost", "[::1]", "LocalHost"):
        assert answers[host][0] == 200 and 'data-serve="1"' in answers[host][1], host
    for host in ("evil.example.com", "127.0.0.1.nip.io", "", "no port"):
        assert answers[host][0] == 403, (host, answers[host])
    assert "runs" not in answers["evil.example.com"][1] and "smoke" not in answers["evil.example.com"][1]


# -- 4. a killed session's seconds ------------------------------------------------------------------------------------


@pytest.mark.boundary
def test_a_killed_sessions_time_is_kept_in_the_runs_seconds(tmp_path: Path) -> None:
    home = _home()
    db = home / "runs.sqlite"

    def finished() -> list[float]:
        if not db.exists():
            return []
        try:
            with contextlib.closing(sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=30)) as conn:
                rows = conn.execute("SELECT seconds FROM samples WHERE status != 'pending'").fetchall()
        except sqlite3.OperationalError:  # the tables are not made yet
            return []
        return [float(s) for (s,) in rows]

    with FakeChatServer(latency_s=0.05) as server:  # every request takes at least 0.05 s
        args = ["bench", "run", "smoke", "--model", "openai/fake", "--base-url", server.base_url, "--n", "40"]
        args += ["--concurrency", "1", "--cache", "off"]
        code = "import sys\nfrom mindloop.cli import main\nsys.exit(main(sys.argv[1:]))\n"
        proc = subprocess.Popen([sys.executable, "-c", code, *args], stderr=subprocess.DEVNULL, env=dict(os.environ))
        try:
            deadline = time.monotonic() + 300
            while len(finished()) < 5:
                assert proc.poll() is None and time.monotonic() < deadline, "the run did not get 5 samples done"
                time.sleep(0.05)
            proc.kill()  # kill -9: the session writes nothing more
            proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        done = finished()
        with contextlib.closing(sqlite3.connect(db)) as conn:
            ((run_id, seconds),) = conn.execute("SELECT run_id, seconds FROM runs").fetchall()
        # one sample at a time: the session lasted at least as long as the samples it finished, one after another
        assert 0 < sum(done) <= seconds, (sum(done), seconds)
        resume = ["bench", "run", "smoke", "--resume", run_id, "--base-url", server.base_url, "--concurrency", "1"]
        assert main(resume) == 0
    with RunStore(db, readonly=True) as store:
        total = store.run(run_id).seconds
        samples = store.records(run_id)
    assert len(samples) == 40 and sum(r.seconds for r in samples) <= total


# -- 5. an absurd --n -------------------------------------------------------------------------------------------------


def test_an_n_above_the_cap_is_refused_before_any_sample_is_made(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from mindloop.bench import runner
    from mindloop.systems.tom.benchmarks import ToMiBenchmark

    def never(*args: object) -> None:
        raise AssertionError("samples were generated for an n above the cap")

    monkeypatch.setattr(ToMiBenchmark, "samples", never)
    assert main(["bench", "run", "tomi", "--n", "2000000000"]) == 1
    err = capsys.readouterr().err
    MAX_N = runner.MAX_N  # noqa: N806 - the module's constant
    assert err == f"mindloop: error: --n 2000000000 is above the cap of {MAX_N:,} samples a run\n"
    assert not (_home() / "runs.sqlite").exists() or main(["runs", "--json"]) == 0
    assert MAX_N == 100_000 and "100,000" in (Path(__file__).parents[2] / "docs" / "bench.md").read_text()


# -- 6. --json errors -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["runs", "--json"],
        ["board", "--json"],
        ["suite", "list", "--json"],
        ["bench", "run", "tomi", "--n", "1", "--json"],
    ],
)
def test_a_json_command_on_a_damaged_store_prints_one_json_error(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    (_home() / "runs.sqlite").write_bytes(b"this is not a database" * 100)
    assert main(argv) == 1
    said = capsys.readouterr()
    (line,) = said.err.splitlines()
    assert line.startswith("mindloop: error: run store ") and "not a usable mindloop run store" in line
    assert json.loads(said.out) == {"error": line.removeprefix("mindloop: error: ")}
    assert said.out.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "code"), [(["bench", "run", "nope", "--json"], 1), (["bench", "run", "tomi", "--n", "x", "--json"], 1)]
)
def test_a_failing_json_command_prints_its_error_as_json(
    capsys: pytest.CaptureFixture[str], argv: list[str], code: int
) -> None:
    assert main(argv) == code
    said = capsys.readouterr()
    (line,) = said.err.splitlines()
    assert json.loads(said.out) == {"error": line.removeprefix("mindloop: error: ")}


# -- 7. Ctrl-C while the command line loads ----------------------------------------------------------------------------

_CTRL_C_AT_IMPORT = """
import os, signal, sys
from importlib.metadata import entry_points

MODULE = sys.argv[1]
# Ctrl-C as at a terminal: a process started in the background by a non-interactive shell (a CI runner's, or
# `cmd &` in a script) inherits SIGINT ignored, and Python then keeps it ignored
signal.signal(signal.SIGINT, signal.default_int_handler)

class CtrlC:  # Ctrl-C the moment MODULE starts loading
    def find_spec(self, name, path=None, target=None):
        if name == MODULE:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

(script,) = entry_points(group="console_scripts", name="mindloop")  # what the installed `mindloop` runs
sys.meta_path.insert(0, CtrlC())
sys.argv = ["mindloop", *sys.argv[2:]]
sys.exit(script.load()())
"""


@pytest.mark.boundary
@pytest.mark.parametrize("module", ["typer", "rich.console", "mindloop.bench.runner"])
def test_ctrl_c_while_the_command_line_loads_is_one_line(module: str) -> None:
    args = ["bench", "run", "smoke", "--model", "scripted/echo", "--n", "1"]
    proc = subprocess.run(
        [sys.executable, "-c", _CTRL_C_AT_IMPORT, module, *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=dict(os.environ),
    )
    assert (proc.returncode, proc.stderr, proc.stdout) == (1, "mindloop: interrupted\n", ""), proc.stderr[-2000:]


_CLOSED = "mindloop: error: standard output is closed; redirect it instead (> FILE, > /dev/null)\n"


@pytest.mark.boundary
def test_a_command_that_prints_with_its_output_closed_says_so_in_one_line() -> None:
    # the process itself, its output closed by the shell: Python gives it sys.stdout None, and the flush on the way
    # out (mindloop.__main__, then the interpreter's own) once ended in a traceback
    proc = subprocess.run(
        ["sh", "-c", '"$0" -m mindloop bench list >&-', sys.executable], capture_output=True, text=True, timeout=300
    )
    assert (proc.returncode, proc.stderr) == (1, _CLOSED), proc.stderr[-2000:]


def test_with_its_output_closed_a_json_command_says_so_once_and_a_file_writer_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # in-process, sys.stdout None as such a process has it: printing (through emit) once ended in an "internal
    # error"; a command writing only files must not be refused for a stream it never uses
    monkeypatch.setattr(sys, "stdout", None)
    assert main(["bench", "list", "--json"]) == 1
    assert capsys.readouterr().err == _CLOSED  # no {"error": ...} object tried on the closed stream
    assert main(["data", "export", "mindpower-sim", "--n", "5", "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "stats.json").is_file() and capsys.readouterr().err.startswith("wrote ")


def test_with_its_error_stream_closed_a_json_command_prints_its_object_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # sys.stderr None, as a process started with 2>&- has it: a bench run's progress lines (print(file=None) falls
    # back to stdout) once landed ahead of its JSON object
    monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "stderr", None)
    code = main(["bench", "run", "hitom", "--n", "2", "--json"])
    opened, out = sys.stderr, capsys.readouterr().out
    assert code == 0 and json.loads(out)["n_completed"] == 2
    opened.close()  # the stream main opened in its place (os.devnull)


# -- 8. control characters in names -----------------------------------------------------------------------------------


def test_control_characters_in_a_model_name_are_escaped_on_the_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # every column of `mindloop runs` in full
    name = f"openai/fa{MARK}ke\x07\x9b2J"
    with FakeChatServer() as server:
        args = ["bench", "run", "smoke", "--model", name, "--base-url", server.base_url, "--n", "2", "--cache", "off"]
        assert main(args) == 0
        assert {b["model"] for b in server.bodies} == {name.removeprefix("openai/")}  # sent as given
    said = capsys.readouterr()
    assert main(["runs"]) == 0
    listed = capsys.readouterr().out
    running = next(line for line in said.err.splitlines() if ": running 2 of 2 samples" in line)
    shown = "openai/fa\\x1b[31mke\\x07\\x9b2J"
    assert shown in running and shown in said.out and shown in listed
    for text in (said.out, said.err, listed):
        assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", text), repr(text)


# -- 9. pre-flight's deadline -----------------------------------------------------------------------------------------


def test_preflight_against_a_server_that_never_answers_ends_within_the_deadline_it_prints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    deadline = 2.0
    monkeypatch.setattr(openai_compat, "PREFLIGHT_S", deadline)
    with socket.socket() as silent:  # accepts connections (the kernel's backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        start = time.monotonic()
        with pytest.raises(ModelUnavailableError) as refused:
            preflight("openai/m", ModelOptions(base_url=url))
        took = time.monotonic() - start
    assert f"no answer from {url}/models within {deadline:g} s" in str(refused.value)
    # the check asked twice (/models, then /openapi.json) and each used to wait the whole deadline: at least 2x
    assert took < 2 * deadline, took


# -- 11. what was left from the last round ----------------------------------------------------------------------------


def test_a_nan_temperature_is_refused_as_not_finite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "run", "smoke", "--model", "scripted/echo", "--temperature", "nan", "--n", "1"]) == 1
    assert capsys.readouterr().err == "mindloop: error: temperature must be a finite number, got nan\n"

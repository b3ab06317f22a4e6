"""Issue 24, case 6: API keys and URL credentials are never stored, printed or rendered.

A key read from a CRLF file is stripped and works; a key no HTTP header can carry is refused in one line naming
its variable, never its value; a base URL with ``user:password@`` or a key in its query is refused (the key
belongs in the variable ``--api-key-env`` names). The last test plants a key and a URL credential, runs, resumes,
reports and exports, and greps everything written (the home folder, the report, the export, every stdout and
stderr) for them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_run import Cli, CliRun

from mindloop.errors import InvalidArgumentError
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer

KEY = "sk-PLANTED-7f3a9c"
PASSWORD = "pw-PLANTED-51e2"
RUN = ("bench", "run", "tomi", "--agent", "model", "--model", "openai/default", "--format-retries", "0", "--n", "2")


@pytest.fixture
def mindloop(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> Callable[..., CliRun]:
    """``mindloop(home, *args, env=None)``: the command line in this process with ``home`` as MINDLOOP_HOME, no
    OpenAI variables from the caller's shell, and ``env`` set for that command alone."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    def mindloop(home: Path, *args: str, env: dict[str, str] | None = None) -> CliRun:
        with monkeypatch.context() as scoped:
            for name, value in (env or {}).items():
                scoped.setenv(name, value)
            return cli(*args, home=home)

    return mindloop


def recorded_runs(home: Path) -> int:
    if not (home / "runs.sqlite").exists():
        return 0
    with sqlite3.connect(home / "runs.sqlite") as conn:
        return int(conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])


def test_a_key_read_from_a_crlf_file_is_stripped_and_works(mindloop: Callable[..., CliRun], tmp_path: Path) -> None:
    with FakeChatServer(api_key=KEY) as server:
        done = mindloop(tmp_path, *RUN, "--base-url", server.base_url, env={"OPENAI_API_KEY": f" {KEY}\r\n"})
        assert done.code == 0, done.stderr
        assert server.requests == 2 and {h["Authorization"] for h in server.headers} == {f"Bearer {KEY}"}
    assert KEY not in done.stderr + done.out


@pytest.mark.parametrize(
    ("key", "what"),
    [(f"{KEY}\u00e9", "non-ASCII"), ("sk-PLANTED 7f3a\tx", "a space or control character")],
    ids=["non-ascii", "inner-whitespace"],
)
def test_a_key_no_header_can_carry_is_refused_naming_the_variable(
    mindloop: Callable[..., CliRun], tmp_path: Path, key: str, what: str
) -> None:
    with FakeChatServer() as server:
        done = mindloop(
            tmp_path, *RUN, "--base-url", server.base_url, "--api-key-env", "MY_KEY", env={"MY_KEY": key}
        )  # fmt: skip
        assert server.requests == 0
    assert done.code == 1
    assert len(done.err) == 1 and done.stderr.startswith("mindloop: error: the API key in $MY_KEY")
    assert what in done.stderr and "PLANTED" not in done.stderr and "--base-url" not in done.stderr
    assert recorded_runs(tmp_path) == 0


@pytest.mark.parametrize(
    "shape",
    [
        "http://user:{pw}@{host}/v1",
        "http://{pw}@{host}/v1",
        "http://{host}/v1?api_key={pw}",
        "http://{host}/v1?token={pw}",
    ],
)
def test_credentials_in_a_base_url_are_refused_without_showing_them(
    mindloop: Callable[..., CliRun], tmp_path: Path, shape: str
) -> None:
    with FakeChatServer() as server:
        url = shape.format(pw=PASSWORD, host=server.base_url.removeprefix("http://").removesuffix("/v1"))
        flag = mindloop(tmp_path, *RUN, "--base-url", url)
        env = mindloop(tmp_path, *RUN, env={"OPENAI_BASE_URL": url})
        assert server.requests == 0
    for done, name in ((flag, "base URL"), (env, "OPENAI_BASE_URL")):
        assert done.code == 1
        assert len(done.err) == 1 and f"{name} 'http://" in done.stderr
        assert "carries credentials" in done.stderr and "***" in done.stderr and PASSWORD not in done.stderr
    assert recorded_runs(tmp_path) == 0
    with pytest.raises(InvalidArgumentError, match="carries credentials") as refused:
        ModelOptions(base_url=url)
    assert PASSWORD not in str(refused.value)


def test_a_planted_key_and_credential_appear_nowhere(
    mindloop: Callable[..., CliRun], tmp_path: Path, recwarn: pytest.WarningsRecorder
) -> None:
    home, out = tmp_path / "home", tmp_path / "out"
    out.mkdir()
    outputs: list[str] = []

    def run(*args: str, env: dict[str, str] | None = None) -> CliRun:
        done = mindloop(home, *args, env={"OPENAI_API_KEY": f"{KEY}\r\n", **(env or {})})
        outputs.extend((done.out, done.stderr))
        return done

    with FakeChatServer(api_key=KEY, faults=["500", "500", "500"]) as server:
        host = server.base_url.removeprefix("http://")
        refused = run(*RUN, "--base-url", f"http://me:{PASSWORD}@{host}")
        assert refused.code == 1
        first = run(*RUN, "--base-url", server.base_url, "--retries", "0", "--breaker", "1", "--json")
        assert first.code in (0, 1), first.stderr
        run_id = next(line for line in first.stderr.splitlines() if "--resume" in line).split("--resume ")[1].split()[0]
        resumed = run("bench", "run", "tomi", "--resume", run_id, "--base-url", server.base_url, "--json")
        assert resumed.code == 0, resumed.stderr
        assert server.requests >= 3 and all(h.get("Authorization") == f"Bearer {KEY}" for h in server.headers)
    assert run("report", run_id, "-o", str(out / "report.html")).code == 0
    assert run("runs", "export", run_id, "-o", str(out / "export.jsonl")).code == 0
    assert run("runs", "export", run_id, "--format", "csv", "-o", str(out / "export.csv")).code == 0
    assert run("runs", "--json").code == 0
    outputs.extend(str(warning.message) for warning in recwarn)  # what a subprocess would have printed on stderr
    written = [p for folder in (home, out) for p in folder.rglob("*") if p.is_file()]
    assert {p.name for p in written} >= {"runs.sqlite", "report.html", "export.jsonl", "export.csv"}
    for secret in (KEY, PASSWORD, "PLANTED"):
        assert [p.name for p in written if secret.encode() in p.read_bytes()] == []
        assert not any(secret in text for text in outputs)

"""Issue 24, case 6: API keys and URL credentials are never stored, printed or rendered.

A key read from a CRLF file is stripped and works; a key no HTTP header can carry is refused in one line naming
its variable, never its value; a base URL with ``user:password@`` or a key in its query is refused (the key
belongs in the variable ``--api-key-env`` names). The last test plants a key and a URL credential, runs, resumes,
reports and exports, and greps everything written (the home folder, the report, the export, every stdout and
stderr) for them.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mindloop.errors import InvalidArgumentError
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer

KEY = "sk-PLANTED-7f3a9c"
PASSWORD = "pw-PLANTED-51e2"
RUN = ("bench", "run", "tomi", "--agent", "model", "--model", "openai/default", "--format-retries", "0", "--n", "2")


def cli(home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    full.update(MINDLOOP_HOME=str(home), COLUMNS="200", **(env or {}))
    code = "import sys\nfrom mindloop.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    return subprocess.run(
        [sys.executable, "-c", code, *args], env=full, capture_output=True, text=True, timeout=300, check=False
    )


def recorded_runs(home: Path) -> int:
    if not (home / "runs.sqlite").exists():
        return 0
    with sqlite3.connect(home / "runs.sqlite") as conn:
        return int(conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])


def test_a_key_read_from_a_crlf_file_is_stripped_and_works(tmp_path: Path) -> None:
    with FakeChatServer(api_key=KEY) as server:
        done = cli(tmp_path, *RUN, "--base-url", server.base_url, env={"OPENAI_API_KEY": f" {KEY}\r\n"})
        assert done.returncode == 0, done.stderr
        assert server.requests == 2 and {h["Authorization"] for h in server.headers} == {f"Bearer {KEY}"}
    assert KEY not in done.stderr + done.stdout


@pytest.mark.parametrize(
    ("key", "what"),
    [(f"{KEY}\u00e9", "non-ASCII"), ("sk-PLANTED 7f3a\tx", "a space or control character")],
    ids=["non-ascii", "inner-whitespace"],
)
def test_a_key_no_header_can_carry_is_refused_naming_the_variable(tmp_path: Path, key: str, what: str) -> None:
    with FakeChatServer() as server:
        done = cli(
            tmp_path, *RUN, "--base-url", server.base_url, "--api-key-env", "MY_KEY", env={"MY_KEY": key}
        )  # fmt: skip
        assert server.requests == 0
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("mindloop: error: the API key in $MY_KEY")
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
def test_credentials_in_a_base_url_are_refused_without_showing_them(tmp_path: Path, shape: str) -> None:
    with FakeChatServer() as server:
        url = shape.format(pw=PASSWORD, host=server.base_url.removeprefix("http://").removesuffix("/v1"))
        flag = cli(tmp_path, *RUN, "--base-url", url)
        env = cli(tmp_path, *RUN, env={"OPENAI_BASE_URL": url})
        assert server.requests == 0
    for done, name in ((flag, "base URL"), (env, "OPENAI_BASE_URL")):
        assert done.returncode == 1
        assert done.stderr.count("\n") == 1 and f"{name} 'http://" in done.stderr
        assert "carries credentials" in done.stderr and "***" in done.stderr and PASSWORD not in done.stderr
    assert recorded_runs(tmp_path) == 0
    with pytest.raises(InvalidArgumentError, match="carries credentials") as refused:
        ModelOptions(base_url=url)
    assert PASSWORD not in str(refused.value)


def test_a_planted_key_and_credential_appear_nowhere(tmp_path: Path) -> None:
    home, out = tmp_path / "home", tmp_path / "out"
    out.mkdir()
    outputs: list[str] = []

    def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        done = cli(home, *args, env={"OPENAI_API_KEY": f"{KEY}\r\n", **(env or {})})
        outputs.extend((done.stdout, done.stderr))
        return done

    with FakeChatServer(api_key=KEY, faults=["500", "500", "500"]) as server:
        host = server.base_url.removeprefix("http://")
        refused = run(*RUN, "--base-url", f"http://me:{PASSWORD}@{host}")
        assert refused.returncode == 1
        first = run(*RUN, "--base-url", server.base_url, "--retries", "0", "--breaker", "1", "--json")
        assert first.returncode in (0, 1), first.stderr
        run_id = next(line for line in first.stderr.splitlines() if "--resume" in line).split("--resume ")[1].split()[0]
        resumed = run("bench", "run", "tomi", "--resume", run_id, "--base-url", server.base_url, "--json")
        assert resumed.returncode == 0, resumed.stderr
        assert server.requests >= 3 and all(h.get("Authorization") == f"Bearer {KEY}" for h in server.headers)
    assert run("report", run_id, "-o", str(out / "report.html")).returncode == 0
    assert run("runs", "export", run_id, "-o", str(out / "export.jsonl")).returncode == 0
    assert run("runs", "export", run_id, "--format", "csv", "-o", str(out / "export.csv")).returncode == 0
    assert run("runs", "--json").returncode == 0
    written = [p for folder in (home, out) for p in folder.rglob("*") if p.is_file()]
    assert {p.name for p in written} >= {"runs.sqlite", "report.html", "export.jsonl", "export.csv"}
    for secret in (KEY, PASSWORD, "PLANTED"):
        assert [p.name for p in written if secret.encode() in p.read_bytes()] == []
        assert not any(secret in text for text in outputs)

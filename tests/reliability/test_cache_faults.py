"""Issue 24, cases 5 (cache side) and 7: the response cache never costs a run its answers.

A cache that cannot be written (a full disk: ``/dev/full``, a write past ``RLIMIT_FSIZE``) is turned off with one
warning and every reply is kept; a damaged one (garbage, a folder, an entry that is not a completion, foreign
tables) is set aside under a timestamped name with one warning, and the run goes on. Real processes, a real fake
server, no privileges.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mindloop.errors import InvalidArgumentError
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer

RUN = ("bench", "run", "tomi", "--agent", "model", "--model", "openai/default", "--format-retries", "0")
REPLY = "B. the kitchen"


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    env.update(MINDLOOP_HOME=str(home), COLUMNS="200")
    code = "import sys\nfrom mindloop.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    return subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )


def warnings_in(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("mindloop: warning:")]


def stored(home: Path) -> list[tuple[str, list[str]]]:
    """Each stored sample's status and the texts of its calls."""
    with sqlite3.connect(home / "runs.sqlite") as conn:
        rows = conn.execute("SELECT status, calls FROM samples ORDER BY rowid").fetchall()
    return [(status, [c["text"] for c in json.loads(calls)]) for status, calls in rows]


def test_a_cache_on_a_full_disk_is_turned_off_and_every_answer_kept(tmp_path: Path) -> None:
    (tmp_path / "cache.sqlite").symlink_to("/dev/full")  # every write: ENOSPC, SQLite's "database or disk is full"
    with FakeChatServer(reply=lambda m, b: REPLY) as server:
        done = cli(tmp_path, *RUN, "--n", "3", "--cache", "on", "--base-url", server.base_url, "--json")
        assert server.requests == 3
    assert done.returncode == 0, done.stderr
    [warning] = warnings_in(done.stderr)
    assert "cache.sqlite cannot be used" in warning and "disk is full" in warning and "without a cache" in warning
    assert json.loads(done.stdout)["n_bugs"] == 0
    assert [texts for _, texts in stored(tmp_path)] == [[REPLY]] * 3
    assert (tmp_path / "cache.sqlite").readlink() == Path("/dev/full")  # full, not damaged: left where it is


_PUT_PAST_THE_LIMIT = """
import asyncio, os, resource, sys
from mindloop.models.base import GenerationConfig, ModelOptions, load_model, message
model = load_model("openai/m", ModelOptions(base_url=sys.argv[1], cache="on", cache_path=sys.argv[2]))
size = os.path.getsize(sys.argv[2])
resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))  # no file may grow past the cache's size now: a full disk
for question in ("one", "two"):
    reply = asyncio.run(model.generate([message("user", question)], GenerationConfig()))
    print(len(reply.text), reply.cached, flush=True)
"""


def test_a_cache_write_past_the_file_size_limit_keeps_the_answer_with_one_warning(tmp_path: Path) -> None:
    with FakeChatServer(reply=lambda m, b: "y" * 100_000) as server:
        done = subprocess.run(
            [sys.executable, "-c", _PUT_PAST_THE_LIMIT, server.base_url, str(tmp_path / "cache.sqlite")],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert server.requests == 2
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["100000", "False", "100000", "False"]
    [warning] = warnings_in(done.stderr)
    assert "cache off for the rest of this run, the model's answers are kept" in warning


def _garbage(path: Path) -> None:
    path.write_bytes(b"this is not a SQLite file\n" * 200)


def _folder(path: Path) -> None:
    path.mkdir()
    (path / "inside.txt").write_text("kept\n")


def _foreign_tables(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE responses (id INTEGER)")


@pytest.mark.parametrize("damage", [_garbage, _folder, _foreign_tables], ids=["garbage", "folder", "foreign-tables"])
def test_a_damaged_cache_is_set_aside_and_the_run_goes_on(tmp_path: Path, damage: object) -> None:
    cache = tmp_path / "cache.sqlite"
    assert callable(damage)
    damage(cache)
    with FakeChatServer(reply=lambda m, b: REPLY) as server:
        done = cli(tmp_path, *RUN, "--n", "3", "--cache", "on", "--base-url", server.base_url)
        assert server.requests == 3
    assert done.returncode == 0, done.stderr
    [warning] = warnings_in(done.stderr)
    aside = sorted(tmp_path.glob("cache.sqlite.damaged-*"))
    assert [p.name for p in aside if not p.name.endswith(("-wal", "-shm"))] == [aside[0].name]
    assert f"set aside as {aside[0].name}" in warning and "the run goes on without it" in warning
    assert [texts for _, texts in stored(tmp_path)] == [[REPLY]] * 3
    if damage is _folder:
        assert (aside[0] / "inside.txt").read_text() == "kept\n"
    assert cache.is_file()  # a fresh cache in its place


def test_a_cache_entry_of_bad_json_sets_the_cache_aside_and_the_answers_come_from_the_server(tmp_path: Path) -> None:
    with FakeChatServer(reply=lambda m, b: REPLY) as server:
        first = cli(tmp_path, *RUN, "--n", "3", "--cache", "on", "--base-url", server.base_url)
        assert first.returncode == 0, first.stderr
        with sqlite3.connect(tmp_path / "cache.sqlite") as conn:
            assert conn.execute("UPDATE responses SET completion = '{not json'").rowcount == 3
        done = cli(tmp_path, *RUN, "--n", "3", "--cache", "on", "--base-url", server.base_url, "--json")
        assert server.requests == 6
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["n_bugs"] == 0
    [warning] = warnings_in(done.stderr)
    assert "is damaged (JSONDecodeError" in warning and "set aside as cache.sqlite.damaged-" in warning
    assert [texts for _, texts in stored(tmp_path)] == [[REPLY]] * 6


def test_a_folder_named_as_the_cache_path_is_refused_by_name(tmp_path: Path) -> None:
    for path in ("/", str(tmp_path), str(tmp_path / "new") + "/"):
        with pytest.raises(InvalidArgumentError, match="is a folder; name a file in it"):
            ModelOptions(cache_path=path)

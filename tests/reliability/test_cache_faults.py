"""Issue 24, cases 5 (cache side) and 7: the response cache never costs a run its answers.

A cache that cannot be written (a full disk: ``/dev/full``, a write past ``RLIMIT_FSIZE``) is turned off with one
warning and every reply is kept; a damaged one (garbage, a folder, an entry that is not a completion, foreign
tables) is set aside under a timestamped name with one warning, and the run goes on. The command line in the test's
process (the ``cli`` fixture), a real fake server, a real ``EFBIG`` (:mod:`tests.reliability.limits`), no
privileges.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from cli_run import Cli

from mindloop.errors import InvalidArgumentError
from mindloop.models import cache as cache_module
from mindloop.models.base import GenerationConfig, ModelOptions, load_model, message
from mindloop.models.fake_server import FakeChatServer

from .limits import file_size_limit

RUN = ("bench", "run", "tomi", "--agent", "model", "--model", "openai/default", "--format-retries", "0")
REPLY = "B. the kitchen"


@pytest.fixture(autouse=True)
def _fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a new process starts with: no OpenAI variables from the caller's shell, and no cache warning given
    yet (each is printed once per process)."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(cache_module, "_warned", set())


def warnings_in(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("mindloop: warning:")]


def stored(home: Path) -> list[tuple[str, list[str]]]:
    """Each stored sample's status and the texts of its calls."""
    with sqlite3.connect(home / "runs.sqlite") as conn:
        rows = conn.execute("SELECT status, calls FROM samples ORDER BY rowid").fetchall()
    return [(status, [c["text"] for c in json.loads(calls)]) for status, calls in rows]


def test_a_cache_on_a_full_disk_is_turned_off_and_every_answer_kept(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "cache.sqlite").symlink_to("/dev/full")  # every write: ENOSPC, SQLite's "database or disk is full"
    with FakeChatServer(reply=lambda m, b: REPLY) as server:
        done = cli(*RUN, "--n", "3", "--cache", "on", "--base-url", server.base_url, "--json", home=tmp_path)
        assert server.requests == 3
    assert done.code == 0, done.stderr
    [warning] = warnings_in(done.err)
    assert "cache.sqlite cannot be used" in warning and "disk is full" in warning and "without a cache" in warning
    assert json.loads(done.out)["n_bugs"] == 0
    assert [texts for _, texts in stored(tmp_path)] == [[REPLY]] * 3
    assert (tmp_path / "cache.sqlite").readlink() == Path("/dev/full")  # full, not damaged: left where it is


def test_a_cache_write_past_the_file_size_limit_keeps_the_answer_with_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cache.sqlite"
    with FakeChatServer(reply=lambda m, b: "y" * 100_000) as server:
        model = load_model("openai/m", ModelOptions(base_url=server.base_url, cache="on", cache_path=str(path)))
        replies = []
        with file_size_limit(path.stat().st_size):  # no file may grow past the cache's size now: a full disk
            for question in ("one", "two"):
                reply = asyncio.run(model.generate([message("user", question)], GenerationConfig()))
                replies.append((len(reply.text), reply.cached))
        assert server.requests == 2
    assert replies == [(100_000, False), (100_000, False)]
    [warning] = warnings_in(capsys.readouterr().err.splitlines())
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
def test_a_damaged_cache_is_set_aside_and_the_run_goes_on(cli: Cli, tmp_path: Path, damage: object) -> None:
    cache = tmp_path / "cache.sqlite"
    assert callable(damage)
    damage(cache)
    with FakeChatServer(reply=lambda m, b: REPLY) as server:
        done = cli(*RUN, "--n", "3", "--cache", "on", "--base-url", server.base_url, home=tmp_path)
        assert server.requests == 3
    assert done.code == 0, done.stderr
    [warning] = warnings_in(done.err)
    aside = sorted(tmp_path.glob("cache.sqlite.damaged-*"))
    assert [p.name for p in aside if not p.name.endswith(("-wal", "-shm"))] == [aside[0].name]
    assert f"set aside as {aside[0].name}" in warning and "the run goes on without it" in warning
    assert [texts for _, texts in stored(tmp_path)] == [[REPLY]] * 3
    if damage is _folder:
        assert (aside[0] / "inside.txt").read_text() == "kept\n"
    assert cache.is_file()  # a fresh cache in its place


def test_a_cache_entry_of_bad_json_sets_the_cache_aside_and_the_answers_come_from_the_server(
    cli: Cli, tmp_path: Path
) -> None:
    with FakeChatServer(reply=lambda m, b: REPLY) as server:
        first = cli(*RUN, "--n", "3", "--cache", "on", "--base-url", server.base_url, home=tmp_path)
        assert first.code == 0, first.stderr
        with sqlite3.connect(tmp_path / "cache.sqlite") as conn:
            assert conn.execute("UPDATE responses SET completion = '{not json'").rowcount == 3
        done = cli(*RUN, "--n", "3", "--cache", "on", "--base-url", server.base_url, "--json", home=tmp_path)
        assert server.requests == 6
    assert done.code == 0, done.stderr
    assert json.loads(done.out)["n_bugs"] == 0
    [warning] = warnings_in(done.err)
    assert "is damaged (JSONDecodeError" in warning and "set aside as cache.sqlite.damaged-" in warning
    assert [texts for _, texts in stored(tmp_path)] == [[REPLY]] * 6


def test_a_folder_named_as_the_cache_path_is_refused_by_name(tmp_path: Path) -> None:
    for path in ("/", str(tmp_path), str(tmp_path / "new") + "/"):
        with pytest.raises(InvalidArgumentError, match="is a folder; name a file in it"):
            ModelOptions(cache_path=path)

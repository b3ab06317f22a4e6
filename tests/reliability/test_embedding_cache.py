"""The embedding cache (issue 39) under faults: a damaged file, two runs at once, a full disk, and its bound.

The cache never costs a run its scores: a damaged file is set aside under a timestamped name with one warning (a
fresh one made when it is found at open; the run goes on without it when found later), one that cannot be written
is left alone with one warning, and two processes share one file. Real processes and files, no privileges: a
full disk is ``/dev/full`` or ``RLIMIT_FSIZE`` in a child (as ``test_cache_faults.py`` and ``test_full_disk.py``).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mindloop.metrics.embedding_cache import EmbeddingCache

DIM = 4


def rows(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """``n`` entries of 1 to 5 tokens each, keyed ``k0``, ``k1``, ..."""
    rng = np.random.default_rng(seed)
    return {f"k{i}": rng.standard_normal((1 + i % 5, DIM)).astype(np.float32) for i in range(n)}


def warnings_in(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("mindloop: warning:")]


def test_entries_come_back_as_stored_and_the_oldest_go_beyond_the_bound(tmp_path: Path) -> None:
    entries = rows(20)
    nbytes = [v.nbytes for v in entries.values()]
    cache = EmbeddingCache(tmp_path / "e.sqlite", max_bytes=sum(nbytes[-5:]))
    for key, value in entries.items():  # one write each, oldest first
        cache.put({key: value})
    got = cache.get(list(entries), DIM)
    assert sorted(got) == sorted(list(entries)[-5:])  # the newest five fill the bound exactly
    assert all(np.array_equal(got[k], entries[k]) for k in got)
    with sqlite3.connect(cache.path) as conn:
        assert conn.execute("SELECT SUM(length(data)) FROM embeddings").fetchone()[0] == sum(nbytes[-5:])
    cache.put({"k19": np.zeros((2, DIM), dtype=np.float32)})  # a key stored already keeps its value
    assert np.array_equal(cache.get(["k19"], DIM)["k19"], entries["k19"])


@pytest.mark.parametrize("damage", ["garbage", "folder", "foreign tables"])
def test_a_damaged_file_is_set_aside_at_open_and_a_fresh_one_made(
    tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "embeddings.sqlite"
    if damage == "garbage":
        path.write_bytes(b"not a database\n" * 100)
    elif damage == "folder":
        path.mkdir()
    else:
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE embeddings (something TEXT)")
    cache = EmbeddingCache.open(path)
    assert cache is not None and cache.path == path
    [warning] = warnings_in(capsys.readouterr().err)
    assert "embedding cache" in warning and "is damaged" in warning
    assert "set aside as embeddings.sqlite.damaged-" in warning
    assert len(list(tmp_path.glob("embeddings.sqlite.damaged-*"))) == 1
    cache.put(rows(3))
    assert len(cache.get(list(rows(3)), DIM)) == 3


def test_an_entry_of_the_wrong_size_turns_the_cache_off_and_sets_it_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "embeddings.sqlite"
    cache = EmbeddingCache(path)
    cache.put(rows(3))
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE embeddings SET data = x'00' WHERE key = 'k1'")
    assert cache.get(list(rows(3)), DIM) == {}  # nothing read from a file that holds a bad entry
    assert cache.off is not None and "k1" in cache.off
    [warning] = warnings_in(capsys.readouterr().err)
    assert "is damaged" in warning and not path.exists()
    cache.put(rows(3))  # off: no further use, no further warning
    assert cache.get(["k0"], DIM) == {} and warnings_in(capsys.readouterr().err) == []


def test_a_cache_on_a_full_disk_is_left_alone_with_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "embeddings.sqlite"
    path.symlink_to("/dev/full")  # every write: ENOSPC
    assert EmbeddingCache.open(path) is None
    [warning] = warnings_in(capsys.readouterr().err)
    assert "embedding cache" in warning and "cannot be used" in warning and "without a cache" in warning
    assert path.readlink() == Path("/dev/full")  # full, not damaged: left where it is


_WRITER = """
import os, resource, sys
import numpy as np
from mindloop.metrics.embedding_cache import EmbeddingCache
cache = EmbeddingCache(sys.argv[1])
cache.put({"small": np.zeros((1, 4), dtype=np.float32)})
if sys.argv[2] == "limit":
    size = os.path.getsize(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))  # no file may grow past the cache's size: a full disk
big = {f"big{i}": np.ones((512, 4), dtype=np.float32) for i in range(int(sys.argv[3]))}
cache.put(big)
found = cache.get(["small", *big], 4)
print(len(found), cache.off is not None, flush=True)
"""


def _writer(path: Path, mode: str, n: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path), mode, str(n)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )


@pytest.mark.boundary
def test_a_write_past_the_file_size_limit_turns_the_cache_off_with_one_warning(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.sqlite"
    out, err = _writer(path, "limit", 50).communicate(timeout=120)
    assert out.split() == ["0", "True"]  # off after the failed write: nothing more read or written
    [warning] = warnings_in(err)
    assert "failed" in warning and "cache off for the rest of this run" in warning and "computed instead" in warning
    assert path.exists() and not list(tmp_path.glob("*.damaged-*"))  # full, not damaged
    assert EmbeddingCache(path).get(["small"], 4)  # what was written before is intact


@pytest.mark.boundary
def test_two_runs_share_one_cache_at_once(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.sqlite"
    EmbeddingCache(path)  # made once, as a run's open does, before both write the same keys
    both = [_writer(path, "plain", 200), _writer(path, "plain", 200)]
    results = [p.communicate(timeout=300) for p in both]
    for out, err in results:
        assert out.split() == ["201", "False"] and warnings_in(err) == []
    assert EmbeddingCache(path).get(["small", "big0", "big199"], 4).keys() == {"small", "big0", "big199"}
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0] == 201

"""Token embeddings of reference texts kept between runs, in ``embeddings.sqlite`` under ``MINDLOOP_HOME``.

A benchmark's gold texts are the same in every run (the 708 MindPower scenarios' six layers: ~165k tokens, ~254 MB
of float32), so their token embeddings are encoded once and read back after. An entry is keyed by the SHA-256 of
the encoder's identity (its weights, libraries, device and padding rule: :attr:`MiniLMEncoder.identity`) and the
text, and holds the float32 rows as bytes. It is the response cache's kind of file
(:class:`~mindloop.models.cache.SQLiteCache`): WAL mode and a busy timeout, so concurrent runs share it (a text
two runs encode at once is stored once, ``INSERT OR IGNORE``, and both encode the same bytes); a connection per
operation, and reads through SQLite's memory map (``PRAGMA mmap_size``), mapped only while a read lasts.

It is bounded: after each write the oldest entries beyond ``max_bytes`` (1 GiB by default) are deleted, and SQLite
reuses their pages, so the file stays near that size. It never costs a run its scores: a damaged file (not SQLite,
foreign tables, an entry of the wrong size) is set aside as ``embeddings.sqlite.damaged-<UTC timestamp>`` with
one warning and a fresh one is made at open, or the run goes on without it when the damage shows during the run;
one that cannot be written (a full disk) is left alone with one warning. Either way the embeddings are computed
instead, and they are the same numbers. The response cache's switch turns it off (``--cache off``).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mindloop.models.cache import SQLiteCache
from mindloop.paths import home

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

MAX_BYTES = 1 << 30
"""The default bound on the stored embeddings' bytes (1 GiB: four times the 708 MindPower scenarios' gold layers)."""
_MMAP_BYTES = 0x7FFF0000  # SQLite's own ceiling on a memory map


def embedding_key(identity: str, text: str) -> str:
    """The cache key of ``text``'s token embeddings from the encoder ``identity`` (a SHA-256 hex digest)."""
    return hashlib.sha256(f"{identity}\n{text}".encode("utf-8", errors="surrogatepass")).hexdigest()


class EmbeddingCache(SQLiteCache):
    """Token embeddings (``(tokens, dim)`` float32) by key; ``off`` says why the cache stopped, once it has failed."""

    kind = "embedding cache"
    without = "the embeddings are computed instead"
    schema = "CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, tokens INTEGER NOT NULL, data BLOB NOT NULL)"
    probe = "SELECT key, tokens, data FROM embeddings LIMIT 0"

    def __init__(self, path: str | Path | None = None, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self.off: str | None = None
        super().__init__(path)

    @classmethod
    def default_path(cls) -> Path:
        """``embeddings.sqlite`` under ``MINDLOOP_HOME``."""
        return home() / "embeddings.sqlite"

    def get(self, keys: Sequence[str], dim: int) -> dict[str, NDArray[np.float32]]:
        """The stored embeddings of those ``keys`` that are stored (none once the cache is off)."""
        import numpy as np

        if self.off is not None or not keys:
            return {}
        out: dict[str, NDArray[np.float32]] = {}
        try:
            with self._connect() as conn:
                conn.execute(f"PRAGMA mmap_size={_MMAP_BYTES}")
                for start in range(0, len(keys), 500):  # within SQLite's limit on bound parameters
                    part = keys[start : start + 500]
                    query = f"SELECT key, tokens, data FROM embeddings WHERE key IN ({','.join('?' * len(part))})"
                    for key, tokens, data in conn.execute(query, part):
                        if not isinstance(data, bytes) or not isinstance(tokens, int) or len(data) != 4 * tokens * dim:
                            raise ValueError(f"entry {key[:12]} is not {tokens} x {dim} float32 values")
                        out[key] = np.frombuffer(data, dtype="<f4").reshape(tokens, dim)
        except (sqlite3.Error, OSError, ValueError) as exc:
            self.off = self.failed(exc)
            return {}
        return out

    def put(self, entries: Mapping[str, NDArray[np.float32]]) -> None:
        """Store ``entries`` (a key stored already keeps its value), then drop the oldest beyond ``max_bytes``."""
        if self.off is not None or not entries:
            return
        rows = [(key, len(value), value.astype("<f4").tobytes()) for key, value in entries.items()]
        try:
            with self._connect() as conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany("INSERT OR IGNORE INTO embeddings (key, tokens, data) VALUES (?, ?, ?)", rows)
                conn.execute(
                    "DELETE FROM embeddings WHERE rowid IN (SELECT rowid FROM (SELECT rowid, SUM(length(data)) "
                    "OVER (ORDER BY rowid DESC) AS kept FROM embeddings) WHERE kept > ?)",
                    (self.max_bytes,),
                )
                conn.execute("COMMIT")
        except (sqlite3.Error, OSError) as exc:
            self.off = self.failed(exc)

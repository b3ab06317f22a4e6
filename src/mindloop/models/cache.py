"""A SQLite response cache that any backend can sit behind, shared safely by threads, processes and Ray workers.

The key is the SHA-256 of the canonical JSON of the model string, the messages and the sampling parameters, so
a change to any of them is a miss. The file uses WAL mode and a busy timeout, and every operation opens its own
short-lived connection: nothing is shared across threads or inherited across ``fork``, and a cache object
pickles as just its path.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, get_args

from mindloop.errors import InvalidArgumentError
from mindloop.models.chat import CacheMode, ChatModel, Completion, GenerationConfig, Message
from mindloop.paths import cache_path

__all__ = ["CachedChatModel", "ResponseCache", "cache_key"]

_BUSY_TIMEOUT_S = 60.0
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    completion TEXT NOT NULL,
    created REAL NOT NULL
)
"""
_COMPLETION_FIELDS = frozenset(f.name for f in dataclasses.fields(Completion))


def cache_key(model: str, messages: Sequence[Message], params: Mapping[str, Any]) -> str:
    """The SHA-256 hex digest of the canonical JSON of ``{model, messages, params}``.

    >>> cache_key("openai/m", [{"role": "user", "content": "hi"}], {"temperature": 0.0})[:12]
    '3846934376aa'
    """
    canonical = json.dumps(
        {"model": model, "messages": list(messages), "params": dict(params)},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """Completions by key in one SQLite file (default: ``cache.sqlite`` under ``MINDLOOP_HOME``)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path).expanduser() if path is not None else cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.path)!r})"

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection for one operation, committed on success and always closed."""
        conn = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout={int(_BUSY_TIMEOUT_S * 1000)}")
            yield conn
        finally:
            conn.close()

    def get(self, key: str) -> Completion | None:
        """The stored completion for ``key`` (as it was stored, ``cached=False``), or ``None``."""
        with self._connect() as conn:
            row = conn.execute("SELECT completion FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        data = json.loads(row[0])
        return Completion(**{k: v for k, v in data.items() if k in _COMPLETION_FIELDS})

    def put(self, key: str, completion: Completion) -> None:
        """Store ``completion`` under ``key`` (a later put for the same key replaces it)."""
        payload = json.dumps(asdict(replace(completion, cached=False)), ensure_ascii=False)
        with self._connect() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO responses (key, model, completion, created) VALUES (?, ?, ?, ?)",
                (key, completion.model, payload, time.time()),
            )

    def clear(self) -> int:
        """Delete every entry; returns how many there were."""
        with self._connect() as conn:
            return conn.execute("DELETE FROM responses").rowcount

    def __len__(self) -> int:
        with self._connect() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])


class CachedChatModel:
    """Wraps a model with a :class:`ResponseCache`; ``mode`` ``auto`` caches temperature-0 calls, ``on`` all.

    A hit returns the stored completion with ``cached=True`` and ``latency_s`` set to the lookup time, read from
    ``clock`` (``time.perf_counter`` unless a test injects one). ``hits`` and ``misses`` count cacheable calls;
    failed calls are never stored.
    """

    def __init__(
        self,
        inner: ChatModel,
        cache: ResponseCache,
        mode: CacheMode = "auto",
        *,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if mode not in get_args(CacheMode):
            raise InvalidArgumentError(f"cache mode {mode!r} is not one of {', '.join(get_args(CacheMode))}")
        self.inner = inner
        self.cache = cache
        self.mode = mode
        self._clock = clock
        self.hits = 0
        self.misses = 0

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self.inner.name

    def __repr__(self) -> str:
        return f"CachedChatModel({self.inner!r}, {self.cache!r}, mode={self.mode!r})"

    def cacheable(self, config: GenerationConfig) -> bool:
        """Whether a call with ``config`` goes through the cache under this mode."""
        return self.mode == "on" or (self.mode == "auto" and config.temperature == 0)

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        """Answer from the cache when allowed and present, else from the wrapped model (storing the reply)."""
        config = config or GenerationConfig()
        if not self.cacheable(config):
            return await self.inner.generate(messages, config)
        start = self._clock()
        key = cache_key(self.inner.name, messages, config.params())
        stored = await asyncio.to_thread(self.cache.get, key)
        if stored is not None:
            self.hits += 1
            return replace(stored, cached=True, latency_s=self._clock() - start)
        self.misses += 1
        reply = await self.inner.generate(messages, config)
        await asyncio.to_thread(self.cache.put, key, reply)
        return reply

    async def aclose(self) -> None:
        """Close the wrapped model."""
        await self.inner.aclose()

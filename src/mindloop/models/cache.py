"""A SQLite response cache that any backend can sit behind, shared safely by threads, processes and Ray workers.

The key is the SHA-256 of the canonical JSON of the model string, the messages, the sampling parameters and the
backend's scope (``cache_scope``: the resolved endpoint for ``openai``, normalised and without credentials; the
model file and its reply-changing options for ``llamacpp``), so a change to any of them is a miss: two servers
answering under one model name never share replies, and entries written before the scope was part of the key are
never served. The file uses WAL mode and a busy timeout, and every operation opens its own short-lived
connection: nothing is shared across threads or inherited across ``fork``, and a cache object pickles as just its
path.

The cache never costs a run its answers. A cache that cannot be written (a full disk, a read-only file) is turned
off for the rest of the run with one warning, and the model's reply is kept; a damaged one (not SQLite, a folder,
an entry that is not a completion) is set aside, renamed ``cache.sqlite.damaged-<UTC timestamp>``, with one warning,
and the run goes on without it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Self, get_args

from mindloop.errors import InvalidArgumentError, printable
from mindloop.models.chat import CacheMode, ChatModel, Completion, GenerationConfig, Message
from mindloop.paths import cache_path

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


def cache_key(
    model: str, messages: Sequence[Message], params: Mapping[str, Any], scope: Mapping[str, Any] | None = None
) -> str:
    """The SHA-256 hex digest of the canonical JSON of ``{model, messages, params}``, and of ``scope`` (what else
    changes a reply: the backend, its endpoint and options) when one is given.

    >>> cache_key("openai/m", [{"role": "user", "content": "hi"}], {"temperature": 0.0})[:12]
    '3846934376aa'
    >>> a = cache_key("openai/m", [], {}, {"backend": "openai", "endpoint": "http://a/v1"})
    >>> a == cache_key("openai/m", [], {}, {"backend": "openai", "endpoint": "http://b/v1"})
    False
    """
    data: dict[str, Any] = {"model": model, "messages": list(messages), "params": dict(params)}
    if scope:
        data["scope"] = dict(scope)
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _cache_scope(model: ChatModel) -> dict[str, Any]:
    """What besides the model string, the messages and the sampling settings changes ``model``'s replies: its own
    ``cache_scope`` (the endpoint, the model file and options), else just its backend."""
    scope = getattr(model, "cache_scope", None)
    return dict(scope) if isinstance(scope, Mapping) else {"backend": model.name.partition("/")[0]}


_warned: set[str] = set()


def _warn(message: str) -> None:
    """One ``mindloop: warning:`` line on stderr, once per process for each message."""
    if message not in _warned:
        _warned.add(message)
        print(f"mindloop: warning: {printable(message)}", file=sys.stderr, flush=True)


_DAMAGED = frozenset({"SQLITE_NOTADB", "SQLITE_CORRUPT", "SQLITE_CORRUPT_VTAB", "SQLITE_CORRUPT_SEQUENCE"})


def _damaged(exc: BaseException) -> bool:
    """Whether ``exc`` says the cache file itself is damaged (not SQLite, corrupt, wrong tables or a bad entry),
    as opposed to unusable for now (a full disk, a read-only file, a lock)."""
    if isinstance(exc, ValueError | TypeError | KeyError | RecursionError):  # an entry that is not a completion
        return True
    if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
        return True
    name = getattr(exc, "sqlite_errorname", "")
    return name in _DAMAGED or "no such table" in str(exc) or "no such column" in str(exc)


def _set_aside(path: Path, why: str, kind: str = "response cache") -> Path | None:
    """Rename a damaged cache (and its WAL files) to ``<name>.damaged-<UTC timestamp>`` with one warning; returns
    the new path (``path`` itself when another process moved it first; ``None`` when it could not be moved, also said
    in the warning)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    try:
        path.rename(target)
    except FileNotFoundError:  # another worker of the same run set it aside first (and warned)
        return path
    except OSError as exc:
        _warn(
            f"the {kind} {path} is damaged ({why}) and cannot be set aside ({exc.strerror or exc}); "
            "this run goes on without a cache"
        )
        return None
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(OSError):
            path.with_name(path.name + suffix).rename(target.with_name(target.name + suffix))
    _warn(f"the {kind} {path} is damaged ({why}); set aside as {target.name}, and the run goes on without it")
    return target


def _why(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:160]}"


class SQLiteCache:
    """A cache in one SQLite file: WAL mode, a busy timeout and a short-lived connection for every operation, so
    nothing is shared across threads or inherited across ``fork`` and an object pickles as just its path. A
    subclass names its ``kind`` (for messages), its ``schema`` and a ``probe`` query that a file of other tables
    fails, and its :meth:`default_path` under ``MINDLOOP_HOME``."""

    kind = "cache"
    schema = ""
    probe = "SELECT 1"
    without = "the results are kept"
    """What a run without the cache keeps, for the warning when it fails in use."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path).expanduser() if path is not None else self.default_path()
        if self.path.is_dir():
            raise InvalidArgumentError(f"{self.kind} {str(self.path)!r} is a folder, not a file")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InvalidArgumentError(
                f"cannot create the {self.kind}'s folder {str(self.path.parent)!r}: {exc.strerror or exc}"
            ) from None
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(self.schema)
            conn.execute(self.probe)

    @classmethod
    def default_path(cls) -> Path:
        """Where the cache lives when no path is given."""
        return cache_path()

    @classmethod
    def open(cls, path: str | Path | None = None) -> Self | None:
        """The cache at ``path``, or ``None`` (with one warning) when it cannot be used: a damaged one is set aside
        first and a fresh one made in its place; one that cannot be written (a full disk, no permission) is left
        alone and the run goes uncached."""
        where = Path(path).expanduser() if path is not None else cls.default_path()
        for _ in range(2):
            try:
                return cls(where)
            except (sqlite3.Error, OSError, InvalidArgumentError) as exc:
                if (where.is_dir() or _damaged(exc)) and where.name and _set_aside(where, _why(exc), cls.kind):
                    continue  # try once more, with a fresh file
                if not _damaged(exc) and not where.is_dir():
                    _warn(f"the {cls.kind} {where} cannot be used ({_why(exc)}); this run goes on without a cache")
                return None
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection for one operation, committed on success and always closed."""
        conn = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout={int(_BUSY_TIMEOUT_S * 1000)}")
            yield conn
        finally:
            conn.close()

    def failed(self, exc: BaseException) -> str:
        """Say once that the cache failed in use (``exc``) and will not be used again this run: a damaged one is set
        aside, one that cannot be written is left where it is. Returns the reason."""
        why = _why(exc)
        if _damaged(exc) or self.path.is_dir():
            _set_aside(self.path, why, self.kind)
        else:
            _warn(f"the {self.kind} {self.path} failed ({why}); cache off for the rest of this run, {self.without}")
        return why


class ResponseCache(SQLiteCache):
    """Completions by key in one SQLite file (default: ``cache.sqlite`` under ``MINDLOOP_HOME``)."""

    kind = "response cache"
    without = "the model's answers are kept"
    schema = _SCHEMA
    probe = "SELECT key, model, completion, created FROM responses LIMIT 0"

    def get(self, key: str) -> Completion | None:
        """The stored completion for ``key`` (as it was stored, ``cached=False``), or ``None``."""
        with self._connect() as conn:
            row = conn.execute("SELECT completion FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        data = json.loads(row[0])
        if not isinstance(data, dict) or not isinstance(data.get("text"), str):
            raise ValueError(f"entry {key[:12]} is not a stored completion")
        return Completion(**{k: v for k, v in data.items() if k in _COMPLETION_FIELDS})

    def put(self, key: str, completion: Completion) -> None:
        """Store ``completion`` under ``key`` (a later put for the same key replaces it)."""
        payload = json.dumps(asdict(replace(completion, cached=False)), ensure_ascii=True)
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
    failed calls are never stored. When the cache fails (it cannot be written, or it is damaged) the model goes on
    uncached (``off`` is set) with one warning, and no reply is lost.
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
        self._scope = _cache_scope(inner)
        self.hits = 0
        self.misses = 0
        self.off: str | None = None
        """Why the cache was turned off for the rest of this model's life (``None`` while it is in use)."""

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
        if self.off is not None or not self.cacheable(config):
            return await self.inner.generate(messages, config)
        start = self._clock()
        key = cache_key(self.inner.name, messages, config.params(), self._scope)
        try:
            stored = await asyncio.to_thread(self.cache.get, key)
        except Exception as exc:
            self._turn_off(exc)
            stored = None
        if stored is not None:
            self.hits += 1
            return replace(stored, cached=True, latency_s=self._clock() - start)
        self.misses += 1
        reply = await self.inner.generate(messages, config)
        if self.off is None:
            try:
                await asyncio.to_thread(self.cache.put, key, reply)
            except (sqlite3.Error, OSError, ValueError) as exc:
                self._turn_off(exc)
        return reply

    def _turn_off(self, exc: BaseException) -> None:
        """Stop using the cache after it failed: a damaged one is set aside; either way one warning."""
        if self.off is None:
            self.off = self.cache.failed(exc)

    async def aclose(self) -> None:
        """Close the wrapped model."""
        await self.inner.aclose()

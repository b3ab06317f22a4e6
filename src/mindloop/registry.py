"""One registry type for environments, agents, benchmarks, model backends and metrics.

Entries are either objects or lazy ``"package.module:attr"`` strings, imported on first use so that optional
dependencies are only needed by the entries that use them. A registry may also read a package entry-point group
(``[project.entry-points."mindloop.benchmarks"]`` and so on): any installed distribution adds entries there
without editing mindloop. mindloop's own entries are ``built_in`` (a table of lazy targets), so looking one up reads
no entry points: they are read (``importlib.metadata``, a tenth of a second of a command's start-up) only for a name
that is not built in, and for a listing. Registering a name twice is an error, and looking up an unknown name
suggests the closest registered names.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from mindloop.errors import RegistryError, UnknownNameError

__all__ = ["Registry", "RegistryEntry"]

T = TypeVar("T")


@dataclass(frozen=True)
class RegistryEntry(Generic[T]):
    """A registered name: its target (an object or a lazy ``"module:attr"`` string) and a one-line description."""

    name: str
    target: T | str
    description: str = ""


class Registry(Generic[T]):
    """A named collection of things of one kind (``kind`` is used in error messages).

    >>> r: Registry[object] = Registry("metric")
    >>> r.register("len", len, description="length")
    >>> r.get("len") is len
    True
    >>> r.get("lne")
    Traceback (most recent call last):
    ...
    mindloop.errors.UnknownNameError: unknown metric 'lne'; did you mean 'len'? (known: len)
    """

    def __init__(
        self, kind: str, *, entry_point_group: str | None = None, built_in: Mapping[str, str] | None = None
    ) -> None:
        self.kind = kind
        self.entry_point_group = entry_point_group
        self._entries: dict[str, RegistryEntry[T]] = {}
        self._loaded: dict[str, T] = {}
        self._scanned = entry_point_group is None
        for name, target in (built_in or {}).items():
            self.register(name, target, description="from mindloop")

    def _scan(self) -> None:
        """Register the entry points of ``entry_point_group`` (once, on first use; names already taken win)."""
        if self._scanned:
            return
        self._scanned = True
        assert self.entry_point_group is not None
        import importlib.metadata  # here: a built-in name never needs it

        for ep in importlib.metadata.entry_points(group=self.entry_point_group):
            if ep.name not in self._entries:
                self.register(ep.name, ep.value, description=f"from {ep.dist.name if ep.dist else 'an entry point'}")

    def register(self, name: str, target: T | str, *, description: str = "") -> None:
        """Add ``name``; ``target`` is the object or a lazy ``"module:attr"`` import path."""
        if not name or name != name.strip():
            raise RegistryError(f"invalid {self.kind} name {name!r}: it must be non-empty without outer spaces")
        if name in self._entries:
            raise RegistryError(f"{self.kind} {name!r} is already registered")
        if isinstance(target, str) and ":" not in target:
            raise RegistryError(f"lazy target for {self.kind} {name!r} must look like 'module:attr', got {target!r}")
        self._entries[name] = RegistryEntry(name, target, description)

    def get(self, name: str) -> T:
        """Return the target for ``name``, importing it on first use."""
        if name in self._loaded:
            return self._loaded[name]
        entry = self._lookup(name)
        target = entry.target
        if isinstance(target, str):
            module_name, _, attr = target.partition(":")
            try:
                module = importlib.import_module(module_name)
            except ImportError as exc:
                raise RegistryError(f"{self.kind} {name!r}: cannot import {module_name!r} ({exc})") from exc
            try:
                value = cast(T, getattr(module, attr))
            except AttributeError as exc:
                raise RegistryError(f"{self.kind} {name!r}: {module_name!r} has no attribute {attr!r}") from exc
        else:
            value = target
        self._loaded[name] = value
        return value

    def describe(self, name: str) -> str:
        """The one-line description given at registration."""
        return self._lookup(name).description

    def _lookup(self, name: str) -> RegistryEntry[T]:
        """The entry of ``name``, reading the entry points only when it is not registered already."""
        if name not in self._entries:
            self._scan()
        entry = self._entries.get(name)
        if entry is None:
            raise UnknownNameError(self._unknown_message(name))
        return entry

    def names(self) -> list[str]:
        """Registered names, sorted."""
        self._scan()
        return sorted(self._entries)

    def entries(self) -> list[RegistryEntry[T]]:
        """Registered entries, sorted by name."""
        return [self._entries[n] for n in self.names()]

    def __contains__(self, name: object) -> bool:
        if name not in self._entries:
            self._scan()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        self._scan()
        return len(self._entries)

    def _unknown_message(self, name: str) -> str:
        known = self.names()
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        listing = ", ".join(known) if known else "none registered"
        return f"unknown {self.kind} {name!r}{hint} (known: {listing})"

"""One registry type for environments, agents, benchmarks, model backends and metrics.

Entries are either objects or lazy ``"package.module:attr"`` strings, imported on first use so that optional
dependencies are only needed by the entries that use them. A registry may also read a package entry-point group
(``[project.entry-points."mindloop.benchmarks"]`` and so on): every installed distribution, mindloop's own systems
and third-party packages alike, adds entries there without editing mindloop. A lookup reads the group's entries
of its own ``distribution`` first (one small file: mindloop's own systems), and every distribution's (one file
each) only for a name that is not there, or for a listing. Registering a name twice is an error, and looking up an
unknown name suggests the closest registered names.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from mindloop.errors import RegistryError, UnknownNameError, did_you_mean

_T = TypeVar("_T")


@dataclass(frozen=True)
class RegistryEntry(Generic[_T]):
    """A registered name: its target (an object or a lazy ``"module:attr"`` string) and a one-line description."""

    name: str
    target: _T | str
    description: str = ""


class Registry(Generic[_T]):
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

    def __init__(self, kind: str, *, entry_point_group: str | None = None, distribution: str | None = None) -> None:
        self.kind = kind
        self.entry_point_group = entry_point_group
        self.distribution = distribution
        self._entries: dict[str, RegistryEntry[_T]] = {}
        self._loaded: dict[str, _T] = {}
        self._scanned = entry_point_group is None
        self._own_read = distribution is None

    def _scan(self, own: bool = False) -> None:
        """Register the entry points of ``entry_point_group``: those of the registry's own distribution (``own``),
        else every distribution's (each once, on first use; names already taken win)."""
        if self._scanned or (own and self._own_read):
            return
        self._own_read, self._scanned = True, not own
        group, distribution = self.entry_point_group, self.distribution
        assert group is not None and (distribution is not None or not own)
        import importlib.metadata  # here: a name registered in code never needs it

        try:
            found = (
                importlib.metadata.distribution(distribution).entry_points.select(group=group)
                if distribution is not None and own
                else importlib.metadata.entry_points(group=group)
            )
        except importlib.metadata.PackageNotFoundError:  # run from a source tree that is not installed
            found = importlib.metadata.EntryPoints()
        for ep in found:
            if ep.name not in self._entries:
                self.register(ep.name, ep.value, description=f"from {ep.dist.name if ep.dist else 'an entry point'}")

    def register(self, name: str, target: _T | str, *, description: str = "") -> None:
        """Add ``name``; ``target`` is the object or a lazy ``"module:attr"`` import path."""
        if not name or name != name.strip():
            raise RegistryError(f"invalid {self.kind} name {name!r}: it must be non-empty without outer spaces")
        if name in self._entries:
            raise RegistryError(f"{self.kind} {name!r} is already registered")
        if isinstance(target, str) and ":" not in target:
            raise RegistryError(f"lazy target for {self.kind} {name!r} must look like 'module:attr', got {target!r}")
        self._entries[name] = RegistryEntry(name, target, description)

    def get(self, name: str) -> _T:
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
                value = cast(_T, getattr(module, attr))
            except AttributeError as exc:
                raise RegistryError(f"{self.kind} {name!r}: {module_name!r} has no attribute {attr!r}") from exc
        else:
            value = target
        self._loaded[name] = value
        return value

    def describe(self, name: str) -> str:
        """The one-line description given at registration."""
        return self._lookup(name).description

    def _lookup(self, name: str) -> RegistryEntry[_T]:
        """The entry of ``name``, reading entry points only when it is not registered already."""
        self._find(name)
        entry = self._entries.get(name)
        if entry is None:
            raise UnknownNameError(self._unknown_message(name))
        return entry

    def names(self) -> list[str]:
        """Registered names, sorted."""
        self._scan()
        return sorted(self._entries)

    def entries(self) -> list[RegistryEntry[_T]]:
        """Registered entries, sorted by name."""
        return [self._entries[n] for n in self.names()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._find(name)

    def _find(self, name: str) -> bool:
        """Whether ``name`` is registered, reading the own distribution's entry points, then everyone's, until it is."""
        for own in (True, False):
            if name not in self._entries:
                self._scan(own)
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        self._scan()
        return len(self._entries)

    def _unknown_message(self, name: str) -> str:
        known = self.names()
        listing = ", ".join(known) if known else "none registered"
        return f"unknown {self.kind} {name!r}{did_you_mean(name, known, n=3)} (known: {listing})"

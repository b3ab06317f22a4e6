"""Dataclass records written as JSON data and read back field by field, each field as its annotation says.

A record class derives from :class:`Record` and gets ``to_dict``/``from_dict``. A field annotated ``str``, ``int``,
``bool``, ``str | None``, ``int | None`` or ``dict[str, str]`` is written as itself (``Any`` and ``dict[str, Any]``
unconverted); ``tuple[X, ...]`` as a list of ``X``; an enum as its value; a record class (named in the record's
module) as its ``to_dict``. A record class gives the codecs of its other annotations in ``CODECS``, and a field
may give its own codec in its metadata (``{"codec": (write, read)}``, or :func:`rows`). Each class's plan is
computed once (cached). A record class that names its ``KIND`` reads a bad record as one
:class:`~mindloop.errors.InvalidArgumentError` (:func:`not_a`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import MISSING, fields
from enum import Enum
from functools import cache
from typing import Any, ClassVar, Self, cast

from mindloop.errors import InvalidArgumentError

Codec = tuple[Callable[[Any], Any], Callable[[Any], Any]]
"""How a field's value is written as JSON data and read back."""


def keyed(*keys: str) -> Codec:
    """A tuple of strings written as ``{keys[0]: ..., keys[1]: ...}``."""
    return (lambda t: dict(zip(keys, t, strict=True))), (lambda d: tuple(str(d[key]) for key in keys))


def _listed(codec: Codec) -> Codec:
    """A tuple of values written as a list, each as ``codec`` says."""
    write, read = codec
    return (lambda v: [write(x) for x in v]), (lambda v: tuple(read(x) for x in v))


def rows(*keys: str) -> dict[str, Codec]:
    """Field metadata: a tuple of string tuples written as a list of ``{keys[0]: ..., keys[1]: ...}``."""
    return {"codec": _listed(keyed(*keys))}


_BASIC: dict[str, Codec] = {
    "str": (str, str),
    "int": (int, int),
    "bool": (bool, bool),
    "str | None": (lambda v: v, lambda v: None if v is None else str(v)),
    "int | None": (lambda v: v, lambda v: None if v is None else int(v)),
    "dict[str, str]": (dict, lambda v: {str(k): str(x) for k, x in dict(v).items()}),
    "Any": (lambda v: v, lambda v: v),
    "dict[str, Any]": (lambda v: v, lambda v: v),
}


def _codec(annotation: str, cls: type[Record]) -> Codec:
    """The codec of a field of ``cls`` annotated ``annotation`` (see the module docstring)."""
    if annotation.startswith("tuple[") and annotation.endswith(", ...]"):
        return _listed(_codec(annotation[len("tuple[") : -len(", ...]")], cls))
    if annotation in cls.CODECS or annotation in _BASIC:
        return cls.CODECS.get(annotation) or _BASIC[annotation]
    named = vars(sys.modules[cls.__module__])[annotation]
    if isinstance(named, type) and issubclass(named, Enum):
        return (lambda v: v.value), named
    return named.to_dict, named.from_dict


@cache
def _plan(cls: type[Record]) -> list[tuple[str, Codec, Any]]:
    """Each field of a record class: its name, its codec (its metadata's, else its annotation's), and what a record
    without it reads as: its default, its ``READ_MISSING`` entry, or ``None`` for an optional field without one
    (``MISSING``: the field is required)."""
    plan = []
    for f in fields(cast(Any, cls)):
        default = cls.READ_MISSING.get(f.name, f.default)
        if default is MISSING and str(f.type).endswith("| None"):
            default = None
        plan.append((f.name, f.metadata.get("codec") or _codec(str(f.type), cls), default))
    return plan


def write_record(record: Any) -> dict[str, Any]:
    """A dataclass record as JSON data: every field, in order, written as its annotation says."""
    return {name: write(getattr(record, name)) for name, (write, _), _ in _plan(record.__class__)}


def read_record(cls: Any, data: Mapping[str, Any]) -> Any:
    """The ``cls`` record :func:`write_record` wrote as ``data``: a missing field takes its default (:func:`_plan`);
    a required one missing is a ``KeyError``, a value that does not convert a ``TypeError`` or ``ValueError``."""
    values = {}
    for name, (_, read), default in _plan(cls):
        try:
            raw = data[name]
        except KeyError:
            if default is MISSING:
                raise
            values[name] = default
        else:
            values[name] = read(raw)
    return cls(**values)


@contextmanager
def not_a(kind: str, errors: tuple[type[Exception], ...] = (KeyError, TypeError, ValueError)) -> Iterator[None]:
    """Inside, a record that lacks a field or holds a value that does not convert (``errors``) is one
    :class:`~mindloop.errors.InvalidArgumentError`, ``not a <kind>: <error class>: <error>``."""
    try:
        yield
    except errors as exc:
        raise InvalidArgumentError(f"not a {kind}: {type(exc).__name__}: {exc}") from None


class Record:
    """``to_dict``/``from_dict`` of a dataclass record, field by field (:func:`write_record`, :func:`read_record`)."""

    __slots__ = ()
    CODECS: ClassVar[Mapping[str, Codec]] = {}
    """Codecs of the annotations this module does not know (type aliases, classes of other packages)."""
    READ_MISSING: ClassVar[Mapping[str, Any]] = {}
    """What a record without these fields reads as, for fields the constructor requires."""
    KIND: ClassVar[str | None] = None
    """What a bad record is said not to be (``scenario record``: ``not a scenario record: KeyError: 'seed'``)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: every field, in order."""
        return write_record(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Inverse of :meth:`to_dict`; a bad record raises as :func:`not_a` says (``KIND``)."""
        if cls.KIND is None:  # no wording of its own (most records, and every nested one): nothing to wrap
            return cast(Self, read_record(cls, data))
        with not_a(cls.KIND):
            return cast(Self, read_record(cls, data))

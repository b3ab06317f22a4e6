"""Package data files (layouts, worked examples, sentence tables) read and validated when first loaded.

Data that used to be written as Python literals lives in YAML files inside the package (``<package>/data/*.yaml``)
and is described by a pydantic model, a :class:`DataModel` (frozen, an undeclared key an error) whose
:meth:`~DataModel.problems` names what is wrong across its entries. :func:`load_package_data` reads a file with
:mod:`importlib.resources` (so it works from a wheel as well as from a checkout), or a user's copy of it, and
:func:`load_data_file` reads any path; both reject a malformed file with a :class:`DataFileError` naming the file,
the entry and the field (``layouts.townhouse.rooms``), never with a raw ``KeyError`` later on. YAML mappings with
a repeated key are refused, since YAML would silently keep only the last one. :func:`validate_data` is the one place
that turns a pydantic ``ValidationError`` into that one-line error; user files already loaded (a scene, a skills
YAML) go through it too, with their own error class.

:func:`read_text_file`, :func:`iter_text_lines` and :func:`decode_text` read a user's text file (a story file, a
JSONL dataset, a skills YAML): UTF-8 with or without a byte-order mark; a file that is not UTF-8 text (binary, or
another encoding) is a :class:`~mindloop.errors.ParseError` naming the file and the line, never a raw
``UnicodeDecodeError``. :func:`iter_json_lines` reads a JSON-lines file on top of them: one object per non-blank
line, a line that is not JSON or not an object a one-line error naming the file and the line; :func:`read_json_file`
reads a whole JSON file, text that is not JSON a one-line error naming the file, the line and the column.
"""

from __future__ import annotations

import csv
import json
import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import yaml  # type: ignore[import-untyped]
from pydantic import BaseModel, BeforeValidator, ConfigDict, Strict, ValidationError

from mindloop.errors import ParseError

_M = TypeVar("_M", bound=BaseModel)

WholeNumber = Annotated[
    int, Strict(), BeforeValidator(lambda v: int(v) if isinstance(v, float) and v.is_integer() else v)
]
"""An integer as a user's JSON or YAML file writes it, ``3`` or ``3.0``; never ``true``, ``"3"``, ``2.5`` or NaN."""

_NAME_KEYS = ("name", "id", "table", "category")
"""Keys that name a list entry in an error path (``examples[table=14]`` reads better than ``examples[1]``)."""


_PLAIN = {"model_type": "Input should be a valid dictionary", "tuple_type": "Input should be a valid list"}
"""pydantic messages that would name a model class or a Python type, as a JSON or YAML file's reader says them."""


class DataFileError(ParseError):
    """A package data file is missing, is not valid YAML, or does not match its schema; the message names the
    file, the entry and the field."""


class DataModel(BaseModel):
    """The model of a data file, or of an entry in one: frozen once read, and a key it does not declare is an error.

    A file's model states what is wrong across its entries (a name that must be one of another table's) in
    :meth:`problems`; :func:`validate_data` reports the first as it reports a field's error."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def problems(self) -> Iterator[tuple[str, str]]:
        """What is wrong across entries, as ``(field, message)`` pairs, the field as the file's path names it."""
        return iter(())


_BaseLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeyLoader(_BaseLoader):  # type: ignore[misc]
    """A safe YAML loader that refuses a mapping with the same key twice."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, f"found the key {key!r} twice", key_node.start_mark
                )
            seen.add(key)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping


def field_path(loc: Sequence[int | str], data: Any) -> str:
    """A readable path for a pydantic error location, naming list entries by their name where they have one.

    >>> field_path(("examples", 1, "rows"), {"examples": [{"table": 13}, {"table": 14}]})
    'examples[table=14].rows'
    """
    out = ""
    node = data
    for part in loc:
        if isinstance(part, int):
            label = str(part)
            if isinstance(node, Sequence) and not isinstance(node, str) and 0 <= part < len(node):
                node = node[part]
                if isinstance(node, Mapping):
                    key = next((k for k in _NAME_KEYS if k in node), None)
                    label = f"{key}={node[key]}" if key is not None else label
            else:
                node = None
            out += f"[{label}]"
        else:
            node = node.get(part) if isinstance(node, Mapping) else None
            out += f".{part}" if out else str(part)
    return out


def parse_data(model: type[_M], text: str, *, source: str) -> _M:
    """Validate YAML ``text`` against ``model``; ``source`` names the file in errors."""
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # a safe loader that also refuses repeated keys
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        context = f" ({exc.context})" if exc.context else ""
        line = mark.line + 1 if mark is not None else None
        raise DataFileError(f"not valid YAML: {exc.problem}{context}", source=source, line=line) from None
    except yaml.YAMLError as exc:  # pragma: no cover - every parser error is a marked one
        raise DataFileError(f"not valid YAML: {exc}", source=source) from None
    return validate_data(model, data, source=source)


def validate_data(
    model: type[_M],
    data: Any,
    *,
    source: str,
    error: type[ParseError] = DataFileError,
    at: str = "",
    line: int | None = None,
    context: dict[str, Any] | None = None,
) -> _M:
    """Validate already loaded ``data`` (a user's JSON or YAML) against ``model``: a mismatch is one ``error``
    naming ``source`` (and ``line``, for data read from one line of it), the field path (``rooms[1].x``; ``at`` is
    the path of ``data`` in its file, when it is a part of one), what is wrong and the value found; or the first
    of a :class:`DataModel`'s :meth:`~DataModel.problems`. ``context`` goes to the model's validators."""
    try:
        value = model.model_validate(data, context=context)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(p for p in (at, field_path(first["loc"], data)) if p) or "(top level)"
        msg = f"{where}: {problem_text(first)}{more_problems(exc)}"
        raise error(msg, source=source, line=line, text=_short(first.get("input"))) from None
    for where, problem in value.problems() if isinstance(value, DataModel) else ():
        raise error(f"{'.'.join(p for p in (at, where) if p)}: {problem}", source=source, line=line)
    return value


def problem_text(problem: Mapping[str, Any]) -> str:
    """One pydantic error's message as mindloop words it to a user: a custom validator's text as written (without
    pydantic's ``Value error, `` or ``Assertion failed, ``), and no model class or Python type named."""
    text = _PLAIN.get(problem["type"], str(problem.get("msg", "")))
    return text.removeprefix("Value error, ").removeprefix("Assertion failed, ")


def more_problems(exc: ValidationError) -> str:
    """`` (and N more problem(s))`` after the first error's message, or nothing when it is the only one."""
    others = exc.error_count() - 1
    return f" (and {others} more problem{'s' if others > 1 else ''})" if others else ""


def _short(value: Any) -> str | None:
    if value is None or isinstance(value, Mapping):
        return None  # a whole entry is too long to quote; the path already names it
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def load_data_file(model: type[_M], path: str | Path | Traversable) -> _M:
    """Read (:func:`read_text_file`) and validate the YAML file at ``path`` (a filesystem path or an importlib
    resource)."""
    return parse_data(model, read_text_file(path, what="data file", error=DataFileError), source=str(path))


_BOM = b"\xef\xbb\xbf"


def decode_text(data: bytes, *, source: str, first_line: int = 1, error: type[ParseError] = ParseError) -> str:
    """``data`` as UTF-8 text, a leading byte-order mark dropped (``first_line`` is the number of its first line).

    Bytes that are not UTF-8, or a NUL byte (no text file holds one), raise ``error`` naming ``source`` and the line.

    >>> decode_text(b"\\xef\\xbb\\xbfcaf\\xc3\\xa9", source="f.txt")
    'café'
    >>> decode_text(b"ok\\ncaf\\xe9", source="f.txt")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mindloop.errors.ParseError: f.txt:2: not UTF-8 text (byte 0xe9 at column 4): a binary file, or text in ...
    """
    if first_line == 1 and data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise error("UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8", source=source, line=1)
    try:
        text = data.decode("utf-8-sig" if first_line == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + first_line
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        raise error(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column}): a binary file, or text in another "
            "encoding (save it as UTF-8)",
            source=source,
            line=line,
        ) from None
    nul = text.find("\0")
    if nul >= 0:
        raise error(
            "a binary file, not text (it holds a NUL byte)", source=source, line=text.count("\n", 0, nul) + first_line
        )
    return text


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def special_file_kind(path: str | Path | Traversable) -> str | None:
    """What ``path`` is when it is a special file (``a FIFO (named pipe)``, ``a character device`` such as
    ``/dev/null`` or ``/dev/zero``, ``a block device``, ``a socket``), else ``None`` (a regular file, a folder, a
    missing path or a resource inside a package). Reading such a file may block forever or never end, so user
    files are refused by type before they are opened.

    >>> special_file_kind("/dev/null")
    'a character device'
    """
    if not isinstance(path, str | Path):
        return None
    try:
        mode = Path(path).stat().st_mode
    except (OSError, ValueError):
        return None
    return next((kind for test, kind in _SPECIAL_KINDS if test(mode)), None)


def _refuse_special(path: str | Path | Traversable, what: str, error: type[ParseError]) -> None:
    kind = special_file_kind(path)
    if kind is not None:
        raise error(f"cannot read {what}: it is {kind}, not a regular file", source=str(path))


@contextmanager
def _reading(path: str | Path | Traversable, what: str, error: type[ParseError]) -> Iterator[None]:
    """Refuse a special file at ``path``, then turn an :class:`OSError` inside (no such file, a folder, no
    permission) into ``error`` saying ``cannot read <what>: <reason>`` and naming ``path``."""
    _refuse_special(path, what, error)
    try:
        yield
    except FileNotFoundError:
        raise error(f"cannot read {what}: no such file", source=str(path)) from None
    except IsADirectoryError:
        raise error(f"cannot read {what}: it is a folder, not a file", source=str(path)) from None
    except OSError as exc:
        raise error(f"cannot read {what}: {exc.strerror or exc}", source=str(path)) from None


def read_text_file(path: str | Path | Traversable, *, what: str = "file", error: type[ParseError] = ParseError) -> str:
    """The text of the user's file at ``path``, as :func:`decode_text` reads it.

    A missing or unreadable file raises ``error`` with ``cannot read <what>: <reason>`` naming the file.
    """
    resource = Path(path) if isinstance(path, str) else path
    with _reading(path, what, error):
        data = resource.read_bytes()
    return decode_text(data, source=str(path), error=error)


def read_json_file(
    path: str | Path | Traversable, *, what: str = "file", error: type[ParseError] = ParseError, text: str | None = None
) -> Any:
    """The JSON value in the user's file at ``path``, read as :func:`read_text_file` reads it, or parsed from
    ``text`` where the caller has read the file already (``path`` then only names it). Text that is not JSON is
    ``error`` naming the file, the line and the column and what is wrong.

    >>> read_json_file("f.json", text='{"a": 1,\\n "b": }')
    Traceback (most recent call last):
    ...
    mindloop.errors.ParseError: f.json:2: not valid JSON at column 7: Expecting value
    """
    if text is None:
        text = read_text_file(path, what=what, error=error)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"not valid JSON at column {exc.colno}: {exc.msg}", source=str(path), line=exc.lineno) from None


def iter_text_lines(
    path: str | Path, *, what: str = "file", error: type[ParseError] = ParseError
) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` for each line of the user's file at ``path``, read lazily (memory does not grow with
    the file), line ends dropped; errors as :func:`read_text_file`, a bad byte naming its line.
    """
    p = Path(path)
    with _reading(p, what, error), p.open("rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            yield lineno, decode_text(raw, source=str(p), first_line=lineno, error=error).rstrip("\r\n")


def iter_json_lines(
    path: str | Path, what: str = "file", *, text: str | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of the JSON-lines file at ``path``: read lazily as
    :func:`iter_text_lines` reads it, or split from ``text`` where the caller has read the file already (``path``
    then only names it). A line that is not JSON, or not a JSON object, is a :class:`~mindloop.errors.ParseError`
    naming the file, the line and what is wrong, quoting the line's start.

    >>> list(iter_json_lines("f.jsonl", text='{"a": 1}\\n\\n{"b": 2}'))
    [(1, {'a': 1}), (3, {'b': 2})]
    >>> list(iter_json_lines("f.jsonl", text="[1, 2]"))
    Traceback (most recent call last):
    ...
    mindloop.errors.ParseError: f.jsonl:1: expected a JSON object per line (got '[1, 2]')
    """
    lines = iter_text_lines(path, what=what) if text is None else enumerate(text.splitlines(), 1)
    for n, line in lines:
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ParseError(f"not valid JSON: {exc.msg}", source=str(path), line=n, text=line[:80]) from None
        if not isinstance(value, dict):
            raise ParseError("expected a JSON object per line", source=str(path), line=n, text=line[:80])
        yield n, value


def package_file(package: str, name: str) -> Traversable:
    """The data file ``<package>/data/<name>`` shipped inside mindloop (from a checkout or an installed wheel)."""
    return files(package).joinpath("data", name)


def load_package_data(model: type[_M], package: str, name: str, path: str | Path | Traversable | None = None) -> _M:
    """Read and validate ``<package>/data/<name>`` shipped inside mindloop, or the file at ``path`` in its place
    (a user's own copy of it) when one is given."""
    return load_data_file(model, package_file(package, name) if path is None else path)


@contextmanager
def csv_fields_unlimited() -> Iterator[None]:
    """Let :mod:`csv` read a field of any size inside (its limit, 128 KiB by default, is the whole process's: it
    is put back after, so no other reader depends on this one having run)."""
    old = csv.field_size_limit(2**31 - 1)
    try:
        yield
    finally:
        csv.field_size_limit(old)

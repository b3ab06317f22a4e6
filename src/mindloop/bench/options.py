"""Benchmark options from the command line: ``--opt KEY=VALUE`` strings validated into a benchmark's Options model.

:func:`parse_opt_pairs` turns the strings into a mapping (a malformed pair or a key given twice is an error),
:func:`validate_options` turns that mapping into the benchmark's :class:`~mindloop.bench.api.Options` (types,
ranges and choices checked by the model's fields; an unknown key suggests the closest known one). Every failure
is one :class:`~mindloop.errors.InvalidArgumentError` line naming the benchmark, the key, the bad value and what
was expected. :func:`options_schema` and :func:`format_options_help` describe a model for ``mindloop bench list
--json`` and ``mindloop bench run NAME --help-options``.

>>> from typing import Literal
>>> from pydantic import Field
>>> class Demo(Options):
...     size: int = Field(2, ge=2, le=4, description="agents per team")
...     mode: Literal["text", "vision"] = "text"
>>> check("demo", Demo, {"size": "3"})
Demo(size=3, mode='text')
>>> check("demo", Demo, {"size": "9"})
Traceback (most recent call last):
...
mindloop.errors.InvalidArgumentError: benchmark 'demo': option size='9' is invalid: expected an integer from 2 to 4
>>> check("demo", Demo, {"mod": "text"})
Traceback (most recent call last):
...
mindloop.errors.InvalidArgumentError: benchmark 'demo' has no option 'mod'; did you mean 'mode'? (options: size, mode)
"""

from __future__ import annotations

import json
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import ValidationError
from pydantic.fields import FieldInfo

from mindloop.bench.api import Benchmark, Options
from mindloop.errors import InvalidArgumentError, did_you_mean

_OptionsT = TypeVar("_OptionsT", bound=Options)


def parse_opt_pairs(benchmark: str, items: Sequence[str], data: str | None = None) -> dict[str, str]:
    """``["k=v", ...]`` (and ``--data PATH`` as the ``data`` option) as a mapping; a key given twice is an error."""
    out: dict[str, str] = {}
    given: dict[str, str] = {}
    pairs = [(item, "--opt") for item in items]
    if data is not None:
        pairs.append((f"data={data}", "--data"))
    for item, flag in pairs:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InvalidArgumentError(f"benchmark {benchmark!r}: --opt expects KEY=VALUE, got {item!r}")
        shown = f"--data {value}" if flag == "--data" else f"--opt {item}"
        if key in out:
            raise InvalidArgumentError(
                f"benchmark {benchmark!r}: option {key!r} is given twice ({given[key]!r} and {shown!r}); give it once"
            )
        out[key] = value
        given[key] = shown
    return out


def validate_options(bench: Benchmark, raw: Mapping[str, Any]) -> Options:
    """``raw`` (option strings as given, or values read back from the run store) as ``bench``'s Options."""
    return check(bench.name, bench.options_model, raw)


def check(benchmark: str, model: type[_OptionsT], raw: Mapping[str, Any]) -> _OptionsT:
    """``raw`` validated into ``model``; every failure is one line naming ``benchmark``, the key and the value."""
    known = list(model.model_fields)
    for key in raw:
        if key not in model.model_fields:
            raise InvalidArgumentError(_unknown(benchmark, key, known))
    values = {key: _literal_value(model.model_fields[key], value) for key, value in raw.items()}
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise InvalidArgumentError(_first_error(benchmark, model, raw, exc)) from None


def _unknown(benchmark: str, key: str, known: Sequence[str]) -> str:
    if not known:
        return f"benchmark {benchmark!r} takes no options, got {key!r}"
    return f"benchmark {benchmark!r} has no option {key!r}{did_you_mean(key, known)} (options: {', '.join(known)})"


def _first_error(benchmark: str, model: type[Options], raw: Mapping[str, Any], exc: ValidationError) -> str:
    from mindloop.datafiles import more_problems, problem_text  # on the error path only: it imports yaml

    err = exc.errors(include_url=False)[0]
    more = more_problems(exc)
    loc = err["loc"]
    key = str(loc[0]) if loc else None
    custom = problem_text(err)
    if key is None or key not in model.model_fields:  # a check across options (a model validator)
        return f"benchmark {benchmark!r}: {custom}{more}"
    field = model.model_fields[key]
    expected = custom if err["type"] in ("value_error", "assertion_error") else _expected(field)
    value = raw.get(key, err.get("input"))
    return f"benchmark {benchmark!r}: option {key}={value!r} is invalid: expected {expected}{more}"


# -- describing fields ----------------------------------------------------------------------------------------------


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """``X | None`` -> ``(X, True)``; anything else -> ``(annotation, False)``."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], len(args) < len(get_args(annotation))
    return annotation, False


def _choices(field: FieldInfo) -> tuple[Any, ...]:
    inner, _ = _unwrap(field.annotation)
    return get_args(inner) if get_origin(inner) is Literal else ()


def _literal_value(field: FieldInfo, value: Any) -> Any:
    """A text value for a non-text ``Literal`` choice (``level=4`` for ``Literal[3, 4]``) as that choice."""
    if isinstance(value, str):
        for choice in _choices(field):
            if not isinstance(choice, str) and str(choice) == value:
                return choice
    return value


def _bounds(field: FieldInfo) -> tuple[Any, Any, bool, bool]:
    lo = hi = None
    lo_open = hi_open = False
    for m in field.metadata:  # annotated_types' Ge/Gt/Le/Lt, as pydantic's Field(ge=...) records them
        if getattr(m, "ge", None) is not None:
            lo = m.ge
        if getattr(m, "gt", None) is not None:
            lo, lo_open = m.gt, True
        if getattr(m, "le", None) is not None:
            hi = m.le
        if getattr(m, "lt", None) is not None:
            hi, hi_open = m.lt, True
    return lo, hi, lo_open, hi_open


def invalid_values(model: type[Options]) -> list[tuple[str, str]]:
    """``(option, value)`` pairs that ``model`` must refuse, as ``--opt`` strings: a value outside each choice
    option's choices, and one step past each bound of a numeric option (what :func:`mindloop.check_benchmark`
    tries)."""
    out: list[tuple[str, str]] = []
    for name, field in model.model_fields.items():
        if _choices(field):
            out.append((name, "not-a-choice-of-" + name))
            continue
        lo, hi, lo_open, hi_open = _bounds(field)
        step = 1 if isinstance(lo if lo is not None else hi, int) else 0.5
        if lo is not None:
            out.append((name, str(lo if lo_open else lo - step)))
        if hi is not None:
            out.append((name, str(hi if hi_open else hi + step)))
    return out


def _range(field: FieldInfo) -> str:
    lo, hi, lo_open, hi_open = _bounds(field)
    if lo is not None and hi is not None and not lo_open and not hi_open:
        return f"from {lo} to {hi}"
    parts = []
    if lo is not None:
        parts.append(f"{'>' if lo_open else '>='} {lo}")
    if hi is not None:
        parts.append(f"{'<' if hi_open else '<='} {hi}")
    return " and ".join(parts)


def _kind(field: FieldInfo) -> str:
    inner, _ = _unwrap(field.annotation)
    if _choices(field):
        return "choice"
    if get_origin(inner) in (tuple, list):
        return "list"
    return {bool: "boolean", int: "integer", float: "number"}.get(inner, "text")


def _declared(field: FieldInfo) -> str | None:
    """What a field says it expects (``json_schema_extra={"expected": ...}``), when it says."""
    extra = field.json_schema_extra
    return str(extra["expected"]) if isinstance(extra, dict) and isinstance(extra.get("expected"), str) else None


def _expected(field: FieldInfo) -> str:
    declared = _declared(field)
    if declared is not None:
        return declared
    choices = _choices(field)
    if choices:
        text = "one of: " + ", ".join(str(c) for c in choices)
    else:
        kind = _kind(field)
        text = {
            "boolean": "true or false (also 1/0, yes/no, on/off)",
            "integer": "an integer",
            "number": "a number",
            "list": "a comma-separated list",
        }.get(kind, "text")
        bounds = _range(field)
        if bounds:
            text += f" {bounds}"
    return text


@dataclass(frozen=True)
class OptionInfo:
    """One option as ``--help-options`` shows it: name, type, default, allowed values or range, description."""

    name: str
    type: str
    default: Any
    allowed: str
    description: str


def describe_options(model: type[Options]) -> list[OptionInfo]:
    """Every field of ``model`` as an :class:`OptionInfo`, in declaration order."""
    out = []
    for name, field in model.model_fields.items():
        choices, declared = _choices(field), _declared(field)
        allowed = (
            " | ".join(str(c) for c in choices) if choices else declared if declared is not None else _range(field)
        )
        out.append(OptionInfo(name, _kind(field), field.get_default(), allowed, field.description or ""))
    return out


def options_schema(model: type[Options]) -> dict[str, Any]:
    """The JSON schema of ``model`` (types, defaults, choices, ranges and descriptions)."""
    return model.model_json_schema()


def _shown(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return json.dumps(value) if isinstance(value, bool | dict) else str(value)


def format_options_help(bench: Benchmark) -> str:
    """The ``--help-options`` text of ``bench``: one block per option, or a line saying it takes none."""
    infos = describe_options(bench.options_model)
    if not infos:
        return f"benchmark {bench.name!r} takes no options\n"
    data = "; --data PATH sets 'data'" if "data" in bench.options_model.model_fields else ""
    lines = [f"options of benchmark {bench.name!r} (--opt KEY=VALUE{data}):"]
    for info in infos:
        allowed = f"; allowed: {info.allowed}" if info.allowed else ""
        lines.append(f"  {info.name} ({info.type}, default {_shown(info.default)}{allowed})")
        if info.description:
            lines.append(f"      {info.description}")
    return "\n".join(lines) + "\n"

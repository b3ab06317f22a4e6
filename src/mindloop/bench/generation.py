"""Which generation settings a run uses, and where each came from.

A benchmark may declare ``generation_defaults`` (a mapping of ``temperature``, ``max_tokens``, ``top_p``): the
sampling settings its paper states, with the section cited beside them. A command-line value overrides one only
when given; a field neither names keeps mindloop's default (:class:`~mindloop.models.base.GenerationConfig`). The
run records ``generation_source``: ``paper``, ``cli`` or ``default`` per field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mindloop.errors import InvalidArgumentError
from mindloop.models.base import GenerationConfig

__all__ = ["FIELDS", "generation_defaults", "resolve_generation"]

FIELDS = ("temperature", "max_tokens", "top_p")
"""The generation fields a benchmark may declare."""


def generation_defaults(bench: Any) -> dict[str, Any]:
    """The benchmark's declared paper settings (``{}`` when it declares none); unknown fields are refused."""
    declared = dict(getattr(bench, "generation_defaults", None) or {})
    unknown = sorted(set(declared) - set(FIELDS))
    if unknown:
        name = getattr(bench, "name", type(bench).__name__)
        raise InvalidArgumentError(f"{name}: generation_defaults has {unknown[0]!r}; expected one of {FIELDS}")
    return declared


def resolve_generation(
    bench: Any, *, temperature: float | None = None, max_tokens: int | None = None
) -> tuple[GenerationConfig, dict[str, str]]:
    """The run's :class:`GenerationConfig` and each field's source: the command line's value where given, else
    the paper's (``bench.generation_defaults``), else mindloop's default."""
    paper = generation_defaults(bench)
    base = GenerationConfig()
    given: Mapping[str, Any] = {
        k: v for k, v in (("temperature", temperature), ("max_tokens", max_tokens)) if v is not None
    }
    values: dict[str, Any] = {}
    source: dict[str, str] = {}
    for name in FIELDS:
        if name in given:
            values[name], source[name] = given[name], "cli"
        elif name in paper:
            values[name], source[name] = paper[name], "paper"
        else:
            values[name], source[name] = getattr(base, name), "default"
    config = GenerationConfig(
        temperature=float(values["temperature"]), max_tokens=values["max_tokens"], top_p=values["top_p"]
    )
    return config, source

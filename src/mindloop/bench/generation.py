"""Which generation settings a run uses, and where each came from.

A benchmark declares the sampling settings its paper states (``temperature``, ``max_tokens``, ``top_p``, with the
section cited) as its declaration's :class:`~mindloop.bench.declaration.Generation`. A command-line value overrides
one only when given; a field neither names keeps mindloop's default (:class:`~mindloop.models.base.GenerationConfig`).
The run records ``generation_source``: ``paper``, ``cli`` or ``default`` per field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mindloop.bench.api import Benchmark
from mindloop.bench.declaration import GENERATION_FIELDS as FIELDS
from mindloop.models.base import GenerationConfig

__all__ = ["FIELDS", "resolve_generation"]


def resolve_generation(
    bench: Benchmark, *, temperature: float | None = None, max_tokens: int | None = None
) -> tuple[GenerationConfig, dict[str, str]]:
    """The run's :class:`GenerationConfig` and each field's source: the command line's value where given, else
    the paper's (``bench.spec.generation``), else mindloop's default."""
    paper = bench.spec.generation.values()
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

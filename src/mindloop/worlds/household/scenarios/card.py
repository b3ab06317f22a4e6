"""The ``README.md`` dataset card of an exported ``mindpower-sim`` folder: YAML front matter that Hugging Face
``datasets`` reads (configs, features, splits) and a short human description with the statistics.

The features are declared rather than inferred so that every split loads with one schema, even a small split
in which some list is always empty.
"""

from __future__ import annotations

import textwrap
from typing import Any

import yaml  # type: ignore[import-untyped]
from pydantic import RootModel, model_validator

from mindloop.datafiles import load_package_data, package_file
from mindloop.worlds.household.scenarios.stats import DATASET_NAME, SPLITS, DatasetStats

_DTYPES = ("string", "int64", "bool")


class _SchemaFile(RootModel[dict[str, Any]]):
    """``data/schema.yaml``: each field's dtype (``string``, ``int64``, ``bool``), ``[x]`` lists, ``{...}`` structs."""

    @model_validator(mode="after")
    def _leaves(self) -> _SchemaFile:
        def check(spec: Any, where: str) -> None:
            if isinstance(spec, dict):
                for name, inner in spec.items():
                    check(inner, f"{where}.{name}" if where else str(name))
            elif isinstance(spec, list) and len(spec) == 1:
                check(spec[0], f"{where}[]")
            elif spec not in _DTYPES:
                raise ValueError(f"{where}: {spec!r} is not {', '.join(_DTYPES)}, a [list] of one or a struct")

        check(self.root, "")
        return self


SCHEMA: dict[str, Any] = load_package_data(_SchemaFile, "mindloop.worlds.household", "schema.yaml").root
"""The record schema (``Scenario.to_dict``): ``"string"``/``"int64"``/``"bool"``, ``[x]`` lists, ``{...}`` structs."""


def _features(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """``spec`` (a struct of :data:`SCHEMA`) as ``datasets`` declares features: a list of ``name`` with its
    ``dtype``, ``struct`` or ``list``, in name order."""
    out: list[dict[str, Any]] = []
    for name in sorted(spec):
        value = spec[name]
        if isinstance(value, str):
            out.append({"name": name, "dtype": value})
        elif isinstance(value, dict):
            out.append({"name": name, "struct": _features(value)})
        else:
            out.append({"name": name, "list": value[0] if isinstance(value[0], str) else _features(value[0])})
    return out


def features_yaml(indent: int = 2) -> str:
    """The ``features:`` list of the card, in the YAML form ``datasets`` writes and reads."""
    return textwrap.indent(yaml.safe_dump(_features(SCHEMA), sort_keys=False), " " * indent).rstrip("\n")


def dataset_card(stats: DatasetStats, split_bytes: dict[str, int]) -> str:
    """The full ``README.md`` (YAML front matter + description) for an export with these statistics and
    split file sizes: ``data/card.md.tmpl`` in the household package, a Jinja template of the card."""
    import jinja2

    env = jinja2.Environment(
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, undefined=jinja2.StrictUndefined
    )
    template = env.from_string(package_file("mindloop.worlds.household", "card.md.tmpl").read_text(encoding="utf-8"))
    return template.render(
        stats=stats, split_bytes=split_bytes, splits=SPLITS, features=features_yaml(2), name=DATASET_NAME
    )

"""The ``README.md`` dataset card of an exported ``mindpower-sim`` folder: YAML front matter that Hugging Face
``datasets`` reads (configs, features, splits) and a short human description with the statistics.

The features are declared rather than inferred so that every split loads with one schema, even a small split
in which some list is always empty.
"""

from __future__ import annotations

from typing import Any

from mindloop.datafiles import package_file
from mindloop.worlds.household.scenarios.model import LAYERS
from mindloop.worlds.household.scenarios.stats import DATASET_NAME, SPLITS, DatasetStats

__all__ = ["SCHEMA", "dataset_card", "features_yaml"]

_S, _I, _B = "string", "int64", "bool"
_FACT: dict[str, Any] = {"subject": _S, "relation": _S, "value": _S}

SCHEMA: dict[str, Any] = {
    "id": _S,
    "seed": _I,
    "index": _I,
    "split": _S,
    "task_type": _S,
    "subtype": _S,
    "category": _S,
    "control": _B,
    "help_needed": _B,
    "special_needs": _S,
    "humans": [_S],
    "n_humans": _I,
    "has_dialogue": _B,
    "layout": _S,
    "setup": {
        "layout": _S,
        "humans": [{"id": _S, "room": _S}],
        "items": [{"id": _S, "kind": _S, "location": _S}],
        "robot_room": _S,
        "camera": [_S],
        "camera_all_rooms": _B,
        "opened": [_S],
        "switched_on": [_S],
        "filled": [{"id": _S, "liquid": _S}],
        "feelings": [{"id": _S, "feeling": _S}],
        "sitting": [{"id": _S, "place": _S}],
        "power": _B,
        "clutter": _B,
        "avatars": [{"id": _S, "character": _S}],
        "place_ids": [{"kind": _S, "id": _S}],
    },
    "script": [{"actor": _S, "action": _S, "facts": [_FACT]}],
    "observation": _S,
    "dialogue": [{"speaker": _S, "text": _S}],
    "events": [
        {
            "t": _I,
            "kind": _S,
            "actor": _S,
            "verb": _S,
            "args": [_S],
            "room": _S,
            "facts": [_FACT],
            "witnesses": [_S],
            "source": _S,
            "text": _S,
            "phrase": _S,
            "failure": _S,
            "robot_saw": _B,
        }
    ],
    "goal": {"kind": _S, "human": _S, "target": _S, "liquid": _S},
    "gold": {
        **{layer: _S for layer in LAYERS},
        "actions": [_S],
        "atomic": {layer: [_S] for layer in LAYERS},
        "beliefs": [{"chain": [_S], "subject": _S, "relation": _S, "value": _S, "actual": _S}],
        "help_needed": _B,
    },
    "gold_text": _S,
    "meta": [{"key": _S, "value": _S}],
}
"""The record schema (``Scenario.to_dict``): ``"string"``/``"int64"``/``"bool"``, ``[x]`` lists, ``{...}`` structs."""


def _feature_lines(spec: dict[str, Any], indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    for name in sorted(spec):
        value = spec[name]
        lines.append(f"{pad}- name: {name}")
        if isinstance(value, str):
            lines.append(f"{pad}  dtype: {value}")
        elif isinstance(value, dict):
            lines.append(f"{pad}  struct:")
            lines += _feature_lines(value, indent + 2)
        else:
            inner = value[0]
            if isinstance(inner, str):
                lines.append(f"{pad}  list: {inner}")
            else:
                lines.append(f"{pad}  list:")
                lines += _feature_lines(inner, indent + 2)
    return lines


def features_yaml(indent: int = 2) -> str:
    """The ``features:`` list of the card, in the YAML form ``datasets`` writes and reads."""
    return "\n".join(_feature_lines(SCHEMA, indent))


def dataset_card(stats: DatasetStats, split_bytes: dict[str, int]) -> str:
    """The full ``README.md`` (YAML front matter + description) for an export with these statistics and
    split file sizes: ``data/card.md.tmpl`` in the household package, a :meth:`str.format` template of the card."""
    split_lines = "\n".join(
        f"  - name: {sp}\n    num_bytes: {split_bytes[sp]}\n    num_examples: {stats.splits[sp]}" for sp in SPLITS
    )
    config = "\n".join(f"  - split: {sp}\n    path: data/{sp}.jsonl" for sp in SPLITS)
    rows = "\n".join(f"| {k} | {v} |" for k, v in stats.subtype.items())
    humans = ", ".join(f"{k}: {v}" for k, v in stats.humans.items())
    special = ", ".join(f"{k}: {v}" for k, v in stats.special_needs.items()) or "none"
    task = ", ".join(f"{k}: {v}" for k, v in stats.task_type.items())
    values: dict[str, object] = {
        "config": config,
        "features": features_yaml(2),
        "split_lines": split_lines,
        "rows": rows,
    }
    values |= {"humans": humans, "special": special, "task": task, "name": DATASET_NAME, "stats": stats}
    return package_file("mindloop.worlds.household", "card.md.tmpl").read_text(encoding="utf-8").format_map(values)

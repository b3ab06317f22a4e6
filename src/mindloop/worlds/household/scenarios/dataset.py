"""The ``mindpower-sim`` dataset: seeded scenarios, a fixed stratified 8:2 train/test split, JSONL export with a
Hugging Face ``datasets`` card, and B.1-style statistics.

The same ``(seed, n)`` always gives the same files, byte for byte: records are written with sorted keys and
no timestamps, floats only appear in the statistics, rounded, and every random choice comes from a seeded
``random.Random``.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mindloop.datafiles import iter_text_lines
from mindloop.errors import InvalidArgumentError, MindloopError, ParseError
from mindloop.worlds.household.scenarios.card import dataset_card
from mindloop.worlds.household.scenarios.generate import generate_scenarios
from mindloop.worlds.household.scenarios.model import Scenario
from mindloop.worlds.household.scenarios.stats import DATASET_NAME, SPLITS, DatasetStats
from mindloop.worlds.household.scenarios.taxonomy import CATEGORIES, SUBTYPES, TASK_TYPES

__all__ = [
    "DATASET_NAME",
    "DEFAULT_N",
    "DEFAULT_SEED",
    "MINDPOWER_SIM",
    "SPLITS",
    "DatasetSource",
    "DatasetStats",
    "ExportResult",
    "describe_dataset",
    "dumps_record",
    "export_dataset",
    "load_scenarios",
    "mindpower_sim",
    "split_scenarios",
]

DEFAULT_N = 590
"""Default size: MindPower's 590 examples."""
DEFAULT_SEED = 0


def split_scenarios(scenarios: Sequence[Scenario], seed: int = DEFAULT_SEED) -> dict[str, list[Scenario]]:
    """The fixed 8:2 split, stratified by subtype: scenarios are ordered by subtype and a seeded shuffle, and
    every fifth goes to ``test`` (so ``test`` has ``n // 5`` of them and every common subtype is in both)."""
    keyed = []
    for s in scenarios:
        key = random.Random(f"{DATASET_NAME}/{seed}/split/{s.index}").random()
        keyed.append((s.subtype, key, s.index, s))
    keyed.sort(key=lambda k: (k[0], k[1], k[2]))
    test = {k[3].index for pos, k in enumerate(keyed) if pos % 5 == 4}
    out: dict[str, list[Scenario]] = {"train": [], "test": []}
    for s in scenarios:
        split = "test" if s.index in test else "train"
        out[split].append(s.with_split(split))
    return out


def mindpower_sim(split: str = "test", *, seed: int = DEFAULT_SEED, n: int = DEFAULT_N) -> list[Scenario]:
    """The ``mindpower-sim`` scenarios of one split (``train``, ``test`` or ``all``), in index order.

    >>> test = mindpower_sim("test", n=10)
    >>> len(test), {s.split for s in test}
    (2, {'test'})
    """
    if split not in (*SPLITS, "all"):
        raise InvalidArgumentError(f"unknown split {split!r} (splits: train, test, all)")
    parts = split_scenarios(generate_scenarios(n, seed), seed)
    if split == "all":
        return sorted(parts["train"] + parts["test"], key=lambda s: s.index)
    return parts[split]


def dumps_record(scenario: Scenario) -> str:
    """One JSONL line: sorted keys, compact separators, UTF-8 text kept as is (stable across runs and machines)."""
    return json.dumps(scenario.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def load_scenarios(path: str | Path) -> list[Scenario]:
    """Scenarios from a JSONL file, or from an exported folder (``data/*.jsonl``).

    UTF-8 with or without a byte-order mark; a file that is not UTF-8 text, a line that is not a scenario record or
    a file with no records at all is a :class:`ParseError` naming the file (and line).
    """
    p = Path(path)
    files = sorted((p / "data").glob("*.jsonl")) if p.is_dir() else [p]
    if not files:
        raise ParseError("no data/*.jsonl files in this folder", source=str(p))
    out: list[Scenario] = []
    for f in files:
        for i, line in iter_text_lines(f):
            if not line.strip():
                continue
            try:
                out.append(Scenario.from_dict(json.loads(line)))
            except (json.JSONDecodeError, MindloopError) as exc:
                raise ParseError(f"bad scenario record: {exc}", source=str(f), line=i) from None
    if not out:
        what = "its data/*.jsonl files hold" if p.is_dir() else "the file holds"
        raise ParseError(f"no scenario records: {what} no JSON lines (expected one scenario per line)", source=str(p))
    return sorted(out, key=lambda s: s.index)


def _counts(scenarios: Iterable[Scenario]) -> dict[str, Any]:
    items = list(scenarios)
    humans = Counter(str(s.n_humans) for s in items)
    special = Counter(s.special_needs for s in items if s.special_needs != "none")
    return {
        "n": len(items),
        "task_type": {t: sum(s.task_type == t for s in items) for t in TASK_TYPES},
        "subtype": {k: n for k in SUBTYPES if (n := sum(s.subtype == k for s in items))},
        "category": {c: sum(s.category == c for s in items) for c in CATEGORIES},
        "humans": {k: humans[k] for k in sorted(humans, key=int)},
        "special_needs": {k: special[k] for k in sorted(special)},
        "dialogue": sum(s.has_dialogue for s in items),
        "controls": sum(s.control for s in items),
        "help_needed": sum(s.help_needed for s in items),
    }


def describe_dataset(
    scenarios: Sequence[Scenario] | None = None, *, seed: int = DEFAULT_SEED, n: int = DEFAULT_N
) -> DatasetStats:
    """Statistics of ``scenarios`` (already split), or of ``mindpower-sim`` for ``(seed, n)``."""
    if scenarios is None:
        scenarios = mindpower_sim("all", seed=seed, n=n)
    items = list(scenarios)
    total = _counts(items)
    by_split = {sp: _counts(s for s in items if s.split == sp) for sp in SPLITS}
    return DatasetStats(
        dataset=DATASET_NAME,
        seed=seed,
        n=len(items),
        splits={sp: by_split[sp]["n"] for sp in SPLITS},
        task_type=total["task_type"],
        subtype=total["subtype"],
        category=total["category"],
        humans=total["humans"],
        special_needs=total["special_needs"],
        dialogue=total["dialogue"],
        controls=total["controls"],
        help_needed=total["help_needed"],
        layouts=len({s.layout for s in items}),
        characters=len({h for s in items for h in s.humans}),
        by_split=by_split,
    )


@dataclass(frozen=True)
class ExportResult:
    """What :func:`export_dataset` wrote: file paths (relative to ``out``) with their sha256, and the stats."""

    out: Path
    files: dict[str, str]
    stats: DatasetStats

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the ``export --json`` object)."""
        return {"out": str(self.out), "files": self.files, "stats": self.stats.to_dict()}


def export_dataset(out: str | Path, *, seed: int = DEFAULT_SEED, n: int = DEFAULT_N) -> ExportResult:
    """Write ``mindpower-sim`` to ``out``: ``data/train.jsonl``, ``data/test.jsonl``, ``stats.json`` and a
    ``README.md`` dataset card that ``datasets.load_dataset(out)`` reads (configs, features, splits)."""
    if n < 1:
        raise InvalidArgumentError(f"n must be at least 1, got {n}")
    root = Path(out)
    scenarios = mindpower_sim("all", seed=seed, n=n)
    stats = describe_dataset(scenarios, seed=seed, n=n)
    texts: dict[str, str] = {}
    for sp in SPLITS:
        texts[f"data/{sp}.jsonl"] = "".join(dumps_record(s) + "\n" for s in scenarios if s.split == sp)
    texts["stats.json"] = json.dumps(stats.to_dict(), sort_keys=True, indent=2) + "\n"
    texts["README.md"] = dataset_card(stats, {sp: len(texts[f"data/{sp}.jsonl"].encode("utf-8")) for sp in SPLITS})
    try:
        (root / "data").mkdir(parents=True, exist_ok=True)
        for rel, text in texts.items():
            (root / rel).write_bytes(text.encode("utf-8"))
    except OSError as exc:
        raise MindloopError(f"cannot write the dataset to {root}: {exc.strerror or exc}") from None
    files = {rel: hashlib.sha256(text.encode("utf-8")).hexdigest() for rel, text in sorted(texts.items())}
    return ExportResult(root, files, stats)


@dataclass(frozen=True)
class DatasetSource:
    """A named generated dataset: how to describe it and how to export it (what ``mindloop data`` calls)."""

    name: str
    description: str
    describe: Callable[..., DatasetStats]
    export: Callable[..., ExportResult]


MINDPOWER_SIM = DatasetSource(
    DATASET_NAME,
    "MindPower-style household scenarios with exact gold (False-Belief Correction, Implicit Goal Inference & "
    "Completion, controls)",
    describe_dataset,
    export_dataset,
)
"""The ``mindpower-sim`` dataset source."""

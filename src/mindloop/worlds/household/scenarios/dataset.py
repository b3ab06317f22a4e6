"""The ``mindpower-sim`` dataset: seeded scenarios, a fixed stratified 8:2 train/test split, JSONL export with a
Hugging Face ``datasets`` card, and B.1-style statistics.

The same ``(seed, n)`` always gives the same files, byte for byte: records are written with sorted keys and
no timestamps, floats only appear in the statistics, rounded, and every random choice comes from a seeded
``random.Random``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mindloop.datafiles import DataModel, iter_json_lines, load_package_data
from mindloop.errors import InvalidArgumentError, MindloopError, ParseError
from mindloop.worlds.household.scenarios.card import dataset_card
from mindloop.worlds.household.scenarios.generate import generate_scenario
from mindloop.worlds.household.scenarios.model import Scenario
from mindloop.worlds.household.scenarios.stats import DATASET_NAME, SPLITS, DatasetStats
from mindloop.worlds.household.scenarios.taxonomy import CATEGORIES, SUBTYPES, TASK_TYPES

DEFAULT_N = 590
"""Default size: MindPower's 590 examples."""
DEFAULT_SEED = 0


class _PaperFile(DataModel):
    """``data/paper.yaml``: MindPower's composition per subtype and its own counts."""

    mix: dict[str, int]
    composition: dict[str, int | None]


_PAPER = load_package_data(_PaperFile, "mindloop.worlds.household", "paper.yaml")
PAPER_MIX: dict[str, int] = _PAPER.mix
"""Scenarios that need help, per subtype, in 590: MindPower's composition (supplementary B.1) wherever the paper
states it — 390 False-Belief Correction and 200 Implicit Goal examples; 17 with special needs, 96 object-property
or functional-combination, 87 dialogue-driven; 104 with three humans (the three-human stories), and 113 with one
(the one-human stories: the robot-tidied ones and the Implicit Goal stories nobody else is home in, see
:data:`PAPER_BYSTANDERS`). How the 390 and the 96 divide among our subtypes the paper does not say."""

PAPER_BYSTANDERS = 30
"""Implicit Goal stories (special needs, object property, functional combination) in 590 with someone else at
home: as many as the one-human robot-tidied stories, so that one / two / three humans come to 113 / 373 / 104."""

CONTROL_SHARE = 5
"""Controls (no help needed, gold ``wait()``) are ``n // CONTROL_SHARE`` scenarios added to the ``n`` that need
help: the paper has none (its 590 all need help); MindClaw's precision intervention needs them, and benchmarks
report them apart."""

PAPER_COMPOSITION: dict[str, int | None] = _PAPER.composition
"""MindPower's own figures (supplementary B.1 and B.3; ``None``: the paper does not state it — it gives an 8:2
split, not the counts)."""


def _quotas(weights: dict[str, int], n: int) -> dict[str, int]:
    """``n`` divided in proportion to ``weights`` by largest remainder (ties: the order of ``weights``)."""
    total = sum(weights.values())
    exact = {k: n * w / total for k, w in weights.items()}
    out = {k: int(v) for k, v in exact.items()}
    order = sorted(weights, key=lambda k: (-(exact[k] - out[k]), list(weights).index(k)))
    for k in order[: n - sum(out.values())]:
        out[k] += 1
    return out


def composition_plan(n: int, controls: int, seed: int = DEFAULT_SEED) -> list[tuple[str, bool | None]]:
    """The subtype (and whether an Implicit Goal story has someone else at home) of each of ``n + controls``
    scenarios: ``n`` that need help divided as :data:`PAPER_MIX`, ``controls`` controls divided as the taxonomy's
    weights, in a seeded order."""
    help_counts = _quotas(PAPER_MIX, n)
    control_weights = {k: round(1000 * s.weight) for k, s in SUBTYPES.items() if s.control}
    control_counts = _quotas(control_weights, controls) if controls else {}
    lone = [k for k in PAPER_MIX if k.startswith("ig_") and SUBTYPES[k].category != "dialogue"]
    n_lone = sum(help_counts[k] for k in lone)
    n_bystanders = round(PAPER_BYSTANDERS * n / sum(PAPER_MIX.values()))
    plan: list[tuple[str, bool | None]] = []
    for kind, count in help_counts.items():
        plan += [(kind, None if kind not in lone else False)] * count
    lone_slots = [i for i, (k, _) in enumerate(plan) if k in lone]
    rng = random.Random(f"{DATASET_NAME}/{seed}/plan")
    for i in rng.sample(lone_slots, min(n_bystanders, n_lone)):
        plan[i] = (plan[i][0], True)
    for kind, count in control_counts.items():
        plan += [(kind, None)] * count
    rng.shuffle(plan)
    return plan


def split_scenarios(scenarios: Sequence[Scenario], seed: int = DEFAULT_SEED) -> dict[str, list[Scenario]]:
    """The fixed 8:2 split, stratified by subtype: scenarios that need help and controls apart, each ordered by
    subtype and a seeded shuffle, and every fifth goes to ``test`` (so ``test`` has ``n // 5`` of those that need
    help, every common subtype is in both, and the controls split 8:2 as well)."""
    test = _test_indices([(s.subtype, s.control, s.index) for s in scenarios], seed)
    out: dict[str, list[Scenario]] = {"train": [], "test": []}
    for s in scenarios:
        split = "test" if s.index in test else "train"
        out[split].append(s.with_split(split))
    return out


def _test_indices(scenarios: Iterable[tuple[str, bool, int]], seed: int) -> set[int]:
    """The indices :func:`split_scenarios` puts in ``test``, from each scenario's ``(subtype, control, index)``."""
    test: set[int] = set()
    for part in (False, True):
        keyed = sorted(
            (subtype, random.Random(f"{DATASET_NAME}/{seed}/split/{index}").random(), index)
            for subtype, control, index in scenarios
            if control == part
        )
        test |= {index for pos, (_, _, index) in enumerate(keyed) if pos % 5 == 4}
    return test


@functools.lru_cache(maxsize=8)
def _generated(n: int, controls: int, seed: int, split: str) -> tuple[Scenario, ...]:
    """One split of the planned scenarios, in index order. A scenario's subtype (and so whether it is a control) is
    its plan's, so the split is known before anything is generated, and only that split's scenarios are made."""
    plan = composition_plan(n, controls, seed)
    test = _test_indices([(kind, SUBTYPES[kind].control, i) for i, (kind, _) in enumerate(plan)], seed)
    return tuple(
        generate_scenario(kind, seed, i, bystander=bystander).with_split(split)
        for i, (kind, bystander) in enumerate(plan)
        if (i in test) == (split == "test")
    )


def mindpower_sim(
    split: str = "test", *, seed: int = DEFAULT_SEED, n: int = DEFAULT_N, controls: int | None = None
) -> list[Scenario]:
    """The ``mindpower-sim`` scenarios of one split (``train``, ``test`` or ``all``), in index order: ``n`` that
    need help, composed as the paper's (:data:`PAPER_MIX`), and ``controls`` controls (default ``n // 5``).

    >>> test = mindpower_sim("test", n=10)
    >>> len(test), {s.split for s in test}, sum(not s.control for s in test)
    (2, {'test'}, 2)
    """
    if split not in (*SPLITS, "all"):
        raise InvalidArgumentError(f"unknown split {split!r} (splits: train, test, all)")
    if n < 0 or (controls is not None and controls < 0):
        raise InvalidArgumentError(f"n and controls must be >= 0, got {n} and {controls}")
    n_controls = n // CONTROL_SHARE if controls is None else controls
    if split == "all":
        parts = _generated(n, n_controls, seed, "train") + _generated(n, n_controls, seed, "test")
        return sorted(parts, key=lambda s: s.index)
    return list(_generated(n, n_controls, seed, split))


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
        for i, record in iter_json_lines(f):
            try:
                out.append(Scenario.from_dict(record))
            except MindloopError as exc:
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


def _characters(scenarios: Iterable[Scenario]) -> set[str]:
    """The cast's characters who play the scenarios' people (a dressed story's named people have avatars)."""
    out = set()
    for s in scenarios:
        avatars = dict(s.setup.avatars)
        out |= {avatars.get(h, h) for h in s.humans}
    return out


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
        **{k: total[k] for k in _COUNTED},
        layouts=len({s.layout for s in items}),
        characters=len(_characters(items)),
        by_split=by_split,
        paper=paper_comparison(items),
    )


_COUNTED = ("task_type", "subtype", "category", "humans", "special_needs", "dialogue", "controls", "help_needed")
"""The counts :class:`DatasetStats` keeps as :func:`_counts` gives them."""


def paper_comparison(scenarios: Sequence[Scenario]) -> list[dict[str, Any]]:
    """MindPower's composition (:data:`PAPER_COMPOSITION`) beside ours, row by row: ``{"row", "paper", "ours"}``
    where ``paper`` is the paper's figure (``None``: not stated) and ``ours`` counts the scenarios that need help
    (the paper's 590 all do), except the rows about controls, layouts, characters and the split."""
    items = list(scenarios)
    helped = [s for s in items if not s.control]
    c = _counts(helped)
    p = PAPER_COMPOSITION
    n_paper = p["scenarios"]

    def row(label: str, paper: Any, ours: Any) -> dict[str, Any]:
        return {"row": label, "paper": paper, "ours": ours}

    share = f"{c['dialogue'] / len(helped):.1%}" if helped else "-"
    paper_share = f"{p['dialogue'] / n_paper:.1%}" if isinstance(p["dialogue"], int) and n_paper else None
    test = sum(s.split == "test" for s in helped)
    return [
        row("scenarios that need help", n_paper, len(helped)),
        row("False-Belief Correction", p["false_belief_correction"], c["task_type"].get(TASK_TYPES[0], 0)),
        row("Implicit Goal Inference & Completion", p["implicit_goal_inference"], c["task_type"].get(TASK_TYPES[1], 0)),
        *(row(f"{k} human{'s' if k > 1 else ''}", p[f"humans_{k}"], c["humans"].get(str(k), 0)) for k in (1, 2, 3)),
        row("special needs (child, wheelchair)", p["special_needs"], sum(c["special_needs"].values())),
        row(
            "object property + functional combination",
            p["object_property_or_functional"],
            c["category"].get("object_property", 0) + c["category"].get("functional_combination", 0),
        ),
        row("dialogue-driven", p["dialogue"], c["category"].get("dialogue", 0)),
        row("dialogue share", paper_share, share),
        row("controls (no help needed)", p["controls"], sum(s.control for s in items)),
        row("layouts", p["layouts"], len({s.layout for s in items})),
        row("characters (who play the named people)", p["characters"], len(_characters(items))),
        row("named people", "not stated", len({h for s in items for h in s.humans})),
        row("test split (of those that need help)", "8:2 (counts not stated)", f"{test} of {len(helped)}"),
    ]


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

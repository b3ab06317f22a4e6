"""``mindloop data``: describe and export generated datasets (``mindpower-sim``); describe ToMBench and the
released ToM sets read from a path.

``describe NAME [--seed S] [--n N] [--json]`` prints the task mix like MindPower's B.1 statistics;
``export NAME --out DIR [--seed S] [--n N] [--json]`` writes JSONL splits and a Hugging Face dataset card; the
same seed and n give byte-identical files. ``--json`` prints one JSON object on stdout; tables go to stdout,
``wrote`` lines to stderr. Unknown dataset names and bad values raise :class:`~mindloop.errors.MindloopError`
subclasses.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Column, Table

from mindloop.cli.shared import own_group
from mindloop.console import JsonFlag, err_console, out_console, out_opt, plain_table
from mindloop.errors import InvalidArgumentError
from mindloop.registry import Registry

if TYPE_CHECKING:
    from mindloop.worlds.household.scenarios.dataset import DatasetSource

__all__ = ["DATASETS", "data_app"]

DATASETS: Registry[DatasetSource] = Registry("dataset")
"""Datasets the ``data`` commands know (imported on first use)."""
DATASETS.register(
    "mindpower-sim",
    "mindloop.worlds.household.scenarios.dataset:MINDPOWER_SIM",
    description="MindPower-style household scenarios with exact gold annotations",
)

data_app = own_group("data", no_args_is_help=True)

_Name = Annotated[str, typer.Argument(help="Dataset name (mindpower-sim).")]
_Seed = Annotated[int, typer.Option("--seed", help="Generation seed: the same seed gives the same data.")]
_N = Annotated[
    int,
    typer.Option(
        "--n", min=1, help="Scenarios that need help (default: the paper's 590); n // 5 controls come beside them."
    ),
]


def _grid(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Table:
    """A table of labelled rows: the first column left-aligned, the numbers right-aligned."""
    header = [Column(column, justify="right" if i else "left") for i, column in enumerate(columns)]
    return plain_table(header, ([str(cell) for cell in row] for row in rows), title)


def _table(title: str, counts: dict[str, Any], by_split: dict[str, dict[str, Any]], key: str) -> Table:
    rows = ([name, n, *(by_split[s][key].get(name, 0) for s in by_split)] for name, n in counts.items())
    return _grid(title, [key, "all", *by_split], rows)


@data_app.command("describe")
def describe(
    name: Annotated[
        str,
        typer.Argument(
            help="Dataset name: mindpower-sim (generated), tombench, or a released ToM set read from PATH "
            "(opentom, bigtom, mmtom-qa, fantom, exploretom, simpletom)."
        ),
    ] = "mindpower-sim",
    path: Annotated[
        Path | None,
        typer.Argument(
            help="tombench: the folder of category .jsonl files (default: $MINDLOOP_TOMBENCH); a released set: "
            "its file or folder as published."
        ),
    ] = None,
    seed: _Seed = 0,
    n: _N = 590,
    as_json: JsonFlag = False,
) -> None:
    """mindpower-sim: the paper's composition beside ours, then counts by task type, subtype, humans, special needs,
    dialogue and controls.
    tombench: stories and questions in each of OmniToM's seven categories.
    A released ToM set: its questions in all, per file and per type."""
    if name == "tombench":
        from mindloop.systems.omnitom.cli import describe_tombench

        describe_tombench(path, as_json)
        return
    from mindloop.systems.tom.label_audit import RELEASED_SETS, describe_release

    if name in RELEASED_SETS:
        if path is None:
            raise InvalidArgumentError(f"{name} is read from its release: give PATH (see docs/datasets.md)")
        counts = describe_release(name, path)
        if as_json:
            print(json.dumps(counts))
            return
        console = out_console()
        console.print(f"{name}: {counts['questions']} questions in {counts['path']}")
        for key, value in counts.items():
            if isinstance(value, dict):
                console.print(_grid(key, [key.removeprefix("by_"), "count"], value.items()))
        return
    if path is not None:
        raise InvalidArgumentError(f"dataset {name!r} is generated; PATH is for tombench and the released sets")
    stats = DATASETS.get(name).describe(seed=seed, n=n)  # an unknown name raises UnknownNameError with suggestions
    data = stats.to_dict()
    if as_json:
        print(json.dumps(data, sort_keys=True))
        return
    console = out_console()
    console.print(
        f"{name}: {stats.n} scenarios (seed {seed}), train {stats.splits['train']} / test {stats.splits['test']}; "
        f"{stats.layouts} layouts, {stats.characters} characters"
    )
    if stats.paper:
        title = "paper (MindPower, supplementary B.1) vs ours (scenarios that need help)"
        rows = ([r["row"], "not stated" if r["paper"] is None else r["paper"], r["ours"]] for r in stats.paper)
        console.print(_grid(title, ["", "paper", "ours"], rows))
    by_split = stats.by_split
    console.print(_table("task type", stats.task_type, by_split, "task_type"))
    console.print(_table("subtype", stats.subtype, by_split, "subtype"))
    console.print(_table("humans per scenario", stats.humans, by_split, "humans"))
    console.print(
        f"special needs: {', '.join(f'{k} {v}' for k, v in stats.special_needs.items()) or 'none'}; "
        f"dialogue: {stats.dialogue} ({stats.dialogue_share:.1%}); controls (no help needed): {stats.controls}"
    )


@data_app.command("export")
def export(
    name: _Name = "mindpower-sim",
    out: Annotated[Path | None, out_opt("Folder to write (created if needed).")] = None,
    seed: _Seed = 0,
    n: _N = 590,
    as_json: JsonFlag = False,
) -> None:
    """Write data/train.jsonl, data/test.jsonl, stats.json and a datasets-loadable README.md card to --out."""
    source = DATASETS.get(name)
    if out is None:
        raise InvalidArgumentError("export needs --out DIR (the folder to write the dataset to)")
    result = source.export(out, seed=seed, n=n)
    if as_json:
        print(json.dumps(result.to_dict(), sort_keys=True))
        return
    console = err_console()
    console.print(f"wrote {result.stats.n} scenarios of {name} (seed {seed}) to {out}")
    for rel, digest in result.files.items():
        console.print(f"  {rel}  sha256 {digest}")

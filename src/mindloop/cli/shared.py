"""What the command line's own command groups share: the help each shows, written once; the one way to make a
group; the one way to open the run store; the options several of them take, declared once.

``mindloop --help`` lists these groups from :data:`OWN_HELP` without importing them; each group's app is made by
:func:`own_group`, which takes its help from the same table, so the listing and the group's own ``--help`` cannot
differ. Their commands open the run store under ``MINDLOOP_HOME`` through :func:`open_store`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from mindloop.bench.store import RunStore

OWN_HELP = {
    "bench": "Run registered benchmarks and record every sample in the run store.",
    "runs": "List recorded runs (oldest first), export, tag or delete them.",
    "data": "Generated datasets with exact gold annotations: describe their task mix, export them.",
    "compare": "Compare runs (or suites) paired on the samples they share: metrics with 95% intervals and reference "
    "policies, paired differences, McNemar tests, which run is better where, and the samples where they disagree.",
    "suite": "Run every benchmark that has a model-driven agent with one model and one preset (one suite id), "
    "list suites, and report a suite as each paper's headline table.",
    "board": "One HTML page over every run and suite in the store: a leaderboard per benchmark, filters, sorting, and "
    "links to each run's report and to compare.",
}
"""The help of the command line's own lazy groups; with each system's (:data:`mindloop.systems.COMMAND_HELP`), what
``--help`` lists without importing a group (a test keeps both equal to the groups' own help)."""


TagFilter = Annotated[
    list[str] | None,
    typer.Option("--tag", metavar="TAG", help="Only runs tagged TAG (repeatable: runs carrying every one)."),
]
"""``--tag`` of the commands that select runs by tag (``runs``, ``board``): ``tag: TagFilter = None``."""

ForceResume = Annotated[
    bool,
    typer.Option(
        "--force-resume",
        help="With --resume: take the run (or the suite, with its unfinished runs) over even from a process that "
        "still looks alive (its writes are then refused). A lock whose process is gone or whose heartbeat is stale is "
        "taken over without it.",
    ),
]
"""``--force-resume`` of the commands that resume (``bench run``, ``suite run``): ``force_resume: ForceResume =
False``."""


def own_group(name: str, *, single: bool = False, **settings: Any) -> typer.Typer:
    """The app of mindloop's own command group ``name``, its help from :data:`OWN_HELP`; ``single``: a group that is
    one command (its callback), run without a subcommand, whose usage line shows none. ``settings`` go to Typer."""
    if single:
        settings = {"invoke_without_command": True, "subcommand_metavar": ""} | settings
    return typer.Typer(name=name, help=OWN_HELP[name], **settings)


def open_store(*, readonly: bool = True) -> RunStore:
    """The run store under ``MINDLOOP_HOME`` (:func:`~mindloop.paths.runs_path`): opened read-only, its folder not
    created, unless ``readonly`` is false (a command that writes to it: tag, delete)."""
    from mindloop.bench.store import RunStore
    from mindloop.paths import runs_path

    return RunStore(runs_path(create=not readonly), readonly=readonly)

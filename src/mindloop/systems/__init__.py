"""The research systems, one package each: tom, mindpower, mindclaw, omnitom, cobel, tos (see docs/architecture.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import typer

__all__ = ["COMMAND_HELP", "system_group"]

COMMAND_HELP: dict[str, str | None] = {
    "tom": "False-belief question answering on ToMi and Hi-ToM files, and label audits of released ToM datasets.",
    "mindpower": "MindPower: the Table 2 report of mindpower benchmark runs.",
    "mindclaw": "MindClaw's closed-loop runtime: play a household episode, replay or record windows, mine skills, "
    "lay out the paper's tables.",
    "claw": None,
    "omnitom": "OmniToM: score belief extraction and labelling against gold records; annotate stories with golds.",
    "cobel": "CoBel-World: play a C-WAH or TDW-MAT episode with a symbolic team and show its messages and beliefs; "
    "lay out the paper's Tables 2 and 3 from C-WAH runs.",
    "tos": "Theory-of-Space scenes: render observations, generate scenes, run explorers.",
    "space": None,
}
"""Each system's command group (``pyproject.toml``'s ``mindloop.commands``) and its help, which ``mindloop --help``
lists without importing the system; ``None`` for a hidden second name of a group. A test keeps it equal to each
group's own help."""


def system_group(name: str) -> typer.Typer:
    """The app of system ``name``'s command group, its help from :data:`COMMAND_HELP` (so it is written once)."""
    import typer  # the systems' benchmarks import this package too; only their command lines need Typer

    return typer.Typer(name=name, help=COMMAND_HELP[name], no_args_is_help=True)

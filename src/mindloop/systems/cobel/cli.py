"""``mindloop cobel``: play one CoBel-World transport episode and show what the team said and believed.

The benchmarks (``bench run cwah``/``tdw-mat``) score whole test sets; this group is for looking at one episode:
its steps, every message with its token count, and each agent's collaborative belief world in the Symbolic Belief
Language at the end (``--beliefs``).
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated

import typer

from mindloop.console import err_console

__all__ = ["cobel_app"]

cobel_app = typer.Typer(
    name="cobel",
    help="CoBel-World: play a C-WAH or TDW-MAT episode with a symbolic team and show its messages and beliefs.",
    no_args_is_help=True,
)


class _World(StrEnum):
    cwah = "cwah"
    tdw_mat = "tdw-mat"


@cobel_app.command("play")
def play(
    world: Annotated[_World, typer.Option("--world", help="Transport world.")] = _World.cwah,
    team: Annotated[
        str, typer.Option("--agents", help="Agent kinds, one per agent (cobel, heuristic, coela, capo); one fills.")
    ] = "cobel,cobel",
    episode_index: Annotated[
        int, typer.Option("--episode", min=0, help="Index into the fixed test set (C-WAH 0-9, TDW-MAT 0-23).")
    ] = 0,
    beliefs: Annotated[bool, typer.Option("--beliefs", help="Also print each agent's SBL beliefs at the end.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")] = False,
) -> None:
    """Play one episode of the fixed test set to the end and report steps, messages and communication tokens."""
    from mindloop.errors import InvalidArgumentError
    from mindloop.systems.cobel.episode import run_episode_with_agents
    from mindloop.systems.cobel.worlds.testsets import cwah_test_set, tdw_test_set

    episodes = cwah_test_set() if world is _World.cwah else tdw_test_set()
    if episode_index >= len(episodes):
        raise InvalidArgumentError(f"--episode {episode_index}: the {world.value} test set has {len(episodes)}")
    result, agents = run_episode_with_agents(episodes[episode_index], team)
    sbl: dict[str, list[str]] = {}
    if beliefs:
        for name, agent in agents.items():
            mind = agent.mind
            sbl[name] = mind.sbl() + [line for partner in mind.partners for line in mind.sbl(partner)]
    if as_json:
        print(json.dumps({**result.to_dict(), **({"beliefs": sbl} if beliefs else {})}))
        return
    console = err_console()
    done = "finished" if result.finished else "budget spent"
    console.print(
        f"{world.value} episode {episode_index} ({result.task}), team {','.join(result.team)}: {result.steps} steps, "
        f"{done}; {result.n_messages} messages, {result.comm_tokens} tokens"
        + (f"; transport rate {result.transport_rate:.3f}" if result.transport_rate is not None else "")
    )
    for m in result.messages:
        console.print(f"  t={m.t:>3} {m.sender}: {m.text} [dim]({m.tokens} tokens)[/]", highlight=False)
    for name, lines in sbl.items():
        console.print(f"\n[bold]{name}[/] believes ({len(lines)} statements):")
        for line in lines:
            console.print(f"  {line}", markup=False, highlight=False)

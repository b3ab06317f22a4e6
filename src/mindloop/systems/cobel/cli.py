"""``mindloop cobel``: play one CoBel-World transport episode and show what the team said and believed.

The benchmarks (``bench run cwah``/``tdw-mat``) score whole test sets; ``play`` is for looking at one episode:
its steps, every message with its token count, and each agent's collaborative belief world in the Symbolic Belief
Language at the end (``--beliefs``). ``table`` lays out the paper's Table 2 and Table 3 from C-WAH runs, one column
per run, every model-driven column from the same model.
"""

from __future__ import annotations

import textwrap
from typing import Annotated, Any, Literal

import typer

from mindloop.console import JsonFlag, emit_json, out_console
from mindloop.errors import InvalidArgumentError
from mindloop.systems import system_group

__all__ = ["cobel_app"]

cobel_app = system_group("cobel")


@cobel_app.command("play")
def play(
    world: Annotated[Literal["cwah", "tdw-mat"], typer.Option("--world", help="Transport world.")] = "cwah",
    team: Annotated[
        str, typer.Option("--agents", help="Agent kinds, one per agent (cobel, heuristic, coela, capo); one fills.")
    ] = "cobel,cobel",
    episode_index: Annotated[
        int, typer.Option("--episode", min=0, help="Index into the fixed test set (C-WAH 0-9, TDW-MAT 0-23).")
    ] = 0,
    beliefs: Annotated[bool, typer.Option("--beliefs", help="Also print each agent's SBL beliefs at the end.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Play one episode of the fixed test set to the end and report steps, messages and communication tokens."""
    from mindloop.systems.cobel.episode import run_episode_with_agents
    from mindloop.systems.cobel.worlds.testsets import cwah_test_set, tdw_test_set

    episodes = cwah_test_set() if world == "cwah" else tdw_test_set()
    if episode_index >= len(episodes):
        raise InvalidArgumentError(f"--episode {episode_index}: the {world} test set has {len(episodes)}")
    result, agents = run_episode_with_agents(episodes[episode_index], team)
    sbl: dict[str, list[str]] = {}
    if beliefs:
        for name, agent in agents.items():
            mind = agent.mind
            sbl[name] = mind.sbl() + [line for partner in mind.partners for line in mind.sbl(partner)]
    if as_json:
        emit_json({**result.to_dict(), **({"beliefs": sbl} if beliefs else {})})
        return
    console = out_console()
    done = "finished" if result.finished else "budget spent"
    console.print(
        f"{world} episode {episode_index} ({result.task}), team {','.join(result.team)}: {result.steps} steps, "
        f"{done}; {result.n_messages} messages, {result.comm_tokens} tokens"
        + (f"; transport rate {result.transport_rate:.3f}" if result.transport_rate is not None else "")
    )
    for m in result.messages:
        console.print(f"  t={m.t:>3} {m.sender}: {m.text} [dim]({m.tokens} tokens)[/]", highlight=False)
    for name, lines in sbl.items():
        console.print(f"\n[bold]{name}[/] believes ({len(lines)} statements):")
        for line in lines:
            console.print(f"  {line}", markup=False, highlight=False)


def _caveats(columns: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Lines under Table 2 naming what makes a column differ from the paper's: episodes cut short by
    ``--opt max_steps`` (their deviation, as the run states it) and failed episodes (counted as the step limit)."""
    lines = []
    cut: dict[str, list[str]] = {}
    for label, episodes in columns.items():
        for deviation in dict.fromkeys(str(ep["deviation"]) for ep in episodes if ep.get("deviation")):
            cut.setdefault(deviation, []).append(label)
    for deviation, labels in cut.items():
        lines.append(f"deviation ({', '.join(labels)}): {deviation}")
    for label, episodes in columns.items():
        failed = [ep for ep in episodes if ep.get("error")]
        if failed:
            first = textwrap.shorten(str(failed[0]["error"]), 160, placeholder=" …")
            lines.append(
                f"failed episodes ({label}): {len(failed)} of {len(episodes)}, each counted as the step limit; "
                f"the first: {first}"
            )
    return lines


@cobel_app.command("table")
def table(
    run_ids: Annotated[list[str], typer.Argument(help="C-WAH run ids, one column each (its team names it).")],
    as_json: JsonFlag = False,
) -> None:
    """Lay out the paper's Table 2 (C-WAH steps and communication tokens per task) and Table 3 (CoBel-World, No
    SBR, No BBC) from `bench run cwah` runs; every model-driven column must come from the same model."""
    from mindloop.bench.results import benchmark_runs
    from mindloop.models.tokens import TOKENIZER_NAME
    from mindloop.systems.cobel import metrics

    columns: dict[str, list[dict[str, Any]]] = {}
    models: dict[str, str] = {}
    refusal = "run {run_id} is a {benchmark} run: give C-WAH (cwah) runs"
    for info, records in benchmark_runs(run_ids, ("cwah", "cobel-cwah"), refusal):
        kinds = sorted({k.strip() for k in info.agent.split(",") if k.strip()})
        label = kinds[0] if len(kinds) == 1 else "+".join(kinds)
        if label in columns:
            raise InvalidArgumentError(
                f"two runs of team {label!r} ({models.get(label) or info.run_id}): give one each"
            )
        columns[label] = metrics.episode_records(records)
        if info.model:
            models[label] = info.model
    if len(set(models.values())) > 1:
        got = ", ".join(f"{k}: {v}" for k, v in models.items())
        raise InvalidArgumentError(f"the model-driven columns come from different models ({got}): rerun with one")
    counters = metrics.token_counters(columns)
    if as_json:
        emit_json({"model": next(iter(models.values()), None), "tokenizers": counters, "columns": columns})
        return
    model = next(iter(models.values()), "no model")
    print(f"Table 2 (C-WAH, symbolic observation), every model-driven column from {model}")
    by = "the model's tokenizer (server usage)" if set(counters) == {"model"} else "see the count below"
    print(metrics.table_cwah(columns, by if counters else TOKENIZER_NAME))
    counted = ", ".join(
        f"{n} messages by {'the model (server usage)' if k == 'model' else k}" for k, n in counters.items()
    )
    print(f"tokens counted: {counted or 'no messages'}")
    for line in _caveats(columns):
        print(line)
    if any(k.startswith("cobel-llm") for k in columns):
        print(f"\nTable 3 (C-WAH ablations) from {model}")
        print(metrics.table_ablation(columns))

"""``mindloop claw``: drive a household character with MindClaw watching, replay recordings, record episodes, and
mine or validate trigger skills.

* ``play`` — an interactive terminal session (or a file of typed lines, ``--lines``): you drive the people, the
  robot decides when to help; its actions run in the same world.
* ``replay PATH`` — run the runtime over a window file (``.jsonl``) or a frames folder (``sidecar.json``).
* ``record SUBTYPE --out PATH`` — write a household episode's windows (``--frames``: a frames folder).
* ``skills mine`` / ``skills validate FILE`` — the skill collection of §IV-G, as YAML.
* ``table RUN_ID ...`` — the paper's Tables II, III and IV from ``claw`` runs in the run store
  (:mod:`~mindloop.systems.mindclaw.tables`).

``--json`` prints one JSON object on stdout; human output goes to stderr.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from pathlib import Path
from typing import Annotated, Any

import typer

from mindloop.console import JsonFlag, emit, emit_json, emit_table, err_console, out_console, out_opt, plain_table
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems import system_group

__all__ = ["describe_step", "mindclaw_app"]

mindclaw_app = system_group("mindclaw")
skills_app = typer.Typer(help="Trigger skills: mine them from rollouts, validate an edited file.", no_args_is_help=True)
mindclaw_app.add_typer(skills_app, name="skills")

_Seed = Annotated[int, typer.Option("--seed", help="Scenario / dataset seed.")]


def describe_step(step: Any) -> str:
    """One line per window: the operations (belief writes counted), reasoning, action and execution."""
    writes = sum(1 for op in step.ops if op.is_belief)
    parts = [f"{writes} belief write{'s' if writes != 1 else ''}"] if writes else []
    for r in step.reasoning:
        parts.append(f"reasoning({r.actor}, {r.object}): {r.context}, {'intervene' if r.warranted else 'silent'}")
    if not step.action.is_none:
        parts.append(f"action: {step.action}")
    if step.execution is not None:
        parts.append("executed" if step.execution.ok else f"execution: {step.execution.message or 'a step failed'}")
    parts += [f"failure: {f}" for f in step.failures]
    return "; ".join(parts) or "noop"


def _engine(agent: str, skills: str) -> Any:
    from mindloop.systems.mindclaw.agents import build_engine, resolve_skills

    if agent not in ("symbolic", "classifier"):
        raise InvalidArgumentError(f"--agent must be symbolic or classifier here, got {agent!r}")
    return build_engine(agent, skills=resolve_skills(skills, agent))


@mindclaw_app.command("play")
def play(
    subtype: Annotated[str, typer.Option("--subtype", help="Start from this scenario's home and people.")] = (
        "fb_two_humans"
    ),
    seed: _Seed = 0,
    index: Annotated[int, typer.Option("--index", help="Scenario index for the seed.")] = 0,
    lines: Annotated[
        Path | None, typer.Option("--lines", help="Read the typed lines from this file instead of the terminal.")
    ] = None,
    trace: Annotated[Path | None, typer.Option("--trace", help="Write the trace (one tau_t per line) here.")] = None,
    agent: Annotated[str, typer.Option("--agent", help="symbolic or classifier")] = "symbolic",
    as_json: JsonFlag = False,
) -> None:
    """Drive the household's people by typing actions (type help); MindClaw watches and helps when needed."""
    from mindloop.datafiles import read_text_file
    from mindloop.systems.mindclaw.engine import save_trace
    from mindloop.systems.mindclaw.sources.human import HELP, TerminalSource
    from mindloop.worlds.household.scenarios import generate_scenario

    console = out_console()  # the episode as it is played is the result (typed lines come from stdin)
    scenario = generate_scenario(subtype, seed, index)
    typed = None
    if lines is not None:
        typed = read_text_file(lines, what="the typed lines").splitlines()
    source = TerminalSource(scenario, typed, read=lambda p: console.input(p), say=lambda m: console.print(m))
    engine = _engine(agent, "auto")
    setup = scenario.setup
    if not as_json:
        people = ", ".join(f"{h} in the {r.replace('_', ' ')}" for h, r in setup.humans)
        console.print(f"[bold]{setup.layout.replace('_', ' ')}[/]: {people}. Type help for commands, quit to stop.")
        if typed is None:
            console.print(HELP)

    def show(step: Any) -> None:
        if as_json:
            return
        if step.text:
            console.print(step.text)
        console.print(f"  [dim]MindClaw t{step.t}:[/] {describe_step(step)}")

    steps = engine.run_now(source, on_step=show)
    if trace is not None:
        save_trace(steps, trace)
    actions = [
        {"t": s.t, "steps": list(s.action.steps), "ok": bool(s.execution and s.execution.ok)}
        for s in steps
        if not s.action.is_none
    ]
    if as_json:
        emit_json({"windows": len(steps), "actions": actions, "trace": [s.to_dict() for s in steps]})


def _source(path: Path) -> Any:
    from mindloop.systems.mindclaw.sources.replay import FramesFolderSource, JsonlReplaySource

    if path.is_dir():
        return FramesFolderSource(path)
    if path.is_file():
        return JsonlReplaySource(path)
    raise InvalidArgumentError(f"{path} is neither a window file (.jsonl) nor a frames folder")


@mindclaw_app.command("replay")
def replay(
    path: Annotated[Path, typer.Argument(help="A window file (.jsonl) or a frames folder with sidecar.json.")],
    agent: Annotated[str, typer.Option("--agent", help="symbolic or classifier")] = "symbolic",
    skills: Annotated[str, typer.Option("--skills", help="auto, default, off or a skills YAML file")] = "auto",
    trace: Annotated[Path | None, typer.Option("--trace", help="Write the trace (one tau_t per line) here.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Run MindClaw over recorded windows (nothing is executed: a recording cannot act)."""
    from mindloop.systems.mindclaw.engine import save_trace

    source = _source(path)
    engine = _engine(agent, skills)
    console = out_console()

    def show(step: Any) -> None:
        if not as_json:
            console.print(f"t{step.t:<3} {describe_step(step)}")

    steps = engine.run_now(source, on_step=show)
    if not steps:  # nothing replayed is not a result
        raise ParseError("no windows to replay (an empty recording)", source=str(path))
    if trace is not None:
        save_trace(steps, trace)
    out: dict[str, Any] = {
        "windows": len(steps),
        "operations": sum(len(s.ops) for s in steps),
        "actions": [{"t": s.t, "steps": list(s.action.steps)} for s in steps if not s.action.is_none],
        "failures": [f"t{s.t}: {f}" for s in steps for f in s.failures],
    }
    if as_json:
        emit_json(out)
    else:
        console.print(f"{out['windows']} windows, {out['operations']} operations, {len(out['actions'])} action(s)")


@mindclaw_app.command("record")
def record(
    subtype: Annotated[str, typer.Argument(help="Scenario subtype (e.g. fb_two_humans).")],
    out: Annotated[Path, out_opt("Window file (.jsonl), or a folder with --frames.")],
    seed: _Seed = 0,
    index: Annotated[int, typer.Option("--index", help="Scenario index for the seed.")] = 0,
    frames: Annotated[bool, typer.Option("--frames", help="Write a frames folder (one picture per window).")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Record a household episode (the robot silent) as windows to replay later."""
    from mindloop.systems.mindclaw.sources.household import HouseholdSource
    from mindloop.systems.mindclaw.sources.replay import record_frames_folder, record_windows
    from mindloop.worlds.household.scenarios import generate_scenario

    source = HouseholdSource(generate_scenario(subtype, seed, index))
    n = record_frames_folder(source, out) if frames else record_windows(source.windows(), out)
    if as_json:
        emit_json({"windows": n, "path": str(out)})
    else:
        err_console().print(f"wrote {n} windows to {out}")


@skills_app.command("mine")
def skills_mine(
    out: Annotated[Path | None, out_opt("Skills YAML to write (default: stdout).")] = None,
    seed: _Seed = 0,
    dataset_n: Annotated[int, typer.Option("--dataset-n", min=5, help="mindpower-sim size before the split.")] = 590,
    model: Annotated[
        str | None, typer.Option("--model", help="Summarise with this model instead of the miner.")
    ] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="The model's endpoint.")] = None,
    format_retries: Annotated[
        int,
        typer.Option(
            "--format-retries",
            min=0,
            help="Times a summariser reply with no usable SKILL line goes back to the model with the reason.",
        ),
    ] = 1,
    as_json: JsonFlag = False,
) -> None:
    """Mine skills from teacher-forced rollouts of the train split (rule miner, or --model summariser)."""
    from mindloop.models.base import ModelOptions, RecordingModel, load_model
    from mindloop.models.replies import reply_outcomes
    from mindloop.systems.mindclaw.agents import mine_default, training_decisions
    from mindloop.systems.mindclaw.mining import require_skills, summarise_skills

    failures: list[str] = []
    replies: dict[str, int] | None = None
    if model is None:
        skills = mine_default(seed, dataset_n)
    else:
        chat = RecordingModel(load_model(model, ModelOptions(base_url=base_url)))

        async def go() -> Any:
            async with aclosing(chat):
                return await summarise_skills(chat, training_decisions(seed, dataset_n), retries=format_retries)

        skills, failures = asyncio.run(go())
        replies = reply_outcomes(chat.calls)
    skills = require_skills(skills, failures, f"the summariser model {model}" if model else "the rule miner")
    text = skills.to_yaml()
    if out is not None or not as_json:  # to the file (whole or not at all), else stdout unless the JSON goes there
        emit(text, out)
    counts = {k: sum(1 for s in skills.skills if s.kind == k) for k in ("strong", "preferred", "negative")}
    if as_json:
        shown: dict[str, Any] = {"skills": len(skills), **counts, "path": str(out) if out else None}
        if replies is not None:
            shown["replies"] = replies
        emit_json({**shown, "failures": failures})
        return
    how = ""
    if replies is not None:
        how = (
            f"; model replies: {replies['parsed']} read, {replies['rejected']} refused, "
            f"{replies['retries']} format retries"
        )
    err_console().print(
        f"{len(skills)} skills ({counts['strong']} strong, {counts['preferred']} preferred, "
        f"{counts['negative']} negative); {len(failures)} unusable model lines{how}"
    )


@skills_app.command("validate")
def skills_validate(
    path: Annotated[Path, typer.Argument(help="A skills YAML file.")],
    seed: _Seed = 0,
    dataset_n: Annotated[int, typer.Option("--dataset-n", min=5, help="mindpower-sim size before the split.")] = 590,
    write: Annotated[bool, typer.Option("--write", help="Store the measured support and precision in the file.")] = (
        False
    ),
    as_json: JsonFlag = False,
) -> None:
    """Re-measure every skill's support and precision on the train split's decisions."""
    from mindloop.systems.mindclaw.agents import training_decisions
    from mindloop.systems.mindclaw.skills import load_skills, validate_skills

    skills = validate_skills(load_skills(path), training_decisions(seed, dataset_n))
    if write:
        skills.save(path)
    rows = [
        {"id": s.id, "op": s.op, "kind": s.kind, "support": s.support, "precision": round(s.precision or 0.0, 4)}
        for s in skills.skills
    ]
    if as_json:
        emit_json({"skills": rows})
        return
    cells = [(str(r["id"]), str(r["op"]), str(r["kind"]), str(r["support"]), f"{r['precision']:.4f}") for r in rows]
    out_console().print(plain_table(("id", "operation", "kind", "support", "precision"), cells))


@mindclaw_app.command("table")
def table(
    run_ids: Annotated[list[str], typer.Argument(help="claw runs (any agents and settings), in row order.")],
    as_json: JsonFlag = False,
    out: Annotated[Path | None, out_opt("Write the tables here instead of stdout.", dir_okay=False)] = None,
) -> None:
    """Tables II (TA, PIA, CS), III (belief-table ablation) and IV (trigger ACC without / with skills) of runs."""
    from mindloop.bench.results import benchmark_runs
    from mindloop.systems.mindclaw.benchmarks import summarize_claw
    from mindloop.systems.mindclaw.tables import paper_rows, render_tables

    runs: dict[str, dict[str, Any]] = {}
    for info, records in benchmark_runs(run_ids, ("claw",), "run {run_id} is a {benchmark!r} run, not a claw run"):
        runs[info.run_id] = {"agent": info.agent, "model": info.model, "summary": summarize_claw(records)}
    rows = paper_rows(runs)
    emit_table(render_tables(rows), rows, as_json, out, f"the tables of {len(runs)} run(s)")

"""``mindloop demo``: MindClaw's closed loop on a false-belief episode in the household world, as a live timeline.

One person puts a thing in the fridge and leaves; another moves it to a cupboard; the first comes back and searches
(the people and things named as the story's dressed home names them). Window by window the timeline shows what
the robot perceived, the belief-table writes its trigger chose, the moment the first person's belief goes stale,
the silence while that blocks nobody, the reasoning when they come back searching, the one helpful action —
executed in the simulator — and its effect. Then the episode is recorded as a ``claw`` run in the run store and its
HTML report written. Symbolic runtime only: no model, no network. When ``MINDLOOP_HOME`` cannot be written the
timeline is still shown, then one line names the folder (exit 1).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from mindloop.bench.timeline import names_in

if TYPE_CHECKING:
    from mindloop.systems.mindclaw.engine import Engine, StepTrace
    from mindloop.systems.mindclaw.records import ReasoningRecord
    from mindloop.systems.mindclaw.sources import HouseholdSource

DEMO_SCENARIO = ("fb_two_humans", 0, 0)
"""``generate_scenario(*DEMO_SCENARIO)``: the false-belief episode the demo plays (docs/household.md's example)."""


def _row(t: str, world: str | Text, mind: str | Text, width: int) -> Table:
    grid = Table.grid(padding=(0, 1))
    left = max(38, int(width * 0.45))
    grid.add_column(width=3, justify="right", style="dim")
    grid.add_column(width=left)
    grid.add_column(width=max(30, width - left - 6))
    grid.add_row(t, world, mind)
    return grid


def run_demo(console: Console | None = None, *, record: bool = True) -> dict[str, Any]:
    """Play the demo episode, print the timeline, record the run (when ``record``) and return what happened:
    ``{"trace", "helped_at", "goal_met", "run_id", "report"}``."""
    from mindloop.systems.mindclaw import HouseholdSource, build_engine, default_skills
    from mindloop.worlds.household.scenarios import generate_scenario

    if console is None:  # the timeline's columns need 100; COLUMNS or the terminal, up to 160
        from mindloop.console import output_width

        console = Console(width=min(160, max(100, output_width(sys.stdout))), highlight=False)
    scenario = generate_scenario(*DEMO_SCENARIO)
    source = HouseholdSource(scenario)
    engine = build_engine("symbolic", skills=default_skills())
    timeline = _Timeline(console, scenario, source, engine)
    out = timeline.out

    console.rule("[bold]mindloop demo[/]: MindClaw, closed loop — help only when help is useful")
    console.print(
        "A household simulator streams what the robot's camera sees, one window per step. For each window "
        "MindClaw's trigger chooses what to do: write the belief table, reason about a person, act, or nothing "
        "(noop). An action is executed in the simulator, and the next window shows its effect. Symbolic runtime, "
        "no model.\n"
    )
    console.print(
        _row(
            "t",
            Text("what the robot perceives", style="bold"),
            Text("what MindClaw does", style="bold"),
            timeline.width,
        )
    )
    out["trace"] = engine.run_now(source, on_step=timeline.show)
    helped = out["helped_at"]
    console.print()
    if helped is not None:
        from mindloop.worlds.household.actions import Action, parse_action

        give = parse_action(scenario.gold.actions[-1])  # give(item, person): the help the episode needs
        assert isinstance(give, Action) and source.episode is not None, give
        thing, person = (source.episode.world.name(eid) for eid in give.args)
        console.print(
            f"[bold]One intervention[/], at window {helped}, the moment {person} came back searching; silent before "
            f"and after. The {thing} is {'with' if out['goal_met'] else 'not with'} {person}."
        )
    if record:
        _record(console, scenario, out)
    return out


class _Timeline:
    """Prints one row per window: what the robot perceived beside what MindClaw did (writes, stale beliefs it
    noticed, reasoning, the action and its effect, or why it stayed silent); collects what happened in ``out``."""

    def __init__(self, console: Console, scenario: Any, source: HouseholdSource, engine: Engine) -> None:
        self.console = console
        self.width = console.width
        self.scenario = scenario
        self.source = source
        self.engine = engine
        self.stale_seen: set[tuple[str, str, str]] = set()
        self.out: dict[str, Any] = {"helped_at": None, "goal_met": False, "run_id": None, "report": None}

    def show(self, step: StepTrace) -> None:
        """Print the row of one window (the engine's ``on_step`` callback)."""
        world = self.source.episode.world if self.source.episode is not None else None
        assert world is not None
        seen = step.text or ("(the home at the start)" if step.t == 0 else "(nothing happens)")
        mind = Text()
        writes = [op for op in step.ops if op.is_belief]
        if writes:
            parts = []
            for op in writes:
                who = "robot sees" if op.actor == "none" else f"{world.name(op.actor)} believes"
                parts.append(f"{who} {world.name(op.object)} → {world.name(op.location)}")
            mind.append("write  ", style="cyan")
            mind.append("; ".join(parts) + "\n")
        stale_now = self._stale(mind, world)
        for r in step.reasoning:
            self._reasoning(mind, world, r)
        if not step.action.is_none:
            self._action(mind, world, step)
        elif not step.reasoning:
            if stale_now:
                mind.append("noop   ", style="dim")
                who = " and ".join(sorted({world.name(a) for a, _, _ in stale_now}))
                mind.append(f"silent: {who}'s stale belief blocks nobody\n", style="dim")
            elif not writes:
                mind.append("noop\n", style="dim")
        mind.rstrip()
        self.console.print(_row(str(step.t), seen, mind, self.width))

    def _stale(self, mind: Text, world: Any) -> set[tuple[str, str, str]]:
        """Announce the beliefs that went stale in this window; returns every stale belief now."""
        table = self.engine.memory.table
        stale_now = {(s.actor, s.object, s.believed) for s in table.stale()} if table is not None else set()
        for actor, obj, believed in sorted(stale_now - self.stale_seen):
            actual = table.visual(obj) if table is not None else None
            mind.append("stale  ", style="bold red")
            mind.append(
                f"{world.name(actor)} still believes the {world.name(obj)} is {world.where(believed)}; "
                f"it is {world.where(actual) if actual else 'elsewhere'}\n"
            )
        self.stale_seen.update(stale_now)
        return stale_now

    @staticmethod
    def _reasoning(mind: Text, world: Any, r: ReasoningRecord) -> None:
        mind.append("reason ", style="bold yellow")
        who = world.name(r.actor)
        person = world.chars.get(r.actor)
        subj, poss = (person.subj, person.poss) if person is not None else ("they", "their")
        if r.context == "false_belief" and r.believed:
            where = world.where(r.seen) if r.seen else "out of my sight"
            mind.append(
                f"{who} is searching for the {world.name(r.object)}: {subj} believes it is "
                f"{world.where(r.believed)}, but it is {where}. The false belief blocks {poss} search"
                if r.warranted
                else f"{who}'s belief about the {world.name(r.object)} is stale, but it blocks nothing"
            )
        else:
            mind.append(
                names_in(r.text, {eid: world.name(eid) for eid in (*world.places, *world.items, *world.humans)})
            )
        mind.append(" → intervene\n" if r.warranted else " → stay silent\n", style="bold")

    def _action(self, mind: Text, world: Any, step: StepTrace) -> None:
        """The helpful action, and its effect once executed in the simulator."""
        from mindloop.worlds.household.goals import goal_satisfied

        mind.append("act    ", style="bold green")
        mind.append(str(step.action) + "\n")
        if step.execution is not None:
            ok = "every step executed" if step.execution.ok else "a step failed"
            goal = self.scenario.goal
            episode = self.source.episode
            met = goal_satisfied(goal, world, episode.tracker if episode else None)
            self.out["goal_met"] = met
            mind.append("effect ", style="bold green")
            has = "now has" if met else "still lacks"
            human, target = world.name(goal.human), world.name(goal.target)
            mind.append(f"{ok} in the simulator; {human} {has} the {target}\n")
        self.out["helped_at"] = step.t


def _record(console: Console, scenario: Any, out: dict[str, Any]) -> None:
    """Record the episode as a one-sample ``claw`` run and write its HTML report."""
    import json

    from mindloop.bench.report import write_report
    from mindloop.bench.runner import RunRequest, run_benchmark
    from mindloop.bench.store import RunStore
    from mindloop.errors import MindloopError, RegistryError
    from mindloop.paths import home, runs_path

    folder = home() / "demo"
    data = folder / "demo_episode.jsonl"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        data.write_text(json.dumps(scenario.to_dict(), sort_keys=True) + "\n", encoding="utf-8")
    except OSError as exc:  # a read-only home: the episode was shown, it cannot be recorded (exit 1)
        raise MindloopError(
            f"cannot record the demo run in {folder} ({exc.strerror or exc}): point MINDLOOP_HOME at a writable folder"
        ) from None
    try:
        summary = run_benchmark(RunRequest("claw", agent="symbolic", n=1, options={"data": str(data)}), progress=False)
    except RegistryError:
        console.print(
            f"\nTo record this episode and get its HTML report: [bold]mindloop bench run claw --data {data}[/], then "
            "[bold]mindloop report RUN_ID[/]."
        )
        return
    with RunStore(runs_path(), readonly=True) as store:
        report = write_report(summary.run_id, store, folder / f"{summary.run_id}.html")
    m = {k: "–" if v is None else f"{v:.2f}" for k, v in summary.metrics.items() if isinstance(v, float | None)}
    out["run_id"], out["report"] = summary.run_id, str(report)
    console.print(  # a fraction with nothing to count (CS without an intervention) is None: shown as –
        f"Recorded as run [bold]{summary.run_id}[/]: TA {m['ta']}, PIA {m['pia']}, CS {m['cs']}, "
        f"trigger ACC {m['acc']} (ACC w/o noop {m['acc_no_noop']})."
    )
    console.print(f"HTML report: [bold]{Path(report).resolve()}[/]")
    console.print(
        "Next: [bold]mindloop bench run claw --json[/] runs all 118 test episodes; "
        "[bold]--agent classifier[/] the trained trigger beside it."
    )

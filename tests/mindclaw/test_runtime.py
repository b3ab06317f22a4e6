"""The runtime on real household episodes: observation, cues, the trigger loop, reasoning, action, the trace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mindloop.errors import InvalidArgumentError
from mindloop.systems.mindclaw import (
    ActionPlan,
    Decision,
    Engine,
    HouseholdSource,
    Operation,
    SymbolicActionGenerator,
    SymbolicObserver,
    SymbolicReasoner,
    Trigger,
    build_engine,
    default_skills,
    load_trace,
    save_trace,
)
from mindloop.systems.mindclaw.context import TriggerContext, WindowState
from mindloop.systems.mindclaw.cues import find_cues
from mindloop.systems.mindclaw.engine import run_without_io
from mindloop.systems.mindclaw.memory import Memory
from mindloop.worlds.household.scenarios import Scenario, generate_scenario


def test_observation_describes_and_never_decides(lily: Scenario) -> None:
    obs = SymbolicObserver()
    seen = [run_without_io(obs.observe(w)) for w in HouseholdSource(lily).windows()]
    eight = seen[8]
    assert [(m.object, m.location, m.witnesses) for m in eight.moves] == [("apple", "sarah", ("sarah",))]
    assert eight.handled == ((0, "apple"),) and not eight.quiet
    assert seen[20].quiet and seen[20].events == ()  # the quiet windows after the script
    log = seen[-1].activity
    lily_acts = [a.verb for a in log.of("lily") if a.t > log.since_entry("lily")]
    assert lily_acts == ["open", "close", "walkaround", "open", "close"]  # since she came back at window 14
    assert "searching" not in eight.summary() and set(eight.summary()) == {"events", "moves", "present", "quiet"}


def _cues_by_window(scenario: Scenario) -> dict[int, list[tuple[str, str, str, str]]]:
    """Cues each window shows when the belief table holds exactly the gold writes (teacher forcing by hand)."""
    engine = build_engine("symbolic", skills=default_skills())
    out = {}
    for w in HouseholdSource(scenario).windows():
        engine.step_now(w)
        state = WindowState(w, engine.trace[-1].observation, Memory(engine.memory.table))
        out[w.t] = [
            (c.context, c.actor, c.object, c.detail) for c in find_cues(state.observation, state.memory.table, None)
        ]
    return out


def test_the_false_belief_cue_appears_when_lily_searches(lily: Scenario) -> None:
    cues = _cues_by_window(lily)
    assert all(cues[t] == [] for t in range(15))  # stale since 8, but Lily is away, then only just back (14)
    assert cues[15] == [("false_belief", "lily", "apple", "fridge")]


def test_symbolic_runtime_helps_once_at_the_right_moment(lily: Scenario, symbolic: Engine) -> None:
    source = HouseholdSource(lily)
    trace = symbolic.run_now(source)
    acted = [s for s in trace if not s.action.is_none]
    assert [s.t for s in acted] == [15]
    step = acted[0]
    assert [str(op) for op in step.ops] == [
        "reasoning_run(lily, apple, none)",
        "action_run(lily, apple, none)",
        "noop(none, none, none)",
    ]
    # the plan is the household planner's gold plan, made independently from the world
    assert step.action.steps == lily.gold.actions
    assert step.execution is not None and step.execution.ok
    assert source.episode is not None and source.episode.world.holder_of("apple") == "lily"
    r = step.record
    assert r is not None and (r.context, r.believed, r.seen, r.warranted) == (
        "false_belief",
        "fridge",
        "kitchen_cabinet",
        True,
    )
    # the next window shows the effect, and the robot's table follows it through its own trigger operations
    effect = trace[16]
    assert "The robot gives the apple to Lily." in effect.text
    assert "belief_update_visual_fact(none, apple, lily)" in [str(op) for op in effect.ops]
    # belief-table writes only ever happen through operations: the table equals the replay of the belief ops
    replay = Memory.fresh().table
    assert replay is not None
    for s in trace:
        for op in s.ops:
            if op.verb.startswith("belief_create_visual") or op.verb.startswith("belief_update_visual"):
                replay.write_visual(op.object, op.location, t=s.t)
            elif op.is_belief:
                replay.write_actor(op.actor, op.object, op.location, t=s.t)
    assert symbolic.memory.table is not None and replay.to_dict() == symbolic.memory.table.to_dict()


@pytest.mark.parametrize(
    "kind",
    [
        "fb_control_not_needed",
        "fb_control_witnessed",
        "ig_control_combo_complete",
        "ig_control_dialogue_self_served",
        "ig_control_faucet_off",
    ],
)
def test_controls_stay_silent(kind: str, symbolic: Engine) -> None:
    for index in range(3):
        trace = symbolic.run_now(HouseholdSource(generate_scenario(kind, 0, index)))
        assert all(s.action.is_none for s in trace), kind


HELP_KINDS = [
    "ig_child_reach",
    "ig_wheelchair_blocked",
    "ig_faucet_running",
    "ig_power_cut_candle",
    "ig_functional_combo",
    "ig_dialogue_need",
    "fb_camera_blind",
]


@pytest.mark.parametrize("kind", HELP_KINDS)
def test_implicit_goals_are_met_in_the_simulator(kind: str, symbolic: Engine) -> None:
    from mindloop.worlds.household.goals import goal_satisfied

    s = generate_scenario(kind, 0, 3)
    source = HouseholdSource(s)
    trace = symbolic.run_now(source)
    acted = [x for x in trace if not x.action.is_none]
    assert len(acted) == 1, kind
    assert source.episode is not None
    assert goal_satisfied(s.goal, source.episode.world, source.episode.tracker), kind
    if kind == "fb_camera_blind":  # the robot saw the apple carried out of view: it can only tell her
        assert acted[0].action.steps[-1].startswith("remind(")


class _Scripted:
    """A policy that returns the given operations in turn (then noop); only at window ``at`` when given."""

    name = "scripted"

    def __init__(self, ops: list[Operation | None], at: int | None = None) -> None:
        self.ops: Iterator[Operation | None] = iter(ops)
        self.at = at

    async def decide(self, ctx: TriggerContext, skills: object) -> Decision:
        if self.at is not None and ctx.t != self.at:
            return Decision(Operation("noop"), "policy:scripted")
        op = next(self.ops, Operation("noop"))
        return Decision(op, "policy:scripted", "" if op is not None else "scripted failure")


def _engine(ops: list[Operation | None], at: int | None = None, **kw: object) -> Engine:
    trigger = Trigger(None, _Scripted(ops, at))
    return Engine(SymbolicObserver(), trigger, SymbolicReasoner(), SymbolicActionGenerator(), **kw)  # type: ignore[arg-type]


def test_engine_records_invalid_slots_and_failures(lily: Scenario) -> None:
    windows = list(HouseholdSource(lily).windows())
    engine = _engine([Operation("belief_create_visual_fact", "none", "apple", "the_moon")])
    step = engine.step_now(windows[3])
    assert step.ops == [] and "invalid slot" in step.failures[0] and "the_moon" in step.failures[0]
    engine = _engine([None])
    assert engine.step_now(windows[3]).failures == ["z1: scripted failure"]
    engine = _engine([Operation("belief_create_visual_fact", "none", "apple", "fridge")] * 5, max_ops=3)
    step = engine.step_now(windows[3])
    assert len(step.ops) == 3 and "without noop" in step.failures[-1]
    with pytest.raises(InvalidArgumentError):
        _engine([], max_ops=0)


def test_action_needs_warranted_reasoning_in_the_same_window(lily: Scenario) -> None:
    windows = list(HouseholdSource(lily).windows())
    engine = _engine([Operation("action_run", "lily", "apple")])
    step = engine.step_now(windows[15])
    assert step.action.is_none and "reasoning precedes action" in step.action.text
    engine = _engine([Operation("reasoning_run", "sarah", "apple"), Operation("action_run", "sarah", "apple")], 15)
    for w in windows[:16]:
        step = engine.step_now(w)
    record = step.record
    assert record is not None and not record.warranted and step.action.is_none  # Sarah is not searching


def test_no_belief_table_ablation_cannot_see_the_false_belief(lily: Scenario) -> None:
    engine = build_engine("symbolic", skills=default_skills(), belief_table=False)
    trace = engine.run_now(HouseholdSource(lily))
    assert engine.memory.table is None
    assert all(s.action.is_none for s in trace)
    assert any(op.is_belief for s in trace for op in s.ops)  # operations are still chosen (and traced)


def test_trace_is_stored(lily: Scenario, symbolic: Engine, tmp_path: Path) -> None:
    trace = symbolic.run_now(HouseholdSource(lily))
    save_trace(trace, tmp_path / "t.jsonl")
    back = load_trace(tmp_path / "t.jsonl")
    assert len(back) == len(trace)
    tau = back[15]
    assert set(tau) == {"t", "text", "o", "z", "by", "r", "a", "e", "failures"}
    assert tau["z"][0] == "reasoning_run(lily, apple, none)" and tau["r"][0]["warranted"] is True
    assert tau["a"]["steps"][-1] == "give(apple, lily)" and tau["e"]["ok"] is True
    assert tau["by"][0].startswith("skill:reasoning_run")


def test_run_sync_refuses_components_that_wait() -> None:
    import asyncio

    async def waits() -> int:
        await asyncio.sleep(0)
        return 1

    with pytest.raises(InvalidArgumentError, match="async API"):
        run_without_io(waits())
    assert ActionPlan().is_none

"""The Engine (§IV-B, §IV-D): the closed loop, one window at a time, traced as ``tau_t = (o_t, z_t^(1..K), r_t,
a_t, e_t)`` (eq. (1)).

Per window the order is fixed: observation first; then the trigger loop, each operation executed as it is chosen
(belief operations write the belief table — nothing else does —, ``reasoning_run`` calls Mental Reasoning,
``action_run`` calls Action Generation, ``noop`` ends the loop); then, if the window produced an action, the
source executes it and the next window shows its effect. Every step is kept in :attr:`Engine.trace` and can be
written to a JSONL file (:func:`save_trace`).

Components may be synchronous in effect (the symbolic ones never wait): :meth:`Engine.run_now` drives the same
loop without an event loop, which is what the ≥ 2,000 windows/s figure of ``benchmarks/bench_claw.py`` measures.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from mindloop.datafiles import iter_json_lines
from mindloop.errors import InvalidArgumentError
from mindloop.systems.mindclaw.actions import ActionGenerator
from mindloop.systems.mindclaw.context import TriggerContext, WindowState
from mindloop.systems.mindclaw.memory import HistoryEntry, Memory
from mindloop.systems.mindclaw.observation import Observation, Observer
from mindloop.systems.mindclaw.operations import (
    ACTION_RUN,
    NOOP,
    REASONING_RUN,
    Operation,
)
from mindloop.systems.mindclaw.reasoning import Reasoner
from mindloop.systems.mindclaw.records import ActionPlan, ExecutionResult, ReasoningRecord
from mindloop.systems.mindclaw.sources.base import WindowSource
from mindloop.systems.mindclaw.trigger import Trigger
from mindloop.systems.mindclaw.window import Window

_T = TypeVar("_T")


def run_without_io(coro: Coroutine[Any, Any, _T]) -> _T:
    """Run a coroutine that never waits (symbolic components) to completion without an event loop: no loop is made
    per call, which teacher forcing's thousands of steps would pay for. A coroutine that does wait (a model call)
    needs :func:`mindloop.models.base.run_sync`, which runs a loop."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise InvalidArgumentError("a component waited on I/O: use the async API (Engine.run) for model components")


@dataclass
class StepTrace:
    """``tau_t``: the observation, the operations chosen (and by what), the reasoning records, the action, the
    execution result and any failures (malformed model output, invalid slots) of window ``t``."""

    t: int
    observation: Observation
    ops: list[Operation] = field(default_factory=list)
    decided_by: list[str] = field(default_factory=list)
    reasoning: list[ReasoningRecord] = field(default_factory=list)
    action: ActionPlan = field(default_factory=ActionPlan)
    execution: ExecutionResult | None = None
    failures: list[str] = field(default_factory=list)
    text: str = ""

    @property
    def record(self) -> ReasoningRecord | None:
        """``r_t``: the window's last reasoning record (``None`` when reasoning did not run)."""
        return self.reasoning[-1] if self.reasoning else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``tau_t``."""
        return {
            "t": self.t,
            "text": self.text,
            "o": self.observation.summary(),
            "z": [str(op) for op in self.ops],
            "by": list(self.decided_by),
            "r": [r.to_dict() for r in self.reasoning],
            "a": self.action.to_dict(),
            "e": self.execution.to_dict() if self.execution is not None else None,
            "failures": list(self.failures),
        }


@dataclass(eq=False, repr=False)
class Engine:
    """Observer, trigger, reasoner and action generator around one memory (see the module docstring).

    ``belief_table=False`` is the no-belief-table ablation (belief operations are still chosen, and traced, but
    have nowhere to go). ``max_ops`` caps the trigger loop of one window; ``history`` is how many entries the
    memory's operation history keeps.
    """

    observer: Observer
    trigger: Trigger
    reasoner: Reasoner
    actor: ActionGenerator
    _: KW_ONLY
    belief_table: bool = True
    max_ops: int = 16
    history: int = 64
    memory: Memory = field(init=False)
    trace: list[StepTrace] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        if self.max_ops < 1:
            raise InvalidArgumentError(f"max_ops must be at least 1, got {self.max_ops}")
        self.memory = Memory.fresh(belief_table=self.belief_table, history=self.history)

    def reset(self) -> None:
        """Start a new episode: empty memory, empty trace, a fresh observer."""
        self.memory = Memory.fresh(belief_table=self.belief_table, history=self.history)
        self.observer.reset()
        self.trace = []

    async def step(self, window: Window) -> StepTrace:
        """Process one window: observe, run the trigger loop, return ``tau_t`` (without ``e_t``)."""
        o = await self.observer.observe(window)
        trace = StepTrace(window.t, o, text=window.text)
        if o.error:
            trace.failures.append(o.error)
        state = WindowState(window, o, self.memory)
        history = self.memory.history
        t = window.t
        record: ReasoningRecord | None = None
        for _ in range(self.max_ops):
            ctx = TriggerContext(state, tuple(trace.ops), record)
            decision = await self.trigger.decide(ctx)
            trace.decided_by.append(decision.by)
            op, error = decision.checked(window.candidates)
            if op is None:
                trace.failures.append(f"z{len(trace.ops) + 1}: {error}")
                break
            trace.ops.append(op)
            self.memory.apply(op, t)
            verb = op.verb
            if verb == REASONING_RUN:
                record = await self.reasoner.reason(ctx, op.actor, op.object)
                trace.reasoning.append(record)
                if record.error:
                    trace.failures.append(record.error)
                self.memory.reasoned(op, t, record)
            elif verb == ACTION_RUN:
                plan = await self.actor.act(ctx, record, op.actor, op.object)
                if plan.error:
                    trace.failures.append(plan.error)
                if not plan.is_none or trace.action.is_none:
                    trace.action = plan
                history.add(HistoryEntry(t, "action", str(op), op.actor, op.object, (("plan", str(plan)),)))
            elif verb == NOOP:
                break
        else:
            trace.failures.append(f"the trigger loop chose {self.max_ops} operations without noop")
        self.trace.append(trace)
        return trace

    def _executed(self, trace: StepTrace, result: ExecutionResult) -> None:
        trace.execution = result
        self.memory.history.add(
            HistoryEntry(
                trace.t,
                "execution",
                str(trace.action),
                trace.action.actor,
                trace.action.object,
                (("ok", str(result.ok)), ("executed", str(result.executed))),
            )
        )

    async def run(self, source: WindowSource, *, on_step: Callable[[StepTrace], None] | None = None) -> list[StepTrace]:
        """Run a whole episode from ``source`` (closed loop: actions are executed between windows)."""
        self.reset()
        for window in source.windows():
            trace = await self.step(window)
            if not trace.action.is_none:
                self._executed(trace, source.execute(trace.action))
            if on_step is not None:
                on_step(trace)
        return self.trace

    def step_now(self, window: Window) -> StepTrace:
        """:meth:`step` without an event loop (components that never wait)."""
        return run_without_io(self.step(window))

    def run_now(self, source: WindowSource, *, on_step: Callable[[StepTrace], None] | None = None) -> list[StepTrace]:
        """:meth:`run` without an event loop (components that never wait)."""
        return run_without_io(self.run(source, on_step=on_step))


def save_trace(trace: list[StepTrace], path: str | Path) -> None:
    """Write one ``tau_t`` per line (JSON)."""
    with Path(path).open("w", encoding="utf-8") as fh:
        for step in trace:
            fh.write(json.dumps(step.to_dict(), sort_keys=True) + "\n")


def load_trace(path: str | Path) -> list[dict[str, Any]]:
    """Read a trace file back as plain records; a line that is not a JSON object is a
    :class:`~mindloop.errors.ParseError` naming the file and line."""
    return [record for _, record in iter_json_lines(path, "the trace file")]

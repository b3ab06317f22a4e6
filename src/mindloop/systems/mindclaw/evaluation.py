"""Running the runtime against the gold: teacher-forced trigger decisions (Table IV) and closed-loop episodes
(Tables II-III), with what the metrics in :mod:`mindloop.systems.mindclaw.metrics` need.

**Teacher forcing.** The trigger is scored decision by decision in the gold context: the window is observed by
the agent's own observer, but the memory the trigger reads is the gold one — before each gold operation of the
window, the trigger is asked for the next operation, then the *gold* operation is applied (belief writes,
a gold reasoning record, the gold action marked in the history). A wrong decision therefore costs one point and
does not derail the rest of the episode, which is how trigger accuracy is measured apart from the loop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mindloop.errors import InvalidArgumentError
from mindloop.systems.mindclaw.context import TriggerContext, WindowState
from mindloop.systems.mindclaw.engine import Engine, StepTrace
from mindloop.systems.mindclaw.memory import HistoryEntry, Memory
from mindloop.systems.mindclaw.metrics import GoldEpisode, Op, decider_scores, decision_scores, episode_scores
from mindloop.systems.mindclaw.observation import Observer, SymbolicObserver
from mindloop.systems.mindclaw.operations import (
    ACTION_RUN,
    REASONING_RUN,
    Operation,
)
from mindloop.systems.mindclaw.records import ReasoningRecord
from mindloop.systems.mindclaw.sources.household import HouseholdSource
from mindloop.systems.mindclaw.trigger import Decision
from mindloop.worlds.household.goals import Goal
from mindloop.worlds.household.scenarios.model import Scenario

_Decide = Callable[[TriggerContext], Awaitable[Decision]]


@dataclass(frozen=True)
class DecisionRecord:
    """One teacher-forced decision: where it was, the context's features, the gold operation and the prediction
    (``None``: no valid operation); ``error`` says why a prediction failed; ``by`` who decided (``skill:ID``,
    ``policy:model``, ...; empty when nothing was asked); ``retries`` the format retries the decision took."""

    scenario_id: str
    t: int
    k: int
    features: dict[str, Any]
    gold_op: Op
    predicted: Op | None
    error: str = ""
    by: str = ""
    retries: int = 0

    @property
    def gold(self) -> str:
        """The gold verb."""
        return self.gold_op[0]

    @property
    def predicted_verb(self) -> str:
        """The predicted verb (``""`` when none)."""
        return self.predicted[0] if self.predicted is not None else ""


def _gold_record(gold: GoldEpisode) -> ReasoningRecord:
    return ReasoningRecord(
        gold.actor,
        gold.object,
        gold.context,
        gold.detail,
        mismatch=True,
        blocks=True,
        warranted=True,
        goal=gold.goal.get("kind", "none"),
        liquid=gold.goal.get("liquid", ""),
        text="gold",
    )


def _apply_gold(memory: Memory, op: Operation, t: int, gold: GoldEpisode) -> ReasoningRecord | None:
    memory.apply(op, t)
    if op.verb == REASONING_RUN:
        record = _gold_record(gold)
        memory.reasoned(op, t, record)
        return record
    if op.verb == ACTION_RUN:
        plan = ", ".join(gold.plan) or "help"
        memory.history.add(HistoryEntry(t, "action", str(op), op.actor, op.object, (("plan", plan),)))
    return None


async def teacher_forced(
    scenario: Scenario,
    gold: GoldEpisode,
    *,
    decide: _Decide | None = None,
    observer: Observer | None = None,
    belief_table: bool = True,
    quiet: int = 2,
    features: bool = False,
) -> list[DecisionRecord]:
    """Every gold decision of the episode with the trigger's prediction in the gold context (module docstring).

    ``decide`` is the trigger (``Trigger.decide``); without it only contexts are recorded (``predicted=None``).
    ``features`` keeps each context's feature dict (for mining skills and training the classifier).
    """
    source = HouseholdSource(scenario, quiet=quiet)
    if source.n_windows != len(gold.windows):
        raise InvalidArgumentError(
            f"{scenario.id}: the source has {source.n_windows} windows but the gold {len(gold.windows)} (quiet?)"
        )
    memory = Memory.fresh(belief_table=belief_table)
    obs = observer if observer is not None else SymbolicObserver()
    obs.reset()
    out: list[DecisionRecord] = []
    for window, gw in zip(source.windows(), gold.windows, strict=False):
        o = await obs.observe(window)
        state = WindowState(window, o, memory)
        done: list[Operation] = []
        record: ReasoningRecord | None = None
        for k, gold_op in enumerate(gw.ops):
            ctx = TriggerContext(state, tuple(done), record)
            predicted: Op | None = None
            error = ""
            by = ""
            retries = 0
            if decide is not None:
                decision = await decide(ctx)
                by, retries = decision.by, decision.retries
                op, error = decision.checked(window.candidates, missing="no operation")
                predicted = op.as_tuple() if op is not None else None
            feats = {**ctx.features(), "text": window.text} if features else {}
            out.append(DecisionRecord(scenario.id, window.t, k, feats, gold_op, predicted, error, by, retries))
            op = Operation.from_tuple(gold_op)
            got = _apply_gold(memory, op, window.t, gold)
            if got is not None:
                record = got
            done.append(op)
    return out


def accuracy_scores(decisions: Sequence[DecisionRecord]) -> dict[str, float]:
    """ACC counts over teacher-forced decisions (see :func:`~mindloop.systems.mindclaw.metrics.decision_scores`),
    with the same counts split by who decided (:func:`~mindloop.systems.mindclaw.metrics.decider_scores`) and
    ``model_retries``, the format retries the model's decisions took (a decision whose reply was refused and whose
    retry was read is a model decision like any other, scored on the retry's answer)."""
    gold = [d.gold_op for d in decisions]
    predicted = [d.predicted for d in decisions]
    out = decision_scores(gold, predicted)
    out.update(decider_scores(gold, predicted, [d.by for d in decisions], [d.error for d in decisions]))
    out["model_retries"] = float(sum(d.retries for d in decisions if d.by == "policy:model"))
    return out


async def closed_loop(
    engine: Engine,
    scenario: Scenario,
    gold: GoldEpisode | None = None,
    *,
    quiet: int = 2,
    on_step: Callable[[StepTrace], None] | None = None,
) -> tuple[list[StepTrace], HouseholdSource]:
    """Run the engine on the live household episode of ``scenario``; returns the trace and the source (whose
    world shows what the robot's actions did; with ``gold``, whether each action met the gold goal)."""
    goal = Goal.from_dict(gold.goal) if gold is not None and gold.help_needed else None
    source = HouseholdSource(scenario, quiet=quiet, watch=goal)
    trace = await engine.run(source, on_step=on_step)
    return trace, source


def episode_outcome(
    trace: Sequence[StepTrace], source: HouseholdSource, gold: GoldEpisode
) -> tuple[dict[str, float], list[dict[str, Any]], list[dict[str, Any]]]:
    """TA/PIA/CS scores of a closed-loop run, with the interventions and reasoning records they were read from.

    Whether an intervention met the goal is what the source checked in the simulator right after executing it
    (run the source with ``watch=`` the gold goal, as :func:`closed_loop` does).
    """
    met = {t: bool(m) for t, _, m in source.executed}
    interventions: list[dict[str, Any]] = []
    reasoning: list[dict[str, Any]] = []
    for step in trace:
        for r in step.reasoning:
            reasoning.append({"t": step.t, **r.to_dict()})
        if not step.action.is_none:
            interventions.append(
                {
                    "t": step.t,
                    "actor": step.action.actor,
                    "object": step.action.object,
                    "steps": list(step.action.steps),
                    "goal_met": met.get(step.t, False),
                }
            )
    scores = episode_scores(gold, interventions, reasoning)
    return scores, interventions, reasoning

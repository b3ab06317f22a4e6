"""What every input source offers the engine: a stream of windows and, for live sources, a way to act."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from mindloop.systems.mindclaw.records import ActionPlan, ExecutionResult
from mindloop.systems.mindclaw.window import Window

__all__ = ["WindowSource", "not_executed"]


@runtime_checkable
class WindowSource(Protocol):
    """An input source behind the Adapter (§IV-C).

    ``windows()`` yields the stream; between two windows the engine may call ``execute(a_t)``, and a live source
    shows the action's effect in the next window (the closed loop). Sources that cannot act return an
    :class:`~mindloop.systems.mindclaw.records.ExecutionResult` with ``executed=False``.
    """

    name: str

    def windows(self) -> Iterator[Window]:
        """The windows of one episode, in order."""
        ...

    def execute(self, plan: ActionPlan) -> ExecutionResult:
        """Send the robot's action to the environment and report what happened."""
        ...


def not_executed(plan: ActionPlan, why: str, commands: tuple[str, ...] = ()) -> ExecutionResult:
    """The answer of a source that cannot act: nothing ran (``commands`` says what would have been sent)."""
    return ExecutionResult(False, (), f"{why}: {plan}" if not plan.is_none else why, commands)

"""What every input source offers the engine: a stream of windows and, for live sources, a way to act."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from mindloop.datafiles import read_json_file
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems.mindclaw.records import ActionPlan, ExecutionResult
from mindloop.systems.mindclaw.window import Window
from mindloop.worlds.household.actions import Action, parse_action

_T = TypeVar("_T")


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


def read_recording(path: str | Path, what: str, build: Callable[[Any], _T]) -> _T:
    """``build`` of a recorded episode's JSON; a file that cannot be read, or lacks what ``build`` looks up, is a
    :class:`~mindloop.errors.ParseError` naming it (``what``: ``TDW``, ``VirtualHome``)."""
    p = Path(path)
    data = read_json_file(p, what=f"the {what} recording")
    try:
        return build(data)
    except (KeyError, TypeError) as exc:
        raise ParseError(f"not a {what} recording: missing {exc}", source=str(p)) from None


def compile_plan(plan: ActionPlan, line: Callable[[str, Action], str]) -> tuple[str, ...]:
    """Each step of ``plan`` as ``line(text, action)`` says; a step that is not an action cannot be compiled."""
    out = []
    for text in plan.steps:
        action = parse_action(text)
        if not isinstance(action, Action):
            raise InvalidArgumentError(f"cannot compile {text!r}: {action}")
        out.append(line(text, action))
    return tuple(out)


def step_ids(text: str, action: Action, ids: Mapping[str, Any], missing: str) -> list[Any]:
    """The simulator ids of ``action``'s arguments; an argument without one cannot be compiled (``missing`` says
    what it lacks, e.g. "has no TDW id")."""
    for a in action.args:
        if a not in ids:
            raise InvalidArgumentError(f"cannot compile {text!r}: {a!r} {missing}")
    return [ids[a] for a in action.args]

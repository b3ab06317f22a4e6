"""What the Reasoning Layer returns and what the environment answers: ``r_t``, ``a_t`` and ``e_t`` of eq. (1)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from mindloop.records_codec import Record

GOAL_KINDS = ("deliver", "inform", "switch_off", "clear", "none")
"""What a helpful action is for: hand something over, correct a belief, switch off, clear a doorway, nothing."""


@dataclass(frozen=True, slots=True)
class ReasoningRecord(Record):
    """``r_t``: Mental Reasoning's judgement about a focus actor and object.

    ``context`` names the mental-state situation (a :data:`~mindloop.systems.mindclaw.cues.CONTEXTS` value, or
    ``none``); ``detail`` its particulars (where the actor believes the object is, the stated feeling);
    ``mismatch``: the actor's belief (or need) disagrees with the world; ``blocks``: that mismatch blocks the
    actor's goal; ``warranted``: intervention is warranted; ``goal``: what help would be for. A record is never a
    robot command.
    """

    actor: str
    object: str
    context: str = "none"
    detail: str = ""
    mismatch: bool = False
    blocks: bool = False
    warranted: bool = False
    goal: str = "none"
    liquid: str = ""
    believed: str | None = None
    seen: str | None = None
    text: str = ""
    error: str = ""

    KIND: ClassVar[str | None] = "reasoning record"
    """``from_dict`` reads every field, in order: a missing field takes its default, except ``actor`` and
    ``object``, which have none."""


@dataclass(frozen=True, slots=True)
class ActionPlan:
    """``a_t``: the robot's action — a minimal helpful sequence of ``verb(arg, ...)`` steps — or ``none``.

    ``actor``/``object`` is the focus it helps with, ``goal`` the kind of help; ``error`` is set when action
    generation failed (then ``steps`` is empty: the robot does nothing).
    """

    steps: tuple[str, ...] = ()
    actor: str = ""
    object: str = ""
    goal: str = "none"
    text: str = ""
    error: str = ""

    @property
    def is_none(self) -> bool:
        """Whether the robot does nothing."""
        return not self.steps

    def __str__(self) -> str:
        return ", ".join(self.steps) if self.steps else "none"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out = {**asdict(self), "steps": list(self.steps)}
        if not self.error:
            del out["error"]
        return out


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """One executed step of an action: the step text, whether it worked, why not."""

    action: str
    ok: bool
    failure: str = ""


@dataclass(frozen=True, slots=True)
class ExecutionResult:
    """``e_t``: what the environment did with ``a_t``.

    ``executed`` is false for sources that cannot act (a replayed recording); ``commands`` holds what an adapter
    stub would send to its simulator (VirtualHome script lines, ThreeDWorld calls).
    """

    executed: bool
    steps: tuple[StepOutcome, ...] = ()
    message: str = ""
    commands: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Executed, and every step worked."""
        return self.executed and all(s.ok for s in self.steps)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "executed": self.executed,
            "ok": self.ok,
            "steps": [{"action": s.action, "ok": s.ok, "failure": s.failure} for s in self.steps],
            "message": self.message,
            "commands": list(self.commands),
        }

"""What a Theory-of-Space episode is made of, apart from the simulator that plays it (:mod:`.env`).

Its settings (:class:`SpatialEnvConfig`), the record of each executed action and step (:class:`ActionResult`,
:class:`Turn`: what evaluation reads back from ``SpatialEnv.turns``), the opening description of a scene
(:func:`describe_layout`), and the false-belief phase's instruction and score (:data:`FALSE_BELIEF_INSTRUCTION`,
:func:`score_change_report`). Explorers and evaluation use these without the environment;
:mod:`~mindloop.systems.tos.world.env` re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from mindloop.errors import InvalidArgumentError
from mindloop.metrics.stats import prf
from mindloop.systems.tos.world.actions import ChangeReport
from mindloop.systems.tos.world.changes import Change
from mindloop.systems.tos.world.geometry import Vec
from mindloop.systems.tos.world.layout import LayoutConfig
from mindloop.systems.tos.world.observe import Observation
from mindloop.systems.tos.world.relations import RelationTriple
from mindloop.systems.tos.world.scene import Scene

FALSE_BELIEF_INSTRUCTION = """\
You have returned to the initial position and face north.
There are {n_changes} objects in the room that have been changed (position or orientation).
Note one object is either moved or rotated, not both.
Goal: Explore the room again and identify which objects have been changed and how with minimum costs.
Use the same action set as the exploration phase.
You must use the Term(changes="...") action to submit your answer and terminate.
Format: Term(changes="object1: change_type, object2: change_type")
Example: Term(changes="apple: position, chair: orientation")
You have a maximum of {max_steps} steps."""

Phase = Literal["exploration", "false_belief", "done"]


@dataclass(frozen=True)
class SpatialEnvConfig:
    """Episode settings: the procedural layout (when no scene is given), budgets, phases and modality."""

    layout: LayoutConfig = field(default_factory=LayoutConfig)
    max_steps: int = 20
    false_belief: bool = False
    false_belief_steps: int = 15
    mode: Literal["text", "vision"] = "text"
    image_size: int = 384

    def __post_init__(self) -> None:
        if self.max_steps < 1 or self.false_belief_steps < 1:
            raise InvalidArgumentError("step budgets must be at least 1")
        if self.mode not in ("text", "vision"):
            raise InvalidArgumentError(f"mode must be 'text' or 'vision', got {self.mode!r}")


@dataclass(frozen=True)
class ActionResult:
    """One executed action: its kind (move/rotate/observe/query/term), success and message.

    ``observation`` is set for observes, ``query`` holds ``(offset from start, facing name or None)``,
    ``changes`` the reported changes of a false-belief ``Term``.
    """

    action: str
    kind: str
    success: bool
    message: str
    observation: Observation | None = None
    query: tuple[Vec, str | None] | None = None
    changes: tuple[ChangeReport, ...] | None = None


@dataclass(frozen=True)
class Turn:
    """One environment step as evaluation sees it (the pose is privileged; the rest is what the agent saw)."""

    step: int
    phase: str
    action: str
    valid: bool
    error: str | None
    results: tuple[ActionResult, ...]
    text: str
    anchor: str
    pos: Vec
    ori: Vec
    rooms: frozenset[int]
    triples: tuple[RelationTriple, ...]
    cost: int

    @property
    def observations(self) -> list[Observation]:
        """The observations made in this step."""
        return [r.observation for r in self.results if r.observation is not None]

    @property
    def action_failed(self) -> bool:
        """Whether a motion or the final action failed."""
        return any(not r.success for r in self.results)


def describe_layout(scene: Scene, *, max_steps: int | None = None) -> str:
    """The opening description the agent gets: rooms, its start, object names with labels, door names.

    Uses the reference's wording. Object order is the scene's (labels 1..N), never grouped by room.
    """
    rooms = scene.room_ids
    kind = f"{len(rooms)} rooms connected by doors" if scene.doors else "a single room"
    names = ", ".join(f"room {r}" for r in rooms)
    text = (
        f"Imagine {kind}: {names}. You current (initial) position is in room {scene.start_room} and you face "
        "north. Unless otherwise specified, treat your initial position as the origin (0, 0), and north is +y."
    )
    text += "\nObjects: " + ", ".join(f"{o.label or i}: {o.name}" for i, o in enumerate(scene.objects, 1))
    if scene.doors:
        text += "\nDoors: " + ", ".join(d.name for d in scene.doors)
    if max_steps is not None:
        text += f"\nYou have a maximum of {max_steps} exploration steps."
    return text


def score_change_report(reported: tuple[ChangeReport, ...], truth: list[Change]) -> dict[str, float]:
    """Detection F1 of reported changes against the truth, as the reference scores it.

    ``f1`` treats each ``(object, change type)`` as a label; ``f1_position`` and ``f1_facing`` compare the sets of
    objects reported moved / turned (set F1, :func:`mindloop.metrics.stats.prf`). With no true changes every score
    is 0.
    """
    gold = {(c.name, "position") for c in truth if c.position}
    gold |= {(c.name, "orientation") for c in truth if c.orientation}
    rep = {(c.name, "position") for c in reported if c.position}
    rep |= {(c.name, "orientation") for c in reported if c.orientation}
    return {
        "f1": prf(rep, gold).f1,
        "f1_position": prf({c.name for c in reported if c.position}, {c.name for c in truth if c.position}).f1,
        "f1_facing": prf({c.name for c in reported if c.orientation}, {c.name for c in truth if c.orientation}).f1,
    }

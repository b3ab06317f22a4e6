"""Agents that answer a MindPower scenario with the reasoning hierarchy.

* :class:`SymbolicHierarchyAgent` — the reference: it replays the scenario in the household world with a belief
  tracker, checks every belief the gold annotation relies on against the robot's belief store (what the robot
  thinks each human thinks, and the world), and answers with the annotation the household package derived from
  that store. On simulated data it reaches the gold, so its scores are the ceiling of the metrics.
* :class:`ModelHierarchyAgent` — any :class:`~mindloop.models.base.ChatModel`: the setting's prompt with the
  narration or rendered frames, the reply parsed strictly through :func:`~mindloop.models.replies.ask` (a reply
  the parser refuses goes back to the model with the reason, ``format_retries`` times). A malformed last reply or
  a failed call is a recorded failure (:class:`HierarchyAnswer` with ``error``), never a guess.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from typing import Literal

from mindloop.errors import SETUP_ERRORS, DependencyError, InvalidArgumentError, MindloopError
from mindloop.models.base import ChatModel, GenerationConfig, Message
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES, ask
from mindloop.systems.mindpower.hierarchy import Hierarchy, HierarchyParseError, check_setting, parse_hierarchy
from mindloop.systems.mindpower.prompts import HierarchyInput, build_messages
from mindloop.worlds.household.scenarios import Episode, Scenario, ScriptError

InputMode = Literal["text", "frames"]


@dataclass(frozen=True)
class HierarchyAnswer:
    """An agent's answer: its raw text (``None`` when no reply came), the parsed hierarchy, or why it failed."""

    text: str | None
    hierarchy: Hierarchy | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the answer parsed."""
        return self.hierarchy is not None


def gold_answer_text(scenario: Scenario, setting: str = "hierarchy") -> str:
    """The scenario's gold annotation written as the ``setting`` asks an agent to answer.

    ``think`` puts the gold belief, desire and intention in ``<Think>``.
    """
    gold = scenario.gold
    tail = f"<Decision> {gold.decision}\n<Action> {gold.action}"
    match check_setting(setting):
        case "hierarchy":
            return gold.to_text()
        case "decision":
            return tail
        case _:
            return f"<Think> {gold.belief} {gold.desire} {gold.intention}\n{tail}"


def belief_mismatches(scenario: Scenario) -> list[str]:
    """Gold beliefs that the belief store of a replay of the scenario does not hold (empty when all agree)."""
    episode = Episode(scenario.setup)
    try:
        episode.replay(scenario.script)
    except ScriptError as exc:
        return [f"the script does not replay: {exc}"]
    tracker = episode.tracker
    out = []
    for b in scenario.gold.beliefs:
        held, actual = tracker.value(b.chain, b.subject, b.relation), tracker.world(b.subject, b.relation)
        if (held, actual) != (b.value, b.actual):
            chain = "/".join(b.chain) or "world"
            out.append(
                f"{chain} believes {b.subject} {b.relation} {held!r} (world {actual!r}); "
                f"the gold says {b.value!r} (world {b.actual!r})"
            )
    return out


class SymbolicHierarchyAgent:
    """The reference agent: the gold hierarchy, checked against the robot's belief store of a replay."""

    name = "symbolic"

    def __init__(self, setting: str = "hierarchy") -> None:
        self.setting = check_setting(setting)

    async def answer(self, scenario: Scenario) -> HierarchyAnswer:
        """The gold answer in this setting, or a failure naming the beliefs the store disagrees with."""
        wrong = belief_mismatches(scenario)
        if wrong:
            return HierarchyAnswer(None, None, "belief store disagrees with the gold: " + "; ".join(wrong))
        text = gold_answer_text(scenario, self.setting)
        try:
            return HierarchyAnswer(text, parse_hierarchy(text, self.setting))
        except HierarchyParseError as exc:  # a gold that does not parse is a bug in the data: say so
            return HierarchyAnswer(text, None, f"gold annotation does not parse: {exc}")


def render_frames_png(scenario: Scenario, n_frames: int = 32, size: tuple[int, int] = (640, 480)) -> tuple[bytes, ...]:
    """``n_frames`` rendered frames of the scenario's window (the robot's camera view) as PNG bytes."""
    from mindloop.worlds.household.render import render_window

    try:
        from PIL import Image
    except ImportError:
        raise DependencyError("rendering frames needs Pillow: pip install pillow") from None
    out = []
    for frame in render_window(scenario, n_frames, size=size):
        buf = io.BytesIO()
        Image.fromarray(frame).save(buf, format="PNG")
        out.append(buf.getvalue())
    return tuple(out)


def scenario_input(
    scenario: Scenario, input_mode: str = "text", n_frames: int = 32, size: tuple[int, int] = (640, 480)
) -> HierarchyInput:
    """What an agent is shown: the narration (``text``) or rendered frames plus the dialogue (``frames``)."""
    if input_mode not in ("text", "frames"):
        raise InvalidArgumentError(f"unknown input mode {input_mode!r} (modes: text, frames)")
    frames = render_frames_png(scenario, n_frames, size) if input_mode == "frames" else ()
    return HierarchyInput(scenario.observation, scenario.dialogue, frames)


class ModelHierarchyAgent:
    """A chat model answering with the setting's prompt (Fig. 15, 17 or 18), its reply parsed strictly."""

    name = "model"

    def __init__(
        self,
        model: ChatModel,
        setting: str = "hierarchy",
        *,
        input_mode: str = "text",
        n_frames: int = 32,
        frame_size: tuple[int, int] = (640, 480),
        config: GenerationConfig | None = None,
        format_retries: int = DEFAULT_FORMAT_RETRIES,
    ) -> None:
        if input_mode not in ("text", "frames"):
            raise InvalidArgumentError(f"unknown input mode {input_mode!r} (modes: text, frames)")
        if n_frames < 1:
            raise InvalidArgumentError(f"n_frames must be at least 1, got {n_frames}")
        self.model = model
        self.setting = check_setting(setting)
        self.input_mode = input_mode
        self.n_frames = n_frames
        self.frame_size = frame_size
        self.config = config or GenerationConfig()
        self.format_retries = format_retries

    def messages(self, scenario: Scenario) -> list[Message]:
        """The prompt for ``scenario``."""
        return build_messages(self.setting, scenario_input(scenario, self.input_mode, self.n_frames, self.frame_size))

    async def answer(self, scenario: Scenario) -> HierarchyAnswer:
        """Ask the model and parse its reply (a refused reply goes back with the parser's reason, at most
        ``format_retries`` times); a failed call or a last reply that does not parse is a recorded failure."""

        parse = functools.partial(parse_hierarchy, setting=self.setting)
        try:
            hierarchy, reply, _ = await ask(
                self.model, self.messages(scenario), parse, self.config, retries=self.format_retries
            )
        except SETUP_ERRORS:
            raise
        except HierarchyParseError as exc:
            return HierarchyAnswer(exc.replies[-1], None, str(exc))
        except MindloopError as exc:
            return HierarchyAnswer(exc.replies[-1] if exc.replies else None, None, f"model call failed: {exc}")
        return HierarchyAnswer(reply.text, hierarchy)

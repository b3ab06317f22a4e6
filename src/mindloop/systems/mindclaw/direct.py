"""The direct-model baseline of MindClaw's Table II: the model alone decides, window by window, whether to
intervene and how — no trigger, no skills, no belief table, no operation history.

Each window the model sees only that window's observation (what happened, who saw which object where, what each
person has done since entering their room) and the candidate names, and answers once::

    <Intervene> yes or no
    <Person> the person to help        (when yes)
    <Object> the object the help is about
    <Context> the mental-state context (false_belief, unreachable, ...)
    <Believed> where the person believes the object is, or none
    <Action> the robot's steps, or none

It plugs into the :class:`~mindloop.systems.mindclaw.engine.Engine` as the three parts the engine calls:
:class:`DirectModel` is the policy (its one question per window becomes ``reasoning_run`` then ``action_run`` on
the named person and object, or ``noop``), the reasoner (the reply's context as the reasoning record, so TA reads
what the model said) and the action generator (the reply's steps, executed in the simulator for CS). The engine's
memory still records the loop, but nothing of it is shown to the model. A reply refused after the format
retries is a recorded failure (``malformed direct reply``): the robot stays silent in that window.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mindloop.errors import ParseError
from mindloop.systems.mindclaw.actions import _read_action
from mindloop.systems.mindclaw.context import TriggerContext
from mindloop.systems.mindclaw.cues import CONTEXTS
from mindloop.systems.mindclaw.operations import ACTION_RUN, NOOP, REASONING_RUN, Operation
from mindloop.systems.mindclaw.reasoning import _read_believed, _read_context, _read_flag, judged_record
from mindloop.systems.mindclaw.records import ActionPlan, ReasoningRecord
from mindloop.systems.mindclaw.render import candidate_lines, observation_lines
from mindloop.systems.mindclaw.replies import PROMPTS, ModelPart, chat, find_names, read_tags, single
from mindloop.systems.mindclaw.skills import SkillSet
from mindloop.systems.mindclaw.trigger import Decision

DIRECT_SYSTEM = PROMPTS["direct_system"]

DIRECT_TEMPLATE = PROMPTS["direct_template"]
"""The direct baseline's user prompt. The paper's Table II runs video-language models on MindPower's videos with
MindPower's prompt; here the window's observation stands in for the video and the answer carries exactly what TA,
PIA and CS read (who, what, which mental state, when, and the action). Each tag shows what follows it on its line:
given the bare tags, one under the other, Qwen2.5-Coder-1.5B copied them and put ``<None>`` on a line of its own
in every window of an episode; given this form it answered ``<Intervene> no`` and filled the other lines."""

_DIRECT_TAGS = ("intervene", "person", "object", "context", "believed", "action")


@dataclass(frozen=True)
class DirectAnswer:
    """One window's reply: ``intervene`` false means nothing else is read."""

    intervene: bool
    person: str = ""
    object: str = ""
    context: str = "none"
    believed: str | None = None
    steps: tuple[str, ...] = ()


def _read_name(tag: str, names: frozenset[str]) -> Any:
    def read(value: str) -> str:
        found = list(dict.fromkeys(find_names(value, names)))
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise ParseError(f"<{tag.capitalize()}> names two candidates ({found[0]}, {found[1]}); give one")
        raise ParseError(f"<{tag.capitalize()}> is not a name from <Candidates>, got {value[:60]!r}")

    return read


def parse_direct_reply(
    reply: str, *, actors: frozenset[str], objects: frozenset[str], locations: frozenset[str]
) -> DirectAnswer:
    """Read a direct reply (tags in any form :func:`~mindloop.systems.mindclaw.replies.read_tags` reads).

    Refused with a one-line :class:`~mindloop.errors.ParseError`: no ``<Intervene>`` line, a value that is not yes
    or no, and, when it is yes, a missing or unknown person or object, a context outside the list, or an invalid
    ``<Action>``. An intervention with no steps (``<Action> none``) is refused too: it would help nobody."""
    tags = read_tags(reply, _DIRECT_TAGS)
    try:
        intervene = single("intervene", tags["intervene"], _read_flag("intervene"))
        if not intervene:
            return DirectAnswer(False)
        person = single("person", tags["person"], _read_name("person", actors))
        obj = single("object", tags["object"], _read_name("object", objects))
        context = single("context", tags["context"], _read_context) if tags["context"] else "none"
        believed = (
            single("believed", tags["believed"], lambda v: _read_believed(v, locations), show=str)
            if tags["believed"]
            else None
        )
        steps = single("action", tags["action"], _read_action, show=lambda s: ", ".join(s) or "none")
    except ParseError as exc:
        raise ParseError(exc.reason, text=reply[:200]) from None
    if not steps:
        raise ParseError("<Intervene> is yes but <Action> is none; write the robot's steps or answer no")
    return DirectAnswer(True, person, obj, context, believed, steps)


def render_window(ctx: TriggerContext) -> str:
    """This window alone as tagged text: ``<Observation>``, ``<Activity>`` and ``<Candidates>`` (no belief table,
    no history, no skills)."""
    return "\n".join([*observation_lines(ctx), *candidate_lines(ctx, None)])


class DirectModel(ModelPart):
    """The direct baseline as the engine's policy, reasoner and action generator (module docstring)."""

    name = "direct"
    _answer: tuple[int, DirectAnswer] | None = None  # this window's answer, once asked

    def prompt(self, ctx: TriggerContext) -> list[dict[str, Any]]:
        """The chat messages of one window's question."""
        return chat(DIRECT_SYSTEM, DIRECT_TEMPLATE, window=render_window(ctx), contexts=", ".join(CONTEXTS))

    async def decide(self, ctx: TriggerContext, skills: SkillSet | None) -> Decision:
        """At the window's first decision ask the model; then ``reasoning_run`` and ``action_run`` on what it named
        when it said yes, ``noop`` otherwise."""
        done = [op.verb for op in ctx.ops]
        if not done:
            c = ctx.candidates

            def read(text: str) -> DirectAnswer:
                return parse_direct_reply(text, actors=c.actors, objects=c.objects, locations=c.locations)

            answer, replies, error = await self.ask(self.prompt(ctx), read, "malformed direct reply")
            self._answer = (ctx.t, answer) if answer is not None else None
            reply, retries = replies[-1], len(replies) - 1
            if answer is None:
                return Decision(None, "policy:direct", error, reply, retries)
            if not answer.intervene:
                return Decision(Operation(NOOP), "policy:direct", "", reply, retries)
            return Decision(Operation(REASONING_RUN, answer.person, answer.object), "policy:direct", "", reply, retries)
        current = self._current(ctx.t)
        if current is not None and current.intervene and done[-1] == REASONING_RUN:
            return Decision(Operation(ACTION_RUN, current.person, current.object), "policy:direct")
        return Decision(Operation(NOOP), "policy:direct")

    def _current(self, t: int) -> DirectAnswer | None:
        if self._answer is None or self._answer[0] != t:
            return None
        return self._answer[1]

    async def reason(self, ctx: TriggerContext, actor: str, obj: str) -> ReasoningRecord:
        """The reply's judgement as the reasoning record (the model said to intervene)."""
        answer = self._current(ctx.t)
        if answer is None or not answer.intervene:
            return ReasoningRecord(actor, obj, error="direct: no answer for this window")
        scene = ctx.observation.scene
        seen = scene.location(obj) if scene is not None else None
        said = {"context": answer.context, "believed": answer.believed, "blocks": True, "intervene": True}
        return judged_record(ctx, actor, obj, seen, {**said, "reason": "direct"})

    async def act(self, ctx: TriggerContext, record: ReasoningRecord | None, actor: str, obj: str) -> ActionPlan:
        """The reply's steps."""
        answer = self._current(ctx.t)
        if answer is None or not answer.intervene:
            return ActionPlan(actor=actor, object=obj, error="direct: no answer for this window")
        goal = record.goal if record is not None else "none"
        return ActionPlan(answer.steps, actor, obj, goal, "direct")

"""The Trigger (§IV-F): pick the next internal operation by two-stage inference (eq. (10)).

1. Strong skills, compiled to structured-field / regex matchers, are tried in the order of eq. (8); the first
   that matches, is not vetoed by a negative skill of the same operation and can be grounded in the window's
   candidates gives the operation directly.
2. Otherwise the policy decides: a model prompted with the preferred and negative skills
   (:class:`ModelPolicy`), the embedded classifier (:class:`ClassifierPolicy`, negative skills veto its choices),
   or nothing (:class:`NoopPolicy`: rules only).

Slots are grounded only from the window's candidates; an operation naming anything else is a recorded failure.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from mindloop.errors import DependencyError, InvalidArgumentError
from mindloop.systems.mindclaw.context import FEATURE_NAMES, TriggerContext, feature_vector, ground
from mindloop.systems.mindclaw.operations import (
    ACTION_RUN,
    NOOP,
    OPERATION_VERBS,
    REASONING_RUN,
    Operation,
    SlotError,
    check_operation,
    read_operation,
)
from mindloop.systems.mindclaw.render import render_context
from mindloop.systems.mindclaw.replies import PROMPTS, ModelPart, chat
from mindloop.systems.mindclaw.skills import SkillSet
from mindloop.systems.mindclaw.window import Candidates


@dataclass(frozen=True, slots=True)
class Decision:
    """One trigger decision: the operation (``None`` when it failed), who decided (``skill:ID``, ``policy:...``),
    the failure if any, the raw model reply for model decisions (the last one read) and how many format retries
    the decision took (replies refused, then sent back to the model)."""

    op: Operation | None
    by: str
    error: str = ""
    reply: str = ""
    retries: int = 0

    def checked(self, candidates: Candidates, *, missing: str = "") -> tuple[Operation | None, str]:
        """The operation and ``""`` when its slots are grounded in ``candidates`` (:func:`check_operation`); else
        ``None`` and why: the decision's error (``missing`` when it has none) or the invalid slot."""
        if self.op is None:
            return None, self.error or missing
        try:
            return check_operation(self.op, candidates), ""
        except SlotError as exc:
            return None, f"invalid slot: {exc}"


class Policy(Protocol):
    """The trigger policy ``pi_theta(z | x, S)`` consulted when no strong skill fires."""

    name: str

    async def decide(self, ctx: TriggerContext, skills: SkillSet | None) -> Decision:
        """The next operation for ``ctx``."""
        ...


class NoopPolicy:
    """Rules only: when no strong skill fires, do nothing (``noop``)."""

    name = "noop"

    async def decide(self, ctx: TriggerContext, skills: SkillSet | None) -> Decision:
        """Always ``noop``."""
        return Decision(Operation(NOOP), "policy:noop")


class FirstWindowPolicy:
    """A trivial reference policy: intervene at the first window that offers a person and an object, whatever
    happens there (reason about them, then act), and never again. With :class:`EagerActionGenerator` the robot
    acts whether or not the reasoning found help warranted, so the policy is an intervention at the first
    window, not a guess that happens to wait for a cue."""

    name = "first"

    async def decide(self, ctx: TriggerContext, skills: SkillSet | None) -> Decision:
        """``reasoning_run`` then ``action_run`` on the first person and object of the first window that has
        both (candidates in sorted order), ``noop`` everywhere else."""
        done = [op.verb for op in ctx.ops]
        if ACTION_RUN in done or any(e.kind == "action" for e in ctx.memory.history):
            return Decision(Operation(NOOP), "policy:first")
        cands = ctx.window.candidates
        if REASONING_RUN in done and ctx.reasoning is not None:
            return Decision(Operation(ACTION_RUN, ctx.reasoning.actor, ctx.reasoning.object), "policy:first")
        if not cands.actors or not cands.objects:
            return Decision(Operation(NOOP), "policy:first")
        return Decision(Operation(REASONING_RUN, min(cands.actors), min(cands.objects)), "policy:first")


class NaivePolicy:
    """A surface-cue policy (the "incorrect rollouts" the default rule miner learns negatives from): it reasons on
    any visible oddity (a stale belief, a failure, speech), acts whenever it has reasoned, and writes what it sees."""

    name = "naive"

    async def decide(self, ctx: TriggerContext, skills: SkillSet | None) -> Decision:
        """Surface cues first, then writes, then ``noop``."""
        f = ctx.feature
        if f("last_op") == REASONING_RUN:
            op = ground(ACTION_RUN, ctx)
        elif (f("stale") or f("failure") != "none" or f("speech")) and not f("reasoned"):
            op = ground(REASONING_RUN, ctx)
        elif f("pending_writes"):
            op = ctx.remaining_writes()[0]
        else:
            op = None
        return Decision(op or Operation(NOOP), "policy:naive")


class ClassifierPolicy:
    """The embedded "SFT" trigger: a scikit-learn classifier over the context's feature vector predicts the verb;
    the verb is grounded from the candidates (eq. (7)). Verbs vetoed by a negative skill, or that cannot be
    grounded, give way to the next most probable verb."""

    name = "classifier"

    def __init__(self, estimator: Any, classes: Sequence[str], names: Sequence[str] = FEATURE_NAMES) -> None:
        self.estimator = estimator
        self.classes = list(classes)
        self.names = tuple(names)

    async def decide(self, ctx: TriggerContext, skills: SkillSet | None) -> Decision:
        """The most probable groundable, non-vetoed verb."""
        feats = {n: ctx.feature(n) for n in self.names}
        probs = self.estimator.predict_proba([feature_vector(feats, self.names)])[0]
        ranked = sorted(range(len(self.classes)), key=lambda i: (-probs[i], OPERATION_VERBS.index(self.classes[i])))
        for i in ranked:
            verb = self.classes[i]
            if skills is not None and skills.vetoed(verb, ctx) is not None:
                continue
            op = ground(verb, ctx)
            if op is not None:
                return Decision(op, f"policy:classifier({probs[i]:.2f})")
        return Decision(Operation(NOOP), "policy:classifier(fallback)")


def train_classifier(
    features: Sequence[dict[str, Any]], labels: Sequence[str], *, seed: int = 0, names: Sequence[str] = FEATURE_NAMES
) -> ClassifierPolicy:
    """Fit the embedded classifier (a scikit-learn decision tree, deterministic for a seed) on decision features
    (those in ``names``) and gold verbs."""
    try:
        tree = importlib.import_module("sklearn.tree")
    except ImportError:
        raise DependencyError("the classifier trigger needs scikit-learn: pip install scikit-learn") from None
    if not features:
        raise InvalidArgumentError("no decisions to train the classifier on")
    x = [feature_vector(f, names) for f in features]
    model = tree.DecisionTreeClassifier(random_state=seed, min_samples_leaf=1)
    model.fit(x, list(labels))
    return ClassifierPolicy(model, [str(c) for c in model.classes_], names)


_TRIGGER_SYSTEM = PROMPTS["trigger_system"]

_TRIGGER_TEMPLATE = PROMPTS["trigger_template"]
"""The trigger's user prompt. MindClaw's paper gives the operation space (eq. (8)) but no prompt text. The list of
operations is the allowed values; the answer line names no example operation (the real 0.5B model copied the old
prompt's ``for example: belief_update_actor_belief(alice, apple, fridge)`` in every reply). Slots described in words
instead of capitalised placeholders were tried and did worse (``belief_create_actor_belief, none, none``: no
slots); a placeholder left in a reply is refused and sent back naming it."""


class ModelPolicy(ModelPart):
    """The trigger model, prompted with the context and the preferred and negative skills (skill-augmented
    prompting). Its reply is read by :func:`~mindloop.systems.mindclaw.operations.read_operation` through
    :func:`~mindloop.models.replies.ask` (a refused reply goes back with the reason, at most ``retries`` times);
    a reply still refused is a decision with ``error`` set (a recorded failure)."""

    name = "model"

    def prompt(self, ctx: TriggerContext, skills: SkillSet | None) -> list[dict[str, Any]]:
        """The chat messages for one decision."""
        guidance = skills.guidance() if skills is not None else None
        return chat(_TRIGGER_SYSTEM, _TRIGGER_TEMPLATE, context=render_context(ctx, skills=guidance))

    async def decide(self, ctx: TriggerContext, skills: SkillSet | None) -> Decision:
        """Ask the model for one operation (with format retries)."""

        def read(text: str) -> Operation:
            return read_operation(text, ctx.candidates)

        op, replies, error = await self.ask(self.prompt(ctx, skills), read, "malformed trigger output")
        return Decision(op, "policy:model", error, replies[-1], len(replies) - 1)


class Trigger:
    """Two-stage inference (eq. (10)) over a skill set and a policy."""

    def __init__(self, skills: SkillSet | None, policy: Policy | None = None) -> None:
        self.skills = skills
        self.policy: Policy = policy if policy is not None else NoopPolicy()

    def strong(self, ctx: TriggerContext) -> Decision | None:
        """Stage one: the first strong skill that matches, is not vetoed and grounds."""
        skills = self.skills
        if skills is None:
            return None
        for skill in skills.strong:
            if not skill.matches(ctx):
                continue
            if skills.vetoed(skill.op, ctx) is not None:
                continue
            op = ground(skill.op, ctx)
            if op is not None:
                return Decision(op, f"skill:{skill.id}")
        return None

    async def decide(self, ctx: TriggerContext) -> Decision:
        """The next operation: a strong skill, else the policy."""
        hit = self.strong(ctx)
        if hit is not None:
            return hit
        return await self.policy.decide(ctx, self.skills)

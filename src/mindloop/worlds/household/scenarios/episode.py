"""Playing a script: a world, a tracker following it, and the log of every event with witnesses."""

from __future__ import annotations

from collections.abc import Iterable

from mindloop.beliefs import Fact, Tracker
from mindloop.errors import MindloopError
from mindloop.worlds.household.actions import Action, parse_action
from mindloop.worlds.household.results import Failure, StepResult, WorldEvent
from mindloop.worlds.household.scenarios.model import ScriptStep
from mindloop.worlds.household.setup import WorldSetup
from mindloop.worlds.household.vocab import ENVIRONMENT
from mindloop.worlds.household.world import World


class ScriptError(MindloopError):
    """A scripted step did not go as the script said (it failed, or it should have failed and did not)."""


class Episode:
    """A world and a tracker kept in step: every event the world emits is applied to the tracker and logged."""

    def __init__(self, setup: WorldSetup, *, world: World | None = None) -> None:
        self.world = world if world is not None else World(setup)
        self.tracker = Tracker()
        self.events: list[WorldEvent] = []
        self.script: list[ScriptStep] = []
        self.record(self.world.initial_events())

    def record(self, events: Iterable[WorldEvent]) -> None:
        """Log ``events`` and let the tracker apply them, without a script step (how the gym env logs its own)."""
        apply = self.tracker.apply
        for e in events:
            apply(e.core)
            self.events.append(e)

    def act(self, actor: str, action: Action | str, *, expect_fail: bool | None = False) -> StepResult:
        """Run one step and log it in the script; raise :class:`ScriptError` if it does not go as expected
        (``expect_fail=None``: whichever way it goes, as a replay logs it)."""
        result = self.world.step(actor, action)
        if result.ok == expect_fail:
            why = f": {result.failure}" if result.failure is not None else ""
            raise ScriptError(f"{actor} {result.action} {'succeeded' if result.ok else 'failed'}{why}")
        self.record(result.events)
        facts = action.facts if isinstance(action, Action) else ()
        self.script.append(ScriptStep(actor, result.action, facts))
        return result

    def say(self, speaker: str, listener: str, words: str, *facts: Fact) -> StepResult:
        """``speaker`` says ``words`` to ``listener``, stating ``facts``."""
        return self.act(speaker, Action("say", (listener,), words, tuple(facts)))

    def environment(self, verb: str) -> StepResult:
        """A world event nobody performs (``powercut``)."""
        result = self.world.environment(verb)
        if not result.ok:
            raise ScriptError(f"environment {verb} failed: {result.failure}")
        self.record(result.events)
        self.script.append(ScriptStep(ENVIRONMENT, f"{verb}()"))
        return result

    def replay(self, steps: Iterable[ScriptStep]) -> None:
        """Replay recorded steps (failed attempts included) exactly as they were scripted."""
        for step in steps:
            if step.actor == ENVIRONMENT:
                self.environment(step.action.rstrip("()"))
                continue
            parsed = parse_action(step.action)
            if isinstance(parsed, Failure):
                raise ScriptError(f"cannot replay {step.action!r}: {parsed}")
            if step.facts:
                parsed = Action(parsed.verb, parsed.args, parsed.text, step.facts)
            self.act(step.actor, parsed, expect_fail=None)

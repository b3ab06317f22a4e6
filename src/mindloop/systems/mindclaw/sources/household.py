"""The live household simulator as a MindClaw source: the closed loop of §IV-A.

:class:`HouseholdSource` plays a scenario's script one step per window and shows the robot only what it
witnessed. Between two windows the engine may send the robot's action; each step is executed in the world for
real, and the next window shows its effects (the robot walking, opening, handing over) together with whatever the
people do next. After the script, ``quiet`` windows follow in which nobody acts (time passes), so an assistant
that waits to see whether someone else answers a need still gets its chance.

Window 0 holds what happened at time 0; window ``k`` (1..S) the ``k``-th scripted step; windows S+1..S+quiet
are quiet. The scene each window carries is the robot's own knowledge (its perceptual chain ``("robot",)`` of
the episode's tracker, read as of that window) plus the static map of the home.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from mindloop.beliefs import BeliefStore
from mindloop.errors import InvalidArgumentError
from mindloop.systems.mindclaw.records import ActionPlan, ExecutionResult, StepOutcome
from mindloop.systems.mindclaw.window import Candidates, MapScene, Window, WindowEvent, scene_record
from mindloop.worlds.household.goals import Goal, goal_satisfied
from mindloop.worlds.household.results import WorldEvent
from mindloop.worlds.household.scenarios.episode import Episode
from mindloop.worlds.household.scenarios.model import Scenario, ScriptStep
from mindloop.worlds.household.setup import WorldSetup
from mindloop.worlds.household.vocab import AT, FEELS, HOUSE, OPEN, POWER, ROBOT, ROOM, SWITCH, Prop
from mindloop.worlds.household.world import World

_R = (ROBOT,)
_HIDDEN = frozenset({"setup", "recall"})


class _HomeMap:
    """The parts of a home the robot knows without looking: ids, kinds, properties, which room a place is in."""

    def __init__(self, world: World) -> None:
        self.items: tuple[str, ...] = tuple(world.items)
        self.places: tuple[str, ...] = tuple(world.places)
        self.rooms: tuple[str, ...] = tuple(world.rooms)
        self.humans: tuple[str, ...] = tuple(world.humans)
        self.kind = {i: it.kind for i, it in world.items.items()}
        self.props: dict[str, frozenset[str]] = {
            i: frozenset(str(p) for p in it.props) for i, it in world.items.items()
        }
        self.props.update({p: frozenset(str(x) for x in pl.props) for p, pl in world.places.items()})
        self.place_room = {p: pl.room for p, pl in world.places.items()}
        self.place_room.update({r: r for r in self.rooms})
        switchable = [p for p in self.places if Prop.SWITCHABLE in world.places[p].props]
        self.candidates = Candidates(
            actors=frozenset(self.humans),
            objects=frozenset(self.items) | frozenset(switchable),
            locations=frozenset(self.places)
            | frozenset(self.rooms)
            | frozenset(self.items)
            | frozenset(self.humans)
            | {ROBOT},
        )
        names: dict[str, str] = {}
        for eid in (*self.rooms, *self.places, *self.items, *self.humans):
            names.setdefault(world.name(eid).lower(), eid)
        self.names = names


class TrackerScene(MapScene):
    """The robot's knowledge as a :class:`~mindloop.systems.mindclaw.window.SceneView`: its chain ``("robot",)`` in a
    belief store, read as of time ``at`` (so a window's scene never changes afterwards), plus the home map."""

    def __init__(self, home: _HomeMap, store: BeliefStore, at: int) -> None:
        self._items, self._humans, self._places = home.items, home.humans, home.places
        self._kind, self._props, self._place_room = home.kind, home.props, home.place_room
        self._store = store
        self._at = at

    def _v(self, subject: str, relation: str) -> str | None:
        return self._store.value(_R, subject, relation, at=self._at)

    def location(self, item: str) -> str | None:
        """Where the robot believes the item is."""
        return self._v(item, AT)

    def agent_room(self, agent: str) -> str | None:
        """The room the robot believes the agent is in."""
        return self._v(agent, ROOM)

    def is_open(self, entity: str) -> bool:
        """Whether the robot believes it is open."""
        return self._v(entity, OPEN) == "open"

    def is_on(self, entity: str) -> bool:
        """Whether the robot believes it is on."""
        return self._v(entity, SWITCH) == "on"

    def power(self) -> bool:
        """Whether the robot believes the house has power."""
        return self._v(HOUSE, POWER) != "off"

    def feels(self, agent: str) -> str | None:
        """What the robot believes the agent feels (from what was said or seen)."""
        return self._v(agent, FEELS)

    def to_dict(self) -> dict[str, Any]:
        """A plain record of this scene (what a replay file stores)."""
        return scene_record(self)


def window_event(e: WorldEvent) -> WindowEvent:
    """A world event as the robot perceives it (the robot left out of the witnesses)."""
    core = e.core
    facts = core.facts
    return WindowEvent(
        t=e.t,
        kind=e.kind,
        actor=e.actor or "",
        verb=e.verb,
        args=e.args,
        room=e.room or "",
        text=e.text,
        failure=e.failure.value if e.failure is not None else "",
        facts=facts,
        witnesses=tuple(sorted(w for w in e.witnesses if w != ROBOT)),
    )


class HouseholdSource:
    """A household episode, live and closed-loop (see the module docstring).

    Give a :class:`~mindloop.worlds.household.scenarios.Scenario`, or a setup and a script. ``episode`` is the
    running world and tracker. For evaluation only, ``watch`` is a goal checked in the world right after each
    executed action (``executed`` lists ``(window, result, goal met)``); the robot never sees it.
    """

    name = "household"

    def __init__(
        self,
        scenario: Scenario | None = None,
        *,
        setup: WorldSetup | None = None,
        script: Sequence[ScriptStep] = (),
        quiet: int = 2,
        task: str = "",
        watch: Goal | None = None,
    ) -> None:
        if scenario is not None:
            setup, script = scenario.setup, scenario.script
        if setup is None:
            raise InvalidArgumentError("HouseholdSource needs a scenario or a setup")
        self.setup = setup
        self.script = tuple(script)
        self.quiet = quiet
        self.task = task or f"household:{setup.layout}"
        self.episode: Episode | None = None
        self._home: _HomeMap | None = None
        self._pending: list[WorldEvent] = []
        self.watch = watch
        self.executed: list[tuple[int, ExecutionResult, bool | None]] = []
        self._t = 0

    @property
    def n_windows(self) -> int:
        """How many windows one episode has: the initial one, one per scripted step, and the quiet ones."""
        return 1 + len(self.script) + self.quiet

    def _window(self, k: int, events: Sequence[WorldEvent]) -> Window:
        assert self.episode is not None and self._home is not None
        seen = [window_event(e) for e in events if ROBOT in e.witnesses and e.verb not in _HIDDEN]
        home = self._home
        dialogue = tuple((e.actor, e.text.split(": ", 1)[-1].strip('"')) for e in seen if e.kind == "say")
        return Window(
            t=k,
            events=tuple(seen),
            text="\n".join(e.text for e in seen if e.text),
            dialogue=dialogue,
            state=TrackerScene(home, self.episode.tracker.store, self.episode.world.t),
            candidates=home.candidates,
            task=self.task,
            source=self.name,
            names=home.names,
        )

    def _start(self) -> Window:
        """A fresh episode (nothing pending or executed yet) and its first window."""
        ep = Episode(self.setup)
        self.episode, self._home = ep, _HomeMap(ep.world)
        self._pending, self.executed, self._t = [], [], 0
        return self._window(0, list(ep.events))

    def _next(self, k: int, new: Sequence[WorldEvent] = ()) -> Window:
        """Window ``k``: the events pending since the last window (the robot's actions'), then ``new``."""
        self._t = k
        events, self._pending = [*self._pending, *new], []
        return self._window(k, events)

    def windows(self) -> Iterator[Window]:
        """Play the episode; the robot's executed actions show in the next window."""
        yield self._start()
        ep = self.episode
        assert ep is not None
        for k, step in enumerate(self.script, 1):
            n = len(ep.events)
            ep.replay([step])
            yield self._next(k, ep.events[n:])
        for k in range(len(self.script) + 1, len(self.script) + 1 + self.quiet):
            yield self._next(k)

    def execute(self, plan: ActionPlan) -> ExecutionResult:
        """Run the plan's steps for the robot, stopping at the first refused step."""
        ep = self.episode
        if ep is None:
            raise InvalidArgumentError("execute() before windows(): there is no episode yet")
        outcomes = []
        for step in plan.steps:
            result = ep.act(ROBOT, step, expect_fail=None)
            self._pending.extend(result.events)
            outcomes.append(StepOutcome(step, result.ok, str(result.failure) if result.failure is not None else ""))
            if not result.ok:
                break
        out = ExecutionResult(True, tuple(outcomes), "executed in the household world")
        met = goal_satisfied(self.watch, ep.world, ep.tracker) if self.watch is not None else None
        self.executed.append((self._t, out, met))
        return out

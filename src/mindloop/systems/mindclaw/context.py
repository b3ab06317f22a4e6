"""The trigger context ``x_t = (o_t, B_{t-1}, H_{t-1}, C_t)`` (eq. (4)), its named features, and slot grounding.

Within one window the trigger runs a loop; each decision sees the observation, the memory as the previous
operations of this window left it, the candidates, the operations so far and the reasoning record if reasoning
ran. :class:`TriggerContext` exposes all of that, plus **features** — the structured fields that skills are
compiled against and that the embedded classifier reads (:data:`FEATURES` lists them with their meaning).

**Pending writes.** The belief writes a window implies are worked out once per window from the table as it was
when the window began: for every event in order, an item becomes tracked when someone handles it (or when the
table already tracks it), and each fact ``item -> location`` the event shows gives a visual-fact write when the
robot's visual fact differs, then one actor-belief write for each human who saw it (in name order) whose belief
differs. ``create`` when the table had no value, ``update`` otherwise. The operations done so far in the window
are removed from that list; what is left is pending, and the first of it is ``next_write``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from mindloop.beliefs.vocab import ROBOT
from mindloop.systems.mindclaw.cues import CONTEXTS, Cue, find_cues, first_new
from mindloop.systems.mindclaw.memory import Memory
from mindloop.systems.mindclaw.observation import Observation
from mindloop.systems.mindclaw.operations import (
    ACTION_RUN,
    BELIEF_VERBS,
    CREATE_ACTOR,
    CREATE_VISUAL,
    NOOP,
    REASONING_RUN,
    UPDATE_ACTOR,
    UPDATE_VISUAL,
    Operation,
)
from mindloop.systems.mindclaw.records import ReasoningRecord
from mindloop.systems.mindclaw.window import Candidates, Window

WRITE_KINDS: dict[str, str] = {
    CREATE_VISUAL: "visual_create",
    UPDATE_VISUAL: "visual_update",
    CREATE_ACTOR: "actor_create",
    UPDATE_ACTOR: "actor_update",
}


@dataclass(frozen=True, slots=True)
class Feature:
    """A named field of the trigger context: ``kind`` is ``bool``, ``int`` or ``cat`` (with its ``values``)."""

    name: str
    kind: str
    doc: str
    values: tuple[str, ...] = ()


FEATURES: tuple[Feature, ...] = (
    Feature("next_write", "cat", "the first pending belief write", ("none", *WRITE_KINDS.values())),
    Feature("pending_writes", "int", "how many belief writes the window still implies"),
    Feature("reasoned", "bool", "mental reasoning ran in this window"),
    Feature("warranted", "bool", "the last reasoning in this window found intervention warranted"),
    Feature("acted", "bool", "action generation ran in this window"),
    Feature("cue", "cat", "the first cue the robot has not acted on yet", ("none", *CONTEXTS)),
    Feature("cue_new", "bool", "some cue's focus has not been helped yet"),
    Feature("cue_helped", "bool", "some cue's focus was already helped"),
    Feature("last_op", "cat", "the previous operation in this window", ("none", "belief", REASONING_RUN, ACTION_RUN)),
    Feature("n_ops", "int", "operations already chosen in this window"),
    Feature("stale", "bool", "the belief table holds an actor belief that disagrees with a visual fact"),
    Feature("stale_present", "bool", "... held by someone the robot can see now"),
    Feature("searching", "bool", "someone the robot can see looked about since coming into their room"),
    Feature("quiet", "bool", "no human did anything in this window"),
    Feature("n_events", "int", "events perceived in this window"),
    Feature("n_moves", "int", "object locations shown in this window"),
    Feature("speech", "bool", "someone spoke in this window"),
    Feature(
        "failure",
        "cat",
        "a failed attempt seen in this window",
        ("none", "out_of_reach", "blocked", "no_power", "other"),
    ),
    Feature("power_off", "bool", "the power is out"),
    Feature("robot_acted", "bool", "the robot's own actions show in this window"),
    Feature("has_table", "bool", "the runtime has a belief table (off in the no-belief-table ablation)"),
)
"""Every feature a skill may test and the classifier reads, in vector order."""

FEATURE_NAMES = tuple(f.name for f in FEATURES)
FEATURE_BY_NAME = {f.name: f for f in FEATURES}
CUE_FEATURES = frozenset({"cue", "cue_new", "cue_helped"})
"""Features computed by the cue detectors (left out of the ``raw`` classifier)."""
RAW_FEATURE_NAMES = tuple(n for n in FEATURE_NAMES if n not in CUE_FEATURES)
"""The features of the window and memory alone, without the cue detectors."""


class WindowState:
    """Everything computed once per window and shared by the decisions of its trigger loop."""

    def __init__(self, window: Window, observation: Observation, memory: Memory) -> None:
        self.window = window
        self.observation = observation
        self.memory = memory
        self._writes: list[Operation] | None = None
        self._cues: list[Cue] | None = None
        self._cue_version: tuple[int, int] = (-1, -1)
        self._static: dict[str, Any] | None = None

    def writes(self) -> list[Operation]:
        """The belief writes this window implies (see the module docstring), computed once."""
        if self._writes is None:
            self._writes = pending_writes(self.observation, self.memory, self.window.t)
        return self._writes

    def cues(self) -> list[Cue]:
        """Cues, recomputed whenever the belief table changed within the window."""
        table = self.memory.table
        version = (table.store.n_writes if table is not None else 0, self.memory.history.version)
        if self._cues is None or version != self._cue_version:
            self._cues = find_cues(self.observation, table, self.memory.history)
            self._cue_version = version
        return self._cues

    def static(self) -> dict[str, Any]:
        """Window-level features that no operation of the window changes."""
        if self._static is None:
            o = self.observation
            failure = "none"
            for e in o.events:
                if e.failure and e.actor != ROBOT:
                    failure = e.failure if e.failure in ("out_of_reach", "blocked", "no_power") else "other"
            scene = o.scene
            log = o.activity
            searching = scene is not None and any(
                scene.agent_room(actor) is not None and log.searched(actor, log.since_entry(actor), "\0")
                for actor in log.acts
            )
            self._static = {
                "quiet": o.quiet,
                "n_events": sum(1 for e in o.events if e.text),
                "n_moves": len(o.moves),
                "speech": any(e.kind == "say" for e in o.events),
                "failure": failure,
                "power_off": scene is not None and not scene.power(),
                "robot_acted": any(e.actor == ROBOT for e in o.events),
                "searching": searching,
                "has_table": self.memory.table is not None,
            }
        return self._static


def pending_writes(o: Observation, memory: Memory, t: int) -> list[Operation]:
    """All belief writes window ``t`` implies, from the table as it stood before the window (module docstring)."""
    table = memory.table
    before = t - 1
    tracked: set[str] = set(table.objects()) if table is not None else set()
    known: dict[tuple[str | None, str], str | None] = {}  # (witness, object): its location; None: the visual fact
    handled = dict(o.handled)
    out: list[Operation] = []
    events = o.events
    moves = o.moves
    k = 0
    for i in range(len(events)):
        item = handled.get(i)
        if item is not None:
            tracked.add(item)
        while k < len(moves) and moves[k].event == i:
            m = moves[k]
            k += 1
            obj, loc = m.object, m.location
            if obj not in tracked:
                continue
            for who in (None, *(w for w in m.witnesses if w != ROBOT)):  # the visual fact, then each witness's
                key = (who, obj)
                if key not in known and table is not None:
                    known[key] = table.visual(obj, at=before) if who is None else table.actor(who, obj, at=before)
                held = known.get(key)
                if held != loc:
                    create, update = (CREATE_VISUAL, UPDATE_VISUAL) if who is None else (CREATE_ACTOR, UPDATE_ACTOR)
                    out.append(Operation(create if held is None else update, who or "none", obj, loc))
                    known[key] = loc
    return out


@dataclass
class TriggerContext:
    """One decision point of the trigger loop: the window's shared state, the operations chosen so far in this
    window, and the reasoning record of this window (if reasoning ran)."""

    state: WindowState
    ops: tuple[Operation, ...] = ()
    reasoning: ReasoningRecord | None = None
    _features: dict[str, Any] = field(default_factory=dict)
    _remaining: list[Operation] | None = None

    @property
    def window(self) -> Window:
        """``w_t``."""
        return self.state.window

    @property
    def observation(self) -> Observation:
        """``o_t``."""
        return self.state.observation

    @property
    def memory(self) -> Memory:
        """``B_{t-1}`` and ``H_{t-1}`` (as this window's earlier operations left them)."""
        return self.state.memory

    @property
    def candidates(self) -> Candidates:
        """``C_t``."""
        return self.state.window.candidates

    @property
    def t(self) -> int:
        """The window index."""
        return self.state.window.t

    def remaining_writes(self) -> list[Operation]:
        """The window's belief writes not yet done (each done belief operation removes one equal write)."""
        if self._remaining is None:
            left = list(self.state.writes())
            for op in self.ops:
                if op.verb in BELIEF_VERBS and op in left:
                    left.remove(op)
            self._remaining = left
        return self._remaining

    def cues(self) -> list[Cue]:
        """The window's cues (as the belief table stands now)."""
        return self.state.cues()

    def focus(self) -> Cue | None:
        """The first cue not yet helped: what reasoning would be asked about."""
        return first_new(self.cues())

    def feature(self, name: str) -> Any:
        """One named feature (computed on first use)."""
        cache = self._features
        if name in cache:
            return cache[name]
        fn = _COMPUTE.get(name)
        if name == "text":
            value: Any = self.state.window.text
        elif fn is not None:
            value = fn(self)
        elif name in FEATURE_BY_NAME:
            value = self.state.static()[name]
        else:
            raise KeyError(name)
        cache[name] = value
        return value

    def features(self) -> dict[str, Any]:
        """Every feature of :data:`FEATURES`, by name."""
        return {name: self.feature(name) for name in FEATURE_NAMES}

    def last_op(self) -> Operation | None:
        """The previous operation in this window."""
        return self.ops[-1] if self.ops else None


def _next_write(ctx: TriggerContext) -> str:
    left = ctx.remaining_writes()
    return WRITE_KINDS[left[0].verb] if left else "none"


def _last_op(ctx: TriggerContext) -> str:
    op = ctx.last_op()
    if op is None:
        return "none"
    return "belief" if op.verb in BELIEF_VERBS else op.verb


def _cue(ctx: TriggerContext) -> str:
    c = ctx.focus()
    return c.context if c is not None else "none"


def _stale(ctx: TriggerContext, present: bool) -> bool:
    table = ctx.memory.table
    if table is None:
        return False
    scene = ctx.observation.scene
    return any(not present or (scene is not None and scene.agent_room(s.actor) is not None) for s in table.stale())


_COMPUTE: dict[str, Callable[[TriggerContext], Any]] = {
    "next_write": _next_write,
    "pending_writes": lambda c: len(c.remaining_writes()),
    "last_op": _last_op,
    "n_ops": lambda c: len(c.ops),
    "reasoned": lambda c: any(op.verb == REASONING_RUN for op in c.ops),
    "warranted": lambda c: c.reasoning is not None and c.reasoning.warranted,
    "acted": lambda c: any(op.verb == ACTION_RUN for op in c.ops),
    "cue": _cue,
    "cue_new": lambda c: c.focus() is not None,
    "cue_helped": lambda c: any(x.helped for x in c.cues()),
    "stale": lambda c: _stale(c, False),
    "stale_present": lambda c: _stale(c, True),
}


def ground(verb: str, ctx: TriggerContext) -> Operation | None:
    """Ground ``verb`` in the context's candidates (the second factor of eq. (7)), or ``None`` if it cannot be:

    * a belief verb takes the first pending write of that verb;
    * ``reasoning_run`` takes the first cue not yet helped (else a stale belief of someone present);
    * ``action_run`` takes the focus of this window's reasoning (else the first cue not yet helped);
    * ``noop`` needs no slots.
    """
    if verb == NOOP:
        return Operation(NOOP)
    if verb in BELIEF_VERBS:
        return next((op for op in ctx.remaining_writes() if op.verb == verb), None)
    if verb == ACTION_RUN and ctx.reasoning is not None:
        return Operation(ACTION_RUN, ctx.reasoning.actor, ctx.reasoning.object)
    if verb in (REASONING_RUN, ACTION_RUN):
        cue = ctx.focus()
        if cue is not None:
            return Operation(verb, cue.actor, cue.object)
        table = ctx.memory.table
        scene = ctx.observation.scene
        if verb == REASONING_RUN and table is not None:
            for s in table.stale():
                if scene is None or scene.agent_room(s.actor) is not None:
                    return Operation(REASONING_RUN, s.actor, s.object)
    return None


@cache
def _columns(names: tuple[str, ...]) -> tuple[tuple[str, str | None], ...]:
    """The feature vector's layout: ``(feature, value)`` per one-hot column of a categorical feature, ``(feature,
    None)`` for any other (worked out once per list of names: a vector is made at every trigger decision)."""
    features = [FEATURE_BY_NAME[n] for n in names]
    return tuple((f.name, v) for f in features for v in (f.values if f.kind == "cat" else (None,)))


def feature_vector_names(names: Sequence[str] = FEATURE_NAMES) -> list[str]:
    """Column names of :func:`feature_vector` (categorical features one-hot, ``name=value``)."""
    return [name if v is None else f"{name}={v}" for name, v in _columns(tuple(names))]


def feature_vector(features: Mapping[str, Any], names: Sequence[str] = FEATURE_NAMES) -> list[float]:
    """Features as numbers, in :func:`feature_vector_names` order."""
    return [float(features[name] if v is None else features[name] == v) for name, v in _columns(tuple(names))]

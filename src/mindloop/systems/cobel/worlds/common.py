"""What both transport worlds share: entities, actions, messages, spaces and room layouts.

Entities are named the way CoBel-World's prompts name them, ``<apple>(12)``; agents are bare names. An action is
an :class:`Action` (``kind`` plus ``target``/``obj`` entity ids and ``text`` for messages) or the dict a
Gymnasium ``Dict`` action space samples; :func:`coerce_action` turns either into an ``Action`` and rejects
anything malformed with :class:`~mindloop.errors.InvalidArgumentError`. An action that is well formed but not
possible (grasping something out of reach) is not an error: it costs its step and the agent's ``info`` says why.

Both worlds keep the environment contract of :mod:`mindloop.environments`: ``info[agent]["events"]`` holds the
step's events that some agent witnessed; ground truth (world facts, progress, and every event, witnessed or not)
is ``info[agent]["ground_truth"]`` only in privileged mode (``privileged=True`` or ``reset(options={"privileged":
True})``); stepping a finished episode raises :class:`gymnasium.error.ResetNeeded`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Self, TypeVar

import gymnasium
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from mindloop.beliefs import Event, EventKind, Fact, Source, Utterance
from mindloop.errors import InvalidArgumentError
from mindloop.records_codec import Record, write_record

MAX_MESSAGE_CHARS = 500
"""Longest message one send-message action may carry (both benchmarks)."""

MAX_ENTITY_ID = 10_000
"""Entity ids in actions lie in ``[0, MAX_ENTITY_ID)``; the action space's ``target``/``object`` are that wide."""

AGENT_NAMES = ("Alice", "Bob", "Charlie", "David")
"""Agent names, in order; a team of n agents uses the first n (the paper's Alice and Bob for two)."""


_A = TypeVar("_A")
_O = TypeVar("_O")
_Act = TypeVar("_Act")

if TYPE_CHECKING:

    class ParallelEnvBase(Generic[_A, _O, _Act]):
        """What the type checker sees of PettingZoo's ``ParallelEnv`` (which ships no type information)."""

        metadata: dict[str, Any]
        agents: list[_A]
        possible_agents: list[_A]
        render_mode: str | None

        @property
        def unwrapped(self) -> ParallelEnvBase[_A, _O, _Act]: ...

else:
    from pettingzoo import ParallelEnv as ParallelEnvBase


def agent_names(n: int) -> tuple[str, ...]:
    """The names of an ``n``-agent team (2 to 4)."""
    if not 2 <= n <= len(AGENT_NAMES):
        raise InvalidArgumentError(f"a transport team has 2 to {len(AGENT_NAMES)} agents, got {n}")
    return AGENT_NAMES[:n]


class TransportEpisode(Record):
    """What both worlds' episode specs share: their plain-data form, ``{"world": WORLD, field: value, ...}`` (a
    benchmark sample's input), read back field by field and checked; a team of 2 when ``n_agents`` is missing."""

    __slots__ = ()
    WORLD: ClassVar[str] = ""
    """The world's name in the plain-data form (``cwah``, ``tdw-mat``)."""
    READ_MISSING: ClassVar[Mapping[str, Any]] = {"n_agents": 2}
    n_agents: int

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a benchmark sample."""
        return {"world": self.WORLD, **write_record(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Read back :meth:`to_dict`'s form, checked (:meth:`check`); a malformed one is an
        :class:`~mindloop.errors.InvalidArgumentError` (``not a C-WAH episode: KeyError: 'goal'``: ``KIND``)."""
        ep = super().from_dict(data)
        ep.check()
        return ep

    def check(self) -> None:
        """Raise ``InvalidArgumentError`` unless the episode is one of the world's."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Entity:
    """A room, piece of furniture, container or object: a numeric id, a class name, a kind and its SBL text."""

    id: int
    name: str
    kind: str
    ref: str

    @classmethod
    def make(cls, ident: int, name: str, kind: str) -> Entity:
        """An entity whose ``ref`` is ``<name>(id)``."""
        return cls(ident, name, kind, f"<{name}>({ident})")


@dataclass(slots=True)
class Seat:
    """What both worlds keep of an agent on the scene: its name, its room, the entity it stands near, what it holds
    and which way it faces."""

    name: str
    room: int
    near: int | None = None
    holding: list[int] = field(default_factory=list)
    facing: int = 0


@dataclass(frozen=True, slots=True)
class Message:
    """A message as delivered: the step (or frame) it was sent at, the sender and its text."""

    t: int
    sender: str
    text: str


@dataclass(frozen=True, slots=True)
class Action:
    """One agent's action: ``kind`` (a name from the world's action set), entity ids, and message text."""

    kind: str
    target: int | None = None
    obj: int | None = None
    text: str = ""

    def __str__(self) -> str:
        parts = [self.kind]
        if self.obj is not None:
            parts.append(str(self.obj))
        if self.target is not None:
            parts.append(str(self.target))
        if self.text:
            parts.append(repr(self.text[:40]))
        return " ".join(parts)


def action_space_for(kinds: Sequence[str]) -> spaces.Dict:
    """The Gymnasium action space of a world with these action kinds (indices into ``kinds``)."""
    return spaces.Dict(
        {
            "kind": spaces.Discrete(len(kinds)),
            "target": spaces.Discrete(MAX_ENTITY_ID),
            "object": spaces.Discrete(MAX_ENTITY_ID),
            "message": spaces.Text(max_length=MAX_MESSAGE_CHARS, min_length=1),
        }
    )


def coerce_action(action: Any, kinds: Sequence[str], kind_set: frozenset[str]) -> Action:
    """An :class:`Action` from an ``Action`` or a sampled dict; raise ``InvalidArgumentError`` if malformed."""
    if type(action) is Action:
        if action.kind not in kind_set:
            raise InvalidArgumentError(f"unknown action kind {action.kind!r} (known: {', '.join(kinds)})")
        if len(action.text) > MAX_MESSAGE_CHARS:
            raise InvalidArgumentError(
                f"a message may have at most {MAX_MESSAGE_CHARS} characters, got {len(action.text)}"
            )
        return action
    if isinstance(action, Mapping):
        try:
            k = int(action["kind"])
        except (KeyError, TypeError, ValueError):
            raise InvalidArgumentError(f"an action dict needs an integer 'kind', got {action!r}") from None
        if not 0 <= k < len(kinds):
            raise InvalidArgumentError(f"action kind index {k} out of range 0..{len(kinds) - 1}")
        text = action.get("message", "")
        if not isinstance(text, str):
            raise InvalidArgumentError(f"an action's 'message' must be a string, got {type(text).__name__}")
        target = action.get("target")
        obj = action.get("object")
        return coerce_action(
            Action(kinds[k], None if target is None else int(target), None if obj is None else int(obj), text),
            kinds,
            kind_set,
        )
    raise InvalidArgumentError(f"an action must be an Action or a dict, got {type(action).__name__}")


class ObservationSpace(gymnasium.Space[Any]):
    """The space of a world's symbolic observations: instances of one frozen observation dataclass.

    Symbolic observations (what is in the room, who holds what, messages) are structured records rather than
    arrays; this space checks membership by type and cannot be sampled.
    """

    def __init__(self, cls: type) -> None:
        super().__init__(shape=None, dtype=None)
        self.cls = cls

    def contains(self, x: Any) -> bool:
        """True for an instance of the observation class."""
        return isinstance(x, self.cls)

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        """Symbolic observations cannot be sampled."""
        raise NotImplementedError(f"{self.cls.__name__} observations cannot be sampled")

    @property
    def is_np_flattenable(self) -> bool:
        """Not flattenable into an array."""
        return False

    def __repr__(self) -> str:
        return f"ObservationSpace({self.cls.__name__})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObservationSpace) and other.cls is self.cls

    def __hash__(self) -> int:
        return hash(self.cls)


@dataclass(frozen=True)
class Layout:
    """Rooms and which ones share a door; ``next_hop`` and ``hops`` answer shortest-path questions in O(1)."""

    rooms: tuple[int, ...]
    doors: tuple[tuple[int, int], ...]
    _hops: dict[tuple[int, int], int] = field(init=False, repr=False, compare=False)
    _next: dict[tuple[int, int], int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        adj: dict[int, list[int]] = {r: [] for r in self.rooms}
        for a, b in self.doors:
            adj[a].append(b)
            adj[b].append(a)
        hops: dict[tuple[int, int], int] = {}
        nxt: dict[tuple[int, int], int] = {}
        for src in self.rooms:
            dist = {src: 0}
            first: dict[int, int] = {}
            queue = deque([src])
            while queue:
                u = queue.popleft()
                for v in sorted(adj[u]):
                    if v not in dist:
                        dist[v] = dist[u] + 1
                        first[v] = v if u == src else first[u]
                        queue.append(v)
            for dst in self.rooms:
                if dst not in dist:
                    raise InvalidArgumentError(f"layout is not connected: no way from room {src} to {dst}")
                hops[(src, dst)] = dist[dst]
                nxt[(src, dst)] = first.get(dst, dst)
        object.__setattr__(self, "_hops", hops)
        object.__setattr__(self, "_next", nxt)

    def hops(self, a: int, b: int) -> int:
        """Number of doors between rooms ``a`` and ``b``."""
        return self._hops[(a, b)]

    def next_hop(self, a: int, b: int) -> int:
        """The room to enter next on a shortest way from ``a`` to ``b`` (``b`` itself when adjacent or equal)."""
        return self._next[(a, b)]


def witnessed(events: Sequence[Event | Utterance]) -> tuple[Event | Utterance, ...]:
    """The events some agent perceived (an utterance always has its speaker); the rest are ground truth."""
    return tuple(e for e in events if isinstance(e, Utterance) or e.witnesses)


StepResult = tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]
"""What ``step`` returns: observations, rewards, terminations, truncations and infos, each by agent."""


class TransportEnv(ParallelEnvBase[str, _O, Any]):
    """What both transport worlds share: the team, the action kinds and spaces, privileged mode, last events,
    choosing the episode, the opening events, messages, witnesses and the step's returns.

    Subclasses set their PettingZoo name, action kinds, observation and episode types (``ENV_NAME``, ``KINDS``,
    ``OBSERVATION``, ``EPISODE``; ``CHECK_EPISODE``: check an episode given as itself too), draw an episode from a
    seed (``_draw``) and build its scene (``_build``, the clock at 0), call
    :meth:`_check_running` first in ``step`` and :meth:`_stepped` last, seat the team with :meth:`_seat` (agents
    with ``name``, ``room`` and ``holding``), and give ``entities``, ``room_of`` and ``contents`` (what
    :meth:`_cross` moves along with an agent going through a door), ``world_facts``, ``_look``, ``_observe`` and
    :meth:`_ground_truth`. ``last_events`` holds every event of the last reset or step, witnessed or not
    (privileged, like the env's other attributes); ``privileged`` is the default for ``reset``'s ``privileged``
    option.
    """

    ENV_NAME = ""
    KINDS: tuple[str, ...] = ()
    OBSERVATION: type = object
    EPISODE: type[TransportEpisode] = TransportEpisode
    CHECK_EPISODE = False
    entities: dict[int, Entity]
    room_of: dict[int, int]  # entity -> the room it is in
    contents: dict[int, list[int]]  # furniture or container -> what is in or on it
    _agent: dict[str, Any]
    _agents_list: list[Any]
    _inbox: dict[str, list[Message]]

    def __init__(
        self,
        episode: Any = None,
        n_agents: int = 2,
        render_mode: str | None = None,
        *,
        privileged: bool = False,
    ) -> None:
        kinds = self.KINDS
        self.metadata = {"name": self.ENV_NAME, "render_modes": ["ansi"], "is_parallelizable": True}
        self.episode = episode
        self.possible_agents = list(agent_names(episode.n_agents if episode is not None else n_agents))
        self.agents: list[str] = []
        self.render_mode = render_mode
        self._kinds = tuple(kinds)
        self._kind_set = frozenset(kinds)
        self._action_space = action_space_for(kinds)
        self._obs_space = ObservationSpace(self.OBSERVATION)
        self.privileged = privileged
        self._privileged_now = privileged
        self.last_events: tuple[Event | Utterance, ...] = ()

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, _O], dict[str, dict[str, Any]]]:
        """Build the episode's scene and return each agent's first observation and info."""
        self._build(self._episode(seed, options or {}))
        return self._opening()

    def _episode(self, seed: int | None, options: Mapping[str, Any]) -> Any:
        """The episode ``reset`` plays (option ``episode``, an episode or its dict, else the env's own, else
        ``_draw(seed)``), checked against the team; it also reads the per-episode settings (privileged mode)."""
        cls = self.EPISODE
        ep = options.get("episode", self.episode)
        if isinstance(ep, Mapping):
            ep = cls.from_dict(ep)
        if ep is None:
            ep = self._draw(0 if seed is None else seed)
        elif not isinstance(ep, cls):
            raise InvalidArgumentError(f"option 'episode' must be a {cls.__name__} or a dict, got {type(ep).__name__}")
        if self.CHECK_EPISODE:
            ep.check()
        if ep.n_agents != len(self.possible_agents):
            raise InvalidArgumentError(
                f"episode is for {ep.n_agents} agents but this env has {len(self.possible_agents)}"
            )
        self.current = ep
        self._privileged_now = bool(options.get("privileged", self.privileged))
        return ep

    def _draw(self, seed: int) -> Any:
        """The episode ``reset(seed=seed)`` plays when none is given."""
        raise NotImplementedError

    def _build(self, ep: Any) -> None:
        """Build ``ep``'s scene and set the clock to 0."""
        raise NotImplementedError

    def _extra(self) -> dict[str, Any]:
        """What every info carries besides ``ok``, ``events``, ``error`` and ground truth (the world's clock)."""
        return {}

    def _opening(self) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Start the team on the built scene: the opening events (the world narrated, each agent's first look),
        and each agent's first observation and info."""
        self.agents = list(self.possible_agents)
        self._inbox = {a: [] for a in self.agents}
        events: list[Event | Utterance] = [
            Event(0, EventKind.OTHER, None, tuple(self.world_facts()), frozenset(), Source.NARRATION)
        ]
        events += [self._look(self._agent[a], 0) for a in self.agents]
        self.last_events = tuple(events)
        obs = {a: self._observe(a) for a in self.agents}
        return obs, self._infos(self.agents, dict.fromkeys(self.agents, (True, "")))

    def _stepped(
        self,
        reward: float,
        done: bool,
        truncated: bool,
        results: Mapping[str, tuple[bool, str]],
    ) -> StepResult:
        """What ``step`` returns for the live agents; the episode ends when it is done or truncated."""
        agents = self.agents
        obs = {a: self._observe(a) for a in agents}
        rewards = dict.fromkeys(agents, reward)
        terms = dict.fromkeys(agents, done)
        truncs = dict.fromkeys(agents, truncated)
        infos = self._infos(agents, results)
        if done or truncated:
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def _say(self, sender: str, text: str, t: int, events: list[Event | Utterance]) -> None:
        """Deliver a message to every other agent's inbox and record it as an utterance they all hear."""
        others = frozenset(a for a in self.possible_agents if a != sender)
        msg = Message(t, sender, text)
        for other in others:
            self._inbox[other].append(msg)
        events.append(Utterance(t, sender, others, (), True, text))

    def _messages(self, name: str) -> tuple[Message, ...]:
        """The messages delivered to ``name`` since its last observation (its inbox, emptied)."""
        msgs = tuple(self._inbox[name])
        self._inbox[name].clear()
        return msgs

    def _seat(self, team: list[Any]) -> None:
        """Put ``team`` (the agents in order, each in its room) on the scene: ``_agents_list`` and ``_agent``."""
        self._agents_list = team
        self._agent = {ag.name: ag for ag in team}

    def _witnesses(self, room: int) -> frozenset[str]:
        return frozenset(a.name for a in self._agents_list if a.room == room)

    def _partners(self, ag: Any) -> list[Any]:
        """The other agents in ``ag``'s room, in team order."""
        return [o for o in self._agents_list if o is not ag and o.room == ag.room]

    def _partners_holding(self, ag: Any) -> list[Fact]:
        """What the partners in ``ag``'s room hold, as ``HELD_BY`` facts."""
        return [Fact(self.entities[i].ref, "HELD_BY", o.name) for o in self._partners(ag) for i in o.holding]

    def _cross(self, ag: Any, room: int, t: int, events: list[Event | Utterance]) -> None:
        """``ag`` goes through a door into ``room`` with what it holds (and what that contains): its exit is seen by
        the room it leaves, its entrance by the room it enters, then it looks around."""
        events.append(Event(t, EventKind.EXIT, ag.name, (), self._witnesses(ag.room)))
        ag.room = room
        for h in ag.holding:
            self.room_of[h] = room
            for c in self.contents.get(h, ()):
                self.room_of[c] = room
        at = (Fact(ag.name, "AT", self.entities[room].ref),)
        events.append(Event(t, EventKind.ENTER, ag.name, at, self._witnesses(room)))
        events.append(self._look(ag, t))

    def _agents_at(self) -> list[Fact]:
        """Where every agent is, as ``AT`` facts."""
        return [Fact(a.name, "AT", self.entities[a.room].ref) for a in self._agents_list]

    def world_facts(self) -> list[Fact]:
        """Ground truth as belief-core facts (privileged: for trackers and metrics, never for agents)."""
        raise NotImplementedError

    def _look(self, ag: Any, t: int) -> Event:
        raise NotImplementedError

    def _observe(self, name: str) -> Any:
        raise NotImplementedError

    def _check_running(self) -> None:
        """Raise ``ResetNeeded`` unless an episode is running (reset and not yet terminated or truncated)."""
        if not self.agents:
            raise ResetNeeded("the episode is over (or was never reset); call reset() before step()")

    def _ground_truth(self) -> dict[str, Any]:
        """The world's ground truth for ``info[agent]["ground_truth"]`` (privileged mode only)."""
        raise NotImplementedError

    def _infos(self, agents: Sequence[str], results: Mapping[str, tuple[bool, str]]) -> dict[str, dict[str, Any]]:
        """Each agent's info: ``ok``, ``events`` (the witnessed ones), :meth:`_extra`, ``error`` and ground truth."""
        events = witnessed(self.last_events)
        extra = self._extra()
        truth = self._ground_truth() if self._privileged_now else None
        infos: dict[str, dict[str, Any]] = {}
        for a in agents:
            ok, error = results[a]
            info: dict[str, Any] = {"ok": ok, "events": events, **extra}
            if error:
                info["error"] = error
            if truth is not None:
                info["ground_truth"] = dict(truth)
            infos[a] = info
        return infos

    def observation_space(self, agent: str) -> ObservationSpace:
        """The same symbolic observation space object for every agent."""
        return self._obs_space

    def action_space(self, agent: str) -> Any:
        """The same ``Dict(kind, target, object, message)`` space object for every agent."""
        return self._action_space

    def close(self) -> None:
        """Nothing to release."""

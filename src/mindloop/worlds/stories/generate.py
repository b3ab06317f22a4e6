"""Seeded generator of ToMi-style false-belief stories with independently derived answers.

The stories use the numbered-line format of ToMi (Le et al., EMNLP 2019) and,
on request, Hi-ToM style higher-order questions.  Gold answers come from plain
bookkeeping written in this module on purpose, apart from the project's belief
tracker, so tests can check the tracker against answers derived another way.

World semantics implemented by the bookkeeping:

* Every room has its own containers; a container never changes room.  Objects
  are always in containers.  An object enters the world when it is first
  stated (``The O is in the C.``); before that nobody can see it.
* An agent is in at most one room at a time (it must exit before entering
  another).  Agents in the same room witness everything that happens there
  while they are present, including each other's entering and exiting;
  entering and exiting by themselves change no belief about objects.
* When an agent enters a room it sees where every object in that room is:
  everyone present (the entrant included) witnesses one event per object,
  and all of them know that all of them saw it.  This is ToMi's policy;
  with ``reveal_on_entry=False`` (Hi-ToM's policy) an entrance reveals
  nothing, and only statements and moves witnessed later tell the entrant.
* ``The O is in the C.`` is witnessed by everyone in C's room, and each of
  them knows the others present learned it.  Restating an object somewhere
  other than where it is would be an unexplained change and is refused.
* ``X moved the O to the C.`` needs X, the object and C in the same room and
  is witnessed by everyone in that room, the mover included.
* Noise (``X likes the O``, ``X saw a monkey.``, ...) changes nothing.
* First-order belief of X about O is the location given by the latest event
  about O that X witnessed.  The belief of a chain ``(X, Y, ...)`` ("X thinks
  Y thinks ...") is the location given by the latest event about O that
  *every* agent of the chain witnessed (co-presence is mutual observation).
* Reality is where the object is at the end; memory is the first container
  the object was stated to be in.

Questions are only asked when their answer is defined, and chains never name
the same agent twice in a row.

Random stories also keep every container's room readable from the text alone:
an object is stated only in the room named by the latest ``entered`` sentence,
while every agent in a room is there (so it is always witnessed), and a
container first named in a move is in the mover's room.  Scripted stories
(the tests play hand-written actions through ``_apply``) may break this convention.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import InvalidArgumentError

QTYPES: tuple[str, ...] = (
    "reality",
    "memory",
    "first_order",
    "second_order",
    "order_3",
    "order_4",
)
"""Every question type this module can produce, lowest order first."""

_ORDER_OF_QTYPE: dict[str, int] = {qtype: order for order, qtype in enumerate(QTYPES[2:], 1)}
"""The belief order each belief question type asks about (``first_order``: 1, ..., ``order_4``: 4)."""


class _Vocabulary(DataModel):
    """``data/vocabulary.yaml``: the words stories are made of, in the order the seeded draws read them."""

    names: tuple[str, ...]
    objects: tuple[str, ...]
    rooms: tuple[str, ...]
    containers: tuple[str, ...]
    exit_verbs: tuple[str, ...]
    feelings: tuple[str, ...]
    animals: tuple[str, ...]


_WORDS = load_package_data(_Vocabulary, __package__ or "", "vocabulary.yaml")
_NAMES, _OBJECTS, _ROOMS, _CONTAINERS = _WORDS.names, _WORDS.objects, _WORDS.rooms, _WORDS.containers
_EXIT_VERBS, _FEELINGS, _ANIMALS = _WORDS.exit_verbs, _WORDS.feelings, _WORDS.animals

_MAX_ATTEMPTS = 10_000
_MAX_NOISE = 0.5


@dataclass(frozen=True)
class GeneratedExample:
    """One generated story with its single question and gold answer."""

    sentences: tuple[str, ...]
    question: str
    answer: str
    qtype: str


MIN_CHOICES = 2
"""The fewest containers a generated story names: its questions' answer options."""


def _chains(agents: Sequence[str], max_order: int) -> Iterator[tuple[str, ...]]:
    """Yield every chain of 1..max_order agents with no agent twice in a row."""
    for length in range(1, max_order + 1):
        for chain in itertools.product(agents, repeat=length):
            if all(a != b for a, b in itertools.pairwise(chain)):
                yield chain


class _World:
    """Story state plus belief bookkeeping, one dict per chain of agents."""

    def __init__(self, layout: Mapping[str, Sequence[str]], max_order: int, reveal_on_entry: bool = True) -> None:
        """Build an empty world; ``layout`` maps each room to its containers."""
        self.max_order = max_order
        self.reveal_on_entry = reveal_on_entry
        self.containers_in: dict[str, tuple[str, ...]] = {}
        self.room_of_container: dict[str, str] = {}
        for room, containers in layout.items():
            if not containers:
                raise InvalidArgumentError(f"room {room!r} has no containers")
            self.containers_in[room] = tuple(containers)
            for container in containers:
                if container in self.room_of_container:
                    raise InvalidArgumentError(f"container {container!r} is in two rooms")
                self.room_of_container[container] = room
        self.sentences: list[str] = []
        # agent -> current room (None when in no room); insertion order is
        # the order in which agents first entered.
        self.agent_room: dict[str, str | None] = {}
        self.scene: str | None = None  # room of the latest "entered" sentence
        self.location: dict[str, str] = {}  # object -> current container
        self.first_location: dict[str, str] = {}  # object -> first stated container
        self.named: dict[str, None] = {}  # containers the story's sentences name, in order of first mention
        # chain of agents -> object -> believed container
        self.beliefs: dict[tuple[str, ...], dict[str, str]] = {}

    @property
    def agents(self) -> list[str]:
        """Agents that have entered a room at least once, in order of appearance."""
        return list(self.agent_room)

    def present(self, room: str) -> list[str]:
        """Agents currently in ``room``."""
        return [agent for agent, where in self.agent_room.items() if where == room]

    def object_room(self, obj: str) -> str:
        """Room holding the (already stated) object ``obj``."""
        return self.room_of_container[self.location[obj]]

    def belief(self, chain: Sequence[str], obj: str) -> str | None:
        """Belief of ``chain`` about ``obj``, or None when never jointly witnessed."""
        return self.beliefs.get(tuple(chain), {}).get(obj)

    def _witness(self, obj: str, container: str, witnesses: Sequence[str]) -> None:
        """Record that all ``witnesses`` jointly saw ``obj`` in ``container``."""
        for chain in _chains(sorted(witnesses), self.max_order):
            self.beliefs.setdefault(chain, {})[obj] = container

    def _say(self, sentence: str) -> None:
        if not sentence or "\t" in sentence or "\n" in sentence:
            raise InvalidArgumentError(f"bad sentence {sentence!r}")
        self.sentences.append(sentence)

    def enter(self, agent: str, room: str) -> None:
        """``agent`` enters ``room`` and, with everyone there, sees its objects."""
        if room not in self.containers_in:
            raise InvalidArgumentError(f"unknown room {room!r}")
        if self.agent_room.get(agent) is not None:
            raise InvalidArgumentError(f"{agent} is already in the {self.agent_room[agent]}")
        self.agent_room[agent] = room
        self.scene = room
        self._say(f"{agent} entered the {room}.")
        if not self.reveal_on_entry:
            return
        witnesses = self.present(room)
        for obj, container in self.location.items():
            if self.room_of_container[container] == room:
                self._witness(obj, container, witnesses)

    def exit(self, agent: str, verb: str = "exited") -> None:
        """``agent`` leaves the room it is in."""
        if verb not in _EXIT_VERBS:
            raise InvalidArgumentError(f"unknown exit verb {verb!r}")
        room = self.agent_room.get(agent)
        if room is None:
            raise InvalidArgumentError(f"{agent} is in no room")
        self.agent_room[agent] = None
        self._say(f"{agent} {verb} the {room}.")

    def place(self, obj: str, container: str) -> None:
        """State ``The obj is in the container.``; everyone in that room learns it."""
        if container not in self.room_of_container:
            raise InvalidArgumentError(f"unknown container {container!r}")
        current = self.location.get(obj)
        if current is None:
            self.location[obj] = container
            self.first_location[obj] = container
        elif current != container:
            raise InvalidArgumentError(f"the {obj} is in the {current}, not the {container}")
        self._say(f"The {obj} is in the {container}.")
        self.named.setdefault(container, None)
        self._witness(obj, container, self.present(self.room_of_container[container]))

    def move(self, agent: str, obj: str, container: str) -> None:
        """``agent`` moves ``obj`` to ``container``; everyone in the room sees it."""
        room = self.agent_room.get(agent)
        if room is None:
            raise InvalidArgumentError(f"{agent} is in no room")
        if obj not in self.location:
            raise InvalidArgumentError(f"the {obj} has not been placed")
        if self.object_room(obj) != room:
            raise InvalidArgumentError(f"the {obj} is not in the {room}")
        if self.room_of_container.get(container) != room:
            raise InvalidArgumentError(f"there is no {container} in the {room}")
        if self.location[obj] == container:
            raise InvalidArgumentError(f"the {obj} is already in the {container}")
        self.location[obj] = container
        self._say(f"{agent} moved the {obj} to the {container}.")
        self.named.setdefault(container, None)
        self._witness(obj, container, self.present(room))

    def noise(self, sentence: str) -> None:
        """Add a sentence that changes nothing."""
        self._say(sentence)

    def answer(self, qtype: str, obj: str, chain: Sequence[str] = ()) -> str | None:
        """Gold answer for a question, or None when it is undefined."""
        if obj not in self.location:
            return None
        if qtype == "reality":
            return None if chain else self.location[obj]
        if qtype == "memory":
            return None if chain else self.first_location[obj]
        order = _ORDER_OF_QTYPE.get(qtype)
        if order is None:
            raise InvalidArgumentError(f"unknown qtype {qtype!r}")
        if len(chain) != order or order > self.max_order:
            return None
        if any(a == b for a, b in itertools.pairwise(chain)):
            return None
        return self.belief(chain, obj)


def _question_text(qtype: str, obj: str, chain: Sequence[str], hitom: bool) -> str:
    """Render a question in ToMi phrasing (or Hi-ToM phrasing when ``hitom``)."""
    if qtype == "reality":
        return f"Where is the {obj} really?"
    if qtype == "memory":
        return f"Where was the {obj} at the beginning?"
    if qtype == "first_order":
        return f"Where will {chain[0]} look for the {obj}?"
    if qtype == "second_order" and not hitom:
        return f"Where does {chain[0]} think that {chain[1]} searches for the {obj}?"
    thinks = " thinks ".join(chain[1:])
    return f"Where does {chain[0]} think {thinks} thinks the {obj} is?"


def _ask(
    world: _World,
    qtype: str,
    obj: str,
    chain: Sequence[str] = (),
    *,
    hitom: bool = False,
) -> GeneratedExample:
    """Turn the world's story and one question into an example."""
    answer = world.answer(qtype, obj, chain)
    if answer is None:
        raise InvalidArgumentError(f"undefined answer for {qtype} about {obj} with {tuple(chain)}")
    if hitom and qtype not in ("second_order", "order_3", "order_4"):
        raise InvalidArgumentError(f"no Hi-ToM phrasing for {qtype}")
    if not hitom and qtype in ("order_3", "order_4"):
        raise InvalidArgumentError(f"{qtype} exists only in Hi-ToM phrasing")
    return GeneratedExample(
        sentences=tuple(world.sentences),
        question=_question_text(qtype, obj, chain, hitom),
        answer=answer,
        qtype=qtype,
    )


def _apply(world: _World, action: Sequence[str]) -> None:
    """Apply one scripted action such as ``("move", "Anne", "marble", "box")``.

    Forms: ``("enter", agent, room)``, ``("exit", agent)`` or
    ``("exit", agent, verb)``, ``("place", obj, container)``,
    ``("move", agent, obj, container)``, ``("noise", sentence)``.
    """
    if not action:
        raise InvalidArgumentError("empty action")
    kind, args = action[0], tuple(action[1:])
    if len(args) not in _ACTION_ARITY.get(kind, ()):
        raise InvalidArgumentError(f"bad action {tuple(action)!r}")
    getattr(world, kind)(*args)


_ACTION_ARITY: Mapping[str, tuple[int, ...]] = {
    "enter": (2,),
    "exit": (1, 2),
    "place": (2,),
    "move": (3,),
    "noise": (1,),
}
"""The scripted actions: each is the :class:`_World` method of that name, with this many arguments."""


def _noise_sentence(rng: random.Random, agents: Sequence[str]) -> str:
    """A random sentence that changes nothing, sometimes without a full stop."""
    agent = rng.choice(agents)
    if rng.random() < 0.2:
        return f"{agent} saw a {rng.choice(_ANIMALS)}."
    sentence = f"{agent} {rng.choice(_FEELINGS)} the {rng.choice(_OBJECTS)}"
    return sentence if rng.random() < 0.5 else sentence + "."


def _random_action(rng: random.Random, world: _World, agents: Sequence[str], objects: Sequence[str]) -> tuple[str, ...]:
    """Pick a feasible next action, favouring moves that create false beliefs."""
    outside = [a for a in agents if world.agent_room.get(a) is None]
    inside = [a for a in agents if world.agent_room.get(a) is not None]
    unplaced = [o for o in objects if o not in world.location]
    # Statements only where a reader of the text can tell the container's room:
    # the room of the latest "entered" sentence, with every agent in a room there.
    scene = world.scene if inside and all(world.agent_room[a] == world.scene for a in inside) else None
    movable = [
        (agent, obj) for agent in inside for obj in world.location if world.object_room(obj) == world.agent_room[agent]
    ]
    absent_knower = any(
        world.agent_room.get(agent) != world.object_room(obj) and world.belief((agent,), obj) is not None
        for _, obj in movable
        for agent in agents
    )
    kinds: list[tuple[str, float]] = []
    if outside:
        kinds.append(("enter", 1.5 if inside else 3.0))
    if inside:
        kinds.append(("exit", 1.2))
    if unplaced and scene is not None:
        kinds.append(("place", 3.0))
    if movable:
        kinds.append(("move", 2.5 if absent_knower else 1.0))
    kind = rng.choices([k for k, _ in kinds], weights=[w for _, w in kinds])[0]

    rooms = list(world.containers_in)
    if kind == "enter":
        agent = rng.choice(outside)
        weights = [
            2.0 if world.present(r) or any(world.object_room(o) == r for o in world.location) else 1.0 for r in rooms
        ]
        return ("enter", agent, rng.choices(rooms, weights=weights)[0])
    if kind == "exit":
        return ("exit", rng.choice(inside), rng.choice(_EXIT_VERBS))
    if kind == "place" and scene is not None:
        return ("place", rng.choice(unplaced), rng.choice(world.containers_in[scene]))
    agent, obj = rng.choice(movable)
    here = world.containers_in[world.object_room(obj)]
    targets = [c for c in here if c != world.location[obj]]
    return ("move", agent, obj, rng.choice(targets))


def _random_story(rng: random.Random, noise: float, max_order: int, reveal_on_entry: bool = True) -> _World:
    """Play out a random story of 4-20 lines and return the final world."""
    agents = rng.sample(_NAMES, rng.randint(2, 4))
    rooms = rng.sample(_ROOMS, rng.randint(1, 2))
    counts = [rng.randint(2, 4) for _ in rooms]
    pool = rng.sample(_CONTAINERS, sum(counts))
    ends = itertools.accumulate(counts)
    layout = {room: tuple(pool[end - count : end]) for room, count, end in zip(rooms, counts, ends, strict=True)}
    objects = rng.sample(_OBJECTS, rng.randint(1, 2))
    length = rng.randint(4, 20)
    world = _World(layout, max_order, reveal_on_entry)
    while len(world.sentences) < length:
        if rng.random() < noise:
            world.noise(_noise_sentence(rng, agents))
        else:
            _apply(world, _random_action(rng, world, agents, objects))
    return world


def _random_question(
    rng: random.Random,
    world: _World,
    qtype: str,
    hitom_questions: bool,
    surprising: bool,
) -> GeneratedExample | None:
    """Ask a random defined question of ``qtype``, or None if there is none.

    ``surprising`` asks for an answer that differs from the naive one (the
    real location for belief and memory questions, the first location for
    reality questions): a false belief / "ToM needed" case when True, a true
    belief / "no ToM needed" case when False.
    """
    objects = list(world.location)
    if len(world.agents) < 2:
        return None
    if qtype in ("reality", "memory"):
        chains: list[tuple[str, ...]] = [()]
    else:
        order = _ORDER_OF_QTYPE[qtype]
        chains = [c for c in _chains(world.agents, order) if len(c) == order]
    candidates: list[tuple[str, tuple[str, ...], str]] = []
    for obj in objects:
        for chain in chains:
            answer = world.answer(qtype, obj, chain)
            if answer is not None:
                candidates.append((obj, chain, answer))
    if not candidates:
        return None

    def naive(obj: str) -> str:
        return world.first_location[obj] if qtype == "reality" else world.location[obj]

    pool = [c for c in candidates if (c[2] != naive(c[0])) == surprising]
    if not pool:
        return None
    obj, chain, _ = rng.choice(pool)
    hitom = qtype in ("order_3", "order_4") or (qtype == "second_order" and hitom_questions and rng.random() < 0.5)
    return _ask(world, qtype, obj, chain, hitom=hitom)


def _question_types(max_order: int, hitom_questions: bool) -> tuple[str, ...]:
    """Question types produced for the given settings."""
    types = ["reality", "memory", "first_order"]
    if max_order >= 2:
        types.append("second_order")
    if hitom_questions:
        types.extend(q for q in ("order_3", "order_4") if _ORDER_OF_QTYPE[q] <= max_order)
    return tuple(types)


def generate_tomi(
    n: int,
    *,
    seed: int,
    max_order: int = 2,
    hitom_questions: bool = False,
    noise: float = 0.1,
    reveal_on_entry: bool = True,
) -> list[GeneratedExample]:
    """Generate ``n`` seeded ToMi-style examples with gold answers.

    Every story names at least :data:`MIN_CHOICES` containers (the answer options a benchmark offers are the
    containers the story names, so a one-container story would be a question with one choice). Question types
    are balanced (each block of consecutive examples holds
    every type once, in shuffled order), and each question is, with
    probability 1/2, one whose answer differs from the naive one (false
    belief, moved object) and otherwise one where it does not.  The default
    gives the four ToMi types; ``max_order`` (1-4) caps the belief order
    asked, and orders 3 and 4 are asked only with ``hitom_questions=True``,
    which also phrases about half of the second-order questions in Hi-ToM
    style.  ``noise`` (0-0.5) is the probability that a story line is a
    noise sentence.  ``reveal_on_entry`` is ToMi's entrance policy (an
    entrant sees where the room's objects are); ``False`` is Hi-ToM's.
    """
    if n < 0:
        raise InvalidArgumentError(f"n must be non-negative, got {n}")
    if not 1 <= max_order <= 4:
        raise InvalidArgumentError(f"max_order must be between 1 and 4, got {max_order}")
    if not 0.0 <= noise <= _MAX_NOISE:
        raise InvalidArgumentError(f"noise must be between 0 and {_MAX_NOISE}, got {noise}")
    qtypes = _question_types(max_order, hitom_questions)
    tracked_order = max(_ORDER_OF_QTYPE.get(q, 1) for q in qtypes)
    rng = random.Random(seed)
    examples: list[GeneratedExample] = []
    block: list[str] = []
    for _ in range(n):
        if not block:
            block = list(qtypes)
            rng.shuffle(block)
        qtype = block.pop()
        surprising = rng.random() < 0.5
        for _attempt in range(_MAX_ATTEMPTS):
            world = _random_story(rng, noise, tracked_order, reveal_on_entry)
            if len(world.named) < MIN_CHOICES:  # the answer options are the containers named: one is no question
                continue
            example = _random_question(rng, world, qtype, hitom_questions, surprising)
            if example is not None:
                examples.append(example)
                break
        else:  # pragma: no cover - the story policy makes this practically impossible
            raise RuntimeError(f"could not generate a {qtype} question")
    return examples


def to_numbered_text(examples: Sequence[GeneratedExample]) -> str:
    """Render examples in ToMi's numbered-line format, ending with a newline (``""`` for none)."""
    lines: list[str] = []
    for example in examples:
        for number, sentence in enumerate(example.sentences, start=1):
            lines.append(f"{number} {sentence}")
        number = len(example.sentences) + 1
        lines.append(f"{number} {example.question}\t{example.answer}\t1")
    return "\n".join(lines) + "\n" if lines else ""

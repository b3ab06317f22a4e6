"""Who witnesses what in a ToMi/Hi-ToM story: the reader's room bookkeeping against a simulator written here.

The simulator below knows the true room of every container (the generator picks it), applies "who is in the room
where it happens" by hand, and keeps every chain's belief in a plain dict; it shares no code with the reader or
the tracker. The generator puts agents in several rooms at once, as ToMi's third agent does.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mindloop.systems.tom import evaluate_file
from mindloop.worlds.stories.tomi import (
    Question,
    answer_question,
    narrate,
    parse_question,
    story_policy,
    track_story,
)

ROOMS: dict[str, tuple[str, ...]] = {
    "kitchen": ("red_box", "blue_crate"),
    "garage": ("green_bag", "tin_can"),
    "attic": ("old_chest", "jar"),
}
AGENTS = ("Ann", "Bo", "Cy", "Di")
OBJECTS = ("apple", "pear")
MAX_CHAIN = 3


def _chains(agents: Sequence[str]) -> Iterator[tuple[str, ...]]:
    for k in range(1, MAX_CHAIN + 1):
        for chain in itertools.product(sorted(agents), repeat=k):
            if all(a != b for a, b in itertools.pairwise(chain)):
                yield chain


class Sim:
    """A story being written, with its true state and every chain's belief kept by hand."""

    def __init__(self, reveal_on_entry: bool) -> None:
        self.reveal = reveal_on_entry
        self.room_of = {c: r for r, cs in ROOMS.items() for c in cs}
        self.where: dict[str, str | None] = {}  # agent -> room
        self.obj: dict[str, str] = {}  # object -> container
        self.named: set[str] = set()  # containers some sentence already placed something in
        self.scene: str | None = None
        self.owed: set[str] = set()  # objects whose narrated room the text has not told yet
        self.belief: dict[tuple[str, ...], dict[str, str]] = {}
        self.lines: list[str] = []

    def present(self, room: str) -> list[str]:
        return [a for a, r in self.where.items() if r == room]

    def _see(self, agents: Sequence[str], obj: str, con: str) -> None:
        for chain in _chains(agents):
            self.belief.setdefault(chain, {})[obj] = con

    def enter(self, names: Sequence[str], room: str) -> None:
        for n in names:
            self.where[n] = room
        self.scene = room
        joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        self.lines.append(f"{joined} entered the {room}.")
        if self.reveal:
            for obj, con in self.obj.items():
                if self.room_of[con] == room:
                    self._see(self.present(room), obj, con)

    def exit(self, agent: str) -> None:
        self.lines.append(f"{agent} exited the {self.where[agent]}.")
        self.where[agent] = None

    def put(self, obj: str, con: str) -> None:
        room = self.room_of[con]
        if con not in self.named and room != self.scene:
            self.owed.add(obj)  # only a later move of it tells the reader which room this was
        self.obj[obj] = con
        self.named.add(con)
        self.lines.append(f"The {obj} is in the {con}.")
        self._see(self.present(room), obj, con)

    def move(self, agent: str, obj: str, con: str) -> None:
        assert self.room_of[con] == self.where[agent] == self.room_of[self.obj[obj]]
        self.obj[obj] = con
        self.named.add(con)
        self.owed.discard(obj)
        self.lines.append(f"{agent} moved the {obj} to the {con}.")
        self._see(self.present(self.room_of[con]), obj, con)

    def expected(self, chain: tuple[str, ...], obj: str) -> str:
        """The reader's documented answer: the chain's belief, else its outer chain's, else the world."""
        while chain:
            held = self.belief.get(chain, {}).get(obj)
            if held is not None:
                return held
            chain = chain[:-1]
        return self.obj[obj]


@st.composite
def stories(draw: st.DrawFn, reveal_on_entry: bool = True) -> Sim:
    sim = Sim(reveal_on_entry)
    for _ in range(draw(st.integers(3, 24))):
        outside = [a for a in AGENTS if sim.where.get(a) is None]
        inside = [a for a in AGENTS if sim.where.get(a) is not None]
        unplaced = [o for o in OBJECTS if o not in sim.obj]
        movable = [(a, o) for a in inside for o in sim.obj if sim.room_of[sim.obj[o]] == sim.where[a]]
        kinds = ["enter"] * bool(outside) + ["exit"] * bool(inside) + ["put"] * bool(unplaced)
        kinds += ["move"] * bool(movable) + ["noise"]
        kind = draw(st.sampled_from(kinds))
        if kind == "enter":
            names = draw(st.lists(st.sampled_from(outside), min_size=1, max_size=2, unique=True))
            sim.enter(names, draw(st.sampled_from(sorted(ROOMS))))
        elif kind == "exit":
            sim.exit(draw(st.sampled_from(inside)))
        elif kind == "put":
            sim.put(draw(st.sampled_from(unplaced)), draw(st.sampled_from(sorted(sim.room_of))))
        elif kind == "move":
            agent, obj = draw(st.sampled_from(movable))
            here = [c for c in ROOMS[sim.where[agent] or ""] if c != sim.obj[obj]]
            sim.move(agent, obj, draw(st.sampled_from(here)))
        else:
            sim.lines.append(f"{draw(st.sampled_from(AGENTS))} likes the {draw(st.sampled_from(OBJECTS))}")
    for obj in sorted(sim.owed):  # let someone handle each such object, so the text tells its room
        room = sim.room_of[sim.obj[obj]]
        if not sim.present(room):
            agent = draw(st.sampled_from(AGENTS))
            if sim.where.get(agent) is not None:
                sim.exit(agent)
            sim.enter([agent], room)
        agent = sim.present(room)[0]
        sim.move(agent, obj, next(c for c in ROOMS[room] if c != sim.obj[obj]))
    return sim


def _check(sim: Sim, fmt: str) -> None:
    tracker = track_story(list(enumerate(sim.lines, 1)), "tomi" if fmt == "tomi" else "hitom")
    agents = [a for a in AGENTS if a in sim.where]
    for obj in sim.obj:
        assert tracker.world(obj, "in") == sim.obj[obj]
        for chain in _chains(agents):
            q = Question("?", "?", "belief", chain, obj, f"order_{len(chain)}")
            assert answer_question(tracker, q) == sim.expected(chain, obj), (sim.lines, chain, obj)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stories())
def test_witnesses_are_who_is_in_the_room_where_it_happens(sim: Sim) -> None:
    _check(sim, "tomi")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stories(reveal_on_entry=False))
def test_under_hitom_policy_an_entrance_reveals_nothing(sim: Sim) -> None:
    _check(sim, "hitom")


def test_a_hand_worked_story_across_three_rooms() -> None:
    """The simulator itself, on a story worked by hand (so the property above checks against something right)."""
    sim = Sim(reveal_on_entry=True)
    sim.enter(["Ann", "Bo"], "kitchen")
    sim.enter(["Cy"], "garage")
    sim.put("apple", "red_box")  # in the kitchen (Ann and Bo see it), though the garage was entered last
    sim.exit("Ann")
    sim.move("Bo", "apple", "blue_crate")
    sim.enter(["Ann"], "attic")
    assert sim.owed == set()
    assert sim.expected(("Ann",), "apple") == "red_box"
    assert sim.expected(("Bo", "Ann"), "apple") == "red_box"
    assert sim.expected(("Bo",), "apple") == "blue_crate"
    assert sim.expected(("Cy",), "apple") == "blue_crate"  # never saw it: falls back to the world
    _check(sim, "tomi")


ISSUE_STORIES = """\
1 Mia entered the kitchen.
2 Noah entered the kitchen.
3 Owen entered the garage.
4 The apple is in the red_box.
5 Mia exited the kitchen.
6 Noah moved the apple to the blue_crate.
7 Where will Mia look for the apple?\tred_box\t1
1 Mia entered the kitchen.
2 Noah entered the kitchen.
3 Owen entered the garage.
4 Owen exited the garage.
5 The apple is in the red_box.
6 Mia exited the kitchen.
7 Noah moved the apple to the blue_crate.
8 Where does Noah think that Mia searches for the apple?\tred_box\t1
"""


def test_a_third_agent_in_another_room_does_not_move_the_narrated_object(tmp_path: Path) -> None:
    path = tmp_path / "issue.txt"
    path.write_text(ISSUE_STORIES, encoding="utf-8")
    report = evaluate_file(path, "tomi")
    assert [a.predicted for a in report.answers] == ["red_box", "red_box"]


HITOM_REENTRY = [
    "Mila, Carter and Isla entered the staircase.",
    "The peas is in the green_treasure_chest.",
    "Carter moved the peas to the green_bucket.",
    "Isla exited the staircase.",
    "Mila moved the peas to the blue_cupboard.",
    "Mila exited the staircase.",
    "Carter exited the staircase.",
    "Mila, Carter and Isla entered the waiting_room.",
    "Mila and Isla entered the staircase.",
    "Mila exited the staircase.",
    "Isla exited the staircase.",
    "Mila and Isla entered the waiting_room.",
]


def test_entrance_policy_follows_the_format() -> None:
    """Hi-ToM's generator reveals nothing on re-entry: Isla never saw the peas leave the green_bucket."""
    q = parse_question("Where does Mila think Isla thinks the peas is?", "green_bucket", "hitom")
    assert q is not None
    sentences = list(enumerate(HITOM_REENTRY, 1))
    assert answer_question(track_story(sentences, "hitom"), q) == "green_bucket"
    # ToMi's generator does reveal on entry: both see the peas in the blue_cupboard at line 9.
    assert answer_question(track_story(sentences, "tomi"), q) == "blue_cupboard"
    assert story_policy("tomi").reveal_on_entry and not story_policy("hitom").reveal_on_entry

    def observed(policy: str) -> list[int]:
        return [e.t for e in narrate(sentences, policy=story_policy(policy)) if getattr(e, "kind", "") == "observe"]

    assert observed("tomi") == [9] and observed("hitom") == []

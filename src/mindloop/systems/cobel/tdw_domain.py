"""TDW-MAT knowledge for the agents: perception to Fig. 7 beliefs, plan options with frame costs, execution.

Plans are the atomic actions of the paper's prompts (Fig. 10/11/14): ``explore <room>`` (go there and turn
until every quarter is seen), ``grab <object|container>`` (go to it and grasp it; a grasped object goes straight
into a held container with room), and ``transport <bed>`` (carry everything to the bed and drop it there).
Costs are expected frames from the door graph and :data:`~mindloop.systems.cobel.worlds.tdw_spec.FRAME_COSTS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from mindloop.beliefs import Fact
from mindloop.systems.cobel.cwah_domain import toward_room_of
from mindloop.systems.cobel.mind import CLAIM, Intent, Mind, WorldView
from mindloop.systems.cobel.team import Domain, IntentFailed, entity_id, entity_name
from mindloop.systems.cobel.worlds.common import Action, Layout
from mindloop.systems.cobel.worlds.tdw_spec import (
    CONTAINER_CAPACITY,
    FRAME_COSTS,
    FRAMES_PER_METER,
    ROOM_SIZE,
    TDW_CATEGORIES,
    TdwObservation,
    quarter,
)

_CONTAINER_NAMES = frozenset(n for _, containers in TDW_CATEGORIES.values() for n in containers)
_REACH = 3.0 * FRAMES_PER_METER + FRAME_COSTS["grasp"]
_VERB_ORDER = {"transport": 0, "grab": 1, "explore": 2}


_WAIT = Action("wait")


@dataclass
class TdwDomain(Domain):
    """Everything world-specific a TDW-MAT agent needs, for one episode."""

    world: str = "tdw-mat"
    inside: str = "CONTAINED_BY"
    idle: Action = _WAIT  # waiting costs a few frames
    claim_ttl: int = 400  # frames an announced plan keeps its claim
    hop = ROOM_SIZE * FRAMES_PER_METER  # frames per door (to the next room's centre)
    goal: dict[str, int] = field(default_factory=dict)
    rooms: dict[str, str] = field(default_factory=dict)
    bed: str = ""
    bed_room: str = ""
    layout: Layout | None = None
    positions: dict[str, tuple[float, float]] = field(default_factory=dict)

    def setup(self, obs: TdwObservation) -> None:
        """Learn what every agent knows from the start: goal, rooms, doors and where the bed is."""
        super().setup(obs)
        self.goal = dict(obs.goal)
        self.bed = obs.bed.ref
        self.bed_room = next(r.ref for r in obs.rooms if r.id == obs.bed_room)

    def t(self, obs: TdwObservation) -> int:
        """The observation's time (frames)."""
        return obs.frame

    def ready(self, obs: TdwObservation) -> bool:
        """Whether the agent's last action has finished."""
        return obs.ready

    def holding(self, obs: TdwObservation) -> list[str]:
        """What the agent holds (containers and objects)."""
        return [h.entity.ref for h in obs.holding]

    # ---- perception -----------------------------------------------------------------------------------------
    def perceive(self, mind: Mind, obs: TdwObservation) -> None:
        """Beliefs in Fig. 7's vocabulary from one observation (first-order too, for partners in the room)."""
        room = obs.room.ref
        facts = [Fact(obs.agent, "AT", room), Fact(room, "EXPLORED", obs.explored), Fact(self.bed, "IN", self.bed_room)]
        seen: set[str] = set()
        for s in obs.seen:
            ref = s.entity.ref
            seen.add(ref)
            if s.on_bed:
                facts += [Fact(ref, "ON", self.bed), Fact(ref, "IN", None), Fact(ref, "HELD_BY", None)]
                continue
            self.positions[ref] = s.pos
            if ref != self.bed:
                facts += [Fact(ref, "IN", room), Fact(ref, "HELD_BY", None), Fact(ref, "CONTAINED_BY", None)]
            facts += [Fact(c.ref, "CONTAINED_BY", ref) for c in s.contents]
        held_now: set[str] = set()
        for who, holding in [(obs.agent, obs.holding), *((p.name, p.holding) for p in obs.partners)]:
            for h in holding:
                held_now.add(h.entity.ref)
                facts += [Fact(h.entity.ref, "HELD_BY", who), Fact(h.entity.ref, "IN", None)]
                for c in h.contents:
                    facts += [Fact(c.ref, "CONTAINED_BY", h.entity.ref), Fact(c.ref, "HELD_BY", None)]
                    facts.append(Fact(c.ref, "IN", None))
                held_now.update(c.ref for c in h.contents)
        copresent = [p.name for p in obs.partners]
        facts += [Fact(p, "AT", room) for p in copresent]
        quarters = set(obs.quarters)
        view = mind.view()
        for subj, rels in view.facts.items():
            pos = self.positions.get(subj)
            in_view = (pos is not None and quarter(pos) in quarters) or len(quarters) == 4
            if rels.get("IN") == room and subj not in seen and in_view:
                facts.append(Fact(subj, "IN", None))  # it should be in view and is not: it is gone
            if rels.get("HELD_BY") in copresent and subj not in held_now:
                facts.append(Fact(subj, "HELD_BY", None))
        mind.perceive(facts, copresent, obs.frame)

    # ---- knowledge helpers ----------------------------------------------------------------------------------
    def _is_container(self, ref: str) -> bool:
        return entity_name(ref) in _CONTAINER_NAMES

    def remaining(self, view: WorldView, claimed: list[str] | None = None) -> int:
        """Targets still to find: all goal objects − believed on the bed − held or carried − claimed."""
        total = sum(self.goal.values())
        done = 0
        for subj, rels in view.facts.items():
            if entity_name(subj) not in self.goal:
                continue
            if (
                rels.get("ON") == self.bed
                or "HELD_BY" in rels
                or ("CONTAINED_BY" in rels and view.get(rels["CONTAINED_BY"], "HELD_BY") is not None)
            ):
                done += 1
        return total - done - len(claimed or [])

    def relevant_facts(self, view: WorldView, me: str) -> list[Fact]:
        """Where targets and containers are, what is on the bed, which rooms are explored, who holds what."""
        out: list[Fact] = []
        for subj, rels in view.facts.items():
            name = entity_name(subj)
            if name in self.goal or name in _CONTAINER_NAMES:
                for rel in ("IN", "ON", "HELD_BY", "CONTAINED_BY"):
                    if rel in rels:
                        out.append(Fact(subj, rel, rels[rel]))
            elif subj in self.rooms and "EXPLORED" in rels:
                out.append(Fact(subj, "EXPLORED", rels["EXPLORED"]))
        return out

    def _capacity(self, view: WorldView, holding: list[str]) -> tuple[int, bool]:
        """(objects that can still be picked up this trip, holds a container)."""
        container = next((h for h in holding if self._is_container(h)), None)
        free_hands = 2 - len(holding)
        if container is None:
            return free_hands, False
        inside = len(view.subjects_with("CONTAINED_BY", container))
        return (CONTAINER_CAPACITY - inside) + free_hands, True

    # ---- planning -------------------------------------------------------------------------------------------
    def options(
        self,
        view: WorldView,
        who: str,
        room: str | None,
        holding: list[str],
        avoid: Mapping[str, float] | None = None,
    ) -> list[Intent]:
        """Plan steps for ``who``, cheapest (in frames) first."""
        avoid = avoid or {}
        claimed = [t for t, pen in avoid.items() if pen >= CLAIM and entity_name(t) in self.goal]
        need = self.remaining(view, claimed)
        capacity, has_container = self._capacity(view, holding)
        carried = sum(1 for h in holding if not self._is_container(h)) + sum(
            len(view.subjects_with("CONTAINED_BY", h)) for h in holding if self._is_container(h)
        )
        out: list[Intent] = []
        if carried:
            cost = self._dist(room, self.bed_room) + 30.0 + FRAME_COSTS["drop"]
            if capacity > 0 and need > 0:
                cost += 150.0 * capacity  # room left: fetching more first is usually better
            out.append(Intent("transport", self.bed, cost))
        if capacity > 0 and need > 0:
            for subj, rels in view.facts.items():
                where = rels.get("IN")
                if where is None or "HELD_BY" in rels or where == self.bed:
                    continue
                name = entity_name(subj)
                if name in self.goal:
                    cost = self._dist(room, where) + _REACH + avoid.get(subj, 0.0)
                    out.append(Intent("grab", subj, cost))
                elif name in _CONTAINER_NAMES and not has_container and len(holding) == 0 and need >= 2:
                    cost = self._dist(room, where) + _REACH - 60.0 + avoid.get(subj, 0.0)
                    out.append(Intent("grab", subj, cost))
        if need > 0 and capacity > 0:
            for rref in self.rooms:
                state = view.get(rref, "EXPLORED")
                if state == "all":
                    continue
                turns = 3 if state in (None, "none") else 2
                cost = self._dist(room, rref) + turns * FRAME_COSTS["turn_left"] + 40.0 + avoid.get(rref, 0.0)
                out.append(Intent("explore", rref, cost))
        out.sort(key=lambda i: (i.cost, _VERB_ORDER.get(i.verb, 9), i.target))
        return out

    # ---- execution ------------------------------------------------------------------------------------------
    def next_action(self, intent: Intent, obs: TdwObservation, view: WorldView) -> Action | None:
        """The primitive action that advances ``intent`` now; ``None`` when it is complete."""
        here = obs.room.ref
        if intent.verb == "explore":
            if here != intent.target:
                return Action("move", entity_id(intent.target))
            return None if obs.explored == "all" else Action("turn_right")
        if intent.verb == "transport":
            if not obs.holding:
                return None
            if here != self.bed_room or obs.near != obs.bed.id:
                return Action("move", obs.bed.id)
            return Action("drop")
        if intent.verb == "grab":
            held = {h.entity.ref: h for h in obs.holding}
            if intent.target in held:
                cont = next((h for h in obs.holding if h.entity.kind == "container"), None)
                loose = [h for h in obs.holding if h.entity.kind == "object"]
                if cont is not None and loose and len(cont.contents) < CONTAINER_CAPACITY:
                    return Action("put_in")
                return None
            if len(obs.holding) >= 2:
                raise IntentFailed("hands full")
            if (go := toward_room_of(view, intent.target, here, "move")) is not None:
                return go
            visible = {s.entity.ref: s for s in obs.seen if not s.on_bed}
            if intent.target not in visible:
                if obs.explored != "all":
                    return Action("turn_right")  # look for it
                raise IntentFailed(f"{intent.target} is not here")
            tid = visible[intent.target].entity.id
            return Action("grasp", tid) if obs.near == tid else Action("move", tid)
        raise IntentFailed(f"unknown plan verb {intent.verb!r}")

    def still_valid(self, intent: Intent, view: WorldView, me: str, holding: list[str]) -> bool:
        """False once beliefs make the step pointless."""
        if intent.verb == "grab":
            if intent.target in holding:
                return True
            rels = view.facts.get(intent.target, {})
            return "IN" in rels and "HELD_BY" not in rels
        if intent.verb == "explore":
            return view.get(intent.target, "EXPLORED") != "all"
        if intent.verb == "transport":
            return bool(holding)
        return True

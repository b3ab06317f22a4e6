"""C-WAH knowledge for the agents: perception to beliefs, plan options with costs, and plan execution.

Plans are the high-level steps CoELA-style agents use in C-WAH: ``explore <room>`` (go there and look),
``check <container>`` (go to it and open it), ``grab <object>`` and ``deliver <target>`` (put held goal objects
on or in the goal's target). Costs are expected steps, from the door graph the agents know
(:data:`~mindloop.systems.cobel.worlds.cwah_spec.HOP_STEPS` per door).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from mindloop.beliefs import Fact
from mindloop.systems.cobel.mind import CLAIM, Intent, Mind, WorldView
from mindloop.systems.cobel.team import Domain, IntentFailed, entity_id, entity_name
from mindloop.systems.cobel.worlds.common import Action, Layout
from mindloop.systems.cobel.worlds.cwah_spec import HOP_STEPS, CwahObservation, GoalPredicate, Seen

_TARGET_ROOM = {"coffeetable": "livingroom", "dinnertable": "kitchen", "fridge": "kitchen", "dishwasher": "kitchen"}


def toward_room_of(view: WorldView, ref: str, here: str, verb: str) -> Action | None:
    """The ``verb`` action (walk, move) toward the room ``ref`` is believed in; ``None`` when that is ``here``.

    Raises :class:`IntentFailed` when the view does not know where ``ref`` is."""
    where = view.get(ref, "IN")
    if where is None:
        raise IntentFailed(f"do not know where {ref} is")
    return Action(verb, entity_id(where)) if where != here else None


def _near(obs: CwahObservation, eid: int, then: Action) -> Action:
    """``then`` once next to entity ``eid``, else a walk to it."""
    return then if obs.near == eid else Action("walk", eid)


def _here(visible: Mapping[str, Seen], ref: str) -> Seen:
    """What is seen of ``ref`` now; :class:`IntentFailed` when it is not here."""
    if ref not in visible:
        raise IntentFailed(f"{ref} not here")
    return visible[ref]


_TURN = Action("turn_left")


@dataclass
class CwahDomain(Domain):
    """Everything world-specific a C-WAH agent needs, for one episode."""

    goal: tuple[GoalPredicate, ...] = ()
    rooms: dict[str, str] = field(default_factory=dict)  # room ref -> room name
    layout: Layout | None = None
    world: str = "cwah"
    inside: str = "INSIDE"
    idle: Action = _TURN  # what an agent with nothing to do sends: a turn changes nothing here
    claim_ttl: int = 40  # how many steps an announced plan keeps its claim
    hop = float(HOP_STEPS)  # steps per door

    def setup(self, obs: CwahObservation) -> None:
        """Learn the static facts every agent knows: goal, rooms and doors."""
        super().setup(obs)
        self.goal = obs.goal
        self._target_of = {p.obj: p.target for p in obs.goal}
        self._rel_of = {p.obj: ("INSIDE" if p.relation == "IN" else "ON") for p in obs.goal}
        self._count = {p.obj: p.count for p in obs.goal}

    # ---- perception -----------------------------------------------------------------------------------------
    def t(self, obs: CwahObservation) -> int:
        """The observation's time (steps)."""
        return obs.t

    def ready(self, obs: CwahObservation) -> bool:
        """C-WAH agents act every step."""
        return True

    def holding(self, obs: CwahObservation) -> list[str]:
        """What the agent holds, as SBL entities."""
        return [e.ref for e in obs.holding]

    def perceive(self, mind: Mind, obs: CwahObservation) -> None:
        """Turn the symbolic observation into zero-order beliefs (and first-order ones for co-present partners)."""
        room = obs.room.ref
        refs = {s.entity.id: s.entity.ref for s in obs.seen}
        facts: list[Fact] = [Fact(obs.agent, "AT", room)]
        seen_objects: set[str] = set()
        open_holders: set[str] = set()
        containers_here: list[tuple[str, bool]] = []
        for s in obs.seen:
            ref = s.entity.ref
            if s.entity.kind == "object":
                holder = refs[s.holder]
                other = "ON" if s.relation == "INSIDE" else "INSIDE"
                facts += [Fact(ref, s.relation, holder), Fact(ref, other, None), Fact(ref, "HELD_BY", None)]
                seen_objects.add(ref)
            else:
                facts.append(Fact(ref, "IN", room))
                if s.entity.kind == "container":
                    opened = s.state == "opened"
                    facts.append(Fact(ref, "STATE", s.state))
                    containers_here.append((ref, opened))
                    if opened:
                        facts.append(Fact(ref, "EXPLORED", "all"))
                        open_holders.add(ref)
                else:
                    open_holders.add(ref)
        for e in obs.holding:
            facts += [Fact(e.ref, "HELD_BY", obs.agent), Fact(e.ref, "ON", None), Fact(e.ref, "INSIDE", None)]
        copresent = []
        for p in obs.partners:
            copresent.append(p.name)
            facts.append(Fact(p.name, "AT", room))
            for e in p.holding:
                facts += [Fact(e.ref, "HELD_BY", p.name), Fact(e.ref, "ON", None), Fact(e.ref, "INSIDE", None)]
        view = mind.view()
        # What I thought was visible here but is not: it has been moved.
        held_now = {e.ref for e in obs.holding} | {e.ref for p in obs.partners for e in p.holding}
        for subj, rels in view.facts.items():
            placed = rels.get("ON") or rels.get("INSIDE")
            if placed in open_holders and subj not in seen_objects and subj not in held_now:
                facts += [Fact(subj, "ON", None), Fact(subj, "INSIDE", None)]
            if rels.get("HELD_BY") in copresent and subj not in held_now:
                facts.append(Fact(subj, "HELD_BY", None))
        checked = all(opened or view.get(c, "EXPLORED") == "all" or c in open_holders for c, opened in containers_here)
        facts.append(Fact(room, "EXPLORED", "all" if checked else "part"))
        mind.perceive(facts, copresent, obs.t)

    # ---- knowledge helpers ----------------------------------------------------------------------------------
    def _room_of(self, view: WorldView, ref: str) -> str | None:
        """Room of a piece of furniture or of an object (through its holder)."""
        if ref in self.rooms:
            return ref
        holder = view.get(ref, "ON") or view.get(ref, "INSIDE")
        if holder is not None:
            return view.get(holder, "IN")
        return view.get(ref, "IN")

    def target_ref(self, view: WorldView, target_name: str) -> str | None:
        """The believed goal target (``<coffeetable>(100)``) once seen, else ``None``."""
        for subj, rels in view.facts.items():
            if "IN" in rels and entity_name(subj) == target_name and subj not in self.rooms:
                return subj
        return None

    def remaining(self, view: WorldView, claimed: Iterable[str] = ()) -> dict[str, int]:
        """Goal objects still needed per class: count − believed placed − held by anyone − claimed."""
        need = dict(self._count)
        for subj, rels in view.facts.items():
            cls = entity_name(subj)
            if cls not in need:
                continue
            target = self._target_of[cls]
            holder = rels.get(self._rel_of[cls])
            if (holder is not None and entity_name(holder) == target) or "HELD_BY" in rels:
                need[cls] -= 1
        for ref in claimed:
            if entity_name(ref) in need:
                need[entity_name(ref)] -= 1
        return need

    def relevant_facts(self, view: WorldView, me: str) -> list[Fact]:
        """Goal-relevant knowledge: where goal objects are, which rooms/containers are explored, holdings."""
        out: list[Fact] = []
        for subj, rels in view.facts.items():
            cls = entity_name(subj)
            if cls in self._count:
                for rel in ("ON", "INSIDE", "HELD_BY"):
                    if rel in rels:
                        out.append(Fact(subj, rel, rels[rel]))
                        holder_room = view.get(rels[rel], "IN") if rel != "HELD_BY" else None
                        if holder_room is not None:
                            out.append(Fact(rels[rel], "IN", holder_room))
            elif "EXPLORED" in rels and (subj in self.rooms):
                out.append(Fact(subj, "EXPLORED", rels["EXPLORED"]))
        return out

    # ---- planning -------------------------------------------------------------------------------------------
    def options(
        self,
        view: WorldView,
        who: str,
        room: str | None,
        holding: list[str],
        avoid: Mapping[str, float] | None = None,
    ) -> list[Intent]:
        """Plan steps for ``who`` (standing in ``room`` and holding ``holding``), cheapest first.

        ``avoid`` maps targets (objects, rooms, containers) to a penalty: what partners are expected to do.
        """
        avoid = avoid or {}
        claimed = [t for t, pen in avoid.items() if pen >= CLAIM and entity_name(t) in self._count]
        need = self.remaining(view, claimed)
        held_goal = [h for h in holding if entity_name(h) in self._count]
        out: list[Intent] = []
        # deliver what is held
        for target_name in sorted({self._target_of[entity_name(h)] for h in held_goal}):
            tref = self.target_ref(view, target_name)
            if tref is None:
                guess = next((r for r, n in self.rooms.items() if n == _TARGET_ROOM.get(target_name)), None)
                if guess is not None:
                    out.append(Intent("explore", guess, self._dist(room, guess) + 3.0))
                continue
            n = sum(1 for h in held_goal if self._target_of[entity_name(h)] == target_name)
            cost = self._dist(room, self._room_of(view, tref)) + 1.0 + n
            if len(holding) < 2:
                cost += 4.0  # a free hand: fetching one more first is often better
            out.append(Intent("deliver", tref, cost))
        # grab known goal objects
        if len(holding) < 2:
            for subj, rels in view.facts.items():
                cls = entity_name(subj)
                if cls not in need or need[cls] <= 0 or "HELD_BY" in rels:
                    continue
                holder = rels.get("ON") or rels.get("INSIDE")
                if holder is None or (entity_name(holder) == self._target_of[cls] and rels.get(self._rel_of[cls])):
                    continue
                where = view.get(holder, "IN")
                if where is None:
                    continue
                extra = 1.0 if rels.get("INSIDE") and view.get(holder, "STATE") != "opened" else 0.0
                cost = self._dist(room, where) + 2.0 + extra + avoid.get(subj, 0.0)
                out.append(Intent("grab", subj, cost))
        # explore: rooms not fully explored (unseen, or with containers not yet opened)
        if any(v > 0 for v in need.values()):
            for rref in self.rooms:
                state = view.get(rref, "EXPLORED")
                if state == "all":
                    continue
                work = 6.0 if state is None else 2.0 * len(self._unchecked(view, rref))
                out.append(Intent("explore", rref, self._dist(room, rref) + work + avoid.get(rref, 0.0)))
        out.sort(key=lambda i: (i.cost, _VERB_ORDER.get(i.verb, 9), i.target))
        return out

    def _unchecked(self, view: WorldView, room: str) -> list[str]:
        """Closed containers in ``room`` whose contents the view does not know."""
        return [
            subj
            for subj, rels in view.facts.items()
            if rels.get("IN") == room and rels.get("STATE") == "closed" and rels.get("EXPLORED") != "all"
        ]

    # ---- execution ------------------------------------------------------------------------------------------
    def next_action(self, intent: Intent, obs: CwahObservation, view: WorldView) -> Action | None:
        """The primitive action that advances ``intent`` now; ``None`` when it is complete."""
        here = obs.room.ref
        visible = {s.entity.ref: s for s in obs.seen}
        if intent.verb == "explore":
            if here != intent.target:
                return Action("walk", entity_id(intent.target))
            todo = sorted(self._unchecked(view, here), key=lambda r: (visible[r].entity.id != obs.near, r))
            if not todo:
                return None
            cont = visible[todo[0]].entity.id
            return _near(obs, cont, Action("open", cont))
        if intent.verb == "check":
            if (go := toward_room_of(view, intent.target, here, "walk")) is not None:
                return go
            s = _here(visible, intent.target)
            if s.state == "opened":
                return None
            return _near(obs, s.entity.id, Action("open", s.entity.id))
        if intent.verb == "grab":
            if any(e.ref == intent.target for e in obs.holding):
                return None
            if len(obs.holding) >= 2:
                raise IntentFailed("hands full")
            holder = view.get(intent.target, "ON") or view.get(intent.target, "INSIDE")
            if holder is None:
                raise IntentFailed(f"do not know where {intent.target} is")
            if (go := toward_room_of(view, holder, here, "walk")) is not None:
                return go
            hs = _here(visible, holder)
            if intent.target not in visible:
                if hs.entity.kind == "container" and hs.state == "closed":
                    return _near(obs, hs.entity.id, Action("open", hs.entity.id))
                raise IntentFailed(f"{intent.target} is gone")
            oid = visible[intent.target].entity.id
            if obs.near not in (oid, hs.entity.id):
                return Action("walk", oid)
            return Action("grasp", oid)
        if intent.verb == "deliver":
            matching = [e for e in obs.holding if self._target_of.get(e.name) == entity_name(intent.target)]
            if not matching:
                return None
            if (go := toward_room_of(view, intent.target, here, "walk")) is not None:
                return go
            ts = _here(visible, intent.target)
            tid = ts.entity.id
            closed = ts.entity.kind == "container" and ts.state != "opened"
            return _near(obs, tid, Action("open", tid) if closed else Action("put", tid, matching[0].id))
        raise IntentFailed(f"unknown plan verb {intent.verb!r}")

    def still_valid(self, intent: Intent, view: WorldView, me: str, holding: list[str]) -> bool:
        """False once beliefs say the step is pointless (object taken or already placed, room explored…)."""
        if intent.verb == "grab":
            if intent.target in holding:
                return True
            rels = view.facts.get(intent.target, {})
            if "HELD_BY" in rels or not (rels.get("ON") or rels.get("INSIDE")):
                return False
            cls = entity_name(intent.target)
            return self.remaining(view).get(cls, 0) > 0
        if intent.verb == "explore":
            return view.get(intent.target, "EXPLORED") != "all" or any(
                self.target_ref(view, self._target_of[entity_name(h)]) is None
                for h in holding
                if entity_name(h) in self._count
            )
        if intent.verb == "check":
            return view.get(intent.target, "EXPLORED") != "all" and any(v > 0 for v in self.remaining(view).values())
        if intent.verb == "deliver":
            return any(self._target_of.get(entity_name(h)) == entity_name(intent.target) for h in holding)
        return True


_VERB_ORDER = {"deliver": 0, "grab": 1, "explore": 2}

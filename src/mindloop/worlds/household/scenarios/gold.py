"""Gold annotations computed from the world and the belief store, never typed by hand.

Given a played :class:`~mindloop.worlds.household.scenarios.episode.Episode` and its :class:`Focus` (what the
story is about: which human and which object, as a MindPower script names them), :func:`derive_gold` works out

* what the robot perceived (its witnessed events, told as the paper's ``<Perception>``);
* what it believes and what it believes the human believes (tracker queries on ``("robot",)`` and
  ``("robot", human)``), and what the human is doing (searching, failing to reach, blocked, ...);
* whether help is needed, which :class:`~mindloop.worlds.household.goals.Goal` that help serves, and the plan
  that achieves it — run on a copy of the world before it is accepted;
* the six layers in the paper's style and the atomic-action form of Table 3.

The false-belief family (``find``) is drafted here; the Implicit Goal families in
:mod:`~mindloop.worlds.household.scenarios.gold_implicit`, with the shared parts in
:mod:`~mindloop.worlds.household.scenarios.drafting` and the needs and combinations they read in
:mod:`~mindloop.worlds.household.scenarios.needs` (:class:`Focus`, :data:`NEEDS` and :func:`combo_for` re-exported
here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mindloop.beliefs import Tracker
from mindloop.worlds.household.actions import format_actions
from mindloop.worlds.household.characters import Character
from mindloop.worlds.household.goals import Goal, GoalKind
from mindloop.worlds.household.narration import perceived, summarize
from mindloop.worlds.household.planner import check_plan, plan_for
from mindloop.worlds.household.results import WorldEvent
from mindloop.worlds.household.scenarios.drafting import (
    Draft,
    Focus,
    R,
    atom,
    capitalised,
    gold_belief,
    help_draft,
    is_searching,
    last_enter,
    no_help,
    out_of,
    perception_atoms,
    place_of,
    pronoun,
    verb_be,
)
from mindloop.worlds.household.scenarios.episode import Episode
from mindloop.worlds.household.scenarios.gold_implicit import BUILDERS
from mindloop.worlds.household.scenarios.model import AtomicActions, Gold, GoldBelief
from mindloop.worlds.household.scenarios.needs import NEEDS, combo_for
from mindloop.worlds.household.vocab import AT, ROBOT, EntityKind, Prop
from mindloop.worlds.household.world import World

__all__ = ["NEEDS", "Focus", "combo_for", "derive_gold"]


def derive_gold(episode: Episode, focus: Focus) -> tuple[Gold, Goal]:
    """The gold annotation and the goal it serves, for a played episode (see the module docstring)."""
    world, tracker = episode.world, episode.tracker
    seen = perceived(episode.events, ROBOT)
    names = {a: world.chars[a].name for a in world.chars}
    builder = _find if focus.family == "find" else BUILDERS[focus.family]
    draft = builder(world, tracker, seen, focus)
    goal = draft.goal
    help_needed = goal.kind is not GoalKind.NONE
    plan = plan_for(goal, world)
    if help_needed:
        check_plan(goal, world, plan, tracker)
    plan_atoms = (atom("plan_action", ROBOT, *(str(a) for a in plan)),)
    atomic = AtomicActions(
        perception=perception_atoms(seen, world),
        belief=tuple(draft.belief_atoms),
        desire=tuple(draft.desire_atoms),
        intention=tuple(draft.intention_atoms),
        decision=tuple(draft.decision_atoms),
        action=plan_atoms,
    )
    gold = Gold(
        perception=summarize(episode.events, names),
        belief=draft.belief,
        desire=draft.desire,
        intention=draft.intention,
        decision=draft.decision,
        action=format_actions(plan),
        actions=tuple(str(a) for a in plan),
        atomic=atomic,
        beliefs=tuple(draft.beliefs),
        help_needed=help_needed,
    )
    return gold, goal


# ---- the false-belief family: someone looks for an object that was moved -------------------------------------
@dataclass(frozen=True, slots=True)
class _Search:
    """A ``find`` story as the robot sees it: who looks for what, and where each of them believes it is."""

    h: Character
    o: str
    oname: str
    bel_h: str | None  # where the robot believes the human believes the object is
    bel_r: str | None  # where the robot believes it is
    beliefs: list[GoldBelief]
    belief_atoms: list[str]


def _find(world: World, tracker: Tracker, seen: list[WorldEvent], focus: Focus) -> Draft:
    h, o = world.chars[focus.human], focus.target
    bel_h = tracker.value((ROBOT, h.id), o, AT)
    bel_r = tracker.value(R, o, AT)
    beliefs = [
        gold_belief(tracker, (ROBOT, h.id), o, AT),
        gold_belief(tracker, R, o, AT),
        gold_belief(tracker, (h.id,), o, AT),
    ]
    searching = is_searching(seen, h.id, last_enter(seen, h.id), o)
    robot_knows = bel_r is not None and world.kind_of(bel_r) in (EntityKind.PLACE, EntityKind.ITEM)
    if bel_r == h.id:
        robot_knows = True
    belief_atoms = _find_belief_atoms(h.id, o, bel_h, bel_r, searching=searching, robot_knows=robot_knows)
    case = _Search(h, o, world.name(o), bel_h, bel_r, beliefs, belief_atoms)
    if bel_h == bel_r or not searching:
        return _find_no_help(world, case)
    if robot_knows:
        return _find_fetch(world, seen, case)
    return _find_remind(world, seen, case)


def _find_belief_atoms(
    human: str, o: str, bel_h: str | None, bel_r: str | None, *, searching: bool, robot_knows: bool
) -> list[str]:
    out = []
    if searching:
        out.append(atom("attribute_belief", ROBOT, atom("searching", human, o)))
    out.append(atom("attribute_belief", ROBOT, atom("human_believes", human, atom("object_on", o, bel_h or "unknown"))))
    if robot_knows:
        out.append(atom("hold_true_belief", ROBOT, atom("object_on", o, str(bel_r))))
    else:
        out.append(atom("lack_belief", ROBOT, atom("object_on", o, "unknown")))
    return out


def _find_no_help(world: World, c: _Search) -> Draft:
    """Nobody needs help: the human knows where the object is, or is not looking for it."""
    h, o, oname, bel_h, bel_r = c.h, c.o, c.oname, c.bel_h, c.bel_r
    conflict = bel_h != bel_r
    if not conflict:
        if bel_h == h.id:
            belief = (
                f"I believe {h.name} has the {oname} now, so {h.subj} knows where {pronoun(world, o)} "
                f"{verb_be(world, o)}."
            )
        else:
            belief = (
                f"I believe {h.name} knows that the {oname} {verb_be(world, o)} {place_of(world, bel_h)}, and "
                f"{'they really are' if world.plural(o) else 'it really is'} there."
            )
    else:
        belief = (
            f"I believe {h.name} still thinks the {oname} {verb_be(world, o)} {place_of(world, bel_h)}, but "
            f"{'they are' if world.plural(o) else 'it is'} actually {place_of(world, bel_r)}. "
            f"{capitalised(h.subj)} is not looking for {pronoun(world, o)} now."
        )
    draft = no_help(h, f"with the {oname}", belief, c.belief_atoms, c.beliefs, o)
    if conflict:
        draft.intention = (
            f"I will remember that the {oname} {verb_be(world, o)} {place_of(world, bel_r)}, and tell {h.name} "
            f"if {h.subj} starts looking for {pronoun(world, o)}."
        )
    return draft


def _correct(c: _Search, belief: str, intention: str, decision: str, act: str, kind: GoalKind) -> Draft:
    """Every correction of a searcher's false belief: the lead sentence before ``belief``, the desire to resolve
    the mismatch and the belief-conflict atom before the robot decides ``act``, which serves a goal of ``kind``."""
    h = c.h
    lead = f"I think {h.name} is looking for the {c.oname}."
    desire = (
        f"I want to help {h.name} find the {c.oname}, and resolve the mismatch between {h.poss} belief and the real "
        "state of the world."
    )
    conflict_atom = atom("resolve_misbelief", ROBOT, atom("belief_conflict", h.id, c.o, c.bel_h or "unknown"))
    texts = (f"{lead} {belief}", desire, intention, decision)
    goal = Goal(kind, h.id, c.o)
    return help_draft(texts, c.belief_atoms, h, atom("find", c.o), act, c.beliefs, goal, resolve=conflict_atom)


def _find_fetch(world: World, seen: Sequence[WorldEvent], c: _Search) -> Draft:
    """The robot knows where the object really is: it fetches it for the searcher."""
    h, o, oname, bel_h, bel_r = c.h, c.o, c.oname, c.bel_h, c.bel_r
    assert bel_r is not None
    tidied = _last_mover(seen, o) == ROBOT
    where_r = place_of(world, bel_r) + (f", where I put {pronoun(world, o)} while tidying up" if tidied else "")
    belief = (
        f"I believe {h.subj} thinks the {oname} {verb_be(world, o)} {place_of(world, bel_h)}, but I also "
        f"believe the {oname} {verb_be(world, o)} actually {where_r}."
    )
    base = world.base_place(o)
    src = base or bel_r
    closed = base is not None and Prop.OPENABLE in world.places[base].props and not world.is_open(base)
    intention = f"I want to take the {oname} {out_of(world, src)} and hand it to {h.name}."
    how = f"opening the {world.name(src)} and giving" if closed else "bringing"
    decision = f"I need to correct {h.poss} false belief by {how} the {oname} to {h.name}."
    fetch = atom("fetch", o, f"from={src}", f"to={h.id}")
    return _correct(c, belief, intention, decision, fetch, GoalKind.DELIVER)


def _find_remind(world: World, seen: Sequence[WorldEvent], c: _Search) -> Draft:
    """The robot does not know where the object is now: it tells the searcher that it was moved."""
    h, o, oname, bel_h, bel_r = c.h, c.o, c.oname, c.bel_h, c.bel_r
    mover = bel_r if bel_r is not None and world.kind_of(bel_r) is EntityKind.AGENT else None
    exit_room = _last_exit_room(seen, mover) if mover else None
    if mover is not None:
        gone = f"out of the {world.room_names[exit_room]}" if exit_room else "out of my view"
        it = pronoun(world, o)
        saw = (
            f"I saw {world.the(mover)} take {it} and carry {it} {gone}, so I do not know where the {oname} "
            f"{verb_be(world, o)} now."
        )
    else:
        saw = f"I do not know where the {oname} {verb_be(world, o)} now."
    belief = f"I believe {h.subj} thinks the {oname} {verb_be(world, o)} still {place_of(world, bel_h)}, but {saw}"
    intention = (
        f"I want to tell {h.name} that the {oname} {'have' if world.plural(o) else 'has'} been moved, so {h.subj} "
        "stops searching "
        f"{place_of(world, bel_h)}."
    )
    who = (
        f"{world.the(mover)} took the {oname} away"
        if mover
        else f"the {oname} {'have' if world.plural(o) else 'has'} been moved"
    )
    decision = f"I need to correct {h.poss} false belief by reminding {h.obj} that {who}."
    return _correct(c, belief, intention, decision, atom("remind", h.id, o), GoalKind.INFORM)


def _last_mover(seen: Sequence[WorldEvent], item: str) -> str | None:
    moves = (
        e for e in reversed(seen) if e.verb in ("place", "putin", "putback", "move", "drop") and e.args[:1] == (item,)
    )
    return next((e.actor for e in moves), None)


def _last_exit_room(seen: Sequence[WorldEvent], agent: str | None) -> str | None:
    return next((e.room for e in reversed(seen) if e.actor == agent and e.kind == "exit"), None)

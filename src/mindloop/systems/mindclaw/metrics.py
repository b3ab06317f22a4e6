"""Precision-intervention metrics of MindClaw (§V-A, Tables II-IV), with gold derived from the simulator.

**Gold.** For a household scenario, :func:`gold_episode` replays the script with a silent robot, one window per
step (window 0 = time 0; then one per scripted step; then ``quiet`` windows in which nobody acts) and derives:

* the **help** window ``t*``: at every window the household gold derivation
  (:func:`~mindloop.worlds.household.scenarios.derive_gold`, which reads the belief tracker) is run on the episode
  so far; help is *due* at a window when that prefix says help is needed for the scenario's own goal (same kind,
  person and object). For needs voiced in conversation the listener gets the first turn: help is due only once a
  window passes, after the need was stated, in which nobody does anything. ``t*`` is the first window of the last
  run of due windows, if that run lasts to the end; controls have no ``t*``.
* **gold trigger operations** per window: the belief-table writes the robot's perception implies (an item is
  tracked once someone handles it; each fact ``item -> location`` it shows gives a visual-fact write when the
  table differs, then an actor-belief write for each human who saw it, in name order; ``create`` for a new entry,
  ``update`` for a changed one), then at ``t*`` ``reasoning_run(person, object, none)`` and
  ``action_run(person, object, none)``, and ``noop`` closing every window.
* the gold **task**: person, object, mental context (``false_belief``, ``unreachable``, ``blocked``,
  ``left_running``, ``power_cut``, ``missing_tool``, ``stated_need``) and, for false beliefs, where the person
  believes the object is (for stated needs: the feeling).

**Metrics** (per episode; see ``docs/mindclaw.md`` for the full definitions):

* **TA** — help needed: the reasoning record behind the robot's first intervention names the gold person, object
  and context (and belief/feeling); a control: no reasoning record ever found an intervention warranted.
* **PIA** — help needed: exactly one intervention, at ``t*``; a control: none.
* **CS** — over help-needed episodes with an intervention: the executed action achieved the goal (checked in the
  simulator right after it ran). Defined only when some episode intervened (``cs_n`` counts them).
* **ACC**, **ACC w/o noop** — trigger operations predicted with the gold context (teacher forcing) equal to the
  gold ones (verb and all three slots), over all decisions / over decisions whose gold is not ``noop``.
  As in the paper's Table IV, ACC is the **whole trigger's** accuracy: the row "MODEL" is the model predicting
  every decision with no skill (``skills=off``), "MODEL-Skill" the skill-guided trigger of eq. (10) (strong skills
  decide first, the model prompted with the preferred and negative skills decides the rest). Who decided is
  reported apart: ``acc_model`` / ``acc_model_no_noop`` over the decisions the model itself made (``None`` when it
  made none), ``acc_skill`` over the strong skills'; a malformed model reply is a model decision that is wrong.
  ``acc_all`` / ``acc_all_no_noop`` are the same figures as ``acc`` / ``acc_no_noop`` (kept for old reports).
  Every summary says how many decisions the model made and how many were malformed, in teacher forcing
  (``model_decisions``, ``model_malformed``, ``model_retries``) and in the closed loop (``loop_model_decisions``,
  ``loop_model_malformed``, ``loop_model_retries``: trigger, reasoning, action and observation questions). A
  question whose reply was refused and sent back (a format retry) is one decision; ``*_retries`` count the
  retries, and a decision is malformed only when its last reply was still refused.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self, cast

from mindloop.errors import InvalidArgumentError, MindloopError
from mindloop.records_codec import Codec, Record, read_record
from mindloop.worlds.household.goals import GoalKind
from mindloop.worlds.household.results import WorldEvent
from mindloop.worlds.household.scenarios.episode import Episode
from mindloop.worlds.household.scenarios.gold import Focus, derive_gold
from mindloop.worlds.household.scenarios.model import Scenario
from mindloop.worlds.household.vocab import AT, FEELS, ROBOT

Op = tuple[str, str, str, str]
"""A trigger operation as plain data: ``(verb, actor, object, location)``, empty slots ``"none"``."""

_NONE = "none"
_HANDLING = frozenset({"pick", "place", "putin", "putback", "drop", "give", "move"})

CONTEXT_OF_FAMILY: dict[str, str] = {
    "find": "false_belief",
    "reach": "unreachable",
    "blocked": "blocked",
    "faucet": "left_running",
    "power": "power_cut",
    "combo": "missing_tool",
    "dialogue": "stated_need",
}
"""The mental context each household scenario family is about."""


def scenario_family(subtype: str) -> str:
    """The reasoning family of a household subtype (``fb_*`` -> ``find``, ``ig_child_reach`` -> ``reach``...)."""
    if subtype.startswith("fb_"):
        return "find"
    for family in ("reach", "blocked", "faucet", "power", "combo", "dialogue"):
        if family in subtype:
            return family
    raise InvalidArgumentError(f"no MindClaw family for scenario subtype {subtype!r}")


def _read_op(data: Any) -> Op:
    verb, actor, obj, location = data
    return str(verb), str(actor), str(obj), str(location)


@dataclass(frozen=True, slots=True)
class GoldWindow(Record):
    """Gold of one window: its trigger operations, whether help is due there, whether nobody acted."""

    CODECS: ClassVar[Mapping[str, Codec]] = {"Op": (list, _read_op)}

    t: int
    ops: tuple[Op, ...]
    due: bool
    quiet: bool

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Inverse of :meth:`to_dict`; ``ops`` is read first, as it always was (a bad record names it first)."""
        ops = tuple(_read_op(op) for op in data["ops"])
        return cast(Self, read_record(cls, {**data, "ops": ops}))


@dataclass(frozen=True)
class GoldEpisode(Record):
    """Gold of one scenario as a MindClaw episode (see the module docstring); ``to_dict`` is what a benchmark
    sample carries."""

    READ_MISSING: ClassVar[Mapping[str, Any]] = {"detail": "", "plan": ()}

    scenario_id: str
    subtype: str
    family: str
    help_needed: bool
    t_star: int | None
    actor: str
    object: str
    context: str
    detail: str
    goal: dict[str, str]
    plan: tuple[str, ...]
    windows: tuple[GoldWindow, ...]

    KIND: ClassVar[str | None] = "gold episode record"

    @property
    def n_decisions(self) -> int:
        """Gold trigger operations over all windows."""
        return sum(len(w.ops) for w in self.windows)

    @property
    def n_non_noop(self) -> int:
        """Gold trigger operations other than ``noop``."""
        return sum(1 for w in self.windows for o in w.ops if o[0] != "noop")


# ---- gold derivation ------------------------------------------------------------------------------------------
_VISUAL_WRITES = ("belief_create_visual_fact", "belief_update_visual_fact")
_ACTOR_WRITES = ("belief_create_actor_belief", "belief_update_actor_belief")
"""The gold writes' operations (create, then update) by whose belief they are: named here apart from the runtime's."""


class _GoldTable:
    """The belief table as the gold rules fill it (kept apart from the runtime's own implementation)."""

    def __init__(self) -> None:
        self.tracked: set[str] = set()
        self.held: dict[tuple[str | None, str], str] = {}  # (witness, object): its location; None: the visual fact

    def writes(self, events: Sequence[WorldEvent]) -> list[Op]:
        out: list[Op] = []
        for e in events:
            if e.verb in _HANDLING and e.failure is None and e.args and e.actor:
                self.tracked.add(e.args[0])
            for f in e.facts:
                if f.relation != AT or f.value is None or f.subject not in self.tracked:
                    continue
                obj, loc = f.subject, f.value
                for who in (None, *(w for w in sorted(e.witnesses) if w != ROBOT)):
                    held = self.held.get((who, obj))
                    if held != loc:
                        verbs = _VISUAL_WRITES if who is None else _ACTOR_WRITES
                        out.append((verbs[held is not None], who or _NONE, obj, loc))
                        self.held[(who, obj)] = loc
        return out


def _perceived(events: Sequence[WorldEvent]) -> list[WorldEvent]:
    return [e for e in events if ROBOT in e.witnesses and e.verb not in ("setup", "recall")]


def _quiet(events: Sequence[WorldEvent]) -> bool:
    return not any(e.actor and e.actor != ROBOT and e.kind != "observe" for e in events)


def _prefix_due(ep: Episode, focus: Focus, goal: tuple[str, str, str]) -> tuple[bool, str]:
    """Whether the household gold on the episode so far says help is needed for ``goal``; and the belief detail."""
    try:
        gold, g = derive_gold(ep, focus)
    except MindloopError:
        return False, ""
    if not gold.help_needed or (g.kind.value, g.human, g.target) != goal:
        return False, ""
    detail = ""
    if focus.family == "find" and gold.beliefs:
        detail = gold.beliefs[0].value or ""
    elif focus.family == "dialogue":
        detail = ep.tracker.value((ROBOT,), focus.human, FEELS) or ""
    return True, detail


def gold_episode(scenario: Scenario, *, quiet: int = 2) -> GoldEpisode:
    """The MindClaw gold of a household scenario (module docstring). ``quiet`` must match the source's."""
    if quiet < 1:
        raise InvalidArgumentError(f"quiet must be at least 1 (a stated need waits one quiet window), got {quiet}")
    family = scenario_family(scenario.subtype)
    goal = scenario.goal
    focus = Focus(family, goal.human, goal.target)
    key = (goal.kind.value, goal.human, goal.target)
    ep = Episode(scenario.setup)
    table = _GoldTable()
    writes: list[list[Op]] = []
    due: list[bool] = []
    details: list[str] = []
    quiets: list[bool] = []

    def window(events: Sequence[WorldEvent]) -> None:
        seen = _perceived(events)
        writes.append(table.writes(seen))
        quiets.append(_quiet(seen))
        d, detail = _prefix_due(ep, focus, key) if goal.kind is not GoalKind.NONE else (False, "")
        due.append(d)
        details.append(detail)

    window(list(ep.events))
    for step in scenario.script:
        n = len(ep.events)
        ep.replay([step])
        window(ep.events[n:])
    for _ in range(quiet):
        writes.append([])
        quiets.append(True)
        due.append(due[-1])
        details.append(details[-1])
    if family == "dialogue":
        due = [d and k > 0 and due[k - 1] and quiets[k] for k, d in enumerate(due)]
    run = len(list(itertools.takewhile(bool, reversed(due))))  # the due windows that last to the end
    t_star = len(due) - run if run else None
    help_needed = scenario.help_needed
    if help_needed != (t_star is not None):
        raise InvalidArgumentError(
            f"scenario {scenario.id} ({scenario.subtype}): help_needed={help_needed} but the help window is {t_star}"
        )
    windows = []
    for k in range(len(due)):
        ops = list(writes[k])
        if k == t_star:
            ops += [("reasoning_run", goal.human, goal.target, _NONE), ("action_run", goal.human, goal.target, _NONE)]
        ops.append(("noop", _NONE, _NONE, _NONE))
        windows.append(GoldWindow(k, tuple(ops), due[k], quiets[k]))
    return GoldEpisode(
        scenario_id=scenario.id,
        subtype=scenario.subtype,
        family=family,
        help_needed=help_needed,
        t_star=t_star,
        actor=goal.human,
        object=goal.target,
        context=CONTEXT_OF_FAMILY[family] if help_needed else "none",
        detail=details[t_star] if t_star is not None else "",
        goal=goal.to_dict(),
        plan=scenario.gold.actions if help_needed else (),
        windows=tuple(windows),
    )


# ---- scoring --------------------------------------------------------------------------------------------------
def decision_scores(gold: Sequence[Op], predicted: Sequence[Op | None]) -> dict[str, float]:
    """Trigger accuracy counts over aligned decisions (``None`` = no valid prediction: wrong)."""
    if len(gold) != len(predicted):
        raise InvalidArgumentError(f"{len(gold)} gold decisions but {len(predicted)} predictions")
    counts = decider_scores(gold, predicted, [""] * len(gold), [""] * len(gold))  # one decider: every decision
    keys = {"acc_correct": "correct", "acc_total": "decisions", "nn_correct": "nn_correct", "nn_total": "nn_total"}
    return {key: counts[f"policy_{split}"] for key, split in keys.items()}


def decider_scores(
    gold: Sequence[Op], predicted: Sequence[Op | None], by: Sequence[str], errors: Sequence[str]
) -> dict[str, float]:
    """:func:`decision_scores`'s counts split by who decided each decision: ``skill_*`` (a strong skill,
    ``by`` = ``skill:ID``), ``model_*`` (the chat model, ``policy:model``; ``model_malformed`` counts its replies
    that could not be parsed) and ``policy_*`` (any other policy: noop, classifier, naive)."""
    if not len(gold) == len(predicted) == len(by) == len(errors):
        raise InvalidArgumentError(
            f"{len(gold)} gold decisions, {len(predicted)} predictions, {len(by)} deciders, {len(errors)} errors"
        )
    out = {
        f"{who}_{key}": 0.0
        for who in ("skill", "model", "policy")
        for key in ("decisions", "correct", "nn_total", "nn_correct")
    }
    out["model_malformed"] = 0.0
    for g, p, b, e in zip(gold, predicted, by, errors, strict=True):
        who = "skill" if b.startswith("skill:") else "model" if b == "policy:model" else "policy"
        ok = float(p is not None and tuple(p) == tuple(g))
        out[f"{who}_decisions"] += 1
        out[f"{who}_correct"] += ok
        if g[0] != "noop":
            out[f"{who}_nn_total"] += 1
            out[f"{who}_nn_correct"] += ok
        if who == "model" and "malformed" in e:
            out["model_malformed"] += 1
    return out


def _task_matches(gold: GoldEpisode, record: Mapping[str, Any]) -> bool:
    if (record.get("actor"), record.get("object"), record.get("context")) != (gold.actor, gold.object, gold.context):
        return False
    if gold.context in ("false_belief", "stated_need"):
        return str(record.get("detail", "")) == gold.detail
    return True


def episode_scores(
    gold: GoldEpisode,
    interventions: Sequence[Mapping[str, Any]],
    reasoning: Sequence[Mapping[str, Any]],
) -> dict[str, float]:
    """TA, PIA and CS counts of one closed-loop episode.

    ``interventions``: ``{"t", "actor", "object", "goal_met"}`` per window where the robot acted (its first
    intervention's ``goal_met`` is whether the goal held right after it ran); ``reasoning``: ``{"t", "actor",
    "object", "context", "detail", "warranted"}`` per reasoning record, in order.
    """
    acted = sorted(interventions, key=lambda x: int(x["t"]))
    warranted = [r for r in reasoning if r.get("warranted")]
    out = {"intervened": float(bool(acted)), "n_interventions": float(len(acted))}
    if not gold.help_needed:
        out["ta"] = float(not warranted)
        out["pia"] = float(not acted)
        out["false_alarm"] = float(bool(acted))
        return out
    t_star = gold.t_star
    assert t_star is not None
    first = acted[0] if acted else None
    if first is not None:
        at = int(first["t"])
        decisive = [r for r in warranted if int(r["t"]) == at]
    else:
        decisive = [r for r in warranted if int(r["t"]) >= t_star]
    out["ta"] = float(bool(decisive) and _task_matches(gold, decisive[-1]))
    out["pia"] = float(len(acted) == 1 and int(acted[0]["t"]) == t_star)
    out["missed"] = float(first is None)
    if first is not None:
        out["early"] = float(int(first["t"]) < t_star)
        out["late"] = float(int(first["t"]) > t_star)
        out["cs"] = float(bool(first.get("goal_met")))
        out["cs_n"] = 1.0
    return out


def _frac(num: float, den: float) -> float | None:
    return round(num / den, 6) if den else None


_OUTCOME_COUNTS = ("false_alarm", "missed", "early", "late", "invalid_ops", "malformed")
_MODEL_COUNTS = ("model_decisions", "model_malformed", "model_retries", "skill_decisions", "loop_model_decisions",
                 "loop_model_malformed", "loop_model_retries")  # fmt: skip
"""Per-episode counts :func:`summarize_intervention` sums (and reports as whole numbers)."""
_EARNED = ("ta", "pia", "cs", "acc_correct", "nn_correct", "model_correct", "model_nn_correct", "skill_correct")
"""Per-episode scores a failed episode does not earn (0 for it, while its decisions still count)."""


def summarize_intervention(rows: Sequence[Mapping[str, Any]], *, model_agent: bool = False) -> dict[str, Any]:
    """Aggregate per-episode rows ``{"scores": {...}, "failed": bool, "group": str, "help_needed": bool,
    "n_decisions": int, "n_non_noop": int}`` into ``ta``, ``pia``, ``cs``, ``acc``, ``acc_no_noop`` (fractions)
    and counts. A failed episode scores 0 on TA and PIA, none of its decisions count as correct, and an
    intervention it made counts against CS. A fraction with nothing to count is ``None``, never 0: TA and PIA
    without episodes, CS without an intervention on an episode that needed help, ACC without decisions.

    ``acc`` and ``acc_no_noop`` are over every trigger decision (Table IV; ``acc_over`` says what decided them:
    with ``model_agent``, strong skills and the model); ``acc_model`` over the model's own decisions, ``acc_skill``
    over the strong skills' decisions."""
    acc_t = nn_t = 0.0
    counts: dict[str, float] = defaultdict(float)
    for row in rows:
        s = row.get("scores", {})
        failed = bool(row.get("failed"))
        acc_t += float(s.get("acc_total", row.get("n_decisions", 0)))
        nn_t += float(s.get("nn_total", row.get("n_non_noop", 0)))
        for key in (*_OUTCOME_COUNTS, *_MODEL_COUNTS, "model_nn_total", "cs_n"):
            counts[key] += float(s.get(key, 0.0))
        if not failed:  # a failed episode scores 0 on TA and PIA, and its decisions count, none as correct
            for key in _EARNED:
                counts[key] += float(s.get(key, 0.0))
        counts["failed"] += float(failed)
        counts["help_needed"] += float(bool(row.get("help_needed")))
    acc_all, acc_all_nn = _frac(counts["acc_correct"], acc_t), _frac(counts["nn_correct"], nn_t)
    acc_model = _frac(counts["model_correct"], counts["model_decisions"])
    acc_model_nn = _frac(counts["model_nn_correct"], counts["model_nn_total"])
    return {
        "ta": _frac(counts["ta"], len(rows)),
        "pia": _frac(counts["pia"], len(rows)),
        "cs": _frac(counts["cs"], counts["cs_n"]),
        "cs_n": int(counts["cs_n"]),
        "acc": acc_all,
        "acc_no_noop": acc_all_nn,
        "acc_over": "all trigger decisions (strong skills and the model)" if model_agent else "all decisions",
        "acc_model": acc_model,
        "acc_model_no_noop": acc_model_nn,
        "acc_all": acc_all,
        "acc_all_no_noop": acc_all_nn,
        "acc_skill": _frac(counts["skill_correct"], counts["skill_decisions"]),
        "decisions": int(acc_t),
        "decisions_no_noop": int(nn_t),
        **{key: int(counts[key]) for key in _MODEL_COUNTS},
        "n": len(rows),
        "help_needed": int(counts["help_needed"]),
        "controls": len(rows) - int(counts["help_needed"]),
        "false_alarms": int(counts["false_alarm"]),
        **{key: int(counts[key]) for key in (*_OUTCOME_COUNTS[1:], "failed")},
    }

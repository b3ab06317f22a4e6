"""The ``claw`` benchmark: MindClaw's precision intervention on ``mindpower-sim`` episodes, closed loop.

Each sample is one household scenario. The agent (``symbolic``, ``classifier`` or ``model``; ``never`` and
``first`` are trivial reference policies; ``direct`` is Table II's direct-model baseline, scored on TA, PIA and CS
only, having no trigger) runs the whole
episode live — its actions are executed in the simulator between windows — and is scored on TA, PIA and CS;
its trigger is also scored decision by decision with teacher forcing (ACC, ACC w/o ``noop``). Metrics are
fractions in [0, 1]; see ``docs/mindclaw.md`` for their definitions. The headline TA and PIA are over the
episodes that need help, as in the paper (whose episodes all do); the controls are reported apart.

Options (``--opt KEY=VALUE``; ``--data PATH``; the fields of :class:`ClawOptions`):

* ``split`` — ``test`` (default), ``train`` or ``all`` of ``mindpower-sim`` made with ``--seed`` (0 is the
  standard set); ``dataset_n`` — its size before the split (590); ``data`` — an exported dataset folder or JSONL;
* ``scenario`` — comma-separated scenario ids to keep (e.g. the demo's episode);
* ``skills`` — ``auto`` (default: the shipped skills, none for the classifier), ``default``, ``off`` or a YAML
  file; ``belief_table`` — ``on`` (default) or ``off`` (the Table III ablation);
* ``observation`` — ``symbolic`` (default) or ``model``; ``quiet`` — quiet windows after the script (2);
* ``classifier_features`` — ``full`` (default) or ``raw`` (the classifier without the cue detectors' features).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, RootModel

from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.bench.declaration import (
    BenchmarkSpec,
    Column,
    Decided,
    Grouping,
    Headline,
    Metric,
    PaperTable,
    PresetEntry,
    Row,
    Suite,
    oracle_policy,
)
from mindloop.bench.references import agent_policy
from mindloop.bench.timeline import EpisodeTimeline, TimelineStep, joined, names_in
from mindloop.datafiles import load_data_file
from mindloop.errors import InvalidArgumentError
from mindloop.models.base import RecordingModel

if TYPE_CHECKING:  # the runtime is imported where a sample is made or run: the declaration alone stays light
    from mindloop.worlds.household.scenarios import Scenario

__all__ = ["CLAW_GLOSSARY", "ClawBenchmark", "ClawOptions", "claw_samples", "claw_timeline", "summarize_claw"]

CLAW_GLOSSARY: dict[str, str] = load_data_file(
    RootModel[dict[str, str]], Path(__file__).with_name("glossary.yaml")
).root
"""What the claw summary's keys mean (``glossary.yaml``; docs/mindclaw.md has the full definitions)."""


class ClawOptions(Options):
    """Options of the ``claw`` benchmark."""

    data: str | None = Field(None, description="an exported dataset folder or JSONL file instead of mindpower-sim")
    split: Literal["test", "train", "all"] = Field("test", description="the mindpower-sim split (made with --seed)")
    dataset_n: int = Field(590, ge=1, description="mindpower-sim's size before the split")
    scenario: str | None = Field(None, description="comma-separated scenario ids to keep (e.g. the demo's episode)")
    skills: str = Field(
        "auto", description="auto (the shipped skills, none for the classifier), default, off, or a skills YAML file"
    )
    belief_table: Literal["on", "off"] = Field("on", description="the belief table (off: the Table III ablation)")
    observation: Literal["symbolic", "model"] = Field(
        "symbolic", description="who turns frames into observations (model: needs --model)"
    )
    quiet: int = Field(2, ge=1, description="quiet windows after the script")
    classifier_features: Literal["full", "raw"] = Field(
        "full", description="the classifier's features (raw: without the cue detectors' features)"
    )
    select: Literal["first", "balanced"] = Field(
        "first",
        description="which n episodes: the first n, or balanced (in turn from each group, those that need help "
        "first, so a few episodes reach every row of the paper's table)",
    )


_SETTINGS = ("classifier_features", "split", "dataset_n", "quiet", "skills", "belief_table", "observation")


def _settings(options: ClawOptions) -> dict[str, Any]:
    return {key: getattr(options, key) for key in _SETTINGS}


def _group(s: Scenario) -> str:
    task = "false_belief" if s.task_type.startswith("false") else "implicit_goal"
    return f"{task}/{'control' if s.control else 'help'}"


@functools.lru_cache(maxsize=4)
def _generated(split: str, seed: int, n: int) -> tuple[Scenario, ...]:
    """``mindpower-sim`` split (generated once per process: scenarios are immutable)."""
    from mindloop.worlds.household.scenarios import mindpower_sim

    return tuple(mindpower_sim(split, seed=seed, n=n))


def _balanced(scenarios: Sequence[Scenario], n: int) -> list[Scenario]:
    """``n`` scenarios taken in turn from each group (:func:`_group`: those that need help first, then by name),
    each group's in their order; the result keeps the split's order."""
    by_group: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(scenarios):
        by_group[_group(s)].append(i)
    order = sorted(by_group, key=lambda g: (g.endswith("/control"), g))
    picked: list[int] = []
    for k in range(max((len(v) for v in by_group.values()), default=0)):
        picked += [by_group[g][k] for g in order if k < len(by_group[g])]
    return [scenarios[i] for i in sorted(picked[:n])]


def claw_samples(n: int | None, seed: int, options: ClawOptions) -> list[Sample]:
    """The run's samples: scenarios with their MindClaw gold (deterministic in ``n``, ``seed``, ``options``)."""
    from mindloop.systems.mindclaw.agents import resolve_skills
    from mindloop.systems.mindclaw.metrics import gold_episode
    from mindloop.worlds.household.scenarios import load_scenarios

    settings = _settings(options)
    if options.skills not in ("auto", "default", "off") and Path(options.skills).is_file():
        resolve_skills(options.skills, "symbolic")  # a malformed skills file stops the run before it is recorded
    scenarios: Sequence[Scenario]
    if options.data:
        scenarios = load_scenarios(options.data)
    else:
        scenarios = _generated(settings["split"], seed, settings["dataset_n"])
    if options.scenario:
        wanted = [x.strip() for x in options.scenario.split(",") if x.strip()]
        by_id = {s.id: s for s in scenarios}
        missing = [w for w in wanted if w not in by_id]
        if missing:
            raise InvalidArgumentError(f"no scenario {missing[0]!r} in this split (ids look like {scenarios[0].id})")
        scenarios = [by_id[w] for w in wanted]
    if n is not None:
        scenarios = _balanced(scenarios, n) if options.select == "balanced" else scenarios[:n]
    out = []
    for s in scenarios:
        gold = gold_episode(s, quiet=settings["quiet"])
        out.append(
            Sample(
                id=s.id,
                input={
                    "scenario": s.to_dict(),
                    "gold": gold.to_dict(),
                    "settings": settings,
                    "n_decisions": gold.n_decisions,
                    "n_non_noop": gold.n_non_noop,
                },
                group=_group(s),
                target=gold.to_dict(),
            )
        )
    return out


_EPISODE_SCORES = {"ta": "trigger accuracy", "pia": "precision intervention accuracy"}
_METRICS = tuple(
    Metric(k, k, failed="zero", digits=6, within=within, table=table, description=f"{what} {over}", groupings=groupings)
    for table, within, over, groupings in (
        (None, ("gold.help_needed",), "over the episodes that need help (the paper's)", ()),
        ("all_episodes", (), "over every episode, controls too", (Grouping("by_group"),)),
        ("control_episodes", ("gold.help_needed=False",), "over the controls (1: stayed out)", ()),
    )
    for k, what in _EPISODE_SCORES.items()
)
"""TA and PIA, declared on the per-episode scores: the headline pair over the episodes that need help, and the
same over every episode and over the controls alone. Each is the mean of the episode's 0/1 score (a failed episode
scores 0), to 6 decimals."""
_RESAMPLED = (
    "cs",
    "acc",
    "acc_no_noop",
    "acc_model",
    "acc_model_no_noop",
    "acc_all",
    "acc_all_no_noop",
    "acc_skill",
    "by_group",
)
"""Ratios of sums over episodes (CS over the interventions, ACC over the trigger decisions) and the per-group
rows: the bootstrap of the summary."""


_AGENTS = {
    "symbolic": "strong skills trigger operations, else noop; symbolic reasoning",
    "classifier": "a decision tree trained on teacher-forced decisions triggers (the embedded 'SFT')",
    "model": "strong skills, else a chat model prompted with the skills, triggers, reasons and acts",
    "never": "reference: never intervenes (noop at every decision, no skills)",
    "first": "reference: reasons about the first person and object it sees and acts at that first window, "
    "warranted or not",
    "direct": "Table II's direct-model baseline: the model alone answers each window whether to intervene and how "
    "(no trigger, skills or belief table)",
}
"""The agents, in order (the first is the default), and what each is."""
_NEEDS_MODEL = ("model", "direct")


def _entity_names(scenario: dict[str, Any]) -> dict[str, str]:
    """Every entity id of the scenario's home (places, items, people, rooms) to its display name."""
    from mindloop.worlds.household.scenarios.episode import Episode
    from mindloop.worlds.household.setup import WorldSetup

    world = Episode(WorldSetup.from_dict(scenario["setup"])).world
    names = {eid: world.name(eid) for eid in {*world.places, *world.items, *world.humans}}
    names.update(world.room_names)
    return names


def _op_text(op: str, names: dict[str, str]) -> str:
    """A trigger operation ``verb(actor, object, location)`` in words: a belief-table write as ``robot sees
    phone → nightstand`` or ``Lily believes phone → nightstand`` (``create``/``update`` in brackets), another
    operation as its verb with its named slots."""
    verb, _, rest = op.partition("(")
    slots = [names.get(x.strip(), x.strip()) for x in rest.rstrip(")").split(",")]
    actor, obj, where = (slots + ["none"] * 3)[:3]
    if verb.startswith("belief_") and verb.endswith(("visual_fact", "actor_belief")):
        kind = "new" if "_create_" in verb else "changed"
        who = "robot sees" if verb.endswith("visual_fact") or actor == "none" else f"{actor} believes"
        return f"{who} {obj} → {where} ({kind})"
    shown = [x for x in slots if x and x != "none"]
    return f"{verb}({', '.join(shown)})" if shown else verb


def _writes(ops: Sequence[str], names: dict[str, str]) -> list[str]:
    """The belief-table writes among trigger operations (``noop`` and the runs left out), each in words."""
    return [_op_text(o, names) for o in ops if not o.startswith(("noop", "reasoning_run", "action_run"))]


def _window_note(acc: Sequence[int] | None, loop_as_gold: bool | None) -> str:
    """A window's note: what ACC counted there (its teacher-forced trigger decisions, right of all, and how many
    the model made), then whether the closed loop's own operations matched gold, which ACC does not score (a
    record stored before ``acc_windows``: the closed loop's alone, said so)."""
    parts = []
    if acc:
        total, right, model = (int(x) for x in acc[:3])
        parts.append(f"ACC: {right} of {total} trigger decisions right" + (f", {model} by the model" if model else ""))
    if loop_as_gold is not None:
        loop = "closed loop's ops as gold" if loop_as_gold else "closed loop's ops differ from gold"
        parts.append(loop + (" (not scored by ACC)" if acc else " (ACC is scored teacher-forced)"))
    return "; ".join(parts)


def claw_timeline(record: SampleRecord) -> EpisodeTimeline | None:
    """The episode window by window, with names for ids: what the robot perceived; the gold decision (intervene
    at t*, else stay silent, with the gold trigger writes); what the agent did (its trigger operations, its
    reasoning and verdict, the action it took and its effect); right or wrong on the intervention decision (acting
    at a window is right exactly at t*; on a control, only silence is right); a note with what ACC counted at the
    window (its teacher-forced trigger decisions, as the summary's ACC counts them) and whether the closed loop's
    own operations matched gold. The episode is judged by PIA's rule:
    one intervention, at t* — on a control, none. ``None`` without a trace (a failed episode)."""
    out = record.output or {}
    trace = out.get("trace")
    gold = record.sample.input.get("gold") or {}
    if not isinstance(trace, list) or not gold:
        return None
    names = _entity_names(record.sample.input["scenario"])
    person, obj = names.get(gold.get("actor", ""), gold.get("actor", "")), names.get(gold.get("object", ""), "")
    help_needed = bool(gold.get("help_needed"))
    t_star = gold.get("t_star")
    windows = {int(w["t"]): w for w in gold.get("windows", [])}
    acc_windows = out.get("acc_windows") or {}
    steps = []
    acted_at = []
    for step in trace:
        t = int(step["t"])
        happened = step.get("text") or ("(the home at the start)" if t == 0 else "(nothing happens)")
        gw = windows.get(t, {})
        gold_ops = [f"{o[0]}({', '.join(o[1:])})" for o in gw.get("ops", [])]
        writes = _writes(gold_ops, names)
        due_here = help_needed and t == t_star
        if due_here:
            decision = f"intervene: help {person} with the {obj} ({gold.get('context', '')})"
        elif help_needed and t_star is not None and t > int(t_star):
            decision = "no second intervention"
        else:
            decision = "stay silent"
        action = step.get("a") or {}
        acted = bool(action.get("steps"))
        if acted:
            acted_at.append(t)
        mind = [f"write {w}" for w in _writes(step.get("z", []), names)]
        reasons = step.get("r", [])
        unread = any(str(f).startswith("malformed reasoning") for f in step.get("failures", []))
        for r in reasons:
            said = "help warranted" if r.get("warranted") else "no help warranted"
            about = names_in(str(r.get("text") or f"{r.get('actor')} / {r.get('object')} ({r.get('context')})"), names)
            if unread and not r.get("warranted"):  # the model's reply could not be read: no verdict was its own
                about, said = "the model's reply could not be read", "none read, so no help"
            mind.append(f"reason: {about} → verdict: {said}")
        if acted:
            # a reference policy (``first``) acts whatever its reasoner concluded: say so beside the verdict
            regardless = reasons and not any(r.get("warranted") for r in reasons)
            mind.append(
                f"{'act regardless of the verdict' if regardless else 'act'}: "
                f"{names_in(', '.join(map(str, action['steps'])), names)}"
            )
            effect = step.get("e") or {}
            if effect:
                mind.append("effect: every step executed" if effect.get("ok") else "effect: a step failed")
        if not mind or all(m.startswith("write") for m in mind):
            mind.append("stay silent")
        note = _window_note(acc_windows.get(str(t)), sorted(step.get("z", [])) == sorted(gold_ops) if gw else None)
        steps.append(
            TimelineStep(
                str(t),
                names_in(happened, names),
                joined([decision, *(f"write {w}" for w in writes)]),
                joined(mind),
                correct=acted == due_here,
                note=note,
            )
        )
    pia = record.scores.get("pia")
    verdict = None if record.status != "done" and pia is None else bool(pia == 1.0)
    if help_needed:
        rule = f"Needs help: right when the robot intervenes exactly once, at t* = {t_star} (PIA)."
    else:
        rule = "Control episode: nobody needs help, so silence is right; any intervention is a false alarm (PIA)."
    facts = [("episode", "needs help" if help_needed else "control (no help needed)")]
    if help_needed:
        detail = names.get(str(gold.get("detail") or ""), str(gold.get("detail") or ""))
        facts.append(("gold task", " · ".join(x for x in (person, obj, str(gold.get("context", "")), detail) if x)))
        facts.append(("t*", str(t_star)))
    facts.append(("interventions", ", ".join(f"window {t}" for t in acted_at) or "none"))
    return EpisodeTimeline(
        tuple(steps),
        verdict=verdict,
        rule=rule,
        title="Episode timeline (window by window)",
        columns=("window", "what the robot perceived", "gold decision", "agent's decision"),
        facts=tuple(facts),
        reads=("trace",),
    )


def summarize_claw(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """The headline ``ta``, ``pia``, ``cs`` (fractions) over the episodes that need help, as the paper's (all its
    episodes need help; an agent that never intervenes scores 0 there); ``acc``, ``acc_no_noop`` and the counts
    over every episode; ``control_episodes`` (TA and PIA of the controls alone: 1 when the robot stayed out,
    ``false_alarms``), ``all_episodes`` (TA and PIA pooled over help and controls, the old headline) and
    ``by_group`` (false belief / implicit goal x help / control). Failed samples count as failures."""
    from mindloop.systems.mindclaw.metrics import summarize_intervention

    model_agent = any((r.output or {}).get("agent") in ("model", "direct") for r in records)

    def summarize(rs: Sequence[SampleRecord], help_needed: bool | None = None) -> dict[str, Any]:
        """:func:`summarize_intervention` of ``rs`` (only those whose episode needs help, or only the controls)."""
        rows = []
        for r in rs:
            gold = r.sample.input.get("gold", {})
            if help_needed is None or bool(gold.get("help_needed")) == help_needed:
                rows.append(
                    {
                        "scores": r.scores,
                        "failed": r.status == "failed",
                        "help_needed": bool(gold.get("help_needed")),
                        "n_decisions": r.sample.input.get("n_decisions", 0),
                        "n_non_noop": r.sample.input.get("n_non_noop", 0),
                    }
                )
        return summarize_intervention(rows, model_agent=model_agent)

    summary = summarize(records)
    on_help = summarize(records, help_needed=True)
    on_controls = summarize(records, help_needed=False)
    summary["all_episodes"] = {"ta": summary["ta"], "pia": summary["pia"], "n": summary["n"]}
    summary["ta"], summary["pia"] = on_help["ta"], on_help["pia"]
    summary["headline_over"] = "episodes that need help (controls reported apart under control_episodes)"
    summary["control_episodes"] = {k: on_controls[k] for k in ("ta", "pia", "n", "false_alarms")}
    summary["by_group"] = {
        g: {
            k: v
            for k, v in summarize([r for r in records if r.sample.group == g]).items()
            if k in ("ta", "pia", "cs", "cs_n", "acc", "acc_no_noop", "acc_model", "acc_model_no_noop", "n")
        }
        for g in sorted({r.sample.group for r in records})
    }
    if model_agent and any("windows" in r.scores for r in records):
        summary["model_windows"] = int(sum(r.scores.get("model_windows", 0.0) for r in records))
        summary["windows"] = int(sum(r.scores.get("windows", 0.0) for r in records))
    settings = records[0].sample.input.get("settings", {}) if records else {}
    summary["settings"] = dict(settings)
    agents = [str((r.output or {}).get("agent")) for r in records if (r.output or {}).get("agent")]
    if agents:
        # the row this run is in the paper's tables ("model" stands for the run's model; `mindloop claw table`)
        summary["agent"] = agents[0]
        summary["paper_row"] = (
            "model (direct, Table II)"
            if agents[0] == "direct"
            else trigger_label(agents[0], str(settings.get("skills", "auto")), None)
        )
    return summary


def trigger_label(agent: str, skills: str, model: str | None) -> str:
    """The Table III / IV row of a run's trigger: ``M`` or ``M-Skill`` for the model, ``SFT`` or ``SFT-Skill`` for
    the classifier, ``Skill`` for the rules alone; ``skills`` is the run's option (``auto`` is the agent's
    default: skills for ``model`` and ``symbolic``, none otherwise)."""
    with_skills = skills != "off" and (skills != "auto" or agent in ("model", "symbolic"))
    if agent == "model":
        name = model or "model"
        return f"{name}-Skill" if with_skills else name
    if agent == "classifier":
        return "SFT-Skill" if with_skills else "SFT"
    if agent == "symbolic":
        return "Skill"
    return agent


class ClawBenchmark:
    """MindClaw precision intervention on ``mindpower-sim``: TA, PIA, CS (closed loop) and trigger ACC."""

    name = "claw"
    description = "MindClaw closed-loop precision intervention on mindpower-sim: TA, PIA, CS, trigger ACC"
    options_model = ClawOptions
    spec = BenchmarkSpec(
        headline=Headline("pia"),  # PIA: intervening only when needed, at the right step
        references=(
            agent_policy(
                "never intervene",
                "the never agent: noop at every decision (PIA over the episodes that need help: 0 by construction)",
                lambda: ClawBenchmark(),
                "never",
                none_reason="no episode that needs help among the samples",
            ),
            agent_policy(
                "first window",
                "the first agent: intervenes at the first window on the first person and object it sees, warranted "
                "or not",
                lambda: ClawBenchmark(),
                "first",
                none_reason="no episode that needs help among the samples",
            ),
            oracle_policy(),
        ),
        metrics=_METRICS,
        resampled=_RESAMPLED,
        aliases=("mindclaw",),
        suite=Suite(
            order=40,
            presets={
                "quick": PresetEntry(
                    6,
                    "6 episodes, balanced: 2 that need help and 1 control of each task (every row of the paper's "
                    "table); ~20 trigger decisions each",
                    options={"select": "balanced"},
                )
            },
        ),
        paper_tables=(
            PaperTable(
                "claw",
                "MindClaw",
                "Table II (TA, PIA, CS) and Table IV (ACC, ACC w/o noop), %",
                "claw",
                (
                    Column("TA", ("ta",), scale=100, group="Table II"),
                    Column("PIA", ("pia",), scale=100, group="Table II"),
                    Column("CS", ("cs",), scale=100, group="Table II"),
                    Column("ACC", ("acc",), scale=100, group="Table IV"),
                    Column("ACC w/o noop", ("acc_no_noop",), scale=100, group="Table IV"),
                    Column("n", ("n",), digits=0),
                ),
                (
                    Row("{method}"),
                    *(
                        Row(
                            g.replace("_", " "),
                            ("by_group", g),
                            filled_by="none on a control" if g.endswith("control") else "",
                        )
                        for g in (
                            "false_belief/help",
                            "implicit_goal/help",
                            "false_belief/control",
                            "implicit_goal/control",
                        )
                    ),
                ),
                "A control has no CS: nobody needs help, so there is nothing to complete.",
            ),
        ),
        glossary=CLAW_GLOSSARY,
        decided=Decided("model_windows", "windows", "windows", ("acc", "acc_no_noop"), "acc_model"),
    )

    def __init__(self) -> None:
        self.agents = {
            name: AgentSpec(description, functools.partial(self._episode, agent=name), needs_model=name in _NEEDS_MODEL)
            for name, description in _AGENTS.items()
        }

    samples = staticmethod(claw_samples)

    async def _episode(self, sample: Sample, ctx: AgentContext, agent: str) -> Outcome:
        from mindloop.systems.mindclaw.agents import build_engine, resolve_skills, trained_classifier
        from mindloop.systems.mindclaw.evaluation import accuracy_scores, closed_loop, episode_outcome, teacher_forced
        from mindloop.systems.mindclaw.metrics import GoldEpisode
        from mindloop.worlds.household.scenarios import Scenario

        scenario = Scenario.from_dict(sample.input["scenario"])
        gold = GoldEpisode.from_dict(sample.input["gold"])
        settings = sample.input["settings"]
        table = settings["belief_table"] == "on"
        classifier = None
        if agent == "classifier":
            classifier = trained_classifier(
                belief_table=table, quiet=settings["quiet"], features=settings.get("classifier_features", "full")
            )
        skills = resolve_skills(settings["skills"], agent)
        if settings["observation"] == "model" and ctx.model is None:
            raise InvalidArgumentError("observation=model needs a model (--model)")
        # every model call is recorded (the runner's recorder, or one of our own outside a run), so the closed
        # loop's questions, format retries and refused replies are counted from the records
        recorder: RecordingModel | None = None
        if ctx.model is not None:
            recorder = ctx.model if isinstance(ctx.model, RecordingModel) else RecordingModel(ctx.model)
        first_call = len(recorder.calls) if recorder is not None else 0
        engine = build_engine(
            agent,
            model=recorder,
            config=ctx.config,
            skills=skills,
            classifier=classifier,
            belief_table=table,
            observation=settings["observation"],
            format_retries=ctx.format_retries,
        )
        trace, source = await closed_loop(engine, scenario, gold, quiet=settings["quiet"])
        loop_calls = recorder.calls[first_call:] if recorder is not None else []
        scores, interventions, reasoning = episode_outcome(trace, source, gold)
        # the direct baseline has no trigger to score decision by decision (Table II reports TA, PIA, CS only)
        decisions = (
            []
            if agent == "direct"
            else await teacher_forced(
                scenario,
                gold,
                decide=engine.trigger.decide,
                observer=engine.observer,
                belief_table=table,
                quiet=settings["quiet"],
            )
        )
        scores.update(accuracy_scores(decisions))
        # who decided each window's trigger decisions (ACC counts them all): a window the model decided holds at
        # least one decision the model made with a reply that could be read
        by_window: dict[int, list[int]] = {}
        for d in decisions:
            row = by_window.setdefault(d.t, [0, 0, 0])  # decisions, right, the model's readable ones
            row[0] += 1
            row[1] += int(d.predicted is not None and tuple(d.predicted) == tuple(d.gold_op))
            row[2] += int(d.by == "policy:model" and "malformed" not in d.error)
        scores["windows"] = float(len(by_window))
        scores["model_windows"] = float(sum(1 for row in by_window.values() if row[2]))
        failures = [f"t{step.t}: {f}" for step in trace for f in step.failures]
        tf_failures = [f"t{d.t}.{d.k}: {d.error}" for d in decisions if d.error]
        scores["invalid_ops"] = float(sum("invalid slot" in f for f in failures + tf_failures))
        scores["malformed"] = float(sum("malformed" in f for f in failures + tf_failures))
        if recorder is not None:
            # the closed loop's questions to the model (trigger, reasoning, action, observation; a question and
            # its format retries are one decision), the retries, and the decisions whose replies stayed unreadable
            scores["loop_model_decisions"] = float(sum(1 for c in loop_calls if c.attempt == 0))
            scores["loop_model_retries"] = float(sum(1 for c in loop_calls if c.attempt > 0))
            scores["loop_model_malformed"] = float(sum("malformed" in f for f in failures))
        wrong = [
            {
                "t": d.t,
                "k": d.k,
                "gold": list(d.gold_op),
                "predicted": list(d.predicted) if d.predicted else None,
                "error": d.error,
            }
            for d in decisions
            if d.predicted != d.gold_op
        ]
        output = {
            "agent": agent,
            "t_star": gold.t_star,
            "gold_task": {"actor": gold.actor, "object": gold.object, "context": gold.context, "detail": gold.detail},
            "interventions": interventions,
            "reasoning": reasoning,
            "trace": [step.to_dict() for step in trace],
            "wrong_decisions": wrong[:20],
            "acc_windows": {str(t): row for t, row in sorted(by_window.items())},
            "failures": (failures + tf_failures)[:50],
        }
        return Outcome(output, scores)

    summarize = staticmethod(summarize_claw)
    timeline = staticmethod(claw_timeline)

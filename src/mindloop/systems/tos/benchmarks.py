"""The ``tos-active`` and ``tos-passive`` benchmarks: explore a Theory-of-Space scene, then answer the nine tasks.

One sample is one scene (procedural, or read from ``--opt scenes=PATH``: a scene file, a reference run folder or a
folder of them; ``--data FILE`` reads one scene file) with three questions per task. Agents:

* ``symbolic`` — the symbolic explorer (exact cognitive map) answering from its map;
* ``scout``, ``strategist`` — the paper's proxies; their map is built from what they saw;
* ``model`` — a chat model (``--model``) exploring (active) or reading a proxy's log (passive: the proxy is
  ``--opt proxy=strategist|scout``), probed for its cognitive map, answering the questions itself.

``tos-active`` gives a model the 20-step budget and (``--opt false_belief=1``, the default) the false-belief phase
afterwards; ``tos-passive`` lets the scripted explorer run to completion and measures comprehension. The scripted
explorers follow ``--opt budget``: ``reference`` (the default, the official release's protocol) runs them to
completion as the release runs its proxy agents, which can take more than 20 steps; ``env`` holds every agent to
``max_steps`` (mindloop's own stricter setting). The summary names the budget and how many explorations went past it.
Scores per sample: ``steps``, ``coverage`` (objects and doors seen), ``edge_coverage``, ``action_cost``,
``info_gain``, ``map_dir``/``map_facing``/``map_pos``/``map_overall`` (the final global map against the full
scene), one accuracy per task (``direction``, ``persp.take``, ``perc.dec``, ``act2view``, ``view2act``,
``alloc.map``, ``ment.rot``, ``loc2view``, ``view2loc``) and their mean ``avg``; false-belief scores as ``fb_*``;
model runs add probe diagnostics. Options are the fields of :class:`TosOptions`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, RootModel, field_validator, model_validator

from mindloop.bench.api import AgentContext, AgentRunner, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.bench.declaration import (
    BenchmarkSpec,
    Column,
    Headline,
    Metric,
    PaperTable,
    PresetEntry,
    ReferencePolicy,
    Row,
    SmallRun,
    Suite,
)
from mindloop.bench.references import outcome_policy
from mindloop.bench.tables import grid
from mindloop.bench.timeline import EpisodeTimeline, TimelineStep
from mindloop.datafiles import load_package_data
from mindloop.errors import SETUP_ERRORS, InvalidArgumentError, MindloopError
from mindloop.metrics.stats import mean
from mindloop.models.base import message_text
from mindloop.systems.tos.explorers import SCRIPTED_EXPLORERS
from mindloop.systems.tos.explorers.base import Exploration, new_belief, run_exploration
from mindloop.systems.tos.explorers.belief import SpatialBelief
from mindloop.systems.tos.explorers.context import HistoryPolicy
from mindloop.systems.tos.explorers.model import PROBES
from mindloop.systems.tos.explorers.prompts import echoed_markers
from mindloop.systems.tos.explorers.revision import ChangeDetector
from mindloop.systems.tos.metrics import (
    BELIEF_DIAGNOSTICS,
    CogMap,
    belief_diagnostics,
    false_belief_scores,
    final_map_scores,
    gt_global_map,
    gt_local_map,
    information_gain_curve,
    parse_cognitive_map,
    pos_norm,
    score_answer,
)
from mindloop.systems.tos.world.env import SpatialEnv, SpatialEnvConfig, Turn
from mindloop.systems.tos.world.layout import LayoutConfig, generate_scene
from mindloop.systems.tos.world.metadata import load_scene
from mindloop.systems.tos.world.scene import Scene, scene_from_dict, scene_to_dict
from mindloop.systems.tos.world.tasks import ROUTE_TASKS, SURVEY_TASKS, TASKS, TaskQuestion, answer_spec, generate_tasks
from mindloop.systems.tos.world.world import world_from_scene

__all__ = [
    "TOS_GLOSSARY",
    "TosActiveBenchmark",
    "TosOptions",
    "TosPassiveBenchmark",
    "action_failure_counts",
    "answer_text",
    "echo_rate",
    "format_table",
    "tos_timeline",
]

TOS_GLOSSARY: dict[str, str] = load_package_data(RootModel[dict[str, str]], __package__ or "", "glossary.yaml").root
"""What the Theory of Space summary's keys mean."""


def _gold_text(task: str, gold: Any) -> str:
    """A question's stored gold as a reply would give it: the answer of a record (``perc.dec``), a coordinate
    (``view2loc``), the pose a move sequence must reach (``view2act``: any sequence reaching it is right), a list
    of coordinates or names."""
    if gold is None:
        return "—"
    if isinstance(gold, dict):
        if "answer" in gold:
            return str(gold["answer"])
        if "coord" in gold:
            return answer_text("view2loc", gold["coord"])
        if "final_pos" in gold:
            x, y = gold["final_pos"]
            return (
                f"any moves that end at ({x}, {y}) facing {tuple(gold.get('final_ori') or ())} with the described view"
            )
        return ", ".join(f"{k}: {v}" for k, v in gold.items())
    return answer_text(task, gold) if task in ("alloc.map", "ment.rot") or isinstance(gold, str) else str(gold)


def tos_timeline(record: SampleRecord) -> EpisodeTimeline | None:
    """A Theory of Space episode: each exploration step (the action taken, the information gained so far), then
    each question (the task and question, the gold answer, the agent's answer, right or wrong by its score: 1 is
    right, 0 wrong, a partial score is shown as it is). The exploration has no gold per step; the episode is
    judged by its own rule: the agent's answers are right on average at least half the time (``avg`` >= 0.5)."""
    out = record.output or {}
    answers = out.get("answers")
    if not isinstance(answers, list):
        return None
    curve = out.get("info_gain_curve") or []
    steps = []
    for k, action in enumerate(out.get("actions") or []):
        gain = f"information gained so far: {100 * float(curve[k]):.0f}%" if k < len(curve) else ""
        steps.append(TimelineStep(f"step {k + 1}", gain or "—", "—", str(action)))
    gold = {q["question"]: q.get("answer") for q in record.sample.input.get("questions") or []}
    for k, a in enumerate(answers):
        score = a.get("score")
        judged = float(score) if isinstance(score, int | float) else None
        correct = None if judged is None else (judged >= 1.0 if judged in (0.0, 1.0) else None)
        note = "" if judged is None or judged in (0.0, 1.0) else f"partial score {judged:.2f}"
        want = gold.get(a.get("question"))
        steps.append(
            TimelineStep(
                f"Q{k + 1}",
                f"[{a.get('task')}] {a.get('question')}",
                _gold_text(str(a.get("task")), want),
                str(a.get("answer")) if a.get("answer") is not None else "(no answer)",
                correct,
                note,
            )
        )
    avg = record.scores.get("avg")
    verdict = None if avg is None else float(avg) >= 0.5
    facts = [("scene", str(out.get("scene", record.sample.id))), ("agent", str(out.get("agent", "?")))]
    if "steps" in record.scores:
        facts.append(("exploration steps", f"{record.scores['steps']:.0f}"))
    if avg is not None:
        facts.append(("task average", f"{100 * float(avg):.1f}%"))
    return EpisodeTimeline(
        tuple(steps),
        verdict=verdict,
        rule="Exploration steps are not judged one by one; each question is right when its score is 1. The "
        "episode is right when its task average (avg) is at least 0.5.",
        title="Episode timeline (exploration steps, then the questions)",
        columns=("step", "what happened / question", "gold", "agent"),
        facts=tuple(facts),
        reads=("actions", "info_gain_curve", "answers"),
    )


DEFAULT_SCENES = 100
"""Scenes per run when ``--n`` is not given (the paper's 100)."""

TO_COMPLETION = 1000
"""The step limit of an explorer that runs to completion: far beyond any scripted explorer's last step (the
reference's proxies take up to the low twenties on 3-room scenes), so they stop by themselves."""

_COUNTS = {
    "steps",
    "action_cost",
    "fb_steps",
    "fb_redundancy",
    "invalid_actions",
    "unparsed_actions",
    "unreadable_actions",
    "refused_actions",
    "over_budget",
    "unparsed_answers",
    "echo_rate",
}
"""Scores that are counts (or rates of the model's replies, not accuracies), averaged over the samples that have
them (a failed sample has none); ``over_budget`` (1 when the exploration took more than ``max_steps`` steps)
averages to the share of such samples."""

_ALWAYS = {"steps", "coverage", "map_dir", "map_facing", "map_pos", "map_overall", *TASKS, "avg"}
"""Scores the summary always shows (``None`` when no sample has them); the others only when some sample has them."""
_SCORES = {
    *_ALWAYS,
    *_COUNTS,
    "edge_coverage",
    "info_gain",
    *(
        f"fb_{k}"
        for k in (
            "f1",
            "f1_position",
            "f1_facing",
            "redundancy",
            "belief_pos",
            "belief_ori",
            "inertia_pos",
            "inertia_ori",
            "retention_pos",
            "prior_known",
        )
    ),
    *BELIEF_DIAGNOSTICS,
    *("uncertainty", "probe_failures", "unparsed_answers", "unreadable_actions"),
}
"""Every per-sample score the benchmark records (exploration, maps, tasks, false belief, probe diagnostics)."""


def _score_metric(k: str) -> Metric:
    """Score ``k``'s mean over samples: a count over the finished samples that have it, any other score over the
    samples that have it with a failed one as 0 (the summary averages an undeclared score the same way)."""
    return Metric(
        k,
        k,
        "mean",
        missing="skip",
        failed="skip" if k in _COUNTS else "zero",
        optional=k not in _ALWAYS,
        description="mean over the samples that have it"
        + (" (a failed sample has none)" if k in _COUNTS else " (a failed sample: 0)"),
    )


def _score_mean(records: Sequence[SampleRecord], k: str) -> float | None:
    """What :func:`_score_metric` gives over ``records``."""
    metric = _score_metric(k)
    return metric.value(metric.values(records))


_METRICS = tuple(_score_metric(k) for k in sorted(_SCORES))
"""Each score's mean over samples, in name order: a count over the finished samples that have it, any other score
over the samples that have it with a failed one as 0."""


def echo_rate(calls: Sequence[Any] | None) -> float | None:
    """The share of a sample's agent replies that repeat a format line or example of their prompt verbatim
    (:func:`~mindloop.systems.tos.explorers.prompts.echoed_markers`); ``None`` without a ledger or a reply."""
    if not calls:
        return None
    replies = [c for c in calls if c.role == "agent" and c.text is not None]
    if not replies:
        return None
    echoed = sum(1 for c in replies if echoed_markers(c.text, "\n".join(message_text(m) for m in c.messages)))
    return echoed / len(replies)


def action_failure_counts(turns: Sequence[Turn]) -> dict[str, float]:
    """How a model's action strings failed: ``unparsed_actions`` (the environment could not read the string as
    an action sequence in the grammar), ``refused_actions`` (read, but the environment refused a motion or the
    final action, e.g. ``JumpTo`` an object not in view) and ``invalid_actions``, their sum. (The model agent
    adds ``unreadable_actions``: the unparsed steps whose reply held no readable action list at all.)"""
    unparsed = sum(1 for t in turns if not t.valid)
    refused = sum(1 for t in turns if t.valid and t.action_failed)
    return {
        "unparsed_actions": float(unparsed),
        "refused_actions": float(refused),
        "invalid_actions": float(unparsed + refused),
    }


def answer_text(task: str, value: Any) -> str:
    """An answer value of :func:`~mindloop.systems.tos.world.tasks.answer_spec` as the text a reply would give."""
    if isinstance(value, str):
        return value
    if task == "alloc.map":
        return "; ".join(f"({int(x)}, {int(y)})" for x, y in value)
    if task == "ment.rot":
        return ", ".join(value)
    if task == "view2loc":
        return f"({int(value[0])}, {int(value[1])})"
    return str(value)


def _answers_from(world: Any, questions: Iterable[TaskQuestion]) -> list[dict[str, Any]]:
    """Each question answered from ``world`` as the symbolic engine answers it, scored against its gold."""
    answers = []
    for q in questions:
        text = answer_text(q.task, answer_spec(q.task, q.spec, world))
        answers.append(
            {"task": q.task, "question": q.question, "answer": text, "score": score_answer(q.task, text, q.answer)}
        )
    return answers


def _scene_and_questions(inp: Mapping[str, Any]) -> tuple[Scene, list[TaskQuestion]]:
    """A sample's scene and questions, read back from its input."""
    return scene_from_dict(inp["scene"]), [TaskQuestion.from_dict(q) for q in inp["questions"]]


def _known(value: Any, known: Sequence[str], what: str) -> Any:
    """``"a, b"`` -> ``("a", "b")``: comma-separated text as given on the command line, each name one of
    ``known``."""
    names = tuple(x.strip() for x in value.split(",") if x.strip()) if isinstance(value, str) else value
    if isinstance(names, tuple) and any(n not in known for n in names):
        raise ValueError(f"comma-separated {what} names from: {', '.join(known)}")
    return names


class TosOptions(Options):
    """Options of ``tos-active`` and ``tos-passive``."""

    rooms: int = Field(3, ge=1, le=11, description="rooms per procedural scene")
    objects: int = Field(4, ge=1, le=10, description="objects per room of a procedural scene")
    per_task: int = Field(3, ge=1, le=20, description="questions per task and scene")
    scenes: str | None = Field(None, description="a scene file, a reference run folder, or a folder of them")
    data: str | None = Field(None, description="one scene file (--data FILE); give scenes or data, not both")
    mode: Literal["text", "vision"] = Field("text", description="observations as text or as images")
    false_belief: bool = Field(True, description="tos-active: the false-belief phase after exploration")
    proxy: Literal["strategist", "scout", "symbolic"] | None = Field(
        None, description="tos-passive model agent: whose exploration log it reads (default: strategist for "
        "text, scout for vision)"
    )  # fmt: skip
    probes: str = Field(
        ",".join(PROBES),
        description="the model agent's cognitive-map probes, comma-separated",
        json_schema_extra={"expected": f"comma-separated probe names from: {', '.join(PROBES)}"},
    )
    max_steps: int = Field(
        20, ge=1, le=1000, description="the environment's exploration step budget: a model's, and with budget=env "
        "every agent's"
    )  # fmt: skip
    budget: Literal["reference", "env"] = Field(
        "reference",
        description="reference: scripted explorers run to completion, as the official release runs its proxies "
        "(they may take more than max_steps); env: every agent is held to max_steps",
    )
    prompt: Literal["explicit", "reference"] = Field(
        "explicit",
        description="model agent: the format lines of the prompts: explicit (slots described in words, examples set "
        "apart) or reference (the release's placeholders, which small models copy)",
    )
    history_turns: int | None = Field(
        None,
        ge=0,
        description="model agent: send only the last K exploration turns (passive: log entries); default all, the "
        "paper's protocol",
    )
    context_tokens: int | None = Field(
        None,
        ge=1,
        description="model agent: the model's context length; a prompt estimated longer fails the sample before "
        "the call",
    )
    tasks: tuple[str, ...] = Field(
        TASKS,
        description="the downstream tasks to ask, comma-separated",
        json_schema_extra={"expected": f"comma-separated task names from: {', '.join(TASKS)}"},
    )

    @field_validator("probes")
    @classmethod
    def _known_probes(cls, value: str) -> str:
        _known(value, PROBES, "probe")
        return value

    @field_validator("tasks", mode="before")
    @classmethod
    def _split_tasks(cls, value: Any) -> Any:
        return _known(value, TASKS, "task")

    @model_validator(mode="after")
    def _one_scene_source(self) -> TosOptions:
        if self.scenes is not None and self.data is not None:
            raise ValueError("give the scenes once: --data FILE or --opt scenes=PATH, not both")
        return self


def _scene_files(path: Path) -> list[Path]:
    """The scene files under ``path``: the file itself, a run folder's ``meta_data.json``, a folder of run folders
    and ``*.json`` scenes (``example_data/3-room``), or a folder of such sets (the release's ``example_data``)."""
    if path.is_file():
        return [path]
    if (path / "meta_data.json").is_file():
        return [path / "meta_data.json"]
    if not path.is_dir():
        raise InvalidArgumentError(f"--opt scenes={str(path)!r}: no such file or directory")
    found = sorted(p / "meta_data.json" for p in path.iterdir() if (p / "meta_data.json").is_file())
    found += sorted(p for p in path.iterdir() if p.is_file() and p.suffix == ".json")
    if not found:  # example_data/<N>-room/runXX/meta_data.json
        found = sorted(path.glob("*/*/meta_data.json"))
    if not found:
        raise InvalidArgumentError(
            f"--opt scenes={str(path)!r}: no scene files (*.json, */meta_data.json or */*/meta_data.json) found"
        )
    return found


_EXPLORER_DESCRIPTIONS = {
    "symbolic": "the symbolic explorer (exact cognitive map) answering from its map",
    "scout": "the paper's Scout proxy; its map is built from what it saw",
    "strategist": "the paper's Strategist proxy; its map is built from what it saw",
}


class _TosBenchmark:
    """Shared by the active and passive benchmarks."""

    name: str
    description: str
    spec: BenchmarkSpec
    active: bool
    options_model = TosOptions

    def __init__(self) -> None:
        self.agents: dict[str, AgentSpec] = {
            name: AgentSpec(_EXPLORER_DESCRIPTIONS[name], self._scripted(name)) for name in SCRIPTED_EXPLORERS
        }
        self.agents["model"] = AgentSpec(
            "a chat model exploring (active) or reading a proxy's log (passive), probed for its map, answering",
            self._model,
            needs_model=True,
        )

    # ---- samples --------------------------------------------------------------------------------------------
    def samples(self, n: int | None, seed: int, options: TosOptions) -> list[Sample]:
        """One sample per scene: procedural (seeded) or read from ``--opt scenes=PATH``."""
        per_task, mode, tasks = options.per_task, options.mode, options.tasks
        source = options.scenes if options.scenes is not None else options.data
        if source is not None:
            files = _scene_files(Path(source))
            scenes = [load_scene(f) for f in files[:n]]
        else:
            layout = LayoutConfig(rooms=options.rooms, objects_per_room=options.objects)
            count = DEFAULT_SCENES if n is None else n
            scenes = [generate_scene(seed * 1_000_003 + i, layout) for i in range(count)]
        out = []
        for i, scene in enumerate(scenes):
            scene_seed = seed * 1_000_003 + i  # as the procedural scene i was generated from
            questions = generate_tasks(world_from_scene(scene), scene_seed, per_task=per_task, tasks=tasks)
            rooms = len(scene.room_ids)
            out.append(
                Sample(
                    id=f"scene{i:04d}",
                    input={
                        "scene": scene_to_dict(scene),
                        "scene_seed": scene_seed,
                        "questions": [q.to_dict() for q in questions],
                        "rooms": rooms,
                        "mode": mode,
                        "false_belief": self.active and options.false_belief,
                        "max_steps": options.max_steps,
                        "budget": options.budget,
                        "proxy": options.proxy or ("strategist" if mode == "text" else "scout"),
                        **{k: getattr(options, k) for k in ("probes", "prompt", "history_turns", "context_tokens")},
                    },
                    group=f"{rooms}-room",
                )
            )
        return out

    # ---- running --------------------------------------------------------------------------------------------

    def _scripted(self, explorer: str) -> AgentRunner:
        """The runner of a scripted explorer agent."""

        async def run(sample: Sample, ctx: AgentContext) -> Outcome:
            return self._run_scripted(*_scene_and_questions(sample.input), sample.input, explorer)

        return run

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        scene, questions = _scene_and_questions(sample.input)
        try:
            return await self._run_model(scene, questions, sample.input, ctx)
        except SETUP_ERRORS:
            raise
        except MindloopError as exc:
            zero = dict.fromkeys(("coverage", "map_dir", "map_facing", "map_pos", "map_overall", *TASKS, "avg"), 0.0)
            return Outcome({"agent": "model", "scene": scene.name}, zero, error=str(exc))

    @staticmethod
    def step_limit(inp: Mapping[str, Any], *, scripted: bool) -> int:
        """The exploration step limit of one run: a model always gets ``max_steps``; a scripted explorer runs to
        completion under ``budget=reference`` (the release runs its proxies with no step limit) and is held to
        ``max_steps`` under ``budget=env``. Samples recorded before the option existed read as ``reference``."""
        if scripted and inp.get("budget", "reference") == "reference":
            return TO_COMPLETION
        return int(inp["max_steps"])

    def _env(self, scene: Scene, inp: Mapping[str, Any], *, scripted: bool) -> SpatialEnv:
        cfg = SpatialEnvConfig(
            max_steps=self.step_limit(inp, scripted=scripted),
            false_belief=bool(inp["false_belief"]) and self.active,
            mode=inp["mode"],
        )
        env = SpatialEnv(scene, config=cfg)
        env.reset(seed=int(inp["scene_seed"]))
        return env

    def _explore_scripted(
        self, scene: Scene, inp: Mapping[str, Any], agent: str
    ) -> tuple[SpatialEnv, SpatialBelief, Exploration, dict[str, float], dict[str, Any]]:
        """A scripted explorer's run (the agent itself, or the passive model's proxy) and its exploration scores:
        the environment, the explorer's belief, the exploration, its scores and output."""
        env = self._env(scene, inp, scripted=True)
        belief = new_belief(env)
        ex = run_exploration(env, SCRIPTED_EXPLORERS[agent](belief, int(inp["scene_seed"])), belief)
        return env, belief, ex, *self._exploration_scores(env, ex, inp, scripted=True)

    def _run_scripted(self, scene: Scene, questions: list[TaskQuestion], inp: Mapping[str, Any], agent: str) -> Outcome:
        env, belief, ex, scores, output = self._explore_scripted(scene, inp, agent)
        cmap = belief.cognitive_map()
        scores |= self._map_scores(scene, parse_cognitive_map(cmap), ex.turns)
        answers = _answers_from(belief.world(), questions)
        scores |= self._task_scores(answers)
        if env.phase == "false_belief":
            detector = ChangeDetector(belief, expected=len(env.changes))
            fb = run_exploration(env, detector)
            revised = detector.revised.cognitive_map() if detector.revised is not None else {}
            scores |= self._fb_scores(env, parse_cognitive_map(cmap), parse_cognitive_map(revised))
            output["false_belief"] = {"actions": [t.action for t in fb.turns], "result": env.false_belief_result}
        output |= {"agent": agent, "scene": scene.name, "cognitive_map": cmap, "answers": answers}
        return Outcome(output, scores)

    async def _run_model(
        self, scene: Scene, questions: list[TaskQuestion], inp: Mapping[str, Any], ctx: AgentContext
    ) -> Outcome:
        from mindloop.systems.tos.explorers.model import ask_questions, run_model_exploration, run_model_passive

        assert ctx.model is not None
        probes = tuple(p.strip() for p in str(inp["probes"]).split(",") if p.strip())
        style = str(inp.get("prompt", "reference"))  # samples stored before the option ran the release's lines
        policy = HistoryPolicy(inp.get("history_turns"), inp.get("context_tokens"))
        retries = ctx.format_retries
        names = [it.name for it in scene.items]
        if self.active:
            env = self._env(scene, inp, scripted=False)
            ep = await run_model_exploration(
                env, ctx.model, ctx.config, probes=probes, seed=ctx.seed, retries=retries, style=style, policy=policy
            )
            ex = Exploration(turns=ep.turns)
            scores, output = self._exploration_scores(env, ex, inp, scripted=False)
            last_map = next((p.global_map for p in reversed(ep.probes) if p.global_map is not None), None)
            scores |= self._map_scores(scene, last_map, ep.turns)
            scores |= self._diagnostics(scene, ep.turns, ep.probes)
            history = self._cut(ep) if ep.fb_turns else ep.messages
            if ep.fb_turns and env.false_belief_result is not None:
                revised = next((p.global_map for p in reversed(ep.fb_probes) if p.global_map is not None), None)
                scores |= self._fb_scores(env, last_map, revised)
            scores |= action_failure_counts([*ep.turns, *ep.fb_turns])
            scores["unreadable_actions"] = float(ep.unreadable)
            output["failures"] = ep.failures
            output["false_belief"] = env.false_belief_result
            output["probes_refused"] = [
                {"step": t.step, **p.refused}
                for t, p in zip([*ep.turns, *ep.fb_turns], [*ep.probes, *ep.fb_probes], strict=True)
                if p.refused
            ]
        else:
            proxy = str(inp["proxy"])
            if proxy not in SCRIPTED_EXPLORERS:
                raise InvalidArgumentError(f"--opt proxy={proxy!r}: expected scout, strategist or symbolic")
            env, _, ex, scores, output = self._explore_scripted(scene, inp, proxy)
            history, probe = await run_model_passive(
                env, ex.turns, ctx.model, ctx.config, retries=retries, style=style, policy=policy
            )
            scores |= self._map_scores(scene, probe.global_map, ex.turns)
            output["proxy"] = proxy
            output["probes_refused"] = [probe.refused] if probe.refused else []
        answers = await ask_questions(
            ctx.model, ctx.config, history, questions, names=names, retries=retries, style=style, policy=policy
        )
        scores |= self._task_scores(answers)
        scores["unparsed_answers"] = float(sum(1 for a in answers if not a["parsed"]))
        echo = echo_rate(ctx.ledger)
        if echo is not None:
            scores["echo_rate"] = echo
        output |= {
            "agent": "model",
            "scene": scene.name,
            "answers": answers,
            "prompt": style,
            "history": policy.record.to_dict(policy),
        }
        return Outcome(output, scores)

    @staticmethod
    def _cut(ep: Any) -> list[Any]:
        """The conversation up to the end of exploration (before the false-belief instruction)."""
        n_explore = len(ep.turns)
        # system, first user, then (assistant, user) per step
        return list(ep.messages[: 2 + 2 * n_explore - 1])

    # ---- scores ---------------------------------------------------------------------------------------------
    def _exploration_scores(
        self, env: SpatialEnv, ex: Exploration, inp: Mapping[str, Any], *, scripted: bool
    ) -> tuple[dict[str, float], dict[str, Any]]:
        """Coverage, cost and information gain of the exploration, and ``over_budget`` (1 when it took more than
        ``max_steps`` steps) with what the run allowed (``output["budget"]``)."""
        scene = env.initial_scene
        names = [it.name for it in scene.items]
        curve = information_gain_curve([t.triples for t in ex.turns], names, scene.grid_size)
        observed = {n for t in ex.turns for o in t.observations for n in o.names}
        edges = env.target_edges
        known = {frozenset({t.anchor, n}) for t in ex.turns for o in t.observations for n in o.names} & edges
        scores = {
            "steps": float(ex.steps),
            "coverage": len(observed) / len(names) if names else 1.0,
            "edge_coverage": len(known) / len(edges) if edges else 1.0,
            "action_cost": float(sum(t.cost for t in ex.turns)),
            "info_gain": curve[-1] if curve else 0.0,
            "over_budget": float(ex.steps > int(inp["max_steps"])),
        }
        limit = self.step_limit(inp, scripted=scripted)
        budget = {
            "mode": str(inp.get("budget", "reference")),
            "max_steps": int(inp["max_steps"]),
            "step_limit": None if limit == TO_COMPLETION else limit,
            "steps": ex.steps,
        }
        return scores, {"actions": [t.action for t in ex.turns], "info_gain_curve": curve, "budget": budget}

    @staticmethod
    def _map_scores(scene: Scene, pred: CogMap | None, turns: Sequence[Turn]) -> dict[str, float]:
        return {f"map_{k}": v for k, v in final_map_scores(scene, pred, turns).to_dict().items()}

    @staticmethod
    def _task_scores(answers: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        by_task: dict[str, list[float]] = defaultdict(list)
        for a in answers:
            by_task[a["task"]].append(float(a["score"]))
        out = {t: m for t, v in by_task.items() if (m := mean(v)) is not None}
        avg = mean([out[t] for t in TASKS if t in out])
        if avg is not None:
            out["avg"] = avg
        return out

    @staticmethod
    def _fb_scores(env: SpatialEnv, prior: CogMap | None, revised: CogMap | None) -> dict[str, float]:
        if env.false_belief_result is None:
            return {}
        fb = false_belief_scores(env.false_belief_result, prior, revised, pos_norm_l=pos_norm(env.initial_scene))
        return {f"fb_{k}": float(v) for k, v in fb.items() if v is not None}

    @staticmethod
    def _diagnostics(scene: Scene, turns: Sequence[Turn], probes: Sequence[Any]) -> dict[str, float]:
        seen: set[str] = set()
        newly = []
        gts, gt_locals, poses = [], [], []
        world = world_from_scene(scene)  # the gold world, built once for every turn's true maps
        for t in turns:
            names = {n for o in t.observations for n in o.names}
            newly.append(names - seen)
            seen |= names
            gts.append(gt_global_map(scene, (t.pos, t.ori), names=seen, world=world))
            gt_locals.append(gt_local_map(scene, (t.pos, t.ori), world=world))
            poses.append((t.pos, t.ori))
        diag = belief_diagnostics(
            [p.global_map for p in probes],
            gts,
            newly,
            pos_norm_l=pos_norm(scene),
            local_maps=[p.local_map for p in probes],
            gt_local_maps=gt_locals,
            poses=poses,
        )
        out = {k: float(v) for k, v in diag.items() if k != "per_turn" and v is not None}
        uncertainty = mean(p.fog["overall"] for p in probes if p.fog is not None)
        if uncertainty is not None:
            out["uncertainty"] = uncertainty
        out["probe_failures"] = float(sum(1 for p in probes if p.global_map is None))
        return out

    timeline = staticmethod(tos_timeline)
    """See :func:`tos_timeline`."""

    # ---- summary --------------------------------------------------------------------------------------------
    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """What the declared means (:data:`_METRICS`: a failed sample counts 0 for every accuracy-like score; a
        score no sample has, ``steps`` when every sample failed, a task no sample asked, is ``None``, never 0)
        cannot say: the counts, the budget and protocol, ``by_rooms``, and the mean of any score not declared."""
        keys: set[str] = set()
        for r in records:
            keys |= set(r.scores)
        keys -= _SCORES  # declared (_METRICS); a score added since is still averaged here
        metrics: dict[str, Any] = {k: _score_mean(records, k) for k in sorted(keys)}
        metrics["n"] = len(records)
        metrics["failed"] = sum(1 for r in records if r.status == "failed")
        metrics |= _budget_summary(records)
        metrics |= _protocol_summary(records)
        groups: dict[str, list[SampleRecord]] = defaultdict(list)
        for r in records:
            groups[r.sample.group].append(r)
        metrics["by_rooms"] = {
            g: {
                "n": len(rs),
                "avg": mean([0.0 if r.status == "failed" else r.scores.get("avg", 0.0) for r in rs]),
                "steps": _score_mean(rs, "steps"),
            }
            for g, rs in sorted(groups.items())
        }
        return metrics


def _budget_summary(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """``budget`` (the mode) and ``budget_note``: what the agents were allowed and, for the scripted explorers under
    the reference's protocol, how many explorations went past the environment's ``max_steps``."""
    inputs = [r.sample.input for r in records]
    if not inputs:
        return {}
    mode = str(inputs[0].get("budget", "reference"))
    max_steps = int(inputs[0]["max_steps"])
    if mode == "env":
        note = (
            f"env: every agent held to {max_steps} exploration steps (a deviation from the official release, whose "
            "proxy agents run to completion; --opt budget=reference follows the release)"
        )
    else:
        over = sum(1 for r in records if r.scores.get("over_budget"))
        note = (
            f"reference (the official release's protocol): a model gets {max_steps} exploration steps, scripted "
            f"explorers run to completion as the release's proxies do; {over} of {len(records)} explorations took "
            f"more than {max_steps} steps (--opt budget=env holds every agent to {max_steps})"
        )
    return {"budget": mode, "budget_note": note}


def _protocol_summary(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """For model runs: ``prompt`` and ``prompt_note`` (which format lines the model was sent), ``history_turns``
    and ``history_note`` (how much exploration history, and how many calls were cut), each naming any deviation
    from the paper's protocol."""
    model = [r for r in records if r.calls or (r.output or {}).get("agent") == "model"]
    if not model:
        return {}
    inp = model[0].sample.input
    style = str(inp.get("prompt", "reference"))
    if style == "reference":
        prompt_note = "reference: the release's format lines and placeholders, as its prompts write them"
    else:
        prompt_note = (
            "explicit: the reply format is described in words and examples are set apart from the slots (a "
            "deviation from the release's format lines, whose placeholders such as [Your thoughts on next step "
            "actions] small models copy; --opt prompt=reference sends them); rules, action grammar and questions "
            "are the release's text"
        )
    turns = inp.get("history_turns")
    cut = sum(int(((r.output or {}).get("history") or {}).get("cut_calls", 0)) for r in model)
    if turns is None:
        history_note = "all (the paper's protocol): every call is sent the whole exploration history"
    else:
        history_note = (
            f"last {turns} turns: each call is sent only the last {turns} exploration turns (passive: log entries), "
            f"a deviation from the paper, whose agent sees its whole history; {cut} calls were cut"
        )
    context = inp.get("context_tokens")
    if context is not None:
        history_note += f"; prompts checked against a context of {context} tokens (estimated)"
    return {"prompt": style, "prompt_note": prompt_note, "history_turns": turns, "history_note": history_note}


_BOTH_ROWS = (Row("{method} (active)", bench="tos-active"), Row("{method} (passive)", bench="tos-passive"))


def _pct(label: str, key: str, group: str) -> Column:
    return Column(label, (key,), group=group, scale=100, digits=1)


TABLE_1 = PaperTable(
    "tos",
    "Theory of Space",
    "Table 1: exploration steps, route and survey task accuracy, average (%)",
    "tos-active",
    (
        Column("Avg.step", ("steps",), digits=1),
        *(_pct(t, t, "Route") for t in ROUTE_TASKS),
        *(_pct(t, t, "Survey") for t in SURVEY_TASKS),
        _pct("Avg.", "avg", ""),
        Column("n", ("n",), digits=0),
    ),
    _BOTH_ROWS,
)
"""The paper's Table 1, active and passive rows."""

MAP_TABLE = PaperTable(
    "tos-map",
    "Theory of Space",
    "Cognitive-map probing and false-belief revision (%)",
    "tos-active",
    (
        _pct("Dir.", "map_dir", "Cognitive map"),
        _pct("Facing", "map_facing", "Cognitive map"),
        _pct("Pos.", "map_pos", "Cognitive map"),
        _pct("Overall", "map_overall", "Cognitive map"),
        _pct("Coverage", "coverage", "Exploration"),
        _pct("Info gain", "info_gain", "Exploration"),
        _pct("F1", "fb_f1", "False belief"),
        _pct("Inertia (pos.)", "fb_inertia_pos", "False belief"),
    ),
    (
        _BOTH_ROWS[0],
        Row(
            "{method} (passive)",
            bench="tos-passive",
            filled_by="tos-active only",
        ),
    ),
    "The false-belief phase runs in tos-active only.",
    nav="map",
)
"""The cognitive-map probes and the false-belief phase."""


def _answer_from(world_of: Callable[[_TosBenchmark, Scene, Mapping[str, Any]], Any]) -> Callable[..., Outcome]:
    """A reference policy's answer: every question answered from the world ``world_of`` gives, scored as the
    agents' answers are (the task scores and their mean ``avg``; no exploration is scored)."""

    def answer(bench: _TosBenchmark, sample: Sample) -> Outcome:
        scene, questions = _scene_and_questions(sample.input)
        answers = _answers_from(world_of(bench, scene, sample.input), questions)
        return Outcome({"answers": answers}, bench._task_scores(answers))

    return answer


def _unexplored_world(bench: _TosBenchmark, scene: Scene, inp: Mapping[str, Any]) -> Any:
    """What an agent knows before its first step: the belief of the starting view, unexplored."""
    return new_belief(bench._env(scene, inp, scripted=True)).world()


def _references(bench: Callable[[], _TosBenchmark]) -> tuple[ReferencePolicy, ...]:
    """ToS's reference policies on the task-score mean: answering without exploring, and the oracle."""
    return (
        outcome_policy(
            "no exploration",
            "answers every question from what the starting view shows, without exploring",
            bench,
            _answer_from(_unexplored_world),
        ),
        outcome_policy(
            "oracle",
            "answers every question from the true scene (the symbolic engine's answer, full knowledge)",
            bench,
            _answer_from(lambda b, scene, inp: world_from_scene(scene)),
            kind="oracle",
        ),
    )


def _spec(bench: Callable[[], _TosBenchmark], order: int, quick: PresetEntry, **extra: Any) -> BenchmarkSpec:
    """What both benchmarks declare: the task-score mean as headline, the reference policies, every score's mean."""
    return BenchmarkSpec(
        headline=Headline("avg"),  # the mean of the task scores
        references=_references(bench),
        metrics=_METRICS,
        resampled=("by_rooms",),
        suite=Suite(order=order, presets={"quick": quick}),
        glossary=TOS_GLOSSARY,
        small=SmallRun(n=1),
        **extra,
    )


class TosActiveBenchmark(_TosBenchmark):
    """Active exploration within 20 steps, the false-belief phase, then the nine downstream tasks."""

    name = "tos-active"
    description = "Theory of Space: explore a multi-room grid (20 steps), revise after covert changes, answer 9 tasks"
    active = True
    spec = _spec(
        lambda: TosActiveBenchmark(),
        90,
        PresetEntry(1, "1 scene: up to 20 exploration calls, the map probes, then 27 questions"),
        paper_tables=(TABLE_1, MAP_TABLE),
    )


class TosPassiveBenchmark(_TosBenchmark):
    """A proxy explores to completion; the agent's map (or the model reading the log) answers the tasks."""

    name = "tos-passive"
    description = "Theory of Space: answer 9 spatial tasks from a scripted proxy's exploration log"
    active = False
    spec = _spec(
        lambda: TosPassiveBenchmark(),
        100,
        PresetEntry(2, "2 scenes: 27 questions each, from a scripted proxy's exploration log"),
    )


def format_table(rows: Mapping[str, Mapping[str, Any]]) -> str:
    """:data:`TABLE_1`'s columns as text, its count left out: ``Avg.step | Route tasks | Survey tasks | Avg.``
    (scores in %), one row per method (``rows`` maps a method name to its summary metrics). No data prints as
    ``–``."""
    columns = [c for c in TABLE_1.columns if c.path != ("n",)]
    header, body = grid(TABLE_1, rows, columns=columns, rows=(Row("{method}"),), first="Methods")
    return "\n".join(" | ".join(line) for line in (header, *body))

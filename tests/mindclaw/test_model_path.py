"""The model-driven runtime end to end over HTTP (FakeChatServer with scripted replies): trigger, reasoning, action
generation and observation prompts, strict parsing, and malformed output recorded as failures."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext, Outcome
from mindloop.bench.options import validate_options
from mindloop.errors import ParseError
from mindloop.models import FakeChatServer, ModelOptions, load_model
from mindloop.models.base import Completion, GenerationConfig
from mindloop.systems.mindclaw import (
    HouseholdSource,
    ModelObserver,
    ModelPolicy,
    Operation,
    build_engine,
    default_skills,
)
from mindloop.systems.mindclaw.benchmarks import ClawBenchmark
from mindloop.systems.mindclaw.context import TriggerContext, WindowState
from mindloop.systems.mindclaw.memory import Memory
from mindloop.systems.mindclaw.observation import SymbolicObserver, parse_observation_reply
from mindloop.worlds.household.scenarios import Scenario


def _kind(messages: list[dict[str, Any]]) -> str:
    system = str(messages[0]["content"])
    for key, kind in (
        ("Trigger", "trigger"),
        ("Mental Reasoning", "reason"),
        ("Action Generation", "act"),
        ("Observation module", "observe"),
    ):
        if key in system:
            return kind
    raise AssertionError(system)


def _user(messages: list[dict[str, Any]]) -> str:
    content = messages[-1]["content"]
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


def careful(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """A model that reasons and plans like a careful person, reading only the prompt it is sent."""
    text = _user(messages)
    kind = _kind(messages)
    if kind == "reason":
        actor, obj = re.search(r"Focus: person (\w+), object (\w+)", text).groups()  # type: ignore[union-attr]
        believed = re.search(rf"actor_beliefs\[{actor}\]: .*?\b{obj} -> (\w+)", text)
        return (
            f"<Context> false_belief\n<Believed> {believed.group(1) if believed else 'none'}\n<Blocks> yes\n"
            f"<Intervene> yes\n<Reason> {actor} is looking for the {obj} where it no longer is."
        )
    if kind == "act":
        actor, obj = re.search(r"Reasoning record: person (\w+), object (\w+)", text).groups()  # type: ignore[union-attr]
        where = re.search(rf"visual_facts: .*?\b{obj} -> (\w+)", text).group(1)  # type: ignore[union-attr]
        return (
            f"<Action> walk({where}), open({where}), pick({obj}), close({where}), walk({actor}), give({obj}, {actor})"
        )
    return "noop(none, none, none)"


def _run(sample: Any, reply: Any, **opts: Any) -> tuple[Outcome, FakeChatServer]:
    with FakeChatServer(reply=reply) as server:
        model = load_model("openai/fake", ModelOptions(base_url=server.base_url, cache="off", timeout_s=5))

        async def go() -> Outcome:
            try:
                return await run_sample(ClawBenchmark(), sample, AgentContext("model", model=model))
            finally:
                await model.aclose()

        return asyncio.run(go()), server


def _sample(lily: Scenario, **options: str) -> Any:
    bench = ClawBenchmark()
    return bench.samples(None, 0, validate_options(bench, {"data": _write(lily), **options}))[0]


_PATHS: dict[str, str] = {}


def _write(s: Scenario) -> str:
    import json
    import tempfile

    if s.id not in _PATHS:
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
            fh.write(json.dumps(s.to_dict()) + "\n")
            _PATHS[s.id] = fh.name
    return _PATHS[s.id]


def test_model_agent_with_skills_reasons_and_acts_over_http(lily: Scenario) -> None:
    outcome, server = _run(_sample(lily), careful)
    assert outcome.error is None
    s = outcome.scores
    assert (s["ta"], s["pia"], s["cs"]) == (1.0, 1.0, 1.0)
    assert s["acc_correct"] == s["acc_total"] == 31.0 and s["malformed"] == 0.0
    # strong skills took every trigger decision; the model reasoned once and planned once, at window 15
    assert server.requests == 2
    assert [i["t"] for i in outcome.output["interventions"]] == [15]


def test_malformed_trigger_output_is_a_recorded_failure(lily: Scenario) -> None:
    def chatty(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        return "I think the robot should probably help at some point." if _kind(messages) == "trigger" else ""

    outcome, server = _run(_sample(lily, skills="off"), chatty)
    s = outcome.scores
    assert s["malformed"] > 0 and s["acc_correct"] == 0.0 and s["pia"] == 0.0
    assert any("malformed trigger output" in f for f in outcome.output["failures"])
    first = outcome.output["trace"][0]
    assert first["z"] == [] and "no trigger operation" in first["failures"][0]
    # one question per window and per teacher-forced decision, each refused reply sent back once (a format retry)
    assert s["loop_model_decisions"] == 22 and s["loop_model_retries"] == 22 and s["loop_model_malformed"] == 22
    assert s["model_decisions"] == s["model_malformed"] == s["model_retries"] == s["acc_total"] == 31
    assert server.requests == 2 * (22 + 31)


def test_malformed_reasoning_and_action_are_recorded_and_nothing_is_done(lily: Scenario) -> None:
    def bad_reasoning(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        return (
            "<Context> sadness\n<Believed> fridge\n<Blocks> yes\n<Intervene> yes" if _kind(messages) == "reason" else ""
        )

    outcome, _ = _run(_sample(lily), bad_reasoning)
    # the cue stays unanswered, so reasoning is asked again each window (and the trigger model, given "", too)
    assert outcome.scores["pia"] == 0.0 and outcome.scores["malformed"] >= 1.0
    assert any("malformed reasoning" in f and "<Context> must be one of" in f for f in outcome.output["failures"])

    def bad_action(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        return "<Action> teleport(apple)" if _kind(messages) == "act" else careful(messages, body)

    outcome, _ = _run(_sample(lily), bad_action)
    assert outcome.scores["pia"] == 0.0 and "cs" not in outcome.scores
    assert any("malformed action" in f for f in outcome.output["failures"])


class _OneReply:
    """A minimal ChatModel answering every call with the same text."""

    def __init__(self, text: str) -> None:
        self.text = text

    async def generate(self, messages: Any, config: GenerationConfig) -> Completion:
        return Completion(text=self.text)

    async def aclose(self) -> None:
        return None


def test_model_policy_checks_slots_against_candidates(lily: Scenario) -> None:
    windows = list(HouseholdSource(lily).windows())
    o = asyncio.run(SymbolicObserver().observe(windows[3]))
    ctx = TriggerContext(WindowState(windows[3], o, Memory.fresh()))
    good = asyncio.run(ModelPolicy(_OneReply("belief_create_visual_fact(none, apple, fridge)")).decide(ctx, None))
    assert good.op == Operation("belief_create_visual_fact", "none", "apple", "fridge")
    bad = asyncio.run(ModelPolicy(_OneReply("belief_create_visual_fact(none, apple, narnia)")).decide(ctx, None))
    assert bad.op is None and "narnia" in bad.error and "candidate" in bad.error
    prompt = ModelPolicy(_OneReply("")).prompt(ctx, default_skills())
    text = prompt[-1]["content"]
    assert "<Skills>" in text and "Never reasoning_run" in text and "Lily puts the apple in the fridge." in text


def test_model_observer_over_http(lily: Scenario) -> None:
    def observe(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        text = _user(messages)
        if "Lily puts the apple in the fridge." in text:
            return "<Events>\nlily: putin(apple, fridge)\n</Events>\n<Moves>\napple -> fridge | seen by: lily\n</Moves>"
        if "Sarah opens the fridge." in text:
            return "<Events>\nsarah: open(fridge)\n</Events>\nno moves section"
        return "<Events>\n</Events>\n<Moves>\n</Moves>"

    windows = list(HouseholdSource(lily).windows())
    with FakeChatServer(reply=observe) as server:
        model = load_model("openai/fake", ModelOptions(base_url=server.base_url, cache="off", timeout_s=5))
        observer = ModelObserver(model, retries=0)

        async def go() -> list[Any]:
            try:
                return [await observer.observe(w) for w in windows[:8]]
            finally:
                await model.aclose()

        seen = asyncio.run(go())
    assert [(m.object, m.location, m.witnesses) for m in seen[3].moves] == [("apple", "fridge", ("lily",))]
    assert seen[3].handled == ((0, "apple"),)
    assert seen[7].error.startswith("malformed observation") and seen[7].moves == ()
    assert seen[1].error == "" and seen[1].events == ()


def test_observation_reply_parser_is_strict() -> None:
    names = {"actors": frozenset({"lily"}), "objects": frozenset({"apple"}), "locations": frozenset({"fridge"}), "t": 3}
    with pytest.raises(ParseError, match="unknown location 'moon'"):
        parse_observation_reply("<Events></Events><Moves>\napple -> moon | seen by: lily\n</Moves>", **names)
    with pytest.raises(ParseError, match="not a person's name, a colon and verb"):
        parse_observation_reply("<Events>\nLily took it\n</Events><Moves></Moves>", **names)


def test_the_model_agent_needs_a_model(lily: Scenario) -> None:
    from mindloop.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="needs a model"):
        build_engine("model")
    with pytest.raises(InvalidArgumentError, match="needs a model"):
        asyncio.run(run_sample(ClawBenchmark(), _sample(lily), AgentContext("model")))

"""Every registered benchmark shows its reference policies (chance, best trivial, oracle) beside its headline, in
``bench run``'s text and JSON and in the stored run; and the values that can be worked out by hand are."""

from __future__ import annotations

import asyncio
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from small_runs import small_argv

from mindloop.bench import get_benchmark
from mindloop.bench.declaration import ReferencePolicy
from mindloop.bench.headline import reference_marks
from mindloop.bench.options import validate_options
from mindloop.bench.records import Sample
from mindloop.bench.references import best_constant_policy, choice_chance, policy_records
from mindloop.bench.registry import BENCHMARKS
from mindloop.bench.report import write_report
from mindloop.bench.store import RunStore
from mindloop.cli import main
from mindloop.paths import runs_path


@pytest.mark.parametrize("name", BENCHMARKS.names())
def test_every_benchmark_shows_its_reference_policies(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = get_benchmark(name)
    declared = {p.name: p for p in bench.spec.references}
    assert declared, f"{name} declares no reference policy"
    assert {p.kind for p in declared.values()} & {"chance", "constant", "trivial"}, "a floor beside the oracle"

    capsys.readouterr()
    main([*small_argv(name, tmp_path), "--json"])  # exit 1 is a run with failed samples (a scripted reply): still shown
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    values = out["references"]
    assert set(values) == set(declared)
    assert [p["name"] for p in out["reference_policies"]] == list(declared)
    for policy in out["reference_policies"]:
        value = values[policy["name"]]
        assert value is None or (isinstance(value, int | float) and math.isfinite(value)), (policy, value)
        assert value is not None or policy["none_reason"], f"{policy['name']}: None without a reason"
        assert policy["kind"] in ("chance", "constant", "trivial", "oracle") and policy["description"]
    assert not any(v in out["intervals"]["metrics"] for v in declared), "a reference value gets no interval"

    with RunStore(runs_path(create=False), readonly=True) as store:
        stored = store.stored_summary(out["run_id"])
        page = write_report(out["run_id"], store, tmp_path / "report.html").read_text(encoding="utf-8")
    assert stored is not None and stored["references"] == values
    assert stored["definitions"]["references"] == out["reference_policies"]
    # the run report draws the same marks beside its headline (reference_marks' labels, in the page's own format)
    higher = bench.spec.headline.higher_is_better if bench.spec.headline else True
    marks = reference_marks(values, out["reference_policies"], higher)
    refs = re.findall(r'class="refs"[^>]*>([^<]*)<', page)
    assert refs, "the report shows no reference marks"
    assert all(m.label in refs[0] for m in marks), (refs[0], marks)

    main(["bench", "run", name, "--resume", out["run_id"]])  # the stored run, printed again as text
    text = capsys.readouterr().out.splitlines()  # the summary on stdout: its title, then the headline line
    head = text[1]
    shown = [p for p in out["reference_policies"] if values[p["name"]] is not None]
    assert " is better · " in head and any(word in head for word in ("chance", "best trivial", "oracle")), head
    if shown:
        assert "no reference policies declared" not in head


# -- values worked out independently ------------------------------------------------------------------------------


def test_chance_is_the_mean_of_one_over_each_questions_choices() -> None:
    """Three questions with 2, 3 and 4 distinct choices (a duplicate counts once): (1/2 + 1/3 + 1/4) / 3; a
    question whose gold is not among its choices, or with none, is left out."""
    samples = [
        Sample("a", {}, target="x", choices=("x", "y")),
        Sample("b", {}, target="x", choices=("x", "y", "z", "z")),
        Sample("c", {}, target="w", choices=("x", "y", "z", "w")),
        Sample("d", {}, target="q", choices=("x", "y")),
        Sample("e", {}, target="q"),
    ]
    from mindloop.bench.declaration import chance_policy

    value = chance_policy(choice_chance()).value(samples)
    assert value == pytest.approx((1 / 2 + 1 / 3 + 1 / 4) / 3)


def test_best_constant_is_fitted_per_type_on_the_train_split() -> None:
    """Train: type t's gold is most often the first choice, type u's most often the text 'no'. On the evaluated
    items, that answers 2 of the 4 right (the second t item's gold is its second choice; the second u's is 'yes')."""
    train = [
        Sample("1", {}, "t", target="box", choices=("box", "bag")),
        Sample("2", {}, "t", target="jar", choices=("jar", "box")),
        Sample("3", {}, "u", target="no", choices=("yes", "no")),
        Sample("4", {}, "u", target="no", choices=("no", "yes")),
    ]
    evaluated = [
        Sample("a", {}, "t", target="cup", choices=("cup", "pan")),
        Sample("b", {}, "t", target="pan", choices=("cup", "pan")),
        Sample("c", {}, "u", target="no", choices=("yes", "no")),
        Sample("d", {}, "u", target="yes", choices=("yes", "no")),
    ]
    fitted = best_constant_policy(lambda: train)
    assert fitted.value(evaluated) == 0.5 and not fitted.optimistic and fitted.kind == "constant"
    optimistic = best_constant_policy()
    assert optimistic.optimistic and "optimistic" in optimistic.description
    # fitted on the evaluated items: type t's first choice (1 of 2), type u's 'yes' or 'no' (1 of 2)
    assert optimistic.value(evaluated) == 0.5


def test_tomi_chance_matches_the_hand_count_of_its_choices() -> None:
    bench = get_benchmark("tomi")
    samples = bench.samples(30, 3, validate_options(bench, {}))
    values = {p.name: p.value(samples) for p in bench.spec.references}
    hand = [1 / len(set(s.input["choices"])) for s in samples if s.input["answer"] in s.input["choices"]]
    assert values["chance"] == pytest.approx(sum(hand) / len(hand))
    assert values["oracle"] == 1.0
    assert 0.0 <= values["best constant"] <= 1.0


def _help_needed(samples: list[Sample]) -> list[Sample]:
    return [s for s in samples if s.input["gold"]["help_needed"]]


def test_claw_never_intervening_scores_zero_on_episodes_that_need_help() -> None:
    """The never agent intervenes nowhere: TA = PIA = 0 over the episodes that need help (the paper's never-
    intervening rows); its declared value agrees with running the agent."""
    bench = get_benchmark("claw")
    samples = bench.samples(4, 0, validate_options(bench, {}))
    assert _help_needed(samples), "the first test episodes include some that need help"
    refs = {p.name: p for p in bench.spec.references}
    assert refs["never intervene"].value(samples) == 0.0
    assert main(["bench", "run", "claw", "--agent", "never", "--n", "4", "--json"]) in (0, 1)


def test_claw_first_window_agrees_with_running_the_first_agent(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    main(["bench", "run", "claw", "--agent", "first", "--n", "3", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["references"]["first window"] == out["metrics"]["pia"]
    assert out["references"]["never intervene"] == 0.0


def test_cobel_no_communication_is_the_heuristic_team(capsys: pytest.CaptureFixture[str]) -> None:
    """The team that never talks: its declared value is the headline a heuristic team's run prints, with no
    message sent."""
    capsys.readouterr()
    main(["bench", "run", "cwah", "--agent", "heuristic", "--n", "1", "--opt", "max_steps=20", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["references"]["no communication"] == out["metrics"]["avg_steps"]
    assert out["metrics"]["messages"] == 0.0


def test_omnitom_stage2_chance_is_the_mean_over_dimensions_of_one_over_its_labels() -> None:
    """Label-set sizes 4, 3, 3, 2, 8, 7, 4 (App. A.2)."""
    bench = get_benchmark("omnitom-stage2")
    samples = bench.samples(2, 0, validate_options(bench, {}))
    refs = {p.name: p.value(samples) for p in bench.spec.references}
    assert refs["chance"] == pytest.approx((1 / 4 + 1 / 3 + 1 / 3 + 1 / 2 + 1 / 8 + 1 / 7 + 1 / 4) / 7)
    assert refs["oracle"] == 1.0


def test_omnitom_stage1_no_beliefs_scores_zero_and_the_gold_scores_one() -> None:
    bench = get_benchmark("omnitom-stage1")
    samples = bench.samples(2, 0, validate_options(bench, {}))
    refs = {p.name: p.value(samples) for p in bench.spec.references}
    assert refs["no beliefs"] == 0.0 and refs["oracle"] == 1.0


def test_tos_answering_from_the_true_scene_is_the_ceiling() -> None:
    bench = get_benchmark("tos-passive")
    samples = bench.samples(1, 0, validate_options(bench, {}))
    refs = {p.name: p.value(samples) for p in bench.spec.references}
    assert refs["oracle"] == 1.0
    assert refs["no exploration"] is not None and refs["no exploration"] < refs["oracle"]


def test_smoke_is_won_by_echoing_the_prompt() -> None:
    """smoke checks an endpoint, not a skill: replying with the prompt holds the word."""
    bench = get_benchmark("smoke")
    samples = bench.samples(5, 0, validate_options(bench, {}))
    refs = {p.name: p.value(samples) for p in bench.spec.references}
    assert refs == {"empty reply": 0.0, "echo the prompt": 1.0, "oracle": 1.0}


def test_a_policy_records_failed_outcomes_as_failed() -> None:
    from mindloop.bench.api import Outcome

    records = policy_records([Sample("a", {})], lambda s: Outcome({}, {"correct": 0.0}, error="no answer"))
    assert records[0].status == "failed" and records[0].error == "no answer"


def test_an_async_policy_runs_from_sync_code_and_inside_a_running_loop() -> None:
    from mindloop.bench.api import Outcome

    async def answer(sample: Sample) -> Outcome:
        await asyncio.sleep(0)
        return Outcome({"id": sample.id}, {"correct": 1.0})

    async def inside_a_loop() -> list[Any]:  # as a benchmark's own async code would call it
        return policy_records(samples, answer)

    samples = [Sample("a", {}), Sample("b", {})]
    for records in (policy_records(samples, answer), asyncio.run(inside_a_loop())):
        assert [(r.status, r.output) for r in records] == [("done", {"id": "a"}), ("done", {"id": "b"})]


def test_a_policy_value_of_none_must_say_why() -> None:
    policy = ReferencePolicy("x", "never known", lambda s: None, none_reason="it never knows")
    assert policy.to_json()["none_reason"] == "it never knows"

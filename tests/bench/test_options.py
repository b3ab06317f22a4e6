"""Typed benchmark options and per-benchmark agents: ``--opt K=V`` validated into each benchmark's Options model,
one clear line for every bad option, the schema in ``bench list --json`` and ``--help-options``, and teams checked
before a run is recorded."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Literal

import pytest
from pydantic import Field, ValidationError

from mindloop.bench import BENCHMARKS, get_benchmark
from mindloop.bench.agents import dispatch, model_agents, run_sample, team_size
from mindloop.bench.api import AgentContext, Options, Sample
from mindloop.bench.options import check, describe_options, format_options_help, parse_opt_pairs, validate_options
from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.cli import main
from mindloop.errors import InvalidArgumentError
from mindloop.paths import runs_path

ALL = BENCHMARKS.names()


class Demo(Options):
    """A stand-alone model, so the validator is tested apart from any benchmark."""

    size: int = Field(2, ge=2, le=4, description="agents per team")
    mode: Literal["text", "vision"] = "text"
    level: Literal[3, 4] = 3
    ratio: float = Field(0.5, ge=0.0, le=1.0)
    flag: bool = True
    path: str | None = None


def _error(raw: dict[str, str], model: type[Options] = Demo) -> str:
    with pytest.raises(InvalidArgumentError) as info:
        check("demo", model, raw)
    return str(info.value)


# -- the validator ----------------------------------------------------------------------------------------------


def test_strings_become_typed_values() -> None:
    opts = check("demo", Demo, {"size": "3", "mode": "vision", "level": "4", "ratio": "0.25", "flag": "off"})
    assert (opts.size, opts.mode, opts.level, opts.ratio, opts.flag, opts.path) == (3, "vision", 4, 0.25, False, None)
    assert isinstance(opts.level, int) and isinstance(opts.size, int)
    assert check("demo", Demo, {}) == Demo()
    assert check("demo", Demo, {"flag": "yes", "path": "x.txt"}).model_dump() == {
        **Demo().model_dump(),
        "path": "x.txt",
    }


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"size": "5"}, "benchmark 'demo': option size='5' is invalid: expected an integer from 2 to 4"),
        ({"size": "1"}, "benchmark 'demo': option size='1' is invalid: expected an integer from 2 to 4"),
        ({"size": "two"}, "benchmark 'demo': option size='two' is invalid: expected an integer from 2 to 4"),
        ({"mode": "audio"}, "benchmark 'demo': option mode='audio' is invalid: expected one of: text, vision"),
        ({"level": "5"}, "benchmark 'demo': option level='5' is invalid: expected one of: 3, 4"),
        ({"ratio": "1.5"}, "benchmark 'demo': option ratio='1.5' is invalid: expected a number from 0.0 to 1.0"),
        ({"ratio": "half"}, "benchmark 'demo': option ratio='half' is invalid: expected a number from 0.0 to 1.0"),
        (
            {"flag": "maybe"},
            "benchmark 'demo': option flag='maybe' is invalid: expected true or false (also 1/0, yes/no, on/off)",
        ),
    ],
)
def test_bad_values_are_one_line_naming_key_value_and_expectation(raw: dict[str, str], expected: str) -> None:
    message = _error(raw)
    assert message == expected
    assert "\n" not in message and "Input should" not in message and "pydantic" not in message


def test_several_bad_values_still_give_one_line() -> None:
    message = _error({"size": "9", "mode": "audio"})
    assert message == (
        "benchmark 'demo': option size='9' is invalid: expected an integer from 2 to 4 (and 1 more problem)"
    )


def test_unknown_keys_suggest_the_closest_and_name_the_known_ones() -> None:
    assert _error({"sise": "3"}) == (
        "benchmark 'demo' has no option 'sise'; did you mean 'size'? (options: size, mode, level, ratio, flag, path)"
    )
    assert _error({"colour": "red"}) == (
        "benchmark 'demo' has no option 'colour' (options: size, mode, level, ratio, flag, path)"
    )
    assert _error({"data": "x"}, Options) == "benchmark 'demo' takes no options, got 'data'"


def test_repeated_and_malformed_pairs() -> None:
    assert parse_opt_pairs("tomi", ["a=1", "b=x=y", " c =3"], "f.txt") == {
        "a": "1",
        "b": "x=y",
        "c": "3",
        "data": "f.txt",
    }
    with pytest.raises(InvalidArgumentError) as info:
        parse_opt_pairs("tomi", ["a=1", "b=2", "a=1"])
    assert str(info.value) == "benchmark 'tomi': option 'a' is given twice ('--opt a=1' and '--opt a=1'); give it once"
    with pytest.raises(InvalidArgumentError, match="option 'data' is given twice \\('--opt data=a' and '--data b'\\)"):
        parse_opt_pairs("tomi", ["data=a"], "b")
    for bad in ("oops", "=3"):
        with pytest.raises(InvalidArgumentError, match="expects KEY=VALUE"):
            parse_opt_pairs("tomi", [bad])


def test_options_are_frozen() -> None:
    opts = Demo()
    with pytest.raises(ValidationError):
        opts.size = 3  # type: ignore[misc]


def test_describe_lists_type_default_allowed_and_description() -> None:
    rows = {r.name: r for r in describe_options(Demo)}
    assert list(rows) == ["size", "mode", "level", "ratio", "flag", "path"]
    assert (rows["size"].type, rows["size"].default, rows["size"].allowed) == ("integer", 2, "from 2 to 4")
    assert rows["size"].description == "agents per team"
    assert (rows["mode"].type, rows["mode"].allowed) == ("choice", "text | vision")
    assert (rows["flag"].type, rows["path"].type, rows["path"].default) == ("boolean", "text", None)


# -- the real benchmarks ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_every_benchmark_declares_options_and_agents(name: str) -> None:
    bench = get_benchmark(name)
    assert issubclass(bench.options_model, Options)
    assert bench.options_model.model_config.get("extra") == "forbid" and bench.options_model.model_config.get("frozen")
    assert validate_options(bench, {}) == bench.options_model()  # every option has a default
    assert bench.agents and all(spec.description for spec in bench.agents.values())
    assert format_options_help(bench).startswith(("options of benchmark", "benchmark"))


def test_benchmark_options_keep_their_names_defaults_and_meanings() -> None:
    from mindloop.systems.cobel.episode import AGENT_KINDS
    from mindloop.systems.mindclaw.agents import AGENTS
    from mindloop.systems.mindpower.hierarchy import SETTINGS
    from mindloop.systems.tos.world import TASKS

    cwah = validate_options(get_benchmark("cwah"), {"n_agents": "3"})
    assert cwah.model_dump() == {"n_agents": 3, "max_steps": None} and team_size(get_benchmark("cwah"), cwah) == 3
    assert list(get_benchmark("cwah").agents) == list(AGENT_KINDS)
    assert list(get_benchmark("claw").agents) == list(AGENTS)
    mp = get_benchmark("mindpower").options_model
    assert [r.allowed for r in describe_options(mp) if r.name == "setting"] == [" | ".join(SETTINGS)]
    assert mp().model_dump() == {
        "data": None,
        "split": "test",
        "dataset_n": 590,
        "setting": "hierarchy",
        "input": "text",
        "frames": 32,
        "judge": None,
        "judge_base_url": None,
        "judge_api_key_env": "OPENAI_API_KEY",
        "judge_timeout": None,
        "similarity": "auto",
        "rescale": "off",
        "rescale_pairs": 200,
        "controls": "exclude",
    }
    tos = get_benchmark("tos-active")
    opts = validate_options(tos, {"tasks": "direction, ment.rot", "false_belief": "0", "rooms": "2"})
    assert (opts.tasks, opts.false_belief, opts.rooms) == (("direction", "ment.rot"), False, 2)  # type: ignore[attr-defined]
    assert tos.options_model().tasks == TASKS  # type: ignore[attr-defined]
    s1 = validate_options(get_benchmark("omnitom-stage1"), {"level": "4", "threshold": "0.7", "aligner": "exact"})
    assert s1.model_dump() == {"data": None, "level": 4, "protocol": "release", "split": None, "aligner": "exact",
                               "threshold": 0.7, "judge": None, "judge_base_url": None,
                               "judge_api_key_env": "OPENAI_API_KEY", "judge_timeout": None}  # fmt: skip


def test_data_flag_is_the_data_option_of_benchmarks_that_read_files(tmp_path: Path) -> None:
    story = tmp_path / "story.txt"
    story.write_text(
        "1 Mia entered the hallway.\n2 Noah entered the hallway.\n3 The apple is in the box.\n"
        "4 Mia exited the hallway.\n5 Noah moved the apple to the basket.\n"
        "6 Where will Mia look for the apple?\tbox\t1\n",
        encoding="utf-8",
    )
    bench = get_benchmark("tomi")
    samples = bench.samples(None, 0, validate_options(bench, parse_opt_pairs("tomi", [], str(story))))
    assert [s.input["answer"] for s in samples] == ["box"]


# -- the command line -------------------------------------------------------------------------------------------


def _stored_runs() -> tuple[int, int]:
    """Rows in the run store's runs and samples tables (0, 0 when nothing was ever recorded)."""
    path = runs_path()
    if not path.exists():
        return 0, 0
    with sqlite3.connect(path) as db:
        return tuple(db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("runs", "samples"))  # type: ignore[return-value]


def test_bench_list_json_has_each_option_schema_with_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "list", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    by_name = {b["name"]: b for b in json.loads(out)["benchmarks"]}
    assert set(by_name) == set(ALL)
    n_agents = by_name["cwah"]["options"]["properties"]["n_agents"]
    assert (n_agents["type"], n_agents["default"], n_agents["minimum"], n_agents["maximum"]) == ("integer", 2, 2, 4)
    setting = by_name["mindpower"]["options"]["properties"]["setting"]
    assert setting["default"] == "hierarchy" and setting["enum"] == ["hierarchy", "decision", "think"]
    assert by_name["tomi"]["options"]["properties"]["data"]["default"] is None
    assert by_name["smoke"]["options"]["properties"] == {}
    assert all(b["options"]["additionalProperties"] is False for b in by_name.values())
    # agents: the names as before, and each spec with whether it needs a model and plays in a team
    assert by_name["hitom"]["agents"] == ["symbolic", "model"]
    specs = {a["name"]: a for a in by_name["tomi"]["agent_specs"]}
    assert (specs["symbolic"]["needs_model"], specs["model"]["needs_model"]) == (False, True)
    assert not specs["symbolic"]["team"] and all(a["team"] for a in by_name["cwah"]["agent_specs"])
    assert [a["name"] for a in by_name["cwah"]["agent_specs"] if a["needs_model"]] == [
        "cobel-llm",
        "cobel-llm-no-sbr",
        "cobel-llm-no-bbc",
        "coela-llm",
        "capo-llm",
    ]


def test_help_options_prints_the_options_and_runs_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "run", "cwah", "--help-options"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "options of benchmark 'cwah' (--opt KEY=VALUE):",
        "  n_agents (integer, default 2; allowed: from 2 to 4)",
        "      agents per team (every episode is played by this many)",
        "  max_steps (integer, default none; allowed: >= 1)",
        "      stop each episode after this many environment steps, for a short run with a slow model (default: the "
        "paper's limit, 250 C-WAH steps or 3,000 TDW-MAT frames); a shorter run names the deviation in its summary",
    ]
    assert main(["bench", "run", "mindpower", "--help-options"]) == 0
    out = capsys.readouterr().out
    assert "  setting (choice, default hierarchy; allowed: hierarchy | decision | think)" in out.splitlines()
    assert "  judge (text, default none)" in out.splitlines()
    assert main(["bench", "run", "smoke", "--help-options"]) == 0
    assert capsys.readouterr().out == "benchmark 'smoke' takes no options\n"
    assert main(["bench", "run", "tos-active", "--help-options", "--json"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["benchmark"] == "tos-active" and schema["options"]["properties"]["max_steps"]["default"] == 20
    assert _stored_runs() == (0, 0)


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["bench", "run", "cwah", "--opt", "n_agents=5"],
            "mindloop: error: benchmark 'cwah': option n_agents='5' is invalid: expected an integer from 2 to 4",
        ),
        (
            ["bench", "run", "tos-active", "--opt", "room=2"],
            "mindloop: error: benchmark 'tos-active' has no option 'room'; did you mean 'rooms'? (options: rooms, "
            "objects, per_task, scenes, data, mode, false_belief, proxy, probes, max_steps, budget, prompt, "
            "history_turns, context_tokens, tasks)",
        ),
        (
            ["bench", "run", "tomi", "--opt", "data=a.txt", "--opt", "data=b.txt"],
            "mindloop: error: benchmark 'tomi': option 'data' is given twice ('--opt data=a.txt' and "
            "'--opt data=b.txt'); give it once",
        ),
        (
            ["bench", "run", "tomi", "--agents", "symbolic,symbolic"],
            "mindloop: error: benchmark 'tomi' runs one agent at a time, not a team of 2 (symbolic,symbolic); agent "
            "'symbolic' plays alone: pass a single --agent",
        ),
        (
            ["bench", "run", "cwah", "--agents", "cobel,heuristic,coela"],
            "mindloop: error: benchmark 'cwah' plays teams of 2 agents (--opt n_agents=2), but --agents "
            "'cobel,heuristic,coela' names 3: name 2 agents, or one to fill the team, or change the team size",
        ),
        (
            ["bench", "run", "tdw-mat", "--agents", "cobel,cobel", "--opt", "n_agents=3"],
            "mindloop: error: benchmark 'tdw-mat' plays teams of 3 agents (--opt n_agents=3), but --agents "
            "'cobel,cobel' names 2: name 3 agents, or one to fill the team, or change the team size",
        ),
        (
            ["bench", "run", "tomi", "--agent", "symbolc"],
            "mindloop: error: benchmark 'tomi' has no agent 'symbolc'; did you mean 'symbolic'? (agents: symbolic, "
            "model)",
        ),
    ],
)
def test_refused_before_the_run_starts(capsys: pytest.CaptureFixture[str], argv: list[str], line: str) -> None:
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.splitlines() == [line]
    assert _stored_runs() == (0, 0)  # no run row, no sample row


def test_a_team_of_the_size_set_by_n_agents_runs(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        one = run_benchmark(RunRequest("cwah", agent="heuristic", n=1), store=store, progress=False)
        three = run_benchmark(
            RunRequest("cwah", agent="heuristic,heuristic,heuristic", n=1, options={"n_agents": "3"}),
            store=store,
            progress=False,
        )
        assert (one.n_completed, three.n_completed, three.n_failed) == (1, 1, 0)
        [record] = store.records(three.run_id)
        assert record.sample.input["n_agents"] == 3


def test_the_store_keeps_options_as_given_and_a_resume_validates_them_again(tmp_path: Path) -> None:
    bench = get_benchmark("tos-active")
    given = {"per_task": "1", "tasks": "direction,ment.rot", "false_belief": "no"}
    with RunStore(tmp_path / "runs.sqlite") as store:
        first = run_benchmark(RunRequest("tos-active", n=1, options=given), store=store, progress=False)
        stored = store.run(first.run_id).config["options"]
        assert stored == given
        assert validate_options(bench, stored) == validate_options(bench, given)
        resumed = run_benchmark(RunRequest("tos-active"), store=store, resume=first.run_id, progress=False)
        assert resumed.metrics == first.metrics
        [record] = store.records(first.run_id)
        assert record.sample.input["false_belief"] is False
        assert [q["task"] for q in record.sample.input["questions"]] == ["direction", "ment.rot"]


# -- dispatch ---------------------------------------------------------------------------------------------------


def test_dispatch_goes_through_the_declared_agents() -> None:
    bench = get_benchmark("smoke")
    assert model_agents(bench) == ["model"]
    sample = Sample("s0", {"word": "apple-0001"})
    with pytest.raises(InvalidArgumentError, match="agent 'model' of benchmark 'smoke' needs a model"):
        asyncio.run(dispatch(bench, sample, AgentContext("model")))
    with pytest.raises(InvalidArgumentError, match="has no agent 'oracle'"):
        asyncio.run(dispatch(bench, sample, AgentContext("oracle")))
    tomi = get_benchmark("tomi")
    [question] = tomi.samples(1, 0, tomi.options_model())
    outcome = asyncio.run(run_sample(tomi, question, AgentContext("symbolic")))
    assert outcome.output["answer"] == question.input["answer"] and outcome.scores["correct"] == 1.0

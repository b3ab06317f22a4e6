from __future__ import annotations

import importlib.metadata
import json

import pytest

from mindloop.errors import MindloopError, RegistryError, UnknownNameError
from mindloop.registry import Registry


def test_lazy_targets_import_on_first_use() -> None:
    r: Registry[object] = Registry("benchmark")
    r.register("sqrt", "math:sqrt", description="square root")
    import math

    assert r.get("sqrt") is math.sqrt
    assert r.describe("sqrt") == "square root"
    assert "sqrt" in r and list(r) == ["sqrt"] and len(r) == 1


def test_collisions_are_errors() -> None:
    r: Registry[object] = Registry("agent")
    r.register("symbolic", object())
    with pytest.raises(RegistryError, match="agent 'symbolic' is already registered"):
        r.register("symbolic", object())


def test_unknown_names_suggest_close_matches() -> None:
    r: Registry[object] = Registry("env")
    for name in ("household", "transport", "spatial"):
        r.register(name, object())
    with pytest.raises(UnknownNameError) as info:
        r.get("houshold")
    assert str(info.value) == "unknown env 'houshold'; did you mean 'household'? (known: household, spatial, transport)"
    assert isinstance(info.value, MindloopError) and isinstance(info.value, KeyError)


@pytest.mark.parametrize(
    ("target", "needle"),
    [
        ("math", "must look like 'module:attr'"),
        ("no_such_module_xyz:thing", "cannot import"),
        ("math:no_such_attr", "has no attribute"),
    ],
)
def test_bad_targets(target: str, needle: str) -> None:
    r: Registry[object] = Registry("metric")
    with pytest.raises(RegistryError, match=needle):
        r.register("m", target)
        r.get("m")


def test_entry_point_groups_are_read_lazily_and_explicit_names_win() -> None:
    r: Registry[object] = Registry("benchmark", entry_point_group="mindloop.benchmarks")
    r.register("tomi", len)  # registered before the first lookup: it shadows the installed entry point
    assert r.get("tomi") is len
    names = r.names()
    # mindloop's own pyproject declares these; each system registers its own
    for name in ("hitom", "mindpower", "claw", "omnitom-stage1", "cwah", "tdw-mat", "tos-active", "smoke"):
        assert name in names
    assert r.get("hitom").__name__ == "HiToMBenchmark"
    assert "from mindloop" in r.describe("hitom")


def test_a_name_of_mindloop_is_found_in_its_own_entry_points_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    everyone: list[str] = []

    def entry_points(group: str) -> list[importlib.metadata.EntryPoint]:
        everyone.append(group)
        return [importlib.metadata.EntryPoint("quiz", "json:dumps", group)]  # another package's

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    r: Registry[object] = Registry("benchmark", entry_point_group="mindloop.benchmarks", distribution="mindloop")
    assert "hitom" in r and r.get("hitom").__name__ == "HiToMBenchmark" and r.describe("smoke") == "from mindloop"
    assert everyone == []  # mindloop's own entry points alone were read
    assert r.get("quiz") is json.dumps and everyone == ["mindloop.benchmarks"]
    assert "quiz" in r.names() and "tomi" in r.names() and everyone == ["mindloop.benchmarks"]  # read once


def test_a_group_nobody_declares_is_empty() -> None:
    r: Registry[object] = Registry("widget", entry_point_group="mindloop.no-such-group")
    assert r.names() == [] and len(r) == 0
    with pytest.raises(UnknownNameError, match="none registered"):
        r.get("x")


def test_a_system_slug_names_a_benchmark_whose_historical_name_differs(tmp_path, monkeypatch, capsys) -> None:
    import json

    from mindloop.bench.registry import canonical_name, get_benchmark
    from mindloop.cli import main

    assert [canonical_name(a) for a in ("mindclaw", "cobel-cwah", "cobel-tdw-mat", "claw")] == [
        "claw",
        "cwah",
        "tdw-mat",
        "claw",
    ]
    assert get_benchmark("cobel-cwah").name == "cwah"
    with pytest.raises(UnknownNameError, match="did you mean 'cwah'"):
        canonical_name("cwha")
    monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path))
    assert main(["bench", "run", "cobel-cwah", "--agents", "heuristic", "--n", "1", "--json"]) == 0
    run = json.loads(capsys.readouterr().out)
    assert run["benchmark"] == "cwah"  # stored and reported under its one name
    assert main(["bench", "run", "cobel-cwah", "--resume", run["run_id"], "--json"]) == 0  # the alias resumes it
    capsys.readouterr()
    assert main(["bench", "list", "--json"]) == 0
    listed = {b["name"]: b for b in json.loads(capsys.readouterr().out)["benchmarks"]}
    assert listed["claw"]["aliases"] == ["mindclaw"] and "mindclaw" not in listed

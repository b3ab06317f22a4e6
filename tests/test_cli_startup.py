"""What the command line imports before it runs a command: the systems' command groups load only when used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.core import TyperGroup

import mindloop.cli as cli
from mindloop.cli import COMMAND_GROUPS, OWN_HELP, main
from mindloop.systems import COMMAND_HELP

# Modules only the research systems and their worlds need; `mindloop bench run smoke` needs none of them.
_SYSTEMS = ("gymnasium", "pettingzoo", "mindloop.worlds.household", "mindloop.systems.mindclaw", "mindloop.systems.tos")


def _loaded_after(code: str, home: Path, names: tuple[str, ...] = _SYSTEMS) -> list[str]:
    """The modules of ``names`` loaded once ``code`` has run in a fresh interpreter."""
    probe = f"import sys\n{code}\nprint(sorted(m for m in {names!r} if m in sys.modules))"
    env = {**os.environ, "MINDLOOP_HOME": str(home)}
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1].replace("'", '"'))


@pytest.mark.boundary  # a fresh interpreter's modules
def test_importing_the_command_line_loads_no_system(tmp_path: Path) -> None:
    assert _loaded_after("import mindloop.cli", tmp_path) == []


@pytest.mark.boundary  # a fresh interpreter's modules
def test_a_bench_run_loads_no_system_it_does_not_run(tmp_path: Path) -> None:
    code = (
        "from mindloop.cli import main\n"
        "assert main(['bench', 'run', 'smoke', '--model', 'scripted/echo', '--n', '3', '--json']) == 0"
    )
    assert _loaded_after(code, tmp_path) == []


@pytest.mark.boundary  # a fresh interpreter's modules
def test_a_scripted_run_loads_no_http_client_and_no_scipy_stats(tmp_path: Path) -> None:
    # httpx (with the rich/pygments CLI it imports) serves only HTTP models; scipy.stats (the exact intervals'
    # Beta quantiles and the standard errors) costs about a second: a one-sample run needs neither (its interval is
    # an all-right/all-wrong closed form)
    code = (
        "from mindloop.cli import main\n"
        "assert main(['bench', 'run', 'smoke', '--model', 'scripted/echo', '--n', '1', '--json']) == 0"
    )
    assert _loaded_after(code, tmp_path, ("httpx", "scipy.stats", "scipy.special", "mindloop.beliefs")) == []


@pytest.mark.boundary
def test_help_loads_no_system_and_a_one_sample_run_no_numpy(tmp_path: Path) -> None:
    assert _loaded_after("from mindloop.cli import main\nassert main(['--help']) == 0", tmp_path) == []
    code = "from mindloop.cli import main\nassert main(['bench', 'run', 'smoke', '--model', 'scripted/echo']) == 0"
    assert _loaded_after(code.replace("])", ", '--n', '1'])"), tmp_path, ("numpy",)) == []  # exact intervals only


@pytest.mark.boundary
def test_a_built_in_name_reads_no_entry_points(tmp_path: Path) -> None:
    code = (
        "from mindloop.cli import COMMAND_GROUPS, main\n"
        "from mindloop.bench.registry import BENCHMARKS\n"
        "assert main(['bench', 'run', 'smoke', '--model', 'scripted/echo', '--n', '1']) == 0\n"
        "assert main(['mindpower', '--help']) == 0\n"
        "assert not BENCHMARKS._scanned and not COMMAND_GROUPS._scanned\n"
    )
    _loaded_after(code, tmp_path)  # its assertions run in the child, which must exit 0


def test_help_lists_each_built_in_group_as_the_group_itself_would(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = OWN_HELP | COMMAND_HELP
    assert sorted(tables) == COMMAND_GROUPS.names()  # every group of mindloop's own entry points
    for name, help_text in tables.items():  # the table's help is the group's own; None marks a second name
        group = COMMAND_GROUPS.get(name)
        assert help_text == (group.info.help if group.info.name == name else None)
    assert main(["--help"]) == 0
    from_table = capsys.readouterr().out
    monkeypatch.setattr(cli._LazyGroups, "format_commands", TyperGroup.format_commands)  # every group loaded
    assert main(["--help"]) == 0
    assert capsys.readouterr().out == from_table


@pytest.mark.boundary  # a fresh interpreter's modules
def test_a_group_loads_when_its_command_runs(tmp_path: Path) -> None:
    code = "from mindloop.cli import main\nassert main(['mindclaw', '--help']) == 0"
    assert "mindloop.systems.mindclaw" in _loaded_after(code, tmp_path)


def test_help_lists_every_group_and_hides_the_aliases(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    listed = {line.split()[0] for line in capsys.readouterr().out.split("Commands:")[1].splitlines() if line.strip()}
    aliases = {"claw", "space"}  # second names of mindclaw and tos (pyproject.toml)
    assert aliases <= set(COMMAND_GROUPS.names())
    assert {"bench", "runs", "data", "compare"} <= set(COMMAND_GROUPS.names())  # the core's groups mount one way
    assert listed == {"report", "demo"} | (set(COMMAND_GROUPS.names()) - aliases)


def test_an_alias_runs_its_group(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["space", "--help"]) == 0
    alias = capsys.readouterr().out
    assert main(["tos", "--help"]) == 0
    group = capsys.readouterr().out
    assert "Alias of 'mindloop tos'." in alias  # its own help says what it is; its commands are the group's
    assert alias.split("Commands:")[1] == group.split("Commands:")[1]


def test_a_mistyped_group_is_suggested_before_it_is_loaded(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tomm"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mindloop: error: no such command 'tomm'") and "Did you mean 'tom'" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.boundary  # a fresh interpreter's modules
@pytest.mark.parametrize("name", ["mindpower", "claw"])
def test_a_household_benchmark_loads_without_gymnasium_or_numpy(tmp_path: Path, name: str) -> None:
    # Gymnasium and NumPy are a quarter of a second of imports: the household world and its scenarios need neither
    # (only its Gymnasium environment does), so `bench run mindpower` prints its first line without them
    code = f"from mindloop.bench.registry import get_benchmark\nget_benchmark({name!r})"
    heavy = ("gymnasium", "numpy", "torch", "transformers", "nltk")  # the encoder and ROUGE load where they score
    made = f"\nfrom mindloop.bench.options import validate_options\nb = get_benchmark({name!r})"
    made += "\nb.samples(3, 0, validate_options(b, {}))"
    assert _loaded_after(code + made, tmp_path, heavy) == []
    code += "\nfrom mindloop.worlds.household import ENV_ID\nimport gymnasium\ngymnasium.make(ENV_ID).reset(seed=0)"
    assert _loaded_after(code, tmp_path, ("gymnasium", "numpy")) == ["gymnasium", "numpy"]


@pytest.mark.boundary  # a fresh interpreter's modules
def test_the_mindclaw_package_imports_a_name_where_it_is_used(tmp_path: Path) -> None:
    runtime = ("mindloop.systems.mindclaw.engine", "mindloop.systems.mindclaw.agents")
    code = "from mindloop.systems.mindclaw import ClawEngine, build_engine\nassert ClawEngine.__name__ == 'Engine'"
    assert _loaded_after(code, tmp_path, runtime) == sorted(runtime)


_LAZY_PACKAGES = (
    "mindloop",
    "mindloop.models",
    "mindloop.worlds.household",
    "mindloop.worlds.household.scenarios",
    "mindloop.systems.mindpower",
    "mindloop.systems.mindclaw",
)


@pytest.mark.boundary  # a fresh interpreter's modules
@pytest.mark.parametrize("package", _LAZY_PACKAGES)
def test_a_lazy_package_gives_every_public_name_and_refuses_others(package: str) -> None:
    # in a fresh interpreter, so the names really come through the package's __getattr__ (mindloop.lazy)
    code = (
        f"import importlib\nm = importlib.import_module({package!r})\n"
        "missing = [n for n in m.__all__ if getattr(m, n, None) is None]\nassert not missing, missing\n"
        "try:\n    m.not_a_name\nexcept AttributeError as e:\n    assert 'not_a_name' in str(e)\n"
        "else:\n    raise SystemExit('no AttributeError')"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


@pytest.mark.boundary  # a fresh interpreter's modules
@pytest.mark.parametrize(
    ("name", "runtime"),
    [
        ("claw", ("mindloop.systems.mindclaw.engine", "mindloop.systems.mindclaw.agents")),
        ("mindpower", ("mindloop.systems.mindpower.agents", "mindloop.worlds.household.scenarios.dataset")),
    ],
)
def test_a_household_declaration_loads_without_the_world(tmp_path: Path, name: str, runtime: tuple[str, ...]) -> None:
    # `bench run` reads the declaration before its first line: it needs neither the simulator nor the scenarios
    # nor the system's runtime, which load when samples are made
    runtime = (*runtime, "mindloop.worlds.household.world")
    code = f"from mindloop.bench.registry import get_benchmark\nget_benchmark({name!r})"
    assert _loaded_after(code, tmp_path, runtime) == []
    code += f"\nget_benchmark({name!r}).samples(1, 0, get_benchmark({name!r}).options_model())"
    assert "mindloop.worlds.household.world" in _loaded_after(code, tmp_path, runtime)

"""``bench run`` and ``suite run`` take one declaration of the model and run options (cli/run_options.py): the same
names, ranges, defaults and help in both, one ModelOptions builder, and no Python type names in their help."""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
from pathlib import Path

import pytest

from mindloop.bench.store import RunStore
from mindloop.cli import main
from mindloop.cli.bench import bench_run
from mindloop.cli.run_options import Cache, RunOptions
from mindloop.cli.suite import suite_run
from mindloop.errors import InvalidArgumentError
from mindloop.models.base import ModelOptions

_SHARED = {
    "--model",
    "--base-url",
    "--api-key-env",
    "--seed",
    "--concurrency",
    "--executor",
    "--ray-address",
    "--breaker",
    "--temperature",
    "--max-tokens",
    "--timeout",
    "--retries",
    "--format-retries",
    "--cache",
    "--model-opt",
    "--progress-every",
    "--output-dir",
    "--tag",
}


def _help(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *command: str) -> dict[str, str]:
    """Each option's help entry (its flag line and the wrapped help under it, whitespace collapsed)."""
    monkeypatch.setenv("COLUMNS", "100")
    assert main([*command, "--help"]) == 0
    out = capsys.readouterr().out
    entries: dict[str, str] = {}
    flag = None
    for line in out.split("Options:", 1)[1].splitlines():
        m = re.match(r"^  (--[a-z-]+)", line)
        if m:
            flag = m.group(1)
            entries[flag] = line.strip()
        elif flag is not None and line.strip():
            entries[flag] += " " + line.strip()
    return {k: " ".join(v.split()) for k, v in entries.items()}


def test_both_commands_show_the_shared_options_alike(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = _help(capsys, monkeypatch, "bench", "run")
    suite = _help(capsys, monkeypatch, "suite", "run")
    assert set(bench) >= _SHARED and set(suite) >= _SHARED
    assert {f: bench[f] for f in _SHARED} == {f: suite[f] for f in _SHARED}
    # each field of the declaration is one of those options, and nothing else is shared by accident
    assert len(dataclasses.fields(RunOptions)) == len(_SHARED)
    for line in (*bench.values(), *suite.values()):  # a metavar, the choices or nothing: never a Python type
        assert not re.search(r"<(?:str|int|float|bool|list|path|file)\b", line), line


def test_the_run_commands_stay_short() -> None:
    for command in (bench_run, suite_run):
        lines, _ = inspect.getsourcelines(inspect.unwrap(command))
        assert len(lines) < 80, f"{command.__name__} is {len(lines)} lines"


def test_run_options_build_the_model_options_once() -> None:
    run = RunOptions(
        models=["llamacpp/m.gguf"],
        base_url="http://127.0.0.1:9/v1",
        api_key_env="KEY",
        concurrency=3,
        timeout=7.5,
        retries=2,
        cache=Cache.off,
        model_opt=["n_ctx=2048"],
    )
    assert run.model_options() == ModelOptions(
        base_url="http://127.0.0.1:9/v1",
        api_key_env="KEY",
        concurrency=3,
        timeout_s=7.5,
        max_retries=2,
        cache="off",
        extra={"n_ctx": 2048},
    )
    with pytest.raises(InvalidArgumentError):
        RunOptions(models=["openai/m"], model_opt=["no_such_option=1"]).model_options()


def test_the_shared_options_reach_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path))
    assert main(["bench", "run", "smoke", "--model", "scripted/echo", "--n", "2", "--concurrency", "1", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["benchmark"], summary["model"], summary["n"]) == ("smoke", "scripted/echo", 2)
    with RunStore(tmp_path / "runs.sqlite", readonly=True) as store:
        (info,) = store.runs()
    assert info.config["concurrency"] == 1  # the shared --concurrency, as the run recorded it

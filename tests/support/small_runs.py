"""Each registered benchmark's small run, from its declaration's ``small`` (so a new benchmark is tested by
registering it): the ``bench run`` arguments, or the options and agent for :class:`~mindloop.bench.RunRequest`.

A benchmark that reads a released file names its test excerpt (``SmallRun.data``); it is found by name under
``tests/*/data/`` here, so the package never holds a path into the tests.
"""

from __future__ import annotations

from pathlib import Path

from mindloop.bench.declaration import SmallRun
from mindloop.bench.registry import get_benchmark

TESTS = Path(__file__).resolve().parents[1]


def small_run(name: str) -> SmallRun:
    """The declared small run of benchmark ``name``."""
    return get_benchmark(name).spec.small


def excerpt(data: str) -> Path:
    """The test excerpt named ``data``: the one file or folder of that name under ``tests/*/data/``."""
    found = sorted(TESTS.glob(f"*/data/{data}"))
    if len(found) != 1:
        raise LookupError(f"test excerpt {data!r}: expected one under tests/*/data/, found {found}")
    return found[0]


def small_options(name: str) -> dict[str, str]:
    """The small run's ``--opt`` options, with ``data`` set to its excerpt's path."""
    ex = small_run(name)
    options = dict(ex.options)
    if ex.data is not None:
        options["data"] = str(excerpt(ex.data))
    return options


def small_model(name: str, folder: Path) -> str | None:
    """The small run's model: its scripted model, or a scripted one that always sends its ``reply`` (a file written
    in ``folder``); ``None``: it needs none."""
    ex = small_run(name)
    if ex.reply is None:
        return ex.model
    path = folder / f"{name}-reply.txt"
    path.write_text(ex.reply, encoding="utf-8")
    return f"scripted/{path}"


def small_argv(name: str, folder: Path) -> list[str]:
    """``bench run`` arguments for the small run of ``name`` (a reply file, if any, is written in ``folder``)."""
    ex = small_run(name)
    argv = ["bench", "run", name]
    if ex.n is not None:
        argv += ["--n", str(ex.n)]
    if ex.agent is not None:
        argv += ["--agent", ex.agent]
    model = small_model(name, folder)
    if model is not None:
        argv += ["--model", model]
    for key, value in small_options(name).items():
        argv += ["--opt", f"{key}={value}"]
    return argv

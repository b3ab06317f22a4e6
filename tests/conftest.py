"""Shared test fixtures: the Hi-ToM split shipped in the package, ToMBench from ``../shared/data`` beside the
repository, and a private MINDLOOP_HOME per test."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def hitom_dev() -> Path:
    """The Hi-ToM development split in the numbered-line format (the copy shipped inside the package)."""
    from mindloop.systems.tom.benchmarks import bundled_hitom_path

    return bundled_hitom_path()


@pytest.fixture(scope="session")
def tombench_dir() -> Path:
    """The seven ToMBench category files OmniToM uses (external data beside the repository)."""
    path = SHARED_DATA / "tombench"
    if not (path / "False Belief Task.jsonl").exists():
        pytest.skip(f"external data not found at {path}")
    return path


@pytest.fixture(autouse=True)
def _mindloop_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own MINDLOOP_HOME, so run stores and caches never leak between tests or into ~."""
    home = tmp_path_factory.mktemp("mindloop-home")
    monkeypatch.setenv("MINDLOOP_HOME", str(home))
    return home

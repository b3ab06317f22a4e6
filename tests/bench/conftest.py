"""Fixtures of the benchmark-framework tests: one headless Chromium per test module that asks for it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .browser import Browser, chromium


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """Chromium, started once for the module's browser tests (skipped without one, failed under CI); each
    ``browser.browse(url, *args)`` opens a page in a fresh context of its own."""
    started = Browser(chromium(), tmp_path_factory.mktemp("chromium") / "profile")
    try:
        yield started
    finally:
        started.close()

"""Headless Chromium for the HTML tests (run report, suite report, compare, board): one way to find the binary and
one set of flags, so the four pages are checked in the same browser the same way."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium() -> str:
    """The Chromium binary (``MINDLOOP_CHROMIUM`` first); the test is skipped without one, unless under CI (which
    installs it), where that is a failure."""
    for name in (os.environ.get("MINDLOOP_CHROMIUM"), *CANDIDATES):
        path = shutil.which(name) if name else None
        if path:
            return path
    reason = f"no Chromium binary found ({', '.join(CANDIDATES)})"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must install chromium for the browser tests")
    pytest.skip(f"{reason}; install chromium to run the browser tests")


def browse(binary: str, profile: Path, url: str, *args: str) -> str:
    """Open ``url`` headless with a fresh ``profile`` and the extra ``args`` (``--dump-dom``, ``--screenshot=…``);
    its stdout (the DOM, for ``--dump-dom``). A browser that fails fails the test with its stderr."""
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
    flags += ["--disable-background-networking", "--disable-component-update", "--disable-sync"]
    proc = subprocess.run(
        [binary, *flags, f"--user-data-dir={profile}", *args, url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout

"""Headless Chromium for the HTML tests (run report, suite report, compare, board): one way to find the binary and
one set of flags, so the four pages are checked in the same browser the same way.

A Chromium start costs seconds on a loaded machine, so a test module starts one :class:`Browser` (the module-scoped
``browser`` fixture of ``tests/bench/conftest.py``) and each :meth:`Browser.browse` opens its page in a browser
context of its own (a fresh profile's storage and cache, as a ``--user-data-dir`` of its own gave), driven over the
DevTools protocol on a pipe (``--remote-debugging-pipe``: no port, nothing beyond this machine)."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
DEADLINE_S = 120.0
"""Against a hung browser only: a page that loads at all loads in well under this on a loaded 2-core machine."""


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


class Browser:
    """One headless Chromium, started once, opening each page in a context of its own."""

    def __init__(self, binary: str, profile: Path) -> None:
        commands_in, self._commands = os.pipe()  # the browser reads commands on its fd 3, answers on its fd 4
        self._answers, answers_out = os.pipe()

        def pipes_at_3_and_4() -> None:
            os.dup2(commands_in, 3)
            os.dup2(answers_out, 4)

        self._log = (profile.parent / f"{profile.name}.log").open("wb")
        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            pass_fds=(3, 4),
            preexec_fn=pipes_at_3_and_4,  # two dup2 calls: safe between fork and exec
            start_new_session=True,
        )
        os.close(commands_in)
        os.close(answers_out)
        self._log_path = Path(self._log.name)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        try:
            self.send("Browser.getVersion")  # answers once the browser is up
        except BaseException:
            self.close()
            raise

    def browse(self, url: str, *args: str) -> str:
        """Open ``url`` as ``chromium --headless [args] url`` would, in a fresh context; ``args`` are
        ``--dump-dom``, ``--screenshot=PATH`` and ``--window-size=W,H`` (the viewport: ``W`` wide and, for a
        screenshot, ``H`` high). Returns the page's DOM after its load event (what ``--dump-dom`` prints), else ""."""
        size = next((a.split("=", 1)[1] for a in args if a.startswith("--window-size=")), None)
        shot = next((a.split("=", 1)[1] for a in args if a.startswith("--screenshot=")), None)
        unknown = [a for a in args if not a.startswith(("--window-size=", "--screenshot=")) and a != "--dump-dom"]
        assert not unknown, f"Browser.browse does not know {unknown}"
        context = self.send("Target.createBrowserContext")["browserContextId"]
        try:
            window: dict[str, Any] = {}
            if size is not None:
                width, height = (int(v) for v in size.split(","))
                window = {"newWindow": True, "width": width, "height": height}
            target = self.send("Target.createTarget", url="about:blank", browserContextId=context, **window)
            session = self.send("Target.attachToTarget", targetId=target["targetId"], flatten=True)["sessionId"]
            self.send("Page.enable", session)
            if window:  # the viewport exactly W x H, as the window of a one-shot --window-size run
                self.send(
                    "Emulation.setDeviceMetricsOverride",
                    session,
                    width=window["width"],
                    height=window["height"],
                    deviceScaleFactor=1,
                    mobile=False,
                )
            navigated = self.send("Page.navigate", session, url=url)
            assert "errorText" not in navigated, navigated
            self._event("Page.loadEventFired", session)
            dom = ""
            if "--dump-dom" in args:
                found = self.send(
                    "Runtime.evaluate", session, expression="document.documentElement.outerHTML", returnByValue=True
                )
                dom = str(found["result"]["value"])
            if shot is not None:
                png = self.send("Page.captureScreenshot", session, format="png")["data"]
                Path(shot).write_bytes(base64.b64decode(png))
            return dom
        finally:
            self.send("Target.disposeBrowserContext", browserContextId=context)

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """One DevTools command (to ``session``'s page, else the browser); its result."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next_id:
                assert "error" not in answer, (method, answer["error"])
                result: dict[str, Any] = answer["result"]
                return result
            self._events.append(answer)

    def _event(self, method: str, session: str) -> dict[str, Any]:
        def wanted(m: dict[str, Any]) -> bool:
            return m.get("method") == method and m.get("sessionId") == session

        for event in self._events:
            if wanted(event):
                self._events.remove(event)
                return event
        while not wanted(event := self._read()):
            self._events.append(event)
        return event

    def _read(self) -> dict[str, Any]:
        deadline = time.monotonic() + DEADLINE_S
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._answers], [], [], max(left, 0))
            assert ready, f"Chromium answered nothing in {DEADLINE_S:.0f} s:\n{self.log_tail()}"
            chunk = os.read(self._answers, 1 << 16)
            assert chunk, f"Chromium exited ({self.proc.poll()}):\n{self.log_tail()}"
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        answer: dict[str, Any] = json.loads(message)
        return answer

    def log_tail(self) -> str:
        self._log.flush()
        return self._log_path.read_text(errors="replace")[-2000:]

    def close(self) -> None:
        """Close the browser; whatever of its process group is left after a grace period is killed."""
        try:
            with contextlib.suppress(AssertionError, OSError, subprocess.TimeoutExpired):
                if self.proc.poll() is None:
                    self.send("Browser.close")
                self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)  # any renderer or helper left of its group
            os.close(self._commands)
            os.close(self._answers)
            self._log.close()

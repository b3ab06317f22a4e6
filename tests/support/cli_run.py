"""The command line in the test's own process: what a subprocess test saw, at a thirtieth of its cost.

``cli`` (the fixture in ``tests/conftest.py``) runs ``mindloop.cli.main(argv)`` with the environment a user's shell
gives a subprocess (``COLUMNS=200``, no ``MINDLOOP_DEBUG``, an empty stdin, the test's ``MINDLOOP_HOME`` or the
``home`` given) and returns a :class:`CliRun`. Keep a real subprocess only where the process boundary is what is
tested (signals, locks across processes, rlimits, read-only mounts, a plug-in install, Ray, start-up).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from mindloop.cli import main


@dataclass(frozen=True)
class CliRun:
    """What a command did: its exit code, stdout, and stderr's non-empty lines."""

    code: int
    out: str
    err: list[str]

    @property
    def stderr(self) -> str:
        """stderr's non-empty lines, joined."""
        return "\n".join(self.err)


Cli = Callable[..., CliRun]


def make_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """A ``cli(*args, home=None, stdin="")`` that runs ``mindloop *args`` in this process."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.delenv("MINDLOOP_DEBUG", raising=False)

    def cli(*args: str | Path, home: Path | None = None, stdin: str = "") -> CliRun:
        if home is not None:
            monkeypatch.setenv("MINDLOOP_HOME", str(home))
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        capsys.readouterr()
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return CliRun(code, out, [line for line in err.splitlines() if line.strip()])

    return cli

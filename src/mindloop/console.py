"""Where command output goes: human text to stderr (wide enough for tables in logs), data to stdout or a file."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from mindloop.errors import MindloopError
from mindloop.paths import write_atomic

__all__ = ["emit", "err_console"]


def err_console() -> Console:
    """A console on stderr; 160 columns when stderr is not a terminal, so tables in CI logs do not wrap."""
    console = Console(stderr=True, highlight=False)
    return console if console.is_terminal else Console(stderr=True, highlight=False, width=160)


def emit(text: str, out: Path | None) -> None:
    """Write ``text`` to ``out``, or to stdout when ``out`` is ``None``; an unwritable file is a one-line error.

    The file is written whole or not at all (:func:`~mindloop.paths.write_atomic`)."""
    if out is None:
        sys.stdout.write(text)
        return
    try:
        write_atomic(out, text)
    except OSError as exc:
        raise MindloopError(f"cannot write {out}: {exc.strerror or exc}") from None

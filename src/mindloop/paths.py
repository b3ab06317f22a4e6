"""Where mindloop keeps its state: run stores and response caches live under ``MINDLOOP_HOME``.

``MINDLOOP_HOME`` defaults to the per-user data directory (``~/.local/share/mindloop`` on Linux). Tests and
CI point it at a temporary folder so nothing leaks between runs. Commands that only read (``mindloop runs``,
``runs export``, ``report``) ask for the paths with ``create=False``: they never create the folder, so they work
on a read-only home. A home that is a file, or that cannot be created, is a :class:`HomeError` naming the path.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from mindloop.errors import InvalidArgumentError

__all__ = ["HomeError", "cache_path", "home", "runs_path"]


class HomeError(InvalidArgumentError):
    """``MINDLOOP_HOME`` (or the default home) is not a usable folder; the message names it and what to do.

    An :class:`~mindloop.errors.InvalidArgumentError`, so a run that meets it stops as a set-up error."""


def home(*, create: bool = True) -> Path:
    """The mindloop state directory, created on first use unless ``create`` is false (read-only commands)."""
    configured = os.environ.get("MINDLOOP_HOME")
    root = Path(configured).expanduser() if configured else platformdirs.user_data_path("mindloop")
    name = f"MINDLOOP_HOME {root}" if configured else f"mindloop's home {root} (set MINDLOOP_HOME to choose another)"
    if root.exists() and not root.is_dir():
        raise HomeError(f"{name} is a file, not a folder: point MINDLOOP_HOME at a folder (it is created if missing)")
    if create:
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise HomeError(
                f"cannot create {name} ({exc.strerror or exc}): point MINDLOOP_HOME at a writable folder"
            ) from None
    return root


def runs_path(*, create: bool = True) -> Path:
    """The SQLite run store shared by every benchmark run (its folder created unless ``create`` is false)."""
    return home(create=create) / "runs.sqlite"


def cache_path() -> Path:
    """The SQLite response cache shared by every model backend."""
    return home() / "cache.sqlite"

"""Where mindloop keeps its state: run stores and response caches live under ``MINDLOOP_HOME``.

``MINDLOOP_HOME`` defaults to the per-user data directory (``~/.local/share/mindloop`` on Linux). Tests and
CI point it at a temporary folder so nothing leaks between runs. Commands that only read (``mindloop runs``,
``runs export``, ``report``) ask for the paths with ``create=False``: they never create the folder, so they work
on a read-only home. A home that is a file, or that cannot be created, is a :class:`HomeError` naming the path.

Every file a command writes goes through :func:`write_atomic` (a temporary file beside it, renamed over it once
complete: a full disk never leaves a truncated file), at the place :func:`output_file` gives its ``-o`` (one rule
for every command: an existing folder gets the command's default file name inside it; any other path is the file).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

import platformdirs

from mindloop.errors import InvalidArgumentError


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


def output_file(out: Path | None, default_name: str) -> Path:
    """Where a command given ``-o OUT`` writes: ``default_name`` in the current folder without ``-o``,
    ``OUT/default_name`` when ``OUT`` is an existing folder, and ``OUT`` itself otherwise (a new name is always a
    file, whatever its extension; :func:`write_atomic` creates its missing parent folders)."""
    if out is None:
        return Path(default_name)
    return out / default_name if out.is_dir() else out


def write_atomic(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` so that it holds either what it held before or all of ``text``, never a
    part: the bytes go to a temporary file beside it (its missing parent folders created), flushed to disk, then
    renamed over it; a failed write (a full disk, a file size limit) removes the temporary file and raises the
    ``OSError``, naming ``path``. A path that is not a regular file (``/dev/stdout``, a FIFO) is written directly.
    Text a UTF-8 file cannot hold (a lone surrogate) is written as ``?``. Returns ``path``."""
    path = Path(path)
    data = text.encode("utf-8", errors="replace")
    try:
        mode = path.stat().st_mode
    except OSError:
        mode = None
    try:
        if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            with path.open("wb") as handle:
                handle.write(data)
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            temporary.replace(path)
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise
    except OSError as exc:
        where = Path(exc.filename) if isinstance(exc.filename, str) else None
        if where is not None and where != path and where in path.parents:
            raise  # a parent folder that cannot be made: the error names it
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
    return path

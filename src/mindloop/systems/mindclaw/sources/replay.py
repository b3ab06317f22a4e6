"""Recorded input: a JSONL file of windows, or a folder of frames with a sidecar file (the "static video" source).

Both replay an episode offline; neither can act (``execute`` reports that nothing ran), which is the static-video
setting of §IV-A.

**Window file** (``.jsonl``): one :meth:`Window.to_dict <mindloop.systems.mindclaw.window.Window.to_dict>` object per
line, in order; :func:`record_windows` writes one from any source.

**Frames folder**: image files (``.png``/``.jpg``) plus ``sidecar.json``::

    {"frames_per_window": 4,
     "windows": [{"t": 0, "frames": ["f_000.png"], "events": [...], "state": {...}, "candidates": {...}}, ...]}

A window entry may list its ``frames`` (paths relative to the folder); when none does, the folder's images, in
name order, are dealt out ``frames_per_window`` at a time, one group per window. Without ``windows`` every group
becomes a window carrying only frames (for a model observer). :func:`record_frames_folder` writes such a folder
from a live household episode, one rendered frame per window.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from mindloop.datafiles import iter_json_lines, read_json_file
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems.mindclaw.records import ActionPlan, ExecutionResult
from mindloop.systems.mindclaw.sources.base import not_executed
from mindloop.systems.mindclaw.window import Window

_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
_SIDECAR = "sidecar.json"


def record_windows(windows: Iterable[Window], path: str | Path) -> int:
    """Write windows to a JSONL file (one per line, keys sorted); returns how many."""
    n = 0
    with Path(path).open("w", encoding="utf-8") as fh:
        for w in windows:
            fh.write(json.dumps(w.to_dict(), sort_keys=True) + "\n")
            n += 1
    return n


class JsonlReplaySource:
    """Windows replayed from a JSONL file; a malformed line is a :class:`~mindloop.errors.ParseError` naming the
    file and line."""

    name = "replay"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise InvalidArgumentError(f"no window file at {self.path}")

    def windows(self) -> Iterator[Window]:
        """The recorded windows, in file order."""
        for n, data in iter_json_lines(self.path, "the window file"):
            try:
                yield Window.from_dict(data)
            except InvalidArgumentError as exc:
                raise ParseError(str(exc), source=str(self.path), line=n) from None

    def execute(self, plan: ActionPlan) -> ExecutionResult:
        """A recording cannot act: nothing runs."""
        return not_executed(plan, "replayed recording: actions are not executed")


class FramesFolderSource:
    """A folder of frames with ``sidecar.json`` (see the module docstring)."""

    name = "frames"

    def __init__(self, folder: str | Path, *, frames_per_window: int | None = None) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise InvalidArgumentError(f"no frames folder at {self.folder}")
        sidecar = self.folder / _SIDECAR
        self.meta: dict[str, Any] = {}
        if sidecar.is_file():
            loaded = read_json_file(sidecar, what="the sidecar")
            if not isinstance(loaded, dict):
                raise ParseError("the sidecar must be a JSON object", source=str(sidecar))
            self.meta = loaded
        per = frames_per_window if frames_per_window is not None else self.meta.get("frames_per_window", 1)
        if not isinstance(per, int) or per < 1:
            raise ParseError(f"frames_per_window must be a whole number >= 1, got {per!r}", source=str(sidecar))
        self.frames_per_window = per
        self.images = sorted(p.name for p in self.folder.iterdir() if p.suffix.lower() in _IMAGE_SUFFIXES)

    def _groups(self) -> list[list[str]]:
        per = self.frames_per_window
        return [self.images[i : i + per] for i in range(0, len(self.images), per)]

    def windows(self) -> Iterator[Window]:
        """One window per sidecar entry (or per group of frames), frames as absolute paths."""
        sidecar = str(self.folder / _SIDECAR)
        entries = self.meta.get("windows")
        if entries is None:
            for t, group in enumerate(self._groups()):
                yield Window(t=t, frames=tuple(str(self.folder / f) for f in group), source=self.name)
            return
        if not isinstance(entries, list):
            raise ParseError("'windows' must be a list", source=sidecar)
        listed = any(isinstance(e, dict) and e.get("frames") for e in entries)
        groups = self._groups()
        if not listed and groups and len(groups) != len(entries):
            raise ParseError(
                f"{len(self.images)} frames make {len(groups)} windows of {self.frames_per_window}, but the sidecar "
                f"describes {len(entries)}",
                source=sidecar,
            )
        for i, entry in enumerate(entries):
            try:
                window = Window.from_dict(entry)
            except InvalidArgumentError as exc:
                raise ParseError(f"window {i}: {exc}", source=sidecar) from None
            names = list(window.frames) if listed else (groups[i] if i < len(groups) else [])
            paths = []
            for name in names:
                path = self.folder / name
                if not path.is_file():
                    raise ParseError(f"window {i}: frame {name!r} is not in the folder", source=sidecar)
                paths.append(str(path))
            yield replace(window, frames=tuple(paths), source=self.name)

    def execute(self, plan: ActionPlan) -> ExecutionResult:
        """A video cannot act: nothing runs."""
        return not_executed(plan, "static video: actions are not executed")


def record_frames_folder(source: Any, folder: str | Path, *, size: tuple[int, int] = (320, 240)) -> int:
    """Play a live :class:`~mindloop.systems.mindclaw.sources.household.HouseholdSource` silently and write one
    rendered frame per window plus ``sidecar.json``; returns the number of windows."""
    from mindloop.worlds.household.render import render_frame, save_frames

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for window in source.windows():
        frame = render_frame(source.episode.world, size=size)
        name = save_frames([frame], out, prefix=f"w{window.t:04d}")[0].name
        entries.append({**window.to_dict(), "frames": [name], "source": "frames"})
    (out / _SIDECAR).write_text(json.dumps({"frames_per_window": 1, "windows": entries}, sort_keys=True), "utf-8")
    return len(entries)

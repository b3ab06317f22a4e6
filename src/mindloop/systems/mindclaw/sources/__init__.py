"""MindClaw input sources (§IV-C): every source becomes the same :class:`~mindloop.systems.mindclaw.window.Window`.

* :class:`HouseholdSource` — the live household simulator, closed loop;
* :class:`JsonlReplaySource`, :class:`FramesFolderSource` — recorded windows and the "static video" folder;
* :class:`TerminalSource` — a person driving characters or typing instructions (scriptable);
* :class:`VirtualHomeAdapter`, :class:`ThreeDWorldAdapter` — stubs over recorded state snapshots.
"""

from __future__ import annotations

from mindloop.systems.mindclaw.sources.base import WindowSource, not_executed
from mindloop.systems.mindclaw.sources.household import HouseholdSource, TrackerScene
from mindloop.systems.mindclaw.sources.human import TerminalSource
from mindloop.systems.mindclaw.sources.replay import (
    FramesFolderSource,
    JsonlReplaySource,
    record_frames_folder,
    record_windows,
)
from mindloop.systems.mindclaw.sources.tdw import ThreeDWorldAdapter
from mindloop.systems.mindclaw.sources.virtualhome import VirtualHomeAdapter

__all__ = [
    "FramesFolderSource",
    "HouseholdSource",
    "JsonlReplaySource",
    "TerminalSource",
    "ThreeDWorldAdapter",
    "TrackerScene",
    "VirtualHomeAdapter",
    "WindowSource",
    "not_executed",
    "record_frames_folder",
    "record_windows",
]

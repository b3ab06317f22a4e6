"""MindClaw input sources (§IV-C): every source becomes the same :class:`~mindloop.systems.mindclaw.window.Window`.

* :class:`HouseholdSource` — the live household simulator, closed loop;
* :class:`JsonlReplaySource`, :class:`FramesFolderSource` — recorded windows and the "static video" folder;
* :class:`TerminalSource` — a person driving characters or typing instructions (scriptable);
* :class:`VirtualHomeAdapter`, :class:`ThreeDWorldAdapter` — stubs over recorded state snapshots.
"""

from __future__ import annotations

from mindloop.lazy import lazy_exports
from mindloop.systems.mindclaw.sources.base import WindowSource as WindowSource
from mindloop.systems.mindclaw.sources.base import not_executed as not_executed
from mindloop.systems.mindclaw.sources.household import HouseholdSource as HouseholdSource
from mindloop.systems.mindclaw.sources.household import TrackerScene as TrackerScene
from mindloop.systems.mindclaw.sources.human import TerminalSource as TerminalSource
from mindloop.systems.mindclaw.sources.replay import FramesFolderSource as FramesFolderSource
from mindloop.systems.mindclaw.sources.replay import JsonlReplaySource as JsonlReplaySource
from mindloop.systems.mindclaw.sources.replay import record_frames_folder as record_frames_folder
from mindloop.systems.mindclaw.sources.replay import record_windows as record_windows
from mindloop.systems.mindclaw.sources.tdw import ThreeDWorldAdapter as ThreeDWorldAdapter
from mindloop.systems.mindclaw.sources.virtualhome import VirtualHomeAdapter as VirtualHomeAdapter

__getattr__ = lazy_exports(__name__)

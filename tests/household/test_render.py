"""Top-down frames of a window (the "video" given to image models)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from mindloop.worlds.household import World, WorldSetup
from mindloop.worlds.household.render import render_frame, render_window, save_frames
from mindloop.worlds.household.scenarios import generate_scenario

DARK = np.array([60, 60, 66], dtype=np.uint8)


def test_window_frames_are_deterministic_and_saved_as_png(tmp_path: Path) -> None:
    s = generate_scenario("fb_two_humans", 0, 0)
    frames = render_window(s, n_frames=32, size=(320, 240))
    assert len(frames) == 32 and all(f.shape == (240, 320, 3) for f in frames)
    assert not np.array_equal(frames[0], frames[-1])  # things happen in the window
    again = render_window(s, n_frames=32, size=(320, 240))
    assert all(np.array_equal(x, y) for x, y in zip(frames, again, strict=True))
    paths = save_frames(frames[:3], tmp_path / "frames")
    assert [p.name for p in paths] == ["frame_000.png", "frame_001.png", "frame_002.png"]
    assert np.array_equal(np.asarray(Image.open(paths[0]).convert("RGB")), frames[0])


def test_rooms_outside_the_camera_are_dark() -> None:
    w = World(WorldSetup("cozy_apartment", (), camera=("kitchen",), robot_room="kitchen"))
    robot_view = render_frame(w, size=(400, 300))
    everything = render_frame(w, size=(400, 300), robot_view=False)
    # cozy_apartment: kitchen | living room / bedroom | bathroom; the bathroom cell is bottom right
    probe = robot_view[280, 380]
    assert np.array_equal(probe, DARK) and not np.array_equal(everything[280, 380], DARK)
    assert not np.array_equal(robot_view[100, 100], DARK)

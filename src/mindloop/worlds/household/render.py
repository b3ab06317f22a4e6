"""Top-down pictures of the home, so image-input models can be given a window as "video" frames.

MindPower gives vision-language models 32 frames of each video; :func:`render_window` replays a scenario and
returns that many frames (uniformly over the window's steps) of what the robot's fixed camera sees: rooms out
of its view are drawn dark. Pillow is imported only when a picture is asked for.

>>> from mindloop.worlds.household.scenarios import generate_scenario
>>> frames = render_window(generate_scenario("fb_two_humans", 0, 0), n_frames=4, size=(320, 240))
>>> len(frames), frames[0].shape, frames[0].dtype.name
(4, (240, 320, 3), 'uint8')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mindloop.errors import DependencyError, InvalidArgumentError
from mindloop.worlds.household.entities import WorldSnapshot
from mindloop.worlds.household.vocab import ROBOT, Prop
from mindloop.worlds.household.world import World

if TYPE_CHECKING:
    from mindloop.worlds.household.scenarios.model import Scenario

_PALETTE = [
    (214, 39, 40),
    (31, 119, 180),
    (44, 160, 44),
    (148, 103, 189),
    (255, 127, 14),
    (140, 86, 75),
    (227, 119, 194),
    (23, 190, 207),
]
_BG, _ROOM, _DARK, _PLACE = (245, 243, 238), (255, 255, 255), (60, 60, 66), (222, 214, 196)


def _pil() -> Any:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as exc:  # pragma: no cover - Pillow comes with matplotlib
        raise DependencyError("rendering frames needs Pillow: pip install pillow") from exc
    return Image, ImageDraw, ImageFont


def render_frame(
    world: World, snapshot: WorldSnapshot | None = None, *, size: tuple[int, int] = (640, 480), robot_view: bool = True
) -> np.ndarray:
    """One ``(height, width, 3)`` uint8 picture of ``world`` as in ``snapshot`` (default: now).

    With ``robot_view`` the rooms the robot cannot see (outside its camera and its own room) are dark.
    """
    image_mod, draw_mod, font_mod = _pil()
    snap = snapshot if snapshot is not None else world.snapshot()
    width, height = size
    if width < 64 or height < 48:
        raise InvalidArgumentError(f"frame size must be at least 64x48, got {width}x{height}")
    img = image_mod.new("RGB", (width, height), _BG)
    draw = draw_mod.Draw(img)
    font = font_mod.load_default()
    rooms = world.rooms
    cols = 2 if len(rooms) <= 4 else 3
    rows = math.ceil(len(rooms) / cols)
    top = 14
    cw, ch = width // cols, (height - top) // rows
    agent_room = {a: r for a, r, _, _, _ in snap.agents}
    robot_room = agent_room.get(ROBOT)
    loc = dict(snap.items)
    holding = {a: h for a, _, _, _, h in snap.agents}
    colors = {a: _PALETTE[i % len(_PALETTE)] for i, a in enumerate(a for a in world.chars if a != ROBOT)}
    draw.text(
        (4, 1), f"t={snap.t}  {world.layout.title}" + ("" if snap.power else "  (power cut)"), fill=(0, 0, 0), font=font
    )
    for i, room in enumerate(rooms):
        x0, y0 = (i % cols) * cw + 2, top + (i // cols) * ch + 2
        x1, y1 = x0 + cw - 4, y0 + ch - 4
        visible = not robot_view or room in snap.camera or room == robot_room
        if not visible:
            draw.rectangle((x0, y0, x1, y1), fill=_DARK)
            draw.text((x0 + 4, y0 + 3), f"{world.room_names[room]} (not visible)", fill=(200, 200, 200), font=font)
            continue
        draw.rectangle((x0, y0, x1, y1), fill=_ROOM if snap.power else (200, 200, 210), outline=(90, 90, 90))
        draw.text((x0 + 4, y0 + 3), world.room_names[room], fill=(0, 0, 0), font=font)
        places = [
            p
            for p in world.entity_ids()
            if p in world.places and world.places[p].room == room and not p.endswith("_doorway")
        ]
        pc = 3
        pw = (x1 - x0 - 8) // pc
        ph = max(16, (y1 - y0 - 48) // max(1, math.ceil(len(places) / pc)))
        for j, pid in enumerate(places):
            px, py = x0 + 4 + (j % pc) * pw, y0 + 16 + (j // pc) * ph
            place = world.places[pid]
            closed = Prop.OPENABLE in place.props and pid not in snap.opened
            lit = pid in snap.switched_on
            fill = (190, 180, 160) if closed else _PLACE
            draw.rectangle(
                (px, py, px + pw - 3, py + ph - 3), fill=fill, outline=(255, 200, 0) if lit else (150, 140, 120)
            )
            draw.text((px + 2, py + 1), place.name[:14], fill=(40, 40, 40), font=font)
            things = [] if closed else [it for it, where in loc.items() if where == pid or loc.get(where) == pid]
            for k, it in enumerate(things[:3]):
                draw.text((px + 2, py + 11 + 9 * k), f"* {world.items[it].name[:12]}", fill=(0, 70, 140), font=font)
        present = [a for a, r in agent_room.items() if r == room]
        for k, a in enumerate(present):
            ax, ay = x0 + 14 + k * 40, y1 - 16
            if a == ROBOT:
                draw.rectangle((ax - 8, ay - 8, ax + 8, ay + 8), fill=(90, 90, 90))
                draw.text((ax - 3, ay - 6), "R", fill=(255, 255, 255), font=font)
            else:
                draw.ellipse((ax - 9, ay - 9, ax + 9, ay + 9), fill=colors[a])
                draw.text((ax - 3, ay - 6), world.chars[a].name[0], fill=(255, 255, 255), font=font)
            if holding.get(a):
                draw.text((ax + 10, ay - 6), world.items[holding[a][0]].name[:8], fill=(0, 0, 0), font=font)
        ob = next((it for it, where in loc.items() if where == f"{room}_doorway"), None)
        if ob is not None:
            draw.text((x1 - 90, y1 - 12), f"[{world.items[ob].name}]", fill=(160, 0, 0), font=font)
    return np.asarray(img, dtype=np.uint8).copy()


def render_window(
    scenario: Scenario, n_frames: int = 32, *, size: tuple[int, int] = (640, 480), robot_view: bool = True
) -> list[np.ndarray]:
    """``n_frames`` pictures spread uniformly over a scenario's window (the paper's 32-frame video input)."""
    from mindloop.worlds.household.scenarios.episode import Episode

    if n_frames < 1:
        raise InvalidArgumentError(f"n_frames must be at least 1, got {n_frames}")
    episode = Episode(scenario.setup)
    snaps = [episode.world.snapshot()]
    for step in scenario.script:
        episode.replay([step])
        snaps.append(episode.world.snapshot())
    picks = [round(i * (len(snaps) - 1) / (n_frames - 1)) if n_frames > 1 else len(snaps) - 1 for i in range(n_frames)]
    cache: dict[int, np.ndarray] = {}
    out = []
    for p in picks:
        if p not in cache:
            cache[p] = render_frame(episode.world, snaps[p], size=size, robot_view=robot_view)
        out.append(cache[p].copy())
    return out


def save_frames(frames: Sequence[np.ndarray], out_dir: str | Path, prefix: str = "frame") -> list[Path]:
    """Write frames as ``prefix_000.png``, ... into ``out_dir``; returns the paths."""
    image_mod, _, _ = _pil()
    root = Path(out_dir)
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, frame in enumerate(frames):
        path = root / f"{prefix}_{i:03d}.png"
        image_mod.fromarray(frame).save(path, format="PNG")
        paths.append(path)
    return paths

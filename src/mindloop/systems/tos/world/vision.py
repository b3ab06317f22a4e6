"""The vision world: a simple rasterised egocentric view of the same scene, and a top-down text map.

:func:`render_view` draws what the text observation describes, with the same visibility rules (90° field of
view, same room, no occlusion), as a pinhole picture: the horizon across the middle, each visible object as a
coloured block whose screen column follows its bearing and whose size shrinks with depth. Objects with a front
show it (a white face when they face the viewer, an arrowhead when they face left or right, a dark back when
they face away); doors are tall frames in their colour. Colours are fixed per object name, so the same layout
always renders the same picture and image-input models can be compared with text ones on identical layouts.
Pillow is imported only when rendering.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from mindloop.errors import DependencyError
from mindloop.systems.tos.world.geometry import Vec, direction_name, relative_facing, to_local
from mindloop.systems.tos.world.metadata import DOOR_COLOURS
from mindloop.systems.tos.world.observe import visible_names
from mindloop.systems.tos.world.scene import DOOR_HORIZONTAL, DOOR_VERTICAL, Door, Scene


def _colour(name: str) -> tuple[int, int, int]:
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return (60 + digest[0] % 170, 60 + digest[1] % 170, 60 + digest[2] % 170)


def _pil() -> Any:
    try:
        from PIL import Image, ImageDraw
    except ImportError as exc:  # pragma: no cover - Pillow comes with matplotlib
        raise DependencyError("the vision world needs Pillow: pip install pillow") from exc
    return Image, ImageDraw


def render_view(
    scene: Scene, pos: Vec, ori: Vec, rooms: frozenset[int] | None = None, *, size: int = 384
) -> np.ndarray:
    """An ``size``×``size`` RGB picture (uint8 array) of what an observer at ``pos`` facing ``ori`` sees."""
    image_mod, draw_mod = _pil()
    rooms = scene.rooms_at(pos) if rooms is None else rooms
    img = image_mod.new("RGB", (size, size), (205, 215, 225))
    draw = draw_mod.Draw(img)
    horizon = size // 2
    draw.rectangle([0, horizon, size, size], fill=(190, 170, 140))
    draw.line([0, horizon, size, horizon], fill=(120, 110, 100), width=1)
    items = []
    for name in visible_names(scene, pos, ori, rooms):
        it = scene.item(name)
        right, forward = to_local(it.pos, pos, ori)
        items.append((forward, right, it))
    focal = size / 2.0  # a 90° field of view: tan(45°) = 1 maps to the image edge
    for forward, right, it in sorted(items, key=lambda t: (-t[0], t[1], t[2].name)):
        cx = size / 2.0 + focal * right / forward
        scale = focal / forward
        base = horizon + 0.9 * scale
        if isinstance(it, Door):
            colour = DOOR_COLOURS.get(it.name.split()[0].lower(), _colour(it.name))
            w, h = 0.55 * scale, 2.2 * scale
            draw.rectangle(
                [cx - w / 2, base - h, cx + w / 2, base],
                fill=colour,
                outline=(60, 50, 40),
                width=max(1, int(scale / 12)),
            )
            continue
        colour = _colour(it.name)
        w, h = 0.7 * scale, 0.8 * scale
        box = [cx - w / 2, base - h, cx + w / 2, base]
        if it.facing is None:
            draw.ellipse(box, fill=colour, outline=(40, 40, 40))
            continue
        draw.rectangle(box, fill=colour, outline=(40, 40, 40))
        rel = relative_facing(it.facing, ori)
        mid = base - h / 2
        if rel in ("backward", "forward"):  # facing the viewer: show its front (light); facing away: its back (dark)
            fill = (245, 245, 245) if rel == "backward" else (35, 35, 35)
            draw.rectangle([cx - w / 4, mid - h / 4, cx + w / 4, mid + h / 4], fill=fill)
        else:
            sign = -1.0 if rel == "left" else 1.0
            tip = cx + sign * w / 2
            draw.polygon([(tip, mid), (cx, mid - h / 3), (cx, mid + h / 3)], fill=(245, 245, 245))
    return np.asarray(img, dtype=np.uint8)


def png_bytes(image: np.ndarray) -> bytes:
    """PNG encoding of a rendered view (for image messages to models)."""
    import io

    image_mod, _ = _pil()
    buf = io.BytesIO()
    image_mod.fromarray(image).save(buf, format="PNG")
    return buf.getvalue()


def ascii_map(scene: Scene, pos: Vec | None = None, ori: Vec | None = None) -> str:
    """A top-down text map, north up: ``#`` wall, ``.`` floor, ``+`` door, object initials, the agent as an
    arrow (``^ > v <``) and ``x`` the start cell; a legend follows."""
    arrows = {(0, 1): "^", (1, 0): ">", (0, -1): "v", (-1, 0): "<"}
    grid = []
    for y in range(scene.height - 1, -1, -1):
        row = []
        for x in range(scene.width):
            v = scene.mask[x][y]
            row.append(" " if v < 0 else "#" if v == 0 else "+" if v in (DOOR_VERTICAL, DOOR_HORIZONTAL) else ".")
        grid.append(row)
    legend = []
    for i, o in enumerate(scene.objects):
        mark = chr(ord("a") + i) if i < 26 else "?"
        grid[scene.height - 1 - o.pos[1]][o.pos[0]] = mark
        facing = f" facing {direction_name(o.facing)}" if o.facing else ""
        legend.append(f"{mark}={o.name}{facing}")
    sx, sy = scene.start
    grid[scene.height - 1 - sy][sx] = "x"
    if pos is not None and ori is not None:
        grid[scene.height - 1 - pos[1]][pos[0]] = arrows.get(ori, "@")
    doors = ", ".join(f"{d.name} joins rooms {d.rooms[0]}-{d.rooms[1]}" for d in scene.doors)
    return "\n".join("".join(r) for r in grid) + "\n" + ", ".join(legend) + ("\n" + doors if doors else "")

"""Covert changes for the false-belief phase: turn two objects that have a front, move two others far away.

As in the reference's ``ObjectModifier``: an object is either rotated (to one of the three other facings) or
moved, never both; a moved object goes to a free cell of any room at least 6 cells from where it was (and not
onto the agent's start). Changes are seeded and reported as :class:`Change` records, the ground truth the
agent's ``Term(changes=...)`` is scored against.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

from mindloop.systems.tos.world.geometry import CARDINALS, Vec, direction_name
from mindloop.systems.tos.world.scene import Scene, SceneObject

__all__ = ["Change", "covert_changes"]

MIN_MOVE = 6.0
"""A moved object lands at least this far from its old cell."""


@dataclass(frozen=True)
class Change:
    """What happened to one object: moved (``old_pos`` → ``new_pos``) or rotated (``old_facing`` → ``new_facing``)."""

    name: str
    position: bool
    orientation: bool
    old_pos: Vec
    new_pos: Vec
    old_facing: Vec | None
    new_facing: Vec | None

    def describe(self) -> str:
        """``apple: position`` / ``chair: orientation``, the reporting format."""
        return f"{self.name}: {'position' if self.position else 'orientation'}"

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "name": self.name,
            "type": "position" if self.position else "orientation",
            "old_pos": list(self.old_pos),
            "new_pos": list(self.new_pos),
            "old_facing": direction_name(self.old_facing) if self.old_facing else None,
            "new_facing": direction_name(self.new_facing) if self.new_facing else None,
        }


def covert_changes(scene: Scene, seed: int, *, rotations: int = 2, moves: int = 2) -> tuple[Scene, list[Change]]:
    """The scene after ``rotations`` rotations and ``moves`` moves, and the list of changes (seeded).

    Fewer changes happen only when the scene has too few objects or free cells for them.
    """
    rng = random.Random(f"tos-changes:{seed}")
    objects = list(scene.objects)
    oriented = [o.name for o in objects if o.oriented]
    turn = rng.sample(oriented, min(rotations, len(oriented)))
    changes: list[Change] = []
    by_name = {o.name: o for o in objects}
    for name in turn:
        o = by_name[name]
        assert o.facing is not None
        new = rng.choice([c for c in CARDINALS if c != o.facing])
        by_name[name] = replace(o, facing=new)
        changes.append(Change(name, False, True, o.pos, o.pos, o.facing, new))
    occupied = {o.pos for o in objects} | {d.pos for d in scene.doors} | {scene.start}
    free = [(x, y) for x in range(scene.width) for y in range(scene.height) if 1 <= scene.mask[x][y] < 100]
    pool = [o.name for o in objects if o.name not in turn]
    rng.shuffle(pool)
    moved = 0
    while pool and moved < moves:
        name = pool.pop()
        o = by_name[name]
        cands = [c for c in free if c not in occupied and math.dist(c, o.pos) >= MIN_MOVE]
        if not cands:
            continue
        new_pos = rng.choice(cands)
        occupied.discard(o.pos)
        occupied.add(new_pos)
        by_name[name] = replace(o, pos=new_pos)
        changes.append(Change(name, True, False, o.pos, new_pos, o.facing, o.facing))
        moved += 1
    new_objects: list[SceneObject] = [by_name[o.name] for o in objects]
    return scene.with_objects(new_objects), changes

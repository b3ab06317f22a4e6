"""``mindloop space``: look at and explore Theory-of-Space scenes from the command line.

* ``render SCENE`` prints the text observation at the start pose (an ``Observe()`` there), exactly as the
  environment reports it; ``--facing``/``--at`` pick another pose, ``--image`` writes the vision-world view,
  ``--map`` adds a top-down map on stderr. ``SCENE`` (or ``--data SCENE``) is a mindloop scene file, a reference
  ``meta_data.json`` or a reference run folder.
* ``generate`` writes a seeded procedural scene in mindloop's format.
* ``explore SCENE --agent scout|strategist|symbolic`` runs a scripted explorer and prints each step.

Every ``--json`` output is one JSON object on stdout; input errors are one-line messages (exit code 1).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from mindloop.console import JsonFlag, OutFile, emit, emit_json, err_console, out_console
from mindloop.errors import InvalidArgumentError, MindloopError
from mindloop.systems import system_group

__all__ = ["tos_app"]

tos_app = system_group("tos")


_Facing = Literal["north", "east", "south", "west"]

_Scene = Annotated[Path | None, typer.Argument(metavar="SCENE", help="Scene file, meta_data.json or run folder.")]
_Data = Annotated[Path | None, typer.Option("--data", help="The scene, as an option (same as SCENE).")]


def _scene_path(scene_path: Path | None, data: Path | None) -> Path:
    """The scene given as the SCENE argument or as ``--data``: exactly one of them."""
    if scene_path is not None and data is not None:
        raise InvalidArgumentError(f"give the scene once: SCENE ({scene_path}) or --data ({data}), not both")
    path = scene_path if scene_path is not None else data
    if path is None:
        raise InvalidArgumentError(
            "missing the scene: give SCENE or --data PATH (a scene file, meta_data.json or run folder)"
        )
    return path


_Agent = Literal["scout", "strategist", "symbolic"]


@tos_app.command("render")
def render(
    scene_path: _Scene = None,
    data: _Data = None,
    facing: Annotated[_Facing, typer.Option("--facing", help="Heading to look in.")] = "north",
    at: Annotated[str | None, typer.Option("--at", help="Stand on this object or door instead of the start.")] = None,
    image: Annotated[
        Path | None, typer.Option("--image", help="Also write the vision-world view (PNG).", dir_okay=False)
    ] = None,
    show_map: Annotated[bool, typer.Option("--map", help="Print a top-down map to stderr.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Print the text observation at the start pose (or another pose) of SCENE."""
    from mindloop.systems.tos.world import load_scene, observation_text, observe
    from mindloop.systems.tos.world.geometry import parse_direction
    from mindloop.systems.tos.world.vision import ascii_map, png_bytes, render_view

    scene = load_scene(_scene_path(scene_path, data))
    pos = scene.start
    if at is not None:
        if not scene.has_item(at):
            names = ", ".join(it.name for it in scene.items)
            raise InvalidArgumentError(f"--at {at!r}: no such object or door (scene has: {names})")
        pos = scene.item(at).pos
    ori = parse_direction(facing)
    rooms = scene.rooms_at(pos)
    obs = observe(scene, pos, ori, rooms)
    text = observation_text(obs)
    if image is not None:
        try:
            image.write_bytes(png_bytes(render_view(scene, pos, ori, rooms)))
        except OSError as exc:
            raise MindloopError(f"cannot write {image}: {exc.strerror or exc}") from None
    if show_map:
        (err_console() if as_json else out_console()).print(ascii_map(scene, pos, ori), markup=False)
    if as_json:
        out: dict[str, Any] = {
            "scene": scene.name,
            "position": list(scene.relative(pos)),
            "facing": facing,
            "observation": text,
            "items": [asdict(i) for i in obs.items],
            "pairs": [asdict(p) for p in obs.pairs],
        }
        if image is not None:
            out["image"] = str(image)
        emit_json(out)
        return
    emit(text + "\n", None)


@tos_app.command("generate")
def generate(
    seed: Annotated[int, typer.Option("--seed", help="Seed: the same seed gives the same scene.")] = 0,
    rooms: Annotated[int, typer.Option("--rooms", min=1, max=11, help="Number of rooms.")] = 3,
    objects: Annotated[int, typer.Option("--objects", min=1, max=10, help="Objects per room.")] = 4,
    out: OutFile = None,
) -> None:
    """Write a seeded procedural scene (mindloop's JSON scene format)."""
    from mindloop.systems.tos.world import LayoutConfig, generate_scene, scene_to_dict

    scene = generate_scene(seed, LayoutConfig(rooms=rooms, objects_per_room=objects))
    text = json.dumps(scene_to_dict(scene), indent=1) + "\n"
    emit(text, out, f"{scene.name} ({len(scene.room_ids)} rooms, {len(scene.objects)} objects)")


@tos_app.command("explore")
def explore(
    scene_path: _Scene = None,
    data: _Data = None,
    agent: Annotated[_Agent, typer.Option("--agent", help="Which scripted explorer.")] = "symbolic",
    max_steps: Annotated[int, typer.Option("--max-steps", min=1, help="Step budget.")] = 20,
    as_json: JsonFlag = False,
) -> None:
    """Run a scripted explorer on SCENE and show every step, the coverage and the map's accuracy."""
    from mindloop.systems.tos.explorers import SCRIPTED_EXPLORERS, new_belief
    from mindloop.systems.tos.explorers.base import run_exploration
    from mindloop.systems.tos.metrics import final_map_scores, parse_cognitive_map
    from mindloop.systems.tos.world import SpatialEnv, SpatialEnvConfig, load_scene

    scene = load_scene(_scene_path(scene_path, data))
    env = SpatialEnv(scene, config=SpatialEnvConfig(max_steps=max_steps))
    env.reset(seed=0)
    belief = new_belief(env)
    ex = run_exploration(env, SCRIPTED_EXPLORERS[agent](belief, 0), belief)
    cmap = belief.cognitive_map()
    scores = final_map_scores(scene, parse_cognitive_map(cmap), ex.turns)
    if as_json:
        emit_json(
            {
                "scene": scene.name,
                "agent": agent,
                "steps": ex.steps,
                "coverage": env.node_coverage,
                "action_cost": env.action_cost,
                "turns": [{"action": t.action, "text": t.text} for t in ex.turns],
                "cognitive_map": cmap,
                "map": scores.to_dict(),
            }
        )
        return
    console = out_console()
    for t in ex.turns:
        console.print(f"[bold]{t.step}. {t.action}[/]", highlight=False)
        console.print(t.text, markup=False)
    console.print(
        f"{agent}: {ex.steps} steps, coverage {env.node_coverage:.2f}, cost {env.action_cost}, map "
        f"dir {scores.dir:.2f} facing {scores.facing:.2f} pos {scores.pos:.2f} overall {scores.overall:.2f}"
    )

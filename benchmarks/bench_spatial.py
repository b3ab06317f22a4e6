"""Speed of the Theory-of-Space world and what the scripted explorers achieve on it.

Run:  .venv/bin/python benchmarks/bench_spatial.py [--scenes 100] [--table-scenes 30] [--seed 0] [--out DIR]

Prints
1. environment steps per second on one core, target >= 10,000: action strings replayed on fresh episodes of
   procedural 3-room scenes (a SCOUT episode plus a random mix of moves, queries, failures and invalid strings),
   timing (a) only ``env.step`` and (b) everything, scene generation and ``reset`` included;
2. the explorers over ``--scenes`` procedural 3-room scenes: steps, coverage, final information gain, map scores
   and how often the map is exact (targets: symbolic map 1.0 and full coverage on every scene, SCOUT about 9
   steps, STRATEGIST resolving every position when it may finish), plus the change detector's F1 in the
   false-belief phase;
3. a table laid out as the paper's Table 1 from the ``tos-active`` / ``tos-passive`` benchmarks (``--table-scenes``
   scenes, three questions per task);
4. the path of the information-gain plot (accumulated gain per step, the paper's Figure 2 for these agents).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext, SampleRecord
from mindloop.systems.tos.benchmarks import TosActiveBenchmark, TosPassiveBenchmark, format_table
from mindloop.systems.tos.explorers import (
    ChangeDetector,
    ScoutExplorer,
    StrategistExplorer,
    SymbolicExplorer,
    new_belief,
    run_exploration,
)
from mindloop.systems.tos.metrics import (
    gt_global_map,
    information_gain_curve,
    map_scores,
    mean_curve,
    parse_cognitive_map,
    plot_information_gain,
    pos_norm,
)
from mindloop.systems.tos.world import Scene, SpatialEnv, SpatialEnvConfig, generate_scene, load_scene

REFERENCE_SCENE = Path(__file__).resolve().parents[1] / "tests" / "tos" / "data" / "run00_meta_data.json"


# ---- 1. environment speed ---------------------------------------------------------------------------------------
def _random_actions(scene: Scene, rng: random.Random, n: int) -> list[str]:
    names = [it.name for it in scene.items]
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.35:
            out.append(f"Actions: [Rotate({rng.choice((90, -90, 180))}), Observe()]")
        elif r < 0.65:
            out.append(f"Actions: [JumpTo({rng.choice(names)}), Observe()]")
        elif r < 0.8:
            out.append("Actions: [Observe()]")
        elif r < 0.9:
            out.append(f"Actions: [Query({rng.choice(names)})]")
        elif r < 0.95:
            out.append("Actions: [Observe(), Observe()]")
        else:
            out.append(f"Actions: [Rotate({rng.choice((90, 180))}), JumpTo({rng.choice(names)}), Observe()]")
    return out


def episodes(n: int, seed: int) -> list[tuple[int, Scene, list[str]]]:
    """Per scene: a SCOUT episode's actions followed by random ones, 20 steps in all."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        scene_seed = seed * 1_000_003 + i
        scene = generate_scene(scene_seed)
        env = SpatialEnv(scene, config=SpatialEnvConfig(max_steps=20))
        env.reset(seed=scene_seed)
        actions = [t.action for t in run_exploration(env, ScoutExplorer()).turns if "Term()" not in t.action]
        actions = actions[:20] + _random_actions(scene, rng, 20 - min(len(actions), 20))
        out.append((scene_seed, scene, actions))
    return out


def bench_env(eps: list[tuple[int, Scene, list[str]]], rounds: int) -> None:
    steps_only, whole = [], []
    n_steps = sum(len(a) for _, _, a in eps)
    for _ in range(rounds):
        env = SpatialEnv(config=SpatialEnvConfig(max_steps=20))
        timed = 0.0
        start_all = time.perf_counter()
        for scene_seed, _, actions in eps:
            env.reset(seed=scene_seed)  # generates the scene from the seed
            start = time.perf_counter()
            for a in actions:
                env.step(a)
            timed += time.perf_counter() - start
        whole.append(n_steps / (time.perf_counter() - start_all))
        steps_only.append(n_steps / timed)
    verdict = "OK" if statistics.median(steps_only) >= 10_000 else "MISSED"
    print(
        f"[1a] env.step only: best {max(steps_only):,.0f}, median {statistics.median(steps_only):,.0f} steps/s "
        f"({n_steps:,} steps x {rounds} rounds) [target >= 10,000: {verdict}]"
    )
    print(
        f"[1b] with scene generation and reset: best {max(whole):,.0f}, median {statistics.median(whole):,.0f} steps/s"
    )


# ---- 2. explorers -----------------------------------------------------------------------------------------------
def explore(agent: str, scene: Scene, seed: int, *, max_steps: int = 20, false_belief: bool = False) -> dict[str, Any]:
    env = SpatialEnv(scene, config=SpatialEnvConfig(max_steps=max_steps, false_belief=false_belief))
    env.reset(seed=seed)
    belief = new_belief(env)
    explorer: Any
    if agent == "scout":
        explorer = ScoutExplorer()
    elif agent == "strategist":
        explorer = StrategistExplorer(seed=seed)
    else:
        explorer = SymbolicExplorer(belief)
    start = time.perf_counter()
    ex = run_exploration(env, explorer, belief)
    seconds = time.perf_counter() - start
    names = [it.name for it in scene.items]
    curve = information_gain_curve([t.triples for t in ex.turns], names, scene.grid_size)
    last = ex.turns[-1]
    s = map_scores(
        parse_cognitive_map(belief.cognitive_map()) or {},
        gt_global_map(scene, (last.pos, last.ori)),
        pos_norm_l=pos_norm(scene),
    )
    out = {
        "steps": ex.steps,
        "coverage": env.node_coverage,
        "curve": curve,
        "map": s,
        "unresolved": len(belief.uncertain()) + len([n for n in names if n not in belief.seen]),
        "seconds": seconds,
    }
    if false_belief and env.phase == "false_belief":
        run_exploration(env, ChangeDetector(belief, expected=len(env.changes)))
        out["fb_f1"] = env.false_belief_result["f1"] if env.false_belief_result else 0.0
    return out


def bench_explorers(n: int, seed: int) -> dict[str, list[float]]:
    scenes = [(seed * 1_000_003 + i, generate_scene(seed * 1_000_003 + i)) for i in range(n)]
    curves: dict[str, list[float]] = {}
    settings: tuple[tuple[str, dict[str, Any]], ...] = (
        ("symbolic", {"false_belief": True}),
        ("scout", {}),
        ("strategist", {}),
        ("strategist (to the end)", {"max_steps": 1000}),
    )
    for agent, kwargs in settings:
        runs = [explore(agent.split()[0], scene, s, **kwargs) for s, scene in scenes]
        steps = [r["steps"] for r in runs]
        exact = sum(1 for r in runs if r["map"].overall == 1.0)
        resolved = sum(1 for r in runs if r["unresolved"] == 0)

        def mean(key: str, runs: list[dict[str, Any]] = runs) -> float:
            return float(
                statistics.mean(
                    getattr(r["map"], key) if key in ("dir", "facing", "pos", "overall") else r[key] for r in runs
                )
            )

        full = sum(r["coverage"] == 1.0 for r in runs)
        gain = statistics.mean(r["curve"][-1] for r in runs)
        line = (
            f"[2] {agent:<24} steps {statistics.mean(steps):5.1f} (max {max(steps):3d}) | coverage "
            f"{mean('coverage'):.3f} (full on {full}/{n}) | info gain {gain:.3f}"
            f" | map dir {mean('dir'):.3f} facing {mean('facing'):.3f} pos {mean('pos'):.3f} overall "
            f"{mean('overall'):.3f} | exact map {exact}/{n} | all positions resolved {resolved}/{n} | "
            f"{1000 * mean('seconds'):.1f} ms/episode"
        )
        if "fb_f1" in runs[0]:
            line += f" | false-belief F1 {statistics.mean(r['fb_f1'] for r in runs):.3f}"
        print(line)
        curves[agent] = mean_curve(r["curve"] for r in runs)
    ref = load_scene(REFERENCE_SCENE)
    r = explore("symbolic", ref, 0, false_belief=True)
    print(
        f"[2] symbolic on the reference scene 3-room/run00: {r['steps']} steps, coverage {r['coverage']:.2f}, map "
        f"overall {r['map'].overall:.3f}, false-belief F1 {r.get('fb_f1', 0.0):.3f}"
    )
    return curves


# ---- 3. Table 1 ---------------------------------------------------------------------------------------------------
def _summary(bench: Any, agent: str, n: int, seed: int) -> dict[str, Any]:
    records = []
    for i, sample in enumerate(bench.samples(n, seed, bench.options_model())):
        start = time.perf_counter()
        out = asyncio.run(run_sample(bench, sample, AgentContext(agent=agent, seed=seed)))
        records.append(
            SampleRecord(i, sample, "done", out.output, out.scores, out.error, [], time.perf_counter() - start)
        )
    return dict(bench.summarize(records))


def bench_table(n: int, seed: int) -> None:
    active, passive = TosActiveBenchmark(), TosPassiveBenchmark()
    rows = {
        "SCOUT (active)": _summary(active, "scout", n, seed),
        "STRATEGIST (active)": _summary(active, "strategist", n, seed),
        "symbolic (active)": _summary(active, "symbolic", n, seed),
        "STRATEGIST (passive)": _summary(passive, "strategist", n, seed),
    }
    print(f"[3] tos-active / tos-passive, {n} scenes, 3 questions per task (scores in %):")
    for line in format_table(rows).splitlines():
        print("    " + line)
    for name, m in rows.items():
        fb = f", false-belief F1 {m['fb_f1']:.3f}" if "fb_f1" in m else ""
        print(
            f"    {name}: coverage {m['coverage']:.3f}, map_overall {m['map_overall']:.3f} (dir {m['map_dir']:.3f}, "
            f"facing {m['map_facing']:.3f}, pos {m['map_pos']:.3f}){fb}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=100, help="procedural scenes for [1] and [2]")
    parser.add_argument("--table-scenes", type=int, default=30, help="scenes per row of the table [3]")
    parser.add_argument("--rounds", type=int, default=5, help="timing rounds for [1]")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="where to write the plot (default: a temp dir)")
    args = parser.parse_args()

    bench_env(episodes(args.scenes, args.seed), args.rounds)
    curves = bench_explorers(args.scenes, args.seed)
    bench_table(args.table_scenes, args.seed)
    out_dir = args.out or Path(tempfile.mkdtemp(prefix="bench_spatial_"))
    out_dir.mkdir(parents=True, exist_ok=True)
    path = plot_information_gain(
        curves, out_dir / "information_gain.png", title=f"Accumulated information gain, {args.scenes} 3-room scenes"
    )
    finals = ", ".join(f"{k} {v[-1]:.3f} after {len(v)} steps" for k, v in curves.items())
    print(f"[4] information-gain plot: {path} ({finals})")


if __name__ == "__main__":
    main()

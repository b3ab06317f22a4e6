"""Speed and memory of the symbolic tracker on ToMi/Hi-ToM-style question sets.

Run:  .venv/bin/python benchmarks/bench_tom.py [--hitom PATH]

Prints
1. the time to parse and answer a ToMi-size set (6,000 questions, every story distinct, so no sharing helps),
   target < 2 s on one core;
2. depth-4 (order_4) Hi-ToM questions answered per second, each story parsed and tracked from scratch,
   target >= 1,000 per second;
3. how the store grows with agents and depth, against a store that copies every chain's beliefs.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

from mindloop.beliefs import Event, EventKind, Fact, Tracker
from mindloop.systems.tom import evaluate_file
from mindloop.worlds.stories import generate_tomi, read_examples, to_numbered_text
from mindloop.worlds.stories.tomi import answer_question, track_story

DEFAULT_HITOM = Path(__file__).resolve().parents[2] / "shared" / "data" / "hitom-dev" / "hitom_dev.txt"


def bench_tomi_size(repeats: int = 5) -> None:
    examples = generate_tomi(6000, seed=0, noise=0.1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tomi6000.txt"
        path.write_text(to_numbered_text(examples), encoding="utf-8")
        wall, cpu = [], []
        for _ in range(repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            report = evaluate_file(path, "tomi")
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    print(f"[1] ToMi-size set: {report.n} questions ({len(examples)} distinct stories), accuracy {report.accuracy:.4f}")
    print(f"    read + parse + track + answer, one process on one core, {repeats} runs (target < 2 s):")
    print(
        f"    CPU time median {statistics.median(cpu):.3f} s (best {min(cpu):.3f} s); "
        f"wall median {statistics.median(wall):.3f} s (best {min(wall):.3f} s)"
    )


def bench_hitom_depth4(path: Path, rounds: int = 20) -> None:
    if path.exists():
        examples = [e for e in read_examples(path, "hitom") if e.question.qtype == "order_4"]
        label = f"{path.name}, order_4"
    else:
        generated = [g for g in generate_tomi(400, seed=1, max_order=4, hitom_questions=True) if g.qtype == "order_4"]
        with tempfile.TemporaryDirectory() as tmp:
            p = Path(tmp) / "gen.txt"
            p.write_text(to_numbered_text(generated), encoding="utf-8")
            examples = read_examples(p, "hitom")
        label = "generated order_4 (Hi-ToM data not found)"
    lines = sum(len(e.sentences) for e in examples) / len(examples)
    start = time.process_time()
    for _ in range(rounds):
        for ex in examples:  # no sharing: every question re-tracks its story
            answer_question(track_story(ex.sentences, "hitom", max_depth=4), ex.question)
    elapsed = time.process_time() - start
    n = rounds * len(examples)
    print(
        f"[2] depth-4 questions ({label}; {lines:.1f} story lines each): {n} in {elapsed:.3f} s "
        f"CPU time = {n / elapsed:,.0f} questions/s (target >= 1,000/s)"
    )


def bench_memory() -> None:
    print("[3] store size vs agents and depth (one story: 30 moves, each seen by a random half of the agents)")
    print("    agents depth   chains(all)  store writes  store bytes  per-chain-copy beliefs")
    import random

    for agents in (3, 5, 8):
        for depth in (2, 4, 6):
            rng = random.Random(0)
            names = [f"a{i}" for i in range(agents)]
            tracemalloc.start()
            tracker = Tracker(max_depth=depth)
            for t in range(30):
                seen = frozenset(rng.sample(names, max(1, agents // 2)))
                fact = Fact(f"obj{t % 4}", "in", f"box{rng.randrange(6)}")
                tracker.apply(Event(t, EventKind.MOVE, None, (fact,), seen))
            size, _ = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            chains = sum(agents * (agents - 1) ** (k - 1) for k in range(1, depth + 1))
            print(
                f"    {agents:6d} {depth:5d} {chains:13,d} {tracker.store.n_writes:13d} {size:12,d} {chains * 4:23,d}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hitom", type=Path, default=DEFAULT_HITOM, help="Hi-ToM file for the depth-4 benchmark")
    args = parser.parse_args()
    bench_tomi_size()
    bench_hitom_depth4(args.hitom)
    bench_memory()


if __name__ == "__main__":
    main()

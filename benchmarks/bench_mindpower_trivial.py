"""MindPower's trivial policies on ``mindpower-sim``: SR and AC (0-100) of answering the same ``<Action>`` line to
every scenario, whatever it shows.

    .venv/bin/python benchmarks/bench_mindpower_trivial.py [--seed 0] [--n 590] [--split test]

Policies: ``wait()``; each prompt example's ``<Action>`` line copied; the best constant sequence (among every
train-split gold sequence and every single action in them, the one with the highest mean SR on the train split),
fitted on train with the same ``controls`` choice and scored on the evaluated split. Each is printed for
``controls=exclude`` (the headline: scenarios that need help) and ``controls=include`` (help and controls pooled);
the issue's goal is SR <= 1 and AC <= 1 on the headline.
"""

from __future__ import annotations

import argparse
import time

from mindloop.systems.mindpower.reference import WAIT, best_constant, prompt_examples, score_constant
from mindloop.worlds.household.scenarios import mindpower_sim


def _golds(split: str, seed: int, n: int, controls: str) -> list[list[str]]:
    scenarios = mindpower_sim(split, seed=seed, n=n)
    keep = {"exclude": lambda s: not s.control, "include": lambda s: True, "only": lambda s: s.control}[controls]
    return [list(s.gold.actions) for s in scenarios if keep(s)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n", type=int, default=590)
    ap.add_argument("--split", default="test", choices=("test", "train", "all"))
    args = ap.parse_args()
    start = time.perf_counter()
    for controls in ("exclude", "include"):
        test = _golds(args.split, args.seed, args.n, controls)
        train = _golds("train", args.seed, args.n, controls)
        best = best_constant(train)
        rows = [("wait()", score_constant(WAIT, test))]
        rows += [(f"{name} copied", score_constant(ex.actions, test)) for name, ex in prompt_examples()]
        rows.append((f"best constant {', '.join(best.actions)}", score_constant(best.actions, test)))
        print(f"controls={controls}: {len(test)} {args.split} scenarios (best constant fitted on {len(train)} train)")
        for name, score in rows:
            ok = "OK" if score.sr * 100 <= 1 and score.ac * 100 <= 1 else "above 1"
            print(f"  {name:<70} SR {100 * score.sr:6.2f}  AC {100 * score.ac:6.2f}  [{ok}]")
        print(f"  (best constant on train: SR {100 * best.sr:.2f}, AC {100 * best.ac:.2f})")
    print(f"{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()

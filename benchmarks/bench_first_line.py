"""Seconds from starting ``mindloop bench run`` off a terminal to its first line on stderr (issue 25, goal < 1 s).

Each repetition starts ``python -m mindloop.cli bench run NAME --n N`` in a fresh ``MINDLOOP_HOME`` with stderr a
pipe (as under ``nohup`` or in CI, where no progress bar is drawn) and times, from the moment the process is
started, the first stderr line (``NAME: preparing up to N samples (seed S)``, printed once the options are checked
and before the samples are generated or read), the line that says the samples are running (printed once the run
is recorded, before a model, an encoder or the first sample loads), and the exit. The
median and maximum of each are printed; the first line's maximum is compared with the goal. Not a test: a loaded
machine is slower, and no test asserts wall-clock time.

    .venv/bin/python benchmarks/bench_first_line.py [--benchmark mindpower] [--n 3] [--reps 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

GOAL_S = 1.0


def _once(benchmark: str, n: int) -> tuple[float, float | None, float]:
    """(first stderr line, 'running' line or None, exit), in seconds from the start of the process."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "MINDLOOP_HOME": home, "COLUMNS": "100"}
        args = [sys.executable, "-m", "mindloop.cli", "bench", "run", benchmark, "--n", str(n)]
        start = time.perf_counter()
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        assert proc.stderr is not None
        first: float | None = None
        running: float | None = None
        for line in proc.stderr:
            now = time.perf_counter() - start
            first = now if first is None else first
            if running is None and ": running " in line:
                running = now
        code = proc.wait()
        end = time.perf_counter() - start
        if code != 0 or first is None:
            raise SystemExit(f"bench run {benchmark} exited {code} (first line: {first})")
        return first, running, end


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmark", default="hitom", help="benchmark to run (default hitom)")
    parser.add_argument("--n", type=int, default=3, help="samples per run (default 3)")
    parser.add_argument("--reps", type=int, default=5, help="repetitions (default 5)")
    args = parser.parse_args()
    results = [_once(args.benchmark, args.n) for _ in range(args.reps)]
    firsts = [r[0] for r in results]
    runnings = [r[1] for r in results if r[1] is not None]
    exits = [r[2] for r in results]

    def show(name: str, values: list[float]) -> str:
        if not values:
            return f"{name}: never"
        return f"{name}: median {statistics.median(values):.2f} s, max {max(values):.2f} s"

    print(f"bench run {args.benchmark} --n {args.n}, {args.reps} runs, stderr a pipe")
    print(show("first stderr line", firsts) + f" (goal < {GOAL_S:g} s: {'met' if max(firsts) < GOAL_S else 'missed'})")
    print(show("'running' line", runnings))
    print(show("exit", exits))


if __name__ == "__main__":
    main()

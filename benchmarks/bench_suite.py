"""Suite target: the ``quick`` suite with the symbolic agents (no model) finishes in under a minute on 2 cores.

Run: ``.venv/bin/python benchmarks/bench_suite.py [--repeats N]``. Each repeat runs ``mindloop suite run --json``
as a fresh process in a temporary ``MINDLOOP_HOME`` and times the whole process (interpreter start, imports, the
similarity encoders MindPower and OmniToM load, every run, the store), then writes the suite's report with its run
reports and times that too. It prints each benchmark's own seconds, the suite's wall clock, the process's, and the
verdict against the target (the whole process, the figure a user waits for).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 60.0
MINDLOOP = Path(sys.executable).with_name("mindloop")


def _run(home: Path, *args: str) -> tuple[float, str]:
    env = dict(os.environ, MINDLOOP_HOME=str(home))
    start = time.perf_counter()
    proc = subprocess.run([str(MINDLOOP), *args], capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"mindloop {' '.join(args)} exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    return seconds, proc.stdout


def once(index: int) -> float:
    """One quick symbolic suite and its report; returns the suite process's seconds."""
    with tempfile.TemporaryDirectory(prefix="bench-suite-") as tmp:
        home = Path(tmp)
        seconds, out = _run(home, "suite", "run", "--preset", "quick", "--json")
        suite = json.loads(out)
        assert suite["complete"] and suite["tokens"]["calls"] == 0, suite
        runs = ", ".join(f"{r['benchmark']} {r['n']} in {r['seconds']:.2f} s" for r in suite["runs"])
        print(f"[{index}] runs: {runs}")
        report_s, _ = _run(home, "suite", "report", suite["suite_id"], "-o", str(home))
        print(
            f"[{index}] quick symbolic suite: {len(suite['runs'])} benchmarks, "
            f"{sum(r['n_completed'] for r in suite['runs'])} samples; suite wall clock {suite['seconds']:.1f} s, "
            f"whole process {seconds:.1f} s; suite report with {len(suite['runs'])} run reports {report_s:.1f} s"
        )
    return seconds


def main() -> None:
    """Run the quick symbolic suite ``--repeats`` times and print the median against the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    times = [once(i + 1) for i in range(args.repeats)]
    median = statistics.median(times)
    verdict = "OK" if median < TARGET_S else "MISSED"
    print(
        f"quick suite, symbolic agents, on {os.cpu_count()} cores: median {median:.1f} s over {len(times)} run(s) "
        f"(best {min(times):.1f} s) [target < {TARGET_S:.0f} s: {verdict}]"
    )


if __name__ == "__main__":
    main()

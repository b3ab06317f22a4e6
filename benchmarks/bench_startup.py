"""Start-up time of a one-sample run and of ``mindloop --help``: what the user waits for before anything happens.

Run: ``.venv/bin/python benchmarks/bench_startup.py [--repeats 5] [--label NAME]``. Times each command in a fresh
interpreter with an empty ``MINDLOOP_HOME`` (no model cache), best of ``--repeats``, beside the floor, ``python -c
pass`` in the same interpreter (and the load average, read before and after):

1. ``mindloop bench run smoke --model scripted/echo --n 1`` (target: at most 0.40 s, issue 39);
2. ``mindloop --help`` (target: at most 0.30 s, issue 39);
3. the one-sample run with ``--model openai/echo --base-url`` a local OpenAI-compatible server (the tests'
   :class:`~mindloop.models.fake_server.FakeChatServer`, in this process), the pre-flight check included
   (target: at most 0.40 s).

Each line gives the wall time and the child's CPU time (user + system), the best of the repeats for both: on a
machine shared with other work the CPU time moves less than the wall time. The children may write bytecode
caches (``PYTHONDONTWRITEBYTECODE`` is dropped for them), as an installed package has them; the unmeasured first
run writes them. ``--label`` names the line (e.g.
``before`` / ``after`` when comparing two trees). Nothing touches the network beyond 127.0.0.1.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

from mindloop.models.fake_server import FakeChatServer

TARGETS = {"scripted": 0.40, "help": 0.30, "server": 0.40}


def _once(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``mindloop`` command (``["-c", "pass"]``: the bare interpreter) in a fresh
    interpreter and an empty home."""
    with tempfile.TemporaryDirectory() as home:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # an install has its .pyc
        env["MINDLOOP_HOME"] = home
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        command = argv if argv[:1] == ["-c"] else ["-m", "mindloop.cli", *argv]
        proc = subprocess.run([sys.executable, *command], env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"mindloop {' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def best(argv: list[str], repeats: int) -> tuple[float, float]:
    """The best wall and the best CPU time over ``repeats`` runs (after one unmeasured run that warms the disk)."""
    _once(argv)
    runs = [_once(argv) for _ in range(repeats)]
    return min(w for w, _ in runs), min(c for _, c in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    label = f"[{args.label}] " if args.label else ""
    print(f"{label}load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; best of {args.repeats}")
    wall, cpu = best(["-c", "pass"], args.repeats)
    print(f"{label}python -c pass: {wall:.3f} s wall, {cpu:.3f} s CPU (the floor)")
    smoke = ["bench", "run", "smoke", "--n", "1"]
    wall, cpu = best([*smoke, "--model", "scripted/echo"], args.repeats)
    print(f"{label}scripted/echo, 1 sample: {wall:.3f} s wall, {cpu:.3f} s CPU (target {TARGETS['scripted']} s)")
    wall, cpu = best(["--help"], args.repeats)
    print(f"{label}mindloop --help: {wall:.3f} s wall, {cpu:.3f} s CPU (target {TARGETS['help']} s)")
    with FakeChatServer() as server:
        wall, cpu = best([*smoke, "--model", "openai/echo", "--base-url", server.base_url], args.repeats)
    print(f"{label}local server, 1 sample: {wall:.3f} s wall, {cpu:.3f} s CPU (target {TARGETS['server']} s)")
    print(f"{label}load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()

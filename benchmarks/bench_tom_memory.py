"""Peak memory and time of ``mindloop tom eval`` on large story files: it streams, so memory stays flat.

Run:  .venv/bin/python benchmarks/bench_tom_memory.py [--mb 50] [--keep DIR]

Writes a ToMi-style story file of about ``--mb`` megabytes with the same generator as ``mindloop tom generate``
(:mod:`mindloop.worlds.stories.generate`, noise 0.1, seeded chunks so the parent never holds the whole file), then
runs ``python -m mindloop.cli tom eval FILE --json`` in a child process on the first quarter, half and all of it
(each cut at a question line, so every part is a valid file) and prints the child's peak resident memory and CPU
seconds (from ``os.wait4``'s rusage of that child alone) and its wall-clock seconds. CPU time is what the
linearity check uses (wall time on a shared machine moves with the load), less the start-up measured on a
one-question file.

Targets (issue 14): peak memory under 200 MB for the 50 MB file, and time linear in size (the CPU seconds per MB
of the three runs within 25% of one another).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mindloop.worlds.stories import generate_tomi, to_numbered_text

MB = 1_000_000
TARGET_PEAK_MB = 200.0
CHUNK = 2000
"""Examples generated per seed: about 1 MB of text."""


def write_story_file(path: Path, size: int) -> int:
    """Write at least ``size`` bytes of generated stories to ``path``; returns the number of questions."""
    n = 0
    written = 0
    with path.open("w", encoding="utf-8") as fh:
        seed = 0
        while written < size:
            text = to_numbered_text(generate_tomi(CHUNK, seed=seed, noise=0.1))
            fh.write(text)
            written += len(text.encode("utf-8"))
            n += CHUNK
            seed += 1
    return n


def prefix(source: Path, target: Path, size: int) -> int:
    """Copy the examples of ``source`` that fit in about ``size`` bytes (cut after a question line)."""
    written = 0
    with source.open("rb") as src, target.open("wb") as dst:
        for line in src:
            dst.write(line)
            written += len(line)
            if written >= size and b"\t" in line:
                break
    return written


def measure(path: Path) -> tuple[float, float, float, dict[str, object]]:
    """Peak RSS (MB), wall seconds and CPU seconds (user + system) of ``tom eval PATH --json`` in a child
    process, and its JSON output."""
    env = dict(os.environ, MINDLOOP_HOME=str(path.parent / "home"))
    out_path, err_path = path.with_suffix(".out"), path.with_suffix(".err")
    start = time.perf_counter()
    with out_path.open("wb") as out_fh, err_path.open("wb") as err_fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mindloop.cli", "tom", "eval", str(path), "--json"],
            stdout=out_fh,
            stderr=err_fh,
            env=env,
        )
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage (RUSAGE_CHILDREN is a running maximum)
        proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        err = err_path.read_text(encoding="utf-8", errors="replace")
        raise SystemExit(f"tom eval failed (exit {proc.returncode}): {err[-2000:]}")
    out = out_path.read_text(encoding="utf-8")
    return usage.ru_maxrss / 1024, seconds, usage.ru_utime + usage.ru_stime, json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of the largest file in MB (default 50)")
    parser.add_argument("--keep", type=Path, help="write the files here and keep them (default: a temp folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        full = folder / "stories_full.txt"
        start = time.perf_counter()
        questions = write_story_file(full, int(args.mb * MB))
        print(f"wrote {full.stat().st_size / MB:.1f} MB ({questions} questions) in {time.perf_counter() - start:.1f} s")
        tiny = folder / "stories_tiny.txt"
        prefix(full, tiny, 1)
        base_peak, base_wall, base_cpu, _ = measure(tiny)
        print(f"  start-up (one question): peak RSS {base_peak:.1f} MB, {base_wall:.2f} s wall, {base_cpu:.2f} s CPU")
        rows = []
        for fraction in (0.25, 0.5, 1.0):
            part = folder / f"stories_{fraction:g}.txt"
            size = prefix(full, part, int(fraction * full.stat().st_size)) / MB
            peak, wall, cpu, report = measure(part)
            rate = (cpu - base_cpu) / size
            rows.append((size, peak, rate))
            print(
                f"  {size:6.1f} MB  {report['n']:>7} questions  peak RSS {peak:6.1f} MB  {wall:6.2f} s wall  "
                f"{cpu:6.2f} s CPU  ({rate:.3f} CPU s/MB after start-up)  accuracy {report['accuracy']}"
            )
        size, peak, _ = rows[-1]
        rates = [rate for _, _, rate in rows]
        spread = max(rates) / min(rates) - 1
        print(f"target: peak RSS < {TARGET_PEAK_MB:.0f} MB at {size:.0f} MB: {peak:.1f} MB, {_verdict(peak < 200)}")
        print(
            f"target: time linear in size (CPU s/MB within 25% across sizes): spread {spread:.0%}, "
            f"{_verdict(spread <= 0.25)}"
        )


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


if __name__ == "__main__":
    main()

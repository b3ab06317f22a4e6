"""Stop ``--executor process`` runs at random moments and count hangs, slow exits, lost samples and orphans.

Each trial starts ``mindloop bench run faulty --executor process`` in a subprocess (the ``faulty`` test benchmark of
``tests/support/faulty_bench.py``: samples that sleep, raise or find no server on request) and stops it one way:

- ``abort``: a random sample raises a set-up error (DependencyError) while others are running;
- ``interrupt``: SIGINT or SIGTERM (at random), a random delay after the first sample started;
- ``breaker``: samples from a random index on find no server, so the circuit breaker opens;
- ``kill``: SIGKILL of the parent, likewise (no store check: nothing can run its clean-up);
- ``local``: SIGINT or SIGTERM to a model run of ToMi on the *local* executor, its requests held 50 ms each at a
  fake OpenAI-compatible server (a signal raised inside httpx's code once left a lock that the run's clean-up waited
  on for ever).

A trial *hangs* when the run has not exited 60 s after its stop. Each exit is timed from the stop (the signal, or
the logged moment the failing sample raised or the breaker's last needed failure was reported). After each exit
the store must hold every sample as finished or pending (finished + pending = n), and every worker the log saw must
be gone within 10 s (an *orphan* otherwise). One exception, as documented: a set-up error before any sample finished
removes the run (``removed``; running the same command again starts afresh), so its store holds no run at all.

    .venv/bin/python benchmarks/stress_process_executor.py                # 200 of each stop
    .venv/bin/python benchmarks/stress_process_executor.py --trials 20 --kinds abort,kill
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from mindloop.models.fake_server import FakeChatServer, echo_reply

SUPPORT = Path(__file__).resolve().parents[1] / "tests" / "support"
PARENT = f"""
import sys
sys.path.insert(0, {str(SUPPORT)!r})
from mindloop.bench.registry import BENCHMARKS
BENCHMARKS.register("faulty", "faulty_bench:FaultyBenchmark")
from mindloop.cli import main
sys.exit(main(sys.argv[1:]))
"""
KINDS = ("abort", "interrupt", "breaker", "kill", "local")
HANG_S = 60.0
ORPHAN_S = 10.0


@dataclass
class Trial:
    kind: str
    hung: bool = False
    exit_s: float | None = None
    accounted: bool | None = None  # finished + pending == n (None: not checked)
    removed: bool = False  # an abort before any sample finished: the run is gone from the store, as documented
    orphans: int = 0
    note: str = ""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in {"Z", "X"}


def _events(log: Path) -> list[tuple[str, int, float, str]]:
    if not log.exists():
        return []
    out = []
    for line in log.read_text().splitlines():
        parts = line.split()
        if len(parts) == 4:
            out.append((parts[0], int(parts[1]), float(parts[2]), parts[3]))
    return out


def _counts(store: Path) -> tuple[int, int]:
    """(finished, pending) samples of the one run in ``store``."""
    with sqlite3.connect(f"{store.as_uri()}?mode=ro", uri=True, timeout=30) as db:
        rows = dict(db.execute("SELECT status = 'pending', COUNT(*) FROM samples GROUP BY status = 'pending'"))
    return rows.get(0, 0), rows.get(1, 0)


def _runs(store: Path) -> int:
    """How many runs ``store`` holds."""
    with sqlite3.connect(f"{store.as_uri()}?mode=ro", uri=True, timeout=30) as db:
        return int(db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])


def _created(store: Path, n: int) -> bool:
    """Whether the run in ``store`` holds its ``n`` samples (it has begun; a signal before is not what is tested)."""
    try:
        return store.exists() and sum(_counts(store)) == n
    except sqlite3.Error:
        return False


def trial(kind: str, seed: int, base_url: str) -> Trial:
    """One stop of ``kind``; ``base_url`` is the fake server the ``local`` trials' model runs ask."""
    rng = random.Random(seed)
    result = Trial(kind)
    with tempfile.TemporaryDirectory(prefix="stress-") as tmp:
        home, log = Path(tmp), Path(tmp) / "calls.log"
        n, concurrency = rng.randint(8, 24), rng.randint(2, 4)
        opts = [f"log={log}", f"sleep_s={rng.uniform(0.0, 0.08):.3f}"]
        extra: list[str] = []
        if kind == "abort":
            opts.append(f"faults=f{rng.randrange(n):05d}:dependency")
        elif kind == "breaker":
            opts.append(f"no_server_from={rng.randrange(n)}")
            extra = ["--agent", "model", "--model", "scripted/echo", "--breaker", "3"]
        argv = ["bench", "run", "faulty", "--executor", "process", "--n", str(n), "--concurrency", str(concurrency)]
        for opt in opts:
            argv += ["--opt", opt]
        if kind == "local":
            argv = ["bench", "run", "tomi", "--n", str(n), "--seed", str(seed), "--concurrency", str(concurrency)]
            extra = ["--agent", "model", "--model", "openai/fake", "--base-url", base_url, "--cache", "off"]
        env = dict(os.environ, MINDLOOP_HOME=str(home))
        proc = subprocess.Popen(
            [sys.executable, "-c", PARENT, *argv, *extra],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # a hung trial is killed with its whole group
        )
        stop_at: float | None = None
        if kind in ("interrupt", "kill", "local"):  # at a random moment once the run is under way
            deadline = time.monotonic() + HANG_S
            started = (lambda: _created(home / "runs.sqlite", n)) if kind == "local" else log.exists
            while not started() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.8 if kind == "local" else 2.0))
            stop_at = time.time()
            proc.send_signal(signal.SIGKILL if kind == "kill" else rng.choice([signal.SIGINT, signal.SIGTERM]))
        try:
            _, err = proc.communicate(timeout=HANG_S if stop_at is not None else HANG_S + 120)
        except subprocess.TimeoutExpired:
            result.hung = True
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return result
        ended = time.time()
        events = _events(log)
        if stop_at is None:  # the stop came from inside: when the failing sample raised, or the breaker opened
            moments = sorted(t for _, _, t, e in events if e in ("raise", "fail"))
            if kind == "breaker" and len(moments) >= 3:
                stop_at = moments[2]
            elif moments:
                stop_at = moments[0]
        result.exit_s = ended - stop_at if stop_at is not None else None
        if kind != "kill":
            store = home / "runs.sqlite"
            if store.exists():
                finished, pending = _counts(store)
                result.removed = kind == "abort" and _runs(store) == 0 and "so the run was removed" in err
                result.accounted = finished + pending == n or result.removed
                if not result.accounted:
                    result.note = f"n={n}: {finished} finished + {pending} pending; {err.strip()[-300:]}"
            else:
                result.accounted = False
                result.note = f"no store; {err.strip()[-300:]}"
        workers = {pid for _, pid, _, _ in events}
        deadline = time.monotonic() + ORPHAN_S
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        result.orphans = sum(_alive(p) for p in workers)
        for pid in workers:  # leave nothing behind for the next trial
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=200, help="trials of each kind (default 200)")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)}")
    parser.add_argument("--parallel", type=int, default=2, help="trials at once (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        parser.error(f"unknown kinds {sorted(unknown)}; known: {', '.join(KINDS)}")
    load = os.getloadavg()
    print(f"{args.trials} trials of each of {', '.join(kinds)}; {args.parallel} at once; load {load[0]:.2f}")
    jobs = [
        (kind, args.seed * 1_000_003 + i * len(KINDS) + KINDS.index(kind)) for i in range(args.trials) for kind in kinds
    ]
    started = time.monotonic()
    with FakeChatServer(echo_reply, latency_s=0.05) as server, ThreadPoolExecutor(args.parallel) as pool:
        results = list(pool.map(lambda job: trial(*job, server.base_url), jobs))
    head = ("stop", "trials", "hangs", "slowest exit", "median exit", "unaccounted", "removed", "orphans")
    print(
        f"{head[0]:<10} {head[1]:>6} {head[2]:>6} {head[3]:>13} {head[4]:>12} {head[5]:>12} {head[6]:>8} {head[7]:>8}"
    )
    for kind in kinds:
        mine = [r for r in results if r.kind == kind]
        exits = sorted(r.exit_s for r in mine if r.exit_s is not None)
        slowest = f"{exits[-1]:.2f} s" if exits else "-"
        median = f"{exits[len(exits) // 2]:.2f} s" if exits else "-"
        checked = [r for r in mine if r.accounted is not None]
        unaccounted = f"{sum(not r.accounted for r in checked)}/{len(checked)}" if checked else "-"
        hangs = sum(r.hung for r in mine)
        orphans = sum(r.orphans for r in mine)
        removed = sum(r.removed for r in mine)
        print(
            f"{kind:<10} {len(mine):>6} {hangs:>6} {slowest:>13} {median:>12} {unaccounted:>12} {removed:>8} "
            f"{orphans:>8}"
        )
    for r in results:
        if r.note:
            print(f"  {r.kind}: {r.note}")
    total_hangs = sum(r.hung for r in results)
    total_orphans = sum(r.orphans for r in results)
    bad = total_hangs + total_orphans + sum(r.accounted is False for r in results)
    print(
        f"{len(results)} stops in {time.monotonic() - started:.0f} s: {total_hangs} hangs, {total_orphans} orphaned "
        f"workers, load {os.getloadavg()[0]:.2f}"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

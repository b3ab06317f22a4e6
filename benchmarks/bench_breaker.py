"""Seconds from a model server's death to the run saying so: the circuit breaker's reaction time (issue 27).

Each repetition starts the fake OpenAI-compatible server (``python -m mindloop.models.fake_server``) on a free
port, starts ``mindloop bench run hitom --agent model --model openai/fake --cache off`` against it in a fresh
``MINDLOOP_HOME``, SIGKILLs the server ``--kill-after`` seconds after the run stored its first sample (so the
CLI's start-up, slow on a loaded machine, is not what gets measured) and times how long the run takes to exit
from that moment. The run must exit 1 with the ``stopped: ... --resume RUN_ID`` line; the maximum over the
repetitions is printed per concurrency (goal: at most 10 s).

    .venv/bin/python benchmarks/bench_breaker.py [--reps 10] [--concurrency 1 8] [--executor local|process]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_S = 10.0
_CLI = "import sys\nfrom mindloop.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(port: int, latency: float) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "mindloop.models.fake_server", "--port", str(port), "--latency", str(latency)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().startswith("http://")  # listening
    return proc


def _finished(store: str) -> int:
    """Samples the run has stored so far (0 before its store exists)."""
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT COUNT(*) FROM samples WHERE status != 'pending'").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def one_run(concurrency: int, n: int, kill_after: float, latency: float, executor: str) -> tuple[float, int, str]:
    """Seconds from the kill to the run's exit, its exit code and its ``stopped:`` line (else its last line)."""
    port = _free_port()
    server = _serve(port, latency)
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, MINDLOOP_HOME=home, COLUMNS="200")
        args = ["bench", "run", "hitom", "--agent", "model", "--model", "openai/fake", "--cache", "off"]
        args += ["--base-url", f"http://127.0.0.1:{port}/v1", "--n", str(n), "--concurrency", str(concurrency)]
        args += ["--executor", executor]
        run = subprocess.Popen(
            [sys.executable, "-c", _CLI, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        try:
            while _finished(str(Path(home) / "runs.sqlite")) == 0 and run.poll() is None:
                time.sleep(0.02)
            time.sleep(kill_after)
            if run.poll() is not None:
                err = run.stderr.read() if run.stderr else ""
                raise SystemExit(f"the run ended before the kill (raise --n): {err}")
            server.send_signal(signal.SIGKILL)
            killed = time.perf_counter()
            _, err = run.communicate(timeout=600)
            seconds = time.perf_counter() - killed
        finally:
            server.kill()
            server.wait()
            if run.poll() is None:
                run.kill()
                run.wait()
    lines = err.strip().splitlines() or [""]
    return seconds, run.returncode, next((line for line in lines if line.startswith("stopped:")), lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--kill-after", type=float, default=1.0, help="seconds after the first stored sample")
    parser.add_argument("--n", type=int, default=200, help="samples at concurrency 1 (x concurrency above that)")
    parser.add_argument("--latency", type=float, default=0.05, help="the fake server's seconds per reply")
    parser.add_argument("--executor", default="local", choices=["local", "process"])
    args = parser.parse_args()
    worst: dict[int, float] = {}
    for concurrency in args.concurrency:
        times = []
        for rep in range(args.reps):
            n = args.n * concurrency  # enough samples that the run is still going at the kill
            seconds, code, line = one_run(concurrency, n, args.kill_after, args.latency, args.executor)
            ok = code == 1 and line.startswith("stopped:") and "--resume" in line
            print(f"concurrency {concurrency} rep {rep + 1}: {seconds:.2f} s, exit {code}{'' if ok else ': ' + line}")
            times.append(seconds)
        worst[concurrency] = max(times)
    for concurrency, seconds in worst.items():
        verdict = "OK" if seconds <= GOAL_S else "MISSED"
        print(
            f"kill -> exit, {args.executor} executor, concurrency {concurrency}: max {seconds:.2f} s over {args.reps} "
            f"runs [goal <= {GOAL_S:g} s: {verdict}]"
        )


if __name__ == "__main__":
    main()

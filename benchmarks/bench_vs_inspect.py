"""Harness overhead, whole process, against inspect_ai: the same prompts, the same server, side by side.

Setup once (needs PyPI): ``benchmarks/setup_inspect_env.sh`` makes ``.venv-inspect`` with inspect-ai, the openai
client and mindloop. Run: ``.venv-inspect/bin/python benchmarks/bench_vs_inspect.py`` (nothing is downloaded).

A local OpenAI-compatible server (:class:`~mindloop.models.fake_server.FakeChatServer`, in its own process,
HTTP/1.1 keep-alive) answers every chat request after 50 ms. Against it, each round times two subprocesses from
start to exit (Python start-up, imports, pre-flight, the calls, writing results, the summary):

- ``mindloop bench run smoke --model openai/fake --base-url URL --n 400 --concurrency 32 --cache off``;
- ``inspect eval`` of a task holding the same 400 prompts (``Reply with exactly this word and nothing else: WORD``)
  with a ``generate()`` solver and a ``match()`` scorer, model ``openai/fake`` pointed at the same server
  (``OPENAI_BASE_URL``, ``-M responses_api=false``: chat completions) with ``--max-connections 32``, its log
  written as usual, no live display (``--display none``).

The latency floor is ``n x latency / concurrency`` (400 x 0.05 / 32 = 0.625 s). Targets (issue 16): mindloop
within 2x of the floor, and at least 3x faster than inspect_ai. After each run, untimed, the run's results are
read back (mindloop's run store, inspect's log) and must hold every sample answered and scored correct. The
rounds alternate which harness goes first; the load average is printed beside the figures, since the machine is
shared.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

_SERVER = """
import sys, time
from mindloop.models.fake_server import FakeChatServer
server = FakeChatServer(latency_s=float(sys.argv[1])).start()
print(server.base_url, flush=True)
time.sleep(3600)
"""

_PROMPTS = """
import json, sys
from mindloop.bench.api import Options
from mindloop.bench.smoke import SmokeBenchmark
samples = SmokeBenchmark().samples(int(sys.argv[1]), 0, Options())
prompt = "Reply with exactly this word and nothing else: {}"
rows = [{"id": s.id, "input": prompt.format(s.input["word"]), "target": s.input["word"]} for s in samples]
print(json.dumps(rows))
"""

_TASK = '''
"""The smoke prompts as an inspect_ai task: generate, then match the word."""
import json
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match
from inspect_ai.solver import generate


@task
def smoke():
    rows = json.loads(Path(__file__).with_name("prompts.json").read_text())
    return Task(
        dataset=[Sample(id=r["id"], input=r["input"], target=r["target"]) for r in rows],
        solver=generate(),
        scorer=match(),
    )
'''

_MINDLOOP_STORE = """
import json, sys
from pathlib import Path
from mindloop.bench.store import RunStore
with RunStore(Path(sys.argv[1]) / "runs.sqlite", readonly=True) as store:
    [info] = store.runs()
    records = store.records(info.run_id)
done = [r for r in records if r.status == "done"]
print(json.dumps({"samples": len(done), "correct": sum(r.scores.get("correct", 0.0) == 1.0 for r in done)}))
"""

_INSPECT_LOG = """
import json, sys
from inspect_ai.log import list_eval_logs, read_eval_log
[info] = list_eval_logs(sys.argv[1])
log = read_eval_log(info)
scores = [s.scores["match"].value for s in log.samples]
print(json.dumps({"status": log.status, "samples": len(scores), "correct": scores.count("C")}))
"""


def _env_bin(name: str) -> Path:
    """A command of the environment running this script (mindloop's and inspect's console scripts)."""
    return Path(sys.executable).parent / name


@contextlib.contextmanager
def _server(latency_s: float) -> Iterator[str]:
    """The fake server in its own process, as a real model server would be (no GIL shared with either client)."""
    proc = subprocess.Popen([sys.executable, "-c", _SERVER, str(latency_s)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        proc.kill()
        proc.wait()


def _cpu_of_children() -> float:
    """User + system CPU seconds of the finished children (and theirs) so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of ``cmd`` from its start to its exit; a failure stops the benchmark with its output.

    The CPU seconds (``cmd`` and its children, from the kernel's accounting) say what the harness itself costs
    however loaded the machine is; the wall seconds are what the targets are about."""
    cpu = _cpu_of_children()
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd[:3])} ... exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return seconds, _cpu_of_children() - cpu


def _run_mindloop(url: str, n: int, concurrency: int, src: Path | None) -> tuple[float, float]:
    """One timed ``mindloop bench run smoke`` in a fresh run store; checks the store holds n correct samples.

    ``src`` runs mindloop from another source tree (``PYTHONPATH``), to compare two versions on one machine."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "MINDLOOP_HOME": home} | ({"PYTHONPATH": str(src)} if src else {})
        cmd = [str(_env_bin("mindloop")), "bench", "run", "smoke", "--model", "openai/fake", "--base-url", url]
        cmd += ["--n", str(n), "--concurrency", str(concurrency), "--cache", "off"]
        seconds = _timed(cmd, env)
        read = subprocess.run(
            [sys.executable, "-c", _MINDLOOP_STORE, home], capture_output=True, text=True, env=env, check=True
        )
        got = json.loads(read.stdout)
        if got != {"samples": n, "correct": n}:
            sys.exit(f"mindloop run is not {n} correct samples: {got}")
    return seconds


def _run_inspect(task_dir: Path, url: str, n: int, concurrency: int) -> tuple[float, float]:
    """One timed ``inspect eval`` into a fresh log directory; checks the log holds n samples scored correct."""
    with tempfile.TemporaryDirectory() as logs:
        env = {**os.environ, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "unused-by-the-fake-server"}
        env.pop("INSPECT_EVAL_MODEL", None)
        # run from the task's folder: inspect 0.3.285 on Python 3.11 refuses an absolute task path (pathlib glob)
        cmd = [str(_env_bin("inspect")), "eval", "smoke_task.py", "--model", "openai/fake"]
        cmd += ["-M", "responses_api=false"]  # /chat/completions, as mindloop and local servers speak (not /responses)
        cmd += ["--max-connections", str(concurrency), "--log-dir", logs, "--display", "none"]
        cmd += ["--log-level", "warning"]
        seconds = _timed(cmd, env, cwd=task_dir)
        read = subprocess.run([sys.executable, "-c", _INSPECT_LOG, logs], capture_output=True, text=True, check=True)
        got = json.loads(read.stdout)
        if got != {"status": "success", "samples": n, "correct": n}:
            sys.exit(f"inspect_ai run is not {n} correct samples: {got}")
    return seconds


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=400, help="prompts, one call each (default 400)")
    parser.add_argument("--concurrency", type=int, default=32, help="requests in flight (default 32)")
    parser.add_argument("--latency", type=float, default=0.05, help="the server's seconds per reply (default 0.05)")
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds of both harnesses (default 3)")
    parser.add_argument(
        "--mindloop-src", type=Path, help="run mindloop from this source tree's src/ (to time another version)"
    )
    args = parser.parse_args()
    missing = [name for name in ("mindloop", "inspect") if not _env_bin(name).exists()]
    if missing:
        sys.exit(
            f"no {' or '.join(missing)} beside {sys.executable}: run benchmarks/setup_inspect_env.sh, then "
            ".venv-inspect/bin/python benchmarks/bench_vs_inspect.py"
        )
    floor = args.n * args.latency / args.concurrency
    times: dict[str, list[float]] = {"mindloop": [], "inspect_ai": []}
    cpus: dict[str, list[float]] = {"mindloop": [], "inspect_ai": []}
    src = args.mindloop_src.resolve() / "src" if args.mindloop_src else None
    with tempfile.TemporaryDirectory() as task_dir, _server(args.latency) as url:
        prompts = subprocess.run([sys.executable, "-c", _PROMPTS, str(args.n)], capture_output=True, text=True)
        (Path(task_dir) / "prompts.json").write_text(prompts.stdout)
        (Path(task_dir) / "smoke_task.py").write_text(textwrap.dedent(_TASK))
        runs = {
            "mindloop": lambda: _run_mindloop(url, args.n, args.concurrency, src),
            "inspect_ai": lambda: _run_inspect(Path(task_dir), url, args.n, args.concurrency),
        }
        for run in runs.values():  # untimed: byte-compiled caches written, the server's threads warm
            run()
        print(f"{args.n} one-call prompts, {args.concurrency} in flight, server {args.latency * 1000:.0f} ms a reply")
        for k in range(args.repeats):
            order = list(runs) if k % 2 == 0 else list(reversed(runs))
            load = _load()
            for name in order:
                wall, cpu = runs[name]()
                times[name].append(wall)
                cpus[name].append(cpu)
            ratio = times["inspect_ai"][-1] / times["mindloop"][-1]
            print(
                f"round {k + 1}: mindloop {times['mindloop'][-1]:.2f} s (cpu {cpus['mindloop'][-1]:.2f} s), "
                f"inspect_ai {times['inspect_ai'][-1]:.2f} s (cpu {cpus['inspect_ai'][-1]:.2f} s), {ratio:.1f}x "
                f"[{load}]"
            )
    ml, ia = times["mindloop"], times["inspect_ai"]
    ml_med, ia_med = statistics.median(ml), statistics.median(ia)
    print(f"latency floor {args.n} x {args.latency:g} s / {args.concurrency} = {floor:.3f} s")
    print(
        f"mindloop: median {ml_med:.2f} s (best {min(ml):.2f}) = {ml_med / floor:.2f}x the floor "
        f"(best {min(ml) / floor:.2f}x) [target <= 2x: {'OK' if ml_med <= 2 * floor else 'MISSED'}]"
    )
    print(f"inspect_ai: median {ia_med:.2f} s (best {min(ia):.2f}) = {ia_med / floor:.2f}x the floor")
    print(
        f"cpu seconds, median: mindloop {statistics.median(cpus['mindloop']):.2f}, "
        f"inspect_ai {statistics.median(cpus['inspect_ai']):.2f}"
    )
    print(
        f"inspect_ai / mindloop: median {ia_med / ml_med:.1f}x (best times {min(ia) / min(ml):.1f}x) "
        f"[target >= 3x: {'OK' if ia_med / ml_med >= 3 else 'MISSED'}]"
    )
    print(_load())


if __name__ == "__main__":
    main()

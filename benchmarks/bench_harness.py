"""Harness targets: runner overhead, concurrency speed-up against a slow server, cache hits, report rendering.

Run: ``.venv/bin/python benchmarks/bench_harness.py``. Prints four figures against the issue's targets:

1. runner overhead per sample with the scripted backend (target: at most 1 ms);
2. 200 calls to a local OpenAI-compatible server answering in 50 ms, at ``--concurrency 32`` vs 1
   (target: at least 20x faster);
3. HTTP requests made by a second identical temperature-0 run (target: zero, all cache hits);
4. rendering the HTML report of a 10,000-sample run (target: under 10 s; the test checks only its size).

Everything runs in a temporary ``MINDLOOP_HOME``; nothing touches the network beyond 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from mindloop.bench.api import Sample
from mindloop.bench.report import render_report
from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore, SampleResult
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer


def _run(store: RunStore, **kwargs: object) -> tuple[float, dict[str, object]]:
    start = time.perf_counter()
    summary = run_benchmark(RunRequest("smoke", **kwargs), store=store, progress=False)  # type: ignore[arg-type]
    return time.perf_counter() - start, summary.to_json()


def overhead(store: RunStore, n: int = 5000, repeats: int = 3) -> None:
    """Whole-run wall time per sample, scripted replies: generation, store writes, summary, everything."""
    per_sample = []
    for _ in range(repeats):
        seconds, summary = _run(store, n=n, model="scripted/echo", concurrency=1)
        assert summary["n_completed"] == n and summary["metrics"] == {"accuracy": 1.0}
        per_sample.append(seconds / n * 1000)
    best, median = min(per_sample), statistics.median(per_sample)
    verdict = "OK" if median <= 1.0 else "MISSED"
    print(
        f"runner overhead, scripted backend, {n} samples: median {median:.3f} ms/sample (best {best:.3f}) "
        f"[target <= 1 ms: {verdict}]"
    )


_SERVER = """
import sys, time
from mindloop.models.fake_server import FakeChatServer
server = FakeChatServer(latency_s=float(sys.argv[1])).start()
print(server.base_url, flush=True)
time.sleep(3600)
"""


@contextlib.contextmanager
def _server_process(latency_s: float) -> Iterator[str]:
    """A fake server in its own process, as a real model server would be (no GIL shared with the client)."""
    proc = subprocess.Popen([sys.executable, "-c", _SERVER, str(latency_s)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        proc.kill()
        proc.wait()


def concurrency(store: RunStore, calls: int = 200, latency_s: float = 0.05) -> None:
    """The same 200 calls at concurrency 1 and 32 against a server (own process) that takes 50 ms per answer."""
    times = {}
    with _server_process(latency_s) as url:
        for k in (1, 32):
            opts = ModelOptions(base_url=url, cache="off", concurrency=k)
            seconds, summary = _run(store, n=calls, model="openai/fake", concurrency=k, model_options=opts)
            assert summary["n_completed"] == calls and summary["n_failed"] == 0
            times[k] = seconds
    speedup = times[1] / times[32]
    verdict = "OK" if speedup >= 20 else "MISSED"
    print(
        f"{calls} calls at {latency_s * 1000:.0f} ms each: concurrency 1 {times[1]:.2f} s, "
        f"concurrency 32 {times[32]:.2f} s -> {speedup:.1f}x faster [target >= 20x: {verdict}]"
    )


def cache(store: RunStore, calls: int = 200) -> None:
    """Two identical temperature-0 runs: the second must be answered entirely from the response cache."""
    with FakeChatServer(latency_s=0.01) as server:
        opts = ModelOptions(base_url=server.base_url, concurrency=16)
        _, first = _run(store, n=calls, model="openai/fake", concurrency=16, model_options=opts)
        after_first = server.requests
        _, second = _run(store, n=calls, model="openai/fake", concurrency=16, model_options=opts)
        extra = server.requests - after_first
    tokens = second["tokens"]
    assert isinstance(tokens, dict) and first["metrics"] == second["metrics"]
    verdict = "OK" if extra == 0 else "MISSED"
    print(
        f"second identical temperature-0 run of {calls} calls: {extra} HTTP requests, "
        f"{tokens['cache_hits']}/{tokens['calls']} cache hits [target 0 requests: {verdict}]"
    )


def report(store: RunStore, n: int = 10_000) -> None:
    """Render the HTML report of a stored run of ``n`` samples, each with one recorded model call."""
    story = [f"Person {k} moved the apple to the box number {k % 7}." for k in range(12)]
    samples = [
        Sample(f"q{i:05d}", {"story": story[i % 5 :], "question": f"apple {i}?", "answer": "box"}) for i in range(n)
    ]
    run_id = store.create_run(
        benchmark="tomi", agent="model", model="scripted/x", config={"n": n}, samples=samples, version="0.1.0"
    )
    call = {"model": "scripted/x", "messages": [{"role": "user", "content": "Where?"}], "params": {}, "error": None}
    results = [
        SampleResult(
            i, "done", {"answer": "box"}, {"correct": float(i % 3 != 0)}, None, [{**call, "text": "box"}], 0.001
        )
        for i in range(n)
    ]
    store.finish(run_id, results)
    start = time.perf_counter()
    page = render_report(run_id, store)
    seconds = time.perf_counter() - start
    verdict = "OK" if seconds < 10 else "MISSED"
    print(f"HTML report of {n} samples: {seconds:.2f} s, {len(page.encode()) / 1e6:.1f} MB [target < 10 s: {verdict}]")


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        os.environ["MINDLOOP_HOME"] = home
        with RunStore(Path(home) / "runs.sqlite") as store:
            overhead(store)
            concurrency(store)
            cache(store)
            report(store)


if __name__ == "__main__":
    main()

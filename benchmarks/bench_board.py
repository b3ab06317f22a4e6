"""Board at scale: ``mindloop board`` over a store of 5,000 runs, written and opened in Chromium.

Run: ``.venv/bin/python benchmarks/bench_board.py [--runs 5000] [--samples 20] [--keep DIR]``. It builds a store in
a temporary ``MINDLOOP_HOME``: a few real runs (ToMi and Hi-ToM with the symbolic agent, and scripted model runs
whose summaries the runner computes and stores), then copies of them under new run ids, models and start times
until there are ``--runs`` runs, each copy with its samples and its stored summary (the headline nudged so the
leaderboards have an order), a tenth of them left unfinished and a suite holding the first. It then times
``mindloop board -o DIR`` as a fresh process (interpreter start and imports included) and ``board_data`` in
process, prints the page's size, and opens the page in headless Chromium at 1280 px: the script's own time from
navigation start to the first full render (``data-ready``), and the time of a sort click and of a filter change on
every run, measured in the page (``performance.now()``), and the whole browser process's wall clock. Wall clocks
on a shared machine depend on its load; the CPU seconds of the command (user + system) much less.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import random
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MINDLOOP = Path(sys.executable).with_name("mindloop")

PROBE = """
(function () {
  var out = { ready_ms: Number(document.body.dataset.readyMs), script_ms: Number(document.body.dataset.scriptMs),
              rows: document.querySelectorAll("#run-table tbody tr").length };
  var t0 = performance.now();
  document.querySelector('#run-table th[data-key="value"]').click();
  out.sort_ms = performance.now() - t0;
  var sel = document.getElementById("f-benchmark");
  t0 = performance.now();
  sel.value = "hitom"; sel.dispatchEvent(new Event("change"));
  out.filter_ms = performance.now() - t0;
  out.showing = document.getElementById("showing").textContent;
  var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
"""


def build(home: Path, runs: int, samples: int, seed: int) -> None:
    """A store of ``runs`` runs: real seeds, then copies of them (samples and stored summaries) under new ids."""
    from mindloop.bench.api import Sample
    from mindloop.bench.runner import RunRequest, run_benchmark, summarize_run
    from mindloop.bench.store import RunStore, SampleResult
    from mindloop.bench.suite import SuiteRequest, run_suite

    rng = random.Random(seed)
    path = home / "runs.sqlite"
    with RunStore(path) as store:
        run_suite(SuiteRequest(only=("tomi",)), store=store, progress=False)
        run_benchmark(RunRequest(benchmark="hitom", n=samples), store=store, progress=False)
        choices = ["box", "basket", "drawer", "chest"]
        for k in range(4):
            items = [
                Sample(
                    f"q{i:03d}",
                    {
                        "story": ["Anne put the apple in the box."],
                        "question": "Where is the apple?",
                        "answer": "box",
                        "choices": choices,
                    },
                    ("reality", "memory")[i % 2],
                )
                for i in range(samples)
            ]
            run_id = store.create_run(
                benchmark="tomi",
                agent="model",
                model=f"seed-model-{k}",
                config={"n": samples, "seed": 0, "options": {}},
                samples=items,
                version="bench",
            )
            right = rng.randrange(samples + 1)
            store.finish(
                run_id,
                [
                    SampleResult(
                        i,
                        "done",
                        {"answer": "box" if i < right else "chest"},
                        {"correct": float(i < right)},
                        None,
                        [],
                        0.1,
                    )
                    for i in range(samples)
                ],
            )
            summarize_run(run_id, store, computed_by="run")
    db = sqlite3.connect(path)
    seeds = db.execute("SELECT run_id, benchmark FROM runs").fetchall()
    columns = [r[1] for r in db.execute("PRAGMA table_info(runs)")]
    sample_columns = [r[1] for r in db.execute("PRAGMA table_info(samples)")]
    models = [f"vendor-{v}/model-{m}-{size}b" for v in range(6) for m in range(8) for size in (7, 70)]
    made = len(seeds)
    with db:
        while made < runs:
            source, bench = seeds[made % len(seeds)]
            run_id = f"{bench}-20260101-{made:06d}-{rng.randrange(16**4):04x}"
            row = dict(
                zip(columns, db.execute("SELECT * FROM runs WHERE run_id = ?", (source,)).fetchone(), strict=True)
            )
            row |= {
                "run_id": run_id,
                "model": rng.choice(models),
                "agent": "model",
                "lock_owner": None,
                "started": f"2026-{1 + made % 12:02d}-{1 + made % 28:02d}T{made % 24:02d}:{made % 60:02d}:00+00:00",
            }
            db.execute(f"INSERT INTO runs ({','.join(row)}) VALUES ({','.join('?' * len(row))})", list(row.values()))
            unfinished = made % 10 == 0
            cols = ",".join(c for c in sample_columns if c != "run_id")
            status = "CASE WHEN idx % 2 = 1 THEN 'pending' ELSE status END" if unfinished else "status"
            db.execute(
                f"INSERT INTO samples (run_id,{cols}) SELECT ?,{cols.replace('status', status)} FROM samples"
                " WHERE run_id = ?",
                (run_id, source),
            )
            summary = json.loads(
                db.execute("SELECT summary FROM run_summaries WHERE run_id = ?", (source,)).fetchone()[0]
            )
            head = summary["definitions"]["headline"]["metric"]
            value = min(1.0, max(0.0, float(summary["metrics"][head]) + rng.uniform(-0.2, 0.2)))
            summary["metrics"][head] = value
            if head in summary["intervals"].get("metrics", {}):
                summary["intervals"]["metrics"][head] |= {"low": max(0.0, value - 0.08), "high": min(1.0, value + 0.08)}
            if unfinished:
                summary["counts"] = [0, 0, 0]  # a stale summary: samples finished since it was stored
            db.execute(
                "INSERT INTO run_summaries (run_id, summary, saved) VALUES (?, ?, ?)",
                (run_id, json.dumps(summary), "2026-01-01T00:00:00+00:00"),
            )
            made += 1
    db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="also copy the board here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-board-") as tmp:
        home = Path(tmp)
        os.environ["MINDLOOP_HOME"] = str(home)
        start = time.perf_counter()
        build(home, args.runs, args.samples, args.seed)
        print(
            f"built a store of {args.runs:,} runs ({args.samples} samples each) in {time.perf_counter() - start:.1f} s;"
            f" {(home / 'runs.sqlite').stat().st_size / 1e6:.1f} MB"
        )

        from mindloop.bench.report.board import board_data
        from mindloop.bench.store import RunStore

        with RunStore(home / "runs.sqlite", readonly=True) as store:
            start, cpu = time.perf_counter(), time.process_time()
            data = board_data(store)
            in_process, in_cpu = time.perf_counter() - start, time.process_time() - cpu
        out = home / "out"
        out.mkdir()
        start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run([str(MINDLOOP), "board", "-o", str(out)], capture_output=True, text=True, check=False)
        process, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
        process_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr)
        page = out / "board.html"
        print(f"board_data over {len(data['runs']):,} runs in process: {in_process:.2f} s wall, {in_cpu:.2f} s CPU")
        print(
            f"mindloop board -o DIR (whole process, imports included): {process:.2f} s wall, {process_cpu:.2f} s CPU;"
            f" page {page.stat().st_size / 1e6:.2f} MB"
        )
        if args.keep:
            shutil.copy(page, args.keep)
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if chromium is None:
            print("no Chromium: page load not measured")
            return
        head, _, tail = page.read_text(encoding="utf-8").rpartition("</body>")
        probed = out / "probed.html"
        probed.write_text(f"{head}<script>{PROBE}</script></body>{tail}", encoding="utf-8")
        start = time.perf_counter()
        dom = subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-sync",
                "--disable-background-networking",
                "--disable-component-update",
                f"--user-data-dir={out / 'profile'}",
                "--window-size=1280,1000",
                "--dump-dom",
                probed.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        ).stdout
        browser = time.perf_counter() - start
        found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
        if found is None:
            raise SystemExit("the probe did not run: " + dom[-2000:])
        probe = json.loads(html.unescape(found.group(1)))
        print(
            f"Chromium at 1280 px: first render {probe['ready_ms']:.0f} ms after navigation start, "
            f"{probe['script_ms']:.0f} ms of it the page's script reading the blob and drawing ({probe['rows']} rows); "
            f"sort {len(data['runs']):,} runs by headline {probe['sort_ms']:.0f} ms; "
            f"filter to hitom {probe['filter_ms']:.0f} ms ({probe['showing']}); "
            f"whole headless browser process {browser:.1f} s"
        )


if __name__ == "__main__":
    main()

"""Every model-driven benchmark on a real model, small n: what the model scored and how its replies fared.

Runs each model-driven benchmark (and ``mindclaw skills mine --model``) as a user would, through the ``mindloop``
command line in a subprocess, against an OpenAI-compatible server, then reads each run's stored calls back and
prints one table: benchmark, n, seconds, tokens, the headline metric, and the share of the agent's replies in each
outcome class:

- **parsed**: the parser read the reply (first try or after a format retry);
- **readable, rejected**: the parser refused a reply that the real-reply corpus (``tests/*/data/real_replies.jsonl``,
  labelled by hand) marks readable; the goal is none;
- **unusable**: a refused reply the corpus marks unusable, plus calls that got no reply at all;
- **unlabelled**: refused replies the corpus has not seen yet (they are written to ``--rejected`` for labelling);
- **retries**: calls that were format retries (``--format-retries``), as a share of all agent calls.

A reply no parser looked at (``unread``) means a call site that bypasses :func:`mindloop.models.replies.ask`; it
is shown when it happens. Judge calls (MindPower, OmniToM) are counted apart in the JSON output.

Usage (a local model: ``scripts/local-model.sh serve 0.5b``)::

    python benchmarks/bench_real_model.py --model openai/qwen --base-url http://127.0.0.1:8080/v1 --label 0.5b
    python benchmarks/bench_real_model.py ... --only tomi,hitom --json-out results.json

Nothing here runs in CI: it needs a served model and takes tens of minutes on two CPU cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Case:
    """One command of the table: a benchmark run (or ``skills-mine``), its arguments and its headline metric."""

    name: str
    benchmark: str
    args: tuple[str, ...]
    headline: str
    judge: bool = False
    needs_option: str | None = None  # skip with a note when the benchmark lacks this option (older checkouts)


def cases(model: str, base_url: str) -> list[Case]:
    """The table's rows, smallest sensible n for a first look with a slow model."""
    judge = ("--opt", f"judge={model}", "--opt", f"judge_base_url={base_url}")
    return [
        Case("smoke", "smoke", ("--n", "4"), "accuracy"),
        Case("tomi", "tomi", ("--n", "6"), "accuracy"),
        Case("hitom", "hitom", ("--n", "6"), "accuracy"),
        Case("mindpower", "mindpower", ("--n", "2"), "sr"),
        Case("mindpower+judge", "mindpower", ("--n", "1", *judge), "sr", judge=True),
        Case("omnitom-stage1", "omnitom-stage1", ("--n", "3"), "f1"),
        Case("omnitom-stage2", "omnitom-stage2", ("--n", "3"), "overall"),
        Case("claw", "claw", ("--agent", "model", "--n", "2"), "acc"),
        Case(
            "cwah",
            "cwah",
            ("--agents", "cobel-llm", "--n", "1", "--opt", "max_steps=6"),
            "avg_steps",
            needs_option="max_steps",
        ),
        Case(
            "tdw-mat",
            "tdw-mat",
            ("--agents", "cobel-llm", "--n", "1", "--opt", "max_steps=6"),
            "transport_rate",
            needs_option="max_steps",
        ),
        Case("tos-active", "tos-active", ("--n", "1", "--opt", "per_task=1", "--opt", "max_steps=8"), "avg"),
        Case("tos-passive", "tos-passive", ("--n", "1", "--opt", "per_task=1"), "avg"),
        Case("skills-mine", "skills-mine", (), "skills"),
    ]


@dataclass
class Row:
    """One benchmark's result."""

    name: str
    n: int | None = None
    seconds: float = 0.0
    tokens: int = 0
    metric: str = ""
    value: Any = None
    outcomes: dict[str, int] = field(default_factory=dict)
    judge_outcomes: dict[str, int] = field(default_factory=dict)
    note: str = ""


def _mindloop(args: Sequence[str], env: Mapping[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    launch = "import sys; from mindloop.cli import main; sys.argv[0] = 'mindloop'; sys.exit(main())"
    cmd = [sys.executable, "-c", launch, *args]
    return subprocess.run(cmd, env=dict(env), capture_output=True, text=True, timeout=timeout, check=False)


def load_corpus(root: Path) -> dict[str, str]:
    """Reply text -> hand label (``readable`` / ``unusable``) from every real-reply corpus in the tests."""
    labels: dict[str, str] = {}
    for path in sorted(root.glob("tests/*/data/real_replies.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                label = str(item.get("label", ""))
                if "reply" in item and label:
                    labels[item["reply"].strip()] = "readable" if label.startswith("readable") else "unusable"
    return labels


def classify(
    calls: Iterable[Mapping[str, Any]], corpus: Mapping[str, str], role: str
) -> tuple[dict[str, int], list[str]]:
    """The outcome counts of the calls in ``role`` and the texts of the refused replies the corpus has not seen."""
    out = dict.fromkeys(("calls", "parsed", "readable_rejected", "unusable", "unlabelled", "unread", "retries"), 0)
    unseen: list[str] = []
    for call in calls:
        if (call.get("role") or "agent") != role:
            continue
        out["calls"] += 1
        out["retries"] += int(call.get("attempt") or 0) > 0
        text = call.get("text")
        if call.get("error") is not None or text is None:
            out["unusable"] += 1
        elif call.get("parsed") is True:
            out["parsed"] += 1
        elif call.get("parsed") is False:
            label = corpus.get(text.strip())
            key = {"readable": "readable_rejected", "unusable": "unusable"}.get(label or "", "unlabelled")
            out[key] += 1
            if label is None:
                unseen.append(text)
        else:
            out["unread"] += 1
    return out, unseen


def _has_option(benchmark: str, option: str, env: Mapping[str, str]) -> bool:
    proc = _mindloop(["bench", "run", benchmark, "--help-options"], env, 120)
    return f"\n  {option} (" in proc.stdout


def run_case(
    case: Case, args: argparse.Namespace, env: Mapping[str, str], corpus: Mapping[str, str]
) -> tuple[Row, list[dict[str, Any]]]:
    """Run one case; return its row and the refused replies the corpus has not labelled."""
    row = Row(case.name, metric=case.headline)
    if case.needs_option and not _has_option(case.benchmark, case.needs_option, env):
        row.note = f"skipped: this checkout's {case.benchmark} has no {case.needs_option} option"
        return row, []
    model = ["--model", args.model, "--base-url", args.base_url]
    if case.benchmark == "skills-mine":
        start = time.perf_counter()
        proc = _mindloop(["mindclaw", "skills", "mine", *model, "--json"], env, args.timeout)
        row.seconds = time.perf_counter() - start
        row.note = f"exit {proc.returncode}: " + (proc.stderr.strip().splitlines() or [""])[-1][:120]
        if proc.returncode == 0:
            out = json.loads(proc.stdout)
            row.value = out.get("n_skills", len(out.get("skills", [])) if isinstance(out, dict) else None)
        return row, []
    cmd = ["bench", "run", case.benchmark, *case.args, *model, "--concurrency", "1", "--cache", args.cache, "--json"]
    if args.format_retries is not None:
        cmd += ["--format-retries", str(args.format_retries)]
    start = time.perf_counter()
    proc = _mindloop(cmd, env, args.timeout)
    row.seconds = time.perf_counter() - start
    if not proc.stdout.strip():
        row.note = f"exit {proc.returncode}: " + (proc.stderr.strip().splitlines() or ["no output"])[-1][:160]
        return row, []
    summary = json.loads(proc.stdout)
    row.n = summary["n"]
    row.tokens = int(summary["tokens"].get("total_tokens", 0))
    row.value = summary["metrics"].get(case.headline)
    if summary.get("n_failed"):
        row.note = f"{summary['n_failed']} of {summary['n']} samples failed"
    export = _mindloop(["runs", "export", summary["run_id"]], env, 600)
    samples = [json.loads(line) for line in export.stdout.splitlines() if line.strip()]
    calls = [c for s in samples for c in s.get("calls") or []]
    row.outcomes, unseen = classify(calls, corpus, "agent")
    if case.judge:
        row.judge_outcomes, _ = classify(calls, corpus, "judge")
    return row, [{"benchmark": case.name, "reply": text} for text in unseen]


def _share(count: int, total: int) -> str:
    return "–" if not total else f"{100 * count / total:.0f}%"


def table(rows: Sequence[Row], label: str) -> str:
    """The rows as a Markdown table."""
    head = (
        "| benchmark | n | seconds | tokens | metric | agent calls | parsed | readable, rejected | unusable "
        "| unlabelled | retries | note |"
    )
    lines = [f"Model: {label}", "", head, "|" + "---|" * 12]
    for r in rows:
        o, calls = r.outcomes, r.outcomes.get("calls", 0)
        value = "–" if r.value is None else f"{r.value:.3g}" if isinstance(r.value, float) else str(r.value)
        note = r.note + (f"; {o['unread']} read by no parser" if o.get("unread") else "")
        cells = [
            r.name,
            "–" if r.n is None else str(r.n),
            f"{r.seconds:.0f}",
            str(r.tokens),
            f"{r.metric} {value}",
            str(calls),
            *(_share(o.get(k, 0), calls) for k in ("parsed", "readable_rejected", "unusable", "unlabelled", "retries")),
            note.strip("; "),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="openai/qwen", help="BACKEND/NAME (default openai/qwen)")
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/v1", help="the server's /v1 URL")
    parser.add_argument("--label", default="", help="what the model is, for the table's title")
    parser.add_argument("--only", default="", help="comma-separated case names (default: all)")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the mindloop source tree to run")
    parser.add_argument("--home", type=Path, default=None, help="MINDLOOP_HOME for the runs (default: a temp dir)")
    parser.add_argument("--cache", default="off", choices=("auto", "on", "off"), help="response cache (default off)")
    parser.add_argument("--format-retries", type=int, default=None, help="passed to bench run (default: its own)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per command before it is abandoned")
    parser.add_argument("--json-out", type=Path, default=None, help="write the rows as JSON here")
    parser.add_argument("--rejected", type=Path, default=None, help="write unlabelled refused replies (JSONL) here")
    args = parser.parse_args(argv)
    home = args.home or Path(tempfile.mkdtemp(prefix="mindloop-real-"))
    env = {**os.environ, "MINDLOOP_HOME": str(home), "PYTHONPATH": str(args.src)}
    corpus = load_corpus(ROOT)
    wanted = {name for name in args.only.split(",") if name}
    todo = [c for c in cases(args.model, args.base_url) if not wanted or c.name in wanted]
    if wanted - {c.name for c in todo}:
        parser.error(f"unknown case(s): {', '.join(sorted(wanted - {c.name for c in todo}))}")
    rows: list[Row] = []
    unseen: list[dict[str, Any]] = []
    for i, case in enumerate(todo, 1):
        print(f"[{i}/{len(todo)}] {case.name} ...", file=sys.stderr, flush=True)
        try:
            row, refused = run_case(case, args, env, corpus)
        except subprocess.TimeoutExpired:
            row, refused = Row(case.name, seconds=args.timeout, note=f"abandoned after {args.timeout:.0f} s"), []
        rows.append(row)
        unseen += refused
        print(f"    {row.seconds:.0f} s, {row.outcomes or row.note}", file=sys.stderr, flush=True)
        if args.json_out:  # after every case: a long run killed half-way keeps what it measured
            args.json_out.write_text(json.dumps([r.__dict__ for r in rows], indent=1) + "\n", encoding="utf-8")
    if args.rejected:
        args.rejected.write_text("".join(json.dumps(u) + "\n" for u in unseen), encoding="utf-8")
    print(table(rows, args.label or args.model))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

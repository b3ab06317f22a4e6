"""Every model-driven benchmark on a real model, small n: what the model scored and how its replies fared.

Runs one suite of every model-driven benchmark (``mindloop suite run --preset quick --max-n N``, smoke and a judge
for MindPower included), MindPower once more without a judge (``bench run mindpower``), and
``mindclaw skills mine --model`` as a user would, through the ``mindloop`` command line
in a subprocess, against an OpenAI-compatible server, then reads each run's stored calls back and prints one
table: benchmark, n, seconds, tokens, the headline metric, and the share of the agent's replies in each outcome
class:

- **parsed**: the parser read the reply (first try or after a format retry);
- **readable, rejected**: the parser refused a reply that the real-reply corpus (``tests/*/data/real_replies.jsonl``,
  labelled by hand) marks readable; the goal is none;
- **read, invalid**: a refused reply the corpus marks readable whose refusal says what it asks for is not a legal
  action (MindClaw: an operation with a slot that must be empty, a name outside the window's candidates, an
  unknown verb): the model's error, sent back so it may correct it, not a reply the parser failed to read;
- **unusable**: a refused reply the corpus marks unusable, plus calls that got no reply at all;
- **unlabelled**: refused replies the corpus has not seen yet (they are written to ``--rejected`` for labelling);
- **retries**: calls that were format retries (``--format-retries``), as a share of all agent calls.

A reply no parser looked at (``unread``) means a call site that bypasses :func:`mindloop.models.replies.ask`; it
is shown when it happens. Judge calls (MindPower, OmniToM) are counted apart in the JSON output.

Usage (a local model: ``scripts/local-model.sh serve 0.5b``)::

    python benchmarks/bench_real_model.py --model openai/qwen --base-url http://127.0.0.1:8080/v1 --label 0.5b
    python benchmarks/bench_real_model.py ... --only tomi,hitom --json-out results.json
    python benchmarks/bench_real_model.py --suite SUITE_ID ...   # classify a suite that already ran

The suite id is printed; ``mindloop suite report SUITE_ID`` shows the same runs as the papers' tables, and
``mindloop compare SUITE_A SUITE_B`` compares two models.

Nothing here runs in CI: it needs a served model and takes tens of minutes on two CPU cores.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


HEADLINE = {
    "smoke": "accuracy",
    "tomi": "accuracy",
    "hitom": "accuracy",
    "mindpower": "sr",
    "claw": "acc",
    "omnitom-stage1": "f1",
    "omnitom-stage2": "overall",
    "cwah": "avg_steps",
    "tdw-mat": "transport_rate",
    "tos-active": "avg",
    "tos-passive": "avg",
}
"""The metric each row shows (the one the paper's table leads with that a short run can still say something about)."""


def suite_options(model: str, base_url: str, only: Sequence[str]) -> list[str]:
    """``--opt`` values (for the benchmarks in ``only``) that keep each benchmark short with a slow model, and give
    MindPower a judge."""
    opts = [
        f"mindpower.judge={model}",
        f"mindpower.judge_base_url={base_url}",
        "cwah.max_steps=6",
        "tdw-mat.max_steps=6",
        "tos-active.max_steps=8",
        "tos-active.per_task=1",
        "tos-passive.per_task=1",
    ]
    return [arg for opt in opts if opt.split(".")[0] in only for arg in ("--opt", opt)]


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


INVALID = re.compile(r"slot of \w+ must be none|is not one of the window's candidate|unknown operation")
"""Refusal reasons that say a reply was read and asks for an illegal action (MindClaw's ``SlotError``s)."""


def classify(
    calls: Iterable[Mapping[str, Any]], corpus: Mapping[str, str], role: str
) -> tuple[dict[str, int], list[str]]:
    """The outcome counts of the calls in ``role`` and the texts of the refused replies the corpus has not seen."""
    keys = ("calls", "parsed", "readable_rejected", "invalid", "unusable", "unlabelled", "unread", "retries")
    out = dict.fromkeys(keys, 0)
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
            if key == "readable_rejected" and INVALID.search(str(call.get("reject_reason") or "")):
                key = "invalid"
            out[key] += 1
            if label is None:
                unseen.append(text)
        else:
            out["unread"] += 1
    return out, unseen


def _export(run_id: str, env: Mapping[str, str]) -> list[dict[str, Any]]:
    proc = _mindloop(["runs", "export", run_id], env, 600)
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def run_row(
    summary: Mapping[str, Any], env: Mapping[str, str], corpus: Mapping[str, str]
) -> tuple[Row, list[dict[str, str]]]:
    """One suite run's row, from its ``bench run --json`` summary and its stored calls."""
    name = summary["benchmark"]
    metric = HEADLINE.get(name, "")
    row = Row(name, n=summary["n"], seconds=summary["seconds"], metric=metric)
    row.tokens = int(summary["tokens"].get("total_tokens", 0))
    if "metrics" in summary:  # a bench run --json summary
        row.value = summary["metrics"].get(metric)
    else:  # a suite report's run entry: its headline metric
        row.metric, row.value = summary["headline"]["metric"], summary["headline"]["value"]
    if summary.get("n_failed"):
        row.note = f"{summary['n_failed']} of {summary['n']} samples failed"
    if summary["n"] is not None and summary["n_completed"] < summary["n"]:
        row.note = f"{summary['n'] - summary['n_completed']} samples not run; " + row.note
    calls = [c for s in _export(summary["run_id"], env) for c in s.get("calls") or []]
    row.outcomes, unseen = classify(calls, corpus, "agent")
    if any((c.get("role") or "agent") == "judge" for c in calls):
        row.judge_outcomes, _ = classify(calls, corpus, "judge")
        j = row.judge_outcomes
        row.note = (row.note + f"; judge: {j['calls']} calls, {j['parsed']} parsed").strip("; ")
    return row, [{"benchmark": name, "reply": text} for text in unseen]


def unjudged_mindpower_row(
    args: argparse.Namespace, env: Mapping[str, str], corpus: Mapping[str, str]
) -> tuple[Row, list[dict[str, str]]]:
    """MindPower without a judge (the suite's run has one): ``bench run mindpower`` with the same model and n."""
    cmd = ["bench", "run", "mindpower", "--model", args.model, "--base-url", args.base_url, "--n", str(args.max_n)]
    cmd += ["--cache", args.cache, "--json"]
    if args.format_retries is not None:
        cmd += ["--format-retries", str(args.format_retries)]
    start = time.perf_counter()
    proc = _mindloop(cmd, env, args.timeout)
    if not proc.stdout.strip():
        last = (proc.stderr.strip().splitlines() or [""])[-1][:160]
        return Row(
            "mindpower (no judge)", seconds=time.perf_counter() - start, note=f"exit {proc.returncode}: {last}"
        ), []
    row, refused = run_row(json.loads(proc.stdout), env, corpus)
    row.name = "mindpower (no judge)"
    return row, refused


def skills_mine_row(args: argparse.Namespace, env: Mapping[str, str]) -> Row:
    """``mindclaw skills mine --model``: seconds and how many skills it wrote (no skills is an error)."""
    row = Row("skills-mine", metric="skills")
    start = time.perf_counter()
    cmd = ["mindclaw", "skills", "mine", "--model", args.model, "--base-url", args.base_url, "--json"]
    proc = _mindloop(cmd, env, args.timeout)
    row.seconds = time.perf_counter() - start
    if proc.returncode != 0:
        row.note = f"exit {proc.returncode}: " + (proc.stderr.strip().splitlines() or [""])[-1][:160]
        return row
    out = json.loads(proc.stdout)
    row.value = int(out.get("skills") or 0)  # how many skills it wrote
    replies = out.get("replies")
    if isinstance(replies, dict):
        counts = {k: int(replies.get(k, 0)) for k in ("parsed", "rejected", "no_reply", "unread", "retries")}
        row.outcomes = {
            "calls": counts["parsed"] + counts["rejected"] + counts["no_reply"] + counts["unread"],
            "parsed": counts["parsed"],
            "unread": counts["unread"],
            "retries": counts["retries"],
        }
        if counts["rejected"] or counts["no_reply"]:  # skills mine keeps no call records, so no reply texts
            row.note = f"{counts['rejected']} refused, {counts['no_reply']} no reply (texts not kept: not classified)"
    return row


def run_suite(args: argparse.Namespace, env: Mapping[str, str]) -> dict[str, Any]:
    """Run the suite (or read ``--suite``) and return its ``suite run --json`` object."""
    if args.suite:
        proc = _mindloop(["suite", "report", args.suite, "--json"], env, 600)
    else:
        only = args.only or ",".join(HEADLINE)  # cheap question answering first, long episodes last
        cmd = ["suite", "run", "--model", args.model, "--base-url", args.base_url, "--preset", "quick"]
        cmd += ["--max-n", str(args.max_n), "--only", only, "--cache", args.cache, "--json"]
        cmd += suite_options(args.model, args.base_url, only.split(","))
        if args.format_retries is not None:
            cmd += ["--format-retries", str(args.format_retries)]
        proc = _mindloop(cmd, env, args.timeout)
    if not proc.stdout.strip():
        raise SystemExit(f"the suite printed nothing (exit {proc.returncode}): {proc.stderr.strip()[-400:]}")
    return dict(json.loads(proc.stdout))


def _share(count: int, total: int) -> str:
    return "–" if not total else f"{100 * count / total:.0f}%"


def table(rows: Sequence[Row], label: str) -> str:
    """The rows as a Markdown table."""
    head = (
        "| benchmark | n | seconds | tokens | metric | agent calls | parsed | readable, rejected | read, invalid "
        "| unusable | unlabelled | retries | note |"
    )
    lines = [f"Model: {label}", "", head, "|" + "---|" * 13]
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
            *(
                _share(o[k], calls) if k in o else "–"  # skills mine keeps no replies to classify
                for k in ("parsed", "readable_rejected", "invalid", "unusable", "unlabelled", "retries")
            ),
            note.strip("; "),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="openai/qwen", help="BACKEND/NAME (default openai/qwen)")
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/v1", help="the server's /v1 URL")
    parser.add_argument("--label", default="", help="what the model is, for the table's title")
    parser.add_argument("--only", default="", help="comma-separated benchmarks (default: all, smoke included)")
    parser.add_argument("--max-n", type=int, default=3, help="samples per benchmark (suite --max-n; default 3)")
    parser.add_argument("--suite", default=None, help="classify this suite's runs instead of running one")
    parser.add_argument("--no-skills", action="store_true", help="leave out mindclaw skills mine --model")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the mindloop source tree to run")
    parser.add_argument("--home", type=Path, default=None, help="MINDLOOP_HOME for the runs (default: a temp dir)")
    parser.add_argument("--cache", default="off", choices=("auto", "on", "off"), help="response cache (default off)")
    parser.add_argument("--format-retries", type=int, default=None, help="passed to the suite (default: its own)")
    parser.add_argument("--timeout", type=float, default=4 * 3600.0, help="seconds before the suite is abandoned")
    parser.add_argument("--json-out", type=Path, default=None, help="write the rows as JSON here")
    parser.add_argument("--rejected", type=Path, default=None, help="write unlabelled refused replies (JSONL) here")
    args = parser.parse_args(argv)
    home = args.home or Path(tempfile.mkdtemp(prefix="mindloop-real-"))
    env = {**os.environ, "MINDLOOP_HOME": str(home), "PYTHONPATH": str(args.src)}
    corpus = load_corpus(ROOT)
    suite = run_suite(args, env)
    print(f"suite {suite['suite_id']} in MINDLOOP_HOME={home}", file=sys.stderr)
    rows: list[Row] = []
    unseen: list[dict[str, Any]] = []
    for summary in suite["runs"]:
        if summary.get("run_id") is None:  # a benchmark the suite did not reach
            rows.append(Row(summary["benchmark"], note="not run (the suite stopped before it)"))
            continue
        row, refused = run_row(summary, env, corpus)
        rows.append(row)
        unseen += refused
    if not args.suite and any(r.name == "mindpower" for r in rows):
        row, refused = unjudged_mindpower_row(args, env, corpus)
        rows.append(row)
        unseen += refused
    if not args.no_skills and not args.suite:
        rows.append(skills_mine_row(args, env))
    if args.json_out:
        payload = {"suite_id": suite["suite_id"], "home": str(home), "rows": [r.__dict__ for r in rows]}
        args.json_out.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    if args.rejected:
        args.rejected.write_text("".join(json.dumps(u) + "\n" for u in unseen), encoding="utf-8")
    print(table(rows, args.label or args.model))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

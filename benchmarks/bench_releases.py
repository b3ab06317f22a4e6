"""The released ToM sets read in full: counts, the tracker, the audits, the figures docs/datasets.md quotes.

The releases are not in the repository (their licences or their size keep them out); fetch them and point this
script at them. Each set is read by the loader ``bench run`` uses; a set whose file is absent is skipped with a
line saying so.

    .venv/bin/python benchmarks/bench_releases.py [--root DIR] [--opentom PATH] [--bigtom PATH] [--mmtom PATH]
        [--fantom PATH] [--exploretom PATH] [--simpletom PATH] [--flags 30] [--seed 0]
        [--release-code DIR] [--run STORE:RUN_ID ...]

``--root`` (or ``MINDLOOP_RELEASES``) holds ``opentom/`` (OpenToM's ``data/opentom_data``), ``bigtom/bigtom.csv``,
``mmtomqa/questions.json``, ``fantom/fantom_v1.json``, ``exploretom/ExploreToM-data-sample.csv`` and
``simpletom/``; a per-set option overrides its path. ``--flags N`` prints N audit flags per set drawn at random
(``--seed``), with the story, for judging by hand.

``--release-code DIR`` (checkouts of ``MMToM-QA/`` and ``procedural-evals-tom/``, see ``release_code.py``) runs
the releases' own code: BigToM's condition builder (its 25 files, compared line by line with mindloop's items and
option order) and, on the same replies, MMToM-QA's ``testing_gpt.py`` and BigToM's ``evaluate_condition`` (replies
that always answer b, written each way a person writes it, and every reply of each ``--run``: a stored run of
``bench run mmtom-qa`` or ``bigtom`` with a model, given as the run store's path and the run id); it prints how
often mindloop's copy of the release's reading agrees with the release's own.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mindloop.bench.agents import run_sample
from mindloop.bench.api import AgentContext, Outcome
from mindloop.bench.inference import clopper_pearson
from mindloop.bench.options import validate_options
from mindloop.bench.records import Sample, SampleRecord
from mindloop.bench.references import best_constant_policy
from mindloop.bench.registry import get_benchmark
from mindloop.bench.scoring import reference_values, run_metrics
from mindloop.systems.tom.label_audit import audit_file, describe_release

B_FORMS = ("b", "B", "(b)", "b)", "Answer: b", "Answer:b", "The answer is (b).")
"""A model that always answers b, written each way a person writes it."""

LAYOUT = {
    "opentom": "opentom",
    "bigtom": "bigtom/bigtom.csv",
    "mmtom-qa": "mmtomqa/questions.json",
    "fantom": "fantom/fantom_v1.json",
    "exploretom": "exploretom/ExploreToM-data-sample.csv",
    "simpletom": "simpletom",
}
TRACKED = ("opentom", "bigtom", "fantom", "exploretom")
"""The sets with a symbolic agent."""


def _f(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def _records(name: str, samples: Sequence[Sample], agent: str) -> list[SampleRecord]:
    bench = get_benchmark(name)

    async def go() -> list[Outcome]:
        return [await run_sample(bench, s, AgentContext(agent, seed=0)) for s in samples]

    return [
        SampleRecord(i, s, "failed" if o.error else "done", o.output, o.scores, o.error, [], 0.0)
        for i, (s, o) in enumerate(zip(samples, asyncio.run(go()), strict=True))
    ]


def tracker(name: str, path: Path, options: dict[str, Any]) -> None:
    """The tracker over every question: coverage, its score on what it covers, and floors on those questions."""
    bench = get_benchmark(name)
    samples = bench.samples(None, 0, validate_options(bench, {"data": str(path), **options}))
    records = _records(name, samples, "symbolic")
    m = run_metrics(bench, records)
    covered = [r for r in records if r.scores.get("covered") == 1.0]
    refs = reference_values(bench, records)
    head = bench.spec.headline.metric if bench.spec.headline else "?"
    print(
        f"  tracker {options or ''}: {len(records)} questions, {len(covered)} covered "
        f"({len(covered) / len(records):.3f})"
    )
    print(
        f"    accuracy over covered {_f(m.get('accuracy_covered'))}; on the same questions "
        f"chance {_f(m.get('chance'))}, "
        f"best constant {_f(best_constant_policy().value([r.sample for r in covered]))}"
    )
    print(
        f"    headline {head} {_f(m.get(head))}; references on the same questions: "
        + ", ".join(f"{k} {_f(v)}" for k, v in refs.items())
    )
    for key in ("by_type", "by_genre", "by_condition"):
        for label, row in (m.get(key) or {}).items():
            cells = ", ".join(f"{k} {_f(v) if isinstance(v, float) else v}" for k, v in row.items())
            print(f"    {key} {label}: {cells}")
    why = Counter(str((r.output or {}).get("not_covered", "")) for r in records if r.scores.get("covered") == 0.0)
    for reason, count in why.most_common(8):
        print(f"    not covered {count:5d}: {reason[:110]}")


def audit(name: str, path: Path, flags: int, seed: int, split: str = "normal") -> None:
    report = audit_file(path, name, split=split)
    rules = report.to_json()["by_rule"]
    print(
        f"  audit ({split}): {report.questions} questions, {report.checked} judged, "
        f"{len(report.findings)} flagged: {rules}"
    )
    if flags and report.findings:
        drawn = random.Random(seed).sample(report.findings, min(flags, len(report.findings)))
        for i, f in enumerate(drawn, 1):
            print(f"    [{i}] {f.source} [{f.rule}] {f.question!r} gold {f.gold!r}: {f.reason}")


def opentom(
    path: Path, flags: int, seed: int, code: Path | None = None, runs: Sequence[str] = (), runs_only: bool = False
) -> None:
    from mindloop.systems.tom.opentom import read_opentom, release_sample

    for spec in runs:
        _opentom_run(spec, path, code)
    if runs_only:
        return

    counts = describe_release("opentom", path)
    print(f"  {counts['questions']} questions; per split {counts['by_split']}; stories {counts['stories']}")
    for split in ("normal", "long"):
        qs = read_opentom(path, split=split)  # type: ignore[arg-type]
        words = statistics.mean(len(t.split()) for t in {q.story.id: q.story.narrative for q in qs}.values())
        print(f"  {split}: mean narrative {words:.1f} words")
        drawn = release_sample(qs)
        batches = Counter(b for b, _ in drawn)
        first = list(dict.fromkeys(q.story.id for b, q in drawn if b == f"{split}-1"))
        print(
            f"  release protocol ({split}): {len(drawn)} questions in batches {dict(batches)}; "
            f"batch 1 starts {first[:5]}"
        )
    # the release's evaluator unpacks plot_info in the wrong order: a fine-location gold naming the original place
    # gets no label and is dropped from its score
    for file in ("location_fg_fo", "location_fg_so"):
        fine = [q for q in read_opentom(path, split="normal") if q.file.startswith(file)]
        # it compares the gold with move_to_place (which it calls original_place), after its determiner removal
        dropped = sum(_undet(q.answer) != _undet(q.story.move_to_place) for q in fine)
        print(
            f"  the evaluator's plot_info bug drops {dropped} of {len(fine)} {file} questions "
            f"({dropped / len(fine):.1%})"
        )
    for split in ("normal", "long", "all"):
        tracker("opentom", path, {"split": split})
    audit("opentom", path, flags, seed)


def _opentom_run(spec: str, path: Path, code: Path | None) -> None:
    """A model run's columns as mindloop scores them, beside the release's evaluate.py on the same replies."""
    records = _load(spec)
    m = run_metrics(get_benchmark("opentom"), records)
    print(f"  run {spec}: {len(records)} questions; macro-F1 (mean of columns) {_f(m.get('macro_f1'))}")
    for genre, row in (m.get("by_genre") or {}).items():
        print(
            f"    mindloop {genre}: n {row['n']}, accuracy {_f(row.get('accuracy'))}, macro-F1 "
            f"{_f(row.get('macro_f1'))}, unreadable {_f(row.get('unreadable'))}"
        )
    if code is None:
        return
    from release_code import opentom_release_eval

    entries = [
        {
            "batch": r.sample.input["batch"].rsplit("-", 1)[-1],
            "story_id": r.sample.input["story_id"],
            "qid": f"{r.sample.input['file']}:{r.sample.input['index']}",
            "file": r.sample.input["file"],
            "question": r.sample.input["question"],
            "answer": r.sample.input["answer"],
            "prediction": str((r.output or {}).get("reply", "")),
        }
        for r in records
    ]
    got = opentom_release_eval(code / "OpenToM", path / "meta_data.json", entries)
    for granularity, text in got["text"].items():
        for kind, corrupt, acc, f1 in re.findall(
            r"Question type: (\S+)\nCorrupted generation: ([\d.]+)%\nAvearge Accuracy: ([\d.]+), Variance: [\d.]+\n"
            r"Average F1: ([\d.]+)",
            text,
        ):
            print(
                f"    release's evaluate.py -lg {granularity} {kind}: accuracy {acc}, F1 {f1}, corrupted "
                f"{float(corrupt):.1f}%"
            )


def _undet(word: str) -> str:
    """The release evaluator's ``remove_determinant``, then lower case: the first of 'a', 'an', 'the' the text
    starts with is cut (so 'another drawer' loses its 'a')."""
    for det in ("a", "an", "the"):
        if word.startswith(det):
            return word[len(det) :].strip().lower()
    return word.lower()


def bigtom(path: Path, flags: int, seed: int, code: Path | None = None, runs: Sequence[str] = ()) -> None:
    from mindloop.systems.tom.bigtom import bigtom_items, read_bigtom

    counts = describe_release("bigtom", path)
    print(f"  {counts['lines']} lines, {counts['questions']} items; {counts['by_initial_belief']}")
    items = bigtom_items(read_bigtom(path))
    not_aware = Counter()
    for i in items:
        kind = "action" if i.variable == "forward_action" else "belief"
        not_aware[i.condition] += i.answer == i.row[f"{kind}_answer_not_aware"]
    per = Counter(i.condition for i in items)
    print(
        "  the 'not aware' answer as a constant: "
        + ", ".join(f"{c} {not_aware[c] / per[c]:.3f}" for c in per)
        + f"; pooled {sum(not_aware.values()) / len(items):.3f}"
    )
    files = Counter(i.file for i in items)
    print(f"  {len(files)} condition files: " + ", ".join(f"{f} {n}" for f, n in sorted(files.items())))
    if code is not None:
        _bigtom_against_release(path, items, code)
    for spec in runs:
        _bigtom_run(spec, path, code)
    tracker("bigtom", path, {})
    audit("bigtom", path, flags, seed)


def _bigtom_against_release(path: Path, items: Sequence[Any], code: Path) -> None:
    """mindloop's items and option order against the files the release's own builder writes and the order its
    evaluator shows."""
    from release_code import bigtom_release_files, bigtom_release_grades

    files = bigtom_release_files(code / "procedural-evals-tom", path)
    ours: dict[str, list[Any]] = {}
    for i in items:
        ours.setdefault(i.file, []).append(i)
    same = sum(
        [i.story, i.question, i.answer, i.wrong] == row
        for f, rows in files.items()
        for i, row in zip(ours.get(f, []), rows, strict=False)
    )
    print(
        f"  the release's generate_conditions.py: {len(files)} files, {sum(len(r) for r in files.values())} lines; "
        f"same files {sorted(files) == sorted(ours)}, same count per file "
        f"{all(len(files[f]) == len(ours.get(f, [])) for f in files)}, lines equal to mindloop's items {same}"
    )
    order = 0
    for f, rows in files.items():
        got = bigtom_release_grades(code / "procedural-evals-tom", path, f, ["a)"] * len(rows))
        for i, q in zip(ours[f], got["questions"], strict=True):
            order += q.endswith(f"\na){i.options[0]}\nb){i.options[1]}")
    print(f"  option order: the release's evaluator shows mindloop's order on {order}/{len(items)} items")


def _bigtom_run(spec: str, path: Path, code: Path | None) -> None:
    """A model run's replies scored by mindloop per condition and by the release's own evaluator."""
    records = _load(spec)
    _print_model_run(spec, records, "group")
    not_aware = [
        r.sample.target
        == r.sample.input["row"][
            "action_answer_not_aware" if r.sample.input["variable"] == "forward_action" else "belief_answer_not_aware"
        ]
        for r in records
    ]
    print(f"    'not aware' floor on these questions: {sum(not_aware) / len(records):.3f}")
    rows: dict[str, list[bool]] = {}
    for r, hit in zip(records, not_aware, strict=True):
        rows.setdefault(r.sample.group, []).append(hit)
    print("    per condition: " + ", ".join(f"{g} {sum(h) / len(h):.2f}" for g, h in rows.items()))
    if code is None:
        return
    from release_code import bigtom_release_grades

    by_file: dict[str, list[SampleRecord]] = {}
    for r in records:
        by_file.setdefault(r.sample.input["file"], []).append(r)
    agree = total = right = ungraded = 0
    for f, rs in by_file.items():
        # its evaluator shuffles each line's options in file order: it is given every line up to the last one
        # asked, the lines not asked with an empty reply whose grade is not compared
        by_line = {int(r.sample.input["line"]): r for r in rs}
        last = max(by_line)
        replies = [str((by_line[k].output or {}).get("reply", "")) if k in by_line else "" for k in range(1, last + 1)]
        got = bigtom_release_grades(code / "procedural-evals-tom", path, f, replies)
        for k, g in enumerate(got["grades"], 1):
            if k not in by_line:
                continue
            total += 1
            right += g == "True"
            ungraded += g == "UNGRADED"
            agree += (g == "True") == (by_line[k].scores.get("correct_release", 0.0) == 1.0)
    print(
        f"    the release's evaluate_conditions.py on the same replies: {right}/{total} True, {ungraded} would go to "
        f"its grader model (counted not True); mindloop's copy of its reading agrees on {agree}/{total}"
    )


def mmtom(path: Path, flags: int, seed: int, code: Path | None = None, runs: Sequence[str] = ()) -> None:
    from mindloop.bench.reader import read_choice
    from mindloop.systems.tom.mmtomqa import options_of, read_mmtom

    items = read_mmtom(path)
    counts = describe_release("mmtom-qa", path)
    print(f"  {counts['questions']} items; per type {counts['by_type']}; gold b {sum(i.answer == 'b' for i in items)}")
    for t in sorted(counts["by_type"]):
        golds = Counter(i.answer for i in items if i.qtype == t)
        print(f"    type {t}: gold a {golds['a']}, b {golds['b']}")
    for reply in B_FORMS:
        ours = mine = 0
        for i in items:
            options = options_of(i.question) or ("(a)", "(b)")
            ours += read_choice(reply, options, "ab").choice == options["ab".index(i.answer)]
            mine += reply.strip("\n").strip(" ").lower()[:1] == i.answer
        line = f"    always {reply!r}: mindloop's reader {ours}/{len(items)}, its copy of the release's reading {mine}"
        if code is not None:
            from release_code import mmtom_release_counts

            got = mmtom_release_counts(code / "MMToM-QA", [i.fields for i in items], [reply] * len(items))
            line += f", the release's testing_gpt.py {sum(got['per_item'])} (per type {got['by_type']})"
        print(line)
    for spec in runs:
        _mmtom_run(spec, items, code)
    audit("mmtom-qa", path, flags, seed)


def _mmtom_run(spec: str, items: Sequence[Any], code: Path | None) -> None:
    """A model run's replies scored by mindloop (per type, beside floors) and by the release's own script."""
    records = _load(spec)
    by_text = {i.question: i for i in items}
    replies = [str((r.output or {}).get("reply", "")) for r in records]
    _print_model_run(spec, records, "group")
    if code is None:
        return
    from release_code import mmtom_release_counts

    release_items = [by_text[r.sample.input["question"]].fields for r in records]
    got = mmtom_release_counts(code / "MMToM-QA", release_items, replies)
    if "error" in got:
        print(f"    the release's testing_gpt.py fails on these replies: {got['error']}")
        return
    mine = [r.scores.get("correct_release", 0.0) for r in records]
    agree = sum(float(a) == b for a, b in zip(got["per_item"], mine, strict=True))
    print(
        f"    the release's testing_gpt.py on the same replies: {sum(got['per_item'])}/{len(records)} right "
        f"(per type {got['by_type']}); mindloop's copy of its reading agrees on {agree}/{len(records)} items"
    )


def _print_model_run(spec: str, records: Sequence[SampleRecord], by: str) -> None:
    """Accuracy (unread = wrong), unread count, the release's reading and the floors, whole and per row. Each
    stored reply is read again by today's choice reader (a run stored before a reader change keeps its old
    answers); how many readings changed is printed."""
    from mindloop.bench.reader import read_choice

    changed = 0
    for r in records:
        reply = (r.output or {}).get("reply")
        if not isinstance(reply, str):
            continue
        answer = read_choice(reply, r.sample.choices, "ab").choice
        changed += answer != (r.output or {}).get("answer")
        r.scores["correct"] = float(answer == r.sample.target)
        r.scores["parsed"] = float(answer is not None)
    rows: dict[str, list[SampleRecord]] = {"all": list(records)}
    for r in records:
        key = r.sample.group if by == "group" else str(r.sample.input.get(by))
        rows.setdefault(key, []).append(r)
    print(
        f"  run {spec}: {len(records)} questions; {changed} replies read otherwise by today's reader than when stored"
    )
    for label, rs in sorted(rows.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        n = len(rs)
        right = sum(r.scores.get("correct", 0.0) for r in rs)
        release = sum(r.scores.get("correct_release", 0.0) for r in rs)
        unread = sum(1 for r in rs if r.scores.get("parsed") == 0.0)
        best = best_constant_policy().value([r.sample for r in rs])
        lo, hi = clopper_pearson(int(right), n)
        print(
            f"    {label}: n {n}, accuracy {right / n:.3f} ({int(right)}) [{lo:.3f}, {hi:.3f}], unread {unread}, "
            f"release's reading {release / n:.3f} ({int(release)}), chance 0.500, best constant {_f(best)} "
            "(optimistic)"
        )


def other(name: str, path: Path, flags: int, seed: int) -> None:
    counts = describe_release(name, path)
    print(f"  {counts['questions']} questions; per type {counts['by_type']}")
    if name in TRACKED:
        tracker(name, path, {})
    audit(name, path, flags, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=os.environ.get("MINDLOOP_RELEASES"))
    for name in LAYOUT:
        parser.add_argument(f"--{name.replace('-qa', '')}", type=Path, default=None, dest=name.replace("-", "_"))
    parser.add_argument("--flags", type=int, default=0, help="audit flags to print per set, drawn at random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--release-code", type=Path, default=None, help="checkouts of the releases' code")
    parser.add_argument(
        "--run", action="append", default=[], help="STORE:RUN_ID (or STORE:RUN1+RUN2, pooled) of a model run to score"
    )
    parser.add_argument("--runs-only", action="store_true", help="OpenToM: only the --run sections (no tracker)")
    args = parser.parse_args()
    if args.release_code is not None:
        sys.path.insert(0, str(Path(__file__).parent))
    runs_of = {name: [r for r in args.run if _benchmark_of(r) == name] for name in ("opentom", "bigtom", "mmtom-qa")}
    run = {
        "opentom": lambda p, f, s: opentom(p, f, s, args.release_code, runs_of["opentom"], args.runs_only),
        "bigtom": lambda p, f, s: bigtom(p, f, s, args.release_code, runs_of["bigtom"]),
        "mmtom-qa": lambda p, f, s: mmtom(p, f, s, args.release_code, runs_of["mmtom-qa"]),
    }
    for name, rel in LAYOUT.items():
        path = getattr(args, name.replace("-", "_")) or (args.root / rel if args.root else None)
        if path is None or not Path(path).exists():
            print(f"{name}: skipped, no release at {path or '(give --root or --' + name.replace('-qa', '') + ')'}")
            continue
        print(f"{name}: {path}")
        run.get(name, lambda p, f, s, n=name: other(n, p, f, s))(Path(path), args.flags, args.seed)


def _benchmark_of(spec: str) -> str:
    from mindloop.bench.store import RunStore

    store_path, run_ids = spec.rsplit(":", 1)
    with RunStore(Path(store_path)) as store:
        return store.run(run_ids.split("+")[0]).benchmark


def _load(spec: str) -> list[SampleRecord]:
    """The records of ``STORE:RUN_ID``, or of several runs of one store pooled (``STORE:RUN1+RUN2``: passes over
    different questions of one set with one model)."""
    from mindloop.bench.store import RunStore

    store_path, run_ids = spec.rsplit(":", 1)
    with RunStore(Path(store_path)) as store:
        return [r for run_id in run_ids.split("+") for r in store.records(run_id)]


if __name__ == "__main__":
    main()

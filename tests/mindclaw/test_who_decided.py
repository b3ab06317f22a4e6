"""MindClaw says who decided (issue 37, point 5): ACC stays the paper's whole-trigger ACC, and beside it every view
says "model decided k of N windows", ``acc_model`` and, on a model run's first line, its unreadable replies; a run
whose model decided nothing is not ranked on the board; the timeline's notes count what ACC counts.

The run: ``bench run claw --model scripted/<a reply nobody can read>``. Expectations are derived from the stored
records, apart from the code under test: the windows are the gold's (each gold window holds at least one
decision), the unreadable replies are the recorded calls whose reply the parser refused.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from cli_run import Cli

from mindloop.bench.report import render_report
from mindloop.bench.report.board import board_data
from mindloop.bench.store import RunStore
from mindloop.paths import runs_path
from mindloop.systems.mindclaw.benchmarks import claw_timeline

UNREADABLE = "zzzz nobody can read this"


def test_a_model_that_decided_nothing_says_so_everywhere(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    reply = tmp_path / "unreadable.txt"
    reply.write_text(UNREADABLE, encoding="utf-8")
    run = cli("bench", "run", "claw", "--model", f"scripted/{reply}", "--n", "3", home=home)
    assert run.code == 0, run.stderr
    lines = run.out.splitlines()
    with RunStore(runs_path(), readonly=True) as store:
        (info,) = store.runs()
        records = store.records(info.run_id)
        stored = store.stored_summary(info.run_id)
        page = render_report(info.run_id, store)
        board = board_data(store)
    assert stored is not None
    calls = [c for r in records for c in r.calls if (c.get("role") or "agent") == "agent"]
    windows = sum(len(r.sample.input["gold"]["windows"]) for r in records)
    assert calls and all(c.get("text") == UNREADABLE and c.get("parsed") is False for c in calls)
    # the first line: the run, its protocol and how many replies could not be read (every one here)
    assert lines[0].endswith(f"· {len(calls)} unreadable replies"), lines[0]
    # ACC is still the paper's whole-trigger ACC (the skills decided everything, rightly), and beside it who decided
    metrics = stored["metrics"]
    assert metrics["acc"] == 1.0 and metrics["acc_model"] is None
    assert (metrics["model_windows"], metrics["windows"]) == (0, windows)
    decided = f"model decided 0 of {windows} windows"
    assert lines[2].startswith(f"{decided} · acc 1.0000, acc_no_noop 1.0000 over every decision"), lines[2]
    assert "acc_model – over the model's own" in lines[2]
    # the report says the same above its metrics, with the unreadable replies
    note = re.search(r'<p class="decided"><b>(.*?)</b></p>', page)
    assert note is not None and decided in note.group(1)
    assert note.group(1).startswith(f"{len(calls)} of the model&#39;s replies could not be read")
    # the board lists it, unranked, saying why
    (row,) = board["runs"]
    assert row["decided"] == decided and row["unranked"] == decided
    # compare (against a symbolic run of the same samples) says it under the benchmark, and in --json
    assert cli("bench", "run", "claw", "--n", "3", home=home).code == 0
    with RunStore(runs_path(), readonly=True) as store:
        symbolic = next(r.run_id for r in store.runs() if r.model is None)
    shown = cli("compare", symbolic, info.run_id, home=home)
    assert shown.code == 0 and f": {decided} · acc 1.0000" in shown.out
    as_json = json.loads(cli("compare", symbolic, info.run_id, "--json", home=home).out)
    sides = as_json["comparisons"][0]["runs"]
    assert [s.get("decided", "").split(" · ")[0] for s in sides] == ["", decided]


def test_the_timeline_counts_what_acc_counts(cli: Cli, tmp_path: Path) -> None:
    """Every window's note says what ACC counted there; over the episode they add up to the summary's counts (a
    run whose ACC is 1.00 shows no window with a wrong trigger decision)."""
    reply = tmp_path / "unreadable.txt"
    reply.write_text(UNREADABLE, encoding="utf-8")
    run = cli("bench", "run", "claw", "--model", f"scripted/{reply}", "--n", "2", "--json", home=tmp_path / "h")
    assert run.code == 0, run.stderr
    with RunStore(runs_path(), readonly=True) as store:
        records = store.records(json.loads(run.out)["run_id"])
    for record in records:
        timeline = claw_timeline(record)
        assert timeline is not None
        counted = [re.match(r"ACC: (\d+) of (\d+) trigger decisions right", step.note) for step in timeline.steps]
        got = [(int(m.group(1)), int(m.group(2))) for m in counted if m]
        assert len(got) == len(record.sample.input["gold"]["windows"])  # every gold window says what ACC counted
        assert sum(r for r, _ in got) == record.scores["acc_correct"]
        assert sum(t for _, t in got) == record.scores["acc_total"]
        # ACC 1.00 here: no window's note counts a wrong decision, whatever the closed loop did
        assert record.scores["acc_correct"] == record.scores["acc_total"]
        assert all(r == t for r, t in got)
        # the closed loop's unreadable reasoning shows as such, not as the reply's text
        assert not any(UNREADABLE in step.agent for step in timeline.steps)


def test_the_quick_preset_reaches_every_row_of_the_paper_table() -> None:
    """The quick suite's 6 episodes (``select=balanced``) hold 2 that need help and 1 control of each task, each
    group's earliest in the split, in the split's order: every row of the claw table has an episode."""
    from mindloop.bench.suite import preset_entry
    from mindloop.systems.mindclaw.benchmarks import ClawOptions, claw_samples
    from mindloop.worlds.household.scenarios import mindpower_sim

    entry = preset_entry("quick", "claw")
    assert entry.n == 6 and dict(entry.options) == {"select": "balanced"}
    samples = claw_samples(6, 0, ClawOptions(select="balanced"))
    split = [s.id for s in mindpower_sim("test")]
    groups = [s.group for s in samples]
    assert sorted(groups) == sorted(
        ["false_belief/help"] * 2 + ["implicit_goal/help"] * 2 + ["false_belief/control", "implicit_goal/control"]
    )
    ids = [s.id for s in samples]
    assert ids == sorted(ids, key=split.index)  # the split's order
    for group in set(groups):  # each group's earliest episodes
        earliest = [s.id for s in claw_samples(None, 0, ClawOptions()) if s.group == group][: groups.count(group)]
        assert [s.id for s in samples if s.group == group] == earliest
    assert [s.id for s in claw_samples(3, 0, ClawOptions())] == split[:3]  # the default: the first n

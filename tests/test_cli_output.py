"""Output a person can read and pipe: results on stdout, progress and diagnostics on stderr, tables that fit the
width they are given without breaking a cell, one error style, sorted help without Python type names."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from cli_run import Cli
from rich.console import Console

from mindloop.cli import main
from mindloop.cli.numbers import number
from mindloop.cli.summary import layout
from mindloop.console import DEFAULT_WIDTH, Column, emit, fit_table, output_width

# -- the console and the table fitter ------------------------------------------------------------------------------


def _render(table: object, width: int) -> list[str]:
    console = Console(width=width, record=True, file=open(os.devnull, "w"))  # noqa: SIM115, PTH123
    console.print(table)
    console.file.close()
    return console.export_text().splitlines()


def test_the_width_is_columns_when_set_else_the_default_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert output_width() == DEFAULT_WIDTH == 160  # pytest's capture is no terminal
    monkeypatch.setenv("COLUMNS", "93")
    assert output_width() == 93


def test_a_table_that_fits_is_left_whole() -> None:
    columns = [Column("id"), Column("note", shrink=4, drop=1)]
    table, dropped = fit_table(columns, [["a-1", "short"]], 80)
    assert dropped == []
    assert _render(table, 80)[-1].split() == ["a-1", "short"]


def test_a_wide_table_cuts_free_text_then_leaves_out_the_least_needed_columns() -> None:
    run_id = "hitom-20261127-082452-c088"  # 26 columns
    columns = [
        Column("run id"),
        Column("benchmark", drop=1),
        Column("model", shrink=8, drop=5),
        Column("started", drop=2),
        Column("headline"),
    ]
    row = [run_id, "hitom", "openai/a-rather-long-model-name", "11-27 08:24", "accuracy 0.8417"]
    # at 80: the cells take 26 + 9 + 31 + 11 + 15 = 92 and the 4 gaps 8: 20 too many, so the model is cut to 11
    table, dropped = fit_table(columns, [row], 80)
    lines = _render(table, 80)
    assert dropped == []
    assert max(len(line) for line in lines) <= 80 and len(lines) == 3  # header, rule, one row: nothing wraps
    assert run_id in lines[-1] and "accuracy 0.8417" in lines[-1] and " openai/a-r… " in lines[-1]
    # at 60: the model cut to 8 is not enough; the benchmark goes first, then the start time (26 + 31 + 15 + 4:
    # the model is cut to 15)
    table, dropped = fit_table(columns, [row], 60)
    lines = _render(table, 60)
    assert dropped == ["benchmark", "started"]
    assert max(len(line) for line in lines) <= 60 and len(lines) == 3
    assert lines[-1] == f"{run_id}  openai/a-rathe…  accuracy 0.8417"


def test_cells_are_never_read_as_markup() -> None:
    table, _ = fit_table([Column("x")], [["[best constant, optimistic]"]], 80)
    assert "[best constant, optimistic]" in _render(table, 80)[-1]


def test_the_wrote_line_names_the_file_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "40")  # the line is longer: it is not broken at the width
    out = tmp_path / "run[abc]" / "a-file-name-longer-than-the-width.txt"
    out.parent.mkdir()
    emit("data\n", out, "3 rows")
    assert out.read_text() == "data\n"
    assert capsys.readouterr().err == f"wrote 3 rows to {out}\n"


def test_one_number_format_per_kind() -> None:
    assert [number(0.84166, "proportion"), number(84.166, "percent"), number(12.5, "mean")] == [
        "0.8417",
        "84.17",
        "12.5000",
    ]
    assert [number(40, "count"), number(None, "proportion"), number(True, "count")] == ["40", "–", "–"]


def test_the_summary_layout_keeps_words_out_of_the_value_columns() -> None:
    metrics = {
        "sr": 80.0,
        "by_task": {"a": {"n": 4, "sr": 75.0}, "b": {"n": 1, "sr": 100.0}},
        "dialogue": {"n": 1, "sr": 100.0},
        "rouge": {"rouge1": 50.0},
        "controls": "exclude",
        "encoder": "BERTScore F1 (bert-score, last layer)",
    }
    lay = layout(metrics, "sr", n=5)
    assert [(b, r) for b, r, _ in lay.rows] == [("all", ""), ("by_task", "a"), ("by_task", "b"), ("dialogue", "")]
    assert lay.columns == ["n", "sr"] and lay.rows[0][2] == {"n": 5, "sr": 80.0}
    assert lay.other == [("rouge.rouge1", 50.0)]
    assert lay.settings == [("controls", "exclude"), ("encoder", "BERTScore F1 (bert-score, last layer)")]
    values = [v for _, _, row in lay.rows for v in row.values()]
    assert all(isinstance(v, int | float) for v in values)


# -- each command: results on stdout, the rest on stderr -----------------------------------------------------------


def _run(capsys: pytest.CaptureFixture[str], argv: list[str], code: int = 0) -> tuple[str, str]:
    assert main(argv) == code
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_bench_list_prints_its_table_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = _run(capsys, ["bench", "list"])
    names = [line.split()[0] for line in out.splitlines()[2:]]
    assert {"hitom", "tomi", "smoke", "claw"} <= set(names)
    assert "hitom" not in err and "needs --model" in err  # the key to the table is a note on stderr


def test_bench_run_summary_on_stdout_and_what_it_runs_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = _run(capsys, ["bench", "run", "hitom", "--n", "40"])
    preparing, running = err.strip().splitlines()  # what it prepares (the first line, at once), then what it runs
    assert preparing == "hitom: preparing up to 40 samples (seed 0)"
    assert re.fullmatch(r"hitom-\S+: running 40 of 40 samples with symbolic \(local, 8 at a time\)", running)
    lines = out.splitlines()
    assert lines[0] == "hitom · symbolic"  # no reply protocol for an agent that asks no model
    # the headline first: the tracker answers every question, so 40/40 right: Clopper-Pearson's lower bound at
    # 40 of 40 is 0.025 ** (1 / 40) = 0.9119; chance and the oracle on the same samples beside it
    assert lines[1].startswith("accuracy 1.0000 [0.9119, 1.0000], higher is better · chance ")
    assert lines[1].endswith(", oracle 1.0000")
    rows = [line.split() for line in lines if line.startswith(("all ", "by_"))]
    assert rows[0][:3] == ["all", "40", "1.0000"]
    # the 40 samples are 8 of each order: by_type's rows; by_order splits them the same way and is not repeated
    assert [r[:3] for r in rows if r[0] == "by_type"] == [["by_type", f"order_{k}", "8"] for k in range(5)]
    assert not any(r[0] == "by_order" for r in rows)
    assert "by_order: the same samples as by_type, not repeated" in out
    assert ": running" not in out
    assert re.search(r"^run hitom-\S+: 40/40 samples, 0 failed", out, re.M)


def test_bench_run_verbose_lists_every_metric(capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = _run(capsys, ["bench", "run", "tomi", "--n", "12", "--verbose"])
    assert "every metric" in out
    flat = {line.split()[0] for line in out.split("every metric", 1)[1].splitlines() if line.strip()}
    assert {"accuracy", "chance"} <= flat


def test_tom_eval_and_data_describe_print_on_stdout(capsys: pytest.CaptureFixture[str], hitom_dev: Path) -> None:
    out, err = _run(capsys, ["tom", "eval", str(hitom_dev), "--show-wrong", "0"])
    assert "240 questions answered" in out and "order_4" in out and err == ""
    out, err = _run(capsys, ["data", "describe", "mindpower-sim", "--n", "20"])
    assert "task type" in out and err == ""


def test_empty_listings_say_so_on_stderr_and_leave_stdout_empty(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = _run(capsys, ["runs"])
    assert out == "" and err.startswith("no runs yet in ")
    out, err = _run(capsys, ["suite", "list"])
    assert out == "" and err.strip() == "no suites yet"


def _ids(out: str) -> list[str]:
    return [line.split()[0] for line in out.splitlines()[2:] if line.strip()]


def test_runs_filters(capsys: pytest.CaptureFixture[str]) -> None:
    made = []
    for argv in (
        ["bench", "run", "tomi", "--n", "12", "--json"],
        ["bench", "run", "smoke", "--model", "scripted/echo", "--n", "3", "--json"],
        ["bench", "run", "tomi", "--n", "10", "--json"],
    ):
        out, _ = _run(capsys, argv)
        made.append(json.loads(out)["run_id"])
    tomi_a, smoke, tomi_b = made
    assert _ids(_run(capsys, ["runs"])[0]) == made
    assert _ids(_run(capsys, ["runs", "--benchmark", "tomi"])[0]) == [tomi_a, tomi_b]
    assert _ids(_run(capsys, ["runs", "--model", "ECHO"])[0]) == [smoke]
    assert _ids(_run(capsys, ["runs", "--model", "none", "--last", "1"])[0]) == [tomi_b]
    assert _ids(_run(capsys, ["runs", "--status", "finished", "--last", "2"])[0]) == [smoke, tomi_b]
    out, err = _run(capsys, ["runs", "--status", "running"])
    assert out == "" and err.strip() == "no run matches these filters"
    listed = json.loads(_run(capsys, ["runs", "--benchmark", "smoke", "--json"])[0])
    assert [r["run_id"] for r in listed["runs"]] == [smoke]
    out, err = _run(capsys, ["runs", "--suite", "suite-nope"], code=1)
    assert out == "" and err.startswith("mindloop: error: no suite 'suite-nope'")


def test_runs_piped_at_100_columns_is_one_line_a_run(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    for bench in ("tomi", "hitom"):
        assert cli("bench", "run", bench, "--n", "10", "--json").code == 0
    monkeypatch.setenv("COLUMNS", "100")
    proc = cli("runs")
    assert proc.code == 0
    lines = proc.out.splitlines()
    assert max(len(line) for line in lines) <= 100
    header, runs = lines[0].split(), lines[2:]
    assert header[:2] == ["run", "id"] and "headline" in header and "started" in header
    assert len(runs) == 2  # one line a run: nothing wrapped
    for line, bench in zip(runs, ("tomi", "hitom"), strict=True):
        assert line.startswith(f"{bench}-") and line.rstrip().endswith("accuracy 1.0000")
        assert re.search(r"\b\d\d-\d\d \d\d:\d\d\b", line)  # the compact start time, whole
    assert proc.stderr.startswith("not shown at this width: ")  # and what was left out says so, on stderr
    monkeypatch.setenv("COLUMNS", "160")
    wide = cli("runs")
    assert [line.split()[1] for line in wide.out.splitlines()[2:]] == ["tomi", "hitom"]  # the benchmark column


# -- errors and help -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (["bench", "run", "hitom", "--n"], "mindloop: error: option '--n' requires an argument"),
        (["bench", "run", "hitom", "--n", "x"], "mindloop: error: invalid value for '--n'"),
        (["bench", "run", "hitom", "--bogus"], "mindloop: error: no such option: --bogus"),
        (["runs", "--status", "nope"], "mindloop: error: invalid value for '--status'"),
        (["tom", "eval"], "mindloop: error: missing argument 'PATH'"),
    ],
)
def test_usage_errors_are_one_line_in_the_common_style(
    argv: list[str], start: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = _run(capsys, argv, code=1)
    assert out == "" and err.startswith(start) and len(err.strip().splitlines()) == 1


def _commands(capsys: pytest.CaptureFixture[str], path: list[str]) -> list[str]:
    out, _ = _run(capsys, [*path, "--help"])
    if "Commands:" not in out:
        return []
    return [line.split()[0] for line in out.split("Commands:")[1].splitlines() if line.startswith("  ")]


def test_help_is_sorted_and_names_no_python_types(capsys: pytest.CaptureFixture[str]) -> None:
    top = _commands(capsys, [])
    assert top == sorted(top) and {"bench", "runs", "tom", "compare"} <= set(top)
    seen = 0
    for group in top:
        subs = _commands(capsys, [group])
        assert subs == sorted(subs), group
        for path in [[group]] + [[group, sub] for sub in subs]:
            out, _ = _run(capsys, [*path, "--help"])
            seen += 1
            found = re.findall(r"<(?:list\[\w+\]|str|int|float|path|int range|float range)>", out)
            assert not found, f"mindloop {' '.join(path)} --help shows {found}"
    assert seen > 20


def test_progress_lines_come_every_10_s_by_default() -> None:
    from mindloop.bench.request import RunRequest
    from mindloop.cli.run_options import RunOptions

    assert RunOptions().progress_every == 10.0 and RunRequest("tomi").progress_every == 10.0


def test_suite_run_and_list_print_their_tables_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = _run(capsys, ["suite", "run", "--only", "tomi,hitom", "--max-n", "3"])
    rows = [line.split() for line in out.splitlines() if line.startswith(("tomi ", "hitom "))]
    assert [r[0] for r in rows] == ["tomi", "hitom"]
    assert all("accuracy" in r and "1.0000" in r for r in rows)  # the tracker is right on every question
    (report,) = [line for line in out.splitlines() if line.startswith("report: mindloop suite report ")]
    suite_id = report.split()[-1]
    assert err.count(": running 3 of 3 samples with symbolic") == 2  # progress: each run says what it runs
    assert "headline" not in err and "report: mindloop" not in err  # ... and the table is not repeated there
    out, err = _run(capsys, ["suite", "list"])
    assert out.splitlines()[2].split()[0] == suite_id and err == ""


def test_claw_summary_counts_the_episodes_its_headline_is_over(capsys: pytest.CaptureFixture[str]) -> None:
    # PIA is over the episodes that need help; the controls are reported apart. The all row's n is the samples
    # the headline's interval rests on, and each group's PIA gets the exact interval of its own n: the symbolic
    # agent gets every episode right, so Clopper-Pearson's lower bound at k = n is 0.025 ** (1 / n).
    out, _ = _run(capsys, ["bench", "run", "claw", "--n", "60", "--json"])
    metrics = json.loads(out)["metrics"]
    need_help, groups = metrics["help_needed"], metrics["by_group"]
    assert need_help + metrics["controls"] == 60 and 0 < need_help < 60
    out, _ = _run(capsys, ["bench", "run", "claw", "--resume", json.loads(out)["run_id"]])  # the same run as text
    lines = out.splitlines()
    (whole,) = [line.split() for line in lines if line.startswith("all ")]
    assert whole[1] == str(need_help) and whole[2:5] == ["1.0000", f"[{0.025 ** (1 / need_help):.4f},", "1.0000]"]
    assert f"n of the all row: the {need_help} samples pia is computed over, of 60." in lines
    rows = [line.split() for line in lines if line.startswith("by_group ")]
    assert [int(r[2]) for r in rows] == [groups[g]["n"] for g in sorted(groups)]
    assert all(r[4] == f"[{0.025 ** (1 / int(r[2])):.4f}," for r in rows)

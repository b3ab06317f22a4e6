"""``mindloop tom``: answer ToMi/Hi-ToM files with the symbolic tracker, audit released labels, and write seeded
ToMi-style stories."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.table import Column, Table

from mindloop.console import JsonFlag, OutFile, emit, emit_json, out_console, plain_table
from mindloop.systems import system_group

if TYPE_CHECKING:
    from mindloop.systems.tom.evaluate import TypeScore

tom_app = system_group("tom")


_Format = Literal["auto", "tomi", "hitom"]


@tom_app.command("eval")
def _tom_eval(
    path: Annotated[
        Path,
        typer.Argument(
            help="A ToMi or Hi-ToM file in the numbered-line format (ToMi's .trace beside it is read too), "
            "or Hi-ToM's released Hi-ToM_data.json."
        ),
    ],
    fmt: Annotated[
        _Format, typer.Option("--format", help="Question set; auto detects Hi-ToM from its phrasing.")
    ] = "auto",
    as_json: JsonFlag = False,
    show_wrong: Annotated[int, typer.Option("--show-wrong", min=0, help="Wrong answers to list (human output).")] = 3,
) -> None:
    """Answer every question in PATH with the symbolic belief tracker and report accuracy per question type.

    The numbers of `bench run tomi|hitom --data PATH --agent symbolic`, streamed and not stored."""
    from mindloop.systems.tom.evaluate import evaluate_file

    story_format = None if fmt == "auto" else fmt
    report = evaluate_file(path, story_format, keep_answers=False, keep_wrong=show_wrong)  # streamed: flat memory
    if as_json:
        emit_json(report.to_json())
        return
    console = out_console()
    console.print(f"{path} ({report.format}): {report.n} questions answered in {report.seconds:.3f} s")
    if report.audit is not None:
        console.print(
            f"accuracy against the released gold: {report.accuracy:.3f}; gold answers that contradict the story's "
            f"witness semantics: {report.audit.contradicted} of the {report.audit.checked} questions the story "
            "determines (an independent check, not the tracker)"
        )
    console.print(_score_table("question type", report.by_type, report.n, report.accuracy))
    for key, scores in report.breakdowns.items():
        console.print(_score_table(key.removeprefix("by_").replace("_", " "), scores))
    if report.pairs is not None:
        pairs = report.pairs
        acc = "-" if pairs["accuracy"] is None else f"{pairs['accuracy']:.3f}"
        console.print(
            f"story-question pairs held twice: {pairs['pairs']}, their two gold answers differ on "
            f"{pairs['disagreeing']}; accuracy on the {pairs['n']} that agree (each counted once): {acc}"
        )
    wrong = report.wrong
    if wrong and show_wrong:
        console.print(f"{report.n_wrong} wrong; the first {len(wrong)}:")
        for answered in wrong[:show_wrong]:
            ex = answered.example
            where = f"{ex.source}:{ex.line}" if ex.hitom is None or ex.hitom.choices == () else ex.source
            console.print(f"\n[dim]{where}[/]", markup=True, highlight=False)
            console.print(ex.story_text, markup=False, highlight=False)
            console.print(
                f"[bold]{ex.question.text}[/] gold [green]{ex.question.answer}[/], tracker [red]{answered.predicted}[/]"
            )
        if report.format == "hitom":
            console.print(
                "\nHi-ToM's labels contradict themselves on some stories: see docs/tom.md and docs/datasets.md."
            )


def _score_table(title: str, scores: Mapping[str, TypeScore], n: int | None = None, accuracy: float = 0.0) -> Table:
    """One accuracy table: a row per group, and a bold total row when ``n`` is given."""
    rows = [(name, str(score.n), f"{score.accuracy:.3f}") for name, score in scores.items()]
    if n is not None:
        rows.append(("[bold]all[/]", f"[bold]{n}[/]", f"[bold]{accuracy:.3f}[/]"))
    return plain_table((title, Column("n", justify="right"), Column("accuracy", justify="right")), rows)


_AuditFormat = Literal["tomi", "hitom", "opentom", "bigtom", "mmtom-qa", "fantom", "exploretom", "simpletom"]


_Split = Literal["normal", "long", "all"]


@tom_app.command("audit")
def _tom_audit(
    path: Annotated[
        Path,
        typer.Argument(
            help="The release as downloaded: a ToMi/Hi-ToM file, OpenToM's opentom_data folder, BigToM's "
            "bigtom.csv, MMToM-QA's questions.json, FANToM's fantom_v1.json, ExploreToM's CSV, SimpleToM's folder."
        ),
    ],
    fmt: Annotated[_AuditFormat, typer.Option("--format", help="The dataset the file belongs to.")],
    as_json: JsonFlag = False,
    show: Annotated[int, typer.Option("--show", min=0, help="Findings to list (human output).")] = 10,
    split: Annotated[
        _Split, typer.Option("--split", help="OpenToM: normal-length stories, long ones, or all.")
    ] = "normal",
) -> None:
    """List the questions whose gold contradicts the story by the dataset's own rules, with a reason each."""
    from mindloop.systems.tom.label_audit import audit_file

    report = audit_file(path, fmt, split=split)
    if as_json:
        emit_json(report.to_json())
        return
    summary = report.to_json()
    print(
        f"{path} ({report.format}): {report.questions} questions, {report.checked} judged, "
        f"{len(report.findings)} whose gold contradicts the story"
    )
    by_rule = summary["by_rule"]
    assert isinstance(by_rule, dict)
    for rule, count in by_rule.items():
        print(f"  {count:6d}  {rule}")
    for finding in report.findings[:show]:
        print(f"\n{finding.source} [{finding.rule}]\n  {finding.question}\n  gold {finding.gold!r}: {finding.reason}")


@tom_app.command("generate")
def _tom_generate(
    n: Annotated[int, typer.Option("--n", min=0, help="Number of examples (one question each).")] = 100,
    seed: Annotated[int, typer.Option("--seed", help="Seed: the same seed gives the same file, byte for byte.")] = 0,
    hitom: Annotated[
        bool,
        typer.Option("--hitom", help="Hi-ToM-style questions up to fourth order, under Hi-ToM's entrance policy."),
    ] = False,
    noise: Annotated[float, typer.Option("--noise", help="Probability of a distractor sentence per line.")] = 0.1,
    out: OutFile = None,
) -> None:
    """Write seeded ToMi-style stories with gold answers (computed apart from the tracker) in the line format."""
    from mindloop.worlds.stories import generate_tomi, to_numbered_text

    # Hi-ToM-style files are read under Hi-ToM's policy (an entrance reveals nothing), so they are written under it.
    examples = generate_tomi(
        n, seed=seed, max_order=4 if hitom else 2, hitom_questions=hitom, noise=noise, reveal_on_entry=not hitom
    )
    text = to_numbered_text(examples)
    emit(text, out, f"{len(examples)} examples")

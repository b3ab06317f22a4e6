"""The official release's protocol: its record file, messages, reply parsing, judge and Stage 2 key matching, the
import of its replication script's CSV outputs, and protocol=release|mindloop side by side.

The excerpts below are written here in the release's shapes (``benchmark_story_belief_labels.jsonl`` lines; the
replication script's ``extraction/csv``, ``labeling/csv`` and ``judge/csv`` files and ``manifest.json``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindloop.bench.api import AgentContext
from mindloop.bench.scoring import run_metrics
from mindloop.bench.store import RunStore
from mindloop.datafiles import DataFileError, load_data_file
from mindloop.errors import InvalidArgumentError
from mindloop.models.base import Completion, GenerationConfig, Message, message_text
from mindloop.systems.omnitom import release
from mindloop.systems.omnitom.alignment import AlignmentTask, ExactAligner, _contradicts
from mindloop.systems.omnitom.annotator import annotate_text
from mindloop.systems.omnitom.benchmarks import OmniToMStage1Benchmark, OmniToMStage2Benchmark
from mindloop.systems.omnitom.cli import omnitom_app
from mindloop.systems.omnitom.judge import JudgeAligner
from mindloop.systems.omnitom.metrics import score_records_sync
from mindloop.systems.omnitom.records import BeliefRecord, StoryRecord, read_records
from mindloop.systems.omnitom.replication import import_replication

from .test_omnitom_benchmarks import ReplyModel, run_all, samples_of

runner = CliRunner()


def _labels(order: str, truth: str, access: str, repr_: str, ctype: str, source: str, context: str) -> dict[str, str]:
    keys = ("order", "truth_status", "knowledge_access", "representation", "content_type", "mental_source", "context")
    return dict(zip(keys, (order, truth, access, repr_, ctype, source, context), strict=True))


STORY7 = "Alice and Bob are in a room. There is an object in a box. Bob leaves. Alice moves the object to the safe."
GOLD7 = [
    ("world", "Bob leaves the room", _labels("0", "True", "Public", "Explicit", "Action/Event", "Narration",
                                              "Neutral")),
    ("Alice", "The object is in the safe", _labels("1", "True", "Private", "Implicit", "Location", "Perception",
                                                    "Neutral")),
    ("Bob", "The object is in the box", _labels("1", "False", "Private", "Implicit", "Location", "Perception",
                                                 "Temporal")),
    ("Bob", "Alice thinks the object is in the box", _labels("2", "False", "Unknown", "Implicit", "Epistemic",
                                                              "Inference", "Temporal")),
]  # fmt: skip
"""A False Belief story with four gold beliefs; one Knowledge Access is ``Unknown``, as the release may write."""


def _release_file(tmp_path: Path) -> Path:
    """Three lines of ``benchmark_story_belief_labels.jsonl``: two labelled stories (split ``test``), and a Stage 1
    gold that carries only the order (split ``dev``)."""
    lines = [
        {"story_id": 7, "story_category": "False Belief Task", "story": STORY7, "split": "test",
         "beliefs": [{"actor": a, "belief": b, "labels": lab} for a, b, lab in GOLD7]},
        {"story_id": 8, "story_category": "Hinting Task Test", "story": "Rebecca says to her father, \"I like dogs.\"",
         "split": "test", "beliefs": [{"actor": "Rebecca's father", "belief": "Rebecca likes dogs",
                                       "labels": _labels("1", "True", "Public", "Explicit", "Trait/Value",
                                                         "Testimony", "Neutral")}]},
        {"story_id": 9, "story_category": "Strange Story Task", "story": "Emma coughs.", "split": "dev",
         "beliefs": [{"actor": "world", "belief": "Emma coughs", "labels": {"order": "0"}}]},
    ]  # fmt: skip
    path = tmp_path / "benchmark_story_belief_labels.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


# ---- records --------------------------------------------------------------------------------------------------------
def test_the_release_file_is_read_for_both_stages(tmp_path: Path) -> None:
    records = read_records(_release_file(tmp_path))
    assert [(r.story_id, r.split, r.stage2_ready) for r in records] == [(7, "test", True), (8, "test", True),
                                                                         (9, "dev", False)]  # fmt: skip
    assert records[0].beliefs[3].labels.knowledge_access == "Unknown"  # the release's scorer accepts it
    assert records[2].beliefs[0].labels.order_only and records[2].to_json()["split"] == "dev"
    assert "split" not in StoryRecord(story_id=1, story_category="FBT", story="s").to_json()
    data = str(_release_file(tmp_path))
    s1 = samples_of(OmniToMStage1Benchmark(), None, 0, {"data": data, "aligner": "exact"})
    assert [s.id for s in s1] == ["story00007", "story00008", "story00009"]
    s2 = samples_of(OmniToMStage2Benchmark(), None, 0, {"data": data, "split": "test"})
    assert [s.id for s in s2] == ["story00007", "story00008"]
    with pytest.raises(InvalidArgumentError, match=r"Stage 1 golds .* story 9"):
        samples_of(OmniToMStage2Benchmark(), None, 0, {"data": data})
    with pytest.raises(InvalidArgumentError, match=r"no record has split 'train' .*dev, test"):
        samples_of(OmniToMStage2Benchmark(), None, 0, {"data": data, "split": "train"})


# ---- messages ------------------------------------------------------------------------------------------------------
def test_stage_messages_have_the_release_layout() -> None:
    system, user = (message_text(m) for m in release.stage1_messages(" Emma coughs. "))
    assert system.startswith("You are a Theory of Mind expert") and "\n2. Identify all actors" in system
    assert user == (
        "Given the story narrative below, extract multi-order actor beliefs and output only the pipe-separated table."
        "\n\nStory Narrative:\nEmma coughs.\n\nNow output only the pipe-separated table with header: "
        "Actor | Belief | Order."
    )
    beliefs = [BeliefRecord(actor="world", belief="Emma coughs"), BeliefRecord(actor="Dad", belief="Emma is ill")]
    system2, user2 = (message_text(m) for m in release.stage2_messages("Emma coughs.", beliefs))
    assert "closed sets-Order (0/1/2/3)" in system2 and "\n7. Determine the Context" in system2
    assert user2.endswith(
        "\n\nStory Narrative:\nEmma coughs.\n\nBelief table:\nActor | Belief\nworld | Emma coughs\nDad | Emma is ill"
        "\n\nNow output only the completed pipe-separated labels table."
    )


def test_judge_messages_carry_the_three_examples_and_both_csv_tables() -> None:
    system, user = (
        message_text(m) for m in release.judge_messages("S.", [("Dad", 'says "hi, you"')], [("world", 'Dad says "hi"')])
    )
    assert system.startswith(release.JUDGE_SYSTEM + "\n\nHere are examples showing the matching process:\n\n")
    assert system.count("\nINPUT:\n\nStory Narrative:\n") == 3 and "Example 3:" in system and "Example 4" not in system
    assert "world,The cabinet does not contain a pineapple,1\n" in system  # example 1's ground truth, with counts
    assert user == (
        f"{release.JUDGE_INSTRUCTION}\n\nStory Narrative:\nS.\n\n"
        'Prediction Table:\nActor,Belief\nDad,"says ""hi, you"""\n\n'  # quoted only where needed
        'Ground Truth Table:\nActor,Belief\n"world","Dad says ""hi"""\n\n'  # every field quoted
        f"{release.JUDGE_CLOSING}"
    )
    assert release.judge_system(0) == release.JUDGE_SYSTEM
    with pytest.raises(InvalidArgumentError, match="between 0 and 3"):
        release.judge_system(4)


def test_the_judge_examples_are_checked_on_load(tmp_path: Path) -> None:
    examples = release.load_judge_examples().examples
    assert [e.name for e in examples] == ["unexpected_contents", "hinting", "scalar_implicature"]
    assert [(len(e.prediction), len(e.ground_truth)) for e in examples] == [(9, 21), (12, 13), (21, 22)]
    bad = tmp_path / "bad.yaml"
    bad.write_text("examples:\n" + "".join(
        f"  - {{name: e{i}, story: s, prediction: [[world, 'a, b', 1]], ground_truth: [[world, a, 4]]}}\n"
        for i in range(3)), encoding="utf-8")  # fmt: skip
    with pytest.raises(DataFileError, match=r"without commas|less than or equal to 3"):
        load_data_file(release.JudgeExamples, bad)


# ---- parsing replies -------------------------------------------------------------------------------------------
def test_replies_are_read_as_the_release_reads_them() -> None:
    beliefs, dropped = release.parse_extraction(
        "Table:\n| Actor | Belief | Order |\n|---|---|---|\n| world | Bob leaves the room. | 0 |\n| Bob | x |\n"
        "| | empty actor | 1 |\n| Actor | Belief | Order |"
    )
    # the first row is the header; the short row is dropped; a repeated header later is a row, as in the release
    assert [(b.actor, b.belief, b.labels.order) for b in beliefs] == [
        ("world", "Bob leaves the room", "0"),
        ("Actor", "Belief", None),
    ]
    assert dropped == [" | empty actor | 1"]
    rows = release.parse_labels(
        "Actor | Belief | Order | Truth-Status | Knowledge-Access | Representation | Content Type | Mental-Source | "
        "Context\nBob | Alice thinks the object is in the box. | Order 2 | false | unknown | Implicit | Physical | "
        "Inference | Temporal + False"
    )
    ((actor, belief, labels),) = rows
    assert (actor, belief) == ("Bob", "Alice thinks the object is in the box")
    assert labels.as_tuple() == ("2", "False", "Unknown", "Implicit", None, "Inference", None)  # "Physical": no alias


def test_stage2_matches_exact_keys_with_no_positional_fallback() -> None:
    gold = [BeliefRecord(actor=a, belief=b, labels=lab) for a, b, lab in GOLD7]  # type: ignore[arg-type]
    reply = "\n".join(
        [
            "world | Bob leaves the room | 0 | True | Public | Explicit | Action/Event | Narration | Neutral",
            "alice | THE OBJECT IS IN THE SAFE | 1 | True | Private | Implicit | Location | Perception | Neutral",
            "Bob | The object was in the box | 1 | False | Private | Implicit | Location | Perception | Temporal",
            "Bob | Alice thinks the object is in the box | 2 | False | Unknown | Implicit | Epistemic | Inference | "
            "Temporal",
        ]
    )
    labels = release.stage2_labels_by_key(release.parse_labels(reply), gold)
    assert [x is not None for x in labels] == [True, True, False, True]  # a reworded row labels nothing
    dup = [BeliefRecord(actor="Bob", belief="p"), BeliefRecord(actor="Bob", belief="p")]
    pred = [("Bob", "p", gold[0].labels), ("Bob", "p", gold[1].labels), ("Bob", "p", gold[2].labels)]
    assert release.stage2_labels_by_key(pred, dup) == [gold[0].labels, gold[1].labels]  # by occurrence


# ---- the judge ---------------------------------------------------------------------------------------------------
class Scripted:
    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.prompts: list[Sequence[Message]] = []

    @property
    def name(self) -> str:
        return "scripted/judge"

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        self.prompts.append(messages)
        return Completion(text=self.reply, model=self.name)

    async def aclose(self) -> None:
        return None


def _task() -> AlignmentTask:
    pred = (BeliefRecord(actor="World", belief="Bob leaves"), BeliefRecord(actor="Bob", belief="box"),
            BeliefRecord(actor="Bob", belief="box"))  # fmt: skip
    gold = (BeliefRecord(actor="world", belief="Bob leaves"), BeliefRecord(actor="Bob", belief="box"))
    return AlignmentTask("S.", pred, gold)


def test_release_judge_counts_and_unreadable_replies() -> None:
    reply = (
        "**Prediction Table:**\nActor,Belief,MatchCount\nworld,Bob leaves,1\nBob,box,0\nBob,box,1\n\n"
        'Ground Truth Table:\nActor,Belief,MatchCount\n"world","Bob leaves",one\nBob,box,1\n'
    )
    model = Scripted(reply)
    (al,) = asyncio.run(JudgeAligner(model).align([_task()]))  # the release's protocol is the default
    # repeated rows take the highest count first; an unreadable count is 0
    assert (al.pred_counts, al.gold_counts, al.error, al.warnings) == ((1, 1, 0), (0, 1), None, ())
    assert message_text(model.prompts[0][0]).startswith(release.JUDGE_SYSTEM)
    # an unreadable reply goes back once with the reason, then leaves the story unscored under both protocols
    judge = Scripted("They all match.")
    (bad,) = asyncio.run(JudgeAligner(judge).align([_task()]))
    assert bad.error == (
        "unreadable judge reply (2 attempts): no Prediction and no Ground Truth table: expected a 'Prediction "
        "Table' and a 'Ground Truth Table', each a CSV table with header Actor,Belief,MatchCount"
    )
    assert len(judge.prompts) == 2 and "Your reply could not be read: no Prediction" in message_text(
        judge.prompts[1][-1]
    )
    (old,) = asyncio.run(JudgeAligner(Scripted("They all match."), protocol="mindloop", retries=0).align([_task()]))
    assert old.error is not None and old.error.startswith("unreadable judge reply (1 attempt): expected two tables")


def test_an_unreadable_reply_is_unscored_and_the_release_rule_reported_apart() -> None:
    gold = StoryRecord(story_id=1, story_category="FBT", story="S.", beliefs=_task().gold)
    pred = StoryRecord(story_id=1, story_category="FBT", story="S.", beliefs=_task().predicted)
    rel = score_records_sync([pred], [gold], JudgeAligner(Scripted("no tables")))
    assert (rel.stage1["f1"], rel.stage1["unscored"]) == (None, 1)
    out = rel.to_json()
    assert out["stage1"] == {"precision": None, "recall": None, "f1": None}  # null, never 0.0
    assert (
        out["stage1_unscored"][0]["story_id"] == 1 and "unreadable judge reply" in out["stage1_unscored"][0]["reason"]
    )
    assert out["stage1_release_rule"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}  # the release: rows unmatched
    own = score_records_sync([pred], [gold], JudgeAligner(Scripted("no tables"), protocol="mindloop"),
                             protocol="mindloop")  # fmt: skip
    assert (own.stage1["f1"], own.stage1["unscored"]) == (None, 1) and "stage1_release_rule" not in own.to_json()


# ---- both protocols on the command line and in the benchmarks ---------------------------------------------------
def test_score_protocols_side_by_side(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"story_id": 8, "story_category": "HT", "story": "s", "beliefs": [
        {"actor": "Rebecca's father", "belief": "Rebecca likes dogs",
         "labels": _labels("1", "True", "Public", "Explicit", "Trait/Value", "Testimony", "Neutral")}]}) + "\n",
        encoding="utf-8")  # fmt: skip
    pred = tmp_path / "pred.jsonl"
    pred.write_text(json.dumps({"story_id": 8, "story_category": "HT", "story": "s", "beliefs": [
        {"actor": "Father", "belief": "Rebecca likes dogs.", "labels": _labels(
            "1", "True", "Public", "Explicit", "Trait/Value", "Testimony", "Neutral")}]}) + "\n",
        encoding="utf-8")  # fmt: skip
    base = ["score", "--pred", str(pred), "--gold", str(gold), "--aligner", "exact", "--json"]
    rel = json.loads(runner.invoke(omnitom_app, base).stdout)
    own = json.loads(runner.invoke(omnitom_app, [*base, "--protocol", "mindloop"]).stdout)
    # mindloop maps the shortened actor and drops the period; the release's exact key does neither
    assert (rel["protocol"], rel["stage2"]["overall"]) == ("release", 0.0)
    assert (own["protocol"], own["stage2"]["overall"]) == ("mindloop", 1.0)
    assert rel["aligner"] == own["aligner"] == "exact"


def test_model_agents_under_the_release_protocol(tmp_path: Path) -> None:
    data = str(_release_file(tmp_path))
    golds = {r.story: r for r in read_records(data)}
    seen: list[str] = []

    def extract(user: str) -> str:
        seen.append(user)
        story = user.split("Story Narrative:\n")[1].split("\n\nNow output")[0]
        rows = [f"{b.actor} | {b.belief}. | {b.labels.order}" for b in golds[story].beliefs]
        return "| Actor | Belief | Order |\n|---|---|---|\n" + "\n".join(rows)

    s1 = OmniToMStage1Benchmark()
    records = run_all(s1, samples_of(s1, None, 0, {"data": data, "aligner": "exact"}), AgentContext(
        "model", model=ReplyModel(extract)))  # fmt: skip
    assert [r.scores["f1"] for r in records] == [1.0, 1.0, 1.0]  # the trailing periods are cut as the release does
    assert seen[0].startswith(release.STAGE1_INSTRUCTION)
    summary = run_metrics(s1, records)
    assert summary["protocol"] == "release" and summary["scorer"].startswith("exact aligner: mindloop's offline")

    def label(user: str) -> str:
        story = user.split("Story Narrative:\n")[1].split("\n\nBelief table:")[0]
        return "\n".join(f"{b.actor} | {b.belief} | " + " | ".join(x or "" for x in b.labels.as_tuple())
                         for b in golds[story].beliefs)  # fmt: skip

    s2 = OmniToMStage2Benchmark()
    samples = samples_of(s2, None, 0, {"data": data, "split": "test"})
    records2 = run_all(s2, samples, AgentContext("model", model=ReplyModel(label)))
    assert [r.scores["overall"] for r in records2] == [1.0, 1.0]
    assert run_metrics(s2, records2)["protocol"] == "release"


# ---- the embedded aligner's contradiction guard -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("a", "b", "contradicts"),
    [
        ("Mingfeng nodded at Xiaolin", "Mingfeng nods at Xiaolin", False),
        ("Xiao Ming brought the cake", "Xiao Ming brings the cake", False),
        ("Xiao Hong planned a trip", "Xiao Hong plans a trip", False),
        ("Bob stopped the car", "Bob is stopping the car", False),
        ("Emma wrote a letter", "Emma writes a letter", False),
        ("The apple is in the green box", "The apple is in the red box", True),
        ("Bob thinks the ball is in the box", "Alice thinks the ball is in the box", True),
    ],
)
def test_past_forms_are_not_contradictions(a: str, b: str, contradicts: bool) -> None:
    assert _contradicts(a, b) is contradicts


# ---- importing a replication run ---------------------------------------------------------------------------------
def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _replication(tmp_path: Path) -> Path:
    """A replication output folder in the release script's layout for stories 7 and 8 (story 8's judge reply was
    unreadable, so its rows all carry 0, as the release writes them)."""
    out = tmp_path / "run"
    _release_file(tmp_path)
    _write(out / "manifest.json", json.dumps({"dataset_path": "../benchmark_story_belief_labels.jsonl",
                                              "backend": "api", "model": "gemma", "judge_model": "gpt-5",
                                              "stories": [7, 8]}))  # fmt: skip
    _write(
        out / "extraction/csv/story_007_extract.csv",
        "actor,belief,order\nworld,Bob leaves the room,0\nBob,The object is in the box,1\nBob,Bob is sad,1\n",
    )
    _write(
        out / "judge/csv/story_007_predictions.csv",
        "Actor,Belief,MatchCount\nworld,Bob leaves the room,1\nBob,The object is in the box,1\nBob,Bob is sad,0\n",
    )
    _write(
        out / "judge/csv/story_007_groundtruth.csv",
        "Actor,Belief,MatchCount\nworld,Bob leaves the room,1\nAlice,The object is in the safe,0\n"
        "Bob,The object is in the box,1\nBob,Alice thinks the object is in the box,0\n",
    )
    _write(out / "extraction/csv/story_008_extract.csv", "actor,belief,order\nFather,Rebecca likes dogs,1\n")
    _write(out / "judge/csv/story_008_predictions.csv", "Actor,Belief,MatchCount\nFather,Rebecca likes dogs,0\n")
    _write(
        out / "judge/csv/story_008_groundtruth.csv", "Actor,Belief,MatchCount\nRebecca's father,Rebecca likes dogs,0\n"
    )
    header = "actor,belief,order,truth-status,knowledge-access,representation,content_type,mental-source,context\n"
    _write(
        out / "labeling/csv/story_007_label.csv",
        header
        + "world,Bob leaves the room,0,True,Public,Explicit,Action/Event,Narration,Neutral\n"
        + "Alice,The object is in the safe,1,True,Shared,Implicit,Location,Perception,Neutral\n"
        + "Bob,The object is in the box,1,False,Private,Implicit,Location,Perception,Temporal\n"
        + "Bob,Alice thinks the object is in the box,2,False,Unknown,Implicit,Epistemic,Inference,Temporal\n",
    )
    return out  # story 8 has no labeling CSV: a failed Stage 2 sample  # fmt: skip


def test_import_a_replication_run(tmp_path: Path) -> None:
    from mindloop.bench.report import render_report
    from mindloop.bench.runner import summarize_run

    folder = _replication(tmp_path)
    with RunStore(tmp_path / "runs.sqlite") as store:
        s1, s2 = import_replication(folder, store)
        assert (s1.benchmark, s1.n, s1.n_failed, s2.benchmark, s2.n, s2.n_failed) == (
            "omnitom-stage1", 2, 0, "omnitom-stage2", 2, 1)  # fmt: skip
        m1 = summarize_run(s1.run_id, store).metrics
        # story 7: P = 2/3, R = 2/4, F1 = 4/7; story 8: an unreadable judge reply scored as unmatched, F1 0
        assert m1["f1"] == pytest.approx((4 / 7 + 0) / 2) and m1["precision"] == pytest.approx(1 / 3)
        assert m1["aligner"] == "judge:gpt-5" and m1["protocol"] == "release"
        m2 = summarize_run(s2.run_id, store).metrics
        # story 7: one Knowledge Access wrong of four (Shared for Private) -> 27/28; story 8 missing -> 0
        assert m2["overall"] == pytest.approx((1 - 1 / 28) / 2) and m2["failed"] == 1
        info = store.run(s1.run_id)
        assert info.model == "gemma" and info.config["imported_from"] == str(folder)
        assert s1.run_id in render_report(s1.run_id, store)
    with RunStore(tmp_path / "other.sqlite") as other, pytest.raises(InvalidArgumentError, match="no judge/csv"):
        import_replication(tmp_path, other)


def test_import_command(tmp_path: Path) -> None:
    folder = _replication(tmp_path)
    result = runner.invoke(omnitom_app, ["import", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    runs = json.loads(result.stdout)["runs"]
    assert [r["benchmark"] for r in runs] == ["omnitom-stage1", "omnitom-stage2"]
    assert runs[0]["metrics"]["f1"] == pytest.approx(2 / 7)
    human = runner.invoke(omnitom_app, ["import", str(folder), "--gold", str(tmp_path / "nope.jsonl")])
    assert human.exit_code != 0 and "no such file" in str(human.exception)


def test_the_annotator_agrees_with_the_release_gold_of_the_cabinet_story() -> None:
    """The release's first judge example is ToMBench's cabinet story with its gold table: the symbolic annotation
    of the same story recovers rows of it word for word (no model involved)."""
    example = release.load_judge_examples().examples[0]
    ours = annotate_text(example.story).beliefs
    gold = tuple(BeliefRecord(actor=a, belief=b) for a, b, _ in example.ground_truth)
    (alignment,) = asyncio.run(ExactAligner().align([AlignmentTask(example.story, ours, gold)]))
    matched = {gold[j].belief for _, j in alignment.links}
    assert {"There is a cabinet in the office", "The label on the cabinet is pineapple", "Xiao Bei opens the cabinet",
            "Xiao Bei closes the cabinet", "Han Mei Mei enters the office", "The cabinet contains a calculator",
            "Xiao Bei is in the office"} <= matched  # fmt: skip
    assert len(alignment.links) >= 12


def test_no_reply_reads_as_no_rows() -> None:
    assert release.parse_extraction(None) == ([], [])
    assert release.parse_labels(None) == []

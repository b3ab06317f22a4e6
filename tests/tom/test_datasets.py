"""OpenToM, BigToM and MMToM-QA read from their releases' formats (fixtures written by hand in those formats), the
tracker's coverage and answers on them, the model protocol, and ``tom audit``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.cli import main
from mindloop.errors import ParseError
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer
from mindloop.systems.tom.bigtom import bigtom_items, read_bigtom, track_item
from mindloop.systems.tom.exploretom import audit_exploretom, read_exploretom
from mindloop.systems.tom.fantom import audit_fantom, binary_reading, fantom_questions, list_correct, read_fantom
from mindloop.systems.tom.label_audit import audit_file
from mindloop.systems.tom.mmtomqa import read_mmtom
from mindloop.systems.tom.simpletom import read_simpletom

DATA = Path(__file__).parent / "data"
OPENTOM = DATA / "opentom"


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(argv) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


# -- BigToM ------------------------------------------------------------------------------------------------------


def test_bigtom_builds_the_releases_conditions() -> None:
    rows = read_bigtom(DATA / "bigtom_excerpt.csv")
    assert len(rows) == 3 and rows[1]["generation"] == "user"
    # a 19-field line (no alternate desire, as many of the release's) keeps its random event in place
    assert rows[1]["alternate_desire"] == "" and rows[1]["random_event"] == "A woodpecker drums on a nearby tree."
    items = bigtom_items(rows[:1], "hidden")
    assert len(items) == 12
    fb = next(i for i in items if i.variable == "forward_belief" and i.condition == "false_belief")
    # sentences 1-3 and 5 (the initial belief hidden), then the not-aware percept
    assert fb.story == (
        "Mina is a baker at a small bakery in Lisbon. Mina wants to fill the cream puffs with vanilla custard. "
        "Mina fills a piping bag with vanilla custard. Her apprentice swaps the custard in the bag for lemon curd "
        "while Mina answers the phone. Mina does not see her apprentice swapping the filling."
    )
    assert fb.answer == "Mina believes the piping bag contains vanilla custard."
    tc = next(i for i in items if i.variable == "forward_action" and i.condition == "true_control")
    assert "A delivery van honks outside the bakery. Mina hears the delivery van honking." in tc.story
    assert "apprentice" not in tc.story and tc.answer == "Mina will fill the cream puffs with the piping bag."
    bb = next(i for i in items if i.variable == "backward_belief" and i.condition == "true_belief")
    assert bb.story.endswith("Mina empties the piping bag and refills it with vanilla custard.")
    assert bb.answer == "Mina believes the piping bag contains lemon curd."
    both = bigtom_items(rows[:1], "both")
    # 3 variables x 4 conditions x 2 initial beliefs, and the builder's percept item (initial belief shown only)
    assert len(both) == 25
    percept = both[-1]
    assert (percept.variable, percept.condition, percept.file) == (
        "percept_to_belief",
        "true_belief",
        "1_percept_to_belief_true_belief",
    )
    assert percept.story == (
        "Mina is a baker at a small bakery in Lisbon. Mina wants to fill the cream puffs with vanilla custard. "
        "Mina fills a piping bag with vanilla custard."
    )
    # the builder writes answers[0], the aware answer, as this item's gold
    assert percept.answer == "Mina believes the piping bag contains lemon curd."


def test_bigtom_options_are_in_the_releases_order() -> None:
    # evaluate_conditions.py: random.seed(0), then random.shuffle([true, wrong]) for each line of one condition file
    rows = read_bigtom(DATA / "bigtom_excerpt.csv")
    items = bigtom_items(rows)
    rng = random.Random(0)
    expected = []
    for item in [i for i in items if i.file == "0_forward_belief_false_belief"]:
        pair = [item.answer, item.wrong]
        rng.shuffle(pair)
        expected.append(tuple(pair))
    assert [i.options for i in items if i.file == "0_forward_belief_false_belief"] == expected
    # each condition file starts its own draw: the first row's options are the same draw in every file
    firsts = {i.file: i.options.index(i.answer) for i in items if i.row.line == 1}
    assert len(set(firsts.values())) == 1


def test_bigtom_reads_a_field_over_128_kib(tmp_path: Path) -> None:
    line = (DATA / "bigtom_excerpt.csv").read_text(encoding="utf-8").splitlines()[0].split(";")
    line[-1] = "x" * 200_000  # csv's default field limit is 131,072
    big = tmp_path / "bigtom.csv"
    big.write_text(";".join(line) + "\n", encoding="utf-8")
    assert len(read_bigtom(big)[0]["flag"]) == 200_000


def test_bigtom_tracker_follows_each_condition() -> None:
    rows = read_bigtom(DATA / "bigtom_excerpt.csv")
    for item in bigtom_items(rows[:2]):
        got = track_item(item.row.fields, item.story, item.variable)
        if item.variable == "percept_to_belief":  # the story tells the initial state; the release's gold is aware
            assert got == item.row["belief_answer_not_aware"] != item.answer
        else:
            assert got == item.answer, (item.variable, item.condition)


def test_bigtom_rejects_a_short_row(tmp_path: Path) -> None:
    bad = tmp_path / "bigtom.csv"
    bad.write_text("a story;two fields\n", encoding="utf-8")
    with pytest.raises(ParseError, match=r"bigtom.csv:1: expected 20 ';'-separated fields \(19 without"):
        read_bigtom(bad)


def test_bench_run_bigtom_reports_accuracy_per_condition(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(
        capsys,
        [
            "bench",
            "run",
            "bigtom",
            "--agent",
            "symbolic",
            "--data",
            str(DATA / "bigtom_excerpt.csv"),
            "--opt",
            "initial_belief=hidden",
            "--n",
            "24",
            "--json",
        ],
    )
    metrics = out["metrics"]
    assert metrics["accuracy"] == 1.0 and metrics["coverage"] == 1.0
    row = metrics["by_condition"]["forward_belief/false_belief"]
    assert {k: row[k] for k in ("accuracy", "n", "chance")} == {"accuracy": 1.0, "n": 2, "chance": 0.5}
    # the 'not aware' answer is gold in false belief and both controls, not in true belief
    assert [metrics["by_condition"][f"forward_belief/{c}"]["not_aware"] for c in ("true_belief", "false_belief")] == [
        0.0,
        1.0,
    ]
    assert metrics["by_condition"]["forward_belief/true_control"]["not_aware"] == 1.0
    assert out["references"]["not aware"] == 0.75
    assert metrics["chance"] == 0.5
    assert list(metrics["by_condition"])[:4] == [
        "forward_belief/true_belief",
        "forward_belief/false_belief",
        "forward_belief/true_control",
        "forward_belief/false_control",
    ]


def test_bigtom_model_reads_the_releases_option_keys(tmp_path: Path) -> None:
    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        assert messages[0]["role"] == "system" and "Answer as 'Answer:<option>)<answer>'" in messages[0]["content"]
        assert "Choose one of the following:\na)" in messages[1]["content"]
        return "Answer:a)"

    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(reply) as server:
        opts = ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01)
        request = RunRequest(
            "bigtom",
            agent="model",
            model="openai/fake",
            model_options=opts,
            options={"data": str(DATA / "bigtom_excerpt.csv"), "initial_belief": "hidden"},
            n=12,
            concurrency=1,
        )
        summary = run_benchmark(request, store=store, progress=False)
        records = store.records(summary.run_id)
    # every reply picks option a; it is right exactly where the seeded order put the gold first
    first = sum(1 for r in records if r.sample.input["choices"][0] == r.sample.input["answer"])
    assert summary.metrics["accuracy"] == first / 12
    assert summary.metrics["accuracy_release_reading"] == first / 12


# -- MMToM-QA ----------------------------------------------------------------------------------------------------


def test_mmtom_reads_json_lines_and_scores_per_type(tmp_path: Path) -> None:
    items = read_mmtom(DATA / "mmtom_excerpt.json")
    assert [i.qtype for i in items] == ["1.1", "1.2", "2.1", "2.1", "1.3"]

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        assert messages[0]["content"] == "You are a helpful assistant."
        assert messages[1]["content"].endswith("Please respond with either a or b.\nAnswer: ")
        return "a"

    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(reply) as server:
        opts = ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01)
        request = RunRequest(
            "mmtom-qa",
            agent="model",
            model="openai/fake",
            model_options=opts,
            options={"data": str(DATA / "mmtom_excerpt.json")},
            concurrency=1,
        )
        summary = run_benchmark(request, store=store, progress=False)
    m = summary.metrics
    assert m["accuracy"] == 3 / 5 and m["unparsed"] == 0
    keys = ("accuracy", "n", "chance", "accuracy_release_reading", "unparsed")
    assert {k: m["by_type"]["1.2"][k] for k in keys} == {
        "accuracy": 0.0,
        "n": 1,
        "chance": 0.5,
        "accuracy_release_reading": 0.0,
        "unparsed": 0,
    }
    assert {kind: {k: row[k] for k in keys[:3]} for kind, row in m["by_kind"].items()} == {
        "belief": {"accuracy": 2 / 3, "n": 3, "chance": 0.5},
        "goal": {"accuracy": 0.5, "n": 2, "chance": 0.5},
    }


def test_mmtom_bad_line_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "questions.json"
    bad.write_text('{"question": "q", "answer": "a", "question_type": 1.1}\n{"question": "q"\n', encoding="utf-8")
    with pytest.raises(ParseError, match=r"questions.json:2: not valid JSON"):
        read_mmtom(bad)


def test_a_row_missing_fields_names_each_one(tmp_path: Path) -> None:
    # release_rows, shared by MMToM-QA, ExploreToM and SimpleToM: every missing field is its own clause, and a
    # group of which any one will do reads "A or B".
    bad = tmp_path / "questions.json"
    bad.write_text('{"question": "q", "answer": "a", "question_type": 1.1}\n{"question": "q"}\n', encoding="utf-8")
    with pytest.raises(ParseError, match=r"questions\.json:2: no 'answer' field; no 'question_type' field$"):
        read_mmtom(bad)
    header = tmp_path / "e.csv"
    header.write_text("question,expected_answer\nq,a\n", encoding="utf-8")
    with pytest.raises(
        ParseError,
        match=r"e\.csv:1: no 'qprop=params' field; no 'qprop=nth_order' field; "
        r"no 'infilled_story' or 'story_structure' field$",
    ):
        read_exploretom(header)


# -- tom audit ---------------------------------------------------------------------------------------------------


def test_tom_audit_covers_every_format(capsys: pytest.CaptureFixture[str]) -> None:
    opentom = _json(capsys, ["tom", "audit", str(OPENTOM), "--format", "opentom", "--json"])
    assert opentom["contradicted"] == 2 and opentom["questions"] == 36
    bigtom = _json(capsys, ["tom", "audit", str(DATA / "bigtom_excerpt.csv"), "--format", "bigtom", "--json"])
    # row 3's two flags (same answers), and rows 1-2's percept items (gold the aware answer); row 3's percept
    # item has one answer for both, so no flag
    assert bigtom["contradicted"] == 4 and bigtom["questions"] == 75
    assert {f["source"] for f in bigtom["findings"]} == {
        "bigtom_excerpt.csv:3",
        "bigtom_excerpt.csv:1 (1_percept_to_belief_true_belief)",
        "bigtom_excerpt.csv:2 (1_percept_to_belief_true_belief)",
    }
    mmtom = _json(capsys, ["tom", "audit", str(DATA / "mmtom_excerpt.json"), "--format", "mmtom-qa", "--json"])
    assert [f["source"] for f in mmtom["findings"]] == [
        "mmtom_excerpt.json:5",
        "mmtom_excerpt.json:3",
        "mmtom_excerpt.json:4",
    ]
    hitom = _json(capsys, ["tom", "audit", str(DATA / "hitom_excerpt.json"), "--format", "hitom", "--json"])
    assert hitom["contradicted"] >= 2  # the pair whose two released copies disagree
    tomi = audit_file(DATA / "tomi_excerpt.txt", "tomi")
    assert tomi.questions == 24 and tomi.checked > 0


def test_tom_audit_human_output_lists_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["tom", "audit", str(DATA / "bigtom_excerpt.csv"), "--format", "bigtom"]) == 0
    out = capsys.readouterr().out
    assert "4 whose gold contradicts the story" in out and "bigtom_excerpt.csv:3" in out


def test_tom_audit_on_a_missing_path_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["tom", "audit", str(tmp_path / "nope"), "--format", "opentom"]) == 1
    err = capsys.readouterr().err
    assert "no such file or folder" in err and "Traceback" not in err


# -- FANToM ------------------------------------------------------------------------------------------------------


def test_fantom_flattens_as_the_release_does() -> None:
    sets = read_fantom(DATA / "fantom_excerpt.json")
    short = fantom_questions(sets, "short")
    # fact, 2 belief x (free-form, multiple-choice), 2 lists, 2 + 2 binaries ('no:long' left out on the short input)
    assert len(short) == 11 and len(fantom_questions(sets, "full")) == 12
    mc = next(q for q in short if q.kind == "belief:multiple-choice")
    assert "(a) " in mc.prompt and mc.prompt.endswith("Choose an answer from above:")
    assert mc.wrong[mc.gold] == "Ivo does not know where the bakery was; he was getting coffee."
    lst = next(q for q in short if q.kind == "answerability:list")
    assert "\n\nTarget: Where was the best bakery Gia found in Lisbon?\nQuestion: List all" in lst.prompt
    assert binary_reading("No, he was away.") == 0 and binary_reading("Yes.") == 1 and binary_reading("Maybe") == -1
    assert list_correct("Gia and Hal", ["Gia", "Hal"], ["Ivo"]) and not list_correct("Gia, Hal, Ivo", ["Gia"], ["Ivo"])


def test_fantom_model_scores_the_releases_aggregates(tmp_path: Path) -> None:
    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        text = messages[-1]["content"]
        if "List all the characters" in text:
            return "Gia and Hal"
        if "Does Hal know" in text:
            return "Yes"
        if "Does Ivo know" in text:
            return "No"
        if "Choose an answer from above" in text:
            want = "Ivo does not know" if "What does Ivo" in text else "Hal believes"
            line = next(x for x in text.splitlines() if x.startswith("(") and want in x)
            return line[:3]
        if "What does Ivo believe" in text:
            return "Answer: Ivo does not know where the bakery was."
        if "What does Hal believe" in text:
            return "Hal believes the best bakery was near the river."
        return "It was near the river."

    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(reply) as server:
        opts = ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01)
        request = RunRequest(
            "fantom",
            agent="model",
            model="openai/fake",
            model_options=opts,
            options={"data": str(DATA / "fantom_excerpt.json")},
            concurrency=1,
        )
        m = run_benchmark(request, store=store, progress=False).metrics
    # every answer is right but Ivo's info-accessibility binary, whose gold 'yes' the audit lists
    assert m["inaccessible_all_star"] == 0.0 and m["inaccessible_answerability_all"] == 1.0
    assert m["inaccessible_info_accessibility_all"] == 0.0
    assert m["inaccessible_belief_multiple_choice"] == 1.0 and m["inaccessible_belief_free_form"] == 1.0
    assert m["inaccessible_info_accessibility_binary_f1"] == pytest.approx(2 / 3)
    assert m["control_all_star"] == 1.0
    assert 0.0 < m["fact_word_f1"] < 1.0


def test_fantom_audit_lists_binary_golds_against_their_list(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["tom", "audit", str(DATA / "fantom_excerpt.json"), "--format", "fantom", "--json"])
    # Ivo's binary 'yes' contradicts his set's list and the presence record (he was out for coffee): one finding
    assert out["contradicted"] == 1 and out["by_rule"] == {"presence record": 1}
    assert out["findings"][0]["question"] == "Does Ivo know about this information?"
    assert out["findings"][0]["reason"] == (
        "Ivo leaves and is away for turns 2-5, back at turn 6 of 7; Hal, Gia there throughout; the information is "
        "shared at turn 5, while Ivo was away: Ivo does not know"
    )
    sets = read_fantom(DATA / "fantom_excerpt.json")
    del sets[0]["joining_speaker"]  # without the presence record the list still catches it
    assert [f[4] for f in audit_fantom(sets)[1]] == ["info-accessibility list vs binary"]


# -- ExploreToM and SimpleToM ------------------------------------------------------------------------------------


def test_exploretom_reads_the_csv_with_its_quirks() -> None:
    items = read_exploretom(DATA / "exploretom_excerpt.csv")
    assert [i.order for i in items] == [-1, 1, 1, 1]
    assert [i.relation for i in items][:3] == ["memory-container_location", "container_location", "knowledge"]
    assert "\n" in items[0].infilled  # a quoted field spanning two lines
    checked, found = audit_exploretom(items)
    assert checked == 3  # the yes/no row has no place to look for
    assert [(i.question, rule) for i, _, rule in found] == [
        ("In which container will Theo search for the brass key?", "answer not in story")
    ]


def test_exploretom_model_reads_pairs_as_choices_and_the_rest_by_the_release_rule(tmp_path: Path) -> None:
    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        text = messages[-1]["content"]
        if 'Answer "yes" or "no"' in text:
            return "No, she does not know."  # 'no' is the gold; the release's substring rule agrees here
        return "The tin box."

    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(reply) as server:
        opts = ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01)
        request = RunRequest(
            "exploretom",
            agent="model",
            model="openai/fake",
            model_options=opts,
            options={"data": str(DATA / "exploretom_excerpt.csv")},
            concurrency=1,
        )
        m = run_benchmark(request, store=store, progress=False).metrics
    assert m["accuracy"] == 3 / 4  # Theo's expected 'leather pouch' is never said
    assert {o: {k: row[k] for k in ("accuracy", "n")} for o, row in m["by_order"].items()} == {
        "-1": {"accuracy": 1.0, "n": 1},
        "1": {"accuracy": 2 / 3, "n": 3},
    }
    assert {k: m["by_type"]["knowledge"][k] for k in ("accuracy", "n", "chance")} == {
        "accuracy": 1.0,
        "n": 1,
        "chance": 0.5,
    }
    assert "chance" not in m  # open answers have no chance level


def test_simpletom_reads_the_three_sets_and_audits_the_quoted_fact(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = read_simpletom(DATA / "simpletom")
    assert [i.qset for i in items] == ["mental-state-qa", "mental-state-qa", "behavior-qa", "judgment-qa"]
    out = _json(capsys, ["tom", "audit", str(DATA / "simpletom"), "--format", "simpletom", "--json"])
    assert out["contradicted"] == 1 and out["by_rule"] == {"fact not in story": 1}

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        assert "answer the question by giving the correct answer choice, (A), (B)" in messages[-1]["content"]
        return "(A)"

    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(reply) as server:
        opts = ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01)
        request = RunRequest(
            "simpletom",
            agent="model",
            model="openai/fake",
            model_options=opts,
            options={"data": str(DATA / "simpletom")},
            concurrency=1,
        )
        m = run_benchmark(request, store=store, progress=False).metrics
    # answer A everywhere: wrong on the first awareness question (gold B), right on the other three
    assert {t: {k: row[k] for k in ("accuracy", "n", "chance")} for t, row in m["by_set"].items()} == {
        "mental-state-qa": {"accuracy": 0.5, "n": 2, "chance": 0.5},
        "behavior-qa": {"accuracy": 1.0, "n": 1, "chance": 0.5},
        "judgment-qa": {"accuracy": 1.0, "n": 1, "chance": 0.5},
    }


def test_exploretom_symbolic_reads_the_story_structure(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(
        capsys,
        ["bench", "run", "exploretom", "--agent", "symbolic", "--data", str(DATA / "exploretom_excerpt.csv"), "--json"],
    )
    m = out["metrics"]
    # the yes/no knowledge question is not covered; Theo's 'leather pouch' is not where the story put the key
    assert m["covered"] == 3 and m["not_covered"] == 1 and m["accuracy_covered"] == 2 / 3
    assert {k: m["by_order"]["-1"][k] for k in ("accuracy", "n")} == {"accuracy": 1.0, "n": 1}


def test_readers_take_a_byte_order_mark_and_name_a_non_utf8_file(tmp_path: Path) -> None:
    with_bom = tmp_path / "bigtom.csv"
    with_bom.write_bytes(b"\xef\xbb\xbf" + (DATA / "bigtom_excerpt.csv").read_bytes())
    assert read_bigtom(with_bom)[0]["story"].startswith("Mina is a baker")
    latin1 = tmp_path / "questions.json"
    latin1.write_bytes('{"question": "caf\xe9", "answer": "a", "question_type": 1.1}\n'.encode("latin-1"))
    with pytest.raises(ParseError, match=r"questions\.json: not UTF-8 text"):
        read_mmtom(latin1)


def test_bigtom_lines_keep_the_order_the_whole_file_gives_them(capsys: pytest.CaptureFixture[str]) -> None:
    data = str(DATA / "bigtom_excerpt.csv")
    whole = {i.file: i.options for i in bigtom_items(read_bigtom(data)) if i.row.line == 3}
    out = _json(capsys, ["bench", "run", "bigtom", "--agent", "symbolic", "--data", data, "--opt", "lines=3", "--json"])
    assert out["n"] == 25  # one line: its 25 items, one per release file
    assert main(["bench", "run", "bigtom", "--data", data, "--opt", "lines=x"]) != 0
    assert "expected line numbers" in capsys.readouterr().err
    from mindloop.bench import get_benchmark
    from mindloop.bench.options import validate_options

    bench = get_benchmark("bigtom")
    samples = bench.samples(None, 0, validate_options(bench, {"data": data, "lines": "3"}))
    # line 3 alone keeps the third draw of each file's random.seed(0) sequence, not the first
    assert {s.input["file"]: tuple(s.choices) for s in samples} == whole

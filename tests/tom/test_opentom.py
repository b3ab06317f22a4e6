"""OpenToM read from its release's layouts (a fixture written by hand in the release's format, not the release),
scored as the release scores it, the tracker answering only what the story decides, and the audit."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.runner import RunRequest, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.cli import main
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer
from mindloop.systems.tom.opentom import (
    OpenToMBenchmark,
    OpenToMOptions,
    audit_opentom,
    read_opentom,
    release_prompt,
    release_reading,
    release_sample,
    track_answer,
)

OPENTOM = Path(__file__).parent / "data" / "opentom"
FILES = (
    "location_cg_fo",
    "location_cg_so",
    "location_fg_fo",
    "location_fg_so",
    "multihop_fo",
    "multihop_so",
    "attitude",
)


def _load(name: str) -> Any:
    return json.loads((OPENTOM / name).read_text(encoding="utf-8"))


def _release_counts() -> dict[str, int]:
    """Questions per split by plain json: every question of the seven files (a corrected ``*_new`` file where the
    folder has one) about each story of the split's metadata file."""
    ids = {"normal": set(_load("meta_data.json")), "long": set(_load("meta_data_long.json"))}
    counts = dict.fromkeys(ids, 0)
    for name in FILES:
        data = _load(f"{name}_new.json" if (OPENTOM / f"{name}_new.json").exists() else f"{name}.json")
        for split, mine in ids.items():
            counts[split] += sum(len(qs) for sid, qs in data.items() if sid in mine)
    return counts


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(argv) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_each_split_is_read_whole_with_its_own_narrative() -> None:
    counts = _release_counts()
    normal, long, both = (read_opentom(OPENTOM, split=s) for s in ("normal", "long", "all"))
    assert (len(normal), len(long), len(both)) == (counts["normal"], counts["long"], counts["normal"] + counts["long"])
    # the long stories are normal stories told again at length: same ids, the long entry's long_narrative
    meta, meta_long = _load("meta_data.json"), _load("meta_data_long.json")
    assert {q.story.id for q in long} == set(meta_long) and set(meta_long) <= set(meta)
    assert {q.story.narrative for q in long} == {s["long_narrative"] for s in meta_long.values()}
    assert {q.story.narrative for q in normal if q.story.id in meta_long} == {meta[i]["narrative"] for i in meta_long}
    assert len({q.key for q in both}) == len(both)  # a long copy is its own sample
    by_source = {q.source: q for q in normal}
    # a list holding 'corrupted' and an 'a|b' accessibility gold are read as the release's evaluator reads them
    assert by_source["multihop_fo.json:10000001[5]"].answer == "less accessible"
    assert by_source["multihop_fo.json:10000002[5]"].answer == "equally accessible"
    # the corrected fine-location file is read by default, the original one on request
    assert by_source["location_fg_so_new.json:10000002[1]"].answer == "basket"
    original = {q.source: q.answer for q in read_opentom(OPENTOM, fine_labels="original")}
    assert original["location_fg_so.json:10000002[1]"] == "top shelf"


def test_the_one_file_layout_holds_the_same_questions(tmp_path: Path) -> None:
    """opentom.json / opentom_long.json as the release's data/temp.py writes them: a list of each story's metadata
    with one question (the files predate the corrected fine-location labels)."""
    for meta_name, out in (
        ("meta_data.json", "opentom.json"),
        ("meta_data_long.json", "opentom_long.json"),
    ):
        meta = _load(meta_name)
        rows = [
            {**meta[sid], "question": q}
            for name in (
                "attitude",
                "multihop_fo",
                "multihop_so",
                "location_cg_fo",
                "location_cg_so",
                "location_fg_fo",
                "location_fg_so",
            )
            for sid, qs in _load(f"{name}.json").items()
            if sid in meta
            for q in qs
        ]
        (tmp_path / out).write_text(json.dumps(rows), encoding="utf-16")  # any Unicode encoding JSON allows
    folder = read_opentom(OPENTOM, split="all", fine_labels="original")
    one_file = read_opentom(tmp_path, split="all")
    mine, theirs = (
        Counter((q.question, q.answer, q.qtype, q.chain, q.story.split, q.story.narrative) for q in qs)
        for qs in (one_file, folder)
    )
    assert mine == theirs
    assert len(read_opentom(tmp_path / "opentom_long.json", split="long")) == _release_counts()["long"]
    with pytest.raises(InvalidArgumentError, match="holds the long stories: use --opt split=long"):
        read_opentom(tmp_path / "opentom_long.json")


def test_tracker_answers_from_the_plot() -> None:
    qs = {q.source: q for q in read_opentom(OPENTOM)}
    answer = {src: track_answer(q)[0] for src, q in qs.items()}
    # Dee left before Cal moved the peas: Dee, and Cal about Dee, keep the basket; Cal knows the top shelf.
    assert answer["location_fg_fo.json:10000002[0]"] == "top shelf"
    assert answer["location_fg_fo.json:10000002[1]"] == "basket"
    assert answer["location_fg_so_new.json:10000002[0]"] == "basket"
    assert answer["location_cg_so.json:10000002[0]"] == "Yes"
    assert answer["multihop_fo.json:10000002[0]"] == "less full"  # Cal: the basket lost the peas
    assert answer["multihop_fo.json:10000002[1]"] == "equally full"  # Dee knows of no move
    assert answer["multihop_so.json:10000002[0]"] == "equally full"
    # the narrator's questions: where it ended and where it began
    assert answer["location_fg_fo.json:10000001[0]"] == "a donation bin"
    assert answer["location_fg_fo.json:10000001[1]"] == "basket"
    assert answer["multihop_fo.json:10000001[0]"] == "less full"  # Ada moved the scarf out of the basket herself
    assert track_answer(qs["attitude.json:10000001[0]"]) == (
        None,
        "attitude questions need more than where the entity is",
    )
    # Ben watched Ada move the scarf; whether Ada saw him watch, the story does not say
    assert track_answer(qs["location_cg_so.json:10000001[0]"]) == (
        None,
        "the plot does not say whether Ada saw Ben watch the move",
    )
    assert answer["location_cg_so.json:10000001[1]"] == "No"  # Ben saw Ada do it


def _cal_and_dee() -> dict[str, Any]:
    return {q.source: q for q in read_opentom(OPENTOM) if q.story.id == "10000002"}


def test_tracker_reads_a_plot_that_names_no_room() -> None:
    """26 of the release's plots read "... noticed that the O is in the C in the ." (e.g. 62286002)."""
    qs = _cal_and_dee()
    q = qs["location_fg_fo.json:10000002[1]"]  # where does Dee think the peas are?
    plot = (
        "Both Cal and Dee noticed that the peas is in the basket in the .",
        "Cal moved the peas to the top shelf and Dee witnessed the action.",
    )
    seen = dataclasses.replace(q, story=dataclasses.replace(q.story, plot=plot, observed=True))
    assert track_answer(seen) == ("top shelf", "")


def test_tracker_leaves_a_move_line_that_contradicts_plot_info_uncovered() -> None:
    """Story 47709731: the underpants go from the drawer "to the a drawer"; plot_info's move_to_place is
    "another drawer". Read as written the entity would stay where it was."""
    q = _cal_and_dee()["location_fg_fo.json:10000002[0]"]
    plot = (
        "Cal entered the garden.",
        "Dee entered the garden.",
        "Both Cal and Dee noticed that the peas is in the basket in the garden.",
        "Cal moved the peas to the a basket and Dee did not witness the event.",
    )
    odd = dataclasses.replace(q, story=dataclasses.replace(q.story, plot=plot, move_to_place="another basket"))
    assert track_answer(odd) == (
        None,
        "the plot's move line names 'a basket', plot_info's move_to_place 'another basket'",
    )


def test_the_narrative_decides_the_movers_view_where_the_plot_does_not() -> None:
    """65848857: "Unbeknownst to Gianna, Eliana silently observed her every move": Gianna takes her move as unseen.
    The audit reads such a sentence; the tracker, which reads the plot, leaves the question uncovered."""
    q = {q.source: q for q in read_opentom(OPENTOM)}["location_cg_so.json:10000001[0]"]  # Ada about Ben: 'No'
    assert track_answer(q)[0] is None and audit_opentom([q]) == (0, [])  # Ben watched; did Ada see him watch?
    sentence = "Unbeknownst to Ada, Ben had been watching from the doorway."
    cued = dataclasses.replace(q, story=dataclasses.replace(q.story, narrative=f"{q.story.narrative} {sentence}"))
    assert track_answer(cued) == (None, f"the narrative decides it, not the plot the tracker reads: {sentence!r}")
    [finding] = audit_opentom([cued])[1]  # for Ada, Ben knows of no move: 'No' (moved) is contradicted
    assert finding.rule == "narrative: second order" and sentence in finding.reason
    # a sentence saying someone did not know, without saying what the mover thought: undecided
    vague = dataclasses.replace(
        q, story=dataclasses.replace(q.story, narrative=q.story.narrative + " Ben was unaware.")
    )
    assert track_answer(vague)[0] is None and audit_opentom([vague]) == (0, [])


def test_a_narrative_that_contradicts_the_plot_decides_nothing() -> None:
    """98132318: Max leaves the attic in Troy's sight, yet "Unbeknownst to him, Max had never witnessed Troy's act";
    the release's golds follow that sentence there, and follow the plot in 77607727 ("Little did he know that Axel
    hadn't witnessed his considerate act"): the story does not decide, so the gold is not called contradicted."""
    q = _cal_and_dee()["location_fg_so_new.json:10000002[0]"]  # Cal about Dee; gold 'top shelf' (moved)
    _, plain = audit_opentom([q])
    assert [f.rule for f in plain] == ["plot: second order"]  # Dee left in Cal's sight, before the move
    sentence = "Little did Cal know, Dee had missed the entire scene."
    cued = dataclasses.replace(q, story=dataclasses.replace(q.story, narrative=f"{q.story.narrative} {sentence}"))
    assert audit_opentom([cued]) == (0, [])
    assert "disagree" in track_answer(cued)[1]
    assert track_answer(dataclasses.replace(cued, chain=("Dee", "Cal")))[0] == "basket"  # Dee's view: her own


def test_a_non_witness_who_comes_back_leaves_the_observers_views_undecided() -> None:
    """10769598: "Jonah returned to the living room only to find it empty, the bucket of socks gone"."""
    q = _cal_and_dee()["location_fg_fo.json:10000002[1]"]  # where does Dee think the peas are?
    back = "Dee returned to the garden only to find the basket empty."
    returned = dataclasses.replace(q, story=dataclasses.replace(q.story, narrative=f"{q.story.narrative} {back}"))
    assert track_answer(returned)[0] is None and audit_opentom([returned]) == (0, [])


def test_audit_finds_the_labels_the_plot_contradicts() -> None:
    checked, found = audit_opentom(read_opentom(OPENTOM))
    by_source = {f.question.source: f.reason for f in found}
    assert set(by_source) == {
        "multihop_fo.json:10000001[0]",  # the mover's own basket 'equally full'
        "location_fg_so_new.json:10000002[0]",  # Cal saw Dee leave, yet Dee is said to think 'top shelf'
    }
    assert "Ada (the mover) knows the entity was moved" in by_source["multihop_fo.json:10000001[0]"]
    assert "left the room before the move" in by_source["location_fg_so_new.json:10000002[0]"]
    # Ada about Ben: coarse 'No' (moved) against fine 'basket' (not moved), and the story does not say which is
    # right (did Ada see Ben watch?): a tie is listed as no finding
    golds = {q.source: q.answer for q in read_opentom(OPENTOM)}
    assert (golds["location_cg_so.json:10000001[0]"], golds["location_fg_so_new.json:10000001[0]"]) == ("No", "basket")
    assert checked > len(found)
    # the original fine-location file has the second-order defect the corrected one fixed for Dee about Cal
    _, original = audit_opentom(read_opentom(OPENTOM, fine_labels="original"))
    assert "location_fg_so.json:10000002[1]" in {f.question.source for f in original}


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "meta_data.json").write_text('{"1": {"plot": "x", "narrative": "y"}}', encoding="utf-8")
    (tmp_path / "attitude.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ParseError, match="story 1: no 'plot_info' object"):
        read_opentom(tmp_path)
    (tmp_path / "meta_data.json").write_text((OPENTOM / "meta_data.json").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "attitude.json").write_text('{"99": []}', encoding="utf-8")
    with pytest.raises(ParseError, match=r"story '99' is not in meta_data\.json"):
        read_opentom(tmp_path)
    (tmp_path / "attitude.json").write_text('{"10000001": [\n{"question": 3}]}', encoding="utf-8")
    with pytest.raises(ParseError, match="question 0: expected an object with a 'question' text"):
        read_opentom(tmp_path)
    (tmp_path / "attitude.json").write_text('{"10000001": [', encoding="utf-8")
    with pytest.raises(ParseError, match=r"attitude\.json:1: not valid JSON"):
        read_opentom(tmp_path)
    (tmp_path / "attitude.json").write_bytes('{"10000001": ["café"]}'.encode("cp1252"))
    with pytest.raises(ParseError, match="not UTF-8, UTF-16 or UTF-32 text"):
        read_opentom(tmp_path)
    with pytest.raises(InvalidArgumentError, match=r"split long needs meta_data_long\.json"):
        read_opentom(tmp_path, split="long")


def test_a_200_kb_narrative_is_read(tmp_path: Path) -> None:
    meta = _load("meta_data.json")
    meta["10000001"]["narrative"] = "Ada walked. " * 17_000  # ~200 KB in one field
    (tmp_path / "meta_data.json").write_text(json.dumps(meta), encoding="utf-8")
    (tmp_path / "attitude.json").write_text(json.dumps(_load("attitude.json")), encoding="utf-8")
    [q, _] = read_opentom(tmp_path)
    assert len(q.story.narrative) == 12 * 17_000


def test_release_protocol_draws_batches_and_two_of_four_fullness_questions() -> None:
    drawn = release_sample(read_opentom(OPENTOM))
    batches = Counter(batch for batch, _ in drawn)
    # three stories: every pass over them is one batch, so each of the 5 batches holds all three
    assert sorted(batches) == [f"normal-{b}" for b in range(1, 6)]
    ids = list(_load("meta_data.json"))
    random.Random(42).shuffle(ids)  # the runner's first shuffle of the metadata's keys (random.seed(42))
    assert list(dict.fromkeys(q.story.id for b, q in drawn if b == "normal-1")) == ids
    for b in batches:
        mine = [q for batch, q in drawn if batch == b]
        fullness = Counter((q.story.id, q.qtype) for q in mine if q.qtype.startswith("fullness"))
        # 10000001 and 10000002 have 4 first-order fullness questions: 2 kept; 10000002's 2 second-order: none
        assert fullness == {("10000001", "fullness-fo"): 2, ("10000002", "fullness-fo"): 2}
        assert len(mine) == len(read_opentom(OPENTOM)) - 4 - 2


def test_symbolic_run_scores_what_it_covers_beside_floors_on_the_same_questions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _json(capsys, ["bench", "run", "opentom", "--agent", "symbolic", "--data", str(OPENTOM), "--json"])
    m = out["metrics"]
    # not covered: 4 accessibility, 2 attitude, and Ada about Ben twice (coarse and fine second order)
    assert (m["covered"], m["not_covered"]) == (28, 8)
    # wrong: Ada's own basket ('equally full' in the release) and Cal about Dee ('top shelf')
    assert m["accuracy_covered"] == 26 / 28
    assert m["by_type"]["fine-fo"] == {"accuracy": 1.0, "n": 6, "chance": 0.5, "macro_f1": 1.0}
    # fine second order: Ben about Ada (new place) and Dee about Cal (original) right, Cal about Dee wrong:
    # F1 of 'new' 2*1/(2+0+1), of 'original' 2*1/(2+1+0)
    assert m["by_type"]["fine-so"]["macro_f1"] == pytest.approx(2 / 3)
    assert "attitude" not in m["by_type"] and "unreadable" not in m
    assert m["macro_f1"] == pytest.approx(sum(r["macro_f1"] for r in m["by_genre"].values()) / len(m["by_genre"]))
    refs = out["references"]
    bench = OpenToMBenchmark()
    covered = [
        s
        for s in bench.samples(None, 0, OpenToMOptions.model_validate({"data": str(OPENTOM)}))
        if track_answer(bench.question(s))[0]
    ]
    assert len(covered) == 28
    assert refs == {p.name: p.value(covered) for p in bench.spec.references}  # on the covered questions alone
    assert refs["oracle"] == 1.0 and 0 < refs["best constant"] < m["macro_f1"]


def test_floors_on_the_headline_scale_worked_by_hand() -> None:
    """The six coarse first-order questions of the fixture, golds No, No, No, Yes, No, Yes."""
    bench = OpenToMBenchmark()
    samples = [
        s
        for s in bench.samples(None, 0, OpenToMOptions.model_validate({"data": str(OPENTOM)}))
        if s.group == "coarse-fo"
    ]
    assert [s.input["answer"] for s in samples] == ["No", "No", "No", "Yes", "No", "Yes"]
    value = {p.name: p.value(samples) for p in bench.spec.references}
    # a uniform guess, in expected counts: 'no' tp 2, fp 1, fn 2 -> 4/7; 'yes' tp 1, fp 2, fn 1 -> 2/5
    assert value["chance"] == pytest.approx((4 / 7 + 2 / 5) / 2)
    # always 'No': 'no' tp 4, fp 2 -> 8/10; 'yes' never predicted -> 0
    assert value["best constant"] == pytest.approx(0.4)
    assert value["oracle"] == 1.0


def test_model_gets_the_release_prompt_and_unread_replies_stay_out_of_macro_f1(tmp_path: Path) -> None:
    seen: list[list[dict[str, Any]]] = []

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        seen.append(messages)
        text = messages[-1]["content"]
        if "accessibility" in text:
            return "It depends on who you ask."  # names no choice: unread, after the format retry too
        if "fullness" in text:
            return "less full"
        if "located" in text:
            return "The peas are on the top shelf." if "peas" in text else "It is in the donation bin."
        if "attitude" in text:
            return "Negative."
        return "No"

    n = _release_counts()["normal"]
    with RunStore(tmp_path / "r.sqlite") as store, FakeChatServer(reply) as server:
        opts = ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01)
        request = RunRequest(
            "opentom", agent="model", model="openai/fake", model_options=opts, options={"data": str(OPENTOM)}
        )
        summary = run_benchmark(request, store=store, progress=False)
    first = [msgs for msgs in seen if len(msgs) == 2]
    assert len(first) == len(seen) == n  # asked once, as the release asks: no format retry
    assert all(
        msgs[0] == {"role": "system", "content": "You are an expert in modeling other's mental state."}
        for msgs in first
    )
    questions = {q.question: q for q in read_opentom(OPENTOM)}
    for msgs in first:
        user = msgs[1]["content"]
        assert user.startswith("Read and comprehend the following short story. Then, answer the question that follows.")
        q = next(q for text, q in questions.items() if f"Question: {text.split('?')[0]}" in user)
        assert user == release_prompt(q)
    coarse = [msgs[1]["content"] for msgs in first if "initial location" in msgs[1]["content"]]
    assert all(c.endswith('Answer the question with "Yes" or "No". Do not give any explanation.') for c in coarse)
    m = summary.metrics
    # coarse first order: the reply 'No' is the gold for Ada, Ben, Cal and Eve, not for Dee and Fin
    assert m["by_type"]["coarse-fo"]["accuracy"] == 4 / 6
    # MHop(F): 8 fullness questions read ('less full' to all), 4 accessibility ones unread. Golds (release
    # numbers): equally 3, less 1, more 2, more 2 | less 1, equally 3, more 2, equally 3. Label 1: 2 right, 6
    # predicted wrongly: F1 4/10; labels 2 and 3: never predicted, F1 0. Accuracy counts the unread as wrong.
    mhop = m["by_genre"]["MHop(F)"]
    assert mhop["macro_f1"] == pytest.approx(0.4 / 3)
    assert mhop["unreadable"] == 4 / 12 and mhop["accuracy"] == 2 / 12
    assert m["by_type"]["accessibility-fo"]["macro_f1"] is None
    assert m["unreadable"] == 4 / n and m["unparsed"] == 4
    # the macro-F1 is over the read replies, so its floors are given on those questions too
    read = [s for s in OpenToMBenchmark().samples(None, 0, OpenToMOptions.model_validate({"data": str(OPENTOM)}))]
    read = [s for s in read if not s.group.startswith("accessibility")]
    bench = OpenToMBenchmark()
    assert m["references_read"] == {p.name: p.value(read) for p in bench.spec.references}


def test_data_describe_counts_the_release_per_split_file_and_type(capsys: pytest.CaptureFixture[str]) -> None:
    counts = _release_counts()
    out = _json(capsys, ["data", "describe", "opentom", str(OPENTOM), "--json"])
    assert out["questions"] == counts["normal"] + counts["long"]
    assert out["by_split"] == counts
    assert out["stories"] == {"normal": len(_load("meta_data.json")), "long": len(_load("meta_data_long.json"))}
    attitude = _load("attitude.json")
    assert out["by_file"]["attitude (normal)"] == sum(len(v) for v in attitude.values())
    per_split = [
        sum(len(v) for k, v in attitude.items() if k in _load(m)) for m in ("meta_data.json", "meta_data_long.json")
    ]
    assert out["by_type"]["attitude"] == sum(per_split)
    mm = [json.loads(line) for line in (OPENTOM.parent / "mmtom_excerpt.json").read_text().splitlines() if line]
    mmtom = _json(capsys, ["data", "describe", "mmtom-qa", str(OPENTOM.parent / "mmtom_excerpt.json"), "--json"])
    assert mmtom["by_type"] == dict(Counter(str(i["question_type"]) for i in mm))
    assert main(["data", "describe", "bigtom"]) == 1
    assert "give PATH" in capsys.readouterr().err
    big = OPENTOM.parent / "bigtom_excerpt.csv"
    lines = len([x for x in big.read_text(encoding="utf-8").splitlines() if x.strip()])
    bigtom = _json(capsys, ["data", "describe", "bigtom", str(big), "--json"])
    # the release's builder writes 25 condition files, one line in each per line of bigtom.csv
    files = [
        f"{shown}_{variable}_{condition}"
        for shown in (0, 1)
        for variable in ("forward_belief", "forward_action", "backward_belief")
        for condition in ("true_belief", "false_belief", "true_control", "false_control")
    ] + ["1_percept_to_belief_true_belief"]
    assert bigtom["by_release_file"] == dict.fromkeys(files, lines) and bigtom["questions"] == 25 * lines


def test_release_reading_compares_places_without_their_article() -> None:
    """The evaluator cuts 'a', 'an' or 'the' off a place before counting shared words, so a reply that names no
    place is not read as "the dining table" for its "the" (a 0.5B reply on story 24716695)."""
    q = _cal_and_dee()["location_fg_fo.json:10000002[0]"]
    story = dataclasses.replace(q.story, original_place="basket", move_to_place="the dining table")
    fine = dataclasses.replace(q, story=story)
    assert release_reading("Corn is located by the end of the story.", fine) is None
    assert release_reading("It is on the dining table.", fine) == "the dining table"


def test_every_real_opentom_reply_is_read_as_its_hand_label() -> None:
    """Replies Qwen2.5-Coder 0.5B and 1.5B wrote on the full release (protocol=release, first 114 questions), each
    labelled by a person: "readable: X" when it names exactly one of the question's choices as its answer (a room
    that is neither place, or "located by the end of the story", is unusable). The one choice reader
    (mindloop.bench.reader), as OpenToM's model agent reads (no labels shown), then the release's reading as a
    fallback, must give exactly that."""
    from mindloop.bench.reader import read_choice

    rows = [json.loads(line) for line in (OPENTOM.parent / "real_replies.jsonl").open(encoding="utf-8")]
    corpus = [row for row in rows if row["benchmark"] == "opentom"]
    assert len(corpus) == 62 and {"readable", "unusable"} == {row["label"].split(":")[0] for row in corpus}
    base = _cal_and_dee()["location_fg_fo.json:10000002[0]"]
    for row in corpus:
        choices = row["choices"]
        places = dict(original_place=choices[0], move_to_place=choices[-1])
        q = dataclasses.replace(base, qtype=row["question_type"], story=dataclasses.replace(base.story, **places))
        read = read_choice(row["reply"], choices).choice or release_reading(row["reply"], q)
        assert read == (None if row["label"] == "unusable" else row["label"].removeprefix("readable: ")), row["reply"]

"""Ordinary bad input through the real command line: one line on stderr naming the file, exit 1, never a crash.

Every case runs the command line in the test's process through the ``cli`` fixture (``tests/support/cli_run.py``:
``mindloop.cli.main`` with a subprocess's environment and its own ``MINDLOOP_HOME``), since no case is about the
process boundary (issue 14, "Ordinary input that still crashes" and "Empty work is not a result"):

* a binary or non-UTF-8 file given to every command that reads one is refused with the file and the line of the
  first bad byte;
* a UTF-8 byte-order mark is accepted: the command's output equals its output on the same file without the mark;
* a Theory-of-Space ``meta_data.json`` with null objects or cameras, or a mask that is not a grid, is refused;
* no work (``--n 0``, an empty ``--data`` file, gold without items) is refused instead of reported as a result.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from cli_run import Cli, CliRun
from small_runs import small_argv

from mindloop.bench.registry import BENCHMARKS
from mindloop.systems.mindclaw.skills import default_skills_path
from mindloop.systems.mindclaw.sources.household import HouseholdSource
from mindloop.systems.mindclaw.sources.replay import record_windows
from mindloop.systems.omnitom.annotator import annotate_story_file
from mindloop.systems.omnitom.records import write_records
from mindloop.worlds.household.scenarios import generate_scenario, mindpower_sim
from mindloop.worlds.household.scenarios.dataset import dumps_record
from mindloop.worlds.stories.generate import generate_tomi, to_numbered_text

from .stderr import after_preparing

TESTS = Path(__file__).resolve().parents[1]
RUN00 = TESTS / "tos" / "data" / "run00_meta_data.json"
HITOM_JSON = TESTS / "tom" / "data" / "hitom_excerpt.json"

BINARY = b"\xfa\xfb\xfc\x00\x01 binary\nline two\n"
"""Not UTF-8 from its first byte (0xfa cannot start a UTF-8 sequence)."""
LATIN1 = "café au lait\n".encode("latin-1")
"""A line of Latin-1 text: the é (0xe9, column 4) is not followed by a UTF-8 continuation byte."""
BOM = b"\xef\xbb\xbf"


def assert_refused(run: CliRun, path: Path, *reasons: str) -> None:
    """Exit 1 with exactly one error line, ``mindloop: error: <path>...``, holding every reason (after, at most,
    ``bench run``'s first line, which says what it was preparing)."""
    assert run.code == 1, run
    errors = after_preparing(run.err)
    assert len(errors) == 1, run.err
    line = errors[0]
    assert line.startswith(f"mindloop: error: {path}"), line
    for reason in reasons:
        assert reason in line, line


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Well-formed inputs, one per reader, made with mindloop's own writers."""
    d = tmp_path_factory.mktemp("inputs")
    out = {
        "windows": d / "windows.jsonl",
        "scenarios": d / "scenarios.jsonl",
        "skills": d / "skills.yaml",
        "tomi": d / "stories.txt",
        "gold": d / "gold.jsonl",
        "scene": d / "meta_data.json",
        "hitom": d / "Hi-ToM_data.json",
        "lines": d / "typed.txt",
    }
    record_windows(HouseholdSource(generate_scenario("fb_two_humans", 0, 0)).windows(), out["windows"])
    scenarios = mindpower_sim("all", seed=0, n=10)[:2]
    out["scenarios"].write_text("".join(dumps_record(s) + "\n" for s in scenarios), encoding="utf-8")
    out["skills"].write_bytes(default_skills_path().read_bytes())
    out["tomi"].write_text(to_numbered_text(generate_tomi(4, seed=0)), encoding="utf-8")
    write_records(out["gold"], annotate_story_file(out["tomi"]).records)
    out["scene"].write_bytes(RUN00.read_bytes())
    out["hitom"].write_bytes(HITOM_JSON.read_bytes())
    out["lines"].write_text("look\nquit\n", encoding="utf-8")
    return out


# -- binary and non-UTF-8 files ----------------------------------------------------------------------------------

READERS: dict[str, tuple[str, tuple[str, ...]]] = {
    # case: (file name, arguments with {F} for the bad file and {gold} for a good gold file)
    "bench run claw --data": ("data.jsonl", ("bench", "run", "claw", "--data", "{F}")),
    "bench run claw --opt data (folder)": ("export/data/test.jsonl", ("bench", "run", "claw", "--opt", "data={D}")),
    "bench run mindpower --data": ("data.jsonl", ("bench", "run", "mindpower", "--data", "{F}")),
    "bench run claw --opt skills": ("skills.yaml", ("bench", "run", "claw", "--n", "1", "--opt", "skills={F}")),
    "claw replay": ("windows.jsonl", ("claw", "replay", "{F}", "--json")),
    "claw replay (frames folder)": ("frames/sidecar.json", ("claw", "replay", "{D}")),
    "claw play --lines": ("typed.txt", ("claw", "play", "--lines", "{F}")),
    "claw skills validate": ("skills.yaml", ("claw", "skills", "validate", "{F}", "--dataset-n", "10")),
    "tom eval": ("stories.txt", ("tom", "eval", "{F}")),
    "tom eval --format hitom": ("stories.txt", ("tom", "eval", "--format", "hitom", "{F}")),
    "tom eval (Hi-ToM JSON)": ("Hi-ToM_data.json", ("tom", "eval", "{F}")),
    "bench run tomi --data": ("stories.txt", ("bench", "run", "tomi", "--data", "{F}")),
    "bench run hitom --data": ("stories.txt", ("bench", "run", "hitom", "--data", "{F}")),
    "omnitom score --gold": ("gold.jsonl", ("omnitom", "score", "--pred", "{gold}", "--gold", "{F}")),
    "omnitom score --pred": ("pred.jsonl", ("omnitom", "score", "--pred", "{F}", "--gold", "{gold}")),
    "bench run omnitom-stage1 --data": ("gold.jsonl", ("bench", "run", "omnitom-stage1", "--data", "{F}")),
    "omnitom annotate (ToMBench .jsonl)": ("False Belief Task.jsonl", ("omnitom", "annotate", "{F}")),
    "omnitom annotate (stories)": ("stories.txt", ("omnitom", "annotate", "{F}")),
    "tos render": ("scene.json", ("tos", "render", "{F}")),
    "tos render (run folder)": ("run00/meta_data.json", ("tos", "render", "{D}")),
    "bench run tos-active --data": ("scene.json", ("bench", "run", "tos-active", "--data", "{F}")),
}


def _args(template: tuple[str, ...], bad: Path, files: dict[str, Path]) -> list[str]:
    values = {"F": str(bad), "D": str(bad.parent.parent if bad.parent.name == "data" else bad.parent)}
    values["gold"] = str(files["gold"])
    return [part.format(**values) for part in template]


@pytest.mark.parametrize("case", sorted(READERS))
def test_a_binary_file_is_refused_naming_the_file_and_line(
    cli: Cli, case: str, files: dict[str, Path], tmp_path: Path
) -> None:
    name, template = READERS[case]
    bad = tmp_path / name
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_bytes(BINARY)
    run = cli(*_args(template, bad, files), home=tmp_path / "home")
    assert_refused(run, bad, ":1: not UTF-8 text (byte 0xfa at column 1)", "binary file")


LATIN1_CASES = {
    # case: the good file whose first line comes before the Latin-1 line
    "bench run claw --data": "scenarios",
    "bench run mindpower --data": "scenarios",
    "claw replay": "windows",
    "claw play --lines": "lines",
    "tom eval": "tomi",
}


@pytest.mark.parametrize("case", sorted(LATIN1_CASES))
def test_latin1_text_is_refused_naming_the_line(cli: Cli, case: str, files: dict[str, Path], tmp_path: Path) -> None:
    name, template = READERS[case]
    bad = tmp_path / name
    first = files[LATIN1_CASES[case]].read_bytes().splitlines(keepends=True)[0]
    bad.write_bytes(first + LATIN1)  # a good first line, then Latin-1: streaming and whole-file readers agree
    run = cli(*_args(template, bad, files), home=tmp_path / "home")
    assert_refused(run, bad, ":2: not UTF-8 text (byte 0xe9 at column 4)", "save it as UTF-8")


@pytest.mark.parametrize("case", sorted(LATIN1_CASES))
def test_a_nul_byte_is_refused_naming_its_line(cli: Cli, case: str, files: dict[str, Path], tmp_path: Path) -> None:
    name, template = READERS[case]
    bad = tmp_path / name
    first = files[LATIN1_CASES[case]].read_bytes().splitlines(keepends=True)[0]
    bad.write_bytes(first + b"\x00\n")  # streaming readers once named line 1 for a NUL on any line
    run = cli(*_args(template, bad, files), home=tmp_path / "home")
    assert_refused(run, bad, ":2: a binary file, not text (it holds a NUL byte)")


def test_nul_bytes_alone_are_a_binary_file(cli: Cli, files: dict[str, Path], tmp_path: Path) -> None:
    bad = tmp_path / "skills.yaml"
    bad.write_bytes(b"version: 1\n\x00\x00\x00\n")
    run = cli("claw", "skills", "validate", bad, home=tmp_path / "home")
    assert_refused(run, bad, ":2: a binary file, not text (it holds a NUL byte)")


def test_utf16_text_is_named(cli: Cli, files: dict[str, Path], tmp_path: Path) -> None:
    bad = tmp_path / "stories.txt"
    bad.write_bytes(files["tomi"].read_text(encoding="utf-8").encode("utf-16"))
    run = cli("tom", "eval", bad, home=tmp_path / "home")
    assert_refused(run, bad, "UTF-16 text", "save it as UTF-8")


# -- a UTF-8 byte-order mark is accepted -------------------------------------------------------------------------

BOM_CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    # case: (input, arguments with {F} for the file); the output must equal the run on the file without a BOM
    "claw replay": ("windows", ("claw", "replay", "{F}", "--json")),
    "claw play --lines": ("lines", ("claw", "play", "--lines", "{F}", "--json")),
    "claw skills validate": ("skills", ("claw", "skills", "validate", "{F}", "--dataset-n", "10", "--json")),
    "tom eval (ToMi lines)": ("tomi", ("tom", "eval", "{F}", "--json")),
    "tom eval (Hi-ToM JSON)": ("hitom", ("tom", "eval", "{F}", "--json")),
    "omnitom score": ("gold", ("omnitom", "score", "--pred", "{F}", "--gold", "{F}", "--aligner", "exact", "--json")),
    "omnitom annotate": ("tomi", ("omnitom", "annotate", "{F}")),
    "tos render (meta_data.json)": ("scene", ("tos", "render", "{F}", "--json")),
    "bench run claw --data": ("scenarios", ("bench", "run", "claw", "--data", "{F}", "--n", "1", "--json")),
    "bench run mindpower --data": (
        "scenarios",
        ("bench", "run", "mindpower", "--data", "{F}", "--n", "1", "--opt", "similarity=off", "--json"),
    ),
    "bench run tomi --data": ("tomi", ("bench", "run", "tomi", "--data", "{F}", "--json")),
    "bench run omnitom-stage2 --data": ("gold", ("bench", "run", "omnitom-stage2", "--data", "{F}", "--json")),
    "bench run tos-passive --data": ("scene", ("bench", "run", "tos-passive", "--data", "{F}", "--json")),
}


def _comparable(stdout: str) -> object:
    """The JSON output without what differs run to run (run id, seconds) or with the file's bytes (the comparability
    key's hash of the --data file: a byte-order mark is bytes, so the two runs are not ranked together)."""
    try:
        data = json.loads(stdout)
    except json.JSONDecodeError:
        return stdout
    if isinstance(data, dict):
        for key in ("run_id", "seconds"):
            data.pop(key, None)
        if isinstance(data.get("key"), dict):
            data["key"] = {k: v for k, v in data["key"].items() if k not in ("data", "id")}
    return data


@pytest.mark.parametrize("case", sorted(BOM_CASES))
def test_a_byte_order_mark_is_accepted(cli: Cli, case: str, files: dict[str, Path], tmp_path: Path) -> None:
    key, template = BOM_CASES[case]
    plain = tmp_path / "plain" / "in" / files[key].name  # same folder name: a scene is named after its folder
    marked = tmp_path / "marked" / "in" / files[key].name
    plain.parent.mkdir(parents=True)
    marked.parent.mkdir(parents=True)
    plain.write_bytes(files[key].read_bytes())
    marked.write_bytes(BOM + files[key].read_bytes())
    without = cli(*(p.format(F=plain) for p in template), home=tmp_path / "home")
    with_bom = cli(*(p.format(F=marked) for p in template), home=tmp_path / "home")
    assert without.code == 0, without
    assert with_bom.code == 0, with_bom
    assert _comparable(with_bom.out.replace(str(marked), str(plain))) == _comparable(without.out)


# -- Theory of Space meta_data.json ------------------------------------------------------------------------------

META_CASES: dict[str, tuple[str, object, str]] = {
    "objects null": ("objects", None, "objects: Input should be a valid list"),
    "cameras null": ("cameras", None, "cameras: Input should be a valid list"),
    "mask a string": ("mask", "0 1 1", "mask: Input should be a valid list"),
    "mask rows of strings": ("mask", ["011", "011"], "mask[0]: Input should be a valid list"),
    "mask ragged": ("mask", [[1, 1, 1], [1, 1]], "rectangular"),
    "objects a mapping": ("objects", {"name": "lamp"}, "objects: Input should be a valid list"),
    "offset null": ("offset", None, "offset: Input should be a valid list"),
}


@pytest.mark.parametrize("case", sorted(META_CASES))
@pytest.mark.parametrize("command", ["tos render", "bench run tos-active --data"])
def test_a_malformed_meta_data_json_is_refused(cli: Cli, case: str, command: str, tmp_path: Path) -> None:
    key, value, reason = META_CASES[case]
    data = json.loads(RUN00.read_text(encoding="utf-8"))
    data[key] = value
    bad = tmp_path / "run00" / "meta_data.json"
    bad.parent.mkdir()
    bad.write_text(json.dumps(data), encoding="utf-8")
    args = ["tos", "render", bad] if command == "tos render" else ["bench", "run", "tos-active", "--data", bad]
    assert_refused(cli(*args, home=tmp_path / "home"), bad, reason)


def test_meta_data_json_with_a_non_finite_position_is_refused(cli: Cli, tmp_path: Path) -> None:
    text = RUN00.read_text(encoding="utf-8")
    data = json.loads(text)
    agent = next(c for c in data["cameras"] if c.get("id") == "agent")
    agent["position"]["x"] = float("nan")
    bad = tmp_path / "meta_data.json"
    bad.write_text(json.dumps(data), encoding="utf-8")  # json writes NaN, and Python's json reads it back
    assert_refused(
        cli("tos", "render", bad, home=tmp_path / "home"),
        bad,
        "cameras[id=agent].position.x: must be a number",
    )


# -- empty work is not a result ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", BENCHMARKS.names())
def test_n_zero_is_refused_and_records_no_run(cli: Cli, name: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    argv = small_argv(name, tmp_path)  # its agent, model and data: only --n differs
    if "--n" in argv:
        del argv[argv.index("--n") : argv.index("--n") + 2]
    run = cli(*argv, "--n", "0", "--json", home=home)
    why = f"nothing to run: benchmark {name!r} has no samples (--n 0 asks for none)"
    assert run.code == 1 and json.loads(run.out) == {"error": why}, run  # --json: the error as its one object
    assert run.err == [f"mindloop: error: {why}"]
    runs = cli("runs", "--json", home=home)
    assert runs.code == 0, runs
    assert name not in runs.out  # nothing was recorded


EMPTY_DATA: dict[str, tuple[str, bytes, str]] = {
    # benchmark: (file name, content, reason)
    "tomi": ("stories.txt", b"", "no examples found"),
    "hitom": ("stories.txt", b"\n\n", "no examples found"),
    "mindpower": ("data.jsonl", b"", "no scenario records"),
    "claw": ("data.jsonl", b"\n", "no scenario records"),
    "omnitom-stage1": ("gold.jsonl", b"", "empty file"),
    "omnitom-stage2": ("gold.json", b"[]", "no records (an empty array"),
    "tos-active": ("scene.json", b"", "empty file"),
    "tos-passive": ("scene.json", b" \n", "empty file"),
}


@pytest.mark.parametrize("name", sorted(EMPTY_DATA))
def test_an_empty_data_file_is_refused(cli: Cli, name: str, tmp_path: Path) -> None:
    file_name, content, reason = EMPTY_DATA[name]
    empty = tmp_path / file_name
    empty.write_bytes(content)
    assert_refused(cli("bench", "run", name, "--data", empty, "--json", home=tmp_path / "home"), empty, reason)


def test_tom_eval_on_an_empty_file_is_refused(cli: Cli, tmp_path: Path) -> None:
    empty = tmp_path / "stories.txt"
    empty.write_bytes(b"")
    for extra in ([], ["--json"]):
        run = cli("tom", "eval", empty, *extra, home=tmp_path / "home")
        error = {"error": run.err[-1].removeprefix("mindloop: error: ")}
        assert run.out == ("" if not extra else json.dumps(error) + "\n")  # --json: the error as its one object
        assert_refused(run, empty, "no examples found")


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty file"),
        (b"[]", "no records (an empty array"),
        (None, "no gold beliefs to score against"),
    ],
    ids=["empty file", "empty array", "stories without beliefs"],
)
def test_omnitom_score_with_no_gold_items_is_refused(
    cli: Cli, content: bytes | None, reason: str, files: dict[str, Path], tmp_path: Path
) -> None:
    gold = tmp_path / "gold.json"
    if content is None:
        records = [json.loads(line) for line in files["gold"].read_text(encoding="utf-8").splitlines()]
        gold.write_text(json.dumps([dict(r, beliefs=[]) for r in records]), encoding="utf-8")
    else:
        gold.write_bytes(content)
    run = cli("omnitom", "score", "--pred", files["gold"], "--gold", gold, "--json", home=tmp_path / "home")
    assert json.loads(run.out) == {"error": run.err[-1].removeprefix("mindloop: error: ")}  # --json: one object
    assert_refused(run, gold, reason)


def test_claw_replay_of_an_empty_recording_is_refused(cli: Cli, tmp_path: Path) -> None:
    empty = tmp_path / "windows.jsonl"
    empty.write_bytes(b"\n")
    assert_refused(cli("claw", "replay", empty, "--json", home=tmp_path / "home"), empty, "no windows to replay")


# -- a large story file is streamed ------------------------------------------------------------------------------


def test_streamed_evaluation_reports_what_a_kept_one_does(tmp_path: Path) -> None:
    """``tom eval`` keeps no answers (flat memory: benchmarks/bench_tom_memory.py); the report is the same."""
    from mindloop.systems.tom.evaluate import evaluate_file

    path = tmp_path / "stories.txt"
    examples = generate_tomi(300, seed=5, noise=0.2)
    # a second copy of every story with its answer changed: half the questions are wrong, in a known order
    flipped = [dataclasses.replace(e, answer="nowhere") for e in examples]
    path.write_text(to_numbered_text(examples + flipped), encoding="utf-8")
    kept = evaluate_file(path)
    streamed = evaluate_file(path, keep_answers=False, keep_wrong=3)
    assert {**streamed.to_json(), "seconds": 0} == {**kept.to_json(), "seconds": 0}
    assert streamed.answers == [] and streamed.n_wrong == kept.n_wrong == len(kept.wrong) >= 300
    assert [a.example.question_line for a in streamed.wrong] == [a.example.question_line for a in kept.wrong[:3]]

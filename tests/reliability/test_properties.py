"""Every public parser meets random bad input with a MindloopError or a valid object, never another exception.

Issue 14 ("The Python API"): hypothesis feeds the parsers random values built from the pieces of well-formed input
(so that the deeper code paths are reached) mixed with arbitrary text, bytes and JSON values:

* ToMi/Hi-ToM story lines (:mod:`mindloop.worlds.stories.tomi`), read from a file and tracked;
* MindPower hierarchy tags (:func:`~mindloop.systems.mindpower.hierarchy.parse_hierarchy`);
* OmniToM pipe tables (:mod:`mindloop.systems.omnitom.tables`);
* Symbolic Belief Language lines (:mod:`mindloop.beliefs.views.sbl`);
* Theory-of-Space cognitive-map JSON (:func:`~mindloop.systems.tos.metrics.parse_cognitive_map`);
* the reference's ``meta_data.json`` (:mod:`mindloop.systems.tos.world.metadata`);
* MindClaw skills YAML (:mod:`mindloop.systems.mindclaw.skills`).

The belief core's constructors (Event, Fact, Tracker) are covered in tests/beliefs/test_validation.py.
``MINDLOOP_FUZZ_EXAMPLES=3000`` runs a longer search than the suite's 150 examples per property.
"""

from __future__ import annotations

import copy
import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from mindloop.beliefs.views import sbl
from mindloop.errors import MindloopError
from mindloop.systems.mindclaw.skills import SkillSet, default_skills_path, load_skills, parse_skills
from mindloop.systems.mindpower.hierarchy import LAYERS, Hierarchy, parse_hierarchy
from mindloop.systems.omnitom.records import BeliefLabels, BeliefRecord
from mindloop.systems.omnitom.tables import Stage1Parse, Stage2Parse, parse_stage1, parse_stage2
from mindloop.systems.tos.metrics import MapEntry, parse_cognitive_map
from mindloop.systems.tos.world.metadata import load_scene, scene_from_metadata
from mindloop.systems.tos.world.scene import Scene
from mindloop.worlds.stories.tomi import Example, answer_question, read_story_file, story_sentences, track_story

T = TypeVar("T")

TESTS = Path(__file__).resolve().parents[1]
RUN00 = json.loads((TESTS / "tos" / "data" / "run00_meta_data.json").read_text(encoding="utf-8"))
SKILLS = yaml.safe_load(default_skills_path().read_text(encoding="utf-8"))

FUZZ = settings(
    max_examples=int(os.environ.get("MINDLOOP_FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def outcome(call: Callable[[], T]) -> T | MindloopError:
    """Run ``call``: its result, or the MindloopError it raised; any other exception fails the test."""
    try:
        result = call()
    except MindloopError as exc:
        assert str(exc), "a MindloopError must say what was wrong"
        event(f"refused: {type(exc).__name__}")
        return exc
    event(f"accepted: {type(result).__name__}")
    return result


# -- shared strategies -------------------------------------------------------------------------------------------

json_scalars = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats() | st.text(max_size=12)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
"""Any JSON value (NaN and infinities included: Python's json reads and writes them)."""

odd_text = st.text(st.characters(codec="utf-8"), max_size=40)
"""Arbitrary text: control characters, tabs, pipes, angle brackets, other scripts."""


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every value inside ``node`` (keys and indexes), the root's ``()`` first."""
    out = [prefix]
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        out += _paths(value, (*prefix, key))
    return out


def mutated(base: Any, data: st.DataObject, edits: int = 3) -> Any:
    """A deep copy of ``base`` with up to ``edits`` values anywhere inside (each value equally likely) replaced by
    a random JSON value or deleted (a key from a mapping, an item from a list)."""
    out = copy.deepcopy(base)
    for _ in range(data.draw(st.integers(1, edits))):
        path = data.draw(st.sampled_from(_paths(out)))
        if not path:
            out = data.draw(json_values)
            continue
        parent = out
        for key in path[:-1]:
            parent = parent[key]
        if data.draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(json_values)
    return out


# -- ToMi / Hi-ToM story lines -----------------------------------------------------------------------------------

NAMES = st.sampled_from(["Ann", "Bob", "Cy", "ann", "A-1", "Bob and Ann", "Ann, Bob and Cy"])
THINGS = st.sampled_from(["box", "red_box", "kitchen", "garden", "apple", "bag", "x"])
SENTENCES = st.one_of(
    st.builds("{} entered the {}.".format, NAMES, THINGS),
    st.builds("{} exited the {}.".format, NAMES, THINGS),
    st.builds("{} left the {}".format, NAMES, THINGS),
    st.builds("The {} is in the {}.".format, THINGS, THINGS),
    st.builds("{} moved the {} to the {}.".format, NAMES, THINGS, THINGS),
    st.builds("{} is in the {}.".format, NAMES, THINGS),
    st.builds("{} looked in the {}.".format, NAMES, THINGS),
    st.builds("{} told {} where the {} is.".format, NAMES, NAMES, THINGS),
    st.builds("{} privately told {} that the {} is in the {}.".format, NAMES, NAMES, THINGS, THINGS),
    st.builds("{} publicly claimed that {} is in the {} now.".format, NAMES, THINGS, THINGS),
    st.builds("{} made no movements and stayed in the {} for 3 minutes.".format, NAMES, THINGS),
    st.builds("{} likes the {}.".format, NAMES, THINGS),
    odd_text,
)
QUESTIONS = st.one_of(
    st.builds("Where is the {} really?".format, THINGS),
    st.builds("Where was the {} at the beginning?".format, THINGS),
    st.builds("Where will {} look for the {}?".format, NAMES, THINGS),
    st.builds("Where does {} think that {} searches for the {}?".format, NAMES, NAMES, THINGS),
    st.builds("Where does {} think {} thinks the {} is?".format, NAMES, NAMES, THINGS),
    odd_text,
)


@st.composite
def story_lines(draw: st.DrawFn) -> bytes:
    """A story file: well-formed stories (numbered sentences, then a question line), then a few random edits
    (a line replaced by odd text, renumbered, dropped or duplicated; a tab taken away), sometimes odd bytes."""
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        sentences = draw(st.lists(SENTENCES, min_size=1, max_size=6))
        lines += [f"{i} {text}" for i, text in enumerate(sentences, 1)]
        answer = draw(THINGS | odd_text)
        lines.append(f"{len(sentences) + 1} {draw(QUESTIONS)}\t{answer}\t{draw(st.sampled_from(['1', '', 'x']))}")
    for _ in range(draw(st.integers(0, 3))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        edit = draw(st.sampled_from(["odd", "number", "drop", "repeat", "untab", "preamble"]))
        if edit == "odd":
            lines[i] = draw(odd_text)
        elif edit == "number":
            lines[i] = f"{draw(st.integers(-2, 99))} {lines[i].partition(' ')[2]}"
        elif edit == "drop":
            del lines[i]
        elif edit == "repeat":
            lines.insert(i, lines[i])
        elif edit == "untab":
            lines[i] = lines[i].replace("\t", " ")
        else:
            lines.insert(i, draw(st.sampled_from(["***", "Story:", "Read the following story and answer.", ""])))
    data = "\n".join(lines).encode("utf-8")
    if draw(st.integers(0, 9)) == 0:
        data = draw(st.sampled_from([b"\xef\xbb\xbf", b""])) + data + draw(st.binary(max_size=8))
    return data


@FUZZ
@given(story_lines(), st.sampled_from([None, "tomi", "hitom"]))
def test_story_files_read_and_track_or_refuse(content: bytes, fmt: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stories.txt"
        path.write_bytes(content)
        result = outcome(lambda: read_story_file(path, fmt))
        if isinstance(result, MindloopError):
            return
        story_format, examples = result
        assert story_format in ("tomi", "hitom") and examples
        for ex in examples:
            assert isinstance(ex, Example) and ex.sentences
            tracker = outcome(lambda ex=ex: track_story(ex.sentences, story_format, ex.source))
            if not isinstance(tracker, MindloopError):
                answer = outcome(lambda ex=ex, tracker=tracker: answer_question(tracker, ex.question))
                assert answer is None or isinstance(answer, str | MindloopError)


@FUZZ
@given(st.lists(st.one_of(st.builds("{} {}".format, st.integers(-1, 20), SENTENCES), odd_text), max_size=8))
def test_story_blocks_parse_or_refuse(lines: list[str]) -> None:
    result = outcome(lambda: story_sentences("\n".join(lines), "<item>"))
    if not isinstance(result, MindloopError):
        assert result and all(isinstance(n, int) and isinstance(s, str) and s for n, s in result)


# -- MindPower hierarchy tags ------------------------------------------------------------------------------------

TAGS = st.sampled_from(
    [f"<{layer.capitalize()}>" for layer in LAYERS]
    + [f"</{layer.capitalize()}>" for layer in LAYERS]
    + ["<Robot Belief>", "<think>", "</think>", "<Decision >", "< belief>", "<>", "<Action", "**Action:**"]
)
CONTENT = st.sampled_from(
    ["walk(fridge), open(fridge), pick(apple)", "Alice thinks the apple is in the box.", "", "\n", "pick(", ")()", ","]
)


@st.composite
def hierarchy_answers(draw: st.DrawFn) -> str:
    """A tagged answer: the six layers in order with content, then a few random edits (a tag dropped, moved,
    repeated or misspelt; odd text or an odd action step put in)."""
    parts: list[str] = []
    for layer in LAYERS:
        tag = layer.capitalize()
        content = draw(st.sampled_from(["The robot sees Alice.", "Alice thinks the apple is in the box."]) | CONTENT)
        if layer == "action":
            content = draw(st.sampled_from(["walk(fridge), pick(apple)", "walk(fridge)\nopen(fridge)", "", "pick("]))
        parts += [f"<{tag}>", content, f"</{tag}>"]
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(parts) - 1))
        edit = draw(st.sampled_from(["drop", "move", "repeat", "tag", "odd"]))
        if edit == "drop":
            del parts[i]
        elif edit == "move":
            parts.insert(draw(st.integers(0, len(parts) - 1)), parts.pop(i))
        elif edit == "repeat":
            parts.insert(i, parts[i])
        elif edit == "tag":
            parts[i] = draw(TAGS)
        else:
            parts.insert(i, draw(odd_text | CONTENT))
    return draw(st.sampled_from(["", "\n"])).join(parts)


@FUZZ
@given(hierarchy_answers(), st.sampled_from(["hierarchy"] * 6 + ["decision", "think", "Hierarchy", "six", ""]))
def test_hierarchy_tags_parse_or_refuse(text: str, setting: str) -> None:
    result = outcome(lambda: parse_hierarchy(text, setting))
    if not isinstance(result, MindloopError):
        assert isinstance(result, Hierarchy) and result.layers


def test_a_complete_hierarchy_still_parses() -> None:
    text = "".join(f"<{layer.capitalize()}>x</{layer.capitalize()}>" for layer in LAYERS[:-1])
    result = parse_hierarchy(text + "<Action>walk(fridge), pick(apple)</Action>")
    assert result.action_line() == "walk(fridge), pick(apple)"


# -- OmniToM pipe tables -----------------------------------------------------------------------------------------

CELLS = st.one_of(
    st.sampled_from(["Actor", "Belief", "Order", "world", "Bob", "0", "1", "first", "---", "**Bob**", "", "`x`"]),
    st.sampled_from(["True", "False", "Full", "Partial", "Explicit", "Location", "Perception", "Neutral"]),
    odd_text,
)
ROWS = st.lists(
    st.one_of(
        st.builds(lambda cells: "| " + " | ".join(cells) + " |", st.lists(CELLS, max_size=10)),
        st.sampled_from(["```", "|---|---|---|", "| Actor | Belief | Order |", ""]),
        odd_text,
    ),
    max_size=10,
)
GOLD_BELIEFS = [
    BeliefRecord(
        actor="Bob",
        belief="the ball is in the box",
        labels=BeliefLabels.partial(
            order="1",
            truth_status="True",
            knowledge_access="Full",
            representation="Explicit",
            content_type="Location",
            mental_source="Perception",
            context="Neutral",
        ),
    ),
    BeliefRecord(actor="world", belief="Bob leaves", labels=BeliefLabels.partial(order="0")),
]


@FUZZ
@given(ROWS)
def test_pipe_tables_parse_or_refuse(rows: list[str]) -> None:
    text = "\n".join(rows)
    one = outcome(lambda: parse_stage1(text))
    if not isinstance(one, MindloopError):
        assert isinstance(one, Stage1Parse) and all(b.actor and b.belief for b in one.beliefs)
    two = outcome(lambda: parse_stage2(text, GOLD_BELIEFS))
    if not isinstance(two, MindloopError):
        assert isinstance(two, Stage2Parse) and len(two.labels) == len(GOLD_BELIEFS)


# -- Symbolic Belief Language ------------------------------------------------------------------------------------

SBL_TOKENS = st.sampled_from(
    [
        "Alice",
        "Bob",
        "BELIEVE",
        "<apple>(12)",
        "<kitchen>(2000)",
        "<apple>",
        "(3)",
        "IN",
        "ON",
        "INSIDE",
        "HOLD",
        "CLOSE",
        "?x",
        "?room",
        "-",
        "1.",
        ".",
        "<",
        ">(",
        "()",
    ]
)


@FUZZ
@given(
    st.lists(st.lists(st.one_of(SBL_TOKENS, odd_text), max_size=9).map(" ".join), max_size=5),
    st.booleans(),
    st.booleans(),
)
def test_sbl_lines_parse_or_refuse(lines: list[str], variables: bool, extend: bool) -> None:
    for line in lines:
        one = outcome(lambda line=line: sbl.parse_line(line, variables=variables, extend=extend))
        if not isinstance(one, MindloopError):
            assert isinstance(one, sbl.SblStatement)
            assert isinstance(
                outcome(lambda one=one: sbl.parse_line(str(one), variables=variables, extend=True)), sbl.SblStatement
            )
    text = "\n".join(lines)
    many = outcome(lambda: sbl.parse(text, variables=variables, extend=extend))
    if not isinstance(many, MindloopError):
        assert all(isinstance(s, sbl.SblStatement) for s in many)
    lenient = outcome(lambda: sbl.parse_lenient(text, variables=variables, extend=extend))
    assert isinstance(lenient, sbl.SblParse)
    outcome(lambda: sbl.parse_rules(text))


# -- Theory of Space cognitive maps ------------------------------------------------------------------------------

MAP_VALUES = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"position": json_values | st.lists(st.floats() | st.integers(), min_size=2, max_size=2)},
        optional={"facing": st.sampled_from(["north", "+y", "left", "up", "sideways"]) | json_values},
    ),
)
MAPS = st.dictionaries(st.sampled_from(["agent", "lamp", "red door", "objects", "gates", "x"]) | odd_text, MAP_VALUES)


@FUZZ
@given(
    MAPS | json_values,
    st.sampled_from(["json", "fenced", "prose", "raw"]),
    st.none() | st.just(["agent", "lamp", "red door"]),
    st.none() | st.sampled_from([(0, 1), (1, 0), (0, -1)]),
)
def test_cognitive_maps_parse_or_refuse(data: Any, wrap: str, names: Any, heading: Any) -> None:
    text = json.dumps(data)
    source: Any = {
        "json": text,
        "fenced": f"Here:\n```json\n{text}\n```",
        "prose": f"My map {text} done {{",
        "raw": data,
    }[wrap]
    if wrap == "raw" and not isinstance(data, dict):
        source = text
    result = outcome(lambda: parse_cognitive_map(source, names=names, local_heading=heading))
    if result is not None and not isinstance(result, MindloopError):
        assert all(isinstance(k, str) and isinstance(v, MapEntry) for k, v in result.items())


def test_a_deeply_nested_reply_is_no_map() -> None:
    assert parse_cognitive_map("{" + '"a": [' * 50_000 + "]" * 50_000 + "}") is None


# -- meta_data.json ----------------------------------------------------------------------------------------------


@FUZZ
@given(st.data())
def test_meta_data_json_builds_a_scene_or_refuses(data: st.DataObject) -> None:
    meta = mutated(RUN00, data)
    result = outcome(lambda: scene_from_metadata(meta, source="meta_data.json") if isinstance(meta, dict) else None)
    assert result is None or isinstance(result, Scene | MindloopError)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "meta_data.json"
        path.write_text(json.dumps(meta), encoding="utf-8")
        loaded = outcome(lambda: load_scene(path))
        assert isinstance(loaded, Scene | MindloopError)


@FUZZ
@given(st.binary(max_size=64) | json_values.map(lambda v: json.dumps(v).encode()))
def test_scene_files_of_any_bytes_load_or_refuse(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scene.json"
        path.write_bytes(content)
        assert isinstance(outcome(lambda: load_scene(path)), Scene | MindloopError)


def test_the_unmutated_meta_data_json_still_builds() -> None:
    assert isinstance(scene_from_metadata(copy.deepcopy(RUN00)), Scene)


# -- MindClaw skills YAML ----------------------------------------------------------------------------------------


@FUZZ
@given(st.data())
def test_skills_yaml_parses_or_refuses(data: st.DataObject) -> None:
    skills = mutated(SKILLS, data, edits=4)
    result = outcome(lambda: parse_skills(skills, source="skills.yaml"))
    assert isinstance(result, SkillSet | MindloopError)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "skills.yaml"
        path.write_text(yaml.safe_dump(skills, allow_unicode=True), encoding="utf-8")
        assert isinstance(outcome(lambda: load_skills(path)), SkillSet | MindloopError)


@FUZZ
@given(st.binary(max_size=64) | odd_text.map(str.encode))
def test_skills_files_of_any_bytes_load_or_refuse(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "skills.yaml"
        path.write_bytes(content)
        assert isinstance(outcome(lambda: load_skills(path)), SkillSet | MindloopError)


def test_the_shipped_skills_still_parse() -> None:
    assert len(parse_skills(copy.deepcopy(SKILLS))) > 0


def _skill_edit(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(SKILLS)
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


FIRST = ("operations", "belief_create_visual_fact", "strong", 0)


def test_the_values_the_search_found_are_refused_by_name() -> None:
    """What hypothesis found (a TypeError or ValueError before): each is now a ParseError naming the field."""
    for path, value, needle in [
        (("mined",), [None], "mined: Input should be a valid dictionary"),
        (("mined",), "0", "mined: Input should be a valid dictionary"),
        ((*FIRST, "support"), [1], "[id=belief_create_visual_fact-s1].support: Input should be a valid integer"),
        ((*FIRST, "support"), 2.5, "[id=belief_create_visual_fact-s1].support: Input should be a valid integer"),
        ((*FIRST, "precision"), [0.5], "[id=belief_create_visual_fact-s1].precision: Input should be a valid number"),
        ((*FIRST, "precision"), True, "[id=belief_create_visual_fact-s1].precision: Input should be a valid number"),
        (("thresholds",), [1], "thresholds: Input should be a valid dictionary"),
        (("thresholds", "strong"), "high", "thresholds.strong: Input should be a valid number"),
        (("thresholds", "min_support"), -1, "thresholds.min_support: Input should be greater than or equal to 0"),
        (
            ("operations", "belief_create_visual_fact", "strong"),
            "x",
            "operations.belief_create_visual_fact.strong: Input should be a valid list",
        ),
        ((*FIRST, "when"), {"text": {">": 3}}, "'text' takes regex, or eq/not/in with text"),
        ((*FIRST, "when"), {"text": {"in": [["a"]]}}, "'text' takes regex"),
    ]:
        with pytest.raises(MindloopError, match=re.escape(needle)):
            parse_skills(_skill_edit(path, value), source="s.yaml")

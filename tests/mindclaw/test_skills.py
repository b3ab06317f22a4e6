"""Skills: YAML that people edit, compiled matchers, the negative veto, two-stage inference, validation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from mindloop.errors import ParseError
from mindloop.systems.mindclaw import HouseholdSource, SkillSet, Trigger, load_skills, parse_skills, validate_skills
from mindloop.systems.mindclaw.context import TriggerContext, WindowState
from mindloop.systems.mindclaw.engine import run_without_io
from mindloop.systems.mindclaw.memory import Memory
from mindloop.systems.mindclaw.observation import SymbolicObserver
from mindloop.systems.mindclaw.operations import Operation
from mindloop.systems.mindclaw.skills import default_skills_path
from mindloop.worlds.household.scenarios import Scenario


@dataclass
class _Ctx:
    values: dict[str, Any] = field(default_factory=dict)

    def feature(self, name: str) -> Any:
        return self.values[name]


def _one(when: dict[str, Any], op: str = "noop", kind: str = "strong") -> SkillSet:
    return parse_skills({"operations": {op: {kind: [{"id": "x", "text": "t", "when": when}]}}})


def test_conditions_compile_to_field_and_regex_matchers() -> None:
    s = _one(
        {
            "next_write": "none",
            "pending_writes": {">": 0},
            "cue": {"in": ["unreachable", "blocked"]},
            "text": {"regex": "(?i)thirsty|drink"},
            "reasoned": {"not": True},
        }
    ).skills[0]
    base = {"next_write": "none", "pending_writes": 2, "cue": "blocked", "text": "Mia: I'm thirsty", "reasoned": False}
    assert s.matches(_Ctx(base))
    for key, bad in (
        ("next_write", "visual_create"),
        ("pending_writes", 0),
        ("cue", "none"),
        ("text", "hello"),
        ("reasoned", True),
    ):
        assert not s.matches(_Ctx({**base, key: bad})), key
    assert "pending_writes>0" in s.describe() and "text~/(?i)thirsty|drink/" in s.describe()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"operations": {"fly": {}}}, "unknown operation 'fly'"),
        ({"operations": {"noop": {"maybe": []}}}, "unknown set 'maybe'"),
        ({"operations": {"noop": {"strong": [{"id": "a", "when": {"colour": "red"}}]}}}, "unknown field 'colour'"),
        ({"operations": {"noop": {"strong": [{"id": "a", "when": {"cue": "sad"}}]}}}, "cue takes one of"),
        ({"operations": {"noop": {"strong": [{"id": "a", "when": {"quiet": "yes"}}]}}}, "quiet takes true or false"),
        ({"operations": {"noop": {"strong": [{"id": "a", "when": {"text": {"regex": "("}}}]}}}, "bad regex"),
        ({"operations": {"noop": {"strong": [{"id": "a", "when": {"n_ops": {"~": 1}}}]}}}, "unknown test"),
        ({"operations": {"noop": {"strong": [{"id": "a"}, {"id": "a"}]}}}, "used twice"),
        ({"version": 2, "operations": {}}, "version: Input should be 1"),
        (["not", "a", "mapping"], "(top level): Input should be a valid dictionary"),
    ],
)
def test_malformed_skills_name_the_problem(data: Any, message: str) -> None:
    with pytest.raises(ParseError, match=re.escape(message)) as err:
        parse_skills(data, source="skills.yaml")
    assert str(err.value).startswith("skills.yaml: ") and "\n" not in str(err.value)


def test_yaml_round_trip_and_files(tmp_path: Path) -> None:
    shipped = load_skills(default_skills_path())
    path = tmp_path / "s.yaml"
    shipped.save(path)
    back = load_skills(path)
    assert [(s.id, s.op, s.kind, s.when, s.support) for s in back.skills] == [
        (s.id, s.op, s.kind, s.when, s.support) for s in shipped.skills
    ]
    # readable: plain YAML with the operation names as keys, every skill with text and conditions
    data = yaml.safe_load(path.read_text())
    assert set(data["operations"]["reasoning_run"]) == {"strong", "preferred", "negative"}
    assert all(s["text"] and s["when"] for s in data["operations"]["reasoning_run"]["strong"])
    (tmp_path / "bad.yaml").write_text("operations: [unclosed\n")
    with pytest.raises(ParseError, match=r"bad\.yaml: not valid YAML"):
        load_skills(tmp_path / "bad.yaml")
    with pytest.raises(ParseError, match="cannot read"):
        load_skills(tmp_path / "missing.yaml")


def _context(scenario: Scenario, t: int) -> TriggerContext:
    windows = list(HouseholdSource(scenario).windows())
    obs = SymbolicObserver()
    o = [run_without_io(obs.observe(w)) for w in windows][t]
    return TriggerContext(WindowState(windows[t], o, Memory.fresh()))


def test_negative_skills_veto_strong_ones(lily: Scenario) -> None:
    ctx = _context(lily, 3)  # Lily puts the apple in the fridge: a visual fact to create
    strong = {"id": "s", "when": {"next_write": "visual_create"}}
    skills = parse_skills({"operations": {"belief_create_visual_fact": {"strong": [strong]}}})
    assert run_without_io(Trigger(skills).decide(ctx)).op == Operation(
        "belief_create_visual_fact", "none", "apple", "fridge"
    )
    veto = {"id": "n", "when": {"text": {"regex": "apple"}}}
    vetoed = parse_skills({"operations": {"belief_create_visual_fact": {"strong": [strong], "negative": [veto]}}})
    decision = run_without_io(Trigger(vetoed).decide(ctx))
    assert decision.op == Operation("noop") and decision.by == "policy:noop"


def test_validation_measures_support_and_precision() -> None:
    @dataclass
    class D:
        features: dict[str, Any]
        gold: str

    decisions = [D({"quiet": True}, "noop")] * 9 + [D({"quiet": True}, "reasoning_run"), D({"quiet": False}, "noop")]
    skills = parse_skills(
        {
            "operations": {
                "noop": {"strong": [{"id": "q", "when": {"quiet": True}}]},
                "reasoning_run": {"negative": [{"id": "nq", "when": {"quiet": False}}]},
            }
        }
    )
    measured = {s.id: (s.support, s.precision) for s in validate_skills(skills, decisions).skills}
    assert measured == {"q": (9, 0.9), "nq": (1, 1.0)}
    regrouped = validate_skills(skills, decisions, regroup=True)
    assert [(s.id, s.kind) for s in regrouped.skills] == [("q", "preferred")]  # 0.9 < strong; nq support < 5

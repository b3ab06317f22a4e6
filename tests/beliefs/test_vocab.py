"""The one vocabulary (``mindloop.beliefs.vocab``): names defined once, and each system's adapter onto them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mindloop
from mindloop.beliefs import WORLD, vocab
from mindloop.beliefs.views import sbl
from mindloop.beliefs.vocab import AT, RELATIONS, ROBOT, ROOM, surface_map
from mindloop.errors import BeliefError
from mindloop.systems.mindclaw.memory import TABLE_RELATION, BeliefTable
from mindloop.systems.omnitom import templated
from mindloop.worlds.household import vocab as household_vocab
from mindloop.worlds.household.setup import WorldSetup
from mindloop.worlds.household.world import World
from mindloop.worlds.stories import tomi

SRC = Path(mindloop.__file__).parent
CANONICAL = {n: v for n, v in vars(vocab).items() if n.isupper() and n[0] != "_" and n != "RELATIONS"}
"""Every canonical name bound in ``beliefs/vocab.py`` (``ROBOT``, ``AT``, ...) and its value."""


def test_the_names_and_their_values() -> None:
    # The values every system's data, gold and prompts are written in (issue 13: location is ``at``).
    assert (ROBOT, AT, ROOM) == ("robot", "at", "room")
    assert {"at", "room", "open", "switch", "contains", "power", "posture", "feels", "state"} == RELATIONS
    assert ROBOT not in RELATIONS


def test_household_vocab_reexports_the_canonical_objects() -> None:
    for name in ("ROBOT", "AT", "ROOM", "OPEN", "SWITCH", "CONTAINS", "POWER", "POSTURE", "FEELS", "STATE"):
        assert getattr(household_vocab, name) is getattr(vocab, name), name


def test_no_module_redeclares_a_canonical_name() -> None:
    """Only ``beliefs/vocab.py`` binds ``ROBOT = "robot"``, ``AT = "at"``, ...; nothing defaults to ``"robot"``."""
    redeclared, defaults = [], []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level only: enum members (Trait.ROBOT) are values, not ids
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
            target = node.target if isinstance(node, ast.AnnAssign) else target
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            if (
                isinstance(target, ast.Name)
                and isinstance(value, ast.Constant)
                and CANONICAL.get(target.id) == value.value
                and rel != "beliefs/vocab.py"
            ):
                redeclared.append(f"{rel}:{node.lineno} {target.id}")
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                for d in [*fn.args.defaults, *(k for k in fn.args.kw_defaults if k is not None)]:
                    if isinstance(d, ast.Constant) and d.value == ROBOT:
                        defaults.append(f"{rel}:{fn.lineno} {fn.name}")
    assert redeclared == []
    assert defaults == []


def test_household_world_states_facts_in_canonical_relations() -> None:
    setup = WorldSetup(
        "family_house",
        (("alice", "kitchen"),),
        (("apple", "apple", "alice"), ("mug", "mug", "fridge")),
        feelings=(("alice", "thirsty"),),
    )
    facts = World(setup).truth_facts()
    assert {f.relation for f in facts} <= RELATIONS
    assert household_vocab.AT in {f.relation for f in facts} and ROOM in {f.relation for f in facts}


def test_tomi_adapter_maps_its_location_word() -> None:
    sentences = [
        (1, "Sally entered the kitchen."),
        (2, "The basket is in the kitchen."),
        (3, "The ball is in the basket."),
    ]
    tracker = tomi.track_story(sentences, "tomi")
    relations = {b.fact.relation for b in tracker.store.beliefs(WORLD)}
    assert relations == {tomi.IN} == {"in"}  # stories keep their surface word ...
    assert {tomi.CANONICAL_RELATIONS[r] for r in relations} == {AT}  # ... and the adapter reads it as ``at``


def test_templated_adapter_maps_its_location_word() -> None:
    assert dict(templated.CANONICAL_RELATIONS) == {"in": "at"}
    assert templated.IN == tomi.IN  # two systems, the same surface word, the same canonical reading


def test_sbl_adapter_by_stored_slot() -> None:
    lines = {
        "Alice BELIEVE <apple>(1) IN <kitchen>(2000)": AT,
        "Alice BELIEVE <apple>(1) INSIDE <fridge>(105)": AT,
        "Alice BELIEVE <plate>(3) ON <table>(7)": AT,
        "Alice BELIEVE Bob HOLD <apple>(1)": AT,  # stored as <apple>(1) HELD_BY Bob: the apple is at Bob
        "Alice BELIEVE <bag>(4) CONTAIN <apple>(1)": AT,  # stored as <apple>(1) CONTAINED_BY <bag>(4)
        "Alice BELIEVE Bob AT <kitchen>(2000)": ROOM,
    }
    for line, canonical in lines.items():
        fact = sbl.parse_line(line).to_fact()
        assert sbl.CANONICAL_RELATIONS[fact.relation] == canonical, line
    assert (
        sbl.parse_line("Alice BELIEVE <kitchen>(2000) EXPLORED all").to_fact().relation not in sbl.CANONICAL_RELATIONS
    )


def test_mindclaw_belief_table_is_the_canonical_location() -> None:
    table = BeliefTable()
    table.write_visual("apple", "fridge", t=1)
    table.write_actor("alice", "apple", "kitchen_table", t=1)
    assert TABLE_RELATION == AT
    assert table.store.value(WORLD, "apple", AT) == "fridge"
    assert table.store.value((ROBOT, "alice"), "apple", AT) == "kitchen_table"


def test_every_adapter_targets_canonical_relations() -> None:
    for adapter in (tomi.CANONICAL_RELATIONS, templated.CANONICAL_RELATIONS, sbl.CANONICAL_RELATIONS):
        assert set(adapter.values()) <= RELATIONS
        with pytest.raises(TypeError):
            adapter["NEW"] = AT  # type: ignore[index]  # adapters are read-only


def test_a_bad_adapter_fails_with_the_word_and_the_choices() -> None:
    with pytest.raises(BeliefError, match=r"'IN' maps to 'inside'.*expected one of: at, contains"):
        surface_map({"ON": AT, "IN": "inside"})


@given(st.dictionaries(st.text(min_size=1, max_size=8), st.sampled_from(sorted(RELATIONS)), max_size=6))
def test_surface_map_keeps_any_mapping_onto_canonical_names(pairs: dict[str, str]) -> None:
    assert dict(surface_map(pairs)) == pairs


@given(st.text(max_size=8).filter(lambda s: s not in RELATIONS))
def test_surface_map_refuses_any_other_target(target: str) -> None:
    with pytest.raises(BeliefError):
        surface_map({"X": target})

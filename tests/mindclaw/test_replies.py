"""MindClaw's reply parsers read what models write (markdown, no angle brackets or colons, the value on the next
line, any case) and refuse what a person could not read unambiguously: copies of the prompt's format lines and
examples, and two different answers. Each refusal is a ParseError with a one-line reason."""

from __future__ import annotations

import pytest

from mindloop.errors import ParseError
from mindloop.systems.mindclaw.actions import parse_action_reply
from mindloop.systems.mindclaw.mining import parse_skill_line, parse_summary, read_summary
from mindloop.systems.mindclaw.observation import parse_observation_reply
from mindloop.systems.mindclaw.operations import Operation, parse_operation, read_operation
from mindloop.systems.mindclaw.reasoning import parse_reasoning_reply
from mindloop.systems.mindclaw.replies import clean, find_names, read_tags, single
from mindloop.systems.mindclaw.window import Candidates

LOCATIONS = frozenset({"kitchen", "kitchen_cabinet", "fridge", "wall_cabinet", "cabinet", "living_room"})
C = Candidates(frozenset({"lily", "sarah"}), frozenset({"apple", "glass"}), LOCATIONS | {"lily", "sarah"})


def _one_line(exc: pytest.ExceptionInfo[ParseError]) -> str:
    reason = exc.value.reason
    assert "\n" not in reason
    return reason


# ---- the shared helpers -----------------------------------------------------------------------------------------
def test_clean_takes_markdown_off_a_line() -> None:
    assert clean("### **Context:** `false_belief`") == "Context: false_belief"
    assert clean("- *Blocks*: yes") == "Blocks: yes"
    assert clean("  2. <Intervene> no") == "<Intervene> no"
    assert clean("kitchen_cabinet") == "kitchen_cabinet"  # single underscores are part of names


def test_names_match_whole_and_longest_first() -> None:
    assert find_names("the Kitchen Cabinet", LOCATIONS) == ["kitchen_cabinet"]
    assert find_names("kitchen-cabinet or the cabinet", LOCATIONS) == ["kitchen_cabinet", "cabinet"]
    assert find_names("the kitchenette", LOCATIONS) == []  # never part of a word
    assert find_names("Living room, then the fridge", LOCATIONS) == ["living_room", "fridge"]


def test_tags_in_every_written_form() -> None:
    reply = (
        "<Context> false_belief\n**Believed:** fridge\nBlocks yes\n<Intervene>\nno\n"
        "<reason>She looks in the fridge.</reason>"
    )
    tags = read_tags(reply, ("context", "believed", "blocks", "intervene", "reason"))
    assert tags == {
        "context": ["false_belief"],
        "believed": ["fridge"],
        "blocks": ["yes"],
        "intervene": ["no"],
        "reason": ["She looks in the fridge."],
    }
    # several tags on one line, closing tags, a bracketed form
    one_line = "<Context>none</Context><Blocks>no</Blocks> [Intervene]: no"
    assert read_tags(one_line, ("context", "blocks", "intervene")) == {
        "context": ["none"],
        "blocks": ["no"],
        "intervene": ["no"],
    }
    # a word that merely starts like a tag is not the tag
    assert read_tags("Reasoning: it is late", ("reason",)) == {"reason": []}


def test_single_refuses_two_different_answers() -> None:
    def yes_no(v: str) -> bool:
        if v not in ("yes", "no"):
            raise ParseError(f"not yes or no: {v}")
        return v == "yes"

    assert single("blocks", ["yes", "yes"], yes_no) is True
    assert single("blocks", ["maybe", "no"], yes_no) is False  # the unreadable value gives way to the readable one
    with pytest.raises(ParseError, match="two different <Blocks> answers"):
        single("blocks", ["yes", "no"], yes_no)
    with pytest.raises(ParseError, match="not yes or no: maybe"):
        single("blocks", ["maybe"], yes_no)
    with pytest.raises(ParseError, match="no <Blocks> line"):
        single("blocks", [], yes_no)


# ---- trigger operations -----------------------------------------------------------------------------------------
def test_operations_in_markdown_quotes_and_spaced_names() -> None:
    assert parse_operation("**reasoning_run(lily, apple, none)**") == Operation("reasoning_run", "lily", "apple")
    assert parse_operation("`noop(none, none, none)`") == Operation("noop")
    assert parse_operation("reasoning_run('Lily', \"apple\", None)") == Operation("reasoning_run", "lily", "apple")
    op = parse_operation("belief_create_visual_fact(none, apple, kitchen cabinet)")
    assert op == Operation("belief_create_visual_fact", "none", "apple", "kitchen_cabinet")
    assert parse_operation("noop(n/a, n/a, n/a)") == Operation("noop")


def test_template_copies_are_refused_and_give_way_to_an_answer() -> None:
    with pytest.raises(ParseError, match="copies the template's slot names") as exc:
        parse_operation("reasoning_run(ACTOR, OBJECT, none)")
    _one_line(exc)
    # the operation list copied, then an answer: the answer is what a person reads
    assert parse_operation("reasoning_run(ACTOR, OBJECT, none)\nreasoning_run(lily, glass, none)") == Operation(
        "reasoning_run", "lily", "glass"
    )
    with pytest.raises(ParseError, match="several different trigger operations"):
        parse_operation("belief_create_visual_fact(none, apple, fridge)\nreasoning_run(lily, apple, none)")
    # the prompt's list is written "verb: slot, slot, slot": that form is read, and its placeholders refused
    assert parse_operation("reasoning_run: lily, apple, none.") == Operation("reasoning_run", "lily", "apple")
    with pytest.raises(ParseError, match="copies the template's slot names"):
        parse_operation("belief_create_visual_fact: none, an object, a location. The robot saw an object.")
    with pytest.raises(ParseError, match="copies the template's slot names"):
        parse_operation("belief_update_actor_belief(jake, bathroom_faucet, LOCATION)")


def test_read_operation_grounds_slots_and_refuses_the_old_example() -> None:
    assert read_operation("reasoning_run(lily, glass, none)", C) == Operation("reasoning_run", "lily", "glass")
    # the example the old prompt gave, copied verbatim: alice is nobody in this window
    with pytest.raises(ParseError, match="actor 'alice' is not one of the window's candidate actors") as exc:
        read_operation("belief_update_actor_belief(alice, apple, fridge)", C)
    _one_line(exc)
    with pytest.raises(ParseError, match="must be none"):
        read_operation("action_run(lily, glass, fridge)", C)


# ---- reasoning --------------------------------------------------------------------------------------------------
def test_reasoning_in_every_written_form() -> None:
    want = {"context": "false_belief", "believed": "fridge", "blocks": True, "intervene": True}
    forms = [
        "<Context> false_belief\n<Believed> fridge\n<Blocks> yes\n<Intervene> yes\n<Reason> She looks there.",
        "**Context:** false_belief\n**Believed:** fridge\n**Blocks:** yes\n**Intervene:** yes",
        "<Context>\nfalse belief\n<Believed>\nthe fridge\n<Blocks>\nYes.\n<Intervene>\nyes, now",
        "CONTEXT false_belief\nBELIEVED Fridge\nBLOCKS YES\nINTERVENE TRUE",
        "### Context\nfalse_belief\n### Believed\nfridge\n### Blocks\nyes\n### Intervene\nyes",
    ]
    for reply in forms:
        got = parse_reasoning_reply(reply, locations=LOCATIONS)
        assert {k: got[k] for k in want} == want, reply


def test_reasoning_echoes_and_ambiguity_are_refused() -> None:
    echo = (
        "<Context> one of: false_belief, unreachable, blocked, left_running, power_cut, missing_tool, stated_need, "
        "none\n<Believed> kitchen\n<Blocks> no\n<Intervene> yes\n<Reason> one sentence"
    )
    with pytest.raises(ParseError, match="copies the list of allowed contexts") as exc:
        parse_reasoning_reply(echo, locations=LOCATIONS)
    _one_line(exc)
    with pytest.raises(ParseError, match="<Blocks> line copies the prompt"):
        parse_reasoning_reply(
            "<Context> none\n<Believed> none\n<Blocks> yes or no\n<Intervene> no", locations=LOCATIONS
        )
    with pytest.raises(ParseError, match="no <Blocks> line"):
        parse_reasoning_reply("<Context> none\n<Believed> none\n<Intervene> no", locations=LOCATIONS)
    with pytest.raises(ParseError, match="names two locations"):
        parse_reasoning_reply(
            "<Context> false_belief\n<Believed> fridge or wall cabinet\n<Blocks> yes\n<Intervene> yes",
            locations=LOCATIONS,
        )
    with pytest.raises(ParseError, match="two different <Intervene> answers"):
        parse_reasoning_reply(
            "<Context> none\n<Believed> none\n<Blocks> no\n<Intervene> no\n<Intervene> yes", locations=LOCATIONS
        )
    # a copied <Reason> is dropped, the rest is an answer
    got = parse_reasoning_reply(
        "<Context> none\n<Believed> none\n<Blocks> no\n<Intervene> no\n<Reason> one sentence", locations=LOCATIONS
    )
    assert got["context"] == "none" and got["reason"] == ""


# ---- action -----------------------------------------------------------------------------------------------------
def test_action_in_every_written_form() -> None:
    steps = ("walk(fridge)", "open(fridge)", "pick(apple)")
    for reply in (
        "<Action> walk(fridge), open(fridge), pick(apple)",
        "**Action:** walk(fridge), open(fridge), pick(apple).",
        "<Action>\n1. walk(fridge)\n2. open(fridge)\n3. pick(apple)",
        "Action: `walk(fridge)`, `open(fridge)`, `pick(apple)`",
    ):
        assert parse_action_reply(reply) == steps, reply
    assert parse_action_reply("<Action> none") == ()
    assert parse_action_reply("**Action**: None.") == ()


def test_action_echoes_are_refused() -> None:
    with pytest.raises(ParseError, match="copies the format lines") as exc:
        parse_action_reply("<Action> verb(arg, ...), verb(arg, ...), ...\nor\n<Action> none")
    _one_line(exc)
    with pytest.raises(ParseError, match="copies the verb list's argument names"):
        parse_action_reply("<Action> walk(x), open(x), pick(item)")
    with pytest.raises(ParseError, match="two different <Action> answers"):
        parse_action_reply("<Action> walk(fridge)\n<Action> none")
    with pytest.raises(ParseError, match="no <Action> line"):
        parse_action_reply("The robot should fetch the apple.")
    # an <Action> line, then a different plan as a list of steps: two answers
    with pytest.raises(ParseError, match="followed by a separate list of steps"):
        parse_action_reply("<Action> walk(sink)\n<Step 1: Walk to the sink>\n<Step 2: Give glass to person>")
    # prose after the line is not a second plan
    assert parse_action_reply("<Action> walk(fridge)\nThis brings the robot to the fridge.") == ("walk(fridge)",)


# ---- observation ------------------------------------------------------------------------------------------------
NAMES = {
    "actors": frozenset({"lily", "sarah"}),
    "objects": frozenset({"apple"}),
    "locations": frozenset({"fridge", "wall_cabinet", "kitchen"}),
    "t": 3,
}


def _events(reply: str) -> list[str]:
    out = []
    for e in parse_observation_reply(reply, **NAMES):  # type: ignore[arg-type]
        if e.kind == "observe":
            f = e.facts[0]
            out.append(f"{f.subject} -> {f.value} | {', '.join(e.witnesses) or 'nobody'}")
        else:
            out.append(f"{e.actor}: {e.verb}({', '.join(e.args)}){' failed' if e.failure else ''}")
    return out


def test_observation_in_every_written_form() -> None:
    want = ["lily: putin(apple, fridge)", "apple -> fridge | lily"]
    for reply in (
        "<Events>\nlily: putin(apple, fridge)\n</Events>\n<Moves>\napple -> fridge | seen by: lily\n</Moves>",
        "**Events:**\n- Lily: putin(apple, fridge)\n\n**Moves:**\n- apple -> fridge (seen by Lily)",
        "### Events\n1. lily putin(apple, fridge)\n### Moves\n1. Apple → Fridge | seen by: lily",
    ):
        assert _events(reply) == want, reply
    empty = "<Events>\nnone\n</Events>\n<Moves>\n(nothing)\n</Moves>"
    assert _events(empty) == []
    assert _events("<Events>\nsarah: open(wall cabinet) (failed)\n</Events>\n<Moves></Moves>") == [
        "sarah: open(wall_cabinet) failed"
    ]


def test_observation_echoes_and_unknown_names_are_refused() -> None:
    echo = (
        "<Events>\nPERSON: verb(arg, ...)\n</Events>\n<Moves>\nOBJECT -> LOCATION | seen by: PERSON, PERSON\n</Moves>"
    )
    with pytest.raises(ParseError, match="copies the prompt's format") as exc:
        parse_observation_reply(echo, **NAMES)  # type: ignore[arg-type]
    _one_line(exc)
    with pytest.raises(ParseError, match="unknown location 'moon'"):
        parse_observation_reply("<Events></Events><Moves>\napple -> moon | seen by: lily\n</Moves>", **NAMES)  # type: ignore[arg-type]
    with pytest.raises(ParseError, match="no <Moves> section"):
        parse_observation_reply("<Events>\nlily: open(fridge)\n</Events>", **NAMES)  # type: ignore[arg-type]


# ---- skills -----------------------------------------------------------------------------------------------------
def test_skill_lines_in_every_written_form() -> None:
    want = ("strong", ("next_write=none", "reasoned=false"), "Reason when nothing is pending.")
    for line in (
        "SKILL strong | when: next_write=none, reasoned=false | text: Reason when nothing is pending.",
        "1. **SKILL** strong | when: next_write = none and reasoned = False | text: Reason when nothing is pending.",
        "- `SKILL: Strong | when next_write==none; reasoned=false | text Reason when nothing is pending.`",
    ):
        got = parse_skill_line(line)
        assert got is not None, line
        kind, conds, text = got
        assert (kind, tuple(c.describe() for c in conds), text) == want, line
    assert parse_skill_line("Here are the skills:") is None
    # a skill written over three lines is one skill; a SKILL line without a kind is refused
    reply = 'SKILL Preferred\nwhen: quiet=True\ntext: "Prefer it when quiet."\n\nSKILL noop\nwhen: quiet=True\ntext: x'
    skills, failures = parse_summary(reply, "noop")
    assert [(s.kind, [c.describe() for c in s.when], s.text) for s in skills] == [
        ("preferred", ["quiet=true"], "Prefer it when quiet.")
    ]
    assert len(failures) == 1 and "its kind must be strong, preferred or negative" in failures[0]


def test_skill_template_copies_are_refused() -> None:
    template = "SKILL strong|preferred|negative | when: FIELD=VALUE, FIELD!=VALUE, FIELD>NUMBER | text: one sentence"
    with pytest.raises(ParseError, match="copies the template's kinds"):
        parse_skill_line(template)
    with pytest.raises(ParseError, match="copies the template"):
        parse_skill_line("SKILL strong | when: FIELD=VALUE | text: Reason then.")
    with pytest.raises(ParseError, match="text: part copies the template"):
        parse_skill_line("SKILL strong | when: quiet=true | text: one sentence")
    skills, failures = parse_summary(template + "\nSKILL negative | when: cue=none | text: Never then.", "noop")
    assert [(s.kind, s.text) for s in skills] == [("negative", "Never then.")] and len(failures) == 1
    with pytest.raises(ParseError, match="no usable SKILL line: the line copies the template's kinds") as exc:
        read_summary(template, "noop")
    _one_line(exc)

"""The ToS readers on the reply shapes real models write, and the whole model path against a local
OpenAI-compatible server: every call goes through ``ask`` (no unread reply), a refused reply is retried with its
reason, the history policy cuts and records, and a prompt longer than the stated context fails before the call."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.runner import RunRequest, RunSummary, run_benchmark
from mindloop.bench.store import RunStore
from mindloop.errors import ParseError
from mindloop.models.base import ModelOptions, message, message_text
from mindloop.models.fake_server import FakeChatServer
from mindloop.systems.tos.explorers.context import TOKENIZER_SLACK, HistoryPolicy, PromptTooLongError, estimate_tokens
from mindloop.systems.tos.explorers.prompts import (
    ANSWER_FOOTER,
    COGMAP_GLOBAL_PROMPT,
    STEP_FOOTER,
    echoed_markers,
    prompt_set,
)
from mindloop.systems.tos.metrics import score_answer
from mindloop.systems.tos.replies import answer_slot, read_actions, read_answer, read_fog, read_map
from mindloop.systems.tos.world.geometry import EAST

# ---- the answer slot ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "slot"),
    [
        ("THINK: x\nFINAL ANSWER: front, near", "front, near"),
        ("THINK: x\nFINAL ANSWER front, near", "front, near"),  # no colon
        ("THINK: x\nfinal answer:\nfront, near", "front, near"),  # next line, any case
        ("THINK: x\n### FINAL ANSWER\nfront, near", "front, near"),  # under a header
        ("THINK: x\n**FINAL ANSWER:**\n** front, near", "front, near"),  # emphasis and residue
        ("**Final Answer**: `front, near`.", "front, near"),
        ("THINK: x\nFINAL ANSWER - front, near", "front, near"),
        ("FINAL ANSWER: a\nFINAL ANSWER: b", "b"),
    ],
)
def test_the_answer_slot_is_found_however_it_is_marked(reply: str, slot: str) -> None:
    assert answer_slot(reply) == slot


def test_prose_mentioning_the_final_answer_is_no_cue() -> None:
    assert answer_slot("Before the final answer I look around.") is None


# ---- actions --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "actions"),
    [
        ("FINAL ANSWER: Actions: [Rotate(90), Observe()]", "Actions: [Rotate(90), Observe()]"),
        ("### FINAL ANSWER\n**Actions: [Rotate(-90), Observe()]**", "Actions: [Rotate(-90), Observe()]"),
        ("FINAL ANSWER\n`Actions: [JumpTo(red_door), Observe()]`", "Actions: [JumpTo(red_door), Observe()]"),
        ("FINAL ANSWER: [rotate(90°), observe]", "Actions: [Rotate(90), Observe()]"),
        ('FINAL ANSWER: Actions: [JumpTo("sofa"), Observe()]', "Actions: [JumpTo(sofa), Observe()]"),
        ("FINAL ANSWER: Rotate(180), Observe()", "Actions: [Rotate(180), Observe()]"),  # no brackets
        ("Actions: [Term()]", "Actions: [Term()]"),  # no cue and no THINK: the reply is the answer
        # the THINK part's list is not the answer: the one after the cue is
        ("THINK: maybe Actions: [Term()]\nFINAL ANSWER: Actions: [Observe()]", "Actions: [Observe()]"),
        # the placeholder echoed before the real answer is skipped
        ("FINAL ANSWER:\nActions: [ ... ]\nFINAL ANSWER: Actions: [Observe()]", "Actions: [Observe()]"),
        ("I will turn. Actions: [Rotate(90), Observe()]. Let's see.", "Actions: [Rotate(90), Observe()]"),
        # readable lists outside the grammar are read as written: the environment judges them (an invalid step)
        ("FINAL ANSWER: Actions: [Observe(), Rotate(90), Observe()]", "Actions: [Observe(), Rotate(90), Observe()]"),
        ("FINAL ANSWER: Actions: [JumpTo(table)]", "Actions: [JumpTo(table)]"),
        ("FINAL ANSWER: Actions: [Move(north), Observe()]", "Actions: [Move(north), Observe()]"),
    ],
)
def test_action_lists_are_read(reply: str, actions: str) -> None:
    assert read_actions(reply) == actions


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("THINK:\n[Your thoughts on next step actions]\nFINAL ANSWER:\nActions: [ ... ]", "placeholder"),
        ("FINAL ANSWER: Actions: [Rotate(90), Observe()] or Actions: [Term()]", "two different action lists"),
        ("FINAL ANSWER: Actions: [Observe()]\nFINAL ANSWER: Actions: [Term()]", "two different action lists"),
        ("THINK: I should look around first.", "no FINAL ANSWER"),
        ("FINAL ANSWER: I will look around", "no action list"),
        ("", "empty"),
    ],
)
def test_unreadable_or_ambiguous_action_replies_are_refused_with_one_line(reply: str, reason: str) -> None:
    with pytest.raises(ParseError) as info:
        read_actions(reply)
    assert reason in info.value.reason and "\n" not in info.value.reason


def test_the_false_belief_phase_reads_the_changes() -> None:
    got = read_actions("FINAL ANSWER: Actions: [Term(changes='lamp: position, sofa: orientation')]")
    assert got == 'Actions: [Term(changes="lamp: position, sofa: orientation")]'


# ---- maps and the uncertainty probe ---------------------------------------------------------------------------


def test_maps_are_read_from_fences_loose_json_or_the_whole_reply() -> None:
    names = ["lamp", "red door", "agent"]
    fenced = 'THINK: ok\n### FINAL ANSWER\n```json\n{"agent": {"position": [0, 0], "facing": "east"}}\n```'
    assert read_map(fenced, names=names)["agent"].facing == EAST
    loose = "FINAL ANSWER: {'lamp': {'position': [2, 0],}, // seen\n 'red_door': {'position': [3, 1]},}"
    assert sorted(read_map(loose, names=names)) == ["lamp", "red door"]
    before = 'Here is my map: {"lamp": {"position": [2, 0]}}\nFINAL ANSWER: see above'
    assert sorted(read_map(before, names=names)) == ["lamp"]
    assert read_map('FINAL ANSWER: {"sofa": {"position": [1, 1]}}', names=names) == {}  # nothing known: empty
    with pytest.raises(ParseError, match="no JSON object"):
        read_map("FINAL ANSWER: the lamp is east of me", names=names)
    with pytest.raises(ParseError, match="cut off"):
        read_map('FINAL ANSWER: {"agent": {"position": [0, 0]}, "lamp": {"position": [', names=names)
    with pytest.raises(ParseError, match="two different JSON maps"):
        read_map('FINAL ANSWER: {"lamp": {"position": [2, 0]}}\nFINAL ANSWER: {"lamp": {"position": [1, 0]}}')


@pytest.mark.parametrize(
    ("reply", "labels"),
    [
        ('FINAL ANSWER: {"unexplored": ["A", "C"]}', ["A", "C"]),
        ("FINAL ANSWER: A, C", ["A", "C"]),
        ("### FINAL ANSWER\n**[B]**", ["B"]),
        ('FINAL ANSWER: {"unexplored": []}', []),
        ("FINAL ANSWER: none", []),
    ],
)
def test_fog_labels_are_read(reply: str, labels: list[str]) -> None:
    assert read_fog(reply, 4) == labels


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("FINAL ANSWER: I have not seen A or maybe C", "no labels"),
        ('FINAL ANSWER: {"unexplored": ["E"]}', "beyond the candidates"),
        ('FINAL ANSWER: {"unexplored": ["A"]}\nFINAL ANSWER: {"unexplored": ["B"]}', "two different label lists"),
        ('FINAL ANSWER: {"seen": ["A"]}', "no 'unexplored' list"),
    ],
)
def test_unreadable_fog_replies_are_refused(reply: str, reason: str) -> None:
    with pytest.raises(ParseError, match=re.escape(reason)):
        read_fog(reply, 4)


# ---- the nine tasks' answers ------------------------------------------------------------------------------------

NAMES = ["lamp", "red door", "door", "chair", "green chair"]


@pytest.mark.parametrize(
    ("task", "reply", "answer"),
    [
        ("direction", "FINAL ANSWER: north-west, near", "north west, near"),
        ("direction", "FINAL ANSWER: The answer is north east, near.", "north east, near"),
        ("persp.take", "FINAL ANSWER: front-left, near. It is in front of me.", "front-left, near"),
        ("persp.take", "FINAL ANSWER: near, front-right", "front-right, near"),
        ("direction", "FINAL ANSWER\n** North West, slightly far", "north west, slightly far"),
        (
            "direction",
            "### FINAL ANSWER\nThe lamp is to the northeast of the chair, at a far distance.",
            "north east, far",
        ),
        ("persp.take", "**Final Answer:** front-slight-left, mid distance.", "front-slight-left, mid distance"),
        ("act2view", "FINAL ANSWER: front left, mid", "front-left, mid distance"),
        ("loc2view", "FINAL ANSWER:\n`front, near`", "front, near"),
        ("direction", "FINAL ANSWER: north-west", "north-west"),  # incomplete, read as given (the scorer gives 0)
        ("persp.take", "FINAL ANSWER: near", "near"),
        ("persp.take", "FINAL ANSWER: it is slightly far", "slightly-far"),
        ("act2view", "<front>, near", "front, near"),  # brackets around a real label are residue
        ("perc.dec", "FINAL ANSWER: I am standing at the green chair.", "green chair"),  # not "chair"
        ("perc.dec", "FINAL ANSWER: red_door", "red door"),
        ("perc.dec", "FINAL ANSWER: Sofa", "sofa"),  # not in the scene: a readable, wrong answer
        ("ment.rot", "FINAL ANSWER: mug, sofa, plant", "mug, sofa, plant"),  # the model's list as written
        ("ment.rot", "FINAL ANSWER: [lamp, Red_Door and mug]", "lamp, red door, mug"),
        ("ment.rot", "FINAL ANSWER: lamp, green chair, red door", "lamp, green chair, red door"),
        ("alloc.map", "FINAL ANSWER: (1, 2); (-3, 0.5)", "(1, 2); (-3, 0.5)"),
        ("alloc.map", "FINAL ANSWER: [[1, 2], [-3, 0]]", "(1, 2); (-3, 0)"),
        ("view2loc", "FINAL ANSWER: My coordinate is (2, -1).", "(2, -1)"),
        ("view2act", "FINAL ANSWER: JumpTo(lamp), Rotate(90)", "JumpTo(lamp), Rotate(90)"),
        ("view2act", "FINAL ANSWER: Actions: [Rotate(-90), JumpTo(red_door)]", "Rotate(-90), JumpTo(red_door)"),
        ("view2act", "FINAL ANSWER: JumpTo(lamp), Query(lamp), Term()", "JumpTo(lamp), Query(lamp), Term()"),
        ("persp.take", "FINAL ANSWER: RIGHT, near", "right, near"),  # outside the field of view, read as written
        ("loc2view", "FINAL ANSWER: behind me, far", "back, far"),
        # thought aloud with no FINAL ANSWER, one block of actions: the sequence the reasoning states
        (
            "view2act",
            "THINK: The sequence is:\n1. JumpTo(lamp)\n2. Rotate(90)\n\nThat gives the view.",
            "JumpTo(lamp), Rotate(90)",
        ),
    ],
)
def test_task_answers_are_read(task: str, reply: str, answer: str) -> None:
    assert read_answer(task, reply, names=NAMES) == answer


@pytest.mark.parametrize(
    "reply",
    [
        "FINAL ANSWER: I stand at the fire_extinguisher.",  # in a sentence, as the scene spells it
        "FINAL ANSWER: I stand at the Fire Extinguisher.",  # in a sentence, with a space
        "FINAL ANSWER: fire extinguisher",  # bare
    ],
)
def test_a_scene_name_with_an_underscore_is_read_in_the_scenes_spelling_and_scored(reply: str) -> None:
    # A hand-made scene may name an object fire_extinguisher (the released meta_data files are read with spaces).
    # Such a name in a sentence used to raise a KeyError past the agent's retries; a bare one was read as
    # "fire extinguisher", which the scorer's whole-name match did not find among the scene's objects: scored 0.
    names = ["lamp", "fire_extinguisher"]
    assert read_answer("perc.dec", reply, names=names) == "fire_extinguisher"
    gold = {"answer": "fire_extinguisher", "object_positions": {"lamp": [0, 0], "fire_extinguisher": [2, 1]}}
    assert score_answer("perc.dec", read_answer("perc.dec", reply, names=names), gold) == 1.0


def test_a_name_is_read_as_written_before_its_underscore_twin_and_an_underscore_name_matches_no_gap() -> None:
    # a scene may hold both "red door" and "red_door": the spelling a reply writes picks its own object, in a list
    # and in a sentence alike; a name of underscores only is no name a sentence can hold
    names = ["chair", "red door", "red_door", "_"]
    assert read_answer("ment.rot", "FINAL ANSWER: chair, red door", names=names) == "chair, red door"
    assert read_answer("ment.rot", "FINAL ANSWER: chair, red_door", names=names) == "chair, red_door"
    assert read_answer("perc.dec", "FINAL ANSWER: the red door is closest", names=names) == "red door"
    with pytest.raises(ParseError, match="no object name"):
        read_answer("perc.dec", "FINAL ANSWER: I am not sure at all!", names=names)


@pytest.mark.parametrize(
    ("task", "reply", "reason"),
    [
        ("direction", "FINAL ANSWER: north or south, near", "two different directions"),
        ("direction", "FINAL ANSWER: I cannot tell", "no direction or distance label"),
        ("direction", "FINAL ANSWER:\n[Your answer]", "placeholder"),
        ("direction", "THINK: Your thoughts\nFINAL ANSWER: Your final answer", "placeholder"),
        ("persp.take", "THINK: ok\nFINAL ANSWER: <ego direction>, <distance>", "copies the answer format's <ego"),
        ("view2loc", "FINAL ANSWER: (<x>, <y>)", "copies the answer format's <x>"),
        ("perc.dec", "FINAL ANSWER: lamp or chair", "two different objects"),
        ("perc.dec", "FINAL ANSWER: I think it is the sofa over there", "no object name"),
        ("view2loc", "FINAL ANSWER: (1, 2) or (2, 2)", "two different coordinates"),
        ("alloc.map", "FINAL ANSWER: I do not know", "no coordinates"),
        ("view2act", "FINAL ANSWER: turn right", "no move actions"),
        # actions in two places of an uncued reply: which is the answer would be a guess
        ("view2act", "THINK: first JumpTo(lamp)\nor maybe\nRotate(90)", "no FINAL ANSWER line after THINK"),
        ("persp.take", "THINK: it is RIGHT, near", "no FINAL ANSWER line after THINK"),  # only view2act reads one
    ],
)
def test_unreadable_or_ambiguous_answers_are_refused(task: str, reply: str, reason: str) -> None:
    with pytest.raises(ParseError, match=re.escape(reason)):
        read_answer(task, reply, names=NAMES)


# ---- prompts and echoes ---------------------------------------------------------------------------------------


def test_the_reference_style_keeps_the_releases_lines_and_the_explicit_one_has_no_placeholder() -> None:
    ref, explicit = prompt_set("reference"), prompt_set("explicit")
    assert ref.step_footer == STEP_FOOTER and "[Your thoughts on next step actions]" in STEP_FOOTER
    assert ref.answer_footer == ANSWER_FOOTER and ref.cogmap_global == COGMAP_GLOBAL_PROMPT
    for text in (explicit.system, explicit.step_footer, explicit.answer_footer, explicit.cogmap_global):
        assert "[Your" not in text and "Actions: [ ... ]" not in text
    assert "THINK:" in explicit.step_footer and "FINAL ANSWER:" in explicit.step_footer


def test_echoes_are_format_lines_copied_from_the_prompt() -> None:
    prompt = "Where?\nAnswer format: <ego direction>, <distance>\nExample: front-left, near\n" + ANSWER_FOOTER
    assert echoed_markers("THINK:\n[Your thoughts]\nFINAL ANSWER:\nfront, near", prompt) == ["[Your thoughts]"]
    assert echoed_markers("FINAL ANSWER: <ego direction>, <distance>", prompt) == [
        "<ego direction>",
        "<distance>",
    ]
    assert echoed_markers("FINAL ANSWER: front, near", prompt) == []
    # the question's example given as the answer is an echo too (the release's templates carry examples)
    assert echoed_markers("FINAL ANSWER: front-left, near", prompt) == ["Example: front-left, near"]
    # a marker counts only when the prompt had it
    assert echoed_markers("[Your thoughts]", "no format here") == []


# ---- history and context --------------------------------------------------------------------------------------


def _history(turns: int) -> list[Any]:
    h = [message("system", "sys"), message("user", "open")]
    for i in range(turns):
        h += [message("assistant", f"a{i}"), message("user", f"u{i}")]
    return h


def test_the_history_policy_keeps_the_last_turns_and_records_the_cut() -> None:
    policy = HistoryPolicy(turns=2)
    assert policy.cut(_history(2)) == _history(2) and policy.record.cut_calls == 0
    cut = policy.cut(_history(5))
    assert [message_text(m) for m in cut] == [
        "sys",
        "open\n\n[The first 3 exploration turns are not shown.]",
        "a3",
        "u3",
        "a4",
        "u4",
    ]
    assert policy.record.cut_calls == 1 and policy.record.most_dropped == 3
    assert HistoryPolicy().cut(_history(30)) == _history(30)  # default: everything, the paper's protocol
    log, omitted = HistoryPolicy(turns=1).cut_log(["x", "y", "z"])
    assert log == [(3, "z")] and omitted == 2


def test_a_prompt_longer_than_the_context_is_an_error_before_the_call() -> None:
    h = _history(3)
    n = estimate_tokens(h)
    assert n >= 4 * len(h)  # the chat template's markers at least
    fits = math.ceil(n * TOKENIZER_SLACK)  # the estimate, 5% more for the served model's tokenizer
    HistoryPolicy(context_tokens=fits).check(h, "step 4")  # exactly fits
    with pytest.raises(PromptTooLongError, match=rf"step 4 is about {n} tokens.*context_tokens={fits - 1}.*history"):
        HistoryPolicy(context_tokens=fits - 1).check(h, "step 4")
    HistoryPolicy(context_tokens=fits + 100).check(h, "step 4", completion_tokens=100)  # room left for the answer
    with pytest.raises(PromptTooLongError, match="the 101 completion tokens asked for"):
        HistoryPolicy(context_tokens=fits + 100).check(h, "step 4", completion_tokens=101)


# ---- end to end against a local OpenAI-compatible server ------------------------------------------------------


class Replies:
    """A server-side script: answers each kind of call the way small models do, with one refusal to retry."""

    def __init__(self, step_replies: list[str]) -> None:
        self.steps = list(step_replies)
        self.prompts: list[list[dict[str, Any]]] = []

    def __call__(self, messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        self.prompts.append(messages)
        last = message_text(messages[-1])
        opening = message_text(messages[1])
        names = re.search(r"Objects: (.*)", opening)
        first = names.group(1).split(",")[0].split(": ")[-1].strip() if names else "lamp"
        if last.startswith("Your reply could not be read"):
            return "THINK: sorry\n### FINAL ANSWER\n** Actions: [Rotate(90), Observe()]"
        if last.startswith("## Cognitive Map (JSON)"):
            return 'THINK: map\n**FINAL ANSWER:**\n```json\n{"agent": {"position": [0, 0], "facing": "north"}}\n```'
        if last.startswith("## Cognitive Map — Local"):
            return 'FINAL ANSWER: {"origin": "agent", "objects": {}}'
        if last.startswith("## Uncertainty probe"):
            return "FINAL ANSWER\nA"
        if "Answer format:" in last:
            if "From a Top-Down map" in last or "ego relation" in last or "egocentric relation" in last:
                return "THINK: hmm\nFINAL ANSWER\n** front, near"
            if "jump to" in last and "Describe where" in last:
                return "Final answer: front-left, mid distance."
            if "Which object are you standing at" in last:
                return f"FINAL ANSWER: I am at the {first}."
            if "Focus on this set of objects:" in last:
                pool = re.search(r"Focus on this set of objects: (.*)\.", last)
                return f"FINAL ANSWER: {pool.group(1) if pool else first}"
            if "What action sequence" in last:
                return "FINAL ANSWER: Rotate(90)"
            if "2D coordinate" in last:
                return "FINAL ANSWER: (0, 0)"
            return "FINAL ANSWER: (1, 1); (2, 2); (3, 3)"
        return self.steps.pop(0) if self.steps else "FINAL ANSWER: Actions: [Term()]"


def _run(tmp_path: Path, bench: str, replies: Replies, options: dict[str, str], retries: int = 1) -> RunSummary:
    with RunStore(tmp_path / f"{bench}.sqlite") as store, FakeChatServer(replies) as server:
        request = RunRequest(
            bench,
            agent="model",
            model="openai/fake",
            model_options=ModelOptions(base_url=server.base_url, cache="off", backoff_s=0.01),
            n=1,
            options={"per_task": "1", **options},
            concurrency=1,
            format_retries=retries,
        )
        return run_benchmark(request, store=store, progress=False)


def test_tos_active_reads_every_reply_through_ask(tmp_path: Path) -> None:
    replies = Replies(
        [
            "THINK:\nturn\n### FINAL ANSWER\n** Actions: [Rotate(90), Observe()]",
            "I am not sure what to do.",  # refused, sent back with the reason, then read
            "**Final Answer:** `Actions: [Term()]`",
        ]
    )
    options = {"max_steps": "5", "false_belief": "0", "probes": "global", "history_turns": "1"}
    summary = _run(tmp_path, "tos-active", replies, options)
    m = summary.metrics
    # 3 steps (one retried), a global probe after each, 9 questions: 15 readable, 1 refused then retried
    assert summary.replies == {"parsed": 15, "rejected": 1, "no_reply": 0, "unread": 0, "retries": 1}
    assert m["steps"] == 2.0 and m["unparsed_actions"] == 0.0  # the final Term() is no step (docs)
    assert m["refused_actions"] == 0.0 and m["invalid_actions"] == 0.0
    assert m["unparsed_answers"] == 0.0 and m["probe_failures"] == 0.0
    assert m["prompt"] == "explicit" and m["history_turns"] == 1 and "deviation from the paper" in m["history_note"]
    retry = next(p for p in replies.prompts if message_text(p[-1]).startswith("Your reply could not be read"))
    assert "no action list" in message_text(retry[-1])
    # with history_turns=1 the third step sees one earlier turn and is told how many are left out
    third = [p for p in replies.prompts if "[The first" in message_text(p[1])]
    assert third and "[The first 1 exploration turn" not in message_text(third[0][1])
    assert "[The first exploration turn is not shown.]" in message_text(third[0][1])


def test_unreadable_and_ungrammatical_steps_are_counted_apart(tmp_path: Path) -> None:
    replies = Replies(
        [
            "FINAL ANSWER: Actions: [Observe(), Term()]",  # readable, outside the grammar: an invalid step
            "THINK:\n[Your thoughts on next step actions]\nFINAL ANSWER:\nActions: [ ... ]",  # no actions at all
            "Actions: [Term()]",
        ]
    )
    summary = _run(tmp_path, "tos-active", replies, {"false_belief": "0", "probes": "global"}, retries=0)
    m = summary.metrics
    # 3 step replies (1 refused), 3 global probes, 9 questions; no format retry was allowed
    assert summary.replies == {"parsed": 14, "rejected": 1, "no_reply": 0, "unread": 0, "retries": 0}
    assert m["unparsed_actions"] == 2.0 and m["unreadable_actions"] == 1.0 and m["invalid_actions"] == 2.0
    # echoes: "front, near" is the act2view and loc2view templates' example; the placeholder reply copies no line
    # of the explicit prompt (it has none to copy)
    assert m["echo_rate"] == pytest.approx(2 / 15)


def test_tos_passive_reads_every_reply_through_ask(tmp_path: Path) -> None:
    summary = _run(tmp_path, "tos-passive", Replies([]), {})
    # one global map and nine questions, all read
    assert summary.replies == {"parsed": 10, "rejected": 0, "no_reply": 0, "unread": 0, "retries": 0}
    assert summary.metrics["unparsed_answers"] == 0.0 and summary.metrics["history_note"].startswith("all")


def test_a_too_long_prompt_fails_the_sample_before_the_call(tmp_path: Path) -> None:
    replies = Replies([])
    summary = _run(tmp_path, "tos-active", replies, {"false_belief": "0", "context_tokens": "500"})
    assert summary.n_failed == 1 and replies.prompts == []  # the opening prompt alone is over 500 tokens
    assert summary.replies == {}

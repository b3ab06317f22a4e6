"""The ``bigtom`` benchmark: BigToM (Gandhi et al., NeurIPS 2023 Datasets and Benchmarks) read from its release.

**The release.** ``data/bigtom/bigtom.csv`` of cicl-stanford/procedural-evals-tom (MIT): one story template per
line, twenty fields separated by ``;`` with no header — the eighteen the release's ``generate_conditions.py`` names
(story; aware / not aware of the event; action aware / not aware; belief, desire and action questions; their
answers when aware and when not; an alternate desire; a random event; aware / not aware of it) and two more
(how the row was made, ``auto`` or ``user``, and a flag) that no released code reads. Many lines have 19 fields:
the alternate desire is left out (the random event follows the action answers directly); the reader reads the
last five fields from the end, so those lines keep their random event, percepts and flags.

**Conditions.** Each row is expanded into test items exactly as ``generate_conditions.py`` does: the story is cut
at every ``.`` into its parts; sentences 1–3 (and 4, the stated initial belief, when it is *shown*) are kept, then
sentence 5 (the causal event) and the awareness sentence (*true belief*: aware, *false belief*: not aware), or
in the *control* conditions the random event and its awareness sentence instead of the causal event. Forward
belief and forward action ask the belief and action questions; backward belief ends the story with the action
(aware or not) and asks the belief question. Gold is the aware answer under true belief, the not-aware answer
otherwise (the world did not change in the controls). The builder's fourth variable, percept to belief, gives one
more item a row (initial belief shown, true belief only: sentences 1-3, the belief question, gold the *aware*
answer as the builder writes it, although those sentences tell only the initial state: the audit flags it): 25
items a row, 5,000 in all. Accuracy is reported per condition (``by_condition``) and per release file
(``by_release_file``, as its evaluator scores each file), each row beside chance, the best constant and the
"not aware" answer (gold in 3 of the 4 conditions: 0.75 pooled, the floor the pooled number must beat).

**Protocol** (``--agent model``): the release's chat prompt (``chat-0shot``): its instruction
(``prompt_instructions/evaluate.txt``) as the system message and ``Story: …\\nQuestion: …\\nChoose one of the
following:\\na)…\\nb)…`` as the user turn, the two answers in the release's own order (``random.seed(0)`` per
condition file, one shuffle a line). The release grades a reply by
whether the gold's key (``a)`` or ``b)``) occurs in it, then the other's (and asks a grader model otherwise), so a
reply naming both keys counts as right; that reading is kept as ``release_answer`` and scored beside, a deviation.
The headline is read by mindloop's choice reader (a key in any form, or the answer's text), for which a reply
naming both is ambiguous. The set is a data-driven declaration (:data:`BIGTOM`).

**Symbolic agent.** The story is read into events for the belief tracker from the row's own sentences: the
protagonist witnesses the initial state; the causal event changes it, witnessed only when the awareness sentence
that ends the story is the aware one; the random event changes nothing; a final action reveals the belief it
was taken on (the row's aware or not-aware action). The answer is the row's answer for the belief the tracker
holds, the action one for the action question. A story whose sentences are not found is not covered.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from mindloop.beliefs import Event, EventKind, Fact, Tracker
from mindloop.beliefs.facts import Source
from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample
from mindloop.bench.choice import (
    ChoiceBenchmark,
    ChoiceSet,
    Fields,
    Prompt,
    Release,
    covered,
    not_covered,
    occurring,
    release_text,
)
from mindloop.bench.declaration import Grouping, ReferencePolicy, SmallRun
from mindloop.datafiles import csv_fields_unlimited
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems.tom.data import RELEASES

BIGTOM_FIELDS = RELEASES.bigtom_fields
"""The twenty ``;``-separated fields of a ``bigtom.csv`` line (the first eighteen as ``generate_conditions.py``
names them; the last two are the release's unread ``auto``/``user`` and flag)."""

BIGTOM_VARIABLES = ("forward_belief", "forward_action", "backward_belief")
BIGTOM_CONDITIONS = ("true_belief", "false_belief", "true_control", "false_control")
PERCEPT = "percept_to_belief"
"""The release's fourth variable: built only with the initial belief shown and only in true belief
(``1_percept_to_belief_true_belief``), one item a row: sentences 1-3 and the belief question, gold the *aware*
answer as the builder writes it (``answers[0]``), although those sentences tell of the initial state only."""

BIGTOM_INSTRUCTION = RELEASES.bigtom_instruction
"""The release's evaluation instruction (``code/prompt_instructions/evaluate.txt``)."""

_InitialBelief = Literal["hidden", "shown", "both"]


@dataclass(frozen=True, slots=True)
class BigToMRow:
    """One line of ``bigtom.csv``: its 1-based line number and its fields by name."""

    line: int
    fields: dict[str, str]

    def __getitem__(self, key: str) -> str:
        return self.fields[key]


def read_bigtom(path: str | Path) -> list[BigToMRow]:
    """Every line of a ``bigtom.csv``; a line with another number of fields is a one-line error naming it."""
    p, text = release_text(path, ("bigtom.csv",), BIGTOM.data)
    rows = []
    with csv_fields_unlimited():  # a field of any size (csv's own limit is 128 KiB)
        lines = list(csv.reader(text.splitlines(), delimiter=";"))
    for i, fields in enumerate(lines, 1):
        if not fields:
            continue
        if len(fields) == len(BIGTOM_FIELDS) - 1:  # the release leaves the alternate desire out of many lines
            fields = [*fields[:14], "", *fields[14:]]
        if len(fields) != len(BIGTOM_FIELDS):
            raise ParseError(
                f"expected {len(BIGTOM_FIELDS)} ';'-separated fields (19 without the alternate desire; BigToM's "
                f"bigtom.csv), got {len(fields)}",
                source=str(p),
                line=i,
            )
        rows.append(BigToMRow(i, dict(zip(BIGTOM_FIELDS, fields, strict=True))))
    return rows


@dataclass(frozen=True, slots=True)
class BigToMItem:
    """One test item as the release's condition builder makes it."""

    row: BigToMRow
    variable: str
    condition: str
    initial_belief: str  # "hidden" or "shown"
    story: str
    question: str
    answer: str
    wrong: str
    options: tuple[str, str] = ("", "")

    @property
    def file(self) -> str:
        """The release's condition file this item is a line of (``0_forward_belief_false_belief``)."""
        return f"{int(self.initial_belief == 'shown')}_{self.variable}_{self.condition}"


def _parts(row: BigToMRow) -> list[str]:
    """The story cut at every '.', as the release does (quirks included: 'Dr.' or '3.5' cut a sentence)."""
    parts = row["story"].split(".")
    if len(parts) < 5:
        raise ParseError(
            f"the story has {len(parts) - 1} '.'-ended parts; BigToM's condition builder needs 5",
            source="bigtom.csv",
            line=row.line,
        )
    return parts


def _stories(row: BigToMRow, shown: bool) -> tuple[str, str]:
    """The condition story and the control story (before the awareness or action sentence)."""
    p = _parts(row)
    if shown:
        return f"{p[0]}.{p[1]}.{p[2]}.{p[3]}.{p[4]}.", ".".join([*p[:4], " " + row["random_event"]])
    return f"{p[0]}.{p[1]}.{p[2]}.{p[4]}.", ".".join([*p[:3], " " + row["random_event"]])


def bigtom_items(rows: Sequence[BigToMRow], initial_belief: _InitialBelief = "both") -> list[BigToMItem]:
    """Every (row, initial belief, variable, condition) item, in the release's order within a row, with the
    percept-to-belief item after the shown initial belief's three variables. Each item's two options are in the
    order the release's ``evaluate_conditions.py`` shows them: ``random.seed(0)`` per condition file, then one
    ``random.shuffle([gold, wrong])`` per line of that file, in file order (so the first ``n`` rows get the
    release's own order)."""
    shows = {"hidden": [False], "shown": [True], "both": [False, True]}[initial_belief]
    out = []
    for row in rows:
        for shown in shows:
            story, control = _stories(row, shown)
            for variable in BIGTOM_VARIABLES:
                asked = "action" if variable == "forward_action" else "belief"
                q, aware, unaware = (row[f"{asked}_{k}"] for k in ("question", "answer_aware", "answer_not_aware"))
                for condition in BIGTOM_CONDITIONS:
                    if variable == "backward_belief":
                        ending = {
                            "true_belief": (story, row["action_aware"]),
                            "false_belief": (story, row["action_not_aware"]),
                        }.get(condition, (control, row["action_not_aware"]))
                    else:
                        ending = {
                            "true_belief": (story, row["aware_of_event"]),
                            "false_belief": (story, row["not_aware_of_event"]),
                            "true_control": (control, row["aware_of_random_event"]),
                            "false_control": (control, row["not_aware_of_random_event"]),
                        }[condition]
                    gold, wrong = (aware, unaware) if condition == "true_belief" else (unaware, aware)
                    text = f"{ending[0]} {ending[1]}"
                    init = "shown" if shown else "hidden"
                    out.append(BigToMItem(row, variable, condition, init, text, q, gold, wrong))
            if shown:
                p = _parts(row)
                q, aware, unaware = (row[f"belief_{k}"] for k in ("question", "answer_aware", "answer_not_aware"))
                out.append(
                    BigToMItem(row, PERCEPT, "true_belief", "shown", f"{p[0]}.{p[1]}.{p[2]}.", q, aware, unaware)
                )
    draws: dict[str, random.Random] = {}
    ordered = []
    for item in out:
        options = [item.answer, item.wrong]
        draws.setdefault(item.file, random.Random(0)).shuffle(options)
        ordered.append(replace(item, options=(options[0], options[1])))
    return ordered


def track_item(fields: dict[str, str], story: str, variable: str) -> str | None:
    """The tracker's answer to one item, from the row's sentences found in ``story``; ``None`` when not read.

    >>> row = {"story": "A is here. A wants tea. A fills the cup. A thinks it is tea. B swaps it for coffee.",
    ...        "aware_of_event": "A sees the swap.", "not_aware_of_event": "A does not see the swap.",
    ...        "random_event": "A bird sings.", "action_aware": "A pours it out.", "action_not_aware": "A drinks.",
    ...        "belief_answer_aware": "coffee", "belief_answer_not_aware": "tea",
    ...        "action_answer_aware": "pour", "action_answer_not_aware": "drink"}
    >>> track_item(row, "A is here. A wants tea. A fills the cup. B swaps it for coffee. A does not see the swap.",
    ...            "forward_belief")
    'tea'
    """
    p = fields["story"].split(".")
    if len(p) < 5:
        return None
    cause, random_event = p[4].strip(), fields["random_event"].strip().rstrip(".")
    tracker = Tracker()
    agent = "protagonist"
    state = Fact("situation", "state", "initial")
    tracker.apply(Event(1, EventKind.OBSERVE, agent, (state,), frozenset({agent})))
    changed = cause and f"{cause}." in story
    control = random_event and random_event in story
    if variable == PERCEPT and not changed and not control:  # only the initial state, which the protagonist saw
        return fields["belief_answer_not_aware"] if tracker.value((agent,), "situation", "state") else None
    if changed == control:  # neither event, or both: not a story the builder makes
        return None
    ending = story.rstrip()
    if variable == "backward_belief":
        action = _which(ending, fields["action_aware"], fields["action_not_aware"])
        if action is None:
            return None
        witnesses: frozenset[str] = frozenset()  # the action, not a percept, tells the belief
        if changed:
            tracker.apply(Event(2, EventKind.OTHER, None, (Fact("situation", "state", "changed"),), witnesses))
        value = "changed" if action else "initial"
        tracker.apply(
            Event(
                3,
                EventKind.BELIEVE,
                agent,
                (Fact("situation", "state", value),),
                frozenset(),
                Source.INFERENCE,
                chains=frozenset({(agent,)}),
            )
        )
    else:
        sentences = (
            (fields["aware_of_event"], fields["not_aware_of_event"])
            if changed
            else (fields["aware_of_random_event"], fields["not_aware_of_random_event"])
        )
        aware = _which(ending, *sentences)
        if aware is None:
            return None
        fact = Fact("situation", "state", "changed") if changed else Fact("surroundings", "event", "happened")
        tracker.apply(Event(2, EventKind.OTHER, None, (fact,), frozenset({agent}) if aware else frozenset()))
    belief = tracker.value((agent,), "situation", "state")
    key = "action_answer" if variable == "forward_action" else "belief_answer"
    return fields[f"{key}_aware"] if belief == "changed" else fields[f"{key}_not_aware"]


def _which(ending: str, aware: str, unaware: str) -> bool | None:
    """Whether the story ends with the aware sentence (``True``), the unaware one (``False``), or neither."""
    hits = [ending.endswith(s.strip()) for s in (aware, unaware)]
    if hits[0] and hits[1]:  # one sentence ends the other ("… the swap." in "… does not see the swap.")
        return len(aware.strip()) > len(unaware.strip())
    return True if hits[0] else False if hits[1] else None


def release_reading(reply: str, sample: Sample) -> str | None:
    """The release's grading of a reply: right when the gold's key (``a)`` or ``b)``) occurs in it, checked first,
    else wrong when the other key does; a reply naming both keys is right.

    >>> s = Sample("x", {}, "", "Noor believes it is oat milk.", ("Noor believes it is almond milk.",
    ...            "Noor believes it is oat milk."))
    >>> release_reading("Answer:b)Noor believes it is oat milk.", s), release_reading("a) or b)", s) == s.target
    ('Noor believes it is oat milk.', True)
    """
    return occurring(reply, ("a)", "b)"), sample)


def _not_aware(samples: Sequence[Sample]) -> float | None:
    """The share of ``samples`` whose gold is the row's not-aware answer (belief, or action for forward action)."""
    scored = [s for s in samples if s.target is not None and isinstance(s.input.get("row"), dict)]
    if not scored:
        return None
    key = {True: "action_answer_not_aware", False: "belief_answer_not_aware"}
    hits = [s.target == s.input["row"][key[s.input["variable"] == "forward_action"]] for s in scored]
    return float(sum(hits)) / len(hits)


NOT_AWARE = ReferencePolicy(
    "not aware",
    "always the answer for a protagonist unaware of the event (the row's not-aware answer), whichever position it "
    "is shown in: gold in false belief and in both controls, so 0, 1, 1, 1 per condition and 0.75 pooled over "
    "them (the percept items' gold is the aware answer: 0)",
    _not_aware,
    kind="constant",
    summary_key="not_aware",
)
"""The floor the pooled number must beat: a reader of the question's roles, not of the story, gets 0.75."""

_P = f"{PERCEPT}/true_belief"
RELEASE_FILES = (
    *(f"{b}_{v}_{c}" for b in (0, 1) for v in BIGTOM_VARIABLES for c in BIGTOM_CONDITIONS),
    f"1_{PERCEPT}_true_belief",
)
"""The release's condition files (``data/conditions/<name>/stories.csv``), each scored apart by its evaluator."""


class BigToMOptions(Options):
    """Options of ``bigtom``."""

    data: str | None = Field(None, description="BigToM's bigtom.csv (or the folder holding it) (--data PATH)")
    initial_belief: _InitialBelief = Field(
        "both", description="items with the initial belief sentence hidden, shown, or both (the release makes both)"
    )
    lines: str | None = Field(
        None,
        description="only the items of these lines of bigtom.csv ('3', '3-4,10'), each keeping the option order the "
        "release gives it in the whole file",
    )


def _line_numbers(spec: str) -> set[int]:
    """``'3-4,10'`` as ``{3, 4, 10}``; anything else is a one-line error."""
    out: set[int] = set()
    for part in spec.split(","):
        lo, _, hi = part.strip().partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise InvalidArgumentError(f"--opt lines={spec!r}: expected line numbers and ranges such as '3-4,10'")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def _items(path: str, options: BigToMOptions) -> list[BigToMItem]:
    items = bigtom_items(read_bigtom(path), options.initial_belief)
    if options.lines is None:
        return items
    wanted = _line_numbers(options.lines)
    return [i for i in items if i.row.line in wanted]


def _input(item: BigToMItem, options: BigToMOptions) -> dict[str, Any]:
    return {
        "story": item.story,
        "question": item.question,
        "answer": item.answer,
        "choices": list(item.options),
        "file": item.file,
        "variable": item.variable,
        "condition": item.condition,
        "initial_belief": item.initial_belief,
        "line": item.row.line,
        "row": item.row.fields,
    }


async def _symbolic(sample: Sample, ctx: AgentContext) -> Outcome:
    inp = sample.input
    answer = track_item(inp["row"], inp["story"], inp["variable"])
    if answer is None:
        return not_covered("the row's event and awareness sentences are not found in the story")
    return covered(answer)


BIGTOM = ChoiceSet(
    name="bigtom",
    description="BigToM belief/action items per condition (--data bigtom.csv)",
    data="BigToM's data/bigtom/bigtom.csv",
    options=BigToMOptions,
    load=_items,
    prepare=_input,
    fields=Fields(id="r{line:03d}-{initial_belief}-{variable}-{condition}", group="{variable}/{condition}"),
    prompt=Prompt(
        system=BIGTOM_INSTRUCTION,
        user="Story: {story}\nQuestion: {question}\nChoose one of the following:\n{options}",
        option="{label}){text}",
        labels="ab",
    ),
    release=Release(
        "the option key (a) or b)) occurring in the reply, the gold's checked first",
        release_reading,
        "a reply that names both keys counts as right",
    ),
    groupings=(
        Grouping("by_condition", "group", (*(f"{v}/{c}" for v in BIGTOM_VARIABLES for c in BIGTOM_CONDITIONS), _P)),
        Grouping("by_initial_belief", "initial_belief", ("hidden", "shown")),
        Grouping("by_release_file", "file", RELEASE_FILES),
    ),
    references=(NOT_AWARE,),
    agents={"symbolic": AgentSpec("the belief tracker reads the row's sentences as events", _symbolic)},
    small=SmallRun(n=6, agent="symbolic", data="bigtom_excerpt.csv"),
    checked_against="released file",
)
"""BigToM as data: the paper's table (variable/condition), the initial belief and the release's files as groupings;
the two options in the release's order; the "not aware" answer as a floor beside chance and the best constant."""


class BigToMBenchmark(ChoiceBenchmark):
    """BigToM's forward belief, forward action and backward belief items in true/false belief and control."""

    choice_set = BIGTOM

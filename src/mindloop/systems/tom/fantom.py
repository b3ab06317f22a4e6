"""The ``fantom`` benchmark: FANToM (Kim et al., EMNLP 2023) read from its release file, and its label audit.

**The release.** ``fantom_v1.json`` inside ``fantom.tar.gz`` (downloaded by the release's ``task/dataset_loader.py``
from the address it names; not in the public repository, not shipped with mindloop). The loader reads it with
``pandas.read_json``: a list of question *sets*, each with ``set_id``, ``short_context`` and ``full_context`` (the
conversation), ``factQA`` (``question``, ``correct_answer``), ``beliefQAs`` (``question``, ``correct_answer``,
``wrong_answer``, ``question_type`` ``tom:belief:inaccessible`` or ``…:accessible``, ``tom_type``,
``missed_info_accessibility``), ``answerabilityQA_list`` and ``infoAccessibilityQA_list`` (``correct_answer`` and
``wrong_answer`` lists of names), and ``answerabilityQAs_binary`` and ``infoAccessibilityQAs_binary``
(``Does X know …?``, ``yes`` / ``no`` / ``no:long``).

**Protocol** (``eval_fantom.py``): the questions are flattened as the release does — for each set the fact
question, each belief question free-form and as a two-choice question (``(a)``/``(b)``, the order seeded), the
answerability list and binary questions (``Target: <fact question>``, binary ones ``Answer yes or no.``) and the
info-accessibility ones (``Information: <fact question> <fact answer>``) — with the short conversation (option
``context``: ``short`` or ``full``); on the short conversation the binary questions answered ``no:long`` are left
out, as the release does. Replies are read by the release's rules: a list answer is right when it names every
character of the gold list and none of the wrong one; a binary answer by its ``yes``/``no``/``knows``/``does not
know``; a multiple-choice one by its ``(a)``/``a)``; a free-form belief answer is right when it is closer to the
correct answer than to the wrong one — by word-overlap F1 here, where the release uses a RoBERTa-large
sentence embedding (not available offline).

**Metrics** (``score_and_analyze``), for the *inaccessible* questions (the test) and the *accessible* ones (the
control task) apart: ``ALL*`` (a set counts when every ToM question of it is right), ``ALL`` (the same over the
multiple-choice belief, list and binary questions), belief multiple-choice and free-form accuracy,
answerability and info-accessibility list accuracy and ``ALL``, binary weighted F1; and the fact questions'
word F1.

**Symbolic agent** (:mod:`mindloop.systems.tom.fantom_presence`): each set's conversation part and its joining
character (``joining_speaker``) are read into who-was-present events for the belief tracker; the information
(the fact question and its answer) is placed at the turn that shares it. The tracker answers the answerability
and info-accessibility lists and binaries (who knows = who was present when it was shared) and the two-choice
belief questions (the option saying its holder does not know, or the other), first and second order. The fact
and free-form belief questions, and any question whose answer turns on a joining character the reading cannot
place, are *not covered* (counted apart, never wrong).
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.bench.choice import COVERED_RESAMPLED, RELEASE_SUITE, counted, coverage, not_covered, release_text
from mindloop.bench.declaration import BenchmarkSpec, Headline, Metric, ReferencePolicy, SmallRun
from mindloop.bench.references import outcome_policy, policy_headline, policy_records
from mindloop.datafiles import read_json_file
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.metrics.stats import f1_score, mean
from mindloop.models.base import message
from mindloop.models.replies import ask
from mindloop.systems.tom.data import RELEASES
from mindloop.systems.tom.fantom_presence import Knowledge, knowledge, read_presence, unaware_option
from mindloop.systems.tom.opentom import label_f1

FANTOM_KINDS = RELEASES.fantom_kinds
"""mindloop's short names of the release's question types (``tom:`` dropped)."""

_Context = Literal["short", "full"]

_BINARY = {"yes": 1, "no": 0, "no:long": 0}
"""A binary gold as the release's number for it (an answer read as neither is -1, an unknown gold -2)."""


@dataclass(frozen=True, slots=True)
class FanToMQuestion:
    """One flattened question: its set, kind, prompt, gold (and wrong answer), accessibility and ToM type."""

    set_id: str
    kind: str
    prompt: str
    gold: Any
    wrong: Any
    scenario: str | None  # 'inaccessible' (the test) or 'accessible' (the control); None for fact questions
    tom_type: str | None
    question: str
    window: str = ""  # the set's short_context (the part the tracker reads)
    joining: str | None = None  # the set's joining_speaker
    information: str = ""  # the fact question and its answer
    conversation: str | None = None  # full_context when the questions are asked on it


def read_fantom(path: str | Path) -> list[dict[str, Any]]:
    """The question sets of ``fantom_v1.json`` (or of the folder holding it), checked for the fields used."""
    p, text = release_text(path, ("fantom_v1.json",), "FANToM's fantom_v1.json")
    data = read_json_file(p, text=text)
    if not isinstance(data, list):
        raise ParseError("expected a list of question sets (FANToM's fantom_v1.json)", source=str(p))
    for i, s in enumerate(data):
        if not isinstance(s, dict):
            raise ParseError(f"set {i}: expected an object", source=str(p))
        missing = [k for k in RELEASES.fantom_set_fields if k not in s]
        if missing:
            raise ParseError(f"set {i} ({s.get('set_id', '?')}): no {', '.join(missing)}", source=str(p))
    return data


def _choices(qa: dict[str, Any], rng: random.Random) -> tuple[list[str], int]:
    """The two options of a multiple-choice belief question and the gold's index (the release's seeded order)."""
    options = [qa["wrong_answer"], qa["correct_answer"]]
    if rng.choice([True, False]):
        return options, 1
    return options[::-1], 0


def fantom_questions(
    sets: Sequence[dict[str, Any]], context: _Context = "short", seed: int = 0
) -> list[FanToMQuestion]:
    """Every question of every set, flattened as ``eval_fantom.py`` does (``seed`` orders the two options)."""
    rng = random.Random(seed)
    out: list[FanToMQuestion] = []
    for s in sets:
        _set_questions(s, context, rng, out)
    return out


def _set_questions(s: dict[str, Any], context: _Context, rng: random.Random, out: list[FanToMQuestion]) -> None:
    """Append one set's questions to ``out``."""
    sid = str(s["set_id"])
    ctx = str(s[f"{context}_context"]).strip()
    fact_q, fact_a = s["factQA"]["question"], s["factQA"]["correct_answer"]
    joining = s.get("joining_speaker")
    question = partial(  # what the tracker reads, on every question of the set
        FanToMQuestion,
        window=str(s["short_context"]).strip(),
        joining=str(joining) if joining else None,
        information=f"{fact_q} {fact_a}",
        conversation=str(s["full_context"]).strip() if context == "full" else None,
    )
    out.append(question(sid, "fact", f"{ctx}\n\nQuestion: {fact_q}\nAnswer:", fact_a, None, None, None, fact_q))
    for qa in s["beliefQAs"]:
        scen, tom_type, q = str(qa["question_type"]).rsplit(":", 1)[-1], qa.get("tom_type"), qa["question"]
        prompt = f"{ctx}\n\nQuestion: {q}\nAnswer:"
        out.append(question(sid, "belief", prompt, qa["correct_answer"], qa["wrong_answer"], scen, tom_type, q))
        options, gold = _choices(qa, rng)
        text = "".join(f"({chr(97 + i)}) {o}\n" for i, o in enumerate(options)).strip()
        prompt = f"{ctx}\n\nQuestion: {q}\n{text}\n\nChoose an answer from above:"
        out.append(question(sid, "belief:multiple-choice", prompt, gold, options, scen, tom_type, q))
    for name, head, key in (
        ("answerability", f"Target: {fact_q}", "answerability"),
        ("info_accessibility", f"Information: {fact_q} {fact_a}", "infoAccessibility"),
    ):
        lst = s[f"{key}QA_list"]
        scen = lst.get("missed_info_accessibility")
        if context == "full" and lst.get("wrong_answer"):
            scen = "inaccessible"
        prompt = f"{ctx}\n\n{head}\nQuestion: {lst['question']}\nAnswer:"
        gold_list, wrong_list = list(lst["correct_answer"]), list(lst.get("wrong_answer", []))
        out.append(question(sid, f"{name}:list", prompt, gold_list, wrong_list, scen, None, lst["question"]))
        binaries = s[f"{key}QAs_binary"]
        full_scen = None
        if context == "full" and binaries:
            full_scen = binaries[0].get("missed_info_accessibility")
            if any(b["correct_answer"] != "yes" for b in binaries):
                full_scen = "inaccessible"
        for b in binaries:
            if context == "short" and b["correct_answer"] == "no:long":
                continue
            prompt = f"{ctx}\n\n{head}\nQuestion: {b['question']} Answer yes or no.\nAnswer:"
            scen = full_scen or b.get("missed_info_accessibility")
            out.append(question(sid, f"{name}:binary", prompt, b["correct_answer"], None, scen, None, b["question"]))


# -- the release's readings ---------------------------------------------------------------------------------------


def word_f1(gold: str, reply: str) -> float:
    """Word-overlap F1 of whitespace tokens (the release's ``compute_f1``).

    >>> round(word_f1("the cat sat", "a cat sat down"), 4)
    0.5714
    """
    g, r = gold.split(), reply.split()
    same = sum((Counter(g) & Counter(r)).values())
    return f1_score(same / len(r), same / len(g)) if same else 0.0


def binary_reading(reply: str) -> int:
    """1 for yes, 0 for no, -1 for neither, by the release's ``map_binary_answer_to_int`` rules."""
    a = reply.lower().strip("'").strip('"')
    if any(k in a for k in (" yes,", " yes ", " yes.", " knows ")) or a.startswith(("yes", "true")):
        return 1
    if any(k in a for k in (" no,", " no ", " no.", " does not know ", " doesn't know ")) or a.startswith(
        ("no", "false")
    ):
        return 0
    return -1


def list_correct(reply: str, gold: Sequence[str], wrong: Sequence[str]) -> bool:
    """The release's list reading: every aware character named, no unaware one."""
    low = reply.lower()
    return all(c.lower() in low for c in gold) and not any(c.lower() in low for c in wrong)


def _mc_reading(reply: str) -> int | None:
    """The option a reply picks by the release's rules (``(a)``, ``a)``, ``a.``, ``a:``, ``a,`` or ``a``)."""
    r = reply.strip().lower()
    found = [
        i
        for i, x in enumerate("ab")
        if r.startswith((f"({x})", f"{x})", f"{x}.", f"{x}:", f"{x},")) or f"({x})" in r or r == x
    ]
    return found[0] if len(found) == 1 else None


def _after_answer(reply: str) -> str:
    """The release's ``parse_response``: the text after the last ``Answer:``."""
    for mark in ("Answer:", "Choose an answer from above:"):
        if mark in reply:
            return reply.split(mark)[-1].strip()
    return reply.strip()


def _score(kind: str, gold: Any, wrong: Any, reply: str) -> tuple[float, dict[str, Any]]:
    """(correct, extra output) for one reply by the release's reading of its kind."""
    text = _after_answer(reply)
    if kind == "fact":
        f1 = word_f1(str(gold).lower(), text.lower())
        return f1, {"word_f1": f1}
    if kind == "belief":
        to_gold, to_wrong = word_f1(str(gold), text), word_f1(str(wrong), text)
        return float(to_gold > to_wrong), {"word_f1_correct": to_gold, "word_f1_wrong": to_wrong}
    if kind == "belief:multiple-choice":
        pick = _mc_reading(text)
        return float(pick == gold), {"choice": pick}
    if kind.endswith(":list"):
        return float(list_correct(text, gold, wrong)), {}
    answer = binary_reading(text)
    expected = _BINARY.get(str(gold), -2)
    return float(answer == expected), {"binary": answer}


# -- the tracker ----------------------------------------------------------------------------------------------------


def _knowledge(window: str, joining: Any, information: str, conversation: str | None = None) -> Knowledge | str:
    """Who knows ``information`` by the presence record of the conversation part ``window`` whose joining
    character is ``joining`` (``conversation``: the whole one, for the characters outside the part); a string
    saying why when the part cannot be read. The tracker and the audit read a set through it alike."""
    if not joining:
        return "the set names no joining_speaker"
    presence = read_presence(window, str(joining), conversation)
    return presence if isinstance(presence, str) else knowledge(presence, information)


def _belief_holders(question: str, tom_type: str | None, roster: Sequence[str]) -> list[str] | str:
    """The chain a belief question asks about: ``[P]`` for "What does P believe …", ``[P, Q]`` for "… about Q's
    belief …" (second order); a string saying why when the question does not name them."""
    who = next((c for c in roster if question.startswith(f"What does {c} ")), None)
    if who is None:
        return "the question names no character of the conversation as the believer"
    if not str(tom_type or "").startswith("second-order"):
        return [who]
    rest = question.removeprefix(f"What does {who} ")
    other = [c for c in roster if c != who and re.search(rf"\b{re.escape(c)}(?:'s|’s| believes?| thinks?)\b", rest)]
    if len(other) != 1:
        return "the second-order question names no single other character"
    return [who, other[0]]


def track_question(inp: dict[str, Any]) -> tuple[Any, float, dict[str, Any]] | str:
    """The tracker's answer to one flattened question, whether it is right and what it read; a string saying why
    when the question is not covered."""
    kind = inp["kind"]
    if kind in ("fact", "belief"):
        return "a free-text answer: the tracker answers lists, yes/no and two-choice questions"
    know = _knowledge(inp["window"], inp.get("joining"), inp["information"], inp.get("conversation"))
    if isinstance(know, str):
        return know
    read = {"presence": know.record, "shared": know.reason}
    if kind.endswith(":list"):
        aware = know.aware()
        if aware is None:
            return know.reason
        text = ", ".join(aware)
        return text, float(list_correct(text, inp["gold"], inp["wrong"])), read
    if kind.endswith(":binary"):
        return _track_binary(inp, know, read)
    return _track_choice(inp, know, read)


def _track_binary(
    inp: dict[str, Any], know: Knowledge, read: dict[str, Any]
) -> tuple[Any, float, dict[str, Any]] | str:
    who = _binary_character(inp["question"])
    if who not in know.roster:
        return f"{who!r} does not speak in the conversation given"
    knows = know.knows(who)
    if knows is None:
        return know.reason
    expected = _BINARY.get(str(inp["gold"]), -2)
    return ("yes" if knows else "no"), float(int(knows) == expected), {**read, "binary": int(knows)}


def _track_choice(
    inp: dict[str, Any], know: Knowledge, read: dict[str, Any]
) -> tuple[Any, float, dict[str, Any]] | str:
    options = list(inp["wrong"])
    unaware = unaware_option(options)
    if unaware is None:
        return "not exactly one of the two options says its holder does not know"
    chain = _belief_holders(inp["question"], inp.get("tom_type"), know.roster)
    if isinstance(chain, str):
        return chain
    knows = know.knows(*chain)
    if knows is None:
        return know.reason
    pick = 1 - unaware if knows else unaware
    return pick, float(pick == inp["gold"]), {**read, "choice": pick, "holders": chain}


# -- the audit ------------------------------------------------------------------------------------------------------


def _binary_character(question: str) -> str:
    """The character a binary question asks about, as the release extracts it."""
    return question.removeprefix("Does ").split(" know")[0].strip()


_Finding = tuple[str, str, str, str, str]
"""``(set_id, question, gold, reason, rule)``."""


def audit_fantom(sets: Sequence[dict[str, Any]]) -> tuple[int, list[_Finding]]:
    """Golds that contradict the presence record of their conversation part (who was there when the information
    was shared: a character present must be answered aware, one away unaware), binary golds that contradict the
    list gold of the same set (a character in the aware list must be answered ``yes``, one in the unaware list
    ``no``), and belief questions whose correct and wrong answers are the same. One finding per question, the
    presence record's first. Returns how many questions were judged and the findings."""
    checked = 0
    found: list[_Finding] = []
    for s in sets:
        sid = str(s["set_id"])
        fact = s["factQA"]
        read = _knowledge(
            str(s["short_context"]), s.get("joining_speaker"), f"{fact['question']} {fact['correct_answer']}"
        )
        know = None if isinstance(read, str) else read  # the part alone: its outsiders are not judged
        for key, what in (("answerability", "answerability"), ("infoAccessibility", "info-accessibility")):
            lst = s[f"{key}QA_list"]
            if know is not None and (why := _list_against_presence(lst, know)) is not None:
                checked += 1
                found.append((sid, lst["question"], ", ".join(lst["correct_answer"]), why, "presence record"))
            elif know is not None and not know.undetermined:
                checked += 1
            for b in s[f"{key}QAs_binary"]:
                judged, finding = _audit_binary(sid, b, lst, what, know)
                checked += judged
                found.extend(finding)
        for qa in s["beliefQAs"]:
            checked += 1
            if str(qa["correct_answer"]).strip().lower() == str(qa["wrong_answer"]).strip().lower():
                why, rule = "the correct and the wrong answer are the same text", "belief answers the same"
                found.append((sid, qa["question"], str(qa["correct_answer"]), why, rule))
            elif know is not None and (why := _belief_against_presence(qa, know)) is not None:
                found.append((sid, qa["question"], str(qa["correct_answer"]), why, "presence record"))
    return checked, found


def _list_against_presence(lst: dict[str, Any], know: Knowledge) -> str | None:
    missing = [c for c in lst.get("correct_answer", []) if know.knows(c) is False]
    extra = [c for c in lst.get("wrong_answer", []) if know.knows(c) is True]
    if not missing and not extra:
        return None
    parts = []
    if missing:
        parts.append(f"{', '.join(missing)} listed as knowing but away")
    if extra:
        parts.append(f"{', '.join(extra)} listed as not knowing but present")
    return f"{know.record}; {know.reason}: {'; '.join(parts)}"


def _audit_binary(
    sid: str, b: dict[str, Any], lst: dict[str, Any], what: str, know: Knowledge | None
) -> tuple[int, list[_Finding]]:
    """(1 when judged, the finding if any) for one binary question: against the presence record first, else
    against the list question of the same set."""
    who = _binary_character(b["question"])
    gold = str(b["correct_answer"])
    if know is not None and (knows := know.knows(who)) is not None:
        if (gold == "yes") == knows:
            return 1, []
        state = "knows" if knows else "does not know"
        return 1, [(sid, b["question"], gold, f"{know.record}; {know.reason}: {who} {state}", "presence record")]
    aware = {c.lower() for c in lst.get("correct_answer", [])}
    unaware = {c.lower() for c in lst.get("wrong_answer", [])}
    low = who.lower()
    if low not in aware | unaware:
        return 0, []
    if (gold == "yes") == (low in aware):
        return 1, []
    listed = "aware" if low in aware else "unaware"
    why = f"the {what} list question of the same set lists {low!r} as {listed}"
    return 1, [(sid, b["question"], gold, why, f"{what} list vs binary")]


def _belief_against_presence(qa: dict[str, Any], know: Knowledge) -> str | None:
    """Why a belief question's gold contradicts the presence record, by the tracker's own reading of it
    (:func:`_track_choice`, the gold as the first option); ``None`` when it does not, or the record cannot say."""
    options = [str(qa["correct_answer"]), str(qa["wrong_answer"])]
    inp = {"wrong": options, "question": str(qa["question"]), "tom_type": qa.get("tom_type"), "gold": 0}
    tracked = _track_choice(inp, know, {})
    if isinstance(tracked, str) or tracked[0] == 0:
        return None
    says = "knows" if unaware_option(options) else "does not know"
    return f"{know.record}; {know.reason}; the gold says {' believes '.join(tracked[2]['holders'])} {says}"


# -- the benchmark --------------------------------------------------------------------------------------------------


class FanToMOptions(Options):
    """Options of ``fantom``."""

    data: str | None = Field(None, description="FANToM's fantom_v1.json (or the folder holding it) (--data PATH)")
    context: _Context = Field(
        "short", description="the short conversation part (the release's default) or the full one"
    )


_SCENARIOS = (("inaccessible", "inaccessible"), ("accessible", "control"))
"""The release's report for the inaccessible questions, and the same for the control (accessible) ones."""
_PREFIXES = tuple(prefix for _, prefix in _SCENARIOS)
_ACCURACIES = (
    ("belief_multiple_choice", "belief:multiple-choice"),
    ("belief_free_form", "belief"),
    ("answerability_list", "answerability:list"),
    ("info_accessibility_list", "info_accessibility:list"),
)
"""The summary keys that are a question kind's accuracy (the free-form belief score is the release's judgement of
the answer, 0 or 1)."""
_ALL_KEYS = ("all_star", "all", "answerability_all", "info_accessibility_all")
_RESAMPLED = ("answerability_binary_f1", "info_accessibility_binary_f1", "belief_by_order")
_METRICS = (
    *(
        Metric(
            f"{prefix}_{key}",
            "correct",
            within=("covered", f"scenario={scenario}", f"kind={kind}"),
            description=f"accuracy on the {scenario} scenario's {kind} questions",
        )
        for scenario, prefix in _SCENARIOS
        for key, kind in _ACCURACIES
    ),
    Metric(
        "fact_word_f1",
        "correct",
        "mean",
        within=("covered", "kind=fact"),
        description="word F1 of the fact answers (0-1)",
    ),
    Metric("coverage", "covered", optional=True, description="share of questions the tracker answered"),
)


class FanToMBenchmark:
    """FANToM's belief, answerability and info-accessibility questions on multi-party conversations."""

    name = "fantom"
    description = "FANToM conversation ToM questions, ALL* and per-type scores (--data fantom_v1.json)"
    options_model = FanToMOptions
    spec = BenchmarkSpec(
        headline=Headline("inaccessible_all_star"),
        checked_against="authors' code",
        references=(
            ReferencePolicy(
                "chance",
                "a uniform guess: not declared, since the headline needs every question of a set right, free-form "
                "and list answers included, which no guess among choices gives",
                lambda samples: None,
                kind="chance",
                none_reason="the headline counts free-form and list answers, which have no choices to guess among",
            ),
            ReferencePolicy(
                "best constant",
                "replies to every question of a kind with that kind's most frequent gold answer, read by the "
                "release's rules; fitted on the evaluated items (FanToM ships no train split: optimistic)",
                lambda samples: _constant_value(samples),
                kind="constant",
                optimistic=True,
                none_reason="no inaccessible-scenario questions among the samples",
            ),
            outcome_policy(
                "oracle",
                "answers every question right",
                lambda: FanToMBenchmark(),
                lambda b, s: Outcome({"binary": _BINARY.get(str(s.input["gold"]), -2)}, {"correct": 1.0}),
                kind="oracle",
                none_reason="no inaccessible-scenario questions among the samples",
            ),
        ),
        metrics=_METRICS,
        # F1 over pooled counts and the free-form belief accuracy per order: the bootstrap of the summary
        resampled=(
            *(f"{p}_{k}" for p in _PREFIXES for k in _RESAMPLED),
            *COVERED_RESAMPLED,  # the tracker's accuracy on what it covered, overall and per kind
            "coverage_by_kind",
        ),
        # ALL*: a set counts when every one of its questions is right; resampling questions drops some of a
        # set's questions (which can only help it) and repeats others, so it gets no interval (a set-level
        # bootstrap would be the honest one)
        no_intervals=tuple(f"{p}_{k}" for p in _PREFIXES for k in _ALL_KEYS),
        suite=RELEASE_SUITE,
        small=SmallRun(n=None, reply="Answer: yes", data="fantom_excerpt.json"),
    )

    def __init__(self) -> None:
        self.agents = {
            "symbolic": AgentSpec(
                "the belief tracker reads who was present when the information was shared", self._symbolic
            ),
            "model": AgentSpec("a chat model answers the release's prompts", self._model, needs_model=True),
        }

    def samples(self, n: int | None, seed: int, options: FanToMOptions) -> list[Sample]:
        """The first ``n`` flattened questions, in the release's order."""
        if options.data is None:
            raise InvalidArgumentError("fantom needs --data PATH: FANToM's fantom_v1.json (see docs/datasets.md)")
        qs = fantom_questions(read_fantom(options.data), options.context, seed)
        # a sample's input: every field of its question, in order
        return [Sample(f"{q.set_id}:{i:06d}", asdict(q), group=q.kind, target=q.gold) for i, q in enumerate(qs[:n])]

    async def _symbolic(self, sample: Sample, ctx: AgentContext) -> Outcome:
        tracked = track_question(sample.input)
        if isinstance(tracked, str):
            return not_covered(tracked)
        answer, correct, read = tracked
        return Outcome({"answer": answer, **read}, {"covered": 1.0, "correct": correct, "parsed": 1.0})

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        assert ctx.model is not None
        inp = sample.input
        reply = (await ask(ctx.model, [message("user", inp["prompt"])], lambda t: t, ctx.config, retries=0)).value
        correct, extra = _score(inp["kind"], inp["gold"], inp["wrong"], reply)
        return Outcome({"reply": reply, **extra}, {"correct": correct})

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """What the declared accuracies and fact word F1 cannot say: the release's ALL* scores (a set's questions
        all right), its weighted binary F1s and the free-form belief accuracy per order, for the inaccessible
        questions and the control task's."""
        out: dict[str, Any] = {}
        for scenario, prefix in _SCENARIOS:
            out.update(_scenario(records, scenario, prefix))
        if (cov := coverage(records)) is not None:  # the tracker's: its share answered is declared
            out.update({k: v for k, v in cov.items() if k != "coverage"})
            out["coverage_by_kind"] = _coverage_by_kind(records)
        return out


def _coverage_by_kind(records: Sequence[SampleRecord]) -> dict[str, dict[str, Any]]:
    """Per question kind: how many the tracker was asked, how many it answered, its accuracy on those."""
    out: dict[str, dict[str, Any]] = {}
    for kind in FANTOM_KINDS:
        mine = [r for r in records if r.sample.input["kind"] == kind]
        if mine:
            answered = [r.scores.get("correct", 0.0) for r in counted(mine)]
            out[kind] = {"n": len(mine), "covered": len(answered), "accuracy": mean(answered) if answered else None}
    return out


def _reply_text(gold: Any) -> str:
    """A gold answer as a reply would say it (a list as its names joined)."""
    return ", ".join(str(g) for g in gold) if isinstance(gold, list) else str(gold)


def _constant_value(samples: Sequence[Sample]) -> float | None:
    """The headline of replying to each kind with its most frequent gold answer among ``samples``."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for s in samples:
        counts[s.input["kind"]][_reply_text(s.input["gold"])] += 1
    best = {kind: c.most_common(1)[0][0] for kind, c in counts.items()}

    def answer(sample: Sample) -> Outcome:
        inp = sample.input
        correct, extra = _score(inp["kind"], inp["gold"], inp["wrong"], best[inp["kind"]])
        return Outcome(extra, {"correct": correct})

    return policy_headline(FanToMBenchmark(), policy_records(samples, answer))


def _all(records: Sequence[SampleRecord]) -> float | None:
    """The share of sets whose questions are all right; a set with a question the tracker did not answer is left
    out (it is neither all right nor not)."""
    by_set: dict[str, list[bool]] = defaultdict(list)
    skip: set[str] = set()
    for r in records:
        if r.scores.get("covered", 1.0) != 1.0:
            skip.add(r.sample.input["set_id"])
        by_set[r.sample.input["set_id"]].append(r.scores.get("correct", 0.0) == 1.0)
    kept = [v for k, v in by_set.items() if k not in skip]
    return mean(float(all(v)) for v in kept) if kept else None


def _weighted_f1(records: Sequence[SampleRecord]) -> float | None:
    """F1 of the binary answers weighted by the golds' support (the release's ``average="weighted"``)."""
    pairs = [
        ({"yes": 1}.get(str(r.sample.input["gold"]), 0), (r.output or {}).get("binary", -1), 1.0)
        for r in counted(records)
    ]
    f1s = label_f1(pairs)
    return sum(support / len(pairs) * f1 for f1, support in f1s.values() if support) if pairs else None


def _scenario(records: Sequence[SampleRecord], scenario: str, prefix: str) -> dict[str, Any]:
    tom = [r for r in records if r.sample.input["kind"] != "fact" and r.sample.input["scenario"] == scenario]
    if not tom:
        return {}
    kinds: dict[str, list[SampleRecord]] = defaultdict(list)
    for r in tom:
        kinds[r.sample.input["kind"]].append(r)
    all_kinds = set(FANTOM_KINDS) - {"fact", "belief"}  # ALL: the multiple-choice belief, list and binary ones
    out: dict[str, Any] = {
        f"{prefix}_all_star": _all(tom),
        f"{prefix}_all": _all([r for r in tom if r.sample.input["kind"] in all_kinds]),
        f"{prefix}_answerability_all": _all(kinds["answerability:list"] + kinds["answerability:binary"]),
        f"{prefix}_answerability_binary_f1": _weighted_f1(kinds["answerability:binary"]),
        f"{prefix}_info_accessibility_all": _all(kinds["info_accessibility:list"] + kinds["info_accessibility:binary"]),
        f"{prefix}_info_accessibility_binary_f1": _weighted_f1(kinds["info_accessibility:binary"]),
    }
    by_order: dict[str, list[float]] = defaultdict(list)
    for r in counted(kinds["belief"]):
        if (t := r.sample.input.get("tom_type")) is not None:
            by_order[str(t).split(":")[0]].append(r.scores.get("correct", 0.0))
    if by_order:
        out[f"{prefix}_belief_by_order"] = {k: {"accuracy": sum(v) / len(v), "n": len(v)} for k, v in by_order.items()}
    return out

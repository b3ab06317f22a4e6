"""Skill collection (MindClaw §IV-G, Fig. 4): from paired correct and incorrect rollouts to a validated skill set.

1. **Rollouts.** :func:`collect_decisions` replays scenarios teacher-forced and records, at every decision, the
   context's features, the gold operation, and what a base policy predicted there — its correct predictions and
   its mistakes are the paired rollouts. The default base policy is the surface-cue
   :class:`~mindloop.systems.mindclaw.trigger.NaivePolicy` (it reasons on any oddity and acts whenever it reasoned).
2. **Candidate skills.** The deterministic rule miner (:func:`mine_skills`, the default) enumerates conjunctions of
   up to three field conditions; the model summariser (:func:`summarise_skills`) instead shows a model paired
   correct/incorrect cases per operation and asks for decision patterns.
3. **Validation and grouping.** Every candidate is measured over all decisions (support, precision) and sorted
   into strong (precision >= 0.999), preferred (>= 0.6) and negative sets per operation (eq. (9)). The miner
   keeps a small covering set: greedily, the condition that covers the most not-yet-covered decisions (fewest
   terms first on ties); negatives are chosen to cover the base policy's mistakes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from mindloop.datafiles import DataModel, load_data_file
from mindloop.errors import MindloopError, ParseError
from mindloop.models.base import ChatModel, GenerationConfig
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES
from mindloop.systems.mindclaw.context import FEATURE_BY_NAME, FEATURES, Feature
from mindloop.systems.mindclaw.engine import run_without_io
from mindloop.systems.mindclaw.evaluation import DecisionRecord, teacher_forced
from mindloop.systems.mindclaw.metrics import gold_episode
from mindloop.systems.mindclaw.operations import OPERATION_VERBS
from mindloop.systems.mindclaw.replies import PROMPTS, ModelPart, chat, clean
from mindloop.systems.mindclaw.skills import Condition, Skill, SkillSet, Thresholds, validate_skills
from mindloop.systems.mindclaw.trigger import NaivePolicy, Policy
from mindloop.worlds.household.scenarios.model import Scenario

_Pred = tuple[str, str, Any]  # (feature, op, value)


class NoSkillsError(MindloopError):
    """Mining produced no skill at all (e.g. every model reply was unusable): an error, never an empty file."""


def require_skills(skills: SkillSet, failures: Sequence[str], source: str) -> SkillSet:
    """``skills`` when it holds at least one skill; otherwise :class:`NoSkillsError` naming ``source`` (the
    miner or the model), how many reply lines could not be used and the first of them, on one line."""
    if len(skills) > 0:
        return skills
    first = " ".join(failures[0].split())[:160] if failures else ""
    detail = f"; {len(failures)} unusable reply lines, first: {first}" if failures else ""
    raise NoSkillsError(f"{source} gave no usable skill{detail}; no skills file written")


def collect_decisions(
    scenarios: Iterable[Scenario],
    *,
    base: Policy | None = None,
    belief_table: bool = True,
    quiet: int = 2,
) -> list[DecisionRecord]:
    """Teacher-forced decisions with features and the base policy's prediction (synchronous policies only)."""
    policy = base if base is not None else NaivePolicy()
    out: list[DecisionRecord] = []
    for s in scenarios:
        gold = gold_episode(s, quiet=quiet)

        async def decide(ctx: Any, policy: Policy = policy) -> Any:
            return await policy.decide(ctx, None)

        out += run_without_io(
            teacher_forced(s, gold, decide=decide, belief_table=belief_table, quiet=quiet, features=True)
        )
    return out


def _predicates(features: Sequence[Feature]) -> list[_Pred]:
    preds: list[_Pred] = []
    for f in features:
        if f.kind == "bool":
            preds += [(f.name, "eq", True), (f.name, "eq", False)]
        elif f.kind == "int":
            preds += [(f.name, "eq", 0), (f.name, ">", 0)]
        else:
            preds += [(f.name, "eq", v) for v in f.values]
            if "none" in f.values:
                preds.append((f.name, "not", "none"))
    return preds


class _Phrases(DataModel):
    """``skill_phrases.yaml``: how a mined skill's text words its conditions."""

    categorical: dict[str, dict[str, str]]
    flags: dict[str, tuple[str, str]]


_PHRASES = load_data_file(_Phrases, Path(__file__).with_name("skill_phrases.yaml"))


def _phrase(pred: _Pred) -> str:
    name, op, v = pred
    doc = FEATURE_BY_NAME[name].doc
    if name in _PHRASES.flags and op == "eq" and isinstance(v, bool):
        return _PHRASES.flags[name][0 if v else 1]
    table = _PHRASES.categorical.get(name)
    if table is not None:
        key = f"!{v}" if op == "not" else str(v)
        return table.get(key, table["*"]).format(v=str(v).replace("_", " "))
    if op == "eq" and v is True:
        return doc
    if op == "eq" and v is False:
        return f"not ({doc})"
    if op == "eq" and v == 0:
        return f"no {doc}" if name in ("pending_writes", "n_events", "n_moves") else f"{name} is 0"
    if op == ">":
        return f"some {doc}" if name in ("pending_writes", "n_events", "n_moves") else f"{name} > {v}"
    return f"{doc}: {v}"


def _describe(op: str, kind: str, preds: Sequence[_Pred]) -> str:
    body = "; ".join(_phrase(p) for p in preds)
    if kind == "negative":
        return f"Never {op} when {body}."
    return f"{'Choose' if kind == 'strong' else 'Prefer'} {op} when {body}."


_Candidate = tuple[tuple[int, ...], int]  # (predicate indices of a conjunction, mask of the decisions it holds for)
_Scored = tuple[tuple[int, ...], int, int, float]  # (terms, mask, support, precision)


def mine_skills(
    decisions: Sequence[DecisionRecord],
    *,
    thresholds: Thresholds | None = None,
    max_terms: int = 3,
    max_preferred: int = 3,
    meta: dict[str, Any] | None = None,
) -> SkillSet:
    """The deterministic rule miner (module docstring): the same decisions always give the same skills."""
    th = thresholds or Thresholds()
    preds = _predicates(FEATURES)
    masks = _predicate_masks(preds, decisions)
    pos, wrong = _operation_masks(decisions)
    conds = _conjunctions(preds, masks, pos, everyone=(1 << len(decisions)) - 1, max_terms=max_terms)
    counts = [(terms, mask, mask.bit_count()) for terms, mask in conds]
    skills: list[Skill] = []
    for op in OPERATION_VERBS:
        if pos[op]:
            skills += _mine_operation(op, preds, counts, pos[op], wrong[op], th, max_preferred)
    about = (
        "Trigger skills mined from paired correct and incorrect teacher-forced rollouts; strong skills are "
        "matched deterministically, preferred and negative ones guide the trigger policy (MindClaw eq. (9)-(10))."
    )
    return SkillSet(skills, about=about, meta=meta, thresholds=th)


def _predicate_masks(preds: Sequence[_Pred], decisions: Sequence[DecisionRecord]) -> list[int]:
    """For each predicate, the decisions it holds for as a bit mask (bit ``i`` for decision ``i``)."""
    masks: list[int] = []
    for name, op, v in preds:
        holds = Condition(name, op, v).compile()  # eq, not or >, as a skill's condition tests it
        masks.append(sum(1 << i for i, d in enumerate(decisions) if holds(d.features.get(name))))
    return masks


def _operation_masks(decisions: Sequence[DecisionRecord]) -> tuple[dict[str, int], dict[str, int]]:
    """Per operation, the decisions where it is gold and those where the base policy wrongly predicted it."""
    pos = {v: 0 for v in OPERATION_VERBS}
    wrong = {v: 0 for v in OPERATION_VERBS}
    for i, d in enumerate(decisions):
        pos[d.gold] |= 1 << i
        if d.predicted_verb and d.predicted_verb != d.gold:
            wrong[d.predicted_verb] |= 1 << i
    return pos, wrong


def _conjunctions(
    preds: Sequence[_Pred], masks: Sequence[int], pos: dict[str, int], *, everyone: int, max_terms: int
) -> list[_Candidate]:
    """Candidate conjunctions of up to ``max_terms`` predicates: never two terms on one feature, never an empty or
    universal mask; only conditions not yet pure for some operation are refined further."""
    conds: list[_Candidate] = []
    frontier: list[_Candidate] = [((), everyone)]
    for _ in range(max_terms):
        nxt: list[_Candidate] = []
        for terms, mask in frontier:
            used = {preds[t][0] for t in terms}
            start = terms[-1] + 1 if terms else 0
            for j in range(start, len(preds)):
                if preds[j][0] in used:
                    continue
                m = mask & masks[j]
                if m == 0 or m == mask:
                    continue
                nxt.append(((*terms, j), m))
        conds += nxt
        frontier = [(t, m) for t, m in nxt if not any((m & pos[v]) in (0, m) for v in OPERATION_VERBS if m & pos[v])]
    return conds


def _greedy(target: int, ok: Sequence[_Scored], limit: int, min_support: int) -> list[_Scored]:
    """A small covering set: repeatedly the candidate covering the most not-yet-covered decisions of ``target``
    (fewest terms, then highest precision, then earliest predicates on ties)."""
    chosen: list[_Scored] = []
    left = target

    def rank(c: _Scored) -> tuple[Any, ...]:
        terms, mask, _support, prec = c
        return ((mask & left).bit_count(), -len(terms), prec, tuple(-t for t in terms))

    while left and ok and len(chosen) < limit:
        best = max(ok, key=rank)  # the first of equal ranks, as a running "better than" search keeps
        if (best[1] & left).bit_count() < min_support:  # the most it covers: none has the support
            break
        chosen.append(best)
        left &= ~best[1]
    return chosen


def _mine_operation(
    op: str,
    preds: Sequence[_Pred],
    counts: Sequence[tuple[tuple[int, ...], int, int]],
    positive: int,
    wrong: int,
    th: Thresholds,
    max_preferred: int,
) -> list[Skill]:
    """The strong, preferred and negative skills of one operation (eq. (9))."""

    def scored(hits_of: Callable[[int, int], int]) -> list[_Scored]:
        """The candidates with ``hits_of(mask, size)`` decisions of at least the minimum support, and the share."""
        hits = [(terms, mask, hits_of(mask, size), size) for terms, mask, size in counts]
        return [(terms, mask, hit, hit / size) for terms, mask, hit, size in hits if hit >= th.min_support]

    def made(kind: str, picked: Sequence[_Scored], first: int = 1) -> list[Skill]:
        """The skills ``{op}-{kind[0]}{k}`` of the ``picked`` candidates, ``k`` counted from ``first``."""
        out = []
        for k, (terms, _mask, support, precision) in enumerate(picked, first):
            ps = [preds[t] for t in terms]
            when = tuple(Condition(p[0], p[1], p[2]) for p in ps)
            out.append(Skill(f"{op}-{kind[0]}{k}", op, kind, when, _describe(op, kind, ps), support, precision))
        return out

    right = scored(lambda mask, size: (mask & positive).bit_count())
    strong = _greedy(positive, [x for x in right if x[3] >= th.strong], 1_000, th.min_support)
    covered = 0
    for _terms, mask, _support, _prec in strong:
        covered |= mask
    preferred = [x for x in right if th.preferred <= x[3] < th.strong]
    skills = made("strong", strong)
    skills += made("preferred", _greedy(positive & ~covered, preferred, max_preferred, th.min_support), len(strong) + 1)
    if wrong.bit_count() >= th.min_support:
        right_not = scored(lambda mask, size: size - (mask & positive).bit_count())
        negs = [x for x in right_not if x[3] >= th.negative and x[1] & wrong]
        skills += made("negative", _greedy(wrong, negs, 1_000, th.min_support))
    return skills


# ---- the model summariser ---------------------------------------------------------------------------------------
_SUMMARY_SYSTEM = PROMPTS["summary_system"]

_SUMMARY_TEMPLATE = PROMPTS["summary_template"]
"""The summariser's user prompt. The paper describes the summarising step (Fig. 4) but gives no prompt text; the
line's parts are described in words, with no template to copy (a small model copied ``SKILL
strong|preferred|negative | when: ...`` verbatim)."""

_SKILL_KINDS = ("strong", "preferred", "negative")

_SKILL_HEAD = re.compile(r"^skill(?![a-z])\s*(?:\d+\s*)?[:.)\-]?\s*(.*)$", re.IGNORECASE)
_COND = re.compile(r"^\s*([a-z_]+)\s*(!=|==|>=|<=|=|>|<)\s*([A-Za-z0-9_.\-]+)\s*$")
_COND_SPLIT = re.compile(r"\s*(?:,|;|&&|&|\band\b)\s*", re.IGNORECASE)
_PART = re.compile(r"^(when|text)\b\s*[:=\-]?\s*(.*)$", re.IGNORECASE | re.DOTALL)
_KIND_LIST = re.compile(
    r"\b(?:strong|preferred|negative)\s*(?:[|/,]|\bor\b)\s*(?:strong|preferred|negative)\b", re.IGNORECASE
)
_TEMPLATE_FIELDS = frozenset({"FIELD", "VALUE", "NUMBER"})


def _case(d: DecisionRecord) -> str:
    fields = ", ".join(f"{f.name}={d.features.get(f.name)}" for f in FEATURES)
    verdict = "correct" if d.predicted_verb == d.gold else f"WRONG (predicted {d.predicted_verb or 'nothing'})"
    return f"- {fields} -> gold {d.gold}; weaker policy {verdict}"


def _condition(part: str) -> Condition:
    """One ``FIELD=VALUE`` / ``FIELD!=VALUE`` / ``FIELD>NUMBER`` condition (``==`` reads as ``=``; quotes, case of
    ``true``/``false`` and of category values do not matter)."""
    text = part.strip().strip("'\"").replace("'", "").replace('"', "")
    c = _COND.match(text)
    if c is None:
        if any(t in part for t in _TEMPLATE_FIELDS):
            raise ParseError("the condition copies the template (FIELD=VALUE); use a field from the list")
        raise ParseError("a condition is not FIELD=VALUE", text=part.strip())
    name, sym, raw = c.group(1).lower(), c.group(2), c.group(3)
    feat = FEATURE_BY_NAME.get(name)
    if feat is None:
        if c.group(1) in _TEMPLATE_FIELDS:
            raise ParseError("the condition copies the template (FIELD=VALUE); use a field from the list")
        raise ParseError(f"unknown field {name!r}", text=part.strip())
    value: Any
    if feat.kind == "bool":
        if raw.lower() not in ("true", "false"):
            raise ParseError(f"{name} takes true or false", text=raw)
        value = raw.lower() == "true"
    elif feat.kind == "int":
        if not raw.isdigit():
            raise ParseError(f"{name} takes a whole number", text=raw)
        value = int(raw)
    else:
        if raw.lower() not in feat.values:
            raise ParseError(f"{name} takes one of {', '.join(feat.values)}", text=raw)
        value = raw.lower()
    opname = {"=": "eq", "==": "eq", "!=": "not"}.get(sym, sym)
    if feat.kind != "int" and opname not in ("eq", "not"):
        raise ParseError(f"{name} can only be compared with = or !=", text=part.strip())
    return Condition(name, opname, value)


def parse_skill_line(line: str) -> tuple[str, tuple[Condition, ...], str] | None:
    """``(kind, conditions, text)`` from one summariser line, ``None`` when the line is not a SKILL line.

    Read in any form models write it: markdown bullets, numbering and emphasis; ``SKILL:`` or ``SKILL 1.``;
    ``when`` and ``text`` with or without a colon, ``when: ... -> text: ...``, or ``SKILL kind | conditions -> text``
    with no part names; conditions joined by commas, ``;`` or ``and``. A line that
    copies the template (``SKILL strong|preferred|negative``, ``FIELD=VALUE``, ``text: one sentence``) or is
    otherwise unreadable is a :class:`~mindloop.errors.ParseError` with a one-line reason.
    """
    head = _SKILL_HEAD.match(clean(line))
    if head is None:
        return None
    if _KIND_LIST.search(head.group(1)):
        raise ParseError("the line copies the template's kinds (strong|preferred|negative); write one kind")
    body = re.sub(r"\s*->\s*(?=text\b)", " | ", head.group(1), flags=re.IGNORECASE)  # when: ... -> text: ...
    parts = [p.strip() for p in body.split("|")]
    kinds = [k for k in _SKILL_KINDS if re.search(rf"\b{k}\b", parts[0], re.IGNORECASE)]
    if len(kinds) > 1:
        raise ParseError("the line copies the template's kinds (strong|preferred|negative); write one kind")
    if not kinds:
        raise ParseError("not a SKILL line: its kind must be strong, preferred or negative", text=line.strip()[:120])
    if len(parts) == 2 and _PART.match(parts[1]) is None and "->" in parts[1]:
        conditions, _, then = parts[1].partition("->")  # ``SKILL strong | a=1, b=2 -> op``: when -> text
        parts = [parts[0], f"when: {conditions}", f"text: {then}"]
    if len(parts) < 3:
        raise ParseError("not a SKILL line: it needs a when: part and a text: part after |", text=line.strip()[:120])
    named: dict[str, str] = {}
    for part in parts[1:]:
        m = _PART.match(part)
        if m is None:
            raise ParseError("a part is neither when: nor text:", text=part[:120])
        named.setdefault(m.group(1).lower(), m.group(2).strip())
    if "when" not in named or "text" not in named:
        raise ParseError("a SKILL line needs a when: part and a text: part", text=line.strip()[:120])
    text = named["text"].strip().strip("\"'").strip()
    if text.lower().strip(" .") in ("one sentence", "one sentence of your own", "") or "one sentence" in text.lower():
        raise ParseError("the text: part copies the template; state the rule in a sentence")
    conds = tuple(_condition(part) for part in _COND_SPLIT.split(named["when"]) if part.strip())
    if not conds:
        raise ParseError("the when: part has no condition", text=line.strip()[:120])
    return kinds[0], conds, text


def _skill_lines(reply: str) -> list[str]:
    """The reply's lines, a SKILL line joined with the ``when:`` and ``text:`` lines that follow it (a skill written
    over three lines is one skill)."""
    out: list[str] = []
    for line in reply.splitlines():
        part = _PART.match(clean(line))
        if part is not None and out and _SKILL_HEAD.match(clean(out[-1])):
            out[-1] = f"{out[-1].rstrip()} | {clean(line)}"
        else:
            out.append(line)
    return out


def _read_skill_lines(reply: str, op: str, start: int) -> tuple[list[Skill], list[tuple[str, str]]]:
    """The skills of a summariser reply's SKILL lines (:func:`parse_skill_line`), and each refused line with why."""
    skills: list[Skill] = []
    refused: list[tuple[str, str]] = []
    for line in _skill_lines(reply):
        try:
            got = parse_skill_line(line)
        except ParseError as exc:
            refused.append((line, exc.reason))
            continue
        if got is not None:
            kind, conds, text = got
            skills.append(Skill(f"{op}-m{start + len(skills)}", op, kind, conds, text))
    return skills, refused


def parse_summary(reply: str, op: str, *, start: int = 1) -> tuple[list[Skill], list[str]]:
    """Skills from a summariser reply (:func:`parse_skill_line` on every line); lines that do not parse are
    returned as failures (never guessed at). A reply with no SKILL line at all is one failure."""
    skills, refused = _read_skill_lines(reply, op, start)
    failures = [f"{line.strip()[:120]}: {reason}" for line, reason in refused]
    if not skills and not refused:
        failures.append(f"no SKILL line in the reply: {' '.join(reply.split())[:120]}")
    return skills, failures


def read_summary(reply: str, op: str, *, start: int = 1) -> list[Skill]:
    """The skills of a summariser reply (:func:`parse_summary`), refusing a reply with none: a
    :class:`~mindloop.errors.ParseError` whose one-line reason is why its first SKILL line was unusable (or that
    it has none), so a format retry can send it back."""
    skills, refused = _read_skill_lines(reply, op, start)
    if not skills:
        reason = refused[0][1] if refused else "the reply has no SKILL line"
        raise ParseError(f"no usable SKILL line: {reason}", text=reply[:200])
    return skills


async def summarise_skills(
    model: ChatModel,
    decisions: Sequence[DecisionRecord],
    *,
    per_op: int = 6,
    limit: int = 4,
    thresholds: Thresholds | None = None,
    config: GenerationConfig | None = None,
    retries: int = DEFAULT_FORMAT_RETRIES,
) -> tuple[SkillSet, list[str]]:
    """Ask a model to summarise decision patterns per operation (Fig. 4), then validate them over all decisions
    and group them by measured precision. Returns the skills and the reply lines that could not be used (of every
    reply read, format retries included).

    Each reply is read through :func:`~mindloop.models.replies.ask`: a reply with no usable SKILL line goes back
    to the model with the reason, at most ``retries`` times."""
    th = thresholds or Thresholds()
    fields = ", ".join(f"{f.name} ({'/'.join(f.values) if f.kind == 'cat' else f.kind})" for f in FEATURES)
    proposed: list[Skill] = []
    failures: list[str] = []
    part = ModelPart(model, config, retries=retries)
    for op in OPERATION_VERBS:
        right = [d for d in decisions if d.gold == op and d.predicted_verb == op][:per_op]
        wrong = [d for d in decisions if (d.gold == op) != (d.predicted_verb == op)][:per_op]
        if not right and not wrong:
            continue
        cases = "\n".join(_case(d) for d in [*right, *wrong])
        messages = chat(_SUMMARY_SYSTEM, _SUMMARY_TEMPLATE, op=op, fields=fields, cases=cases, limit=limit)
        read = functools.partial(read_summary, op=op)
        skills, replies, _ = await part.ask(messages, read, "no usable skills")
        proposed += skills or []
        failures += [f"{op}: {b}" for text in replies for b in parse_summary(text, op)[1]]
    about = "Trigger skills summarised by a model from paired rollouts, validated over all decisions."
    validated = validate_skills(SkillSet(proposed, about=about, thresholds=th), decisions, regroup=True)
    return validated, failures

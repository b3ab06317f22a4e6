"""``mindloop tom audit``: the questions of a released ToM dataset whose gold contradicts the story by the
dataset's own rules, each with its reason.

One audit per format, each independent of the belief tracker:

* ``tomi`` — :mod:`mindloop.systems.tom.audit` re-derives every answer from the story under ToMi's witness
  semantics and lists the golds that differ.
* ``hitom`` — a gold must name a container the story puts the object in (or claims it is in); and the two copies
  Hi-ToM releases of every story-question pair must agree.
* ``opentom`` — :func:`mindloop.systems.tom.opentom.audit_opentom`: location and fullness golds against the plot's
  statement of who witnessed the move, and against the other golds of the same belief.
* ``bigtom`` — rows the release's own condition builder cannot turn into well-formed items (a story that does not
  cut into five sentences at ``.``, identical aware and not-aware answers or percepts).
* ``mmtom-qa`` — :func:`mindloop.systems.tom.mmtomqa.audit_mmtom`: golds outside the item's answers, statements
  that are not a belief and its negation, one question text with two golds.
* ``fantom`` — :func:`mindloop.systems.tom.fantom.audit_fantom`: list, binary and belief golds against the presence
  record of their conversation part (who was there when the information was shared), binary golds that contradict
  the list gold of the same set, belief questions whose correct and wrong answers are the same.
* ``exploretom`` — :func:`mindloop.systems.tom.exploretom.audit_exploretom`: expected answers the story never
  mentions, one story and question with two expected answers.
* ``simpletom`` — :func:`mindloop.systems.tom.simpletom.audit_simpletom`: answer keys naming no choice, repeated
  choices, awareness questions about a fact the story does not state.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mindloop.errors import InvalidArgumentError
from mindloop.worlds.stories.releases import read_dataset
from mindloop.worlds.stories.tomi import Example

AUDIT_FORMATS = ("tomi", "hitom", "opentom", "bigtom", "mmtom-qa", "fantom", "exploretom", "simpletom")


@dataclass(frozen=True, slots=True)
class LabelFinding:
    """One question whose gold contradicts the story, where it is, and why."""

    source: str
    question: str
    gold: str
    reason: str
    rule: str

    def to_json(self) -> dict[str, str]:
        """The finding as ``tom audit --json`` prints it."""
        return {k: getattr(self, k) for k in ("source", "question", "gold", "rule", "reason")}


@dataclass(frozen=True)
class LabelAudit:
    """How many questions a file holds, how many the audit could judge, and the contradictions it found."""

    format: str
    questions: int
    checked: int
    findings: list[LabelFinding] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        """The ``tom audit --json`` object."""
        rules = Counter(f.rule for f in self.findings)
        return {
            "format": self.format,
            "questions": self.questions,
            "checked": self.checked,
            "contradicted": len(self.findings),
            "by_rule": dict(sorted(rules.items(), key=lambda kv: -kv[1])),
            "findings": [f.to_json() for f in self.findings],
        }


def _where(ex: Example) -> str:
    if ex.hitom is not None and ex.hitom.choices:
        return f"{ex.source} sample {ex.hitom.sample_id}"
    return f"{ex.source}:{ex.line}"


def _audit_tomi(examples: Sequence[Example]) -> LabelAudit:
    from mindloop.systems.tom.audit import audit_examples

    report = audit_examples(examples)
    findings = [
        LabelFinding(
            _where(f.example),
            f.example.question.text,
            f.example.question.answer,
            f"the story shows {f.story!r} under ToMi's witness semantics (who is in the room sees the event)",
            "witness semantics",
        )
        for f in report.contradictions
    ]
    return LabelAudit("tomi", len(examples), report.checked, findings)


def _audit_hitom(examples: Sequence[Example]) -> LabelAudit:
    findings: list[LabelFinding] = []
    checked = 0
    for ex in examples:
        obj, gold = ex.question.obj, ex.question.answer
        if not obj:
            continue
        checked += 1
        mentions = [s for _, s in ex.sentences if re.search(rf"\b{re.escape(obj)}\b", s)]
        if not any(re.search(rf"\b{re.escape(gold)}\b", s) for s in mentions):
            why = f"the story never puts the {obj} in the {gold} nor claims it is there"
            findings.append(LabelFinding(_where(ex), ex.question.text, gold, why, "not a container"))
    copies: dict[tuple[tuple[str, ...], str], list[Example]] = defaultdict(list)
    for ex in examples:
        copies[(tuple(s for _, s in ex.sentences), ex.question.text)].append(ex)
    flagged = {(f.source, f.question) for f in findings}
    for group in copies.values():
        if len({ex.question.answer for ex in group}) > 1:
            for ex in group:
                if (_where(ex), ex.question.text) in flagged:
                    continue
                other = next(o for o in group if o.question.answer != ex.question.answer)
                why = (
                    f"the release's other copy of this story and question ({_where(other)}) answers "
                    f"{other.question.answer!r}"
                )
                findings.append(LabelFinding(_where(ex), ex.question.text, ex.question.answer, why, "copies disagree"))
    return LabelAudit("hitom", len(examples), checked, findings)


def _audit_opentom(path: Path, split: str) -> LabelAudit:
    from mindloop.systems.tom.opentom import audit_opentom, read_opentom

    questions = read_opentom(path, split=split)  # type: ignore[arg-type]  # checked by the CLI's choices
    return _audited("opentom", questions, audit_opentom, lambda q: (q.source, q.question, q.answer))


def _audit_bigtom(path: Path) -> LabelAudit:
    from mindloop.systems.tom.bigtom import BIGTOM_CONDITIONS, BIGTOM_VARIABLES, read_bigtom

    rows = read_bigtom(path)
    # items the release builds from one row: 3 variables x 4 conditions x 2 initial beliefs, and 1 percept item
    per_row = len(BIGTOM_VARIABLES) * len(BIGTOM_CONDITIONS) * 2 + 1
    findings = []
    for row in rows:
        where, question, gold = f"{path.name}:{row.line}", row["belief_question"], row["belief_answer_aware"]
        parts = row["story"].split(".")
        if len(parts) != 6 or parts[5].strip():
            why = (
                f"the story cuts into {len(parts) - 1} parts at '.', not 5, so the release's condition builder "
                "(sentences 1-3 and 5) drops or splits sentences"
            )
            findings.append(LabelFinding(where, question, gold, why, "story cut"))
        for what, a, b in (
            ("belief answers", "belief_answer_aware", "belief_answer_not_aware"),
            ("action answers", "action_answer_aware", "action_answer_not_aware"),
            ("awareness sentences", "aware_of_event", "not_aware_of_event"),
            ("actions", "action_aware", "action_not_aware"),
        ):
            if _same(row[a], row[b]):
                why = (
                    f"the aware and not-aware {what} are the same ({row[a]!r}), so true and false belief have one gold"
                )
                findings.append(LabelFinding(where, question, gold, why, f"same {what}"))
        if not _same(row["belief_answer_aware"], row["belief_answer_not_aware"]):
            why = (
                "the release's builder writes the aware answer as the percept item's gold, but that item's story "
                "is sentences 1-3 alone, which tell of the initial state only: the protagonist saw it, so the "
                f"belief they tell is the not-aware answer ({row['belief_answer_not_aware']!r})"
            )
            findings.append(
                LabelFinding(f"{where} (1_percept_to_belief_true_belief)", question, gold, why, "percept gold")
            )
    return LabelAudit("bigtom", len(rows) * per_row, len(rows) * per_row, findings)


def _same(a: str, b: str) -> bool:
    return re.sub(r"\W+", " ", a.lower()).strip() == re.sub(r"\W+", " ", b.lower()).strip()


def _audited(
    fmt: str,
    items: Sequence[Any],
    audit: Callable[[Any], tuple[int, list[Any]]],
    where: Callable[[Any], tuple[str, str, str]],
) -> LabelAudit:
    """The audit of a release read into ``items`` by its module's ``audit`` (``(checked, [(item, why, rule)])``),
    each finding placed by ``where`` (source, question, gold of its item)."""
    checked, found = audit(items)
    return LabelAudit(fmt, len(items), checked, [LabelFinding(*where(i), why, rule) for i, why, rule in found])


def _audit_mmtom(path: Path) -> LabelAudit:
    from mindloop.systems.tom.mmtomqa import audit_mmtom, read_mmtom

    def where(item: Any) -> tuple[str, str, str]:
        return f"{path.name}:{item.line}", item.question.rsplit("Question:", 1)[-1].strip(), item.answer

    return _audited("mmtom-qa", read_mmtom(path), audit_mmtom, where)


def _audit_fantom(path: Path) -> LabelAudit:
    from mindloop.systems.tom.fantom import audit_fantom, fantom_questions, read_fantom

    sets = read_fantom(path)
    checked, found = audit_fantom(sets)
    findings = [LabelFinding(f"set {sid}", q, gold, why, rule) for sid, q, gold, why, rule in found]
    return LabelAudit("fantom", len(fantom_questions(sets)), checked, findings)


def _audit_exploretom(path: Path) -> LabelAudit:
    from mindloop.systems.tom.exploretom import audit_exploretom, read_exploretom

    items = read_exploretom(path)
    return _audited("exploretom", items, audit_exploretom, lambda i: (f"{path.name}:{i.line}", i.question, i.answer))


def _audit_simpletom(path: Path) -> LabelAudit:
    from mindloop.systems.tom.simpletom import audit_simpletom, read_simpletom

    def where(i: Any) -> tuple[str, str, str]:
        return f"{i.qset}/{i.source}:{i.line} ({i.id})", i.question, i.answer_key

    return _audited("simpletom", read_simpletom(path), audit_simpletom, where)


def _existing(path: str | Path) -> Path:
    p = Path(path)
    if not p.exists():
        raise InvalidArgumentError(f"{str(path)!r}: no such file or folder")
    return p


def audit_file(path: str | Path, fmt: str, *, split: str = "normal") -> LabelAudit:
    """Audit a released file (or OpenToM's folder) in format ``fmt`` (one of :data:`AUDIT_FORMATS`)."""
    p = _existing(path)
    if fmt in ("tomi", "hitom"):
        if p.is_dir():
            raise InvalidArgumentError(f"{str(path)!r} is a folder; {fmt} is read from one file")
        _, examples = read_dataset(p, fmt)  # type: ignore[arg-type]  # fmt is one of the two
        return _audit_tomi(examples) if fmt == "tomi" else _audit_hitom(examples)
    if fmt == "opentom":
        return _audit_opentom(p, split)
    audits = {"bigtom": _audit_bigtom, "mmtom-qa": _audit_mmtom, "fantom": _audit_fantom,
              "exploretom": _audit_exploretom, "simpletom": _audit_simpletom}  # fmt: skip
    if fmt in audits:
        return audits[fmt](p)
    raise InvalidArgumentError(f"unknown format {fmt!r} (formats: {', '.join(AUDIT_FORMATS)})")


# -- data describe ------------------------------------------------------------------------------------------------


def describe_release(fmt: str, path: str | Path) -> dict[str, Any]:
    """Counts of a released file (``mindloop data describe FORMAT PATH``): questions in all, per file and per type
    (OpenToM: per split too, and its stories); read by the same loaders as ``bench run``."""

    p = _existing(path)
    items: Sequence[Any]
    by_file: Counter[str] | None = None  # one file: its name and every question
    extra: dict[str, Any] = {}
    if fmt == "opentom":
        from mindloop.systems.tom.opentom import read_opentom

        items = read_opentom(p, split="all")
        by_file = Counter(f"{q.file} ({q.story.split})" for q in items)
        by_type = Counter(q.qtype for q in items)
        extra = {
            "by_split": dict(Counter(q.story.split for q in items)),
            "stories": dict(Counter(s for s, _ in dict.fromkeys((q.story.split, q.story.id) for q in items))),
        }
    elif fmt == "bigtom":
        from mindloop.systems.tom.bigtom import bigtom_items, read_bigtom

        rows = read_bigtom(p)
        items = bigtom_items(rows)
        by_type = Counter(f"{i.variable}/{i.condition}" for i in items)
        extra = {
            "lines": len(rows),
            "by_initial_belief": dict(Counter(i.initial_belief for i in items)),
            # the files the release's generate_conditions.py writes from it, one per condition
            "by_release_file": dict(Counter(i.file for i in items)),
        }
    elif fmt == "mmtom-qa":
        from mindloop.systems.tom.mmtomqa import read_mmtom

        items = read_mmtom(p)
        by_type = Counter(i.qtype for i in items)
    elif fmt == "fantom":
        from mindloop.systems.tom.fantom import fantom_questions, read_fantom

        sets = read_fantom(p)
        items = fantom_questions(sets)
        by_type = Counter(q.kind for q in items)
        extra = {"sets": len(sets)}
    elif fmt == "exploretom":
        from mindloop.systems.tom.exploretom import read_exploretom

        items = read_exploretom(p)
        by_type = Counter(f"order {i.order}" for i in items)
        extra = {"by_story_type": dict(Counter(i.story_type for i in items))}
    elif fmt == "simpletom":
        from mindloop.systems.tom.simpletom import read_simpletom

        items = read_simpletom(p)
        by_file = Counter(f"{i.qset}/{i.source}" for i in items)
        by_type = Counter(i.qset for i in items)
    else:
        raise InvalidArgumentError(f"unknown released set {fmt!r} (sets: {', '.join(RELEASED_SETS)})")
    files = dict(by_file) if by_file is not None else {p.name: len(items)}
    return {"format": fmt, "path": str(p), "questions": len(items), "by_file": files, "by_type": dict(by_type)} | extra


RELEASED_SETS = ("opentom", "bigtom", "mmtom-qa", "fantom", "exploretom", "simpletom")
"""The released sets ``data describe`` counts from a path."""

"""Embodied cognitive skills (MindClaw §IV-G, eq. (9)): conditions for (or against) a trigger operation, grouped
per operation into strong, preferred and negative sets, stored as YAML that people can read and edit.

A skill's ``when`` is a conjunction of field conditions over the trigger context's features
(:data:`~mindloop.systems.mindclaw.context.FEATURES`) plus ``text``, the window's narration. Each field takes a value
(equality), or one of ``{not: v}``, ``{in: [..]}``, ``{">": n}``, ``{">=": n}``, ``{"<": n}``, ``{"<=": n}``,
``{regex: PATTERN}``. Skills are compiled to structured-field and regular-expression matchers
(:meth:`Skill.matches`), so strong skills fire deterministically.

A file looks like::

    version: 1
    about: what the skills are for, how they were mined
    thresholds: {strong: 0.999, preferred: 0.6, negative: 0.999, min_support: 5}
    operations:
      reasoning_run:
        strong:
          - id: reasoning_run-s1
            text: Nothing left to write, a cue the robot has not acted on, no reasoning yet in this window.
            when: {next_write: none, cue_new: true, reasoned: false}
            support: 140
            precision: 1.0
        preferred: []
        negative:
          - id: reasoning_run-n1
            text: Never run reasoning while a belief write is pending.
            when: {next_write: {not: none}}

``support`` and ``precision`` are measured over decisions (:func:`validate_skills`): precision is the share of
matching decisions on which the skill's claim holds (the gold operation is ``op``; for a negative skill, it is
not), support the number of them.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

import yaml  # type: ignore[import-untyped]
from pydantic import AllowInfNan, BaseModel, BeforeValidator, Field, Strict

from mindloop.datafiles import DataModel, WholeNumber, read_text_file, validate_data
from mindloop.errors import ParseError
from mindloop.systems.mindclaw.context import FEATURE_BY_NAME
from mindloop.systems.mindclaw.operations import OPERATION_VERBS

KINDS = ("strong", "preferred", "negative")
_FIELDS = frozenset(FEATURE_BY_NAME) | {"text"}
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "eq": operator.eq,
    "not": operator.ne,
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
}
"""The tests that compare a field's value with the condition's."""
_OPS = {*_COMPARE, "in", "regex"}

_Number = Annotated[float, Strict(), AllowInfNan(False)]
"""A finite number (an integer reads as a float; true and false are not numbers)."""
_Whole = Annotated[WholeNumber, Field(ge=0)]
"""A whole number >= 0 (``3.0`` reads as ``3``)."""


class _FeatureSource(Protocol):
    """Anything a skill can be matched against: named features and the narration text."""

    def feature(self, name: str) -> Any:
        """The value of a named feature."""
        ...


@dataclass(frozen=True, slots=True)
class Condition:
    """``field op value``: one structured-field (or, for ``regex``, regular-expression) test."""

    field: str
    op: str
    value: Any

    def to_yaml(self) -> Any:
        """The YAML value form (a bare value for equality)."""
        if self.op == "eq":
            return self.value
        if self.op == "in":
            return {"in": list(self.value)}
        if self.op == "regex":
            return {"regex": self.value.pattern}
        return {self.op: self.value}

    def describe(self) -> str:
        """``field=value``, ``field!=value``, ``field>0``, ``text~/re/``."""
        if self.op == "eq":
            return f"{self.field}={_lower(self.value)}"
        if self.op == "not":
            return f"{self.field}!={_lower(self.value)}"
        if self.op == "in":
            return f"{self.field} in ({', '.join(map(str, self.value))})"
        if self.op == "regex":
            return f"{self.field}~/{self.value.pattern}/"
        return f"{self.field}{self.op}{self.value}"

    def compile(self) -> Callable[[Any], bool]:
        """A predicate on the field's value."""
        v = self.value
        if self.op == "in":
            allowed = frozenset(v)
            return lambda x: x in allowed
        if self.op == "regex":
            pattern: re.Pattern[str] = v
            return lambda x: pattern.search(str(x)) is not None
        compare = _COMPARE[self.op]
        return lambda x: compare(x, v)


def _lower(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class Skill:
    """One skill: an operation, a kind (strong / preferred / negative), a readable text and its conditions."""

    id: str
    op: str
    kind: str
    when: tuple[Condition, ...]
    text: str = ""
    support: int = 0
    precision: float | None = None
    _tests: tuple[tuple[str, Callable[[Any], bool]], ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_tests", tuple((c.field, c.compile()) for c in self.when))

    def matches(self, ctx: _FeatureSource) -> bool:
        """Whether every condition holds in ``ctx`` (``text`` is the window narration)."""
        for name, test in self._tests:  # noqa: SIM110 - the hot path of every trigger decision
            if not test(ctx.feature(name)):
                return False
        return True

    def matches_features(self, features: Mapping[str, Any]) -> bool:
        """The same test on a plain feature mapping (as stored with mined decisions)."""
        return all(test(features.get(name, "")) for name, test in self._tests)

    def describe(self) -> str:
        """One line for prompts: ``[op] text (when ...)``."""
        cond = " and ".join(c.describe() for c in self.when) or "always"
        return f"[{self.op}] {self.text} (when {cond})" if self.text else f"[{self.op}] when {cond}"

    def to_yaml(self) -> dict[str, Any]:
        """The YAML mapping of this skill."""
        out: dict[str, Any] = {"id": self.id, "text": self.text, "when": {c.field: c.to_yaml() for c in self.when}}
        out["support"] = self.support
        if self.precision is not None:
            out["precision"] = round(self.precision, 4)
        return out


class Thresholds(DataModel):
    """How validated skills are sorted into sets: precision for strong, preferred and negative; least support."""

    strong: _Number = 0.999
    preferred: _Number = 0.6
    negative: _Number = 0.999
    min_support: _Whole = 5

    def to_yaml(self) -> dict[str, Any]:
        """The YAML mapping."""
        return self.model_dump()


class SkillSet:
    """Skills grouped by operation into strong, preferred and negative sets (``S_v = (S+, S+-, S-)``, eq. (9))."""

    def __init__(
        self,
        skills: Iterable[Skill] = (),
        *,
        about: str = "",
        meta: Mapping[str, Any] | None = None,
        thresholds: Thresholds | None = None,
    ) -> None:
        self.skills: list[Skill] = list(skills)
        self.about = about
        self.meta = dict(meta or {})
        self.thresholds = thresholds or Thresholds()
        order = {v: i for i, v in enumerate(OPERATION_VERBS)}
        self.strong: list[Skill] = sorted((s for s in self.skills if s.kind == "strong"), key=lambda s: order[s.op])
        self.preferred = [s for s in self.skills if s.kind == "preferred"]
        self.negative: dict[str, list[Skill]] = {v: [] for v in OPERATION_VERBS}
        for s in self.skills:
            if s.kind == "negative":
                self.negative[s.op].append(s)

    def __len__(self) -> int:
        return len(self.skills)

    def by_op(self, op: str) -> dict[str, list[Skill]]:
        """``{"strong": [...], "preferred": [...], "negative": [...]}`` for one operation."""
        return {k: [s for s in self.skills if s.op == op and s.kind == k] for k in KINDS}

    def vetoed(self, op: str, ctx: _FeatureSource) -> Skill | None:
        """The first negative skill of ``op`` that matches ``ctx`` (it rules ``op`` out), or ``None``."""
        return next((s for s in self.negative.get(op, ()) if s.matches(ctx)), None)

    def guidance(self) -> list[str]:
        """The preferred and negative skills as prompt lines (what the trigger model is shown)."""
        lines = [f"Prefer {s.describe()}" for s in self.preferred]
        lines += [f"Never {s.describe()}" for v in OPERATION_VERBS for s in self.negative[v]]
        return lines

    def to_yaml(self) -> str:
        """The YAML text of the set (see the module docstring)."""
        data: dict[str, Any] = {"version": 1, "about": self.about}
        if self.meta:
            data["mined"] = dict(self.meta)
        data["thresholds"] = self.thresholds.to_yaml()
        data["operations"] = {
            v: {k: [s.to_yaml() for s in group] for k, group in self.by_op(v).items()} for v in OPERATION_VERBS
        }
        text: str = yaml.safe_dump(data, sort_keys=False, width=110, allow_unicode=True)
        return "# MindClaw trigger skills. Edit freely; `mindloop claw skills validate FILE` re-measures them.\n" + text

    def save(self, path: str | Path) -> None:
        """Write :meth:`to_yaml` to ``path``."""
        Path(path).write_text(self.to_yaml(), encoding="utf-8")


def _condition(skill_id: str, name: str, spec: Any, source: str) -> Condition:
    if name not in _FIELDS:
        raise ParseError(f"skill {skill_id}: unknown field {name!r} (fields: {', '.join(sorted(_FIELDS))})",
                         source=source)  # fmt: skip
    feature = FEATURE_BY_NAME.get(name)
    if isinstance(spec, Mapping):
        if len(spec) != 1:
            raise ParseError(f"skill {skill_id}: field {name!r} takes one test, got {dict(spec)}", source=source)
        op, value = next(iter(spec.items()))
        op = str(op)
        if op not in _OPS:
            raise ParseError(f"skill {skill_id}: unknown test {op!r} on {name!r} (tests: {', '.join(sorted(_OPS))})",
                             source=source)  # fmt: skip
    else:
        op, value = "eq", spec
    if op == "regex":
        try:
            return Condition(name, op, re.compile(str(value)))
        except (re.error, OverflowError, RecursionError) as exc:
            raise ParseError(f"skill {skill_id}: bad regex on {name!r}: {exc}", source=source) from None
    if name == "text" and (op not in ("eq", "not", "in") or not all(isinstance(v, str) for v in _listed(value, op))):
        raise ParseError(f"skill {skill_id}: 'text' takes regex, or eq/not/in with text, got {op} {value!r}",
                         source=source)  # fmt: skip
    if op == "in":
        if not isinstance(value, list):
            raise ParseError(f"skill {skill_id}: 'in' on {name!r} needs a list", source=source)
        value = tuple(value)
    if feature is not None:
        values = value if op == "in" else (value,)
        for v in values:
            _check_value(skill_id, feature.name, feature.kind, feature.values, op, v, source)
    return Condition(name, op, value)


def _listed(value: Any, op: str) -> list[Any]:
    return list(value) if op == "in" and isinstance(value, list) else [value]


def _check_value(skill_id: str, name: str, kind: str, allowed: tuple[str, ...], op: str, v: Any, source: str) -> None:
    ok = (
        (kind == "bool" and isinstance(v, bool) and op in ("eq", "not", "in"))
        or (kind == "int" and isinstance(v, int) and not isinstance(v, bool))
        or (kind == "cat" and isinstance(v, str) and v in allowed and op in ("eq", "not", "in"))
    )
    if not ok:
        want = {"bool": "true or false", "int": "a whole number", "cat": f"one of {', '.join(allowed)}"}[kind]
        raise ParseError(f"skill {skill_id}: {name} {op} {v!r} — {name} takes {want}", source=source)


def _or_empty(empty: Any) -> BeforeValidator:
    """Read a left-out, null or otherwise falsy value (``0``, ``""``, ``[]``) as ``empty``, as the file format does."""
    return BeforeValidator(lambda v: v or empty)


class _Skill(BaseModel):
    id: Any = None
    text: Any = ""
    when: Annotated[dict[Any, Any], _or_empty({})] = {}
    support: Annotated[_Whole, _or_empty(0)] = 0
    precision: _Number | None = None


class _SkillsFile(BaseModel):
    """A skills file (see the module docstring), in the order its parts are checked."""

    version: Literal[1] = 1
    about: Any = ""
    operations: dict[Any, dict[Any, list[_Skill] | None]]
    thresholds: Annotated[Thresholds, _or_empty({})] = Thresholds()
    mined: Annotated[dict[Any, Any], _or_empty({})] = {}


def parse_skills(data: Any, *, source: str = "<skills>") -> SkillSet:
    """A :class:`SkillSet` from the loaded YAML structure; anything malformed is a
    :class:`~mindloop.errors.ParseError` naming the file, the skill and the field."""
    spec = validate_data(_SkillsFile, data, source=source, error=ParseError)
    skills: list[Skill] = []
    seen: set[str] = set()
    for op, groups in spec.operations.items():
        if op not in OPERATION_VERBS:
            raise ParseError(f"unknown operation {op!r} (operations: {', '.join(OPERATION_VERBS)})", source=source)
        for kind, items in groups.items():
            if kind not in KINDS:
                raise ParseError(f"operation {op}: unknown set {kind!r} (sets: {', '.join(KINDS)})", source=source)
            for i, item in enumerate(items or []):
                sid = str(item.id or f"{op}-{kind}-{i + 1}")
                if sid in seen:
                    raise ParseError(f"skill id {sid!r} is used twice", source=source)
                seen.add(sid)
                conds = tuple(_condition(sid, str(k), v, source) for k, v in item.when.items())
                skills.append(Skill(sid, op, kind, conds, str(item.text), item.support, item.precision))
    return SkillSet(skills, about=str(spec.about), meta=spec.mined, thresholds=spec.thresholds)


def load_skills(path: str | Path) -> SkillSet:
    """Read a skills YAML file (see the module docstring)."""
    p = Path(path)
    text = read_text_file(p, what="skills file")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ParseError(f"not valid YAML: {exc}", source=str(p)) from None
    return parse_skills(data, source=str(p))


def default_skills_path() -> Path:
    """The skills shipped with mindloop (mined from the ``mindpower-sim`` train split, seed 0)."""
    return Path(__file__).with_name("default_skills.yaml")


class DecisionLike(Protocol):
    """A recorded decision: its features, the gold operation verb."""

    @property
    def features(self) -> Mapping[str, Any]:
        """The context's features."""
        ...

    @property
    def gold(self) -> str:
        """The gold operation verb."""
        ...


def validate_skills(skills: SkillSet, decisions: Sequence[DecisionLike], *, regroup: bool = False) -> SkillSet:
    """Re-measure every skill's support and precision over ``decisions`` (eq. (9) validation).

    With ``regroup`` each skill is re-sorted by the thresholds (a positive skill as strong or preferred, or dropped
    below ``preferred``; a negative skill kept only at ``negative`` precision), as after mining.
    """
    th = skills.thresholds
    out = []
    for s in skills.skills:
        matched = [d for d in decisions if s.matches_features(d.features)]
        # a skill's claim holds where its operation is gold; a negative skill's, where it is not
        held = sum(1 for d in matched if (d.gold == s.op) != (s.kind == "negative"))
        precision = held / len(matched) if matched else 0.0
        skill = replace(s, support=held, precision=precision)
        if regroup:
            if held < th.min_support:
                continue
            if s.kind == "negative":
                if precision < th.negative:
                    continue
            elif precision >= th.strong:
                skill = replace(skill, kind="strong")
            elif precision >= th.preferred:
                skill = replace(skill, kind="preferred")
            else:
                continue
        out.append(skill)
    return SkillSet(out, about=skills.about, meta=skills.meta, thresholds=th)

"""Each benchmark's headline metric: the one number ``mindloop runs`` lists and ``mindloop compare`` leads with.

It is the paper's main number for the benchmark, declared on the benchmark itself
(:attr:`~mindloop.bench.declaration.BenchmarkSpec.headline`, with whether a higher value is better), so a
plug-in benchmark is treated as a built-in one. A benchmark that declares none (or one no longer registered) falls
back to the first top-level numeric metric of its summary, higher being better.

>>> headline_of("tomi")
Headline(metric='accuracy', higher_is_better=True)
>>> headline_of("cwah").higher_is_better
False
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from mindloop.bench.api import Benchmark
from mindloop.bench.declaration import Headline, headline_value
from mindloop.bench.registry import installed_benchmark

__all__ = [
    "Headline",
    "ReferenceMark",
    "headline_of",
    "headline_value",
    "mark_text",
    "no_intervals_of",
    "reference_marks",
    "reference_text",
]


def headline_of(bench: Benchmark | str, metrics: Mapping[str, Any] | None = None) -> Headline | None:
    """The headline of a benchmark (or of the benchmark registered under a name): its declared one, else the first
    top-level number of ``metrics``; ``None`` when neither gives one."""
    found = installed_benchmark(bench) if isinstance(bench, str) else bench  # None: no longer registered
    return (None if found is None else found.spec.headline) or _first_number(metrics)  # stored runs list a number


def _first_number(metrics: Mapping[str, Any] | None) -> Headline | None:
    """The first top-level metric whose value is a number (:func:`headline_value` reads one), higher being better."""
    heads = (Headline(str(key)) for key in metrics or {})
    return next((head for head in heads if headline_value(head, metrics or {}) is not None), None)


def no_intervals_of(bench: Benchmark) -> tuple[str, ...]:
    """The summary keys of a benchmark that get no interval and no paired test: its declared ``no_intervals``
    (top-level keys) and the ``summary_key`` of each declared reference policy (a reference value its summary
    reports per breakdown row, as ``by_type.<t>.chance``): they are left out because they are declared."""
    keys = [r.summary_key for r in bench.spec.references if r.summary_key]
    return tuple(dict.fromkeys([*bench.spec.no_intervals, *keys]))


class ReferenceMark(NamedTuple):
    """One reference value to show beside a headline: ``label`` (``chance``, ``best trivial``, ``oracle``, or the
    policy's own name for a kind with one policy), the policy's ``name``, its ``kind``, ``value`` and whether it is
    ``optimistic`` (fitted on the evaluated items)."""

    label: str
    name: str
    kind: str
    value: float | None
    optimistic: bool


def reference_marks(
    values: Mapping[str, float | None],
    policies: Sequence[Mapping[str, Any]] = (),
    higher_is_better: bool = True,
) -> list[ReferenceMark]:
    """The marks a headline is shown with: chance, the *best* of the constant and trivial policies (by the
    headline's direction; the others stay in the full list), and the oracle, in that order.

    ``values`` is a run's ``references`` (name to headline value); ``policies`` the stored policy definitions
    (``definitions["references"]``: name, kind, optimistic). A value whose policy is not described (a run stored
    before kinds were kept) is shown under its own name, as a trivial policy.

    >>> refs = {"chance": 0.25, "wait()": 0.0, "best constant": 0.4, "oracle": 1.0}
    >>> kinds = [{"name": "chance", "kind": "chance"}, {"name": "wait()", "kind": "trivial"},
    ...          {"name": "best constant", "kind": "constant", "optimistic": True},
    ...          {"name": "oracle", "kind": "oracle"}]
    >>> [(m.label, m.name, m.value) for m in reference_marks(refs, kinds)]
    [('chance', 'chance', 0.25), ('best trivial', 'best constant', 0.4), ('oracle', 'oracle', 1.0)]
    """
    described = {str(p["name"]): p for p in policies if "name" in p}
    by_kind: dict[str, list[ReferenceMark]] = {}
    for name, value in values.items():
        policy = described.get(name, {})
        kind = str(policy.get("kind") or (name if name in ("chance", "oracle") else "trivial"))
        kind = "trivial" if kind == "constant" else kind
        mark = ReferenceMark(name, name, kind, value, bool(policy.get("optimistic", False)))
        by_kind.setdefault(kind, []).append(mark)
    out = []
    for kind, label in (("chance", "chance"), ("trivial", "best trivial"), ("oracle", "oracle")):
        marks = by_kind.get(kind, [])
        if not marks:
            continue
        if kind == "trivial":
            scored = [m for m in marks if m.value is not None]
            sign = 1.0 if higher_is_better else -1.0
            best = max(scored, key=lambda m: sign * float(m.value or 0.0)) if scored else marks[0]
            out.append(best._replace(label=label))
        else:
            out.extend(m._replace(label=label if len(marks) == 1 else m.name) for m in marks)
    return out


def reference_text(
    values: Mapping[str, float | None],
    policies: Sequence[Mapping[str, Any]] = (),
    higher_is_better: bool = True,
    fmt: Callable[[float], str] = "{:.4f}".format,
) -> str:
    """``chance 0.2500, best trivial 0.4000 [best constant, optimistic], oracle 1.0000``: the marks of
    :func:`reference_marks` in words, ``–`` for a value a policy cannot give ("" when there are none).

    >>> reference_text({"chance": 0.5, "never": 0.0}, [{"name": "never", "kind": "trivial"}], fmt="{:.2f}".format)
    'chance 0.50, best trivial 0.00 [never]'
    """
    return ", ".join(mark_text(mark, fmt) for mark in reference_marks(values, policies, higher_is_better))


def mark_text(mark: ReferenceMark, fmt: Callable[[float], str]) -> str:
    """One reference mark in words: ``best trivial 0.40 [never, optimistic]`` (``–`` for no value; the best
    trivial policy named, an optimistic value said so)."""
    shown = "–" if mark.value is None else fmt(mark.value)
    tags = ([mark.name] if mark.label == "best trivial" else []) + (["optimistic"] if mark.optimistic else [])
    return f"{mark.label} {shown}" + (f" [{', '.join(tags)}]" if tags else "")

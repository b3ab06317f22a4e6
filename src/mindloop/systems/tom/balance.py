"""Balanced subsets for a first look: ``n`` questions spread evenly over each dimension a dataset reports, one
dimension at a time (Hi-ToM: order, deception, story length, prompting type; ToMi: question type, and story and
question type where the ``.trace`` gives them).

"One dimension at a time" means each dimension's own counts are as even as the data allows (20 Hi-ToM questions:
4 of each order 0-4, 10 with deception and 10 without, 5 of each length 1-4, 10 per prompting type), not that every
combination of values appears. :func:`balanced_ids` finds such a subset deterministically: a greedy pick of the
question that fills the most missing slots, then swaps that lower the total distance from the targets until none
does.

>>> items = [(f"q{i}", {"order": str(i % 5), "deception": str(i % 2 == 0)}) for i in range(40)]
>>> ids = balanced_ids(items, 10, ("order", "deception"))
>>> sorted(Counter(dict(items)[i]["order"] for i in ids).values()), Counter(dict(items)[i]["deception"] for i in ids)
([2, 2, 2, 2, 2], Counter({'True': 5, 'False': 5}))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from mindloop.bench.api import Sample
from mindloop.errors import InvalidArgumentError

HITOM_DIMENSIONS = ("question_order", "deception", "length", "prompting_type")
"""What Hi-ToM reports questions by (its own labels)."""
TOMI_DIMENSIONS = ("type", "story_type", "question_type")
"""What ToMi reports questions by (the type always; story and question type from a release's ``.trace``)."""


def _targets(values: Sequence[str], n: int) -> dict[str, int]:
    """``n`` split as evenly as possible over ``values`` (sorted; the first ones get the remainder)."""
    ordered = sorted(set(values))
    base, extra = divmod(n, len(ordered))
    return {v: base + (1 if i < extra else 0) for i, v in enumerate(ordered)}


def _distance(counts: Mapping[str, Counter[str]], targets: Mapping[str, Mapping[str, int]]) -> int:
    return sum(abs(counts[d][v] - t) for d, tv in targets.items() for v, t in tv.items())


def balanced_ids(items: Sequence[tuple[str, Mapping[str, str]]], n: int, dimensions: Sequence[str]) -> list[str]:
    """The ids of ``n`` of ``items`` (``(id, {dimension: value})``) balanced over each of ``dimensions`` (those an
    item lacks are ignored; a dimension no item has is dropped), in the items' order. Deterministic."""
    if n < 0:
        raise InvalidArgumentError(f"n must be >= 0, got {n}")
    if n >= len(items):
        return [i for i, _ in items]
    dims = [d for d in dimensions if any(d in labels for _, labels in items)]
    targets = {d: _targets([labels[d] for _, labels in items if d in labels], n) for d in dims}
    counts: dict[str, Counter[str]] = {d: Counter() for d in dims}
    chosen: list[int] = []
    free = set(range(len(items)))

    def gain(i: int) -> int:
        labels = items[i][1]
        return sum(1 if counts[d][labels[d]] < targets[d][labels[d]] else -1 for d in dims if d in labels)

    def move(i: int, sign: int) -> None:
        for d in dims:
            if d in items[i][1]:
                counts[d][items[i][1][d]] += sign

    for _ in range(n):
        best = max(sorted(free), key=lambda i: (gain(i), -i))
        chosen.append(best)
        free.discard(best)
        move(best, 1)

    improved = True
    while improved:
        improved = False
        now = _distance(counts, targets)
        for pos, out in enumerate(chosen):
            for inn in sorted(free):
                move(out, -1)
                move(inn, 1)
                after = _distance(counts, targets)
                if after < now:
                    chosen[pos] = inn
                    free.discard(inn)
                    free.add(out)
                    improved = True
                    break
                move(inn, -1)
                move(out, 1)
            if improved:
                break
    keep = set(chosen)
    return [items[i][0] for i in sorted(keep)]


def sample_dimensions(sample: Sample, dimensions: Sequence[str]) -> dict[str, str]:
    """A sample's value in each of ``dimensions`` it carries (``type`` is its question type)."""
    out = {}
    for d in dimensions:
        value = sample.group if d == "type" else sample.input.get(d)
        if value is not None and value != "":
            out[d] = str(value)
    return out


def balanced_samples(samples: Sequence[Sample], n: int, dimensions: Sequence[str]) -> list[Sample]:
    """:func:`balanced_ids` over samples, returning the samples (in their order)."""
    ids = set(balanced_ids([(s.id, sample_dimensions(s, dimensions)) for s in samples], n, dimensions))
    return [s for s in samples if s.id in ids]

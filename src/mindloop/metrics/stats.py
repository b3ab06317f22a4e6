"""Statistics every system shares: a mean that says "no data", and precision / recall / F1.

**No data is never a number.** :func:`mean` of nothing is ``None`` — ``null`` in JSON, ``–`` in tables — so an
average over zero samples can never be read as a real 0.0. Callers that need a number must decide what an empty
input means for them, explicitly.

**Precision, recall and F1 of an empty side** follow one convention everywhere (scikit-learn's
``zero_division=0``, which every mindloop scorer already used before this module existed):

* precision ``P = |predicted ∩ gold| / |predicted|``, and ``0`` when nothing was predicted;
* recall ``R = |predicted ∩ gold| / |gold|``, and ``0`` when the gold set is empty;
* ``F1 = 2PR / (P + R)``, the harmonic mean, and ``0`` when ``P + R = 0``.

So two empty sets score ``(0, 0, 0)``: agreeing on nothing is not evidence of skill. A caller for whom an empty
comparison is "nothing to score" (rather than a miss) checks for it first and leaves it out, as OmniToM's order
buckets do.

>>> mean([1.0, 2.0, 4.0]), mean([])
(2.3333333333333335, None)
>>> prf({"a", "b", "c"}, {"b", "c", "d", "e"})
PRF(precision=0.6666666666666666, recall=0.5, f1=0.5714285714285715, n=1)
>>> prf([], ["x"]).f1, prf(["x"], []).f1, prf([], []).f1
(0.0, 0.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from mindloop.errors import InvalidArgumentError


def mean(values: Iterable[float]) -> float | None:
    """The arithmetic mean of ``values``, or ``None`` when there are none ("no data", never 0.0).

    Computed as ``sum / len`` so results are bit-for-bit those of the per-system means it replaces.
    """
    vals = list(values)
    return sum(vals) / len(vals) if vals else None


@dataclass(frozen=True, slots=True)
class PRF:
    """Precision, recall and F1, with ``n``: how many comparisons they summarise.

    ``n`` is 1 for one comparison, ``k`` for a macro average over ``k`` (:func:`macro_prf`), and 0 for an
    average over nothing: then the fields are placeholders, and :meth:`to_json` gives ``null`` for them.
    """

    precision: float
    recall: float
    f1: float
    n: int = 1

    def to_json(self) -> dict[str, float | None]:
        """``{"precision", "recall", "f1"}``; every value ``None`` when ``n == 0`` (no data)."""
        if self.n == 0:
            return {"precision": None, "recall": None, "f1": None}
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1}


def f1_score(precision: float, recall: float) -> float:
    """The harmonic mean ``2PR / (P + R)``; 0 when ``P + R = 0``."""
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def prf_from_counts(matched_predicted: int, n_predicted: int, matched_gold: int, n_gold: int) -> PRF:
    """P/R/F1 from counts: ``P = matched_predicted / n_predicted``, ``R = matched_gold / n_gold``.

    The two matched counts differ when a matching is not one-to-one (OmniToM's MatchCount alignment counts the
    predicted rows that match something and, separately, the gold rows that are matched). Empty sides follow the
    module's convention. Raises :class:`~mindloop.errors.InvalidArgumentError` for a negative count or more
    matches than items.
    """
    for matched, total, side in ((matched_predicted, n_predicted, "predicted"), (matched_gold, n_gold, "gold")):
        if not 0 <= matched <= total:
            raise InvalidArgumentError(f"{matched} matched {side} items out of {total}: expected 0 <= matched <= total")
    p = matched_predicted / n_predicted if n_predicted else 0.0
    r = matched_gold / n_gold if n_gold else 0.0
    return PRF(p, r, f1_score(p, r))


def prf(predicted: Iterable[Hashable], gold: Iterable[Hashable]) -> PRF:
    """Set precision, recall and F1 of ``predicted`` against ``gold`` (duplicates count once)."""
    pred, want = set(predicted), set(gold)
    hits = len(pred & want)
    return prf_from_counts(hits, len(pred), hits, len(want))


def macro_prf(items: Sequence[PRF]) -> PRF | None:
    """The macro average of several scores (the mean of each field), with ``n = len(items)``; ``None`` for none."""
    p, r, f = mean(x.precision for x in items), mean(x.recall for x in items), mean(x.f1 for x in items)
    if p is None or r is None or f is None:
        return None
    return PRF(p, r, f, len(items))

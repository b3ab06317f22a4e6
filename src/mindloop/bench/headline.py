"""Each benchmark's headline metric: the one number ``mindloop runs`` lists and ``mindloop compare`` leads with.

It is the paper's main number for the benchmark, defined here in one place (:data:`HEADLINES`), with whether a
higher value is better. A benchmark class may declare its own as a ``headline`` attribute (a metric key, or a
:class:`Headline`), which wins over the table, so plug-in benchmarks need no change here. A benchmark in neither
falls back to the first top-level numeric metric of its summary, higher being better.

Summary keys that depend on samples occurring more than once get no bootstrap interval (:data:`NO_INTERVALS`;
a benchmark may declare ``no_intervals``): resampling with replacement repeats samples, so such a key would
count the resample's copies as the data's own repeats.

>>> headline_of("tomi")
Headline(metric='accuracy', higher_is_better=True)
>>> headline_of("cwah").higher_is_better
False
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["HEADLINES", "NO_INTERVALS", "Headline", "headline_of", "headline_value", "no_intervals_of"]


@dataclass(frozen=True)
class Headline:
    """A benchmark's main metric (a top-level key of its summary) and its direction."""

    metric: str
    higher_is_better: bool = True

    def to_json(self) -> dict[str, Any]:
        """``{"metric", "higher_is_better"}``."""
        return {"metric": self.metric, "higher_is_better": self.higher_is_better}


HEADLINES: dict[str, Headline] = {
    "tomi": Headline("accuracy"),
    "hitom": Headline("accuracy"),
    "smoke": Headline("accuracy"),
    "mindpower": Headline("sr"),  # Table 2's Action SR (percent)
    "claw": Headline("pia"),  # MindClaw: PIA, intervening only when needed, at the right step
    "omnitom-stage1": Headline("f1"),  # Stage 1 belief-record F1
    "omnitom-stage2": Headline("overall"),  # Stage 2 accuracy over the seven dimensions
    "cwah": Headline("avg_steps", higher_is_better=False),  # CoBel-World: average steps to finish (fewer is better)
    "tdw-mat": Headline("transport_rate"),  # CoBel-World: share of target objects transported
    "tos-active": Headline("avg"),  # Theory of Space: the mean of the task scores
    "tos-passive": Headline("avg"),
}
"""The headline of every built-in benchmark, by its registered name."""

NO_INTERVALS: dict[str, tuple[str, ...]] = {
    "hitom": ("agreed_pairs",),  # story-question pairs held twice: a resample's duplicates would count as pairs
}
"""Top-level summary keys that get no bootstrap interval, by benchmark."""


def _declared(bench: Any) -> Headline | None:
    declared = getattr(bench, "headline", None)
    if isinstance(declared, Headline):
        return declared
    if isinstance(declared, str) and declared:
        return Headline(declared)
    return None


def headline_of(bench: Any, metrics: Mapping[str, Any] | None = None) -> Headline | None:
    """The headline of a benchmark (an object with a ``name``, or a name): its own ``headline`` attribute, else
    :data:`HEADLINES`, else the first top-level number of ``metrics``; ``None`` when none of these gives one."""
    if not isinstance(bench, str) and (declared := _declared(bench)) is not None:
        return declared
    name = bench if isinstance(bench, str) else str(getattr(bench, "name", ""))
    if name in HEADLINES:
        return HEADLINES[name]
    for key, value in (metrics or {}).items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            return Headline(str(key))
    return None


def headline_value(headline: Headline | None, metrics: Mapping[str, Any]) -> float | None:
    """The headline's value in a summary: ``None`` when it is missing or not a number ("no data")."""
    if headline is None:
        return None
    value = metrics.get(headline.metric)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def no_intervals_of(bench: Any) -> tuple[str, ...]:
    """The top-level summary keys of a benchmark that get no interval (its ``no_intervals``, else the table)."""
    declared = getattr(bench, "no_intervals", None)
    if declared is not None and not isinstance(bench, str):
        return tuple(declared)
    name = bench if isinstance(bench, str) else str(getattr(bench, "name", ""))
    return NO_INTERVALS.get(name, ())

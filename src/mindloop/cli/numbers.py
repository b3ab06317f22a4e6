"""One number format per kind of metric, for every table the command line prints.

A count is a whole number (``40``), a proportion has four decimals (``0.8417``), a percentage two (``84.17``) and a
mean four (``12.5000``); no value is ``–``, never a zero. The kind comes from the benchmark's declared metric
(:class:`~mindloop.bench.declaration.Metric`: ``proportion`` or ``mean``, on scale 1 or 100); a metric it does not
declare is a count when it is a whole number and a mean otherwise.

>>> number(0.84166, "proportion"), number(84.166, "percent"), number(40, "count"), number(None, "mean")
('0.8417', '84.17', '40', '–')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from mindloop.bench.api import Benchmark

NumberKind = Literal["count", "proportion", "percent", "mean"]

_FORMATS: dict[str, str] = {"count": "{:.0f}", "proportion": "{:.4f}", "percent": "{:.2f}", "mean": "{:.4f}"}


def number(value: Any, kind: NumberKind) -> str:
    """``value`` in the format of ``kind``; ``–`` for no value (``None``, not a number)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "–"
    if kind == "count" and float(value).is_integer():
        return str(int(value))
    return _FORMATS["mean" if kind == "count" else kind].format(value)


def kind_of(bench: Benchmark | None, name: str, value: Any) -> NumberKind:
    """The kind of the metric ``name`` (its last part: ``by_type.order_0.accuracy`` is ``accuracy``) of ``bench``:
    its declaration's, else a count for a whole number, else a mean."""
    metric = None if bench is None else bench.spec.metric(name.rsplit(".", 1)[-1])
    if metric is not None:
        if metric.scale == 100.0:
            return "percent"
        return "proportion" if metric.kind == "proportion" else "mean"
    if isinstance(value, int) and not isinstance(value, bool):
        return "count"
    return "mean"


def metric_text(bench: Benchmark | None, name: str, value: Any) -> str:
    """``accuracy 0.8417``: the metric ``name`` of ``bench`` and its ``value`` in the format of its kind."""
    return f"{name} {number(value, kind_of(bench, name, value))}"

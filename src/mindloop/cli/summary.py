"""The summary ``mindloop bench run`` prints: the headline first, then one table of breakdowns, then the counts.

In the spirit of lm-eval's table, and on stdout so it pipes:

- the run (benchmark, agent, model, protocol) and its **headline** metric with its 95% interval, its direction and
  the benchmark's reference policies on the same samples (chance, the best trivial policy, the oracle:
  :func:`~mindloop.bench.headline.reference_text`), which never drop at any width;
- **one table**: the whole run (``all``), then each breakdown's rows (``by_type order_0``, a subset such as
  ``dialogue``), with the run's counts and metrics as columns (headline first, with its interval; columns that do
  not fit the width are left out by priority and named). A declared breakdown that splits the samples exactly as
  an earlier one does (Hi-ToM's ``by_order`` and ``by_type``) is shown once and named;
- the other top-level numbers on one line, the settings (words, never in a value column) on another, then how the
  intervals were made and the run's counts (samples, failures, seconds, model calls, tokens);
- ``--verbose``: every metric, one row each, as the run store keeps them.

Numbers follow :mod:`mindloop.cli.numbers`: one format per kind of metric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mindloop.bench.tables import bound_at
from mindloop.cli.numbers import NumberKind, kind_of, metric_text, number
from mindloop.console import Column, out_console, print_table
from mindloop.errors import escaped

if TYPE_CHECKING:
    from rich.console import Console

    from mindloop.bench.api import Benchmark
    from mindloop.bench.records import SampleRecord
    from mindloop.bench.runner import RunSummary


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _leaves(values: Mapping[str, Any], path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every non-dict value under ``values``, by its path (shown as its dotted name; the path also finds its
    interval, whatever dots the names hold)."""
    out: list[tuple[tuple[str, ...], Any]] = []
    for key, value in values.items():
        if isinstance(value, Mapping):
            out += _leaves(value, (*path, str(key)))
        else:
            out.append(((*path, str(key)), value))
    return out


def _is_row(value: Any) -> bool:
    """A breakdown row: a mapping whose leaves hold at least one number."""
    return isinstance(value, Mapping) and any(_is_number(v) for _, v in _leaves(value))


@dataclass
class Layout:
    """What the summary shows, before it is printed: ``rows`` (``(breakdown, row label, {metric: value})``, the
    whole run first as ``("all", "", ...)``), the metric ``columns`` in order, the top-level numbers that are no
    column (``other``), the words (``settings``) and the breakdowns left out as duplicates (``same_as``: left out
    -> the one shown)."""

    rows: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    other: list[tuple[str, Any]] = field(default_factory=list)
    settings: list[tuple[str, str]] = field(default_factory=list)
    same_as: dict[str, str] = field(default_factory=dict)


def layout(
    metrics: Mapping[str, Any],
    headline: str | None,
    same_as: Mapping[str, str] | None = None,
    n: int | None = None,
) -> Layout:
    """Sort a run's ``metrics`` into the summary's parts (breakdowns in ``same_as`` are left out; ``n``: the
    whole run's sample count, when its metrics hold none).

    A top-level mapping is a breakdown when its values are rows (``by_type: {order_0: {accuracy, n}}``), a
    one-row subset when it holds its own ``n`` (``dialogue: {n, sr}``), and a family of metrics otherwise
    (``bertscore: {belief, desire}``: columns ``bertscore.belief``, ...).

    >>> lay = layout({"accuracy": 0.5, "by_type": {"a": {"accuracy": 1.0, "n": 2}, "b": {"accuracy": 0.0, "n": 2}},
    ...               "by_order": {"0": {"accuracy": 1.0, "n": 2}}, "unparsed": 0, "mode": "mcq"}, "accuracy",
    ...              {"by_order": "by_type"})
    >>> [(b, r) for b, r, _ in lay.rows], lay.columns, lay.other, lay.settings
    ([('all', ''), ('by_type', 'a'), ('by_type', 'b')], ['n', 'accuracy'], [('unparsed', 0)], [('mode', 'mcq')])
    """
    same = dict(same_as or {})
    out = Layout(same_as=same)
    overall: dict[str, Any] = {}
    for key, value in metrics.items():
        if key in same:
            continue
        if isinstance(value, Mapping) and value and all(_is_row(v) for v in value.values()):
            for label, row in value.items():
                out.rows.append((key, str(label), {".".join(p): v for p, v in _leaves(row)}))
        elif isinstance(value, Mapping) and _is_number(value.get("n")):
            out.rows.append((key, "", {".".join(p): v for p, v in _leaves(value)}))
        else:  # a family of metrics (each leaf by its dotted name) or one value: a number, else a setting
            for path, leaf in _leaves(value, (key,)) if isinstance(value, Mapping) else [((key,), value)]:
                name = ".".join(path)
                if _is_number(leaf) or leaf is None:
                    overall[name] = leaf
                else:
                    out.settings.append((name, str(leaf)))
    in_rows = [name for _, _, row in out.rows for name, v in row.items() if _is_number(v) or v is None]
    order = ["n", "failed"] + ([headline] if headline else []) + list(dict.fromkeys(in_rows))
    columns = [c for c in dict.fromkeys(order) if c in in_rows or c == headline]
    out.columns = columns
    whole = {k: v for k, v in overall.items() if k in columns}
    if "n" in columns and "n" not in whole and n is not None:  # the whole run's n: its finished samples
        whole["n"] = n
    out.rows.insert(0, ("all", "", whole))
    out.other = [(k, v) for k, v in overall.items() if k not in columns]
    return out


def duplicate_groupings(
    bench: Benchmark, records: Sequence[SampleRecord], shown: Sequence[str] | None = None
) -> dict[str, str]:
    """The declared breakdowns of ``bench`` (those in ``shown``, when given) that split ``records`` into the same
    two or more rows as an earlier one does (whatever their labels), each mapped to that earlier one: showing both
    would repeat the same rows. A breakdown with one row is never left out: its label says what every sample is."""
    seen: dict[tuple[int | None, ...], str] = {}
    same: dict[str, str] = {}
    for metric in bench.spec.metrics:
        for grouping in metric.groupings:
            if grouping.key in same or grouping.key in seen.values():
                continue
            if shown is not None and grouping.key not in shown:
                continue
            first: dict[str, int] = {}  # each label's row, numbered in the order the records meet them
            labels = (grouping.label(r.sample) for r in records)
            shape = tuple(None if label is None else first.setdefault(label, len(first)) for label in labels)
            if len(first) >= 2 and (kept := seen.setdefault(shape, grouping.key)) != grouping.key:
                same[grouping.key] = kept
    return same


def _bound(bounds: Mapping[str, Any], path: Sequence[str]) -> dict[str, Any] | None:
    """The interval of the metric at ``path``, read as :func:`~mindloop.bench.tables.bound_at` reads it."""
    found = bound_at(bounds, path)
    return found if isinstance(found, dict) and "low" in found else None


_NO_INTERVAL = "—"
"""What every view shows where a number has no interval (the reason is in the intervals' ``none``)."""


def _interval(bound: Mapping[str, Any] | None, kind: NumberKind) -> str:
    return _NO_INTERVAL if not bound else f"[{number(bound['low'], kind)}, {number(bound['high'], kind)}]"


def _title(summary: RunSummary) -> str:
    parts = [summary.benchmark, summary.agent] + ([escaped(summary.model)] if summary.model else [])
    p = summary.protocol
    if p and summary.model:  # the reply protocol says nothing about an agent that asks no model
        parts.append(str(p["name"]))  # "single-shot", "1 format retry", "2 format retries"
    if summary.model and summary.replies:  # how many of the model's replies could not be read, first
        unread = int(summary.replies.get("rejected", 0))
        parts.append(f"{unread} unreadable repl{'y' if unread == 1 else 'ies'}")
    return " · ".join(parts)


def _decided_line(summary: RunSummary, bench: Benchmark | None) -> str | None:
    """For a model run of a benchmark that declares who decided (:class:`~mindloop.bench.declaration.Decided`):
    ``model decided 0 of 256 windows · acc 1.0000, ... over every decision, whoever decided · acc_model –``."""
    if not summary.model or bench is None or bench.spec.decided is None:
        return None
    return bench.spec.decided.line(summary.metrics, lambda v: number(v, "mean"))


def _headline_line(summary: RunSummary, bench: Benchmark | None) -> str | None:
    """``accuracy 0.8000 [0.7100, 0.8700], higher is better · chance 0.3542, oracle 1.0000``: the headline with its
    interval, direction and reference policies (or a word that the benchmark declares none yet); a headline that
    is null (nothing could be scored) reads ``–`` with a word, never a number."""
    from mindloop.bench.headline import headline_of, reference_text

    head = headline_of(bench or summary.benchmark, summary.metrics)
    if head is None or head.metric not in summary.metrics:
        return None
    value = summary.metrics[head.metric]
    scored = _is_number(value)
    kind = kind_of(bench, head.metric, value if scored else 0.0)
    bound = _bound(summary.intervals.get("metrics", {}), (head.metric,)) if scored else None
    refs = reference_text(
        summary.references, summary.reference_policies, head.higher_is_better, fmt=lambda v: number(v, kind)
    )
    shown = number(value, kind) if scored else "– (not scored: see the reasons below)"
    ci = f" {_interval(bound, kind)}" if scored else ""
    better = "higher" if head.higher_is_better else "lower"
    tail = refs or "no reference policies declared for this benchmark yet"
    return f"{head.metric} {shown}{ci}, {better} is better · {tail}"


def _table_rows(
    lay: Layout, bench: Benchmark | None, bounds: Mapping[str, Any], headline: str | None
) -> tuple[list[Column], list[list[str]]]:
    columns = [Column("breakdown"), Column("row", shrink=12)]
    ci_at = None
    for i, name in enumerate(lay.columns):
        if name == headline:
            columns.append(Column(name, justify="right"))
            columns.append(Column("95% CI", drop=90))
            ci_at = len(columns) - 1
        else:
            columns.append(Column(name, justify="right", drop=100 if name == "n" else 80 - i))
    rows = []
    for breakdown, label, values in lay.rows:
        cells = [breakdown, label]
        for name in lay.columns:
            value = values.get(name)
            kind = kind_of(bench, name, value)
            cells.append(number(value, kind) if name in values else "")
            if name == headline:
                path = (headline,) if breakdown == "all" else tuple(p for p in (breakdown, label, name) if p)
                cells.append(_interval(_bound(bounds, path), kind) if _is_number(value) else "")
        rows.append(cells)
    if ci_at is not None and not any(r[ci_at] for r in rows):  # no number to bound anywhere: no column for it
        columns.pop(ci_at)
        rows = [r[:ci_at] + r[ci_at + 1 :] for r in rows]
    return columns, rows


def _headline_subset(lay: Layout, bounds: Mapping[str, Any], headline: str | None) -> str | None:
    """When the headline counts fewer samples than the ``all`` row's ``n`` (a metric declared ``within`` a subset,
    such as MindClaw's PIA over the episodes that need help), set that row's ``n`` to the headline's, which its
    interval rests on, and return the line that says so; ``None`` otherwise (or for a run stored without it)."""
    bound = _bound(bounds, (headline,)) if headline else None
    counted = None if bound is None else bound.get("n")
    whole = lay.rows[0][2] if lay.rows and lay.rows[0][0] == "all" else None
    if not isinstance(counted, int) or whole is None or not _is_number(whole.get("n")) or whole["n"] == counted:
        return None
    of = whole["n"]
    whole["n"] = counted
    return f"n of the all row: the {counted} samples {headline} is computed over, of {number(of, 'count')}."


def _say(console: Console, text: str, sep: str = " · ") -> None:
    """Print ``text``, a line of ``sep``-separated parts: whole when it fits the width, else packed part by part
    into lines that fit (later lines indented), so a label is never parted from its value."""
    parts = text.split(sep)
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + len(sep) + len(part) <= console.width:
            lines[-1] += sep + part
        else:
            lines.append(("  " if lines else "") + part)
    for i, line in enumerate(lines):
        tail = sep.rstrip() if i < len(lines) - 1 and sep.strip() not in ("", "·") else ""
        console.print(line + tail, markup=False, soft_wrap=True)


def print_summary(
    summary: RunSummary,
    *,
    verbose: bool = False,
    same_as: Mapping[str, str] | None = None,
    console: Console | None = None,
) -> None:
    """The run's summary on stdout (``console``): headline, the breakdown table, the other numbers, the counts.
    Lines of words wrap between words at the console's width; table cells never wrap."""
    from mindloop.bench.headline import headline_of
    from mindloop.bench.registry import installed_benchmark

    console = console or out_console()
    bench = installed_benchmark(summary.benchmark)
    head = headline_of(bench or summary.benchmark, summary.metrics)
    headline = None if head is None else head.metric
    console.print(_title(summary), style="bold", markup=False, soft_wrap=True)  # one line, whatever its width
    line = _headline_line(summary, bench)
    _say(console, line or "no headline metric")
    if decided := _decided_line(summary, bench):
        _say(console, decided)
    lay = layout(summary.metrics, headline, same_as, summary.n_completed)
    bounds = summary.intervals.get("metrics", {})
    subset = _headline_subset(lay, bounds, headline)
    columns, rows = _table_rows(lay, bench, bounds, headline)
    if len(rows) > 1 or len(columns) > 3:
        console.print()
        dropped = print_table(console, columns, rows)
        if dropped:
            more = f" and {len(dropped) - 4} more" if len(dropped) > 4 else ""
            console.print(
                f"not shown at this width: {', '.join(dropped[:4])}{more} (--verbose lists every metric)",
                markup=False,
            )
    if subset is not None:
        _say(console, subset, sep=" ")
    for gone, kept in lay.same_as.items():
        console.print(f"{gone}: the same samples as {kept}, not repeated", markup=False)
    if lay.other:
        _say(console, "also: " + " · ".join(metric_text(bench, k, v) for k, v in lay.other))
    if short := [(k, v) for k, v in lay.settings if " " not in v]:
        _say(console, "settings: " + " · ".join(f"{k} {v}" for k, v in short))
    for key, text in lay.settings:
        if " " in text:
            console.print(f"{key}: {text}", markup=False)
    if verbose:
        console.print()
        _print_every_metric(summary, bench, console)
    _print_counts(summary, console)


def _print_every_metric(summary: RunSummary, bench: Benchmark | None, console: Console) -> None:
    """``--verbose``: every metric, one row each, with its interval and standard error."""
    bounds = summary.intervals.get("metrics", {})
    rows = []
    for path, value in _leaves(summary.metrics):
        if not (_is_number(value) or value is None):
            continue  # words are in the settings lines above
        key = ".".join(path)
        kind = kind_of(bench, key, value)
        bound = _bound(bounds, path)
        shown = number(value, kind)
        se = number(bound["se"], kind) if bound and bound.get("se") is not None else ""
        rows.append([key, shown, _interval(bound, kind) if _is_number(value) else "", se])
    columns = [
        Column("metric"),
        Column("value", justify="right"),
        Column("95% CI", drop=2),
        Column("SE", justify="right", drop=1),
    ]
    print_table(console, columns, rows, "every metric")


def _failed_words(summary: RunSummary) -> str:
    """``3 failed (2 model/transport, 1 unanswered or unparsed)``, or ``0 failed``."""
    if not summary.n_failed:
        return "0 failed"
    other = summary.n_failed - summary.n_model_failures
    return f"{summary.n_failed} failed ({summary.n_model_failures} model/transport, {other} unanswered or unparsed)"


def _print_counts(summary: RunSummary, console: Console) -> None:
    """How the intervals were made, the samples and failures, the model calls and where the report is."""
    from mindloop.bench.uncertainty import without_interval

    iv = summary.intervals
    if iv.get("method"):
        gone = "; ".join(f"{why}: {', '.join(paths)}" for why, paths in without_interval(iv))
        _say(
            console,
            f"95% CI: {iv['method']}, {iv['resamples']} resamples, seed {iv['seed']}"
            + (f"; {_NO_INTERVAL} (no interval) where {gone}" if gone else ""),
            sep=", ",
        )
    pending = summary.n - summary.n_completed
    bugs = f", {summary.n_bugs} hit a bug" if summary.n_bugs else ""
    left = f", {pending} pending" if pending else ""
    t = summary.tokens
    _say(
        console,
        f"run {summary.run_id}: {summary.n_completed}/{summary.n} samples, {_failed_words(summary)} (scored as "
        f"wrong){bugs}{left}, {summary.seconds:.2f} s; {t['calls']} model calls ({t['cache_hits']} cached), "
        f"{t['total_tokens']} tokens",
        sep=", ",
    )
    if summary.replies:
        r = summary.replies
        _say(
            console,
            f"agent replies: {r['parsed']} parsed, {r['rejected']} rejected by the parser, {r['no_reply']} no reply"
            + (f", {r['unread']} read without a parser" if r["unread"] else "")
            + f"; {r['retries']} format retries"
            + (f"; {r['cut_at_limit']} cut at the token limit (raise --max-tokens)" if r.get("cut_at_limit") else ""),
            sep=", ",
        )
    console.print(f"report: mindloop report {summary.run_id}", markup=False)

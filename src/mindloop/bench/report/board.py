"""``mindloop board``: one self-contained HTML page over every run and suite in the store.

:func:`board_data` reads the store's run rows, suites and *stored* summaries (the ``run_summaries`` table: the
numbers each run reported, with its headline definition and reference policies); it never imports a benchmark or
recomputes a metric, so a board over thousands of runs is written in seconds. A run without a stored summary is
listed with no headline (``mindloop report RUN_ID`` computes and keeps one); a run whose stored summary no longer
covers every finished sample (samples finished or were retried since) shows it marked ``stale``.

:func:`render_board` lays the data out as one HTML file (template ``board.html``): a leaderboard per benchmark
(one row per agent and model: its best-covered run, the headline with its 95% interval and the reference
policies chance, best trivial and oracle, formatted by :func:`~mindloop.bench.headline.reference_marks`), the
suites, and every run in a table paged 100 rows at a time. The data travels as one embedded JSON blob that the
page's script filters (benchmark, model, suite, status, text), sorts and pages, so the page stays quick with
thousands of runs; the filters and sort live in the URL's ``#`` fragment, so a view can be bookmarked.

Links: a run's id links to ``RUN_ID.html`` (a suite's to ``SUITE_ID.html``) when that file is in the board's folder
when the board is written (``mindloop report RUN_ID`` run there writes it); otherwise the page shows the command
that writes it. Runs ticked in the tables give the ``mindloop compare`` command (the first ticked is the
baseline). :func:`serve_board` serves the page on ``127.0.0.1``, built afresh on each request, with every run's
report and any comparison rendered on demand, and the open page reloads itself when the store changes.

Everything from the store is escaped: the template autoescapes, the JSON blob has ``<``, ``>`` and ``&`` as ``\\u``
escapes, and the script builds the tables with ``textContent`` only.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from mindloop._version import __version__
from mindloop.bench.declaration import Decided
from mindloop.bench.headline import reference_marks
from mindloop.bench.key import REASONS, RunKey, describe_difference, key_differences
from mindloop.bench.listing import list_runs
from mindloop.bench.report import ci_or_dash, fmt_value
from mindloop.bench.report.view import footer, number, render, script_json
from mindloop.bench.runner import current_summary, stored_policies
from mindloop.bench.store import RunInfo, RunStore
from mindloop.bench.tables import interval_at
from mindloop.errors import MindloopError
from mindloop.paths import output_file, write_atomic

__all__ = ["PAGE_SIZE", "board_data", "render_board", "serve_board", "store_stamp", "write_board"]

PAGE_SIZE = 100
"""Rows of the run table drawn at a time (the rest stay in the JSON blob until paged to)."""


def _headline(summary: Mapping[str, Any]) -> tuple[str, bool] | None:
    """The stored headline (metric, higher is better); a summary whose benchmark declares none falls back to its
    first top-level number, as :func:`~mindloop.bench.headline.headline_of` does, without importing anything."""
    head = (summary.get("definitions") or {}).get("headline")
    if isinstance(head, Mapping) and head.get("metric"):
        return str(head["metric"]), bool(head.get("higher_is_better", True))
    for key, value in (summary.get("metrics") or {}).items():
        if number(value) is not None:
            return str(key), True
    return None


def _summary_fields(summary: dict[str, Any] | None, info: RunInfo) -> dict[str, Any]:
    """A run's headline fields from its stored summary (all empty when it has none; ``stale`` when it does not cover
    every finished sample, :func:`~mindloop.bench.runner.current_summary`); for a model run of a
    benchmark that declares who decided, ``decided`` (``model decided k of N windows``) and, when the model
    decided nothing, ``unranked`` (the leaderboard gives it no rank)."""
    out: dict[str, Any] = {"summary": "none", "metric": None, "hib": True, "value": None, "text": "–"}
    out |= {"low": None, "high": None, "ci": "", "refs": []}
    if summary is None:
        return out
    out["summary"] = "current" if current_summary(summary, info) is not None else "stale"
    head = _headline(summary)
    if head is None:
        return out
    metric, hib = head
    value = number((summary.get("metrics") or {}).get(metric))
    interval = interval_at(summary.get("intervals"), (metric,))
    policies = stored_policies(summary)
    values = summary.get("references") or {}
    values = {str(k): number(v) for k, v in values.items()} if isinstance(values, Mapping) else {}
    marks = _marks(json.dumps([values, [p for p in policies if isinstance(p, Mapping)], hib]))
    out |= {"metric": metric, "hib": hib, "value": value, "text": fmt_value(value)}
    # ci: — for a value with no interval (too few samples, or the resamples collapse: the run's report says why)
    low, high = interval or (None, None)
    out |= {"low": low, "high": high, "ci": ci_or_dash({"low": low, "high": high}, value)}
    decided = Decided.from_json((summary.get("definitions") or {}).get("decided"))
    metrics = summary.get("metrics") or {}
    if info.model and decided is not None and decided.text(metrics):
        out["decided"] = decided.text(metrics)
        if not decided.influenced(metrics):  # every number of the run is what runs without the model give
            out["unranked"] = str(out["decided"])
    out["refs"] = [dict(m) for m in marks]
    return out


@lru_cache(maxsize=4096)
def _marks(key: str) -> tuple[Mapping[str, Any], ...]:
    """The reference marks of ``[values, policies, higher_is_better]`` (as JSON: runs of a benchmark on the same
    samples share them, so each set is worked out once), by :func:`~mindloop.bench.headline.reference_marks`."""
    values, policies, hib = json.loads(key)
    return tuple(
        {"label": m.label, "name": m.name, "value": m.value, "text": fmt_value(m.value), "optimistic": m.optimistic}
        for m in reference_marks(values, policies, hib)
    )


def board_data(store: RunStore, *, folder: Path | None = None, tags: Sequence[str] = ()) -> dict[str, Any]:
    """The board's numbers, as ``mindloop board --json`` prints them and the page shows them: every benchmark with
    a run (its headline metric and direction), every suite, every run with its state, counts, suite, stored
    headline (value, interval, reference marks), key id, team, tags and ``report`` (``RUN_ID.html`` when that file
    is in ``folder``, the board's folder, else ``None``), and the ``leaderboards`` (:func:`leaderboards`). ``tags``:
    only the runs that carry every one of them."""
    lines, damage = list_runs(store, metrics=False, derive_keys=False)
    if tags:
        lines = [line for line in lines if set(tags) <= set(line.tags)]
    try:
        summaries = store.stored_headlines()
    except (MindloopError, sqlite3.DatabaseError):  # a damaged store: read them one by one below
        summaries = {}
    suite_of: dict[str, str] = {}  # a later suite's claim on a run wins, as suites() lists them
    suites = []
    for suite in store.suites() if damage is None else []:
        members = store.suite_members(suite.suite_id)
        suite_of.update({run_id: suite.suite_id for _, _, run_id in members})
        planned = suite.config.get("benchmarks")
        planned = planned if isinstance(planned, list) else []
        models = suite.config.get("models") or [suite.model]  # several: each model's runs side by side
        suites.append(
            {
                "id": suite.suite_id,
                "model": ", ".join(m or "default agents" for m in models) if len(models) > 1 else suite.model,
                "models": models,
                "preset": suite.preset,
                "started": suite.started,
                "finished": suite.finished,
                "runs": len(members),
                "planned": len(set(planned) | {b for b, _, _ in members}) * len(models),
                "report": _beside(folder, suite.suite_id),
            }
        )
    runs = []
    for line in lines:
        info = line.info
        summary = summaries.get(info.run_id)
        if summary is None and damage is not None:
            with contextlib.suppress(MindloopError, sqlite3.DatabaseError):
                summary = store.stored_summary(info.run_id)
        runs.append(
            {
                "id": info.run_id,
                "benchmark": info.benchmark,
                "agent": info.agent,
                "model": info.model,
                "suite": suite_of.get(info.run_id),
                "status": line.state,
                "started": info.started,
                "finished": info.finished,
                "seconds": round(info.seconds, 1),
                "n": info.n,
                "done": info.n_completed if info.samples_readable else None,
                "failed": info.n_failed if info.samples_readable else None,
                "bugs": info.n_bugs if info.samples_readable else None,
                **_summary_fields(summary, info),
                "key": None if line.key is None or line.key.unknown else line.key.id,
                "team": None if line.key is None else line.key.team,
                "tags": list(line.tags),
                "report": _beside(folder, info.run_id),
            }
        )
    benchmarks: dict[str, dict[str, Any]] = {}
    for run in runs:
        entry = benchmarks.setdefault(run["benchmark"], {"name": run["benchmark"], "metric": None, "hib": True})
        entry["runs"] = entry.get("runs", 0) + 1
        if run["metric"] is not None:  # the latest stored definition wins (runs are oldest first)
            entry["metric"], entry["hib"] = run["metric"], run["hib"]
    return {
        "version": __version__,
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "store": store.path.name,
        "damage": None if damage is None else str(damage),
        "page_size": PAGE_SIZE,
        "benchmarks": [benchmarks[name] for name in sorted(benchmarks)],
        "suites": suites,
        "leaderboards": leaderboards(runs, {line.info.run_id: line.key for line in lines}, benchmarks),
        "runs": runs,
    }


def _board_key(key: RunKey, protocol: Mapping[str, Any] | None) -> RunKey:
    """The key a leaderboard ranks under: ``key``'s comparable fields with ``protocol``, no team."""
    return RunKey(key.benchmark, key.declaration, key.options, key.data, key.samples, protocol)


def _incomplete(run: Mapping[str, Any]) -> str:
    done = run["done"]
    if done is None:
        return "its samples cannot be counted (a damaged store)"
    if run["status"] == "stopped" and not done:
        return f"stopped before any of its {run['n']:,} samples finished (a set-up error or an interruption)"
    return f"{run['status']}: {done:,} of {run['n']:,} samples finished"


def leaderboards(
    runs: Sequence[Mapping[str, Any]],
    keys: Mapping[str, RunKey | None],
    benchmarks: Mapping[str, Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """The ``leaderboards`` of ``board --json``: for each benchmark, one leaderboard per comparability key that a
    complete run has (:mod:`mindloop.bench.key`), ranking only the complete runs with that key, and the benchmark's
    other runs listed apart with the reason.

    A run is complete when every one of its samples finished (a stopped, running or stale run never is, nor one
    stopped by a set-up error before any sample). Runs are grouped by the key's fields but the team and model: a
    run with no model has no protocol (nothing was asked of a model) and is ranked on every leaderboard of its
    sample set. One entry per team (canonical) and model: its latest complete run with a stored headline, the
    others of the entry in ``runs``; ranked by the headline in its direction (``rank`` shared by equal values;
    ``None`` without a headline). ``apart``: every other run of the benchmark with ``reason`` (``key unknown``,
    ``incomplete``, or the first key field it differs in: ``other declaration``, ``other options``, ``other
    data``, ``other sample set``, ``other protocol``) and ``detail``, one line. A benchmark with no complete run
    gets one leaderboard with ``key`` ``None`` and every run apart."""
    out: list[dict[str, Any]] = []
    by_bench: dict[str, list[Mapping[str, Any]]] = {}
    for run in runs:
        by_bench.setdefault(run["benchmark"], []).append(run)
    for name in sorted(by_bench):
        rows = by_bench[name]
        hib = bool(benchmarks.get(name, {}).get("hib", True))
        complete = [r for r in rows if _known(keys.get(r["id"])) and r["status"] == "finished"]
        boards: dict[str, RunKey] = {}  # board key id -> its key, in the order runs first made them
        known = [key for run in complete if (key := keys[run["id"]]) is not None]
        # model runs first, then runs with no model: the boards of their sample set, or one of their own
        for key in sorted(known, key=lambda k: k.protocol is None):
            board = _board_key(key, key.protocol)
            if key.protocol is not None or not any(_same_set(board, b) for b in boards.values()):
                boards.setdefault(board.id, board)
        if not boards:
            out.append({"benchmark": name, "key": None, "ranked": [], "apart": [_apart(r, keys, None) for r in rows]})
            continue
        for board in boards.values():
            members = [r for r in complete if _fits(keys[r["id"]], board)]
            inside = {r["id"] for r in members}
            out.append(
                {
                    "benchmark": name,
                    "key": _board_json(board),
                    "ranked": _ranked(members, keys, hib),
                    "apart": [_apart(r, keys, board) for r in rows if r["id"] not in inside],
                }
            )
    return out


def _known(key: RunKey | None) -> bool:
    return key is not None and key.unknown is None


def _same_set(a: RunKey, b: RunKey) -> bool:
    """Whether ``a`` and ``b`` agree on every key field but the protocol."""
    return key_differences(a, b) in ([], ["protocol"])


def _fits(key: RunKey | None, board: RunKey) -> bool:
    """Whether a complete run with ``key`` is ranked on the leaderboard of ``board``."""
    if key is None:
        return False
    if key.protocol is None:
        return _same_set(_board_key(key, None), board)
    return not key_differences(_board_key(key, key.protocol), board)


def _board_json(board: RunKey) -> dict[str, Any]:
    out = board.to_json()
    del out["team"]
    return out


def _ranked(members: Sequence[Mapping[str, Any]], keys: Mapping[str, RunKey | None], hib: bool) -> list[dict[str, Any]]:
    entries: dict[tuple[str | None, str | None], list[Mapping[str, Any]]] = {}
    for run in members:
        key = keys[run["id"]]
        entries.setdefault((None if key is None else key.team, run["model"]), []).append(run)
    ranked = []
    for (team, model), group in entries.items():
        best = max(enumerate(group), key=lambda t: (t[1]["value"] is not None, t[1]["summary"] == "current", t[0]))[1]
        ranked.append(
            {
                "run_id": best["id"],
                "team": team,
                "agent": best["agent"],
                "model": model,
                **{field: best[field] for field in ("value", "low", "high", "n")},
                "runs": [r["id"] for r in group],
                **({"unranked": best["unranked"]} if best.get("unranked") else {}),
            }
        )
    # a run is ranked only on a number its model influenced (``unranked`` says why not)
    valued = sorted(
        (e for e in ranked if e["value"] is not None and "unranked" not in e), key=lambda e: e["value"], reverse=hib
    )
    rank, last = 0, None
    for i, entry in enumerate(valued):
        if entry["value"] != last:
            rank, last = i + 1, entry["value"]
        entry["rank"] = rank
    rest = [e | {"rank": None} for e in ranked if e["value"] is None or "unranked" in e]
    return valued + rest


def _apart(run: Mapping[str, Any], keys: Mapping[str, RunKey | None], board: RunKey | None) -> dict[str, Any]:
    key = keys.get(run["id"])
    base = {"run_id": run["id"], "team": None if key is None else key.team, "model": run["model"]}
    if key is None or key.unknown is not None:
        return base | {"reason": "key unknown", "detail": "no key" if key is None else key.unknown}
    if run["status"] != "finished":
        return base | {"reason": "incomplete", "detail": _incomplete(run)}
    assert board is not None  # a complete run with a known key always makes a board
    mine = _board_key(key, key.protocol if key.protocol is not None else board.protocol)
    field = next(iter(key_differences(mine, board)), "protocol")
    return base | {
        "reason": REASONS[field],
        "detail": describe_difference(field, mine, board) + ": this run's, then the leaderboard's",
    }


def _beside(folder: Path | None, name: str) -> str | None:
    """``NAME.html`` when that file is in ``folder`` (a relative link from a page there), else ``None``."""
    if folder is None:
        return None
    return f"{name}.html" if (folder / f"{name}.html").is_file() else None


def render_board(data: Mapping[str, Any], *, serve: bool = False) -> str:
    """The self-contained HTML page of a :func:`board_data` dictionary. ``serve`` (the page of
    :func:`serve_board`) links every run to its report and the ticked runs to their comparison, served on demand,
    and makes the page reload itself when the store changes."""
    runs = data["runs"]
    return render(
        "board",
        title="mindloop board",
        data=data,
        counts={
            "runs": len(runs),
            "benchmarks": len(data["benchmarks"]),
            "models": len({(r["agent"], r["model"]) for r in runs}),
            "suites": len(data["suites"]),
            "finished": sum(r["status"] == "finished" for r in runs),
        },
        serve=serve,
        blob=script_json(data),
        footer=footer(data["store"], live=serve, when=data["generated"]),
    )


def write_board(store: RunStore, out: Path | None = None, *, tags: Sequence[str] = ()) -> tuple[Path, dict[str, Any]]:
    """Write the board to ``out`` (default ``board.html`` here; an existing folder gets ``board.html`` inside),
    whole or not at all; returns the path and the data it shows (``tags``: only runs carrying every one)."""
    path = output_file(None if out is None else Path(out), "board.html")
    data = board_data(store, folder=path.parent, tags=tags)
    write_atomic(path, render_board(data))
    return path, data


# -- serving ------------------------------------------------------------------------------------------------------


def store_stamp(path: Path) -> str:
    """A token that changes whenever the store file (or its write-ahead log) is written."""
    parts = []
    for name in (path, path.with_name(path.name + "-wal")):
        try:
            st = name.stat()
        except OSError:
            parts.append("-")
        else:
            parts.append(f"{st.st_mtime_ns}:{st.st_size}")
    return "/".join(parts)


def _page(
    store_path: Path, route: str, query: Mapping[str, list[str]], tags: Sequence[str] = ()
) -> tuple[int, str, str]:
    """The status, content type and body the server answers ``route`` with."""
    if route == "/stamp":
        return HTTPStatus.OK, "text/plain; charset=utf-8", store_stamp(store_path)
    if not store_path.exists():
        return HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", f"no run store at {store_path} yet\n"
    with RunStore(store_path, readonly=True) as store:
        if route in ("/", "/index.html", "/board.html"):
            return HTTPStatus.OK, "text/html; charset=utf-8", render_board(board_data(store, tags=tags), serve=True)
        if route == "/board.json":
            return HTTPStatus.OK, "application/json", json.dumps(board_data(store, tags=tags))
        if route == "/compare.html":
            from mindloop.bench.compare import compare_runs
            from mindloop.bench.report.compare import render_compare

            ids = [i for part in query.get("ids", []) for i in part.split(",") if i]
            return HTTPStatus.OK, "text/html; charset=utf-8", render_compare(compare_runs(store, ids))
        name = route.lstrip("/").removesuffix(".html")
        if route.endswith(".html") and "/" not in name:
            from mindloop.bench.report import render_report

            if name in {s.suite_id for s in store.suites()}:
                from mindloop.bench.report.suite import render_suite_report, suite_report

                return HTTPStatus.OK, "text/html; charset=utf-8", render_suite_report(suite_report(store, name))
            store.run(name)  # an unknown run is a 404 naming the recent runs
            return HTTPStatus.OK, "text/html; charset=utf-8", render_report(name, store)
    return HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", f"no page {route}\n"


_LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""The names the served board answers to in a request's ``Host`` header (with its port): no other site's page can
read it through a DNS name that resolves to this machine (DNS rebinding)."""


def _handler(store_path: Path, tags: Sequence[str] = ()) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = f"mindloop-board/{__version__}"

        def do_GET(self) -> None:  # the name http.server calls
            url = urlsplit(self.path)
            port = self.connection.getsockname()[1]
            try:
                if (self.headers.get("Host") or "").lower() in {f"{host}:{port}" for host in _LOCAL_HOSTS}:
                    status, kind, body = _page(store_path, url.path, parse_qs(url.query), tags)
                else:  # a page elsewhere whose DNS name was rebound to 127.0.0.1 would send its own name here
                    status, kind = HTTPStatus.FORBIDDEN, "text/plain; charset=utf-8"
                    body = f"this board answers only as http://127.0.0.1:{port}/ (or localhost, [::1])\n"
            except MindloopError as exc:
                status, kind, body = HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", f"{exc}\n"
            data = body.encode("utf-8", errors="replace")
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # http.server's signature
            """Quiet: the command's stderr says where it serves, not every request."""

    return Handler


@contextlib.contextmanager
def _stop_on_signals(server: ThreadingHTTPServer) -> Iterator[None]:
    """SIGTERM and SIGINT stop ``server`` (its loop returns) while inside; the previous handlers come back after."""

    def stop(signum: int, frame: object) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def serve_board(
    store_path: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    ready: Callable[[str], None] | None = None,
    tags: Sequence[str] = (),
) -> None:
    """Serve the board of the store at ``store_path`` on ``http://host:port/`` (port 0: a free one) until SIGTERM or
    SIGINT; ``ready`` gets the URL once the socket listens. Each request reads the store afresh (read-only), and only
    a request whose ``Host`` names this machine's loopback with the port is answered (others get 403)."""
    try:
        server = ThreadingHTTPServer((host, port), _handler(store_path, tags))
    except OSError as exc:
        raise MindloopError(f"cannot serve on {host}:{port} ({exc.strerror or exc}): choose another --port") from None
    server.daemon_threads = True
    with server, _stop_on_signals(server):
        url = f"http://{host}:{server.server_address[1]}/"
        if ready is not None:
            ready(url)
        server.serve_forever(poll_interval=0.2)

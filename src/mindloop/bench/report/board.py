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
import math
import signal
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jinja2
from markupsafe import Markup

from mindloop._version import __version__
from mindloop.bench.declaration import Decided
from mindloop.bench.headline import reference_marks
from mindloop.bench.listing import list_runs
from mindloop.bench.report.plots import fmt_number
from mindloop.bench.store import RunStore
from mindloop.errors import MindloopError
from mindloop.paths import output_file, write_atomic

__all__ = ["PAGE_SIZE", "board_data", "render_board", "serve_board", "store_stamp", "write_board"]

PAGE_SIZE = 100
"""Rows of the run table drawn at a time (the rest stay in the JSON blob until paged to)."""


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(float(value)):
        return None
    return float(value)


def _text(value: float | None) -> str:
    return "–" if value is None else fmt_number(value)


def _headline(summary: Mapping[str, Any]) -> tuple[str, bool] | None:
    """The stored headline (metric, higher is better); a summary whose benchmark declares none falls back to its
    first top-level number, as :func:`~mindloop.bench.headline.headline_of` does, without importing anything."""
    head = (summary.get("definitions") or {}).get("headline")
    if isinstance(head, Mapping) and head.get("metric"):
        return str(head["metric"]), bool(head.get("higher_is_better", True))
    for key, value in (summary.get("metrics") or {}).items():
        if _number(value) is not None:
            return str(key), True
    return None


def _interval(summary: Mapping[str, Any], metric: str) -> tuple[float, float] | None:
    """The headline's stored 95% interval (``intervals["metrics"][metric]``: ``{"low", "high", ...}``)."""
    tree = summary.get("intervals")
    tree = tree.get("metrics") if isinstance(tree, Mapping) else None
    entry = tree.get(metric) if isinstance(tree, Mapping) else None
    if not isinstance(entry, Mapping):
        return None
    low, high = _number(entry.get("low")), _number(entry.get("high"))
    return None if low is None or high is None else (low, high)


def _summary_fields(summary: Mapping[str, Any] | None, counts: list[int], model: str | None = None) -> dict[str, Any]:
    """A run's headline fields from its stored summary (all empty when it has none); for a ``model`` run of a
    benchmark that declares who decided, ``decided`` (``model decided k of N windows``) and, when the model
    decided nothing, ``unranked`` (the leaderboard gives it no rank)."""
    out: dict[str, Any] = {"summary": "none", "metric": None, "hib": True, "value": None, "text": "–"}
    out |= {"low": None, "high": None, "ci": "", "refs": []}
    if summary is None:
        return out
    out["summary"] = "current" if summary.get("counts") == counts else "stale"
    head = _headline(summary)
    if head is None:
        return out
    metric, hib = head
    value = _number((summary.get("metrics") or {}).get(metric))
    interval = _interval(summary, metric)
    policies = (summary.get("definitions") or {}).get("references") or []
    values = summary.get("references") or {}
    marks = _marks(
        json.dumps(
            [
                {str(k): _number(v) for k, v in values.items()} if isinstance(values, Mapping) else {},
                [p for p in policies if isinstance(p, Mapping)],
                hib,
            ]
        )
    )
    out |= {"metric": metric, "hib": hib, "value": value, "text": _text(value)}
    if interval is not None:
        out |= {"low": interval[0], "high": interval[1], "ci": f"[{_text(interval[0])}, {_text(interval[1])}]"}
    elif value is not None:
        out["ci"] = "—"  # no interval (too few samples, or the resamples collapse: the run's report says why)
    decided = Decided.from_json((summary.get("definitions") or {}).get("decided"))
    metrics = summary.get("metrics") or {}
    if model and decided is not None and decided.text(metrics):
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
        {"label": m.label, "name": m.name, "value": m.value, "text": _text(m.value), "optimistic": m.optimistic}
        for m in reference_marks(values, policies, hib)
    )


def board_data(store: RunStore, *, folder: Path | None = None) -> dict[str, Any]:
    """The board's numbers, as ``mindloop board --json`` prints them and the page shows them: every benchmark with
    a run (its headline metric and direction), every suite, and every run with its state, counts, suite, stored
    headline (value, interval, reference marks) and ``report``: ``RUN_ID.html`` when that file is in ``folder``
    (the board's folder), else ``None``."""
    lines, damage = list_runs(store, metrics=False)
    try:
        summaries = store.stored_headlines()
    except (MindloopError, sqlite3.DatabaseError):  # a damaged store: read them one by one below
        summaries = {}
    suite_of: dict[str, str] = {}
    suites = []
    for suite in store.suites() if damage is None else []:
        members = store.suite_runs(suite.suite_id)
        suite_of.update({run_id: suite.suite_id for run_id in members.values()})
        planned = suite.config.get("benchmarks")
        planned = planned if isinstance(planned, list) else []
        suites.append(
            {
                "id": suite.suite_id,
                "model": suite.model,
                "preset": suite.preset,
                "started": suite.started,
                "finished": suite.finished,
                "runs": len(members),
                "planned": len(set(planned) | set(members)),
                "report": _beside(folder, suite.suite_id),
            }
        )
    runs = []
    for line in lines:
        info = line.info
        counts = [info.n_done, info.n_failed, info.n_bugs]
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
                **_summary_fields(summary, counts, info.model),
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
        "runs": runs,
    }


def _beside(folder: Path | None, name: str) -> str | None:
    """``NAME.html`` when that file is in ``folder`` (a relative link from a page there), else ``None``."""
    if folder is None:
        return None
    return f"{name}.html" if (folder / f"{name}.html").is_file() else None


@lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    text = (resources.files("mindloop.bench.report") / "board.html").read_text(encoding="utf-8")
    return env.from_string(text)


def _script_json(data: Any) -> str:
    """``data`` as JSON that cannot close the ``<script>`` element holding it (``<``, ``>``, ``&`` escaped)."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_board(data: Mapping[str, Any], *, serve: bool = False) -> str:
    """The self-contained HTML page of a :func:`board_data` dictionary. ``serve`` (the page of
    :func:`serve_board`) links every run to its report and the ticked runs to their comparison, served on demand,
    and makes the page reload itself when the store changes."""
    runs = data["runs"]
    return _template().render(
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
        blob=Markup(_script_json(data)),  # JSON with <, > and & as \u escapes: nothing in it is markup
        footer=f"Generated by mindloop {__version__} on {data['generated']} from {data['store']}. "
        + ("Served live from the store." if serve else "Self-contained: no server, no network."),
    )


def write_board(store: RunStore, out: Path | None = None) -> tuple[Path, dict[str, Any]]:
    """Write the board to ``out`` (default ``board.html`` here; an existing folder gets ``board.html`` inside),
    whole or not at all; returns the path and the data it shows."""
    path = output_file(None if out is None else Path(out), "board.html")
    data = board_data(store, folder=path.parent)
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


def _page(store_path: Path, route: str, query: Mapping[str, list[str]]) -> tuple[int, str, str]:
    """The status, content type and body the server answers ``route`` with."""
    if route == "/stamp":
        return HTTPStatus.OK, "text/plain; charset=utf-8", store_stamp(store_path)
    if not store_path.exists():
        return HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", f"no run store at {store_path} yet\n"
    with RunStore(store_path, readonly=True) as store:
        if route in ("/", "/index.html", "/board.html"):
            return HTTPStatus.OK, "text/html; charset=utf-8", render_board(board_data(store), serve=True)
        if route == "/board.json":
            return HTTPStatus.OK, "application/json", json.dumps(board_data(store))
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


def _handler(store_path: Path) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = f"mindloop-board/{__version__}"

        def do_GET(self) -> None:  # the name http.server calls
            url = urlsplit(self.path)
            port = self.connection.getsockname()[1]
            try:
                if (self.headers.get("Host") or "").lower() in {f"{host}:{port}" for host in _LOCAL_HOSTS}:
                    status, kind, body = _page(store_path, url.path, parse_qs(url.query))
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
    store_path: Path, *, host: str = "127.0.0.1", port: int = 0, ready: Callable[[str], None] | None = None
) -> None:
    """Serve the board of the store at ``store_path`` on ``http://host:port/`` (port 0: a free one) until SIGTERM or
    SIGINT; ``ready`` gets the URL once the socket listens. Each request reads the store afresh (read-only), and only
    a request whose ``Host`` names this machine's loopback with the port is answered (others get 403)."""
    try:
        server = ThreadingHTTPServer((host, port), _handler(store_path))
    except OSError as exc:
        raise MindloopError(f"cannot serve on {host}:{port} ({exc.strerror or exc}): choose another --port") from None
    server.daemon_threads = True
    with server, _stop_on_signals(server):
        url = f"http://{host}:{server.server_address[1]}/"
        if ready is not None:
            ready(url)
        server.serve_forever(poll_interval=0.2)

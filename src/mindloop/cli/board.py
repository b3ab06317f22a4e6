"""``mindloop board``: one self-contained HTML page over every run and suite in the store, or a local server of it.

Registered as the ``board`` entry of ``mindloop.commands``. The page (:mod:`mindloop.bench.report.board`) is written
to ``board.html`` (``-o FILE``, or ``-o FOLDER`` for ``FOLDER/board.html``), whole or not at all; ``--json`` prints
its numbers as one JSON object on stdout; ``--serve`` serves it on ``127.0.0.1`` (a free port unless ``--port``, said
on stderr) until interrupted.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from mindloop.cli.shared import TagFilter, open_store, own_group
from mindloop.console import emit_json, err_console, json_opt, out_opt, writing
from mindloop.errors import MindloopError

__all__ = ["board_app"]

board_app = own_group("board", single=True, no_args_is_help=False)  # it has no subcommands: the usage shows none


@board_app.callback()
def board(
    out: Annotated[
        Path | None,
        out_opt(
            "HTML file to write, or an existing folder to write board.html in (default: here); written whole or "
            "not at all. With --json, the file the JSON goes to."
        ),
    ] = None,
    as_json: Annotated[
        bool,
        json_opt(
            "Print the board's numbers as one JSON object: benchmarks, suites, runs, and leaderboards "
            "[{benchmark, key, ranked [{run_id, team, agent, model, value, low, high, n, runs, rank}], "
            "apart [{run_id, team, model, reason, detail}]}]: one per comparability key, ranking only finished "
            "runs with that key."
        ),
    ] = False,
    tag: TagFilter = None,
    serve: Annotated[
        bool,
        typer.Option(
            "--serve",
            help="Serve the board on http://127.0.0.1:PORT/ instead of writing it: built afresh on every request, "
            "each run's report rendered on demand, the page reloading itself when the store changes. Stop with "
            "Ctrl-C.",
        ),
    ] = False,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="The port --serve listens on (default 0: a free port).")
    ] = 0,
) -> None:
    """Write one self-contained HTML page over every run and suite in the store (board.html here by default)."""
    from mindloop.paths import output_file, runs_path

    if serve:
        if out is not None or as_json:
            raise MindloopError("--serve writes no file: leave out -o and --json")
        from mindloop.bench.report.board import serve_board

        def ready(url: str) -> None:
            print(f"serving the board of {runs_path(create=False)} on {url} (Ctrl-C to stop)", file=sys.stderr)
            sys.stderr.flush()

        serve_board(runs_path(create=False), port=port, ready=ready, tags=tag or ())
        return

    from mindloop.bench.report.board import board_data, write_board

    store_path = runs_path(create=False)
    if not store_path.exists():
        raise MindloopError(f"no run store at {store_path} yet: run a benchmark first (mindloop bench run NAME)")
    with open_store() as store:
        if as_json:
            where = None if out is None else output_file(out, "board.json")
            data = board_data(store, tags=tag or ())
            emit_json(data, where)
        else:
            target = output_file(out, "board.html")
            with writing("the board", target):
                path, data = write_board(store, target, tags=tag or ())
            linked = sum(run["report"] is not None for run in data["runs"])
            err_console().print(
                f"wrote {path}: {len(data['runs'])} run(s) of {len(data['benchmarks'])} benchmark(s), "
                f"{len(data['suites'])} suite(s); {linked} run report(s) beside it linked"
            )
    if data["damage"]:  # the board shows what a damaged store still holds, then, like `mindloop runs`, the damage
        raise MindloopError(data["damage"])  # and what to do (exit 1)

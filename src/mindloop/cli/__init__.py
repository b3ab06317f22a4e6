"""The ``mindloop`` command line.

Exit codes: 0 success, 1 usage or input error (a one-line message naming the problem), 2 internal error.
Every ``--json`` output is a single JSON object on stdout; human-readable output goes to stderr.
"""

from __future__ import annotations

import difflib
import gc
import os
import sys
import traceback
from typing import TYPE_CHECKING, Annotated

import typer
from typer.core import TyperGroup

from mindloop.cli.bench import bench_app, report, runs_app
from mindloop.cli.data import data_app
from mindloop.errors import MindloopError, printable
from mindloop.registry import Registry

if TYPE_CHECKING:  # typer carries its own copy of click; these are the types TyperGroup's methods take
    from typer._click.core import Command, Context

__all__ = ["COMMAND_GROUPS", "app", "main"]

COMMAND_GROUPS: Registry[typer.Typer] = Registry("command group", entry_point_group="mindloop.commands")
"""Command groups by name, read from the ``mindloop.commands`` entry points (each system registers its own)."""


def _load_group(name: str) -> Command | None:
    """The registered command group ``name`` as a click command (``None``, with a warning, if it cannot load);
    a second name for the same app is a hidden alias of its own name."""
    try:
        group = COMMAND_GROUPS.get(name)
    except MindloopError as exc:  # a broken third-party plug-in must not take the whole command line down
        print(f"mindloop: warning: skipping {exc}", file=sys.stderr)
        return None
    canonical = group.info.name or name
    holder = typer.Typer(rich_markup_mode=None)  # mounted exactly as add_typer on the root app would mount it
    if canonical == name:
        holder.add_typer(group, name=name)
    else:
        holder.add_typer(group, name=name, hidden=True, help=f"Alias of 'mindloop {canonical}'.")
    return typer.main.get_group(holder).commands[name]


class _LazyGroups(TyperGroup):
    """The root group: each registered command group is imported only when it is run or listed (``--help``).

    The systems' command groups pull in gymnasium, numpy and every system's modules (~0.5 s); ``mindloop bench
    run`` needs none of them, and every command pays for what the command line imports before it starts.
    """

    def list_commands(self, ctx: Context) -> list[str]:
        own = super().list_commands(ctx)
        return own + [name for name in COMMAND_GROUPS.names() if name not in own]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in COMMAND_GROUPS:
            command = _load_group(cmd_name)
            if command is not None:
                self.commands[cmd_name] = command
        return command

    def resolve_command(self, ctx: Context, args: list[str]) -> tuple[str | None, Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except typer.TyperException as exc:  # "No such command": suggest the unloaded groups' names too
            message = getattr(exc, "message", None)
            matches = difflib.get_close_matches(args[0], self.list_commands(ctx)) if args else []
            if isinstance(message, str) and matches and "Did you mean" not in message:
                exc.message = f"{message.rstrip('.')}. Did you mean {', '.join(map(repr, matches))}?"
            raise


app = typer.Typer(
    name="mindloop",
    help="Embodied agents that reason about minds through an explicit belief model, and the benchmarks that "
    "measure them. Runs offline on the built-in symbolic engine; models are optional plug-ins.",
    cls=_LazyGroups,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.add_typer(bench_app, name="bench")
app.add_typer(runs_app, name="runs")
app.add_typer(data_app, name="data")
app.command("report")(report)


def _version(value: bool) -> None:
    if value:
        from mindloop._version import __version__  # reads the installed metadata: only --version needs it

        print(f"mindloop {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """mindloop command line."""


@app.command()
def demo() -> None:
    """The closed loop: a false-belief episode in the household world, the robot's beliefs and its one timely help."""
    from mindloop.systems.mindclaw.demo import run_demo

    run_demo()


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 usage/input error, 2 internal error)."""
    args = sys.argv[1:] if argv is None else argv
    try:
        # Outside standalone mode click returns the code of a typer.Exit raised by a command instead of raising it.
        result = app(args=args, prog_name="mindloop", standalone_mode=False)
        if isinstance(result, int):
            return result
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        print("mindloop: aborted", file=sys.stderr)
        return 1
    except typer.TyperException as exc:  # usage errors: unknown option, missing argument, bad value
        show = getattr(exc, "show", None)
        if callable(show):
            show(file=sys.stderr)
        else:
            print(f"mindloop: error: {exc.format_message()}", file=sys.stderr)
        return 1
    except MindloopError as exc:
        print(f"mindloop: error: {printable(str(exc))}", file=sys.stderr)  # server text can hold escape codes
        return 1
    except KeyboardInterrupt:
        print("mindloop: interrupted", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if os.environ.get("MINDLOOP_DEBUG"):
            traceback.print_exc()
        print(
            f"mindloop: internal error: {type(exc).__name__}: {printable(str(exc))} (set MINDLOOP_DEBUG=1 for a "
            "traceback)",
            file=sys.stderr,
        )
        return 2
    finally:
        if argv is None:  # the process's own command line, which exits when this returns: the interpreter's
            gc.freeze()  # last garbage collections then skip every object alive now (~0.1 s of a bench run's CPU)
    return 0

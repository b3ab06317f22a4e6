"""The ``mindloop`` command line.

Exit codes: 0 success, 1 usage or input error (a one-line message naming the problem), 2 internal error.
Every ``--json`` output is a single JSON object on stdout; results and tables go to stdout too, progress, warnings
and errors (``mindloop: error: ...``, usage errors included) to stderr. ``--help`` lists commands sorted, and
shows option values by name (``--seed SEED``), never as Python types.
"""

from __future__ import annotations

import difflib
import gc
import io
import json
import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer
from typer.core import TyperGroup

from mindloop.cli.bench import report
from mindloop.cli.shared import OWN_HELP
from mindloop.errors import InvalidArgumentError, MindloopError, printable
from mindloop.registry import Registry

if TYPE_CHECKING:  # typer carries its own copy of click; these are the types TyperGroup's methods take
    from typer._click.core import Command, Context
    from typer._click.formatting import HelpFormatter

__all__ = ["COMMAND_GROUPS", "OWN_HELP", "app", "main"]

COMMAND_GROUPS: Registry[typer.Typer] = Registry(
    "command group", entry_point_group="mindloop.commands", distribution="mindloop"
)
"""Command groups by name: the command line's own, registered here, and those of the ``mindloop.commands`` entry
points (each system registers its own, and so can a plug-in). Every group mounts one way, through this registry,
when it is run or listed."""
for _name, _target in (("bench", "bench:bench_app"), ("runs", "bench:runs_app"), ("data", "data:data_app")):
    COMMAND_GROUPS.register(_name, f"mindloop.cli.{_target}", description="mindloop's own")


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


def _tidy(command: Command) -> Command:
    """Help without Python type names, commands listed in order, at every level below ``command`` (once).

    Typer shows an option's value as its type (``--seed <int>``, ``--out <path>``, ``IDS <list[str]>``): an option
    without a metavar gets one from its name (``SEED``; ``PATH`` for a path), choices stay as they are, and an
    argument shows its name only, in capitals. A group lists its commands sorted by name.
    """
    if getattr(command, "_mindloop_tidy", False):
        return command
    command._mindloop_tidy = True  # type: ignore[attr-defined]
    for param in command.params:
        if getattr(param, "param_type_name", "") == "argument":
            param.display_type_rich = lambda ctx: None  # type: ignore[attr-defined]  # typer's own method
            if param.metavar is None:
                param.metavar = (param.name or "value").upper()
        elif param.metavar is None and not getattr(param, "is_flag", False) and not getattr(param, "count", False):
            descriptor = getattr(param, "type_descriptor", None)
            if descriptor is not None and descriptor.is_choice:
                continue
            is_path = descriptor is not None and descriptor.is_path
            param.metavar = "PATH" if is_path else (param.name or "value").upper().replace("_", "-")
    commands = getattr(command, "commands", None)
    if isinstance(commands, dict):
        for name in sorted(commands):
            commands[name] = _tidy(commands.pop(name))
    return command


class _LazyGroups(TyperGroup):
    """The root group: each registered command group is imported only when it is run or listed (``--help``).

    The systems' command groups pull in gymnasium, numpy and every system's modules (~0.5 s); ``mindloop bench
    run`` needs none of them, and every command pays for what the command line imports before it starts.
    """

    def list_commands(self, ctx: Context) -> list[str]:
        own = super().list_commands(ctx)
        return sorted(own + [name for name in COMMAND_GROUPS.names() if name not in own])

    listing = False
    """While ``--help`` lists the commands: mindloop's own groups are listed from their help tables, not imported."""

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        self.listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self.listing = False

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and self.listing:
            from mindloop.systems import COMMAND_HELP

            known = OWN_HELP | COMMAND_HELP
            if cmd_name in known:
                return TyperGroup(name=cmd_name, help=known[cmd_name], hidden=known[cmd_name] is None)
        if command is None and cmd_name in COMMAND_GROUPS:
            command = _load_group(cmd_name)
            if command is not None:
                self.commands[cmd_name] = command
        return None if command is None else _tidy(command)

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


def _usage_error(exc: typer.TyperException) -> str:
    """Click's usage error in one line, in the style of every other error, with where to read the usage:
    ``option '--n' requires an argument (see: mindloop bench run --help)``."""
    message = " ".join(printable(exc.format_message()).split()).rstrip(".")
    message = message[:1].lower() + message[1:] if message[1:2].islower() or message[1:2] == " " else message
    ctx = getattr(exc, "ctx", None)
    where = getattr(ctx, "command_path", "") if ctx is not None else ""
    return f"{message} (see: {where} --help)" if where else message


class _Watched:
    """``sys.stdout`` while a ``--json`` command runs, noting whether the command wrote to it (its JSON object)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream, self.wrote = stream, False

    def write(self, text: str) -> int:
        self.wrote = self.wrote or bool(text)
        return self.stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


class _ClosedOutput(io.StringIO):
    """``sys.stdout`` of a command started with its standard output closed (``>&-``): a command that writes only
    files runs; the first thing printed is refused in one line."""

    def write(self, text: str) -> int:
        raise InvalidArgumentError("standard output is closed; redirect it instead (> FILE, > /dev/null)")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 usage/input error, 2 internal error). A ``--json``
    command that fails before printing its object prints ``{"error": MESSAGE}`` on stdout (the stderr line's)."""
    args = sys.argv[1:] if argv is None else argv
    if sys.stderr is None:  # started with standard error closed (``2>&-``): its lines go nowhere, not into stdout
        sys.stderr = Path(os.devnull).open("w", encoding="utf-8")  # noqa: SIM115 (the process's, from now on)
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()
    stdout: TextIO = sys.stdout
    watched = _Watched(stdout) if "--json" in args else None

    def fail(code: int, line: str) -> int:
        print(f"mindloop: {line}", file=sys.stderr)
        if watched is not None and not watched.wrote and not isinstance(stdout, _ClosedOutput):
            print(json.dumps({"error": line.removeprefix("error: ")}), file=stdout)
        return code

    try:
        if watched is not None:
            sys.stdout = watched  # writes and reads pass through
        # Outside standalone mode click returns the code of a typer.Exit raised by a command instead of raising it.
        result = app(args=args, prog_name="mindloop", standalone_mode=False)
        if result == 130:  # how typer returns a KeyboardInterrupt (Ctrl-C) met inside a command: without a word
            return fail(1, "interrupted")
        if isinstance(result, int):
            return result
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        return fail(1, "aborted")
    except typer.TyperException as exc:  # usage errors: unknown option, missing argument, bad value
        return fail(1, f"error: {_usage_error(exc)}")
    except MindloopError as exc:
        return fail(1, f"error: {printable(str(exc))}")  # server text can hold escape codes
    except KeyboardInterrupt:
        return fail(1, "interrupted")
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if os.environ.get("MINDLOOP_DEBUG"):
            traceback.print_exc()
        why = f"internal error: {type(exc).__name__}: {printable(str(exc))}"
        return fail(2, f"{why} (set MINDLOOP_DEBUG=1 for a traceback)")
    finally:
        if sys.stdout is watched:
            sys.stdout = stdout
        if argv is None:  # the process's own command line, which exits when this returns: the interpreter's
            gc.freeze()  # last garbage collections then skip every object alive now (~0.1 s of a bench run's CPU)
    return 0

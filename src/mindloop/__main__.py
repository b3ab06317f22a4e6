"""The ``mindloop`` command (and ``python -m mindloop``): the command line is imported inside a guard, so Ctrl-C at
any moment, while it loads, runs or exits, ends with one line and exit 1, never a Python traceback."""

import contextlib
import os
import signal
import sys


def main() -> int:
    """Import and run the command line (:func:`mindloop.cli.main`); returns its exit code."""
    try:
        from mindloop.cli import main as run

        code = run()
    except KeyboardInterrupt:  # while the command line's modules load (it catches Ctrl-C itself once running)
        print("mindloop: interrupted", file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):  # a closed pipe or stream: nothing more to say
            stream.flush()
    # Ctrl-C while the interpreter shuts down (Ray's and other exit hooks) ends the process there, quietly.
    signal.signal(signal.SIGINT, lambda signum, frame: os._exit(code))
    return code


if __name__ == "__main__":
    sys.exit(main())

"""Acting on a condition while the command line runs in the test's own process.

A test that stops something under a running command (kills its model server, say) used to run the command in a
subprocess and poll from the test. With the command in the test's process, :func:`acting_when` polls from a
thread instead: once ``condition()`` holds it calls ``action()`` once, and the event it yields says whether it
did, so the test can assert the command was still running then (a command that finished first never saw it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def acting_when(
    condition: Callable[[], bool], action: Callable[[], None], *, deadline_s: float = 240
) -> Iterator[threading.Event]:
    """Poll ``condition`` every 20 ms from a thread while inside; call ``action`` once it holds (``deadline_s`` only
    against hanging). Yields the event set once ``action`` has returned; an error in either is raised on exit."""
    acted, stop = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def watch() -> None:
        end = time.monotonic() + deadline_s
        try:
            while not stop.is_set() and time.monotonic() < end:
                if condition():
                    action()
                    acted.set()
                    return
                stop.wait(0.02)
        except BaseException as exc:  # handed to the test's thread
            errors.append(exc)

    thread = threading.Thread(target=watch, name="acting_when", daemon=True)
    thread.start()
    try:
        yield acted
    finally:
        stop.set()
        thread.join(timeout=60)
    if errors:
        raise errors[0]

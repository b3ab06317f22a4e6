"""A full disk in the test's own process: ``RLIMIT_FSIZE`` lowered for a block and restored after it.

Inside :func:`file_size_limit` no file this process writes may grow past ``size`` bytes: a write past it fails with
``EFBIG`` (``File too large``), as SQLite and every writer see a full disk. Python ignores ``SIGXFSZ`` from its
start, so the write fails instead of the signal ending the process (checked first). Pipes and sockets are not
files: pytest-xdist's channel and a test's servers are not limited. Only the soft limit moves, so it can always
be raised back. A subprocess (``preexec_fn``) is kept where the limit must hold for a whole command line's run
from its start (tests/reliability/test_full_disk.py, the run store).
"""

from __future__ import annotations

import resource
import signal
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def file_size_limit(size: int) -> Iterator[None]:
    """No file may grow past ``size`` bytes while inside (see the module's docstring)."""
    if signal.getsignal(signal.SIGXFSZ) is not signal.SIG_IGN:
        raise RuntimeError("SIGXFSZ is not ignored in this process: a write past the limit would end it")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))

"""What ``bench run`` says on stderr before an error: its first line, printed once the options are checked and
before the samples are generated or read, so a data file that cannot be read is refused after it."""

from __future__ import annotations

import re

PREPARING = re.compile(r"[\w-]+: preparing (every sample|up to 1 sample|up to \d+ samples) \(seed \d+\)")


def after_preparing(lines: list[str]) -> list[str]:
    """``lines`` (stderr's, in order) without ``bench run``'s first line, when that is how they begin."""
    return lines[1:] if lines and PREPARING.fullmatch(lines[0]) else lines

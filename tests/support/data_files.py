"""A shipped data file with one edit, and the loader's refusal of it: what every data file's malformed-file tests do."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from mindloop.datafiles import DataFileError


def edited_copy(shipped: Path, old: str, new: str, folder: Path) -> Path:
    """A copy of ``shipped`` in ``folder``, under the same name, with the first ``old`` (which must be in it) replaced
    by ``new``."""
    text = shipped.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in {shipped}"
    path = folder / shipped.name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def refusal(load: Callable[[Path], object], path: Path, expected: str) -> DataFileError:
    """The error ``load(path)`` raises: a :class:`DataFileError` matching ``expected`` whose message starts with the
    file's path."""
    with pytest.raises(DataFileError, match=expected) as info:
        load(path)
    assert str(info.value).startswith(str(path))
    return info.value

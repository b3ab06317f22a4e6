"""The public API: every name in ``mindloop.__all__`` resolves, and importing mindloop stays light."""

from __future__ import annotations

import subprocess
import sys

import pytest

import mindloop


def test_every_public_name_resolves() -> None:
    missing = [name for name in mindloop.__all__ if getattr(mindloop, name, None) is None]
    assert missing == []
    assert len(mindloop.__all__) == len(set(mindloop.__all__))


@pytest.mark.boundary  # a fresh interpreter's modules
def test_import_does_not_load_the_heavy_subsystems() -> None:
    heavy = ("gymnasium", "pettingzoo", "httpx", "torch")
    code = f"import sys, mindloop; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_unknown_attributes_are_attribute_errors() -> None:
    try:
        mindloop.no_such_thing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")

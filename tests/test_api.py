"""The public API: every name in ``mindloop.__all__`` resolves, and importing mindloop stays light."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

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


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """A module's top-level statements, those inside its ``if``/``try``/``with`` blocks included."""
    for node in body:
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for block in ("body", "orelse", "finalbody", "handlers"):
            for inner in getattr(node, block, []):
                yield from _top_level(inner.body if isinstance(inner, ast.ExceptHandler) else [inner])


def test_a_module_writes_all_only_where_its_underscores_do_not_say_it() -> None:
    # A module's public names are those without a leading underscore (docs/architecture.md, "Public names"); an
    # ``__all__`` that lists exactly those names would list each of them a second time.
    restated = []
    for path in sorted(Path(mindloop.__file__).parent.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        listed = [n for n in tree.body if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "__all__"]
        if path.name == "__init__.py" or not listed:
            continue
        defined: set[str] = set()
        imported: set[str] = set()
        for node in _top_level(tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                imported.update(a.asname or a.name.split(".")[0] for a in node.names)
        names = set(ast.literal_eval(listed[0].value))
        if names == {n for n in defined if not n.startswith("_")} and not names & imported:
            restated.append(str(path))
    assert restated == []

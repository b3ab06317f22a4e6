"""Package attributes imported on first use (PEP 562), so that importing one piece of a package is cheap.

A package whose ``__init__`` re-exports its submodules' public names would import all of them as soon as any
one submodule is imported (``bench run`` reading a benchmark's declaration would import the whole runtime before
its first line). Such a package lists each name it exports once, as an explicit re-export (``Name as Name``):
eagerly at the top of its ``__init__`` for what is cheap, under ``if TYPE_CHECKING:`` for what is not, and sets
``__getattr__ = lazy_exports(__name__)``. The names under ``TYPE_CHECKING`` are read from the ``__init__``'s
source when one is first used, and each is imported from its submodule when first read; ``__all__`` is every name
the ``__init__`` re-exports, in its order. ``mindloop`` itself, ``mindloop.models``, the household world and its
scenarios, MindPower and MindClaw use it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


def _exports(package: str) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """The names ``package``'s ``__init__`` imports from mindloop's modules: the deferred ones (under ``if
    TYPE_CHECKING:``) with the module and attribute each comes from, and all of them in order."""
    import ast  # on first use of a lazy name, not on every ``import mindloop``

    source = Path(str(sys.modules[package].__file__)).read_text(encoding="utf-8")
    deferred: dict[str, tuple[str, str]] = {}
    public: list[str] = []

    def visit(nodes: list[ast.stmt], lazy: bool) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
                visit(node.body, True)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mindloop.") and node.level == 0:
                if node.module == __name__:
                    continue
                for alias in node.names:
                    name = alias.asname or alias.name
                    public.append(name)
                    if lazy:
                        deferred[name] = (str(node.module), alias.name)

    visit(ast.parse(source).body, False)
    return deferred, public


def lazy_exports(package: str, aliases: Mapping[str, str] | None = None) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports each name its ``__init__`` re-exports under ``if
    TYPE_CHECKING:`` from that name's module when first read, and answers ``__all__``; ``aliases`` maps a further
    public name to the exported name it stands for. Any other name is an
    :class:`AttributeError`, as usual.

    >>> import mindloop.models
    >>> mindloop.models.FakeChatServer.__module__, "ChatModel" in mindloop.models.__all__
    ('mindloop.models.fake_server', True)
    """
    read: list[tuple[dict[str, tuple[str, str]], list[str]]] = []
    extra = dict(aliases or {})

    def module_getattr(name: str) -> Any:
        if not read:
            read.append(_exports(package))
        deferred, public = read[0]
        if name == "__all__":
            value: Any = [*public, *extra]
        else:
            where = deferred.get(extra.get(name, name))
            if where is None:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            value = getattr(importlib.import_module(where[0]), where[1])
        setattr(sys.modules[package], name, value)
        return value

    return module_getattr

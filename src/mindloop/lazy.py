"""Package attributes imported on first use (PEP 562), so that importing one piece of a package is cheap.

A package whose ``__init__`` re-exports its submodules' public names would import all of them as soon as any
one submodule is imported (``bench run`` reading a benchmark's declaration would import the whole runtime before
its first line). Such a package keeps its imports under ``TYPE_CHECKING`` (for type checkers and readers) and sets
``__getattr__ = lazy_attributes(__name__, {"submodule": ("Name", ...), ...})``: the submodule behind a name is
imported when the name is first read, and the value is kept on the package. ``mindloop`` itself,
``mindloop.models``, the household world and its scenarios, MindPower and MindClaw use it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(
    package: str, exports: Mapping[str, Sequence[str]], aliases: Mapping[str, str] | None = None
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports ``package.<submodule>`` for each name it exports.

    ``exports`` maps a submodule (relative to ``package``) to the names it defines; ``aliases`` maps an extra public
    name to the exported name it stands for. A name that is neither is an :class:`AttributeError`, as usual.

    >>> import json
    >>> getattr_ = lazy_attributes("json", {"decoder": ("JSONDecodeError",)})
    >>> getattr_("JSONDecodeError") is json.JSONDecodeError
    True
    >>> getattr_("nothing")
    Traceback (most recent call last):
    ...
    AttributeError: module 'json' has no attribute 'nothing'
    """
    where = {name: submodule for submodule, names in exports.items() for name in names}
    aliases = dict(aliases or {})

    def module_getattr(name: str) -> Any:
        target = aliases.get(name, name)
        submodule = where.get(target)
        if submodule is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{submodule}"), target)
        setattr(sys.modules[package], name, value)
        return value

    return module_getattr

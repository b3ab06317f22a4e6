from __future__ import annotations

import pytest

from mindloop.errors import MindloopError, RegistryError, UnknownNameError
from mindloop.registry import Registry


def test_lazy_targets_import_on_first_use() -> None:
    r: Registry[object] = Registry("benchmark")
    r.register("sqrt", "math:sqrt", description="square root")
    import math

    assert r.get("sqrt") is math.sqrt
    assert r.describe("sqrt") == "square root"
    assert "sqrt" in r and list(r) == ["sqrt"] and len(r) == 1


def test_collisions_are_errors() -> None:
    r: Registry[object] = Registry("agent")
    r.register("symbolic", object())
    with pytest.raises(RegistryError, match="agent 'symbolic' is already registered"):
        r.register("symbolic", object())


def test_unknown_names_suggest_close_matches() -> None:
    r: Registry[object] = Registry("env")
    for name in ("household", "transport", "spatial"):
        r.register(name, object())
    with pytest.raises(UnknownNameError) as info:
        r.get("houshold")
    assert str(info.value) == "unknown env 'houshold'; did you mean 'household'? (known: household, spatial, transport)"
    assert isinstance(info.value, MindloopError) and isinstance(info.value, KeyError)


@pytest.mark.parametrize(
    ("target", "needle"),
    [
        ("math", "must look like 'module:attr'"),
        ("no_such_module_xyz:thing", "cannot import"),
        ("math:no_such_attr", "has no attribute"),
    ],
)
def test_bad_targets(target: str, needle: str) -> None:
    r: Registry[object] = Registry("metric")
    with pytest.raises(RegistryError, match=needle):
        r.register("m", target)
        r.get("m")

"""The environment registry: every mindloop world by id, single-agent (Gymnasium) and multi-agent (PettingZoo).

Each id maps to a factory (``"module:attr"``, imported on first use) read from the package entry-point group
``mindloop.envs``, so mindloop's systems and third-party packages register worlds the same way::

    [project.entry-points."mindloop.envs"]
    "mindloop/Household-v0" = "mindloop.worlds.household.gym_env:HouseholdEnv"

An id names its API by the convention of the library behind it: Gymnasium ids end in ``-vN``
(``mindloop/Household-v0``), PettingZoo names in ``_vN`` (``mindloop/cwah_v0``). Importing this module registers
every Gymnasium id with Gymnasium (lazily: nothing is imported until ``gymnasium.make``), so after
``import mindloop.environments``, ``gymnasium.make("mindloop/Household-v0")`` works. PettingZoo has no registry:
:func:`make_env` builds either kind.

Every world keeps one contract: ``privileged=True`` (constructor keyword, or ``reset(options={"privileged":
True})``) adds ground truth as ``info["ground_truth"]`` (per agent for PettingZoo) and nowhere else; stepping a
finished episode (or one never reset) raises :class:`gymnasium.error.ResetNeeded`; the same seed and actions give
the same episode. ``tests/test_envs.py`` checks all of it for every registered id.

>>> env_api("mindloop/Household-v0"), env_api("mindloop/cwah_v0")
('gymnasium', 'pettingzoo')
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal

import gymnasium

from mindloop.errors import RegistryError
from mindloop.registry import Registry

EnvApi = Literal["gymnasium", "pettingzoo"]

ENVS: Registry[Callable[..., Any]] = Registry("environment", entry_point_group="mindloop.envs")
"""Environment factories by id, from the ``mindloop.envs`` entry points (and any registered in code)."""

_GYMNASIUM_ID = re.compile(r"^(?:[\w:.-]+/)?[\w:.-]+-v\d+$")
_PETTINGZOO_ID = re.compile(r"^(?:[\w:.-]+/)?\w+_v\d+$")


def env_api(env_id: str) -> EnvApi:
    """``"gymnasium"`` for an id ending in ``-vN``, ``"pettingzoo"`` for one ending in ``_vN``."""
    if _GYMNASIUM_ID.match(env_id):
        return "gymnasium"
    if _PETTINGZOO_ID.match(env_id):
        return "pettingzoo"
    raise RegistryError(
        f"environment id {env_id!r} must end in '-vN' (Gymnasium, e.g. 'mindloop/Household-v0') "
        "or '_vN' (PettingZoo, e.g. 'mindloop/cwah_v0')"
    )


def make_env(env_id: str, **kwargs: Any) -> Any:
    """A new, unwrapped environment ``env_id`` built with ``kwargs`` (use ``gymnasium.make`` for its wrappers).

    Raises :class:`~mindloop.errors.UnknownNameError` (with suggestions) for an unknown id and
    :class:`~mindloop.errors.RegistryError` when the factory does not build the API its id names.
    """
    api = env_api(env_id)
    env = ENVS.get(env_id)(**kwargs)
    if api == "gymnasium":
        ok = isinstance(env, gymnasium.Env)
    else:
        from pettingzoo import ParallelEnv  # type: ignore[import-untyped]

        ok = isinstance(env, ParallelEnv)
    if not ok:
        expected = "a gymnasium.Env" if api == "gymnasium" else "a pettingzoo.ParallelEnv"
        raise RegistryError(f"environment {env_id!r} should build {expected}, got {type(env).__name__}")
    return env


def register_gymnasium() -> list[str]:
    """Register every Gymnasium id of :data:`ENVS` with Gymnasium (once; ids already there are kept).

    Returns the ids it registered now. An id of neither form is skipped here; :func:`make_env` reports it.
    """
    added = []
    for entry in ENVS.entries():
        if not _GYMNASIUM_ID.match(entry.name) or entry.name in gymnasium.registry:
            continue
        gymnasium.register(id=entry.name, entry_point=entry.target)
        added.append(entry.name)
    return added


register_gymnasium()

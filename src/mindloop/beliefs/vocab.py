"""The one vocabulary of the belief core: canonical relation names and the robot's id, defined once.

Every system states what it knows as :class:`~mindloop.beliefs.Fact` triples ``(subject, relation, value)``.
The relations below mean the same thing wherever they appear, and the robot is :data:`ROBOT` in every system.
Systems whose surface language names a relation differently keep their surface words (their prompts, data
files and gold are written in them) and map them onto these names through a small explicit adapter in their own
module, built with :func:`surface_map`:

=========================== =========== ==========================================================================
meaning                     canonical   surface name, by system (and where its adapter lives)
=========================== =========== ==========================================================================
where a thing is            ``at``      household world (MindPower, MindClaw): ``at``;
                                        MindClaw belief table: ``visual_facts[object]`` and
                                        ``actor_beliefs[actor][object]`` (``systems.mindclaw.memory.TABLE_RELATION``);
                                        ToMi / Hi-ToM: ``in`` (``worlds.stories.tomi.CANONICAL_RELATIONS``);
                                        OmniToM templated stories: ``in``
                                        (``systems.omnitom.templated.CANONICAL_RELATIONS``);
                                        CoBel-World SBL: ``IN``, ``ON``, ``INSIDE``, ``CONTAINED_BY``,
                                        ``HELD_BY`` (``beliefs.views.sbl.CANONICAL_RELATIONS``);
                                        Theory of Space: ``at`` (the object the agent stands at)
which room an agent is in   ``room``    household: ``room``; CoBel-World SBL: ``AT``; ToMi folds it into ``in``
open or closed              ``open``    household: ``open`` (``"open"``/``"closed"``); CoBel-World writes container
                                        state as ``STATE`` ``opened``/``closed`` (values differ: not mapped)
switched on or off          ``switch``  household, MindClaw snapshots
what a cup holds            ``contains`` household
mains power of the house    ``power``   household, MindClaw
sitting or standing         ``posture`` household
a bodily state              ``feels``   household, MindClaw (``thirsty``, ``cold``)
other object state          ``state``   household (``cut``, ``cooked``)
the robot                   ``robot``   household, MindClaw, MindPower gold atoms
the world                   ``()``      the holder chain :data:`~mindloop.beliefs.WORLD`; OmniToM's actor ``world``
=========================== =========== ==========================================================================

Location is one relation because every system asks the same question of it ("where does the holder think X
is?"); only the household separates an agent's room (``room``) from where things are (``at``), because its agents
carry things. An adapter maps relation *words*; it never rewrites stored facts, so each system's gold and output
stay in its own words.

>>> ADAPTER = surface_map({"in": AT})
>>> ADAPTER["in"]
'at'
>>> surface_map({"IN": "inside"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
mindloop.errors.BeliefError: surface relation 'IN' maps to 'inside', which is not a canonical relation (expected ...
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from mindloop.errors import BeliefError

# ---- agent ids ------------------------------------------------------------------------------------------------
ROBOT: Final[str] = "robot"
"""The id of the robot: the one agent every robot-centric system reasons from (chains ``("robot", human)``)."""

# ---- relations --------------------------------------------------------------------------------------------------
AT: Final[str] = "at"
"""Where a thing is: a place, a container, another item, a room, or the id of the agent holding it."""
ROOM: Final[str] = "room"
"""Which room an agent is in (``None`` right after it leaves a room: the witnesses do not see where it goes)."""
OPEN: Final[str] = "open"
"""``"open"`` or ``"closed"`` for anything that opens."""
SWITCH: Final[str] = "switch"
"""``"on"`` or ``"off"`` for anything switchable (a running faucet is ``on``; a lit candle is ``on``)."""
CONTAINS: Final[str] = "contains"
"""The liquid a cup or glass holds (``None`` when empty)."""
POWER: Final[str] = "power"
"""Mains power of a house: ``"on"`` or ``"off"``."""
POSTURE: Final[str] = "posture"
"""``"sitting"`` or ``"standing"``."""
FEELS: Final[str] = "feels"
"""A bodily state of a human (``thirsty``, ``cold``, ``hungry``, ...): what dialogue-driven needs are about."""
STATE: Final[str] = "state"
"""Other object state changed by an action (``cut``, ``cooked``)."""

RELATIONS: Final[frozenset[str]] = frozenset({AT, ROOM, OPEN, SWITCH, CONTAINS, POWER, POSTURE, FEELS, STATE})
"""Every canonical relation name."""


def surface_map(pairs: Mapping[str, str]) -> Mapping[str, str]:
    """A system's adapter: its surface relation words -> canonical relations, checked and read-only.

    Raises :class:`~mindloop.errors.BeliefError` when a target is not in :data:`RELATIONS`, so a typo in an
    adapter fails at import, not as a silently unmatched query.
    """
    for surface, canonical in pairs.items():
        if canonical not in RELATIONS:
            raise BeliefError(
                f"surface relation {surface!r} maps to {canonical!r}, which is not a canonical relation "
                f"(expected one of: {', '.join(sorted(RELATIONS))})"
            )
    return MappingProxyType(dict(pairs))

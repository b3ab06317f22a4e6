"""Multi-agent transport worlds of CoBel-World: C-WAH-style households and TDW-MAT-style transport (PettingZoo)."""

from mindloop.systems.cobel.worlds.common import (
    AGENT_NAMES,
    MAX_MESSAGE_CHARS,
    Action,
    Entity,
    Layout,
    Message,
    ObservationSpace,
    agent_names,
)
from mindloop.systems.cobel.worlds.cwah import (
    CWAH_ACTIONS,
    CWAH_TASKS,
    CwahEnv,
    CwahEpisode,
    CwahObservation,
    GoalPredicate,
    make_cwah_episode,
)
from mindloop.systems.cobel.worlds.tdw import (
    FRAME_BUDGET,
    TDW_ACTIONS,
    TDW_CATEGORIES,
    TdwEnv,
    TdwEpisode,
    TdwObservation,
)

__all__ = [
    "AGENT_NAMES",
    "CWAH_ACTIONS",
    "CWAH_TASKS",
    "FRAME_BUDGET",
    "MAX_MESSAGE_CHARS",
    "TDW_ACTIONS",
    "TDW_CATEGORIES",
    "Action",
    "CwahEnv",
    "CwahEpisode",
    "CwahObservation",
    "Entity",
    "GoalPredicate",
    "Layout",
    "Message",
    "ObservationSpace",
    "TdwEnv",
    "TdwEpisode",
    "TdwObservation",
    "agent_names",
    "make_cwah_episode",
]

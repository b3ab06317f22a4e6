"""Multi-agent transport worlds of CoBel-World: C-WAH-style households and TDW-MAT-style transport (PettingZoo).

Each name is listed once, as an explicit re-export; ``__all__`` is derived from them (:mod:`mindloop.lazy`).
"""

from mindloop.lazy import lazy_exports
from mindloop.systems.cobel.worlds.common import AGENT_NAMES as AGENT_NAMES
from mindloop.systems.cobel.worlds.common import MAX_MESSAGE_CHARS as MAX_MESSAGE_CHARS
from mindloop.systems.cobel.worlds.common import Action as Action
from mindloop.systems.cobel.worlds.common import Entity as Entity
from mindloop.systems.cobel.worlds.common import Layout as Layout
from mindloop.systems.cobel.worlds.common import Message as Message
from mindloop.systems.cobel.worlds.common import ObservationSpace as ObservationSpace
from mindloop.systems.cobel.worlds.common import agent_names as agent_names
from mindloop.systems.cobel.worlds.cwah import CwahEnv as CwahEnv
from mindloop.systems.cobel.worlds.cwah_spec import CWAH_ACTIONS as CWAH_ACTIONS
from mindloop.systems.cobel.worlds.cwah_spec import CWAH_TASKS as CWAH_TASKS
from mindloop.systems.cobel.worlds.cwah_spec import CwahEpisode as CwahEpisode
from mindloop.systems.cobel.worlds.cwah_spec import CwahObservation as CwahObservation
from mindloop.systems.cobel.worlds.cwah_spec import GoalPredicate as GoalPredicate
from mindloop.systems.cobel.worlds.cwah_spec import make_cwah_episode as make_cwah_episode
from mindloop.systems.cobel.worlds.tdw import TdwEnv as TdwEnv
from mindloop.systems.cobel.worlds.tdw_spec import FRAME_BUDGET as FRAME_BUDGET
from mindloop.systems.cobel.worlds.tdw_spec import TDW_ACTIONS as TDW_ACTIONS
from mindloop.systems.cobel.worlds.tdw_spec import TDW_CATEGORIES as TDW_CATEGORIES
from mindloop.systems.cobel.worlds.tdw_spec import TdwEpisode as TdwEpisode
from mindloop.systems.cobel.worlds.tdw_spec import TdwObservation as TdwObservation

__getattr__ = lazy_exports(__name__)

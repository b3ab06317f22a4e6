"""The belief core shared by every mindloop system: facts, holder chains, the store and the tracker.

Each name is listed once, as an explicit re-export; ``__all__`` is derived from them (:mod:`mindloop.lazy`).
"""

from mindloop.beliefs.facts import WORLD as WORLD
from mindloop.beliefs.facts import Belief as Belief
from mindloop.beliefs.facts import Chain as Chain
from mindloop.beliefs.facts import Fact as Fact
from mindloop.beliefs.facts import Key as Key
from mindloop.beliefs.facts import Source as Source
from mindloop.beliefs.facts import chain_str as chain_str
from mindloop.beliefs.facts import validate_chain as validate_chain
from mindloop.beliefs.store import BeliefStore as BeliefStore
from mindloop.beliefs.store import ChainScope as ChainScope
from mindloop.beliefs.store import Mismatch as Mismatch
from mindloop.beliefs.store import Scope as Scope
from mindloop.beliefs.store import StoreView as StoreView
from mindloop.beliefs.store import WitnessScope as WitnessScope
from mindloop.beliefs.store import WorldScope as WorldScope
from mindloop.beliefs.tracker import DEFAULT_MAX_DEPTH as DEFAULT_MAX_DEPTH
from mindloop.beliefs.tracker import TRUST_POLICIES as TRUST_POLICIES
from mindloop.beliefs.tracker import Event as Event
from mindloop.beliefs.tracker import EventKind as EventKind
from mindloop.beliefs.tracker import HiToMTrust as HiToMTrust
from mindloop.beliefs.tracker import Tracker as Tracker
from mindloop.beliefs.tracker import TrustContext as TrustContext
from mindloop.beliefs.tracker import TrustEveryone as TrustEveryone
from mindloop.beliefs.tracker import TrustNoOne as TrustNoOne
from mindloop.beliefs.tracker import TrustPolicy as TrustPolicy
from mindloop.beliefs.tracker import Utterance as Utterance
from mindloop.beliefs.tracker import trust_policy as trust_policy
from mindloop.lazy import lazy_exports

__getattr__ = lazy_exports(__name__)

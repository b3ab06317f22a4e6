"""mindloop: embodied agents that reason about minds through an explicit belief model.

The public API is re-exported here; see ``docs/`` for the guide.
"""

from mindloop.beliefs import (
    WORLD,
    Belief,
    BeliefStore,
    Chain,
    Event,
    EventKind,
    Fact,
    HiToMTrust,
    Mismatch,
    Source,
    Tracker,
    TrustEveryone,
    TrustNoOne,
    TrustPolicy,
    Utterance,
    trust_policy,
)
from mindloop.errors import (
    BeliefError,
    DependencyError,
    InvalidArgumentError,
    MindloopError,
    ParseError,
    RegistryError,
    UnknownNameError,
)
from mindloop.registry import Registry
from mindloop.stories import (
    EvalReport,
    Example,
    Question,
    answer_question,
    evaluate_file,
    generate_tomi,
    narrate,
    read_examples,
    to_numbered_text,
    track_story,
)

__version__ = "0.1.0"

__all__ = [
    "WORLD",
    "Belief",
    "BeliefError",
    "BeliefStore",
    "Chain",
    "DependencyError",
    "EvalReport",
    "Event",
    "EventKind",
    "Example",
    "Fact",
    "HiToMTrust",
    "InvalidArgumentError",
    "MindloopError",
    "Mismatch",
    "ParseError",
    "Question",
    "Registry",
    "RegistryError",
    "Source",
    "Tracker",
    "TrustEveryone",
    "TrustNoOne",
    "TrustPolicy",
    "UnknownNameError",
    "Utterance",
    "__version__",
    "answer_question",
    "evaluate_file",
    "generate_tomi",
    "narrate",
    "read_examples",
    "to_numbered_text",
    "track_story",
    "trust_policy",
]

"""Stories as event streams: the ToMi/Hi-ToM readers and a seeded ToMi-style generator (shared by tom and omnitom)."""

from mindloop.worlds.stories.generate import GeneratedExample, generate_tomi, to_numbered_text
from mindloop.worlds.stories.tomi import (
    IN,
    POLICIES,
    Example,
    Question,
    StoryFormat,
    StoryPolicy,
    answer_question,
    detect_format,
    narrate,
    parse_question,
    read_examples,
    read_story_file,
    story_policy,
    track_story,
)

__all__ = [
    "IN",
    "POLICIES",
    "Example",
    "GeneratedExample",
    "Question",
    "StoryFormat",
    "StoryPolicy",
    "answer_question",
    "detect_format",
    "generate_tomi",
    "narrate",
    "parse_question",
    "read_examples",
    "read_story_file",
    "story_policy",
    "to_numbered_text",
    "track_story",
]

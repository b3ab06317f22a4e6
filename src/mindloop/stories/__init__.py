"""Stories as event streams: ToMi/Hi-ToM readers, a seeded story generator, and scoring."""

from mindloop.stories.evaluate import Answered, EvalReport, TypeScore, evaluate_examples, evaluate_file
from mindloop.stories.generate import GeneratedExample, generate_tomi, to_numbered_text
from mindloop.stories.tomi import (
    IN,
    Example,
    Question,
    StoryFormat,
    answer_question,
    detect_format,
    narrate,
    parse_question,
    read_examples,
    read_story_file,
    track_story,
)

__all__ = [
    "IN",
    "Answered",
    "EvalReport",
    "Example",
    "GeneratedExample",
    "Question",
    "StoryFormat",
    "TypeScore",
    "answer_question",
    "detect_format",
    "evaluate_examples",
    "evaluate_file",
    "generate_tomi",
    "narrate",
    "parse_question",
    "read_examples",
    "read_story_file",
    "to_numbered_text",
    "track_story",
]

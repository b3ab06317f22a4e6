"""Stories as event streams: the ToMi/Hi-ToM readers and a seeded ToMi-style generator (shared by tom and omnitom)."""

from mindloop.lazy import lazy_exports
from mindloop.worlds.stories.generate import GeneratedExample as GeneratedExample
from mindloop.worlds.stories.generate import generate_tomi as generate_tomi
from mindloop.worlds.stories.generate import to_numbered_text as to_numbered_text
from mindloop.worlds.stories.tomi import IN as IN
from mindloop.worlds.stories.tomi import POLICIES as POLICIES
from mindloop.worlds.stories.tomi import Example as Example
from mindloop.worlds.stories.tomi import Question as Question
from mindloop.worlds.stories.tomi import StoryFormat as StoryFormat
from mindloop.worlds.stories.tomi import StoryPolicy as StoryPolicy
from mindloop.worlds.stories.tomi import answer_question as answer_question
from mindloop.worlds.stories.tomi import detect_format as detect_format
from mindloop.worlds.stories.tomi import narrate as narrate
from mindloop.worlds.stories.tomi import parse_question as parse_question
from mindloop.worlds.stories.tomi import read_examples as read_examples
from mindloop.worlds.stories.tomi import read_story_file as read_story_file
from mindloop.worlds.stories.tomi import story_policy as story_policy
from mindloop.worlds.stories.tomi import track_story as track_story

__getattr__ = lazy_exports(__name__)

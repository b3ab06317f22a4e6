"""The paper's worked examples, as data: App. E's seven gold tables and Table 2's alignment example.

App. E (Tables 13-19) gives one gold belief structure per category in the Level 4 demonstration format; they are
the built-in few-shot examples of the Level 4 prompts and the reference the symbolic annotator is checked against
(Table 14). Labels are written as the paper prints them, with App. E's compact display labels (``Identity`` for
``Identity/Relation`` ...), and canonicalised when turned into records. Table 2 is the Stage 1 alignment example
with its MatchCounts, used as the semantic judge's few-shot example and as a test of both aligners.
"""

from __future__ import annotations

from typing import NamedTuple

from mindloop.errors import InvalidArgumentError
from mindloop.systems.omnitom.records import DIMENSIONS, BeliefLabels, BeliefRecord, StoryRecord, canonical_category

__all__ = [
    "APPENDIX_E",
    "TABLE2",
    "AlignmentExample",
    "WorkedExample",
    "appendix_e_record",
    "appendix_e_records",
]


class WorkedExample(NamedTuple):
    """One App. E table: its number, category, caption, story and rows ``(actor, belief, "7 labels")``."""

    table: int
    category: str
    title: str
    story: str
    rows: tuple[tuple[str, str, str], ...]

    def record(self) -> StoryRecord:
        """The example as a gold record (``story_id`` = the table number, labels canonicalised)."""
        beliefs = []
        for actor, belief, labels in self.rows:
            values = labels.split()
            beliefs.append(
                BeliefRecord(
                    actor=actor,
                    belief=belief,
                    labels=BeliefLabels.model_validate(dict(zip(DIMENSIONS, values, strict=True))),
                )
            )
        return StoryRecord(story_id=self.table, story_category=self.category, story=self.story, beliefs=tuple(beliefs))


APPENDIX_E: tuple[WorkedExample, ...] = (
    WorkedExample(
        table=13,
        category="Ambiguous Story Task",
        title="Ambiguous nonverbal coordination around a shared plan.",
        story=(
            "Mingfeng, Xiaoyu, and Xiaolin are good friends. This afternoon, Mingfeng watches Xiaoyu and her "
            "newly adopted pet dog play under the shade of the trees in the community. Suddenly, he winks at "
            "Xiaolin, who is next to him, and looks at the nearby pet supply store. Xiaolin looks at Xiaoyu, "
            "then responds to Mingfeng’s gaze. After that, she stands up and walks towards the pet supply "
            "store."
        ),
        rows=(
            (
                "world",
                "Mingfeng, Xiaoyu, and Xiaolin are good friends",
                "0 True Public Explicit Identity Narration Neutral",
            ),
            (
                "world",
                "Mingfeng watches Xiaoyu and her newly adopted pet dog play under the shade of the trees in the "
                "community",
                "0 True Public Explicit Action Narration Neutral",
            ),
            ("world", "Mingfeng winks at Xiaolin", "0 True Public Explicit Action Narration Neutral"),
            (
                "world",
                "Mingfeng looks at the nearby pet supply store",
                "0 True Public Explicit Action Narration Neutral",
            ),
            ("world", "Xiaolin looks at Xiaoyu", "0 True Public Explicit Action Narration Neutral"),
            ("world", "Xiaolin responds to Mingfeng’s gaze", "0 True Public Explicit Action Narration Neutral"),
            (
                "world",
                "Xiaolin stands up and walks towards the pet supply store",
                "0 True Public Explicit Action Narration Neutral",
            ),
            ("Mingfeng", "Xiaoyu has a newly adopted pet dog", "1 True Public Implicit Identity Perception Neutral"),
            (
                "Mingfeng",
                "Xiaoyu is playing with her pet dog under the shade of the trees",
                "1 True Public Implicit Action Perception Neutral",
            ),
            ("Mingfeng", "The pet supply store is nearby", "1 True Private Implicit Location Perception Neutral"),
            ("Mingfeng", "Xiaolin is next to Mingfeng", "1 True Public Implicit Location Perception Neutral"),
            (
                "Mingfeng",
                "Mingfeng’s wink will signal Xiaolin about going to the pet supply store",
                "1 Unknown Private Implicit Epistemic Inference Neutral",
            ),
            (
                "Mingfeng",
                "Xiaolin will understand the wink as a suggestion to go to the pet supply store",
                "2 Unknown Private Implicit Epistemic Inference Neutral",
            ),
            (
                "Xiaolin",
                "Mingfeng, Xiaoyu, and Xiaolin are good friends",
                "1 True Private Implicit Identity Memory Neutral",
            ),
            ("Xiaolin", "Xiaoyu has a newly adopted pet dog", "1 True Public Implicit Identity Perception Neutral"),
            (
                "Xiaolin",
                "Xiaoyu is playing with her pet dog under the shade of the trees",
                "1 True Public Implicit Action Perception Neutral",
            ),
            ("Xiaolin", "The pet supply store is nearby", "1 True Shared Explicit Location Perception Neutral"),
            ("Xiaolin", "Mingfeng winks at Xiaolin", "1 True Shared Explicit Action Perception Neutral"),
            ("Xiaolin", "Mingfeng looks at the pet supply store", "1 True Shared Implicit Action Perception Neutral"),
            (
                "Xiaolin",
                "Mingfeng wants to go to the pet supply store to buy pet toys",
                "1 Unknown Private Implicit Desire Inference Neutral",
            ),
            (
                "Xiaolin",
                "Mingfeng is signaling Xiaolin to go to the pet supply store",
                "1 True Private Implicit Epistemic Inference Neutral",
            ),
            (
                "Xiaolin",
                "Going to the pet supply store will be helpful for Xiaoyu or her dog",
                "1 Unknown Private Implicit Desire Inference Neutral",
            ),
            (
                "Xiaoyu",
                "Mingfeng, Xiaoyu, and Xiaolin are good friends",
                "1 True Public Implicit Identity Memory Neutral",
            ),
            ("Xiaoyu", "Mingfeng is watching Xiaoyu and the dog", "1 True Private Implicit Action Perception Neutral"),
            ("Xiaoyu", "Xiaolin is looking at Xiaoyu", "1 True Private Implicit Action Perception Neutral"),
            ("Xiaoyu", "Mingfeng winked at Xiaolin", "1 True Private Implicit Action Perception Neutral"),
            ("Xiaoyu", "Mingfeng looked at the pet supply store", "1 True Private Implicit Action Perception Neutral"),
            (
                "Xiaoyu",
                "Xiaolin is walking towards the pet supply store",
                "1 True Private Implicit Action Perception Neutral",
            ),
            (
                "Xiaoyu",
                "Mingfeng and Xiaolin are doing something confusing",
                "1 Unknown Private Implicit Action Perception Neutral",
            ),
        ),
    ),
    WorkedExample(
        table=14,
        category="False Belief Task",
        title="Hidden transfer and outdated belief.",
        story=(
            "Alice and Bob are in a room. There is an object in a box. Bob leaves. Alice moves the object to the safe."
        ),
        rows=(
            ("world", "Alice is in the room", "0 True Public Explicit Location Narration Neutral"),
            ("world", "Bob is in the room", "0 True Public Explicit Location Narration Temporal"),
            ("world", "There is an object in a box", "0 True Public Explicit Location Narration Temporal"),
            ("world", "There is a safe in the room", "0 True Public Explicit Location Narration Neutral"),
            ("world", "Bob leaves the room", "0 True Public Explicit Action Narration Neutral"),
            ("world", "Alice moves the object to the safe", "0 True Private Explicit Action Narration Neutral"),
            ("world", "The object is in the safe", "0 True Private Explicit Location Narration Neutral"),
            ("Alice", "Bob is in the room", "1 True Private Implicit Location Perception Temporal"),
            ("Alice", "There is a box in the room", "1 True Public Implicit Location Perception Neutral"),
            ("Alice", "There is a safe in the room", "1 True Public Implicit Location Perception Neutral"),
            ("Alice", "The object is in the box", "1 True Public Implicit Location Perception Temporal"),
            ("Alice", "Bob left the room", "1 True Private Implicit Action Perception Neutral"),
            ("Alice", "The object is in the safe", "1 True Private Implicit Location Perception Neutral"),
            ("Alice", "Bob thinks the object is in the box", "2 True Private Implicit Epistemic Inference Neutral"),
            (
                "Alice",
                "Bob thinks Alice thinks the object is in the box",
                "3 True Private Implicit Epistemic Inference Neutral",
            ),
            ("Bob", "Alice is in the room", "1 True Private Implicit Location Perception Neutral"),
            ("Bob", "There is a box in the room", "1 True Public Implicit Location Perception Neutral"),
            ("Bob", "There is a safe in the room", "1 True Public Implicit Location Perception Neutral"),
            ("Bob", "The object is in the box", "1 False Private Implicit Location Perception Temporal"),
            ("Bob", "Alice thinks the object is in the box", "2 False Private Implicit Epistemic Inference Temporal"),
            (
                "Bob",
                "Alice thinks Bob thinks the object is in the box",
                "3 True Private Implicit Epistemic Inference Neutral",
            ),
        ),
    ),
    WorkedExample(
        table=15,
        category="Faux-pas Recognition Test",
        title="Social expectations around a promise to attend a game.",
        story=(
            'On Saturday morning, Xiao Wang and Xiao Zhao meet at the school gate. Xiao Zhao says: "I have a '
            'basketball game this afternoon, will you come to watch?" Xiao Wang remembers Xiao Zhao’s game, '
            'and replies: "Of course, I will definitely go to support you." Xiao Zhao happily says: "Great, '
            'thank you!"'
        ),
        rows=(
            (
                "world",
                "Xiao Wang and Xiao Zhao meet at the school gate on Saturday morning",
                "0 True Public Explicit Action Narration Neutral",
            ),
            (
                "world",
                'Xiao Zhao says, "I have a basketball game this afternoon, will you come to watch?"',
                "0 True Public Explicit Action Narration Neutral",
            ),
            ("world", "Xiao Wang remembers Xiao Zhao’s game", "0 True Public Explicit Action Narration Neutral"),
            (
                "world",
                'Xiao Wang replies, "Of course, I will definitely go to support you."',
                "0 True Public Explicit Action Narration Neutral",
            ),
            ("world", 'Xiao Zhao says, "Great, thank you!"', "0 True Public Explicit Action Narration Neutral"),
            (
                "Xiao Zhao",
                "Xiao Zhao has a basketball game this afternoon",
                "1 True Public Explicit Action Memory Neutral",
            ),
            (
                "Xiao Zhao",
                "Xiao Wang might come to watch the basketball game",
                "1 True Private Implicit Desire Inference Neutral",
            ),
            (
                "Xiao Zhao",
                "Xiao Wang will come to support Xiao Zhao",
                "1 True Private Implicit Desire Testimony Neutral",
            ),
            (
                "Xiao Zhao",
                "Xiao Wang remembers the basketball game",
                "1 True Private Implicit Epistemic Testimony Neutral",
            ),
            (
                "Xiao Zhao",
                "Xiao Wang wants to support Xiao Zhao",
                "1 Unknown Private Implicit Desire Inference Neutral",
            ),
            (
                "Xiao Wang",
                "Xiao Zhao has a basketball game this afternoon",
                "1 True Public Explicit Action Memory Neutral",
            ),
            ("Xiao Wang", "Xiao Wang will go to support Xiao Zhao", "1 True Public Explicit Desire Memory Neutral"),
            (
                "Xiao Wang",
                "Xiao Zhao thinks Xiao Wang remembers the basketball game",
                "2 Unknown Private Implicit Epistemic Inference Neutral",
            ),
            (
                "Xiao Wang",
                "Xiao Zhao thinks Xiao Wang will come to watch",
                "2 True Private Implicit Epistemic Inference Neutral",
            ),
        ),
    ),
    WorkedExample(
        table=16,
        category="Hinting Task Test",
        title="Indirect birthday hint about wanting a dog.",
        story=('Rebecca’s birthday is coming soon. She says to her father, "I like animals, especially dogs."'),
        rows=(
            ("world", "Rebecca’s birthday is coming soon", "0 True Public Explicit Action Narration Neutral"),
            (
                "world",
                'Rebecca says to Rebecca’s father, "I like animals, especially dogs."',
                "0 True Public Explicit Action Narration Neutral",
            ),
            ("Rebecca", "Rebecca’s birthday is coming soon", "1 True Private Implicit Action Memory Neutral"),
            ("Rebecca", "A dog would be a good birthday gift", "1 Unknown Private Implicit Desire Inference Neutral"),
            (
                "Rebecca",
                "Rebecca’s father can buy Rebecca a dog",
                "1 Unknown Private Implicit Desire Inference Neutral",
            ),
            (
                "Rebecca",
                "Rebecca’s father will understand that Rebecca wants a dog as a birthday gift",
                "1 Unknown Private Implicit Epistemic Inference Neutral",
            ),
            (
                "Rebecca",
                "Rebecca’s father thinks Rebecca likes dogs",
                "2 Unknown Private Implicit Epistemic Inference Neutral",
            ),
            ("Rebecca’s father", "Rebecca likes animals", "1 True Public Explicit Trait Testimony Neutral"),
            ("Rebecca’s father", "Rebecca especially likes dogs", "1 True Public Explicit Trait Testimony Neutral"),
            (
                "Rebecca’s father",
                "Rebecca implies Rebecca wants a dog as a birthday gift",
                "1 Unknown Private Implicit Desire Inference Neutral",
            ),
            (
                "Rebecca’s father",
                "Rebecca thinks Rebecca’s father should get Rebecca a dog as a good birthday gift",
                "2 Unknown Private Implicit Epistemic Inference Neutral",
            ),
        ),
    ),
    WorkedExample(
        table=17,
        category="Persuasion Story Task",
        title="A larger-office goal requiring influence.",
        story=("Xiao Hong wants to move to a bigger office, but that office is occupied by her colleague Xiao Li."),
        rows=(
            ("world", "Xiao Hong wants to move to a bigger office", "0 True Public Explicit Desire Narration Neutral"),
            ("world", "The bigger office is occupied by Xiao Li", "0 True Public Explicit Location Narration Neutral"),
            ("world", "Xiao Hong and Xiao Li are colleagues", "0 True Public Explicit Identity Narration Neutral"),
            (
                "Xiao Hong",
                "Xiao Hong needs the bigger office that Xiao Li occupies",
                "1 True Private Implicit Desire Inference Neutral",
            ),
            (
                "Xiao Hong",
                "Xiao Hong must persuade Xiao Li to give up the bigger office",
                "1 True Private Implicit Desire Inference Neutral",
            ),
            (
                "Xiao Hong",
                "Xiao Li will agree to exchange offices if Xiao Hong offers convenient conditions",
                "1 Unknown Private Implicit Epistemic Inference Neutral",
            ),
        ),
    ),
    WorkedExample(
        table=18,
        category="Scalar Implicature Test",
        title="Approximate quantity reasoning over white chickens.",
        story=(
            "On a farm, Farmer Wang keeps 15 chickens, almost a third of which are white. He counts some of "
            "them and finds that 4 are white."
        ),
        rows=(
            ("world", "Farmer Wang is on a farm", "0 True Public Explicit Location Narration Neutral"),
            ("world", "Farmer Wang keeps 15 chickens", "0 True Public Explicit Physical Narration Neutral"),
            ("world", "Almost a third of the chickens are white", "0 True Public Explicit Physical Narration Neutral"),
            ("world", "Farmer Wang counts some of the chickens", "0 True Public Explicit Action Narration Neutral"),
            ("world", "Farmer Wang finds that 4 are white", "0 True Public Explicit Physical Narration Neutral"),
            ("Farmer Wang", "There are 15 chickens", "1 True Public Implicit Physical Perception Neutral"),
            (
                "Farmer Wang",
                "Before counting, almost a third of the chickens are white",
                "1 True Public Implicit Physical Perception Neutral",
            ),
            (
                "Farmer Wang",
                "Before counting, probably 5 chickens are white",
                "1 Unknown Private Implicit Physical Inference Neutral",
            ),
            (
                "Farmer Wang",
                "After counting some of the chickens, probably 5 chickens are white in total",
                "1 Unknown Private Implicit Physical Inference Neutral",
            ),
        ),
    ),
    WorkedExample(
        table=19,
        category="Strange Story Task",
        title="Nonliteral reassurance about coughing.",
        story=(
            'Emma coughs. Throughout lunchtime, she keeps coughing. Dad says, "Poor Emma, you must have a '
            'frog in your throat!"'
        ),
        rows=(
            ("world", "Emma keeps coughing throughout lunchtime", "0 True Public Explicit Action Narration Neutral"),
            (
                "world",
                'Dad says, "Poor Emma, you must have a frog in your throat!"',
                "0 True Public Explicit Action Narration Neutral",
            ),
            ("Emma", "Dad says Emma has a frog in her throat", "1 True Private Explicit Action Perception Neutral"),
            (
                "Emma",
                "Dad thinks Emma does not actually have a frog in her throat",
                "2 True Private Implicit Epistemic Inference Neutral",
            ),
            (
                "Emma",
                "Dad thinks Emma’s cough sounds like a frog’s call",
                "2 True Private Implicit Epistemic Inference Neutral",
            ),
            (
                "Emma",
                "Dad wants to make Emma laugh and feel better",
                "1 Unknown Private Implicit Desire Inference Neutral",
            ),
            (
                "Emma",
                "Dad thinks the joke will make Emma laugh and feel better",
                "1 Unknown Private Implicit Desire Inference Neutral",
            ),
            ("Dad", "Emma keeps coughing during lunchtime", "1 True Private Implicit Action Perception Neutral"),
            (
                "Dad",
                "Emma does not actually have a frog in her throat",
                "1 True Private Implicit Physical Inference Neutral",
            ),
            ("Dad", "Emma’s cough sounds like a frog’s call", "1 Unknown Private Implicit Physical Perception Neutral"),
            (
                "Dad",
                'Saying "Poor Emma, you must have a frog in your throat!" will make Emma laugh and feel better',
                "1 Unknown Private Implicit Desire Inference Neutral",
            ),
            (
                "Dad",
                "Emma thinks Dad is trying to make Emma laugh and feel better",
                "2 Unknown Private Implicit Epistemic Inference Neutral",
            ),
        ),
    ),
)
"""Tables 13-19, in category order."""


class AlignmentExample(NamedTuple):
    """Table 2: a story, predicted and gold tables as ``(actor, belief, MatchCount)`` rows."""

    story: str
    predicted: tuple[tuple[str, str, int], ...]
    gold: tuple[tuple[str, str, int], ...]


TABLE2 = AlignmentExample(
    story="Xiao Hong wants to change to a bigger office, but that office is occupied by her colleague Xiao Li.",
    predicted=(
        ("world", "Xiao Hong wants to change to a bigger office", 1),
        ("world", "The bigger office is occupied by Xiao Li", 1),
        ("Xiao Hong", "Xiao Hong wants to change to a bigger office", 1),
        ("Xiao Hong", "The bigger office is occupied by Xiao Li", 1),
        ("Xiao Hong", "Xiao Hong needs to persuade Xiao Li to vacate the office", 1),
        ("Xiao Hong", "Xiao Li might vacate the office if persuaded", 1),
    ),
    gold=(
        ("world", "Xiao Hong wants to change to a bigger office", 1),
        ("world", "The bigger office is occupied by Xiao Li", 1),
        ("world", "Xiao Hong and Xiao Li are colleagues", 0),
        ("Xiao Hong", "Xiao Hong needs the bigger office that Xiao Li occupies", 2),
        ("Xiao Hong", "Xiao Hong must persuade Xiao Li to leave the bigger office", 1),
        ("Xiao Hong", "Xiao Li may swap offices if Xiao Hong persuades him", 1),
    ),
)
"""Table 2: every predicted belief matches one gold belief; the first gold Xiao Hong belief is covered by two."""


def appendix_e_records() -> list[StoryRecord]:
    """The seven App. E examples as gold records."""
    return [example.record() for example in APPENDIX_E]


def appendix_e_record(category: str) -> StoryRecord:
    """The App. E example of ``category`` (full name or abbreviation, e.g. ``FBT``)."""
    name = canonical_category(category)
    for example in APPENDIX_E:
        if example.category == name:
            return example.record()
    raise InvalidArgumentError(f"no App. E example for {category!r}")  # pragma: no cover - all seven exist

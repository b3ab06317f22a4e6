"""OmniToM's TELeR prompts (App. C): Stage 1 extraction, Stage 2 labelling and the Stage 1 semantic judge.

Level 3 is the zero-shot base prompt used for benchmark evaluation (Table 3): a system-role directive with the
sub-task steps, then the story (and, for Stage 2, the belief table) as data. Level 4 adds the shared blocks the
paper prints (output criteria and formatting), for Stage 1 the category-conditioned emphasis of Table 8, and
few-shot examples built from gold records (by default the App. E example of the story's category). The paper
prints the base prompts and blocks but not the exact wording of the category insertion or the example layout;
those two are written here in the same style and documented in docs/omnitom.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from mindloop.errors import InvalidArgumentError
from mindloop.models.base import Message, message
from mindloop.systems.omnitom.records import DIMENSIONS, BeliefRecord, StoryRecord, canonical_category

__all__ = [
    "EXTRACTION_EMPHASIS",
    "JUDGE_L3",
    "JUDGE_L4",
    "LABEL_COLUMNS",
    "STAGE1_L3",
    "STAGE1_L4_CONTENT",
    "STAGE1_L4_FORMAT",
    "STAGE2_ANSWER",
    "STAGE2_L3",
    "STAGE2_L4",
    "Level",
    "belief_table",
    "category_insertion",
    "judge_messages",
    "labelled_table",
    "stage1_messages",
    "stage1_table",
    "stage2_messages",
]

Level = Literal[3, 4]

STAGE1_L3 = (
    "You are a Theory of Mind expert whose task is to extract multi-order actor beliefs from the narrative and "
    "output a table with columns Actor, Belief, and Order by performing the following steps. A belief is a minimal "
    "proposition expressing what an actor takes to be true. "
    "1. Identify narrated events and states that the story presents as facts, and record them as world-level "
    "beliefs attributed to the special actor 'world' (order 0). "
    "2. Identify all actors, including characters or groups, who appear in the narrative and are capable of "
    "holding beliefs. "
    "3. For each actor, extract beliefs about the narrated events or states of the world, and record them as "
    "first-order beliefs (order 1). "
    "4. For each actor, extract beliefs about other actors' beliefs, applying this notion recursively for nested "
    "beliefs, and record them as higher-order beliefs (order 2 or higher)."
)
"""C.2, Level 3 zero-shot base prompt."""

STAGE1_L4_CONTENT = (
    "A good output should satisfy the following: "
    "- Include only beliefs grounded in the narrative; do not invent actors, events, or beliefs. "
    "- Express each belief as a single, atomic, declarative proposition; split compound statements into separate "
    "rows. "
    "- Use third-person language only and resolve pronouns to exact actor names as they appear in the narrative."
)
"""C.2, shared Level 4 content block."""

STAGE1_L4_FORMAT = (
    "A correctly formatted output should satisfy the following: "
    "- Present the result as a pipe-separated table using the '|' character. "
    "- The first row must be exactly: Actor | Belief | Order "
    "- Order rows with world-level beliefs first when present, then beliefs grouped by actor; within each actor "
    "group, order beliefs chronologically by the story's event sequence."
)
"""C.2, Level 4 formatting block."""

EXTRACTION_EMPHASIS: dict[str, str] = {
    "Ambiguous Story Task": "Preserve alternative plausible interpretations supported by limited or ambiguous "
    "cues, including higher-order beliefs about others' interpretations when present.",
    "False Belief Task": "Capture the divergence between reality and an uninformed actor's outdated belief, "
    "including informed updates and higher-order beliefs about who knows the hidden change.",
    "Faux-pas Recognition Test": "Represent beliefs about whether an utterance or action is socially "
    "inappropriate, who recognizes the faux pas, and any inferred social consequences.",
    "Hinting Task Test": "Capture the speaker's indirectly communicated practical goal and the listener's "
    "inferred belief about the intended request or need.",
    "Persuasion Story Task": "Capture the persuader's intended outcome, beliefs about how the target can be "
    "influenced, and any implied target-side belief change.",
    "Scalar Implicature Test": "Preserve scalar reasoning over quantifiers or degree terms and any belief "
    "updates induced by counting, clarification, or disambiguation.",
    "Strange Story Task": "Preserve both literal and intended meaning when pragmatic interpretation is required, "
    "together with beliefs explaining why the behavior appears socially or logically odd.",
}
"""Table 8: the category-conditioned Stage 1 extraction emphasis."""

STAGE2_L3 = (
    "You are a Theory of Mind expert whose task is to label a table of actor beliefs, given a narrative, by "
    "assigning a label from each of the following closed sets—Order (0/1/2/3), Truth-Status (True/False/Unknown), "
    "Knowledge-Access (Private/Shared/Public), Representation (Explicit/Implicit), Content Type (Location, "
    "Contents/Physical State, Identity/Relation, Epistemic, Desire/Intention, Emotion, Trait/Value, Action/Event), "
    "Mental-Source (Narration, Perception, Memory, Testimony, Inference, Imagination, Unknown), and Context "
    "(Deceptive, Temporal, Counterfactual, Neutral)—and outputting only a table with columns Actor and Belief, "
    "followed by one column for each labeling set. In this context, a belief is a minimal proposition expressing "
    "what an actor takes to be true about the world or about another actor's mental state. Label each belief in "
    "the provided table by assigning values for the following dimensions, using the narrative as evidence: "
    "1. Determine the Order of the belief, which captures the depth of belief reasoning: "
    "- Order 0: Narrator- or world-level facts that anchor the story's ground truth and are not held by any actor. "
    "- Order 1: First-order beliefs (A believes p). "
    "- Order 2: Second-order beliefs (A believes B believes p). "
    "- Order 3: Higher-order recursive beliefs (A believes B believes C believes p). "
    "2. Determine the Truth-Status of the belief relative to the narrative: "
    "- True if the belief is verified or entailed by the narration. "
    "- False if the belief is contradicted by the narration. "
    "- Unknown if the narrative does not provide sufficient evidence. "
    "3. Determine the Knowledge-Access of the belief by assessing who could realistically know it in the story "
    "world: "
    "- Private if the belief is held internally without evidence others know it. "
    "- Shared if it is mutually known within a subgroup through explicit acknowledgment or obvious mutual "
    "awareness. "
    "- Public if it is common ground across all actors (announced, jointly witnessed, or mutually known to be "
    "mutually known). "
    "4. Determine the Representation of the belief: "
    "- Explicit if the belief is directly stated, spoken, or narrated as a mental state. "
    "- Implicit if the belief must be inferred from actions, perception, or context. "
    "5. Determine the Content Type by identifying what the proposition is about: "
    "- Use Action/Event for happenings; Desire/Intention for plans or goals. "
    "- Use Location when the proposition concerns where an entity is or was, even if it involves a container "
    "- Use Contents / Physical State only when the belief concerns what a container holds or an object's "
    "condition. "
    "- Use Epistemic for beliefs about beliefs, knowledge, attention, or awareness. "
    "6. Determine the Mental-Source of the belief, indicating how it was acquired: "
    "- Narration (Order 0 only), Perception, Memory, Testimony, Inference, Imagination, or Unknown. "
    "7. Determine the Context of the belief: "
    "- Deceptive if shaped by lying, omission, or misdirection. "
    "- Temporal if the belief is outdated or reflects recall of a prior true state. "
    "- Temporal + False indicates an outdated false belief. "
    "- Temporal + True indicates accurate recall of a past fact. "
    "- Counterfactual if the belief occurs in a hypothetical or pretense frame. "
    "- Neutral if none apply."
)
"""C.3, Level 3 zero-shot base prompt."""

STAGE2_L4 = (
    "A good output should satisfy the following: "
    "- Assign labels only using evidence grounded in the narrative; do not introduce new interpretations, "
    "entities, beliefs, or label values. "
    "- Assign exactly one valid label from each closed set to every belief line. "
    "- Use only the predefined label sets for Order, Truth-Status, Knowledge-Access, Representation, Content Type, "
    "Mental-Source, and Context. "
    "- If evidence is insufficient or ambiguous, select Unknown rather than speculate. "
    "- Do not include explanations, notes, justifications, or commentary beyond the required labels. "
    "A correctly formatted output should satisfy the following: "
    "- Present the result as a pipe-separated table using the '|' character. "
    "- Each subsequent row must correspond to one belief from the input belief table. "
    "- Preserve the original order of beliefs from the input table. "
    "- Do not include free-text explanations, narrative descriptions, or additional columns."
)
"""C.3, Level 4 addition block."""

JUDGE_L3 = (
    "You are a Theory of Mind evaluation expert whose task is to semantically match rows between two belief "
    "tables (Prediction, Ground Truth) extracted from the same short Story Narrative and output only the two "
    "tables, explicitly labeled \u201cPrediction Table\u201d and \u201cGround Truth Table,\u201d with an added "
    "MatchCount column indicating how many distinct semantically equivalent rows exist in the other table for the "
    "same Actor. In this context, a Belief is a minimal statement of what an actor takes to be true about the "
    "world (facts/events) or about other actors' mental states, expressed in natural language. Perform the task "
    "by following these steps: "
    "1) If a Story Narrative is provided, use it only to resolve ambiguity (pronouns, aliases, implicit entities) "
    "and paraphrase meaning; if no narrative is provided, ignore narrative context entirely. In all cases, do not "
    "add rows and do not introduce new beliefs that are not present in either table. "
    "2) Treat Actors as distinct mental agents and normalize only cosmetic variants of the same Actor name "
    "(case/spacing/punctuation and clear shortenings); never merge different Ground Truth Actors. "
    "3) Handle the special actor 'world' first: treat 'world' as the key for narrated facts and events, and align "
    "world-level beliefs conservatively, typically one-to-one, allowing only minor normalization differences. "
    "4) Restrict candidate matches to the same Actor group after normalization; if the Actor does not match, the "
    "row cannot match regardless of belief similarity. "
    "5) Default to one-to-one with bookkeeping: if (and only if) there exists a clear semantically equivalent "
    "belief for the same Actor, assign the row its single best match among currently-unmatched target rows; "
    "otherwise assign no match (MatchCount = 0). If multiple rows compete for the same target row, keep only the "
    "closest semantic match and force the others to choose different unmatched targets or become 0. "
    "6) Allow one-to-many only for compound rows: if a row clearly contains multiple independent beliefs, you may "
    "align it to 2–3 different rows in the other table within the same Actor group, but only if each aligned "
    "target row captures a distinct part of the compound meaning. "
    "7) Ensure symmetry: after completing matches for Prediction rows, also compute MatchCount for every Ground "
    "Truth row using the same alignment decisions."
)
"""C.4, Level 3 base prompt of the semantic judge."""

JUDGE_L4 = (
    "A good output should satisfy the following: "
    "- Only compare beliefs inside the same Actor group; Ground Truth Actors are unique and must not be "
    "merged—if Actor differs, it is NOT a match even if belief text is identical. "
    "- The special actor 'world' represents narrated facts and events (not a character in the story); "
    "world-level beliefs should generally align one-to-one across tables with only minor normalization "
    "differences. "
    "- Match only beliefs that are semantically equivalent; do not invent or force alignments and do not "
    "introduce beliefs that are not present in either table. "
    "- Use conservative alignment: when multiple rows are 'close', prefer the best single match and leave other "
    "rows unmatched rather than double-counting. "
    "- Prefer one-to-one matches; allow one-to-many (MatchCount 2–3) only for genuinely compound beliefs. "
    "- Do not match across different Actors, even if text looks similar. "
    "- Output exactly two tables labeled Prediction and Ground Truth (in that order), with CSV header "
    "Actor,Belief,MatchCount and no extra text. "
    "A correctly formatted output should satisfy the following: "
    "- Output exactly two tables labeled Prediction and Ground Truth (in that order). "
    "- Each table must be comma-separated with header: Actor,Belief,MatchCount "
    "- Preserve original row order and add exactly one MatchCount column. "
    "- Do not include explanations or any text outside the tables."
)
"""C.4, Level 4 addition block of the semantic judge."""

LABEL_COLUMNS: tuple[str, ...] = (
    "Order",
    "Truth-Status",
    "Knowledge-Access",
    "Representation",
    "Content Type",
    "Mental-Source",
    "Context",
)
"""Stage 2 table columns after Actor and Belief, in :data:`DIMENSIONS` order, named as the C.3 prompt names them."""


_LABELLED_HEADER = ("Actor", "Belief", *LABEL_COLUMNS)

STAGE2_ANSWER = (
    "Answer with the belief table completed: every row of it, its Actor and Belief as given, followed by its seven "
    "labels, one value from each closed set in each cell (never the whole set), under this header:"
)
"""mindloop's closing line of the Stage 2 user message (``protocol=mindloop``; not the paper's): without it, small
models answered with the input table again, unlabelled; without its "one value" clause, they filled each cell with
the whole closed set (``0/1/2/3``, ``True/False/Unknown``)."""


def _check_level(level: int) -> None:
    if level not in (3, 4):
        raise InvalidArgumentError(f"TELeR level must be 3 (zero-shot) or 4 (with examples), got {level}")


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "/").split())


def belief_table(beliefs: Sequence[BeliefRecord]) -> str:
    """``Actor | Belief`` rows, the Stage 2 input table."""
    return "\n".join(["Actor | Belief", *(f"{_cell(b.actor)} | {_cell(b.belief)}" for b in beliefs)])


def stage1_table(beliefs: Sequence[BeliefRecord]) -> str:
    """``Actor | Belief | Order`` rows, a Stage 1 answer (few-shot examples, references)."""
    rows = [f"{_cell(b.actor)} | {_cell(b.belief)} | {b.labels.order or ''}" for b in beliefs]
    return "\n".join(["Actor | Belief | Order", *rows])


def labelled_table(beliefs: Sequence[BeliefRecord]) -> str:
    """``Actor | Belief | Order | … | Context`` rows, a Stage 2 answer."""
    head = " | ".join(["Actor", "Belief", *LABEL_COLUMNS])
    rows = [
        " | ".join([_cell(b.actor), _cell(b.belief), *((b.labels.get(d) or "") for d in DIMENSIONS)]) for b in beliefs
    ]
    return "\n".join([head, *rows])


def category_insertion(category: str) -> str:
    """The category-conditioned Level 4 block: the story's category and its Table 8 emphasis."""
    name = canonical_category(category)
    return f"This story belongs to the {name} category. Extraction emphasis: {EXTRACTION_EMPHASIS[name]}"


def _examples(title: str, blocks: Sequence[str]) -> str:
    return "\n\n".join(f"{title} {i}:\n{block}" for i, block in enumerate(blocks, 1))


def stage1_messages(
    story: str, *, level: Level = 3, category: str | None = None, examples: Sequence[StoryRecord] = ()
) -> list[Message]:
    """Stage 1 extraction messages: the system directive (Level 3, or Level 4 with the category insertion and
    ``examples``), then the story as the user message."""
    _check_level(level)
    system = STAGE1_L3
    if level == 4:
        parts = [STAGE1_L3, STAGE1_L4_CONTENT]
        if category is not None:
            parts.append(category_insertion(category))
        parts.append(STAGE1_L4_FORMAT)
        if examples:
            blocks = [f"Story: {ex.story}\nOutput:\n{stage1_table(ex.beliefs)}" for ex in examples]
            parts.append(_examples("Example", blocks))
        system = "\n\n".join(parts)
    return [message("system", system), message("user", f"Story: {story}")]


def stage2_messages(
    story: str, beliefs: Sequence[BeliefRecord], *, level: Level = 3, examples: Sequence[StoryRecord] = ()
) -> list[Message]:
    """Stage 2 labelling messages: the directive (Level 4 adds the criteria block and labelled ``examples``),
    then the story, the ``Actor | Belief`` table to label and :data:`STAGE2_ANSWER` with the labelled header."""
    _check_level(level)
    system = STAGE2_L3
    if level == 4:
        parts = [STAGE2_L3, STAGE2_L4]
        if examples:
            blocks = [
                f"Story: {ex.story}\nBelief table:\n{belief_table(ex.beliefs)}\nOutput:\n{labelled_table(ex.beliefs)}"
                for ex in examples
            ]
            parts.append(_examples("Example", blocks))
        system = "\n\n".join(parts)
    user = (
        f"Story: {story}\n\nBelief table:\n{belief_table(beliefs)}\n\n{STAGE2_ANSWER}\n{' | '.join(_LABELLED_HEADER)}"
    )
    return [message("system", system), message("user", user)]


def _csv_field(text: str) -> str:
    text = " ".join(text.split())
    if any(c in text for c in ',"\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _csv(rows: Sequence[tuple[str, str]], counts: Sequence[int] | None = None) -> str:
    head = "Actor,Belief" if counts is None else "Actor,Belief,MatchCount"
    lines = [head]
    for k, (actor, belief) in enumerate(rows):
        cells = [_csv_field(actor), _csv_field(belief)]
        if counts is not None:
            cells.append(str(counts[k]))
        lines.append(",".join(cells))
    return "\n".join(lines)


def judge_messages(
    story: str | None,
    predicted: Sequence[tuple[str, str]],
    gold: Sequence[tuple[str, str]],
    *,
    level: Level = 4,
    examples: Sequence[tuple[str, Sequence[tuple[str, str, int]], Sequence[tuple[str, str, int]]]] = (),
) -> list[Message]:
    """Semantic-judge messages: the C.4 directive (Level 4 adds the criteria block and alignment ``examples``,
    each ``(story, predicted rows with MatchCount, gold rows with MatchCount)``), then the story and the two
    tables as CSV."""
    _check_level(level)
    system = JUDGE_L3
    if level == 4:
        parts = [JUDGE_L3, JUDGE_L4]
        if examples:
            blocks = []
            for ex_story, ex_pred, ex_gold in examples:
                inputs = (
                    f"Story Narrative: {ex_story}\nPrediction:\n{_csv([(a, b) for a, b, _ in ex_pred])}\n"
                    f"Ground Truth:\n{_csv([(a, b) for a, b, _ in ex_gold])}"
                )
                outputs = (
                    f"Prediction Table\n{_csv([(a, b) for a, b, _ in ex_pred], [c for *_, c in ex_pred])}\n\n"
                    f"Ground Truth Table\n{_csv([(a, b) for a, b, _ in ex_gold], [c for *_, c in ex_gold])}"
                )
                blocks.append(f"{inputs}\nOutput:\n{outputs}")
            parts.append(_examples("Alignment example", blocks))
        system = "\n\n".join(parts)
    narrative = f"Story Narrative: {story}\n\n" if story else ""
    user = f"{narrative}Prediction:\n{_csv(predicted)}\n\nGround Truth:\n{_csv(gold)}"
    return [message("system", system), message("user", user)]

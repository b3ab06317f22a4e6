"""OmniToM's TELeR prompts (App. C): Stage 1 extraction, Stage 2 labelling and the Stage 1 semantic judge.

Level 3 is the zero-shot base prompt used for benchmark evaluation (Table 3): a system-role directive with the
sub-task steps, then the story (and, for Stage 2, the belief table) as data. Level 4 adds the shared blocks the
paper prints (output criteria and formatting), for Stage 1 the category-conditioned emphasis of Table 8, and
few-shot examples built from gold records (by default the App. E example of the story's category). The paper
prints the base prompts and blocks but not the exact wording of the category insertion or the example layout;
those two are written here in the same style and documented in docs/omnitom.md.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Literal

from mindloop.datafiles import DataModel, load_package_data
from mindloop.errors import InvalidArgumentError
from mindloop.models.base import Message, message
from mindloop.systems.omnitom.records import _SCHEMA, DIMENSIONS, BeliefRecord, StoryRecord, canonical_category

Level = Literal[3, 4]


class _Texts(DataModel):
    """``data/prompts.yaml``: the paper's prompt texts, and the release's (:mod:`~mindloop.systems.omnitom.release`)."""

    paper: dict[str, str]
    extraction_emphasis: dict[str, str]
    release: dict[str, str]


_TEXTS = load_package_data(_Texts, __package__ or "", "prompts.yaml")

STAGE1_L3 = _TEXTS.paper["stage1_l3"]
"""C.2, Level 3 zero-shot base prompt."""

STAGE1_L4_CONTENT = _TEXTS.paper["stage1_l4_content"]
"""C.2, shared Level 4 content block."""

STAGE1_L4_FORMAT = _TEXTS.paper["stage1_l4_format"]
"""C.2, Level 4 formatting block."""

EXTRACTION_EMPHASIS: dict[str, str] = _TEXTS.extraction_emphasis
"""Table 8: the category-conditioned Stage 1 extraction emphasis."""

STAGE2_L3 = _TEXTS.paper["stage2_l3"]
"""C.3, Level 3 zero-shot base prompt."""

STAGE2_L4 = _TEXTS.paper["stage2_l4"]
"""C.3, Level 4 addition block."""

JUDGE_L3 = _TEXTS.paper["judge_l3"]
"""C.4, Level 3 base prompt of the semantic judge."""

JUDGE_L4 = _TEXTS.paper["judge_l4"]
"""C.4, Level 4 addition block of the semantic judge."""

LABEL_COLUMNS: tuple[str, ...] = tuple(dim.column for dim in _SCHEMA.dimensions.values())
"""Stage 2 table columns after Actor and Belief, in :data:`DIMENSIONS` order, named as the C.3 prompt names them."""


_LABELLED_HEADER = ("Actor", "Belief", *LABEL_COLUMNS)

STAGE2_ANSWER = _TEXTS.paper["stage2_answer"]
"""mindloop's closing line of the Stage 2 user message (``protocol=mindloop``; not the paper's): without it, small
models answered with the input table again, unlabelled; without its "one value" clause, they filled each cell with
the whole closed set (``0/1/2/3``, ``True/False/Unknown``)."""


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "/").split())


def _table(beliefs: Sequence[BeliefRecord], n: int = 0) -> str:
    """A pipe table of ``beliefs``: a header row, then each belief's actor and belief (as cells) and its labels of
    the first ``n`` dimensions (empty where missing)."""
    rows = [[_cell(b.actor), _cell(b.belief), *((b.labels.get(d) or "") for d in DIMENSIONS[:n])] for b in beliefs]
    return "\n".join(" | ".join(row) for row in [_LABELLED_HEADER[: 2 + n], *rows])


def belief_table(beliefs: Sequence[BeliefRecord]) -> str:
    """``Actor | Belief`` rows, the Stage 2 input table."""
    return _table(beliefs)


def stage1_table(beliefs: Sequence[BeliefRecord]) -> str:
    """``Actor | Belief | Order`` rows, a Stage 1 answer (few-shot examples, references)."""
    return _table(beliefs, 1)


def labelled_table(beliefs: Sequence[BeliefRecord]) -> str:
    """``Actor | Belief | Order | … | Context`` rows, a Stage 2 answer."""
    return _table(beliefs, len(DIMENSIONS))


def category_insertion(category: str) -> str:
    """The category-conditioned Level 4 block: the story's category and its Table 8 emphasis."""
    name = canonical_category(category)
    return f"This story belongs to the {name} category. Extraction emphasis: {EXTRACTION_EMPHASIS[name]}"


def _system(level: int, base: str, blocks: Sequence[str], title: str, examples: Sequence[str]) -> str:
    """A system directive: ``base`` alone at Level 3; at Level 4 followed by ``blocks`` and the numbered
    ``examples``."""
    if level not in (3, 4):
        raise InvalidArgumentError(f"TELeR level must be 3 (zero-shot) or 4 (with examples), got {level}")
    if level == 3:
        return base
    numbered = ["\n\n".join(f"{title} {i}:\n{block}" for i, block in enumerate(examples, 1))] if examples else []
    return "\n\n".join([base, *blocks, *numbered])


def stage1_messages(
    story: str, *, level: Level = 3, category: str | None = None, examples: Sequence[StoryRecord] = ()
) -> list[Message]:
    """Stage 1 extraction messages: the system directive (Level 3, or Level 4 with the category insertion and
    ``examples``), then the story as the user message."""
    blocks = [f"Story: {ex.story}\nOutput:\n{stage1_table(ex.beliefs)}" for ex in examples]
    insertion = [category_insertion(category)] if category is not None and level == 4 else []
    system = _system(level, STAGE1_L3, [STAGE1_L4_CONTENT, *insertion, STAGE1_L4_FORMAT], "Example", blocks)
    return [message("system", system), message("user", f"Story: {story}")]


def stage2_messages(
    story: str, beliefs: Sequence[BeliefRecord], *, level: Level = 3, examples: Sequence[StoryRecord] = ()
) -> list[Message]:
    """Stage 2 labelling messages: the directive (Level 4 adds the criteria block and labelled ``examples``),
    then the story, the ``Actor | Belief`` table to label and :data:`STAGE2_ANSWER` with the labelled header."""
    blocks = [
        f"Story: {ex.story}\nBelief table:\n{belief_table(ex.beliefs)}\nOutput:\n{labelled_table(ex.beliefs)}"
        for ex in examples
    ]
    system = _system(level, STAGE2_L3, [STAGE2_L4], "Example", blocks)
    user = (
        f"Story: {story}\n\nBelief table:\n{belief_table(beliefs)}\n\n{STAGE2_ANSWER}\n{' | '.join(_LABELLED_HEADER)}"
    )
    return [message("system", system), message("user", user)]


def _csv(rows: Sequence[Sequence[object]], head: str = "Actor,Belief") -> str:
    """``head`` and ``rows`` as CSV, each cell's whitespace collapsed and the cell quoted only where it must be."""
    buf = io.StringIO()
    cells = ([" ".join(str(cell).split()) for cell in row] for row in rows)
    csv.writer(buf, lineterminator="\n").writerows([head.split(","), *cells])
    return buf.getvalue().strip()


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
    blocks = []
    for ex_story, ex_pred, ex_gold in examples:
        inputs = (
            f"Story Narrative: {ex_story}\nPrediction:\n{_csv([(a, b) for a, b, _ in ex_pred])}\n"
            f"Ground Truth:\n{_csv([(a, b) for a, b, _ in ex_gold])}"
        )
        head = "Actor,Belief,MatchCount"
        outputs = f"Prediction Table\n{_csv(ex_pred, head)}\n\nGround Truth Table\n{_csv(ex_gold, head)}"
        blocks.append(f"{inputs}\nOutput:\n{outputs}")
    system = _system(level, JUDGE_L3, [JUDGE_L4], "Alignment example", blocks)
    narrative = f"Story Narrative: {story}\n\n" if story else ""
    user = f"{narrative}Prediction:\n{_csv(predicted)}\n\nGround Truth:\n{_csv(gold)}"
    return [message("system", system), message("user", user)]

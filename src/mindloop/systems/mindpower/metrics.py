"""MindPower metrics (Sec. 5.1 and supplementary B.6, D.1).

* :func:`success_rate` and :func:`action_correctness` — the action metrics, over whole actions as tokens;
* :func:`layer_similarity` — BERTScore and Sentence-Transformer similarity per layer (offline all-MiniLM-L6-v2);
* :func:`judge_bpc` and :func:`judge_robot_centric` — the model-judged BPC (0–10) and Robot-Centric (0–4) scores;
* :func:`table2` — the report table laid out as the paper's Table 2;
* :func:`normalize_call` / :func:`split_calls` — the ``verb(arg, ...)`` grammar everything above shares.
"""

from __future__ import annotations

from mindloop.systems.mindpower.actions import (
    SR_WEIGHTS,
    ActionScores,
    RougeScores,
    action_correctness,
    action_scores,
    rouge_tokens,
    success_rate,
)
from mindloop.systems.mindpower.calls import Call, normalize_call, normalize_calls, parse_call, split_calls
from mindloop.systems.mindpower.judges import (
    BPC_PROMPT,
    RC_QUESTIONS,
    ROBOT_CENTRIC_PROMPT,
    JudgeScore,
    judge_bpc,
    judge_robot_centric,
    parse_bpc,
    parse_robot_centric,
)
from mindloop.systems.mindpower.layers import LAYERS, TABLE2_LAYERS, layer_similarity, table2

__all__ = [
    "BPC_PROMPT",
    "LAYERS",
    "RC_QUESTIONS",
    "ROBOT_CENTRIC_PROMPT",
    "SR_WEIGHTS",
    "TABLE2_LAYERS",
    "ActionScores",
    "Call",
    "JudgeScore",
    "RougeScores",
    "action_correctness",
    "action_scores",
    "judge_bpc",
    "judge_robot_centric",
    "layer_similarity",
    "normalize_call",
    "normalize_calls",
    "parse_bpc",
    "parse_call",
    "parse_robot_centric",
    "rouge_tokens",
    "split_calls",
    "success_rate",
    "table2",
]

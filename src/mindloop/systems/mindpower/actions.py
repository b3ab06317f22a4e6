"""MindPower's action metrics (Sec. 5.1): Success Rate and Action Correctness over whole actions as tokens.

``SR = (2·R1 + 3·R2 + 5·RL) / 10`` where R1, R2 and RL are ROUGE-1, ROUGE-2 and ROUGE-L F-measures computed by
the ``rouge-score`` library, with each normalised action (:func:`~mindloop.systems.mindpower.calls.normalize_call`)
as one token: its scorer accepts any tokenizer, so the library's n-gram and LCS algorithms run unchanged on
action tokens.

``AC = |A* ∩ Â| / |Â|``: the generated actions A* that match the gold sequence Â (a multiset intersection, so a
gold action repeated twice must be generated twice to count twice), over the number of gold actions. The paper
prints floor brackets around the fraction, which would make AC 1 only when every gold action is produced and 0
otherwise; we keep the fraction (its table reports averages such as 15.40 that a per-sample 0/1 could also
give, but the text calls AC "the accuracy of each atomic action"), so partial plans earn partial credit.

Both take an action line as the paper writes it (``walk (fridge), open (fridge)``) or a list of
``verb(arg, ...)`` strings and return a float in [0, 1]; reports multiply by 100.

>>> success_rate("walk(fridge), open(fridge), pick(apple)", ["Walk (Fridge)", "open(fridge)", "pick(apple)"])
1.0
>>> action_correctness(["walk(fridge)", "pick(apple)"], "walk(fridge), open(fridge), pick(apple), walk(alice)")
0.5
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mindloop.errors import InvalidArgumentError
from mindloop.systems.mindpower.calls import normalize_calls

__all__ = [
    "SR_WEIGHTS",
    "ActionScores",
    "RougeScores",
    "action_correctness",
    "action_scores",
    "rouge_tokens",
    "success_rate",
]

SR_WEIGHTS: tuple[float, float, float] = (0.2, 0.3, 0.5)
"""Weights of ROUGE-1, ROUGE-2 and ROUGE-L in SR (Eq. 5: 2, 3 and 5 tenths)."""

_SEP = "\x1f"  # joins pre-tokenised tokens for rouge-score's text interface; normalised tokens never contain it


@dataclass(frozen=True)
class RougeScores:
    """ROUGE-1, ROUGE-2 and ROUGE-L F-measures (each in [0, 1])."""

    rouge1: float
    rouge2: float
    rougeL: float  # noqa: N815 - the library's and the paper's name

    def weighted(self, weights: tuple[float, float, float] = SR_WEIGHTS) -> float:
        """``w1·R1 + w2·R2 + wL·RL``."""
        w1, w2, wl = weights
        return w1 * self.rouge1 + w2 * self.rouge2 + wl * self.rougeL


class _TokenTokenizer:
    """A rouge-score tokenizer for text that is already tokens joined by ``_SEP``."""

    def tokenize(self, text: str) -> list[str]:
        return text.split(_SEP) if text else []


@lru_cache(maxsize=1)
def _scorer() -> Any:
    """rouge-score's scorer over action tokens (a core dependency, imported on first use: it pulls in nltk)."""
    from rouge_score import rouge_scorer  # type: ignore[import-untyped]

    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=_TokenTokenizer())


def rouge_tokens(pred: Sequence[str], gold: Sequence[str]) -> RougeScores:
    """ROUGE-1/2/L F-measures between two token sequences (each token one unit), by the rouge-score library.

    When neither sequence has a bigram (one token each), ROUGE-2 is 0/0; the library returns 0, which would
    cap an exactly right one-action answer (``wait()``) at SR 0.7. We take 0/0 as agreement when the two
    sequences are equal (ROUGE-2 = 1) and as 0 otherwise.

    >>> r = rouge_tokens(["a", "b"], ["a", "b", "c"])
    >>> round(r.rouge1, 4), r.rouge2, round(r.rougeL, 4)
    (0.8, 0.6666666666666666, 0.8)
    >>> rouge_tokens(["wait()"], ["wait()"]).rouge2
    1.0
    """
    bad = [t for t in (*pred, *gold) if _SEP in t or not t]
    if bad:
        raise InvalidArgumentError(f"ROUGE tokens must be non-empty and free of control characters, got {bad[0]!r}")
    scores = _scorer().score(_SEP.join(gold), _SEP.join(pred))
    r2 = scores["rouge2"].fmeasure
    if len(pred) < 2 and len(gold) < 2:  # no bigram on either side: 0/0, agreement iff the sequences are equal
        r2 = 1.0 if list(pred) == list(gold) else 0.0
    return RougeScores(scores["rouge1"].fmeasure, r2, scores["rougeL"].fmeasure)


@dataclass(frozen=True)
class ActionScores:
    """SR, AC and the ROUGE parts of one predicted plan against its gold plan."""

    sr: float
    ac: float
    rouge: RougeScores
    n_pred: int
    n_gold: int
    n_matched: int


def _gold_tokens(gold: str | Sequence[str]) -> list[str]:
    tokens = normalize_calls(gold)
    if not tokens:
        raise InvalidArgumentError("the gold action sequence is empty: SR and AC need at least one gold action")
    return tokens


def action_scores(pred: str | Sequence[str], gold: str | Sequence[str]) -> ActionScores:
    """All action metrics at once (one normalisation pass)."""
    g = _gold_tokens(gold)
    p = normalize_calls(pred)
    rouge = rouge_tokens(p, g)
    matched = sum((Counter(p) & Counter(g)).values())
    return ActionScores(rouge.weighted(), matched / len(g), rouge, len(p), len(g), matched)


def success_rate(pred: str | Sequence[str], gold: str | Sequence[str]) -> float:
    """SR = (2·R1 + 3·R2 + 5·RL) / 10 over whole actions as tokens, in [0, 1]."""
    return action_scores(pred, gold).sr


def action_correctness(pred: str | Sequence[str], gold: str | Sequence[str]) -> float:
    """AC = |A* ∩ Â| / |Â| (multiset intersection of normalised actions over the gold count), in [0, 1]."""
    return action_scores(pred, gold).ac

"""SR and AC (Sec. 5.1, Eq. 5 and 6) on hand-worked cases, the action grammar, and ROUGE against a brute-force
re-derivation from the definitions."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindloop.errors import InvalidArgumentError
from mindloop.systems.mindpower.metrics import (
    action_correctness,
    action_scores,
    normalize_call,
    rouge_tokens,
    split_calls,
    success_rate,
)

# Fig. 1 Example 1: the gold plan of the paper, and a prediction that skips opening the fridge.
GOLD = "walk(fridge), open(fridge), pick(apple), walk(Alice)"
PRED = ["walk (fridge)", "pick (apple)", "walk (alice)"]


def test_hand_worked_sr_and_ac() -> None:
    # tokens: gold = [w_f, o_f, p_a, w_A] (4), pred = [w_f, p_a, w_A] (3)
    # R1: 3 matched -> P = 3/3, R = 3/4, F = 2·1·(3/4)/(1 + 3/4) = 6/7
    # R2: gold bigrams (w_f,o_f) (o_f,p_a) (p_a,w_A); pred (w_f,p_a) (p_a,w_A); 1 shared -> P = 1/2, R = 1/3, F = 2/5
    # RL: LCS = w_f p_a w_A = 3 -> P = 1, R = 3/4, F = 6/7
    # SR = (2·6/7 + 3·2/5 + 5·6/7) / 10 = (6 + 6/5) / 10 = 0.72 ; AC = 3/4
    s = action_scores(PRED, GOLD)
    assert s.rouge.rouge1 == pytest.approx(6 / 7)
    assert s.rouge.rouge2 == pytest.approx(2 / 5)
    assert s.rouge.rougeL == pytest.approx(6 / 7)
    assert success_rate(PRED, GOLD) == pytest.approx(0.72)
    assert action_correctness(PRED, GOLD) == pytest.approx(0.75)


def test_order_matters_for_sr_but_not_for_ac() -> None:
    # reversed: R1 = 1 (all 3 tokens), R2 = 0 (no bigram kept), RL = 1/3 (LCS of a reversal is one token)
    # SR = (2·1 + 3·0 + 5·1/3) / 10 = (2 + 5/3) / 10 = 11/30
    gold = ["walk(a)", "open(b)", "pick(c)"]
    pred = list(reversed(gold))
    assert success_rate(pred, gold) == pytest.approx(11 / 30)
    assert action_correctness(pred, gold) == 1.0


def test_ac_counts_repeats_only_as_often_as_the_gold_has_them() -> None:
    # gold: walk(x) twice, give(a, b) once; pred: walk(x) three times -> |A* ∩ Â| = 2, |Â| = 3
    assert action_correctness(["walk(x)"] * 3, ["walk(x)", "give(a, b)", "walk(x)"]) == pytest.approx(2 / 3)


def test_extra_predicted_actions_lower_sr_not_ac() -> None:
    # pred = gold + 2 extra: R1 P = 2/4, R = 1 -> 2/3; R2: 1 shared of pred 3, gold 1 -> P = 1/3, R = 1 -> 1/2;
    # RL = 2/3; SR = (2·2/3 + 3·1/2 + 5·2/3)/10 = (14/3 + 3/2)/10 = 37/60 ; AC = 2/2
    gold = ["walk(a)", "pick(b)"]
    pred = ["walk(a)", "pick(b)", "wave(c)", "jump(d)"]
    assert success_rate(pred, gold) == pytest.approx(37 / 60)
    assert action_correctness(pred, gold) == 1.0


def test_single_action_exact_answer_is_perfect() -> None:
    assert success_rate("wait()", ["wait"]) == 1.0
    assert success_rate("walk(x)", ["wait()"]) == 0.0


def test_no_overlap_and_empty_prediction_score_zero() -> None:
    assert success_rate(["identify()", "scan()"], GOLD) == 0.0
    assert action_correctness("", GOLD) == 0.0
    assert success_rate([], GOLD) == 0.0


def test_empty_gold_is_an_error() -> None:
    with pytest.raises(InvalidArgumentError, match="gold action sequence is empty"):
        success_rate("walk(x)", "")
    with pytest.raises(InvalidArgumentError):
        action_correctness(["walk(x)"], [])


@pytest.mark.parametrize(
    ("raw", "norm"),
    [
        ("Walk (Fridge)", "walk(fridge)"),
        ("give( mug ,David )", "give(mug, david)"),
        ("walk(kitchen table)", "walk(kitchen_table)"),
        ("PutIn(Apple, Fridge).", "putin(apple, fridge)"),
        ('say(alice, "The mug is  in the Dishwasher.")', 'say(alice, "the mug is in the dishwasher.")'),
        (
            "make_decision(robot, fetch(apple, from = Fridge, to=Alice))",
            "make_decision(robot, fetch(apple, from=fridge, to=alice))",
        ),
        ("wait", "wait()"),
        ("walk to the fridge", "walk to the fridge"),
    ],
)
def test_normalisation(raw: str, norm: str) -> None:
    assert normalize_call(raw) == norm


def test_split_calls_keeps_nested_commas_and_quotes() -> None:
    line = 'walk (dishwasher), open(dishwasher); say(david, "Hi, it is here"),\n1. give (mug, David).'
    assert split_calls(line) == [
        "walk (dishwasher)",
        "open(dishwasher)",
        'say(david, "Hi, it is here")',
        "give (mug, David)",
    ]
    assert split_calls("walk(a) -> open(b) → pick(c)") == ["walk(a)", "open(b)", "pick(c)"]


def test_line_and_list_forms_agree() -> None:
    line = "walk (dishwasher), open (dishwasher), pick (mug), close (dishwasher), walk (David), give (mug, David)."
    items = [
        "walk(dishwasher)",
        "open(dishwasher)",
        "pick(mug)",
        "close(dishwasher)",
        "walk(david)",
        "give(mug, david)",
    ]
    assert success_rate(line, items) == 1.0
    assert action_correctness(items, line) == 1.0


def _f(p: float, r: float) -> float:
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def _ngram_f(pred: list[str], gold: list[str], n: int) -> float:
    pg = Counter(tuple(pred[i : i + n]) for i in range(len(pred) - n + 1))
    gg = Counter(tuple(gold[i : i + n]) for i in range(len(gold) - n + 1))
    if not pg and not gg:
        return 1.0 if pred == gold else 0.0
    overlap = sum((pg & gg).values())
    return _f(overlap / max(1, sum(pg.values())), overlap / max(1, sum(gg.values())))


def _lcs_brute(a: list[str], b: list[str]) -> int:
    # the longest subsequence of a that is also a subsequence of b, by enumeration (short inputs only)
    def is_sub(x: tuple[str, ...], y: list[str]) -> bool:
        it = iter(y)
        return all(tok in it for tok in x)

    for k in range(len(a), 0, -1):
        if any(is_sub(c, b) for c in itertools.combinations(a, k)):
            return k
    return 0


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(["walk(a)", "open(b)", "pick(c)", "give(c, d)"]), max_size=7),
    st.lists(st.sampled_from(["walk(a)", "open(b)", "pick(c)", "give(c, d)"]), min_size=1, max_size=7),
)
def test_rouge_matches_the_definitions(pred: list[str], gold: list[str]) -> None:
    r = rouge_tokens(pred, gold)
    lcs = _lcs_brute(pred, gold)
    assert r.rouge1 == pytest.approx(_ngram_f(pred, gold, 1))
    assert r.rouge2 == pytest.approx(_ngram_f(pred, gold, 2))
    assert r.rougeL == pytest.approx(_f(lcs / max(1, len(pred)), lcs / len(gold)))
    sr = success_rate(pred, gold)
    assert 0.0 <= sr <= 1.0
    assert sr == pytest.approx((2 * r.rouge1 + 3 * r.rouge2 + 5 * r.rougeL) / 10)
    assert 0.0 <= action_correctness(pred, gold) <= 1.0

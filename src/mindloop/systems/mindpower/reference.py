"""Trivial reference policies of MindPower's action metrics: what SR and AC a policy that ignores the input gets.

* ``wait`` — ``<Action> wait()`` on every scenario (the robot's "no intervention");
* ``example_1`` / ``example_2`` — the ``<Action>`` line of the prompt's worked examples, copied
  (:func:`prompt_examples`);
* ``best_constant`` — the one action sequence, among every distinct gold sequence of the scenarios it is fitted on
  (the train split) and every single action in them, that scores the highest mean SR there
  (:func:`best_constant`; ties broken by AC, then by the sequence's text).

A constant policy's scores come from :func:`score_constant`; :func:`reference_policies` declares all of them (and the
oracle, the symbolic engine) for the ``mindpower`` benchmark, valued on a run's own samples on the headline's scale
(SR, 0-100; no encoder is needed). The search scores thousands of candidates against
hundreds of gold plans, so it uses :func:`fast_action_scores`, the same ROUGE-1/2/L F-measures and AC as
:func:`~mindloop.systems.mindpower.metrics.action_scores` computed directly on token lists (the tests check the two
agree); :func:`score_constant` itself uses the library's.

>>> [name for name, _ in prompt_examples()]
['example_1', 'example_2']
>>> prompt_examples()[0][1].actions[:2]
('walk(dishwasher)', 'open(dishwasher)')
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from mindloop.bench.declaration import ReferencePolicy
from mindloop.bench.records import Sample
from mindloop.metrics.stats import mean
from mindloop.systems.mindpower.calls import normalize_calls
from mindloop.systems.mindpower.metrics import action_scores
from mindloop.systems.mindpower.prompts import PROMPTS

WAIT: tuple[str, ...] = ("wait()",)
"""The ``wait`` policy's action sequence."""

_EXAMPLE = re.compile(r"# Example (\d+)\s*\n(.*?)\nOutput:\s*\n(.*?)(?=\n# Example |\Z)", re.DOTALL)
_SPEECH = re.compile(r'^\s*([A-Z][\w ]*):\s*"(.+)"\s*$')


@dataclass(frozen=True)
class PromptExample:
    """One worked example of the prompts: its input (the narration and dialogue lines) and its ``<Action>`` line."""

    narration: str
    dialogue: tuple[str, ...]
    actions: tuple[str, ...]


def prompt_examples() -> list[tuple[str, PromptExample]]:
    """The worked examples of every setting's prompt, deduplicated (the settings share them), as
    ``("example_K", example)`` in order. ``dialogue`` holds the spoken lines without their speakers."""
    seen: dict[str, PromptExample] = {}
    for prompt in PROMPTS.values():
        for m in _EXAMPLE.finditer(prompt):
            head, body = m.group(2), m.group(3)
            lines = [x for x in head.splitlines() if x.strip() and not x.startswith("Input")]
            dialogue = tuple(s.group(2).strip() for x in lines if (s := _SPEECH.match(x)))
            narration = " ".join(x.strip() for x in lines if not _SPEECH.match(x))
            action = next((x for x in body.splitlines() if x.startswith("<Action>")), "<Action>")
            actions = tuple(normalize_calls(action.removeprefix("<Action>").strip().rstrip(".")))
            seen.setdefault(f"example_{m.group(1)}", PromptExample(narration, dialogue, actions))
    return sorted(seen.items())


@dataclass(frozen=True)
class ConstantScore:
    """A constant policy's mean SR and AC (fractions in [0, 1]) over ``n`` gold plans."""

    actions: tuple[str, ...]
    sr: float
    ac: float
    n: int


def _ngrams(tokens: Sequence[str], k: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + k]) for i in range(len(tokens) - k + 1))


def _f(overlap: int, n_pred: int, n_gold: int) -> float:
    return 2.0 * overlap / (n_pred + n_gold) if n_pred and n_gold and overlap else 0.0


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def fast_action_scores(pred: Sequence[str], gold: Sequence[str]) -> tuple[float, float]:
    """``(SR, AC)`` of normalised token lists: ROUGE-n F = 2·overlap / (|pred n-grams| + |gold n-grams|),
    ROUGE-L F = 2·LCS / (|pred| + |gold|), ROUGE-2 of two sequences without bigrams 1 iff they are equal (as
    :func:`~mindloop.systems.mindpower.metrics.rouge_tokens`), SR = 0.2·R1 + 0.3·R2 + 0.5·RL, AC = clipped
    matches / |gold|."""
    matched = sum((Counter(pred) & Counter(gold)).values())
    r1 = _f(matched, len(pred), len(gold))
    if len(pred) < 2 and len(gold) < 2:
        r2 = 1.0 if list(pred) == list(gold) else 0.0
    else:
        r2 = _f(sum((_ngrams(pred, 2) & _ngrams(gold, 2)).values()), len(pred) - 1, len(gold) - 1)
    rl = _f(_lcs(pred, gold), len(pred), len(gold))
    return 0.2 * r1 + 0.3 * r2 + 0.5 * rl, matched / len(gold)


def score_constant(actions: Sequence[str], golds: Iterable[Sequence[str]]) -> ConstantScore:
    """Mean SR and AC of answering ``actions`` to every gold plan in ``golds`` (the library's ROUGE)."""
    pred = tuple(normalize_calls(list(actions)))
    scores = [action_scores(list(pred), list(g)) for g in golds]
    return ConstantScore(pred, mean(s.sr for s in scores) or 0.0, mean(s.ac for s in scores) or 0.0, len(scores))


def best_constant(golds: Sequence[Sequence[str]]) -> ConstantScore:
    """The constant sequence with the highest mean SR over ``golds`` among every distinct gold sequence and every
    single action in them (ties: higher AC, then the sequence's text). Its scores are the library's."""
    plans = [tuple(normalize_calls(list(g))) for g in golds]
    candidates = sorted({p for p in plans if p} | {(a,) for p in plans for a in p})
    best: tuple[float, float, tuple[str, ...]] | None = None
    weights = Counter(plans)
    total = sum(weights.values())
    sharing: dict[str, set[tuple[str, ...]]] = {}  # a plan with no token of the candidate scores 0 on both
    for plan in weights:
        for token in plan:
            sharing.setdefault(token, set()).add(plan)
    for cand in candidates:
        sr = ac = 0.0
        for plan in sorted(set().union(*(sharing.get(t, set()) for t in cand))):
            w = weights[plan]
            s, a = fast_action_scores(cand, plan)
            sr += w * s
            ac += w * a
        key = (sr / total, ac / total, cand)
        if best is None or (key[0], key[1]) > (best[0], best[1]):
            best = key
    if best is None:
        return ConstantScore((), 0.0, 0.0, 0)
    return score_constant(best[2], plans)


def _gold_of(sample: Sample) -> tuple[str, ...]:
    """A ``mindpower`` sample's gold action sequence (from the scenario record it carries)."""
    return tuple(sample.input["scenario"]["gold"]["actions"])


def _sr_of(actions: Callable[[Sequence[Sample]], Sequence[str] | None]) -> Callable[[Sequence[Sample]], float | None]:
    """The mean SR (0-100) of answering ``actions(samples)`` to every sample (``None`` without samples)."""

    def value(samples: Sequence[Sample]) -> float | None:
        pred = actions(samples) if samples else None
        if not samples or pred is None:
            return None
        return round(100 * score_constant(pred, [_gold_of(s) for s in samples]).sr, 4)

    return value


@functools.lru_cache(maxsize=8)
def fitted_constant(seed: int, n: int, controls: str) -> tuple[str, ...]:
    """The best constant sequence fitted on the ``mindpower-sim`` train split of ``(seed, n)`` with the run's
    ``controls`` choice (cached: the search scores every candidate against every train plan)."""
    from mindloop.worlds.household.scenarios import mindpower_sim  # the scenarios load when a run scores

    scenarios = mindpower_sim("train", seed=seed, n=n)
    train = [list(s.gold.actions) for s in scenarios if controls == "include" or s.control == (controls == "only")]
    return best_constant(train).actions


def _always(actions: tuple[str, ...]) -> Callable[[Sequence[Sample]], Sequence[str]]:
    """A policy that answers ``actions`` whatever the samples."""
    return lambda _samples: actions


def _fitted(samples: Sequence[Sample]) -> tuple[str, ...]:
    settings = samples[0].input.get("settings", {})
    return fitted_constant(
        int(settings.get("seed", 0)), int(settings.get("dataset_n", 590)), str(settings.get("controls", "exclude"))
    )


def reference_policies() -> tuple[ReferencePolicy, ...]:
    """MindPower's reference policies, each valued as the SR (0-100, the headline) it gets on a run's samples:
    ``wait()``, each prompt example's ``<Action>`` line copied, the best constant sequence (fitted on the
    ``mindpower-sim`` train split of the run's seed and size, with its ``controls`` choice) and the oracle (the
    symbolic engine, whose plan is the gold: SR 100)."""
    examples = [
        ReferencePolicy(
            f"{name} copied",
            f"the <Action> line of the prompt's {name.replace('_', ' ')} ({', '.join(ex.actions)}) on every scenario",
            _sr_of(_always(ex.actions)),
        )
        for name, ex in prompt_examples()
    ]
    return (
        ReferencePolicy("wait()", "<Action> wait() on every scenario (no intervention)", _sr_of(_always(WAIT))),
        *examples,
        ReferencePolicy(
            "best constant",
            "the one action sequence, among every train-split gold sequence and every single action in them, with "
            "the highest mean SR on the mindpower-sim train split (same seed, size and controls), on every scenario",
            _sr_of(_fitted),
            kind="constant",
        ),
        ReferencePolicy(
            "oracle",
            "the symbolic engine: the gold hierarchy from the robot's belief store (its plan is the gold plan)",
            lambda samples: 100.0 if samples else None,
            kind="oracle",
        ),
    )

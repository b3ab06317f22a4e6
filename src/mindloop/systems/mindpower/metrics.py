"""MindPower metrics (Sec. 5.1 and supplementary B.6, D.1).

* :func:`success_rate` and :func:`action_correctness` — the action metrics, over whole actions as tokens;
* :func:`layer_similarity` — BERTScore and Sentence-Transformer similarity per layer (offline all-MiniLM-L6-v2);
* :func:`judge_bpc` and :func:`judge_robot_centric` — the model-judged BPC (0–10) and Robot-Centric (0–4) scores;
* :func:`table2` — the report table laid out as the paper's Table 2;
* :func:`normalize_call` / :func:`split_calls` — the ``verb(arg, ...)`` grammar everything above shares.

**Actions** (Sec. 5.1): Success Rate and Action Correctness over whole actions as tokens.

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

**Judges.** Model-judged scores: BDI and Perspective Consistency (BPC, Fig. 21, 0–10) and the Robot-Centric score
(Fig. 19, 0–4), through any judge :class:`~mindloop.models.base.ChatModel`.

The judge must answer with the JSON object its prompt asks for — alone, inside a fenced block, or inside prose
around it — with the right keys and integer values in range. Anything else (no object, two different objects, a
missing key, a 7 on a 0/1 question, a ``total_score`` that is not the sum of the answers: two different answers)
is refused with the reason: the reply goes back to the judge through :func:`~mindloop.models.replies.ask`
(``retries`` times, counted under role ``judge``), and a last reply still refused is a recorded failure
(:class:`JudgeScore` with ``error``), never a guessed score. A model error after its retries is recorded the same
way.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any, TypeVar

from mindloop.errors import SETUP_ERRORS, InvalidArgumentError, MindloopError, ParseError
from mindloop.models.base import ChatModel, GenerationConfig, Message, message
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES, ask
from mindloop.systems.mindpower.calls import Call, normalize_call, normalize_calls, parse_call, split_calls
from mindloop.systems.mindpower.layers import LAYERS, TABLE2_LAYERS, layer_similarity, table2
from mindloop.systems.mindpower.prompts import TEXTS

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
    "bpc_messages",
    "judge_bpc",
    "judge_robot_centric",
    "layer_similarity",
    "normalize_call",
    "normalize_calls",
    "parse_bpc",
    "parse_call",
    "parse_json_object",
    "parse_robot_centric",
    "robot_centric_messages",
    "rouge_tokens",
    "split_calls",
    "success_rate",
    "table2",
]

# ==== action metrics: SR and AC ================================================================================
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


@lru_cache(maxsize=2)
def _scorer(words: bool = False) -> Any:
    """rouge-score's ROUGE-1/2/L scorer over action tokens, or with ``words`` over Porter-stemmed words (its default
    tokenizer, as the authors' released reward scores); a core dependency, imported on first use: it pulls in nltk."""
    from rouge_score import rouge_scorer  # type: ignore[import-untyped]

    options: dict[str, Any] = {"use_stemmer": True} if words else {"tokenizer": _TokenTokenizer()}
    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], **options)


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


# ==== judged scores: BPC and Robot-Centric =====================================================================
T = TypeVar("T")

RC_QUESTIONS = ("Perception Level", "BDI Reasoning", "Robot-Centric Evaluation", "Effectiveness of Actions")
"""The four yes/no questions of the Robot-Centric score, as its JSON keys."""

ROBOT_CENTRIC_PROMPT = TEXTS.robot_centric

BPC_PROMPT = TEXTS.bpc


@dataclass(frozen=True)
class JudgeScore:
    """One judged score, or the reason there is none (``score is None`` exactly when ``error`` is set)."""

    score: float | None
    maximum: float
    details: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    reply: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n?(?P<body>.*?)```", re.DOTALL)


def _braced(text: str) -> list[str]:
    """Every top-level ``{...}`` span of ``text`` (braces inside JSON strings do not count)."""
    spans: list[str] = []
    depth, start, quoted, escaped = 0, 0, False, False
    for i, ch in enumerate(text):
        if quoted:
            escaped, quoted = (False, quoted) if escaped else (ch == "\\", ch != '"')
            continue
        if ch == '"' and depth:
            quoted = True
        elif ch == "{":
            start = i if depth == 0 else start
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    return spans


def parse_json_object(text: str) -> dict[str, Any]:
    """The one JSON object a judge returned: the whole reply, a fenced block, or one ``{...}`` inside prose.

    Two different objects are ambiguous and refused, as is a reply with none.

    >>> parse_json_object('```json\\n{"total_score": 9}\\n```')
    {'total_score': 9}
    >>> parse_json_object('Here is my verdict: {"total_score": 7, "reasoning": "ok"} Thanks.')
    {'total_score': 7, 'reasoning': 'ok'}
    """
    body = text.strip()
    try:
        whole = json.loads(body)
    except json.JSONDecodeError:
        pass
    else:
        if not isinstance(whole, dict):
            raise ParseError(f"the reply is JSON but not an object (a {type(whole).__name__})")
        return whole
    found: dict[str, dict[str, Any]] = {}
    first_error: json.JSONDecodeError | None = None
    pieces = [m.group("body").strip() for m in _FENCE.finditer(body)] or _braced(body)
    for piece in pieces:
        for candidate in [piece, *(_braced(piece) if not piece.startswith("{") else [])]:
            try:
                value = json.loads(candidate)
            except json.JSONDecodeError as exc:
                first_error = first_error or exc
                continue
            if isinstance(value, dict):
                found.setdefault(json.dumps(value, sort_keys=True), value)
                break
    if len(found) > 1:
        raise ParseError(f"the reply holds {len(found)} different JSON objects: give one")
    if found:
        return next(iter(found.values()))
    if first_error is not None:
        raise ParseError(f"the reply is not one JSON object ({first_error.msg} at char {first_error.pos})") from None
    raise ParseError("the reply is not one JSON object (no {...} in it)")


def _int(obj: Mapping[str, Any], key: str, hi: int, what: str) -> int:
    """``obj[key]`` as an integer from 0 to ``hi``; refused when the ``what`` reply lacks it or it is anything else."""
    if key not in obj:
        raise ParseError(f"the {what} reply has no {key}")
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= hi:
        raise ParseError(f"{key} must be an integer from 0 to {hi}, got {value!r}")
    return value


def _unquote(body: str) -> str:
    """A JSON string's body with its escapes resolved (as written, when an escape is not JSON's)."""
    try:
        return str(json.loads(f'"{body}"'))
    except ValueError:
        return body


_BPC_SCORE = re.compile(r'"total_score"\s*:\s*(\d+)\b')
_BPC_REASONING = re.compile(r'"reasoning"\s*:\s*"((?:[^"\\\n]|\\.)*)"')


def parse_bpc(text: str) -> tuple[int, str]:
    """``(total_score, reasoning)`` from a BPC judge reply (Fig. 21's JSON; score 0–10).

    A reply whose JSON is broken (a judge that continues its reasoning as markdown bullets after the closing
    quote) is still read when it states one ``"total_score": N``: the score is what a reader takes from it, and
    the reasoning is its quoted string (empty when there is none).
    """
    try:
        obj = parse_json_object(text)
    except ParseError:
        scores = set(_BPC_SCORE.findall(text))
        if len(scores) != 1:
            raise
        said = _BPC_REASONING.search(text)
        obj = {"total_score": int(scores.pop()), "reasoning": _unquote(said[1]) if said else ""}
    score = _int(obj, "total_score", 10, "BPC")
    reasoning = obj.get("reasoning")
    if not isinstance(reasoning, str):
        raise ParseError(f"reasoning must be a string, got {type(reasoning).__name__}")
    return score, reasoning


def parse_robot_centric(text: str) -> tuple[int, dict[str, int]]:
    """``(total_score, answers)`` from a Robot-Centric judge reply (Fig. 19's JSON; four 0/1 answers summing
    to ``total_score``)."""
    obj = parse_json_object(text)
    answers = obj.get("score")
    if not isinstance(answers, dict):
        raise ParseError("the Robot-Centric reply has no 'score' object")
    missing = [q for q in RC_QUESTIONS if q not in answers]
    if missing:
        raise ParseError(f"the Robot-Centric reply does not answer {', '.join(missing)}")
    parsed = {q: _int(answers, q, 1, "Robot-Centric") for q in RC_QUESTIONS}  # each one is there (checked above)
    total = _int(obj, "total_score", 4, "Robot-Centric")
    if total != sum(parsed.values()):
        raise ParseError(f"total_score {total} is not the sum of the answers ({sum(parsed.values())})")
    return total, parsed


def bpc_messages(description: str, prediction: str, gold: str) -> list[Message]:
    """The BPC prompt, then the scenario, the standard (gold) answer and the model's answer."""
    body = (
        f"{BPC_PROMPT}\n\n# Scenario\n<Description> {description.strip()}\n\n"
        f"# Standard answer\n{gold.strip()}\n\n# Model answer\n{prediction.strip()}"
    )
    return [message("user", body)]


def robot_centric_messages(prediction: str, observation: str = "", frames: Sequence[bytes] = ()) -> list[Message]:
    """The Robot-Centric prompt, the clip (narration, or frames as image parts) and the model's answer."""
    from mindloop.models.base import image_part

    if not frames:
        body = f"{ROBOT_CENTRIC_PROMPT}\n\n# Video clip (narrated)\n{observation.strip()}\n\n# Model output\n"
        return [message("user", body + prediction.strip())]
    parts: list[str | dict[str, Any]] = [f"{ROBOT_CENTRIC_PROMPT}\n\n# Image sequence ({len(frames)} frames)"]
    parts += [image_part(f) for f in frames]
    parts.append(f"# Model output\n{prediction.strip()}")
    return [message("user", *parts)]


async def _judged(
    judge: ChatModel,
    messages: list[Message],
    parse: Callable[[str], tuple[int, T]],
    config: GenerationConfig | None,
    retries: int,
    maximum: float,
    what: str,
    detail: str,
) -> JudgeScore:
    """Ask the judge through :func:`~mindloop.models.replies.ask` (a reply its parser refuses goes back with the
    reason, ``retries`` times): the parsed score with the rest of the parse under ``detail``, or a
    :class:`JudgeScore` naming the failure."""
    try:
        (score, details), reply, _ = await ask(judge, messages, parse, config or GenerationConfig(), retries=retries)
    except SETUP_ERRORS:
        raise
    except ParseError as exc:
        return JudgeScore(None, maximum, error=f"unparseable {what} reply: {exc.reason}", reply=exc.replies[-1])
    except MindloopError as exc:
        last = exc.replies[-1] if exc.replies else None
        return JudgeScore(None, maximum, error=f"judge call failed: {exc}", reply=last)
    return JudgeScore(float(score), maximum, {detail: details}, reply=reply.text)


async def judge_bpc(
    judge: ChatModel,
    *,
    description: str,
    prediction: str,
    gold: str,
    config: GenerationConfig | None = None,
    retries: int = DEFAULT_FORMAT_RETRIES,
) -> JudgeScore:
    """BDI and Perspective Consistency of ``prediction`` against ``gold`` (0–10), or a recorded failure."""
    messages = bpc_messages(description, prediction, gold)
    return await _judged(judge, messages, parse_bpc, config, retries, 10.0, "BPC", "reasoning")


async def judge_robot_centric(
    judge: ChatModel,
    *,
    prediction: str,
    observation: str = "",
    frames: Sequence[bytes] = (),
    config: GenerationConfig | None = None,
    retries: int = DEFAULT_FORMAT_RETRIES,
) -> JudgeScore:
    """The Robot-Centric score of ``prediction`` (0–4) for the clip, or a recorded failure."""
    messages = robot_centric_messages(prediction, observation, frames)
    return await _judged(judge, messages, parse_robot_centric, config, retries, 4.0, "Robot-Centric", "answers")

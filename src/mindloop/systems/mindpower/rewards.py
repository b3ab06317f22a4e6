"""Mind-Reward and Format-Reward (MindPower Sec. 4), as plain functions and as TRL reward callables.

Each reasoning layer becomes a sequence of *atomic actions* ``action(agent, object)`` (supplementary C.1,
Table 3): ``walk(alice, kitchen)`` in ``<Perception>``, ``attribute_belief(robot, human_believes(alice,
object_on(apple, table)))`` in ``<Belief>``, ``plan_action(robot, walk(fridge), ...)`` for ``<Action>``. Every
atom is tagged with its perspective — ``robot`` when its agent (first argument) is the robot, else ``human`` —
and the tag is part of the token, so an atom only matches from the same perspective.

* ``R_atomic`` = ROUGE-1, ``R_local`` = ROUGE-2, ``R_global`` = ROUGE-L over the tagged atom sequences (the
  rouge-score library's algorithms, one atom per token); ``R_Mind = 0.2·R_atomic + 0.3·R_local + 0.5·R_global``
  (the paper's α, configurable);
* ``R_Format`` = 1 when the six layers appear in order (a sequential regular-expression match), else 0;
* ``R = R_Mind + R_Format``.

Atoms come from an extractor: ``prose`` (the default, :func:`extract_atoms_prose`) reads the layers as the paper
writes them (Fig. 15 prose; layers written as calls are read as calls) without a model; ``symbolic``
(:func:`extract_atoms_symbolic`) reads only text that already states atoms as calls (each ``<Action>`` line always
does; prose layers give nothing); a model string makes :func:`extract_atoms_model` ask that chat model with the
Fig. 20 prompt, as the paper does with Qwen3-Max.

:data:`REWARD_PRESETS` names whole reward set-ups for GRPO (reward functions and their weights): ``paper`` (Eq. 2
with the prose extractor, the default), ``paper-symbolic`` (Eq. 2 with the symbolic extractor) and ``released``
(the authors' released training script: word-level ROUGE of the whole completion against the gold text, stemmed,
α = 0.2/0.3/0.5, weighted 0.9 against a strict six-tag format reward weighted 0.1).

:class:`MindReward`, :class:`FormatReward` and :class:`MindPowerReward` are small picklable callables with TRL's
custom reward signature, for ``GRPOTrainer(reward_funcs=[...])``: keyword arguments ``prompts``,
``completions`` (plain strings or conversational message lists), the dataset's columns (the gold, by default in
``gold_atomic``) and anything else TRL passes; they return one float per completion, or ``None`` where it cannot
be scored (no gold, or the model extractor failed), which TRL skips.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mindloop.beliefs.vocab import ROBOT
from mindloop.errors import InvalidArgumentError, MindloopError, ParseError
from mindloop.models.base import ChatModel, GenerationConfig, Message, ModelOptions, message, run_sync
from mindloop.systems.mindpower.calls import call_atoms, normalize_call, parse_call, plan_atoms
from mindloop.systems.mindpower.hierarchy import (
    LAYERS,
    SETTING_LAYERS,
    check_setting,
    first_layers,
    layers_in_order,
)
from mindloop.systems.mindpower.metrics import RougeScores, _scorer, rouge_tokens
from mindloop.systems.mindpower.prompts import TEXTS
from mindloop.systems.mindpower.prose_atoms import extract_atoms_prose as _extract_prose

MIND_WEIGHTS: tuple[float, float, float] = (0.2, 0.3, 0.5)
"""α1, α2, α3 of Eq. 1 as set in Sec. 5.2."""

EXTRACTORS: tuple[str, ...] = ("prose", "symbolic")
"""The offline extractors; any other value of ``extractor`` is a model string."""

RELEASED_REWARD_WEIGHTS: tuple[float, float] = (0.1, 0.9)
"""``GRPOConfig(reward_weights=...)`` of the authors' released script: format 0.1, mind 0.9."""

ATOMIC_PROMPT = TEXTS.atomic


def perspective_of(atom: str) -> str:
    """``robot`` when the atom's agent (its first argument) is the robot, else ``human``.

    >>> perspective_of("attribute_belief(robot, searching(alice, apple))"), perspective_of("walk(alice, kitchen)")
    ('robot', 'human')
    """
    call = parse_call(atom)
    return "robot" if call is not None and call.args and call.args[0].strip().lower() == ROBOT else "human"


def tag_atoms(atoms: Sequence[str]) -> list[str]:
    """Normalised atoms with their perspective as a prefix: ``robot|attribute_belief(robot, ...)``."""
    out = []
    for a in atoms:
        norm = normalize_call(a)
        if norm:
            out.append(f"{perspective_of(norm)}|{norm}")
    return out


def extract_atoms_symbolic(text: str, setting: str = "hierarchy") -> list[str]:
    """Atoms read deterministically from an answer's layers, in layer order: every ``name(args)`` call a layer
    states (prose around calls is ignored), with the ``<Action>`` steps folded into one
    ``plan_action(robot, step, ...)`` atom as in the gold. Layers written only in prose give no atoms — use
    :func:`extract_atoms_model` for those. Text without layer tags is read as a list of atoms.

    >>> extract_atoms_symbolic("<Belief> attribute_belief(robot, searching(alice, apple))\\n<Action> walk (fridge)")
    ['attribute_belief(robot, searching(alice, apple))', 'plan_action(robot, walk(fridge))']
    """
    by_layer = first_layers(text, setting)
    if by_layer is None:
        return call_atoms(text)
    atoms: list[str] = []
    for layer in SETTING_LAYERS[setting]:
        content = by_layer.get(layer, "")
        atoms += plan_atoms(call_atoms(content)) if layer == "action" else call_atoms(content)
    return atoms


@lru_cache(maxsize=1)
def household_lexicon() -> dict[str, str]:
    """Display names of the household catalogue's rooms, places and items that differ from their ids (``wall
    cabinet`` → ``kitchen_cabinet``, ``reading glasses`` → ``glasses``), and the same names as a dressed story
    says them (``white wall cabinet`` → ``white_kitchen_cabinet``): the domain vocabulary the prose extractor maps
    names with (as Fig. 20 gives the model extractor a fixed vocabulary)."""
    from mindloop.worlds.household.catalog import ITEM_KINDS, PLACE_KINDS, ROOM_TYPES
    from mindloop.worlds.household.scenarios.dressing import DRESSING_WORDS

    out = {name.lower(): rid for rid, name in ROOM_TYPES.items() if name.replace(" ", "_") != rid}
    for kinds in (PLACE_KINDS, ITEM_KINDS):
        for kid, kind in kinds.items():
            if kind.name.lower().replace(" ", "_").replace("'", "") != kid:
                out[kind.name.lower()] = kid
                # a dressed story's own thing or furniture: "brown remote control" is brown_remote
                for word in DRESSING_WORDS:
                    out[f"{word.replace('_', ' ')} {kind.name.lower()}"] = f"{word}_{kid}"
    return out


def extract_atoms_prose(text: str, setting: str = "hierarchy") -> list[str]:
    """Atoms of an answer written in prose, read offline (:mod:`~mindloop.systems.mindpower.prose_atoms`), with
    the household catalogue's names (:func:`household_lexicon`)."""
    return _extract_prose(text, setting, household_lexicon())


def atoms_from_gold(gold: Any, extractor: str = "symbolic") -> list[str]:
    """Gold atoms from what a dataset column holds: a list of atoms, ``{layer: [atoms]}`` (the ``mindpower-sim``
    ``gold.atomic`` record), or six-layer text (read with ``extractor``: ``symbolic`` or ``prose``)."""
    if isinstance(gold, str):
        return extract_atoms_prose(gold) if extractor == "prose" else extract_atoms_symbolic(gold)
    if isinstance(gold, Mapping):
        unknown = set(gold) - set(LAYERS)
        if unknown:
            raise InvalidArgumentError(f"gold atoms by layer have unknown layer(s) {sorted(unknown)}")
        return [str(a) for layer in LAYERS for a in gold.get(layer, [])]
    if isinstance(gold, Sequence):
        return [str(a) for a in gold]
    raise InvalidArgumentError(f"gold atoms must be a list, a {{layer: [atoms]}} mapping or text, not {gold!r}")


def parse_atom_lines(reply: str) -> list[str]:
    """Atoms from an extractor's reply: every ``name(args)`` call, one or more per line, in order; headings and
    prose are skipped. A reply with no call at all is a :class:`~mindloop.errors.ParseError`."""
    atoms = [a for line in reply.splitlines() for a in call_atoms(line)]
    if not atoms:
        raise ParseError("the atomic-action extractor's reply contains no name(args) atom", text=reply[:200])
    return atoms


def _atomic_messages(text: str) -> list[Message]:
    """The Fig. 20 extraction prompt as a system message, and the text to extract from."""
    return [message("system", ATOMIC_PROMPT), message("user", f"Extract the atomic actions from:\n\n{text.strip()}")]


async def extract_atoms_model(model: ChatModel, text: str, config: GenerationConfig | None = None) -> list[str]:
    """Atoms of ``text`` extracted by ``model`` with the Fig. 20 prompt (raises ``MindloopError`` on failure)."""
    reply = await model.generate(_atomic_messages(text), config or GenerationConfig())
    return parse_atom_lines(reply.text)


@dataclass(frozen=True)
class MindRewardScore:
    """The parts of R_Mind for one completion."""

    atomic: float
    local: float
    global_: float
    mind: float
    n_pred: int
    n_gold: int


def mind_reward(
    pred_atoms: Sequence[str], gold_atoms: Sequence[str], weights: tuple[float, float, float] = MIND_WEIGHTS
) -> MindRewardScore:
    """R_Mind of predicted atoms against gold atoms (both perspective-tagged here), in [0, 1] for weights summing
    to 1."""
    p, g = tag_atoms(pred_atoms), tag_atoms(gold_atoms)
    r: RougeScores = rouge_tokens(p, g)
    return MindRewardScore(r.rouge1, r.rouge2, r.rougeL, r.weighted(weights), len(p), len(g))


def format_reward(text: str, setting: str = "hierarchy") -> float:
    """R_Format: 1.0 when the setting's layers appear in order, else 0.0."""
    return 1.0 if layers_in_order(text, setting) else 0.0


def completion_text(completion: Any) -> str:
    """The text of a TRL completion: a string, or a conversational list of messages (assistant contents joined;
    content may be a string or a list of ``{"type": "text", "text": ...}`` parts)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        completion = [completion]
    if isinstance(completion, Sequence):
        texts = []
        for msg in completion:
            if not isinstance(msg, Mapping) or msg.get("role", "assistant") != "assistant":
                continue
            content = msg.get("content", "")
            if isinstance(content, str):
                texts.append(content)
            elif isinstance(content, Sequence):
                texts += [str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type") == "text"]
        return "\n".join(texts)
    raise InvalidArgumentError(f"a completion must be a string or a list of messages, not {type(completion).__name__}")


class _TRLReward:
    """A reward function as TRL calls it: keyword arguments ``prompts``, ``completions`` and the dataset's columns;
    one float (or ``None``) per completion, from :meth:`rewards`."""

    __name__ = "reward"

    def __call__(
        self, prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None, **kwargs: Any
    ) -> list[float | None]:
        """TRL's reward signature."""
        return self.rewards(list(completions or []), kwargs)

    def rewards(self, completions: list[Any], columns: Mapping[str, Any]) -> list[float | None]:
        """One reward (or ``None``) per completion, given the dataset's ``columns``."""
        raise NotImplementedError


class MindReward(_TRLReward):
    """R_Mind per completion, as a TRL reward function.

    ``gold_column`` names the dataset column holding the gold atoms (see :func:`atoms_from_gold`). ``extractor``
    is ``"prose"`` (offline, the default), ``"symbolic"`` (calls only) or a model string (``openai/qwen3-max``)
    built lazily from ``model_options``, so the callable pickles without a live client.
    """

    __name__ = "mind_reward"

    def __init__(
        self,
        gold_column: str = "gold_atomic",
        *,
        weights: tuple[float, float, float] = MIND_WEIGHTS,
        extractor: str = "prose",
        model_options: ModelOptions | None = None,
        config: GenerationConfig | None = None,
        setting: str = "hierarchy",
    ) -> None:
        if len(weights) != 3 or any(w < 0 for w in weights):
            raise InvalidArgumentError(f"weights must be three non-negative numbers, got {weights!r}")
        self.gold_column = gold_column
        self.weights = (float(weights[0]), float(weights[1]), float(weights[2]))
        self.extractor = extractor
        self.model_options = model_options
        self.config = config or GenerationConfig()
        self.setting = check_setting(setting)
        self._model: ChatModel | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_model"] = None  # a live client does not pickle; it is rebuilt on first use
        return state

    def _chat(self) -> ChatModel:
        if self._model is None:
            from mindloop.models.base import load_model

            self._model = load_model(self.extractor, self.model_options)
        return self._model

    async def _extract_all(self, texts: Sequence[str]) -> list[list[str] | None]:
        model = self._chat()

        async def one(text: str) -> list[str] | None:
            try:
                return await extract_atoms_model(model, text, self.config)
            except MindloopError:
                return None

        try:
            return list(await asyncio.gather(*(one(t) for t in texts)))
        finally:
            await model.aclose()

    def atoms(self, texts: Sequence[str]) -> list[list[str] | None]:
        """Atoms of each text with this reward's extractor (``None`` where a model extraction failed)."""
        if self.extractor == "prose":
            return [extract_atoms_prose(t, self.setting) for t in texts]
        if self.extractor == "symbolic":
            return [extract_atoms_symbolic(t, self.setting) for t in texts]
        return run_sync(self._extract_all(texts))

    def scores(self, completions: Sequence[Any], golds: Sequence[Any]) -> list[MindRewardScore | None]:
        """The R_Mind parts of each completion against its gold (``None`` when unscorable)."""
        if len(completions) != len(golds):
            raise InvalidArgumentError(f"{len(completions)} completion(s) but {len(golds)} gold value(s)")
        texts = [completion_text(c) for c in completions]
        gold_text = {i: g for i, g in enumerate(golds) if isinstance(g, str) and self.extractor not in EXTRACTORS}
        extracted = self.atoms(texts + list(gold_text.values()))
        pred, gold_extracted = extracted[: len(texts)], dict(zip(gold_text, extracted[len(texts) :], strict=True))
        out: list[MindRewardScore | None] = []
        for i, (atoms, gold) in enumerate(zip(pred, golds, strict=True)):
            gold_atoms = (
                gold_extracted[i]
                if i in gold_extracted
                else (None if gold is None else atoms_from_gold(gold, self.extractor))
            )
            if atoms is None or not gold_atoms:
                out.append(None)
            else:
                out.append(mind_reward(atoms, gold_atoms, self.weights))
        return out

    def _golds(self, n: int, kwargs: Mapping[str, Any]) -> Sequence[Any]:
        if self.gold_column not in kwargs:
            raise InvalidArgumentError(
                f"the dataset has no {self.gold_column!r} column for the gold atoms "
                f"(columns passed: {sorted(k for k in kwargs if k not in ('trainer_state', 'completion_ids'))})"
            )
        golds = kwargs[self.gold_column]
        return list(golds) if golds is not None else [None] * n

    def rewards(self, completions: list[Any], columns: Mapping[str, Any]) -> list[float | None]:
        """One R_Mind (or ``None``) per completion."""
        return [None if s is None else s.mind for s in self.scores(completions, self._golds(len(completions), columns))]


class FormatReward(_TRLReward):
    """R_Format per completion, as a TRL reward function (1.0 when the layers appear in order, else 0.0)."""

    __name__ = "format_reward"

    def __init__(self, setting: str = "hierarchy") -> None:
        self.setting = check_setting(setting)

    def rewards(self, completions: list[Any], columns: Mapping[str, Any]) -> list[float | None]:
        """R_Format of each completion."""
        return [format_reward(completion_text(c), self.setting) for c in completions]


class MindPowerReward(_TRLReward):
    """The paper's overall reward R = R_Mind + R_Format (Eq. 2) as one TRL reward function, in [0, 2].

    A completion whose R_Mind cannot be scored gets ``None`` (not R_Format alone), so a failed extraction never
    reads as a low-but-valid reward.
    """

    __name__ = "mindpower_reward"

    def __init__(self, gold_column: str = "gold_atomic", **mind_options: Any) -> None:
        self.mind = MindReward(gold_column, **mind_options)
        self.format = FormatReward(self.mind.setting)

    def rewards(self, completions: list[Any], columns: Mapping[str, Any]) -> list[float | None]:
        """R_Mind + R_Format of each completion (``None`` where R_Mind is)."""
        mind, fmt = self.mind.rewards(completions, columns), self.format.rewards(completions, columns)
        return [None if m is None or f is None else m + f for m, f in zip(mind, fmt, strict=True)]


# ---- the authors' released training script's reward ------------------------------------------------------------
def _released_tag(layer: str) -> str:
    spelled = {"perception": "(?:Description|Perception)", "action": "Action", "decision": "Decision"}
    return "<" + spelled.get(layer, f"(?:Robot )?{layer.capitalize()}") + ">"


_RELEASED_FORMAT = re.compile(
    r"\s*".join(_released_tag(x) + r"\s*(.+?)" for x in LAYERS[:-1]) + r"\s*<Action>\s*(.+)", re.DOTALL
)


def released_format_reward(text: str) -> float:
    """The released script's format reward: 1.0 when the whole (stripped) text is the six tagged layers in order,
    each with content, and nothing before the first tag; else 0.0. Its tags are Fig. 15's (``<Description>``,
    ``<Robot Belief>``, ...); the Sec. 3.1 names (``<Perception>``, ``<Belief>``, ...) are accepted too, so the
    gold text (which uses them) passes."""
    return 1.0 if _RELEASED_FORMAT.fullmatch(text.strip()) else 0.0


def released_mind_reward(completion: str, answer: str, weights: tuple[float, float, float] = MIND_WEIGHTS) -> float:
    """The released script's "mind" reward: word-level ROUGE-1/2/L F-measures of the whole completion against the
    gold answer text (rouge-score's default tokenizer, Porter stemming), weighted α = 0.2/0.3/0.5 — no atoms.

    >>> released_mind_reward("walk to the fridge", "walk to the fridge")
    1.0
    """
    s = _scorer(words=True).score(answer, completion)
    return RougeScores(s["rouge1"].fmeasure, s["rouge2"].fmeasure, s["rougeL"].fmeasure).weighted(weights)


class ReleasedMindReward(_TRLReward):
    """:func:`released_mind_reward` as a TRL reward function; the gold answer text is in ``answer_column``."""

    __name__ = "released_mind_reward"

    def __init__(self, answer_column: str = "gold_text", weights: tuple[float, float, float] = MIND_WEIGHTS) -> None:
        self.answer_column = answer_column
        self.weights = weights

    def rewards(self, completions: list[Any], columns: Mapping[str, Any]) -> list[float | None]:
        """The released mind reward of each completion against its gold answer text."""
        if self.answer_column not in columns:
            raise InvalidArgumentError(f"the dataset has no {self.answer_column!r} column for the gold answer text")
        answers = columns[self.answer_column]
        return [
            None if a is None else released_mind_reward(completion_text(c), str(a), self.weights)
            for c, a in zip(completions, answers, strict=True)
        ]


class ReleasedFormatReward(_TRLReward):
    """:func:`released_format_reward` as a TRL reward function."""

    __name__ = "released_format_reward"

    def rewards(self, completions: list[Any], columns: Mapping[str, Any]) -> list[float | None]:
        """The released format reward of each completion."""
        return [released_format_reward(completion_text(c)) for c in completions]


# ---- presets -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RewardPreset:
    """A reward set-up for GRPO: ``GRPOTrainer(reward_funcs=list(p.funcs))`` with
    ``GRPOConfig(reward_weights=list(p.weights))``. The functions read the dataset columns ``gold_atomic`` (gold
    atoms) and ``gold_text`` (the gold answer written as text)."""

    name: str
    description: str
    funcs: tuple[Callable[..., list[float | None]], ...]
    weights: tuple[float, ...]

    def total(self, completions: Sequence[Any], gold_atomic: Any, gold_text: str) -> list[float]:
        """The weighted reward of each completion of one prompt, as GRPO sums it (an unscorable part counts 0)."""
        n = len(completions)
        cols = {"gold_atomic": [gold_atomic] * n, "gold_text": [gold_text] * n}
        parts = [f(prompts=[""] * n, completions=list(completions), **cols) for f in self.funcs]
        return [sum(w * (p[i] or 0.0) for w, p in zip(self.weights, parts, strict=True)) for i in range(n)]


def _presets() -> dict[str, Callable[[], RewardPreset]]:
    return {
        "paper": lambda: RewardPreset(
            "paper",
            "Eq. 2: R_Mind (atoms by the offline prose extractor, alpha 0.2/0.3/0.5) + R_Format",
            (MindReward("gold_atomic", extractor="prose"), FormatReward()),
            (1.0, 1.0),
        ),
        "paper-symbolic": lambda: RewardPreset(
            "paper-symbolic",
            "Eq. 2 with the symbolic extractor (calls only; prose layers give no atoms)",
            (MindReward("gold_atomic", extractor="symbolic"), FormatReward()),
            (1.0, 1.0),
        ),
        "released": lambda: RewardPreset(
            "released",
            "the authors' train-mind.py: 0.1 x strict format + 0.9 x word ROUGE of the completion vs the gold text",
            (ReleasedFormatReward(), ReleasedMindReward("gold_text")),
            RELEASED_REWARD_WEIGHTS,
        ),
    }


REWARD_PRESETS: tuple[str, ...] = ("paper", "paper-symbolic", "released")
"""The preset names, the default first."""


def reward_preset(name: str = "paper") -> RewardPreset:
    """The preset called ``name`` (see :data:`REWARD_PRESETS`), freshly built."""
    presets = _presets()
    if name not in presets:
        raise InvalidArgumentError(f"unknown reward preset {name!r} (presets: {', '.join(REWARD_PRESETS)})")
    return presets[name]()

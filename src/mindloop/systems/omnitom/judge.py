"""The paper's Stage 1 aligner: a model judge given the C.4 prompt, replying with two CSV tables.

Under the release's protocol (``protocol="release"``, the default) the judge gets the release's messages and three
few-shot examples and its reply is read as the release reads it (:mod:`~mindloop.systems.omnitom.release`): each
input row takes the count of the reply row with the same normalised actor and belief, and a reply that cannot be
read leaves the story's rows unmatched (counts 0, a warning says so). What follows is mindloop's own protocol
(``protocol="mindloop"``).

The judge sees the story, the predicted and the gold ``Actor,Belief`` tables, and must return them as
``Prediction Table`` and ``Ground Truth Table`` with a ``MatchCount`` column, rows in input order. The reply is
parsed and checked:

* hard failures (the story is then left unscored, never guessed): a table missing, a row count that differs
  from the input, a MatchCount that is not a non-negative integer, most rows rewritten;
* repaired with a warning: a nonzero count on a row whose actor has no counterpart on the other side (set to
  0), a count above the size of the other side's actor group (clamped), per-actor totals that differ between the
  two tables (an asymmetric alignment; kept as the judge gave it, since scoring only uses whether a count is
  nonzero).
"""

from __future__ import annotations

import asyncio
import csv
import re
from collections.abc import Sequence
from dataclasses import dataclass

from mindloop.errors import ModelError
from mindloop.models.base import ChatModel, GenerationConfig
from mindloop.systems.omnitom.examples import TABLE2
from mindloop.systems.omnitom.metrics import Alignment, AlignmentTask, actor_key, belief_key, map_actors
from mindloop.systems.omnitom.prompts import Level, judge_messages
from mindloop.systems.omnitom.release import Protocol, judge_counts, parse_judge_tables
from mindloop.systems.omnitom.release import judge_messages as release_judge_messages

__all__ = ["JudgeAligner", "JudgeTables", "check_judge_tables", "parse_judge_reply"]


@dataclass(frozen=True)
class JudgeTables:
    """The two tables of a judge reply: ``(actor, belief, MatchCount)`` rows."""

    predicted: tuple[tuple[str, str, int], ...]
    gold: tuple[tuple[str, str, int], ...]


class JudgeReplyError(ValueError):
    """A judge reply that cannot be used (the message says why)."""


def _key(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _is_header(line: str) -> bool:
    return _key(line) == "actorbeliefmatchcount"


def _label(line: str) -> str | None:
    """``prediction`` / ``gold`` for a table label line (``**Prediction Table:**``, ``### Ground Truth``)."""
    key = _key(line)
    if key in ("prediction", "predictiontable", "predictedtable", "predictions"):
        return "prediction"
    if key in ("groundtruth", "groundtruthtable", "gold", "goldtable"):
        return "gold"
    return None


def parse_judge_reply(text: str) -> JudgeTables:
    """Read the two CSV tables of a judge reply; raises :class:`JudgeReplyError` when they are not there.

    Tables are found by their ``Actor,Belief,MatchCount`` headers (the first is the prediction table unless the
    labels say otherwise); rows run until a blank line, a label or the next header. A row is
    ``actor, belief..., count``: commas inside an unquoted belief are kept.
    """
    lines = text.splitlines()
    tables: list[tuple[str | None, list[tuple[int, str]]]] = []
    pending: str | None = None
    current: list[tuple[int, str]] | None = None
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip().strip("`").strip()
        if not line:
            current = None
            continue
        label = _label(line.strip("#*:_ "))
        if label is not None:
            pending, current = label, None
            continue
        if _is_header(line):
            current = []
            tables.append((pending, current))
            pending = None
            continue
        if current is not None:
            current.append((lineno, line))
    if len(tables) < 2:
        raise JudgeReplyError(f"expected two tables with header Actor,Belief,MatchCount, found {len(tables)}")
    named = {name: rows for name, rows in tables if name is not None}
    if "prediction" in named and "gold" in named:
        pred_rows, gold_rows = named["prediction"], named["gold"]
    else:  # unlabelled (or half-labelled) tables: the prompt asks for Prediction first
        pred_rows, gold_rows = tables[0][1], tables[1][1]
    return JudgeTables(_rows(pred_rows, "Prediction"), _rows(gold_rows, "Ground Truth"))


def _rows(rows: Sequence[tuple[int, str]], table: str) -> tuple[tuple[str, str, int], ...]:
    out = []
    for lineno, line in rows:
        cells = next(csv.reader([line], skipinitialspace=True))  # quoted fields may follow ", "
        if len(cells) > 3:  # an unquoted belief with commas: keep its spacing
            cells = next(csv.reader([line]))
        if len(cells) < 3:
            raise JudgeReplyError(f"{table} table, reply line {lineno}: expected Actor,Belief,MatchCount: {line!r}")
        count = cells[-1].strip()
        if not count.isdigit():
            raise JudgeReplyError(f"{table} table, reply line {lineno}: MatchCount {count!r} is not an integer >= 0")
        out.append((cells[0].strip(), ",".join(cells[1:-1]).strip(), int(count)))
    return tuple(out)


def check_judge_tables(tables: JudgeTables, task: AlignmentTask) -> Alignment:
    """Check the judge's tables against the input rows and turn them into an :class:`Alignment`.

    Raises :class:`JudgeReplyError` for the hard failures listed in the module docstring.
    """
    warnings: list[str] = []
    for name, got, want in (("Prediction", tables.predicted, task.predicted), ("Ground Truth", tables.gold, task.gold)):
        if len(got) != len(want):
            raise JudgeReplyError(f"{name} table has {len(got)} rows for {len(want)} input rows")
        rewritten = sum(
            1
            for (actor, belief, _), w in zip(got, want, strict=True)
            if belief_key(belief) != belief_key(w.belief) or actor_key(actor) != actor_key(w.actor)
        )
        if rewritten * 2 > len(want):
            raise JudgeReplyError(f"{name} table rewrote {rewritten} of {len(want)} rows")
        if rewritten:
            warnings.append(f"{name} table reworded {rewritten} row(s); counts taken by position")
    gold_actors = list(dict.fromkeys(b.actor for b in task.gold))
    mapping = map_actors(list(dict.fromkeys(b.actor for b in task.predicted)), gold_actors)
    gold_size = {a: sum(1 for b in task.gold if b.actor == a) for a in gold_actors}
    pred_size: dict[str, int] = {}
    for b in task.predicted:
        target = mapping.get(b.actor)
        if target is not None:
            pred_size[target] = pred_size.get(target, 0) + 1
    pred_counts = []
    for (_, _, count), b in zip(tables.predicted, task.predicted, strict=True):
        target = mapping.get(b.actor)
        limit = gold_size.get(target, 0) if target is not None else 0
        pred_counts.append(_bounded(count, limit, f"predicted row {b.actor!r}: {b.belief!r}", warnings))
    gold_counts = []
    for (_, _, count), b in zip(tables.gold, task.gold, strict=True):
        gold_counts.append(_bounded(count, pred_size.get(b.actor, 0), f"gold row {b.actor!r}: {b.belief!r}", warnings))
    for actor in gold_actors:
        sp = sum(c for c, b in zip(pred_counts, task.predicted, strict=True) if mapping.get(b.actor) == actor)
        sg = sum(c for c, b in zip(gold_counts, task.gold, strict=True) if b.actor == actor)
        if sp != sg:
            warnings.append(f"actor {actor!r}: predicted MatchCounts sum to {sp}, gold MatchCounts to {sg}")
    return Alignment(tuple(pred_counts), tuple(gold_counts), warnings=tuple(warnings))


def _bounded(count: int, limit: int, what: str, warnings: list[str]) -> int:
    if count > limit:
        warnings.append(f"{what}: MatchCount {count} but only {limit} row(s) of that actor on the other side")
        return limit
    return count


class JudgeAligner:
    """Stage 1 alignment by a model judge (the paper's protocol; GPT-5 in the paper).

    ``protocol="release"`` (default): the release's judge messages with its first ``fewshots`` examples (3, its
    setting); an unreadable reply scores the story's rows as unmatched. ``protocol="mindloop"``: ``level`` 4
    appends the Level 4 block and ``examples`` (Table 2 by default); unusable replies become ``Alignment.failed``.
    ``concurrency`` bounds simultaneous judge calls. A model error (the call itself failed) is
    ``Alignment.failed`` under both protocols: there is no reply to score.
    """

    def __init__(
        self,
        model: ChatModel,
        *,
        level: Level = 4,
        examples: Sequence[tuple[str, Sequence[tuple[str, str, int]], Sequence[tuple[str, str, int]]]] = (
            (TABLE2.story, TABLE2.predicted, TABLE2.gold),
        ),
        config: GenerationConfig | None = None,
        concurrency: int = 8,
        protocol: Protocol = "release",
        fewshots: int = 3,
    ) -> None:
        self.model = model
        self.protocol: Protocol = protocol
        self.fewshots = fewshots
        self.level: Level = level
        self.examples = tuple(examples)
        self.config = config or GenerationConfig(temperature=0.0, max_tokens=4096)
        self.concurrency = max(1, concurrency)

    @property
    def name(self) -> str:
        """``judge:<model name>``."""
        return f"judge:{self.model.name}"

    async def align_one(self, task: AlignmentTask) -> Alignment:
        """Ask the judge about one story (no call when either table is empty: nothing can match)."""
        if not task.predicted or not task.gold:
            return Alignment((0,) * len(task.predicted), (0,) * len(task.gold))
        if self.protocol == "release":
            return await self._align_release(task)
        messages = judge_messages(
            task.story,
            [(b.actor, b.belief) for b in task.predicted],
            [(b.actor, b.belief) for b in task.gold],
            level=self.level,
            examples=self.examples if self.level == 4 else (),
        )
        try:
            reply = await self.model.generate(messages, self.config)
        except ModelError as exc:
            return Alignment.failed(f"judge call failed: {exc}")
        try:
            return check_judge_tables(parse_judge_reply(reply.text), task)
        except JudgeReplyError as exc:
            return Alignment.failed(f"unusable judge reply: {exc}")

    async def _align_release(self, task: AlignmentTask) -> Alignment:
        pred_rows = [(b.actor, b.belief) for b in task.predicted]
        gold_rows = [(b.actor, b.belief) for b in task.gold]
        messages = release_judge_messages(task.story, pred_rows, gold_rows, fewshots=self.fewshots)
        try:
            reply = await self.model.generate(messages, self.config)
        except ModelError as exc:
            return Alignment.failed(f"judge call failed: {exc}")
        parsed_pred, parsed_gold = parse_judge_tables(reply.text)
        pred = judge_counts(pred_rows, parsed_pred)
        gold = judge_counts(gold_rows, parsed_gold)
        warnings = []
        if not parsed_pred or not parsed_gold:
            warnings.append(
                "unreadable judge reply (a table is missing): its rows are scored unmatched, as the release does"
            )
        return Alignment(tuple(pred), tuple(gold), warnings=tuple(warnings))

    async def align(self, tasks: Sequence[AlignmentTask]) -> list[Alignment]:
        """Align every story, at most ``concurrency`` judge calls at a time."""
        gate = asyncio.Semaphore(self.concurrency)

        async def one(task: AlignmentTask) -> Alignment:
            async with gate:
                return await self.align_one(task)

        return list(await asyncio.gather(*(one(t) for t in tasks)))

"""The paper's Stage 1 aligner: a model judge given the C.4 prompt, replying with two CSV tables.

Every judge call goes through :func:`~mindloop.models.replies.ask`: a reply that cannot be read goes back to the
judge with the reason, ``retries`` times (default 1; the release asks once), and a reply still unreadable after
that leaves the story's Stage 1 score unscored (``null``, the reason kept) under both protocols. The release scores
such a story's rows as unmatched (F1 0); the ``omnitom-stage1`` summary gives that figure apart
(``f1_release_rule``) and says so.

Under the release's protocol (``protocol="release"``, the default) the judge gets the release's messages and three
few-shot examples and its reply is read as the release reads it (:mod:`~mindloop.systems.omnitom.release`): each
input row takes the count of the reply row with the same normalised actor and belief (0 when the reply has no such
row). A reply is unreadable when either table (a ``Prediction`` and a ``Ground Truth`` section, each with a CSV
``Actor,Belief,MatchCount`` table) is missing. What follows is mindloop's own protocol (``protocol="mindloop"``).

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
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from mindloop.errors import SETUP_ERRORS, MindloopError, ParseError
from mindloop.models.base import ChatModel, GenerationConfig
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES, ask, compact_key
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


class JudgeReplyError(ParseError, ValueError):
    """A judge reply that cannot be used (the message says why); a :class:`~mindloop.errors.ParseError`, so
    :func:`~mindloop.models.replies.ask` sends the reply back with the reason."""


def _is_header(line: str) -> bool:
    return compact_key(line) == "actorbeliefmatchcount"


def _label(line: str) -> str | None:
    """``prediction`` / ``gold`` for a table label line (``**Prediction Table:**``, ``### Ground Truth``)."""
    key = compact_key(line)
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
    gold_size = Counter(b.actor for b in task.gold)
    pred_size = Counter(target for b in task.predicted if (target := mapping.get(b.actor)) is not None)
    pred_counts = [
        _bounded(count, gold_size[mapping.get(b.actor) or ""], f"predicted row {b.actor!r}: {b.belief!r}", warnings)
        for (_, _, count), b in zip(tables.predicted, task.predicted, strict=True)
    ]
    gold_counts = [
        _bounded(count, pred_size[b.actor], f"gold row {b.actor!r}: {b.belief!r}", warnings)
        for (_, _, count), b in zip(tables.gold, task.gold, strict=True)
    ]
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


def release_judge_tables(text: str) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The two tables of a judge reply as the release finds them; raises :class:`JudgeReplyError` when either is
    missing (the release would score the story's rows as unmatched)."""
    pred, gold = parse_judge_tables(text)
    missing = [name for name, rows in (("Prediction", pred), ("Ground Truth", gold)) if not rows]
    if missing:
        raise JudgeReplyError(
            f"no {' and no '.join(missing)} table: expected a 'Prediction Table' and a 'Ground Truth Table', each "
            "a CSV table with header Actor,Belief,MatchCount"
        )
    return pred, gold


class JudgeAligner:
    """Stage 1 alignment by a model judge (the paper's protocol; GPT-5 in the paper).

    ``protocol="release"`` (default): the release's judge messages with its first ``fewshots`` examples (3, its
    setting). ``protocol="mindloop"``: ``level`` 4 appends the Level 4 block and ``examples`` (Table 2 by default).
    Under both, a reply that cannot be read goes back to the judge with the reason ``retries`` times, and a reply
    still unreadable, or a failed judge call, is ``Alignment.failed`` with the reason: the story is left unscored.
    ``concurrency`` bounds simultaneous judge calls.
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
        retries: int = DEFAULT_FORMAT_RETRIES,
    ) -> None:
        self.model = model
        self.protocol: Protocol = protocol
        self.fewshots = fewshots
        self.level: Level = level
        self.examples = tuple(examples)
        self.config = config or GenerationConfig(temperature=0.0, max_tokens=4096)
        self.concurrency = max(1, concurrency)
        self.retries = retries

    @property
    def name(self) -> str:
        """``judge:<model name>``."""
        return f"judge:{self.model.name}"

    async def align_one(self, task: AlignmentTask) -> Alignment:
        """Ask the judge about one story (no call when either table is empty: nothing can match)."""
        if not task.predicted or not task.gold:
            return Alignment((0,) * len(task.predicted), (0,) * len(task.gold))
        pred_rows = [(b.actor, b.belief) for b in task.predicted]
        gold_rows = [(b.actor, b.belief) for b in task.gold]
        if self.protocol == "release":
            messages = release_judge_messages(task.story, pred_rows, gold_rows, fewshots=self.fewshots)

            def read(text: str) -> Alignment:
                parsed_pred, parsed_gold = release_judge_tables(text)
                return Alignment(
                    tuple(judge_counts(pred_rows, parsed_pred)), tuple(judge_counts(gold_rows, parsed_gold))
                )

        else:
            messages = judge_messages(
                task.story,
                pred_rows,
                gold_rows,
                level=self.level,
                examples=self.examples if self.level == 4 else (),
            )

            def read(text: str) -> Alignment:
                return check_judge_tables(parse_judge_reply(text), task)

        try:
            alignment, _, _ = await ask(self.model, messages, read, self.config, retries=self.retries)
        except SETUP_ERRORS:
            raise
        except ParseError as exc:
            tries = self.retries + 1
            return Alignment.failed(f"unreadable judge reply ({tries} attempt{'s' * (tries > 1)}): {exc.reason}")
        except MindloopError as exc:
            return Alignment.failed(f"judge call failed: {exc}")
        return alignment

    async def align(self, tasks: Sequence[AlignmentTask]) -> list[Alignment]:
        """Align every story, at most ``concurrency`` judge calls at a time."""
        gate = asyncio.Semaphore(self.concurrency)

        async def one(task: AlignmentTask) -> Alignment:
            async with gate:
                return await self.align_one(task)

        return list(await asyncio.gather(*(one(t) for t in tasks)))

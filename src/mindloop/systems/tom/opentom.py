"""The ``opentom`` benchmark: OpenToM (Xu et al., ACL 2024) read from its release folder, and its label audit.

**The release.** ``data/opentom_data/`` of seacowx/OpenToM (CC BY-NC 4.0; not shipped with mindloop):
``meta_data.json`` (and ``meta_data_long.json`` for the long narratives) maps each story id to its ``plot`` (the
event skeleton, one sentence a line), ``plot_info`` (``mover``, ``eoi`` — the entity —, ``original_place``,
``move_to_place``, ``observer``), ``observed`` and the ``narrative`` the model reads; each question file
(``location_cg_fo``, ``location_cg_so``, ``location_fg_fo``, ``location_fg_so``, ``multihop_fo``, ``multihop_so``,
``attitude``) maps story ids to lists of ``{"question", "answer", "type"}``. The fine-location files have
corrected ``*_new.json`` copies in the release; they are read when present (option ``fine_labels``).

**Question types** (the paper's): coarse location (is the entity in its initial location, Yes/No), fine location
(which place), multihop fullness (less/more/equally full) and accessibility (more/less/equally accessible), each
first and second order, and attitude (positive/negative/neutral). The paper's metric is the macro-averaged F1
per type (labels are unbalanced); accuracy is reported beside it.

**Protocol** (``--agent model``): the narrative and the question with the release's answer instruction per type
(``Answer with "more full", "equally full", or "less full".`` and so on, the attitude question rewritten as the
release's prompt builder does). The release's evaluator reads a reply by its own rules (``yes``/``no`` occurring
alone; the place with more word overlap; the first label phrase found); that reading is kept as
``release_answer`` beside mindloop's flexible one.

**Symbolic agent.** The tracker reads the ``plot`` lines (``X entered the R.``, ``Both X and Y noticed that the O
is in the C in the R.``, ``X exited the R.``, ``X moved the O to the C and Y witnessed the action.`` / ``… but Y did
not witness the action.``; whether the observer saw the move is the story's ``observed`` field, which some plot
lines contradict while the narrative and the labels follow the field) and answers the location questions (coarse
and fine, the narrator's too) and the fullness questions of both orders from the chain the question names.
Accessibility (social commonsense) and attitude are not covered.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from mindloop.beliefs import Event, EventKind, Fact, Tracker
from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.bench.choice import (
    COVERED_RESAMPLED,
    RELEASE_SUITE,
    Release,
    ask_choice,
    choice_metrics,
    choice_references,
    choice_summary,
    counted_rows,
    covered,
    not_covered,
    score_choice,
)
from mindloop.bench.declaration import BenchmarkSpec, Grouping, Headline, SmallRun
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.models.base import message

__all__ = [
    "OPENTOM_FILES",
    "OPENTOM_GENRES",
    "OPENTOM_TYPES",
    "OpenToMBenchmark",
    "OpenToMOptions",
    "OpenToMQuestion",
    "OpenToMStory",
    "audit_opentom",
    "expected_moved",
    "read_opentom",
    "release_reading",
    "track_answer",
]

OPENTOM_FILES = (
    "location_cg_fo",
    "location_cg_so",
    "location_fg_fo",
    "location_fg_so",
    "multihop_fo",
    "multihop_so",
    "attitude",
)
"""The release's question files (``.json``), in the paper's order."""

OPENTOM_TYPES = (
    "coarse-fo",
    "coarse-so",
    "fine-fo",
    "fine-so",
    "fullness-fo",
    "fullness-so",
    "accessibility-fo",
    "accessibility-so",
    "attitude",
)
"""mindloop's question types: the paper's genres with multihop split into fullness and accessibility."""

OPENTOM_GENRES = ("Loc_c(F)", "Loc_c(S)", "Loc_f(F)", "Loc_f(S)", "MHop(F)", "MHop(S)", "Att")
"""The columns of the paper's results table."""

_GENRE = {
    "coarse-fo": "Loc_c(F)",
    "coarse-so": "Loc_c(S)",
    "fine-fo": "Loc_f(F)",
    "fine-so": "Loc_f(S)",
    "fullness-fo": "MHop(F)",
    "accessibility-fo": "MHop(F)",
    "fullness-so": "MHop(S)",
    "accessibility-so": "MHop(S)",
    "attitude": "Att",
}
_LABELS = {
    "coarse": ("Yes", "No"),
    "fullness": ("less full", "more full", "equally full"),
    "accessibility": ("more accessible", "less accessible", "equally accessible"),
    "attitude": ("positive", "negative", "neutral"),
}
_INSTRUCTION = {
    "coarse": 'Answer with "Yes" or "No".',
    "fine": "Answer with the location.",
    "fullness": 'Answer with "more full", "equally full", or "less full".',
    "accessibility": 'Answer with "more accessible", "equally accessible", or "less accessible".',
    "attitude": 'Answer with "positive", "neutral", or "negative". Answer without any explanation.',
}

FineLabels = Literal["new", "original"]
Split = Literal["normal", "long", "all"]


@dataclass(frozen=True, slots=True)
class OpenToMStory:
    """One story's metadata: its plot lines, the two characters, the entity, its two places, the narrative."""

    id: str
    split: str
    plot: tuple[str, ...]
    mover: str
    observer: str
    entity: str
    original_place: str
    move_to_place: str
    observed: bool | None
    narrative: str


@dataclass(frozen=True, slots=True)
class OpenToMQuestion:
    """One question with its story, where it came from, and what kind it is."""

    story: OpenToMStory
    file: str
    index: int
    question: str
    answer: str
    qtype: str  # one of OPENTOM_TYPES
    chain: tuple[str, ...] | None  # (X,) first order, (X, Y) "from X's perspective, Y thinks", () the narrator

    @property
    def kind(self) -> str:
        return self.qtype.split("-")[0]

    @property
    def beginning(self) -> bool:
        """A narrator question about where the entity was at the beginning of the story."""
        return not self.chain and "in the beginning" in self.question

    @property
    def source(self) -> str:
        return f"{self.file}.json:{self.story.id}[{self.index}]"


def _norm(place: str) -> str:
    """A place as the release's evaluator compares it: lower case, '_' as space, one leading article dropped."""
    text = re.sub(r"[\s_]+", " ", place.lower()).strip().rstrip(".")
    return re.sub(r"^(?:a|an|the) ", "", text)


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise ParseError(f"not valid JSON ({exc.msg})", source=str(path), line=exc.lineno) from None
    except UnicodeDecodeError as exc:
        raise ParseError(f"not UTF-8 text ({exc.reason})", source=str(path)) from None


def _stories(path: Path, split: str) -> dict[str, OpenToMStory]:
    data = _load(path)
    if not isinstance(data, dict):
        raise ParseError("expected an object of story ids (OpenToM's meta_data.json)", source=str(path))
    out = {}
    for sid, meta in data.items():
        where = f"{path.name}: story {sid}"
        if not isinstance(meta, dict) or not isinstance(meta.get("plot_info"), dict):
            raise ParseError(f"{where}: no 'plot_info' object")
        info = meta["plot_info"]
        missing = [k for k in ("mover", "eoi", "original_place", "move_to_place", "observer") if k not in info]
        if missing or not isinstance(meta.get("plot"), str) or not isinstance(meta.get("narrative"), str):
            what = f"'plot_info' lacks {', '.join(missing)}" if missing else "no 'plot' or 'narrative' text"
            raise ParseError(f"{where}: {what}")
        observed = meta.get("observed")
        out[sid] = OpenToMStory(
            sid,
            split,
            tuple(line.strip() for line in meta["plot"].splitlines() if line.strip()),
            str(info["mover"]),
            str(info["observer"]),
            str(info["eoi"]),
            str(info["original_place"]),
            str(info["move_to_place"]),
            observed if isinstance(observed, bool) else None,
            meta["narrative"],
        )
    return out


def _gold(answer: Any, where: str) -> str:
    """The gold label as the evaluator reads it: a list without 'corrupted', 'a|b' accessibility as 'equally'."""
    if isinstance(answer, list):
        kept = [a for a in answer if a != "corrupted"]
        if len(kept) != 1 or not isinstance(kept[0], str):
            raise ParseError(f"{where}: an answer list must hold one label besides 'corrupted', got {answer!r}")
        answer = kept[0]
    if not isinstance(answer, str):
        raise ParseError(f"{where}: 'answer' must be text, got {answer!r}")
    return answer.strip()


def _qtype(file: str, raw_type: str, question: str) -> str:
    order = "so" if raw_type.endswith("-so") or file.endswith("_so") else "fo"
    if file == "attitude" or raw_type == "attitude":
        return "attitude"
    if file.startswith("location"):
        return f"{'fine' if '_fg_' in file else 'coarse'}-{order}"
    return f"{'fullness' if 'fullness' in question else 'accessibility'}-{order}"


_PERSPECTIVE = re.compile(r"^From (.+?)'s perspective,", re.IGNORECASE)
_AS = re.compile(r"^As (.+?), ")


def _chain(story: OpenToMStory, qtype: str, question: str) -> tuple[str, ...] | None:
    m = _PERSPECTIVE.match(question) or _AS.match(question)
    if m is None:
        return None
    first = m[1].strip()
    if first.lower() == "narrator":  # the fine-location files' reality and memory questions
        return ()
    if not qtype.endswith("-so"):
        return (first,)
    other = story.observer if first == story.mover else story.mover
    return (first, other)


def read_opentom(
    path: str | Path, *, split: Split = "normal", fine_labels: FineLabels = "new"
) -> list[OpenToMQuestion]:
    """Every question of an OpenToM release folder (``opentom_data``), or of one question file in it.

    Questions are joined with their story in ``meta_data.json`` / ``meta_data_long.json``; ``split`` keeps the
    normal-length stories, the long ones, or both. A question whose story is in neither is a one-line error.
    """
    p = Path(path)
    if not p.exists():
        raise InvalidArgumentError(f"--data {str(path)!r}: no such file or folder (OpenToM's data/opentom_data)")
    folder = p if p.is_dir() else p.parent
    stories: dict[str, OpenToMStory] = {}
    for name, which in (("meta_data.json", "normal"), ("meta_data_long.json", "long")):
        if (folder / name).is_file():
            stories.update(_stories(folder / name, which))
    if not stories:
        raise InvalidArgumentError(f"--data {str(path)!r}: no meta_data.json beside the questions (OpenToM's folder)")
    if p.is_dir():
        files = []
        for name in OPENTOM_FILES:
            new = folder / f"{name}_new.json"
            use = new if "_fg_" in name and fine_labels == "new" and new.is_file() else folder / f"{name}.json"
            if use.is_file():
                files.append((name, use))
        if not files:
            raise InvalidArgumentError(f"--data {str(path)!r}: none of OpenToM's question files is there")
    else:
        name = p.stem.removesuffix("_new")
        if name not in OPENTOM_FILES:
            raise InvalidArgumentError(
                f"--data {str(path)!r}: not one of OpenToM's question files ({', '.join(OPENTOM_FILES)})"
            )
        files = [(name, p)]
    out = []
    for name, file in files:
        data = _load(file)
        if not isinstance(data, dict):
            raise ParseError("expected an object of story ids, each a list of questions", source=str(file))
        for sid, items in data.items():
            story = stories.get(sid)
            if story is None:
                raise ParseError(f"story {sid!r} is not in meta_data.json or meta_data_long.json", source=str(file))
            if split != "all" and story.split != split:
                continue
            if not isinstance(items, list):
                raise ParseError(f"story {sid}: expected a list of questions", source=str(file))
            for i, item in enumerate(items):
                where = f"{file.name}: story {sid} question {i}"
                if not isinstance(item, dict) or not isinstance(item.get("question"), str):
                    raise ParseError(f"{where}: expected an object with a 'question' text")
                question = item["question"].strip()
                qtype = _qtype(name, str(item.get("type", "")), question)
                gold = _gold(item.get("answer"), where)
                if qtype.startswith("accessibility") and "|" in gold:
                    gold = "equally accessible"
                out.append(OpenToMQuestion(story, file.stem, i, question, gold, qtype, _chain(story, qtype, question)))
    return out


# -- the tracker ---------------------------------------------------------------------------------------------------

_W = r"[A-Za-z][\w'-]*"
_ENTER = re.compile(rf"^({_W}) (?:entered|is in) the (.+?)\.$")
_EXIT = re.compile(rf"^({_W}) exited the (.+?)\.$")
_NOTICED = re.compile(rf"^Both ({_W}) and ({_W}) noticed that the (.+?) (?:is|are) in the (.+?) in the (.+?)\.$")
_MOVED = re.compile(
    rf"^({_W}) moved the (.+?) to the (.+?) (?:and|but) ({_W}) "
    r"(witnessed the action|did not witness the (?:event|action))\.$"
)


class _UnreadError(Exception):
    """A plot line outside the forms the tracker reads."""


def _place(text: str) -> str:
    """The place a plot line names: the template writes 'the ' before the release's place ('the the trash can')."""
    return _norm(text)


def track_plot(story: OpenToMStory) -> Tracker:
    """The tracker after the story's plot; raises ``_UnreadError`` on a line it does not read."""
    tracker = Tracker(max_depth=2)
    room: dict[str, str] = {}
    entity = _norm(story.entity)
    for t, line in enumerate(story.plot, 1):
        if m := _ENTER.match(line):
            room[m[1]] = m[2]
            tracker.apply(Event(t, EventKind.ENTER, m[1], (Fact(m[1], "at", m[2]),), frozenset(_here(room, m[2]))))
        elif m := _EXIT.match(line):
            tracker.apply(Event(t, EventKind.EXIT, m[1], (Fact(m[1], "at", None),), frozenset(_here(room, m[2]))))
            room.pop(m[1], None)
        elif (m := _NOTICED.match(line)) and _norm(m[3]) == entity:
            fact = Fact(entity, "in", _place(m[4]))
            tracker.apply(Event(t, EventKind.OBSERVE, None, (fact,), frozenset({m[1], m[2]})))
        elif (m := _MOVED.match(line)) and _norm(m[2]) == entity:
            # the release's 'observed' decides when the plot line says otherwise (the narrative follows 'observed')
            witnessed = story.observed if story.observed is not None else m[5].startswith("witnessed")
            seen = {m[1]} | ({m[4]} if witnessed else set())
            tracker.apply(Event(t, EventKind.MOVE, m[1], (Fact(entity, "in", _place(m[3])),), frozenset(seen)))
        else:
            raise _UnreadError(line)
    return tracker


def _here(room: dict[str, str], where: str) -> list[str]:
    return [a for a, r in room.items() if r == where]


def _where_believed(question: OpenToMQuestion) -> str | None:
    """'original', 'new', or ``None`` (an unread plot, or a belief the plot never formed)."""
    story = question.story
    try:
        tracker = track_plot(story)
    except _UnreadError:
        return None
    value = tracker.value(question.chain or (), _norm(story.entity), "in")
    if value == _norm(story.original_place):
        return "original"
    if value == _norm(story.move_to_place):
        return "new"
    return None


def track_answer(question: OpenToMQuestion) -> tuple[str | None, str]:
    """The tracker's answer in the release's label set, or ``None`` with the reason it is not covered."""
    kind = question.kind
    if kind in ("accessibility", "attitude"):
        return None, f"{kind} questions need more than where the entity is"
    if question.chain is None:
        return None, "the question names no perspective"
    if question.beginning:
        return question.story.original_place, ""
    where = _where_believed(question)
    if where is None:
        return None, "the plot has a line the tracker does not read, or never shows the belief"
    story = question.story
    if kind == "coarse":
        return ("Yes" if where == "original" else "No"), ""
    if kind == "fine":
        return (story.original_place if where == "original" else story.move_to_place), ""
    container = _container(question)
    if container is None:
        return None, "the fullness question names neither of the entity's places"
    if where == "original":
        return "equally full", ""
    return ("less full" if container == "original" else "more full"), ""


def _container(question: OpenToMQuestion) -> str | None:
    """Which of the two places a fullness question asks about ('original' or 'new'): the one it names (the longer
    name when one holds the other), ``None`` when it names neither."""
    text = f" {_norm(question.question.split('perspective,', 1)[-1])} "
    story = question.story
    named = [
        (len(_norm(place)), role)
        for role, place in (("original", story.original_place), ("new", story.move_to_place))
        if _norm(place) and re.search(rf"(?<![a-z0-9]){re.escape(_norm(place))}(?![a-z0-9])", text)
    ]
    return max(named)[1] if named else None


# -- reading a reply as the release does -------------------------------------------------------------------------


def _overlap(pred: str, place: str) -> float:
    pred_words = set(pred.lower().replace("_", " ").replace("'s", "").replace(".", "").split())
    words = place.lower().replace("_", " ").replace("'s", "").split()
    return sum(1 for w in set(words) if w in pred_words) / len(words) if words else 0.0


def release_reading(reply: str, question: OpenToMQuestion) -> str | None:
    """The release evaluator's reading of a reply, as a label of the question's set (``None``: unread).

    >>> s = OpenToMStory("1", "normal", (), "A", "B", "hat", "basket", "the trash can", True, "")
    >>> release_reading("It is in the trash can.", OpenToMQuestion(s, "location_fg_fo", 0, "?", "", "fine-fo", ("A",)))
    'the trash can'
    """
    low = reply.lower()
    kind = question.kind
    if kind == "coarse":
        yes, no = re.search(r"yes", low) is not None, re.search(r"no", low) is not None
        return "Yes" if yes and not no else "No" if no and not yes else None
    if kind == "fine":
        a, b = _overlap(low, question.story.original_place), _overlap(low, question.story.move_to_place)
        return question.story.original_place if a > b else question.story.move_to_place if b > a else None
    if kind == "attitude":
        token = low.split("\n\n")[-1].split(":")[-1].split(".")[0].strip()
        found = [lab for lab in _LABELS["attitude"] if lab in token]
        return found[0] if len(found) == 1 else None
    text = low.replace(".", "")
    phrases = {
        "fullness": (("less full", "emptier", "more empty"), ("more full", "fuller"), ("equally full",)),
        "accessibility": (("more accessible",), ("less accessible",), ("equally accessible",)),
    }[kind]
    for label, forms in zip(_LABELS[kind], phrases, strict=True):
        if any(f in text for f in forms):
            return label
    return None


# -- the audit ------------------------------------------------------------------------------------------------------


def _exits_before_move(story: OpenToMStory, who: str) -> bool:
    """Whether the plot has ``who`` leave a room before the move (in the mover's sight: they shared the room)."""
    for line in story.plot:
        if _MOVED.match(line):
            return False
        if (m := _EXIT.match(line)) and m[1] == who:
            return True
    return False


def _plot_observed(story: OpenToMStory) -> bool | None:
    for line in story.plot:
        if m := _MOVED.match(line):
            return m[5].startswith("witnessed")
    return None


def expected_moved(story: OpenToMStory, chain: tuple[str, ...] | None, *, beginning: bool = False) -> bool | None:
    """Whether ``chain`` must believe the entity was moved, by the plot's own statements; ``None``: undetermined.

    The mover moved it; the observer knows of the move exactly when the plot (``observed``) says so; the
    observer's view of the mover is the observer's own knowledge (a witness saw the mover do it; a non-witness
    knows of no move); the mover's view of a non-witness who left the room before the move is that the entity
    is still where both last saw it. The mover's view of a witness is left unjudged (the plot does not say
    whether the mover saw the observer watching). The narrator (``()``) knows the move; at the beginning of the
    story the entity is in its original place.
    """
    if chain == ():
        return not beginning
    observed = story.observed if story.observed is not None else _plot_observed(story)
    if observed is None or not chain:
        return None
    if chain == (story.mover,):
        return True
    if chain in ((story.observer,), (story.observer, story.mover)):
        return observed
    if chain == (story.mover, story.observer) and not observed and _exits_before_move(story, story.observer):
        return False
    return None


@dataclass(frozen=True, slots=True)
class OpenToMFinding:
    """A question whose gold contradicts the story (or another gold of the same belief), with the reason."""

    question: OpenToMQuestion
    reason: str
    rule: str


def _label_moved(q: OpenToMQuestion) -> bool | None:
    """What the gold says about the chain's belief: moved (``True``), not moved (``False``), or nothing."""
    story, gold = q.story, q.answer
    if q.kind == "coarse":
        return {"no": True, "yes": False}.get(gold.lower())
    if q.kind == "fine":
        g = _norm(gold)
        return True if g == _norm(story.move_to_place) else False if g == _norm(story.original_place) else None
    if q.kind == "fullness":
        role = _container(q)
        if role is None:
            return None
        return {
            "equally full": False,
            "less full": True if role == "original" else None,
            "more full": True if role == "new" else None,
        }.get(gold.lower())
    return None


def _who(story: OpenToMStory, chain: tuple[str, ...] | None) -> str:
    if not chain:
        return "the narrator"
    names = {story.mover: "the mover", story.observer: "the observer"}
    if len(chain) == 1:
        return f"{chain[0]} ({names.get(chain[0], '?')})"
    return f"{chain[0]} about {chain[1]}"


def audit_opentom(questions: Iterable[OpenToMQuestion]) -> tuple[int, list[OpenToMFinding]]:
    """Check every location and fullness gold against the plot's statements and against the other golds of the
    same belief; returns how many questions were judged and the contradictions, each with its reason."""
    qs = list(questions)
    checked = 0
    found: list[OpenToMFinding] = []
    by_belief: dict[tuple[str, tuple[str, ...] | None, bool], list[OpenToMQuestion]] = {}
    for q in qs:
        story = q.story
        if q.kind == "fine" and _label_moved(q) is None:
            checked += 1
            found.append(
                OpenToMFinding(
                    q,
                    f"gold {q.answer!r} is neither of the entity's places "
                    f"({story.original_place!r}, {story.move_to_place!r})",
                    "not a place",
                )
            )
            continue
        if q.kind == "fullness" and _container(q) is not None and _label_moved(q) is None:
            checked += 1
            role = _container(q)
            found.append(
                OpenToMFinding(
                    q,
                    f"gold {q.answer!r} cannot be right for the entity's "
                    f"{'original' if role == 'original' else 'new'} place: a move can only "
                    f"make it {'less' if role == 'original' else 'more'} full",
                    "impossible fullness",
                )
            )
            continue
        said = _label_moved(q)
        if said is None:
            continue
        expected = expected_moved(story, q.chain, beginning=q.beginning)
        if expected is None:  # the plot does not decide: the golds of one belief must at least agree
            by_belief.setdefault((story.id, q.chain, q.beginning), []).append(q)
        if expected is None:
            continue
        checked += 1
        if said != expected:
            knows = "knows the entity was moved" if expected else "does not know the entity was moved"
            why = {
                (story.mover,): "the mover moved it",
                (
                    story.observer,
                ): f"the plot says the observer {'witnessed' if expected else 'did not witness'} the move",
                (story.observer, story.mover): "the observer "
                + ("watched the mover move it" if expected else "knows of no move"),
                (story.mover, story.observer): "the observer left the room before the move, in the mover's sight",
                (): "it starts in its original place" if q.beginning else "the plot moves it",
            }.get(q.chain or (), "")
            rule = "second order" if q.chain and len(q.chain) == 2 else "first order" if q.chain else "narrator"
            found.append(
                OpenToMFinding(
                    q, f"{_who(story, q.chain)} {knows} ({why}); gold {q.answer!r} says otherwise", f"plot: {rule}"
                )
            )
    flagged = {id(f.question) for f in found}
    for group in by_belief.values():
        views = Counter(_label_moved(q) for q in group)
        checked += len(group) if len(group) > 1 else 0
        if len(views) < 2:
            continue
        # the golds of the less frequent view are the odd ones out; on a tie every gold is listed
        (top, top_n), (_, second_n) = views.most_common(2)
        for q in group:
            if id(q) in flagged or (top_n > second_n and _label_moved(q) == top):
                continue
            others = [o for o in group if _label_moved(o) != _label_moved(q)]
            found.append(
                OpenToMFinding(
                    q,
                    f"gold {q.answer!r} disagrees with {len(others)} of the {len(group) - 1} other golds of the same "
                    f"belief ({_who(q.story, q.chain)}), e.g. {others[0].answer!r} in {others[0].file}.json",
                    "same belief, other gold",
                )
            )
            flagged.add(id(q))
    return checked, found


# -- the benchmark --------------------------------------------------------------------------------------------------


class OpenToMOptions(Options):
    """Options of ``opentom``."""

    data: str | None = Field(None, description="OpenToM's data/opentom_data folder, or one question file in it")
    split: Split = Field("normal", description="normal-length stories (meta_data.json), long ones, or all")
    fine_labels: FineLabels = Field(
        "new", description="fine-location labels: the release's corrected *_new.json or the original files"
    )


def _choices(q: OpenToMQuestion) -> list[str]:
    if q.kind == "fine":
        return [q.story.original_place, q.story.move_to_place]
    return list(_LABELS[q.kind])


def _prompt_question(q: OpenToMQuestion) -> str:
    text = q.question
    if q.kind == "attitude":  # the release's prompt builder
        text = text.split("?")[0].strip() + ", assuming that you observed the action?"
    return f"{text} {_INSTRUCTION[q.kind]}"


_GROUPINGS = (
    Grouping("by_type", "group", OPENTOM_TYPES),
    Grouping("by_genre", "group", OPENTOM_GENRES, rename=tuple(_GENRE.items())),
)
"""Accuracy per question type and per the paper's genre (a type's genre: ``_GENRE``)."""


_RELEASE = Release(
    "the release evaluator's rules: yes/no alone, the place with more word overlap, the first label phrase found",
    lambda reply, sample: release_reading(reply, OpenToMBenchmark.question(sample)),
    "it reads its own phrases (``emptier`` for ``less full``), which settle a reply mindloop's reader leaves unread",
    decides=True,
)
"""How the release's evaluator reads a reply: kept beside, and it settles a reply the choice reader cannot read."""


class OpenToMBenchmark:
    """OpenToM's location, multihop and attitude questions on its narratives."""

    name = "opentom"
    description = "OpenToM location/multihop/attitude questions, macro-F1 per type (--data opentom_data/)"
    options_model = OpenToMOptions
    # the headline: accuracy over the answered questions; the paper's per-type figures beside it
    spec = BenchmarkSpec(
        headline=Headline("accuracy"),
        references=choice_references(),
        metrics=choice_metrics(_GROUPINGS, _RELEASE),
        resampled=(*COVERED_RESAMPLED, "by_type", "by_genre"),  # each row's macro-F1 (pooled counts)
        suite=RELEASE_SUITE,
        small=SmallRun(n=8, agent="symbolic", data="opentom"),
        scorer=score_choice,
    )

    def __init__(self) -> None:
        self.agents = {
            "symbolic": AgentSpec("the belief tracker reads the plot; location and fullness only", self._symbolic),
            "model": AgentSpec("a chat model answers from the narrative", self._model, needs_model=True),
        }

    def samples(self, n: int | None, seed: int, options: OpenToMOptions) -> list[Sample]:
        """The first ``n`` questions, file by file in the paper's order."""
        if options.data is None:
            raise InvalidArgumentError(
                "opentom needs --data PATH: OpenToM's data/opentom_data folder (see docs/datasets.md)"
            )
        questions = read_opentom(options.data, split=options.split, fine_labels=options.fine_labels)
        out = []
        for q in questions[:n] if n is not None else questions:
            s = q.story
            out.append(
                Sample(
                    f"{q.file}:{s.id}:{q.index}",
                    {
                        "question": q.question,
                        "answer": q.answer,
                        "type": q.qtype,
                        "genre": _GENRE[q.qtype],
                        "choices": _choices(q),
                        "story_id": s.id,
                        "file": q.file,
                        "index": q.index,
                        "chain": None if q.chain is None else list(q.chain),
                        "narrative": s.narrative,
                        "plot": list(s.plot),
                        "plot_info": {
                            "mover": s.mover,
                            "eoi": s.entity,
                            "original_place": s.original_place,
                            "move_to_place": s.move_to_place,
                            "observer": s.observer,
                        },
                        "observed": s.observed,
                        "split": s.split,
                    },
                    group=q.qtype,
                    target=_gold_choice(q),
                    choices=tuple(_choices(q)),
                )
            )
        return out

    @staticmethod
    def question(sample: Sample) -> OpenToMQuestion:
        """The question a sample holds, rebuilt from its input."""
        inp = sample.input
        info = inp["plot_info"]
        story = OpenToMStory(
            inp["story_id"],
            inp["split"],
            tuple(inp["plot"]),
            info["mover"],
            info["observer"],
            info["eoi"],
            info["original_place"],
            info["move_to_place"],
            inp["observed"],
            inp["narrative"],
        )
        chain = None if inp["chain"] is None else tuple(inp["chain"])
        return OpenToMQuestion(story, inp["file"], inp["index"], inp["question"], inp["answer"], inp["type"], chain)

    async def _model(self, sample: Sample, ctx: AgentContext) -> Outcome:
        q = self.question(sample)
        text = f"{q.story.narrative}\n\nQuestion: {_prompt_question(q)}"
        return await ask_choice(ctx, [message("user", text)], sample, (), _RELEASE)

    async def _symbolic(self, sample: Sample, ctx: AgentContext) -> Outcome:
        answer, why = track_answer(self.question(sample))
        return not_covered(why) if answer is None else covered(answer)

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """What the declared accuracy (overall, per type and per paper genre) cannot say: each row's macro-F1 (the
        paper's metric) and chance, unread replies, the tracker's counts."""
        out = choice_summary(records, _GROUPINGS)
        for grouping in _GROUPINGS:
            chances = out[grouping.key]
            out[grouping.key] = {
                t: {**chances.get(t, {}), "macro_f1": _f1(rs, lambda r: True)}
                for t, rs in counted_rows(records, grouping).items()
            }
        return out


def _gold_choice(q: OpenToMQuestion) -> str:
    """The gold as one of the question's choices (fine location: the place the gold names)."""
    if q.kind == "fine":
        g = _norm(q.answer)
        for place in (q.story.original_place, q.story.move_to_place):
            if g == _norm(place):
                return place
    if q.kind in _LABELS:
        for label in _LABELS[q.kind]:
            if label.lower() == q.answer.lower():
                return label
    return q.answer


def _f1_label(q: OpenToMQuestion, value: str | None) -> str | None:
    """The label F1 counts: a fine-location answer as the place's role (the evaluator's 1 and 2), else itself."""
    if value is None or q.kind != "fine":
        return value
    v = _norm(value)
    return "original" if v == _norm(q.story.original_place) else "new" if v == _norm(q.story.move_to_place) else None


def _f1(records: Sequence[SampleRecord], keep: Any) -> float | None:
    """Macro-F1 over the kept records that count (a failed or unread reply is a wrong prediction)."""
    pairs: list[tuple[str, str | None]] = []
    labels: Counter[str] = Counter()
    for r in records:
        if not keep(r) or r.scores.get("covered", 1.0) != 1.0:
            continue
        q = OpenToMBenchmark.question(r.sample)
        gold = _f1_label(q, _gold_choice(q))
        predicted = _f1_label(q, (r.output or {}).get("answer"))
        if gold is None:
            continue
        pairs.append((gold, predicted))
        labels[gold] += 1
    if not pairs:
        return None
    return macro_f1(pairs, sorted(labels))


def macro_f1(pairs: Sequence[tuple[str, str | None]], labels: Sequence[str]) -> float | None:
    """Macro-averaged F1 over ``labels`` of ``(gold, predicted)`` pairs; an unread prediction (``None``) is wrong.

    Each label's F1 is ``2·tp / (2·tp + fp + fn)``; a label that is neither gold nor predicted anywhere is left
    out of the average (as scikit-learn does with ``labels`` limited to those present).

    >>> round(macro_f1([("yes", "yes"), ("no", "yes"), ("no", "no")], ["yes", "no"]), 4)
    0.6667
    """
    if not pairs:
        return None
    scores = []
    for label in labels:
        tp = sum(1 for g, p in pairs if g == label and p == label)
        fp = sum(1 for g, p in pairs if g != label and p == label)
        fn = sum(1 for g, p in pairs if g == label and p != label)
        if tp + fp + fn:
            scores.append(2 * tp / (2 * tp + fp + fn))
    return sum(scores) / len(scores) if scores else None

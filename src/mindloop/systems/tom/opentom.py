"""The ``opentom`` benchmark: OpenToM (Xu et al., ACL 2024) read from its release folder, and its label audit.

**The release.** ``data/opentom_data/`` of seacowx/OpenToM (CC BY-NC 4.0; not shipped with mindloop):
``meta_data.json`` maps each of the 596 story ids to its ``plot`` (the event skeleton, one sentence a line),
``plot_info`` (``mover``, ``eoi`` — the entity —, ``original_place``, ``move_to_place``, ``observer``), ``observed``
and the ``narrative`` the model reads; ``meta_data_long.json`` holds 100 of those ids again with a
``long_narrative``. Each question file (``location_cg_fo``, ``location_cg_so``, ``location_fg_fo``,
``location_fg_so``, ``multihop_fo``, ``multihop_so``, ``attitude``) maps story ids to lists of ``{"question",
"answer", "type"}``; the fine-location files have corrected ``*_new.json`` copies, read when present (option
``fine_labels``). ``split``: ``normal`` (13,708 questions), ``long`` (the same 2,300 questions of the 100 long
stories, on ``long_narrative``), ``all`` (both). The one-file layout its README names (``opentom.json``,
``opentom_long.json``: the story's metadata with one ``question`` per item) is read too.

**Question types** (the paper's): coarse location (is the entity in its initial location, Yes/No), fine location
(which place), multihop fullness (less/more/equally full) and accessibility (more/less/equally accessible), each
first and second order, and attitude (positive/negative/neutral).

**Scoring** (the release's ``src/evaluate.py``): macro-F1 per column of the paper's table (``by_genre``; its MHop
columns pool the fullness and accessibility labels under the evaluator's numbers), a reply the reading cannot
place left out of the F1 and reported as the ``unreadable`` share; the headline is the mean of the columns'
macro-F1; accuracy (an unread reply wrong) beside. ``protocol=release`` draws the release runner's sample (5
batches of 50 stories, 2 of each story's 4 fullness questions per multihop file, seed 42) and averages the
batches' macro-F1. Deviation: the evaluator unpacks ``plot_info`` in the wrong order and so drops every fine
location question whose gold is the original place; mindloop scores them all (docs/datasets.md).

**Protocol** (``--agent model``): the release's zero-shot prompt (its system message; the narrative and the
question with its prompt file's instruction, the attitude question rewritten as its builder does), asked once (no
format retry: the release sends no second request). The release's own reading of a reply is kept as
``release_answer`` beside mindloop's.

**Symbolic agent.** The tracker reads the ``plot`` lines (``X entered the R.``, ``Both X and Y noticed that the O
is in the C in the R.`` — the room may be missing —, ``X exited the R.``, ``X moved the O to the C and Y witnessed
the action.`` / ``… but Y did not witness the action.``; whether the observer saw the move is the story's
``observed`` field, which some plot lines contradict while the narrative and the labels follow the field) and
answers the location questions (coarse and fine, the narrator's too) and the fullness questions of both orders
from the chain the question names, when the plot decides them (:func:`story_view`): a view the plot does not
decide, or the narrative decides otherwise, is left uncovered, and a move line that contradicts ``plot_info`` leaves
its story uncovered, each with the reason. Accessibility (social commonsense) and attitude are not covered.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import mean, pstdev
from typing import Any, Literal, NamedTuple

from pydantic import Field

from mindloop.beliefs import Event, EventKind, Fact, Tracker
from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.bench.choice import (
    COVERED_RESAMPLED,
    RELEASE_SUITE,
    ChoiceBenchmark,
    ChoiceSet,
    Fields,
    Prompt,
    Release,
    choice_metrics,
    choice_summary,
    counted,
    counted_rows,
    covered,
    not_covered,
    score_choice,
)
from mindloop.bench.declaration import BenchmarkSpec, Grouping, Headline, ReferencePolicy, SmallRun
from mindloop.bench.references import best_constant_policy
from mindloop.errors import InvalidArgumentError, ParseError
from mindloop.systems.tom.data import RELEASES

_KINDS = RELEASES.opentom_kinds
"""Per kind of question: its labels, what the release's prompt files and builder (``src/utils/build_prompt.py``)
put after its question, its evaluator's numbers and the reply phrases it reads (``data/releases.yaml``)."""

OPENTOM_FILES = RELEASES.opentom_files
"""The release's question files (``.json``), in the paper's order."""

OPENTOM_TYPES = tuple(RELEASES.opentom_types)
"""mindloop's question types: the paper's genres with multihop split into fullness and accessibility."""

OPENTOM_GENRES = RELEASES.opentom_genres
"""The columns of the paper's results table."""

_GENRE = dict(sorted(RELEASES.opentom_types.items(), key=lambda item: OPENTOM_GENRES.index(item[1])))
"""Each type's column of the paper's table, the types in the order of those columns."""

_FineLabels = Literal["new", "original"]
_Split = Literal["normal", "long", "all"]
_Protocol = Literal["full", "release"]

_CONSOLIDATED = {"normal": "opentom.json", "long": "opentom_long.json"}
"""The release's one-file layout (its README): a JSON list, each item a story's metadata with one ``question``."""
_META = {"normal": "meta_data.json", "long": "meta_data_long.json"}
"""The release's folder layout: each split's story metadata, beside the question files."""


@dataclass(frozen=True, slots=True)
class OpenToMStory:
    """One story's metadata: its plot lines, the two characters, the entity, its two places, the narrative the
    model reads (a long story's ``long_narrative``)."""

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
    def key(self) -> str:
        """The sample id: file, story, index, and ``:long`` for a long story's copy of the question."""
        return f"{self.file}:{self.story.id}:{self.index}" + (":long" if self.story.split == "long" else "")

    @property
    def source(self) -> str:
        long = " (long)" if self.story.split == "long" else ""
        return f"{self.file}.json:{self.story.id}[{self.index}]{long}"


def _norm(place: str) -> str:
    """A place as the release's evaluator compares it: lower case, '_' as space, one leading article dropped."""
    text = re.sub(r"[\s_]+", " ", place.lower()).strip().rstrip(".")
    return re.sub(r"^(?:a|an|the) ", "", text)


def _load(path: Path, kind: type[dict[str, Any]] | type[list[Any]], expected: str) -> Any:
    """A JSON file in UTF-8, UTF-16 or UTF-32, with or without a byte-order mark (``json`` detects which), whose
    value must be a ``kind`` (else a one-line error saying it ``expected`` one)."""
    try:
        data = json.loads(path.read_bytes())
    except json.JSONDecodeError as exc:
        raise ParseError(f"not valid JSON ({exc.msg})", source=str(path), line=exc.lineno) from None
    except UnicodeDecodeError as exc:
        raise ParseError(f"not UTF-8, UTF-16 or UTF-32 text ({exc.reason})", source=str(path)) from None
    if not isinstance(data, kind):
        raise ParseError(f"expected {expected}", source=str(path))
    return data


def _story(sid: str, split: str, meta: Any, where: str) -> OpenToMStory:
    """A story from its metadata; a long story reads ``long_narrative`` (the field the release's runner reads)."""
    if not isinstance(meta, dict) or not isinstance(meta.get("plot_info"), dict):
        raise ParseError(f"{where}: no 'plot_info' object")
    info = meta["plot_info"]
    missing = [k for k in _PLOT_INFO if k not in info]
    text = "long_narrative" if split == "long" else "narrative"
    if missing or not isinstance(meta.get("plot"), str) or not isinstance(meta.get(text), str):
        raise ParseError(
            f"{where}: " + (f"'plot_info' lacks {', '.join(missing)}" if missing else f"no 'plot' or '{text}' text")
        )
    observed = meta.get("observed")
    plot = tuple(line.strip() for line in meta["plot"].splitlines() if line.strip())
    return OpenToMStory(sid, split, plot, *_cast(info), observed if isinstance(observed, bool) else None, meta[text])


_PLOT_INFO = ("mover", "eoi", "original_place", "move_to_place", "observer")
"""The fields of a story's ``plot_info``, in the release's order (a sample's input keeps them so)."""


def _info(s: OpenToMStory) -> dict[str, str]:
    """A story's ``plot_info`` object (a sample's input holds it; :func:`_cast` reads it back)."""
    return dict(zip(_PLOT_INFO, (s.mover, s.entity, s.original_place, s.move_to_place, s.observer), strict=True))


def _cast(info: Mapping[str, Any]) -> tuple[str, str, str, str, str]:
    """A ``plot_info`` object's mover, observer, entity and two places, in :class:`OpenToMStory`'s order."""
    return tuple(str(info[k]) for k in ("mover", "observer", "eoi", "original_place", "move_to_place"))  # type: ignore[return-value]


def _stories(path: Path, split: str) -> dict[str, OpenToMStory]:
    data = _load(path, dict, "an object of story ids (OpenToM's meta_data.json)")
    return {sid: _story(sid, split, meta, f"{path.name}: story {sid}") for sid, meta in data.items()}


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


def _question(story: OpenToMStory, file: str, index: int, item: Any, where: str) -> OpenToMQuestion:
    if not isinstance(item, dict) or not isinstance(item.get("question"), str):
        raise ParseError(f"{where}: expected an object with a 'question' text")
    question = item["question"].strip()
    raw_type = str(item.get("type", ""))
    if file.startswith("opentom"):  # the one-file layout: the question file as the release's prompt builder tells
        kind, _, order = raw_type.partition("-")
        grain = "cg" if "initial" in question else "fg"
        qfile = {"location": f"location_{grain}_{order}", "multihop": f"multihop_{order}"}.get(kind, kind)
    else:
        qfile = file
    qtype = _qtype(qfile, raw_type, question)
    gold = _gold(item.get("answer"), where)
    if qtype.startswith("accessibility") and "|" in gold:
        gold = "equally accessible"
    return OpenToMQuestion(story, file, index, question, gold, qtype, _chain(story, qtype, question))


def _read_consolidated(path: Path, split: str) -> list[OpenToMQuestion]:
    """``opentom.json`` / ``opentom_long.json``: a list of the story's metadata with one ``question`` each (the
    release's ``data/temp.py`` builds them so); a story has no id there, so it is numbered by first appearance."""
    data = _load(path, list, "a list of questions, each with its story (OpenToM's opentom.json)")
    ids: dict[tuple[str, str], str] = {}
    out = []
    for row, record in enumerate(data):
        where = f"{path.name}: question {row}"
        if not isinstance(record, dict) or not isinstance(record.get("question"), dict):
            raise ParseError(f"{where}: no 'question' object")
        sid = ids.setdefault((str(record.get("plot")), str(record.get("narrative"))), str(len(ids)))
        out.append(_question(_story(sid, split, record, where), path.stem, row, record["question"], where))
    return out


def read_opentom(
    path: str | Path, *, split: _Split = "normal", fine_labels: _FineLabels = "new"
) -> list[OpenToMQuestion]:
    """Every question of an OpenToM release folder (``opentom_data``), of one question file in it, or of the
    one-file layout (``opentom.json``, ``opentom_long.json``, or the ``data`` folder holding them).

    ``split``: ``normal`` asks every question about the 596 stories of ``meta_data.json`` with their
    ``narrative``; ``long`` asks the same questions about the 100 stories of ``meta_data_long.json`` with their
    ``long_narrative``; ``all`` both (a long story's questions twice, once per narrative). A question whose story
    is in neither metadata file is a one-line error.
    """
    p = Path(path)
    if not p.exists():
        raise InvalidArgumentError(f"--data {str(path)!r}: no such file or folder (OpenToM's data/opentom_data)")
    if p.is_dir() and not any((p / n).is_file() for n in _META.values()):
        if (p / "opentom_data").is_dir():
            p = p / "opentom_data"
        elif any((p / n).is_file() for n in _CONSOLIDATED.values()):
            files = _split_files(p, p, split, _CONSOLIDATED)
            return [q for which, file in files for q in _read_consolidated(file, which)]
    if p.is_file() and p.stem.removesuffix("_new") not in OPENTOM_FILES:
        which = "long" if p.stem.endswith("_long") else "normal"
        if split not in (which, "all"):
            raise InvalidArgumentError(f"--data {str(path)!r} holds the {which} stories: use --opt split={which}")
        return _read_consolidated(p, which)
    folder = p if p.is_dir() else p.parent
    stories = {which: _stories(folder / name, which) for which, name in _META.items() if (folder / name).is_file()}
    if not stories:
        raise InvalidArgumentError(f"--data {str(path)!r}: no meta_data.json beside the questions (OpenToM's folder)")
    wanted = [which for which, _ in _split_files(path, folder, split, _META)]
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
        files = [(p.stem.removesuffix("_new"), p)]
    loaded = []
    for _, file in files:
        data = _load(file, dict, "an object of story ids, each a list of questions")
        for sid, items in data.items():
            if not any(sid in s for s in stories.values()):
                raise ParseError(f"story {sid!r} is not in meta_data.json or meta_data_long.json", source=str(file))
            if not isinstance(items, list):
                raise ParseError(f"story {sid}: expected a list of questions", source=str(file))
        loaded.append((file, data))
    return [
        _question(story, file.stem, i, item, f"{file.name}: story {sid} question {i}")
        for which in wanted
        for file, data in loaded
        for sid, items in data.items()
        if (story := stories[which].get(sid)) is not None
        for i, item in enumerate(items)
    ]


def _split_files(path: str | Path, folder: Path, split: str, names: Mapping[str, str]) -> list[tuple[str, Path]]:
    """The splits ``split`` asks for, each with its file in ``folder`` (``names``: a layout's file per split); one
    that is not there is a one-line error naming ``path``."""
    wanted = [(which, folder / name) for which, name in names.items() if split in (which, "all")]
    if missing := [file.name for _, file in wanted if not file.is_file()]:
        raise InvalidArgumentError(f"--data {str(path)!r}: split {split} needs {missing[0]}, which is not there")
    return wanted


# -- the tracker ---------------------------------------------------------------------------------------------------

_W = r"[A-Za-z][\w'-]*"
_ENTER = re.compile(rf"^({_W}) (?:entered|is in) the (.+?)\.$")
_EXIT = re.compile(rf"^({_W}) exited the (.+?)\.$")
# 26 plots name no room ("... in the bucket in the ."): both are there, so the room does not matter
_NOTICED = re.compile(rf"^Both ({_W}) and ({_W}) noticed that the (.+?) (?:is|are) in the (.+?) in the ?(.*?)\.$")
_MOVED = re.compile(
    rf"^({_W}) moved the (.+?) to the (.+?) (?:and|but) ({_W}) "
    r"(witnessed the action|did not witness the (?:event|action))\.$"
)


class _UnreadError(Exception):
    """A plot the tracker does not read, with the reason."""


def _track_plot(story: OpenToMStory) -> Tracker:
    """The tracker after the story's plot; raises ``_UnreadError`` on a line it does not read, and on a move line
    that contradicts ``plot_info`` (names other characters, or a place other than ``move_to_place``: story
    47709731 moves the underpants from the drawer "to the a drawer", its ``move_to_place`` being "another
    drawer")."""
    tracker = Tracker(max_depth=2)
    room: dict[str, str] = {}
    entity = _norm(story.entity)  # places too: the template writes 'the ' before the release's ('the the trash can')
    for t, line in enumerate(story.plot, 1):
        if m := _ENTER.match(line):
            room[m[1]] = m[2]
            tracker.apply(Event(t, EventKind.ENTER, m[1], (Fact(m[1], "at", m[2]),), frozenset(_here(room, m[2]))))
        elif m := _EXIT.match(line):
            tracker.apply(Event(t, EventKind.EXIT, m[1], (Fact(m[1], "at", None),), frozenset(_here(room, m[2]))))
            room.pop(m[1], None)
        elif (m := _NOTICED.match(line)) and _norm(m[3]) == entity:
            fact = Fact(entity, "in", _norm(m[4]))
            tracker.apply(Event(t, EventKind.OBSERVE, None, (fact,), frozenset({m[1], m[2]})))
        elif (m := _MOVED.match(line)) and _norm(m[2]) == entity:
            if (m[1], m[4]) != (story.mover, story.observer):
                raise _UnreadError(
                    f"the plot's move line has {m[1]} move it and {m[4]} watch; plot_info names "
                    f"{story.mover} and {story.observer}"
                )
            if _norm(m[3]) != _norm(story.move_to_place):
                raise _UnreadError(
                    f"the plot's move line names {m[3]!r}, plot_info's move_to_place {story.move_to_place!r}"
                )
            # the release's 'observed' decides when the plot line says otherwise (the narrative follows 'observed')
            witnessed = story.observed if story.observed is not None else m[5].startswith("witnessed")
            seen = {m[1]} | ({m[4]} if witnessed else set())
            tracker.apply(Event(t, EventKind.MOVE, m[1], (Fact(entity, "in", _norm(m[3])),), frozenset(seen)))
        else:
            raise _UnreadError(f"a plot line the tracker does not read: {line!r}")
    return tracker


def _here(room: dict[str, str], where: str) -> list[str]:
    return [a for a, r in room.items() if r == where]


def _believed_moved(question: OpenToMQuestion) -> bool | None:
    """Whether the question's chain believes the entity is in its new place (``True``) or its original one
    (``False``, which wins when the two places read alike), or ``None`` (a belief the plot never formed); raises
    ``_UnreadError``."""
    story = question.story
    moved: dict[str | None, bool] = {_norm(story.move_to_place): True, _norm(story.original_place): False}
    return moved.get(_track_plot(story).value(question.chain or (), _norm(story.entity), "in"))


def track_answer(question: OpenToMQuestion) -> tuple[str | None, str]:
    """The tracker's answer in the release's label set, or ``None`` with the reason it is not covered."""
    kind = question.kind
    if kind in ("accessibility", "attitude"):
        return None, f"{kind} questions need more than where the entity is"
    if question.chain is None:
        return None, "the question names no perspective"
    if question.beginning:
        return question.story.original_place, ""
    view, source = story_view(question.story, question.chain)
    if view is None:
        return None, source
    if source != "plot":
        return None, f"the narrative decides it, not the plot the tracker reads: {source.removeprefix('narrative: ')}"
    try:
        moved = _believed_moved(question)
    except _UnreadError as exc:
        return None, str(exc)
    if moved is None:
        return None, "the plot never shows this belief"
    answer = _answer(question, moved)
    return (answer, "") if answer is not None else (None, "the fullness question names neither of the entity's places")


def _answer(question: OpenToMQuestion, moved: bool) -> str | None:
    """The label saying that the question's chain believes the entity was moved (``moved``) or was not: the
    tracker's answer, and what the audit reads a gold as; ``None`` for a kind that does not turn on the move and
    for a fullness question that names neither of the entity's places."""
    story = question.story
    if question.kind == "coarse":
        return "No" if moved else "Yes"
    if question.kind == "fine":
        return story.move_to_place if moved else story.original_place
    container = _container(question) if question.kind == "fullness" else None
    if container is None:
        return None
    return ("less full" if container == "original" else "more full") if moved else "equally full"


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
    """The evaluator's word overlap of a reply with a place, the place first cut of the first of 'a', 'an', 'the' it
    starts with (its ``remove_determinant``: so "the dining table" loses "the", and "attic" its "a")."""
    place = next((place[len(d) :].strip() for d in ("a", "an", "the") if place.startswith(d)), place)
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
        if token in ("a", "b", "c"):  # the options of its chain-of-thought prompt
            return {"a": "positive", "b": "neutral", "c": "negative"}[token]
        found = [lab for lab in _KINDS["attitude"].labels if lab in token]
        return found[0] if len(found) == 1 else None
    text = low.replace(".", "")
    for label, forms in zip(_KINDS[kind].labels, _KINDS[kind].phrases, strict=True):
        if any(f in text for f in forms):
            return label
    return None


# -- the audit ------------------------------------------------------------------------------------------------------


def _before_move(story: OpenToMStory) -> tuple[set[str], bool | None]:
    """Who the plot has leave a room before its move line (in the mover's sight: they shared the room), and whether
    that line says the observer witnessed the move (``None``: the plot has no move line)."""
    exited: set[str] = set()
    for line in story.plot:
        if m := _MOVED.match(line):
            return exited, m[5].startswith("witnessed")
        if m := _EXIT.match(line):
            exited.add(m[1])
    return exited, None


def story_view(
    story: OpenToMStory, chain: tuple[str, ...] | None, *, beginning: bool = False
) -> tuple[bool | None, str]:
    """Whether ``chain`` must believe the entity was moved, and what says so: ``(view, "plot")``, ``(view,
    "narrative: <its sentence>")``, or ``(None, why the story does not decide it)``.

    By the plot: the mover moved it; the observer knows of the move exactly when the plot (``observed``) says so;
    the observer's view of the mover is the observer's own knowledge (a witness saw the mover do it; a non-witness
    knows of no move); the mover's view of a non-witness who left the room before the move is that the entity is
    still where both last saw it; the narrator (``()``) knows the move, and at the beginning of the story the entity
    is in its original place. The narrative overrides the plot where it says more, as the release's golds do:
    a sentence saying the mover did not know what the observer saw decides the mover's view of the observer
    (:func:`_mover_cue`: "Unbeknownst to Gianna, Eliana silently observed her every move": not moved, 65848857)
    unless it contradicts the plot ("Unbeknownst to him, Max had never witnessed Troy's act" after Max left in
    Troy's sight, 98132318: the release's golds follow the narrative there and the plot in 77607727, so neither
    decides); any other sentence saying someone
    did not know (:data:`_CUE`) leaves that view undecided, and so does one where a non-witness comes back
    (:func:`_returns`: "Jonah returned to the living room only to find it empty", 10769598) for every view of the
    observer's. The mover's view of a witness is undecided unless the narrative says it.
    """
    if chain == ():
        return not beginning, "plot"
    exited, witnessed = _before_move(story)
    observed = story.observed if story.observed is not None else witnessed
    if observed is None or not chain:
        return None, "the story does not say whether the observer saw the move"
    if chain == (story.mover,):
        return True, "plot"
    mover, observer = story.mover, story.observer
    if not observed and (back := _returns(story)):
        return None, f"the narrative has {observer} come back ({back!r}), which the plot does not model"
    if chain in ((observer,), (observer, mover)):
        return observed, "plot"
    if chain != (mover, observer):
        return None, "the question names someone the plot does not"
    view, sentence = _mover_cue(story)
    plot_view = False if not observed and observer in exited else None
    if view is not None and plot_view is not None and view != plot_view:
        return None, f"the plot (the observer leaves first) and the narrative ({sentence!r}) disagree"
    if view is not None:
        return view, f"narrative: {sentence!r}"
    if cue := _CUE.search(story.narrative):
        return None, f"the narrative says someone did not know ({cue[0]!r}) without saying what {mover} thought"
    if plot_view is not None:
        return plot_view, "plot"
    if observed:
        return None, f"the plot does not say whether {mover} saw {observer} watch the move"
    return None, f"the plot does not say whether {mover} knew that {observer} missed the move"


_CUE = re.compile(
    r"unbeknownst to \w+|little did \w+ know|never witnessed|missed the entire|\bunaware\b|\boblivious\b|had no idea",
    re.IGNORECASE,
)
"""Words by which a narrative says that someone did not know what happened."""
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
_NOT_SEEN = re.compile(
    r"\bnever\b|\bnot\b|n't\b|\bmissed\b|\bunnoticed\b|\bunseen\b|\bwithout (?:witness|see)|\bbefore (?:witness|see)",
    re.IGNORECASE,
)
"""A negated sighting ("had never witnessed", "was not there to witness", "left before witnessing")."""
_SEEN = re.compile(r"watch|observ|witness|\bsaw\b|\bseen\b|\bsee\b|notic", re.IGNORECASE)


def _mover_cue(story: OpenToMStory) -> tuple[bool | None, str]:
    """What a narrative sentence says the mover thought the observer saw: a sentence "Unbeknownst to <the mover>"
    or "Little did <the mover> know" (a pronoun standing for the mover when the observer is named after it) that
    says the observer did not see the move (the mover took it as seen: moved) or saw it (the mover took it as
    unseen: not moved); ``(None, "")`` when no sentence says so, two disagree, or the sentence is about the
    observer's return or ignorance ("Little did she know that Cyrus had returned ..., unaware of Ella's actions").
    """
    pronoun = {"him", "her", "them", "he", "she", "they"}
    views = {}
    for sentence in _SENTENCES.split(story.narrative):
        m = re.search(r"unbeknownst to (\w+)|little did (\w+) know", sentence, re.IGNORECASE)
        if m is None:
            continue
        who, rest = (m[1] or m[2]), sentence[m.end() :]
        if who != story.mover and not (who.lower() in pronoun and story.observer in rest):
            continue
        if story.observer not in rest:
            continue
        if re.search(r"unaware|oblivious|returned|came back", rest, re.IGNORECASE):
            continue  # what the mover did not know is then the observer's return or ignorance, not a sighting
        if _NOT_SEEN.search(rest):
            views[True] = sentence
        elif _SEEN.search(rest):
            views[False] = sentence
    return next(iter(views.items())) if len(views) == 1 else (None, "")


def _returns(story: OpenToMStory) -> str | None:
    """A narrative sentence where the observer comes back (and is not said to stay unaware), or ``None``."""
    for sentence in _SENTENCES.split(story.narrative):
        if (
            story.observer in sentence
            and re.search(r"\b(?:returned|came back|re-?entered|walked back)\b", sentence, re.IGNORECASE)
            and not re.search(r"unaware|oblivious|no idea", sentence, re.IGNORECASE)
        ):
            return sentence
    return None


class _OpenToMFinding(NamedTuple):
    """A question whose gold contradicts the story (or another gold of the same belief), with the reason."""

    question: OpenToMQuestion
    reason: str
    rule: str


def _label_moved(q: OpenToMQuestion) -> bool | None:
    """What the gold says about the chain's belief: moved (``True``), not moved (``False``), or nothing (the gold
    is neither :func:`_answer`, compared as the evaluator compares places, other labels ignoring case)."""
    same = _norm if q.kind == "fine" else str.lower
    for moved in (True, False):
        answer = _answer(q, moved)
        if answer is not None and same(answer) == same(q.answer):
            return moved
    return None


def _who(story: OpenToMStory, chain: tuple[str, ...] | None) -> str:
    if not chain:
        return "the narrator"
    names = {story.mover: "the mover", story.observer: "the observer"}
    if len(chain) == 1:
        return f"{chain[0]} ({names.get(chain[0], '?')})"
    return f"{chain[0]} about {chain[1]}"


def audit_opentom(questions: Iterable[OpenToMQuestion]) -> tuple[int, list[_OpenToMFinding]]:
    """Check every location and fullness gold against the plot's statements and against the other golds of the
    same belief; returns how many questions were judged and the contradictions, each with its reason."""
    qs = list(questions)
    checked = 0
    found: list[_OpenToMFinding] = []
    by_belief: dict[tuple[str, tuple[str, ...] | None, bool], list[OpenToMQuestion]] = {}
    for q in qs:
        story = q.story
        if q.kind == "fine" and _label_moved(q) is None:
            checked += 1
            places = f"({story.original_place!r}, {story.move_to_place!r})"
            found.append(
                _OpenToMFinding(q, f"gold {q.answer!r} is neither of the entity's places {places}", "not a place")
            )
            continue
        if q.kind == "fullness" and (role := _container(q)) is not None and _label_moved(q) is None:
            checked += 1
            less = "less" if role == "original" else "more"
            why = (
                f"gold {q.answer!r} cannot be right for the entity's {role} place: a move can only make it {less} full"
            )
            found.append(_OpenToMFinding(q, why, "impossible fullness"))
            continue
        said = _label_moved(q)
        if said is None:
            continue
        expected, source = story_view(story, q.chain, beginning=q.beginning)
        if expected is None:  # the story does not decide: the golds of one belief must at least agree
            if "come back" not in source:  # unless the narrative gave the observer knowledge the plot lacks
                by_belief.setdefault((story.id, q.chain, q.beginning), []).append(q)
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
            if source != "plot":
                why = f"the {source}"
            rule = "second order" if q.chain and len(q.chain) == 2 else "first order" if q.chain else "narrator"
            why = f"{_who(story, q.chain)} {knows} ({why}); gold {q.answer!r} says otherwise"
            found.append(_OpenToMFinding(q, why, f"{source.split(':')[0]}: {rule}"))
    flagged = {id(f.question) for f in found}
    for group in by_belief.values():
        views = Counter(_label_moved(q) for q in group)
        checked += len(group) if len(group) > 1 else 0
        if len(views) < 2:
            continue
        # the golds of the less frequent view are the odd ones out; a tie says one side is wrong, not which
        (top, top_n), (_, second_n) = views.most_common(2)
        if top_n == second_n:
            continue
        for q in group:
            if id(q) in flagged or _label_moved(q) == top:
                continue
            others = [o for o in group if _label_moved(o) != _label_moved(q)]
            why = (
                f"gold {q.answer!r} disagrees with {len(others)} of the {len(group) - 1} other golds of the same "
                f"belief ({_who(q.story, q.chain)}), e.g. {others[0].answer!r} in {others[0].file}.json"
            )
            found.append(_OpenToMFinding(q, why, "same belief, other gold"))
            flagged.add(id(q))
    return checked, found


# -- the benchmark --------------------------------------------------------------------------------------------------


class OpenToMOptions(Options):
    """Options of ``opentom``."""

    data: str | None = Field(
        None, description="OpenToM's data/opentom_data folder, one question file in it, or opentom.json"
    )
    split: _Split = Field(
        "normal", description="the 596 stories with their narrative, the 100 long ones with long_narrative, or all"
    )
    fine_labels: _FineLabels = Field(
        "new", description="fine-location labels: the release's corrected *_new.json or the original files"
    )
    protocol: _Protocol = Field(
        "full",
        description="full: every question; release: run_baseline.py's draw (seed 42): 5 batches of 50 stories, "
        "2 of each story's 4 fullness questions per multihop file, macro-F1 averaged over the batches",
    )


def _choices(q: OpenToMQuestion) -> list[str]:
    if q.kind == "fine":
        return [q.story.original_place, q.story.move_to_place]
    return list(_KINDS[q.kind].labels)


_SYSTEM = "You are an expert in modeling other's mental state."


def release_prompt(q: OpenToMQuestion) -> str:
    """The user turn of the release's zero-shot prompt (``chatgpt_opentom_prompts/*.txt``), after the system
    message ``_SYSTEM``; the attitude question rewritten as its builder does."""
    text = q.question
    if q.kind == "attitude":
        text = text.split("?")[0].strip() + ", assuming that you observed the action?"
    return (
        "Read and comprehend the following short story. Then, answer the question that follows.\n\n"
        f"{q.story.narrative}\n\nQuestion: {text}{_KINDS[q.kind].tail}"
    ).strip()


def release_sample(
    questions: Sequence[OpenToMQuestion], *, batches: int = 5, size: int = 50, seed: int = 42
) -> list[tuple[str, OpenToMQuestion]]:
    """The questions the release's ``run_baseline.py`` asks (defaults ``--num_batch 5 --batch_size 50 --seed
    42``), each with its batch: per split, Python's ``random`` shuffles the story ids in metadata order and the
    batches are taken in turn (a new shuffle of that order when a pass runs out: the 100 long stories give 2 a
    pass); numpy's legacy generator then drops 2 of each story's 4 fullness questions, from its first- and then
    its second-order multihop questions, story by story in batch order, as the runner draws them."""
    import numpy as np  # only this option needs it: not on the start-up path

    out = []
    for split in ("normal", "long"):
        by_story: dict[str, list[OpenToMQuestion]] = {}
        for q in questions:
            if q.story.split == split:
                by_story.setdefault(q.story.id, []).append(q)
        if not by_story:
            continue
        shuffle, draw = random.Random(seed), np.random.RandomState(seed)
        chunks: list[list[str]] = []
        while len(chunks) < batches:
            keys = list(by_story)
            shuffle.shuffle(keys)
            chunks += [keys[i : i + size] for i in range(0, len(keys), size)][: batches - len(chunks)]
        for b, chunk in enumerate(chunks, 1):
            for sid in chunk:
                dropped: set[int] = set()
                for order in ("fo", "so"):
                    fullness = [q for q in by_story[sid] if q.qtype == f"fullness-{order}"]
                    if len(fullness) >= 2:
                        dropped |= {id(fullness[i]) for i in draw.choice(len(fullness), 2, replace=False)}
                out += [(f"{split}-{b}", q) for q in by_story[sid] if id(q) not in dropped]
    return out


_GROUPINGS = (
    Grouping("by_type", "group", OPENTOM_TYPES),
    Grouping("by_genre", "group", OPENTOM_GENRES, rename=tuple(_GENRE.items())),
)
"""Accuracy per question type and per the paper's genre (a type's genre: ``_GENRE``)."""

_CODE = {label: code for k in _KINDS.values() if k.codes for label, code in zip(k.labels, k.codes, strict=True)}
"""The release evaluator's labels for the multihop answers; its MHop columns pool the fullness and accessibility
questions under these numbers, so "less full" and "more accessible" count as one label."""


def _label(inp: Mapping[str, Any], value: Any) -> Any:
    """The label macro-F1 counts for ``value`` as an answer to the question ``inp`` (a sample's input): a
    fine-location answer as its place's role (the evaluator's 1 and 2), a multihop one as the evaluator's number,
    else the text; ``None``: no label (an unread reply)."""
    if not isinstance(value, str):
        return None
    kind = str(inp["type"]).split("-")[0]
    if kind == "fine":
        v, info = _norm(value), inp["plot_info"]
        return (
            "original" if v == _norm(info["original_place"]) else "new" if v == _norm(info["move_to_place"]) else None
        )
    if kind in ("fullness", "accessibility"):
        return _CODE.get(value.lower())
    return value.lower()


def label_f1(entries: Iterable[tuple[Any, Any, float]]) -> dict[Any, tuple[float, float]]:
    """Each label's F1 and support (its gold weight) over weighted (gold, predicted) label pairs, for every label
    gold or predicted; a weight below 1 spreads one question over several predictions (a uniform guess). Their
    mean is scikit-learn's ``f1_score(average="macro")`` (what the OpenToM release calls), their mean weighted by
    support its ``average="weighted"`` (what FANToM's calls)."""
    tp: Counter[Any] = Counter()
    fp: Counter[Any] = Counter()
    fn: Counter[Any] = Counter()
    for gold, got, w in entries:
        if gold == got:
            tp[gold] += w  # type: ignore[assignment]
        else:
            fp[got] += w  # type: ignore[assignment]
            fn[gold] += w  # type: ignore[assignment]
    labels = dict.fromkeys([*tp, *fp, *fn])  # in the entries' order, not a set's: the same sum in every process
    return {x: (2 * tp[x] / (2 * tp[x] + fp[x] + fn[x]), tp[x] + fn[x]) for x in labels}


def _batched_f1(entries: Sequence[tuple[Any, Any, Any, float]]) -> tuple[float | None, float | None]:
    """Macro-F1 of ``(batch, gold, predicted, weight)`` entries: per batch (:func:`label_f1`, averaged over every
    label gold or predicted), then their mean and (several batches) their population standard deviation, as the
    release's ``evaluate.py`` prints them."""
    per: dict[Any, list[tuple[Any, Any, float]]] = {}
    for batch, gold, got, w in entries:
        per.setdefault(batch, []).append((gold, got, w))
    f1s = [[f1 for f1, _ in label_f1(batch).values()] for batch in per.values()]
    values = [sum(batch) / len(batch) for batch in f1s if batch]
    if not values:
        return None, None
    return mean(values), (pstdev(values) if len(values) > 1 else None)


def _f1_row(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """A row's macro-F1 as the release scores it (an unread reply left out) and, for a model, the unread share."""
    entries, unread = [], 0
    for r in records:
        inp = r.sample.input
        gold, got = _label(inp, inp["answer"]), _label(inp, (r.output or {}).get("answer"))
        unread += got is None
        if gold is not None and got is not None:
            entries.append((inp.get("batch"), gold, got, 1.0))
    f1, sd = _batched_f1(entries)
    row: dict[str, Any] = {"macro_f1": f1}
    if sd is not None:
        row["macro_f1_sd"] = sd
    if records and not any("covered" in r.scores for r in records):
        row["unreadable"] = unread / len(records)
    return row


def _policy(samples: Sequence[Sample], predict: Callable[[Sample], list[tuple[Any, float]]]) -> float | None:
    """The headline (the mean of the genres' macro-F1) of a policy giving each sample weighted labels."""
    rows: dict[str, list[tuple[Any, Any, Any, float]]] = {}
    for s in samples:
        inp = s.input
        if (gold := _label(inp, inp["answer"])) is not None:
            rows.setdefault(_GENRE[inp["type"]], []).extend((inp.get("batch"), gold, g, w) for g, w in predict(s))
    values = [v for v in (_batched_f1(e)[0] for e in rows.values()) if v is not None]
    return mean(values) if values else None


def _constant(samples: Sequence[Sample]) -> float | None:
    counts: dict[str, Counter[Any]] = {}
    for s in samples:
        counts.setdefault(s.group, Counter())[_label(s.input, s.input["answer"])] += 1
    best = {t: c.most_common(1)[0][0] for t, c in counts.items()}
    return _policy(samples, lambda s: [(best[s.group], 1.0)])


_REFERENCES = (
    ReferencePolicy(
        "chance",
        "a uniform guess among each question's choices: macro-F1 of the expected counts",
        lambda samples: _policy(
            samples, lambda s: [(_label(s.input, c), 1 / len(s.input["choices"])) for c in s.input["choices"]]
        ),
        kind="chance",
        none_reason="no question with a gold label among its choices",
    ),
    ReferencePolicy(
        "best constant",
        "answers every question of a type with its most frequent gold label (a fine-location answer: always the "
        "original or always the new place), fitted on the evaluated items (optimistic)",
        _constant,
        kind="constant",
        optimistic=True,
        none_reason="no question with a gold label",
    ),
    ReferencePolicy(
        "oracle",
        "answers every question with its gold",
        lambda samples: _policy(samples, lambda s: [(_label(s.input, s.input["answer"]), 1.0)]),
        kind="oracle",
        none_reason="no question with a gold label",
    ),
)
"""The reference policies on the headline's scale, each scored on the questions the run counts (a tracker's
covered ones)."""


_RELEASE = Release(
    "the release evaluator's rules: yes/no alone, the place with more word overlap, the first label phrase found",
    lambda reply, sample: release_reading(reply, OpenToMBenchmark.question(sample)),
    "it reads its own phrases (``emptier`` for ``less full``), which settle a reply mindloop's reader leaves unread",
    decides=True,
)
"""How the release's evaluator reads a reply: kept beside, and it settles a reply the choice reader cannot read."""


def _drawn(data: str, options: OpenToMOptions) -> list[dict[str, Any]]:
    """The questions of ``--data``, file by file in the paper's order (long stories after the others), or the
    release's draw (``protocol=release``), each with its sample id and batch."""
    questions = read_opentom(data, split=options.split, fine_labels=options.fine_labels)
    drawn = release_sample(questions) if options.protocol == "release" else [(None, q) for q in questions]
    return [{"id": q.key + (f"@{batch}" if batch else ""), "batch": batch, "q": q} for batch, q in drawn]


def _input(item: dict[str, Any], options: OpenToMOptions) -> dict[str, Any]:
    """A question as the sample's input (:meth:`OpenToMBenchmark.question` reads it back)."""
    q, s = item["q"], item["q"].story
    return {
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
        "plot_info": _info(s),
        "observed": s.observed,
        "split": s.split,
        "batch": item["batch"],
    }


async def _symbolic(sample: Sample, ctx: AgentContext) -> Outcome:
    answer, why = track_answer(OpenToMBenchmark.question(sample))
    return not_covered(why) if answer is None else covered(answer)


OPENTOM = ChoiceSet(
    name="opentom",
    description="OpenToM location/multihop/attitude questions, macro-F1 per paper column (--data opentom_data/)",
    data="OpenToM's data/opentom_data folder",
    load=_drawn,
    prepare=_input,
    fields=Fields(id="{id}", group="{type}"),
    prompt=Prompt(system=_SYSTEM, user=lambda sample: release_prompt(OpenToMBenchmark.question(sample)), labels=""),
    release=_RELEASE,
    # asked once, as the release asks: a format retry would send a second request the release never sends
    format_retry=False,
    options=OpenToMOptions,
    agents={"symbolic": AgentSpec("the belief tracker reads the plot; location and fullness only", _symbolic)},
    model="a chat model answers from the narrative",
)
"""OpenToM as a choice set: its files, sample input, the release's prompt and reading, and agents; its spec
(macro-F1) and summary are its class's own."""


class OpenToMBenchmark(ChoiceBenchmark):
    """OpenToM's location, multihop and attitude questions on its narratives."""

    choice_set = OPENTOM
    # the headline: the paper's metric, macro-F1 per column of its table (unread replies left out, as the release
    # does, and counted apart), averaged over the columns; accuracy (an unread reply wrong) beside it
    spec = BenchmarkSpec(
        headline=Headline("macro_f1"),
        references=_REFERENCES,
        metrics=choice_metrics(_GROUPINGS, _RELEASE),
        resampled=(*COVERED_RESAMPLED, "macro_f1", "unreadable", "by_type", "by_genre"),
        # reference values: on the accuracy scale, and the headline's floors on the questions whose reply was read
        no_intervals=("chance", "best_constant_accuracy", "references_read"),
        suite=RELEASE_SUITE,
        small=SmallRun(n=8, agent="symbolic", data="opentom"),
        checked_against="released file",
        scorer=score_choice,
    )

    def _target(self, inp: dict[str, Any], choices: list[str]) -> Any:
        """The gold as one of the question's choices: a fine-location gold as the place it names (compared as the
        evaluator compares places), a label ignoring case."""
        if str(inp["type"]).startswith("fine"):
            return next((place for place in choices if _norm(place) == _norm(inp["answer"])), inp["answer"])
        return super()._target(inp, choices)

    @staticmethod
    def question(sample: Sample) -> OpenToMQuestion:
        """The question a sample holds, rebuilt from its input."""
        inp = sample.input
        info = _cast(inp["plot_info"])
        story = OpenToMStory(
            inp["story_id"], inp["split"], tuple(inp["plot"]), *info, inp["observed"], inp["narrative"]
        )
        chain = None if inp["chain"] is None else tuple(inp["chain"])
        return OpenToMQuestion(story, inp["file"], inp["index"], inp["question"], inp["answer"], inp["type"], chain)

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """What the declared accuracy (overall, per type and per paper genre) cannot say: each row's macro-F1 (the
        paper's metric: an unread reply left out; with ``protocol=release`` per batch and averaged) and its unread
        share, the headline (the mean of the genres' macro-F1) and, when some reply was unread, its reference
        policies on the read questions alone (``references_read``), chance and the best constant's accuracy on the
        questions that count, unread replies, the tracker's counts."""
        out = choice_summary(records, _GROUPINGS)
        for grouping in _GROUPINGS:
            chances = out[grouping.key]
            out[grouping.key] = {
                t: {**chances.get(t, {}), **_f1_row(rs)} for t, rs in counted_rows(records, grouping).items()
            }
        genres = [row["macro_f1"] for row in out["by_genre"].values() if row["macro_f1"] is not None]
        out["macro_f1"] = mean(genres) if genres else None
        kept = counted(records)
        if kept and not any("covered" in r.scores for r in records):
            read = [r.sample for r in kept if _label(r.sample.input, (r.output or {}).get("answer")) is not None]
            out["unreadable"] = (len(kept) - len(read)) / len(kept)
            if len(read) < len(kept):  # the headline's macro-F1 is over the read replies: its floors are too
                out["references_read"] = {p.name: p.value(read) for p in _REFERENCES}
        out["best_constant_accuracy"] = best_constant_policy().value([r.sample for r in kept])
        return out

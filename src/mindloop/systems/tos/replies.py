"""Reading a chat model's Theory-of-Space replies as models really write them, and refusing what cannot be read.

Every reply is asked for as ``THINK: ... FINAL ANSWER: ...``. The readers here take the *answer slot* (the text
after a ``FINAL ANSWER`` cue) and read one kind of value from it:

* :func:`read_actions` an action list (``Actions: [Rotate(90), Observe()]``; whether it follows the grammar is the
  environment's to judge);
* :func:`read_map` a cognitive map (JSON);
* :func:`read_fog` the labels an uncertainty probe selects;
* :func:`read_answer` the answer to one of the nine downstream questions.

The answer slot is found by :func:`mindloop.models.replies.answer_slots` (re-exported here). What they accept
(the cases seen in real replies of small models, kept in ``tests/tos/data/real_replies.jsonl``):
the cue with or without a colon, in any case, under a markdown header (``### FINAL ANSWER``) or in emphasis
(``**Final Answer:**``), the answer on the same line or on the lines after it; markdown residue around the answer
(``** front, near``, backticks, quotes, a final period); prose around it (``The lamp is front-left, near.``). A
reply with no cue is read as a whole unless it has a ``THINK`` part (then the answer is missing). Names are matched
whole (longest first, so ``red door`` is not ``door``); labels likewise (``front-left`` is not ``front``).

What they refuse, with a :class:`~mindloop.errors.ParseError` whose reason is one line (it goes back to the model
with :func:`mindloop.models.replies.ask`): no answer at all, a copy of the format's placeholder
(``[Your answer]``, ``Actions: [ ... ]``), and an *ambiguous* reply: two different answers (two action lists, two
directions, two coordinates where one is asked for). A reader never guesses between two answers.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mindloop.errors import ParseError
from mindloop.models.replies import THINK_LINE, answer_slot, answer_slots, slot_text
from mindloop.systems.tos.metrics import CogMap, extract_json, norm_name, parse_cognitive_map
from mindloop.systems.tos.world.geometry import LABEL_SPELLINGS, Vec

__all__ = [
    "RELATION_TASKS",
    "answer_slot",
    "answer_slots",
    "read_actions",
    "read_answer",
    "read_fog",
    "read_map",
]

RELATION_TASKS = ("direction", "persp.take", "act2view", "loc2view")
"""Tasks answered with ``<direction>, <distance>``."""

_PLACEHOLDER = re.compile(
    r"^(?:\[\s*(?:your|the)\b[^\]\n]*\]|your (?:final )?answer|your thoughts(?: on [^\n]*)?|\[\s*(?:\.\.\.|…)?\s*\])$",
    re.IGNORECASE,
)
"""A slot that only repeats a format placeholder: ``[Your answer]``, ``Your final answer``, ``[ ... ]``."""


def _candidates(reply: str, what: str) -> list[str]:
    """The answer slots to read, most specific first: every non-empty, non-placeholder slot; the whole reply when
    it has no cue and no ``THINK`` part. Refuses a reply that thinks but never answers."""
    slots = answer_slots(reply)
    if slots is None:
        if THINK_LINE.search(reply):
            raise ParseError(f"no FINAL ANSWER line after THINK: give the {what} after FINAL ANSWER:", text=reply[:200])
        whole = slot_text(reply)
        if not whole:
            raise ParseError("the reply is empty", text=reply[:200])
        return [whole]
    filled = [s for s in slots if s]
    if not filled:
        raise ParseError(f"nothing after FINAL ANSWER: give the {what} after it", text=reply[:200])
    real = [s for s in filled if not _PLACEHOLDER.match(s.strip())]
    if not real:
        raise ParseError(
            f"the reply copies the format's placeholder ({filled[-1][:40]}) instead of giving the {what}",
            text=reply[:200],
        )
    return real


def _one(values: Sequence[str], what: str, reply: str | None = None) -> str:
    """The single distinct value of ``values`` (not empty), or a refusal naming the first two different ones:
    ``two different {what}s: a and b`` with the ``reply`` quoted, or without one (a value read from one answer
    slot) ``two different {what}s in the answer: a and b``."""
    distinct = list(dict.fromkeys(values))
    if len(distinct) > 1:
        where, text = (": ", reply[:200]) if reply is not None else (" in the answer: ", None)
        raise ParseError(f"two different {what}s{where}{distinct[0]} and {distinct[1]}", text=text)
    return distinct[0]


# ==== actions ==================================================================================================
_ACTION_NAMES = {"jumpto": "JumpTo", "rotate": "Rotate", "observe": "Observe", "query": "Query", "term": "Term"}
_CALL = re.compile(r"\b(jump[ _]?to|rotate|observe|query|term)\s*\(([^()]*)\)", re.IGNORECASE)
_BARE_FINAL = re.compile(r"(?<![\w(])(observe|term)(?![\w(])", re.IGNORECASE)
_LIST = re.compile(r"\[([^\[\]]*)\]")


def _norm_call(name: str, arg: str) -> str:
    canon = _ACTION_NAMES.get(re.sub(r"[ _]", "", name.lower()))
    if canon is None:  # not an action: kept as written, so the environment can say why it is unknown
        return f"{name.strip()}({arg.strip()})"
    arg = arg.strip()
    if canon == "Term":
        m = re.match(r"""^changes\s*[=:]\s*["']?(.*?)["']?\s*$""", arg, flags=re.DOTALL)
        return f'Term(changes="{m.group(1).strip()}")' if m else f"Term({arg})"
    arg = arg.strip("\"'` ").replace("°", "").strip()
    if canon == "Rotate":
        arg = re.sub(r"\s*(?:deg(?:rees?)?)$", "", arg, flags=re.IGNORECASE).lstrip("+").strip()
    return f"{canon}({arg})"


_ANY_CALL = re.compile(r"([A-Za-z_]+(?:[ _][Tt]o)?)\s*\(([^()]*)\)")


def _list_calls(body: str) -> list[str]:
    """The calls of one bracketed list in the order written: known actions normalised (``rotate(90°)`` ->
    ``Rotate(90)``, ``Observe`` -> ``Observe()``), any other call kept as written so the environment can say
    why it is unknown."""
    out: list[tuple[int, str]] = []
    covered: list[tuple[int, int]] = []
    for m in _ANY_CALL.finditer(body):
        out.append((m.start(), _norm_call(m.group(1), m.group(2))))
        covered.append((m.start(), m.end()))
    for m in _BARE_FINAL.finditer(body):
        if not any(a <= m.start() < b for a, b in covered):
            out.append((m.start(), f"{_ACTION_NAMES[m.group(1).lower()]}()"))
    return [c for _, c in sorted(out)]


def _action_list(slot: str) -> str | None:
    """The one action list in a slot as ``Actions: [...]`` text, or ``None`` when it holds none; two different
    lists raise."""
    lists = [calls for m in _LIST.finditer(slot) if (calls := _list_calls(m.group(1)))]
    # none: ``FINAL ANSWER: Rotate(90), Observe()`` without brackets, known actions only
    lists = lists or [[_norm_call(n, a) for n, a in _CALL.findall(slot)]]
    if not lists[0]:
        return None
    return _one(["Actions: [" + ", ".join(calls) + "]" for calls in lists], "action list", slot)


def read_actions(reply: str) -> str:
    """The action list of an exploration reply, as ``Actions: [...]`` text with the known actions normalised.

    This reads what the model chose; whether the list follows the grammar is the environment's to judge (a list
    outside it is an invalid step, as in the paper's protocol, not an unreadable reply), so ``Actions:
    [Observe(), Term()]`` is read as written. Refused: no list, the format's placeholder, two different lists.

    >>> read_actions("THINK: look\\n**FINAL ANSWER:** `Actions: [rotate(90°), Observe]`")
    'Actions: [Rotate(90), Observe()]'
    >>> try:
    ...     read_actions("FINAL ANSWER:\\nActions: [ ... ]")
    ... except ParseError as exc:
    ...     print(exc.reason)
    the reply copies the format's placeholder (Actions: [ ... ]) instead of giving the action list
    """
    slots = _candidates(reply, "action list")
    found = [got for slot in slots if not _is_action_placeholder(slot) and (got := _action_list(slot)) is not None]
    if not found:
        if all(_is_action_placeholder(s) for s in slots):
            raise ParseError(
                "the reply copies the format's placeholder (Actions: [ ... ]) instead of giving the action list",
                text=reply[:200],
            )
        raise ParseError("no action list: write FINAL ANSWER: Actions: [ ... ] with real actions", text=reply[:200])
    return _one(found, "action list", reply)


def _is_action_placeholder(slot: str) -> bool:
    return bool(
        re.fullmatch(
            r"(?:actions\s*:\s*)?\[\s*(?:\.\.\.|…)?\s*\](?:\s*\(or Actions: \[Term\(\)\] to finish\))?",
            slot.strip(),
            re.I,
        )
    )


# ==== cognitive maps and the uncertainty probe ================================================================
def _loads(text: str) -> Any | None:
    """JSON as models write it: strict first, then with comments and trailing commas removed, then Python
    literals (single quotes, ``True``)."""
    data = extract_json(text)
    if data is not None:
        return data
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    body = text[start : end + 1]
    body = re.sub(r"//[^\n]*", "", body)
    body = re.sub(r",\s*([}\]])", r"\1", body)
    for attempt in (body, body.replace("'", '"')):
        try:
            return json.loads(attempt)
        except json.JSONDecodeError:
            pass
    try:
        return ast.literal_eval(body)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def read_map(reply: str, *, names: Iterable[str] | None = None, local_heading: Vec | None = None) -> CogMap:
    """The cognitive map of a probe reply: the JSON object after FINAL ANSWER (else the reply's only JSON map).

    Items outside ``names`` are dropped (an empty map is a readable answer: the model placed nothing known);
    a reply with no JSON object is refused.
    """
    names = list(names) if names is not None else None
    try:
        slots = _candidates(reply, "JSON map")
    except ParseError:
        slots = []
    maps = [d for d in map(_loads, slots) if isinstance(d, Mapping)]
    maps = maps or [d for d in [_loads(reply)] if isinstance(d, Mapping)]
    if not maps:
        if "{" in reply and reply.count("{") > reply.count("}"):
            raise ParseError("the JSON map is cut off (unbalanced braces): give the whole map", text=reply[:200])
        raise ParseError("no JSON object in the reply: give the map as JSON after FINAL ANSWER:", text=reply[:200])
    parsed = [parse_cognitive_map(m, names=names, local_heading=local_heading) or {} for m in maps]
    distinct = {json.dumps(sorted((k, v.pos, v.facing) for k, v in p.items())) for p in parsed}
    if len(distinct) > 1:
        raise ParseError("two different JSON maps after FINAL ANSWER", text=reply[:200])
    return parsed[-1]


_LABELS = re.compile(r"(?<![A-Za-z])([A-Z])(?![A-Za-z])")


def read_fog(reply: str, n_candidates: int) -> list[str]:
    """The labels (``A``, ``B``, ...) an uncertainty-probe reply selects as unexplored, in the order given.

    Read from ``{"unexplored": [...]}`` after FINAL ANSWER, or a bare list of labels there (``A, C``, ``[A, C]``);
    an empty list is a readable answer (nothing unexplored). A label beyond the candidates is refused.
    """
    found: list[list[str]] = []
    for slot in _candidates(reply, "labels"):
        data = _loads(slot) if "{" in slot else None
        if isinstance(data, Mapping):
            key = next((k for k in ("unexplored", "points", "candidates", "labels") if k in data), None)
            if key is None:
                raise ParseError("the JSON has no 'unexplored' list", text=reply[:200])
            value = data[key]
            items = value if isinstance(value, list) else [value] if isinstance(value, str) else None
            if items is None:
                raise ParseError("'unexplored' is not a list of labels", text=reply[:200])
            labels = [str(x).strip().strip("\"'").upper() for x in items]
            if any(not re.fullmatch(r"[A-Z]", x) for x in labels):
                raise ParseError(f"'unexplored' holds something other than labels: {items!r:.60}", text=reply[:200])
            found.append(labels)
            continue
        bare = slot.strip().strip("[]{}()").strip()
        if bare.lower() in ("", "none", "nothing", "no labels"):
            found.append([])
            continue
        tokens = [t for t in re.split(r"\s*(?:,|;|\band\b|\s)\s*", bare) if t]
        if re.fullmatch(r"(?:[A-Za-z](?:\s*(?:,|;|and|\s)\s*)?)+", bare) and all(len(t) == 1 for t in tokens):
            found.append([t.upper() for t in tokens])
            continue
        raise ParseError('no labels: give {"unexplored": [...]} after FINAL ANSWER:', text=reply[:200])
    keyed = [",".join(dict.fromkeys(f)) for f in found]
    labels = list(dict.fromkeys(_one(keyed, "label list", reply).split(","))) if keyed else []
    labels = [x for x in labels if x]
    top = chr(ord("A") + n_candidates - 1)
    if any(ord(x) - ord("A") >= n_candidates for x in labels):
        raise ParseError(f"a label beyond the candidates A-{top}: {', '.join(labels)}", text=reply[:200])
    return labels


# ==== downstream answers =======================================================================================
def _label_pattern(variants: Mapping[str, Sequence[str]]) -> tuple[re.Pattern[str], dict[str, str]]:
    lookup: dict[str, str] = {}
    for canon, vs in variants.items():
        for v in (canon, *vs):
            lookup[re.sub(r"[\s_-]+", " ", v.lower())] = canon
    return _whole(lookup, r"[\s_-]*", "[A-Za-z0-9-]"), lookup


def _whole(phrases: Iterable[str], gap: str, edge: str) -> re.Pattern[str]:
    """Any of ``phrases`` as a whole, longest first, in any case: its words joined by ``gap``, no ``edge``
    character on either side."""
    body = "|".join(gap.join(re.escape(w) for w in a.split()) for a in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"(?<!{edge})(?:{body})(?!{edge})", re.IGNORECASE)


_DIR_RE, _DIR_LOOKUP = _label_pattern(LABEL_SPELLINGS.directions)
_DIST_RE, _DIST_LOOKUP = _label_pattern(LABEL_SPELLINGS.distances)
_BOTH_RE, _ = _label_pattern({**LABEL_SPELLINGS.directions, **LABEL_SPELLINGS.distances})
_SHORT = {"ne", "nw", "se", "sw"}


def _labels_in(text: str) -> tuple[list[str], list[str]]:
    """Direction and distance labels in ``text``, in order (one left-to-right scan, longest label first)."""
    dirs, dists = [], []
    for m in _BOTH_RE.finditer(text):
        key = re.sub(r"[\s_-]+", " ", m.group(0).lower())
        if key in _SHORT and m.group(0) != m.group(0).upper():  # "ne" in prose is not a direction
            continue
        if key in _DIST_LOOKUP:
            dists.append(_DIST_LOOKUP[key])
        else:
            dirs.append(_DIR_LOOKUP[key])
    return dirs, dists


def _leading_relation(line: str) -> str | None:
    """``<direction>, <distance>`` written first on a line (either order), whatever prose follows it."""
    found = []
    pos = 0
    for m in _BOTH_RE.finditer(line):
        if line[pos : m.start()].strip(" ,;/:*`'\"(").lower() not in ("", "and", "at", "is", "it is", "the answer is"):
            break
        found.append(re.sub(r"[\s_-]+", " ", m.group(0).lower()))
        pos = m.end()
        if len(found) == 2:
            break
    if len(found) != 2:
        return None
    kinds = [k in _DIST_LOOKUP for k in found]
    if kinds == [False, True]:
        return f"{_DIR_LOOKUP[found[0]]}, {_DIST_LOOKUP[found[1]]}"
    if kinds == [True, False]:
        return f"{_DIR_LOOKUP[found[1]]}, {_DIST_LOOKUP[found[0]]}"
    return None


def _read_relation(slot: str) -> str:
    first = slot.splitlines()[0] if slot else ""
    lead = _leading_relation(first)
    if lead is not None:
        return lead
    for text in (first, slot):
        dirs, dists = _labels_in(text)
        if dirs and dists and len(set(dirs)) == 1 and len(set(dists)) == 1:
            return f"{dirs[0]}, {dists[0]}"
    dirs, dists = _labels_in(slot)
    for labels, what in ((dirs, "direction"), (dists, "distance")):
        if labels:
            _one(labels, what)
    # one part alone (``north-west``): the model's incomplete answer, one hyphenated token so the scorer reads it
    # as one part (and gives it 0, as the reference's scorer does), not as two words
    for labels in (dirs, dists):
        if labels:
            return labels[0].replace(" ", "-")
    raise ParseError("no direction or distance label in the answer (e.g. front-left, near)")


def _names_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    alts = {key for n in names if (key := norm_name(n))}
    return _whole(alts, r"[\s_]+", "[A-Za-z0-9]") if alts else None


def _names_in(text: str, names: Sequence[str]) -> list[str]:
    pat = _names_pattern(names)
    return [] if pat is None else [_scene_name(m.group(0), names) for m in pat.finditer(text)]


_FORMAT_SLOT = re.compile(
    r"<(?:[a-z_ ]*(?:direction|distance|object_name\d*|name|move actions)[a-z_ ]*|x|y)>", re.IGNORECASE
)
"""A placeholder of the questions' ``Answer format:`` lines (``<ego direction>``, ``<object_name1>``)."""

_NAME_LIKE = re.compile(r"[A-Za-z][A-Za-z_' -]{0,40}")


def _bare_names(slot: str) -> list[str] | None:
    """The items of a slot that is nothing but object names (``lamp``, ``mug, sofa and plant``, ``[a, b]``), in
    order, or ``None`` when it holds anything else (a sentence, numbers)."""
    body = slot.strip().strip("[]()").strip()
    if "\n" in body or re.search(r"\bor\b", body, flags=re.IGNORECASE):  # ``lamp or chair`` is no single answer
        return None
    items = [t.strip().strip("\"'`*").strip() for t in re.split(r"\s*(?:,|;|->|→|\band then\b|\band\b)\s*", body)]
    items = [t for t in items if t]
    if not items or not all(_NAME_LIKE.fullmatch(t) and len(t.split()) <= 3 for t in items):
        return None
    return items


def _scene_name(item: str, names: Sequence[str]) -> str:
    """A name a reply writes as the scene spells it: the scene's name written the same (in any case and spacing),
    else the one it is with underscores as spaces (``red_door`` -> ``red door``, ``fire extinguisher`` ->
    ``fire_extinguisher``), else the item in lower case with underscores as spaces."""
    for fold in (_spaced, norm_name):
        key = fold(item)
        found = next((n for n in names if fold(n) == key), None)
        if found is not None:
            return found
    return norm_name(item)


def _spaced(name: str) -> str:
    return " ".join(name.lower().split())


_PAIR = re.compile(r"[(\[]\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*[)\]]")


def _fmt(x: str) -> str:
    v = float(x)
    return str(int(v)) if v.is_integer() else str(v)


def read_answer(task: str, reply: str, *, names: Sequence[str] = ()) -> str:
    """The answer to a downstream question of ``task``, as the text the scorer reads.

    Relation tasks give ``<direction>, <distance>`` (labels in the environment's spelling); ``perc.dec`` one
    object name (``names``: the scene's objects and doors); ``ment.rot`` the names in the order written;
    ``alloc.map`` ``(x, y); (x, y)``; ``view2loc`` one ``(x, y)``; ``view2act`` the move actions
    (``JumpTo(lamp), Rotate(90)``).

    >>> read_answer("direction", "THINK: ...\\nFINAL ANSWER\\n**The sofa is North-West of the lamp, near.**")
    'north west, near'
    """
    errors = []
    values = []
    try:
        slots = _candidates(reply, "answer")
    except ParseError:
        block = _lone_action_block(reply) if task == "view2act" else None
        if block is None:
            raise
        slots = [block]  # thought aloud, never cued: the one sequence the reasoning states is its answer
    for slot in slots:
        slots = _FORMAT_SLOT.findall(slot)
        if slots:
            errors.append(ParseError(f"the reply copies the answer format's {slots[0]} instead of giving the answer"))
            continue
        try:
            values.append(_read_task(task, slot, names))
        except ParseError as exc:
            errors.append(exc)
    if not values:
        err = errors[-1]
        raise ParseError(err.reason or str(err), text=reply[:200])
    return _one(values, "answer", reply)


def _lone_action_block(reply: str) -> str | None:
    """The lines of a reply with no ``FINAL ANSWER`` that hold move actions, when they form one unbroken block
    (``1. JumpTo(fridge)`` / ``2. Rotate(90)`` ...): the one sequence the reasoning states. ``None`` when no line,
    or lines in two places, hold actions: then the reply has no answer a reader could pick without guessing."""
    lines = reply.splitlines()
    hits = [i for i, line in enumerate(lines) if _CALL.search(line)]
    if not hits or hits[-1] - hits[0] != len(hits) - 1:
        return None
    return "\n".join(lines[hits[0] : hits[-1] + 1])


def _read_task(task: str, slot: str, names: Sequence[str]) -> str:
    if task in RELATION_TASKS:
        return _read_relation(slot)
    if task in ("perc.dec", "ment.rot"):  # one object (``perc.dec``) or a list of them in order (``ment.rot``)
        one = task == "perc.dec"
        bare = _bare_names(slot)
        # ``lamp``, ``red_door`` or ``mug, sofa, plant``: the model's names as written, in the scene or not
        if bare is not None and (len(bare) == 1 or not one):
            return ", ".join(_scene_name(b, names) for b in bare)
        found = _names_in(slot, names)
        if not found:
            raise ParseError(f"no object name{'' if one else 's'} from the scene in the answer")
        return _one(found, "object") if one else ", ".join(found)
    if task in ("alloc.map", "view2loc"):  # a list of coordinates (``alloc.map``) or one (``view2loc``)
        one = task == "view2loc"
        pairs = [f"({_fmt(x)}, {_fmt(y)})" for x, y in _PAIR.findall(slot)]
        if not pairs:
            raise ParseError(f"no coordinate{'' if one else 's'} (x, y) in the answer")
        return _one(pairs, "coordinate") if one else "; ".join(pairs)
    if task == "view2act":
        calls = [_norm_call(n, a) for n, a in _CALL.findall(slot)]
        if not calls:
            raise ParseError("no move actions (JumpTo(OBJ), Rotate(DEG)) in the answer")
        return ", ".join(calls)  # as written: a Term() or Observe() in it is the model's (wrong) answer
    raise ParseError(f"unknown task {task!r}")

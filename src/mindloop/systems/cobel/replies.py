"""How the model-driven CoBel agent reads the replies to the paper's prompts (Fig. 5–15).

Each reader takes the reply's text and returns what it says, or raises :class:`~mindloop.errors.ParseError` with a
one-line reason (which :func:`mindloop.models.replies.ask` sends back to the model for a format retry). They read
what models really write, not only the paper's bare ``label:`` lines:

* a section label at the start of a line, in any case, with markdown around it (``**Plan 1**:``, ``### Plan 1``,
  ``- plan1 -``, ``1. **Answer:**``), followed by a colon, a dash, or the end of the line (the content then
  starts on the next line); or a label inside a line when a colon follows it (``reasons: far. answer: B``);
* ``Plan 1`` / ``plan1`` / ``Plan #1``, ``Zero-order beliefs`` / ``zero order belief``, ``Final answer``;
* yes/no answers with punctuation and emphasis (``Yes.``, ``**No**``, ``NO``, ``No, there is no conflict``);
* an action named by its letter (``B``, ``(B)``, ``Option B``, ``**B.**``), by its text with extra words or
  quotes around it (``I will grab '<apple>(12)'``), or by its target alone when only one listed action has it;
* belief lines with bullets, numbering, backticks or a trailing full stop.

They stay strict where a reply is ambiguous: two different actions, a letter that disagrees with the action text,
both ``Yes`` and ``No``, ``SUBPLAN DONE`` and an action at once; a label with no content; a placeholder copied from
the prompt (``<room>(id)``) is no entity. Whole names are matched, longest first: ``<plate>(1)`` is not inside
``<plate>(12)``, and ``grab <apple>(3)`` is one action, not ``<apple>(3)`` twice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import RootModel

from mindloop.beliefs.views.sbl import SblIssue, SblStatement, parse_lenient
from mindloop.datafiles import load_package_data
from mindloop.errors import ParseError
from mindloop.models.replies import strip_markup
from mindloop.systems.cobel.mind import Intent

__all__ = [
    "LABELS",
    "ActionChoice",
    "Answer",
    "BeliefUpdate",
    "Collaboration",
    "RuleReply",
    "Section",
    "find_sections",
    "parse_plan",
    "read_action",
    "read_belief_update",
    "read_collaboration",
    "read_message",
    "read_plan",
    "read_predictions",
    "read_review",
    "read_rules",
    "read_words",
    "read_yes_no",
    "section",
]


class _LabelsFile(RootModel[dict[str, str]]):
    """``data/labels.yaml``: each section label's key and its pattern."""


LABELS: Mapping[str, str] = load_package_data(_LabelsFile, "mindloop.systems.cobel", "labels.yaml").root
"""Each section label the prompts ask for, as a pattern (case-insensitive)."""

_MD = "[*_`~]*"
_LINE_PREFIX = r"^[ \t>]*(?:(?:[-*+•]|\d+[.)]|#+)[ \t]*)*"


@dataclass(frozen=True)
class Section:
    """One labelled part of a reply: its label's key, where it starts, and its text (stripped)."""

    key: str
    start: int
    text: str


def _label_regex(keys: Sequence[str], extra: Mapping[str, str]) -> re.Pattern[str]:
    patterns = {**{k: LABELS[k] for k in keys if k in LABELS}, **extra}
    # longer labels first: "plans" before "plan", "zero order belief rules" before "zero order beliefs"
    alts = "|".join(f"(?P<{k}>{p})" for k, p in sorted(patterns.items(), key=lambda kv: -len(kv[1])))
    tail = rf"(?![A-Za-z0-9]){_MD}[ \t]*{_MD}"
    # at the start of a line: a colon, a dash, or the end of the line; inside a line: a colon
    sep = r"(?(linestart)(?:[:：]|[ \t]+[-–—][ \t]|[ \t]*[-–—]?[ \t]*(?=\n|$))|[:：])"
    return re.compile(rf"(?im)(?:(?P<linestart>{_LINE_PREFIX})|(?<=[ \t(.;,])){_MD}[ \t]*(?:{alts}){tail}{sep}{_MD}")


def find_sections(text: str, keys: Sequence[str], extra: Mapping[str, str] | None = None) -> list[Section]:
    """Every labelled section of ``text`` whose label is one of ``keys`` (see :data:`LABELS`) or ``extra``
    (``{key: pattern}``), in order; a section runs to the next label.

    >>> [(s.key, s.text) for s in find_sections("**Reasons**: far\\n### Answer\\nYes.", ["reasons", "answer"])]
    [('reasons', 'far'), ('answer', 'Yes.')]
    """
    regex = _label_regex(keys, extra or {})
    found: list[tuple[str, int, int]] = []
    for m in regex.finditer(text):
        key = next((k for k, v in m.groupdict().items() if v is not None and k != "linestart"), None)
        if key is None:  # pragma: no cover - every alternative is a named group
            continue
        found.append((key, m.start(), m.end()))
    out = []
    for i, (key, start, end) in enumerate(found):
        stop = found[i + 1][1] if i + 1 < len(found) else len(text)
        out.append(Section(key, start, _clean(text[end:stop])))
    return out


def section(text: str, key: str, keys: Sequence[str], extra: Mapping[str, str] | None = None) -> str | None:
    """The first non-empty section ``key`` of ``text`` (``""`` when it is there but empty; ``None`` when absent).

    >>> section("plan1: explore <kitchen>(2000)\\n**Plan 2**: grab <apple>(5)", "plan2", ["plan1", "plan2"])
    'grab <apple>(5)'
    """
    found = [s for s in find_sections(text, keys, extra) if s.key == key]
    if not found:
        return None
    return next((s.text for s in found if s.text), "")


def refused(reason: str, text: str, limit: int = 300, *, who: str = "cobel-llm") -> ParseError:
    """The error a reader raises: ``{who}: {reason}``, quoting the first ``limit`` characters of ``text`` (the
    reply, or the answer read in it)."""
    return ParseError(f"{who}: {reason}", text=text[:limit])


def _clean(text: str) -> str:
    """Strip blank space, code fences and emphasis left around a section's text."""
    text = re.sub(r"(?m)^\s*```\w*\s*$", "", text)
    text = text.strip()
    while True:
        new = re.sub(r"^(?:[*_~]{1,3}|`)(?=\S)|(?<=\S)(?:[*_~]{1,3}|`)$", "", text).strip()
        if new == text:
            return text
        text = new


def _flat(text: str) -> str:
    """``text`` without emphasis, quotes and doubled spaces, for matching names in it (``<wicker_basket>``
    keeps its underscore), a step written as a call or with its verb as a label read as a step."""
    text = re.sub(r"[*`~\"“”‘’]|(?<!\w)_+|_+(?!\w)|(?<![A-Za-z])'|'(?![A-Za-z])", " ", text)
    text = _CALL_FORM.sub(r"\1 \2", text)  # <explore>(<livingroom>(1000)): a step written as a call
    text = _LABELLED_STEP.sub(r"\1 ", text)  # "- explore: <livingroom>(1000)": the verb as a label
    return re.sub(r"[ \t]+", " ", text).strip()


_LABELLED_STEP = re.compile(r"\b(explore|grab|deliver|transport|put)\s*:\s*(?=<)", re.IGNORECASE)
_CALL_FORM = re.compile(
    r"<\s*(explore|grab|deliver|transport|put)\s*>\s*\(\s*(<[^<>()]+>\s*\(\s*\d+\s*\))\s*\)", re.IGNORECASE
)


def _none(text: str) -> bool:
    """A section that says there is nothing (``None``, ``N/A``, ``-``, ``(none)``, ``No plan``)."""
    t = re.sub(r"[^a-z/]", " ", text.lower()).split()
    return not t or t in (["none"], ["n/a"], ["na"], ["nothing"], ["no", "plan"], ["no", "plans"], ["nil"])


# ---- plans --------------------------------------------------------------------------------------------------------
_ENTITY = r"<\s*[A-Za-z][A-Za-z0-9_ .\-]*?\s*>\s*\(\s*\d+\s*\)"
_VERB = (
    r"go(?:es)?\s+grasp|go(?:es)?\s+to|grasps?|grabs?|picks?\s+up|explores?(?:\s+current\s+room)?|transports?"
    r"|delivers?|puts?|brings?|moves?\s+to"
)
_STEP = re.compile(
    rf"\b(?P<verb>{_VERB})\b(?P<gap>(?:[ \t]+(?!(?:{_VERB})\b)[^\s<.;:]+){{0,3}}?)[ \t]*(?P<ent>{_ENTITY})",
    re.IGNORECASE,
)
"""A verb (base or third-person form), at most three words that are not another verb nor the end of a sentence,
and the entity it acts on."""
_TO_BED = re.compile(r"(?i)\b(?:transport|drop|carry|bring)s?\b[^\n.;]{0,120}?\b(?:to|on|onto)\s+(?:the\s+)?bed\b")
"""TDW-MAT's transport without an entity: ``transport them to the bed``, ``drops all … on the bed``."""
_VERBS = {
    "grasp": "grab",
    "go grasp": "grab",
    "pick up": "grab",
    "go to": "explore",
    "move to": "explore",
    "explore current room": "explore",
    "bring": "deliver",
}
_MORE = re.compile(rf"\s*(?:,\s*(?:and\s+)?|and\s+|&\s*)(?P<ent>{_ENTITY})", re.IGNORECASE)
"""One more entity of an enumeration after a step (``, <b>(2)``, `` and <c>(3)``)."""


def _base(verb: str) -> str:
    """A step's verb in the agent's words: ``goes grasp`` → ``grab``, ``explores`` → ``explore``."""
    words = verb.lower().split()
    first = "go" if words[0] == "goes" else words[0][:-1] if words[0].endswith("s") else words[0]
    base = " ".join([first, *words[1:]])
    return _VERBS.get(base, base)


def _entity(raw: str) -> str:
    """``< apple > ( 12 )`` → ``<apple>(12)``."""
    m = re.match(r"<\s*(.*?)\s*>\s*\(\s*(\d+)\s*\)", raw)
    assert m is not None
    return f"<{m.group(1).replace(' ', '_').lower()}>({m.group(2)})"


def parse_plan(text: str, *, bed: str | None = None) -> list[Intent]:
    """The atomic steps of a plan in order: ``explore <r>(1)``, ``grab <o>(2)``, ``deliver <t>(3)``,
    ``transport <bed>(4)``, in the paper's wordings too (``go to``, ``go grasp``, ``put``, ``explore current
    room``); a placeholder such as ``<room>(id)`` is no step.

    ``bed`` is TDW-MAT's bed: there ``transport`` always goes to it (``transport them to the bed`` too, as in
    the paper's atomic action, which takes no entity), and ``put`` (an object into a held container) is ``grab``.

    >>> [i.text for i in parse_plan("1) go to <Kitchen>(2000); 2) go grasp **<apple>(1)**, then transport")]
    ['explore <kitchen>(2000)', 'grab <apple>(1)']
    >>> [i.text for i in parse_plan("grab <apple>(1), transport to the bed", bed="<bed>(9)")]
    ['grab <apple>(1)', 'transport <bed>(9)']
    """
    flat = _flat(text)
    found: list[tuple[int, int, Intent]] = []
    for m in _STEP.finditer(flat):
        verb = _base(m.group("verb"))
        if verb == "put":
            verb = "deliver" if bed is None else "grab"
        targets = [m.group("ent")]
        end = m.end()
        while more := _MORE.match(flat, end):  # "grab <a>(1), <b>(2) and <c>(3)": one step each
            targets.append(more.group("ent"))
            end = more.end()
        for raw in targets:
            target = _entity(raw)
            if bed is not None and verb in ("transport", "deliver"):
                found.append((m.start(), end, Intent("transport", bed)))
            else:
                found.append((m.start(), end, Intent(verb, target)))
    if bed is not None:
        for m in _TO_BED.finditer(flat):
            if not any(s <= m.start() < e for s, e, _ in found):
                found.append((m.start(), m.end(), Intent("transport", bed)))
    out: list[Intent] = []
    for _, _, intent in sorted(found, key=lambda f: f[0]):
        if not out or not out[-1].same(intent):  # "Explore <r>(1): go to <r>(1)" is one step
            out.append(intent)
    return out


_PLAN_CUE = re.compile(
    r"(?im)\b(?:best|my|the|final|recommended|next)\s+plan\b[^:\n.]{0,30}:|^[^\n]*\bplan\b[^\n]*:[ \t*]*$"
)


def read_plan(reply: str, prompt: str, *, bed: str | None = None) -> tuple[list[Intent], str]:
    """The ``plan:`` of a Fig. 11 / Fig. 15 reply: its steps (at least one) and its text.

    The first ``plan:`` section that names a step is the plan; without one, the text after a cue in prose (``The
    best plan would be:``, a line ending ``… plan:``)."""
    keys = ("reasoning", "plan", "plans", "plan1", "plan2", "plan3")
    labelled = [s.text for s in find_sections(reply, keys) if s.key == "plan"]
    candidates = [t for t in labelled if t] + [_clean(reply[m.end() :]) for m in _PLAN_CUE.finditer(reply)]
    if not candidates and not labelled:
        raise refused(f"the reply to the {prompt} prompt has no 'plan:' section", reply)
    for plan in candidates:
        steps = parse_plan(plan, bed=bed)
        if steps:
            return steps, plan
    raise refused(f"the {prompt} plan names no action on an entity written as <name>(id)", reply)


_PLANS_CUE = re.compile(r"(?im)^[^\n]*\bplans\b[^\n]*:[ \t*]*$")


def read_predictions(reply: str, *, bed: str | None = None) -> list[list[Intent]]:
    """The partner's three candidate plans of a Fig. 10 reply, most likely first (``plan1:``…``plan3:``, or a
    numbered list under ``plans:`` or under a line that ends a sentence about the plans with a colon, ``the top
    three candidate plans are as follows:``): three lists of steps, empty for a plan that is missing or names no
    usable step; at least one plan must name a step."""
    keys = ("reasoning", "plans", "plan1", "plan2", "plan3", "plan")
    found = find_sections(reply, keys)
    labelled = [s for s in found if s.key in ("plan1", "plan2", "plan3")]
    plans: list[list[Intent]] = []
    if labelled:
        for key in ("plan1", "plan2", "plan3"):
            readings = [parse_plan(s.text, bed=bed) for s in labelled if s.key == key and s.text]
            named = [r for r in readings if r]
            if any(r != named[0] for r in named):
                raise refused(f"the Fig. 10 reply gives two different '{key}:'", reply)
            plans.append(named[0] if named else [])
    else:
        listed = next((s.text for s in found if s.key == "plans" and s.text), None)
        if listed is None:  # a cue in prose: "the top three candidate plans are as follows:" and a numbered list
            cues = list(_PLANS_CUE.finditer(reply))
            listed = reply[cues[-1].end() :] if cues else None
        if listed is None:
            raise refused("the reply to the Fig. 10 prompt has no 'plan1:' section", reply)
        items = re.split(r"(?m)^[ \t]*(?:[-*+•][ \t]*)?\(?[1-3][.):][ \t]*", "\n" + listed)
        if len(items) < 2:
            raise refused("the Fig. 10 'plans:' are neither 'plan1:'... nor a numbered list", reply)
        plans = [parse_plan(item, bed=bed) for item in items[1:4]]
    plans += [[] for _ in range(3 - len(plans))]
    if not any(plans):
        raise refused("the Fig. 10 plans name no action on an entity written as <name>(id)", reply)
    return plans


# ---- yes / no ----------------------------------------------------------------------------------------------------
def read_yes_no(text: str, what: str = "answer") -> bool:
    """``Yes`` → ``True``, ``No`` → ``False``, with punctuation, emphasis and words after the first one; a text
    that says both (``Yes/No``, ``yes or no``) or neither is refused.

    >>> read_yes_no("**No**, the plans do not conflict."), read_yes_no("YES.")
    (False, True)
    """
    words: list[str] = re.findall(r"[a-z]+", text.lower())
    if re.match(r"\W*(yes|no)\W*(?:/|\bor\b)\W*(yes|no)\b", text.lower()):
        raise refused(f"the {what} gives both Yes and No", text, 200)
    if words and words[0] in ("yes", "no"):
        return words[0] == "yes"
    said: set[str] = {w for w in words if w in ("yes", "no")}
    if len(said) == 1:
        return said.pop() == "yes"
    if said:
        raise refused(f"the {what} says both Yes and No", text, 200)
    raise refused(f"the {what} must be Yes or No", text, 200)


@dataclass(frozen=True)
class Collaboration:
    """A Fig. 12 reply: whether the miscoordination matters, and the misaligned information it lists."""

    talk: bool
    misaligned: str


def read_collaboration(reply: str) -> Collaboration:
    """The ``answer:`` (Yes/No) of a Fig. 12 reply and its ``misaligned information:``; a reply that is only
    ``Yes`` or ``No`` (``If there is no heavy miscoordination, just answer NO``) is read too."""
    keys = ("reasons", "answer", "misaligned")
    answer = section(reply, "answer", keys)
    if answer is None:
        if find_sections(reply, keys) or not re.match(r"\W*(yes|no)\b", reply.strip().lower()):
            raise refused("the reply to the Fig. 12 prompt has no 'answer:' section", reply)
        answer = reply
    if not answer:
        raise refused("the Fig. 12 'answer:' is empty (expected Yes or No)", reply)
    talk = read_yes_no(answer, "Fig. 12 answer")
    misaligned = section(reply, "misaligned", keys) or ""
    return Collaboration(talk, "" if _none(misaligned) else misaligned)


# ---- message -----------------------------------------------------------------------------------------------------
def read_message(reply: str) -> str:
    """The ``Message:`` of a Fig. 13 reply, without quotes or emphasis around it; a reply with no label that
    is one short paragraph is the message itself."""
    text = section(reply, "message", ("message",))
    if text is None:
        body = reply.strip()
        if not body or "\n\n" in body or len(body) > 500:
            raise refused("the reply to the Fig. 13 prompt has no 'Message:' line", reply)
        text = body
    text = re.sub(r"\s*\n\s*", " ", _clean(text)).strip()
    if len(text) >= 2 and text[0] in "\"'“" and text[-1] in "\"'”":
        text = text[1:-1].strip()
    if not text:
        raise refused("the Fig. 13 reply has an empty message", reply)
    return text


# ---- actions -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ActionChoice:
    """A Fig. 14 reply: the chosen action (its index in the list), or ``done`` (``SUBPLAN DONE``)."""

    index: int | None
    done: bool = False


Answer = ActionChoice
"""Alias kept for readers that think of it as the Fig. 14 answer."""

_LETTER_CUE = re.compile(r"\b(?i:option|choice|action|letter|answer is|choose|select|pick)\s*[:(]?\s*\(?([A-L])\b\)?")
_LETTER_START = re.compile(r"^\W{0,3}\(?([A-L])(?:[.):\]]|\s+[-–—]|$)")


_CONCLUSION = re.compile(
    r"(?i)\b(?:therefore|thus|hence|in conclusion|in summary|(?:my|the) (?:final )?answer is|final answer)\b[,:]?\s*"
)


_DONE = re.compile(r"(?i)\bsub[\s_-]?plan[\s_-]+(?:is[\s_-]+)?done\b")


def read_action(reply: str, options: Sequence[str]) -> ActionChoice:
    """The action a Fig. 14 reply chooses from ``options`` (listed ``A. …``, ``B. …``), or ``SUBPLAN DONE``.

    The ``answer:`` section is read (the whole reply when it has no labels at all; its concluding sentence,
    ``Therefore, …``, when it has other labels but no answer, or the whole reply when it then says SUBPLAN
    DONE): a letter, an option's text (longest first, so ``explore <kitchen>(20)`` is not read inside
    ``explore <kitchen>(200)``), a step in the plans' wordings
    (``go grasp <apple>(12)``), or the target of one option when it is the only entity the answer names. Two
    different actions, a letter that is not the action named, or an action with ``SUBPLAN DONE`` are refused;
    when a long answer is ambiguous, its concluding sentence decides.

    >>> opts = ["explore <kitchen>(2000)", "grab <apple>(12)"]
    >>> read_action("reasons: near\\n**Answer:** B. grab <apple>(12)", opts)
    ActionChoice(index=1, done=False)
    >>> read_action("answer: I will grab '<apple>(12)'", opts).index
    1
    """
    found = find_sections(reply, ("reasons", "answer"))
    answers = [s.text for s in found if s.key == "answer"]
    if not found:
        answers = [reply]
    elif not answers:
        conclusion = _conclusion(reply)
        if conclusion is None and _DONE.search(reply):  # "Reasons: Subplan DONE. Alice has completed ..."
            conclusion = reply
        if conclusion is None:
            raise refused("the reply to the Fig. 14 prompt has no 'answer:' section", reply)
        answers = [conclusion]
    answers = [a for a in answers if a] or answers
    if not answers[0]:
        raise refused("the Fig. 14 'answer:' is empty", reply)
    choices = {_concluded(a, options) for a in answers}
    if len(choices) > 1:
        raise refused("the Fig. 14 reply gives two different answers", reply)
    return choices.pop()


def _conclusion(text: str) -> str | None:
    """The sentence after the last ``Therefore,`` / ``Thus,`` / ``the answer is`` of ``text``, if any."""
    ends = [m.end() for m in _CONCLUSION.finditer(text)]
    if not ends:
        return None
    rest = text[ends[-1] :]
    return re.split(r"\n\s*\n|(?<=[.!?])\s+(?=[A-Z])", rest, maxsplit=1)[0].strip() or None


def _concluded(answer: str, options: Sequence[str]) -> ActionChoice:
    """:func:`_choice` of ``answer``; when that is ambiguous or empty, of its concluding sentence."""
    try:
        return _choice(answer, options)
    except ParseError:
        conclusion = _conclusion(answer)
        if conclusion is None or conclusion == answer.strip():
            raise
        return _choice(conclusion, options)


def _choice(answer: str, options: Sequence[str]) -> ActionChoice:
    flat = _flat(answer)
    low = flat.lower()
    done = bool(_DONE.search(low))
    picked: set[int] = set()
    # whole option texts, longest first, each span used once
    rest = low
    for k in sorted(range(len(options)), key=lambda k: -len(options[k])):
        pat = re.escape(_flat(options[k]).lower()).replace(r"\ ", r"\s*")
        hit = re.search(rf"(?<![\w>]){pat}(?![\w(])", rest)
        if hit:
            picked.add(k)
            rest = rest[: hit.start()] + " " * (hit.end() - hit.start()) + rest[hit.end() :]
    # a step in the plans' wordings (go grasp, go to, put ...) that is one of the options; several steps are a
    # plan, not the next action
    texts = [o.lower() for o in options]
    steps = {s.text: None for s in parse_plan(rest)}
    if len(steps) > 1:
        raise refused(
            f"the Fig. 14 answer names a plan of {len(steps)} steps ({', '.join(steps)}), not one action", answer, 200
        )
    for text in steps:
        if text in texts:
            picked.add(texts.index(text))
    # a target alone, when it is the only entity the answer names and one option has it
    entities = {_entity(e) for e in re.findall(_ENTITY, low)}
    if not picked and len(entities) == 1:
        name = entities.pop()
        having = [k for k, o in enumerate(texts) if o.endswith(" " + name)]
        if len(having) == 1:
            picked.add(having[0])
        elif len(having) > 1:
            raise refused(f"the Fig. 14 answer names {name} but not which of its {len(having)} actions", answer, 200)
    letters = "ABCDEFGHIJKL"
    cue = _LETTER_START.match(flat) or _LETTER_CUE.search(flat)
    if cue is not None:
        k = letters.index(cue.group(1))
        if k >= len(options):
            raise refused(
                f"the Fig. 14 answer picks {cue.group(1)} but the list ends at {letters[len(options) - 1]}", answer, 200
            )
        if picked and picked != {k}:
            raise refused(f"the Fig. 14 answer's letter {cue.group(1)} is not the action it names", answer, 200)
        picked = {k}
    if done and picked:
        raise refused("the Fig. 14 answer says SUBPLAN DONE and names an action", answer, 200)
    if done:
        return ActionChoice(None, True)
    if len(picked) > 1:
        names = ", ".join(options[k] for k in sorted(picked))
        raise refused(f"the Fig. 14 answer names more than one action ({names})", answer, 200)
    if not picked:
        raise refused(
            "the Fig. 14 answer is not an action from the list (a letter, an action, or SUBPLAN DONE)", answer, 200
        )
    return ActionChoice(picked.pop())


# ---- belief updates ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BeliefUpdate:
    """A Fig. 8 / Fig. 9 reply: the SBL statements read, the lines that were not SBL, and the partner's plan."""

    statements: tuple[SblStatement, ...]
    issues: tuple[SblIssue, ...]
    plan: tuple[Intent, ...] = ()


def _belief_lines(text: str) -> list[str]:
    """Belief lines without bullets, numbering, backticks, emphasis or a trailing full stop, each believer
    written as a name (``<alice> BELIEVE`` -> ``Alice BELIEVE``)."""
    out = []
    for raw in re.split(r"[\n;]|,\s*(?=[A-Z][A-Za-z]*\s+BELIEVE\b)", text):
        line = strip_markup(raw).rstrip(".,")
        # a believer written like an entity without an id (``<alice> BELIEVE``) is still the agent ``Alice``
        line = re.sub(r"<\s*([A-Za-z]+)\s*>(?=\s+BELIEVE\b)", lambda m: m[1].capitalize(), line)
        if line:
            out.append(line)
    return out


def read_belief_update(reply: str, order: str, partner: str | None = None, *, bed: str | None = None) -> BeliefUpdate:
    """The ``Zero order beliefs:`` (``order="zero"``, Fig. 9) or ``First order beliefs:`` (``"first"``, Fig. 8,
    with ``{partner}'s plan:``) of a reply as SBL statements.

    ``None`` (or nothing) under the label means no beliefs; lines that are not SBL are kept as issues; a section
    with lines of which none is SBL is refused (the prompt asks for the belief rules' format only).
    """
    label = "Zero order beliefs" if order == "zero" else "First order beliefs"
    text, plan = _beliefs_and_plan(reply, order, ("extracted", "zero", "first", "plan"), {}, partner, bed)
    if text is None:
        raise refused(f"the reply has no '{label}:' section", reply)
    if _none(text):
        return BeliefUpdate((), (), tuple(plan))
    result = parse_lenient(_belief_lines(text), extend=True)
    if not result.statements:
        raise refused(
            f"no line under '{label}:' is a belief in the rules' format "
            "(e.g. 'Alice BELIEVE <name>(id) IN <room>(id)')",
            reply,
        )
    return BeliefUpdate(result.statements, result.issues, tuple(plan))


def _beliefs_and_plan(
    reply: str, key: str, keys: Sequence[str], extra: dict[str, str], partner: str | None, bed: str | None
) -> tuple[str | None, list[Intent]]:
    """The first non-empty section ``key`` of a belief update (``None`` when there is none) and the plan under
    ``plan:`` or ``{partner}'s plan:`` (empty when it says none)."""
    if partner:
        extra = {**extra, "partner_plan": rf"{re.escape(partner)}['’`]?s[\s_-]+plan"}
    found = find_sections(reply, keys, extra)
    texts = [s.text for s in found if s.key == key]
    plan = next((s.text for s in found if s.key in ("partner_plan", "plan") and s.text and not _none(s.text)), None)
    text = next((t for t in texts if t), "") if texts else None
    return text, parse_plan(plan, bed=bed) if plan else []


def read_words(reply: str, partner: str | None = None, *, bed: str | None = None) -> tuple[str, list[Intent]]:
    """The ``Beliefs:`` sentences of a No-SBR update (and ``{partner}'s plan:`` for the first-order one).

    ``None`` under the label means nothing new; a reply without a ``Beliefs:`` section is refused.
    """
    said, plan = _beliefs_and_plan(reply, "beliefs", ("plan",), {"beliefs": r"beliefs?"}, partner, bed)
    if said is None:
        raise refused("the reply has no 'Beliefs:' section", reply, who="cobel-llm (no SBR)")
    text = re.sub(r"\s*\n\s*", " ", said).strip()
    return ("" if _none(text) else text[:600]), plan


# ---- rule construction (Fig. 5 / Fig. 6) --------------------------------------------------------------------------
@dataclass(frozen=True)
class RuleReply:
    """Alice's reply (Fig. 5): the text under the zero- and first-order rule labels."""

    zero: str
    first: str


def read_rules(reply: str) -> RuleReply:
    """The ``Zero order belief rules:`` and ``First order belief rules:`` of a Fig. 5 reply (both needed)."""
    keys = ("entity_reasoning", "reasoning", "zero_rules", "first_rules")
    zero = section(reply, "zero_rules", keys)
    first = section(reply, "first_rules", keys)
    if zero is None or first is None:
        needs = "the reply needs 'Zero order belief rules:' and 'First order belief rules:'"
        raise refused(needs, reply, who="rule construction")
    return RuleReply("\n".join(_belief_lines(zero)), "\n".join(_belief_lines(first)))


def read_review(reply: str) -> tuple[bool, str]:
    """Bob's verdict (Fig. 6): ``Satisfied:`` yes or no (``Satisfied`` / ``Unsatisfied`` too), and his
    suggestions."""
    keys = ("reasoning", "suggestions", "satisfied")
    verdict = section(reply, "satisfied", keys)
    if verdict is None:
        raise refused("Bob's reply has no 'Satisfied:' line", reply, who="rule construction")
    low = verdict.lower()
    if re.match(r"\W*unsatisfied\b", low):
        satisfied = False
    elif re.match(r"\W*satisfied\b", low):
        satisfied = True
    else:
        satisfied = read_yes_no(verdict, "'Satisfied:' line")
    suggestions = section(reply, "suggestions", keys) or ""
    return satisfied, "" if _none(suggestions) else suggestions

"""An offline reader of MindPower answers written in prose: the six layers into Table 3 atomic actions.

The paper extracts atoms with an LLM (Qwen3-Max and the Fig. 20 prompt; :func:`~mindloop.systems.mindpower.rewards.
extract_atoms_model`). This module does the same job without a model, for the way answers are written in Fig. 15 and
in the paper's examples: English sentences in the present or past tense, one layer per tag. It reads text only —
never a scenario's structured gold — so it scores a model's completion and a gold text alike.

* ``<Perception>``: each sentence is one actor's run of actions ("Alice walks into the kitchen, puts the apple on
  the table, and leaves."; "Then David ..."); each clause becomes a scene atom of C.1's templates
  (``walk(alice, kitchen)``, ``place(alice, apple, to=table)``, ``pick(david, apple, from=table)``,
  ``walk(alice, from=kitchen)``, ``say(alex, jake)``, ``pick(tom, keys, failed)``, ...).
* ``<Belief>``: who is searching for what, where a human thinks an object is (``human_believes``), where it really
  is (``hold_true_belief`` / ``know``), what the robot does not know (``lack_belief``), wants, needs and obstacles.
* ``<Desire>``: ``attribute_desire(robot, assist(human, find|get|...(object)))`` or ``no_assist(human)``.
* ``<Intention>`` / ``<Decision>``: the commitment — ``fetch(object, from=..., to=...)``, ``remind(human, object)``,
  ``switchoff(x)``, ``move(x, to=...)`` or ``wait`` — with arguments the sentence leaves out (where to fetch from)
  read from the answer's own ``<Action>`` line; a decision that corrects a false belief adds
  ``resolve_misbelief(robot, belief_conflict(human, object, believed location))`` from the answer's own belief.
* ``<Action>``: the steps folded into one ``plan_action(robot, step, ...)`` atom, as in the gold.

A layer that already states atoms as calls is read as calls. Names become ids the way the gold spells them:
lower case, articles dropped, spaces as ``_`` (``the kitchen counter`` → ``kitchen_counter``); a longer phrase that
ends in an id the answer uses elsewhere maps to it, and ``lexicon`` maps display names to ids where they differ
(``{"wall cabinet": "kitchen_cabinet"}``; :func:`~mindloop.systems.mindpower.rewards.household_lexicon` gives the
household catalogue's); ``the floor of the kitchen`` is ``kitchen_corner``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mindloop.beliefs.vocab import ROBOT
from mindloop.systems.mindpower.calls import call_atoms, normalize_call, parse_call, plan_atoms, split_calls
from mindloop.systems.mindpower.hierarchy import SETTING_LAYERS, first_layers

_ARTICLES = {"the", "a", "an", "some", "his", "her", "their", "its", "my", "this", "that", "those", "these"}
_NP = r"(?:(?:the|a|an|some|his|her|their|its|my)\s+)?([a-z][a-z0-9'\- ]*?)"
_STOP_NAMES = {
    "I", "The", "Then", "Later", "Finally", "After", "There", "No", "He", "She", "They", "It", "Fetch", "Go",
    "Retrieve", "Bring", "Take", "Give", "Open", "Walk", "Pick", "Correct", "Help", "Move", "Turn", "Tell", "Remind",
    "Next", "First", "Meanwhile", "When", "While", "Now", "Once", "Robot", "Action", "Decision", "Belief", "Desire",
    "Intention", "Perception", "Description", "Input", "Output", "Example", "Alright", "Yes", "Okay", "So", "But",
    "And", "As", "Since", "If", "Because", "We", "You", "Nobody", "Someone", "This", "That", "In", "On", "At",
}  # fmt: skip
_TRAILING = re.compile(r"\s+(?:again|now|there|here|quickly|slowly|too|as well|back|away|down|up)$")
_QUOTE = re.compile(r"[\"“]([^\"”]*)[\"”]")


def _ident(phrase: str) -> str:
    """A phrase as an id: lower case, leading articles and possessives dropped, spaces as ``_``.

    >>> _ident("the Kitchen Counter"), _ident("kids' room"), _ident("Alice's mug")
    ('kitchen_counter', 'kids_room', 'mug')
    """
    return "_".join(w.replace("'", "") for w in _words(phrase) if w)


def _words(phrase: str) -> list[str]:
    """A phrase's words, lower case, leading articles and possessives dropped."""
    words = phrase.strip().lower().replace("’", "'").split()
    while words and (words[0] in _ARTICLES or words[0].endswith("'s")):
        words = words[1:]
    return words


def _longest_tail(text: str, sep: str, names: Container[str]) -> str | None:
    """The longest part of ``text`` after one of its ``sep`` that is one of ``names`` (``None`` when none is): a
    look-up per separator, not a scan of every name (a reader resolves thousands of phrases against a lexicon of
    hundreds)."""
    at = text.find(sep)
    while at >= 0:
        if text[at + 1 :] in names:
            return text[at + 1 :]
        at = text.find(sep, at + 1)
    return None


@dataclass
class _Reader:
    """What one answer names: its humans, its known ids, its plan steps; pronouns resolve to the last human."""

    humans: dict[str, str] = field(default_factory=dict)  # lower-case name -> id
    lexicon: Mapping[str, str] = field(default_factory=dict)  # display name (lower case) -> id
    known: set[str] = field(default_factory=set)
    plan: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    last_human: str | None = None
    last_object: str | None = None
    rooms: dict[str, str] = field(default_factory=dict)  # who -> the room they were last seen enter
    sources: dict[str, str] = field(default_factory=dict)  # item -> where an earlier layer said to fetch it from

    def human(self, word: str) -> str | None:
        w = word.strip().lower()
        if w in ("he", "she", "they", "him", "his", "her", "them", "their"):
            return self.last_human
        hid = self.humans.get(w)
        if hid is not None:
            self.last_human = hid
        return hid

    def place(self, phrase: str) -> str:
        """A place's (or any thing's) id: the lexicon's, else the phrase as an id, shortened to a known id it ends
        with; ``the floor of the kitchen`` is ``kitchen_corner``."""
        p = " ".join(_words(_TRAILING.sub("", phrase.strip().lower().replace("’", "'"))))
        m = re.fullmatch(r"(?:floor|corner)\s+of\s+(?:the\s+)?(.+)", p)
        if m:
            return f"{_ident(m.group(1))}_corner"
        if p in self.lexicon:
            return self.lexicon[p]
        name = _longest_tail(p, " ", self.lexicon)  # a longer phrase ending in a known name
        if name is not None:
            return self.lexicon[name]
        oid = _ident(p)
        if oid and oid not in self.known:
            known = _longest_tail(oid, "_", self.known)
            if known is not None:
                oid = known
        return oid

    def obj(self, phrase: str) -> str:
        if phrase.strip().lower() in ("it", "them"):
            return self.last_object or "it"
        oid = self.place(phrase)
        self.last_object = oid or self.last_object
        return oid

    def source_of(self, item: str) -> str | None:
        """Where the answer's own plan takes ``item`` from: the last place walked to or opened before picking it."""
        last = None
        for verb, args in self.plan:
            if verb in ("walk", "open") and args:
                last = args[0]
            if verb in ("pick", "grab", "take") and args and args[0] == item:
                return last if last != item else None
        return None

    def plan_target(self, verb: str) -> tuple[str, ...] | None:
        for v, args in self.plan:
            if v == verb:
                return args
        return None


def _sentences(text: str) -> list[str]:
    """Sentences, with quoted speech replaced by a placeholder (a quotation ends its sentence)."""
    text = _QUOTE.sub(" QUOTE. ", text)
    parts = re.split(r"(?<=[.!?;])\s+|\n+", text)
    return [p.strip().rstrip(".!?;").strip() for p in parts if p.strip().rstrip(".!?;").strip()]


def _clauses(sentence: str) -> list[str]:
    """A sentence's clauses, split at commas and ``and`` / ``then``; a ``but`` clause stays with the one before."""
    pieces = [
        p.strip() for p in re.split(r",\s*(?:and\s+)?(?:then\s+)?|\s+and\s+then\s+|\s+and\s+|\s+then\s+", sentence)
    ]
    out: list[str] = []
    for p in pieces:
        if not p:
            continue
        if out and re.match(r"(?:but|yet|though|only to)\b", p):
            out[-1] = f"{out[-1]} {p}"
        else:
            out.append(p)
    return out


def _v(*stems: str) -> str:
    """A verb in any tense: ``walk`` → walk, walks, walked, walking (irregular forms given as extra stems)."""
    forms: set[str] = set()
    for s in stems:
        forms |= {s, s + "s", s + "es", s + "ed", s + "d", s + "ing"}
        if s.endswith("e"):
            forms |= {s[:-1] + "ing"}
        if re.search(r"[^aeiou][aeiou][pt]$", s):
            forms |= {s + s[-1] + "ed", s + s[-1] + "ing"}
    return "(?:" + "|".join(sorted(forms, key=len, reverse=True)) + ")"


_WALK = _v(
    "walk", "go", "went", "come", "came", "roll", "return", "head", "wheel", "step", "move", "enter", "run", "ran"
)
_SCENE: list[tuple[re.Pattern[str], str]] = [  # a clause's form, and its atom: a template (see _Slots) or a case
    (re.compile(rf"^{_v('say', 'said', 'ask', 'tell', 'told', 'reply', 'replie', 'mention', 'complain')}\s+(?:to\s+)?"
                r"([a-z]+)\b"), "say"),
    (re.compile(rf"^{_v('reach')}\s+(?:for\s+|out\s+for\s+)?{_NP}(?:\s+(?:on|in|from|at)\s+.*)?\s+but\b"),
     "pick({who}, {o0}, failed)"),
    (re.compile(rf"^{_v('flip', 'press', 'try', 'tried')}\s+(?:to\s+turn\s+on\s+)?(?:the\s+switch\s+of\s+)?{_NP}"
                r"\s+but\s+nothing"), "switchon({who}, {o0}, failed)"),
    (re.compile(rf"^{_v('try', 'tried')}\s+to\s+(?:leave|go|get|pass|move)\b(.*?)\s+but\b"), "walk({who}, failed)"),
    (re.compile(rf"^{_v('move', 'push', 'drag', 'carry', 'carrie')}\s+{_NP}\s+(?:to|into|onto)\s+{_NP}$"),
     "move({who}, {o0}, to={p1})"),
    (re.compile(rf"^{_v('give', 'gave', 'hand', 'pass')}\s+{_NP}\s+to\s+{_NP}$"), "give({who}, {o0}, to={h1})"),
    (re.compile(rf"^(?:leave|leaves|left|leaving|{_v('exit')}|{_WALK}\s+out\s+of)\s+{_NP}$"), "walk({who}, from={p0})"),
    (re.compile(rf"^{_v('put', 'place', 'set', 'drop', 'lay', 'laid', 'putt')}\s+(back\s+|down\s+)?{_NP}\s+(back\s+)?"
                rf"(on\s+top\s+of|onto|on|into|in|inside|at|under|next\s+to|by)\s+{_NP}$"), "put"),
    (re.compile(rf"^{_v('pick')}\s+up\s+{_NP}(?:\s+(?:from|off|out\s+of)\s+{_NP})?$"), "pick({who}, {o0}{f1})"),
    (re.compile(rf"^{_v('pick')}\s+{_NP}\s+up(?:\s+(?:from|off|out\s+of)\s+{_NP})?$"), "pick({who}, {o0}{f1})"),
    (re.compile(rf"^(?:{_v('take', 'grab', 'get', 'fetch', 'retrieve')}|took|got)\s+{_NP}(?:\s+(?:from|off|out\s+of)\s+"
                rf"{_NP})?$"), "pick({who}, {o0}{f1})"),
    (re.compile(rf"^{_v('open')}\s+{_NP}$"), "open({who}, {px})"),
    (re.compile(rf"^{_v('close', 'shut')}\s+{_NP}$"), "close({who}, {px})"),
    (re.compile(rf"^(?:{_v('turn', 'switch')})\s+on\s+{_NP}$|^{_v('light', 'lit')}\s+{_NP}$"
                rf"|^(?:{_v('turn', 'switch')})\s+{_NP}\s+on$"), "switchon({who}, {px})"),
    (re.compile(rf"^(?:{_v('turn', 'switch')})\s+off\s+{_NP}$|^{_v('blow', 'blew')}\s+out\s+{_NP}$"
                rf"|^(?:{_v('turn', 'switch')})\s+{_NP}\s+off$"), "switchoff({who}, {px})"),
    (re.compile(rf"^{_v('turn')}\s+(left|right|around|back)\b"), "turn({who}, {g0})"),
    (re.compile(rf"^{_v('back')}\s+(?:up|away)\b"), "turn({who}, back)"),
    (re.compile(rf"^{_v('look', 'stare', 'glance', 'gaze')}\s+(?:at|toward|towards)\s+{_NP}$"), "lookat({who}, {px})"),
    (re.compile(rf"^(?:{_v('sit')}|sat)\s+(?:down\s+)?(?:on|in|at)\s+{_NP}$"), "sit({who}, {px})"),
    (re.compile(rf"^{_v('stand', 'stood', 'get', 'got')}\s+up\b"), "standup({who})"),
    (re.compile(rf"^(?:{_v('lie', 'lay', 'lain', 'ly')}\s+down\s+(?:on|in)"
        rf"|{_v('sleep', 'slept')}\s+(?:on|in))\s+{_NP}$"),
     "sleep({who}, {px})"),
    (re.compile(rf"^{_v('pour')}\s+{_NP}\s+(?:into|in)\s+{_NP}$"), "pour({who}, {o0}, {o1})"),
    (re.compile(rf"^(?:{_v('drink')}|drank|drunk)\s+{_NP}\s+from\s+{_NP}$"), "drink({who}, {o1})"),
    (re.compile(rf"^(?:{_v('drink')}|drank)\s+{_NP}$"), "drink({who}, {o0})"),
    (re.compile(rf"^{_v('read', 'watch', 'cook', 'cut', 'write', 'wrote', 'eat', 'ate', 'wash', 'clean', 'cutt')}"
                rf"\s+{_NP}(?:\s+with\s+.*)?$"), "verb"),
    (re.compile(rf"^{_v('listen')}\s+to\s+{_NP}$"), "listen({who}, {o0})"),
    (re.compile(rf"^(?:{_WALK})(?:\s+back)?\s+(?:into|in\s+to|inside|to|towards|toward|over\s+to|around|round|"
                rf"about|through|across|in)?\s*{_NP}$"), "walk"),
]  # fmt: skip
_VERB_NAMES = {
    "read": "read", "watch": "watch", "cook": "cook", "cut": "cut", "writ": "write", "wrot": "write", "eat": "eat",
    "ate": "eat", "wash": "wash", "clea": "clean",
}  # fmt: skip


class _Slots(dict[str, str]):
    """A scene template's values, each read when the template names it: ``{who}``, ``{o0}`` (group 0 as an
    object), ``{p1}`` (group 1 as a place), ``{h1}`` (group 1 as a human, else as a place), ``{f1}`` (``, from=``
    group 1 as a place, or nothing when it did not match), ``{g0}`` (as written), ``{px}`` (the first group matched,
    as a place); so objects are read in the template's order (the last one named is what ``it`` refers to)."""

    def __init__(self, r: _Reader, who: str, groups: Sequence[Any]) -> None:
        super().__init__(who=who)
        self.r, self.groups = r, groups

    def __missing__(self, key: str) -> str:
        x = next(v for v in self.groups if v) if key == "px" else self.groups[int(key[1:])]
        if key[0] == "f":
            return f", from={self.r.place(x)}" if x else ""
        read: Callable[[str], str] = {"o": self.r.obj, "p": self.r.place, "h": self._human}.get(key[0], str)
        return read(x)

    def _human(self, word: str) -> str:
        return self.r.human(word) or self.r.place(word)


def _scene_atom(r: _Reader, who: str, clause: str) -> str | None:
    c = clause.strip().lower().rstrip(",")
    for pattern, kind in _SCENE:
        m = pattern.match(c)
        if m is None:
            continue
        g = [x for x in m.groups()]
        if "(" in kind:
            return kind.format_map(_Slots(r, who, g))
        if kind == "say":
            to = r.human(g[0])
            return f"say({who}, {to})" if to else f"say({who})"
        if kind == "put":
            back = bool(g[0] and g[0].startswith("back")) or bool(g[2])
            prep = g[3]
            verb = "putback" if back else ("putin" if prep in ("into", "in", "inside") else "place")
            return f"{verb}({who}, {r.obj(g[1])}, to={r.place(g[4])})"
        if kind == "verb":
            verb = _VERB_NAMES.get(c[:4], _VERB_NAMES.get(c[:3], c.split()[0]))
            return f"{verb}({who}, {r.obj(g[0])})"
        if kind == "walk":
            target = g[0]
            if target in ("back", "around", "about", "in", "away", ""):
                return f"walk({who}, {r.rooms[who]})" if who in r.rooms else f"walk({who})"
            hid = r.human(target) if target else None
            dest = hid or r.place(target)
            if re.search(r"\b(?:into|in\s+to|inside|back\s+to|around|round|about|through|in)\b", c):
                r.rooms[who] = dest
            return f"walk({who}, {dest})"
    return None


_SUBJECT = re.compile(r"^(?:(?:then|later|finally|after\s+that|next|meanwhile|afterwards|first)\s*,?\s+)?"
                      r"(?:(the\s+robot|i)\b|([A-Z][a-z]+)\b)", re.IGNORECASE)  # fmt: skip


def _perception(r: _Reader, text: str) -> list[str]:
    atoms: list[str] = []
    for sentence in _sentences(text):
        s = re.sub(r"^(?:then|later|finally|after\s+that|next|meanwhile|afterwards|first)\s*,?\s+", "", sentence,
                   flags=re.IGNORECASE)  # fmt: skip
        if re.match(r"(?:the\s+)?(?:power|electricity|lights?)\s+(?:goes|go|went|is|was|are|were|has|had)\b", s, re.I):
            atoms.append("powercut(house)")
            continue
        m = _SUBJECT.match(s)
        if m is None:
            continue
        if m.group(1):
            who = ROBOT
        else:
            who = r.human(m.group(2)) or ""
            if not who:
                continue
        rest = s[m.end() :].strip()
        for clause in _clauses(rest):
            if clause.strip().upper() == "QUOTE":
                continue
            a = _scene_atom(r, who, clause)
            if a is not None:
                atoms.append(a)
    return atoms


# ---- belief, desire, intention, decision ----------------------------------------------------------------------
_LOC = (
    r"(?:still\s+|actually\s+|really\s+|now\s+|currently\s+)*"
    r"(?:on\s+top\s+of|on|in|inside|at|under|in\s+the\s+middle\s+of|near|by)\s+"
)
_NAMEW = r"([A-Za-z]+)"


def _belief(r: _Reader, text: str) -> list[str]:
    atoms: list[str] = []
    for sentence in _sentences(text):
        _mention(r, sentence)
        feeling = _feeling(sentence)
        if feeling and re.search(r"\b(?:taken|took|takes)\s+care\s+of\b|\bno\s+longer\b", sentence, re.I):
            atoms.append(f"attribute_belief(robot, satisfied({r.last_human}, {feeling}))")
            continue
        m = re.search(rf"\b{_NAMEW}\s+(?:wanted|wants)\s+{_NP}\s+and\s+(?:took|got|picked\s+up)\s+(?:it|them)\s+"
                      r"(?:herself|himself|themselves)", sentence)  # fmt: skip
        if m and r.human(m.group(1)):
            atoms.append(f"attribute_belief(robot, has({r.last_human}, {r.obj(m.group(2))}))")
            continue
        for raw in re.split(r",?\s+but\s+|;\s*|:\s*|,\s+so\s+|,\s+and\s+(?=I\b)|,\s+(?=which\b)|"
                            r"\s+and\s+I\s+(?:also\s+)?(?=believe|think|know)", sentence):  # fmt: skip
            _mention(r, raw)
            atoms += _belief_clause(r, raw.strip())
    return atoms


def _mention(r: _Reader, text: str) -> None:
    """Make the first human named in ``text`` the one pronouns refer to."""
    for m in re.finditer(r"\b([A-Z][a-z]+)\b", text):
        if r.human(m.group(1)):
            return


_AILMENT = r"(headache|fever|cold|cough|stomachache|toothache|backache)"


def _feeling(text: str) -> str | None:
    m = re.search(r"\b(?:is|was|feels|felt|seems|are)\s+"
        r"(?:very\s+|really\s+|so\s+|a\s+bit\s+)?(thirsty|hungry|cold|hot|"
                  r"tired|sick|sleepy|bored|uncomfortable|dehydrated)\b", text, re.I)  # fmt: skip
    if m:
        return m.group(1).lower()
    m = re.search(rf"\b(?:has|had|have)\s+(?:a\s+|an\s+)?{_AILMENT}\b", text, re.I)
    if m:
        return m.group(1).lower()
    m = re.search(
        r"\b(?:cannot|can't|can\s+not|could\s+not|couldn't|is\s+unable\s+to)\s+(read|see|sleep|hear)\b", text, re.I
    )
    if m:
        return f"cannot_{m.group(1).lower()}"
    return None


def _belief_clause(r: _Reader, clause: str) -> list[str]:
    c = clause.strip()
    low = c.lower()
    out: list[str] = []
    m = re.search(rf"\b{_NAMEW}\s+(?:is|are|was|were|seems\s+to\s+be|might\s+be|may\s+be|must\s+be)\s+"
        rf"(?:currently\s+|now\s+|"
                  rf"still\s+)?(?:looking|searching)\s+(?:for|around\s+for)\s+(?:something\s+to\s+([a-z]+)\b.*|{_NP})"
                  r"(?:\s+(?:in|on|at)\s+.*)?$", c)  # fmt: skip
    if m and r.human(m.group(1)):
        what = m.group(2) or r.obj(m.group(3) or "")
        out.append(f"attribute_belief(robot, searching({r.last_human}, {what}))")
        return out
    m = re.search(rf"\b{_NAMEW}\s+(?:still\s+)?(?:thinks|believes|thought|believed|expects|assumes|remembers)\s+"
        rf"(?:that\s+)?"
                  rf"{_NP}\s+(?:is|are|was|were)\s+{_LOC}{_NP}$", c)  # fmt: skip
    if m and r.human(m.group(1)):
        h = r.last_human
        out.append(
            f"attribute_belief(robot, human_believes({h}, object_on({r.obj(m.group(2))}, {r.place(m.group(3))})))"
        )
        return out
    m = re.search(rf"\b{_NAMEW}\s+knows\s+(?:that\s+)?{_NP}\s+(?:is|are)\s+{_LOC}{_NP}$", c)
    if m and r.human(m.group(1)):
        h = r.last_human
        o, p = r.obj(m.group(2)), r.place(m.group(3))
        return [f"attribute_belief(robot, human_believes({h}, object_on({o}, {p})))",
                f"hold_true_belief(robot, object_on({o}, {p}))"]  # fmt: skip
    m = re.search(rf"\b{_NAMEW}\s+(?:has|had|is\s+holding|holds)\s+((?:the|his|her|their)\s+[a-z][a-z' -]*?)"
                  r"(?:\s+now|\s+already|\s+with\s+\w+)*$", c)  # fmt: skip
    if m and r.human(m.group(1)) and not re.search(r"\bhas\s+(?:everything|taken|gone|left)", low):
        h = r.last_human
        o = r.obj(m.group(2))
        return [f"attribute_belief(robot, human_believes({h}, object_on({o}, {h})))",
                f"hold_true_belief(robot, object_on({o}, {h}))"]  # fmt: skip
    if re.search(r"\b(?:do\s+not|don't|cannot|can't|did\s+not|didn't)\s+(?:know|see|tell)\s+where\b", low):
        m = re.search(rf"where\s+{_NP}\s+(?:is|are|was|were|went|ended)", low)
        o = r.obj(m.group(1)) if m else (r.last_object or "it")
        return [f"lack_belief(robot, object_on({o}, unknown))"]
    m = re.search(r"\b(?:power|electricity)\s+(?:has\s+gone|went|is|has\s+been)\s+(?:out|off|cut)", low)
    if m:
        out.append("hold_true_belief(robot, power_off(house))")
    feeling = _feeling(c)
    if feeling and r.last_human and not re.search(r"\breach\b", low):
        out.append(f"attribute_belief(robot, feels({r.last_human}, {feeling}))")
    m = re.search(rf"\b{_NAMEW}\s+(?:wants|wanted|would\s+like|needs|is\s+trying)\s+(?:to\s+)?(.*)$", c)
    if m and r.human(m.group(1)):
        what = m.group(2).lower()
        what = re.split(r"\s+(?:on|from|in|at)\s+the\s+|:|,", what)[0]
        g = re.match(rf"(?:go|get|move|roll)\s+(?:into|to|through|in)\s+{_NP}$", what)
        if g:
            value = f"go({r.place(g.group(1))})"
        else:
            words = [w for w in what.split() if w not in _ARTICLES and w != "to"]
            value = r.obj(" ".join(words[-1:])) if len(words) == 1 else "_".join(words)
        out.append(f"attribute_belief(robot, wants({r.last_human}, {value}))")
    m = re.search(rf"{_NP}\s+(?:would|will|could|might)\s+help\s+{_NAMEW}\b", c)
    if m and r.human(m.group(2)):
        what = r.obj(m.group(1).lower().split(" of ")[-1])
        plan_item = _plan_item(r)
        if what not in r.known and plan_item and m.group(1).lower().split()[-3:-2] != ["of"]:
            what = plan_item[1]
        out.append(f"attribute_belief(robot, wants({r.last_human}, {what}))")
    if re.search(r"\b(?:cannot|can't|can\s+not|unable\s+to)\s+reach\b|\btoo\s+(?:high|low|far)\b", low):
        h = r.last_human
        unreachable = r.last_object
        m = re.search(rf"\b{_NAMEW}\s+(?:cannot|can't|can\s+not|is\s+unable\s+to)\s+reach\s+{_NP}$", c)
        if m and r.human(m.group(1)):
            h, unreachable = r.last_human, r.obj(m.group(2))
        if h and unreachable:
            out.append(f"attribute_belief(robot, cannot_reach({h}, {unreachable}))")
    m = re.search(rf"{_NP}(?:\s+in\s+the\s+[a-z ]+?)?\s+(?:blocks|blocked|is\s+blocking)\b", low)
    if m and r.last_human:
        out.append(f"attribute_belief(robot, blocked({r.last_human}, {r.obj(m.group(1))}))")
    m = re.search(rf"\b{_NAMEW}\s+(?:turned|switched)\s+on\s+{_NP}\s+and\s+(?:then\s+)?left\s+{_NP}\s+without", c)
    if m and r.human(m.group(1)):
        h, x, room = r.last_human, r.obj(m.group(2)), r.place(m.group(3))
        out += [
            f"attribute_belief(robot, left({h}, {room}))",
            f"attribute_belief(robot, human_believes({h}, switched_off({x})))",
        ]
    m = re.search(rf"{_NP}\s+(?:is|was)\s+(?:still\s+)?(?:running|on|left\s+on)\b", low)
    if m and not re.search(r"\b(?:not|no)\b", low):
        x = r.obj(m.group(1))
        if x not in ("power", "it") and not x.endswith("room"):
            out.insert(0, f"hold_true_belief(robot, switched_on({x}))")
    m = re.search(rf"\b(?:turned|switched)\s+{_NP}\s+off\b", low)
    if m and re.search(r"\bno\s+water|before\s+leaving", low):
        out.append(f"hold_true_belief(robot, switched_off({r.obj(m.group(1))}))")
    if not out:
        m = re.search(rf"(?:^|\bI\s+(?:also\s+)?(?:believe|think|know|see|saw)\s+(?:that\s+)?"
            rf"|\bthere\s+(?:is|are)\s+|which\s+)"
                      rf"{_NP}\s*(?:(?:is|are|was|were)\s+)?{_LOC}{_NP}$", low)  # fmt: skip
        if m and not re.search(r"\b(?:thinks|believes|knows|wants|looking)\b", low):
            o, p = r.obj(m.group(1)), r.place(m.group(2))
            if o and p and not r.human(o):
                verb = "know" if re.search(r"\bI\s+know\b", c) else "hold_true_belief"
                out.append(f"{verb}(robot, object_on({o}, {p}))")
    return out


def _desire(r: _Reader, text: str) -> list[str]:
    low = text.lower()
    m = re.search(rf"\bhelp\s+{_NAMEW}\b", text, re.IGNORECASE)
    h = r.human(m.group(1)) if m else None
    h = h or r.last_human
    if h is None:
        return []
    if re.search(r"\b(?:does\s+not|doesn't|do\s+not|don't)\s+need\b|\bno\s+help\b", low):
        return [f"attribute_desire(robot, no_assist({h}))"]
    m = re.search(rf"\b(?:find|finding|locate|locating|retrieve|retrieving|look\s+for)\s+"
        rf"{_NP}(?:\s+(?:for|in|and|that|by)\b.*)?$",
                  re.split(r"[,.;]", low)[0].split(" and resolve")[0])  # fmt: skip
    verb, what = None, None
    if m:
        verb, what = "find", r.obj(m.group(1))
    else:
        m = re.search(
            rf"\b(?:get|getting|reach|reaching|have)\s+{_NP}(?:\s+(?:that|which|for|from)\b.*)?$", low.split(",")[0]
        )
        if m:
            verb, what = "get", r.obj(m.group(1))
    plan_item = _plan_item(r)
    if what and what not in r.known and plan_item:
        what = plan_item[1]
    if verb is None and plan_item:
        verb = {"pick": "get", "switchoff": "switchoff", "move": "move"}.get(plan_item[0], plan_item[0])
        what = plan_item[1]
        if verb == "get" and re.search(r"\b(?:find|light)\b", low):
            verb = "find"
    if verb is None or not what:
        return []
    return [f"attribute_desire(robot, assist({h}, {verb}({what})))"]


def _plan_item(r: _Reader) -> tuple[str, str] | None:
    for verb, args in r.plan:
        if verb in ("pick", "grab", "take", "switchoff", "move") and args:
            return ("pick" if verb in ("grab", "take") else verb), args[0]
    return None


_TELL = r"(?:tell|telling|remind|reminding|inform|informing|let)"
_GIVE = r"(?:give|giving|hand|handing|bring|bringing)"


def _commitment(r: _Reader, text: str, belief_atoms: Sequence[str]) -> str | None:
    """The committed act of an intention or decision sentence, as ``fetch(...)``, ``remind(...)``, ... or ``wait``."""
    low = text.lower()
    if re.search(r"\b(?:not\s+interfere|not\s+intervene|no\s+help\s+is\s+needed|keep\s+(?:an\s+eye|watching)|"
                 r"do\s+nothing|wait|remember\s+that)\b", low):  # fmt: skip
        return "wait"
    if re.search(rf"\b{_TELL}\b", low) and not re.search(rf"\b{_GIVE}\b", low):
        m = re.search(rf"\b{_TELL}\s+{_NAMEW}\b", text, re.IGNORECASE)
        h = (r.human(m.group(1)) if m else None) or r.last_human
        m2 = re.search(rf"\bthat\s+(?:[A-Za-z]+\s+took\s+)?{_NP}\s+(?:has|have|had|was|were|is|are)\b", low)
        o = r.obj(m2.group(1)) if m2 else None
        if not o or o in r.humans.values():
            o = r.last_object
        return f"remind({h}, {o})"
    m = re.search(rf"\b(?:turn|turning|switch|switching)\s+(?:it|them|{_NP})\s+off\b"
        rf"|\b(?:turn|turning|switch|switching)\s+off\s+{_NP}",
                  low)  # fmt: skip
    if m:
        x = m.group(1) or m.group(2)
        target = r.obj(x) if x else None
        plan = r.plan_target("switchoff")
        if plan and (not target or target not in r.known):
            target = plan[0]
        return f"switchoff({target})" if target else None
    m = re.search(rf"\b(?:move|moving|push|pushing)\s+{_NP}(?:\s+(?:to|into)\s+{_NP})?(?:,|\s+out\s+of|$)", low)
    if m and not re.search(rf"\b{_GIVE}\b", low):
        o = r.obj(m.group(1))
        plan = r.plan_target("move")
        to = plan[1] if plan and len(plan) > 1 else (r.place(m.group(2)) if m.group(2) else None)
        return f"move({o}, to={to})" if to else f"move({o})"
    if re.search(r"\b(?:give|giving|gave|hand|handing|bring|bringing|fetch|fetching|"
        r"retrieve|retrieving|take|taking|get|"
                 r"getting|pick|picking|deliver|delivering)\b", low):  # fmt: skip
        return _fetch(r, text)
    return None


def _fetch(r: _Reader, text: str) -> str | None:
    low = text.lower()
    m = re.search(rf"\b(?:give|giving|hand|handing|bring|bringing|deliver|delivering)\s+(?:it|them|{_NP})"
        rf"\s+to\s+{_NAMEW}\b", text,
                  re.IGNORECASE)  # fmt: skip
    m_obj = re.search(rf"\b(?:take|taking|get|getting|fetch|fetching|retrieve|retrieving|"
        rf"pick\s+up|picking\s+up|grab|grabbing|"
                      rf"bring|bringing|give|giving|hand|handing)\s+{_NP}(?:\s+(?:out\s+of|from|off|of|on|in|to|and|,)\b|,|$)",
                      low)  # fmt: skip
    item = None
    if m_obj:
        item = r.obj(m_obj.group(1))
        if item in r.humans.values():  # "give Alice the apple"
            m3 = re.search(rf"\b{_GIVE}\s+[a-z]+\s+{_NP}(?:\s|,|$)", low)
            item = r.obj(m3.group(1)) if m3 else None
    if (not item or item in ("it", "them")) and m and m.group(1):
        item = r.obj(m.group(1))
    if item and "_of_" in item:  # "a glass of water"
        item = item.split("_of_")[0]
    h = None
    if m:
        h = r.human(m.group(2))
    if h is None:
        m4 = re.search(rf"\b{_GIVE}\s+{_NAMEW}\b", text, re.IGNORECASE)
        h = (r.human(m4.group(1)) if m4 else None) or r.last_human
    if not item:
        plan = _plan_item(r)
        item = plan[1] if plan else None
    if not item:
        return None
    m5 = re.search(rf"\b(?:out\s+of|from|off)\s+{_NP}(?:\s+(?:and|to)\b|,|$)", low)
    src = r.place(m5.group(1)) if m5 else None
    if not src or src not in r.known:
        src = r.source_of(item) or src or r.sources.get(item)
    if src:
        r.sources.setdefault(item, src)
    m6 = re.search(rf"\bpour\s+{_NP}\s+(?:into|in)\b", low) or re.search(rf"\b{_NP}\s+of\s+([a-z]+)\b", low)
    with_ = None
    if m6 and m6.re.pattern.startswith(r"\bpour"):
        with_ = r.obj(m6.group(1))
    elif m6 and _ident(m6.group(1)) == item:
        with_ = m6.group(2)
    args = [item] + ([f"from={src}"] if src else []) + ([f"to={h}"] if h else []) + ([f"with={with_}"] if with_ else [])
    return f"fetch({', '.join(args)})"


def _human_belief(belief_atoms: Sequence[str]) -> tuple[str, str, str] | None:
    for a in belief_atoms:
        m = re.match(r"attribute_belief\(robot, human_believes\(([^,]+), object_on\(([^,]+), ([^)]+)\)\)\)", a)
        if m:
            return m.group(1), m.group(2), m.group(3)
    return None


def _decision(r: _Reader, text: str, belief_atoms: Sequence[str]) -> list[str]:
    out = []
    low = text.lower()
    if re.search(r"\b(?:false\s+belief|misbelief|mistaken|wrong\s+belief|correct\s+(?:his|her|their)\s+belief)\b", low):
        hb = _human_belief(belief_atoms)
        if hb:
            out.append(f"resolve_misbelief(robot, belief_conflict({hb[0]}, {hb[1]}, {hb[2]}))")
    act = _commitment(r, text, belief_atoms)
    if act:
        out.append(f"make_decision(robot, {act})")
    return out


# ---- the whole answer ----------------------------------------------------------------------------------------
def _names(text: str) -> dict[str, str]:
    """Human names an answer uses: capitalised words that are not sentence openers or function words."""
    body = _QUOTE.sub(" ", text)
    body = re.sub(r"<[^>]*>", ".", body)
    names: dict[str, str] = {}
    for m in re.finditer(r"\b([A-Z][a-z]+)\b", body):
        w = m.group(1)
        if w in _STOP_NAMES:
            continue
        names[w.lower()] = w.lower()
    return names


def extract_atoms_prose(text: str, setting: str = "hierarchy", lexicon: Mapping[str, str] | None = None) -> list[str]:
    """Atoms of an answer written in prose (see the module docstring), in layer order.

    >>> extract_atoms_prose('''<Perception> Alice walks into the kitchen, puts the apple on the table, and leaves.
    ... <Belief> I think Alice is looking for the apple. I believe she thinks the apple is on the table.
    ... <Action> walk(fridge), open(fridge), pick(apple)''')  # doctest: +NORMALIZE_WHITESPACE
    ['walk(alice, kitchen)', 'place(alice, apple, to=table)', 'attribute_belief(robot, searching(alice, apple))',
     'attribute_belief(robot, human_believes(alice, object_on(apple, table)))',
     'plan_action(robot, walk(fridge), open(fridge), pick(apple))']
    """
    first = first_layers(text, setting)
    if first is None:
        return call_atoms(text)
    wanted = SETTING_LAYERS[setting]
    by_layer = {name: content.strip() for name, content in first.items()}
    r = _Reader(humans=_names(text), lexicon={k.lower(): v for k, v in (lexicon or {}).items()})
    steps = [parse_call(normalize_call(p)) for p in split_calls(by_layer.get("action", ""))]
    r.plan = [(c.name, c.args) for c in steps if c is not None and c.args is not None]
    r.known = {a for _, args in r.plan for a in args if "=" not in a and a not in r.humans}
    atoms: list[str] = []
    layer_atoms: dict[str, list[str]] = {}
    for layer in wanted:
        content = by_layer.get(layer, "")
        calls = call_atoms(content)
        if not content:  # a layer the answer leaves out gives no atoms (never ones inferred from the others)
            got = []
        elif layer == "action":
            got = plan_atoms(calls)
        elif (calls and layer != "perception") or (
            calls and not re.search(r"[a-z]{3,}\s+[a-z]{3,}\s+[a-z]{3,}", content)
        ):
            got = calls
        elif layer == "perception":
            got = _perception(r, content)
            # the places and things its atoms name (after the actor; a keyword argument by its value)
            r.known |= {x.split("=", 1)[-1] for a in got if (c := parse_call(a)) is not None for x in c.args[1:]}
        elif layer == "belief":
            got = _belief(r, content)
        elif layer == "desire":
            got = _desire(r, content)
        elif layer == "intention":
            act = _commitment(r, content, layer_atoms.get("belief", []))
            got = [f"form_intention(robot, {act})"] if act else []
        elif layer == "decision":
            got = _decision(r, content, layer_atoms.get("belief", []))
        else:
            got = []
        layer_atoms[layer] = got
        atoms += got
    return [normalize_call(a) for a in atoms]

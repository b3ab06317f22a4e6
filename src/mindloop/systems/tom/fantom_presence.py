"""Who was present when FANToM's information was shared: the conversation read into join and leave events.

**What the release marks.** Each question set names the part of the conversation it asks about
(``short_context``, a run of ``Name: words`` turns of ``full_context``) and the character who joins that part
(``joining_speaker``). The part either opens with that character taking leave ("I have to leave for a while; I
need to make a phone call") and holds their return ("I'm back, guys"), or shows them arriving partway ("Hey,
guys. Just caught the end of that conversation"). Everyone else who speaks in the part is there throughout; a
character of the whole conversation who never speaks in the part was not in it (the release labels every binary
question about such a character ``no:long``: *no*, seen only on the full conversation).

**The presence record** (:func:`read_presence`). When the joining character's first turn opens the part, or reads
as a farewell, they leave: they are away from their last turn before they come back (their first later turn that
reads as a return, else the one that ends their longest silence) until that return, or to the end of the part.
Otherwise they arrive: they are away from the start of the part until their first turn.

**Where the information was shared** (:func:`where_shared`). Only the joining character's awareness depends on
it. The information (the fact question and its answer, as the info-accessibility question states it) is matched
word by word (content words, crude stems, the characters' names left out) against each turn of the part; the
best turn while the character was away and the best while present are compared. Neither a close enough match
(at least two shared words and 30 % of the information's) nor a clear winner (a 0.2 margin) leaves the
character's awareness undetermined, and the questions that need it are not answered.

**Who knows** (:func:`knowledge`): the record is applied to the belief tracker as events (every speaker enters,
the joining character exits and enters, the information is shared at its turn, witnessed by whoever is present)
and each chain's belief read back: a character knows when they witnessed the sharing; a character believes
another knows when both witnessed it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from mindloop.beliefs import Event, EventKind, Fact, Tracker
from mindloop.systems.tom.data import RELEASES

_TURN = re.compile(r"^\s*([A-Z][\w.'’ -]{0,40}?)\s*:\s*(.*)$")


# farewell, return and unawareness phrases, and the stop words (``data/releases.yaml``)
_FAREWELL, _RETURN, _UNAWARE = RELEASES.fantom_farewell, RELEASES.fantom_returns, RELEASES.fantom_unaware
_STOP = frozenset(RELEASES.fantom_stop_words.split())

_MIN_WORDS = 2
_MIN_SHARE = 0.3
_MARGIN = 0.2


@dataclass(frozen=True, slots=True)
class Turn:
    """One ``Name: words`` turn of a conversation."""

    speaker: str
    text: str


def read_turns(text: str) -> list[Turn]:
    """The turns of a conversation: each ``Name: words`` line opens one; other lines continue the last.

    >>> [t.speaker for t in read_turns("Gia: Hi.\\nHal: Hello, Gia.\\n(still Hal)")]
    ['Gia', 'Hal']
    """
    turns: list[Turn] = []
    for line in str(text).splitlines():
        if not line.strip():
            continue
        m = _TURN.match(line)
        if m and m.group(2).strip():
            turns.append(Turn(m.group(1).strip(), m.group(2).strip()))
        elif turns:
            turns[-1] = Turn(turns[-1].speaker, f"{turns[-1].text} {line.strip()}")
    return turns


def _has(text: str, cues: tuple[str, ...]) -> bool:
    low = f" {text.lower()} "
    return any(c in low for c in cues)


@dataclass(frozen=True, slots=True)
class Presence:
    """Who was in the part of the conversation a question set asks about, turn by turn."""

    joining: str
    turns: tuple[Turn, ...]
    how: Literal["arrives", "leaves"]
    away: tuple[int, int]  # the joining character is away for turns away[0] <= i < away[1]
    speakers: tuple[str, ...]  # who speaks in the part, in order of their first turn
    outsiders: tuple[str, ...]  # who speaks in the whole conversation but never in the part

    def present(self, i: int) -> frozenset[str]:
        """Who is there at turn ``i`` of the part."""
        if self.away[0] <= i < self.away[1]:
            return frozenset(s for s in self.speakers if s != self.joining)
        return frozenset(self.speakers)

    def describe(self) -> str:
        """The record in one line (for reasons and outputs), turns counted from 1."""
        a, b = self.away
        n = len(self.turns)
        span = f"turns {a + 1}-{b}" if b > a + 1 else f"turn {a + 1}"
        if a == b:
            moves = f"{self.joining} is there throughout the {n} turns"
        elif self.how == "arrives":
            moves = f"{self.joining} is away for {span} and arrives at turn {b + 1} of {n}"
        else:
            back = f", back at turn {b + 1}" if b < n else ", to the end"
            moves = f"{self.joining} leaves and is away for {span}{back} of {n}"
        others = ", ".join(s for s in self.speakers if s != self.joining)
        return f"{moves}; {others} there throughout"


def read_presence(window: str, joining: str, conversation: str | None = None) -> Presence | str:
    """The presence record of one part (``short_context``) whose joining character is ``joining``; a string
    saying why when the part cannot be read (the joining character never speaks in it, or no turn is found).
    ``conversation`` (``full_context``) adds the characters who never speak in the part."""
    turns = read_turns(window)
    if not turns:
        return "no 'Name: words' turns in the conversation part"
    own = [i for i, t in enumerate(turns) if t.speaker == joining]
    if not joining or not own:
        return f"the joining character {joining!r} never speaks in the conversation part"
    first, later = own[0], own[1:]
    how: Literal["arrives", "leaves"]
    says_hello = _has(turns[first].text, _RETURN)
    leaves = not says_hello if first == 0 else _has(turns[first].text, _FAREWELL) and not says_hello
    if not leaves:
        away, how = (0, first), "arrives"
    else:
        back = next((i for i in later if _has(turns[i].text, _RETURN)), None)
        if back is None and later:
            gaps = [(b - a, b) for a, b in zip([first, *later], later, strict=False)]
            back = max(gaps, key=lambda g: (g[0], -g[1]))[1]
        end = back if back is not None else len(turns)
        last = max(i for i in own if i < end)
        away, how = (last + 1, end), "leaves"
    speakers = tuple(dict.fromkeys(t.speaker for t in turns))
    outsiders: tuple[str, ...] = ()
    if conversation is not None:
        outsiders = tuple(s for s in dict.fromkeys(t.speaker for t in read_turns(conversation)) if s not in speakers)
    return Presence(joining, tuple(turns), how, away, speakers, outsiders)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _words(text: str, names: frozenset[str]) -> set[str]:
    tokens = re.findall(r"[a-z0-9]+", text.lower())
    return {_stem(w) for w in tokens if w not in _STOP and w not in names and len(w) > 1}


@dataclass(frozen=True, slots=True)
class _Where:
    """Where the information was shared as far as the joining character is concerned."""

    turn: int | None  # the best-matching turn (1-based in reasons), None when not found
    joining_present: bool | None  # None: not found, or found both while away and while present
    reason: str


def where_shared(presence: Presence, information: str) -> _Where:
    """The turn of the part that shares ``information`` and whether the joining character was there for it."""
    names = frozenset(w.lower() for s in (*presence.speakers, *presence.outsiders) for w in s.split())
    want = _words(information, names)
    if not want:
        return _Where(None, None, "the information has no content words to look for")
    scored = []
    for i, t in enumerate(presence.turns):
        hits = len(want & _words(t.text, names))
        scored.append((hits / len(want) if hits >= _MIN_WORDS else 0.0, i))
    a, b = presence.away
    away = max(((s, i) for s, i in scored if a <= i < b), default=(0.0, -1))
    here = max(((s, i) for s, i in scored if not a <= i < b), default=(0.0, -1))
    best = max(away, here)
    if best[0] < _MIN_SHARE:
        return _Where(None, None, "the information is not found in the conversation part")
    if min(away[0], here[0]) >= _MIN_SHARE and abs(away[0] - here[0]) < _MARGIN:
        return _Where(
            best[1],
            None,
            f"the information matches turn {away[1] + 1} (while {presence.joining} was away) and turn "
            f"{here[1] + 1} (while present) about as well",
        )
    present = here[0] > away[0]
    state = "present" if present else "away"
    return _Where(
        best[1], present, f"the information is shared at turn {best[1] + 1}, while {presence.joining} was {state}"
    )


@dataclass(frozen=True)
class Knowledge:
    """Who knows the information, read back from the tracker; ``undetermined`` names those it cannot say."""

    tracker: Tracker
    roster: tuple[str, ...]
    undetermined: frozenset[str]
    reason: str  # where the information was shared, or why that is not determined
    record: str  # the presence record in one line

    def knows(self, *chain: str) -> bool | None:
        """Whether ``chain[0]`` believes ``chain[1]`` believes … the information was shared (``None``: unknown)."""
        if any(c not in self.roster for c in chain) or any(c in self.undetermined for c in chain):
            return None
        return self.tracker.value(tuple(chain), "information", "shared") == "yes"

    def aware(self) -> list[str] | None:
        """Who knows, in the order they speak (``None`` when someone's awareness is undetermined)."""
        if self.undetermined:
            return None
        return [c for c in self.roster if self.knows(c)]


def knowledge(presence: Presence, information: str) -> Knowledge:
    """Apply the record to the belief tracker as events and read who knows ``information``.

    Every speaker of the part but an arriving joining character enters at the start, the joining character
    exits and (re)enters, and the information is shared at its turn, witnessed by whoever is present. When the
    turn is not determined for the joining character, it is shared with those present throughout the part
    (everyone else who speaks in it), and the joining character's awareness is left undetermined."""
    where = where_shared(presence, information)
    tracker = Tracker(max_depth=2)
    a, b = presence.away
    first = frozenset(presence.speakers) - ({presence.joining} if presence.how == "arrives" else set())
    for name in sorted(first):
        tracker.apply(Event(0, EventKind.ENTER, name, (), first))
    shared = Fact("information", "shared", "yes")
    t = 1
    for i in range(len(presence.turns) + 1):
        if i == a and presence.how == "leaves":
            tracker.apply(Event(t, EventKind.EXIT, presence.joining, (), presence.present(i - 1)))
            t += 1
        if i == b and b < len(presence.turns):
            tracker.apply(Event(t, EventKind.ENTER, presence.joining, (), presence.present(i)))
            t += 1
        if i == where.turn and where.joining_present is not None:
            tracker.apply(Event(t, EventKind.OTHER, presence.turns[i].speaker, (shared,), presence.present(i)))
            t += 1
    undetermined: frozenset[str] = frozenset()
    if where.joining_present is None:
        throughout = frozenset(presence.speakers) - {presence.joining}
        tracker.apply(Event(t, EventKind.OTHER, None, (shared,), throughout))
        undetermined = frozenset({presence.joining})
    roster = (*presence.speakers, *presence.outsiders)
    return Knowledge(tracker, roster, undetermined, where.reason, presence.describe())


def unaware_option(options: list[str]) -> int | None:
    """The index of the one option that says its holder does not know (``None`` when not exactly one does).

    >>> unaware_option(["Ivo believes it was near the river.", "Ivo does not know where it was."])
    1
    """
    marked = [i for i, o in enumerate(options) if _has(str(o), _UNAWARE)]
    return marked[0] if len(marked) == 1 else None

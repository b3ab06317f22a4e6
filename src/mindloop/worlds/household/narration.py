"""Narration: what the robot perceived, as the text window it reads and as the paper's ``<Perception>``.

``window_text`` gives one line per perceived event (dialogue lines as ``Alex: "..."``), the text observation a
model is given. ``summarize`` tells the same events the way MindPower's gold ``<Perception>`` does: one
sentence per run of one actor's actions, later runs introduced by "Then" ("Alice walks into the kitchen, puts
the apple on the kitchen table, and leaves the kitchen. Then David ...").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import groupby

from mindloop.worlds.household.results import WorldEvent
from mindloop.worlds.household.vocab import ROBOT

__all__ = ["join_phrases", "perceived", "summarize", "window_text"]


def perceived(events: Iterable[WorldEvent], agent: str = ROBOT, *, since: int = 1) -> list[WorldEvent]:
    """The narrated events ``agent`` witnessed from time ``since`` on (silent observations left out)."""
    return [e for e in events if e.t >= since and e.text and agent in e.witnesses]


def window_text(events: Iterable[WorldEvent], agent: str = ROBOT, *, since: int = 1) -> str:
    """One line per event ``agent`` perceived: the text observation of a window."""
    return "\n".join(e.text for e in perceived(events, agent, since=since))


def join_phrases(phrases: Sequence[str]) -> str:
    """``a``; ``a and b``; ``a, b, and c``."""
    if len(phrases) <= 1:
        return "".join(phrases)
    if len(phrases) == 2:
        return f"{phrases[0]} and {phrases[1]}"
    return ", ".join(phrases[:-1]) + f", and {phrases[-1]}"


def merged_moves(events: Sequence[WorldEvent], *, same_step: bool = True) -> list[WorldEvent]:
    """Drop an exit immediately followed by the same actor's entry (``walks into the kitchen`` says both): of the
    same step only, or, unless ``same_step``, of any (an exit seen, then an entry seen elsewhere later)."""
    out: list[WorldEvent] = []
    for e in events:
        prev = out[-1] if out else e  # the first event has none before it: e is never both an exit and an entry
        if e.kind == "enter" and prev.kind == "exit" and prev.actor == e.actor and (prev.t == e.t or not same_step):
            out[-1] = e
        else:
            out.append(e)
    return out


def summarize(events: Iterable[WorldEvent], names: dict[str, str], agent: str = ROBOT, *, since: int = 1) -> str:
    """The paper-style ``<Perception>`` paragraph of what ``agent`` perceived; ``names`` maps ids to names."""
    seen = merged_moves(perceived(events, agent, since=since))
    sentences: list[str] = []
    # A run is one actor's consecutive actions; a house event (no actor) or an utterance stands alone (its own key).
    for _, group in groupby(seen, key=lambda e: e.actor if e.actor is not None and not e.is_utterance else id(e)):
        run = list(group)
        e = run[0]
        if e.actor is None:
            text = e.text
            sentences.append(text if not sentences else f"Then {text[0].lower()}{text[1:]}")
        elif e.is_utterance:
            end = "" if e.phrase.endswith(('."', '?"', '!"')) else "."
            sentences.append(f"{_name(e.actor, names)} {e.phrase}{end}")
        else:
            subject = _name(e.actor, names)
            if sentences:
                subject = f"Then {'the robot' if e.actor == ROBOT else subject}"
            sentences.append(f"{subject} {join_phrases([r.phrase for r in run])}.")
    return " ".join(sentences)


def _name(agent: str, names: dict[str, str]) -> str:
    return "The robot" if agent == ROBOT else names.get(agent, agent)

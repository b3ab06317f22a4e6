"""Human input (§IV-C): a person at a terminal drives the household's characters or types instructions; every
typed line becomes one window, and the robot's actions are executed in the same world (closed loop).

Lines (scriptable: pass ``lines=[...]`` instead of reading a terminal):

=============================  =====================================================================================
``alice: walk(kitchen)``       Alice does an action (any household action; a failure is reported and, if someone
                               could see it, shown in the window)
``alice: say(bob, "words")``   speech; words that mention a need (thirsty, cold, hungry, headache, can't read) state
                               it, as a person saying it would (:data:`NEED_WORDS`)
``! words``                    an instruction typed to the robot: in the window's dialogue and control metadata
``wait`` or an empty line      time passes; nobody acts
``help``                       the list of commands (no window)
``quit``                       end the session
=============================  =====================================================================================
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from mindloop.beliefs import Fact
from mindloop.systems.mindclaw.sources.household import HouseholdSource
from mindloop.systems.mindclaw.window import Window
from mindloop.worlds.household.actions import Action, parse_action
from mindloop.worlds.household.results import Failure
from mindloop.worlds.household.scenarios.model import Scenario
from mindloop.worlds.household.setup import WorldSetup
from mindloop.worlds.household.vocab import FEELS, ROBOT

NEED_WORDS: dict[str, tuple[str, ...]] = {
    "thirsty": ("thirsty", "drink", "throat is", "mouth is"),
    "cold": ("cold", "freezing", "shivering", "chilly"),
    "hungry": ("hungry", "snack", "starving", "stomach"),
    "headache": ("headache", "head hurts", "head is pounding"),
    "cannot_read": ("can't read", "cannot read", "reading glasses"),
}
"""Words that state a need in typed speech (the terminal adapter's convention, documented in ``docs/mindclaw.md``)."""

HELP = """commands:
  ACTOR: ACTION            e.g. alice: walk(kitchen)   alice: say(bob, "I'm so thirsty")
  ! WORDS                  an instruction to the robot
  wait  (or empty line)    let time pass
  help                     this list
  quit                     end the session"""

_LINE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.+)$")


def stated_needs(speaker: str, words: str) -> tuple[Fact, ...]:
    """Facts ``speaker feels NEED`` for every need ``words`` mention (see :data:`NEED_WORDS`)."""
    low = words.lower()
    return tuple(Fact(speaker, FEELS, need) for need, keys in NEED_WORDS.items() if any(k in low for k in keys))


class TerminalSource(HouseholdSource):
    """A household world driven line by line by a person (see the module docstring).

    ``lines``: the typed lines (a script, for tests and demos); without it lines are read with ``read`` (default:
    :func:`input`). ``say`` receives everything the source has to tell the person (errors, help).
    """

    name = "human"

    def __init__(
        self,
        setup: WorldSetup | Scenario,
        lines: Iterable[str] | None = None,
        *,
        read: Callable[[str], str] | None = None,
        say: Callable[[str], None] | None = None,
        prompt: str = "> ",
        max_windows: int = 500,
    ) -> None:
        base = setup.setup if isinstance(setup, Scenario) else setup
        super().__init__(setup=base, quiet=0, task="human-driven household session")
        self._lines = iter(lines) if lines is not None else None
        self._read = read or input
        self._say = say or print
        self.prompt = prompt
        self.max_windows = max_windows

    def _next_line(self) -> str | None:
        if self._lines is not None:
            return next(self._lines, None)
        try:
            return self._read(self.prompt)
        except EOFError:
            return None

    def windows(self) -> Iterator[Window]:
        """The initial window, then one window per typed line that does something."""
        yield self._start()
        ep = self.episode
        assert ep is not None
        k = 0
        while k < self.max_windows:
            line = self._next_line()
            if line is None or line.strip().lower() in ("quit", "exit"):
                return
            text = line.strip()
            control = {"driver": "human", "line": text}
            if text.lower() == "help":
                self._say(HELP)
                continue
            if text.startswith("!"):
                words = text[1:].strip()
                k += 1
                window = self._next(k)
                yield replace(
                    window,
                    dialogue=(*window.dialogue, ("user", words)),
                    text="\n".join(x for x in (window.text, f'You (to the robot): "{words}"') if x),
                    control={**control, "kind": "instruction"},
                )
                continue
            if text.lower() in ("", "wait"):
                k += 1
                yield replace(self._next(k), control={**control, "kind": "wait"})
                continue
            m = _LINE.match(text)
            if m is None:
                self._say(f"not a command: {text!r} (type help)")
                continue
            actor, action_text = m.group(1).lower(), m.group(2)
            if actor == ROBOT:
                self._say("the robot is driven by MindClaw; type an instruction with '!' instead")
                continue
            if actor not in ep.world.chars:
                self._say(f"no one called {actor!r} here (people: {', '.join(ep.world.humans)})")
                continue
            parsed = parse_action(action_text)
            if isinstance(parsed, Failure):
                self._say(f"cannot read {action_text!r}: {parsed}")
                continue
            if parsed.verb == "say" and parsed.text:
                parsed = Action(parsed.verb, parsed.args, parsed.text, stated_needs(actor, parsed.text))
            result = ep.act(actor, parsed, expect_fail=None)
            if result.failure is not None:
                self._say(f"{actor} could not {result.action}: {result.failure.message}")
                if not result.events:
                    continue
            k += 1
            yield replace(self._next(k, result.events), control={**control, "kind": "action", "actor": actor})

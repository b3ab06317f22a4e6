"""Damaged versions of a scenario's gold answer text, for the Mind-Reward property tests.

Each damage edits the gold *text* (the six layers as ``Gold.to_text()`` writes them) the way a wrong answer
would differ; the structured gold is used only to know what to damage (which object, which person).
"""

from __future__ import annotations

import re

from mindloop.systems.mindpower.calls import split_calls
from mindloop.systems.mindpower.rewards import household_lexicon
from mindloop.worlds.household.scenarios import Scenario

OTHER_OBJECTS = ("toy car", "umbrella")  # names no scenario's gold uses for its target
OTHER_PERSON = ("Olivia", "Peter")


def _lines(text: str) -> dict[str, str]:
    return {m.group(1).lower(): m.group(2) for m in re.finditer(r"^<(\w+)> (.*)$", text, re.MULTILINE)}


def _join(lines: dict[str, str]) -> str:
    return "\n".join(f"<{k.capitalize()}> {v}" for k, v in lines.items())


def object_name(scenario: Scenario) -> str:
    """The name the gold text uses for the scenario's target object."""
    target = scenario.goal.target
    names = [n for n, i in household_lexicon().items() if i == target]
    return names[0] if names else target.replace("_", " ")


def wrong_object(scenario: Scenario, text: str) -> str | None:
    """Every mention of the target object (in prose and calls) replaced by an object the scene does not have."""
    name = object_name(scenario)
    other = next(o for o in OTHER_OBJECTS if o not in text)
    pattern = re.compile(rf"\b{re.escape(name)}\b|\b{re.escape(scenario.goal.target)}\b", re.IGNORECASE)
    out = pattern.sub(lambda m: other if " " in m.group(0) or m.group(0) == name else other.replace(" ", "_"), text)
    return out if out != text else None


def wrong_person_belief(scenario: Scenario, text: str) -> str | None:
    """The ``<Belief>`` layer about another person: the focus human's name there replaced by another's."""
    lines = _lines(text)
    who = scenario.goal.human.capitalize()
    others = [h.capitalize() for h in scenario.humans if h != scenario.goal.human]
    other = others[0] if others else next(p for p in OTHER_PERSON if p not in text)
    belief = re.sub(rf"\b{who}\b", other, lines["belief"])
    if belief == lines["belief"]:
        return None
    lines["belief"] = belief
    return _join(lines)


def missing_layer(scenario: Scenario, text: str, layer: str = "belief") -> str | None:
    """The answer without one layer (tag and content)."""
    lines = _lines(text)
    del lines[layer]
    return _join(lines)


def _steps(text: str) -> list[str]:
    return split_calls(_lines(text)["action"])


def _with_steps(text: str, steps: list[str]) -> str:
    lines = _lines(text)
    lines["action"] = ", ".join(steps)
    return _join(lines)


def step_changed(scenario: Scenario, text: str) -> str | None:
    """One action step (the last) replaced by a different one."""
    steps = _steps(text)
    steps[-1] = "lookat(window)" if steps[-1] != "lookat(window)" else "walk(door)"
    return _with_steps(text, steps)


def reordered(scenario: Scenario, text: str) -> str | None:
    """The action steps in reverse order (``None`` when that changes nothing: one step, or a palindrome)."""
    steps = _steps(text)
    if steps == steps[::-1]:
        return None
    return _with_steps(text, steps[::-1])


DAMAGES = {
    "wrong object": wrong_object,
    "wrong person's belief": wrong_person_belief,
    "missing layer": missing_layer,
    "one action step changed": step_changed,
    "actions reordered": reordered,
}


def missing_desire(scenario: Scenario, text: str) -> str | None:
    """The answer without its ``<Desire>`` layer."""
    return missing_layer(scenario, text, "desire")


LADDER = (missing_desire, wrong_person_belief, step_changed, wrong_object)
"""Damages applied one after another: each rung has all the damage of the rung before and one more."""


def ladder(scenario: Scenario, text: str) -> list[str]:
    """The gold text with 1, 2, ... of :data:`LADDER`'s damages applied (a damage that does not apply is skipped,
    so a rung may equal the one before)."""
    out = []
    for damage in LADDER:
        damaged = damage(scenario, text)
        text = damaged if damaged is not None else text
        out.append(text)
    return out


OFF_TOPIC = """<Perception> A chef boils water in a large pot and adds salt.
<Belief> I believe the pasta needs about ten minutes to cook.
<Desire> I want the sauce to be ready on time.
<Intention> Stir the tomato sauce and taste it.
<Decision> Serve the pasta with basil.
<Action> boil(pot), stir(sauce), serve(pasta)"""

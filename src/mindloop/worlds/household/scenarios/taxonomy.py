"""The scenario taxonomy: MindPower's two tasks, their kinds, and controls where no help is needed.

Weights set the default mix of ``mindpower-sim``. They follow the paper's proportions where it gives them
(B.1: 390 False-Belief Correction and 200 Implicit Goal Inference & Completion examples; 113/373/104 with
one/two/three humans; 17 special-needs, 96 object-property/functional, 87 dialogue examples) and add controls
(about 18% of samples), which the paper does not have and MindClaw's precision intervention needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from mindloop.errors import UnknownNameError

__all__ = [
    "CATEGORIES",
    "FALSE_BELIEF",
    "IMPLICIT_GOAL",
    "SUBTYPES",
    "TASK_TYPES",
    "Subtype",
    "subtype",
]

FALSE_BELIEF = "false_belief_correction"
IMPLICIT_GOAL = "implicit_goal_inference"
TASK_TYPES = (FALSE_BELIEF, IMPLICIT_GOAL)

CATEGORIES = (
    "false_belief",
    "special_population",
    "object_property",
    "functional_combination",
    "dialogue",
)
"""False-belief stories, then the four kinds of implicit goals of B.1."""


@dataclass(frozen=True, slots=True)
class Subtype:
    """One kind of scenario: its task, category, whether it is a control, its share of the default mix."""

    name: str
    task_type: str
    category: str
    control: bool
    weight: float
    special_needs: str
    description: str


def _fb(name: str, weight: float, description: str, *, control: bool = False) -> Subtype:
    return Subtype(name, FALSE_BELIEF, "false_belief", control, weight, "none", description)


def _ig(
    name: str, category: str, weight: float, description: str, *, control: bool = False, special: str = "none"
) -> Subtype:
    return Subtype(name, IMPLICIT_GOAL, category, control, weight, special, description)


SUBTYPES: dict[str, Subtype] = {
    s.name: s
    for s in (
        _fb(
            "fb_two_humans",
            0.22,
            "A puts an object somewhere and leaves; B moves it out of sight; A comes back "
            "and searches. Help: fetch it for A.",
        ),
        _fb(
            "fb_three_humans_first",
            0.08,
            "A places, B moves, C moves again; A (who believes the first place) "
            "comes back and searches. Help: fetch it for A.",
        ),
        _fb(
            "fb_three_humans_second",
            0.07,
            "A places, B moves, C moves again; B (who believes the second place) "
            "comes back and searches. Help: fetch it for B.",
        ),
        _fb(
            "fb_robot_tidied",
            0.06,
            "One human puts an object down and leaves; the robot tidies it away; the "
            "human comes back and searches. Help: fetch it.",
        ),
        _fb(
            "fb_camera_blind",
            0.06,
            "B carries the object out of the camera's view; A comes back and searches "
            "where she left it. The robot cannot know where it went: help is a reminder, not a fetch.",
        ),
        _fb(
            "fb_control_witnessed",
            0.035,
            "A watches B move the object, then takes it. Control: no false belief.",
            control=True,
        ),
        _fb(
            "fb_control_seen_on_return",
            0.035,
            "B moves the object somewhere A sees when she comes back; she takes it. Control: no false belief.",
            control=True,
        ),
        _fb(
            "fb_control_not_needed",
            0.035,
            "B moves the object away, but A comes back and does something else. "
            "Control: a false belief that does not get in her way.",
            control=True,
        ),
        _fb(
            "fb_control_put_back",
            0.025,
            "B uses the object and puts it back before A returns. Control: no false belief.",
            control=True,
        ),
        _ig(
            "ig_child_reach",
            "special_population",
            0.02,
            "A 1.2 m child reaches in vain for something on a high shelf. Help: get it down for the child.",
            special="child",
        ),
        _ig(
            "ig_wheelchair_reach",
            "special_population",
            0.015,
            "A wheelchair user cannot reach something too high or on the floor. Help: hand it over.",
            special="wheelchair",
        ),
        _ig(
            "ig_wheelchair_blocked",
            "special_population",
            0.015,
            "An obstacle in the doorway stops a wheelchair "
            "user, who turns and tries again. Help: move the obstacle out of the way.",
            special="wheelchair",
        ),
        _ig(
            "ig_faucet_running",
            "object_property",
            0.05,
            "Someone leaves the room with the faucet still running. Help: turn it off.",
        ),
        _ig(
            "ig_power_cut_candle",
            "object_property",
            0.045,
            "The power goes out while someone reads; they get up "
            "and search. Help: bring a candle (there is no flashlight).",
        ),
        _ig(
            "ig_functional_combo",
            "functional_combination",
            0.06,
            "Someone sets out part of a task (cutting "
            "board and carrot) and searches for the missing tool. Help: bring it (the knife).",
        ),
        _ig(
            "ig_dialogue_need",
            "dialogue",
            0.12,
            "Two people talk; one lets slip a need (thirst, cold, hunger, a "
            "headache, reading glasses). Help: bring what meets it.",
        ),
        _ig(
            "ig_control_child_reachable",
            "special_population",
            0.015,
            "A child takes something within reach. Control.",
            control=True,
            special="child",
        ),
        _ig(
            "ig_control_faucet_off",
            "object_property",
            0.015,
            "Someone turns the faucet off before leaving. Control.",
            control=True,
        ),
        _ig(
            "ig_control_combo_complete",
            "functional_combination",
            0.015,
            "Someone has every tool and does the task. Control.",
            control=True,
        ),
        _ig(
            "ig_control_dialogue_self_served",
            "dialogue",
            0.02,
            "Someone mentions a need and meets it themselves. Control.",
            control=True,
        ),
    )
}
"""Every subtype, by name, in a fixed order."""


def subtype(name: str) -> Subtype:
    """The subtype called ``name``; an unknown name raises :class:`~mindloop.errors.UnknownNameError`."""
    try:
        return SUBTYPES[name]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(name, list(SUBTYPES), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownNameError(f"unknown scenario subtype {name!r}{hint}") from None

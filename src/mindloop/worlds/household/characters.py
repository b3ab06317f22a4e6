"""The cast: sixteen named humans (13 adults, 2 children, 1 wheelchair user, as in MindPower's B.3) and the robot.

A character's trait fixes what it can reach (``reach_min``..``reach_max``, metres) and how it moves: a 1.2 m
child reaches at most 1.3 m; a wheelchair user reaches 0.3-1.2 m, cannot run, sit down or stand up, and is
stopped by an obstacle in a doorway.
"""

from __future__ import annotations

from dataclasses import dataclass

from mindloop.worlds.household.vocab import ROBOT, Trait

__all__ = [
    "CHARACTERS",
    "ROBOT_CHARACTER",
    "Character",
    "character",
]


@dataclass(frozen=True, slots=True)
class Character:
    """A human (or the robot) with the physical profile actions are checked against."""

    id: str
    name: str
    trait: Trait
    gender: str  # "f", "m" or "n" (pronouns only)
    height: float
    reach_min: float
    reach_max: float
    description: str

    @property
    def subj(self) -> str:
        """Subject pronoun: she / he / it."""
        return {"f": "she", "m": "he"}.get(self.gender, "it")

    @property
    def obj(self) -> str:
        """Object pronoun: her / him / it."""
        return {"f": "her", "m": "him"}.get(self.gender, "it")

    @property
    def poss(self) -> str:
        """Possessive pronoun: her / his / its."""
        return {"f": "her", "m": "his"}.get(self.gender, "its")

    @property
    def is_human(self) -> bool:
        """True for everyone but the robot."""
        return self.trait is not Trait.ROBOT

    def can_reach(self, height: float) -> bool:
        """Whether a spot at ``height`` metres is within reach."""
        return self.reach_min <= height <= self.reach_max


def _adult(cid: str, gender: str, height: float, description: str) -> Character:
    return Character(cid, cid.capitalize(), Trait.ADULT, gender, height, 0.0, 2.0, description)


CHARACTERS: dict[str, Character] = {
    c.id: c
    for c in (
        _adult("alice", "f", 1.65, "a woman in a green sweater"),
        _adult("david", "m", 1.80, "a man in a blue shirt"),
        _adult("mia", "f", 1.62, "a young woman with a ponytail"),
        _adult("alex", "m", 1.78, "a man in a grey hoodie"),
        _adult("jamie", "m", 1.75, "a young man in a red T-shirt"),
        _adult("sarah", "f", 1.68, "a woman in a yellow dress"),
        _adult("mark", "m", 1.82, "a tall man with glasses"),
        _adult("jake", "m", 1.76, "a man in a denim jacket"),
        _adult("emma", "f", 1.70, "a woman in a white blouse"),
        _adult("oliver", "m", 1.74, "a man with a beard"),
        _adult("grace", "f", 1.60, "an elderly woman with grey hair"),
        _adult("henry", "m", 1.72, "an elderly man in a cardigan"),
        _adult("nora", "f", 1.66, "a woman in a black jumper"),
        Character("lily", "Lily", Trait.CHILD, "f", 1.2, 0.0, 1.3, "a little girl"),
        Character("sam", "Sam", Trait.CHILD, "m", 1.2, 0.0, 1.3, "a little boy"),
        Character("tom", "Tom", Trait.WHEELCHAIR, "m", 1.25, 0.3, 1.2, "a man in a wheelchair"),
    )
}
"""The sixteen humans, by id."""

ROBOT_CHARACTER = Character(ROBOT, "the robot", Trait.ROBOT, "n", 1.5, 0.0, 2.0, "the household robot")
"""The robot: reaches 0-2 m, never sits, eats or drinks."""


def character(cid: str) -> Character:
    """The character with id ``cid`` (the robot included); raises ``KeyError`` for an unknown id."""
    return ROBOT_CHARACTER if cid == ROBOT else CHARACTERS[cid]

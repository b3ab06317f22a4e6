"""The cast: sixteen named humans (13 adults, 2 children, 1 wheelchair user, as in MindPower's B.3) and the robot.

A character's trait fixes what it can reach (``reach_min``..``reach_max``, metres) and how it moves: a 1.2 m
child reaches at most 1.3 m; a wheelchair user reaches 0.3-1.2 m, cannot run, sit down or stand up, and is
stopped by an obstacle in a doorway.

The humans are package data, ``data/characters.yaml`` beside this module, read and checked once on import
(:func:`load_characters`): every trait used has its reach, a reach is a ``[lowest, highest]`` pair in order, and
only humans are listed (the robot is :data:`ROBOT_CHARACTER`). A malformed file raises
:class:`~mindloop.datafiles.DataFileError` naming the file, the entry and the field.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Literal

from pydantic import Field

from mindloop.datafiles import DataModel, load_package_data
from mindloop.worlds.household.vocab import ROBOT, Trait


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

    def can_reach(self, height: float) -> bool:
        """Whether a spot at ``height`` metres is within reach."""
        return self.reach_min <= height <= self.reach_max


_HumanTrait = Literal[Trait.ADULT, Trait.CHILD, Trait.WHEELCHAIR]


class _CharacterSpec(DataModel):
    """One human as ``data/characters.yaml`` writes it."""

    trait: _HumanTrait = Trait.ADULT
    gender: Literal["f", "m"]
    height: float = Field(gt=0, le=2.5)
    description: str = Field(min_length=1)


class _CharactersFile(DataModel):
    """The whole of ``data/characters.yaml``: each trait's reach and the humans, by id, in order."""

    reach: dict[_HumanTrait, tuple[float, float]] = Field(min_length=1)
    characters: dict[str, _CharacterSpec] = Field(min_length=1)

    def problems(self) -> Iterator[tuple[str, str]]:
        for trait, (low, high) in self.reach.items():
            if not 0 <= low <= high:
                yield f"reach.{trait.value}", f"[{low}, {high}] is not [lowest, highest] with 0 <= lowest <= highest"
        for cid, spec in self.characters.items():
            if cid == ROBOT:
                yield f"characters.{cid}", "the robot is not a listed character"
            elif spec.trait not in self.reach:
                yield f"characters.{cid}.trait", f"no reach given for {spec.trait.value!r}"


def load_characters(path: str | Path | Traversable | None = None) -> dict[str, Character]:
    """Read and check a characters file (the one shipped with mindloop when ``path`` is ``None``)."""
    data = load_package_data(_CharactersFile, __name__.rsplit(".", 1)[0], "characters.yaml", path)
    out: dict[str, Character] = {}
    for cid, spec in data.characters.items():
        low, high = data.reach[spec.trait]
        out[cid] = Character(
            cid, cid.capitalize(), Trait(spec.trait), spec.gender, spec.height, low, high, spec.description
        )
    return out


CHARACTERS: dict[str, Character] = load_characters()
"""The sixteen humans, by id (from ``data/characters.yaml``)."""

ROBOT_CHARACTER = Character(ROBOT, "the robot", Trait.ROBOT, "n", 1.5, 0.0, 2.0, "the household robot")
"""The robot: reaches 0-2 m, never sits, eats or drinks."""


def character(cid: str) -> Character:
    """The character with id ``cid`` (the robot included); raises ``KeyError`` for an unknown id."""
    return ROBOT_CHARACTER if cid == ROBOT else CHARACTERS[cid]

"""Dressing a generated story: names, things and furniture of its own, so that no two homes read the same.

A generator scripts a story with the cast's character ids, item kinds as item ids and the layout's place kinds as
place ids, so every story of a home would fetch "the mug" from "the kitchen cabinet" for "Mark", and one constant
answer would match many gold plans. :func:`dress` gives each human a name of their own (played by the same
character of the cast: body, reach and pronouns; MindPower's 16 humanoid agents play many roles), each item a word
of its own (``red_mug``: "the red mug") and each piece of furniture one (``oak_wardrobe``: "the oak wardrobe"),
then replays the script in the dressed home (:attr:`WorldSetup.avatars`, :attr:`WorldSetup.place_ids`), so that
narration, beliefs, gold and plan all follow from the world as before. The sink keeps its id (the home's water is
in it) and rooms, corners and doorways keep theirs.

>>> import random
>>> pick_name(random.Random(0), "f", set()) in NAMES["f"]
True
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import replace

from mindloop.beliefs import Fact
from mindloop.datafiles import DataModel, load_package_data
from mindloop.worlds.household.actions import Action, parse_action
from mindloop.worlds.household.catalog import ITEM_KINDS, PLACE_KINDS
from mindloop.worlds.household.characters import CHARACTERS
from mindloop.worlds.household.entities import dressed_name
from mindloop.worlds.household.results import Failure
from mindloop.worlds.household.scenarios.common import GenerationError, Story
from mindloop.worlds.household.scenarios.episode import Episode
from mindloop.worlds.household.scenarios.gold import Focus
from mindloop.worlds.household.scenarios.model import ScriptStep
from mindloop.worlds.household.setup import WorldSetup
from mindloop.worlds.household.vocab import ENVIRONMENT, Prop

RESERVED_NAMES = frozenset({"david", "mia", "alex", "jamie"})
"""The people of MindPower's prompt examples (Fig. 15), never a dressed story's."""


class _Words(DataModel):
    """``data/dressing.yaml``: given names by pronouns, and the words for things, food, furniture and fixtures."""

    names: dict[str, tuple[str, ...]]
    things: tuple[str, ...]
    food: tuple[str, ...]
    furniture: tuple[str, ...]
    fixtures: tuple[str, ...]


_WORDS = load_package_data(_Words, "mindloop.worlds.household", "dressing.yaml")
NAMES: dict[str, tuple[str, ...]] = _WORDS.names
"""Given names by the pronouns of the character who plays them."""
THING_WORDS = _WORDS.things
"""Words that tell one thing from another of its kind (a red mug, a striped scarf)."""
FOOD_WORDS = _WORDS.food
"""Words for food and drink."""
FURNITURE_WORDS = _WORDS.furniture
"""Words for furniture."""
FIXTURE_WORDS = _WORDS.fixtures
"""Words for appliances and fixtures (what switches on, or gives water)."""

DRESSING_WORDS = tuple(
    dict.fromkeys(w.replace("-", "_") for w in (*THING_WORDS, *FOOD_WORDS, *FURNITURE_WORDS, *FIXTURE_WORDS))
)
"""Every word a dressed id may start with, as the id spells it (``half_eaten``): readers of dressed names use it."""

_KEEP_PLACES = frozenset({"sink"})
"""Places that keep their id: the home's water is put in the sink by id."""


def pick_name(rng: random.Random, gender: str, used: set[str]) -> str:
    """A given name for someone with ``gender``'s pronouns, not in ``used`` nor reserved (added to ``used``)."""
    pool = [n for n in NAMES.get(gender, NAMES["f"] + NAMES["m"]) if n not in used and n not in RESERVED_NAMES]
    if not pool:
        raise GenerationError("no given name left for the cast")
    name = pool[rng.randrange(len(pool))]
    used.add(name)
    return name


def _word(rng: random.Random, words: tuple[str, ...]) -> str:
    return words[rng.randrange(len(words))].replace("-", "_")


def _item_words(kind: str) -> tuple[str, ...]:
    props = ITEM_KINDS[kind].props
    return FOOD_WORDS if props & {Prop.EDIBLE, Prop.LIQUID} else THING_WORDS


def _place_words(kind: str) -> tuple[str, ...]:
    props = PLACE_KINDS[kind].props
    return FIXTURE_WORDS if props & {Prop.SWITCHABLE, Prop.WATER_SOURCE} else FURNITURE_WORDS


_WORD = re.compile(r"\w+")


def _respeaker(spoken: Mapping[str, str]) -> Callable[[str], str]:
    """A function saying each phrase of ``spoken`` its dressed way in a text, longest phrase first, whole words only.

    What ``re.sub`` with the alternation of the phrases (longest first) between ``\\b``s does, without compiling a
    pattern per story (compiling one took most of a story's dressing): the phrases are indexed by their first word
    once, then at each word of a text not inside an earlier match, the longest phrase that starts with that word
    and ends at a word boundary is replaced. A phrase must start and end with a word character (a
    :class:`GenerationError` otherwise).

    >>> _respeaker({"Anna": "Mia", "the cup": "the blue cup"})("Anna gave the cup to the cupboard.")
    'Mia gave the blue cup to the cupboard.'
    """
    by_first: dict[str, list[str]] = {}
    for phrase in sorted(spoken, key=len, reverse=True):
        first = _WORD.match(phrase)
        if first is None or not _WORD.fullmatch(phrase[-1]):  # every catalogue name and given name is whole words
            raise GenerationError(f"cannot dress the phrase {phrase!r}: it must start and end with a word character")
        by_first.setdefault(first.group(), []).append(phrase)

    def respeak(text: str) -> str:
        out: list[str] = []
        done = 0
        for word in _WORD.finditer(text):
            start = word.start()
            if start < done:
                continue
            for phrase in by_first.get(word.group(), ()):
                end = start + len(phrase)
                if text.startswith(phrase, start) and _WORD.match(text, end) is None:
                    out += (text[done:start], spoken[phrase])
                    done = end
                    break
        out.append(text[done:])
        return "".join(out)

    return respeak


def dress(story: Story, rng: random.Random) -> Story:
    """``story`` replayed in a dressed home: every human with a name of their own, every item and piece of
    furniture (the sink excepted) with a word of its own; the script, its facts and its focus renamed to match."""
    world = story.episode.world
    setup: WorldSetup = world.setup
    ids: dict[str, str] = {}
    spoken: dict[str, str] = {}
    used = {h for h, _ in setup.humans} | set(RESERVED_NAMES)
    avatars = []
    for cid, _ in setup.humans:
        name = pick_name(rng, CHARACTERS[cid].gender, used)
        ids[cid] = name
        spoken[CHARACTERS[cid].name] = name.capitalize()
        avatars.append((name, cid))
    given = {i for i, _, _ in setup.items}
    clutter = [(k, k, where) for k, where in world.layout.clutter if k not in given] if setup.clutter else []
    place_ids = []
    for kind in world.layout.place_ids():
        if kind in _KEEP_PLACES:
            continue
        pid = f"{_word(rng, _place_words(kind))}_{kind}"
        ids[kind] = pid
        place_ids.append((kind, pid))
        spoken[f"the {PLACE_KINDS[kind].name}"] = f"the {dressed_name(pid, kind, PLACE_KINDS[kind].name)}"
    items = []
    for iid, kind, _ in [*clutter, *setup.items]:
        new = f"{_word(rng, _item_words(kind))}_{kind}" if kind != "water" else iid
        ids[iid] = new
        if new != iid:
            name = ITEM_KINDS[kind].name
            for article in ("the", "a", "an"):
                spoken[f"{article} {name}"] = f"{article if article == 'the' else 'a'} {dressed_name(new, kind, name)}"
    for iid, kind, where in [*clutter, *setup.items]:
        items.append((ids[iid], kind, ids.get(where, where)))

    def rn(x: str) -> str:
        return ids.get(x, x)

    def fact(f: Fact) -> Fact:
        return Fact(rn(f.subject), f.relation, None if f.value is None else rn(f.value))

    dressed = replace(
        setup,
        humans=tuple((rn(h), room) for h, room in setup.humans),
        items=tuple(items),
        opened=tuple(rn(x) for x in setup.opened),
        switched_on=tuple(rn(x) for x in setup.switched_on),
        filled=tuple((rn(i), liq) for i, liq in setup.filled),
        feelings=tuple((rn(h), f) for h, f in setup.feelings),
        sitting=tuple((rn(h), rn(p)) for h, p in setup.sitting),
        clutter=False,
        avatars=tuple(avatars),
        place_ids=tuple(place_ids),
    )
    respeak = _respeaker(spoken)
    steps = []
    for step in story.episode.script:
        if step.actor == ENVIRONMENT:
            steps.append(step)
            continue
        parsed = parse_action(step.action)
        if isinstance(parsed, Failure):
            raise GenerationError(f"cannot dress the step {step.action!r}: {parsed}")
        text = parsed.text
        if text is not None:
            text = respeak(text)
        action = Action(parsed.verb, tuple(rn(a) for a in parsed.args), text)
        steps.append(ScriptStep(rn(step.actor), str(action), tuple(fact(f) for f in step.facts)))
    episode = Episode(dressed)
    episode.replay(steps)
    focus = Focus(story.focus.family, rn(story.focus.human), rn(story.focus.target))
    return Story(episode, focus, story.meta)

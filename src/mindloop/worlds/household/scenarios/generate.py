"""Seeded scenario generation: one subtype's generator, played, annotated and checked against its intent.

Scenario ``i`` of seed ``s`` depends only on ``(s, i)`` (its own ``random.Random``), so the first ``n`` scenarios
of a seed are the same whatever ``n`` is, and any single one can be regenerated alone.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from mindloop.errors import InvalidArgumentError
from mindloop.worlds.household.narration import perceived, window_text
from mindloop.worlds.household.planner import PlanError
from mindloop.worlds.household.scenarios import false_belief as fb
from mindloop.worlds.household.scenarios import implicit_goal as ig
from mindloop.worlds.household.scenarios.common import Draw, GenerationError, Story
from mindloop.worlds.household.scenarios.dressing import dress
from mindloop.worlds.household.scenarios.episode import ScriptError
from mindloop.worlds.household.scenarios.gold import derive_gold
from mindloop.worlds.household.scenarios.model import Scenario
from mindloop.worlds.household.scenarios.taxonomy import SUBTYPES, subtype
from mindloop.worlds.household.vocab import ROBOT

GENERATORS: dict[str, Callable[[Draw], Story]] = {
    name: getattr(fb if name.startswith("fb_") else ig, name) for name in SUBTYPES
}
"""One generator per subtype of :data:`~mindloop.worlds.household.scenarios.taxonomy.SUBTYPES`, in its order: the
function of that name in the false-belief (``fb_*``) or implicit-goal (``ig_*``) stories."""

MAX_ATTEMPTS = 20
"""Draws tried before giving up on one scenario (a draw fails when, e.g., a home has no room left to wait in)."""


def pick_subtype(rng: random.Random, weights: Mapping[str, float] | None = None) -> str:
    """A subtype drawn with the taxonomy's weights (or ``weights``)."""
    table = weights if weights is not None else {n: s.weight for n, s in SUBTYPES.items()}
    names = [n for n in table if table[n] > 0]
    total = sum(table[n] for n in names)
    x = rng.random() * total
    for name in names:
        x -= table[name]
        if x < 0:
            return name
    return names[-1]


RESERVED_CASTS: tuple[tuple[frozenset[str], frozenset[str]], ...] = (
    (frozenset({"david", "mia"}), frozenset({"mug"})),
    (frozenset({"alex", "jamie"}), frozenset({"glass", "cup", "mug", "water"})),
)
"""The cast and objects of MindPower's prompt examples (Fig. 15: David, Mia and the mug in the dishwasher; Alex and
Jamie wanting water): a draw that puts both people of one with one of its objects in the robot's plan is redrawn,
so that no scenario repeats an example the model is shown in its prompt."""


def _repeats_prompt_example(humans: Sequence[str], actions: Sequence[str]) -> bool:
    args = {a.strip() for act in actions for a in act.partition("(")[2].rstrip(")").split(",")}
    return any(cast <= set(humans) and things & args for cast, things in RESERVED_CASTS)


def generate_scenario(
    kind: str,
    seed: int = 0,
    index: int = 0,
    *,
    layout: str | None = None,
    strict: bool = False,
    bystander: bool | None = None,
    dressed: bool = True,
) -> Scenario:
    """One scenario of subtype ``kind`` from ``(seed, index)``, with its gold annotation.

    A draw that cannot be realised is redrawn (up to :data:`MAX_ATTEMPTS`), and so is one that would repeat a
    prompt example (:data:`RESERVED_CASTS`). With ``strict=True`` a draw whose derived label (help needed or not)
    disagrees with the subtype's intent raises instead of being redrawn, which is how the tests check that
    generators and gold agree. ``bystander`` makes an Implicit Goal story add someone else at home (``True``:
    a draw with nobody else is redrawn, for the first half of the attempts) or not (``False``); ``None`` leaves
    it to chance. ``dressed`` (the default) gives the story's people, things and furniture names of their own
    (:func:`~mindloop.worlds.household.scenarios.dressing.dress`); ``False`` keeps the cast's and the catalogue's.
    """
    spec = subtype(kind)
    gen = GENERATORS[kind]
    last: Exception | None = None
    for attempt in range(MAX_ATTEMPTS):
        rng = random.Random(f"mindpower-sim/{seed}/{index}/{attempt}")
        try:
            story = gen(Draw(rng, layout=layout, bystander=bystander))
            if dressed:
                story = dress(story, random.Random(f"mindpower-sim/{seed}/{index}/{attempt}/dress"))
            gold, goal = derive_gold(story.episode, story.focus)
        except (GenerationError, ScriptError, PlanError) as exc:
            last = exc
            continue
        humans = [h for h, _ in story.episode.world.setup.humans]
        if bystander and len(humans) < 2 and attempt < MAX_ATTEMPTS // 2:  # then: nobody else rather than none
            last = GenerationError(f"{kind} (seed {seed}, index {index}): no room for someone else at home")
            continue
        if _repeats_prompt_example(humans, gold.actions):
            last = GenerationError(f"{kind} (seed {seed}, index {index}): the cast of a prompt example")
            continue
        if gold.help_needed == spec.control:
            message = f"{kind} (seed {seed}, index {index}): gold says help_needed={gold.help_needed}"
            if strict:
                raise GenerationError(message)
            last = GenerationError(message)
            continue
        ep = story.episode
        events = tuple(ep.events)
        heard = [e for e in perceived(events, ROBOT) if e.is_utterance]
        dialogue = tuple((e.actor or "", e.text.split(": ", 1)[1].strip('"')) for e in heard)
        return Scenario(
            id=f"mps-{seed}-{index:05d}",
            seed=seed,
            index=index,
            task_type=spec.task_type,
            subtype=kind,
            category=spec.category,
            control=spec.control,
            special_needs=spec.special_needs,
            humans=tuple(h for h, _ in ep.world.setup.humans),
            setup=ep.world.setup,
            script=tuple(ep.script),
            observation=window_text(events, ROBOT),
            dialogue=dialogue,
            events=events,
            goal=goal,
            gold=gold,
            meta=(("attempt", str(attempt)), *story.meta),
        )
    raise GenerationError(f"could not generate {kind} for seed {seed}, index {index}: {last}")


def generate_scenarios(
    n: int,
    seed: int = 0,
    *,
    subtypes: Sequence[str] | Mapping[str, float] | None = None,
) -> list[Scenario]:
    """``n`` scenarios of a seed, subtypes drawn with the taxonomy's weights (or from ``subtypes``: a list to
    draw from uniformly, or a name -> weight mapping)."""
    if n < 0:
        raise InvalidArgumentError(f"n must be >= 0, got {n}")
    weights: Mapping[str, float] | None
    if subtypes is None:
        weights = None
    elif isinstance(subtypes, Mapping):
        weights = {subtype(k).name: float(v) for k, v in subtypes.items()}
    else:
        weights = {subtype(k).name: 1.0 for k in subtypes}
    out = []
    for i in range(n):
        kind = pick_subtype(random.Random(f"mindpower-sim/{seed}/{i}/subtype"), weights)
        out.append(generate_scenario(kind, seed, i))
    return out


def generate_planned(plan: Sequence[tuple[str, bool | None]], seed: int = 0) -> list[Scenario]:
    """Scenario ``i`` of subtype ``plan[i][0]`` (with ``plan[i][1]`` as its ``bystander``), for every ``i``."""
    return [generate_scenario(kind, seed, i, bystander=by) for i, (kind, by) in enumerate(plan)]

"""``mindloop demo``: a short false-belief story, told step by step with what everyone believes.

It runs on the embedded default only (the symbolic tracker, no model, no network). Each step prints the
sentence and a table of every holder chain's belief about where the object is; beliefs that no longer match
the world are highlighted, so the moment a belief goes stale is visible.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from mindloop.beliefs import WORLD, Chain, Event, Tracker, Utterance, chain_str
from mindloop.stories.tomi import IN, narrate

__all__ = ["DEMO_STORY", "run_demo"]

DEMO_STORY: tuple[str, ...] = (
    "Sally entered the kitchen.",
    "Anne entered the kitchen.",
    "Robot entered the kitchen.",
    "The marble is in the basket.",
    "Sally exited the kitchen.",
    "Anne moved the marble to the box.",
    "Anne exited the kitchen.",
    "Sally entered the garden.",
    "Anne entered the garden.",
    "Anne privately told Sally that the marble is in the box.",
)
"""Sally–Anne with a witness robot, and a closing utterance that repairs Sally's belief."""

_OBJECT = "marble"


_CHAINS: tuple[Chain, ...] = (
    WORLD,
    ("Sally",),
    ("Anne",),
    ("Robot",),
    ("Anne", "Sally"),
    ("Sally", "Anne"),
    ("Robot", "Sally"),
)


def run_demo(console: Console | None = None) -> Tracker:
    """Tell :data:`DEMO_STORY` and print one row per sentence with every chain's belief; returns the tracker."""
    console = console or Console(width=max(Console().width, 150))
    tracker = Tracker()
    console.rule("[bold]mindloop demo[/]: where does everyone believe the marble is?")
    console.print(
        "The symbolic belief tracker, no model. An event updates a holder chain (A > B = what A believes B "
        "believes) only\nwhen every agent in it witnessed the event. [bold red]Red[/] = a belief that disagrees "
        "with the world.\n"
    )
    table = Table(show_header=True, header_style="bold", show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("what happens", no_wrap=True)
    for chain in _CHAINS:
        header = chain_str(chain).replace(" > ", ">")
        table.add_column(header, justify="center", min_width=len(header) + 1)
    by_step: dict[int, list[Event | Utterance]] = {}
    for item in narrate(list(enumerate(DEMO_STORY, 1)), source="demo"):
        by_step.setdefault(item.t, []).append(item)
    for t, sentence in enumerate(DEMO_STORY, 1):
        tracker.apply_all(by_step.get(t, []))
        truth = tracker.world(_OBJECT, IN)
        cells: list[Text] = []
        for chain in _CHAINS:
            belief = tracker.believes(chain, _OBJECT, IN)
            if belief is None:
                cells.append(Text("·", style="dim"))
            elif chain != WORLD and belief.value != truth:
                cells.append(Text(f"{belief.value}!", style="bold red"))
            else:
                style = "bold" if chain == WORLD else ("cyan" if belief.since == t else "")
                cells.append(Text(str(belief.value), style=style))
        table.add_row(str(t), sentence, *cells)
    console.print(table)
    console.print("[dim]· = no belief yet; ! (red) = false belief; cyan = changed at this step[/]\n")
    stale = [(c, m) for c in _CHAINS[1:] for m in tracker.mismatches(c) if m.key == (_OBJECT, IN)]
    if stale:
        console.print("[bold]False beliefs at the end[/]")
    for chain, mismatch in stale:
        console.print(
            f"  [red]{chain_str(chain)}[/]: the marble is in the [bold]{mismatch.held.value}[/] "
            f"(held since step {mismatch.held.since}, from {mismatch.held.source.value}); "
            f"really in the [bold]{mismatch.actual}[/]."
        )
    sally = tracker.believes(("Sally",), _OBJECT, IN)
    if sally is not None:
        console.print(
            f"\nSally now believes [bold]{sally.value}[/] ({sally.source.value}, step {sally.since}): Anne told her."
            " Anne's own words never change Anne's belief, and the robot, not there, still thinks Sally expects"
            " the basket."
        )
    console.print(
        "\nNext: [bold]mindloop tom eval FILE[/] answers every question of a ToMi or Hi-ToM file with this tracker."
    )
    return tracker

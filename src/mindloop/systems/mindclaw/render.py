"""Text renderings of the trigger context for model prompts (the same facts the symbolic components read)."""

from __future__ import annotations

from collections.abc import Sequence

from mindloop.systems.mindclaw.context import TriggerContext


def _names(values: frozenset[str], limit: int | None = 120) -> str:
    items = sorted(values)
    more = f", ... ({len(items) - limit} more)" if limit is not None and len(items) > limit else ""
    return ", ".join(items[:limit]) + more or "none"


def observation_lines(ctx: TriggerContext) -> list[str]:
    """``<Observation>`` (this window's events and seen moves) and ``<Activity>`` (what each person did since they
    last came into their room; whether the power is out)."""
    o = ctx.observation
    lines = [f"<Observation> window {ctx.t}"]
    lines += [f"  {e.text}" for e in o.events if e.text] or ["  (nothing happened)"]
    for m in o.moves:
        who = ", ".join(m.witnesses) or "nobody"
        lines.append(f"  seen: {m.object} -> {m.location} (seen by: {who})")
    scene = o.scene
    lines.append("<Activity> what each person did since they last came into their room:")
    for actor, acts in sorted(o.activity.acts.items()):
        since = o.activity.since_entry(actor)
        room = scene.agent_room(actor) if scene is not None else None
        recent = [f"{a.verb}({', '.join(a.args)}){' failed' if a.failure else ''}" for a in acts if a.t > since][-8:]
        where = f"in the {room}" if room else "out of view"
        lines.append(f"  {actor} ({where}): {', '.join(recent) or 'nothing yet'}")
    if scene is not None and not scene.power():
        lines.append("  the power is out")
    return lines


def candidate_lines(ctx: TriggerContext, limit: int | None = 120) -> list[str]:
    """``<Candidates>``: the actors, objects and locations a slot may name (each list cut at ``limit``)."""
    c = ctx.candidates
    return [
        f"<Candidates> actors: {_names(c.actors, limit)}",
        f"  objects: {_names(c.objects, limit)}",
        f"  locations: {_names(c.locations, limit)}",
    ]


def render_context(ctx: TriggerContext, *, skills: Sequence[str] | None, history: int = 8) -> str:
    """The context as tagged text: ``<Observation>``, ``<Activity>``, ``<BeliefTable>``, ``<History>``,
    ``<ThisWindow>``, ``<Candidates>`` and, when given, ``<Skills>`` (one line each)."""
    lines = observation_lines(ctx)
    table = ctx.memory.table
    if table is not None:
        visual = "; ".join(f"{k} -> {v}" for k, v in table.visual_facts().items()) or "empty"
        lines.append(f"<BeliefTable> visual_facts: {visual}")
        for actor, row in table.actor_beliefs().items():
            lines.append(f"  actor_beliefs[{actor}]: " + "; ".join(f"{k} -> {v}" for k, v in row.items()))
    entries = ctx.memory.history.recent(history)
    lines.append("<History> " + ("; ".join(f"t{h.t} {h.op or h.kind}" for h in entries) or "empty"))
    done = ", ".join(str(op) for op in ctx.ops) or "none yet"
    lines.append(f"<ThisWindow> operations so far: {done}")
    if ctx.reasoning is not None:
        r = ctx.reasoning
        lines.append(f"  reasoning: context={r.context}, blocks={r.blocks}, intervene={r.warranted}")
    lines += candidate_lines(ctx)
    if skills:
        lines.append("<Skills>")
        lines += [f"  {s}" for s in skills]
    return "\n".join(lines)

"""Theory-of-Space metrics: cognitive maps, belief diagnostics, uncertainty, exploration, false belief, tasks.

Everything follows the reference implementation (mll-lab-nu/Theory-of-Space) where it defines a score:

* **Cognitive map** (:func:`map_scores`): *direction* is the share of item pairs (the origin added as an item)
  whose 8-bin allocentric relation matches; *facing* the share of oriented objects (doors excluded) with the
  right facing; *position* ``(K/N)·exp(-RMSE/L)`` over the K of N items present, ``L`` the RMS norm of the true
  object positions; *overall* their mean. Maps are parsed leniently (:func:`parse_cognitive_map`): the largest
  JSON block, fenced blocks first, nested ``objects``/``gates`` lists, ``pos``/``xy`` synonyms, facings written
  as ``N``, ``+y``, ``forward``...
* **Uncertainty probe**: cells never in view, sampled per room against seen ones, labelled A–Z; F1 of the
  labels chosen as unexplored.
* **Exploration efficiency**: steps, action cost, node and edge coverage, and the information gain per step (the
  reference's domain-size definition, :func:`mindloop.systems.tos.world.solver.information_gain`), plotted by
  :func:`plot_information_gain`.
* **False belief**: detection F1 (identity and type), redundancy (cost spent after every change was in view),
  belief correctness of the revised map for the changed objects, and belief inertia ``s_pos``/``s_ori`` (how
  much the revised map still holds the obsolete position/facing).
* **Downstream tasks** (:func:`score_answer`): direction + distance 0.5 each (the reference's lenient label
  matching), exact order for ``ment.rot``, coordinate similarity for ``alloc.map``/``view2loc``, simulated
  view checks for ``view2act``/``perc.dec``.

The scores live by topic in :mod:`~mindloop.systems.tos.cogmap` (maps and belief diagnostics),
:mod:`~mindloop.systems.tos.exploration` (uncertainty probe, exploration efficiency, false belief) and
:mod:`~mindloop.systems.tos.task_scoring` (downstream tasks); this module gathers them under one name.
"""

from __future__ import annotations

from mindloop.systems.tos.cogmap import (
    CogMap,
    MapEntry,
    MapScores,
    belief_diagnostics,
    extract_json,
    gt_global_map,
    gt_local_map,
    map_scores,
    parse_cognitive_map,
    pos_norm,
)
from mindloop.systems.tos.exploration import (
    false_belief_scores,
    fog_probe_candidates,
    information_gain_curve,
    mean_curve,
    parse_fog_probe,
    plot_information_gain,
    score_fog_probe,
    unexplored_cells,
)
from mindloop.systems.tos.task_scoring import labels_match, score_answer

__all__ = [
    "CogMap",
    "MapEntry",
    "MapScores",
    "belief_diagnostics",
    "extract_json",
    "false_belief_scores",
    "fog_probe_candidates",
    "gt_global_map",
    "gt_local_map",
    "information_gain_curve",
    "labels_match",
    "map_scores",
    "mean_curve",
    "parse_cognitive_map",
    "parse_fog_probe",
    "plot_information_gain",
    "pos_norm",
    "score_answer",
    "score_fog_probe",
    "unexplored_cells",
]

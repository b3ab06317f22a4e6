"""Theory of Space: spatial belief built by active exploration of a multi-room grid (see ``docs/tos.md``).

:mod:`.world` is the grid world and its tasks, :mod:`.explorers` the explorers, :mod:`.metrics` cognitive-map and
task scoring, :mod:`.benchmarks` ``tos-active``/``tos-passive`` and :mod:`.cli` the ``mindloop tos`` group.
"""
